//! Turning command-line paths into session logs, and loading them in parallel.

use super::import::{detect_file, Detected};
use super::loader::{load_found, LoadOptions};
use crate::model::{DiagLevel, Diagnostic, Session};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Sessions loaded from a set of paths, plus problems with the paths themselves.
#[derive(Debug, Default)]
pub struct Loaded {
    /// One session per log file, in path order.
    pub sessions: Vec<Session>,
    /// Problems with the paths (missing, empty directory, unreadable).
    pub input_errors: Vec<Diagnostic>,
}

impl Loaded {
    /// True when any path or any session had an error-level diagnostic.
    pub fn has_errors(&self) -> bool {
        self.input_errors
            .iter()
            .any(|d| d.level == DiagLevel::Error)
            || self.sessions.iter().any(Session::has_errors)
    }

    /// Every diagnostic, paths first.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.input_errors
            .iter()
            .chain(self.sessions.iter().flat_map(|s| s.diagnostics.iter()))
    }
}

fn path_error(p: &Path, message: String) -> Diagnostic {
    Diagnostic {
        file: Arc::from(p.display().to_string()),
        line: 0,
        column: 0,
        path: String::new(),
        level: DiagLevel::Error,
        message,
    }
}

/// A file to load.
#[derive(Clone, Debug)]
pub struct Found {
    /// The file.
    pub path: PathBuf,
    /// Found in a directory scan: loaded only when its content turns out to be a session log or
    /// a known format (judged when it is loaded, from the head the loader reads on from). A
    /// file named on the command line is always read.
    pub in_scan: bool,
}

/// The log files under `paths`, each judged by content now (for following them; loading
/// judges each file as it reads it, see [`discover_found`]).
pub fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Diagnostic>) {
    let (found, errors) = discover_found(paths);
    (
        found
            .into_iter()
            .filter(|f| !f.in_scan || scanned(&f.path).is_some())
            .map(|f| f.path)
            .collect(),
        errors,
    )
}

/// Expands paths into the files to load: files as given, directories searched recursively
/// (sorted, hidden entries and symlinked directories skipped) for candidate files (`.jsonl`,
/// `.json`, `.ndjson`, `.log`, `.yaml`, `.yml`). Nothing is read here but, for each directory,
/// the heads of its candidates up to the first that is a log (a directory with none is
/// reported): each candidate is judged by content when it is loaded, from the head the loader
/// reads on from, so a file is opened and read once (`loader::load_found`), and the other files
/// of a directory are skipped quietly then. A file named on the command line is always read
/// (and reported when it is not a known format).
pub fn discover_found(paths: &[PathBuf]) -> (Vec<Found>, Vec<Diagnostic>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Err(e) => errors.push(path_error(
                p,
                match e.kind() {
                    std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
                    _ => format!("cannot read: {e}"),
                },
            )),
            Ok(m) if m.is_dir() => {
                let before = files.len();
                walk(p, &mut files, &mut errors);
                if !files[before..].iter().any(|f| scanned(&f.path).is_some()) {
                    errors.push(path_error(
                        p,
                        "no session logs or known traces in this directory".into(),
                    ));
                }
            }
            Ok(_) => files.push(Found {
                path: p.clone(),
                in_scan: false,
            }),
        }
    }
    (files, errors)
}

fn walk(dir: &Path, out: &mut Vec<Found>, errors: &mut Vec<Diagnostic>) {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            errors.push(path_error(dir, format!("cannot list the directory: {e}")));
            return;
        }
    };
    // Each name read once (a sort key recomputed per comparison allocated two names per
    // comparison: 3.4M allocations for 100,000 files, before the first file was loaded).
    let mut entries: Vec<_> = rd
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e))
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (name, e) in entries {
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&path, out, errors),
            Ok(t) if t.is_file() && has_candidate_extension(&path) => out.push(Found {
                path,
                in_scan: true,
            }),
            // A FIFO or a device in a scanned directory could block or never end: skipped, said.
            Ok(t) if !t.is_file() && !t.is_symlink() && has_candidate_extension(&path) => {
                errors.push(Diagnostic {
                    level: DiagLevel::Warning,
                    ..path_error(
                        &path,
                        "not a regular file (a FIFO, socket or device): skipped in a directory scan; name it directly to read it".into(),
                    )
                })
            }
            _ => {}
        }
    }
}

/// Extensions worth opening in a directory scan; the content decides the format (`sse`: a
/// streamed model response saved as received; under another name it is read when named).
const CANDIDATES: &[&str] = &["jsonl", "json", "ndjson", "log", "yaml", "yml", "sse"];

/// True when the file name has an extension worth opening in a directory scan (the explorer's
/// and every command's).
pub fn has_candidate_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| CANDIDATES.contains(&x))
}

/// Whether a file found in a directory is kept, judged by content now (reads its head): `Some`
/// with its detected format when it holds a session log or a known format (`Some(None)` for a
/// `.jsonl` that could not be read: the loader reports it), `None` to skip it.
pub fn scanned(path: &Path) -> Option<Option<Detected>> {
    if !has_candidate_extension(path) {
        return None;
    }
    in_scan_keeps(path, detect_file(path).ok())
}

/// The rule of [`scanned`] on a candidate's detected format (`None` when it could not be read):
/// a `.jsonl` file that starts like JSON is kept even when unrecognised (and one that cannot be
/// read), so a damaged session log is reported rather than skipped.
pub(crate) fn in_scan_keeps(path: &Path, detected: Option<Detected>) -> Option<Option<Detected>> {
    let jsonl = path.extension().is_some_and(|x| x == "jsonl");
    match detected {
        Some(d @ (Detected::Native | Detected::Import(_))) => Some(Some(d)),
        Some(d @ Detected::JsonLike) => jsonl.then_some(Some(d)),
        Some(Detected::Unknown) => None,
        None => jsonl.then_some(None),
    }
}

/// Discovers and loads every session under `paths`, using up to `threads` threads.
pub fn load_paths(paths: &[PathBuf], opts: &LoadOptions, threads: usize) -> Loaded {
    let (files, input_errors) = discover_found(paths);
    let sessions = load_files_parallel(&files, opts, threads);
    Loaded {
        sessions,
        input_errors,
    }
}

fn load_files_parallel(files: &[Found], opts: &LoadOptions, threads: usize) -> Vec<Session> {
    if threads <= 1 {
        // Each file's sessions go straight into one list sized for a session per file: no
        // list per file kept until all are read, and no doubling of the whole list (a copy of
        // every session record, and room for up to as many again, at the peak).
        let mut all = Vec::with_capacity(files.len());
        for f in files {
            all.extend(load_found(&f.path, opts, f.in_scan).unwrap_or_default());
        }
        return all;
    }
    parallel_map(files, threads, |f| {
        load_found(&f.path, opts, f.in_scan).unwrap_or_default()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Maps `f` over `items` on up to `threads` threads, keeping the input order.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                if let Ok(mut g) = slots.lock() {
                    g[i] = Some(r);
                }
            });
        }
    });
    slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}
