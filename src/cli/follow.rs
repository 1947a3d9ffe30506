//! `provscope verify --follow PATH...`: tails growing logs (a log `provscope record` is writing,
//! or any format provscope reads) and prints each finding once, as it appears, and each finding
//! that goes away as resolved; Ctrl-C (or SIGTERM) ends it with the summary and `verify`'s exit
//! code. The tailing (complete lines only, truncation and rotation, OS notifications with a
//! polling fallback) is `ingest::tail`, shared with the explorer's follow mode.
//!
//! Each change loads the file's sessions again from the complete lines held in memory (no second
//! read from disk) and re-runs the turn-local checks for the affected turns only
//! (`check::incremental`).

use super::{CmdResult, Ctx, Exit, Settings};
use crate::check::incremental::{check_since, Memo};
use crate::check::{Finding, Metrics, Severity};
use crate::ingest::tail::{Follow, Tail, Wake};
use crate::model::DiagLevel;
use crate::text::{one_line, Paint};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// What identifies a finding across re-checks.
type Key = (
    String,
    String,
    &'static str,
    Option<String>,
    Option<u32>,
    Vec<crate::model::Name>,
    String,
);

fn key(session: &str, f: &Finding) -> Key {
    (
        session.to_owned(),
        f.message.clone(),
        f.kind.name(),
        f.claim_id.as_deref().map(str::to_owned),
        f.turn,
        f.call_ids.clone(),
        f.location(),
    )
}

/// What was printed for one followed file.
#[derive(Default)]
struct Shown {
    /// Findings printed and still present, with their severity.
    shown: BTreeMap<Key, (Severity, Finding)>,
    /// The metrics and error diagnostics of the last check.
    metrics: Vec<Metrics>,
    diagnostics: Vec<crate::model::Diagnostic>,
    /// What the last check of each session of the file (in file order) keeps for the next.
    memos: Vec<Memo>,
}

impl Shown {
    /// Re-checks the complete lines; prints new findings and resolved ones at or above `min`.
    fn check(
        &mut self,
        tail: &Tail,
        ctx: &mut Ctx,
        st: &Settings,
        min: Severity,
    ) -> std::io::Result<()> {
        let source = tail.path().display().to_string();
        let name = crate::ingest::session_name(tail.path());
        let sessions = crate::ingest::load_any_bytes(&name, &source, &tail.settled(), st.load());
        let mut now: BTreeMap<Key, (Severity, Finding)> = BTreeMap::new();
        self.metrics.clear();
        self.diagnostics.clear();
        let mut memos = Vec::with_capacity(sessions.len());
        for (k, s) in sessions.iter().enumerate() {
            let (r, memo, _) = check_since(s, st.config(), &[], self.memos.get(k));
            memos.push(memo);
            for f in r.findings.iter().filter(|f| f.severity <= min) {
                now.insert(key(&r.session_id, f), (f.severity, f.clone()));
            }
            self.metrics.push(r.metrics);
            self.diagnostics.extend(s.diagnostics.iter().cloned());
        }
        self.memos = memos;
        let file = one_line(&source).into_owned();
        let mut t = ctx.human();
        for (k, (sev, f)) in &now {
            if !self.shown.contains_key(k) {
                line(&mut t, "", *sev, f, &file)?;
            }
        }
        for (k, (sev, f)) in &self.shown {
            if !now.contains_key(k) {
                line(&mut t, "resolved: ", *sev, f, &file)?;
            }
        }
        drop(t);
        ctx.out.flush()?;
        self.shown = now;
        Ok(())
    }
}

fn line<W: Write>(
    t: &mut crate::text::Term<W>,
    prefix: &str,
    sev: Severity,
    f: &Finding,
    file: &str,
) -> std::io::Result<()> {
    write!(t, "{prefix}{file}:{}: ", f.location())?;
    match sev {
        Severity::Error => t.paint(Paint::Error, "error")?,
        Severity::Warning => t.paint(Paint::Warning, "warning")?,
        Severity::Info => t.paint(Paint::Dim, "info")?,
    }
    let who = match (&f.claim_id, f.call_ids.first()) {
        (Some(c), _) => format!(" claim {}", one_line(c)),
        (None, Some(call)) => format!(" call {}", one_line(call)),
        _ => String::new(),
    };
    let turn = f.turn.map_or(String::new(), |n| format!(" turn {n}"));
    writeln!(t, " {}{turn}{who}: {}", f.kind.name(), one_line(&f.message))
}

