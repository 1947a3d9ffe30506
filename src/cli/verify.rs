//! `provscope verify`: every finding of every session, for people or machines.

use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::check::Severity;
use crate::export;
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
pub fn parse_ts(s: &str) -> Result<Timestamp, String> {
    Timestamp::parse(s)
}

/// Runs `verify`.
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
    let mut o = Outcome {
        input_errors: inputs.errors.clone(),
        ..Outcome::default()
    };
    // OTLP output names each call's tool and JSON-RPC id: collected while the sessions pass.
    let want_otlp = a.otlp.wanted();
    let mut calls = Vec::new();
    st.pipeline.run(&inputs, |c| {
        if want_otlp {
            calls.push(export::otlp::call_index(&c.session));
        }
        o.push(c);
        true
    });
    let now = a.now.unwrap_or_else(Timestamp::now);
    ctx.diags(o.input_errors.iter().chain(o.diagnostics.iter().flatten()));
    a.gates.apply(ctx, st, &mut o);
    if a.record_run {
        record_run(ctx, st, &a.paths, &o, now)?;
    }
    if want_otlp {
        super::otlp::emit(&a.otlp, &o, &calls, now).map_err(CliError::Export)?;
    }
    // The report streams to its destination: a large run's JSON is never held whole in memory.
    match &a.output {
        Some(p) => {
            let f = std::fs::File::create(p).map_err(|e| CliError::write(p, e))?;
            let mut w = std::io::BufWriter::new(f);
            write_report(&mut w, &o, a, now, false)
                .and_then(|()| w.flush())
                .map_err(|e| CliError::write(p, e))?;
        }
        None => {
            let color = ctx.color;
            write_report(&mut ctx.out, &o, a, now, color).map_err(CliError::stdout)?;
        }
    }
    if o.has_input_errors() {
        return Ok(Exit::InputErrors);
    }
    let failing = a.fail_on.threshold().is_some_and(|t| {
        o.reports
            .iter()
            .flat_map(|r| &r.findings)
            .any(|f| f.severity <= t)
    });
    Ok(Exit::findings_if(failing || o.gate_failed()))
}

/// Writes the report in the chosen format: text through the sanitizing boundary, machine
/// formats straight from their serializers.
fn write_report(
    w: &mut dyn Write,
    o: &Outcome,
    a: &VerifyArgs,
    now: Timestamp,
    color: bool,
) -> std::io::Result<()> {
    match a.format {
        VerifyFormat::Text => {
            let min = if a.verbose {
                Severity::Info
            } else {
                Severity::Warning
            };
            let mut t = crate::text::Term::new(w, color);
            export::text::write(&mut t, o, min)
        }
        // The serializers make many small writes: buffer them in front of the destination.
        VerifyFormat::Json => {
            let mut w = std::io::BufWriter::with_capacity(64 << 10, w);
            serde_json::to_writer_pretty(&mut w, &export::json::document(o, now))?;
            w.write_all(b"\n")?;
            w.flush()
        }
        VerifyFormat::Junit => export::junit::write(
            w,
            "provscope verify",
            &export::junit::verify_suites(o, a.fail_on.threshold(), now),
        ),
        VerifyFormat::Sarif => {
            let mut w = std::io::BufWriter::with_capacity(64 << 10, w);
            serde_json::to_writer_pretty(&mut w, &export::sarif::render(o))?;
            w.write_all(b"\n")?;
            w.flush()
        }
    }
}

/// Stores the run: when, a hash over the inputs' content (from the loaded sessions, not a
/// second read), the overall metrics.
fn record_run(
    ctx: &mut Ctx,
    st: &Settings,
    paths: &[PathBuf],
    o: &Outcome,
    at: Timestamp,
) -> Result<(), CliError> {
    let path = st.db_path();
    let store = crate::store::Store::open(&path)?;
    let id = store.record_run(at, &inputs_hash(paths, o), &o.overall)?;
    ctx.note(&format!(
        "recorded run {id} in {}",
        crate::store::shown(&path)
    ));
    Ok(())
}

/// SHA-256 over the inputs: each report's file and session id with its content hash.
fn inputs_hash(paths: &[PathBuf], o: &Outcome) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    if paths.is_empty() {
        for (name, text) in crate::ingest::samples::files() {
            h.update(format!(
                "{name}\0{}\n",
                crate::store::content_hash(text.as_bytes())
            ));
        }
    } else {
        for (r, c) in o.reports.iter().zip(&o.content_hashes) {
            h.update(format!(
                "{}\0{}\0{}\n",
                r.file,
                r.session_id,
                c.as_deref().unwrap_or("")
            ));
        }
    }
    hex::encode(h.finalize())
}
