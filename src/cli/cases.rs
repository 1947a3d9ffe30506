//! Regression cases and incident write-ups: `export case`, `check`, `report`, `trend`, `correct`.

use super::{Out, EXIT_FINDINGS, EXIT_INPUT, EXIT_OK};
use crate::check::case::{check_case, CheckResult};
use crate::check::{check_session, Config, SessionReport};
use crate::export::case::{self, Case};
use crate::ingest::{self, LoadOptions};
use crate::model::{Session, Timestamp};
use crate::store::{Correction, Store};
use crate::text::one_line;
use std::path::{Path, PathBuf};

/// `provscope export ...`
#[derive(clap::Subcommand, Debug)]
pub enum ExportWhat {
    /// Export a flagged claim as a conflicting-source regression test (`provscope.case/1`).
    Case(ExportCaseArgs),
}

/// Arguments of `export case`.
#[derive(clap::Args, Debug)]
pub struct ExportCaseArgs {
    /// The session log.
    pub session: PathBuf,
    /// The claim id.
    #[arg(long)]
    pub claim: String,
    /// The turn (default: the first turn where the claim has findings).
    #[arg(long)]
    pub turn: Option<u32>,
    /// Write here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Regular expression whose matches are replaced by [REDACTED] (repeatable). Argument keys
    /// that look secret (password, token, api_key, ...) are always redacted.
    #[arg(long, value_name = "PATTERN")]
    pub redact: Vec<String>,
}

/// Output formats of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// One line per case and session.
    Text,
    /// JSON array of results.
    Json,
    /// JUnit XML.
    Junit,
}

/// Arguments of `check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Case files (`provscope.case/1`).
    #[arg(required = true)]
    pub cases: Vec<PathBuf>,
    /// Sessions (files or directories) to check the cases against.
    #[arg(long, required = true, num_args = 1..)]
    pub against: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
}

/// Output formats of `report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Markdown.
    Md,
    /// JSON (`provscope.report/1`).
    Json,
    /// Self-contained HTML.
    Html,
}

/// Arguments of `report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The session log.
    pub session: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Md)]
    pub format: ReportFormat,
    /// Write here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
}

/// Arguments of `trend`.
#[derive(clap::Args, Debug)]
pub struct TrendArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = super::verify::MetricsFormat::Text)]
    pub format: super::verify::MetricsFormat,
}

/// Outcomes of `correct`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Outcome {
    /// Re-fetched from a trusted origin and the claim held: re-stamped, record corrected.
    Survived,
    /// The claim did not hold: the user was notified and the answer fixed.
    Corrected,
}

/// Arguments of `correct`.
#[derive(clap::Args, Debug)]
pub struct CorrectArgs {
    /// The session log.
    pub session: PathBuf,
    /// The claim id.
    #[arg(long)]
    pub claim: String,
    /// The turn (default: the first turn where the claim has findings).
    #[arg(long)]
    pub turn: Option<u32>,
    /// What happened.
    #[arg(long, value_enum)]
    pub outcome: Outcome,
    /// A note for the record.
    #[arg(long, default_value = "")]
    pub note: String,
    /// Where to write the conflicting-source test (default: `SESSION.CLAIM.TURN.case.json` here).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
}

fn load_one(path: &Path, opts: &LoadOptions, cfg: &Config) -> Result<(Session, SessionReport), u8> {
    let s = ingest::load_file(path, opts);
    for d in &s.diagnostics {
        eprintln!("{}", one_line(&d.to_string()));
    }
    if s.has_errors() && s.claim_count() == 0 {
        return Err(EXIT_INPUT);
    }
    let r = check_session(&s, cfg);
    Ok((s, r))
}

fn write_or_print(out: &mut Out, path: Option<&Path>, body: &str) -> u8 {
    match path {
        Some(p) => match std::fs::write(p, body) {
            Ok(()) => EXIT_OK,
            Err(e) => {
                eprintln!("provscope: cannot write {}: {e}", p.display());
                EXIT_INPUT
            }
        },
        None => {
            out.str(body);
            EXIT_OK
        }
    }
}

fn patterns(pats: &[String]) -> Result<Vec<regex::Regex>, u8> {
    pats.iter()
        .map(|p| {
            regex::Regex::new(p).map_err(|e| {
                eprintln!("provscope: --redact `{p}` is not a valid regular expression: {e}");
                EXIT_INPUT
            })
        })
        .collect()
}

