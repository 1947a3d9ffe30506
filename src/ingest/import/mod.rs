//! Importers: the logs people already have (API responses and cassettes, Claude Code
//! transcripts, OpenTelemetry traces, Claude Desktop MCP logs, Langfuse exports), read into the
//! same `model::Session` the native loader produces, so every check works unchanged.
//!
//! A file's format is decided by its content ([`detect`]), never by its name. Each importer is
//! one file here; `docs/importers.md` says what each maps and what it loses.

pub mod build;
pub mod cassette;
pub mod cite;
pub mod claims;
pub mod native;
pub mod sniff;

mod anthropic;
mod blocks;
mod claude_code;
mod desktop_log;
mod gemini;
mod genai;
mod langfuse;
mod lax;
mod openai;
mod otlp;
mod util;

use super::loader::LoadOptions;
use crate::model::{DiagLevel, Diagnostic, Session};
use sniff::Head;
use std::path::Path;
use std::sync::Arc;

/// What an importer reads: the whole file, with its name and path.
pub struct Input<'a> {
    /// Display name (the file stem).
    pub name: String,
    /// The file as given (diagnostics name it).
    pub source: Arc<str>,
    /// The file's path, when it is on disk (to find sibling files such as sub-agent transcripts).
    pub path: Option<&'a Path>,
    /// The bytes; empty when `stream` is set.
    pub bytes: &'a [u8],
    /// Read the file at `path` as a stream instead of `bytes` (line formats keep memory low).
    pub stream: bool,
    /// Loader options.
    pub opts: &'a LoadOptions,
}

impl Input<'_> {
    /// The whole input: the bytes, or the file read once.
    pub fn all(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        match (self.stream, self.path) {
            (true, Some(p)) => std::fs::read(p).map(std::borrow::Cow::Owned),
            _ => Ok(std::borrow::Cow::Borrowed(self.bytes)),
        }
    }

    /// The input as capped lines, streamed from the file when `stream` is set.
    pub fn lines(
        &self,
    ) -> std::io::Result<super::lines::CappedLines<Box<dyn std::io::BufRead + '_>>> {
        let r: Box<dyn std::io::BufRead + '_> = match (self.stream, self.path) {
            (true, Some(p)) => Box::new(std::io::BufReader::with_capacity(
                256 * 1024,
                std::fs::File::open(p)?,
            )),
            _ => Box::new(self.bytes),
        };
        Ok(super::lines::CappedLines::new(r, self.opts.max_line_bytes))
    }

    /// The whole input when it is a JSON array (its first non-blank byte is `[`), else `None`.
    pub fn all_if_array(&self) -> std::io::Result<Option<std::borrow::Cow<'_, [u8]>>> {
        let first = |b: &[u8]| {
            b.iter()
                .copied()
                .find(|c| !c.is_ascii_whitespace() && !matches!(c, 0xef | 0xbb | 0xbf))
        };
        let head = match (self.stream, self.path) {
            (true, Some(p)) => {
                use std::io::Read;
                let mut buf = Vec::new();
                std::fs::File::open(p)?.take(4096).read_to_end(&mut buf)?;
                first(&buf)
            }
            _ => first(self.bytes),
        };
        if head == Some(b'[') {
            self.all().map(Some)
        } else {
            Ok(None)
        }
    }

    /// The input's size in bytes.
    pub fn len(&self) -> u64 {
        match (self.stream, self.path) {
            (true, Some(p)) => std::fs::metadata(p).map_or(0, |m| m.len()),
            _ => self.bytes.len() as u64,
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
}

/// Every importer, in detection order.
pub static IMPORTERS: &[Importer] = &[
    Importer {
        name: "otlp-json",
        label: "OpenTelemetry OTLP/JSON traces (GenAI and MCP conventions)",
        sniff: otlp::sniff,
        run: otlp::import,
        streams: true,
    },
    Importer {
        name: "langfuse",
        label: "Langfuse trace export ({trace, observations})",
        sniff: langfuse::sniff,
        run: langfuse::import,
        streams: false,
    },
    Importer {
        name: "claude-code",
        label: "Claude Code transcript (~/.claude/projects) or stream-json",
        sniff: claude_code::sniff,
        run: claude_code::import,
        streams: true,
    },
    Importer {
        name: "anthropic-messages",
        label: "Anthropic Messages API response or VCR cassette",
        sniff: anthropic::sniff,
        run: anthropic::import,
        streams: false,
    },
    Importer {
        name: "openai-responses",
        label: "OpenAI Responses API response or VCR cassette",
        sniff: openai::sniff,
        run: openai::import,
        streams: false,
    },
    Importer {
        name: "gemini",
        label: "Gemini generateContent response or VCR cassette",
        sniff: gemini::sniff,
        run: gemini::import,
        streams: false,
    },
    Importer {
        name: "claude-desktop-log",
        label: "Claude Desktop mcp-server-<name>.log",
        sniff: desktop_log::sniff,
        run: desktop_log::import,
        streams: true,
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

/// Detects the format of a file from its first bytes.
pub fn detect(head: &[u8]) -> Detected {
    crate::probe::detection();
    let cut = &head[..head.len().min(sniff::HEAD_BYTES)];
    let text = match std::str::from_utf8(cut) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        // A head cut inside a character, or a file with invalid bytes further on.
        Err(e) if e.error_len().is_none() => {
            std::borrow::Cow::Borrowed(std::str::from_utf8(&cut[..e.valid_up_to()]).unwrap_or(""))
        }
        Err(_) => String::from_utf8_lossy(cut),
    };
    let h = Head::new(&text);
    if h.has("event") {
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

/// Detects the format of a file on disk (reads its first 64 KiB).
pub fn detect_file(path: &Path) -> std::io::Result<Detected> {
    detect_file_head(path).map(|(d, _)| d)
}

/// Detects the format of a file on disk, returning with it the whole file when it is shorter
/// than the head read to detect it (so a small file is read once, not twice).
pub fn detect_file_head(path: &Path) -> std::io::Result<(Detected, Option<Vec<u8>>)> {
    use std::io::Read;
    let f = std::fs::File::open(path)?;
    let mut buf = Vec::with_capacity(sniff::HEAD_BYTES);
    f.take(sniff::HEAD_BYTES as u64).read_to_end(&mut buf)?;
    let d = detect(&buf);
    Ok((d, (buf.len() < sniff::HEAD_BYTES).then_some(buf)))
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
