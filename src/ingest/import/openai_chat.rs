//! OpenAI Chat Completions: a response (`{"object":"chat.completion",...}`), a request body
//! (`{"model","messages"}`), a logging proxy's `{"request","response"}` records (one, a JSON
//! list, or one a line), a stream of `chat.completion.chunk`s (server-sent events, lines or a
//! list), or a VCR cassette of `/chat/completions` calls. Assistant `tool_calls` are calls,
//! `tool` messages their results; so are the deprecated `function_call` (no id: one is made
//! from the function's name and the message's place in the conversation, `<name>#<index>`)
//! and the `function` message after it; `url_citation` annotations become derived stamps as the
//! Responses importer makes them ([`super::openai::url_citation`]).
//!
//! Records are read in one pass into the lax types below, borrowing from the file: a request's
//! messages are kept as written, and only those a request adds to the conversation are read
//! further.

use super::api::{self, ApiFile};
use super::build::{elem_path, json_path, raw_string, Builder, Loc, NewCall, NewResult};
use super::cassette::Interaction;
use super::cite::Offsets;
use super::lax::{self, lax_object, Body, Fields, List, Obj, Opt, Present, Raw, Str, F64, U64};
use super::openai::{strip_utm, url_citation, UrlCitation, HOSTS};
use super::sniff::Head;
use super::sse;
use super::util::{self, s, time_secs};
use super::Input;
use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Name, Session, Timestamp};
use rustc_hash::FxHashMap as HashMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

lax_object! {
    /// A chat completion: the fields the importer reads.
    struct Completion<'a> {
        object: Str<'a> = "object",
        id: Str<'a> = "id",
        model: Str<'a> = "model",
        created: F64 = "created",
        choices: List<Choice<'a>> = "choices",
        error: Raw<'a> = "error",
    }
}

lax_object! {
    /// One of a completion's `choices`.
    struct Choice<'a> {
        message: Obj<Message<'a>> = "message",
    }
}

lax_object! {
    /// A request body: its model and its messages, each kept as written.
    struct Request<'a> {
        model: Str<'a> = "model",
        messages: Present<List<&'a RawValue>> = "messages",
    }
}

lax_object! {
    /// A message of a request, or a choice's message.
    struct Message<'a> {
        role: Str<'a> = "role",
        content: Content<'a> = "content",
        refusal: Str<'a> = "refusal",
        tool_calls: List<ToolCall<'a>> = "tool_calls",
        tool_call_id: Str<'a> = "tool_call_id",
        name: Str<'a> = "name",
        function_call: Obj<Function<'a>> = "function_call",
        annotations: List<Annotation<'a>> = "annotations",
    }
}

lax_object! {
    /// A part of a message's `content` list.
    struct Part<'a> {
        text: Str<'a> = "text",
        refusal: Str<'a> = "refusal",
    }
}

lax_object! {
    /// One of an assistant message's `tool_calls`.
    struct ToolCall<'a> {
        id: Str<'a> = "id",
        kind: Str<'a> = "type",
        function: Function<'a> = "function",
        custom: Custom<'a> = "custom",
    }
}

lax_object! {
    /// A tool call's `function`, or a legacy `function_call`.
    struct Function<'a> {
        name: Str<'a> = "name",
        arguments: Raw<'a> = "arguments",
    }
}

lax_object! {
    /// A custom tool call's `custom`.
    struct Custom<'a> {
        name: Str<'a> = "name",
        input: Str<'a> = "input",
    }
}

lax_object! {
    /// What a `url_citation` cites: under the annotation's `url_citation`, or its own fields.
    struct Cite<'a> {
        url: Str<'a> = "url",
        title: Str<'a> = "title",
        start_index: U64 = "start_index",
        end_index: U64 = "end_index",
    }
}

lax_object! {
    /// One of a message's `annotations`.
    struct Annotation<'a> {
        kind: Str<'a> = "type",
        url_citation: Opt<Cite<'a>> = "url_citation",
        url: Str<'a> = "url",
        title: Str<'a> = "title",
        start_index: U64 = "start_index",
        end_index: U64 = "end_index",
    }
}

/// A message's `content`, read in the pass that reads the message: a string (borrowed where it
/// has no escape), a list's parts and an object's members each kept as written (read further
/// only where needed, and never nested deeper than that), or another value.
#[derive(Default)]
enum Content<'a> {
    #[default]
    Absent,
    Text(std::borrow::Cow<'a, str>),
    Parts(Vec<&'a RawValue>),
    Object(Vec<(std::borrow::Cow<'a, str>, &'a RawValue)>),
    Other(Value),
}

struct ContentVisitor;

impl<'de> serde::de::Visitor<'de> for ContentVisitor {
    type Value = Content<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Content::Text(v.into()))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Content::Text(v.to_owned().into()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Content::Text(v.into()))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::new();
        while let Some(p) = seq.next_element::<&'de RawValue>()? {
            parts.push(p);
        }
        Ok(Content::Parts(parts))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(lax::Key(k)) = map.next_key::<lax::Key<'de>>()? {
            members.push((k, map.next_value::<&'de RawValue>()?));
        }
        Ok(Content::Object(members))
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Content::Other(Value::Bool(v)))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Content::Other(v.into()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Content::Other(v.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Content::Other(v.into()))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Content::Other(Value::Null))
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ContentVisitor)
    }
}

