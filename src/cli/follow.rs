//! `provscope verify --follow PATH...`: tails growing logs (a log `provscope record` is writing,
//! or any format provscope reads) and prints each finding once, as it appears, and each finding
//! that goes away as resolved; Ctrl-C (or SIGTERM) ends it with the summary and `verify`'s exit
//! code. Only complete lines are read: a half-written last line waits for its newline. A file
//! that shrinks or is replaced (another inode) is reloaded from its start.
//!
//! Each change re-reads the file's complete lines from memory and re-checks its sessions (no
//! second read from disk; not yet incremental per turn). Files are polled with `stat` every
//! 200 ms.

use super::{CmdResult, Ctx, Exit, Settings};
use crate::check::{check_session, Finding, Metrics, Severity};
use crate::model::DiagLevel;
use crate::text::{one_line, Paint};
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often files are looked at.
const POLL: Duration = Duration::from_millis(200);

/// What identifies a finding across re-checks.
type Key = (
    String,
    String,
    &'static str,
    Option<String>,
    Option<u32>,
    Vec<String>,
    u64,
);

fn key(session: &str, f: &Finding) -> Key {
    (
        session.to_owned(),
        f.message.clone(),
        f.kind.name(),
        f.claim_id.clone(),
        f.turn,
        f.call_ids.clone(),
        f.line,
    )
}

/// One followed file.
struct Followed {
    path: PathBuf,
    /// Every complete line read so far.
    complete: Vec<u8>,
    /// Bytes after the last newline (a line being written).
    partial: Vec<u8>,
    /// Bytes of the file consumed.
    offset: u64,
    /// The file's identity (device, inode) when it was opened.
    id: Option<(u64, u64)>,
    /// Findings printed and still present, with their severity.
    shown: BTreeMap<Key, (Severity, Finding)>,
    /// The metrics and error diagnostics of the last check.
    metrics: Vec<Metrics>,
    diagnostics: Vec<crate::model::Diagnostic>,
}

#[cfg(unix)]
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

impl Followed {
    fn new(path: PathBuf) -> Followed {
        Followed {
            path,
            complete: Vec::new(),
            partial: Vec::new(),
            offset: 0,
            id: None,
            shown: BTreeMap::new(),
            metrics: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// Reads what was appended; true when new complete lines arrived. Notes a truncation or a
    /// replaced file on stderr and starts over.
    fn poll(&mut self, ctx: &mut Ctx) -> bool {
        let Ok(meta) = std::fs::metadata(&self.path) else {
            return false;
        };
        let id = identity(&meta);
        if (self.id.is_some() && id != self.id) || meta.len() < self.offset {
            ctx.note(&format!(
                "{}: {}; reloading it from the start",
                one_line(&self.path.display().to_string()),
                if meta.len() < self.offset {
                    "truncated"
                } else {
                    "replaced"
                }
            ));
            self.complete.clear();
            self.partial.clear();
            self.offset = 0;
        }
        self.id = id;
        if meta.len() == self.offset {
            return false;
        }
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return false;
        };
        let mut buf = Vec::new();
        if f.seek(SeekFrom::Start(self.offset)).is_err() || f.read_to_end(&mut buf).is_err() {
            return false;
        }
        self.offset += buf.len() as u64;
        self.partial.extend_from_slice(&buf);
        match memchr::memrchr(b'\n', &self.partial) {
            Some(end) => {
                let rest = self.partial.split_off(end + 1);
                self.complete.append(&mut self.partial);
                self.partial = rest;
                true
            }
            None => false,
        }
    }

    /// Re-checks the complete lines; prints new findings and resolved ones at or above `min`.
    fn check(&mut self, ctx: &mut Ctx, st: &Settings, min: Severity) -> std::io::Result<()> {
        let source = self.path.display().to_string();
        let name = crate::ingest::session_name(&self.path);
        let sessions = crate::ingest::load_any_bytes(&name, &source, &self.complete, st.load());
        let mut now: BTreeMap<Key, (Severity, Finding)> = BTreeMap::new();
        self.metrics.clear();
        self.diagnostics.clear();
        for s in &sessions {
            let r = check_session(s, st.config());
            for f in r.findings.iter().filter(|f| f.severity <= min) {
                now.insert(key(&r.session_id, f), (f.severity, f.clone()));
            }
            self.metrics.push(r.metrics);
            self.diagnostics.extend(s.diagnostics.iter().cloned());
        }
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
    write!(t, "{prefix}{file}:{}: ", f.line)?;
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

/// Stops on SIGINT or SIGTERM.
fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(sig, Arc::clone(&stop));
    }
    stop
}

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
    let stop = stop_flag();
    // Named files are followed even before they exist; directories as they were at the start.
    let (present, missing): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.iter().cloned().partition(|p| p.exists());
    let inputs = if present.is_empty() {
        crate::pipeline::Inputs::default()
    } else {
        st.pipeline.discover(&present)
    };
    ctx.diags(&inputs.errors);
    let mut files: Vec<Followed> = inputs.files.iter().cloned().map(Followed::new).collect();
    files.extend(missing.into_iter().map(Followed::new));
    ctx.note(&format!(
        "following {} file(s); Ctrl-C ends with the summary",
        files.len()
    ));
    while !stop.load(Ordering::Relaxed) {
        for f in &mut files {
            if f.poll(ctx) {
                f.check(ctx, st, min).map_err(super::CliError::stdout)?;
            }
        }
        // Sleep in short steps so Ctrl-C ends promptly.
        for _ in 0..4 {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            std::thread::sleep(POLL / 4);
        }
    }
    let mut overall = Metrics::default();
    let mut failing = false;
    let mut diags = Vec::new();
    for f in &files {
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
    if inputs.has_errors() || diags.iter().any(|d| d.level == DiagLevel::Error) {
        return Ok(Exit::InputErrors);
    }
    Ok(Exit::findings_if(failing))
}
