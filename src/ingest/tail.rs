//! Following growing files, shared by `verify --follow` and the explorer's follow mode.
//!
//! [`Tail`] reads what was appended to one file since the last look and keeps its complete lines
//! (a half-written last line waits for its newline, so it is never parsed as a damaged line,
//! unless it is already whole JSON: see [`Tail::settled`]); a file that shrank (truncated: the
//! same file) or was replaced by another file (rotated: another file identity at its path,
//! whatever its size) starts over from its first byte. [`Follow`] holds the tails of a set of
//! files and blocks until some of them changed: it is woken by the operating system's file
//! notifications (inotify, FSEvents, kqueue, ReadDirectoryChangesW, through the `notify` crate) on
//! the files' directories, so an idle follow reads nothing and parses nothing; where
//! notifications cannot be had it polls.
//! Files created later inside followed directories ([`Follow::follow_dirs`]) are followed too,
//! once their content says they are logs ([`crate::ingest::scanned`]).

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// How often files are looked at when the operating system cannot notify.
pub const POLL: Duration = Duration::from_millis(200);
/// How often every file is looked at anyway while notifications work (a notification can be lost:
/// a full kernel queue, a network file system): one `stat` per file, nothing read or parsed.
pub const SAFETY_POLL: Duration = Duration::from_secs(2);

/// Why a file was read again from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restart {
    /// The same file is shorter than what was read.
    Truncated,
    /// Another file is at its path (log rotation: renamed away and created again, or a new file
    /// renamed over it), told by the file identity whatever its size.
    Rotated,
}

impl Restart {
    /// As said in notes.
    pub fn as_str(self) -> &'static str {
        match self {
            Restart::Truncated => "truncated",
            Restart::Rotated => "rotated (another file at its path)",
        }
    }
}

/// What one look at a file found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// The file was truncated or replaced: what was read is dropped, reading starts over.
    pub restarted: Option<Restart>,
    /// New complete lines arrived, or the last line (still without its newline) became whole
    /// JSON (see [`Tail::settled`]).
    pub appended: bool,
}

impl Change {
    /// Whether what the complete lines hold may differ from the last look.
    pub fn any(&self) -> bool {
        self.restarted.is_some() || self.appended
    }
}

/// One followed file: its complete lines so far.
#[derive(Debug)]
pub struct Tail {
    path: PathBuf,
    /// Every complete line read so far.
    complete: Vec<u8>,
    /// Bytes after the last newline (a line being written).
    partial: Vec<u8>,
    /// Whether [`Tail::settled`] includes `partial`: it is whole JSON (see there).
    partial_whole: bool,
    /// Whether the file's first line is whole JSON by itself (a line log), once it is complete.
    first_line_whole: Option<bool>,
    /// Whether what was read is the beginning of one JSON document (see [`Tail::unfinished`]).
    unfinished: bool,
    /// Bytes of the file consumed.
    offset: u64,
    /// The file's identity when it was last looked at.
    id: Option<Identity>,
}

/// What tells one file from another at the same path: (device, inode) on unix.
#[cfg(unix)]
type Identity = (u64, u64);

#[cfg(unix)]
fn identity(_: &Path, m: &std::fs::Metadata) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

/// What tells one file from another at the same path: the volume serial number and file index
/// on Windows (`same_file::Handle` compares them; std exposes them on nightly only).
#[cfg(windows)]
type Identity = same_file::Handle;

#[cfg(windows)]
fn identity(p: &Path, _: &std::fs::Metadata) -> Option<Identity> {
    same_file::Handle::from_path(p).ok()
}

/// Elsewhere only a shorter file is noticed (as a truncation).
#[cfg(not(any(unix, windows)))]
type Identity = ();

#[cfg(not(any(unix, windows)))]
fn identity(_: &Path, _: &std::fs::Metadata) -> Option<Identity> {
    None
}

