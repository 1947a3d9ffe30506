//! Importers: the logs people already have (API responses and cassettes, Claude Code
//! transcripts, OpenTelemetry traces, Claude Desktop MCP logs, Langfuse exports, LangSmith runs,
//! Claude Managed Agents session events), read into the same `model::Session` the native loader produces, so
//! every check works unchanged.
//!
//! A file's format is decided by its content ([`detect`]), never by its name. Each importer is
//! one file here; `docs/importers.md` says what each maps and what it loses.

pub mod build;
pub mod cassette;
pub mod cite;
pub mod claims;
pub mod native;
pub mod sniff;
mod sse;
mod stream;

mod anthropic;
mod api;
mod blocks;
mod claude_code;
mod desktop_log;
mod gemini;
mod genai;
mod langfuse;
mod langsmith;
mod lax;
mod managed_agents;
mod openai;
mod openai_chat;
mod otlp;
mod util;

use super::loader::LoadOptions;
use crate::model::{DiagLevel, Diagnostic, Session};
use sniff::Head;
use std::path::Path;
use std::sync::Arc;

/// What an importer reads: the whole file, or its first bytes and the open file they came from,
/// with its name and path.
pub struct Input<'a> {
    /// Display name (the file stem).
    pub name: String,
    /// The file as given (diagnostics name it).
    pub source: Arc<str>,
    /// The file's path, when it is on disk (to find sibling files such as sub-agent transcripts).
    pub path: Option<&'a Path>,
    /// The whole input; only its first bytes when `rest` is set (read [`Input::all`] or
    /// [`Input::lines`] then).
    pub bytes: &'a [u8],
    /// `bytes` as text, when the loader has checked them as UTF-8 already (for detection).
    pub text: Option<&'a str>,
    /// The open file the input continues in after `bytes` (the head read to detect its format):
    /// line formats are streamed from it, so memory stays low, and the file is opened once.
    pub rest: Option<&'a std::fs::File>,
    /// Loader options.
    pub opts: &'a LoadOptions,
    /// Set by an importer that read the input as one JSON object: the bits of the top-level keys
    /// detection reads that it holds ([`sniff::key_bit`]), which confirm a detection from the
    /// first keys ([`FirstKeys`]).
    pub detection_keys: std::cell::Cell<Option<u64>>,
}

impl Input<'_> {
    /// The open file, positioned after `bytes` (each reading of a streamed input starts there).
    fn rest_at_end_of_head(&self) -> std::io::Result<Option<&std::fs::File>> {
        use std::io::Seek;
        match self.rest {
            Some(mut f) => {
                f.seek(std::io::SeekFrom::Start(self.bytes.len() as u64))?;
                Ok(Some(f))
            }
            None => Ok(None),
        }
    }

    /// `bytes` without a leading UTF-8 byte order mark, which is no content (RFC 8259 lets a
    /// JSON reader ignore one; Windows tools write it).
    pub fn body(&self) -> &[u8] {
        self.bytes
            .strip_prefix(super::lines::BOM)
            .unwrap_or(self.bytes)
    }

    /// The whole input ([`Input::body`] and the rest of the file, read once).
    pub fn all(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        use std::io::Read;
        match self.rest_at_end_of_head()? {
            Some(mut f) => {
                let mut all = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
                all.extend_from_slice(self.body());
                f.read_to_end(&mut all)?;
                Ok(std::borrow::Cow::Owned(all))
            }
            None => Ok(std::borrow::Cow::Borrowed(self.body())),
        }
    }

    /// The input as capped lines, streamed from the file when `rest` is set.
    pub fn lines(
        &self,
    ) -> std::io::Result<super::lines::CappedLines<Box<dyn std::io::BufRead + '_>>> {
        use std::io::Read;
        let r: Box<dyn std::io::BufRead + '_> = match self.rest_at_end_of_head()? {
            Some(f) => Box::new(std::io::BufReader::with_capacity(
                256 * 1024,
                self.bytes.chain(f),
            )),
            None => Box::new(self.bytes),
        };
        Ok(super::lines::CappedLines::new(r, self.opts.max_line_bytes))
    }

    /// The whole input when it is a JSON array (its first non-blank byte, within the first
    /// 4 KiB of a streamed file, is `[`), else `None`.
    pub fn all_if_array(&self) -> std::io::Result<Option<std::borrow::Cow<'_, [u8]>>> {
        let body = self.body();
        let first = |b: &[u8]| b.iter().copied().find(|c| !c.is_ascii_whitespace());
        let head = match self.rest {
            Some(_) => first(&body[..body.len().min(4096)]),
            None => first(body),
        };
        if head == Some(b'[') {
            self.all().map(Some)
        } else {
            Ok(None)
        }
    }

    /// The input's size in bytes.
    pub fn len(&self) -> u64 {
        match self.rest {
            Some(f) => f.metadata().map_or(0, |m| m.len()),
            None => self.bytes.len() as u64,
        }
    }

    /// True when the input is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One importer: a name, a content test and a reader.
