//! The streaming session loader: one pass over the log, every valid event kept, every problem
//! reported as a diagnostic. It never panics; it stops early only on binary input (one
//! diagnostic). Files that are not regular files (FIFOs, devices) are read once, up to a cap.

use super::lines::{CappedLines, Line};
use crate::attest::hash::sha256_hex;
use crate::ingest::strip_pos;
use crate::model::event::{AnswerEvent, EnvelopeEvent, LabelEvent, TurnEvent};
use crate::model::{
    fit, Answer, Call, Claim, Context, DiagLevel, Diagnostic, EnvelopeRecord, Event, Label, Name,
    Names, Session, SessionHeader, Stamp, ToolResult, Turn, TurnIndex, FORMAT_VERSION,
};
use rustc_hash::FxHashSet as HashSet;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;

/// Default cap on one line: 32 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 32 << 20;

/// What is read at most from a file that is not a regular file (a FIFO, `/dev/stdin`, a device).
pub const NON_REGULAR_CAP: u64 = 1 << 30;

/// Loader settings.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Lines longer than this are skipped with a diagnostic.
    pub max_line_bytes: usize,
    /// Compute each input's SHA-256 while reading it (`Session::content_hash`).
    pub hash_content: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            hash_content: false,
        }
    }
}

/// Hashes what passes through it.
struct Hashing<R> {
    inner: R,
    hash: Option<sha2::Sha256>,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(h) = &mut self.hash {
            sha2::Digest::update(h, &buf[..n]);
        }
        Ok(n)
    }
}

/// Reads a file that is not a regular file once, up to [`NON_REGULAR_CAP`]; stops at the first
/// chunk when it holds a NUL byte (binary input: `/dev/zero`, `/dev/urandom`).
fn read_non_regular(path: &Path) -> std::io::Result<(Vec<u8>, bool)> {
    let mut f = std::fs::File::open(path)?.take(NON_REGULAR_CAP + 1);
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = f.read(&mut chunk)?;
        if n == 0 {
            return Ok((buf, false));
        }
        if buf.is_empty() && memchr::memchr(0, &chunk[..n]).is_some() {
            buf.extend_from_slice(&chunk[..n]);
            return Ok((buf, true));
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() as u64 > NON_REGULAR_CAP {
            buf.truncate(NON_REGULAR_CAP as usize);
            return Ok((buf, true));
        }
    }
}

/// Loads one file: a provscope session log, or any format an importer reads (detected by
/// content). A file holding several sessions (an OTLP export of several conversations) gives
/// the first, with a warning naming how many there are. Unreadable files and unknown formats
/// give a session with one diagnostic.
pub fn load_file(path: &Path, opts: &LoadOptions) -> Session {
    let mut all = load_file_sessions(path, opts);
    let n = all.len();
    let mut first = all.swap_remove(0);
    if n > 1 {
        let source = first.source.clone();
        first.diagnostics.push(Diagnostic {
            level: DiagLevel::Warning,
            message: format!(
                "this file holds {n} sessions; this command reads the first, `{}` (a directory or `verify` reads them all)",
                first.id()
            ),
            ..file_diag(&source, String::new())
        });
    }
    first
}

/// A file no importer reads and that is no session log: listed with the format `unknown`, not
/// as a provscope log.
fn unknown_format() -> crate::model::ImportInfo {
    crate::model::ImportInfo {
        format: "unknown",
        notes: Vec::new(),
    }
}

/// Loads every session of one file, whatever its format (detected by content, never by name).
/// Always returns at least one session (carrying the diagnostics when nothing could be read).
pub fn load_file_sessions(path: &Path, opts: &LoadOptions) -> Vec<Session> {
    load_found(path, opts, false).unwrap_or_default()
}

/// How a file is named in diagnostics: its path as text (as `Path::display` shows it; a UTF-8
/// path is taken as it is, without the formatter).
fn source_of(path: &Path) -> Arc<str> {
    match path.to_str() {
        Some(p) => Arc::from(p),
        None => Arc::from(path.display().to_string()),
    }
}

