//! Claude Code: the on-disk transcript (`~/.claude/projects/<encoded-cwd>/<session>.jsonl`, its
//! sub-agents under `<session>/subagents/agent-<id>.jsonl`) and the headless `stream-json`
//! output (JSON lines or one JSON array). MCP tools are named `mcp__<server>__<tool>`; the
//! other tools are Claude Code's own (server `claude-code`). Answers have no citations.

use super::blocks::{self, ToolHost};
use super::build::Builder;
use super::sniff::Head;
use super::util::{s, time_str};
use super::Input;
use crate::ingest::lines::Line;
use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Session, SubSession, Timestamp};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

const NAME: &str = "claude-code";
/// The record types read, or known and skipped.
const KINDS: &[&str] = &[
    "user",
    "assistant",
    "summary",
    "system",
    "result",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    // Session metadata of newer versions: titles (`/rename` writes `custom-title` and
    // `agent-name`), the permission mode (often the first record), the last prompt, linked pull
    // requests, hook output.
    "custom-title",
    "ai-title",
    "agent-name",
    "permission-mode",
    "mode",
    "last-prompt",
    "pr-link",
    "attachment",
    // stream-json: partial messages (`--include-partial-messages`) and rate limits.
    "stream_event",
    "rate_limit_event",
];

pub fn sniff(h: &Head) -> bool {
    let kind_ok = h.str("type").is_some_and(|t| KINDS.contains(&t));
    kind_ok
        && (h.has("sessionId")
            || h.has("session_id")
            || h.has("parentUuid")
            || h.has("leafUuid")
            || h.has("messageId")
            || (h.str("type") == Some("system") && h.str("subtype") == Some("init")))
}

/// One line of a transcript or stream-json output.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", alias = "session_id", default)]
    session_id: Option<String>,
    #[serde(rename = "isMeta", default)]
    is_meta: bool,
    /// The summary a compaction (`/compact`, or automatic) puts where the conversation was:
    /// written as a user message, but no one asked it.
    #[serde(rename = "isCompactSummary", default)]
    is_compact_summary: bool,
    #[serde(rename = "agentId", default)]
    agent_id: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(rename = "customTitle", default)]
    custom_title: Option<String>,
    #[serde(rename = "aiTitle", default)]
    ai_title: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(rename = "toolUseResult", default)]
    tool_use_result: Option<Value>,
    /// Set on the assistant message Claude Code writes when the API call failed (its model is
    /// `<synthetic>`, its text the error); stream-json spells it in snake case.
    #[serde(rename = "isApiErrorMessage", alias = "is_api_error_message", default)]
    is_api_error: Option<Value>,
    /// The HTTP status of that failed call.
    #[serde(rename = "apiErrorStatus", default)]
    api_error_status: Option<Value>,
}

/// The model Claude Code names on an assistant message it wrote itself: an API error's text, a
/// usage limit, "No response requested." after an interruption or a resume. No model wrote it.
const SYNTHETIC: &str = "<synthetic>";

struct State<'i> {
    b: Builder,
    input: &'i Input<'i>,
    /// The message id whose text was appended last (pieces of one message join with nothing).
    last_message: Option<String>,
    sub_agent: bool,
    /// The title, in the order it wins: the last `custom-title` (a rename), the last `ai-title`,
    /// the first `summary`.
    titles: [Option<String>; 3],
    /// Record types of no known version, warned about once each.
    unknown_kinds: Vec<String>,
}

