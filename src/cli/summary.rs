//! `provscope summary`: what each session holds, and what was wrong with the input.

use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::check::SessionReport;
use crate::model::{DiagLevel, Session};
use crate::pipeline::Checked;
use crate::text::one_line;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `provscope summary`.
#[derive(clap::Args, Debug)]
pub struct SummaryArgs {
    /// Session logs, traces or directories; none means the bundled samples.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Output formats of `summary`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// A table for people.
    Text,
    /// One JSON object per session, in an array.
    Json,
}

/// One row of the summary: counts only, so a run keeps nothing else per session.
#[derive(Serialize)]
struct Row {
    session: String,
    file: String,
    /// `provscope` for a session log, else the importer that read the file.
    format: String,
    /// What the source lacked and how it was filled in (imported files only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<std::borrow::Cow<'static, str>>,
    turns: usize,
    calls: usize,
    results: usize,
    claims: usize,
    envelopes: usize,
    errors: usize,
    warnings: usize,
    /// Findings per severity from `verify`'s checks (default configuration or ./provscope.toml).
    findings: std::collections::BTreeMap<crate::check::Severity, u64>,
}

fn row(s: &Session, r: &SessionReport) -> Row {
    let errors = s
        .diagnostics
        .iter()
        .filter(|d| d.level == DiagLevel::Error)
        .count();
    Row {
        session: s.name.clone(),
        file: s.source.to_string(),
        format: s.format().to_owned(),
        notes: s.import.as_ref().map_or_else(Vec::new, |i| i.notes.clone()),
        turns: s.turns.len(),
        calls: s.calls.len(),
        results: s.results.len(),
        claims: s.claim_count(),
        envelopes: s.envelopes.len(),
        errors,
        warnings: s.diagnostics.len() - errors,
        findings: r.metrics.severities.clone(),
    }
}

/// Loads `paths` (or the bundled samples) through the pipeline and prints the summary: JSON
/// rows are written as their sessions are checked (nothing kept), the text table keeps one row
/// of counts per session for its column widths. Diagnostics go to stderr.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &SummaryArgs) -> CmdResult {
    let inputs = st.pipeline.discover(&a.paths);
    let mut rows = Vec::new();
    let mut diags = Vec::new();
    let mut bad = inputs.has_errors();
    match a.format {
        Format::Json => {
            // The bytes of `to_writer_pretty` over the array of every row, one row at a time.
            let mut elements = crate::export::stream::Elements::new(1);
            let mut failed = None;
            ctx.out.str("[");
            st.pipeline.run(&inputs, |c: Checked| {
                if failed.is_none() {
                    failed = elements
                        .push(&mut ctx.out, &row(&c.session, &c.report))
                        .err();
                }
                bad |= c.session.has_errors();
                diags.extend(c.session.diagnostics);
                true
            });
            if let Some(e) = failed {
                return Err(CliError::stdout(e));
            }
            elements.close(&mut ctx.out).map_err(CliError::stdout)?;
            ctx.out.line("]");
        }
        Format::Text => {
            st.pipeline.run(&inputs, |c: Checked| {
                rows.push(row(&c.session, &c.report));
                bad |= c.session.has_errors();
                diags.extend(c.session.diagnostics);
                true
            });
            print_table(&mut ctx.human(), &rows).map_err(CliError::stdout)?;
        }
    }
    ctx.diags(inputs.errors.iter().chain(&diags));
    Ok(if bad { Exit::InputErrors } else { Exit::Ok })
}

fn print_table(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    let w = rows
        .iter()
        .map(|r| one_line(&r.session).chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    let fw = rows
        .iter()
        .map(|r| r.format.len())
        .max()
        .unwrap_or(0)
        .max(6);
    writeln!(
        out,
        "{:<w$}  {:<fw$}  {:>5}  {:>5}  {:>7}  {:>6}  {:>9}  {:>11}  FINDINGS",
        "SESSION", "FORMAT", "TURNS", "CALLS", "RESULTS", "CLAIMS", "ENVELOPES", "DIAGNOSTICS"
    )?;
    let mut total = [0usize; 6];
    for r in rows {
        let diag = match (r.errors, r.warnings) {
            (0, 0) => "-".to_owned(),
            (e, 0) => format!("{e} error{}", if e == 1 { "" } else { "s" }),
            (0, w) => format!("{w} warning{}", if w == 1 { "" } else { "s" }),
            (e, w) => format!("{e}E {w}W"),
        };
        let n = |s: crate::check::Severity| r.findings.get(&s).copied().unwrap_or(0);
        let findings = format!(
            "{}E {}W {}I",
            n(crate::check::Severity::Error),
            n(crate::check::Severity::Warning),
            n(crate::check::Severity::Info)
        );
        writeln!(
            out,
            "{:<w$}  {:<fw$}  {:>5}  {:>5}  {:>7}  {:>6}  {:>9}  {:>11}  {findings}",
            one_line(&r.session),
            r.format,
            r.turns,
            r.calls,
            r.results,
            r.claims,
            r.envelopes,
            diag
        )?;
        for (t, v) in total.iter_mut().zip([
            r.turns,
            r.calls,
            r.results,
            r.claims,
            r.envelopes,
            r.errors + r.warnings,
        ]) {
            *t += v;
        }
    }
    if rows.len() > 1 {
        writeln!(
            out,
            "{:<w$}  {:<fw$}  {:>5}  {:>5}  {:>7}  {:>6}  {:>9}  {:>11}",
            format!("{} sessions", rows.len()),
            "",
            total[0],
            total[1],
            total[2],
            total[3],
            total[4],
            total[5]
        )?;
    }
    Ok(())
}