impl Content<'_> {
    /// The text of a message: its string, or the `text` (else `refusal`) of its parts joined
    /// with newlines; empty for anything else.
    fn text(&self) -> String {
        match self {
            Content::Text(t) => t.to_string(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| {
                    let part = serde_json::from_str::<Part>(p.get()).ok()?;
                    part.text.0.or(part.refusal.0)
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// The content as a `Value` (a string as a text block needs none): for the result blocks
    /// of a list or an object. The error of a part nested too deep to read.
    fn value(&self) -> Result<Value, serde_json::Error> {
        let parse = |r: &RawValue| serde_json::from_str::<Value>(r.get());
        Ok(match self {
            Content::Absent => Value::Null,
            Content::Text(t) => Value::String(t.to_string()),
            Content::Parts(parts) => {
                Value::Array(parts.iter().map(|p| parse(p)).collect::<Result<_, _>>()?)
            }
            Content::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| Ok((k.to_string(), parse(v)?)))
                    .collect::<Result<_, serde_json::Error>>()?,
            ),
            Content::Other(v) => v.clone(),
        })
    }
}

/// A record of a file, read in one pass as each of the things it may be: a completion (or a
/// chunk of one), a request body, or a logging proxy's `{request, response}` pair.
#[derive(Default)]
struct Record<'a> {
    /// The record as a completion (`object`, `id`, `model`, `created`, `choices`, `error`).
    completion: Completion<'a>,
    /// The record as a request body (`model`, `messages`).
    as_request: Request<'a>,
    /// `request` (or `request_body`).
    request: Body<'a, Request<'a>>,
    /// `response` (or `response_body`).
    response: Body<'a, Completion<'a>>,
    /// When the record was made: the first of [`TIME_KEYS`] that is a string or a number.
    times: [Raw<'a>; TIME_KEYS.len()],
}

/// The keys a logging proxy writes the time of a record under, in the order they are read.
const TIME_KEYS: [&str; 6] = [
    "timestamp",
    "created_at",
    "startTime",
    "start_time",
    "date_time_utc",
    "requestedAt",
];

impl Record<'_> {
    /// When the record was made: RFC 3339 text, or Unix time in seconds (milliseconds past
    /// 10^11, a date no log has in seconds).
    fn time(&self) -> Option<Timestamp> {
        self.times.iter().find_map(|t| {
            let raw = t.0?.get();
            if raw.starts_with('"') {
                let text = serde_json::from_str::<Str>(raw).ok()?;
                Some(text.get().and_then(util::time_str))
            } else {
                let n = serde_json::from_str::<F64>(raw).ok()?.0?;
                Some(time_secs(if n.abs() >= 1e11 { n / 1000.0 } else { n }))
            }
        })?
    }
}

impl<'de: 'a, 'a> Fields<'de> for Record<'a> {
    fn field<A: serde::de::MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match key {
            "model" => {
                let m: Str<'a> = map.next_value()?;
                self.as_request.model = m.clone();
                self.completion.model = m;
            }
            "messages" => self.as_request.messages = map.next_value()?,
            "request" | "request_body" => self.request = map.next_value()?,
            "response" | "response_body" => self.response = map.next_value()?,
            _ => match TIME_KEYS.iter().position(|k| *k == key) {
                Some(i) => self.times[i] = map.next_value()?,
                None => self.completion.field(key, map)?,
            },
        }
        Ok(())
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Record<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lax::object(d)
    }
}

const NAME: &str = "openai-chat";
const ENDPOINT: &str = "/chat/completions";

/// Whether a cassette's head records Chat Completions calls and no Responses call.
pub(super) fn chat_cassette(head: &str) -> bool {
    head.contains(ENDPOINT) && !head.contains("/responses")
}

/// Whether a head holds the JSON string `word`, written in the document or inside a string of
/// it (a body a proxy logged as JSON text: `\"word\"`).
fn mentions(head: &str, word: &str) -> bool {
    head.match_indices(word).any(|(at, _)| {
        let (before, after) = (&head[..at], &head[at + word.len()..]);
        (before.ends_with('"') && after.starts_with('"'))
            || (before.ends_with("\\\"") && after.starts_with("\\\""))
    })
}

/// Whether a head looks like an Anthropic Messages request (its `messages` hold `tool_use` and
/// `tool_result` blocks, or it names an Anthropic version), which is not a Chat Completions one.
fn anthropic_like(head: &str) -> bool {
    mentions(head, "tool_use")
        || mentions(head, "tool_result")
        || mentions(head, "anthropic_version")
}

pub fn sniff(h: &Head) -> bool {
    if h.is_cassette() {
        return super::cassette::mentions(h.text, HOSTS) && chat_cassette(h.text);
    }
    if h.is_sse() {
        return h.str("object") == Some("chat.completion.chunk");
    }
    match h.str("object") {
        Some(o) => o == "chat.completion" || o == "chat.completion.chunk",
        None if h.has("messages") => h.has("model") && !anthropic_like(h.text),
        None => {
            (h.has("request") || h.has("request_body"))
                && (h.has("response") || h.has("response_body"))
                && (mentions(h.text, "chat.completion")
                    || (mentions(h.text, "messages") && !anthropic_like(h.text)))
        }
    }
}

/// The messages of the last request read, each as written, in one buffer.
#[derive(Default)]
struct Prev {
    text: String,
    /// Where each message's text ends in `text`.
    ends: Vec<usize>,
}

impl Prev {
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Message `i`'s text.
    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    fn set(&mut self, msgs: &[&RawValue]) {
        self.text.clear();
        self.ends.clear();
        for m in msgs {
            self.text.push_str(m.get());
            self.ends.push(self.text.len());
        }
    }
}

/// Whether two messages written as JSON are the same message (the same JSON value, as
/// `Value` compares them: object keys in any order); the same text is, without reading it.
fn same_message(a: &str, b: &str) -> bool {
    a == b
        || match (
            serde_json::from_str::<Value>(a),
            serde_json::from_str::<Value>(b),
        ) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
}

struct Chat {
    b: Builder,
    /// Each URL a recorded result carried (`utm_source` stripped), with its call: what a
    /// `url_citation` cites.
    linked: HashMap<String, Name>,
    /// The messages of the last request read: a later request repeats them.
    prev: Prev,
    /// A response was read after the last request: the next request repeats its message.
    echo: bool,
    /// Whether the current turn's answer already has text from an earlier message.
    answered: bool,
    /// The line of the record being read (0 in a one-document file).
    line: u64,
    /// Whether a request was read (else the file has no user message and no tool results).
    requests: usize,
    /// Chunks of a streamed response not yet put together: (line, path, chunk).
    chunks: Vec<(u64, String, Value)>,
    /// The place in the conversation of the next message: the length of the last request's
    /// `messages`, one more after each response (whose message a next request replays there).
    conv_len: usize,
    /// The ids made for legacy `function_call`s (which have none), by the message's place in
    /// the conversation and the function's name: each with its `arguments` as written.
    legacy: HashMap<(usize, String), Vec<(String, String)>>,
    /// The number last given to a legacy call id's base (`<name>#<pos>`, `.2`, `.3`, ...).
    legacy_numbered: HashMap<String, u32>,
    /// Legacy calls of responses that no `function` message answered yet: (id, name).
    open: Vec<(String, String)>,
}

