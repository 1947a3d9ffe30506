//! The one way from paths to checked sessions, used by every command and by the explorer:
//! discover the inputs, load them in parallel, check each session, hand the results over in
//! input order. One rule decides what an unreadable log is ([`Readability`]).

use crate::attest::dsse;
use crate::check::sub::{SubCheck, SubOutcome, SubProblem};
use crate::check::{check_session_with, check_sessions, Config, Metrics, SessionReport};
use crate::ingest::{self, LoadOptions};
use crate::model::{DiagLevel, Diagnostic, Session};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// Settings of a run: how to load, how to check, how many threads.
#[derive(Clone, Debug)]
pub struct Pipeline {
    /// Loader settings.
    pub load: LoadOptions,
    /// Check configuration.
    pub config: Config,
    /// Threads loading and checking (at least 1).
    pub threads: usize,
}

/// What a run reads.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// The files, in order (directories expanded and sorted); empty with `samples`.
    pub files: Vec<PathBuf>,
    /// Whether each file was found in a directory scan (by index; may be shorter than
    /// `files`): it is then judged by content when it is loaded and gives no session when it
    /// is not a log (`ingest::load_found`).
    pub in_scan: Vec<bool>,
    /// The bundled samples instead of files.
    pub samples: bool,
    /// Problems with the paths themselves.
    pub errors: Vec<Diagnostic>,
}

impl Inputs {
    /// How many inputs will be read (a file found in a directory that is not a log gives no
    /// session).
    pub fn len(&self) -> usize {
        if self.samples {
            ingest::samples::files().len()
        } else {
            self.files.len()
        }
    }

    /// True when there is nothing to load.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when a path itself had an error (warnings, such as a skipped FIFO, do not count).
    pub fn has_errors(&self) -> bool {
        self.errors.iter().any(|d| d.level == DiagLevel::Error)
    }
}

/// How usable a loaded log is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readability {
    /// Every line read.
    Clean,
    /// Some lines could not be used; everything valid was loaded.
    Damaged,
    /// Nothing usable: the file cannot be read, is not a known format, or no event loaded.
    Unreadable,
}

impl Readability {
    /// The rule, the same everywhere: unreadable when an error concerns the whole file (line 0)
    /// or when errors left nothing loaded; damaged when any other error was found.
    pub fn of(s: &Session) -> Readability {
        let errors: Vec<&Diagnostic> = s
            .diagnostics
            .iter()
            .filter(|d| d.level == DiagLevel::Error)
            .collect();
        if errors.is_empty() {
            return Readability::Clean;
        }
        let nothing = s.header.is_none()
            && s.turns.is_empty()
            && s.calls.is_empty()
            && s.results.is_empty()
            && s.answers.is_empty();
        // An error at no line and no JSON path concerns the whole file; one at a JSON path (an
        // imported document) concerns that record only.
        if nothing || errors.iter().any(|d| d.line == 0 && d.path.is_empty()) {
            Readability::Unreadable
        } else {
            Readability::Damaged
        }
    }
}

/// How bundled samples name their source.
const SAMPLES_PREFIX: &str = "<samples>/";

/// Where a sub-session link leads.
enum Located {
    /// A bundled sample, by index.
    Sample(usize),
    /// A file, canonical.
    File(PathBuf),
}

/// A log's identity on a chain of sub-agents: its canonical path, or its name for samples.
fn identity(source: &str) -> String {
    if source.starts_with(SAMPLES_PREFIX) {
        return source.to_owned();
    }
    std::fs::canonicalize(source).map_or_else(|_| source.to_owned(), |p| p.display().to_string())
}

/// A loaded session and its report.
pub struct Checked {
    /// The session.
    pub session: Session,
    /// What the checks found.
    pub report: SessionReport,
}

impl Checked {
    /// How usable the log was.
    pub fn readability(&self) -> Readability {
        Readability::of(&self.session)
    }
}

