//! `verify` for people: findings grouped by session and turn, written through the sanitizing
//! [`Term`] boundary (coloured when it allows colour).

use crate::check::gates::GateResult;
use crate::check::{ClaimVerdict, Finding, Metrics, SessionReport, Severity};
use crate::model::Provenance;
use crate::text::{Paint, Term};
use std::io::{self, Write};

fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{:.0}%", v * 100.0))
}

fn severity<W: Write>(t: &mut Term<W>, s: Severity) -> io::Result<()> {
    match s {
        Severity::Error => t.paint(Paint::Error, "error"),
        Severity::Warning => t.paint(Paint::Warning, "warning"),
        Severity::Info => t.paint(Paint::Dim, "info"),
    }
}

/// One finding's line; `claim` is its claim statement, whose stamp is marked when an importer
/// derived it from the API's citations (declared, the default, is not marked).
fn finding<W: Write>(
    t: &mut Term<W>,
    f: &Finding,
    claim: Option<&ClaimVerdict>,
    file: &str,
) -> io::Result<()> {
    let derived = claim.is_some_and(|c| c.provenance == Provenance::Derived);
    let who = match (&f.claim_id, f.call_ids.first()) {
        (Some(c), _) if derived => format!("claim {c} (derived stamp)"),
        (Some(c), _) => format!("claim {c}"),
        (None, Some(call)) => format!("call {call}"),
        _ => String::new(),
    };
    write!(t, "    ")?;
    severity(t, f.severity)?;
    write!(t, " ")?;
    t.paint(Paint::Bold, f.kind.name())?;
    // One line per finding: the message may not break it.
    write!(t, " {who}: {}  ", crate::text::one_line(&f.message))?;
    t.paint(Paint::Dim, &format!("{file}:{}", f.location()))?;
    writeln!(t)?;
    if let Some(cmd) = f
        .claim_id
        .as_deref()
        .and_then(|c| open_command(file, c, f.turn))
    {
        write!(t, "      ")?;
        t.paint(Paint::Dim, &cmd)?;
        writeln!(t)?;
    }
    Ok(())
}

/// The command that opens the explorer on a claim: `provscope open FILE --claim ID [--turn N]`,
/// every untrusted part made safe for a terminal and quoted for a shell
/// ([`crate::text::shell_word`]), so a copied command runs nothing else. `None` for a bundled
/// sample, which is no file.
pub fn open_command(file: &str, claim: &str, turn: Option<u32>) -> Option<String> {
    if file.starts_with("<samples>/") {
        return None;
    }
    // A word starting with `-` would be read as an option.
    let file = if file.starts_with('-') {
        format!("./{file}")
    } else {
        file.to_owned()
    };
    let claim = crate::text::shell_word(claim);
    let claim = if claim.starts_with('-') {
        format!("--claim={claim}")
    } else {
        format!("--claim {claim}")
    };
    let mut cmd = format!("provscope open {} {claim}", crate::text::shell_word(&file));
    if let Some(n) = turn {
        cmd.push_str(&format!(" --turn {n}"));
    }
    Some(cmd)
}

/// Writes one session's findings at or above `min`.
pub fn write_session<W: Write>(
    t: &mut Term<W>,
    r: &SessionReport,
    min: Severity,
) -> io::Result<()> {
    let claims = r.finding_claims();
    let shown: Vec<(&Finding, Option<&ClaimVerdict>)> = r
        .findings
        .iter()
        .zip(claims)
        .filter(|(f, _)| f.severity <= min)
        .collect();
    let m = &r.metrics;
    t.paint(Paint::Bold, &crate::text::one_line(&r.name))?;
    // Which importer read an imported file (a session log says nothing).
    if r.format != "provscope" {
        write!(t, "  ({})", r.format)?;
    }
    writeln!(
        t,
        "  {} claims, citation precision {}, wrong-source rate {}",
        m.claims,
        pct(m.citation_precision),
        pct(m.wrong_source_rate)
    )?;
    if shown.is_empty() {
        write!(t, "  ")?;
        t.paint(Paint::Good, "no findings")?;
        return writeln!(t);
    }
    let mut turn = None;
    let mut first = true;
    for (f, claim) in shown {
        if first || f.turn != turn {
            first = false;
            turn = f.turn;
            match turn {
                Some(n) => writeln!(t, "  turn {n}")?,
                None => writeln!(t, "  session")?,
            }
        }
        finding(t, f, claim, &r.file)?;
    }
    Ok(())
}

/// Writes the totals over `sessions` sessions, then the metric gates.
pub fn write_totals<W: Write>(
    t: &mut Term<W>,
    sessions: u64,
    m: &Metrics,
    gates: &[GateResult],
) -> io::Result<()> {
    let count = |s: Severity| m.severities.get(&s).copied().unwrap_or(0);
    writeln!(
        t,
        "\n{} sessions, {} claims: {} errors, {} warnings, {} info; citation precision {}, wrong-source rate {}",
        sessions,
        m.claims,
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
        pct(m.citation_precision),
        pct(m.wrong_source_rate)
    )?;
    let q: Vec<String> = m
        .quadrants
        .iter()
        .map(|(q, n)| format!("{} {n}", q.title().to_lowercase()))
        .collect();
    writeln!(t, "grid: {}", q.join(", "))?;
    super::metrics::write_gates(t, gates)
}