/// Wakes `follow` with a stop on SIGINT or SIGTERM.
#[cfg(unix)]
fn stop_on_signals(wake: std::sync::mpsc::Sender<Wake>) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let _ = wake.send(Wake::Stop);
        }
    });
}

#[cfg(not(unix))]
fn stop_on_signals(_: std::sync::mpsc::Sender<Wake>) {}

/// Runs `verify --follow`.
pub fn run(
    ctx: &mut Ctx,
    st: &Settings,
    paths: &[PathBuf],
    min: Severity,
    fail_on: Option<Severity>,
) -> CmdResult {
    if paths.is_empty() {
        return Err(super::CliError::Usage(
            "--follow needs the logs to follow (files or directories)".into(),
        ));
    }
    // Named files are followed even before they exist; directories as they were at the start.
    let (present, missing): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.iter().cloned().partition(|p| p.exists());
    // The logs among the files found in directories, judged now: only those are followed.
    let (mut files, errors) = if present.is_empty() {
        Default::default()
    } else {
        crate::ingest::discover(&present)
    };
    ctx.diags(&errors);
    files.extend(missing);
    let mut follow = Follow::new(files);
    follow.follow_dirs(present.iter().filter(|p| p.is_dir()).cloned().collect());
    stop_on_signals(follow.waker());
    let mut shown: Vec<Shown> = follow.tails.iter().map(|_| Shown::default()).collect();
    ctx.note(&format!(
        "following {} file(s) ({}); Ctrl-C ends with the summary",
        follow.tails.len(),
        follow.mode().as_str()
    ));
    while !follow.stopped() {
        let changes = follow.changes(Duration::from_secs(3600));
        // Files created in a followed directory since.
        for t in follow.tails.iter().skip(shown.len()) {
            ctx.note(&format!(
                "{}: a new log; following it",
                one_line(&t.path().display().to_string())
            ));
        }
        shown.resize_with(follow.tails.len(), Shown::default);
        for (i, change) in changes {
            let tail = &follow.tails[i];
            if let Some(r) = change.restarted {
                // Another file, or the same one rewritten: nothing of the last check holds.
                shown[i].memos.clear();
                ctx.note(&format!(
                    "{}: {}; reloading it from the start",
                    one_line(&tail.path().display().to_string()),
                    r.as_str()
                ));
            }
            if change.appended {
                shown[i]
                    .check(tail, ctx, st, min)
                    .map_err(super::CliError::stdout)?;
            }
        }
    }
    let mut overall = Metrics::default();
    let mut failing = false;
    let mut diags = Vec::new();
    for f in &shown {
        for m in &f.metrics {
            overall.add(m);
        }
        diags.extend(f.diagnostics.iter().cloned());
        failing |= fail_on.is_some_and(|t| f.shown.values().any(|(s, _)| *s <= t));
    }
    // Findings below the display threshold still count for --fail-on.
    if let Some(t) = fail_on {
        failing |= overall.severities.iter().any(|(s, n)| *s <= t && *n > 0);
    }
    let count = |s: Severity| overall.severities.get(&s).copied().unwrap_or(0);
    {
        let mut t = ctx.human();
        writeln!(
            t,
            "\n{} claims: {} errors, {} warnings, {} info",
            overall.claims,
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        )
        .map_err(super::CliError::stdout)?;
    }
    ctx.diags(&diags);
    if errors
        .iter()
        .chain(&diags)
        .any(|d| d.level == DiagLevel::Error)
    {
        return Ok(Exit::InputErrors);
    }
    Ok(Exit::findings_if(failing))
}