/// The outcome of checking a set of inputs, sessions dropped (what `verify` and the exporters
/// need).
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
    /// Each report's input SHA-256, when the loader hashed inputs (same order as `reports`).
    pub content_hashes: Vec<Option<String>>,
    /// The metric gates judged on `overall` (set by the command that applies them).
    pub gates: Vec<crate::check::gates::GateResult>,
}

impl Outcome {
    /// True when any input had an error-level diagnostic.
    pub fn has_input_errors(&self) -> bool {
        self.input_errors
            .iter()
            .chain(self.diagnostics.iter().flatten())
            .any(|d| d.level == DiagLevel::Error)
    }

    /// True when a metric gate failed.
    pub fn gate_failed(&self) -> bool {
        self.gates.iter().any(|g| !g.passed)
    }

    /// Adds one checked session, dropping the session itself.
    pub fn push(&mut self, mut c: Checked) {
        self.overall.add(&c.report.metrics);
        self.bytes += c.session.bytes;
        self.content_hashes.push(c.session.content_hash);
        let mut d = c.session.diagnostics;
        d.append(&mut c.report.diagnostics);
        self.diagnostics.push(d);
        self.reports.push(c.report);
    }
}

/// Consecutive sessions with envelopes are checked together until they hold this many
/// envelopes, which then verify in shared batches (`dsse::verify_all`).
pub const GROUP_ENVELOPES: usize = dsse::BATCH;

/// ... or this many calls, which bounds the memory held back.
pub const GROUP_CALLS: usize = 4 * dsse::BATCH;

/// Groups loaded sessions, in order, for `check::check_sessions`: consecutive sessions with
/// envelopes are held up to [`GROUP_ENVELOPES`] envelopes and [`GROUP_CALLS`] calls (a session
/// that would take the group past either starts the next one, so a group's signatures fill
/// one batch rather than two halves; a session past them alone is a group of its own); a
/// session without envelopes is a group of its own (nothing to share). `verify -j1` groups
/// its sessions so; the scale bench measures envelopes through the same groups.
#[derive(Debug)]
pub struct Groups<S> {
    held: Vec<S>,
    envelopes: usize,
    calls: usize,
}

impl<S> Default for Groups<S> {
    fn default() -> Self {
        Groups {
            held: Vec::new(),
            envelopes: 0,
            calls: 0,
        }
    }
}

impl<S: std::borrow::Borrow<Session>> Groups<S> {
    /// Adds the next session; appends to `ready` the groups now complete, in order.
    pub fn push(&mut self, s: S, ready: &mut Vec<Vec<S>>) {
        let (envelopes, calls) = (s.borrow().envelopes.len(), s.borrow().calls.len());
        if envelopes == 0 {
            if !self.held.is_empty() {
                ready.push(self.finish());
            }
            ready.push(vec![s]);
            return;
        }
        if !self.held.is_empty()
            && (self.envelopes + envelopes > GROUP_ENVELOPES || self.calls + calls > GROUP_CALLS)
        {
            ready.push(self.finish());
        }
        self.held.push(s);
        self.envelopes += envelopes;
        self.calls += calls;
        if self.envelopes >= GROUP_ENVELOPES || self.calls >= GROUP_CALLS {
            ready.push(self.finish());
        }
    }

    /// The sessions still held (the last group), emptying it.
    pub fn finish(&mut self) -> Vec<S> {
        self.envelopes = 0;
        self.calls = 0;
        std::mem::take(&mut self.held)
    }
}

/// A loaded session and the input it came from, grouped by [`Groups`] on several threads.
struct Tagged {
    input: usize,
    session: Session,
}

impl std::borrow::Borrow<Session> for Tagged {
    fn borrow(&self) -> &Session {
        &self.session
    }
}

/// On several threads, a block of consecutive inputs one thread claims, loads and checks:
/// up to this many bytes of input (a larger input is a block of its own) ... Every thread
/// holds its block's sessions at once, and each thread's allocator keeps what it freed for a
/// while, so two threads with blocks of 384 KiB peak no higher than `-j1` with its one group
/// (2 MiB blocks peaked 50% higher; docs/benchmarks.md).
pub const BLOCK_BYTES: u64 = 384 << 10;