pub struct Importer {
    /// Short name, shown in `summary`, the explorer and reports (`claude-code`, `otlp-json`, ...).
    pub name: &'static str,
    /// What it reads, for people.
    pub label: &'static str,
    sniff: fn(&Head) -> bool,
    run: fn(&Input) -> Vec<Session>,
    /// Reads its input as a stream of lines (the loader then does not read the file whole).
    pub streams: bool,
    /// Parses a JSON document whole and notes its detection keys ([`Input::detection_keys`]),
    /// so it may be detected from the document's first keys ([`detect_first_keys`]).
    parses_whole: bool,
}

/// Every importer, in detection order.
pub static IMPORTERS: &[Importer] = &[
    Importer {
        name: "otlp-json",
        label: "OpenTelemetry OTLP/JSON traces (GenAI and MCP conventions)",
        sniff: otlp::sniff,
        run: otlp::import,
        streams: true,
        parses_whole: false,
    },
    Importer {
        name: "langfuse",
        label: "Langfuse trace export ({trace, observations})",
        sniff: langfuse::sniff,
        run: langfuse::import,
        streams: false,
        parses_whole: false,
    },
    Importer {
        name: "claude-code",
        label: "Claude Code transcript (~/.claude/projects) or stream-json",
        sniff: claude_code::sniff,
        run: claude_code::import,
        streams: true,
        parses_whole: false,
    },
    Importer {
        name: "anthropic-messages",
        label: "Anthropic Messages API response or VCR cassette",
        sniff: anthropic::sniff,
        run: anthropic::import,
        streams: false,
        parses_whole: true,
    },
    Importer {
        name: "openai-responses",
        label: "OpenAI Responses API response or VCR cassette",
        sniff: openai::sniff,
        run: openai::import,
        streams: false,
        parses_whole: true,
    },
    Importer {
        name: "openai-chat",
        label:
            "OpenAI Chat Completions response, request, request/response records or VCR cassette",
        sniff: openai_chat::sniff,
        run: openai_chat::import,
        streams: false,
        parses_whole: false,
    },
    Importer {
        name: "gemini",
        label: "Gemini generateContent response or VCR cassette",
        sniff: gemini::sniff,
        run: gemini::import,
        streams: false,
        parses_whole: true,
    },
    Importer {
        name: "langsmith",
        label: "LangSmith runs (batch ingestion payload, list of runs or run tree)",
        sniff: langsmith::sniff,
        run: langsmith::import,
        streams: false,
        parses_whole: false,
    },
    Importer {
        name: "claude-desktop-log",
        label: "Claude Desktop mcp-server-<name>.log",
        sniff: desktop_log::sniff,
        run: desktop_log::import,
        streams: true,
        parses_whole: false,
    },
    Importer {
        name: "anthropic-managed-agents",
        label: "Claude Managed Agents session events (beta sessions API)",
        sniff: managed_agents::sniff,
        run: managed_agents::import,
        streams: true,
        parses_whole: false,
    },
];

