//! `provscope trend`: the quadrant distribution of each recorded run and the playbook's alarm
//! (the fact-right-source-wrong share of failed claims rose between runs). The last run is
//! compared with the latest earlier run over the same inputs (`inputs_hash`), never with a run
//! over other inputs unless asked (`--any-inputs`), and the comparison is always named.

use crate::check::Quadrant;
use crate::model::Timestamp;
use crate::store::{Classification, Correction, Run};
use crate::text::{Paint, Term};
use serde::Serialize;
use std::io::{self, Write};

/// The hidden-failure share rose from `previous` to `last`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Alarm {
    /// The run compared with (its id).
    pub previous_run: i64,
    /// Its share; `None` when nothing failed in it (the share was undefined, and any hidden
    /// failure now is a rise).
    pub previous: Option<f64>,
    /// The last run (its id).
    pub last_run: i64,
    /// Share in the last run.
    pub last: f64,
}

impl Alarm {
    /// The alarm sentence.
    pub fn message(&self) -> String {
        let from = match self.previous {
            Some(p) => format!("{:.0}%", p * 100.0),
            None => "none (no failed evals)".to_owned(),
        };
        format!(
            "the fact-right-source-wrong share of failed evals rose from {from} in run {} to {:.0}% in run {}: a dependency may be rotting under passing fact checks",
            self.previous_run,
            self.last * 100.0,
            self.last_run
        )
    }
}

/// Which two runs the alarm compares, and why those.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The latest earlier run over the same inputs.
    SameInputs,
    /// The run just before the last, over other inputs (`--any-inputs`).
    AnyInputs,
}

/// The two runs compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// Index into the runs of the earlier one.
    #[serde(skip)]
    pub previous: usize,
    /// Index of the last run.
    #[serde(skip)]
    pub last: usize,
    /// The earlier run's id.
    pub previous_run: i64,
    /// The last run's id.
    pub last_run: i64,
    /// Why these two.
    pub basis: Basis,
}

/// What the incident procedure recorded in a window of time: `provscope correct` outcomes and
/// hand classifications (the grid applied to user reports), current ones only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Records {
    /// Corrections with outcome `corrected` (the user was notified, the answer fixed).
    pub corrected: u64,
    /// Corrections with outcome `survived` (re-stamped from a trusted origin).
    pub survived: u64,
    /// Claim statements classified by hand.
    pub classified: u64,
}

impl Records {
    fn count(
        corrections: &[Correction],
        classes: &[Classification],
        after: Option<Timestamp>,
        until: Option<Timestamp>,
    ) -> Records {
        let inside = |t: Timestamp| after.is_none_or(|a| t > a) && until.is_none_or(|u| t <= u);
        let mut r = Records::default();
        for c in corrections.iter().filter(|c| inside(c.at)) {
            match c.outcome.as_str() {
                "survived" => r.survived += 1,
                _ => r.corrected += 1,
            }
        }
        r.classified = classes.iter().filter(|c| inside(c.at)).count() as u64;
        r
    }
}

/// Runs with their hidden-failure shares, and the alarm if it fires.
pub struct Trend<'a> {
    /// The recorded runs, oldest first.
    pub runs: &'a [Run],
    /// Each run's hidden-failure share (`None`: nothing failed).
    pub shares: Vec<Option<f64>>,
    /// The two runs compared (`None`: fewer than two runs, or no earlier run over the same
    /// inputs as the last).
    pub compared: Option<Comparison>,
    /// Set when the share rose between the runs compared.
    pub alarm: Option<Alarm>,
    /// Per run: what was recorded after the previous run, up to this one.
    pub records: Vec<Records>,
    /// What was recorded after the last run (all of it when no run is recorded).
    pub since_last: Records,
}

/// Computes the shares and the alarm. The last run is compared with the latest earlier run
/// over the same inputs, or with the run just before it when `any_inputs`.
pub fn analyze<'a>(
    runs: &'a [Run],
    any_inputs: bool,
    corrections: &[Correction],
    classes: &[Classification],
) -> Trend<'a> {
    let shares: Vec<Option<f64>> = runs
        .iter()
        .map(|r| r.metrics.hidden_failure_share())
        .collect();
    let compared = runs.len().checked_sub(1).and_then(|last| {
        let same = (0..last)
            .rev()
            .find(|&i| runs[i].inputs_hash == runs[last].inputs_hash);
        let (previous, basis) = match (same, any_inputs) {
            (Some(i), _) => (i, Basis::SameInputs),
            (None, true) => (last.checked_sub(1)?, Basis::AnyInputs),
            (None, false) => return None,
        };
        Some(Comparison {
            previous,
            last,
            previous_run: runs[previous].id,
            last_run: runs[last].id,
            basis,
        })
    });
    let alarm = compared.and_then(|c| {
        let last = shares[c.last]?;
        let rose = match shares[c.previous] {
            Some(p) => last > p + 1e-9,
            // Nothing failed before: the share was undefined, and any hidden failure is new.
            None => last > 1e-9,
        };
        rose.then_some(Alarm {
            previous_run: c.previous_run,
            previous: shares[c.previous],
            last_run: c.last_run,
            last,
        })
    });
    let records = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let after = i.checked_sub(1).map(|p| runs[p].at);
            Records::count(corrections, classes, after, Some(r.at))
        })
        .collect();
    let since_last = Records::count(corrections, classes, runs.last().map(|r| r.at), None);
    Trend {
        runs,
        shares,
        compared,
        alarm,
        records,
        since_last,
    }
}