pub fn import(input: &Input) -> Vec<Session> {
    let mut st = State {
        b: Builder::new(NAME, input.name.clone(), input.source.clone()),
        input,
        last_message: None,
        sub_agent: false,
        titles: Default::default(),
        unknown_kinds: Vec::new(),
    };
    let whole = match input.all_if_array() {
        Ok(w) => w,
        Err(e) => {
            st.b.diag(
                0,
                0,
                "",
                DiagLevel::Error,
                format!("cannot read the file: {e}"),
            );
            return vec![st.b.finish()];
        }
    };
    if let Some(whole) = whole {
        match serde_json::from_slice::<Vec<&serde_json::value::RawValue>>(&whole) {
            Ok(items) => {
                for (i, raw) in items.iter().enumerate() {
                    st.record(raw.get(), 0, &format!("[{i}]"));
                }
            }
            Err(e) => st.b.diag(
                e.line() as u64,
                e.column() as u64,
                "",
                DiagLevel::Error,
                format!(
                    "malformed JSON array: {}; nothing read",
                    strip_pos(&e.to_string())
                ),
            ),
        }
    } else {
        let mut lines = match input.lines() {
            Ok(l) => l,
            Err(e) => {
                st.b.diag(
                    0,
                    0,
                    "",
                    DiagLevel::Error,
                    format!("cannot read the file: {e}"),
                );
                return vec![st.b.finish()];
            }
        };
        loop {
            match lines.next_line() {
                Ok(Some(Line::Text {
                    line_no,
                    ended,
                    bytes,
                })) => {
                    if bytes.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match std::str::from_utf8(bytes) {
                        Ok(text) => {
                            if !ended && serde_json::from_str::<Value>(text).is_err() {
                                st.b.diag(line_no, 1, "", DiagLevel::Error, "truncated line: the file ends in the middle of a record; line skipped".into());
                                continue;
                            }
                            st.record(text, line_no, "")
                        }
                        Err(e) => st.b.diag(
                            line_no,
                            0,
                            "",
                            DiagLevel::Error,
                            format!("invalid UTF-8 at byte {} of the line; line skipped", e.valid_up_to() + 1),
                        ),
                    }
                }
                Ok(Some(Line::TooLong { line_no, bytes })) => st.b.diag(
                    line_no,
                    1,
                    "",
                    DiagLevel::Error,
                    format!("line is {bytes} bytes, over the {} byte cap; skipped (raise --max-line-bytes to load it)", input.opts.max_line_bytes),
                ),
                Ok(None) => break,
                Err(e) => {
                    st.b.diag(0, 0, "", DiagLevel::Error, format!("read error: {e}"));
                    break;
                }
            }
        }
    }
    for t in st.titles.iter().flatten() {
        st.b.title(t);
    }
    if st.sub_agent {
        st.b.note(
            "a sub-agent transcript: its first user message is the prompt the parent agent gave it",
        );
    }
    vec![st.b.finish()]
}