/// What a file holds, judged from its first bytes.
#[derive(Clone, Copy)]
pub enum Detected {
    /// A provscope session log.
    Native,
    /// A format an importer reads.
    Import(&'static Importer),
    /// Something that starts like JSON Lines but is not recognised (the native loader reports it).
    JsonLike,
    /// Not a session or trace format provscope knows.
    Unknown,
}

impl std::fmt::Debug for Detected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Detected::Native => f.write_str("Native"),
            Detected::Import(i) => write!(f, "Import({})", i.name),
            Detected::JsonLike => f.write_str("JsonLike"),
            Detected::Unknown => f.write_str("Unknown"),
        }
    }
}

/// The text of a file's first bytes that detection reads.
fn head_text(head: &[u8]) -> std::borrow::Cow<'_, str> {
    let cut = &head[..head.len().min(sniff::HEAD_BYTES)];
    match util::utf8(cut) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        // A head cut inside a character, or a file with invalid bytes further on.
        Err(e) if e.error_len().is_none() => {
            std::borrow::Cow::Borrowed(std::str::from_utf8(&cut[..e.valid_up_to()]).unwrap_or(""))
        }
        Err(_) => String::from_utf8_lossy(cut),
    }
}

/// A format judged from a JSON document's first keys (up to its first nested value), for an
/// importer that parses the document whole. Detection's answer depends on the keys it asked for
/// (through `Head::has` and `Head::str`, besides the text, which is the same): when the rest of
/// the document holds none of those it asked for and the first keys lack, [`detect`] on the
/// whole head gives the same answer ([`FirstKeys::confirmed_by`]), and must be asked otherwise.
#[derive(Clone, Copy)]
pub struct FirstKeys {
    /// The importer the first keys name.
    pub importer: &'static Importer,
    /// The bits of the keys detection asked for and the first keys lack.
    watched: u64,
}

impl FirstKeys {
    /// True when `input`, read by this importer, held none of the keys watched: no key beyond
    /// the first ones can change the document's format.
    pub fn confirmed_by(&self, input: &Input) -> bool {
        input
            .detection_keys
            .get()
            .is_some_and(|keys| keys & self.watched == 0)
    }
}

/// `bytes` as text when they are UTF-8.
pub fn checked_text(bytes: &[u8]) -> Option<&str> {
    util::utf8(bytes).ok()
}

/// Judges a file from the first keys of its JSON document (`None` when they name no importer
/// that parses the document whole, or the head has no nested value): skips scanning the rest of
/// the head's first object, which the importer parses anyway. Its answer holds only once
/// [`FirstKeys::confirmed_by`] the import; else [`detect`] decides.
pub fn detect_first_keys(head: &[u8]) -> Option<FirstKeys> {
    detect_first_keys_in(&head_text(head))
}

/// [`detect_first_keys`] of a head already read as text: a whole file shorter than
/// [`sniff::HEAD_BYTES`] that is UTF-8 (the text `detect` reads of it).
pub fn detect_first_keys_in(text: &str) -> Option<FirstKeys> {
    // A session log's first line starts with its `event` key (`has("event")` below), without
    // scanning its first object.
    if text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with("{\"event\"")
    {
        return None;
    }
    let h = Head::first_keys(text)?;
    if h.has("event") {
        return None;
    }
    let importer = IMPORTERS.iter().find(|i| (i.sniff)(&h))?;
    if !importer.parses_whole || h.asked() & sniff::UNKNOWN_KEY != 0 {
        return None;
    }
    // Counted as a detection when it answers (else `detect` is the one).
    crate::probe::detection();
    Some(FirstKeys {
        importer,
        watched: h.asked() & !h.key_bits(),
    })
}

/// Detects the format of a file from its first bytes.
pub fn detect(head: &[u8]) -> Detected {
    detect_in(&head_text(head))
}