/// `export case`.
pub fn export_case(out: &mut Out, a: &ExportCaseArgs, opts: &LoadOptions, cfg: &Config) -> u8 {
    let pats = match patterns(&a.redact) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let (s, r) = match load_one(&a.session, opts, cfg) {
        Ok(x) => x,
        Err(c) => return c,
    };
    match case::export(&s, &r, &a.claim, a.turn, &pats) {
        Ok(c) => {
            let mut body = serde_json::to_string_pretty(&c).unwrap_or_default();
            body.push('\n');
            write_or_print(out, a.output.as_deref(), &body)
        }
        Err(e) => {
            eprintln!("provscope: {e}");
            EXIT_INPUT
        }
    }
}

fn read_case(p: &Path) -> Result<Case, String> {
    let text =
        std::fs::read_to_string(p).map_err(|e| format!("{}: cannot read: {e}", p.display()))?;
    let c: Case = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}:{}:{}: not a provscope case: {e}",
            p.display(),
            e.line(),
            e.column()
        )
    })?;
    if c.format != case::FORMAT {
        return Err(format!(
            "{}: format `{}` is not {} (upgrade provscope?)",
            p.display(),
            c.format,
            case::FORMAT
        ));
    }
    Ok(c)
}

/// `check`.
pub fn check(out: &mut Out, a: &CheckArgs, opts: &LoadOptions, cfg: &Config, threads: usize) -> u8 {
    let mut cases = Vec::new();
    for p in &a.cases {
        match read_case(p) {
            Ok(c) => cases.push(c),
            Err(e) => {
                eprintln!("provscope: {e}");
                return EXIT_INPUT;
            }
        }
    }
    let loaded = ingest::load_paths(&a.against, opts, threads);
    for d in loaded.diagnostics() {
        eprintln!("{}", one_line(&d.to_string()));
    }
    if !loaded.input_errors.is_empty() {
        return EXIT_INPUT;
    }
    let reports: Vec<SessionReport> = loaded
        .sessions
        .iter()
        .map(|s| check_session(s, cfg))
        .collect();
    let pairs: Vec<(&Session, &SessionReport)> = loaded.sessions.iter().zip(&reports).collect();
    let results: Vec<CheckResult> = cases.iter().flat_map(|c| check_case(c, &pairs)).collect();
    let body = match a.format {
        CheckFormat::Json => serde_json::to_string_pretty(&results).unwrap_or_default() + "\n",
        CheckFormat::Junit => junit(&results),
        CheckFormat::Text => {
            let mut t = String::new();
            for r in &results {
                let at = if r.session.is_empty() {
                    String::new()
                } else {
                    format!(" in {} turn {}", r.session, r.turn.unwrap_or(0))
                };
                if r.passed {
                    t.push_str(&format!("pass {}{at}\n", r.case_id));
                } else {
                    t.push_str(&format!(
                        "FAIL {}{at}: {}\n",
                        r.case_id,
                        r.reasons.join("; ")
                    ));
                }
            }
            let failed = results.iter().filter(|r| !r.passed).count();
            t.push_str(&format!(
                "{} passed, {} failed\n",
                results.len() - failed,
                failed
            ));
            t
        }
    };
    out.str(&one_line_safe(&body));
    if results.iter().any(|r| !r.passed) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// Sanitizes every line of a multi-line body for the terminal.
fn one_line_safe(body: &str) -> String {
    body.lines()
        .map(|l| one_line(l).into_owned() + "\n")
        .collect()
}

fn junit(results: &[CheckResult]) -> String {
    use crate::export::xml_escape as x;
    let failed = results.iter().filter(|r| !r.passed).count();
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    o.push_str(&format!(
        "<testsuites name=\"provscope check\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">\n",
        results.len()
    ));
    o.push_str(&format!("  <testsuite name=\"conflicting-source cases\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\">\n", results.len()));
    for r in results {
        let name = if r.session.is_empty() {
            r.case_id.clone()
        } else {
            format!(
                "{} in {} turn {}",
                r.case_id,
                r.session,
                r.turn.unwrap_or(0)
            )
        };
        if r.passed {
            o.push_str(&format!(
                "    <testcase classname=\"provscope.case\" name=\"{}\"/>\n",
                x(&name)
            ));
        } else {
            let msg = r.reasons.join("; ");
            o.push_str(&format!(
                "    <testcase classname=\"provscope.case\" name=\"{}\">\n      <failure type=\"case\" message=\"{}\">{}</failure>\n    </testcase>\n",
                x(&name),
                x(&msg),
                x(&msg)
            ));
        }
    }
    o.push_str("  </testsuite>\n</testsuites>\n");
    o
}

/// Opens the case database only if it exists (read commands never create one).
fn existing_store(db: Option<&Path>) -> Result<Option<Store>, u8> {
    let path = db
        .map(Path::to_path_buf)
        .unwrap_or_else(Store::default_location);
    Store::open_read_only(&path).map_err(|e| {
        eprintln!("provscope: {e}");
        EXIT_INPUT
    })
}

/// `report`.
pub fn report(
    out: &mut Out,
    a: &ReportArgs,
    opts: &LoadOptions,
    cfg: &Config,
    db: Option<&Path>,
) -> u8 {
    let (s, r) = match load_one(&a.session, opts, cfg) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let classes = match existing_store(db) {
        Ok(Some(st)) => {
            let key = crate::store::SessionRef::for_file(&r.session_id, &a.session)
                .ok()
                .and_then(|sref| st.identify(&sref).ok())
                .map_or_else(|| r.session_id.clone(), |i| i.key);
            st.classifications(&key).unwrap_or_default()
        }
        Ok(None) => Vec::new(),
        Err(c) => return c,
    };
    let doc = crate::export::report::document(&s, &r, &classes);
    let body = match a.format {
        ReportFormat::Json => serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n",
        ReportFormat::Md => crate::export::report::markdown(&doc),
        ReportFormat::Html => crate::export::report::html(&doc),
    };
    write_or_print(out, a.output.as_deref(), &body)
}

/// `trend`: quadrant distribution per recorded run, and the alarm.
pub fn trend(out: &mut Out, a: &TrendArgs, db: Option<&Path>) -> u8 {
    let store = match existing_store(db) {
        Ok(Some(s)) => s,
        Ok(None) => {
            eprintln!(
                "provscope: no case database yet: record runs with `provscope verify --record-run`"
            );
            return EXIT_INPUT;
        }
        Err(c) => return c,
    };
    let runs = match store.runs() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("provscope: {e}");
            return EXIT_INPUT;
        }
    };
    let shares: Vec<Option<f64>> = runs
        .iter()
        .map(|r| r.metrics.hidden_failure_share())
        .collect();
    let alarm = match (
        shares.len().checked_sub(2).and_then(|i| shares[i]),
        shares.last().copied().flatten(),
    ) {
        (Some(prev), Some(last)) if last > prev + 1e-9 => Some((prev, last)),
        _ => None,
    };
    match a.format {
        super::verify::MetricsFormat::Json => {
            let doc = serde_json::json!({
                "runs": runs.iter().zip(&shares).map(|(r, s)| serde_json::json!({"id": r.id, "at": r.at.to_string(), "origin": r.origin, "inputs_hash": r.inputs_hash, "quadrants": r.metrics.quadrants, "hidden_failure_share": s})).collect::<Vec<_>>(),
                "alarm": alarm.map(|(p, l)| serde_json::json!({"previous": p, "last": l})),
            });
            out.line(&serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        super::verify::MetricsFormat::Text => {
            if runs.is_empty() {
                out.line("no runs recorded yet: `provscope verify --record-run PATH...`");
            }
            out.line("RUN  AT                     RR    RW    WR    WW   hidden-failure share       ORIGIN");
            for (r, s) in runs.iter().zip(&shares) {
                let q = |x| r.metrics.quadrants.get(&x).copied().unwrap_or(0);
                let share = s.map_or("  n/a".to_owned(), |v| {
                    format!(
                        "{:>4.0}% {}",
                        v * 100.0,
                        "█".repeat((v * 20.0).round() as usize)
                    )
                });
                out.line(&format!(
                    "{:<4} {:<22} {:>4}  {:>4}  {:>4}  {:>4}   {share:<26} {}",
                    r.id,
                    r.at.to_string(),
                    q(crate::check::Quadrant::FactRightSourceRight),
                    q(crate::check::Quadrant::FactRightSourceWrong),
                    q(crate::check::Quadrant::FactWrongSourceRight),
                    q(crate::check::Quadrant::FactWrongSourceWrong),
                    crate::text::one_line(&r.origin)
                ));
            }
        }
    }
    match alarm {
        Some((p, l)) => {
            eprintln!(
                "ALARM: the fact-right-source-wrong share of failed evals rose from {:.0}% to {:.0}% between the last two runs: a dependency may be rotting under passing fact checks",
                p * 100.0,
                l * 100.0
            );
            EXIT_FINDINGS
        }
        None => EXIT_OK,
    }
}

/// `correct`: records what happened to a flagged shipped answer and writes its case.
pub fn correct(
    out: &mut Out,
    a: &CorrectArgs,
    opts: &LoadOptions,
    cfg: &Config,
    db: Option<&Path>,
) -> u8 {
    let (s, r) = match load_one(&a.session, opts, cfg) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let c = match case::export(&s, &r, &a.claim, a.turn, &[]) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("provscope: {e}");
            return EXIT_INPUT;
        }
    };
    let path = db
        .map(Path::to_path_buf)
        .unwrap_or_else(Store::default_location);
    let store = match Store::open(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("provscope: {e}");
            return EXIT_INPUT;
        }
    };
    let outcome = match a.outcome {
        Outcome::Survived => "survived",
        Outcome::Corrected => "corrected",
    };
    let sref = crate::store::SessionRef::for_file(&r.session_id, &a.session).unwrap_or(
        crate::store::SessionRef {
            session_id: r.session_id.clone(),
            path: String::new(),
            content_hash: None,
        },
    );
    let key = match store.upsert_session(&sref) {
        Ok(id) => {
            if let Some(w) = id.warning(&sref) {
                eprintln!("provscope: warning: {}", one_line(&w));
            }
            id.key
        }
        Err(e) => {
            eprintln!("provscope: {e}");
            return EXIT_INPUT;
        }
    };
    let rec = Correction {
        session_id: key,
        claim_id: a.claim.clone(),
        turn: c.source.turn,
        outcome: outcome.into(),
        note: a.note.clone(),
        at: Timestamp::now(),
    };
    if let Err(e) = store.add_correction(&rec) {
        eprintln!("provscope: {e}");
        return EXIT_INPUT;
    }
    let file = a
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(case::file_name(&s.name, &a.claim, c.source.turn)));
    let body = serde_json::to_string_pretty(&c).unwrap_or_default() + "\n";
    if let Err(e) = std::fs::write(&file, body) {
        eprintln!("provscope: cannot write {}: {e}", file.display());
        return EXIT_INPUT;
    }
    out.line(&format!(
        "recorded {outcome} for {} turn {} in {}; conflicting-source test written to {}",
        a.claim,
        c.source.turn,
        store.path().display(),
        file.display()
    ));
    EXIT_OK
}