pub fn import(input: &Input) -> Vec<Session> {
    let mut c = Chat {
        b: Builder::new(NAME, input.name.clone(), input.source.clone()),
        linked: HashMap::default(),
        prev: Prev::default(),
        echo: false,
        answered: false,
        line: 0,
        requests: 0,
        chunks: Vec::new(),
        conv_len: 0,
        legacy: HashMap::default(),
        legacy_numbered: HashMap::default(),
        open: Vec::new(),
    };
    let text = match input.text.map_or_else(|| util::utf8(input.bytes), Ok) {
        Ok(t) => t.strip_prefix('\u{feff}').unwrap_or(t),
        Err(e) => {
            let msg = format!("invalid UTF-8 at byte {}; not read", e.valid_up_to() + 1);
            c.b.diag(0, 0, "", DiagLevel::Error, msg);
            return vec![c.b.finish()];
        }
    };
    if super::sniff::starts_as_cassette(text) || sse::starts_as_sse(text) {
        api::read(&mut c, input);
    } else {
        c.read_json(text);
    }
    if c.requests == 0 {
        c.b.note(NO_REQUEST_NOTE);
    }
    vec![c.b.finish()]
}

/// The note on a file without a request.
const NO_REQUEST_NOTE: &str = "the file holds no request: no user message and no tool results (a response holds only the model's message; the tool messages are in the next request)";

impl ApiFile for Chat {
    type Response<'a> = Completion<'a>;
    const HOSTS: &'static [&'static str] = HOSTS;
    const ENDPOINT: &'static str = ENDPOINT;
    const RESPONSE_NOTE: &'static str = NO_REQUEST_NOTE;

    fn builder(&mut self) -> &mut Builder {
        &mut self.b
    }

    fn request(&mut self, body: &Value, it: &Interaction, path: &str) {
        let text = body.to_string();
        let req = serde_json::from_str::<Request>(&text).unwrap_or_default();
        self.read_request(&req, path, it.date);
    }

    fn response(&mut self, r: &Completion<'_>, path: &str, at: Option<Timestamp>) {
        self.read_completion(r, path, at);
    }

    fn assemble(events: impl Iterator<Item = sse::Event>, out: &mut impl sse::Out) {
        join_chunks_each(events.map(|e| (e.line, e.data)), &mut |line, v, problem| {
            if let Some(message) = problem {
                out.problem(sse::Problem { line, message });
            }
            out.response(line, v);
        });
    }
}

impl Chat {
    /// Reads a JSON document, or JSON lines (one record a line).
    fn read_json(&mut self, text: &str) {
        if is_lines(text) {
            self.read_lines(text);
            return self.flush_chunks();
        }
        match serde_json::from_str::<&RawValue>(text) {
            Ok(doc) if doc.get().starts_with('[') => {
                let items = serde_json::from_str::<Vec<&RawValue>>(doc.get()).unwrap_or_default();
                if items.is_empty() {
                    let msg = "an empty JSON array: nothing to read".to_owned();
                    return self.b.diag(0, 0, "", DiagLevel::Error, msg);
                }
                self.b.note("the file is a JSON array: each element is read in order, as the requests and responses of one conversation");
                for (i, item) in items.iter().enumerate() {
                    self.record_text(item.get(), &format!("[{i}]"));
                }
            }
            Ok(doc) => self.record_text(doc.get(), ""),
            Err(e) => {
                let msg = format!(
                    "malformed JSON: {}; nothing read",
                    strip_pos(&e.to_string())
                );
                self.b.diag(
                    e.line() as u64,
                    e.column() as u64,
                    "",
                    DiagLevel::Error,
                    msg,
                );
            }
        }
        self.flush_chunks();
    }

    /// Reads one record a line; a line that is no JSON is an error at its line and column.
    fn read_lines(&mut self, text: &str) {
        for (i, l) in text.lines().enumerate() {
            let line = i as u64 + 1;
            if l.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Record>(l) {
                Ok(r) => {
                    self.line = line;
                    self.record(l, &r, "");
                }
                Err(e) => {
                    let msg = format!(
                        "malformed JSON: {}; line skipped",
                        strip_pos(&e.to_string())
                    );
                    self.b
                        .diag(line, e.column() as u64, "", DiagLevel::Error, msg);
                }
            }
        }
        self.line = 0;
    }

    /// Reads the record written as `text` (one JSON value).
    fn record_text(&mut self, text: &str, path: &str) {
        match serde_json::from_str::<Record>(text) {
            Ok(r) => self.record(text, &r, path),
            Err(e) => self.malformed(&e, path, false),
        }
    }

    /// A value that is JSON but cannot be read (nested past serde_json's limit): an error at
    /// its path. The error's column is the line's only where the value read is the line.
    fn malformed(&mut self, e: &serde_json::Error, path: &str, whole_line: bool) {
        let column = if whole_line { e.column() as u64 } else { 0 };
        let msg = format!("malformed JSON: {}; skipped", strip_pos(&e.to_string()));
        self.b.diag(self.line, column, path, DiagLevel::Error, msg);
    }

    /// One record, written as `text`: a response, a chunk, a request body or a
    /// `{request, response}` pair.
    fn record(&mut self, text: &str, r: &Record, path: &str) {
        let object = r.completion.object.get();
        if object == Some("chat.completion.chunk") {
            match serde_json::from_str::<Value>(text) {
                Ok(v) => self.chunks.push((self.line, path.to_owned(), v)),
                Err(e) => self.malformed(&e, path, self.line > 0),
            }
            return;
        }
        self.flush_chunks();
        if !text.trim_start().starts_with('{') {
            return self.b.diag(
                self.line,
                0,
                path,
                DiagLevel::Error,
                "not a JSON object; skipped".into(),
            );
        }
        if object == Some("chat.completion") {
            self.read_completion(&r.completion, path, None);
        } else if r.as_request.messages.0.is_some() {
            // A request body; or a logging library's record of a call, its `messages` beside
            // its `response` (LiteLLM's standard logging payload).
            let at = r.response.is_present().then(|| r.time()).flatten();
            self.read_request(&r.as_request, path, at);
            if r.response.is_present() {
                self.response_body(&r.response, &format!("{path}.response"), at);
            }
        } else if r.request.is_present() || r.response.is_present() {
            let at = r.time();
            if r.request.is_present() {
                self.request_body(&r.request, &format!("{path}.request"), at);
            }
            if r.response.is_present() {
                self.response_body(&r.response, &format!("{path}.response"), at);
            }
        } else if r.completion.error.0.is_some() {
            self.b.diag(
                self.line,
                0,
                &format!("{path}.error"),
                DiagLevel::Warning,
                "the API answered with an error; no response in this record".into(),
            );
        } else {
            self.b.diag(self.line, 0, path, DiagLevel::Error, "not a Chat Completions response (`object` \"chat.completion\"), request (`messages`) or {request, response} record; skipped".into());
        }
    }