impl Tail {
    /// A file to follow (it may not exist yet); nothing is read until [`Tail::poll`].
    pub fn new(path: PathBuf) -> Tail {
        Tail {
            path,
            complete: Vec::new(),
            partial: Vec::new(),
            partial_whole: false,
            first_line_whole: None,
            unfinished: false,
            offset: 0,
            id: None,
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every complete line read so far (each ends with a newline).
    pub fn complete(&self) -> &[u8] {
        &self.complete
    }

    /// Whether a half-written line is waiting for its newline.
    pub fn partial_len(&self) -> usize {
        self.partial.len()
    }

    /// Whether the file so far is the beginning of one JSON document being written (a
    /// pretty-printed API response or trace export): its first line is not whole JSON, and all
    /// of it is the start of one JSON value that has not ended. Nothing of it is settled until
    /// the document is whole, so its first lines are never checked as a damaged log.
    pub fn unfinished(&self) -> bool {
        self.unfinished
    }

    /// What a check of the file reads: its complete lines, plus the bytes after the last newline
    /// when they already make whole JSON. That is a finished line whose newline is not written
    /// yet, or (with the lines before it) one JSON document saved without a final newline, such
    /// as an API response or a trace export, which would otherwise never be read whole. A line
    /// being written is not whole JSON, so it still waits for its newline; a document being
    /// written ([`Tail::unfinished`]) waits whole: nothing of it is settled.
    pub fn settled(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.unfinished {
            std::borrow::Cow::Borrowed(&[])
        } else if self.partial_whole {
            let mut all = Vec::with_capacity(self.complete.len() + self.partial.len());
            all.extend_from_slice(&self.complete);
            all.extend_from_slice(&self.partial);
            std::borrow::Cow::Owned(all)
        } else {
            std::borrow::Cow::Borrowed(&self.complete)
        }
    }

    /// Reads what was appended since the last look. A missing or unreadable file is no change
    /// (it is looked at again on the next poll).
    pub fn poll(&mut self) -> Change {
        let mut change = Change::default();
        let Ok(meta) = std::fs::metadata(&self.path) else {
            return change;
        };
        let id = identity(&self.path, &meta);
        let rotated = self.id.is_some() && id.is_some() && id != self.id;
        if rotated || meta.len() < self.offset {
            change.restarted = Some(if rotated {
                Restart::Rotated
            } else {
                Restart::Truncated
            });
            self.complete.clear();
            self.partial.clear();
            self.partial_whole = false;
            self.first_line_whole = None;
            self.unfinished = false;
            self.offset = 0;
        }
        self.id = id;
        if meta.len() == self.offset {
            return change;
        }
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return change;
        };
        let mut buf = Vec::new();
        if f.seek(SeekFrom::Start(self.offset)).is_err() || f.read_to_end(&mut buf).is_err() {
            return change;
        }
        self.offset += buf.len() as u64;
        self.partial.extend_from_slice(&buf);
        if let Some(end) = memchr::memrchr(b'\n', &self.partial) {
            let rest = self.partial.split_off(end + 1);
            self.complete.append(&mut self.partial);
            self.partial = rest;
            change.appended = true;
        }
        let was_whole = self.partial_whole;
        self.partial_whole = !self.partial.is_empty()
            && (whole_json(self.partial.as_slice())
                || whole_json(self.complete.as_slice().chain(self.partial.as_slice())));
        change.appended |= self.partial_whole || was_whole;
        if self.first_line_whole.is_none() {
            if let Some(end) = memchr::memchr(b'\n', &self.complete) {
                self.first_line_whole = Some(whole_json(&self.complete[..end]));
            }
        }
        // A line log (its first line whole by itself) is never a document being written, so
        // only a file whose first line is not whole is read again here.
        self.unfinished = !self.partial_whole
            && self.first_line_whole == Some(false)
            && unfinished_json(self.complete.as_slice().chain(self.partial.as_slice()));
        if self.unfinished {
            // Nothing settled changed: the document waits until it is whole.
            change.appended = false;
        }
        change
    }
}

/// Whether `bytes` are the start of one JSON object or array that has not ended yet: they parse
/// as JSON up to their end, where more was expected.
fn unfinished_json(bytes: impl Read) -> bool {
    parse_one(bytes)
        .is_some_and(|r| r.is_err_and(|e| e.classify() == serde_json::error::Category::Eof))
}

/// Whether `bytes` hold exactly one JSON value (and whitespace). Only objects and arrays count:
/// a number or a word may be the start of a longer line. A run of JSON Lines fails at its second
/// line, so this reads little of a line log.
fn whole_json(bytes: impl Read) -> bool {
    parse_one(bytes).is_some_and(|r| r.is_ok())
}

/// `bytes` parsed as one JSON value (and whitespace), when they start with an object or an
/// array (None otherwise); the parse stops at the first error.
fn parse_one(bytes: impl Read) -> Option<serde_json::Result<serde::de::IgnoredAny>> {
    let mut r = std::io::BufReader::new(bytes);
    let first = loop {
        match r.fill_buf() {
            Ok([]) | Err(_) => return None,
            Ok(b) => match b.iter().position(|c| !c.is_ascii_whitespace()) {
                Some(i) => break b[i],
                None => {
                    let n = b.len();
                    r.consume(n);
                }
            },
        }
    };
    matches!(first, b'{' | b'[').then(|| serde_json::from_reader(r))
}

/// What wakes a [`Follow`] besides the files: sent through [`Follow::waker`].
#[derive(Debug)]
pub enum Wake {
    /// Look at these paths.
    Paths(Vec<PathBuf>),
    /// Look at every file.
    All,
    /// Stop waiting: [`Follow::changes`] returns at once (and `stopped` is set).
    Stop,
}

/// How a [`Follow`] learns of changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The operating system notifies (plus a `stat` of every file every [`SAFETY_POLL`]).
    Notify,
    /// Every file is looked at every [`POLL`].
    Poll,
}

