//! OpenAI Responses: one response (`{"object":"response",...}`), or a VCR cassette of requests
//! and responses. Function calls and their outputs, hosted MCP calls (`mcp_call`), web and
//! file search calls; `output_text.annotations` become derived stamps (`url_citation` offsets
//! point into the answer, at the citation as rendered; `file_citation` names one point).

use super::api::{self, ApiFile};
use super::build::{
    elem_path, json_path, link_block, link_block_raw, text_block, Builder, Loc, NewCall, NewClaim,
    NewResult,
};
use super::cassette::{self, Interaction};
use super::cite::{
    contains_short, find_short, resolve_offsets_in, sentence_before, unit_name, Offsets,
};
use super::lax::{self, lax_object, List, Raw, Str, F64, U64};
use super::sniff::Head;
use super::sse;
use super::util::{self, s, time_secs};
use super::Input;
use crate::model::{CitationInfo, DiagLevel, Name, Session, SpanUnit, Timestamp};
use rustc_hash::FxHashMap as HashMap;
use serde_json::value::RawValue;
use serde_json::Value;

lax_object! {
    /// A response: the fields the importer reads.
    struct Response<'a> {
        object: Str<'a> = "object",
        id: Str<'a> = "id",
        model: Str<'a> = "model",
        created_at: F64 = "created_at",
        completed_at: F64 = "completed_at",
        output: List<Item<'a>> = "output",
        error: Raw<'a> = "error",
    }
}

lax_object! {
    /// An output item (or an earlier output replayed as input).
    struct Item<'a> {
        kind: Str<'a> = "type",
        role: Str<'a> = "role",
        id: Str<'a> = "id",
        call_id: Str<'a> = "call_id",
        name: Str<'a> = "name",
        server_label: Str<'a> = "server_label",
        arguments: Raw<'a> = "arguments",
        input: Raw<'a> = "input",
        operation: Raw<'a> = "operation",
        output: Raw<'a> = "output",
        error: Raw<'a> = "error",
        action: Raw<'a> = "action",
        queries: Raw<'a> = "queries",
        results: Raw<'a> = "results",
        outputs: Raw<'a> = "outputs",
        result: Raw<'a> = "result",
        content: List<Part<'a>> = "content",
    }
}

lax_object! {
    /// A part of a message's `content`.
    struct Part<'a> {
        kind: Str<'a> = "type",
        text: Str<'a> = "text",
        annotations: List<Annotation<'a>> = "annotations",
    }
}

lax_object! {
    /// An `output_text` annotation.
    struct Annotation<'a> {
        kind: Str<'a> = "type",
        url: Str<'a> = "url",
        title: Str<'a> = "title",
        start_index: U64 = "start_index",
        end_index: U64 = "end_index",
        file_id: Str<'a> = "file_id",
        index: U64 = "index",
        filename: Str<'a> = "filename",
    }
}

lax_object! {
    /// A web search call's `action`: where its sources are.
    struct Action<'a> {
        sources: List<Source<'a>> = "sources",
        url: Str<'a> = "url",
    }
}

lax_object! {
    /// One of a web search call's `action.sources` (its URL raw: see [`source_url`]).
    struct Source<'a> {
        url: Raw<'a> = "url",
    }
}

/// A web search source's URL: its text, and its raw JSON string when that is the text quoted
/// as it is (no escape), which its link block then keeps as written (a copy, not a second
/// parse to check it: the document's parse did). `None` when the URL is not a string.
fn source_url<'a>(url: &Raw<'a>) -> Option<(std::borrow::Cow<'a, str>, Option<&'a RawValue>)> {
    let raw = url.0?;
    let text = raw.get();
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => Some((inner.into(), Some(raw))),
        _ => serde_json::from_str::<String>(text)
            .ok()
            .map(|s| (s.into(), None)),
    }
}

const NAME: &str = "openai-responses";

/// The input items that carry the output of a call the app ran, found by its `call_id`.
const APP_CALL_OUTPUTS: [&str; 6] = [
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
];
pub(super) const HOSTS: &[&str] = &["api.openai.com", "openai.azure.com"];