/// [`detect`] of a head already read as text: a whole file shorter than [`sniff::HEAD_BYTES`]
/// that is UTF-8 (the text `detect` reads of it).
pub fn detect_in(text: &str) -> Detected {
    crate::probe::detection();
    let h = Head::new(text);
    if !h.is_sse() && h.has("event") {
        return Detected::Native;
    }
    if let Some(i) = IMPORTERS.iter().find(|i| (i.sniff)(&h)) {
        return Detected::Import(i);
    }
    // A damaged session log still starts with a JSON object on its first line; a pretty-printed
    // document (`{` alone on its first line) of no known format is not a session log.
    if h.text.is_empty() || (h.text.starts_with('{') && h.first_line.trim() != "{") {
        Detected::JsonLike
    } else {
        Detected::Unknown
    }
}

/// The top-level keys of the first JSON object of a head (of the document, or of its first
/// line), at most `max` of them: what a file that no importer recognised holds, for its
/// diagnostic.
pub fn first_object_keys(head: &[u8], max: usize) -> Vec<String> {
    let text = head_text(head);
    let h = Head::new(&text);
    h.key_names().take(max).map(str::to_owned).collect()
}

/// Detects the format of a file on disk (reads its first 64 KiB).
pub fn detect_file(path: &Path) -> std::io::Result<Detected> {
    open_head(path).map(|h| detect(&h.bytes))
}

/// A file opened to be loaded: its first bytes (read to detect its format) and the file, whose
/// position is after them, so the loader reads on from there instead of opening it again.
pub struct OpenedHead {
    /// The open file.
    pub file: std::fs::File,
    /// Its first [`sniff::HEAD_BYTES`] bytes (fewer when it is shorter).
    pub bytes: Vec<u8>,
}

impl OpenedHead {
    /// True when the head is the whole file (it is shorter than the head read).
    pub fn whole(&self) -> bool {
        self.bytes.len() < sniff::HEAD_BYTES
    }
}

/// Opens a file and reads its head.
pub fn open_head(path: &Path) -> std::io::Result<OpenedHead> {
    use std::io::Read;
    crate::probe::open();
    let mut file = std::fs::File::open(path)?;
    let mut bytes = Vec::with_capacity(sniff::HEAD_BYTES);
    (&mut file)
        .take(sniff::HEAD_BYTES as u64)
        .read_to_end(&mut bytes)?;
    Ok(OpenedHead { file, bytes })
}

/// The importer with this name.
pub fn by_name(name: &str) -> Option<&'static Importer> {
    IMPORTERS.iter().find(|i| i.name == name)
}

/// Runs an importer on a file's bytes. Never panics: bad input becomes diagnostics.
pub fn run(importer: &Importer, input: &Input) -> Vec<Session> {
    let mut out = (importer.run)(input);
    if out.is_empty() {
        let mut s = Session {
            name: input.name.clone(),
            source: input.source.clone(),
            bytes: input.len(),
            import: Some(crate::model::ImportInfo {
                format: importer.name,
                notes: Vec::new(),
            }),
            ..Session::default()
        };
        s.diagnostics.push(Diagnostic {
            file: input.source.clone(),
            line: 0,
            column: 0,
            path: String::new(),
            level: DiagLevel::Error,
            message: format!("no session could be read from this {} file", importer.label),
        });
        out.push(s);
    }
    // The file's bytes count once, on its first session.
    let len = input.len();
    for (i, s) in out.iter_mut().enumerate() {
        s.bytes = if i == 0 { len } else { 0 };
    }
    out
}

#[cfg(test)]
mod first_keys_tests {
    use super::*;
    use proptest::prelude::*;