/// ... and at most this many inputs.
pub const BLOCK_INPUTS: usize = 256;

/// Where the block of inputs starting at `start` ends: at most `max_inputs` inputs and
/// [`BLOCK_BYTES`] bytes (`size` of each), at least one input.
fn block_end(start: usize, n: usize, max_inputs: usize, size: impl Fn(usize) -> u64) -> usize {
    let (mut end, mut bytes) = (start, 0);
    while end < n && end - start < max_inputs {
        bytes += size(end);
        if end > start && bytes > BLOCK_BYTES {
            break;
        }
        end += 1;
    }
    end
}

/// The blocks claimed on several threads: where the next one starts, and where each block
/// claimed and not yet handed over ends.
#[derive(Default)]
struct Flow {
    next: usize,
    ends: std::collections::VecDeque<usize>,
}

impl Pipeline {
    /// A pipeline; `threads` of 0 means every core.
    pub fn new(load: LoadOptions, config: Config, threads: usize) -> Self {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        Pipeline {
            load,
            config,
            threads,
        }
    }

    /// The inputs under `paths`, or the bundled samples when `paths` is empty.
    pub fn discover(&self, paths: &[PathBuf]) -> Inputs {
        if paths.is_empty() {
            return Inputs {
                samples: true,
                ..Inputs::default()
            };
        }
        let (found, errors) = ingest::discover_found(paths);
        let (files, in_scan) = found.into_iter().map(|f| (f.path, f.in_scan)).unzip();
        Inputs {
            files,
            in_scan,
            samples: false,
            errors,
        }
    }

    /// The size of input `i` in bytes, 0 when unknown.
    fn input_bytes(&self, inputs: &Inputs, i: usize) -> u64 {
        if inputs.samples {
            ingest::samples::files()
                .get(i)
                .map_or(0, |(_, text)| text.len() as u64)
        } else {
            inputs
                .files
                .get(i)
                .and_then(|f| std::fs::metadata(f).ok())
                .map_or(0, |m| m.len())
        }
    }

    /// Loads and checks the inputs of `block` in order, consecutive sessions with envelopes
    /// grouped as under `-j1` ([`Groups`]); sends each input's checked sessions as soon as
    /// all of them are. False when the receiver is gone or `stop` is set.
    fn run_block(
        &self,
        inputs: &Inputs,
        block: std::ops::Range<usize>,
        tx: &mpsc::Sender<(usize, Vec<Checked>)>,
        stop: &AtomicBool,
    ) -> bool {
        // Per input of the block: how many of its sessions are not checked yet, and those
        // that are.
        let mut left: Vec<(usize, Vec<Checked>)> = block.clone().map(|_| (0, vec![])).collect();
        let start = block.start;
        let deliver = |group: Vec<Tagged>, left: &mut Vec<(usize, Vec<Checked>)>| {
            let (at, sessions): (Vec<usize>, Vec<Session>) =
                group.into_iter().map(|t| (t.input, t.session)).unzip();
            for (i, c) in at.into_iter().zip(self.check_group(sessions)) {
                let slot = &mut left[i - start];
                slot.0 -= 1;
                slot.1.push(c);
                if slot.0 == 0 && tx.send((i, std::mem::take(&mut slot.1))).is_err() {
                    return false;
                }
            }
            true
        };
        let mut groups = Groups::default();
        let mut ready = Vec::new();
        for i in block {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            let sessions = self.load(inputs, i);
            left[i - start].0 = sessions.len();
            if sessions.is_empty() && tx.send((i, Vec::new())).is_err() {
                return false;
            }
            for session in sessions {
                groups.push(Tagged { input: i, session }, &mut ready);
                for group in ready.drain(..) {
                    if !deliver(group, &mut left) {
                        return false;
                    }
                }
            }
        }
        deliver(groups.finish(), &mut left)
    }

    /// Loads input `i` (a file may hold several sessions).
    fn load(&self, inputs: &Inputs, i: usize) -> Vec<Session> {
        if inputs.samples {
            ingest::samples::load(i, &self.load).into_iter().collect()
        } else {
            inputs
                .files
                .get(i)
                .and_then(|f| {
                    let in_scan = inputs.in_scan.get(i).copied().unwrap_or(false);
                    ingest::load_found(f, &self.load, in_scan)
                })
                .unwrap_or_default()
        }
    }

