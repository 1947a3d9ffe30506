//! `provscope verify`: every finding of every session, for people or machines.

use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::check::gates::GateResult;
use crate::check::Severity;
use crate::export;
use crate::export::stream::{Elements, Frame, Spool, SPOOL_MEMORY};
use crate::model::Timestamp;
use crate::pipeline::Outcome;
use std::io::Write;
use std::path::PathBuf;

/// Output formats of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum VerifyFormat {
    /// Grouped by session and turn, for people.
    Text,
    /// The `provscope.verify/1` JSON document.
    Json,
    /// JUnit XML: one test case per claim.
    Junit,
    /// SARIF 2.1.0: one result per finding.
    Sarif,
}

/// The failure threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Exit 1 on any error finding.
    Error,
    /// Exit 1 on any error or warning finding.
    Warning,
    /// Never exit 1 for findings.
    Never,
}

impl FailOn {
    /// The least serious severity that fails, if any.
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Never => None,
        }
    }
}

/// Arguments of `provscope verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Session logs, traces or directories; none means the bundled samples.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    pub format: VerifyFormat,
    /// Exit 1 when a finding reaches this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// The time recorded as `checked_at` (RFC 3339; default: now), for reproducible output.
    #[arg(long, value_parser = parse_ts)]
    pub now: Option<Timestamp>,
    /// Text format: also list info findings.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Write the report here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Record this run's metrics and quadrant distribution in the case store (--db), for
    /// `provscope trend`.
    #[arg(long)]
    pub record_run: bool,
    /// Follow growing logs: print each finding once as its line completes, and findings that go
    /// away as resolved; Ctrl-C ends with the summary (text format only).
    #[arg(long)]
    pub follow: bool,
    /// OpenTelemetry output.
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
    /// Metric gates (as in `metrics`): a failed gate exits 1 and appears in every format.
    #[command(flatten)]
    pub gates: super::metrics::GateArgs,
}

/// Parses `--now`.
pub fn parse_ts(s: &str) -> Result<Timestamp, crate::model::TimestampError> {
    Timestamp::parse(s)
}

/// Runs `verify`: each session's part of the report is written (text, SARIF) or spooled
/// (JSON, JUnit, whose totals come first) as soon as it is checked; only aggregates are kept
/// (and, for `--otlp`, the reports the traces are made of). Diagnostics and failed gates go to
/// stderr once every session is checked, before the report's last part (totals, gates).
pub fn run(ctx: &mut Ctx, st: &Settings, a: &VerifyArgs) -> CmdResult {
    if a.follow {
        if a.format != VerifyFormat::Text || a.output.is_some() || a.record_run || a.otlp.wanted() {
            return Err(CliError::Usage(
                "--follow prints text to stdout: no --format, -o, --record-run or --otlp".into(),
            ));
        }
        let min = if a.verbose {
            Severity::Info
        } else {
            Severity::Warning
        };
        return super::follow::run(ctx, st, &a.paths, min, a.fail_on.threshold());
    }
    let inputs = st.pipeline.discover(&a.paths);
    let now = a.now.unwrap_or_else(Timestamp::now);
    // OTLP output names each call's tool and JSON-RPC id: collected while the sessions pass.
    let want_otlp = a.otlp.wanted();
    let mut otlp = Outcome::default();
    let mut calls = Vec::new();
    let mut tally = Tally::new(&a.paths);
    let mut file = match &a.output {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| CliError::write(p, e))?,
        )),
        None => None,
    };
    let color = file.is_none() && ctx.color;
    // After a write error the run goes on (totals, --record-run, OTLP), writing nothing more.
    let (mut report, mut failed) = match Report::new(dest(&mut file, &mut ctx.out), a, now, color) {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e)),
    };
    st.pipeline.run(&inputs, |mut c| {
        // A session's diagnostics and its checks' (as `Outcome::push` keeps them).
        c.session.diagnostics.append(&mut c.report.diagnostics);
        tally.add(&c);
        if let (None, Some(r)) = (&failed, &mut report) {
            let w = dest(&mut file, &mut ctx.out);
            failed = r.session(w, &c.report, &c.session.diagnostics).err();
        }
        if want_otlp {
            calls.push(export::otlp::call_index(&c.session));
            otlp.push(c);
        } else {
            tally.diagnostics.extend(c.session.diagnostics);
        }
        true
    });
    if want_otlp {
        tally
            .diagnostics
            .extend(otlp.diagnostics.iter().flatten().cloned());
    }
    ctx.diags(inputs.errors.iter().chain(&tally.diagnostics));
    let gates = a.gates.judge(ctx, st, &tally.overall);
    let written = match (failed, report) {
        (Some(e), _) => Err(e),
        (None, Some(r)) => r.finish(
            dest(&mut file, &mut ctx.out),
            &tally,
            &gates,
            &inputs.errors,
        ),
        (None, None) => Ok(()),
    };
    if a.record_run {
        record_run(ctx, st, &tally, now)?;
    }
    if want_otlp {
        otlp.overall = tally.overall.clone();
        otlp.gates = gates.clone();
        super::otlp::emit(&a.otlp, &otlp, &calls, now)?;
    }
    match (&a.output, file) {
        (Some(p), Some(mut f)) => written
            .and_then(|()| f.flush())
            .map_err(|e| CliError::write(p, e))?,
        _ => written.map_err(CliError::stdout)?,
    }
    let input_errors = inputs
        .errors
        .iter()
        .chain(&tally.diagnostics)
        .any(|d| d.level == crate::model::DiagLevel::Error);
    if input_errors {
        return Ok(Exit::InputErrors);
    }
    let failing = a
        .fail_on
        .threshold()
        .is_some_and(|t| tally.worst.is_some_and(|w| w <= t));
    Ok(Exit::findings_if(
        failing || gates.iter().any(|g| !g.passed),
    ))
}