impl State<'_> {
    fn record(&mut self, text: &str, line: u64, path: &str) {
        let r: Record = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                let msg = match e.classify() {
                    serde_json::error::Category::Eof => {
                        "the JSON object is incomplete; line skipped".to_owned()
                    }
                    serde_json::error::Category::Data => format!(
                        "not a transcript record ({}); line skipped",
                        strip_pos(&e.to_string())
                    ),
                    _ => format!(
                        "malformed JSON: {}; line skipped",
                        strip_pos(&e.to_string())
                    ),
                };
                self.b
                    .diag(line, e.column() as u64, path, DiagLevel::Error, msg);
                return;
            }
        };
        let at = r.timestamp.as_deref().and_then(time_str);
        if let Some(id) = &r.session_id {
            match &r.agent_id {
                Some(agent) => {
                    self.sub_agent = true;
                    self.b.session_id(&format!("{id}:agent-{agent}"));
                }
                None => self.b.session_id(id),
            }
        }
        if let Some(v) = &r.version {
            self.b.agent(&format!("claude-code/{v}"));
        }
        match r.kind.as_deref() {
            Some("user") if !r.is_meta && !r.is_compact_summary => self.user(&r, at, line, path),
            Some("assistant") => self.assistant(&r, at, line, path),
            Some("summary") => {
                if self.titles[2].is_none() {
                    self.titles[2] = r.summary;
                }
            }
            Some("custom-title") if r.custom_title.is_some() => self.titles[0] = r.custom_title,
            Some("ai-title") if r.ai_title.is_some() => self.titles[1] = r.ai_title,
            Some("system") => {
                if r.subtype.as_deref() == Some("init") {
                    self.b.agent("claude-code");
                    if let Some(m) = &r.model {
                        self.b.model(m);
                    }
                }
            }
            Some(known) if KINDS.contains(&known) => {}
            // Once per type: a new version's record may be on every other line.
            Some(other) if self.unknown_kinds.iter().any(|k| k == other) => {}
            Some(other) => {
                self.b.diag(
                    line,
                    1,
                    &join(path, "type"),
                    DiagLevel::Warning,
                    format!("unknown record type `{other}`; skipped, with the later records of this type"),
                );
                self.unknown_kinds.push(other.to_owned());
            }
            None => self.b.diag(
                line,
                1,
                &join(path, "type"),
                DiagLevel::Warning,
                "a record without a `type`; skipped".into(),
            ),
        }
    }

    fn user(&mut self, r: &Record, at: Option<Timestamp>, line: u64, path: &str) {
        let Some(msg) = &r.message else {
            return self.missing(line, path, "message");
        };
        match msg.get("content") {
            Some(Value::String(t)) => {
                self.b.turn(t, at, line);
                self.last_message = None;
            }
            Some(Value::Array(items)) => {
                let text: Vec<&str> = items
                    .iter()
                    .filter(|x| s(x, "type") == Some("text"))
                    .filter_map(|x| s(x, "text"))
                    .collect();
                if !text.is_empty() {
                    self.b.turn(&text.join("\n"), at, line);
                    self.last_message = None;
                }
                for (i, blk) in items.iter().enumerate() {
                    if s(blk, "type") != Some("tool_result") {
                        continue;
                    }
                    let p = join(path, &format!("message.content[{i}]"));
                    if let Some((id, _)) = blocks::result(&mut self.b, blk, at, line, &p) {
                        self.link_sub_agent(&id, r.tool_use_result.as_ref());
                    }
                }
            }
            _ => self.missing(line, path, "message.content"),
        }
    }

    /// A `Task` result names the agent it ran: link the call to that agent's transcript.
    fn link_sub_agent(&mut self, call_id: &str, tur: Option<&Value>) {
        let Some(agent) = tur.and_then(|t| s(t, "agentId")) else {
            return;
        };
        let session = self.b.session_id_so_far().unwrap_or_default();
        let path = self.input.path.and_then(|p| {
            let dir = p.parent()?;
            let stem = p.file_stem()?.to_str()?;
            let f = dir
                .join(stem)
                .join("subagents")
                .join(format!("agent-{agent}.jsonl"));
            f.is_file().then(|| f.display().to_string())
        });
        self.b.link_sub_session(
            call_id,
            SubSession {
                id: format!("{session}:agent-{agent}"),
                path,
            },
        );
    }

    fn assistant(&mut self, r: &Record, at: Option<Timestamp>, line: u64, path: &str) {
        let Some(msg) = &r.message else {
            return self.missing(line, path, "message");
        };
        let synthetic = s(msg, "model") == Some(SYNTHETIC);
        if let Some(m) = s(msg, "model").filter(|_| !synthetic) {
            self.b.model(m);
        }
        let msg_id = s(msg, "id").map(str::to_owned);
        let Some(items) = msg.get("content").and_then(Value::as_array) else {
            return self.missing(line, path, "message.content");
        };
        for (i, blk) in items.iter().enumerate() {
            let p = join(path, &format!("message.content[{i}]"));
            match s(blk, "type") {
                Some("text") if synthetic => self.synthetic(r, s(blk, "text"), line, &p),
                Some("text") => {
                    let t = s(blk, "text").unwrap_or("");
                    let sep = match (&self.last_message, &msg_id) {
                        (Some(a), Some(b)) if a == b => "",
                        _ => "\n\n",
                    };
                    self.b.answer_text(t, sep, at, line);
                    self.last_message = msg_id.clone();
                }
                Some("tool_use") => {
                    blocks::call(&mut self.b, blk, ToolHost::ClaudeCode, at, line, &p, None);
                }
                Some(t) if blocks::is_result_type(t) => {
                    blocks::result(&mut self.b, blk, at, line, &p);
                }
                _ => {}
            }
        }
    }

    /// The text of an assistant message Claude Code wrote itself: no answer of the model. An
    /// API error is a warning (the turn had no answer because the call failed); the rest
    /// ("No response requested.") a note.
    fn synthetic(&mut self, r: &Record, text: Option<&str>, line: u64, path: &str) {
        let text = text.unwrap_or("");
        let api_error = r.is_api_error == Some(Value::Bool(true)) || text.starts_with("API Error");
        if !api_error {
            self.b.note("assistant messages Claude Code wrote itself (model `<synthetic>`, such as \"No response requested.\") are no answer of the model and are left out of the answers");
            return;
        }
        let status = match &r.api_error_status {
            Some(Value::Number(n)) => format!(" (HTTP {n})"),
            _ => String::new(),
        };
        const MAX: usize = 200;
        let mut shown: String = text.chars().take(MAX).collect();
        if text.chars().nth(MAX).is_some() {
            shown.push_str("...");
        }
        self.b.diag(
            line,
            1,
            &join(path, "text"),
            DiagLevel::Warning,
            format!("an API error{status} written by Claude Code, not by the model: {shown:?}; left out of the answer"),
        );
    }

    fn missing(&mut self, line: u64, path: &str, field: &str) {
        self.b.diag(
            line,
            1,
            &join(path, field),
            DiagLevel::Error,
            format!("required field `{field}` is missing or has the wrong type; record skipped"),
        );
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}
