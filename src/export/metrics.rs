//! `provscope metrics` output: the per-session and overall rates and grid, as a table or JSON.

use crate::check::gates::{title, GateResult};
use crate::check::{Metrics, SessionReport, QUADRANTS};
use crate::text::Term;
use serde::Serialize;
use std::io::{self, Write};

/// The JSON document: overall metrics, then one entry per session.
#[derive(Serialize)]
pub struct Document<'a> {
    overall: &'a Metrics,
    sessions: &'a [SessionMetrics],
    gates: &'a [GateResult],
}

/// What `metrics` keeps of a checked session: its names and its metrics.
#[derive(Serialize)]
pub struct SessionMetrics {
    session_id: String,
    name: String,
    metrics: Metrics,
}

impl SessionMetrics {
    /// The row of a checked session.
    pub fn of(r: &SessionReport) -> Self {
        SessionMetrics {
            session_id: r.session_id.clone(),
            name: r.name.clone(),
            metrics: r.metrics.clone(),
        }
    }
}

/// The JSON document of a run.
pub fn document<'a>(
    overall: &'a Metrics,
    sessions: &'a [SessionMetrics],
    gates: &'a [GateResult],
) -> Document<'a> {
    Document {
        overall,
        sessions,
        gates,
    }
}

/// One line per gate: `gate citation_precision >= 0.9: FAILED: citation_precision is ...`.
pub fn write_gates<W: Write>(t: &mut Term<W>, gates: &[GateResult]) -> io::Result<()> {
    for g in gates {
        write!(t, "gate {}: ", title(g))?;
        if g.passed {
            t.paint(crate::text::Paint::Good, "passed")?;
        } else {
            t.paint(crate::text::Paint::Error, "FAILED")?;
        }
        writeln!(t, ": {}", g.message)?;
    }
    Ok(())
}

fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

/// The table: one row per session and one for all of them, then the finding counts.
pub fn write_table<W: Write>(
    t: &mut Term<W>,
    overall: &Metrics,
    sessions: &[SessionMetrics],
    gates: &[GateResult],
) -> io::Result<()> {
    let names: Vec<String> = sessions
        .iter()
        .map(|r| crate::text::one_line(&r.name).into_owned())
        .collect();
    let w = names
        .iter()
        .map(|n| unicode_width::UnicodeWidthStr::width(n.as_str()))
        .max()
        .unwrap_or(7)
        .max(7);
    writeln!(
        t,
        "{:<w$}  {:>6}  {:>9}  {:>11}  {:>4} {:>4} {:>4} {:>4}",
        "SESSION", "CLAIMS", "PRECISION", "WRONG-SRC", "RR", "RW", "WR", "WW"
    )?;
    let mut rows: Vec<(&str, &Metrics)> = names
        .iter()
        .map(String::as_str)
        .zip(sessions.iter().map(|r| &r.metrics))
        .collect();
    rows.push(("all", overall));
    for (name, m) in rows {
        let q: Vec<u64> = QUADRANTS
            .iter()
            .map(|q| m.quadrants.get(q).copied().unwrap_or(0))
            .collect();
        let pad = w.saturating_sub(unicode_width::UnicodeWidthStr::width(name));
        writeln!(
            t,
            "{name}{:pad$}  {:>6}  {:>9}  {:>11}  {:>4} {:>4} {:>4} {:>4}",
            "",
            m.claims,
            pct(m.citation_precision),
            pct(m.wrong_source_rate),
            q[0],
            q[1],
            q[2],
            q[3]
        )?;
    }
    writeln!(t, "RR fact right/source right, RW fact right/source wrong, WR fact wrong/source right, WW fact wrong/source wrong")?;
    let kinds: Vec<String> = overall
        .kinds
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    if !kinds.is_empty() {
        writeln!(t, "findings: {}", kinds.join(", "))?;
    }
    write_gates(t, gates)
}