impl Mode {
    /// As shown to people.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Notify => "file notifications",
            Mode::Poll => "polling",
        }
    }
}

/// A set of followed files and what wakes it.
pub struct Follow {
    /// The files, in the order given.
    pub tails: Vec<Tail>,
    rx: Receiver<Wake>,
    tx: Sender<Wake>,
    /// Kept alive while following (dropping it ends the notifications).
    _watcher: Option<notify::RecommendedWatcher>,
    mode: Mode,
    /// Tails by file name (what notifications name).
    by_name: HashMap<OsString, Vec<usize>>,
    /// Directories whose new log files are followed too.
    dirs: Vec<PathBuf>,
    /// Files followed, by path.
    known: std::collections::HashSet<PathBuf>,
    /// Files met in `dirs` that are not logs (yet): their size when last looked at.
    rejected: HashMap<PathBuf, u64>,
    next_full: Instant,
    stopped: bool,
}

/// A channel for [`Follow::with_channel`].
pub fn channel() -> (Sender<Wake>, Receiver<Wake>) {
    std::sync::mpsc::channel()
}

/// The directory a notification for `file` comes from.
fn dir_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl Follow {
    /// Follows `files` (which may not exist yet: they are picked up when they appear, if their
    /// directory exists). Watches the files' directories, so that a file created or replaced
    /// later is noticed; falls back to polling when a directory cannot be watched.
    pub fn new(files: Vec<PathBuf>) -> Follow {
        Follow::with_mode(files, true)
    }

    /// Like [`Follow::new`]; `notify: false` polls without asking the operating system (tests,
    /// and file systems known not to notify).
    pub fn with_mode(files: Vec<PathBuf>, notify: bool) -> Follow {
        Follow::with_channel(files, notify, channel())
    }

    /// Like [`Follow::with_mode`], woken through a channel made beforehand (so that whoever
    /// starts a follow on another thread holds its waker at once).
    pub fn with_channel(
        files: Vec<PathBuf>,
        notify: bool,
        (tx, rx): (Sender<Wake>, Receiver<Wake>),
    ) -> Follow {
        let mut by_name: HashMap<OsString, Vec<usize>> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            if let Some(n) = f.file_name() {
                by_name.entry(n.to_owned()).or_default().push(i);
            }
        }
        let watcher = if notify { watch(&files, &tx) } else { None };
        let mode = if watcher.is_some() {
            Mode::Notify
        } else {
            Mode::Poll
        };
        Follow {
            known: files.iter().cloned().collect(),
            tails: files.into_iter().map(Tail::new).collect(),
            rx,
            tx,
            _watcher: watcher,
            mode,
            by_name,
            dirs: Vec::new(),
            rejected: HashMap::new(),
            next_full: Instant::now(),
            stopped: false,
        }
    }

    /// Follows the files created later inside `dirs` (and their subdirectories, hidden entries
    /// skipped) too, once their content says they are logs; they are told by notifications on
    /// the directories (recursive), and looked for at every full look otherwise.
    pub fn follow_dirs(&mut self, dirs: Vec<PathBuf>) {
        if let Some(w) = self._watcher.as_mut() {
            use notify::Watcher;
            for d in &dirs {
                if w.watch(d, notify::RecursiveMode::Recursive).is_err() {
                    self.mode = Mode::Poll;
                }
            }
        }
        self.dirs.extend(dirs);
    }

    /// Follows `path` if it is a new log file inside a followed directory; its index.
    fn adopt(&mut self, path: &Path) -> Option<usize> {
        if self.known.contains(path) {
            return None;
        }
        // Inside a followed directory, with no hidden entry on the way (as a directory scan).
        let inside = self.dirs.iter().any(|d| {
            path.strip_prefix(d).is_ok_and(|rel| {
                rel.components()
                    .all(|c| !c.as_os_str().to_string_lossy().starts_with('.'))
            })
        });
        if !inside {
            return None;
        }
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        if self.rejected.get(path) == Some(&meta.len()) {
            return None;
        }
        if crate::ingest::scanned(path).is_none() {
            self.rejected.insert(path.to_path_buf(), meta.len());
            return None;
        }
        self.rejected.remove(path);
        let i = self.tails.len();
        self.known.insert(path.to_path_buf());
        if let Some(n) = path.file_name() {
            self.by_name.entry(n.to_owned()).or_default().push(i);
        }
        self.tails.push(Tail::new(path.to_path_buf()));
        Some(i)
    }

    /// Follows the new log files in the followed directories (listing them; only files not met
    /// before, or grown since they were found not to be logs, are opened).
    fn scan_dirs(&mut self) {
        let mut stack: Vec<PathBuf> = self.dirs.clone();
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.filter_map(Result::ok) {
                if e.file_name().to_string_lossy().starts_with('.') {
                    continue;
                }
                let path = e.path();
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push(path),
                    Ok(t) if t.is_file() && !self.known.contains(&path) => {
                        self.adopt(&path);
                    }
                    _ => {}
                }
            }
        }
    }

    /// How changes are learnt.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// A sender that wakes [`Follow::changes`] (for `Wake::Stop` from a signal or the explorer).
    pub fn waker(&self) -> Sender<Wake> {
        self.tx.clone()
    }

    /// True once `Wake::Stop` arrived.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Looks at every file now: the changed ones, with what changed.
    pub fn poll_all(&mut self) -> Vec<(usize, Change)> {
        self.next_full = Instant::now() + self.period();
        self.scan_dirs();
        self.tails
            .iter_mut()
            .enumerate()
            .filter_map(|(i, t)| {
                let c = t.poll();
                c.any().then_some((i, c))
            })
            .collect()
    }

    fn period(&self) -> Duration {
        match self.mode {
            Mode::Notify => SAFETY_POLL,
            Mode::Poll => POLL,
        }
    }

    /// Blocks until some files changed, a stop was asked for, or `max_wait` passed; returns the
    /// changed files (indexes into `tails`) with what changed. Notifications that arrive together
    /// are taken as one look at each file they name.
    pub fn changes(&mut self, max_wait: Duration) -> Vec<(usize, Change)> {
        let deadline = Instant::now() + max_wait;
        loop {
            if self.stopped {
                return Vec::new();
            }
            let now = Instant::now();
            if now >= self.next_full {
                let c = self.poll_all();
                if !c.is_empty() {
                    return c;
                }
            }
            if now >= deadline {
                return Vec::new();
            }
            let wait = self.next_full.min(deadline).saturating_duration_since(now);
            let first = match self.rx.recv_timeout(wait) {
                Ok(w) => w,
                Err(RecvTimeoutError::Timeout) => continue,
                // Nobody can wake us any more (cannot happen: `self.tx` lives): poll.
                Err(RecvTimeoutError::Disconnected) => Wake::All,
            };
            let mut all = false;
            let mut look: Vec<usize> = Vec::new();
            let mut take =
                |w: Wake, all: &mut bool, stopped: &mut bool, new: &mut Vec<PathBuf>| match w {
                    Wake::Stop => *stopped = true,
                    Wake::All => *all = true,
                    Wake::Paths(ps) => {
                        for p in ps {
                            if let Some(v) = p.file_name().and_then(|n| self.by_name.get(n)) {
                                look.extend(v.iter().copied());
                            }
                            if !self.dirs.is_empty() && !self.known.contains(&p) {
                                new.push(p);
                            }
                        }
                    }
                };
            let mut new: Vec<PathBuf> = Vec::new();
            take(first, &mut all, &mut self.stopped, &mut new);
            while let Ok(w) = self.rx.try_recv() {
                take(w, &mut all, &mut self.stopped, &mut new);
            }
            for p in new {
                look.extend(self.adopt(&p));
            }
            if self.stopped {
                return Vec::new();
            }
            if all {
                let c = self.poll_all();
                if !c.is_empty() {
                    return c;
                }
                continue;
            }
            look.sort_unstable();
            look.dedup();
            let c: Vec<(usize, Change)> = look
                .into_iter()
                .filter_map(|i| {
                    let c = self.tails.get_mut(i)?.poll();
                    c.any().then_some((i, c))
                })
                .collect();
            if !c.is_empty() {
                return c;
            }
        }
    }
}