    /// A record's `request`: an object, the JSON text of one, or an object whose `body` is the
    /// request (a proxy's `{"body": ...}`, or `{method, url, headers, body}`: read when the
    /// object has no `messages` of its own); anything else is a request without `messages`.
    fn request_body(&mut self, b: &Body<Request>, path: &str, at: Option<Timestamp>) {
        match b {
            Body::Object {
                fields,
                body: Some(inner),
                ..
            } if fields.messages.0.is_none() => {
                let path = format!("{path}.body");
                match inner_text(inner) {
                    Some(text) => {
                        let req = serde_json::from_str::<Request>(&text).unwrap_or_default();
                        self.read_request(&req, &path, at);
                    }
                    None => self.read_request(&Request::default(), &path, at),
                }
            }
            Body::Object { fields, .. } => self.read_request(fields, path, at),
            Body::Text(t) => match serde_json::from_str::<Body<Request>>(t) {
                Ok(Body::Object { fields, .. }) => self.read_request(&fields, path, at),
                _ => self.read_request(&Request::default(), path, at),
            },
            _ => self.read_request(&Request::default(), path, at),
        }
    }

    /// A record's `response`: a completion, the JSON text of one, an object whose `body` is
    /// the completion (read when the object has neither `object` nor `choices` of its own), or
    /// a list of the chunks of a streamed one.
    fn response_body(&mut self, b: &Body<Completion>, path: &str, at: Option<Timestamp>) {
        match b {
            Body::Object {
                fields,
                body: Some(inner),
                ..
            } if fields.object.0.is_none() && fields.choices.0.is_none() => {
                let path = format!("{path}.body");
                match inner_text(inner) {
                    Some(text) if text.trim_start().starts_with('[') => {
                        if let Ok(items) = serde_json::from_str::<Vec<Value>>(&text) {
                            self.response_list(&items, &path, at);
                        }
                    }
                    Some(text) => {
                        let c = serde_json::from_str::<Completion>(&text).unwrap_or_default();
                        self.logged_completion(&c, &path, at);
                    }
                    None => self.read_completion(&Completion::default(), &path, at),
                }
            }
            Body::Object { fields, .. } => self.logged_completion(fields, path, at),
            Body::List(items) => self.response_list(items, path, at),
            Body::Text(t) => match serde_json::from_str::<Body<Completion>>(t) {
                Ok(Body::Object { fields, .. }) => self.logged_completion(&fields, path, at),
                Ok(Body::List(items)) => self.response_list(&items, path, at),
                _ => self.read_completion(&Completion::default(), path, at),
            },
            _ => self.read_completion(&Completion::default(), path, at),
        }
    }

    /// A completion a proxy logged: some gateways drop its `object`, so one without `object`
    /// that has `choices` is read as a completion.
    fn logged_completion(&mut self, c: &Completion, path: &str, at: Option<Timestamp>) {
        if c.object.0.is_none() && c.choices.0.is_some() {
            self.completion(c, path, at);
        } else {
            self.read_completion(c, path, at);
        }
    }

    /// A response that is a list: the chunks of a streamed response, joined; anything else is
    /// no completion.
    fn response_list(&mut self, items: &[Value], path: &str, at: Option<Timestamp>) {
        if items.first().and_then(|c| s(c, "object")) != Some("chat.completion.chunk") {
            return self.read_completion(&Completion::default(), path, at);
        }
        let chunks = items.iter().map(|c| (self.line, c.clone())).collect();
        for (_, c, problem) in join_chunks(chunks) {
            if let Some(p) = problem {
                self.b.diag(self.line, 0, path, DiagLevel::Warning, p);
            }
            api::response_value(self, &c, path, at);
        }
    }

    /// Puts the chunks read so far together into the responses they stream, and reads them.
    fn flush_chunks(&mut self) {
        if self.chunks.is_empty() {
            return;
        }
        let chunks = std::mem::take(&mut self.chunks);
        // The place of the first chunk at each line (a response's place is its first chunk's):
        // looked up per response, not searched among every chunk of the file.
        let mut paths: rustc_hash::FxHashMap<u64, String> = rustc_hash::FxHashMap::default();
        for (l, p, _) in &chunks {
            paths.entry(*l).or_insert_with(|| p.clone());
        }
        self.b.note("the file holds streamed chunks (chat.completion.chunk): the chunks of each response are joined into it (deltas appended), and its JSON paths are those of the joined response, under its first chunk's place");
        let joined = join_chunks(chunks.into_iter().map(|(l, _, v)| (l, v)).collect());
        for (first, v, problem) in joined {
            // The place of the response's first chunk.
            let (line, path) = paths
                .get(&first)
                .map(|p| (first, p.clone()))
                .unwrap_or_default();
            self.line = line;
            if let Some(p) = problem {
                self.b.diag(line, 0, &path, DiagLevel::Warning, p);
            }
            api::response_value(self, &v, &path, None);
        }
    }

    fn loc(&self, path: &str) -> Loc {
        Loc::path(self.line, path)
    }

