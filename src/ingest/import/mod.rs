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
mod api;
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
    /// The open file the input continues in after `bytes` (the head read to detect its format):
    /// line formats are streamed from it, so memory stays low, and the file is opened once.
    pub rest: Option<&'a std::fs::File>,
    /// Loader options.
    pub opts: &'a LoadOptions,
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

    /// The whole input: the bytes, or the head and the rest of the file, read once.
    pub fn all(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        use std::io::Read;
        match self.rest_at_end_of_head()? {
            Some(mut f) => {
                let mut all = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
                all.extend_from_slice(self.bytes);
                f.read_to_end(&mut all)?;
                Ok(std::borrow::Cow::Owned(all))
            }
            None => Ok(std::borrow::Cow::Borrowed(self.bytes)),
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
        let first = |b: &[u8]| {
            b.iter()
                .copied()
                .find(|c| !c.is_ascii_whitespace() && !matches!(c, 0xef | 0xbb | 0xbf))
        };
        let head = match self.rest {
            Some(_) => first(&self.bytes[..self.bytes.len().min(4096)]),
            None => first(self.bytes),
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
    let text = match util::utf8(cut) {
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