/// Watches the directories of `files` (not recursively), forwarding what the operating system
/// reports as [`Wake`]s; None when notifications cannot be had for all of them.
fn watch(files: &[PathBuf], tx: &Sender<Wake>) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher;
    let fwd = tx.clone();
    let mut w = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        let wake = match ev {
            Ok(e) if e.need_rescan() || e.paths.is_empty() => Wake::All,
            Ok(e) if matches!(e.kind, notify::EventKind::Access(_)) => return,
            Ok(e) => Wake::Paths(e.paths),
            Err(_) => Wake::All,
        };
        let _ = fwd.send(wake);
    })
    .ok()?;
    let mut dirs: Vec<PathBuf> = files.iter().map(|f| dir_of(f)).collect();
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        w.watch(&d, notify::RecursiveMode::NonRecursive).ok()?;
    }
    Some(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn append(p: &Path, s: &str) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(p)
            .unwrap();
        f.write_all(s.as_bytes()).unwrap();
    }

    #[test]
    fn complete_lines_only_and_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        let mut t = Tail::new(p.clone());
        assert_eq!(t.poll(), Change::default(), "missing: no change");
        append(&p, "one\ntw");
        assert!(t.poll().appended);
        assert_eq!(t.complete(), b"one\n");
        assert_eq!(t.partial_len(), 2);
        assert!(!t.poll().any(), "nothing new");
        append(&p, "o");
        assert!(!t.poll().any(), "still half a line");
        append(&p, "\n");
        assert!(t.poll().appended);
        assert_eq!(t.complete(), b"one\ntwo\n");
        std::fs::write(&p, "x").unwrap();
        let c = t.poll();
        assert_eq!(c.restarted, Some(Restart::Truncated));
        assert!(!c.appended);
        assert_eq!(t.complete(), b"");
        // Rotation: another file at the path, longer than what was read.
        let q = dir.path().join("b.jsonl");
        std::fs::write(&q, "new\nfile\n").unwrap();
        std::fs::rename(&q, &p).unwrap();
        let c = t.poll();
        assert_eq!(c.restarted, Some(Restart::Rotated));
        assert!(c.appended);
        assert_eq!(t.complete(), b"new\nfile\n");
        // Rotation to a shorter file (renamed away, created again): a rotation, not a truncation.
        std::fs::rename(&p, dir.path().join("a.jsonl.1")).unwrap();
        assert!(!t.poll().any(), "nothing at the path yet");
        std::fs::write(&p, "n\n").unwrap();
        let c = t.poll();
        assert_eq!(c.restarted, Some(Restart::Rotated));
        assert_eq!(t.complete(), b"n\n");
        // The same file shrunk: a truncation.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(0)
            .unwrap();
        assert_eq!(t.poll().restarted, Some(Restart::Truncated));
    }

    #[test]
    fn a_last_line_without_its_newline_is_read_once_it_is_whole_json() {
        let dir = tempfile::tempdir().unwrap();
        // One pretty-printed document saved without a final newline (an API response).
        let p = dir.path().join("response.json");
        let mut t = Tail::new(p.clone());
        append(&p, "{\n  \"id\": \"resp_1\",\n  \"output\": [");
        assert!(
            !t.poll().appended,
            "two complete lines, but of a document being written"
        );
        assert!(t.unfinished());
        assert_eq!(&*t.settled(), b"", "half a document waits whole");
        append(&p, "\n    {\"type\": \"message\"}\n");
        assert!(!t.poll().appended, "more of it, still unfinished");
        assert_eq!(&*t.settled(), b"");
        append(&p, "  ]\n}");
        assert!(
            t.poll().appended,
            "the document is whole without its newline"
        );
        assert!(!t.unfinished());
        assert_eq!(
            &*t.settled(),
            b"{\n  \"id\": \"resp_1\",\n  \"output\": [\n    {\"type\": \"message\"}\n  ]\n}"
        );
        assert_eq!(
            t.partial_len(),
            1,
            "the lines are unchanged: the closing brace has no newline"
        );
        append(&p, "\n");
        assert!(t.poll().appended);
        assert_eq!(t.partial_len(), 0);
        assert_eq!(&*t.settled(), t.complete());

        // Lines: a finished line whose newline is not written yet is read; a line being written
        // (not whole JSON, or whole only with the lines before it as a stream) waits.
        let q = dir.path().join("log.jsonl");
        let mut t = Tail::new(q.clone());
        append(&q, "{\"a\":1}\n{\"b\":");
        assert!(t.poll().appended);
        assert_eq!(&*t.settled(), b"{\"a\":1}\n");
        append(&q, "2}");
        assert!(t.poll().appended, "the last line became whole");
        assert_eq!(&*t.settled(), b"{\"a\":1}\n{\"b\":2}");
        append(&q, "\n{\"c\"");
        assert!(t.poll().appended);
        assert_eq!(&*t.settled(), b"{\"a\":1}\n{\"b\":2}\n");
        // A number or a word may be the start of a longer line.
        append(&q, ":3}\n12");
        t.poll();
        assert_eq!(&*t.settled(), t.complete());
        assert!(
            !t.unfinished(),
            "a line log is never a document being written"
        );
        // A damaged first line is not a document being written once the next line does not
        // continue it: it is checked (and reported) as the log it is.
        let r = dir.path().join("damaged.jsonl");
        let mut d = Tail::new(r.clone());
        append(&r, "{\"a\":\n");
        assert!(!d.poll().appended);
        assert!(d.unfinished(), "so far it could be a document");
        append(&r, "{\"b\":1}\n{\"c\":2}\n");
        assert!(d.poll().appended);
        assert!(!d.unfinished());
        assert_eq!(&*d.settled(), b"{\"a\":\n{\"b\":1}\n{\"c\":2}\n");
        // Whitespace only, and a truncation, drop what was whole.
        std::fs::write(&q, "{}").unwrap();
        let c = t.poll();
        assert_eq!(c.restarted, Some(Restart::Truncated));
        assert_eq!(&*t.settled(), b"{}");
    }

    fn wait_for_change(f: &mut Follow) -> Vec<(usize, Change)> {
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            let c = f.changes(Duration::from_millis(500));
            if !c.is_empty() {
                return c;
            }
        }
        panic!("no change seen");
    }

    #[test]
    fn follow_wakes_on_appends_and_new_files_in_both_modes() {
        for notify in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let a = dir.path().join("a.jsonl");
            let b = dir.path().join("later.jsonl");
            append(&a, "first\n");
            let mut f = Follow::with_mode(vec![a.clone(), b.clone()], notify);
            if notify {
                assert_eq!(f.mode(), Mode::Notify);
            }
            let c = wait_for_change(&mut f);
            assert_eq!(
                c,
                vec![(
                    0,
                    Change {
                        restarted: None,
                        appended: true
                    }
                )]
            );
            append(&a, "second\n");
            let c = wait_for_change(&mut f);
            assert_eq!(c[0].0, 0);
            append(&b, "created\n");
            let c = wait_for_change(&mut f);
            assert_eq!(c[0].0, 1, "a file that appeared later is read");
            assert_eq!(f.tails[1].complete(), b"created\n");
            f.waker().send(Wake::Stop).unwrap();
            assert!(f.changes(Duration::from_secs(5)).is_empty());
            assert!(f.stopped());
        }
    }

    #[test]
    fn files_created_later_in_a_followed_directory_are_followed_once_they_are_logs() {
        let native = "{\"event\":\"session\",\"version\":1,\"session_id\":\"s\",\"started_at\":\"2026-01-01T00:00:00Z\"}\n";
        for notify in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let a = dir.path().join("a.jsonl");
            append(&a, native);
            let mut f = Follow::with_mode(vec![a.clone()], notify);
            f.follow_dirs(vec![dir.path().to_path_buf()]);
            assert_eq!(wait_for_change(&mut f)[0].0, 0);
            // Not logs: skipped (a text file, a hidden file, a JSON file of no known format).
            append(&dir.path().join("notes.txt"), native);
            append(&dir.path().join(".hidden.jsonl"), native);
            append(&dir.path().join("config.json"), "{\"colour\": \"blue\"}\n");
            // A log created empty, then written, in a subdirectory created later.
            std::fs::create_dir(dir.path().join("run2")).unwrap();
            let b = dir.path().join("run2").join("b.jsonl");
            append(&b, "");
            std::thread::sleep(Duration::from_millis(300));
            append(&b, native);
            let c = wait_for_change(&mut f);
            assert_eq!(c.len(), 1, "{c:?}");
            assert_eq!(f.tails[c[0].0].path(), b.as_path());
            assert_eq!(f.tails[c[0].0].complete(), native.as_bytes());
            assert_eq!(f.tails.len(), 2, "only the log is followed");
            append(&b, native);
            let c = wait_for_change(&mut f);
            assert_eq!(c[0].0, 1, "it is tailed from then on");
        }
    }

    #[test]
    fn notifications_arrive_without_waiting_for_a_poll() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        append(&a, "first\n");
        let mut f = Follow::new(vec![a.clone()]);
        if f.mode() != Mode::Notify {
            return;
        }
        assert_eq!(f.poll_all().len(), 1);
        append(&a, "second\n");
        let t0 = Instant::now();
        let c = f.changes(Duration::from_secs(1));
        assert_eq!(c.len(), 1, "seen by notification");
        assert!(t0.elapsed() < SAFETY_POLL, "{:?}", t0.elapsed());
    }
}