    fn read_request(&mut self, req: &Request, path: &str, at: Option<Timestamp>) {
        self.requests += 1;
        if let Some(m) = req.model.get() {
            self.b.model(m);
        }
        let Some(msgs) = req.messages.0.as_ref().and_then(|l| l.0.as_deref()) else {
            return self.b.diag(
                self.line,
                0,
                &format!("{path}.messages"),
                DiagLevel::Error,
                "required field `messages` is missing or not a list".into(),
            );
        };
        // A later request repeats the earlier messages, then the answer it was given: only
        // what follows is new.
        let common = msgs
            .iter()
            .take(self.prev.len())
            .enumerate()
            .take_while(|(i, m)| same_message(m.get(), self.prev.get(*i)))
            .count();
        // The place of the response's message when this request replays it.
        let echoed = (common == self.prev.len() && self.echo).then_some(common);
        let mut mpath = String::new();
        for (i, raw) in msgs.iter().enumerate().skip(common) {
            let mpath = elem_path(&mut mpath, path, "messages", i);
            match serde_json::from_str::<Message>(raw.get()) {
                // The response's message, replayed: its calls are known already (by id), and
                // its text is the answer already read.
                Ok(m) if echoed == Some(i) && m.role.get() == Some("assistant") => {}
                Ok(m) => self.message(&m, at, mpath, &msgs[..i]),
                Err(e) => self.malformed(&e, mpath, false),
            }
        }
        self.prev.set(msgs);
        self.conv_len = msgs.len();
        self.echo = false;
    }

    /// One message of a request; `history` holds the messages before it (its index in the
    /// conversation is `history.len()`).
    fn message(&mut self, m: &Message, at: Option<Timestamp>, path: &str, history: &[&RawValue]) {
        match m.role.get() {
            Some("user") => {
                let text = m.content.text();
                self.b.turn(&text, at, self.loc(path));
                self.answered = false;
            }
            Some("assistant") => {
                let text = m.content.text();
                let text = if text.is_empty() {
                    m.refusal.get().unwrap_or("").to_owned()
                } else {
                    text
                };
                if !text.is_empty() {
                    let sep = if self.answered { "\n\n" } else { "" };
                    self.answered = true;
                    self.b.answer_text(&text, sep, at, self.loc(path));
                }
                self.tool_calls(m, at, path);
                self.legacy_call(m, at, path, (history.len(), true));
            }
            Some("tool") => {
                let Some(id) = m.tool_call_id.get() else {
                    return self.b.diag(
                        self.line,
                        0,
                        &format!("{path}.tool_call_id"),
                        DiagLevel::Error,
                        "a tool message without `tool_call_id`; skipped".into(),
                    );
                };
                if self.b.has_result(id) {
                    return;
                }
                self.result(id, m, at, path);
            }
            Some("system" | "developer") => {
                self.b
                    .note("system and developer messages (instructions) are not read");
            }
            Some("function") => self.function_message(m, at, path, history),
            _ => self.b.diag(
                self.line,
                0,
                &format!("{path}.role"),
                DiagLevel::Warning,
                "a message without a known `role`; skipped".into(),
            ),
        }
    }

    /// The result of call `id`: a `tool` or `function` message's `content` (a string or text
    /// parts); the URLs its text carries are what a `url_citation` may cite.
    fn result(&mut self, id: &str, m: &Message, at: Option<Timestamp>, path: &str) {
        let content = match &m.content {
            Content::Absent => Vec::new(),
            Content::Text(t) => vec![super::build::text_block(t.to_string())],
            c => match c.value() {
                Ok(v) => util::blocks(&v),
                Err(e) => {
                    let cpath = format!("{path}.content");
                    self.malformed(&e, &cpath, false);
                    Vec::new()
                }
            },
        };
        let shared = Name::from(id);
        for blk in &content {
            for u in blk.citable_text().into_iter().flat_map(urls_in) {
                self.linked.insert(strip_utm(u).to_owned(), shared.clone());
            }
        }
        self.open.retain(|(o, _)| o != id);
        self.b.result(NewResult {
            call_id: id.to_owned(),
            content,
            at,
            line: self.line,
            json_path: Some(json_path(path)),
            ..NewResult::default()
        });
    }