    /// Checks a group of sessions as [`Pipeline::check`] checks each, their envelope
    /// signatures verified in shared batches (`check::check_sessions`).
    fn check_group(&self, sessions: Vec<Session>) -> Vec<Checked> {
        let subs: Vec<Vec<SubCheck>> = sessions
            .iter()
            .map(|s| self.subs(s, &mut Vec::new(), 0))
            .collect();
        let pairs: Vec<(&Session, &[SubCheck])> = sessions
            .iter()
            .zip(&subs)
            .map(|(s, subs)| (s, subs.as_slice()))
            .collect();
        let reports = check_sessions(&pairs, &self.config);
        sessions
            .into_iter()
            .zip(reports)
            .map(|(session, report)| Checked { session, report })
            .collect()
    }

    /// Checks one loaded session, following its calls' links to sub-agent sessions (see
    /// `docs/checks.md`, `sub_agent_source`): at most `[sub_sessions] max_depth` levels, each
    /// log at most once on a chain (a cycle is reported, not followed), and never outside the
    /// referring log's directory unless `allow_outside`.
    pub fn check(&self, s: &Session) -> SessionReport {
        let mut chain = Vec::new();
        self.check_at(s, &mut chain, 0)
    }

    /// Checks `s` again after the check that left `last`, as [`Pipeline::check`] would, re-running
    /// the turn-local checks for the affected turns only (see `check::incremental`).
    pub fn check_since(
        &self,
        s: &Session,
        last: Option<&crate::check::incremental::Memo>,
    ) -> (
        SessionReport,
        crate::check::incremental::Memo,
        crate::check::incremental::Recheck,
    ) {
        let mut chain = Vec::new();
        let subs = self.subs(s, &mut chain, 0);
        crate::check::incremental::check_since(s, &self.config, &subs, last)
    }

    fn check_at(&self, s: &Session, chain: &mut Vec<String>, depth: u32) -> SessionReport {
        let subs = self.subs(s, chain, depth);
        check_session_with(s, &self.config, &subs)
    }

    /// The sub-agent sessions `s` links, followed and checked.
    fn subs(&self, s: &Session, chain: &mut Vec<String>, depth: u32) -> Vec<SubCheck> {
        let links: Vec<(&str, &crate::model::SubSession)> = s
            .calls
            .iter()
            .filter_map(|c| c.sub_session.as_deref().map(|l| (c.id.as_str(), l)))
            .collect();
        if links.is_empty() {
            return Vec::new();
        }
        chain.push(identity(&s.source));
        let subs: Vec<SubCheck> = links
            .into_iter()
            .map(|(call_id, link)| SubCheck {
                call_id: call_id.to_owned(),
                link: link.clone(),
                outcome: self.follow(s, link, chain, depth),
            })
            .collect();
        chain.pop();
        subs
    }

