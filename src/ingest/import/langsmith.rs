//! LangSmith runs: the SDK's batch ingestion payload (`{"post": [run...], "patch": [run...]}`),
//! a list of runs (`client.list_runs`, `POST /runs/query`: a JSON array, `{"runs": [...]}`, or
//! one run a line) and a run tree (`client.read_run(id, load_child_runs=True)`: a run with
//! nested `child_runs`).
//!
//! Runs are grouped into traces (`trace_id`), traces into conversations (`extra.metadata`
//! `thread_id`/`session_id`/`conversation_id`), one session per conversation and one turn per
//! trace: the root run's inputs give the user message, `tool` and `retriever` runs are calls
//! (a tool run takes the id of the model's tool call it answers), and the final `llm` run's
//! output text is the answer. Runs carry no citations: answers have no stamps.

use super::blocks::mcp_name;
use super::build::{text_block, Builder, Loc, NewCall, NewResult};
use super::sniff::Head;
use super::util::{self, s, time_str};
use super::Input;
use crate::ingest::strip_pos;
use crate::model::{ContentBlock, DiagLevel, Name, Session, Timestamp};
use rustc_hash::FxHashMap as HashMap;
use serde_json::{Map, Value};

const NAME: &str = "langsmith";

/// The run types LangSmith defines.
const RUN_TYPES: [&str; 7] = [
    "llm",
    "chain",
    "tool",
    "retriever",
    "prompt",
    "parser",
    "embedding",
];

/// The `extra.metadata` keys that name the conversation a trace belongs to (LangSmith's
/// threads), in the order they are read.
const THREAD_KEYS: [&str; 3] = ["thread_id", "session_id", "conversation_id"];