    /// The arguments of a function (`function` of a tool call, or a legacy `function_call`) at
    /// `path`: its `arguments` string parsed (an object as it is); a string that is no JSON is
    /// a warning and no arguments.
    fn arguments(&mut self, f: &Function, path: &str) -> Option<Box<RawValue>> {
        match f.arguments.0.map(lax::raw_args) {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                // The position is the argument string's, not the file's.
                self.b.diag(
                    self.line,
                    0,
                    &format!("{path}.arguments"),
                    DiagLevel::Warning,
                    strip_pos(&e),
                );
                None
            }
            None => None,
        }
    }

    /// The id of the legacy `function_call` of the message at place `pos` of the conversation
    /// named `name` with these `arguments`: the latest one made there (a later request replays
    /// it there), else none.
    fn legacy_id(&self, pos: usize, name: &str, arguments: &str) -> Option<&str> {
        let made = self.legacy.get(&(pos, name.to_owned()))?;
        made.iter()
            .rev()
            .find(|(a, _)| a == arguments)
            .map(|(_, id)| id.as_str())
    }

    /// An assistant message's legacy `function_call` (`name`, `arguments`; no id), at place
    /// `pos` of the conversation: a call of server `app` whose id is made from the function's
    /// name and that place, `<name>#<pos>` (`.2`, `.3` after it when another call was already
    /// read there), so that the same call replayed by a later request is the same call. A
    /// request's message (`replayed`) that holds the same call at the same place as one read
    /// before is that call; a response's message is always a new call (the same request sent
    /// twice gets two answers). Returns the id and name of a call it made.
    fn legacy_call(
        &mut self,
        m: &Message,
        at: Option<Timestamp>,
        path: &str,
        (pos, replayed): (usize, bool),
    ) -> Option<(String, String)> {
        let fc = m.function_call.0.as_ref()?;
        let name = fc.name.get().unwrap_or("");
        let written = legacy_arguments(fc);
        if replayed && self.legacy_id(pos, name, &written).is_some() {
            return None;
        }
        let base = format!("{name}#{pos}");
        // The numbers up to the one last given to this base are taken (calls are never
        // removed): the search for a free one goes on from there, not from 1 again (each of
        // thousands of calls at one place would try every number before it).
        let mut n = self.legacy_numbered.get(&base).copied().unwrap_or(0).max(1);
        let mut id = if n == 1 {
            base.clone()
        } else {
            format!("{base}.{n}")
        };
        while self.b.has_call(&id) {
            n += 1;
            id = format!("{base}.{n}");
        }
        self.legacy_numbered.insert(base, n);
        let fpath = format!("{path}.function_call");
        let arguments = self.arguments(fc, &fpath);
        self.legacy
            .entry((pos, name.to_owned()))
            .or_default()
            .push((written, id.clone()));
        self.b.call(NewCall {
            id: id.clone(),
            server: "app".into(),
            tool: name.into(),
            arguments,
            at,
            line: self.line,
            json_path: Some(json_path(&fpath)),
            ..NewCall::default()
        });
        Some((id, name.to_owned()))
    }

    /// A legacy `function` message (`name`, `content`; no call id): the result of the latest
    /// unanswered `function_call` of that name: in the request's messages before it
    /// (`history`), else of a response read before. Without one it is kept as the result of
    /// no call (`<name>#<its place>`) with a warning.
    fn function_message(
        &mut self,
        m: &Message,
        at: Option<Timestamp>,
        path: &str,
        history: &[&RawValue],
    ) {
        let Some(name) = m.name.get() else {
            return self.b.diag(
                self.line,
                0,
                &format!("{path}.name"),
                DiagLevel::Error,
                "a function message without `name`; skipped".into(),
            );
        };
        let id = match answered_call(history, name) {
            Some((k, written)) => self
                .legacy_id(k, name, &written)
                .or_else(|| {
                    // Replayed with its arguments written otherwise: the latest call made there.
                    self.legacy
                        .get(&(k, name.to_owned()))
                        .and_then(|made| made.last())
                        .map(|(_, id)| id.as_str())
                })
                .map(str::to_owned),
            None => None,
        };
        let id = id.or_else(|| {
            self.open
                .iter()
                .rposition(|(_, n)| n == name)
                .map(|i| self.open.remove(i).0)
        });
        match id {
            Some(id) => {
                if !self.b.has_result(&id) {
                    self.result(&id, m, at, path);
                }
            }
            None => {
                let id = format!("{name}#{}", history.len());
                if self.b.has_result(&id) {
                    return;
                }
                self.b.diag(
                    self.line,
                    0,
                    path,
                    DiagLevel::Warning,
                    format!("a function message for `{name}` with no unanswered `function_call` of that name before it: kept as the result of no call (`{id}`)"),
                );
                self.result(&id, m, at, path);
            }
        }
    }

    /// The calls of an assistant message's `tool_calls`.
    fn tool_calls(&mut self, m: &Message, at: Option<Timestamp>, path: &str) {
        let mut tpath = String::new();
        for (i, tc) in m.tool_calls.items().iter().enumerate() {
            let tpath = elem_path(&mut tpath, path, "tool_calls", i);
            let Some(id) = tc.id.get() else {
                self.b.diag(
                    self.line,
                    0,
                    &format!("{tpath}.id"),
                    DiagLevel::Error,
                    "a tool call without `id`; skipped".into(),
                );
                continue;
            };
            if self.b.has_call(id) {
                continue;
            }
            let kind = tc.kind.get().unwrap_or("function");
            let (tool, arguments) = match kind {
                "custom" => {
                    let input = tc.custom.input.get().and_then(raw_string);
                    (tc.custom.name.get().unwrap_or(""), input)
                }
                _ => {
                    let arguments = self.arguments(&tc.function, &format!("{tpath}.function"));
                    (tc.function.name.get().unwrap_or(""), arguments)
                }
            };
            self.b.call(NewCall {
                id: id.into(),
                server: "app".into(),
                tool: tool.into(),
                arguments,
                at,
                line: self.line,
                json_path: Some(json_path(tpath)),
                ..NewCall::default()
            });
        }
    }

    fn read_completion(&mut self, r: &Completion, path: &str, date: Option<Timestamp>) {
        if r.object.get() != Some("chat.completion") {
            if r.error.0.is_some() {
                self.b.diag(
                    self.line,
                    0,
                    &format!("{path}.error"),
                    DiagLevel::Warning,
                    "the API answered with an error; no response here".into(),
                );
            } else {
                self.b.diag(
                    self.line,
                    0,
                    &format!("{path}.object"),
                    DiagLevel::Error,
                    "not a chat completion (`object` is not \"chat.completion\"); skipped".into(),
                );
            }
            return;
        }
        self.completion(r, path, date);
    }

    /// A completion's id, model and first choice's message (its `object` checked, or not
    /// there in a proxy's record).
    fn completion(&mut self, r: &Completion, path: &str, date: Option<Timestamp>) {
        if let Some(id) = r.id.get() {
            self.b.session_id(id);
        }
        if let Some(m) = r.model.get() {
            self.b.model(m);
        }
        let at = r.created.0.and_then(time_secs).or(date);
        let choices = r.choices.items();
        if choices.len() > 1 {
            self.b
                .note("only the first of a response's choices is read (`n` > 1)");
        }
        let Some(choice) = choices.first() else {
            return self.b.diag(
                self.line,
                0,
                &format!("{path}.choices"),
                DiagLevel::Error,
                "required field `choices` is missing, empty or not a list".into(),
            );
        };
        let mpath = format!("{path}.choices[0].message");
        let Some(m) = &choice.message.0 else {
            return self.b.diag(
                self.line,
                0,
                &mpath,
                DiagLevel::Error,
                "a choice without a `message`; skipped".into(),
            );
        };
        let text = m.content.text();
        let text = if text.is_empty() {
            m.refusal.get().unwrap_or("").to_owned()
        } else {
            text
        };
        let annotations = m.annotations.items();
        if !text.is_empty() || !annotations.is_empty() {
            let sep = if self.answered { "\n\n" } else { "" };
            self.answered = true;
            let cpath = format!("{mpath}.content");
            // The claims' sentences, markers and URLs are ranges of this piece.
            let piece = self.b.answer_piece_in(&text, sep, at, self.loc(&cpath));
            let offsets = Offsets::new(&piece);
            let mut apath = String::new();
            for (ai, a) in annotations.iter().enumerate() {
                let apath = elem_path(&mut apath, &mpath, "annotations", ai);
                match a.kind.get() {
                    Some("url_citation") => {
                        let (url, title, start, end) = match &a.url_citation.0 {
                            Some(c) => (&c.url, &c.title, c.start_index, c.end_index),
                            None => (&a.url, &a.title, a.start_index, a.end_index),
                        };
                        url_citation(
                            &mut self.b,
                            &self.linked,
                            &piece,
                            &offsets,
                            UrlCitation {
                                url: url.get().unwrap_or(""),
                                title: title.get(),
                                start: start.0,
                                end: end.0,
                            },
                            at,
                            (self.line, apath),
                        );
                    }
                    other => self.b.diag(
                        self.line,
                        0,
                        &format!("{apath}.type"),
                        DiagLevel::Warning,
                        format!(
                            "annotation type `{}` is not a citation provscope reads; skipped",
                            other.unwrap_or("")
                        ),
                    ),
                }
            }
        }
        self.tool_calls(m, at, &mpath);
        if let Some((id, name)) = self.legacy_call(m, at, &mpath, (self.conv_len, false)) {
            // Answered by a `function` message of a later request.
            self.open.push((id, name));
        }
        self.conv_len += 1;
        self.echo = true;
    }
}