    /// Loads and checks the session a link names, or says why it cannot.
    fn follow(
        &self,
        from: &Session,
        link: &crate::model::SubSession,
        chain: &mut Vec<String>,
        depth: u32,
    ) -> SubOutcome {
        let unresolved = |problem, detail: String| SubOutcome::Unresolved { problem, detail };
        let Some(rel) = link.path.as_deref() else {
            return unresolved(SubProblem::NoPath, format!("session `{}`", link.id));
        };
        if depth + 1 > self.config.sub_sessions.max_depth {
            return unresolved(
                SubProblem::TooDeep,
                format!(
                    "{rel} would be at depth {}; max_depth is {}",
                    depth + 1,
                    self.config.sub_sessions.max_depth
                ),
            );
        }
        let sessions = match self.locate(from, rel) {
            Err((p, d)) => return unresolved(p, d),
            Ok(Located::Sample(i)) => crate::ingest::samples::load(i, &self.load)
                .into_iter()
                .collect(),
            Ok(Located::File(path)) => {
                if chain.contains(&identity(&path.display().to_string())) {
                    return unresolved(SubProblem::Cycle, rel.to_owned());
                }
                ingest::load_file_sessions(&path, &self.load)
            }
        };
        if let Some(first) = sessions.first() {
            if chain.contains(&identity(&first.source)) {
                return unresolved(SubProblem::Cycle, rel.to_owned());
            }
        }
        let n = sessions.len();
        let Some(sub) = sessions
            .into_iter()
            .find(|x| x.id() == link.id || n == 1 && x.header.is_none() && x.name == link.id)
        else {
            return unresolved(
                SubProblem::IdMismatch,
                format!("{rel} holds no session `{}`", link.id),
            );
        };
        if Readability::of(&sub) == Readability::Unreadable {
            let why = sub
                .diagnostics
                .iter()
                .find(|d| d.level == DiagLevel::Error)
                .map_or_else(String::new, |d| format!(": {}", d.message));
            return unresolved(SubProblem::Unreadable, format!("{rel}{why}"));
        }
        let report = self.check_at(&sub, chain, depth + 1);
        SubOutcome::Checked {
            path: sub.source.to_string(),
            depth: depth + 1,
            session: Box::new(sub),
            report: Box::new(report),
        }
    }