pub fn sniff(h: &Head) -> bool {
    if h.is_cassette() {
        // A cassette of Chat Completions calls only is `openai-chat`'s.
        return cassette::mentions(h.text, HOSTS) && !super::openai_chat::chat_cassette(h.text);
    }
    if h.is_sse() {
        // Every event of a Responses stream is a `response.*` event.
        return h.str("type").is_some_and(|t| t.starts_with("response."));
    }
    // `created_at` first: it comes before `output` in a response, and a key not asked for is one
    // that a detection from the first keys need not see again (`FirstKeys`).
    h.str("object") == Some("response") && (h.has("created_at") || h.has("output"))
}

struct Conv {
    b: Builder,
    /// Each URL the recorded results link to (`utm_source` stripped), with the call of the
    /// latest result that does: what a `url_citation` cites, found without searching every
    /// block for each citation.
    linked: HashMap<String, Name>,
    seen_inputs: usize,
    /// Whether the current turn's answer already has text from an earlier message.
    answered: bool,
    /// The `call_id` of each app-run call whose item `id` differs from it: an output may name
    /// its call by either (`local_shell_call_output` carries only an `id`).
    call_of_item: HashMap<String, String>,
}

pub fn import(input: &Input) -> Vec<Session> {
    let mut c = Conv {
        b: Builder::new(NAME, input.name.clone(), input.source.clone()),
        linked: HashMap::default(),
        seen_inputs: 0,
        answered: false,
        call_of_item: HashMap::default(),
    };
    // The built-in tools' server and names, held by each of their calls, results and
    // citations.
    static OPENAI: Name = crate::name_literal!("openai");
    static WEB_SEARCH: Name = crate::name_literal!("web_search");
    static FILE_SEARCH: Name = crate::name_literal!("file_search");
    c.b.known_names(&[&OPENAI, &WEB_SEARCH, &FILE_SEARCH]);
    api::read(&mut c, input);
    vec![c.b.finish()]
}

impl ApiFile for Conv {
    type Response<'a> = Response<'a>;
    const HOSTS: &'static [&'static str] = HOSTS;
    const ENDPOINT: &'static str = "/responses";
    const RESPONSE_NOTE: &'static str = "a single response holds no user message: turn 1 has an empty user message; function_call_output items are in the next request, which a response does not include";

    fn builder(&mut self) -> &mut Builder {
        &mut self.b
    }

    fn request(&mut self, body: &Value, it: &Interaction, path: &str) {
        self.read_request(body, path, it.date);
    }

    fn response(&mut self, r: &Response<'_>, path: &str, at: Option<Timestamp>) {
        self.read_response(r, path, at);
    }

    fn assemble(events: impl Iterator<Item = sse::Event>, out: &mut impl sse::Out) {
        sse::openai(events, out)
    }
}

impl Conv {
    fn read_request(&mut self, req: &Value, path: &str, at: Option<Timestamp>) {
        if let Some(m) = s(req, "model") {
            self.b.model(m);
        }
        match req.get("input") {
            Some(Value::String(t)) => {
                self.b.turn(t, at, Loc::path(0, &format!("{path}.input")));
                self.answered = false;
                // A string is one user message: the next request replays it as `input[0]`.
                self.seen_inputs = 1;
            }
            Some(Value::Array(items)) => {
                let from = if items.len() > self.seen_inputs {
                    self.seen_inputs
                } else {
                    0
                };
                for (i, item) in items.iter().enumerate().skip(from) {
                    self.input_item(item, at, &format!("{path}.input[{i}]"));
                }
                self.seen_inputs = items.len();
            }
            _ => {}
        }
    }