/// Loads every session of one file, opening and reading it once: its head is read to detect
/// the format by content, and the loader reads on from there. A file found in a directory scan
/// (`in_scan`) gives `None` when it holds no session log or known format
/// (`discover::in_scan_keeps`); any other file is always read, and reported when it is not a
/// known format.
pub fn load_found(path: &Path, opts: &LoadOptions, in_scan: bool) -> Option<Vec<Session>> {
    use super::import::{self, Detected};
    let source = source_of(path);
    // A directory scan lists regular files only; a named file may be a FIFO or a device, which
    // an open could block on or read for ever.
    let regular = in_scan || std::fs::metadata(path).map_or(true, |m| m.is_file());
    if !regular {
        // A FIFO can be read only once, and a device may never end: read it once, capped.
        return Some(match read_non_regular(path) {
            Ok((bytes, cut)) => {
                let mut all = load_any_bytes(&session_name(path), &source, &bytes, opts);
                if cut && !bytes.contains(&0) {
                    if let Some(s) = all.first_mut() {
                        s.diagnostics.push(file_diag(
                            &source,
                            format!(
                                "not a regular file: read only its first {NON_REGULAR_CAP} bytes"
                            ),
                        ));
                    }
                }
                all
            }
            Err(e) => vec![unreadable(path, source, &e)],
        });
    }
    let head = match import::open_head(path) {
        Ok(h) => h,
        Err(e) => {
            return (!in_scan || super::discover::in_scan_keeps(path, None).is_some())
                .then(|| vec![unreadable(path, source, &e)])
        }
    };
    let whole = head.whole();
    let super::import::OpenedHead {
        mut file,
        mut bytes,
    } = head;
    // A file its head holds whole is checked as text once, for detection and its importer.
    let text = if whole {
        import::checked_text(&bytes)
    } else {
        None
    };
    // A document its importer parses whole is judged from its first keys, and the parse
    // confirms it (or the head decides, in `import_whole`).
    let first = match text {
        Some(t) => import::detect_first_keys_in(t),
        None => import::detect_first_keys(&bytes),
    };
    let detected = match (first, text) {
        (Some(f), _) => Detected::Import(f.importer),
        (None, Some(t)) => import::detect_in(t),
        (None, None) => import::detect(&bytes),
    };
    if in_scan && super::discover::in_scan_keeps(path, Some(detected)).is_none() {
        return None;
    }
    let name = session_name(path);
    Some(match detected {
        Detected::Native if whole => vec![load_reader(name, source, &bytes[..], opts)],
        Detected::Native => vec![load_reader(name, source, (&bytes[..]).chain(&file), opts)],
        Detected::JsonLike if whole => vec![json_like(
            load_reader(name, source, &bytes[..], opts),
            &bytes,
        )],
        Detected::JsonLike => vec![json_like(
            load_reader(name, source, (&bytes[..]).chain(&file), opts),
            &bytes,
        )],
        // Large files of line formats are streamed (memory stays low) unless the bytes must be
        // hashed as read; a file shorter than the detection head was read whole already.
        Detected::Import(imp) if imp.streams && !opts.hash_content && !whole => import::run(
            imp,
            &import::Input {
                name,
                source,
                path: Some(path),
                bytes: &bytes,
                text: None,
                rest: Some(&file),
                opts,
                detection_keys: Default::default(),
            },
        ),
        Detected::Import(imp) if whole => {
            return import_whole(imp, first, path, source, &bytes, text, opts, in_scan)
        }
        Detected::Import(imp) => {
            if let Err(e) = file.read_to_end(&mut bytes) {
                return Some(vec![unreadable(path, source, &e)]);
            }
            return import_whole(imp, first, path, source, &bytes, None, opts, in_scan);
        }
        Detected::Unknown => vec![unknown_file(path, source)],
    })
}

/// Imports a file read whole (`bytes`, and `text` when it was checked as UTF-8) with `imp`; when
/// `first` detected it and the import does not confirm that, the head decides (`None` for a
/// file of a directory scan that is then skipped).
#[allow(clippy::too_many_arguments)]
fn import_whole(
    imp: &'static super::import::Importer,
    first: Option<super::import::FirstKeys>,
    path: &Path,
    source: Arc<str>,
    bytes: &[u8],
    text: Option<&str>,
    opts: &LoadOptions,
    in_scan: bool,
) -> Option<Vec<Session>> {
    use super::import::{self, Detected};
    let input = import::Input {
        name: session_name(path),
        source: source.clone(),
        path: Some(path),
        bytes,
        text,
        rest: None,
        opts,
        detection_keys: Default::default(),
    };
    let mut all = import::run(imp, &input);
    if first.is_some_and(|f| !f.confirmed_by(&input)) {
        // The document holds another key detection reads (or did not parse as one object): the
        // head decides, and the sessions stand when it names this importer.
        match import::detect(bytes) {
            Detected::Import(i) if i.name == imp.name => {}
            d if in_scan && super::discover::in_scan_keeps(path, Some(d)).is_none() => return None,
            d => return Some(load_whole(d, path, source, bytes, opts)),
        }
    }
    if opts.hash_content {
        let h = sha256_hex(&[bytes]);
        for s in &mut all {
            s.content_hash = Some(h.clone());
        }
    }
    Some(all)
}

/// Loads a file read whole (`bytes`) as `detected`, as [`load_found`] does (when a detection from
/// its first keys did not hold).
fn load_whole(
    detected: super::import::Detected,
    path: &Path,
    source: Arc<str>,
    bytes: &[u8],
    opts: &LoadOptions,
) -> Vec<Session> {
    use super::import::{self, Detected};
    match detected {
        Detected::Native => vec![load_reader(session_name(path), source, bytes, opts)],
        Detected::JsonLike => vec![json_like(
            load_reader(session_name(path), source, bytes, opts),
            bytes,
        )],
        Detected::Import(imp) => {
            let mut all = import::run(
                imp,
                &import::Input {
                    name: session_name(path),
                    source,
                    path: Some(path),
                    bytes,
                    text: None,
                    rest: None,
                    opts,
                    detection_keys: Default::default(),
                },
            );
            if opts.hash_content {
                let h = sha256_hex(&[bytes]);
                for s in &mut all {
                    s.content_hash = Some(h.clone());
                }
            }
            all
        }
        Detected::Unknown => vec![unknown_file(path, source)],
    }
}