    /// Where a link's path leads from the session that names it: relative to that log's
    /// directory (an imported session's links were already resolved by its importer), never
    /// outside it without consent; a bundled sample links to another sample by name.
    fn locate(&self, from: &Session, rel: &str) -> Result<Located, (SubProblem, String)> {
        if let Some(name) = from.source.strip_prefix(SAMPLES_PREFIX) {
            let _ = name;
            return crate::ingest::samples::files()
                .iter()
                .position(|(n, _)| *n == rel)
                .map(Located::Sample)
                .ok_or((SubProblem::NotFound, rel.to_owned()));
        }
        let base = Path::new(&*from.source)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let given = Path::new(rel);
        let candidate = if from.import.is_some() || given.is_absolute() {
            given.to_path_buf()
        } else {
            base.join(given)
        };
        let target = match std::fs::canonicalize(&candidate) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err((SubProblem::NotFound, candidate.display().to_string()))
            }
            Err(e) => {
                return Err((
                    SubProblem::Unreadable,
                    format!("{}: {e}", candidate.display()),
                ))
            }
        };
        if !self.config.sub_sessions.allow_outside {
            let dir = std::fs::canonicalize(if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                &base
            });
            let inside = dir.as_ref().is_ok_and(|d| target.starts_with(d));
            if !inside || given.is_absolute() && from.import.is_none() {
                return Err((
                    SubProblem::Outside,
                    format!(
                        "{} is outside {} (allow with --follow-outside or [sub_sessions] allow_outside = true)",
                        candidate.display(),
                        if base.as_os_str().is_empty() {
                            ".".into()
                        } else {
                            base.display().to_string()
                        }
                    ),
                ));
            }
        }
        Ok(Located::File(target))
    }

    /// Loads and checks every input on up to `threads` threads and hands each checked session
    /// to `sink` in input order. Consecutive sessions with envelopes are checked together
    /// ([`Groups`]) so that their signatures verify in shared batches: on one thread as they
    /// come; on several, within each block of consecutive inputs a thread claims
    /// ([`BLOCK_BYTES`], [`BLOCK_INPUTS`]), no more blocks claimed and not yet handed to
    /// `sink` than there are threads. Stops early when `sink` returns `false`.
    pub fn run(&self, inputs: &Inputs, mut sink: impl FnMut(Checked) -> bool) {
        let n = inputs.len();
        let threads = self.threads.clamp(1, n.max(1));
        if threads == 1 {
            // Small sealed sessions are held back a little so that their envelope signatures
            // verify in shared batches.
            let mut groups = Groups::default();
            let mut ready = Vec::new();
            for i in 0..n {
                for s in self.load(inputs, i) {
                    groups.push(s, &mut ready);
                    for group in ready.drain(..) {
                        for c in self.check_group(group) {
                            if !sink(c) {
                                return;
                            }
                        }
                    }
                }
            }
            for c in self.check_group(groups.finish()) {
                if !sink(c) {
                    return;
                }
            }
            return;
        }
        // Each thread claims a block of consecutive inputs (up to BLOCK_BYTES, BLOCK_INPUTS),
        // loads and checks them as `-j1` would (small sealed sessions share signature
        // batches), and sends each input's sessions; a thread that finishes ahead of the block
        // `sink` waits for claims no other until that one is handed over (at most `threads`
        // blocks claimed and not handed over: each one ahead held its sessions besides).
        let flow = (Mutex::new(Flow::default()), Condvar::new());
        // Two blocks per thread at least, so that a few inputs still spread over the threads.
        let max_inputs = BLOCK_INPUTS.min(n.div_ceil(2 * threads)).max(1);
        let stop = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel::<(usize, Vec<Checked>)>();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (flow, stop) = (&flow, &stop);
                scope.spawn(move || loop {
                    let block = {
                        let (lock, cv) = flow;
                        let Ok(mut f) = lock.lock() else { break };
                        while f.ends.len() >= threads && !stop.load(Ordering::Relaxed) {
                            f = match cv.wait(f) {
                                Ok(f) => f,
                                Err(_) => return,
                            };
                        }
                        if stop.load(Ordering::Relaxed) || f.next >= n {
                            break;
                        }
                        let start = f.next;
                        let end = block_end(start, n, max_inputs, |i| self.input_bytes(inputs, i));
                        f.next = end;
                        f.ends.push_back(end);
                        start..end
                    };
                    if !self.run_block(inputs, block, &tx, stop) {
                        break;
                    }
                });
            }
            drop(tx);
            let mut pending: BTreeMap<usize, Vec<Checked>> = BTreeMap::new();
            let mut want = 0;
            'recv: for (i, r) in rx.iter() {
                pending.insert(i, r);
                while let Some(r) = pending.remove(&want) {
                    want += 1;
                    for c in r {
                        if !sink(c) {
                            break 'recv;
                        }
                    }
                    let (lock, cv) = &flow;
                    if let Ok(mut f) = lock.lock() {
                        while f.ends.front().is_some_and(|&end| end <= want) {
                            f.ends.pop_front();
                        }
                    }
                    cv.notify_all();
                }
            }
            stop.store(true, Ordering::Relaxed);
            flow.1.notify_all();
            // Dropping the receiver here makes any worker still sending stop.
            drop(rx);
        });
    }

    /// Every checked session, in input order.
    pub fn collect(&self, inputs: &Inputs) -> Vec<Checked> {
        let mut out = Vec::with_capacity(inputs.len());
        self.run(inputs, |c| {
            out.push(c);
            true
        });
        out
    }

    /// Checks everything under `paths` (or the samples) keeping only reports and diagnostics.
    pub fn outcome(&self, paths: &[PathBuf]) -> Outcome {
        let inputs = self.discover(paths);
        let mut o = Outcome {
            input_errors: inputs.errors.clone(),
            ..Outcome::default()
        };
        self.run(&inputs, |c| {
            o.push(c);
            true
        });
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sessions with envelopes are grouped so that a group's signatures fill one batch: a
    /// session that would take the group past [`GROUP_ENVELOPES`] starts the next group.
    #[test]
    fn groups_fill_one_batch_without_going_past_it() {
        let sealed = |n: usize| Session {
            envelopes: (0..n)
                .map(|i| crate::model::EnvelopeRecord {
                    call_id: format!("c{i}").into(),
                    raw: serde_json::value::RawValue::from_string("{}".into())
                        .unwrap_or_else(|e| panic!("{e}")),
                    line: 1,
                    form: crate::model::EnvelopeForm::Dsse,
                })
                .collect(),
            ..Session::default()
        };
        let sizes = |sessions: Vec<usize>| -> Vec<Vec<usize>> {
            let (mut g, mut ready) = (Groups::default(), Vec::new());
            for n in sessions {
                g.push(sealed(n), &mut ready);
            }
            ready.push(g.finish());
            ready
                .into_iter()
                .filter(|g| !g.is_empty())
                .map(|g| g.iter().map(|s| s.envelopes.len()).collect())
                .collect()
        };
        // 52 sessions of 20: 51 in the first group (1,020 envelopes), not 52 (1,040, which
        // would verify as two batches of 520).
        let groups = sizes(vec![20; 52]);
        assert_eq!(groups.iter().map(Vec::len).collect::<Vec<_>>(), [51, 1]);
        // Sessions of 200: five to a group (1,000).
        let groups = sizes(vec![200; 12]);
        assert_eq!(groups.iter().map(Vec::len).collect::<Vec<_>>(), [5, 5, 2]);
        // A session over the limit is a group of its own; one without envelopes too.
        let groups = sizes(vec![10, 2000, 10, 0, 10]);
        assert_eq!(groups, [vec![10], vec![2000], vec![10], vec![0], vec![10]]);
        // Exactly the limit closes the group.
        let groups = sizes(vec![1000, 24, 1]);
        assert_eq!(groups, [vec![1000, 24], vec![1]]);
    }

    #[test]
    fn blocks_hold_consecutive_inputs_up_to_their_bytes_and_count() {
        let kb = |i: usize| [192u64, 192, 1, 600, 0, 0, 384, 1][i] << 10;
        // 192 + 192 KiB fill a block; 600 KiB alone is a block of its own; then 0 + 0 + 384.
        assert_eq!(block_end(0, 8, 256, kb), 2);
        assert_eq!(block_end(2, 8, 256, kb), 3);
        assert_eq!(block_end(3, 8, 256, kb), 4);
        assert_eq!(block_end(4, 8, 256, kb), 7);
        // The count bounds small inputs.
        assert_eq!(block_end(0, 1000, 10, |_| 100), 10);
        assert_eq!(block_end(995, 1000, 10, |_| 100), 1000);
        assert_eq!(block_end(7, 7, 10, |_| 100), 7);
    }

    /// On several threads, the sealed sessions of a block are checked as `-j1` checks them:
    /// their signatures in shared batches, with the same reports.
    #[test]
    fn a_block_verifies_its_sessions_signatures_in_shared_batches() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let spec = crate::gen::GenSpec {
            turns: 3,
            calls: 2,
            seed: 9,
            fault_rate: 0.0,
            result_bytes: 200,
            envelopes: true,
            sub_agents: false,
        };
        for i in 0..12 {
            let mut w = Vec::new();
            crate::gen::write_session(&mut w, &spec, i).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(dir.path().join(format!("gen-{i:02}.jsonl")), w)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let p = Pipeline::new(LoadOptions::default(), Config::default(), 2);
        let inputs = p.discover(&[dir.path().to_path_buf()]);
        assert_eq!(inputs.len(), 12);
        let (tx, rx) = mpsc::channel();
        let before = crate::probe::batches();
        assert!(p.run_block(&inputs, 0..12, &tx, &AtomicBool::new(false)));
        // 12 sessions of 6 envelopes: one batch of 72 signatures, not 12 of 6.
        assert_eq!(crate::probe::batches() - before, 1);
        drop(tx);
        let mut got: Vec<(usize, Vec<Checked>)> = rx.iter().collect();
        got.sort_by_key(|(i, _)| *i);
        assert_eq!(
            got.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            (0..12).collect::<Vec<_>>()
        );
        let one = Pipeline::new(LoadOptions::default(), Config::default(), 1);
        let want = one.collect(&inputs);
        let reports = |c: &[Checked]| -> Vec<String> {
            c.iter()
                .map(|c| format!("{:?}", c.report.findings))
                .collect()
        };
        let got: Vec<Checked> = got.into_iter().flat_map(|(_, c)| c).collect();
        assert_eq!(reports(&got), reports(&want));
        assert!(want.iter().all(|c| c.session.envelopes.len() == 6));
    }

    #[test]
    fn runs_in_input_order_on_any_number_of_threads_and_stops_early() {
        let one = Pipeline::new(LoadOptions::default(), Config::default(), 1);
        let inputs = one.discover(&[]);
        let names = |p: &Pipeline| -> Vec<String> {
            p.collect(&inputs)
                .into_iter()
                .map(|c| c.session.name)
                .collect()
        };
        let want = names(&one);
        assert_eq!(want.len(), inputs.len());
        for t in [2, 3, 8, 64] {
            let p = Pipeline::new(LoadOptions::default(), Config::default(), t);
            assert_eq!(names(&p), want, "{t} threads");
            let mut seen = 0;
            p.run(&inputs, |_| {
                seen += 1;
                seen < 3
            });
            assert_eq!(seen, 3);
        }
    }

    #[test]
    fn each_file_found_in_a_directory_is_opened_and_judged_once() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let formats = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats");
        let copy = |from: &str, to: &str| {
            std::fs::copy(formats.join(from), dir.path().join(to))
                .unwrap_or_else(|e| panic!("{from}: {e}"));
        };
        copy("openai-responses/openai-mcp-tool.1.json", "openai.json");
        copy("claude-desktop-log/mcp-server-weather.log", "desktop.log");
        copy(
            "langfuse-trace-export/claude-agent-2025-12-22.trace.json",
            "lf.json",
        );
        let native = crate::ingest::samples::files()[0];
        std::fs::write(dir.path().join("native.jsonl"), native.1).unwrap_or_default();
        std::fs::write(dir.path().join("notes.json"), "{\"name\": 1}").unwrap_or_default();
        // Over the 64 KiB head: the loader reads on from the head, a line format streamed.
        let log = std::fs::read(formats.join("claude-desktop-log/mcp-server-weather.log"))
            .unwrap_or_default();
        std::fs::write(dir.path().join("zbig.log"), log.repeat(40)).unwrap_or_default();
        let p = Pipeline::new(LoadOptions::default(), Config::default(), 1);
        let (opens, detections) = (crate::probe::opens(), crate::probe::detections());
        let inputs = p.discover(&[dir.path().to_path_buf()]);
        // Discovery judges the first file only (the directory holds a log).
        assert_eq!(crate::probe::opens() - opens, 1);
        assert_eq!(crate::probe::detections() - detections, 1);
        let (opens, detections) = (crate::probe::opens(), crate::probe::detections());
        let checked = p.collect(&inputs);
        let formats: Vec<&str> = checked.iter().map(|c| c.session.format()).collect();
        assert_eq!(
            formats,
            [
                "claude-desktop-log",
                "langfuse",
                "provscope",
                "openai-responses",
                "claude-desktop-log"
            ]
        );
        assert!(checked[4].session.calls.len() >= 40 * checked[0].session.calls.len());
        assert!(checked[4].session.bytes > 64 * 1024);
        // Six files opened and judged once each by the loader (notes.json is skipped).
        assert_eq!(crate::probe::opens() - opens, 6);
        assert_eq!(crate::probe::detections() - detections, 6);
        // A file named on the command line is opened and judged once, by the loader.
        let named = p.discover(&[dir.path().join("openai.json")]);
        let (opens, detections) = (crate::probe::opens(), crate::probe::detections());
        assert_eq!(p.collect(&named).len(), 1);
        assert_eq!(crate::probe::opens() - opens, 1);
        assert_eq!(crate::probe::detections() - detections, 1);
        // The directory scan of the ingest API too.
        let (opens, detections) = (crate::probe::opens(), crate::probe::detections());
        let loaded =
            crate::ingest::load_paths(&[dir.path().to_path_buf()], &LoadOptions::default(), 1);
        assert_eq!(loaded.sessions.len(), 5);
        assert_eq!(crate::probe::opens() - opens, 7);
        assert_eq!(crate::probe::detections() - detections, 7);
        // A directory of files that are not logs is reported, and nothing loads.
        let none = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(none.path().join("package.json"), "{\"name\": 1}").unwrap_or_default();
        let inputs = p.discover(&[none.path().to_path_buf()]);
        assert!(inputs.has_errors());
        assert!(p.collect(&inputs).is_empty());
    }
}