/// A legacy `function_call`'s `arguments` as written (a string as it is, anything else as
/// JSON text): what tells two calls of one name at one place apart.
fn legacy_arguments(fc: &Function) -> String {
    fc.arguments.0.map(lax::text_of).unwrap_or_default()
}

/// The legacy `function_call` of `name` that a `function` message after `history` answers:
/// the latest one before it not answered by a `function` message of that name in between, as
/// (its place, its `arguments` as written).
fn answered_call(history: &[&RawValue], name: &str) -> Option<(usize, String)> {
    let mut answered = 0usize;
    for (k, raw) in history.iter().enumerate().rev() {
        let m = serde_json::from_str::<Message>(raw.get()).unwrap_or_default();
        match m.role.get() {
            Some("function") if m.name.get() == Some(name) => answered += 1,
            Some("assistant") => {
                let Some(fc) = m
                    .function_call
                    .0
                    .as_ref()
                    .filter(|f| f.name.get() == Some(name))
                else {
                    continue;
                };
                if answered == 0 {
                    return Some((k, legacy_arguments(fc)));
                }
                answered -= 1;
            }
            _ => {}
        }
    }
    None
}

/// The JSON text of a `body`: an object's or an array's as written, a string's contents (a
/// body logged as JSON text); `None` for any other value.
fn inner_text(raw: &RawValue) -> Option<std::borrow::Cow<'_, str>> {
    let text = raw.get();
    if text.starts_with('{') || text.starts_with('[') {
        return Some(text.into());
    }
    serde_json::from_str::<Str>(text).ok()?.0
}

/// Whether a text is JSON lines: its first line that is not blank is a JSON object of its own,
/// and more follows it (a text that is one JSON document is never both).
fn is_lines(text: &str) -> bool {
    let json_space = [' ', '\t', '\n', '\r'];
    let mut rest = text;
    loop {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        if !line.trim().is_empty() {
            return !after.trim_matches(json_space).is_empty()
                && line.trim_start().starts_with('{')
                && serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok();
        }
        if after.is_empty() {
            return false;
        }
        rest = after;
    }
}

/// The `http(s)://` URLs in a text, each up to a space, a quote, a bracket or `<`/`>`, without
/// a trailing `.`, `,`, `;` or `:`.
fn urls_in(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        let at = rest.find("http")?;
        let from = &rest[at..];
        if !(from.starts_with("https://") || from.starts_with("http://")) {
            rest = &from[4..];
            continue;
        }
        let end = from
            .find(|c: char| c.is_whitespace() || "\"'<>()[]{}\\`".contains(c))
            .unwrap_or(from.len());
        rest = &from[end..];
        let url = from[..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
        if url.len() > "https://".len() {
            return Some(url);
        }
    })
}

/// The responses a stream of chunks makes, in order: chunks of one `id` are joined (each
/// choice's `delta` content appended, tool calls by `index`, their `arguments` appended, a
/// legacy `function_call`'s `name` and `arguments` appended, annotations gathered; `created`,
/// `model` and `usage` kept), each with the line of its first chunk and a problem when the
/// stream ends before a `finish_reason`.
fn join_chunks(chunks: Vec<(u64, Value)>) -> Vec<(u64, Value, Option<String>)> {
    let mut out = Vec::new();
    join_chunks_each(chunks, &mut |line, v, problem| out.push((line, v, problem)));
    out
}