    fn input_item(&mut self, item: &Value, at: Option<Timestamp>, path: &str) {
        let kind = s(item, "type").unwrap_or("message");
        match kind {
            "message" if s(item, "role") == Some("user") => {
                let text = match item.get("content") {
                    Some(Value::String(t)) => t.clone(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| s(p, "text"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                self.b.turn(&text, at, Loc::path(0, path));
                self.answered = false;
            }
            kind if APP_CALL_OUTPUTS.contains(&kind) => {
                // `local_shell_call_output` names its call by `id` only (the id of any other
                // output is its own, not its call's).
                let named = match kind {
                    "local_shell_call_output" => s(item, "call_id").or_else(|| s(item, "id")),
                    _ => s(item, "call_id"),
                };
                let Some(named) = named else {
                    return self.b.diag(
                        0,
                        0,
                        &format!("{path}.call_id"),
                        DiagLevel::Error,
                        format!("a {kind} without `call_id`; skipped"),
                    );
                };
                let id = self
                    .call_of_item
                    .get(named)
                    .map_or(named, String::as_str)
                    .to_owned();
                if self.b.has_result(&id) {
                    return;
                }
                // Text, a list of content parts, or one object (a computer call's screenshot).
                let content = match item.get("output") {
                    Some(Value::String(t)) => vec![text_block(t.clone())],
                    Some(v @ (Value::Array(_) | Value::Object(_))) => util::blocks(v),
                    _ => Vec::new(),
                };
                self.record(NewResult {
                    call_id: id,
                    content,
                    at,
                    json_path: Some(json_path(path)),
                    ..NewResult::default()
                });
            }
            // Earlier output replayed as input: read it when this file has not seen it.
            _ => {
                let text = item.to_string();
                if let Ok(item) = serde_json::from_str::<Item>(&text) {
                    self.output_item(&item, at, path, false);
                }
            }
        }
    }

    fn read_response(&mut self, resp: &Response, path: &str, date: Option<Timestamp>) {
        if resp.object.get() != Some("response") {
            if resp.error.0.is_some() {
                self.b.diag(
                    0,
                    0,
                    &format!("{path}.error"),
                    DiagLevel::Warning,
                    "the API answered with an error; no response in this interaction".into(),
                );
            } else {
                self.b.diag(
                    0,
                    0,
                    &format!("{path}.object"),
                    DiagLevel::Error,
                    "not a Responses API object (`object` is not \"response\"); skipped".into(),
                );
            }
            return;
        }
        if let Some(id) = resp.id.get() {
            self.b.session_id(id);
        }
        if let Some(m) = resp.model.get() {
            self.b.model(m);
        }
        let created = resp.created_at.0.and_then(time_secs).or(date);
        let done = resp.completed_at.0.and_then(time_secs).or(created);
        let Some(items) = &resp.output.0 else {
            return self.b.diag(
                0,
                0,
                &format!("{path}.output"),
                DiagLevel::Error,
                "required field `output` is missing or not a list".into(),
            );
        };
        let mut ipath = String::new();
        for (i, item) in items.iter().enumerate() {
            let at = if item.kind.get() == Some("message") {
                done
            } else {
                created
            };
            self.output_item(item, at, elem_path(&mut ipath, path, "output", i), true);
        }
    }

    fn output_item(&mut self, item: &Item, at: Option<Timestamp>, path: &str, cited: bool) {
        let kind = item.kind.get().unwrap_or("");
        match kind {
            "message" => {
                if item.role.get() != Some("assistant") {
                    return;
                }
                for (ci, part) in item.content.items().iter().enumerate() {
                    if part.kind.get() != Some("output_text") {
                        continue;
                    }
                    let text = part.text.get().unwrap_or("");
                    let sep = if self.answered { "\n\n" } else { "" };
                    let mut ppath = String::new();
                    elem_path(&mut ppath, path, "content", ci);
                    self.answered = true;
                    if cited {
                        // The claims' sentences, markers and URLs are ranges of this piece.
                        let piece = self.b.answer_piece_at(text, sep, at, &ppath);
                        // The answer's offsets are counted once for all its citations.
                        let offsets = Offsets::new(&piece);
                        let mut apath = String::new();
                        for (ai, a) in part.annotations.items().iter().enumerate() {
                            let apath = elem_path(&mut apath, &ppath, "annotations", ai);
                            self.annotation(&piece, &offsets, a, at, apath);
                        }
                    } else {
                        self.b.answer_text_at(text, sep, at, &ppath);
                    }
                }
            }
            "function_call" => {
                let Some(id) = item.call_id.get().or_else(|| item.id.get()) else {
                    return self.b.diag(
                        0,
                        0,
                        &format!("{path}.call_id"),
                        DiagLevel::Error,
                        "a function_call without `call_id`; skipped".into(),
                    );
                };
                if self.b.has_call(id) {
                    return;
                }
                let arguments = self.arguments(item.arguments, path);
                self.b.call(NewCall {
                    id: id.into(),
                    server: "app".into(),
                    tool: item.name.get().unwrap_or("").into(),
                    arguments,
                    at,
                    json_path: Some(json_path(path)),
                    ..NewCall::default()
                });
            }
            "custom_tool_call" | "computer_call" | "local_shell_call" | "shell_call"
            | "apply_patch_call" => self.app_call(item, kind, at, path),
            "mcp_call" => {
                let Some(id) = item.id.get() else {
                    return self.b.diag(
                        0,
                        0,
                        &format!("{path}.id"),
                        DiagLevel::Error,
                        "an mcp_call without `id`; skipped".into(),
                    );
                };
                if self.b.has_call(id) {
                    return;
                }
                let arguments = self.arguments(item.arguments, path);
                let server = item.server_label.get().unwrap_or("mcp").to_owned();
                let jp = json_path(path);
                self.b.call(NewCall {
                    id: id.into(),
                    server,
                    tool: item.name.get().unwrap_or("").into(),
                    arguments,
                    at,
                    json_path: Some(jp.clone()),
                    ..NewCall::default()
                });
                let error = item.error.non_null();
                let mut content = Vec::new();
                if let Some(o) = item.output.non_null() {
                    content.push(text_block(lax::text_of(o)));
                }
                if let Some(e) = error {
                    content.push(text_block(lax::text_of(e)));
                }
                self.record(NewResult {
                    call_id: id.into(),
                    content,
                    is_error: error.is_some(),
                    at,
                    json_path: Some(jp),
                    ..NewResult::default()
                });
            }
            "web_search_call" => {
                let Some(id) = item.id.get() else { return };
                if self.b.has_call(id) {
                    return;
                }
                // The action read once: its arguments are the action without `sources`.
                let without = lax::raw_without::<List<Source>>(item.action.0, "sources");
                let url = without.rest_str("url");
                let lax::Without {
                    raw: arguments,
                    removed: sources,
                    rest,
                } = without;
                let action = match rest {
                    Some(_) => Action {
                        sources: sources.unwrap_or_default(),
                        url: Str(url),
                        ..Action::default()
                    },
                    None => item
                        .action
                        .0
                        .and_then(|r| serde_json::from_str(r.get()).ok())
                        .unwrap_or_default(),
                };
                let jp = json_path(path);
                self.b.call(NewCall {
                    id: id.into(),
                    server: "openai".into(),
                    tool: "web_search".into(),
                    arguments,
                    at,
                    json_path: Some(jp.clone()),
                    ..NewCall::default()
                });
                let urls: Vec<_> = action
                    .sources
                    .items()
                    .iter()
                    .filter_map(|x| source_url(&x.url))
                    .chain(action.url.get().map(|u| (u.into(), None)))
                    .collect();
                // Sized exactly (a `collect` through `filter_map` grows from four, doubling, and
                // the result is shrunk again when the session is built).
                let mut content = Vec::with_capacity(urls.len());
                content.extend(urls.iter().map(|(u, raw)| match raw {
                    Some(raw) => link_block_raw(raw),
                    None => link_block(u, None),
                }));
                if content.is_empty() {
                    self.b.note("web_search_call items carry their sources only when the request sets include: [\"web_search_call.action.sources\"]; url_citation annotations of other URLs are unsourced");
                }
                // Every block links to one of these URLs (what `record` would read back from
                // each block's `uri`).
                // One copy of the call id for all its links (and the claims that cite them).
                let shared = Name::from(id);
                self.linked.reserve(content.len());
                for (u, _) in &urls {
                    self.linked.insert(strip_utm(u).to_owned(), shared.clone());
                }
                self.b.result(NewResult {
                    call_id: id.into(),
                    content,
                    at,
                    json_path: Some(jp),
                    ..NewResult::default()
                });
            }
            "file_search_call" => {
                let Some(id) = item.id.get() else { return };
                if self.b.has_call(id) {
                    return;
                }
                let args =
                    serde_json::json!({"queries": item.queries.value().unwrap_or(Value::Null)});
                let jp = json_path(path);
                self.b.call(NewCall {
                    id: id.into(),
                    server: "openai".into(),
                    tool: "file_search".into(),
                    arguments: util::raw(&args),
                    at,
                    json_path: Some(jp.clone()),
                    ..NewCall::default()
                });
                let results = item.results.value();
                let results = results.as_ref().and_then(Value::as_array);
                if results.is_none() {
                    self.b.note("file_search_call items carry their results only when the request sets include: [\"file_search_call.results\"]");
                }
                let content = results
                    .into_iter()
                    .flatten()
                    .map(|r| {
                        let mut blk = text_block(s(r, "text").unwrap_or("").to_owned());
                        for key in ["file_id", "filename", "score"] {
                            if let Some(v) = r.get(key).and_then(util::raw) {
                                blk.extra.push((key.into(), v));
                            }
                        }
                        blk
                    })
                    .collect();
                self.record(NewResult {
                    call_id: id.into(),
                    content,
                    at,
                    json_path: Some(jp),
                    ..NewResult::default()
                });
            }
            "reasoning"
            | "mcp_list_tools"
            | "mcp_approval_request"
            | "mcp_approval_response"
            | "" => {}
            other if other.ends_with("_call") => {
                // code_interpreter_call, image_generation_call, ...: a call run
                // by OpenAI, its output kept as received.
                let Some(id) = item.id.get().or_else(|| item.call_id.get()) else {
                    return;
                };
                if self.b.has_call(id) {
                    return;
                }
                let jp = json_path(path);
                self.b.call(NewCall {
                    id: id.into(),
                    server: "openai".into(),
                    tool: other.into(),
                    arguments: None,
                    at,
                    json_path: Some(jp.clone()),
                    ..NewCall::default()
                });
                let content = item
                    .outputs
                    .0
                    .or(item.result.0)
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                    .map(|v| util::blocks(&v))
                    .unwrap_or_default();
                self.record(NewResult {
                    call_id: id.into(),
                    content,
                    at,
                    json_path: Some(jp),
                    ..NewResult::default()
                });
            }
            // Other items (`item_reference`, `compaction`, ...) hold no call, result or answer.
            _ => {}
        }
    }

    /// A call of a tool the app runs (a custom tool, the computer, a shell, apply_patch): its
    /// output comes back in the next request (`<type>_output`), read by [`Conv::input_item`].
    /// Its arguments are what the model wrote: a custom tool's `input` text (as a JSON
    /// string), the computer's or shell's `action`, apply_patch's `operation`.
    fn app_call(&mut self, item: &Item, kind: &str, at: Option<Timestamp>, path: &str) {
        let Some(id) = item.call_id.get().or_else(|| item.id.get()) else {
            return self.b.diag(
                0,
                0,
                &format!("{path}.call_id"),
                DiagLevel::Error,
                format!("a {kind} without `call_id`; skipped"),
            );
        };
        if let Some(item_id) = item.id.get().filter(|i| *i != id) {
            self.call_of_item.insert(item_id.to_owned(), id.to_owned());
        }
        if self.b.has_call(id) {
            return;
        }
        let (tool, args) = match kind {
            "custom_tool_call" => (item.name.get().unwrap_or(""), item.input),
            "apply_patch_call" => ("apply_patch", item.operation),
            _ => (kind.strip_suffix("_call").unwrap_or(kind), item.action),
        };
        let arguments = args.0.and_then(lax::raw_value);
        self.b.call(NewCall {
            id: id.into(),
            server: "app".into(),
            tool: tool.into(),
            arguments,
            at,
            json_path: Some(json_path(path)),
            ..NewCall::default()
        });
    }

    fn arguments(&mut self, v: Raw, path: &str) -> Option<Box<serde_json::value::RawValue>> {
        match v.0.map(lax::raw_args) {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                self.b
                    .diag(0, 0, &format!("{path}.arguments"), DiagLevel::Warning, e);
                None
            }
            None => None,
        }
    }

    /// A claim from an annotation of `piece` (the answer's piece it annotates; `offsets` counts
    /// its text).
    fn annotation(
        &mut self,
        piece: &Name,
        offsets: &Offsets,
        a: &Annotation,
        at: Option<Timestamp>,
        path: &str,
    ) {
        let text = offsets.text();
        let kind = a.kind.get().unwrap_or("");
        match kind {
            "url_citation" => url_citation(
                &mut self.b,
                &self.linked,
                piece,
                offsets,
                UrlCitation {
                    url: a.url.get().unwrap_or(""),
                    title: a.title.get(),
                    start: a.start_index.0,
                    end: a.end_index.0,
                },
                at,
                (0, path),
            ),
            "file_citation" => {
                let file_id = a.file_id.get().unwrap_or("");
                let Some(index) = a.index.0 else {
                    return self.b.diag(
                        0,
                        0,
                        path,
                        DiagLevel::Error,
                        "a file_citation without `index`; skipped".into(),
                    );
                };
                let Some(r) = resolve_offsets_in(
                    offsets,
                    index,
                    index,
                    &[SpanUnit::Char, SpanUnit::Utf16, SpanUnit::Utf8],
                    None,
                ) else {
                    return self.b.diag(
                        0,
                        0,
                        path,
                        DiagLevel::Warning,
                        format!("index {index} is past the end of the answer; skipped"),
                    );
                };
                let claim = &text[sentence_before(text, r.bytes.start)];
                let call_id = self.b.find_result(|blocks| {
                    blocks.iter().any(|b| {
                        b.extra_field("file_id")
                            .map(|v| v.get().trim_matches('"') == file_id)
                            .unwrap_or(false)
                    })
                });
                if call_id.is_none() {
                    self.b.diag(0, 0, path, DiagLevel::Warning, format!("no recorded file search result came from file {file_id}; the claim is unsourced"));
                }
                let citation = CitationInfo {
                    kind: self.b.name(kind),
                    url: a.filename.get().map(|f| self.b.name(f)),
                    cited_text: None,
                };
                let text = piece.slice_of(claim.trim());
                self.b.claim_at(
                    NewClaim {
                        text,
                        call_id,
                        span: None,
                        citation,
                        marker: None,
                        json_path: None,
                    },
                    at,
                    path,
                );
            }
            other => self.b.diag(
                0,
                0,
                &format!("{path}.type"),
                DiagLevel::Warning,
                format!("annotation type `{other}` is not a citation provscope reads; skipped"),
            ),
        }
    }

    /// Records a result, noting the URLs its blocks link to.
    fn record(&mut self, r: NewResult) {
        let mut shared: Option<Name> = None;
        for b in &r.content {
            let uri = b
                .extra_field("uri")
                .and_then(|r| serde_json::from_str::<Str>(r.get()).ok());
            if let Some(u) = uri.as_ref().and_then(Str::get) {
                let id = shared.get_or_insert_with(|| Name::from(r.call_id.as_str()));
                self.linked.insert(strip_utm(u).to_owned(), id.clone());
            }
        }
        self.b.result(r);
    }
}

/// What a `url_citation` annotation says (Responses: the annotation's own fields; Chat
/// Completions: those of its `url_citation` object).
pub(super) struct UrlCitation<'t> {
    pub url: &'t str,
    pub title: Option<&'t str>,
    pub start: Option<u64>,
    pub end: Option<u64>,
}

/// A claim from a `url_citation` of `piece` (the answer's piece it annotates; `offsets` counts
/// its text), citing the call whose result `linked` says carried the URL. The offsets cover the
/// citation as rendered (`([site](url))`): the claim is the sentence before it.
#[allow(clippy::too_many_arguments)]
pub(super) fn url_citation(
    b: &mut Builder,
    linked: &HashMap<String, Name>,
    piece: &Name,
    offsets: &Offsets,
    c: UrlCitation,
    at: Option<Timestamp>,
    loc: (u64, &str),
) {
    // In a line file (Chat Completions records one a line), the line too.
    let (line, path) = loc;
    let UrlCitation {
        url,
        title,
        start,
        end,
    } = c;
    let text = offsets.text();
    let (Some(start), Some(end)) = (start, end) else {
        return b.diag(
            line,
            0,
            path,
            DiagLevel::Error,
            "a url_citation without start_index and end_index; skipped".into(),
        );
    };
    let check = |t: &str| {
        contains_short(t, url) || title.is_some_and(|x| !x.is_empty() && contains_short(t, x))
    };
    let units = [SpanUnit::Char, SpanUnit::Utf16, SpanUnit::Utf8];
    let Some(r) = resolve_offsets_in(offsets, start, end, &units, Some(&check)) else {
        return b.diag(
            line,
            0,
            path,
            DiagLevel::Warning,
            format!("offsets {start}..{end} do not fit the answer text; the annotation is skipped"),
        );
    };
    let slice = &text[r.bytes.clone()];
    let (claim, marker) = if r.matched == Some(true) {
        if r.unit != SpanUnit::Char {
            b.diag(
                line,
                0,
                path,
                DiagLevel::Warning,
                format!(
                    "offsets {start}..{end} match the citation only as {}, not characters",
                    unit_name(r.unit)
                ),
            );
        }
        // The offsets cover the citation as rendered ("([site](url))"): the claim is
        // the sentence before it.
        (
            &text[sentence_before(text, r.bytes.start)],
            Some(piece.slice_of(slice.trim())),
        )
    } else {
        b.diag(line, 0, path, DiagLevel::Warning, format!("the answer text at {start}..{end} does not show the cited URL in characters, UTF-16 or UTF-8 units; it is taken as the claim itself"));
        (slice, None)
    };
    let call_id = linked.get(strip_utm(url)).cloned();
    if call_id.is_none() {
        b.diag(
            line,
            0,
            path,
            DiagLevel::Warning,
            format!("no recorded tool result carried {url}; the claim is unsourced"),
        );
    }
    // The URL as the marker shows it, when it does (most do: `([site](url))`).
    let url = match marker
        .as_ref()
        .and_then(|m| find_short(m, url).map(|i| (m, i)))
    {
        Some((m, i)) => m.slice(i..i + url.len()).unwrap_or_else(|| b.name(url)),
        None => b.name(url),
    };
    // A static text: every claim of every answer holds it.
    static URL_CITATION: Name = crate::name_literal!("url_citation");
    let citation = CitationInfo {
        kind: URL_CITATION.clone(),
        url: Some(url),
        cited_text: None,
    };
    let text = piece.slice_of(claim.trim());
    b.claim_at(
        NewClaim {
            text,
            call_id,
            span: None,
            citation,
            marker,
            json_path: None,
        },
        at,
        path,
    );
}

/// OpenAI appends `utm_source=openai` to cited URLs that the search sources list without it.
pub(super) fn strip_utm(url: &str) -> &str {
    url.strip_suffix("?utm_source=openai")
        .or_else(|| url.strip_suffix("&utm_source=openai"))
        .unwrap_or(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url_of(json: &str) -> Option<(String, Option<String>)> {
        let raw: &RawValue = serde_json::from_str(json).unwrap();
        source_url(&Raw(Some(raw))).map(|(u, r)| (u.into_owned(), r.map(|r| r.get().to_owned())))
    }

    #[test]
    fn a_source_url_is_kept_as_written_unless_it_has_an_escape() {
        assert_eq!(
            url_of(r#""https://a.example/x?q=1""#),
            Some((
                "https://a.example/x?q=1".into(),
                Some(r#""https://a.example/x?q=1""#.into())
            ))
        );
        // An escape: decoded, and the link's raw string written anew.
        assert_eq!(
            url_of(r#""https:\/\/a.example\/x""#),
            Some(("https://a.example/x".into(), None))
        );
        assert_eq!(url_of(r#""""#), Some((String::new(), Some(r#""""#.into()))));
        assert_eq!(url_of("3"), None);
        assert_eq!(url_of("null"), None);
        // Its link block reads back the same URL either way.
        for json in [r#""https://a.example/x""#, r#""https:\/\/a.example\/x""#] {
            let raw: &RawValue = serde_json::from_str(json).unwrap();
            let (u, r) = source_url(&Raw(Some(raw))).unwrap();
            let b = r.map_or_else(|| link_block(&u, None), link_block_raw);
            assert_eq!(
                crate::ingest::import::build::block_uri(&b).as_deref(),
                Some("https://a.example/x")
            );
        }
    }
}