    /// What the loader concludes from a document: the first keys' importer when the import
    /// confirms it, else what the head scan says.
    fn judged(doc: &[u8]) -> (Detected, bool) {
        let Some(f) = detect_first_keys(doc) else {
            return (detect(doc), false);
        };
        let opts = LoadOptions::default();
        let input = Input {
            name: "d".into(),
            source: "d.json".into(),
            path: None,
            bytes: doc,
            text: None,
            rest: None,
            opts: &opts,
            detection_keys: Default::default(),
        };
        run(f.importer, &input);
        if f.confirmed_by(&input) {
            (Detected::Import(f.importer), true)
        } else {
            (detect(doc), false)
        }
    }

    /// Asserts the loader's judgement is the head scan's; true when the first keys made it.
    fn same(doc: &[u8]) -> bool {
        let ((a, quick), b) = (judged(doc), detect(doc));
        assert_eq!(
            format!("{a:?}"),
            format!("{b:?}"),
            "{}",
            String::from_utf8_lossy(&doc[..doc.len().min(400)])
        );
        quick
    }

    #[test]
    fn every_bundled_file_is_detected_as_the_head_scan_detects_it() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut stack = vec![root.join("tests/formats"), root.join("sample-sessions")];
        let (mut files, mut first) = (0, 0);
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let bytes = std::fs::read(&p).unwrap_or_default();
                files += 1;
                first += usize::from(same(&bytes));
            }
        }
        assert!(
            files > 40 && first >= 10,
            "{files} files, {first} by first keys"
        );
    }

    #[test]
    fn a_late_deciding_key_sends_the_document_to_the_head_scan() {
        let openai = r#"{"id": "r", "object": "response", "created_at": 1, "output": []"#;
        let anthropic = r#"{"id": "m", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "x"}]"#;
        let gemini = r#"{"candidates": [{"content": {"parts": [{"text": "x"}]}}]"#;
        for start in [openai, anthropic, gemini] {
            let plain = format!("{start}}}");
            assert!(same(plain.as_bytes()), "{plain}");
            for late in [
                r#""event": "turn""#,
                r#""resourceSpans": []"#,
                r#""trace": {}, "observations": []"#,
                r#""type": "user", "sessionId": "s""#,
                r#""type": "message", "role": "assistant", "content": []"#,
                r#""object": "response", "output": []"#,
                r#""candidates": [], "usageMetadata": {}"#,
                r#""\u0065vent": 1"#,
                r#""type": "system", "subtype": "init""#,
                r#""extra": {"event": 1}, "other": 2"#,
            ] {
                let doc = format!("{start}, {late}}}");
                same(doc.as_bytes());
                // Keys detection did not ask for, or asked for and found first, change nothing.
                let kept = format!("{start}, \"usage\": {{\"type\": 1}}, {late}, \"z\": [1]}}");
                same(kept.as_bytes());
                // The deciding key beyond the 64 KiB head: only the keys within it count.
                let far = format!(
                    "{start}, \"pad\": \"{}\", {late}}}",
                    "p".repeat(sniff::HEAD_BYTES)
                );
                same(far.as_bytes());
            }
            // Malformed, cut, with a byte order mark, invalid UTF-8 further on.
            same(start.as_bytes());
            same(format!("\u{feff}{start}}}").as_bytes());
            let mut bad = format!("{start}, \"x\": \"").into_bytes();
            bad.extend_from_slice(b"\xff\xfe\"}");
            same(&bad);
        }
        // A key cut by the head's end is no key (a head cut inside `"eventually"` is not a log).
        let cut = format!(
            "{{\"object\": \"response\", \"output\": [], \"pad\": \"{}\", \"eventually\": 1}}",
            "p".repeat(sniff::HEAD_BYTES - 50)
        );
        for end in sniff::HEAD_BYTES - 12..sniff::HEAD_BYTES + 12 {
            let mut doc = cut.clone().into_bytes();
            doc.truncate(end.min(doc.len()));
            same(&doc);
        }
        assert_eq!(
            format!("{:?}", detect(cut.as_bytes())),
            "Import(openai-responses)"
        );
        // The keys that follow in real responses are not asked for: the first keys decide.
        for doc in [
            r#"{"candidates": [{"content": {}}], "usageMetadata": {}, "modelVersion": "g"}"#,
            r#"{"object": "response", "created_at": 1, "billing": {}, "output": [], "usage": {}}"#,
            r#"{"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}"#,
        ] {
            assert!(same(doc.as_bytes()), "{doc}");
        }
    }

    #[test]
    fn the_loader_loads_a_document_as_its_late_keys_say() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let openai = r#"{"id": "r", "object": "response", "created_at": 1, "output": [{"type": "message", "content": [{"type": "output_text", "text": "hi"}]}]"#;
        let files = [
            ("a.json", format!("{openai}}}"), "openai-responses"),
            (
                "b.json",
                format!(r#"{openai}, "resourceSpans": []}}"#),
                "otlp-json",
            ),
            (
                "c.json",
                format!(r#"{openai}, "event": "turn"}}"#),
                "provscope",
            ),
            (
                "d.json",
                format!(r#"{openai}, "trace": {{}}, "observations": []}}"#),
                "langfuse",
            ),
        ];
        for (name, text, _) in &files {
            std::fs::write(dir.path().join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        let mut opts = LoadOptions::default();
        for hash in [false, true] {
            opts.hash_content = hash;
            let loaded = crate::ingest::load_paths(&[dir.path().to_path_buf()], &opts, 1);
            let formats: Vec<&str> = loaded.sessions.iter().map(|s| s.format()).collect();
            let want: Vec<&str> = files.iter().map(|f| f.2).collect();
            assert_eq!(formats, want);
            for (s, (_, text, _)) in loaded.sessions.iter().zip(&files) {
                let whole = crate::ingest::load_any_bytes("x", "x", text.as_bytes(), &opts);
                assert_eq!(s.calls.len(), whole[0].calls.len());
                assert_eq!(s.diagnostics.len(), whole[0].diagnostics.len());
                assert_eq!(s.content_hash, whole[0].content_hash);
            }
        }
    }

    /// A top-level member: a key detection reads (or a look-alike) and a value of any kind.
    fn member() -> impl Strategy<Value = String> {
        let mut keys = sniff::ASKED_KEYS.to_vec();
        keys.extend([
            "id",
            "model",
            "events",
            "\\u0074ype",
            "ty\\\"pe",
            "projectId",
        ]);
        let key = prop::sample::select(keys);
        let value = prop::sample::select(vec![
            "\"message\"",
            "\"msg_01\"",
            "\"assistant\"",
            "\"response\"",
            "\"system\"",
            "\"init\"",
            "\"user\"",
            "\"llm\"",
            "\"x\\\"y\"",
            "1",
            "null",
            "true",
            "[]",
            "{}",
            "[{\"content\": \"c\"}]",
            "{\"type\": \"message\", \"event\": 1}",
            "\"\\\"content\\\"\"",
        ]);
        (key, value).prop_map(|(k, v)| format!("\"{k}\": {v}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Documents of any top-level members, in any order, repeated, cut anywhere: the
        /// loader's judgement equals the head scan's.
        #[test]
        fn first_keys_and_the_parse_judge_as_the_head_scan(
            members in prop::collection::vec(member(), 0..8),
            cut in prop::option::of(0usize..400),
            junk in prop::option::of(prop::collection::vec(any::<u8>(), 0..40)),
        ) {
            let mut doc = format!("{{{}}}", members.join(", ")).into_bytes();
            if let Some(c) = cut {
                doc.truncate(c);
            }
            if let Some(j) = junk {
                doc.extend_from_slice(&j);
            }
            same(&doc);
        }

        /// Any bytes at all: no panic, the same judgement.
        #[test]
        fn wrong_format_input_is_judged_as_the_head_scan(
            bytes in prop::collection::vec(any::<u8>(), 0..200),
        ) {
            same(&bytes);
        }
    }
}
