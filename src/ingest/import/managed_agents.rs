//! Claude Managed Agents (Anthropic's beta sessions API, `/v1/sessions`): the events of a
//! session, as `GET /v1/sessions/{id}/events` lists them (`{"data": [...], "next_page"}`, or
//! the events saved as a JSON array or one a line), as `GET /v1/sessions/{id}/events/stream`
//! sends them (server-sent events), or as test harnesses record an SDK's calls
//! (`[sdk_method, payload]` lines: LangSmith's JS tests). Tool uses (`agent.mcp_tool_use`,
//! `agent.tool_use`, `agent.custom_tool_use`) are calls, their results results, `user.message`
//! starts a turn and `agent.message` is its answer. The format has no citations.

use super::blocks::{self, CallFields, ToolHost};
use super::build::{Builder, Loc};
use super::lax::{self, lax_object, Any, Bool, Raw, Str};
use super::sniff::Head;
use super::sse;
use super::util::time_str;
use super::Input;
use crate::ingest::lines::Line;
use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Session, Timestamp};
use rustc_hash::FxHashSet as HashSet;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::Value;

const NAME: &str = "anthropic-managed-agents";

/// The event types of the sessions API (`{domain}.{action}`), as its SDKs list them.
const TYPES: &[&str] = &[
    "user.message",
    "user.interrupt",
    "user.tool_confirmation",
    "user.custom_tool_result",
    "user.tool_result",
    "user.define_outcome",
    "agent.message",
    "agent.thinking",
    "agent.tool_use",
    "agent.tool_result",
    "agent.mcp_tool_use",
    "agent.mcp_tool_result",
    "agent.custom_tool_use",
    "agent.thread_message_sent",
    "agent.thread_message_received",
    "agent.thread_context_compacted",
    "session.status_running",
    "session.status_idle",
    "session.status_rescheduled",
    "session.status_terminated",
    "session.error",
    "session.deleted",
    "session.updated",
    "session.thread_created",
    "session.thread_status_running",
    "session.thread_status_idle",
    "session.thread_status_rescheduled",
    "session.thread_status_terminated",
    "span.model_request_start",
    "span.model_request_end",
    "span.outcome_evaluation_start",
    "span.outcome_evaluation_ongoing",
    "span.outcome_evaluation_end",
    "system.message",
];

/// The domains of event types: a type of one of them on an event with an event id (`sevt_`)
/// is an event of a newer version.
const DOMAINS: &[&str] = &["user.", "agent.", "session.", "span.", "system."];

/// How deep records nest in one another (a page in a recorded call in an array of them).
const MAX_DEPTH: u8 = 4;

/// True when the keys read are an event's (a known type, or a type of a known domain on an
/// event id), or the session's (`sessions.retrieve` saved before the events).
fn event_keys(h: &Head) -> bool {
    h.str("type").is_some_and(|t| {
        let id = |prefix: &str| h.str("id").is_some_and(|id| id.starts_with(prefix));
        TYPES.contains(&t)
            || (DOMAINS.iter().any(|d| t.starts_with(d)) && id("sevt_"))
            || (t == "session" && id("sesn_"))
    })
}

/// The SDK method of a test harness's first record (`["client.beta.sessions.create", {...}]`,
/// or an array of such records), when it is one of the sessions API.
fn harness_method(text: &str) -> Option<&str> {
    let t = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .strip_prefix('[')?
        .trim_start();
    let t = t.strip_prefix('[').map_or(t, str::trim_start);
    let rest = t.strip_prefix('"')?;
    let method = &rest[..rest.find('"')?];
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'.' || c == b'_';
    (method.len() < 200 && method.bytes().all(word) && method.contains("sessions."))
        .then_some(method)
}

pub fn sniff(h: &Head) -> bool {
    if h.is_cassette() {
        return false;
    }
    if h.is_sse() {
        return event_keys(h);
    }
    harness_method(h.text).is_some()
        || event_keys(h)
        // A list page (`{"data": [events], "next_page": ...}`), which has no type of its own.
        || (h.has("data")
            && !h.has("type")
            && h.text.contains("\"sevt_")
            && h.text.contains("\"processed_at\""))
}