/// Where the report goes: the `--output` file, else stdout.
fn dest<'a>(
    file: &'a mut Option<std::io::BufWriter<std::fs::File>>,
    out: &'a mut super::output::Out,
) -> &'a mut dyn Write {
    match file {
        Some(f) => f,
        None => out,
    }
}

/// What a run keeps of its sessions: totals, the inputs' hash, the diagnostics it prints.
struct Tally {
    overall: crate::check::Metrics,
    sessions: u64,
    worst: Option<Severity>,
    diagnostics: Vec<crate::model::Diagnostic>,
    /// Over each session's file, id and content hash (`--record-run`); `None` for the samples.
    inputs: Option<sha2::Sha256>,
}

impl Tally {
    fn new(paths: &[PathBuf]) -> Self {
        use sha2::Digest;
        Tally {
            overall: crate::check::Metrics::default(),
            sessions: 0,
            worst: None,
            diagnostics: Vec::new(),
            inputs: (!paths.is_empty()).then(sha2::Sha256::new),
        }
    }

    fn add(&mut self, c: &crate::pipeline::Checked) {
        use sha2::Digest;
        let r = &c.report;
        self.overall.add(&r.metrics);
        self.sessions += 1;
        if let Some(w) = r.worst() {
            self.worst = Some(self.worst.map_or(w, |x| x.min(w)));
        }
        if let Some(h) = &mut self.inputs {
            h.update(format!(
                "{}\0{}\0{}\n",
                r.file,
                r.session_id,
                c.session.content_hash.as_deref().unwrap_or("")
            ));
        }
    }

    /// SHA-256 over the inputs: each session's file and id with its content hash, or the
    /// bundled samples' names and content hashes.
    fn inputs_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        match &self.inputs {
            Some(h) => hex::encode(h.clone().finalize()),
            None => {
                let mut h = Sha256::new();
                for (name, text) in crate::ingest::samples::files() {
                    h.update(format!(
                        "{name}\0{}\n",
                        crate::store::content_hash(text.as_bytes())
                    ));
                }
                hex::encode(h.finalize())
            }
        }
    }
}

/// The report being written, in the chosen format: text through the sanitizing boundary,
/// machine formats straight from their serializers.
enum Report {
    Text {
        color: bool,
        min: Severity,
    },
    /// Sessions spooled until the totals at the top are known.
    Json {
        spool: std::io::BufWriter<Spool>,
        sessions: Elements,
        now: Timestamp,
    },
    /// Suites spooled until the totals at the top are known.
    Junit {
        spool: std::io::BufWriter<Spool>,
        stamp: String,
        fail_on: Option<Severity>,
        tests: usize,
        failures: usize,
    },
    /// Results written as they come: nothing before them depends on them.
    Sarif {
        frame: Frame,
    },
}

impl Report {
    fn new(
        w: &mut dyn Write,
        a: &VerifyArgs,
        now: Timestamp,
        color: bool,
    ) -> std::io::Result<Self> {
        let spool = || std::io::BufWriter::with_capacity(64 << 10, Spool::new(SPOOL_MEMORY));
        Ok(match a.format {
            VerifyFormat::Text => Report::Text {
                color,
                min: if a.verbose {
                    Severity::Info
                } else {
                    Severity::Warning
                },
            },
            VerifyFormat::Json => Report::Json {
                spool: spool(),
                sessions: Elements::new(export::json::SESSIONS_DEPTH),
                now,
            },
            VerifyFormat::Junit => Report::Junit {
                spool: spool(),
                stamp: export::junit::suite_timestamp(now),
                fail_on: a.fail_on.threshold(),
                tests: 0,
                failures: 0,
            },
            VerifyFormat::Sarif => {
                // The head (tool and rules) does not depend on the gates.
                let frame = export::sarif::frame(&[])?;
                w.write_all(frame.head.as_bytes())?;
                Report::Sarif { frame }
            }
        })
    }