/// One sentence naming the runs compared (or why none are).
pub fn comparison_line(t: &Trend) -> Option<String> {
    let last = t.runs.last()?;
    let short = |h: &str| h.get(..12).unwrap_or(h).to_owned();
    Some(match t.compared {
        Some(c) if c.basis == Basis::SameInputs => format!(
            "compared: run {} with run {} (the latest earlier run over the same inputs, {})",
            c.last_run,
            c.previous_run,
            short(&last.inputs_hash)
        ),
        Some(c) => format!(
            "compared: run {} with run {} (--any-inputs: their inputs differ, {} and {})",
            c.last_run,
            c.previous_run,
            short(&last.inputs_hash),
            short(&t.runs[c.previous].inputs_hash)
        ),
        None if t.runs.len() < 2 => "compared: nothing (one run)".to_owned(),
        None => format!(
            "compared: nothing: no earlier run over the same inputs as run {} ({}); --any-inputs compares it with run {}",
            last.id,
            short(&last.inputs_hash),
            t.runs[t.runs.len() - 2].id
        ),
    })
}

#[derive(Serialize)]
struct RunDoc<'a> {
    id: i64,
    at: String,
    origin: &'a str,
    inputs_hash: &'a str,
    quadrants: &'a std::collections::BTreeMap<Quadrant, u64>,
    hidden_failure_share: Option<f64>,
    /// Corrections and hand classifications recorded after the previous run, up to this one.
    records: Records,
}

/// The JSON document.
#[derive(Serialize)]
pub struct Document<'a> {
    runs: Vec<RunDoc<'a>>,
    compared: Option<Comparison>,
    alarm: Option<Alarm>,
    since_last_run: Records,
}

/// The JSON document of a trend.
pub fn document<'a>(t: &'a Trend<'a>) -> Document<'a> {
    Document {
        runs: t
            .runs
            .iter()
            .zip(&t.shares)
            .zip(&t.records)
            .map(|((r, s), rec)| RunDoc {
                id: r.id,
                at: r.at.to_string(),
                origin: &r.origin,
                inputs_hash: &r.inputs_hash,
                quadrants: &r.metrics.quadrants,
                hidden_failure_share: *s,
                records: *rec,
            })
            .collect(),
        compared: t.compared,
        alarm: t.alarm,
        since_last_run: t.since_last,
    }
}

/// The table, one row per run, columns aligned.
pub fn write_table<W: Write>(out: &mut Term<W>, t: &Trend) -> io::Result<()> {
    if t.runs.is_empty() {
        writeln!(
            out,
            "no runs recorded yet: `provscope verify --record-run PATH...`"
        )?;
        let r = &t.since_last;
        if *r != Records::default() {
            writeln!(
                out,
                "recorded: {} corrected, {} survived, {} classified by hand",
                r.corrected, r.survived, r.classified
            )?;
        }
        return Ok(());
    }
    // Every column as wide as its widest cell by display width (an origin may hold wide or
    // escaped characters); counts and shares right-aligned.
    let width = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    let at_w = t
        .runs
        .iter()
        .map(|r| width(&r.at.to_string()))
        .fold(width("AT"), usize::max);
    let id_w = t
        .runs
        .iter()
        .map(|r| width(&r.id.to_string()))
        .fold(width("RUN"), usize::max);
    let origin_w = t
        .runs
        .iter()
        .map(|r| width(&crate::text::one_line(&r.origin)))
        .fold(width("ORIGIN"), usize::max);
    let cells = [
        Quadrant::FactRightSourceRight,
        Quadrant::FactRightSourceWrong,
        Quadrant::FactWrongSourceRight,
        Quadrant::FactWrongSourceWrong,
    ];
    let count = |r: &Run, q: Quadrant| r.metrics.quadrants.get(&q).copied().unwrap_or(0);
    let count_w = t
        .runs
        .iter()
        .flat_map(|r| cells.map(|q| count(r, q).to_string().len()))
        .fold(5, usize::max);
    // `100%` and `n/a` right-aligned in the first five columns of the share.
    const SHARE_W: usize = 5;
    let pad = |s: &str, w: usize| " ".repeat(w.saturating_sub(width(s)));
    writeln!(
        out,
        "{:<id_w$}  {:<at_w$}  {:<origin_w$}  {:>count_w$} {:>count_w$} {:>count_w$} {:>count_w$}  HIDDEN-FAILURE SHARE",
        "RUN", "AT", "ORIGIN", "RR", "RW", "WR", "WW"
    )?;
    for (r, s) in t.runs.iter().zip(&t.shares) {
        let origin = crate::text::one_line(&r.origin);
        let at = r.at.to_string();
        write!(
            out,
            "{:<id_w$}  {at}{}  {origin}{}  ",
            r.id,
            pad(&at, at_w),
            pad(&origin, origin_w)
        )?;
        let counts: Vec<String> = cells
            .iter()
            .map(|q| format!("{:>count_w$}", count(r, *q)))
            .collect();
        write!(out, "{}  ", counts.join(" "))?;
        match s {
            Some(v) => {
                write!(out, "{:>w$} ", format!("{:.0}%", v * 100.0), w = SHARE_W)?;
                out.paint(Paint::Dim, &"█".repeat((v * 20.0).round() as usize))?;
                writeln!(out)?;
            }
            None => writeln!(out, "{:>w$}", "n/a", w = SHARE_W)?,
        }
    }
    if let Some(line) = comparison_line(t) {
        writeln!(out, "{}", crate::text::one_line(&line))?;
    }
    let show = |r: &Records| {
        format!(
            "{} corrected, {} survived, {} classified by hand",
            r.corrected, r.survived, r.classified
        )
    };
    for (r, rec) in t.runs.iter().zip(&t.records) {
        if *rec != Records::default() {
            writeln!(out, "recorded before run {}: {}", r.id, show(rec))?;
        }
    }
    if t.since_last != Records::default() {
        writeln!(out, "recorded since the last run: {}", show(&t.since_last))?;
    }
    Ok(())
}