lax_object! {
    /// A record: an event, a page of events (`data`), the session, or its agent.
    struct Record<'a> {
        kind: Str<'a> = "type",
        id: Str<'a> = "id",
        processed_at: Str<'a> = "processed_at",
        content: Option<Any<'a>> = "content",
        name: Str<'a> = "name",
        input: Raw<'a> = "input",
        mcp_server_name: Str<'a> = "mcp_server_name",
        tool_use_id: Str<'a> = "tool_use_id",
        mcp_tool_use_id: Str<'a> = "mcp_tool_use_id",
        custom_tool_use_id: Str<'a> = "custom_tool_use_id",
        is_error: Bool = "is_error",
        result: Str<'a> = "result",
        session_thread_id: Str<'a> = "session_thread_id",
        error: Option<Any<'a>> = "error",
        data: Raw<'a> = "data",
        next_page: Raw<'a> = "next_page",
        title: Str<'a> = "title",
        agent: Raw<'a> = "agent",
        model: Raw<'a> = "model",
        version: Raw<'a> = "version",
        created_at: Str<'a> = "created_at",
    }
}

lax_object! {
    /// An agent's model, when written as an object (`{"id": "claude-...", "speed": ...}`).
    struct Model<'a> {
        id: Str<'a> = "id",
    }
}

/// What is read of one session of the file.
struct Sess {
    b: Builder,
    /// Its id (`sesn_...`), from the session object.
    id: Option<String>,
    /// The turns started (by a `user.message`, or by a thread's first message).
    turns: usize,
    /// Tool uses the user denied (`user.tool_confirmation` with `deny`).
    denied: usize,
    /// Messages between agent threads not read as turns.
    thread_messages: usize,
    /// The sub-agent threads whose tool uses the session's events carry.
    threads: Vec<String>,
}

impl Sess {
    fn new(input: &Input) -> Self {
        Sess {
            b: Builder::new(NAME, input.name.clone(), input.source.clone()),
            id: None,
            turns: 0,
            denied: 0,
            thread_messages: 0,
            threads: Vec::new(),
        }
    }

    fn finish(self) -> Session {
        let mut b = self.b;
        if self.denied > 0 {
            let s = if self.denied == 1 { "" } else { "s" };
            b.note(format!("{} tool use{s} denied by the user (`user.tool_confirmation`): never run, no result", self.denied));
        }
        if !self.threads.is_empty() {
            b.note(format!(
                "tool uses of sub-agent threads ({}) are read as calls of the session",
                self.threads.join(", ")
            ));
        }
        if self.thread_messages > 0 {
            let s = if self.thread_messages == 1 { "" } else { "s" };
            b.note(format!(
                "{} message{s} between agent threads (multi-agent) not read as turns or answers",
                self.thread_messages
            ));
        }
        b.note("Managed Agents events carry no citations: answers have no stamps");
        b.finish()
    }
}

/// The file being read.
struct Reader<'i> {
    input: &'i Input<'i>,
    cur: Sess,
    done: Vec<Session>,
    /// Event ids read (a repeated event is read once).
    seen: HashSet<String>,
    repeated: usize,
    /// Record types of no known version, warned about once each.
    unknown: Vec<String>,
    /// Recorded requests that sent events (the stream echoes each sent event).
    sends: usize,
    /// A page of the list said more pages follow.
    more_pages: bool,
    /// Records read (events, pages, sessions).
    read: usize,
}

/// A place in the file: its line (0 in a document) and, when known, its JSON path.
fn loc(line: u64, path: &str) -> Loc {
    if path.is_empty() {
        Loc::from(line)
    } else {
        Loc::path(line, path)
    }
}