/// Arguments of `import`.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Session logs or directories to check and import.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// `import`: checks sessions and writes their claims and findings into the case store.
pub fn import(
    out: &mut Out,
    a: &ImportArgs,
    opts: &LoadOptions,
    cfg: &Config,
    db: Option<&Path>,
) -> u8 {
    let path = db
        .map(Path::to_path_buf)
        .unwrap_or_else(Store::default_location);
    let store = match Store::open(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("provscope: {e}");
            return EXIT_INPUT;
        }
    };
    let (files, errors) = ingest::discover(&a.paths);
    for e in &errors {
        eprintln!("{}", one_line(&e.to_string()));
    }
    let t = std::time::Instant::now();
    let (mut rows, mut sessions, mut bad) = (0usize, 0usize, false);
    // Sessions are committed in batches: one transaction (one fsync) per batch.
    const BATCH: usize = 1024;
    for chunk in files.chunks(BATCH) {
        let mut batch = Vec::with_capacity(chunk.len());
        for f in chunk {
            let s = ingest::load_file(f, opts);
            for d in &s.diagnostics {
                eprintln!("{}", one_line(&d.to_string()));
            }
            bad |= s.has_errors();
            let r = check_session(&s, cfg);
            // The content hash is part of the session's identity in the store.
            let sref = crate::store::SessionRef::for_file(&r.session_id, f).unwrap_or_else(|_| {
                crate::store::SessionRef {
                    session_id: r.session_id.clone(),
                    path: std::path::absolute(f)
                        .unwrap_or(f.clone())
                        .display()
                        .to_string(),
                    content_hash: None,
                }
            });
            batch.push((sref, r));
        }
        match store.import_reports(batch.iter().map(|(a, b)| (a, b))) {
            Ok(n) => {
                rows += n;
                sessions += batch.len();
            }
            Err(e) => {
                eprintln!("provscope: {e}");
                return EXIT_INPUT;
            }
        }
    }
    let secs = t.elapsed().as_secs_f64().max(1e-9);
    out.line(&format!("imported {sessions} sessions, {rows} rows into {} ({:.0} rows/s including loading and checking)", store.path().display(), rows as f64 / secs));
    if bad || !errors.is_empty() {
        EXIT_INPUT
    } else {
        EXIT_OK
    }
}