/// The MCP tool annotations langchain-mcp-adapters copies into a tool's metadata (with the
/// tool's `_meta`): such a tool is an MCP server's, whose name the run does not carry.
const MCP_HINTS: [&str; 5] = [
    "_meta",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// `null`, for a value that is absent.
static NULL: Value = Value::Null;

/// Nesting deeper than this (`child_runs` of `child_runs` ...) is not read.
const MAX_DEPTH: usize = 64;

pub fn sniff(h: &Head) -> bool {
    if h.is_cassette() || h.is_sse() {
        return false;
    }
    let text = h.text;
    // The batch payload or a page of `POST /runs/query`: the runs are inside, so their keys
    // are looked for in the text.
    if h.has("post") || h.has("patch") || h.has("runs") {
        return text.contains("\"dotted_order\"")
            || (text.contains("\"run_type\"")
                && (text.contains("\"trace_id\"") || text.contains("\"parent_run_id\"")));
    }
    // A run (the document, an array's first element, or the first line).
    match h.str("run_type") {
        Some(t) => {
            h.has("dotted_order")
                || h.has("trace_id")
                || h.has("parent_run_id")
                || h.has("child_runs")
                // Inputs longer than the head hide the keys after them; `start_time` comes
                // before `run_type` in the SDKs' runs.
                || (RUN_TYPES.contains(&t) && h.has("start_time"))
        }
        None => false,
    }
}

/// A place in the file: a line (0 in a one-document file) and a JSON path (without `$`).
#[derive(Clone, Debug, Default)]
struct At {
    line: u64,
    path: String,
}

impl At {
    fn loc(&self) -> Loc {
        if self.path.is_empty() {
            self.line.into()
        } else {
            Loc::path(self.line, &self.path)
        }
    }

    /// The place of a key of the object here.
    fn key(&self, key: &str) -> At {
        At {
            line: self.line,
            path: join(&self.path, key),
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A run as read from the file, before its patches.
struct RawRun {
    fields: Map<String, Value>,
    at: At,
    /// Where its `inputs` and `outputs` (or `error`) are: a patch may bring them.
    inputs_at: At,
    outputs_at: At,
    /// The run it is nested in (`child_runs`), when any: its parent and trace.
    nested_in: Option<usize>,
    /// A patch was applied to it.
    patched: bool,
}

/// Where a patch finds its run ([`Reader::apply_patches`]).
#[derive(Default)]
struct PatchIndex {
    by_id: HashMap<String, usize>,
    by_dotted: HashMap<String, usize>,
    /// Each trace's runs, in order, and the place of the first that may be unpatched.
    by_trace: HashMap<String, (Vec<usize>, usize)>,
}

impl PatchIndex {
    /// Indexes `runs[from..]` (a first run keeps its place for an `id` or `dotted_order`).
    fn add(&mut self, runs: &[RawRun], from: usize) {
        for (i, r) in runs.iter().enumerate().skip(from) {
            let key = |k: &str| r.fields.get(k).and_then(Value::as_str).map(str::to_owned);
            if let Some(id) = key("id") {
                self.by_id.entry(id).or_insert(i);
            }
            if let Some(d) = key("dotted_order") {
                self.by_dotted.entry(d).or_insert(i);
            }
            if let Some(t) = key("trace_id") {
                self.by_trace.entry(t).or_default().0.push(i);
            }
        }
    }
}

/// A run, checked.
#[derive(Debug, Default)]
struct Run {
    id: String,
    name: String,
    run_type: String,
    inputs: Option<Map<String, Value>>,
    outputs: Option<Map<String, Value>>,
    error: Option<String>,
    start: Option<Timestamp>,
    end: Option<Timestamp>,
    parent: Option<String>,
    trace: Option<String>,
    dotted: Option<String>,
    metadata: Map<String, Value>,
    at: At,
    inputs_at: At,
    outputs_at: At,
    /// Its place among the runs of the file.
    order: usize,
}

/// What concerns the file, told with its first session.
#[derive(Default)]
struct FileNotes {
    diags: Vec<(u64, u64, String, DiagLevel, String)>,
    notes: Vec<String>,
}

impl FileNotes {
    fn diag(&mut self, at: &At, level: DiagLevel, msg: String) {
        self.diags.push((at.line, 0, at.path.clone(), level, msg));
    }
}

/// Reads the runs of a file.
#[derive(Default)]
struct Reader {
    runs: Vec<RawRun>,
    /// Patches, applied once every posted run is read: (patch, place).
    patches: Vec<(Map<String, Value>, At)>,
    file: FileNotes,
}

impl Reader {
    /// One JSON value of the file: a batch payload, a page of runs, an array of runs or a run.
    fn value(&mut self, v: Value, at: At) {
        match v {
            Value::Object(mut o) => {
                let batch = o.contains_key("post") || o.contains_key("patch");
                if batch && !o.contains_key("run_type") {
                    for key in ["post", "patch"] {
                        match o.remove(key) {
                            None | Some(Value::Null) => {}
                            Some(Value::Array(items)) => {
                                for (i, item) in items.into_iter().enumerate() {
                                    let at = at.key(&format!("{key}[{i}]"));
                                    match (key, item) {
                                        ("patch", Value::Object(p)) => self.patches.push((p, at)),
                                        (_, item) => self.run(item, at, None, 0),
                                    }
                                }
                            }
                            Some(other) => self.file.diag(
                                &at.key(key),
                                DiagLevel::Error,
                                format!(
                                    "`{key}` is {}, not a list of runs; not read",
                                    kind(&other)
                                ),
                            ),
                        }
                    }
                    return;
                }
                if o.contains_key("runs") && !o.contains_key("run_type") {
                    if let Some(next) = o
                        .get("cursors")
                        .and_then(|c| c.get("next"))
                        .and_then(Value::as_str)
                    {
                        self.file.notes.push(format!("the file is one page of a run query: `cursors.next` ({next}) names more runs, which are not in it"));
                    }
                    match o.remove("runs") {
                        Some(Value::Array(items)) => self.list(items, &at, "runs"),
                        other => self.file.diag(
                            &at.key("runs"),
                            DiagLevel::Error,
                            format!(
                                "`runs` is {}, not a list of runs; not read",
                                kind(other.as_ref().unwrap_or(&Value::Null))
                            ),
                        ),
                    }
                    return;
                }
                self.run(Value::Object(o), at, None, 0);
            }
            Value::Array(items) => {
                if items.is_empty() {
                    self.file.diag(
                        &at,
                        DiagLevel::Error,
                        "an empty JSON array: no run to read".into(),
                    );
                }
                self.list(items, &at, "");
            }
            other => self.file.diag(
                &at,
                DiagLevel::Error,
                format!(
                    "{} is not a LangSmith run, list of runs or batch payload; not read",
                    kind(&other)
                ),
            ),
        }
    }

    /// The runs of a list, each at its index.
    fn list(&mut self, items: Vec<Value>, at: &At, key: &str) {
        for (i, item) in items.into_iter().enumerate() {
            let path = if key.is_empty() {
                format!("{}[{i}]", at.path)
            } else {
                join(&at.path, &format!("{key}[{i}]"))
            };
            self.run(
                item,
                At {
                    line: at.line,
                    path,
                },
                None,
                0,
            );
        }
    }

    /// A run and the runs nested in it (`child_runs`).
    fn run(&mut self, v: Value, at: At, nested_in: Option<usize>, depth: usize) {
        let mut fields = match v {
            Value::Object(o) => o,
            other => {
                let msg = format!("{} is not a run (a JSON object); skipped", kind(&other));
                return self.file.diag(&at, DiagLevel::Error, msg);
            }
        };
        let children = fields.remove("child_runs");
        let me = self.runs.len();
        self.runs.push(RawRun {
            fields,
            inputs_at: at.clone(),
            outputs_at: at.clone(),
            at: at.clone(),
            nested_in,
            patched: false,
        });
        match children {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) if depth < MAX_DEPTH => {
                for (i, item) in items.into_iter().enumerate() {
                    let child = at.key(&format!("child_runs[{i}]"));
                    self.run(item, child, Some(me), depth + 1);
                }
            }
            Some(Value::Array(_)) => self.file.diag(
                &at.key("child_runs"),
                DiagLevel::Warning,
                format!("runs nested more than {MAX_DEPTH} deep are not read"),
            ),
            Some(other) => self.file.diag(
                &at.key("child_runs"),
                DiagLevel::Warning,
                format!("`child_runs` is {}, not a list; not read", kind(&other)),
            ),
        }
    }

    /// Applies each patch to the posted run it updates: the run with its `id`; without one, the
    /// run with its `dotted_order`; without either, the first run of its `trace_id` that no
    /// patch updated yet.
    fn apply_patches(&mut self) {
        // The runs by `id` and by `dotted_order` (the first of each), and each trace's runs in
        // order with the first not yet patched: one lookup per patch, however many runs.
        let mut index = PatchIndex::default();
        index.add(&self.runs, 0);
        for (patch, at) in std::mem::take(&mut self.patches) {
            let str_of = |k: &str| patch.get(k).and_then(Value::as_str);
            let target = match (str_of("id"), str_of("dotted_order"), str_of("trace_id")) {
                (Some(id), _, _) => index.by_id.get(id).copied(),
                (None, Some(d), _) => index.by_dotted.get(d).copied(),
                (None, None, Some(t)) => index.by_trace.get_mut(t).and_then(|(runs, next)| {
                    while runs.get(*next).is_some_and(|&i| self.runs[i].patched) {
                        *next += 1;
                    }
                    runs.get(*next).copied()
                }),
                (None, None, None) => None,
            };
            let Some(i) = target else {
                if patch.get("run_type").is_some_and(Value::is_string) && str_of("id").is_some() {
                    self.file.diag(&at, DiagLevel::Warning, "a patch that matches no posted run (none has its `id`): read as a run of its own".into());
                    let from = self.runs.len();
                    self.run(Value::Object(patch), at, None, 0);
                    index.add(&self.runs, from);
                } else {
                    self.file.diag(&at, DiagLevel::Warning, "a patch that matches no posted run (none has its `id`, `dotted_order` or `trace_id`): skipped".into());
                }
                continue;
            };
            let run = &mut self.runs[i];
            run.patched = true;
            for (k, v) in patch {
                if k == "id" || v.is_null() {
                    continue;
                }
                match k.as_str() {
                    "outputs" | "error" => run.outputs_at = at.clone(),
                    // The posted inputs are the run's (the JS SDK sends them again).
                    "inputs" if run.fields.get("inputs").is_some_and(Value::is_object) => continue,
                    "inputs" => run.inputs_at = at.clone(),
                    _ => {}
                }
                run.fields.insert(k, v);
            }
        }
    }

    /// Checks each run, reporting what cannot be read; the runs that can.
    fn check(&mut self) -> Vec<Run> {
        let mut out: Vec<Run> = Vec::with_capacity(self.runs.len());
        // The checked run of each raw run (for the parent and trace of nested runs).
        let mut checked: Vec<Option<usize>> = Vec::with_capacity(self.runs.len());
        let mut by_id: HashMap<String, usize> = HashMap::default();
        for (order, raw) in self.runs.iter_mut().enumerate() {
            let f = &mut raw.fields;
            let at = raw.at.clone();
            let file = &mut self.file;
            let string = |key: &str, file: &mut FileNotes| match f.get(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(t)) => Some(t.clone()),
                Some(other) => {
                    let msg = format!("`{key}` is {}, not a string; ignored", kind(other));
                    file.diag(&at.key(key), DiagLevel::Warning, msg);
                    None
                }
            };
            let dotted = string("dotted_order", file);
            let run_type = match f.get("run_type") {
                Some(Value::String(t)) => t.clone(),
                None => {
                    file.diag(
                        &at,
                        DiagLevel::Error,
                        "a run without `run_type`; skipped".into(),
                    );
                    checked.push(None);
                    continue;
                }
                Some(other) => {
                    let msg = format!("`run_type` is {}, not a string; run skipped", kind(other));
                    file.diag(&at.key("run_type"), DiagLevel::Error, msg);
                    checked.push(None);
                    continue;
                }
            };
            let id = string("id", file).or_else(|| dotted.as_deref().and_then(last_segment_id));
            let Some(id) = id.filter(|i| !i.is_empty()) else {
                file.diag(
                    &at,
                    DiagLevel::Error,
                    "a run without `id` (or `dotted_order`); skipped".into(),
                );
                checked.push(None);
                continue;
            };
            let name = string("name", file).unwrap_or_default();
            let parent_from_nest = raw
                .nested_in
                .and_then(|p| checked.get(p).copied().flatten());
            let parent = string("parent_run_id", file)
                .or_else(|| parent_from_nest.map(|p| out[p].id.clone()));
            let trace = string("trace_id", file)
                .or_else(|| parent_from_nest.and_then(|p| out[p].trace.clone()));
            let error = string("error", file).filter(|e| !e.is_empty());
            let mut object = |key: &str, place: &At, file: &mut FileNotes| match f.remove(key) {
                None | Some(Value::Null) => None,
                Some(Value::Object(o)) => Some(o),
                Some(other) => {
                    let msg = format!("`{key}` is {}, not an object; not read", kind(&other));
                    file.diag(&place.key(key), DiagLevel::Warning, msg);
                    None
                }
            };
            let inputs = object("inputs", &raw.inputs_at, file);
            let outputs = object("outputs", &raw.outputs_at, file);
            let metadata = match f.get_mut("extra").and_then(|e| e.get_mut("metadata")) {
                Some(Value::Object(m)) => std::mem::take(m),
                _ => Map::new(),
            };
            let time = |key: &str, file: &mut FileNotes| match f.get(key) {
                None | Some(Value::Null) => None,
                Some(v) => {
                    let t = run_time(v);
                    if t.is_none() {
                        let msg = format!("`{key}` is not a time (an ISO 8601 text or Unix milliseconds): {}; ignored", short(v));
                        file.diag(&at.key(key), DiagLevel::Warning, msg);
                    }
                    t
                }
            };
            let start = time("start_time", file);
            let end = time("end_time", file);
            if let Some(&first) = by_id.get(&id) {
                let msg = format!(
                    "a second run with the id `{id}` (the first is at {}); skipped",
                    super::build::json_path(&out[first].at.path)
                );
                file.diag(&at, DiagLevel::Error, msg);
                checked.push(None);
                continue;
            }
            by_id.insert(id.clone(), out.len());
            checked.push(Some(out.len()));
            out.push(Run {
                id,
                name,
                run_type,
                inputs,
                outputs,
                error,
                start,
                end,
                parent,
                trace,
                dotted,
                metadata,
                at,
                inputs_at: raw.inputs_at.clone(),
                outputs_at: raw.outputs_at.clone(),
                order,
            });
        }
        out
    }
}

/// A short description of a JSON value's kind, for diagnostics.
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A value as short text, for diagnostics (at most 60 characters).
fn short(v: &Value) -> String {
    let t = v.to_string();
    match t.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t,
    }
}

/// A run's time: an ISO 8601 text (`2024-10-13T07:05:37.170001`, no offset meaning UTC, or with
/// `Z` or an offset) or a number of Unix epoch milliseconds (the JS SDK's).
fn run_time(v: &Value) -> Option<Timestamp> {
    match v {
        Value::Number(n) => {
            let ms = n.as_f64()?;
            (ms.is_finite() && ms.abs() < 1e16).then_some(Timestamp(ms as i64))
        }
        Value::String(t) => {
            let t = t.trim();
            if let Some(ts) = time_str(t) {
                return Some(ts);
            }
            // Python's `isoformat()` of a naive UTC time: no offset, maybe a space for `T`.
            let mut fixed = t.to_owned();
            if fixed.len() > 10 && fixed.as_bytes()[10] == b' ' {
                fixed.replace_range(10..11, "T");
            }
            let time_part = fixed.get(11..).unwrap_or("");
            if !time_part.contains(['Z', 'z', '+', '-']) {
                fixed.push('Z');
            }
            time_str(&fixed)
        }
        _ => None,
    }
}

/// The run id of a `dotted_order` segment (`20241013T070537170001Z<run id>`).
fn segment_id(seg: &str) -> Option<String> {
    let (_, id) = seg.split_once('Z')?;
    (!id.is_empty()).then(|| id.to_owned())
}

/// The run's own id from its `dotted_order` (its last segment).
fn last_segment_id(dotted: &str) -> Option<String> {
    segment_id(dotted.rsplit('.').next()?)
}

/// The trace's root run id from a `dotted_order` (its first segment).
fn first_segment_id(dotted: &str) -> Option<String> {
    segment_id(dotted.split('.').next()?)
}

/// A chat message in any of the shapes runs hold: OpenAI's (`role`, `content`), LangChain's
/// (`type`, `content`, or serialized `{"lc": 1, "id": [..., "HumanMessage"], "kwargs": {...}}`)
/// and Anthropic's content blocks. `(role, text, tool calls)`; role is `user`, `assistant`,
/// `tool`, `system` or what the message says.
struct Message {
    role: String,
    text: String,
    calls: Vec<ToolCall>,
    /// A tool message's `tool_call_id` and `status`.
    tool_call_id: Option<String>,
    error_status: bool,
    content: Option<Value>,
}

/// A tool call the model asked for: id, name, arguments.
#[derive(Clone, Debug)]
struct ToolCall {
    id: String,
    name: String,
    args: Option<Value>,
}

fn message(v: &Value) -> Option<Message> {
    let o = v.as_object()?;
    // LangChain's serialized message: the class name says the role, `kwargs` holds the fields.
    let (fields, class) = match (o.get("lc"), o.get("kwargs")) {
        (Some(_), Some(Value::Object(k))) => {
            let class = o
                .get("id")
                .and_then(Value::as_array)
                .and_then(|ids| ids.last())
                .and_then(Value::as_str);
            (k, class)
        }
        _ => (o, None),
    };
    let role = match class {
        Some(c) if c.starts_with("Human") => "user",
        Some(c) if c.starts_with("AI") => "assistant",
        Some(c) if c.starts_with("Tool") => "tool",
        Some(c) if c.starts_with("System") => "system",
        _ => match s(v, "role")
            .or_else(|| s(v, "type"))
            .or(s_map(fields, "type"))
        {
            Some("human" | "user") => "user",
            Some("ai" | "assistant" | "AIMessageChunk") => "assistant",
            Some("tool" | "function") => "tool",
            Some(r) => r,
            None => "",
        },
    }
    .to_owned();
    let content = fields.get("content");
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    match content {
        Some(Value::String(t)) => texts.push(t.clone()),
        Some(Value::Array(parts)) => {
            for p in parts {
                match (s(p, "type"), p) {
                    (_, Value::String(t)) => texts.push(t.clone()),
                    (Some("text"), _) => texts.extend(s(p, "text").map(str::to_owned)),
                    (Some("tool_use"), _) => calls.push(ToolCall {
                        id: s(p, "id").unwrap_or("").to_owned(),
                        name: s(p, "name").unwrap_or("").to_owned(),
                        args: p.get("input").cloned(),
                    }),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    let openai_calls = |list: &[Value], calls: &mut Vec<ToolCall>| {
        for tc in list {
            // LangChain's `{"name", "args", "id"}`, or OpenAI's `{"id", "function": {...}}`.
            let f = tc.get("function").unwrap_or(tc);
            calls.push(ToolCall {
                id: s(tc, "id").unwrap_or("").to_owned(),
                name: s(f, "name").unwrap_or("").to_owned(),
                args: f
                    .get("args")
                    .or_else(|| f.get("arguments"))
                    .map(|a| match a {
                        Value::String(t) => serde_json::from_str(t).unwrap_or_else(|_| a.clone()),
                        other => other.clone(),
                    }),
            });
        }
    };
    match fields.get("tool_calls").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => openai_calls(list, &mut calls),
        _ => {
            let extra = fields
                .get("additional_kwargs")
                .and_then(|k| k.get("tool_calls"))
                .and_then(Value::as_array);
            if calls.is_empty() {
                openai_calls(extra.map_or(&[], Vec::as_slice), &mut calls);
            }
        }
    }
    if content.is_none() && calls.is_empty() && role.is_empty() {
        return None;
    }
    Some(Message {
        role,
        text: texts.join(""),
        calls,
        tool_call_id: s_map(fields, "tool_call_id").map(str::to_owned),
        error_status: s_map(fields, "status") == Some("error"),
        content: content.cloned(),
    })
}

fn s_map<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    m.get(key).and_then(Value::as_str)
}

/// The messages of a `messages` value: a list, or a list of lists (a chat model's inputs, one
/// list per prompt: the first is read).
fn messages(v: Option<&Value>) -> Vec<Message> {
    let Some(Value::Array(items)) = v else {
        return Vec::new();
    };
    let items = match items.first() {
        Some(Value::Array(first)) => first,
        _ => items,
    };
    items.iter().filter_map(message).collect()
}

/// The user's message of a run's inputs: the last user message of `messages`, else the
/// `input`, `question` or `query` text.
fn user_text(inputs: &Map<String, Value>) -> Option<String> {
    if let Some(m) = messages(inputs.get("messages"))
        .into_iter()
        .rev()
        .find(|m| m.role == "user")
    {
        return Some(m.text);
    }
    ["input", "question", "query"]
        .iter()
        .find_map(|k| s_map(inputs, k))
        .map(str::to_owned)
}

/// What an llm run's outputs say: the answer text (empty when none) and the tool calls asked
/// for. Read from a Chat Completions object (`choices[0].message`), LangChain's
/// `generations[0][0]` (`text`, `message`), an Anthropic message (`content` blocks), a message,
/// or an `output` holding one.
fn llm_output(outputs: &Map<String, Value>) -> (String, Vec<ToolCall>) {
    let from = |m: Option<Message>| m.map_or_else(Default::default, |m| (m.text, m.calls));
    if let Some(first) = outputs.get("choices").and_then(|c| c.get(0)) {
        return from(first.get("message").and_then(message));
    }
    if let Some(g) = outputs.get("generations").and_then(|g| g.get(0)) {
        let g = match g {
            Value::Array(inner) => inner.first().unwrap_or(&NULL),
            other => other,
        };
        let (text, calls) = from(g.get("message").and_then(message));
        let text = match s(g, "text") {
            Some(t) if !t.is_empty() => t.to_owned(),
            _ => text,
        };
        return (text, calls);
    }
    let whole = Value::Object(outputs.clone());
    if outputs.contains_key("content") {
        return from(message(&whole));
    }
    if let Some(o) = outputs.get("output") {
        return match o {
            Value::String(t) => (t.clone(), Vec::new()),
            other => from(message(other)),
        };
    }
    if let Some(m) = messages(outputs.get("messages"))
        .into_iter()
        .rev()
        .find(|m| m.role == "assistant")
    {
        return (m.text, m.calls);
    }
    Default::default()
}

/// The answer a root run's outputs give when no llm run gave one: its `output` or `answer`
/// text, or the last assistant message of its `messages` (a LangGraph agent's state).
fn root_answer(outputs: &Map<String, Value>) -> Option<String> {
    for k in ["output", "answer"] {
        match outputs.get(k) {
            Some(Value::String(t)) => return Some(t.clone()),
            Some(v @ Value::Object(_)) => {
                if let Some(m) = message(v).filter(|m| m.role == "assistant") {
                    return Some(m.text);
                }
            }
            _ => {}
        }
    }
    messages(outputs.get("messages"))
        .into_iter()
        .rev()
        .find(|m| m.role == "assistant" && !m.text.is_empty())
        .map(|m| m.text)
}

/// Whether a tool run's inputs are the arguments of a tool call: equal, or LangChain's
/// `{"input": ...}` holding them (as a value or as JSON text).
fn args_match(inputs: Option<&Value>, args: Option<&Value>) -> bool {
    let (Some(inputs), Some(args)) = (inputs, args) else {
        return true;
    };
    if inputs == args {
        return true;
    }
    let Some(inner) = inputs
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("input"))
    else {
        return false;
    };
    if inner == args {
        return true;
    }
    match inner {
        Value::String(t) => {
            serde_json::from_str::<Value>(t).is_ok_and(|v| &v == args)
                || args
                    .as_object()
                    .is_some_and(|a| a.len() == 1 && a.values().next() == Some(inner))
        }
        _ => false,
    }
}

/// The result of a tool run's outputs: its content blocks, and whether a tool message says it
/// failed, and the tool call id it names.
fn tool_result(outputs: &Map<String, Value>) -> (Vec<ContentBlock>, bool, Option<String>) {
    match outputs.get("output") {
        Some(Value::String(t)) => (vec![text_block(t.clone())], false, None),
        Some(v @ Value::Object(_)) => match message(v).filter(|m| m.role == "tool") {
            Some(m) => {
                let blocks = match &m.content {
                    Some(c @ Value::Array(_)) => util::blocks(c),
                    _ => vec![text_block(m.text.clone())],
                };
                (blocks, m.error_status, m.tool_call_id)
            }
            None => (vec![text_block(v.to_string())], false, None),
        },
        Some(other) => (vec![text_block(util::text_of(other))], false, None),
        None => (
            vec![text_block(Value::Object(outputs.clone()).to_string())],
            false,
            None,
        ),
    }
}

/// The result of a retriever run's outputs: one text block per document (`page_content`, with
/// its `metadata` kept), or the outputs as JSON text.
fn retriever_result(outputs: &Map<String, Value>) -> Vec<ContentBlock> {
    match outputs.get("documents").and_then(Value::as_array) {
        Some(docs) => docs
            .iter()
            .map(|d| match s(d, "page_content") {
                Some(t) => {
                    let mut b = text_block(t.to_owned());
                    if let Some(m) = d.get("metadata").and_then(util::raw) {
                        b.extra.push((Name::from("metadata"), m));
                    }
                    b
                }
                None => util::block(d),
            })
            .collect(),
        None => vec![text_block(Value::Object(outputs.clone()).to_string())],
    }
}

/// A metadata value as text (a thread id may be a number).
fn meta_text(v: &Value) -> Option<String> {
    match v {
        Value::String(t) if !t.is_empty() => Some(t.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// One trace: its key and runs (indices into the checked runs).
struct Trace {
    key: String,
    runs: Vec<usize>,
}

pub fn import(input: &Input) -> Vec<Session> {
    let new = || Builder::new(NAME, input.name.clone(), input.source.clone());
    let mut reader = Reader::default();
    let bytes = match input.all() {
        Ok(b) => b,
        Err(e) => {
            let mut b = new();
            b.diag(0, 0, "", DiagLevel::Error, format!("cannot read: {e}"));
            return vec![b.finish()];
        }
    };
    let text = match util::utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let mut b = new();
            let msg = format!("invalid UTF-8 at byte {}; not read", e.valid_up_to() + 1);
            b.diag(0, 0, "", DiagLevel::Error, msg);
            return vec![b.finish()];
        }
    };
    match serde_json::from_str::<Value>(text) {
        // A document on one line is placed by its line too, as a line of runs is.
        Ok(v) => reader.value(
            v,
            At {
                line: u64::from(!text.trim().contains('\n')),
                path: String::new(),
            },
        ),
        Err(_) if is_lines(text) => {
            for (i, l) in text.lines().enumerate() {
                let line = i as u64 + 1;
                if l.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Value>(l) {
                    Ok(v) => reader.value(
                        v,
                        At {
                            line,
                            path: String::new(),
                        },
                    ),
                    Err(e) => reader.file.diags.push((
                        line,
                        e.column() as u64,
                        String::new(),
                        DiagLevel::Error,
                        format!(
                            "malformed JSON: {}; line skipped",
                            strip_pos(&e.to_string())
                        ),
                    )),
                }
            }
        }
        Err(e) => reader.file.diags.push((
            e.line() as u64,
            e.column() as u64,
            String::new(),
            DiagLevel::Error,
            format!(
                "malformed JSON: {}; nothing read",
                strip_pos(&e.to_string())
            ),
        )),
    }
    reader.apply_patches();
    let runs = reader.check();
    let file = reader.file;
    let mut sessions = build(input, &runs);
    if runs.is_empty() && !file.diags.iter().any(|d| d.3 == DiagLevel::Error) {
        let mut b = new();
        b.diag(
            0,
            0,
            "",
            DiagLevel::Error,
            "no LangSmith run in the file".into(),
        );
        sessions.push(b.finish());
    }
    if sessions.is_empty() {
        sessions.push(new().finish());
    }
    // What concerns the file is told once, with its first session.
    let first = &mut sessions[0];
    let told: Vec<crate::model::Diagnostic> = file
        .diags
        .into_iter()
        .map(
            |(line, column, path, level, message)| crate::model::Diagnostic {
                file: input.source.clone(),
                line,
                column,
                path: if path.is_empty() {
                    String::new()
                } else {
                    super::build::json_path(&path).to_string()
                },
                level,
                message,
            },
        )
        .collect();
    first.diagnostics.splice(0..0, told);
    if let Some(i) = first.import.as_mut() {
        for n in file.notes {
            if !i.notes.iter().any(|x| *x == n) {
                i.notes.push(n.into());
            }
        }
    }
    sessions
}

/// True when the file is JSON lines: its first line that is not blank starts an object and is
/// not `{` alone (a pretty-printed document's).
fn is_lines(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with('{') && l != "{")
}

/// The sessions of the checked runs: one per conversation, one turn per trace.
fn build(input: &Input, runs: &[Run]) -> Vec<Session> {
    if runs.is_empty() {
        return Vec::new();
    }
    let by_id: HashMap<&str, usize> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    // Each run's trace: its `trace_id`, else its `dotted_order`'s first segment, else its top
    // ancestor in the file (the parent it names when that is not in the file).
    let trace_key = |i: usize| -> String {
        let r = &runs[i];
        if let Some(t) = r.trace.as_ref().filter(|t| !t.is_empty()) {
            return t.clone();
        }
        if let Some(t) = r.dotted.as_deref().and_then(first_segment_id) {
            return t;
        }
        let mut cur = i;
        for _ in 0..runs.len() {
            match runs[cur].parent.as_deref() {
                Some(p) => match by_id.get(p) {
                    Some(&j) if j != cur => cur = j,
                    Some(_) => break,
                    None => return p.to_owned(),
                },
                None => break,
            }
        }
        runs[cur].id.clone()
    };
    let mut traces: Vec<Trace> = Vec::new();
    let mut trace_of: HashMap<String, usize> = HashMap::default();
    for i in 0..runs.len() {
        let key = trace_key(i);
        let t = *trace_of.entry(key.clone()).or_insert_with(|| {
            traces.push(Trace {
                key,
                runs: Vec::new(),
            });
            traces.len() - 1
        });
        traces[t].runs.push(i);
    }
    // Each trace's runs in order: by `dotted_order` when every run has one (it sorts a tree
    // depth first, children by start time), else by start time and place in the file.
    for t in &mut traces {
        if t.runs.iter().all(|&i| runs[i].dotted.is_some()) {
            t.runs.sort_by(|&a, &b| runs[a].dotted.cmp(&runs[b].dotted));
        } else {
            t.runs
                .sort_by_key(|&i| (runs[i].start.is_none(), runs[i].start, runs[i].order));
        }
    }
    let root_of = |t: &Trace| -> usize {
        t.runs
            .iter()
            .copied()
            .find(|&i| runs[i].id == t.key)
            .or_else(|| {
                t.runs.iter().copied().find(|&i| {
                    runs[i]
                        .parent
                        .as_deref()
                        .is_none_or(|p| !by_id.contains_key(p))
                })
            })
            .unwrap_or(t.runs[0])
    };
    // Conversations: a thread's metadata key on any run of the trace (its root first), else
    // the trace itself.
    let mut convs: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
    // Each conversation's place in `convs`: one lookup per trace, whatever their number.
    let mut conv_at: HashMap<String, usize> = HashMap::default();
    for (ti, t) in traces.iter().enumerate() {
        let root = root_of(t);
        let thread = std::iter::once(root)
            .chain(t.runs.iter().copied())
            .find_map(|i| {
                THREAD_KEYS
                    .iter()
                    .find_map(|k| runs[i].metadata.get(*k).and_then(meta_text))
            });
        let key = thread.unwrap_or_else(|| t.key.clone());
        match conv_at.get(&key) {
            Some(&at) => convs[at].1.push((ti, root)),
            None => {
                conv_at.insert(key.clone(), convs.len());
                convs.push((key, vec![(ti, root)]));
            }
        }
    }
    let start_of = |ti: usize, root: usize| {
        runs[root]
            .start
            .or_else(|| traces[ti].runs.iter().filter_map(|&i| runs[i].start).min())
    };
    for (_, ts) in &mut convs {
        ts.sort_by_key(|&(ti, root)| {
            let st = start_of(ti, root);
            (st.is_none(), st, runs[root].order)
        });
    }
    convs.sort_by_key(|(_, ts)| {
        let (ti, root) = ts[0];
        let st = start_of(ti, root);
        (st.is_none(), st, runs[root].order)
    });
    let several = convs.len() > 1;
    let mut out = Vec::with_capacity(convs.len());
    for (key, ts) in &convs {
        let mut b = Builder::new(NAME, input.name.clone(), input.source.clone());
        b.session_id(key);
        b.agent("langsmith");
        let mut no_user = 0usize;
        let mut mcp_unnamed = 0usize;
        for &(ti, root) in ts {
            turn(
                &mut b,
                runs,
                &traces[ti],
                root,
                &mut no_user,
                &mut mcp_unnamed,
            );
        }
        if no_user > 0 {
            b.note(format!("{no_user} trace{} without a user message the importer reads (the root run's inputs hold no `messages` with a user message, nor an `input`, `question` or `query` text): {} turn{} an empty user message", if no_user == 1 { "" } else { "s" }, if no_user == 1 { "its" } else { "their" }, if no_user == 1 { " has" } else { "s have" }));
        }
        if mcp_unnamed > 0 {
            b.note("tools of MCP servers (their MCP annotations in `extra.metadata`, as langchain-mcp-adapters copies them) do not name their server in the run: their calls have the server `mcp`");
        }
        let mut s = b.finish();
        if several {
            let id = s.id();
            let short: String = id.chars().take(12).collect();
            s.name = format!("{}#{short}", input.name);
        }
        out.push(s);
    }
    out
}

/// One trace as a turn: its user message, calls and answer.
fn turn(
    b: &mut Builder,
    runs: &[Run],
    t: &Trace,
    root: usize,
    no_user: &mut usize,
    mcp_unnamed: &mut usize,
) {
    let r = &runs[root];
    if !r.name.is_empty() {
        b.title(&r.name);
    }
    // The user's message: the root run's inputs (a tool or retriever root holds its
    // arguments, no message), else the first llm run's.
    let message_root = !matches!(r.run_type.as_str(), "tool" | "retriever");
    let from_root = r
        .inputs
        .as_ref()
        .filter(|_| message_root)
        .and_then(user_text)
        .map(|u| (u, &r.inputs_at));
    let user = from_root.or_else(|| {
        t.runs
            .iter()
            .map(|&i| &runs[i])
            .filter(|x| x.run_type == "llm")
            .find_map(|x| {
                let u = x.inputs.as_ref().and_then(user_text)?;
                Some((u, &x.inputs_at))
            })
    });
    match user {
        Some((u, at)) => {
            b.turn(&u, r.start, at.key("inputs").loc());
        }
        None => {
            *no_user += 1;
            b.turn("", r.start, r.at.loc());
        }
    }
    let mut requested: Vec<ToolCall> = Vec::new();
    let mut answer: Option<(String, Option<Timestamp>, Loc)> = None;
    for &i in &t.runs {
        let x = &runs[i];
        if let Some(m) = x.metadata.get("ls_model_name").and_then(Value::as_str) {
            b.model(m);
        }
        match x.run_type.as_str() {
            "llm" => {
                let Some(outputs) = &x.outputs else { continue };
                if let Some(m) = s_map(outputs, "model") {
                    b.model(m);
                }
                let (text, calls) = llm_output(outputs);
                requested.extend(calls);
                if !text.is_empty() {
                    answer = Some((text, x.end.or(x.start), x.outputs_at.key("outputs").loc()));
                }
            }
            "tool" | "retriever" => call(b, x, &mut requested, mcp_unnamed),
            _ => {}
        }
    }
    if answer.is_none() && r.run_type != "llm" {
        if let Some(text) = r.outputs.as_ref().and_then(root_answer) {
            answer = Some((text, r.end.or(r.start), r.outputs_at.key("outputs").loc()));
        }
    }
    if let Some((text, at, loc)) = answer {
        b.answer_text(&text, "", at, loc);
    }
}

/// A tool or retriever run as a call and its result.
fn call(b: &mut Builder, x: &Run, requested: &mut Vec<ToolCall>, mcp_unnamed: &mut usize) {
    let inputs = x.inputs.clone().map(Value::Object);
    let (content, failed, named_id) = match (&x.outputs, x.run_type.as_str()) {
        (Some(o), "retriever") => (Some(retriever_result(o)), false, None),
        (Some(o), _) => {
            let (c, failed, id) = tool_result(o);
            (Some(c), failed, id)
        }
        (None, _) => (None, false, None),
    };
    // The call id: the one the tool message names, else the model's tool call of the same
    // name and arguments, else the run id.
    let paired = requested
        .iter()
        .position(|c| match &named_id {
            Some(id) => c.id == *id,
            None => c.name == x.name && args_match(inputs.as_ref(), c.args.as_ref()),
        })
        .map(|p| requested.remove(p));
    let id = named_id
        .or_else(|| paired.map(|c| c.id).filter(|id| !id.is_empty()))
        .unwrap_or_else(|| x.id.clone());
    let (server, tool) = match mcp_name(&x.name) {
        Some((server, tool)) => (server.to_owned(), tool.to_owned()),
        None if MCP_HINTS.iter().any(|k| x.metadata.contains_key(*k)) => {
            *mcp_unnamed += 1;
            ("mcp".to_owned(), x.name.clone())
        }
        None => ("app".to_owned(), x.name.clone()),
    };
    let arguments = inputs.as_ref().and_then(util::raw);
    if !b.call(NewCall {
        id: id.clone(),
        server,
        tool,
        arguments,
        at: x.start,
        line: x.at.line,
        json_path: x.at.loc().path,
        ..NewCall::default()
    }) {
        return;
    }
    let (content, is_error, at) = match (&x.error, content) {
        // A failed run: its error, with what it output, if anything.
        (Some(e), c) => {
            let mut blocks = c.unwrap_or_default();
            blocks.insert(0, text_block(e.clone()));
            (blocks, true, x.outputs_at.key("error"))
        }
        (None, Some(c)) => (c, failed, x.outputs_at.key("outputs")),
        (None, None) => return,
    };
    let loc = at.loc();
    b.result(NewResult {
        call_id: id,
        content,
        is_error,
        at: x.end.or(x.start),
        line: loc.line,
        json_path: loc.path,
        ..NewResult::default()
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_both_sdks_parse_alike() {
        let want = Timestamp::parse("2024-10-13T07:05:37.170Z").unwrap();
        for v in [
            serde_json::json!(1728803137170u64),
            serde_json::json!(1728803137170.9),
            serde_json::json!("2024-10-13T07:05:37.170001"),
            serde_json::json!("2024-10-13 07:05:37.170001"),
            serde_json::json!("2024-10-13T07:05:37.170001Z"),
            serde_json::json!("2024-10-13T09:05:37.170001+02:00"),
        ] {
            assert_eq!(run_time(&v), Some(want), "{v}");
        }
        for v in [
            serde_json::json!("yesterday"),
            serde_json::json!(true),
            serde_json::json!(1e300),
            serde_json::json!(""),
        ] {
            assert_eq!(run_time(&v), None, "{v}");
        }
    }

    #[test]
    fn dotted_order_segments_name_the_run_and_its_trace() {
        let d = "20241013T070537170001Zaaaa.20241013T070538000000Zbbbb";
        assert_eq!(first_segment_id(d).as_deref(), Some("aaaa"));
        assert_eq!(last_segment_id(d).as_deref(), Some("bbbb"));
        assert_eq!(last_segment_id("20241013T070537170001Z"), None);
        assert_eq!(last_segment_id("no-timestamp"), None);
    }

    #[test]
    fn tool_inputs_match_the_model_call_as_written_or_wrapped() {
        let args = serde_json::json!({"city": "Paris"});
        let j = |v: serde_json::Value| Some(v);
        assert!(args_match(j(args.clone()).as_ref(), Some(&args)));
        assert!(args_match(
            j(serde_json::json!({"input": "{\"city\": \"Paris\"}"})).as_ref(),
            Some(&args)
        ));
        assert!(args_match(
            j(serde_json::json!({"input": "Paris"})).as_ref(),
            Some(&args)
        ));
        assert!(!args_match(
            j(serde_json::json!({"city": "Rome"})).as_ref(),
            Some(&args)
        ));
        assert!(!args_match(
            j(serde_json::json!({"input": "Rome"})).as_ref(),
            Some(&args)
        ));
    }
}
