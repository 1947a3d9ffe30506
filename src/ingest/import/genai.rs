//! Trace spans (OTLP, Langfuse observations) to a session, by the OpenTelemetry GenAI and MCP
//! semantic conventions and the attribute sets older emitters use (Vercel AI SDK `ai.toolCall.*`,
//! pydantic-ai `tool_arguments`/`tool_response`, OpenInference `input.value`/`output.value`,
//! OpenLLMetry's `traceloop.entity.*` tool spans, and the messages OpenLLMetry and OpenInference
//! write one attribute a value, by index: `gen_ai.completion.0.content`,
//! `llm.output_messages.0.message.content`).
//!
//! Calls are counted from tool spans, never from chat history (chat spans repeat the whole
//! conversation in their input messages); a tool span inside another tool span (the MCP client
//! and server spans of one call, or a framework's `execute_tool` around its MCP client span) is
//! the same call. Tool calls that only appear in a chat span's *output* (no tool span was
//! recorded) are calls too, once per id; their results come from later `tool_call_response`
//! parts.

use super::blocks::mcp_name;
use super::build::{text_block, Builder, Loc, NewCall, NewResult};
use super::lax::Key;
use super::util::{self, s};
use crate::model::{DiagLevel, Session, SubSession, Timestamp};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Declares the attributes the importer reads: [`known_key`] matches a key against them (a
/// `match` on the text: every attribute of every span of a trace file is looked up).
macro_rules! known_keys {
    ($($k:literal),* $(,)?) => {
        /// Every attribute the importer reads; spans keep only these.
        #[cfg(test)]
        const KEYS: &[&str] = &[$($k),*];

        /// The static name of `key` when it is one the importer reads.
        fn known_key(key: &str) -> Option<&'static str> {
            match key {
                $($k => Some($k),)*
                _ => None,
            }
        }
    };
}

known_keys!(
    "gen_ai.operation.name",
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.conversation.id",
    "gen_ai.agent.name",
    "gen_ai.request.model",
    "mcp.method.name",
    "mcp.session.id",
    "mcp.server.name",
    "jsonrpc.request.id",
    "server.address",
    "error.type",
    "otel.status_code",
    "ai.toolCall.name",
    "ai.toolCall.id",
    "ai.toolCall.args",
    "ai.toolCall.result",
    "ai.prompt.messages",
    "ai.response.text",
    "tool_arguments",
    "tool_response",
    "input.value",
    "output.value",
    "tool.name",
    "openinference.span.kind",
    "traceloop.span.kind",
    "traceloop.entity.name",
    "traceloop.entity.input",
    "traceloop.entity.output",
);

/// Message attributes written one value a key, by index: OpenLLMetry's `gen_ai.prompt.0.role`,
/// `gen_ai.completion.0.tool_calls.1.arguments`, OpenInference's
/// `llm.output_messages.0.message.content`. Each family is gathered under its own name as the
/// messages it spells out ([`Attrs::set`], read back by [`indexed_messages`]).
const INDEXED: [&str; 4] = [
    "gen_ai.prompt",
    "gen_ai.completion",
    "llm.input_messages",
    "llm.output_messages",
];

/// At most this many parts in an indexed key after its family (`0.tool_calls.1.arguments` has
/// four): a longer key is no message attribute, and never nests values deeply.
const INDEXED_DEPTH: usize = 8;

/// The family of an indexed message attribute, and the rest of its key (which starts with the
/// message's index).
fn indexed(key: &str) -> Option<(&'static str, &str)> {
    // Every family starts `gen_ai.` or `llm.`: other keys are told apart by their first byte.
    if !key.starts_with(['g', 'l']) {
        return None;
    }
    INDEXED.iter().find_map(|f| {
        let rest = key.strip_prefix(f)?.strip_prefix('.')?;
        rest.starts_with(|c: char| c.is_ascii_digit())
            .then_some((*f, rest))
    })
}