/// `path` and `key` joined as a JSON path.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The text blocks of a message's `content`, joined with `sep` (a string content is its text).
fn text_of(content: Option<&Any>, sep: &str) -> Option<String> {
    match content? {
        Any::Array(items) => {
            let texts: Vec<_> = items
                .iter()
                .filter(|b| b.str("type").as_deref() == Some("text"))
                .filter_map(|b| b.str("text"))
                .collect();
            Some(texts.join(sep))
        }
        Any::Other(Value::String(t)) => Some(t.clone()),
        _ => None,
    }
}

/// How the reading of lines ended.
enum Pass {
    /// Every line read (bad lines named and skipped); how many records were read.
    Lines(usize),
    /// The first non-blank line is no JSON: the file may be one document.
    NotLines,
}

pub fn import(input: &Input) -> Vec<Session> {
    let mut r = Reader {
        input,
        cur: Sess::new(input),
        done: Vec::new(),
        seen: HashSet::default(),
        repeated: 0,
        unknown: Vec::new(),
        sends: 0,
        more_pages: false,
        read: 0,
    };
    // Records one a line (a harness's recording, events one a line); else one document (a list
    // page, an array of events), or a stream of server-sent events.
    if let Pass::NotLines = r.lines(true) {
        r.document();
    }
    r.finish()
}