/// A file of no known format: one session with the diagnostic that says so.
fn unknown_file(path: &Path, source: Arc<str>) -> Session {
    let mut s = Session {
        name: session_name(path),
        source: source.clone(),
        import: Some(unknown_format()),
        ..Session::default()
    };
    s.diagnostics.push(file_diag(
        &source,
        "not a known session or trace format (see docs/importers.md for the formats provscope reads)".into(),
    ));
    s
}

/// A JSON file that detection did not recognise, read as a session log (a damaged log still
/// loads what it can): when nothing was read and its first bytes (`head`) name no `event`, it
/// is no session log at all. That is said once, with the keys its first object has, and the
/// session's format is `unknown`, instead of each line's "`event` is missing".
fn json_like(mut s: Session, head: &[u8]) -> Session {
    let nothing_read = s.header.is_none()
        && s.turns.is_empty()
        && s.calls.is_empty()
        && s.results.is_empty()
        && s.contexts.is_empty()
        && s.answers.is_empty()
        && s.envelopes.is_empty()
        && s.labels.is_empty();
    // An empty file is an empty log (one being written, say), not a file of another format;
    // a file whose first bytes name an `event` is a damaged log, reported line by line.
    if !nothing_read
        || head.iter().all(u8::is_ascii_whitespace)
        || memchr::memmem::find(head, b"\"event\"").is_some()
    {
        return s;
    }
    let keys = super::import::first_object_keys(head, 8);
    let keys = if keys.is_empty() {
        "no keys".to_owned()
    } else {
        keys.iter()
            .map(|k| {
                // A key is the file's text: shown short (the diagnostic is escaped when printed).
                let short: String = k.chars().take(40).collect();
                format!("`{short}`")
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    // One error for the file, not one per line as if it were a damaged session log.
    s.diagnostics = vec![file_diag(
        &s.source,
        format!("not a provscope session log (no `event` in its first lines) nor a format provscope imports: its first object has {keys} (see docs/importers.md for the formats provscope reads)"),
    )];
    s.import = Some(unknown_format());
    s
}

/// Loads every session in `bytes`, whatever its format (tests, embedded data).
pub fn load_any_bytes(name: &str, source: &str, bytes: &[u8], opts: &LoadOptions) -> Vec<Session> {
    let mut all = load_any_bytes_unhashed(name, source, bytes, opts);
    if opts.hash_content {
        let h = sha256_hex(&[bytes]);
        for s in &mut all {
            s.content_hash = Some(h.clone());
        }
    }
    all
}

fn load_any_bytes_unhashed(
    name: &str,
    source: &str,
    bytes: &[u8],
    opts: &LoadOptions,
) -> Vec<Session> {
    use super::import::{self, Detected};
    match import::detect(bytes) {
        Detected::Import(imp) => import::run(
            imp,
            &import::Input {
                name: name.to_owned(),
                source: Arc::from(source),
                path: None,
                bytes,
                text: None,
                rest: None,
                opts,
                detection_keys: Default::default(),
            },
        ),
        Detected::Unknown => {
            let source: Arc<str> = Arc::from(source);
            let mut s = Session {
                name: name.to_owned(),
                source: source.clone(),
                import: Some(unknown_format()),
                ..Session::default()
            };
            s.diagnostics.push(file_diag(
                &source,
                "not a known session or trace format".into(),
            ));
            vec![s]
        }
        _ => vec![load_bytes(name, source, bytes, opts)],
    }
}

fn unreadable(path: &Path, source: Arc<str>, e: &std::io::Error) -> Session {
    let mut s = Session {
        name: session_name(path),
        source: source.clone(),
        ..Session::default()
    };
    s.diagnostics
        .push(file_diag(&source, format!("cannot read the file: {e}")));
    s
}

/// Loads one provscope session log from a file. Unreadable files give a session with one diagnostic.
pub fn load_native_file(path: &Path, opts: &LoadOptions) -> Session {
    let source = source_of(path);
    let name = session_name(path);
    match std::fs::File::open(path) {
        Ok(f) => load_reader(name, source, f, opts),
        Err(e) => {
            let mut s = Session {
                name,
                source: source.clone(),
                ..Session::default()
            };
            s.diagnostics
                .push(file_diag(&source, format!("cannot read the file: {e}")));
            s
        }
    }
}

/// Loads a session log from bytes already in memory (the embedded samples, tests).
pub fn load_bytes(name: &str, source: &str, bytes: &[u8], opts: &LoadOptions) -> Session {
    load_reader(name.to_owned(), Arc::from(source), bytes, opts)
}

/// The display name of a session file: its path without the `.jsonl` extension.
pub fn session_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn file_diag(source: &Arc<str>, message: String) -> Diagnostic {
    Diagnostic {
        file: source.clone(),
        line: 0,
        column: 0,
        path: String::new(),
        level: DiagLevel::Error,
        message,
    }
}

/// Loads a session log from any reader.
pub fn load_reader<R: Read>(
    name: String,
    source: Arc<str>,
    reader: R,
    opts: &LoadOptions,
) -> Session {
    let mut b = Builder::new(name, source);
    let reader = BufReader::with_capacity(
        256 * 1024,
        Hashing {
            inner: reader,
            hash: opts.hash_content.then(<sha2::Sha256 as sha2::Digest>::new),
        },
    );
    let mut lines = CappedLines::new(reader, opts.max_line_bytes);
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                b.diag_at(
                    lines_line(&b),
                    0,
                    "",
                    DiagLevel::Error,
                    format!("read error: {e}"),
                );
                break;
            }
        };
        match line {
            Line::TooLong { line_no, bytes } => b.diag_at(
                line_no,
                1,
                "",
                DiagLevel::Error,
                format!(
                    "line is {bytes} bytes, over the {} byte cap; skipped (raise --max-line-bytes to load it)",
                    opts.max_line_bytes
                ),
            ),
            Line::Text {
                line_no,
                ended,
                bytes,
            } => {
                b.line(line_no, bytes, ended);
                if b.binary {
                    // One diagnostic, then stop: the rest of a binary file is not a log.
                    break;
                }
            }
        }
    }
    b.session.bytes = lines.consumed;
    let hash = lines
        .into_inner()
        .into_inner()
        .hash
        .map(|h| hex::encode(sha2::Digest::finalize(h)));
    let mut s = b.finish();
    s.content_hash = hash;
    s
}

