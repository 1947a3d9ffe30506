//! `verify` for people: findings grouped by session and turn, coloured unless NO_COLOR or not a TTY.

use crate::check::{Finding, Outcome, Severity};
use crate::text::one_line;
use std::fmt::Write;

/// Whether to colour output.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Emit ANSI colour.
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\u{1b}[{code}m{s}\u{1b}[0m")
        } else {
            s.to_owned()
        }
    }
    fn sev(&self, s: Severity) -> String {
        match s {
            Severity::Error => self.paint("1;31", "error"),
            Severity::Warning => self.paint("33", "warning"),
            Severity::Info => self.paint("2", "info"),
        }
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{:.0}%", v * 100.0))
}

fn line_for(out: &mut String, st: Style, f: &Finding, file: &str) {
    let who = match (&f.claim_id, f.call_ids.first()) {
        (Some(c), _) => format!("claim {}", one_line(c)),
        (None, Some(call)) => format!("call {}", one_line(call)),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "    {} {} {}: {}  {}",
        st.sev(f.severity),
        st.paint("1", f.kind.name()),
        who,
        one_line(&f.message),
        st.paint("2", &format!("{}:{}", one_line(file), f.line))
    );
}

/// Renders the findings of every session, then totals.
pub fn render(o: &Outcome, st: Style, min: Severity) -> String {
    let mut out = String::new();
    for r in &o.reports {
        let shown: Vec<&Finding> = r.findings.iter().filter(|f| f.severity <= min).collect();
        let m = &r.metrics;
        let _ = writeln!(
            out,
            "{}  {} claims, citation precision {}, wrong-source rate {}",
            st.paint("1", &one_line(&r.name)),
            m.claims,
            pct(m.citation_precision),
            pct(m.wrong_source_rate)
        );
        if shown.is_empty() {
            let _ = writeln!(out, "  {}", st.paint("32", "no findings"));
            continue;
        }
        let mut turn = None;
        for f in shown {
            if f.turn != turn {
                turn = f.turn;
                match turn {
                    Some(t) => {
                        let _ = writeln!(out, "  turn {t}");
                    }
                    None => {
                        let _ = writeln!(out, "  session");
                    }
                }
            }
            line_for(&mut out, st, f, &r.file);
        }
    }
    let m = &o.overall;
    let count = |s: Severity| m.severities.get(&s).copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "\n{} sessions, {} claims: {} errors, {} warnings, {} info; citation precision {}, wrong-source rate {}",
        o.reports.len(),
        m.claims,
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
        pct(m.citation_precision),
        pct(m.wrong_source_rate)
    );
    let q: Vec<String> = m
        .quadrants
        .iter()
        .map(|(q, n)| format!("{} {n}", q.title().to_lowercase()))
        .collect();
    let _ = writeln!(out, "grid: {}", q.join(", "));
    out
}