    /// Writes (or spools) one checked session.
    fn session(
        &mut self,
        w: &mut dyn Write,
        r: &crate::check::SessionReport,
        diagnostics: &[crate::model::Diagnostic],
    ) -> std::io::Result<()> {
        match self {
            Report::Text { color, min } => {
                let mut t = crate::text::Term::new(w, *color);
                export::text::write_session(&mut t, r, *min)?;
                t.into_inner().map(drop)
            }
            Report::Json {
                spool, sessions, ..
            } => sessions.push(spool, &export::json::session(r, diagnostics)),
            Report::Junit {
                spool,
                stamp,
                fail_on,
                tests,
                failures,
            } => {
                let s = export::junit::verify_suite(r, *fail_on, stamp);
                *tests += s.cases.len();
                *failures += s.failures();
                export::junit::write_suite(spool, &s)
            }
            Report::Sarif { frame } => {
                let mut w = std::io::BufWriter::with_capacity(64 << 10, w);
                let claims = r.finding_claims();
                for (f, c) in r.findings.iter().zip(claims) {
                    frame
                        .elements
                        .push(&mut w, &export::sarif::result(r, f, c))?;
                }
                // Into the destination, not through it.
                w.into_inner().map(drop).map_err(|e| e.into_error())
            }
        }
    }

    /// Writes the totals and gates (text), or the head, the spooled sessions and the tail.
    /// The destination is flushed by the caller.
    fn finish(
        self,
        w: &mut dyn Write,
        tally: &Tally,
        gates: &[GateResult],
        input_errors: &[crate::model::Diagnostic],
    ) -> std::io::Result<()> {
        let mut w = std::io::BufWriter::with_capacity(64 << 10, w);
        match self {
            Report::Text { color, .. } => {
                let mut t = crate::text::Term::new(&mut w, color);
                export::text::write_totals(&mut t, tally.sessions, &tally.overall, gates)?;
                t.into_inner().map(drop)?;
            }
            Report::Json {
                spool,
                sessions,
                now,
            } => {
                let top = export::json::frame(&tally.overall, gates, now, input_errors)?;
                w.write_all(top.head.as_bytes())?;
                let mut spool = spool.into_inner().map_err(|e| e.into_error())?;
                sessions.close(&mut spool)?;
                spool.copy_to(&mut w)?;
                w.write_all(top.tail.as_bytes())?;
                w.write_all(b"\n")?;
            }
            Report::Junit {
                spool,
                stamp,
                tests,
                failures,
                ..
            } => {
                let gate_suite =
                    (!gates.is_empty()).then(|| export::junit::gate_suite(gates, &stamp));
                let (gt, gf) = gate_suite
                    .as_ref()
                    .map_or((0, 0), |s| (s.cases.len(), s.failures()));
                export::junit::write_head(&mut w, "provscope verify", tests + gt, failures + gf)?;
                spool
                    .into_inner()
                    .map_err(|e| e.into_error())?
                    .copy_to(&mut w)?;
                if let Some(s) = &gate_suite {
                    export::junit::write_suite(&mut w, s)?;
                }
                export::junit::write_tail(&mut w)?;
            }
            Report::Sarif { mut frame } => {
                for g in gates.iter().filter(|g| !g.passed) {
                    frame
                        .elements
                        .push(&mut w, &export::sarif::gate_result(g))?;
                }
                frame.elements.close(&mut w)?;
                w.write_all(export::sarif::frame(gates)?.tail.as_bytes())?;
                w.write_all(b"\n")?;
            }
        }
        w.into_inner().map(drop).map_err(|e| e.into_error())
    }
}

/// Stores the run: when, a hash over the inputs' content (from the loaded sessions, not a
/// second read), the overall metrics.
fn record_run(ctx: &mut Ctx, st: &Settings, tally: &Tally, at: Timestamp) -> Result<(), CliError> {
    let path = st.db_path();
    let store = crate::store::Store::open(&path)?;
    let id = store.record_run(at, &tally.inputs_hash(), &tally.overall)?;
    ctx.note(&format!(
        "recorded run {id} in {}",
        crate::store::shown(&path)
    ));
    Ok(())
}
