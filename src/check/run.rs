//! Checking many inputs: load each log, check it, keep the report and drop the session, so memory
//! stays bounded by the largest single log.

use super::{check_session, Config, Metrics, SessionReport};
use crate::ingest::{self, LoadOptions};
use crate::model::{Diagnostic, Session};
use std::path::PathBuf;

/// The outcome of checking a set of inputs.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One report per session, in input order.
    pub reports: Vec<SessionReport>,
    /// Diagnostics per report (same order).
    pub diagnostics: Vec<Vec<Diagnostic>>,
    /// Problems with the paths themselves.
    pub input_errors: Vec<Diagnostic>,
    /// Metrics over every session.
    pub overall: Metrics,
    /// Bytes read.
    pub bytes: u64,
}

impl Outcome {
    /// True when any input had an error-level diagnostic.
    pub fn has_input_errors(&self) -> bool {
        !self.input_errors.is_empty()
            || self
                .diagnostics
                .iter()
                .flatten()
                .any(|d| d.level == crate::model::DiagLevel::Error)
    }

    fn from_parts(
        parts: Vec<(SessionReport, Vec<Diagnostic>, u64)>,
        input_errors: Vec<Diagnostic>,
    ) -> Outcome {
        let mut o = Outcome {
            input_errors,
            ..Outcome::default()
        };
        for (r, d, b) in parts {
            o.overall.add(&r.metrics);
            o.reports.push(r);
            o.diagnostics.push(d);
            o.bytes += b;
        }
        o
    }
}

fn one(s: Session, cfg: &Config) -> (SessionReport, Vec<Diagnostic>, u64) {
    let r = check_session(&s, cfg);
    (r, s.diagnostics, s.bytes)
}

/// Checks every session under `paths`, or the bundled samples when `paths` is empty.
pub fn check_paths(paths: &[PathBuf], opts: &LoadOptions, cfg: &Config, threads: usize) -> Outcome {
    if paths.is_empty() {
        let parts = ingest::samples::load_all(opts)
            .into_iter()
            .map(|s| one(s, cfg))
            .collect();
        return Outcome::from_parts(parts, Vec::new());
    }
    let (files, input_errors) = ingest::discover(paths);
    let parts = ingest::parallel_map(&files, threads, |f| {
        ingest::load_file_sessions(f, opts)
            .into_iter()
            .map(|s| one(s, cfg))
            .collect::<Vec<_>>()
    });
    Outcome::from_parts(parts.into_iter().flatten().collect(), input_errors)
}
