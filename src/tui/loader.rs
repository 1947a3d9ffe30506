//! The explorer's background loader: walks the paths as a stream (a file is loaded as soon as
//! it is read from its directory, never after the whole directory or tree is listed), loads and
//! checks on every core, and sends sessions to the runtime in small batches, so the first
//! session is listed at once whatever the input size and the screen keeps answering while the
//! rest loads.

use super::action::LoadMsg;
use super::app::Loaded;
use crate::check::incremental::Memo;
use crate::check::Config;
use crate::ingest::{self, LoadOptions};
use crate::model::{DiagLevel, Names, Session};
use crate::pipeline::Pipeline;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A batch is sent when it holds this many sessions or is this old. Each batch is one
/// `update` (sessions inserted into the sorted list one by one): at 256 a batch took 5-21 ms on a
/// busy 2-core machine, longer than a frame, so a key pressed meanwhile waited; at 64 it stays
/// well under one frame, and the runtime still takes every batch that arrives within a frame.
const BATCH: usize = 64;
const BATCH_AGE: Duration = Duration::from_millis(15);
/// Problems listed at most (the rest are counted).
const MAX_PROBLEMS: usize = 200;

/// One file to load: whether it was named on the command line (then it is always read), and
/// whether it is the only input (then its session view opens with its first step).
struct Job {
    path: PathBuf,
    named: bool,
    alone: bool,
}

/// How a large session log is opened in steps: the first turns are loaded and checked first,
/// so the session view appears at once; then ever longer prefixes (each 4x the last, while a
/// sixteenth of the file at most); the last step is the whole file, loaded and checked as any
/// file is. The explorer shows the last prefix while the whole file loads, so both are held at
/// once: a prefix of at most a sixteenth keeps that within 6.25% of the session (with a quarter,
/// a 180 MB log's 32 MB prefix added 0.4 KB per call to the peak), and the prefixes redo at
/// most a twelfth of the work.
#[derive(Clone, Copy, Debug)]
pub struct Steps {
    /// Native logs at least this long are opened in steps.
    pub min_file: u64,
    /// Bytes read by the first step (then up to the next turn).
    pub first: u64,
}

impl Default for Steps {
    fn default() -> Self {
        Steps {
            min_file: 32 << 20,
            first: 2 << 20,
        }
    }
}

/// A prefix is at most this fraction of the file (1 / this): see [`Steps`].
const LAST_STEP_SHARE: u64 = 16;

impl Steps {
    /// The nominal sizes of the prefixes checked before the whole of a `size`-byte file: from
    /// `first`, each 4x the last, while at most a sixteenth of the file.
    pub fn cuts(&self, size: u64) -> Vec<u64> {
        let mut cuts = Vec::new();
        if size < self.min_file || self.first == 0 {
            return cuts;
        }
        let mut c = self.first;
        // Checked: near `u64::MAX` a saturated product would stay `<= size` for ever.
        while c.checked_mul(LAST_STEP_SHARE).is_some_and(|x| x <= size) {
            cuts.push(c);
            c *= 4;
        }
        cuts
    }
}

/// Progress of the step being read is sent at most this often.
const READ_TICK: Duration = Duration::from_millis(200);

/// Checked as every command checks it (sub-agent links followed, `Pipeline::check`).
fn checked(s: Session, p: &Pipeline) -> Loaded {
    let r = p.check(&s);
    Loaded::new(s, r)
}

fn problems_of(s: &Session) -> Vec<String> {
    s.diagnostics
        .iter()
        .filter(|d| d.level == DiagLevel::Error)
        .take(3)
        .map(|d| d.to_string())
        .collect()
}