/// The 1-based character column of byte offset `byte` in `text` (clamped, safe on any offset).
fn char_column(text: &str, byte: usize) -> u64 {
    let mut b = byte.min(text.len());
    while !text.is_char_boundary(b) {
        b -= 1;
    }
    text[..b].chars().count() as u64 + 1
}

fn lines_line(b: &Builder) -> u64 {
    b.last_line + 1
}

struct Builder {
    session: Session,
    last_line: u64,
    binary: bool,
    header_seen: bool,
    any_event: bool,
    /// Turns that already have a turn event, a context and an answer (duplicate detection).
    seen_turns: TurnIndex,
    seen_contexts: TurnIndex,
    seen_answers: TurnIndex,
    /// `tool_result.sub_session` links, applied to their calls once every event is read.
    sub_sessions: Vec<(Name, crate::model::SubSession, u64)>,
    /// One copy of each id and name the records repeat.
    names: Names,
}

impl Builder {
    fn new(name: String, source: Arc<str>) -> Self {
        Builder {
            session: Session {
                name,
                source,
                ..Session::default()
            },
            last_line: 0,
            binary: false,
            header_seen: false,
            any_event: false,
            seen_turns: TurnIndex::default(),
            seen_contexts: TurnIndex::default(),
            seen_answers: TurnIndex::default(),
            sub_sessions: Vec::new(),
            names: Names::default(),
        }
    }

    fn diag_at(&mut self, line: u64, column: u64, path: &str, level: DiagLevel, message: String) {
        self.session.diagnostics.push(Diagnostic {
            file: self.session.source.clone(),
            line,
            column,
            path: path.to_owned(),
            level,
            message,
        });
    }

    /// A diagnostic about a field: the column is where `"key"` first appears on the line.
    fn field_diag(
        &mut self,
        line_no: u64,
        text: &str,
        path: &str,
        level: DiagLevel,
        message: String,
    ) {
        let key = path
            .rsplit(['.', '['])
            .next()
            .unwrap_or("")
            .trim_end_matches(']');
        let column = if key.is_empty() {
            1
        } else {
            text.find(&format!("\"{key}\""))
                .map_or(1, |b| char_column(text, b))
        };
        self.diag_at(line_no, column, path, level, message);
    }