impl Reader<'_> {
    fn b(&mut self) -> &mut Builder {
        &mut self.cur.b
    }

    /// An error at `line` and `column` (a line's place is at least its first column; a
    /// document's is its path).
    fn error(&mut self, line: u64, column: u64, path: &str, message: String) {
        let column = if line == 0 { 0 } else { column.max(1) };
        self.b().diag(line, column, path, DiagLevel::Error, message);
    }

    fn warn(&mut self, line: u64, path: &str, message: String) {
        self.b()
            .diag(line, 1.min(line), path, DiagLevel::Warning, message);
    }

    /// Reads the file one record a line. With `probe`, stops before reading anything when the
    /// first non-blank line is no JSON.
    fn lines(&mut self, probe: bool) -> Pass {
        let input = self.input;
        let mut lines = match input.lines() {
            Ok(l) => l,
            Err(e) => {
                self.error(0, 0, "", format!("cannot read the file: {e}"));
                return Pass::Lines(0);
            }
        };
        let mut first = true;
        let before = self.read;
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
                    let text = match std::str::from_utf8(bytes) {
                        Ok(t) => t,
                        Err(_) if first && probe => return Pass::NotLines,
                        Err(e) => {
                            let at = e.valid_up_to() + 1;
                            self.error(
                                line_no,
                                0,
                                "",
                                format!("invalid UTF-8 at byte {at} of the line; line skipped"),
                            );
                            continue;
                        }
                    };
                    // A line is parsed once (as a record, which names what is wrong with it)
                    // unless it decides the file's shape or may be cut short.
                    let checked = if (first && probe) || !ended {
                        serde_json::from_str::<IgnoredAny>(text).map(drop)
                    } else {
                        Ok(())
                    };
                    if let Err(e) = checked {
                        if first && probe {
                            return Pass::NotLines;
                        }
                        let msg = if !ended && e.is_eof() {
                            "truncated line: the file ends in the middle of a record; line skipped"
                                .to_owned()
                        } else {
                            format!(
                                "malformed JSON: {}; line skipped",
                                strip_pos(&e.to_string())
                            )
                        };
                        self.error(line_no, e.column() as u64, "", msg);
                        first = false;
                        continue;
                    }
                    first = false;
                    self.value(text, line_no, "", 0);
                }
                Ok(Some(Line::TooLong { .. })) if first && probe => return Pass::NotLines,
                Ok(Some(Line::TooLong { line_no, bytes })) => {
                    let cap = input.opts.max_line_bytes;
                    self.error(line_no, 1, "", format!("line is {bytes} bytes, over the {cap} byte cap; skipped (raise --max-line-bytes to load it)"));
                    first = false;
                }
                Ok(None) => return Pass::Lines(self.read - before),
                Err(e) => {
                    self.error(0, 0, "", format!("read error: {e}"));
                    return Pass::Lines(self.read - before);
                }
            }
        }
    }

    /// Reads the file as one document: a stream of server-sent events, or one JSON value. A
    /// file that is neither is read one record a line when some line is one (a damaged first
    /// line loses only itself), else it is one error.
    fn document(&mut self) {
        let input = self.input;
        let all = match input.all() {
            Ok(a) => a,
            Err(e) => return self.error(0, 0, "", format!("cannot read the file: {e}")),
        };
        let text = match super::util::utf8(&all) {
            Ok(t) => t,
            Err(e) => {
                let at = e.valid_up_to();
                return self.error(
                    0,
                    0,
                    "",
                    format!("invalid UTF-8 at byte {at} of the file; nothing read"),
                );
            }
        };
        if sse::starts_as_sse(text) {
            return self.stream(text);
        }
        match serde_json::from_str::<IgnoredAny>(text) {
            Ok(_) => self.value(text, 0, "", 0),
            Err(e) => {
                // Problems of the lines are told only when some line was a record (nothing
                // else was recorded then: the session starts again, with one error).
                let read = match self.lines(false) {
                    Pass::Lines(n) => n,
                    Pass::NotLines => 0,
                };
                if read == 0 {
                    self.cur = Sess::new(input);
                    self.unknown.clear();
                    self.error(
                        e.line() as u64,
                        e.column() as u64,
                        "",
                        format!(
                            "not a Claude Managed Agents event list ({}); nothing read",
                            strip_pos(&e.to_string())
                        ),
                    );
                }
            }
        }
    }

    /// Server-sent events (`GET /v1/sessions/{id}/events/stream` saved as received): each
    /// event's data is an event.
    fn stream(&mut self, text: &str) {
        let (events, problems) = sse::events(text);
        for p in problems {
            self.warn(p.line, "", p.message);
        }
        for ev in events {
            match serde_json::value::to_raw_value(&ev.data) {
                Ok(raw) => self.value(raw.get(), ev.line, "", 0),
                Err(e) => self.error(
                    ev.line,
                    0,
                    "",
                    format!("the event's data cannot be read ({e}); skipped"),
                ),
            }
        }
    }

    /// One JSON value at `line` (0 in a document) and `path`: a harness's record
    /// (`[method, payload]`), an array of records, a page of events, an event, the session or
    /// its agent.
    fn value(&mut self, raw: &str, line: u64, path: &str, depth: u8) {
        if depth > MAX_DEPTH {
            let msg = "records nested too deeply; skipped".to_owned();
            return self.error(line, 0, path, msg);
        }
        let t = raw.trim_start();
        if t.starts_with('[') {
            let items: Vec<&RawValue> = match serde_json::from_str(raw) {
                Ok(v) => v,
                Err(e) => return self.bad(line, path, &e),
            };
            if let Some(first) = items.first().filter(|r| r.get().starts_with('"')) {
                let method: String = serde_json::from_str(first.get()).unwrap_or_default();
                return self.harness(&method, items.get(1).copied(), line, path, depth);
            }
            for (i, item) in items.iter().enumerate() {
                self.value(item.get(), line, &format!("{path}[{i}]"), depth + 1);
            }
            return;
        }
        if !t.starts_with('{') {
            let msg = "not an event (a JSON object) or a list of events; skipped".to_owned();
            return self.error(line, 0, path, msg);
        }
        let r: Record = match serde_json::from_str(raw) {
            Ok(r) => r,
            Err(e) => return self.bad(line, path, &e),
        };
        match r.kind.get() {
            Some("session") => self.session(&r),
            Some("agent") => {
                self.read += 1;
                self.agent(&r);
            }
            Some(kind) => self.event(kind, &r, line, path),
            None if r.data.non_null().is_some() => self.page(&r, line, path, depth),
            None => {
                let msg = "neither an event (no `type`) nor a list of events (`data`); skipped";
                self.error(line, 0, &join(path, "type"), msg.into());
            }
        }
    }

    fn bad(&mut self, line: u64, path: &str, e: &serde_json::Error) {
        let e_text = strip_pos(&e.to_string());
        let msg = match e.classify() {
            serde_json::error::Category::Data => format!("not a record ({e_text}); skipped"),
            _ => format!("malformed JSON: {e_text}; skipped"),
        };
        let column = if line == 0 { 0 } else { e.column() as u64 };
        self.error(line, column, path, msg);
    }

    /// A record of a test harness: the SDK method called and its payload.
    fn harness(
        &mut self,
        method: &str,
        payload: Option<&RawValue>,
        line: u64,
        path: &str,
        depth: u8,
    ) {
        // The events a request sends come back on the stream, with their ids and times.
        if method.ends_with(".send") {
            self.sends += 1;
            self.read += 1;
            return;
        }
        match payload {
            Some(p) => self.value(p.get(), line, &format!("{path}[1]"), depth + 1),
            None => self.warn(
                line,
                path,
                format!("a recorded call of `{method}` without its result; skipped"),
            ),
        }
    }

    /// A page of `GET /v1/sessions/{id}/events`: its events, in order.
    fn page(&mut self, r: &Record, line: u64, path: &str, depth: u8) {
        let data = join(path, "data");
        let Some(items) = r
            .data
            .non_null()
            .and_then(|d| serde_json::from_str::<Vec<&RawValue>>(d.get()).ok())
        else {
            return self.error(
                line,
                0,
                &data,
                "`data` is not a list of events; skipped".into(),
            );
        };
        self.read += 1;
        for (i, item) in items.iter().enumerate() {
            self.value(item.get(), line, &format!("{data}[{i}]"), depth + 1);
        }
        if r.next_page
            .non_null()
            .is_some_and(|p| !matches!(p.get(), "\"\"" | "false"))
        {
            self.more_pages = true;
        }
    }

    /// The session object (`sessions.create`, `sessions.retrieve`): its id, title and agent.
    /// Another session's object starts a session of its own.
    fn session(&mut self, r: &Record) {
        self.read += 1;
        if let Some(id) = r.id.get() {
            if self.cur.id.as_deref().is_some_and(|cur| cur != id) {
                let next = Sess::new(self.input);
                let prev = std::mem::replace(&mut self.cur, next);
                self.done.push(prev.finish());
            }
            self.cur.id = Some(id.to_owned());
            self.b().session_id(id);
        }
        if let Some(t) = r.title.get() {
            self.b().title(t);
        }
        if let Some(t) = r.created_at.get().and_then(time_str) {
            self.b().saw_time(t);
        }
        if let Some(agent) = r
            .agent
            .non_null()
            .and_then(|a| serde_json::from_str::<Record>(a.get()).ok())
        {
            self.agent(&agent);
        }
    }

    /// An agent object: its name and version, and its model.
    fn agent(&mut self, r: &Record) {
        if let Some(name) = r.name.get() {
            let agent = match r.version.non_null() {
                Some(v) => format!("{name}/{}", v.get().trim_matches('"')),
                None => name.to_owned(),
            };
            self.b().agent(&agent);
        }
        let model = r.model.non_null().and_then(|m| {
            if m.get().starts_with('"') {
                serde_json::from_str::<String>(m.get()).ok()
            } else {
                serde_json::from_str::<Model>(m.get())
                    .ok()
                    .and_then(|m| m.id.get().map(str::to_owned))
            }
        });
        if let Some(m) = model {
            self.b().model(&m);
        }
    }

    fn event(&mut self, kind: &str, r: &Record, line: u64, path: &str) {
        let at = r.processed_at.get().and_then(time_str);
        if let Some(id) = r.id.get() {
            if !self.seen.insert(id.to_owned()) {
                self.repeated += 1;
                return;
            }
        }
        self.read += 1;
        match kind {
            "user.message" => {
                let text = text_of(r.content.as_ref(), "\n");
                if text.is_none() {
                    let msg =
                        "a user message without text `content`; its turn has an empty user message"
                            .to_owned();
                    self.warn(line, &join(path, "content"), msg);
                }
                self.cur.turns += 1;
                self.b()
                    .turn(text.as_deref().unwrap_or(""), at, loc(line, path));
            }
            "agent.message" => match text_of(r.content.as_ref(), "") {
                Some(text) => self.b().answer_text(&text, "\n\n", at, loc(line, path)),
                None => {
                    let msg = "an agent message without text `content`; skipped".to_owned();
                    self.warn(line, &join(path, "content"), msg);
                }
            },
            "agent.mcp_tool_use" | "agent.tool_use" | "agent.custom_tool_use" => {
                self.call(kind, r, at, line, path)
            }
            "agent.mcp_tool_result" => self.result(
                r,
                r.mcp_tool_use_id.get(),
                "mcp_tool_use_id",
                at,
                line,
                path,
            ),
            "agent.tool_result" | "user.tool_result" => {
                self.result(r, r.tool_use_id.get(), "tool_use_id", at, line, path)
            }
            "user.custom_tool_result" => self.result(
                r,
                r.custom_tool_use_id.get(),
                "custom_tool_use_id",
                at,
                line,
                path,
            ),
            "user.tool_confirmation" => {
                if r.result.get() == Some("deny") {
                    self.cur.denied += 1;
                }
            }
            "agent.thread_message_received" if self.cur.turns == 0 => {
                // A thread's own events: the message that started the thread is its prompt.
                let text = text_of(r.content.as_ref(), "\n").unwrap_or_default();
                self.cur.turns += 1;
                self.b().note("the events of a sub-agent's thread: the message it received first (`agent.thread_message_received`) is its turn's user message");
                self.b().turn(&text, at, loc(line, path));
            }
            "agent.thread_message_received" | "agent.thread_message_sent" => {
                self.cur.thread_messages += 1;
            }
            "session.error" => {
                let (kind, message) = match &r.error {
                    Some(e) => (e.str("type"), e.str("message")),
                    None => (None, None),
                };
                let kind = kind.as_deref().unwrap_or("error");
                let msg = match message {
                    Some(m) => format!("the session reported an error: {kind}: {m:?}"),
                    None => format!("the session reported an error: {kind}"),
                };
                self.warn(line, &join(path, "error"), msg);
            }
            // Status, spans, thinking, interrupts, outcomes; the stream's previews of events
            // being produced (`event_deltas`), which the final event repeats whole.
            known
                if TYPES.contains(&known)
                    || known.starts_with("session.")
                    || known.starts_with("span.")
                    || matches!(known, "event_start" | "event_delta") => {}
            other => {
                self.read -= 1;
                if !self.unknown.iter().any(|k| k == other) {
                    self.unknown.push(other.to_owned());
                    self.warn(
                        line,
                        &join(path, "type"),
                        format!("unknown record type `{other}`; skipped, with the later records of this type"),
                    );
                }
            }
        }
    }

    /// A tool use: an MCP server's tool (server `mcp_server_name`), a tool of the built-in
    /// toolset run by Anthropic (server `anthropic`), or a custom tool the application runs
    /// (server `app`).
    fn call(&mut self, kind: &str, r: &Record, at: Option<Timestamp>, line: u64, path: &str) {
        let host = match kind {
            "agent.mcp_tool_use" => match r.mcp_server_name.get() {
                Some(server) => ToolHost::Mcp(server),
                None => {
                    let msg = "an MCP tool use without `mcp_server_name`: its server is `mcp`";
                    self.warn(line, &join(path, "mcp_server_name"), msg.into());
                    ToolHost::Mcp("mcp")
                }
            },
            "agent.tool_use" => ToolHost::Anthropic,
            _ => ToolHost::App,
        };
        if let Some(thread) = r.session_thread_id.get() {
            if !self.cur.threads.iter().any(|t| t == thread) {
                self.cur.threads.push(thread.to_owned());
            }
        }
        let fields = CallFields {
            id: r.id.get(),
            name: r.name.get().unwrap_or(""),
            server_name: None,
        };
        let arguments = || r.input.0.and_then(lax::raw_value);
        blocks::record_call(
            &mut self.cur.b,
            fields,
            arguments,
            host,
            (at, line, path),
            None,
        );
    }

    /// A tool result, linked to its call by the id field `field`.
    fn result(
        &mut self,
        r: &Record,
        id: Option<&str>,
        field: &str,
        at: Option<Timestamp>,
        line: u64,
        path: &str,
    ) {
        if id.is_none() {
            let msg = format!("a tool result without `{field}`; skipped");
            return self.error(line, 0, &join(path, field), msg);
        }
        let is_error = r.is_error.0 == Some(true);
        let content = || blocks::result_blocks_any(r.content.as_ref());
        blocks::record_result(&mut self.cur.b, id, content, is_error, (at, line, path));
    }

    fn finish(mut self) -> Vec<Session> {
        if self.read == 0 && self.cur.b.diag_count() == 0 {
            let msg = "no Claude Managed Agents event in the file".to_owned();
            self.error(0, 0, "", msg);
        }
        // What concerns the file is told with its first session.
        let mut file_notes: Vec<String> = Vec::new();
        if self.sends > 0 {
            let s = if self.sends == 1 { "" } else { "s" };
            file_notes.push(format!("{} recorded request{s} sending events skipped: the stream echoes each event sent, with its id and time", self.sends));
        }
        if self.repeated > 0 {
            let s = if self.repeated == 1 { "" } else { "s" };
            file_notes.push(format!(
                "{} repeated event{s} (an id already read) read once",
                self.repeated
            ));
        }
        if self.more_pages {
            file_notes.push("the file is a page of the event list whose `next_page` names more: the other pages are not in it".into());
        }
        self.done.push(self.cur.finish());
        let several = self.done.len() > 1;
        for (i, s) in self.done.iter_mut().enumerate() {
            if i == 0 {
                if let Some(info) = s.import.as_mut() {
                    info.notes.extend(file_notes.drain(..).map(Into::into));
                }
            }
            // The sessions of one file are told apart by their id.
            if several {
                let id = s.id();
                let short = id.get(..12).unwrap_or(id);
                s.name = format!("{}#{short}", self.input.name);
            }
        }
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_methods_are_those_of_the_sessions_api() {
        assert_eq!(
            harness_method(r#"["client.beta.sessions.create",{"id":"sesn_1"}]"#),
            Some("client.beta.sessions.create")
        );
        assert_eq!(
            harness_method(" [ [\"beta.sessions.events.stream\", {}]]"),
            Some("beta.sessions.events.stream")
        );
        for not in [
            r#"["client.messages.create",{}]"#,
            r#"["a sessions.b"]"#,
            r#"[{"type":"user.message"}]"#,
            r#"{"x":["sessions.y"]}"#,
            "[\"sessions.",
        ] {
            assert_eq!(harness_method(not), None, "{not}");
        }
    }

    #[test]
    fn events_are_known_by_their_type() {
        let yes = [
            r#"{"type":"user.message","content":[]}"#,
            r#"{"id":"sevt_1","type":"agent.new_kind"}"#,
            r#"[{"processed_at":"2026-01-01T00:00:00Z","type":"span.model_request_start"}]"#,
            r#"{"data":[{"id":"sevt_1","processed_at":null,"type":"user.message"}],"next_page":null}"#,
            r#"{"type":"session","id":"sesn_1","agent":{}}"#,
            "event: agent.message\ndata: {\"type\":\"agent.message\",\"content\":[]}\n\n",
        ];
        for t in yes {
            assert!(sniff(&Head::new(t)), "{t}");
        }
        let no = [
            r#"{"type":"agent.new_kind"}"#,
            r#"{"type":"response.created","id":"sevt_1"}"#,
            r#"{"type":"progress","data":{},"x":"\"sevt_1\" \"processed_at\""}"#,
            r#"{"type":"message","role":"assistant","content":[]}"#,
            r#"{"type":"session","id":"s1"}"#,
        ];
        for t in no {
            assert!(!sniff(&Head::new(t)), "{t}");
        }
    }
}