fn walk(dir: &Path, tx: &SyncSender<Job>, found: &mut usize, send: &dyn Fn(LoadMsg)) -> bool {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            send(LoadMsg::Problem(format!(
                "{}: cannot list the directory: {e}",
                dir.display()
            )));
            return true;
        }
    };
    // In the order the directory lists them, each file sent as soon as it is read: the list
    // sorts what arrives (`App::push_session`), so nothing waits for the whole directory to be
    // listed and sorted (for 100,000 files that took 62-92 ms on a busy 2-core machine, before the first
    // file was loaded).
    for e in rd.filter_map(Result::ok) {
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() && !walk(&path, tx, found, send) => return false,
            Ok(t) if t.is_dir() => {}
            Ok(t) if t.is_file() && crate::ingest::has_candidate_extension(&path) => {
                *found += 1;
                if (*found).is_multiple_of(1000) {
                    send(LoadMsg::Total(*found));
                }
                let job = Job {
                    path,
                    named: false,
                    alone: false,
                };
                if tx.send(job).is_err() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// Loads and checks sessions on background threads, streaming them to `send` (which returns
/// false once nobody listens). Returns at once.
pub fn spawn(
    paths: Vec<PathBuf>,
    opts: LoadOptions,
    cfg: Config,
    threads: usize,
    send: impl Fn(LoadMsg) -> bool + Send + Sync + 'static,
) {
    spawn_steps(paths, opts, cfg, threads, Steps::default(), send)
}

/// [`spawn`], with large session logs opened in `steps` (see [`Steps`]).
pub fn spawn_steps(
    paths: Vec<PathBuf>,
    opts: LoadOptions,
    cfg: Config,
    threads: usize,
    steps: Steps,
    send: impl Fn(LoadMsg) -> bool + Send + Sync + 'static,
) {
    let send: Arc<dyn Fn(LoadMsg) -> bool + Send + Sync> = Arc::new(send);
    std::thread::spawn(move || {
        let cfg = Arc::new(Pipeline::new(opts.clone(), cfg, 1));
        if paths.is_empty() {
            let files = ingest::samples::files();
            send(LoadMsg::Total(files.len()));
            let v: Vec<Loaded> = ingest::samples::load_all(&opts)
                .into_iter()
                .map(|s| checked(s, &cfg))
                .collect();
            send(LoadMsg::Sessions(v));
            send(LoadMsg::Done);
            return;
        }
        let (job_tx, job_rx) = sync_channel::<Job>(1024);
        let job_rx = Arc::new(Mutex::new(job_rx));
        // Texts that repeat across the sessions loaded here (a tool's result, the same
        // question) are held once; the table goes when loading ends, the texts with the last
        // session that holds them.
        let shared = Arc::new(Mutex::new(Names::default()));
        let (out_tx, out_rx) = channel::<(Vec<Loaded>, Vec<String>)>();
        let mut workers = Vec::new();
        for _ in 0..threads.max(1) {
            let rx = job_rx.clone();
            let tx = out_tx.clone();
            let cfg = cfg.clone();
            let opts = opts.clone();
            let send = send.clone();
            let shared = shared.clone();
            workers.push(std::thread::spawn(move || loop {
                let job = match rx.lock() {
                    Ok(g) => g.recv(),
                    Err(_) => return,
                };
                let Ok(job) = job else { return };
                match in_steps(&job, &steps, &opts, &cfg, &send, &shared) {
                    Some(true) => continue,
                    Some(false) => return,
                    None => {}
                }
                // Opened and read once; a file found in a directory that is not a log is skipped.
                let Some(mut sessions) = ingest::load_found(&job.path, &opts, !job.named) else {
                    continue;
                };
                share(&shared, &mut sessions);
                let problems: Vec<String> = sessions.iter().flat_map(problems_of).collect();
                let loaded: Vec<Loaded> = sessions.into_iter().map(|s| checked(s, &cfg)).collect();
                if tx.send((loaded, problems)).is_err() {
                    return;
                }
            }));
        }
        drop(out_tx);
        // The batcher: forwards loaded sessions in batches, at once for the first one.
        let batcher = {
            let send = send.clone();
            std::thread::spawn(move || batch(out_rx, &*send))
        };
        let quiet = |m: LoadMsg| {
            send(m);
        };
        let alone = paths.len() == 1 && paths[0].is_file();
        let mut found = 0usize;
        'paths: for p in &paths {
            match std::fs::metadata(p) {
                Err(e) => send_problem(&*send, p, &e),
                Ok(m) if m.is_dir() => {
                    let before = found;
                    if !walk(p, &job_tx, &mut found, &quiet) {
                        break 'paths;
                    }
                    if found == before {
                        send(LoadMsg::Problem(format!(
                            "{}: no session logs or known traces in this directory",
                            p.display()
                        )));
                    }
                }
                Ok(_) => {
                    found += 1;
                    if job_tx
                        .send(Job {
                            path: p.clone(),
                            named: true,
                            alone,
                        })
                        .is_err()
                    {
                        break 'paths;
                    }
                }
            }
        }
        send(LoadMsg::Total(found));
        drop(job_tx);
        for w in workers {
            let _ = w.join();
        }
        let _ = batcher.join();
        send(LoadMsg::Done);
    });
}

/// Follows `paths` (files and directories, as `verify --follow` does: the files found in a
/// directory when following starts, and named files that appear later) on a background thread:
/// each time a file's complete lines change it is loaded and checked again (every session of it,
/// as when it was opened) and its sessions are sent as [`LoadMsg::Reloaded`]. Files changed since
/// `since` are reloaded once at the start (they may have grown after they were loaded). Stops
/// when `Wake::Stop` arrives on the channel whose receiver is `wake.1` or nobody listens.
pub fn follow(
    paths: Vec<PathBuf>,
    opts: LoadOptions,
    cfg: Config,
    since: std::time::SystemTime,
    wake: (
        std::sync::mpsc::Sender<crate::ingest::tail::Wake>,
        Receiver<crate::ingest::tail::Wake>,
    ),
    send: impl Fn(LoadMsg) -> bool + Send + 'static,
) {
    std::thread::spawn(move || {
        use crate::ingest::tail::Follow;
        let pipeline = Pipeline::new(opts.clone(), cfg, 1);
        let (present, missing): (Vec<PathBuf>, Vec<PathBuf>) =
            paths.into_iter().partition(|p| p.exists());
        let (mut files, _) = ingest::discover(&present);
        files.extend(missing);
        let mut follow = Follow::with_channel(files, true, wake);
        follow.follow_dirs(present.iter().filter(|p| p.is_dir()).cloned().collect());
        if !send(LoadMsg::Following {
            files: follow.tails.len(),
            mode: follow.mode().as_str(),
        }) {
            return;
        }
        // What the last check of each session (file, position in the file) keeps for the next:
        // a change re-runs the turn-local checks for the affected turns only.
        let mut memos: std::collections::HashMap<usize, Vec<Memo>> = Default::default();
        // `note` says why the file was read from its start (then nothing of the last check holds).
        let mut reload = |i: usize, t: &crate::ingest::tail::Tail, note: Option<String>| {
            let source = t.path().display().to_string();
            let name = ingest::session_name(t.path());
            let last = memos
                .remove(&i)
                .filter(|_| note.is_none())
                .unwrap_or_default();
            let mut next = Vec::new();
            let sessions = ingest::load_any_bytes(&name, &source, &t.settled(), &opts)
                .into_iter()
                .enumerate()
                .map(|(k, s)| {
                    let (r, memo, _) = pipeline.check_since(&s, last.get(k));
                    next.push(memo);
                    Loaded::new(s, r)
                })
                .collect();
            memos.insert(i, next);
            send(LoadMsg::Reloaded {
                source,
                sessions,
                note,
            })
        };
        for (i, _) in follow.poll_all() {
            let t = &follow.tails[i];
            let changed = std::fs::metadata(t.path())
                .and_then(|m| m.modified())
                .map_or(true, |m| m >= since);
            if changed && !reload(i, t, None) {
                return;
            }
        }
        // A JSON document still being written was loaded as the half it was: it is dropped
        // until it is whole (then it changes, and is reloaded), rather than shown as damaged.
        for t in follow.tails.iter().filter(|t| t.unfinished()) {
            let source = t.path().display().to_string();
            let note = format!("{source}: a JSON document being written; read once it is whole");
            if !send(LoadMsg::Reloaded {
                source,
                sessions: Vec::new(),
                note: Some(note),
            }) {
                return;
            }
        }
        let mut files = follow.tails.len();
        loop {
            let changes = follow.changes(Duration::from_secs(3600));
            if follow.stopped() {
                return;
            }
            if follow.tails.len() != files {
                // Files created in a followed directory since.
                files = follow.tails.len();
                if !send(LoadMsg::Following {
                    files,
                    mode: follow.mode().as_str(),
                }) {
                    return;
                }
            }
            for (i, c) in changes {
                let t = &follow.tails[i];
                let note = c.restarted.map(|r| {
                    format!(
                        "{}: {}; reloaded from the start",
                        t.path().display(),
                        r.as_str()
                    )
                });
                if !reload(i, t, note) {
                    return;
                }
            }
        }
    });
}

/// Makes the long texts and the repeated names of `sessions` the copies other sessions of this
/// loader hold ([`Names::long_texts`], [`Names::repeated_names`]).
fn share(shared: &Mutex<Names>, sessions: &mut [Session]) {
    if let Ok(mut names) = shared.lock() {
        for s in sessions {
            names.long_texts(s);
            names.repeated_names(s);
        }
    }
}

/// Loads and checks a large native log in steps ([`Steps`]), sending each as
/// [`LoadMsg::Step`]: `None` when the file is not one to open in steps (it is loaded as any
/// file), else whether anyone still listens.
fn in_steps(
    job: &Job,
    steps: &Steps,
    opts: &LoadOptions,
    p: &Pipeline,
    send: &Arc<dyn Fn(LoadMsg) -> bool + Send + Sync>,
    shared: &Mutex<Names>,
) -> Option<bool> {
    let size = std::fs::metadata(&job.path)
        .ok()
        .filter(|m| m.is_file())?
        .len();
    let cuts = steps.cuts(size);
    if cuts.is_empty()
        || !matches!(
            crate::ingest::import::detect_file(&job.path),
            Ok(crate::ingest::import::Detected::Native)
        )
    {
        return None;
    }
    let source: Arc<str> = Arc::from(job.path.display().to_string());
    let name = ingest::session_name(&job.path);
    // Where each prefix ends: before the first turn event after its cut (the turns it holds
    // are whole). A file with no turn event after a cut has none after a later one either.
    let mut ends = Vec::new();
    for c in cuts {
        match turn_boundary(&job.path, c) {
            Ok(Some(e)) if e < size && ends.last().is_none_or(|&l| e > l) => ends.push(e),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    let last_step = ends.len();
    for (k, end) in ends.into_iter().map(Some).chain([None]).enumerate() {
        // The last step reads the whole file as `load_native_file` does; a file that cannot be
        // opened any more ends the steps with the session `load_native_file` reports it in.
        let (s, last) = match std::fs::File::open(&job.path) {
            Ok(file) => {
                let reading = Reading {
                    inner: std::io::Read::take(file, end.unwrap_or(u64::MAX)),
                    read: 0,
                    told: Instant::now(),
                    source: &source,
                    send: &**send,
                };
                let s = ingest::load_reader(name.clone(), source.clone(), reading, opts);
                (s, k == last_step)
            }
            Err(_) => (ingest::load_native_file(&job.path, opts), true),
        };
        let mut s = s;
        share(shared, std::slice::from_mut(&mut s));
        let checked_bytes = match end {
            Some(e) if !last => e,
            _ => s.bytes,
        };
        if last {
            for pr in problems_of(&s) {
                send(LoadMsg::Problem(pr));
            }
        }
        // The step is read in full: said before its checks start, since the reader tells at
        // most every `READ_TICK` and its last word may be short of the step's end (the header
        // said "checking up to 97%" of a last step that was the whole file).
        send(LoadMsg::Read {
            source: source.to_string(),
            bytes: checked_bytes,
        });
        let loaded = check_told(s, p, send, &source);
        let msg = LoadMsg::Step {
            source: source.to_string(),
            loaded: Box::new(loaded),
            checked: checked_bytes,
            total: if last {
                checked_bytes
            } else {
                size.max(checked_bytes + 1)
            },
            alone: job.alone,
        };
        if !send(msg) {
            return Some(false);
        }
        if last {
            break;
        }
    }
    Some(true)
}

/// [`checked`], telling the explorer how far the checks are: when they start, then at most
/// every [`READ_TICK`].
fn check_told(
    s: Session,
    p: &Pipeline,
    send: &Arc<dyn Fn(LoadMsg) -> bool + Send + Sync>,
    source: &Arc<str>,
) -> Loaded {
    let (send, source) = (send.clone(), source.clone());
    let mut told: Option<Instant> = None;
    let tell = move |done: u64, total: u64| {
        if told.is_none_or(|t| t.elapsed() >= READ_TICK) {
            told = Some(Instant::now());
            send(LoadMsg::Checking {
                source: source.to_string(),
                done,
                total,
            });
        }
    };
    crate::check::progress::watch(tell, || checked(s, p))
}

/// The byte offset of the first line at or after `from` that is a `turn` event, as the
/// recorder and `provscope gen` write them (`{"event":"turn"` first); `None` when there is none.
fn turn_boundary(path: &Path, from: u64) -> std::io::Result<Option<u64>> {
    use std::io::{BufRead, Seek, SeekFrom};
    let mut f = std::io::BufReader::with_capacity(64 << 10, std::fs::File::open(path)?);
    f.seek(SeekFrom::Start(from))?;
    let mut at = from;
    let mut line = Vec::new();
    // The rest of the line `from` falls in.
    at += f.read_until(b'\n', &mut line)? as u64;
    loop {
        line.clear();
        let n = f.read_until(b'\n', &mut line)? as u64;
        if n == 0 {
            return Ok(None);
        }
        if line.starts_with(br#"{"event":"turn""#) {
            return Ok(Some(at));
        }
        at += n;
    }
}

/// Counts the bytes a step reads, telling the explorer every [`READ_TICK`].
struct Reading<'a, R> {
    inner: R,
    read: u64,
    told: Instant,
    source: &'a Arc<str>,
    send: &'a dyn Fn(LoadMsg) -> bool,
}

impl<R: std::io::Read> std::io::Read for Reading<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.told.elapsed() >= READ_TICK {
            self.told = Instant::now();
            (self.send)(LoadMsg::Read {
                source: self.source.to_string(),
                bytes: self.read,
            });
        }
        Ok(n)
    }
}