/// [`join_chunks`], each response given to `out` as soon as it is complete, and each chunk
/// dropped once joined: a long stream holds neither all its chunks nor all its responses.
fn join_chunks_each(
    chunks: impl IntoIterator<Item = (u64, Value)>,
    out: &mut dyn FnMut(u64, Value, Option<String>),
) {
    #[derive(Default)]
    struct Open {
        line: u64,
        id: Option<String>,
        head: Map<String, Value>,
        role: Option<String>,
        content: String,
        refusal: String,
        tool_calls: std::collections::BTreeMap<u64, Value>,
        /// A legacy `function_call`: its `name` and `arguments` pieces appended.
        function_call: Option<(String, String)>,
        annotations: Vec<Value>,
        finish: Option<Value>,
    }
    fn close(o: Open, out: &mut dyn FnMut(u64, Value, Option<String>)) {
        let mut message = Map::new();
        message.insert(
            "role".into(),
            Value::String(o.role.unwrap_or_else(|| "assistant".into())),
        );
        message.insert(
            "content".into(),
            if o.content.is_empty() {
                Value::Null
            } else {
                Value::String(o.content)
            },
        );
        if !o.refusal.is_empty() {
            message.insert("refusal".into(), Value::String(o.refusal));
        }
        if !o.tool_calls.is_empty() {
            message.insert(
                "tool_calls".into(),
                Value::Array(o.tool_calls.into_values().collect()),
            );
        }
        if let Some((name, arguments)) = o.function_call {
            message.insert(
                "function_call".into(),
                serde_json::json!({"name": name, "arguments": arguments}),
            );
        }
        if !o.annotations.is_empty() {
            message.insert("annotations".into(), Value::Array(o.annotations));
        }
        let problem = o.finish.is_none().then(|| {
            "the stream ends before a chunk with a `finish_reason`: the response is read as far as it came".to_owned()
        });
        let mut r = o.head;
        r.insert("object".into(), Value::String("chat.completion".into()));
        r.insert(
            "choices".into(),
            serde_json::json!([{"index": 0, "message": message, "finish_reason": o.finish.unwrap_or(Value::Null)}]),
        );
        out(o.line, Value::Object(r), problem);
    }
    let mut open: Option<Open> = None;
    for (line, c) in chunks {
        let id = s(&c, "id").map(str::to_owned);
        if open.as_ref().is_some_and(|o| {
            o.id != id || (o.finish.is_some() && !util::arr(&c, "choices").is_empty())
        }) {
            if let Some(o) = open.take() {
                close(o, out);
            }
        }
        let o = open.get_or_insert_with(|| Open {
            line,
            id: id.clone(),
            ..Open::default()
        });
        for key in [
            "id",
            "created",
            "model",
            "system_fingerprint",
            "service_tier",
            "usage",
        ] {
            if let Some(v) = c.get(key).filter(|v| !v.is_null()) {
                o.head.insert(key.into(), v.clone());
            }
        }
        // Only the first choice is read (as in a whole response).
        let Some(choice) = util::arr(&c, "choices")
            .iter()
            .find(|ch| ch.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        else {
            continue;
        };
        if let Some(f) = choice.get("finish_reason").filter(|f| !f.is_null()) {
            o.finish = Some(f.clone());
        }
        let Some(d) = choice.get("delta") else {
            continue;
        };
        if let Some(r) = s(d, "role") {
            o.role = Some(r.to_owned());
        }
        if let Some(t) = s(d, "content") {
            o.content.push_str(t);
        }
        if let Some(t) = s(d, "refusal") {
            o.refusal.push_str(t);
        }
        o.annotations
            .extend(util::arr(d, "annotations").iter().cloned());
        if let Some(f) = d.get("function_call").filter(|f| f.is_object()) {
            let (name, arguments) = o.function_call.get_or_insert_with(Default::default);
            if let Some(n) = s(f, "name") {
                name.push_str(n);
            }
            if let Some(a) = s(f, "arguments") {
                arguments.push_str(a);
            }
        }
        for tc in util::arr(d, "tool_calls") {
            let i = tc.get("index").and_then(Value::as_u64).unwrap_or(0);
            let entry = o
                .tool_calls
                .entry(i)
                .or_insert_with(|| serde_json::json!({"type": "function", "function": {"name": "", "arguments": ""}}));
            for key in ["id", "type"] {
                if let Some(v) = tc.get(key).filter(|v| v.is_string()) {
                    entry[key] = v.clone();
                }
            }
            if let Some(f) = tc.get("function") {
                // Appended in place: a call's arguments may come in thousands of pieces.
                for key in ["name", "arguments"] {
                    if let Some(piece) = s(f, key) {
                        let field = &mut entry["function"][key];
                        match field {
                            Value::String(t) => t.push_str(piece),
                            _ => *field = Value::String(piece.to_owned()),
                        }
                    }
                }
            }
        }
    }
    if let Some(o) = open.take() {
        close(o, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_found_in_text_and_json() {
        let t = r#"{"url": "https://a.example/x?q=1", "b": "see https://b.example/y. and (https://c.example/z)"} http://"#;
        let got: Vec<&str> = urls_in(t).collect();
        assert_eq!(
            got,
            [
                "https://a.example/x?q=1",
                "https://b.example/y",
                "https://c.example/z"
            ]
        );
        assert_eq!(urls_in("no links, httpx").count(), 0);
    }

    /// Each response is given out as soon as the stream moves on to the next one (its first
    /// chunk), before the rest of the next one is read; a call's arguments in many pieces are
    /// joined in order.
    #[test]
    fn joined_responses_are_given_out_before_the_next_chunks_are_read() {
        let log = std::cell::RefCell::new(Vec::new());
        let chunk = |id: &str, delta: Value, finish: Option<&str>| serde_json::json!({"id": id, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        let mut chunks = vec![(
            1,
            chunk(
                "a",
                serde_json::json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}]}),
                None,
            ),
        )];
        let pieces: Vec<String> = (0..3000).map(|i| format!("{i},")).collect();
        for (k, p) in pieces.iter().enumerate() {
            let d = serde_json::json!({"tool_calls": [{"index": 0, "function": {"arguments": p}}]});
            chunks.push((k as u64 + 2, chunk("a", d, None)));
        }
        chunks.push((5000, chunk("a", serde_json::json!({}), Some("tool_calls"))));
        chunks.push((5001, chunk("b", serde_json::json!({"content": "ne"}), None)));
        chunks.push((
            5002,
            chunk("b", serde_json::json!({"content": "xt"}), Some("stop")),
        ));
        let mut got = Vec::new();
        join_chunks_each(
            chunks
                .into_iter()
                .inspect(|(l, _)| log.borrow_mut().push(format!("chunk {l}"))),
            &mut |line, v, _| {
                log.borrow_mut().push(format!("response {line}"));
                got.push(v);
            },
        );
        let log = log.into_inner();
        let at = |s: &str| log.iter().position(|x| x == s).unwrap();
        assert!(
            at("chunk 5001") < at("response 1") && at("response 1") < at("chunk 5002"),
            "{:?}",
            &log[log.len() - 4..]
        );
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            pieces.concat()
        );
    }

    #[test]
    fn chunks_join_into_a_response() {
        let c = |v: Value| (1, v);
        let chunks = vec![
            c(
                serde_json::json!({"id": "a", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
            ),
            c(
                serde_json::json!({"id": "a", "choices": [{"index": 0, "delta": {"content": "lo", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"x\""}}]}}]}),
            ),
            c(
                serde_json::json!({"id": "a", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}, "finish_reason": "stop"}]}),
            ),
            c(
                serde_json::json!({"id": "b", "choices": [{"index": 0, "delta": {"content": "cut"}}]}),
            ),
        ];
        let out = join_chunks(chunks);
        assert_eq!(out.len(), 2);
        let m = &out[0].1["choices"][0]["message"];
        assert_eq!(m["content"], "Hello");
        assert_eq!(m["tool_calls"][0]["id"], "call_1");
        assert_eq!(m["tool_calls"][0]["function"]["arguments"], "{\"x\": 1}");
        assert_eq!(out[0].1["object"], "chat.completion");
        assert!(out[0].2.is_none() && out[1].2.is_some());
    }
}