    fn line(&mut self, line_no: u64, bytes: &[u8], ended: bool) {
        self.last_line = line_no;
        if bytes.iter().all(|c| c.is_ascii_whitespace()) {
            return;
        }
        // Binary detection only matters before the first event (a log that starts as binary).
        if !self.any_event {
            if let Some(nul) = memchr::memchr(0, bytes) {
                self.binary = true;
                self.diag_at(
                    line_no,
                    nul as u64 + 1,
                    "",
                    DiagLevel::Error,
                    "this is a binary file, not a JSON Lines session log (NUL byte); skipped"
                        .into(),
                );
                return;
            }
        }
        // UTF-8 is validated once for the whole line (SIMD), so the parser takes every string as
        // it is instead of validating each one again.
        let text = match simdutf8::basic::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => {
                let good = std::str::from_utf8(bytes).map_or_else(|u| u.valid_up_to(), |t| t.len());
                let col = String::from_utf8_lossy(&bytes[..good]).chars().count() as u64 + 1;
                self.diag_at(
                    line_no,
                    col,
                    "",
                    DiagLevel::Error,
                    format!(
                        "invalid UTF-8 at byte {} of the line; line skipped",
                        good + 1
                    ),
                );
                return;
            }
        };
        match serde_json::from_str::<Event>(text) {
            Ok(ev) => {
                self.any_event = true;
                self.event(line_no, text, ev);
            }
            Err(e) => self.parse_error(line_no, text, e, ended),
        }
    }

    fn parse_error(&mut self, line_no: u64, text: &str, e: serde_json::Error, ended: bool) {
        use serde_json::error::Category;
        // serde_json columns are 1-based byte columns.
        let col_chars = |byte_col: usize| char_column(text, byte_col.saturating_sub(1));
        match e.classify() {
            Category::Eof => {
                let msg = if ended {
                    "the JSON object is incomplete; line skipped".to_owned()
                } else {
                    "truncated line: the file ends in the middle of an event; line skipped"
                        .to_owned()
                };
                self.diag_at(line_no, col_chars(e.column()), "", DiagLevel::Error, msg);
            }
            Category::Syntax | Category::Io => {
                let msg = format!(
                    "malformed JSON: {}; line skipped",
                    strip_pos(&e.to_string())
                );
                self.diag_at(line_no, col_chars(e.column()), "", DiagLevel::Error, msg);
            }
            Category::Data => {
                // Re-parse with path tracking to name the field.
                let mut de = serde_json::Deserializer::from_str(text);
                let (path, msg, col) = match serde_path_to_error::deserialize::<_, Event>(&mut de) {
                    Err(pe) => {
                        let inner = pe.inner();
                        (
                            event_path(text, &pe.path().to_string()),
                            strip_pos(&inner.to_string()),
                            inner.column(),
                        )
                    }
                    Ok(_) => (String::new(), strip_pos(&e.to_string()), e.column()),
                };
                self.diag_at(
                    line_no,
                    col_chars(col),
                    &path,
                    DiagLevel::Error,
                    format!("{}; event skipped", humanize(&msg)),
                );
            }
        }
    }

    fn event(&mut self, line_no: u64, text: &str, ev: Event) {
        match ev {
            Event::Session(h) => self.header(line_no, text, h),
            Event::Turn(t) => self.turn(line_no, text, t),
            Event::ToolCall(c) => {
                let args = c.request.params.arguments.as_deref();
                if !self.hashable(line_no, text, "tool_call.request.params", args, None) {
                    return;
                }
                let id = c
                    .call_id
                    .clone()
                    .unwrap_or_else(|| c.request.id.as_text().into());
                if c.request.method != "tools/call" {
                    self.field_diag(
                        line_no,
                        text,
                        "tool_call.request.method",
                        DiagLevel::Warning,
                        format!("method is `{}`, expected `tools/call`", c.request.method),
                    );
                }
                if self.session.call_position(&id).is_some() {
                    self.field_diag(
                        line_no,
                        text,
                        "tool_call.request.id",
                        DiagLevel::Error,
                        format!("duplicate call id `{id}`; this call is skipped (the first one is kept)"),
                    );
                    return;
                }
                let at = self.session.calls.len();
                let mut call = Call {
                    id,
                    turn: c.turn,
                    server: c.server,
                    issued_at: c.issued_at,
                    fanout: c.fanout,
                    request: c.request,
                    line: line_no,
                    json_path: None,
                    sub_session: None,
                };
                self.names.call(&mut call);
                self.session.calls.push(call);
                let s = &mut self.session;
                let calls = &s.calls;
                s.index
                    .call
                    .insert_first(&calls[at].id, at, |k| calls[k].id.as_str());
            }
            Event::ToolResult(r) => {
                if !self.hashable(line_no, text, "tool_result", None, Some(&r.response)) {
                    return;
                }
                let id = r.tag.call_id.clone();
                if self.session.result_position(&id).is_some() {
                    self.field_diag(
                        line_no,
                        text,
                        "tool_result.tag.call_id",
                        DiagLevel::Error,
                        format!(
                            "a result for call `{id}` was already recorded; this one is skipped"
                        ),
                    );
                    return;
                }
                if r.response.result.is_none() && r.response.error.is_none() {
                    self.field_diag(
                        line_no,
                        text,
                        "tool_result.response",
                        DiagLevel::Warning,
                        "the response has neither `result` nor `error`".into(),
                    );
                }
                if let Some(sub) = r.sub_session {
                    self.sub_sessions.push((
                        id.clone(),
                        crate::model::SubSession {
                            id: sub.session_id,
                            path: sub.path,
                        },
                        line_no,
                    ));
                }
                let at = self.session.results.len();
                let mut result = ToolResult {
                    turn: r.turn,
                    tag: r.tag,
                    response: r.response,
                    line: line_no,
                    json_path: None,
                };
                self.names.result(&mut result);
                self.session.results.push(result);
                let s = &mut self.session;
                let results = &s.results;
                s.index
                    .result
                    .insert_first(&id, at, |k| results[k].call_id());
            }
            Event::Context(c) => {
                if !self.seen_contexts.insert_new(c.turn, 0) {
                    self.field_diag(
                        line_no,
                        text,
                        "context.turn",
                        DiagLevel::Error,
                        format!("turn {} already has a context; this one is skipped", c.turn),
                    );
                    return;
                }
                let mut results = crate::model::exact(c.results);
                self.names.context(&mut results);
                self.session.contexts.push(Context {
                    turn: c.turn,
                    results,
                    line: line_no,
                });
            }
            Event::Answer(a) => self.answer(line_no, text, a),
            Event::Envelope(EnvelopeEvent {
                call_id,
                envelope,
                receipt,
            }) => {
                let (raw, form) = match (envelope, receipt) {
                    (Some(e), None) => (e, crate::model::EnvelopeForm::Dsse),
                    (None, Some(r)) => (r, crate::model::EnvelopeForm::ArkforgeReceipt),
                    (e, _) => {
                        let msg = if e.is_some() {
                            "an envelope event carries either `envelope` or `receipt`, not both; event skipped"
                        } else {
                            "required field `envelope` (or `receipt`) is missing; event skipped"
                        };
                        self.field_diag(line_no, text, "envelope", DiagLevel::Error, msg.into());
                        return;
                    }
                };
                let mut call_id = call_id;
                self.names.intern(&mut call_id);
                self.session.envelopes.push(EnvelopeRecord {
                    call_id,
                    raw,
                    line: line_no,
                    form,
                });
            }
            Event::Label(LabelEvent {
                claim_id,
                turn,
                fact,
                source,
            }) => {
                let mut label = Label {
                    claim_id,
                    turn,
                    fact,
                    source,
                    line: line_no,
                };
                self.names.label(&mut label);
                self.session.labels.push(label);
            }
            Event::Unknown(kind) => self.field_diag(
                line_no,
                text,
                "event",
                DiagLevel::Warning,
                format!(
                    "unknown event kind `{kind}` (known: {}); skipped",
                    crate::model::event::EVENT_KINDS.join(", ")
                ),
            ),
        }
    }

    /// What a hash of the call or result could not see (`attest::envelope::blind_spots`):
    /// duplicate keys anywhere in the arguments or the response are an error for the line
    /// (false: skip it); numbers RFC 8785 cannot represent exactly, a warning (an execution
    /// envelope cannot vouch for their exact value).
    fn hashable(
        &mut self,
        line_no: u64,
        text: &str,
        event: &str,
        arguments: Option<&serde_json::value::RawValue>,
        response: Option<&crate::model::CallResponse>,
    ) -> bool {
        let scan = crate::attest::envelope::blind_spots(
            arguments,
            response,
            crate::attest::hash::MAX_INEXACT,
        );
        if let Some((path, key)) = scan.duplicate_key {
            let at = if path.is_empty() {
                event.to_owned()
            } else {
                format!("{event}.{path}")
            };
            self.field_diag(
                line_no,
                text,
                &format!("{at}.{key}"),
                DiagLevel::Error,
                format!(
                    "duplicate key `{key}` in one object; line skipped (a reader keeps one of \
                     its values and a hash sees only one, so the other could be changed unseen)"
                ),
            );
            return false;
        }
        if let Some((path, token)) = scan.inexact.first() {
            let becomes = match crate::attest::hash::canonical_number(token) {
                Some(c) => format!("it becomes {c}"),
                None => "it is out of range".to_owned(),
            };
            let more = match scan.inexact_total {
                1 => String::new(),
                n => format!(
                    " ({n} such numbers on this line: {}{})",
                    scan.inexact
                        .iter()
                        .map(|(p, _)| p.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    if n > scan.inexact.len() { ", ..." } else { "" }
                ),
            };
            self.field_diag(
                line_no,
                text,
                &format!("{event}.{path}"),
                DiagLevel::Warning,
                format!(
                    "{token} cannot be represented exactly in RFC 8785 canonical JSON ({becomes}); \
                     an execution envelope cannot vouch for its exact value{more}"
                ),
            );
        }
        true
    }

    fn header(&mut self, line_no: u64, text: &str, mut h: SessionHeader) {
        if self.header_seen {
            self.field_diag(
                line_no,
                text,
                "session",
                DiagLevel::Error,
                "a second session header; skipped (one log holds one session)".into(),
            );
            return;
        }
        self.header_seen = true;
        if h.version != FORMAT_VERSION {
            let msg = if h.version > FORMAT_VERSION {
                format!(
                    "format version {} is newer than this provscope reads ({FORMAT_VERSION}); loading what it can, upgrade provscope",
                    h.version
                )
            } else {
                format!(
                    "unknown format version {} (this provscope reads {FORMAT_VERSION})",
                    h.version
                )
            };
            self.field_diag(line_no, text, "session.version", DiagLevel::Error, msg);
        }
        if self.any_event && !self.session.turns.is_empty() {
            self.field_diag(
                line_no,
                text,
                "session",
                DiagLevel::Warning,
                "the session header should be the first event".into(),
            );
        }
        let mut seen = HashSet::default();
        for (i, s) in h.servers.iter().enumerate() {
            if !seen.insert(s.name.clone()) {
                let name = s.name.clone();
                self.field_diag(
                    line_no,
                    text,
                    &format!("session.servers[{i}].name"),
                    DiagLevel::Warning,
                    format!("server `{name}` is listed twice; the first entry is used"),
                );
            } else {
                self.session.index.server.insert(s.name.clone(), i);
            }
        }
        // Kept with the session: the list of servers grew by doubling while it was read.
        fit(&mut h.servers);
        self.session.header = Some(h);
    }

    fn turn(&mut self, line_no: u64, text: &str, t: TurnEvent) {
        if !self.seen_turns.insert_new(t.turn, 0) {
            self.field_diag(
                line_no,
                text,
                "turn.turn",
                DiagLevel::Error,
                format!("turn {} appears twice; the second is skipped", t.turn),
            );
            return;
        }
        let mut user = t.user;
        self.names.intern(&mut user);
        self.session.turns.push(Turn {
            index: t.turn,
            user,
            started_at: t.started_at,
            ended_at: t.ended_at,
            line: line_no,
            json_path: None,
        });
    }

    fn answer(&mut self, line_no: u64, text: &str, a: AnswerEvent) {
        if !self.seen_answers.insert_new(a.turn, 0) {
            self.field_diag(
                line_no,
                text,
                "answer.turn",
                DiagLevel::Error,
                format!("turn {} already has an answer; this one is skipped", a.turn),
            );
            return;
        }
        let mut claims: Vec<Claim> = Vec::with_capacity(a.claims.len());
        let mut seen = SeenClaimIds::default();
        for (i, raw) in a.claims.iter().enumerate() {
            // Fast path; on failure, parse again with path tracking to name the field.
            let parsed = serde_json::from_str::<Stamp>(raw.get()).or_else(|_| {
                let mut de = serde_json::Deserializer::from_str(raw.get());
                serde_path_to_error::deserialize::<_, Stamp>(&mut de)
            });
            match parsed {
                Ok(mut stamp) => {
                    self.names.stamp(&mut stamp);
                    if seen.repeats(&claims, &stamp.claim_id) {
                        let msg = format!(
                            "claim id `{}` appears twice in this answer; the second is skipped",
                            stamp.claim_id
                        );
                        self.field_diag(
                            line_no,
                            text,
                            &format!("answer.claims[{i}].claim_id"),
                            DiagLevel::Error,
                            msg,
                        );
                        continue;
                    }
                    claims.push(Claim {
                        stamp,
                        turn: a.turn,
                        position: claims.len(),
                        line: line_no,
                        json_path: None,
                    });
                }
                Err(pe) => {
                    let field = pe.path().to_string();
                    let path = if field == "." {
                        format!("answer.claims[{i}]")
                    } else {
                        format!("answer.claims[{i}].{field}")
                    };
                    let base = text.find(raw.get()).unwrap_or(0);
                    let col_in_raw = pe.inner().column().saturating_sub(1);
                    let col = char_column(text, base + col_in_raw);
                    let msg = humanize(&strip_pos(&pe.inner().to_string()));
                    self.diag_at(
                        line_no,
                        col,
                        &path,
                        DiagLevel::Error,
                        format!("{msg}; this claim is skipped, the rest of the answer loads"),
                    );
                }
            }
        }
        let mut answer_text = a.text;
        self.names.intern(&mut answer_text);
        self.session.answers.push(Answer {
            turn: a.turn,
            generated_at: a.generated_at,
            text: answer_text,
            claims,
            line: line_no,
            json_path: None,
        });
    }

    fn finish(mut self) -> Session {
        // Every record holds its shared names; the table of them is no longer needed.
        self.names = Names::default();
        // Growth by doubling leaves up to half of each list unused; a loaded session is kept
        // for the whole run, so give that memory back.
        let s = &mut self.session;
        fit(&mut s.turns);
        fit(&mut s.calls);
        fit(&mut s.results);
        fit(&mut s.contexts);
        fit(&mut s.answers);
        fit(&mut s.envelopes);
        fit(&mut s.labels);
        if !self.header_seen && self.any_event {
            self.diag_at(
                1,
                1,
                "session",
                DiagLevel::Warning,
                "no session header: every server's tier is unknown".into(),
            );
        }
        if !self.any_event && self.session.diagnostics.is_empty() {
            self.diag_at(
                0,
                0,
                "",
                DiagLevel::Error,
                "the file holds no events (it is empty)".into(),
            );
        }
        for (call_id, sub, line) in std::mem::take(&mut self.sub_sessions) {
            match self.session.call_position(&call_id) {
                Some(i) => self.session.calls[i].sub_session = Some(Box::new(sub)),
                None => self.diag_at(
                    line,
                    1,
                    "tool_result.sub_session",
                    DiagLevel::Warning,
                    format!("result for call `{call_id}` names a sub-agent session, but the call was not recorded: the link is dropped"),
                ),
            }
        }
        let s = &mut self.session;
        s.turns.sort_by_key(|t| t.index);
        s.answers.sort_by_key(|a| a.turn);
        let mut diags = Vec::new();
        let file = s.source.clone();
        let mut d = |line: u64, path: &str, level: DiagLevel, message: String| {
            diags.push(Diagnostic {
                file: file.clone(),
                line,
                column: 1,
                path: path.to_owned(),
                level,
                message,
            })
        };
        let idx = &mut s.index;
        for (i, t) in s.turns.iter().enumerate() {
            idx.turn.insert(t.index, i);
        }
        idx.calls_by_turn = crate::model::TurnGroups::build(s.calls.iter().map(|c| c.turn));
        idx.results_by_turn = crate::model::TurnGroups::build(s.results.iter().map(|r| r.turn));
        for r in &s.results {
            match idx
                .call
                .get(&r.tag.call_id, |i| s.calls[i].id.as_str())
                .map(|c| &s.calls[c])
            {
                None => d(
                    r.line,
                    "tool_result.tag.call_id",
                    DiagLevel::Warning,
                    format!(
                        "result for call `{}`, but no such call was recorded",
                        r.tag.call_id
                    ),
                ),
                Some(call) => {
                    if call.line > r.line {
                        d(
                            r.line,
                            "tool_result",
                            DiagLevel::Warning,
                            format!(
                                "result for call `{}` is recorded before its call (line {})",
                                call.id, call.line
                            ),
                        );
                    }
                    if r.response.id != call.request.id {
                        d(
                            r.line,
                            "tool_result.response.id",
                            DiagLevel::Error,
                            format!(
                                "response id `{}` does not match the request id `{}` of call `{}`",
                                r.response.id, call.request.id, call.id
                            ),
                        );
                    }
                    if r.tag.server != call.server || r.tag.tool != call.tool() {
                        d(
                            r.line,
                            "tool_result.tag",
                            DiagLevel::Warning,
                            format!(
                                "tag says {}/{} but the call went to {}/{}",
                                r.tag.server,
                                r.tag.tool,
                                call.server,
                                call.tool()
                            ),
                        );
                    }
                }
            }
        }
        for (i, e) in s.envelopes.iter().enumerate() {
            idx.envelope.entry(e.call_id.clone()).or_default().push(i);
            if idx
                .call
                .get(&e.call_id, |i| s.calls[i].id.as_str())
                .is_none()
            {
                d(
                    e.line,
                    "envelope.call_id",
                    DiagLevel::Warning,
                    format!(
                        "envelope for call `{}`, but no such call was recorded",
                        e.call_id
                    ),
                );
            }
        }
        for (i, a) in s.answers.iter().enumerate() {
            idx.answer.insert(a.turn, i);
        }
        for (i, c) in s.contexts.iter().enumerate() {
            idx.context.insert(c.turn, i);
            for e in &c.results {
                let known = idx.call.get(&e.call_id, |i| s.calls[i].id.as_str());
                let known =
                    known.or_else(|| idx.result.get(&e.call_id, |i| s.results[i].call_id()));
                if known.is_none() {
                    d(
                        c.line,
                        "context.results.call_id",
                        DiagLevel::Warning,
                        format!("context names call `{}`, which was not recorded", e.call_id),
                    );
                }
            }
        }
        idx.index_labels_and_contexts(&s.labels, &s.contexts);
        // The claim ids the answers state, for the labels' check (made only when there are
        // labels: nothing else looks claims up by id while loading).
        let stated: HashSet<&str> = if s.labels.is_empty() {
            HashSet::default()
        } else {
            s.answers
                .iter()
                .flat_map(|a| a.claims.iter().map(|c| c.id()))
                .collect()
        };
        for l in &s.labels {
            if !stated.contains(l.claim_id.as_str()) {
                d(
                    l.line,
                    "label.claim_id",
                    DiagLevel::Warning,
                    format!("label for claim `{}`, which no answer states", l.claim_id),
                );
            }
        }
        s.diagnostics.extend(diags);
        s.diagnostics.sort_by_key(|d| (d.line, d.column));
        self.session
    }
}

