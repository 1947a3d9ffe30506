//! `provscope summary`: what each session holds, and what was wrong with the input.

use super::{Out, EXIT_INPUT, EXIT_OK};
use crate::ingest::{self, LoadOptions, Loaded};
use crate::model::{DiagLevel, Session};
use crate::text::one_line;
use serde::Serialize;
use std::path::PathBuf;

/// Output formats of `summary`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// A table for people.
    Text,
    /// One JSON object per session, in an array.
    Json,
}

/// One row of the summary.
#[derive(Serialize)]
struct Row<'a> {
    session: &'a str,
    file: &'a str,
    /// `provscope` for a session log, else the importer that read the file.
    format: &'a str,
    /// What the source lacked and how it was filled in (imported files only).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
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

fn row<'a>(s: &'a Session, cfg: &crate::check::Config) -> Row<'a> {
    let errors = s
        .diagnostics
        .iter()
        .filter(|d| d.level == DiagLevel::Error)
        .count();
    Row {
        session: &s.name,
        file: &s.source,
        format: s.format(),
        notes: s.import.as_ref().map_or(&[], |i| i.notes.as_slice()),
        turns: s.turns.len(),
        calls: s.calls.len(),
        results: s.results.len(),
        claims: s.claim_count(),
        envelopes: s.envelopes.len(),
        errors,
        warnings: s.diagnostics.len() - errors,
        findings: crate::check::check_session(s, cfg).metrics.severities,
    }
}

/// Loads `paths` (or the bundled samples) and prints the summary. Diagnostics go to stderr.
pub fn run(
    out: &mut Out,
    paths: &[PathBuf],
    format: Format,
    opts: &LoadOptions,
    cfg: &crate::check::Config,
    threads: usize,
) -> u8 {
    let loaded = if paths.is_empty() {
        Loaded {
            sessions: ingest::samples::load_all(opts),
            input_errors: vec![],
        }
    } else {
        ingest::load_paths(paths, opts, threads)
    };
    let rows: Vec<Row> = loaded.sessions.iter().map(|s| row(s, cfg)).collect();
    match format {
        Format::Json => {
            out.line(&serde_json::to_string_pretty(&rows).unwrap_or_default());
        }
        Format::Text => print_table(out, &rows),
    }
    for d in loaded.diagnostics() {
        eprintln!("{}", one_line(&d.to_string()));
    }
    if loaded.has_errors() {
        EXIT_INPUT
    } else {
        EXIT_OK
    }
}

fn print_table(out: &mut Out, rows: &[Row]) {
    let w = rows
        .iter()
        .map(|r| one_line(r.session).chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    let fw = rows
        .iter()
        .map(|r| r.format.len())
        .max()
        .unwrap_or(0)
        .max(6);
    out.line(&format!(
        "{:<w$}  {:<fw$}  {:>5}  {:>5}  {:>7}  {:>6}  {:>9}  {:>11}  FINDINGS",
        "SESSION", "FORMAT", "TURNS", "CALLS", "RESULTS", "CLAIMS", "ENVELOPES", "DIAGNOSTICS"
    ));
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
        out.line(&format!(
            "{:<w$}  {:<fw$}  {:>5}  {:>5}  {:>7}  {:>6}  {:>9}  {:>11}  {findings}",
            one_line(r.session),
            r.format,
            r.turns,
            r.calls,
            r.results,
            r.claims,
            r.envelopes,
            diag
        ));
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
        out.line(&format!(
            "{:<w$}  {:<fw$}  {:>5}  {:>5}  {:>7}  {:>6}  {:>9}  {:>11}",
            format!("{} sessions", rows.len()),
            "",
            total[0],
            total[1],
            total[2],
            total[3],
            total[4],
            total[5]
        ));
    }
}
