//! `provscope verify` and `provscope metrics`.

use super::{Out, EXIT_FINDINGS, EXIT_INPUT, EXIT_OK};
use crate::check::{check_paths, Config, Outcome, Severity};
use crate::export;
use crate::ingest::LoadOptions;
use crate::model::Timestamp;
use crate::text::one_line;
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
    fn threshold(self) -> Option<Severity> {
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
    /// Session logs or directories; none means the bundled samples.
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
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
}

fn parse_ts(s: &str) -> Result<Timestamp, String> {
    Timestamp::parse(s)
}

/// Arguments of `provscope metrics`.
#[derive(clap::Args, Debug)]
pub struct MetricsArgs {
    /// Session logs or directories; none means the bundled samples.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MetricsFormat::Text)]
    pub format: MetricsFormat,
}

/// Output formats of `metrics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MetricsFormat {
    /// A table.
    Text,
    /// JSON.
    Json,
}

fn report_diagnostics(o: &Outcome) {
    for d in o.input_errors.iter().chain(o.diagnostics.iter().flatten()) {
        eprintln!("{}", one_line(&d.to_string()));
    }
}

/// Runs `verify`.
pub fn run(
    out: &mut Out,
    a: &VerifyArgs,
    opts: &LoadOptions,
    cfg: &Config,
    threads: usize,
    color: bool,
    db: Option<&std::path::Path>,
) -> u8 {
    let o = check_paths(&a.paths, opts, cfg, threads);
    let now = a.now.unwrap_or_else(Timestamp::now);
    if a.record_run {
        if let Err(e) = record_run(&a.paths, &o, now, db) {
            eprintln!("provscope: --record-run: {e}");
            return EXIT_INPUT;
        }
    }
    if a.otlp.wanted() {
        if let Err(e) = super::otlp::emit(&a.otlp, &o, &a.paths, opts, threads, now) {
            eprintln!("provscope: --otlp: {e}");
            return EXIT_INPUT;
        }
    }
    // The report streams to its destination: a large run's JSON is never held whole in memory.
    let written = match &a.output {
        Some(p) => std::fs::File::create(p)
            .and_then(|f| {
                let mut w = std::io::BufWriter::new(f);
                write_report(&mut w, &o, a, now, false)?;
                w.flush()
            })
            .map_err(|e| format!("cannot write {}: {e}", p.display())),
        None => write_report(out, &o, a, now, color).map_err(|e| format!("cannot write: {e}")),
    };
    if let Err(e) = written {
        eprintln!("provscope: {e}");
        return EXIT_INPUT;
    }
    report_diagnostics(&o);
    if o.has_input_errors() {
        return EXIT_INPUT;
    }
    let failing = a.fail_on.threshold().is_some_and(|t| {
        o.reports
            .iter()
            .flat_map(|r| &r.findings)
            .any(|f| f.severity <= t)
    });
    if failing {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// Writes the report in the chosen format.
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
            let body = export::text::render(o, export::text::Style { color }, min);
            w.write_all(body.as_bytes())
        }
        // The serializers make many small writes: buffer them in front of the destination.
        VerifyFormat::Json => {
            let mut w = std::io::BufWriter::with_capacity(64 << 10, w);
            serde_json::to_writer_pretty(&mut w, &export::json::document(o, now))?;
            w.write_all(b"\n")?;
            w.flush()
        }
        VerifyFormat::Junit => {
            w.write_all(export::junit::render(o, a.fail_on.threshold(), now).as_bytes())
        }
        VerifyFormat::Sarif => {
            let mut w = std::io::BufWriter::with_capacity(64 << 10, w);
            serde_json::to_writer_pretty(&mut w, &export::sarif::render(o))?;
            w.write_all(b"\n")?;
            w.flush()
        }
    }
}

/// Stores the run: when, a hash over the inputs' content, the overall metrics.
fn record_run(
    paths: &[PathBuf],
    o: &Outcome,
    at: Timestamp,
    db: Option<&std::path::Path>,
) -> Result<(), String> {
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
        let (files, _) = crate::ingest::discover(paths);
        for f in files {
            let bytes = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            h.update(format!(
                "{}\0{}\n",
                f.display(),
                crate::store::content_hash(&bytes)
            ));
        }
    }
    let path = db
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(crate::store::Store::default_location);
    let store = crate::store::Store::open(&path).map_err(|e| e.to_string())?;
    let id = store
        .record_run(at, &hex::encode(h.finalize()), &o.overall)
        .map_err(|e| e.to_string())?;
    eprintln!(
        "provscope: recorded run {id} in {}",
        crate::store::shown(&path)
    );
    Ok(())
}

/// Runs `metrics`.
pub fn metrics(
    out: &mut Out,
    a: &MetricsArgs,
    opts: &LoadOptions,
    cfg: &Config,
    threads: usize,
) -> u8 {
    let o = check_paths(&a.paths, opts, cfg, threads);
    match a.format {
        MetricsFormat::Json => {
            let sessions: Vec<_> = o
                .reports
                .iter()
                .map(|r| serde_json::json!({"session_id": r.session_id, "name": r.name, "metrics": r.metrics}))
                .collect();
            let doc = serde_json::json!({"overall": o.overall, "sessions": sessions});
            out.line(&serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        MetricsFormat::Text => {
            let pct = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{:.1}%", v * 100.0));
            let w = o
                .reports
                .iter()
                .map(|r| one_line(&r.name).chars().count())
                .max()
                .unwrap_or(7)
                .max(7);
            out.line(&format!(
                "{:<w$}  {:>6}  {:>9}  {:>11}  {:>4} {:>4} {:>4} {:>4}",
                "SESSION", "CLAIMS", "PRECISION", "WRONG-SRC", "RR", "RW", "WR", "WW"
            ));
            let mut rows: Vec<(String, &crate::check::Metrics)> = o
                .reports
                .iter()
                .map(|r| (one_line(&r.name).into_owned(), &r.metrics))
                .collect();
            rows.push(("all".into(), &o.overall));
            for (name, m) in rows {
                let q: Vec<u64> = crate::check::grid_quadrants()
                    .iter()
                    .map(|q| m.quadrants.get(q).copied().unwrap_or(0))
                    .collect();
                out.line(&format!(
                    "{name:<w$}  {:>6}  {:>9}  {:>11}  {:>4} {:>4} {:>4} {:>4}",
                    m.claims,
                    pct(m.citation_precision),
                    pct(m.wrong_source_rate),
                    q[0],
                    q[1],
                    q[2],
                    q[3]
                ));
            }
            out.line("RR fact right/source right, RW fact right/source wrong, WR fact wrong/source right, WW fact wrong/source wrong");
            let kinds: Vec<String> = o
                .overall
                .kinds
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            if !kinds.is_empty() {
                out.line(&format!("findings: {}", kinds.join(", ")));
            }
        }
    }
    report_diagnostics(&o);
    if o.has_input_errors() {
        EXIT_INPUT
    } else {
        EXIT_OK
    }
}