/// The claim ids of one answer so far, for finding repeats in O(1): by hash, comparing the
/// texts on a hash match (an answer may state any number of claims).
#[derive(Default)]
struct SeenClaimIds(rustc_hash::FxHashMap<u64, usize>);

impl SeenClaimIds {
    /// True when `id` is already among `claims`; otherwise remembers it as the next claim.
    fn repeats(&mut self, claims: &[Claim], id: &str) -> bool {
        use std::hash::BuildHasher;
        crate::probe::steps(1);
        let h = rustc_hash::FxBuildHasher.hash_one(id);
        match self.0.get(&h) {
            Some(&i) if claims.get(i).is_some_and(|c| c.stamp.claim_id == id) => true,
            // Two ids with one hash (rare): compare with every claim.
            Some(_) => claims.iter().any(|c| c.stamp.claim_id == id),
            None => {
                self.0.insert(h, claims.len());
                false
            }
        }
    }
}

/// Turns serde's `params.name` style paths into `tool_call.params.name` with the event kind in front.
fn event_path(text: &str, path: &str) -> String {
    let kind = serde_json::from_str::<KindOnly>(text)
        .ok()
        .and_then(|k| k.event)
        .unwrap_or_default();
    match (kind.is_empty(), path) {
        (true, ".") => String::new(),
        (true, p) => p.to_owned(),
        (false, ".") => kind,
        (false, p) => format!("{kind}.{p}"),
    }
}

#[derive(serde::Deserialize)]
struct KindOnly {
    event: Option<String>,
}

/// Rewrites serde's phrasing into a plain sentence.
fn humanize(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("missing field ") {
        return format!("required field {rest} is missing");
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        return format!("wrong type: got {rest}");
    }
    msg.to_owned()
}
