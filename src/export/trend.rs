//! `provscope trend`: the quadrant distribution of each recorded run and the playbook's alarm
//! (the fact-right-source-wrong share of failed claims rose between the last two runs).

use crate::check::Quadrant;
use crate::store::Run;
use crate::text::{Paint, Term};
use serde::Serialize;
use std::io::{self, Write};

/// The hidden-failure share rose from `previous` to `last`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Alarm {
    /// Share in the run before the last.
    pub previous: f64,
    /// Share in the last run.
    pub last: f64,
}

impl Alarm {
    /// The alarm sentence.
    pub fn message(&self) -> String {
        format!(
            "the fact-right-source-wrong share of failed evals rose from {:.0}% to {:.0}% between the last two runs: a dependency may be rotting under passing fact checks",
            self.previous * 100.0,
            self.last * 100.0
        )
    }
}

/// Runs with their hidden-failure shares, and the alarm if it fires.
pub struct Trend<'a> {
    /// The recorded runs, oldest first.
    pub runs: &'a [Run],
    /// Each run's hidden-failure share (`None`: nothing failed).
    pub shares: Vec<Option<f64>>,
    /// Set when the share rose between the last two runs.
    pub alarm: Option<Alarm>,
}

/// Computes the shares and the alarm.
pub fn analyze(runs: &[Run]) -> Trend<'_> {
    let shares: Vec<Option<f64>> = runs
        .iter()
        .map(|r| r.metrics.hidden_failure_share())
        .collect();
    let alarm = match (
        shares.len().checked_sub(2).and_then(|i| shares[i]),
        shares.last().copied().flatten(),
    ) {
        (Some(previous), Some(last)) if last > previous + 1e-9 => Some(Alarm { previous, last }),
        _ => None,
    };
    Trend {
        runs,
        shares,
        alarm,
    }
}

#[derive(Serialize)]
struct RunDoc<'a> {
    id: i64,
    at: String,
    origin: &'a str,
    inputs_hash: &'a str,
    quadrants: &'a std::collections::BTreeMap<Quadrant, u64>,
    hidden_failure_share: Option<f64>,
}

/// The JSON document.
#[derive(Serialize)]
pub struct Document<'a> {
    runs: Vec<RunDoc<'a>>,
    alarm: Option<Alarm>,
}

/// The JSON document of a trend.
pub fn document<'a>(t: &'a Trend<'a>) -> Document<'a> {
    Document {
        runs: t
            .runs
            .iter()
            .zip(&t.shares)
            .map(|(r, s)| RunDoc {
                id: r.id,
                at: r.at.to_string(),
                origin: &r.origin,
                inputs_hash: &r.inputs_hash,
                quadrants: &r.metrics.quadrants,
                hidden_failure_share: *s,
            })
            .collect(),
        alarm: t.alarm,
    }
}

/// The table, one row per run, columns aligned.
pub fn write_table<W: Write>(out: &mut Term<W>, t: &Trend) -> io::Result<()> {
    if t.runs.is_empty() {
        writeln!(
            out,
            "no runs recorded yet: `provscope verify --record-run PATH...`"
        )?;
        return Ok(());
    }
    let at_w = t
        .runs
        .iter()
        .map(|r| r.at.to_string().len())
        .max()
        .unwrap_or(2)
        .max(2);
    let id_w = t
        .runs
        .iter()
        .map(|r| r.id.to_string().len())
        .max()
        .unwrap_or(3)
        .max(3);
    let origin_w = t
        .runs
        .iter()
        .map(|r| unicode_width::UnicodeWidthStr::width(&*crate::text::one_line(&r.origin)))
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(
        out,
        "{:<id_w$}  {:<at_w$}  {:<origin_w$}  {:>5} {:>5} {:>5} {:>5}  HIDDEN-FAILURE SHARE",
        "RUN", "AT", "ORIGIN", "RR", "RW", "WR", "WW"
    )?;
    for (r, s) in t.runs.iter().zip(&t.shares) {
        let q = |x| r.metrics.quadrants.get(&x).copied().unwrap_or(0);
        let origin = crate::text::one_line(&r.origin);
        let pad = origin_w.saturating_sub(unicode_width::UnicodeWidthStr::width(&*origin));
        write!(
            out,
            "{:<id_w$}  {:<at_w$}  {origin}{:pad$}  {:>5} {:>5} {:>5} {:>5}  ",
            r.id,
            r.at.to_string(),
            "",
            q(Quadrant::FactRightSourceRight),
            q(Quadrant::FactRightSourceWrong),
            q(Quadrant::FactWrongSourceRight),
            q(Quadrant::FactWrongSourceWrong)
        )?;
        match s {
            Some(v) => {
                write!(out, "{:>4.0}% ", v * 100.0)?;
                out.paint(Paint::Dim, &"█".repeat((v * 20.0).round() as usize))?;
                writeln!(out)?;
            }
            None => writeln!(out, " n/a")?,
        }
    }
    Ok(())
}