/// A span's attributes: the ones the importer reads, keyed by static names (a trace export
/// holds many spans; their other attributes are dropped as they are read), and whether an
/// indexed message family is among them (most spans have none, and need not look for one).
#[derive(Debug, Default)]
pub struct Attrs(Vec<(&'static str, Value)>, bool);

impl Attrs {
    /// The known name for `key` (trimmed: some emitters pad attribute keys), if it is read:
    /// an indexed message attribute's is its family's.
    pub fn known(key: &str) -> Option<&'static str> {
        let key = key.trim();
        known_key(key).or_else(|| indexed(key).map(|(f, _)| f))
    }

    /// Sets an attribute the importer reads; a second value for a key is ignored. An indexed
    /// message attribute is put at its place in its family's messages.
    pub fn set(&mut self, key: &str, v: Value) {
        let key = key.trim();
        if let Some(k) = known_key(key) {
            if self.get(k).is_none() {
                self.0.push((k, v));
            }
        } else if let Some((family, rest)) = indexed(key) {
            self.set_indexed(family, rest, v);
        }
    }

    /// Puts `v` at `rest` (`0.tool_calls.1.arguments`) in the family's messages, kept as
    /// objects keyed by the parts of the key (indexes too, turned into lists when read). The
    /// wrappers OpenInference writes (`0.message.content`, `tool_calls.0.tool_call.id`,
    /// `contents.0.message_content.text`) are left out.
    fn set_indexed(&mut self, family: &'static str, rest: &str, v: Value) {
        let mut parts: Vec<&str> = Vec::with_capacity(INDEXED_DEPTH);
        for (i, p) in rest.split('.').enumerate() {
            let after_index = parts
                .last()
                .is_some_and(|x| x.starts_with(|c: char| c.is_ascii_digit()));
            let wrapper = (i == 1 && p == "message")
                || (after_index && i > 1 && matches!(p, "tool_call" | "message_content"));
            if wrapper {
                continue;
            }
            if p.is_empty() || parts.len() == INDEXED_DEPTH {
                return;
            }
            parts.push(p);
        }
        let Some((last, path)) = parts.split_last() else {
            return;
        };
        let at = match self.0.iter().position(|(k, _)| *k == family) {
            Some(at) => at,
            None => {
                self.0.push((family, Value::Object(serde_json::Map::new())));
                self.1 = true;
                self.0.len() - 1
            }
        };
        let mut node = &mut self.0[at].1;
        for p in path {
            let Value::Object(o) = node else { return };
            node = o
                .entry(*p)
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
        }
        if let Value::Object(o) = node {
            o.entry(*last).or_insert(v);
        }
    }

    /// Adds the attributes of `other` that are not set yet (an indexed family's values are
    /// added where this one has none).
    pub fn merge(&mut self, other: Attrs) {
        for (k, v) in other.0 {
            if !INDEXED.contains(&k) {
                self.set(k, v);
                continue;
            }
            match self.get_mut(k) {
                Some(mine) => merge_missing(mine, v),
                None => {
                    self.0.push((k, v));
                    self.1 = true;
                }
            }
        }
    }

    /// True when some indexed message family was set.
    fn has_indexed(&self) -> bool {
        self.1
    }

    /// The value of an attribute.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The value of an attribute, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.0.iter_mut().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// True when the attribute is set.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Drops the room left by pushing (a span holds about ten attributes in room for 16).
    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

/// Adds to `into` the members of `from` it lacks, at every depth (two spans' indexed messages).
fn merge_missing(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        for (k, v) in b {
            match a.get_mut(&k) {
                Some(mine) => merge_missing(mine, v),
                None => {
                    a.insert(k, v);
                }
            }
        }
    }
}

/// The messages an indexed family spells out, as a list in index order: every object whose
/// keys are all indexes becomes a list (in their numeric order; keys past `u32` are dropped),
/// and OpenInference's `contents` parts are the message's `content`.
fn indexed_messages(v: &Value) -> Value {
    match v {
        Value::Object(o)
            if !o.is_empty() && o.keys().all(|k| k.bytes().all(|c| c.is_ascii_digit())) =>
        {
            let mut items: Vec<(u32, &Value)> = o
                .iter()
                .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
                .collect();
            items.sort_by_key(|(i, _)| *i);
            Value::Array(
                items
                    .into_iter()
                    .map(|(_, v)| indexed_messages(v))
                    .collect(),
            )
        }
        Value::Object(o) => {
            let mut out = serde_json::Map::new();
            for (k, v) in o {
                let k = if k == "contents" && !o.contains_key("content") {
                    "content"
                } else {
                    k.as_str()
                };
                out.insert(k.to_owned(), indexed_messages(v));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Reads the attributes the importer uses from a JSON object (a Langfuse observation's
/// `metadata.attributes`), as iterating the object's `Value` did: the last of duplicate keys
/// wins, keys in order of first appearance, other values skipped unread; a non-object has none.
impl<'de> Deserialize<'de> for Attrs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Attrs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Attrs, A::Error> {
                let mut read: Vec<(String, Value)> = Vec::new();
                while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                    if Attrs::known(&k).is_none() {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    let v: Value = map.next_value()?;
                    match read.iter_mut().find(|(x, _)| *x == k) {
                        Some(slot) => slot.1 = v,
                        None => read.push((k.into_owned(), v)),
                    }
                }
                let mut attrs = Attrs::default();
                for (k, v) in read {
                    attrs.set(&k, v);
                }
                Ok(attrs)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Attrs, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Attrs::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Attrs, E> {
                Ok(Attrs::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Attrs, E> {
                Ok(Attrs::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Attrs, E> {
                Ok(Attrs::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Attrs, E> {
                Ok(Attrs::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Attrs, E> {
                Ok(Attrs::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Attrs, E> {
                Ok(Attrs::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// One span, from whichever source.
#[derive(Debug, Default)]
pub struct SpanRec {
    /// Trace id.
    pub trace_id: String,
    /// Span id.
    pub span_id: String,
    /// Parent span id.
    pub parent_id: Option<String>,
    /// Span name.
    pub name: String,
    /// `client`, `server`, `internal`, ... (lowercase), when known.
    pub kind: String,
    /// Start time.
    pub start: Option<Timestamp>,
    /// End time.
    pub end: Option<Timestamp>,
    /// The attributes the importer reads, as JSON values.
    pub attrs: Attrs,
    /// Langfuse observation type (`TOOL`, `GENERATION`, `SPAN`, `AGENT`), if any.
    pub obs_type: Option<String>,
    /// Langfuse observation input, if any.
    pub input: Option<Value>,
    /// Langfuse observation output, if any.
    pub output: Option<Value>,
    /// Line in the source (JSON Lines exports), else 0.
    pub line: u64,
    /// JSON path of the span in its document.
    pub path: String,
    /// A chat span's input messages, read once by [`SpanRec::read_messages`].
    pub ins: Option<Vec<Msg>>,
    /// A chat span's output messages (or answer text), read once.
    pub outs: Option<Vec<Msg>>,
    /// The output is `ai.response.text`, which is no source of requested tool calls.
    pub outs_are_response_text: bool,
    /// The messages have been read.
    pub read: bool,
}

impl SpanRec {
    /// Where the span is in its source: its line, and its JSON path in a document.
    fn loc(&self) -> Loc {
        if self.path.is_empty() {
            self.line.into()
        } else {
            Loc::path(self.line, &self.path)
        }
    }

    fn attr_str(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).and_then(Value::as_str)
    }

    fn op(&self) -> Option<&str> {
        self.attr_str("gen_ai.operation.name")
    }

    /// Reads a chat span's input and output messages once, from whichever attribute or field
    /// holds them, and releases the message attributes (only their presence counts after this).
    /// With `compact`, OTel input messages (`gen_ai.input.messages`, which repeat the whole
    /// history) keep only what `build` reads: the last user message and the tool responses.
    pub fn read_messages(&mut self, compact: bool) {
        if self.read {
            return;
        }
        self.read = true;
        if self.is_chat() {
            // Indexed messages, spelled out only where no whole-message attribute comes first.
            let listed = |first: Option<&Value>, family: [&str; 2]| match first {
                Some(_) => None,
                None if !self.attrs.has_indexed() => None,
                None => family
                    .iter()
                    .find_map(|f| self.attrs.get(f))
                    .map(indexed_messages),
            };
            let semconv = self.attrs.get("gen_ai.input.messages");
            let whole_in = semconv
                .or_else(|| self.attrs.get("ai.prompt.messages"))
                .or(self.input.as_ref());
            let listed_in = listed(whole_in, ["gen_ai.prompt", "llm.input_messages"]);
            let input = whole_in
                .or(listed_in.as_ref())
                .or_else(|| self.attrs.get("input.value"));
            self.ins = input.map(|v| {
                let m = messages(v);
                if compact && semconv.is_some() {
                    compact_input(m)
                } else {
                    m
                }
            });
            let whole_out = self
                .attrs
                .get("gen_ai.output.messages")
                .or(self.output.as_ref());
            let listed_out = listed(whole_out, ["gen_ai.completion", "llm.output_messages"]);
            let output = whole_out
                .or(listed_out.as_ref())
                .or_else(|| self.attrs.get("output.value"));
            self.outs_are_response_text = output.is_none();
            self.outs = output
                .or_else(|| self.attrs.get("ai.response.text"))
                .map(messages);
            if compact {
                shrink_msgs(&mut self.ins);
                shrink_msgs(&mut self.outs);
            }
        }
        let families = if self.attrs.has_indexed() {
            &INDEXED[..]
        } else {
            &[]
        };
        for k in [
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "ai.prompt.messages",
            "ai.response.text",
        ]
        .iter()
        .chain(families)
        {
            if let Some(v) = self.attrs.get_mut(k) {
                *v = Value::Null;
            }
        }
    }

    /// True for the server side of an MCP call (its client span is the call).
    pub fn is_mcp_server(&self) -> bool {
        self.kind == "server" && self.attr_str("mcp.method.name").is_some()
    }

    /// True for a span that executes one tool call.
    pub fn is_tool(&self) -> bool {
        self.op() == Some("execute_tool")
            || self.attr_str("mcp.method.name") == Some("tools/call")
            || self.obs_type.as_deref() == Some("TOOL")
            || self.attrs.contains_key("ai.toolCall.name")
            || self.attrs.contains_key("tool_arguments")
            || self.attr_str("openinference.span.kind") == Some("TOOL")
            || self.attr_str("traceloop.span.kind") == Some("tool")
    }

    /// True for a span that runs an agent: the GenAI conventions' `invoke_agent` and
    /// `create_agent`, a Langfuse `AGENT` observation, OpenInference's `AGENT` and
    /// OpenLLMetry's `agent` span kinds.
    pub fn is_agent_run(&self) -> bool {
        matches!(self.op(), Some("invoke_agent" | "create_agent"))
            || self.obs_type.as_deref() == Some("AGENT")
            || self.attr_str("openinference.span.kind") == Some("AGENT")
            || self.attr_str("traceloop.span.kind") == Some("agent")
    }

    /// True for a span that calls a model.
    pub fn is_chat(&self) -> bool {
        matches!(
            self.op(),
            Some("chat" | "text_completion" | "generate_content")
        ) || self.obs_type.as_deref() == Some("GENERATION")
            || self.attrs.contains_key("gen_ai.input.messages")
            || self.attrs.contains_key("gen_ai.output.messages")
            || self.attr_str("openinference.span.kind") == Some("LLM")
            || self.attrs.contains_key("gen_ai.prompt")
            || self.attrs.contains_key("gen_ai.completion")
            || self.name.ends_with(".doGenerate")
    }
}

/// A normalized chat message.
#[derive(Debug, Default)]
pub struct Msg {
    role: String,
    texts: Vec<String>,
    calls: Vec<(String, String, Option<Value>)>,
    results: Vec<(String, Value)>,
}

impl Msg {
    /// Drops the room left by pushing (a first push reserves four).
    fn shrink_to_fit(&mut self) {
        self.texts.shrink_to_fit();
        self.calls.shrink_to_fit();
        self.results.shrink_to_fit();
    }
}

/// Sizes kept messages exactly: every chat span of a trace file is kept until the file is
/// read, and a list of one message collected from an array has room for four.
fn shrink_msgs(msgs: &mut Option<Vec<Msg>>) {
    if let Some(m) = msgs {
        m.shrink_to_fit();
        m.iter_mut().for_each(Msg::shrink_to_fit);
    }
}

/// Parses a JSON value that may be JSON written as a string (attributes and Langfuse
/// inputs often are).
pub fn unstring(v: &Value) -> Value {
    if let Value::String(t) = v {
        let tt = t.trim_start();
        if tt.starts_with('{') || tt.starts_with('[') {
            if let Ok(p) = serde_json::from_str::<Value>(t) {
                return p;
            }
        }
    }
    v.clone()
}

/// [`unstring`] of an owned value (nothing copied when it is not JSON text).
pub fn unstring_owned(v: Value) -> Value {
    match v {
        Value::String(ref t) if t.trim_start().starts_with(['{', '[']) => {
            serde_json::from_str::<Value>(t).unwrap_or(v)
        }
        other => other,
    }
}

/// Messages from any of the shapes chat spans carry.
fn messages(v: &Value) -> Vec<Msg> {
    let v = unstring(v);
    match &v {
        Value::Array(items) => items.iter().filter_map(message).collect(),
        Value::Object(o) if s(&v, "object") == Some("response") => {
            // An OpenAI Responses object as a span's output.
            let mut m = Msg {
                role: "assistant".into(),
                ..Msg::default()
            };
            for item in util::arr(&v, "output") {
                match s(item, "type") {
                    Some("message") => {
                        for p in util::arr(item, "content") {
                            if let Some(t) = s(p, "text") {
                                m.texts.push(t.to_owned());
                            }
                        }
                    }
                    Some("function_call") => m.calls.push((
                        s(item, "call_id").unwrap_or("").to_owned(),
                        s(item, "name").unwrap_or("").to_owned(),
                        item.get("arguments").cloned(),
                    )),
                    _ => {}
                }
            }
            let _ = o;
            vec![m]
        }
        Value::Object(o) if o.contains_key("messages") => {
            o.get("messages").map(messages).unwrap_or_default()
        }
        Value::Object(_) => message(&v).into_iter().collect(),
        Value::String(t) => vec![Msg {
            role: String::new(),
            texts: vec![t.clone()],
            ..Msg::default()
        }],
        _ => Vec::new(),
    }
}

fn message(v: &Value) -> Option<Msg> {
    let mut m = Msg {
        role: s(v, "role").unwrap_or("").to_owned(),
        ..Msg::default()
    };
    match s(v, "type") {
        Some("function_call") => {
            m.role = "assistant".into();
            m.calls.push((
                s(v, "call_id").unwrap_or("").to_owned(),
                s(v, "name").unwrap_or("").to_owned(),
                v.get("arguments").cloned(),
            ));
            return Some(m);
        }
        Some("function_call_output") => {
            m.role = "tool".into();
            m.results.push((
                s(v, "call_id").unwrap_or("").to_owned(),
                v.get("output").cloned().unwrap_or(Value::Null),
            ));
            return Some(m);
        }
        _ => {}
    }
    // OTel semconv parts.
    for p in util::arr(v, "parts") {
        part(&mut m, p);
    }
    match v.get("content") {
        Some(Value::String(t)) if m.role == "tool" => {
            let id = s(v, "tool_call_id").unwrap_or("").to_owned();
            m.results.push((id, Value::String(t.clone())));
        }
        Some(Value::String(t)) => m.texts.push(t.clone()),
        Some(Value::Array(items)) => {
            for p in items {
                part(&mut m, p);
            }
        }
        _ => {}
    }
    // OpenAI chat `tool_calls`.
    for tc in util::arr(v, "tool_calls") {
        let f = tc.get("function").unwrap_or(tc);
        m.calls.push((
            s(tc, "id").unwrap_or("").to_owned(),
            s(f, "name").unwrap_or("").to_owned(),
            f.get("arguments").cloned(),
        ));
    }
    Some(m)
}

fn part(m: &mut Msg, p: &Value) {
    match s(p, "type") {
        Some("text") => {
            if let Some(t) = s(p, "content").or_else(|| s(p, "text")) {
                m.texts.push(t.to_owned());
            }
        }
        Some("tool_call") | Some("tool_use") => m.calls.push((
            s(p, "id").unwrap_or("").to_owned(),
            s(p, "name").unwrap_or("").to_owned(),
            p.get("arguments").or_else(|| p.get("input")).cloned(),
        )),
        // The schema says `response`; the semconv examples once wrote `result`.
        Some("tool_call_response") | Some("tool_result") => m.results.push((
            s(p, "id")
                .or_else(|| s(p, "tool_use_id"))
                .unwrap_or("")
                .to_owned(),
            p.get("response")
                .or_else(|| p.get("result"))
                .or_else(|| p.get("content"))
                .cloned()
                .unwrap_or(Value::Null),
        )),
        _ => {
            if let Value::String(t) = p {
                m.texts.push(t.clone());
            }
        }
    }
}

/// Shrinks a chat span's input messages to what `build` reads (the last user message with
/// text and the tool responses), so a large trace export keeps little of its repeated history.
fn compact_input(msgs: Vec<Msg>) -> Vec<Msg> {
    if msgs.len() <= 1 {
        return msgs;
    }
    // The last message's role decides whether a span starts a turn: the user message goes last
    // when it was last, else first.
    let user_last = msgs.last().is_some_and(|m| m.role == "user");
    let user = msgs
        .iter()
        .rposition(|m| m.role == "user" && !m.texts.is_empty());
    let mut out = Vec::new();
    let mut user_msg = None;
    for (i, m) in msgs.into_iter().enumerate() {
        if Some(i) == user {
            user_msg = Some(Msg {
                role: "user".into(),
                texts: m.texts,
                ..Msg::default()
            });
        }
        for r in m.results {
            out.push(Msg {
                role: "tool".into(),
                results: vec![r],
                ..Msg::default()
            });
        }
    }
    if let Some(u) = user_msg {
        if user_last {
            out.push(u);
        } else {
            out.insert(0, u);
        }
    }
    out
}

/// Ids in some emitters' output carry stray whitespace (` call_...`): match them trimmed.
fn norm_id(id: &str) -> String {
    id.trim().to_owned()
}

/// Sub-agents nested deeper than this are not cut out (they stay in the session of the agent
/// at this depth): a trace of agents nested without end never recurses without end.
const MAX_SUB_DEPTH: usize = 16;

/// At most this many steps up a chain of parent ids (a cyclic or absurdly deep chain stops
/// there: its spans are not split).
const MAX_HOPS: usize = 256;

/// Builds the turns, calls, results and answers of one conversation from its spans (in any
/// order; they are sorted by start time here), and returns the sessions of the agents its tool
/// calls ran (see [`sub_agent_scopes`]), each already linked from its call in `b`, nested
/// sub-agents after the sub-agent that ran them.
pub fn build(b: &mut Builder, spans: Vec<SpanRec>) -> Vec<Session> {
    let mut out = Vec::new();
    build_at(b, spans, 0, &mut out);
    out
}

/// [`build`] at `depth` sub-agents below the conversation given, the sub-agents' sessions put
/// in `out`.
fn build_at(b: &mut Builder, mut spans: Vec<SpanRec>, depth: usize, out: &mut Vec<Session>) {
    spans.sort_by_key(|s| (s.start, s.line));
    for sp in spans.iter_mut() {
        sp.read_messages(false);
    }
    let parent = parents(&spans);
    let scopes = if depth < MAX_SUB_DEPTH {
        sub_agent_scopes(&spans, &parent)
    } else {
        None
    };
    let Some(scopes) = scopes else {
        build_one(b, &spans, &parent, &mut []);
        return;
    };
    // The conversation's own spans, and each sub-agent's (by its call span), in start order.
    let mut main: Vec<SpanRec> = Vec::new();
    let mut main_at = vec![usize::MAX; spans.len()];
    let mut subs: Vec<(usize, Vec<SpanRec>)> = Vec::new();
    let mut sub_of: HashMap<usize, usize> = HashMap::default();
    for (i, sp) in spans.into_iter().enumerate() {
        match scopes[i] {
            None => {
                main_at[i] = main.len();
                main.push(sp);
            }
            Some(c) => {
                let k = *sub_of.entry(c).or_insert_with(|| {
                    subs.push((c, Vec::new()));
                    subs.len() - 1
                });
                subs[k].1.push(sp);
            }
        }
    }
    // The conversation's agent and model are its own spans', not a sub-agent's.
    if let Some(a) = main.iter().find_map(|s| s.attr_str("gen_ai.agent.name")) {
        b.agent(a);
    }
    if let Some(m) = main.iter().find_map(|s| s.attr_str("gen_ai.request.model")) {
        b.model(m);
    }
    // The call ids the calls that ran sub-agents get, by their place in `main`.
    let mut want: Vec<(usize, Option<String>)> =
        subs.iter().map(|(c, _)| (main_at[*c], None)).collect();
    want.sort_unstable_by_key(|(i, _)| *i);
    let main_parent = parents(&main);
    build_one(b, &main, &main_parent, &mut want);
    let parent_id = b
        .session_id_so_far()
        .unwrap_or_else(|| b.session_name().to_owned());
    let mut used: HashSet<String> = HashSet::default();
    for (c, sub_spans) in subs {
        let call = &main[main_at[c]];
        let call_id = want
            .binary_search_by_key(&main_at[c], |(i, _)| *i)
            .ok()
            .and_then(|k| want[k].1.clone())
            .unwrap_or_else(|| format!("span:{}", call.span_id));
        // Two tool spans of one call id (a span exported twice, a reused id) that both ran an
        // agent: the second's session gets an id of its own, and the call links the first.
        let mut key = call_id.clone();
        let mut n = 1;
        while used.contains(&key) {
            n += 1;
            key = format!("{call_id}#{n}");
        }
        used.insert(key.clone());
        let id = format!("{parent_id}/{key}");
        let mut sb = b.sibling(format!("{}/{key}", b.session_name()));
        sb.session_id(&id);
        let agent = sub_spans
            .iter()
            .find_map(|s| s.attr_str("gen_ai.agent.name"))
            .or_else(|| {
                sub_spans.iter().find(|s| s.is_agent_run()).map(|s| {
                    let n = s.name.as_str();
                    n.strip_prefix("invoke_agent ")
                        .or_else(|| n.strip_prefix("create_agent "))
                        .unwrap_or(n)
                })
            })
            .filter(|a| !a.trim().is_empty())
            .or(b.agent_so_far())
            .unwrap_or("otel")
            .to_owned();
        sb.agent(&agent);
        if let Some(m) = sub_spans
            .iter()
            .find_map(|s| s.attr_str("gen_ai.request.model"))
        {
            sb.model(m);
        }
        // The task the call gave is the sub-agent's user message when no model call of its
        // own recorded one.
        if !sub_spans.iter().any(|s| user_message(s).is_some()) {
            if let Some(args) = tool_args(call) {
                let task = util::text_of(&unstring(&args));
                if !task.trim().is_empty() {
                    sb.turn(&task, call.start, call.loc());
                }
            }
        }
        if n == 1 {
            b.link_sub_session(
                &call_id,
                SubSession {
                    id: id.clone(),
                    path: None,
                },
            );
        }
        let at = out.len();
        build_at(&mut sb, sub_spans, depth + 1, out);
        out.insert(at, sb.finish());
    }
}

/// Each span's parent, by its place in `spans` (the last span of a repeated id; none when the
/// parent id is missing or names no span here).
fn parents(spans: &[SpanRec]) -> Vec<Option<usize>> {
    let by_id: HashMap<&str, usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span_id.as_str(), i))
        .collect();
    spans
        .iter()
        .map(|s| s.parent_id.as_deref().and_then(|p| by_id.get(p).copied()))
        .collect()
}

/// What a span is to the cut of sub-agents out of a conversation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// It executes a tool call.
    Tool,
    /// It runs an agent or calls a model.
    Agent,
    /// Anything else (a framework's step, an HTTP request).
    Other,
}

/// The sub-agent each span belongs to, as the place of the tool span of the call that ran it
/// (the outermost such call: nested sub-agents are cut out of the sub-agent's own spans), or
/// `None` for the conversation's own spans; `None` altogether when no tool call ran an agent.
///
/// A tool span (`execute_tool`, a Langfuse `TOOL` observation, the older emitters' tool spans)
/// ran an agent when a span below it, with no other tool span between, runs an agent
/// (`invoke_agent`/`create_agent`, a Langfuse `AGENT` observation, OpenInference's and
/// OpenLLMetry's agent spans) or calls a model: that span and everything below it are the
/// sub-agent's. A tool span directly below a tool span is the same call (the MCP client and
/// server spans of one call). Parent ids that are missing or name no span end a chain; a chain
/// longer than [`MAX_HOPS`] (a cycle) splits nothing.
fn sub_agent_scopes(spans: &[SpanRec], parent: &[Option<usize>]) -> Option<Vec<Option<usize>>> {
    let mark: Vec<Mark> = spans
        .iter()
        .map(|s| {
            if s.is_tool() {
                Mark::Tool
            } else if s.is_agent_run() || s.is_chat() {
                Mark::Agent
            } else {
                Mark::Other
            }
        })
        .collect();
    // The nearest ancestor that is a tool or agent span.
    let marked_parent = |i: usize| -> Option<usize> {
        let mut cur = parent[i];
        for _ in 0..MAX_HOPS {
            let p = cur?;
            if mark[p] != Mark::Other {
                return Some(p);
            }
            cur = parent[p];
        }
        None
    };
    // Most conversations run no agent from a tool: nothing to cut.
    let cut = (0..spans.len())
        .any(|i| mark[i] == Mark::Agent && marked_parent(i).is_some_and(|p| mark[p] == Mark::Tool));
    if !cut {
        return None;
    }
    let up: Vec<Option<usize>> = (0..spans.len()).map(marked_parent).collect();
    // The call a tool span is part of: the outermost of the tool spans directly nested.
    let call_of = |t: usize| -> usize {
        let mut cur = t;
        for _ in 0..MAX_HOPS {
            match up[cur] {
                Some(p) if mark[p] == Mark::Tool && p != t => cur = p,
                _ => return cur,
            }
        }
        cur
    };
    let mut scopes: Vec<Option<usize>> = (0..spans.len())
        .map(|i| {
            let mut cur = i;
            let mut found = None;
            for _ in 0..MAX_HOPS {
                let Some(m) = up[cur] else {
                    return found;
                };
                if mark[m] == Mark::Tool {
                    let c = call_of(m);
                    if mark[cur] == Mark::Agent {
                        found = Some(c);
                    }
                    cur = c;
                } else {
                    cur = m;
                }
            }
            None
        })
        .collect();
    // What a sub-agent recorded: a model call or a tool call of its own. One that recorded
    // neither (an agent span alone) has nothing to open: it stays in the conversation.
    let with_content: HashSet<usize> = scopes
        .iter()
        .enumerate()
        .filter(|(i, _)| mark[*i] == Mark::Tool || spans[*i].is_chat())
        .filter_map(|(_, s)| *s)
        .collect();
    // A call span that is not the conversation's own (a chain cut short by the hop limit):
    // what it ran stays in the conversation too.
    let stray: HashSet<usize> = scopes
        .iter()
        .flatten()
        .copied()
        .filter(|&c| scopes[c].is_some() || !with_content.contains(&c))
        .collect();
    if !stray.is_empty() {
        for s in scopes.iter_mut() {
            if s.is_some_and(|c| stray.contains(&c)) {
                *s = None;
            }
        }
    }
    scopes.iter().any(Option::is_some).then_some(scopes)
}

/// The user message a model call span starts a turn with: the last user message with text,
/// when its input ends with a user message.
fn user_message(sp: &SpanRec) -> Option<String> {
    if !sp.is_chat() {
        return None;
    }
    let ins = sp.ins.as_deref().unwrap_or_default();
    let u = ins
        .iter()
        .rev()
        .find(|m| m.role == "user" && !m.texts.is_empty())?;
    ins.last()
        .is_some_and(|m| m.role == "user")
        .then(|| u.texts.join("\n"))
}

/// Builds one conversation's turns, calls, results and answers from its spans, sorted and read;
/// `parent` is each span's parent ([`parents`]). `want` lists (sorted) the places of tool spans
/// whose call id is asked for: each gets the id its call was recorded under.
fn build_one(
    b: &mut Builder,
    spans: &[SpanRec],
    parent: &[Option<usize>],
    want: &mut [(usize, Option<String>)],
) {
    // Up the chain of parents as `sub_agent_scopes` goes, bounded by the same limit.
    let tool_ancestor = |i: usize| -> bool {
        let mut cur = parent[i];
        for _ in 0..=MAX_HOPS {
            let Some(j) = cur else { break };
            if spans[j].is_tool() {
                return true;
            }
            cur = parent[j];
        }
        false
    };
    // The MCP server span of a call whose client span was not exported is still the call;
    // under a recorded client (or framework) tool span it is the same call.
    let skip: Vec<bool> = (0..spans.len())
        .map(|i| spans[i].is_tool() && tool_ancestor(i))
        .collect();
    let server_only = spans.iter().filter(|s| s.is_mcp_server()).count();
    if server_only > 0 && spans.iter().all(|s| !s.is_tool() || s.is_mcp_server()) {
        b.note("only MCP server spans were exported: each stands for its call");
    }
    // Tool spans without a call id take the id of the model's tool call with the same name (and
    // arguments), in order; once any tool span exists, calls come from tool spans only.
    let any_tool_span = spans
        .iter()
        .enumerate()
        .any(|(i, s)| s.is_tool() && !skip[i]);
    let mut requested: Vec<(String, String, Option<Value>)> = Vec::new();
    for sp in spans
        .iter()
        .filter(|s| s.is_chat() && !s.outs_are_response_text)
    {
        for m in sp.outs.iter().flatten() {
            for (id, name, args) in &m.calls {
                requested.push((norm_id(id), name.clone(), args.as_ref().map(unstring)));
            }
        }
    }
    let mut alias: HashMap<usize, String> = HashMap::default();
    // A requested call paired with a tool span is taken (its id moved out), not removed: a
    // removal moved every later request (quadratic in a trace of thousands of tool spans).
    // The search starts at the first one not taken, so the first untaken match still wins.
    let mut taken = vec![false; requested.len()];
    let mut first_untaken = 0;
    for (i, sp) in spans.iter().enumerate() {
        if skip[i] || !sp.is_tool() || tool_call_id(sp).is_some() {
            continue;
        }
        let name = tool_name(sp);
        let args = tool_args(sp).map(|a| unstring(&a));
        if let Some(pos) = (first_untaken..requested.len()).find(|&k| {
            let (_, n, a) = &requested[k];
            !taken[k] && *n == name && (a.is_none() || args.is_none() || *a == args)
        }) {
            taken[pos] = true;
            alias.insert(i, std::mem::take(&mut requested[pos].0));
            while first_untaken < taken.len() && taken[first_untaken] {
                first_untaken += 1;
            }
        }
    }
    let tool_ids: HashSet<String> = spans
        .iter()
        .filter(|s| s.is_tool())
        .filter_map(tool_call_id)
        .chain(alias.values().cloned())
        .collect();
    let mut user_seen: Option<String> = None;
    let mut history_calls: HashMap<String, (String, Option<Value>)> = HashMap::default();
    let mut no_content = 0usize;
    for (i, sp) in spans.iter().enumerate() {
        if skip[i] {
            continue;
        }
        if sp.is_tool() {
            let id = tool_span(b, sp, alias.get(&i).cloned(), &mut no_content);
            if let Ok(k) = want.binary_search_by_key(&i, |(at, _)| *at) {
                want[k].1 = Some(id);
            }
        } else if sp.is_chat() {
            if sp.ins.is_none() && sp.outs.is_none() {
                no_content += 1;
            }
            let ins = sp.ins.as_deref().unwrap_or_default();
            // A new user message starts a turn; the repeated history does not.
            if let Some(text) = user_message(sp) {
                if user_seen.as_deref() != Some(text.as_str()) {
                    b.turn(&text, sp.start, sp.loc());
                    user_seen = Some(text);
                }
            }
            // Results of calls that had no tool span, from the history.
            for m in ins {
                for (id, v) in &m.results {
                    let id = norm_id(id);
                    if history_calls.contains_key(&id) && !b.has_result(&id) {
                        b.result(NewResult {
                            call_id: id,
                            content: vec![text_block(util::text_of(v))],
                            at: sp.start,
                            line: sp.line,
                            json_path: sp.loc().path,
                            ..NewResult::default()
                        });
                    }
                }
            }
            for m in sp.outs.iter().flatten() {
                if !m.texts.is_empty() {
                    b.answer_text(&m.texts.join(""), "\n\n", sp.end.or(sp.start), sp.loc());
                }
                for (id, name, args) in &m.calls {
                    let id = norm_id(id);
                    if any_tool_span || id.is_empty() || tool_ids.contains(&id) || b.has_call(&id) {
                        continue;
                    }
                    let (server, tool) = split_tool(name, None);
                    let arguments = args.as_ref().and_then(|a| util::raw_args(a).ok());
                    history_calls.insert(id.clone(), (name.clone(), args.clone()));
                    b.call(NewCall {
                        id,
                        server,
                        tool,
                        arguments,
                        at: sp.end.or(sp.start),
                        line: sp.line,
                        json_path: sp.loc().path,
                        ..NewCall::default()
                    });
                }
            }
        }
    }
    if no_content > 0 {
        b.note(format!("{no_content} model call span{} without recorded messages (content capture off?): no user message or answer from {}", if no_content == 1 { "" } else { "s" }, if no_content == 1 { "it" } else { "them" }));
    }
}

fn tool_call_id(sp: &SpanRec) -> Option<String> {
    ["gen_ai.tool.call.id", "ai.toolCall.id"]
        .iter()
        .find_map(|k| sp.attr_str(k))
        .map(norm_id)
        .filter(|s| !s.is_empty())
}

/// Server and tool of a tool name: Claude's `mcp__<server>__<tool>`, an MCP span's server, or
/// the application.
fn split_tool(name: &str, mcp_server: Option<&str>) -> (String, String) {
    if let Some((server, tool)) = mcp_name(name) {
        return (server.into(), tool.into());
    }
    match mcp_server {
        Some(sv) => (sv.into(), name.into()),
        None => ("app".into(), name.into()),
    }
}

fn tool_name(sp: &SpanRec) -> String {
    [
        "gen_ai.tool.name",
        "ai.toolCall.name",
        "tool.name",
        "traceloop.entity.name",
    ]
    .iter()
    .find_map(|k| sp.attr_str(k))
    .map(str::to_owned)
    .unwrap_or_else(|| {
        let n = sp.name.as_str();
        n.strip_prefix("execute_tool ")
            .or_else(|| n.strip_prefix("tools/call "))
            .or_else(|| n.strip_prefix("running tool: "))
            .unwrap_or(n)
            .to_owned()
    })
}

fn tool_args(sp: &SpanRec) -> Option<Value> {
    [
        "gen_ai.tool.call.arguments",
        "ai.toolCall.args",
        "tool_arguments",
        "input.value",
    ]
    .iter()
    .find_map(|k| sp.attrs.get(k))
    .cloned()
    .or_else(|| sp.attrs.get("traceloop.entity.input").map(entity_input))
    .or_else(|| {
        sp.input.as_ref().map(|v| {
            // Langfuse wraps Claude Agent SDK tool inputs as {"input": {...}}.
            let v = unstring(v);
            match v.get("input") {
                Some(inner) if v.as_object().is_some_and(|o| o.len() == 1) => inner.clone(),
                _ => v,
            }
        })
    })
}

/// The arguments in OpenLLMetry's `traceloop.entity.input` of a tool span: its decorator
/// writes the Python call, `{"args": [...], "kwargs": {...}}` (the keyword arguments, when no
/// positional one was given); others write `{"name": ..., "arguments": {...}}`.
fn entity_input(v: &Value) -> Value {
    let v = unstring(v);
    let o = v.as_object();
    let no_args = |o: &serde_json::Map<String, Value>| {
        o.get("args")
            .is_none_or(|a| a.as_array().is_some_and(Vec::is_empty))
    };
    match o {
        Some(o) if o.len() <= 2 && o.contains_key("kwargs") && no_args(o) => o["kwargs"].clone(),
        Some(o)
            if o.len() <= 2
                && o.contains_key("arguments")
                && (o.len() == 1 || o.contains_key("name")) =>
        {
            unstring(&o["arguments"])
        }
        _ => v,
    }
}

/// Records a tool span's call and result; returns the call's id.
fn tool_span(
    b: &mut Builder,
    sp: &SpanRec,
    alias: Option<String>,
    no_content: &mut usize,
) -> String {
    let mcp = sp.attr_str("mcp.method.name") == Some("tools/call");
    let name = tool_name(sp);
    let rpc = sp.attr_str("jsonrpc.request.id").map(norm_id);
    let id = tool_call_id(sp)
        .or(alias)
        .or_else(|| {
            rpc.as_ref().map(|r| match sp.attr_str("mcp.session.id") {
                Some(sess) => format!("{r}@{sess}"),
                None => r.clone(),
            })
        })
        .unwrap_or_else(|| format!("span:{}", sp.span_id));
    if b.has_call(&id) {
        return id;
    }
    let server_name = if mcp {
        Some(
            sp.attr_str("server.address")
                .or_else(|| sp.attr_str("mcp.server.name"))
                .unwrap_or("mcp"),
        )
    } else {
        None
    };
    let (server, tool) = split_tool(&name, server_name);
    let args = tool_args(sp);
    let arguments = match args.as_ref().map(util::raw_args) {
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => {
            b.diag(sp.line, 0, &sp.path, DiagLevel::Warning, e);
            None
        }
        None => None,
    };
    let result = [
        "gen_ai.tool.call.result",
        "ai.toolCall.result",
        "tool_response",
        "output.value",
        "traceloop.entity.output",
    ]
    .iter()
    .find_map(|k| sp.attrs.get(k))
    .cloned()
    .or_else(|| sp.output.clone());
    if arguments.is_none() && result.is_none() {
        *no_content += 1;
    }
    b.call(NewCall {
        id: id.clone(),
        server,
        tool,
        arguments,
        at: sp.start,
        line: sp.line,
        json_path: sp.loc().path,
        ..NewCall::default()
    });
    let is_error = sp.attr_str("error.type").is_some()
        || sp.attrs.get("otel.status_code").and_then(Value::as_str) == Some("ERROR");
    let content = match result {
        None => Vec::new(),
        Some(r) => match unstring(&r) {
            // An MCP CallToolResult: its content blocks as they are.
            v if v.get("content").is_some_and(Value::is_array) => util::blocks(&v["content"]),
            // Anything else is the text the span recorded, unchanged.
            _ => vec![text_block(util::text_of(&r))],
        },
    };
    b.result(NewResult {
        call_id: id.clone(),
        content,
        is_error,
        at: sp.end.or(sp.start),
        line: sp.line,
        json_path: sp.loc().path,
        ..NewResult::default()
    });
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_attributes_are_matched_exactly_and_trimmed() {
        for k in KEYS {
            assert_eq!(Attrs::known(k), Some(*k));
            assert_eq!(Attrs::known(&format!("  {k} ")), Some(*k));
            // A key one byte longer or shorter, or differing in case, is not one.
            assert_eq!(Attrs::known(&format!("{k}x")), None);
            assert_eq!(Attrs::known(&k[..k.len() - 1]), None);
            assert_eq!(Attrs::known(&k.to_ascii_uppercase()), None);
        }
        assert_eq!(KEYS.len(), 33);
        assert_eq!(Attrs::known("gen_ai.usage.input_tokens"), None);
        assert_eq!(Attrs::known(""), None);
    }

    #[test]
    fn indexed_message_attributes_gather_into_their_family() {
        assert_eq!(
            indexed("gen_ai.prompt.0.role"),
            Some(("gen_ai.prompt", "0.role"))
        );
        assert_eq!(
            Attrs::known(" gen_ai.completion.12.content"),
            Some("gen_ai.completion")
        );
        // Not an index, or no part after the family: not a message attribute.
        assert_eq!(Attrs::known("gen_ai.prompt.tokens"), None);
        assert_eq!(Attrs::known("gen_ai.completion"), None);
        assert_eq!(Attrs::known("llm.output_messagesx.0.message.role"), None);
        let mut a = Attrs::default();
        a.set(
            "llm.output_messages.1.message.content",
            Value::from("second"),
        );
        a.set(
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
            Value::from("f"),
        );
        a.set(
            "llm.output_messages.0.message.content",
            Value::from("first"),
        );
        a.set(
            "llm.output_messages.0.message.content",
            Value::from("ignored: set twice"),
        );
        let v = indexed_messages(a.get("llm.output_messages").unwrap());
        assert_eq!(
            v,
            serde_json::json!([
                {"tool_calls": [{"function": {"name": "f"}}], "content": "first"},
                {"content": "second"}
            ])
        );
    }

    #[test]
    fn entity_input_is_the_calls_arguments() {
        let j = |t: &str| Value::String(t.to_owned());
        assert_eq!(
            entity_input(&j(r#"{"args": [], "kwargs": {"city": "Oslo"}}"#)),
            serde_json::json!({"city": "Oslo"})
        );
        assert_eq!(
            entity_input(&j(
                r#"{"name": "get_weather", "arguments": {"city": "Oslo"}}"#
            )),
            serde_json::json!({"city": "Oslo"})
        );
        // Positional arguments: the whole call is kept.
        assert_eq!(
            entity_input(&j(r#"{"args": ["Oslo"], "kwargs": {}}"#)),
            serde_json::json!({"args": ["Oslo"], "kwargs": {}})
        );
        assert_eq!(entity_input(&j("plain text")), j("plain text"));
    }

    #[test]
    fn message_shapes() {
        let semconv = serde_json::json!([{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},{"role":"tool","parts":[{"type":"tool_call_response","id":" call_1","result":"rainy"}]}]);
        let m = messages(&semconv);
        assert_eq!(m[0].texts, vec!["Weather in Paris?"]);
        assert_eq!(norm_id(&m[1].results[0].0), "call_1");
        assert_eq!(m[1].results[0].1, "rainy");
        let anth = serde_json::json!("{\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"mcp__weather__get\",\"input\":{\"city\":\"Berlin\"}}],\"role\":\"assistant\"}");
        let m = messages(&anth);
        assert_eq!(m[0].calls[0].1, "mcp__weather__get");
        assert_eq!(
            split_tool("mcp__weather__get", None),
            ("weather".into(), "get".into())
        );
    }
}