fn send_problem(send: &dyn Fn(LoadMsg) -> bool, p: &Path, e: &std::io::Error) {
    let what = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        _ => format!("cannot read: {e}"),
    };
    send(LoadMsg::Problem(format!("{}: error: {what}", p.display())));
}

fn batch(rx: Receiver<(Vec<Loaded>, Vec<String>)>, send: &dyn Fn(LoadMsg) -> bool) {
    let mut pending: Vec<Loaded> = Vec::new();
    let mut problems = 0usize;
    let mut since = Instant::now();
    let mut first = true;
    loop {
        let got = if pending.is_empty() {
            rx.recv()
                .map_err(|_| std::sync::mpsc::RecvTimeoutError::Disconnected)
        } else {
            rx.recv_timeout(BATCH_AGE.saturating_sub(since.elapsed()))
        };
        match got {
            Ok((loaded, ps)) => {
                for p in ps {
                    problems += 1;
                    if problems <= MAX_PROBLEMS {
                        send(LoadMsg::Problem(p));
                    }
                }
                if pending.is_empty() {
                    since = Instant::now();
                }
                pending.extend(loaded);
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                if !pending.is_empty() {
                    send(LoadMsg::Sessions(std::mem::take(&mut pending)));
                }
                if problems > MAX_PROBLEMS {
                    send(LoadMsg::Problem(format!(
                        "… and {} more problems (provscope verify lists them all)",
                        problems - MAX_PROBLEMS
                    )));
                }
                return;
            }
        }
        if !pending.is_empty() && (first || pending.len() >= BATCH || since.elapsed() >= BATCH_AGE)
        {
            first = false;
            if !send(LoadMsg::Sessions(std::mem::take(&mut pending))) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Steps;

    #[test]
    fn prefixes_grow_4x_and_stay_within_a_sixteenth_of_the_file() {
        let mib = 1u64 << 20;
        let steps = Steps::default();
        // The scale bench's logs: 180 MB (100k calls) and 1.8 GB (1M calls).
        assert_eq!(steps.cuts(179_700_488), vec![2 * mib, 8 * mib]);
        assert_eq!(steps.cuts(1_797_004_880), vec![2 * mib, 8 * mib, 32 * mib]);
        // Below `min_file`, or with no first step: the file is loaded whole.
        assert!(steps.cuts(32 * mib - 1).is_empty());
        assert!(Steps { first: 0, ..steps }.cuts(u64::MAX).is_empty());
        for size in (0..4096u64).map(|k| 32 * mib + k * 7_919 * 1_024) {
            let cuts = steps.cuts(size);
            assert_eq!(cuts.first(), Some(&(2 * mib)), "{size}");
            for w in cuts.windows(2) {
                assert_eq!(w[1], w[0] * 4);
            }
            let last = *cuts.last().unwrap_or(&0);
            assert!(last * 16 <= size, "{size}: a prefix of {last}");
            assert!(last * 64 > size, "{size}: {last} could grow once more");
        }
        // The largest sizes do not overflow.
        assert!(steps.cuts(u64::MAX).iter().all(|&c| c <= u64::MAX / 16));
    }
}
