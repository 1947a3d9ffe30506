//! Anthropic Messages: one response (`{"type":"message",...}`), or a VCR cassette of requests
//! and responses. Tool calls (`tool_use`, `server_tool_use`, `mcp_tool_use` with
//! `server_name`) and their results; text blocks' `citations` become derived stamps.

use super::api::{self, ApiFile};
use super::blocks::{self, SearchSpans};
use super::build::{
    block_uri_is, elem_path, json_path, Builder, Loc, NewCall, NewClaim, NewResult,
};
use super::cassette::{self, Interaction};
use super::cite::{char_range, resolve_offsets, same_text, unit_name};
use super::lax::{self, lax_object, Any, Bool, List, Raw, Str, TextOrList, U64};
use super::sniff::Head;
use super::sse;
use super::util::{self, s};
use super::Input;
use crate::model::{CitationInfo, DiagLevel, Name, Session, Span, SpanUnit, Timestamp};
use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;

lax_object! {
    /// A message: a response, or an assistant message replayed in a request.
    struct Message<'a> {
        kind: Str<'a> = "type",
        id: Str<'a> = "id",
        model: Str<'a> = "model",
        content: TextOrList<'a, Block<'a>> = "content",
    }
}

lax_object! {
    /// A content block of an assistant message: a call, a result or text.
    struct Block<'a> {
        kind: Str<'a> = "type",
        id: Str<'a> = "id",
        name: Str<'a> = "name",
        server_name: Str<'a> = "server_name",
        input: Raw<'a> = "input",
        tool_use_id: Str<'a> = "tool_use_id",
        content: Option<Any<'a>> = "content",
        is_error: Bool = "is_error",
        text: Str<'a> = "text",
        citations: List<Citation<'a>> = "citations",
    }
}

lax_object! {
    /// A text block's citation.
    struct Citation<'a> {
        kind: Str<'a> = "type",
        cited_text: Str<'a> = "cited_text",
        url: Str<'a> = "url",
        document_index: U64 = "document_index",
        start_char_index: U64 = "start_char_index",
        end_char_index: U64 = "end_char_index",
        start_block_index: U64 = "start_block_index",
        end_block_index: U64 = "end_block_index",
        search_result_index: U64 = "search_result_index",
    }
}

const NAME: &str = "anthropic-messages";
const HOSTS: &[&str] = &["api.anthropic.com", "anthropic.vertex", "bedrock-runtime"];

pub fn sniff(h: &Head) -> bool {
    if h.is_cassette() {
        return cassette::mentions(h.text, HOSTS);
    }
    if h.is_sse() {
        // A Messages stream starts with the message.
        return h.str("type") == Some("message_start");
    }
    let message = h.str("type") == Some("message");
    // The API writes `type` and `role` first; the Python SDK (`Message.to_json()`) writes `id`,
    // `container` and `content` before them, so a content longer than the head hides them: a
    // message id (`msg_`; Bedrock's `msg_bdrk_`, Vertex's `msg_vrtx_`) before `content` says it
    // (OpenAI's thread messages have such ids too, and an `object`).
    // A Message Batch's results: `{"custom_id", "result"}` lines.
    if h.has("custom_id") && h.has("result") {
        return true;
    }
    (message && h.str("role") == Some("assistant") && h.has("content"))
        || ((message || !h.has("type"))
            && h.str("id").is_some_and(|id| id.starts_with("msg_"))
            && h.has("content")
            && !h.has("object"))
}

/// A document given in a request, as a pseudo call.
struct Doc {
    call_id: String,
    text: Option<String>,
    blocks: Vec<String>,
}

struct Conv {
    b: Builder,
    /// document_index -> document, for the current request.
    docs: HashMap<u64, Doc>,
    /// search_result_index -> (call id, first block), for the current request.
    search: Vec<(String, usize, usize)>,
    /// Messages of the conversation already read (requests replay them).
    seen: usize,
    /// Which exchange the answer text of the current turn last came from.
    last_piece: Option<usize>,
    /// Every document seen: (text, blocks, call id).
    all_docs: Vec<(Option<String>, Vec<String>, String)>,
}

pub fn import(input: &Input) -> Vec<Session> {
    if is_batch(input) {
        return batch(input);
    }
    let mut c = Conv::new(Builder::new(NAME, input.name.clone(), input.source.clone()));
    api::read(&mut c, input);
    vec![c.b.finish()]
}

lax_object! {
    /// A line of a Message Batch's results (`GET /v1/messages/batches/{id}/results`).
    struct BatchLine<'a> {
        custom_id: Str<'a> = "custom_id",
        result: Option<BatchResult<'a>> = "result",
    }
}

lax_object! {
    /// The result of one request of a batch: `succeeded` with its `message`, `errored` with its
    /// `error`, `canceled` or `expired`.
    struct BatchResult<'a> {
        kind: Str<'a> = "type",
        message: Raw<'a> = "message",
        error: Raw<'a> = "error",
    }
}

/// The note on every session of a batch's results.
const BATCH_NOTE: &str = "a request of a Message Batch: its results hold each request's response (the message), not the request, so there is no user message, no documents and no times";

/// True when the input is a Message Batch's results: JSON lines (or a JSON array) of
/// `{"custom_id", "result"}` objects, judged from the first one's top-level keys.
fn is_batch(input: &Input) -> bool {
    let body = input.body();
    let cut = &body[..body.len().min(super::sniff::HEAD_BYTES)];
    let head = match std::str::from_utf8(cut) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&cut[..e.valid_up_to()]).unwrap_or(""),
    };
    // The keys up to the first nested value hold `result` or `custom_id` in a batch's line, in
    // any order (a response's first nested value is its `content` or `container`): the whole
    // first object is scanned only then.
    if Head::first_keys(head).is_some_and(|h| !h.has("custom_id") && !h.has("result")) {
        return false;
    }
    let h = Head::new(head);
    h.has("custom_id") && h.has("result")
}

/// A Message Batch's results: one session per request that succeeded (its response read as a
/// response file is, named by its `custom_id`, every place at its line); a request that did not
/// succeed is a warning at its line naming its result type.
fn batch(input: &Input) -> Vec<Session> {
    let mut out = Vec::new();
    // Problems of lines that give no session.
    let mut file = Builder::new(NAME, input.name.clone(), input.source.clone());
    let mut one = |line: u64, path: &str, raw: &str, file: &mut Builder| {
        let l: BatchLine = match serde_json::from_str(raw) {
            Ok(l) => l,
            Err(e) => {
                let (l, c) = if line == 0 {
                    (0, 0)
                } else {
                    (line, e.column() as u64)
                };
                let msg = format!(
                    "not a batch result ({}); skipped",
                    crate::ingest::strip_pos(&e.to_string())
                );
                return file.diag(l, c, path, DiagLevel::Error, msg);
            }
        };
        let at = |field: &str| {
            if path.is_empty() {
                field.to_owned()
            } else {
                format!("{path}.{field}")
            }
        };
        let id = l.custom_id.get().filter(|id| !id.trim().is_empty());
        let Some(r) = l.result else {
            let msg = "a batch result without a `result`; skipped".to_owned();
            return file.diag(line, 0, &at("result"), DiagLevel::Error, msg);
        };
        let named = match id {
            Some(id) => format!("request `{id}`"),
            None => "a request without a `custom_id`".to_owned(),
        };
        match r.kind.get() {
            Some("succeeded") => {}
            Some(kind @ ("errored" | "canceled" | "expired")) => {
                let why = match (kind, r.error.value()) {
                    ("errored", Some(e)) => {
                        // `{"type": "error", "error": {"type", "message"}}`, as the API answers.
                        let inner = e.get("error").unwrap_or(&e);
                        let t = s(inner, "type").unwrap_or("error");
                        match s(inner, "message") {
                            Some(m) => format!(": {t}: {m:?}"),
                            None => format!(": {t}"),
                        }
                    }
                    _ => String::new(),
                };
                let msg = format!("{named} of the batch is `{kind}`{why}: no response to read");
                return file.diag(line, 0, &at("result.type"), DiagLevel::Warning, msg);
            }
            other => {
                let msg = format!(
                    "{named} of the batch has the result type {}; skipped",
                    other.map_or("(none)".to_owned(), |t| format!("`{t}`"))
                );
                return file.diag(line, 0, &at("result.type"), DiagLevel::Warning, msg);
            }
        }
        let name = id.map_or_else(|| format!("{}#{line}", input.name), str::to_owned);
        let mut c = Conv::new(Builder::new(NAME, name, input.source.clone()));
        if let Some(id) = id {
            c.b.session_id(id);
        } else {
            let msg =
                "a batch result without a `custom_id`: the session is named by its line".to_owned();
            c.b.diag(0, 0, &at("custom_id"), DiagLevel::Warning, msg);
        }
        let mpath = at("result.message");
        match r
            .message
            .non_null()
            .map(|m| serde_json::from_str::<Message>(m.get()))
        {
            Some(Ok(m)) => c.message(&m, 0, &mpath, None),
            _ => {
                let msg = "a succeeded result without a message; nothing read".to_owned();
                c.b.diag(0, 0, &mpath, DiagLevel::Error, msg);
            }
        }
        c.b.note(BATCH_NOTE);
        let mut session = c.b.finish();
        at_line(&mut session, line);
        out.push(session);
    };
    let body = input.body();
    if body.trim_ascii_start().starts_with(b"[") {
        match serde_json::from_slice::<Vec<&serde_json::value::RawValue>>(body) {
            Ok(items) => {
                for (i, raw) in items.iter().enumerate() {
                    one(0, &format!("[{i}]"), raw.get(), &mut file);
                }
            }
            Err(e) => {
                let msg = format!(
                    "malformed JSON: {}; nothing read",
                    crate::ingest::strip_pos(&e.to_string())
                );
                file.diag(
                    e.line() as u64,
                    e.column() as u64,
                    "",
                    DiagLevel::Error,
                    msg,
                );
            }
        }
    } else {
        for (i, raw) in body.split(|&c| c == b'\n').enumerate() {
            let line = i as u64 + 1;
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match util::utf8(raw) {
                Ok(t) => one(line, "", t, &mut file),
                Err(e) => {
                    let msg = format!(
                        "invalid UTF-8 at byte {} of the line; line skipped",
                        e.valid_up_to() + 1
                    );
                    file.diag(line, 0, "", DiagLevel::Error, msg);
                }
            }
        }
    }
    let problems = file.finish().diagnostics;
    match out.first_mut() {
        Some(first) => {
            // The file's problems are told once, with its first session.
            first.diagnostics.extend(problems);
            first.diagnostics.sort_by_key(|d| d.line);
        }
        None => {
            let mut b = Builder::new(NAME, input.name.clone(), input.source.clone());
            let msg = "no request of this Message Batch's results succeeded: no response to read"
                .to_owned();
            b.diag(0, 0, "", DiagLevel::Error, msg);
            let mut s = b.finish();
            s.diagnostics.splice(0..0, problems);
            out.push(s);
        }
    }
    out
}

/// Places every record of a session read from line `line` of a file at that line (its JSON
/// paths are those within the line).
fn at_line(s: &mut Session, line: u64) {
    let set = |l: &mut u64| {
        if *l == 0 {
            *l = line;
        }
    };
    s.turns.iter_mut().for_each(|t| set(&mut t.line));
    s.calls.iter_mut().for_each(|c| set(&mut c.line));
    s.results.iter_mut().for_each(|r| set(&mut r.line));
    s.contexts.iter_mut().for_each(|c| set(&mut c.line));
    for a in &mut s.answers {
        set(&mut a.line);
        a.claims.iter_mut().for_each(|c| set(&mut c.line));
    }
    s.diagnostics.iter_mut().for_each(|d| set(&mut d.line));
}

impl ApiFile for Conv {
    type Response<'a> = Message<'a>;
    const HOSTS: &'static [&'static str] = HOSTS;
    const ENDPOINT: &'static str = "/messages";
    const RESPONSE_NOTE: &'static str = "a single response holds no user message and no times; documents cited by char_location, page_location and content_block_location are in the request, which a response does not include";
    const CASSETTE_NOTE: Option<&'static str> = Some("a cassette replays earlier turns in each request; citations are read from the responses, where the API returned them");

    fn builder(&mut self) -> &mut Builder {
        &mut self.b
    }

    fn request(&mut self, body: &Value, it: &Interaction, path: &str) {
        self.read_request(body, it.index, path, it.date);
    }

    fn interaction(&mut self, it: &Interaction, path: &str) {
        if !api::is_endpoint(&it.uri, Self::ENDPOINT) {
            return;
        }
        if let Some(req) = &it.request {
            self.request(req, it, &format!("{path}.request.body"));
        }
        let Some(resp) = &it.response else { return };
        let rpath = format!("{path}.response.body");
        if s(resp, "type") == Some("message") {
            // Read from its text as a response file is, with the exchange's index.
            let text = resp.to_string();
            if let Ok(m) = serde_json::from_str::<Message>(&text) {
                self.message(&m, it.index, &rpath, it.date)
            }
        } else if resp.get("error").is_some() {
            self.b.diag(
                0,
                0,
                &format!("{rpath}.error"),
                DiagLevel::Warning,
                "the API answered with an error; no message in this interaction".into(),
            );
        }
    }

    fn response(&mut self, m: &Message<'_>, path: &str, at: Option<Timestamp>) {
        self.message(m, 0, path, at);
    }

    fn assemble(events: impl Iterator<Item = sse::Event>, out: &mut impl sse::Out) {
        sse::anthropic(events, out)
    }
}

impl Conv {
    fn new(b: Builder) -> Self {
        Conv {
            b,
            docs: HashMap::default(),
            search: Vec::new(),
            seen: 0,
            last_piece: None,
            all_docs: Vec::new(),
        }
    }

    fn read_request(&mut self, req: &Value, ex: usize, path: &str, at: Option<Timestamp>) {
        if let Some(m) = s(req, "model") {
            self.b.model(m);
        }
        let msgs = util::arr(req, "messages");
        let new_from = if msgs.len() > self.seen { self.seen } else { 0 };
        for (mi, m) in msgs.iter().enumerate().skip(new_from) {
            let mpath = format!("{path}.messages[{mi}]");
            match s(m, "role") {
                Some("user") => self.user(m, at, &mpath),
                Some("assistant") => {
                    let text = m.to_string();
                    if let Ok(m) = serde_json::from_str::<Message>(&text) {
                        self.assistant(&m, ex, at, &mpath, false);
                    }
                }
                _ => self.b.diag(
                    0,
                    0,
                    &format!("{mpath}.role"),
                    DiagLevel::Warning,
                    "a message whose role is neither user nor assistant; skipped".into(),
                ),
            }
        }
        // Documents and search results are counted across the whole request.
        self.docs.clear();
        self.search.clear();
        let mut doc_index = 0u64;
        for (mi, m) in msgs.iter().enumerate() {
            let Some(content) = m.get("content").and_then(Value::as_array) else {
                continue;
            };
            for (bi, blk) in content.iter().enumerate() {
                let bpath = format!("{path}.messages[{mi}].content[{bi}]");
                match s(blk, "type") {
                    Some("document") => {
                        self.document(blk, doc_index, ex, at, &bpath);
                        doc_index += 1;
                    }
                    Some("search_result") => {
                        let id = format!("search_result:{ex}:{mi}:{bi}");
                        let (blocks, spans) =
                            blocks::result_blocks(&Value::Array(vec![blk.clone()]));
                        if !self.b.has_call(&id) {
                            self.b.call(NewCall {
                                id: id.clone(),
                                server: "user".into(),
                                tool: "search_result".into(),
                                arguments: util::raw(&serde_json::json!({"source": s(blk, "source"), "title": s(blk, "title")})),
                                at,
                                json_path: Some(json_path(&bpath)),
                                ..NewCall::default()
                            });
                            self.b.result(NewResult {
                                call_id: id.clone(),
                                content: blocks,
                                at,
                                json_path: Some(json_path(&bpath)),
                                ..NewResult::default()
                            });
                        }
                        self.push_search(&id, &spans);
                    }
                    Some("tool_result") => {
                        let (_, spans) =
                            blocks::result_blocks(blk.get("content").unwrap_or(&Value::Null));
                        if let Some(id) = s(blk, "tool_use_id") {
                            let id = id.to_owned();
                            self.push_search(&id, &spans);
                        }
                    }
                    _ => {}
                }
            }
        }
        self.seen = msgs.len() + 1;
    }

    fn push_search(&mut self, call_id: &str, spans: &SearchSpans) {
        for &(first, n) in spans {
            self.search.push((call_id.to_owned(), first, n));
        }
    }

    fn document(&mut self, blk: &Value, index: u64, ex: usize, at: Option<Timestamp>, path: &str) {
        let source = blk.get("source").unwrap_or(&Value::Null);
        let text = match s(source, "type") {
            Some("text") => s(source, "data").map(str::to_owned),
            _ => None,
        };
        let blocks: Vec<String> = match s(source, "type") {
            Some("content") => match source.get("content") {
                Some(Value::String(t)) => vec![t.clone()],
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|x| s(x, "text").map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        // The same document replayed by a later request is the same source.
        let call_id = match self.docs_by_content(&text, &blocks) {
            Some(id) => id,
            None => {
                let id = format!("document:{index}@{ex}");
                let mut content: Vec<crate::model::ContentBlock> = Vec::new();
                if let Some(t) = &text {
                    content.push(super::build::text_block(t.clone()));
                }
                content.extend(blocks.iter().map(|t| super::build::text_block(t.clone())));
                if text.is_none() && blocks.is_empty() {
                    self.b.note("a document with no text in the request (a PDF or an image): citations of it resolve to the document without a span");
                    if let Some(url) = s(source, "url") {
                        content.push(super::build::link_block(url, s(blk, "title")));
                    }
                }
                self.b.call(NewCall {
                    id: id.clone(),
                    server: "user".into(),
                    tool: "document".into(),
                    arguments: util::raw(
                        &serde_json::json!({"index": index, "title": s(blk, "title")}),
                    ),
                    at,
                    json_path: Some(json_path(path)),
                    ..NewCall::default()
                });
                self.b.result(NewResult {
                    call_id: id.clone(),
                    content,
                    at,
                    json_path: Some(json_path(path)),
                    ..NewResult::default()
                });
                self.all_docs
                    .push((text.clone(), blocks.clone(), id.clone()));
                id
            }
        };
        self.docs.insert(
            index,
            Doc {
                call_id,
                text,
                blocks,
            },
        );
    }

    fn docs_by_content(&self, text: &Option<String>, blocks: &[String]) -> Option<String> {
        self.all_docs
            .iter()
            .find(|(t, b, _)| t == text && b.as_slice() == blocks)
            .map(|(_, _, id)| id.clone())
    }

    fn user(&mut self, m: &Value, at: Option<Timestamp>, path: &str) {
        match m.get("content") {
            Some(Value::String(t)) => {
                self.b.turn(t, at, Loc::path(0, path));
                self.last_piece = None;
            }
            Some(Value::Array(items)) => {
                let text: Vec<&str> = items
                    .iter()
                    .filter(|x| s(x, "type") == Some("text"))
                    .filter_map(|x| s(x, "text"))
                    .collect();
                if !text.is_empty() {
                    self.b.turn(&text.join("\n"), at, Loc::path(0, path));
                    self.last_piece = None;
                }
                for (i, blk) in items.iter().enumerate() {
                    if s(blk, "type") == Some("tool_result") {
                        blocks::result(&mut self.b, blk, at, 0, &format!("{path}.content[{i}]"));
                    }
                }
            }
            _ => self.b.diag(
                0,
                0,
                &format!("{path}.content"),
                DiagLevel::Warning,
                "a user message without content; skipped".into(),
            ),
        }
    }

    fn message(&mut self, resp: &Message, ex: usize, path: &str, at: Option<Timestamp>) {
        if resp.kind.get() != Some("message") {
            self.b.diag(
                0,
                0,
                &format!("{path}.type"),
                DiagLevel::Error,
                "not a Messages API message (`type` is not \"message\"); skipped".into(),
            );
            return;
        }
        if let Some(id) = resp.id.get() {
            self.b.session_id(id);
        }
        if let Some(m) = resp.model.get() {
            self.b.model(m);
        }
        self.assistant(resp, ex, at, path, true);
    }

    fn assistant(
        &mut self,
        m: &Message,
        ex: usize,
        at: Option<Timestamp>,
        path: &str,
        cited: bool,
    ) {
        let items = match &m.content {
            TextOrList::List(a) => a.as_slice(),
            TextOrList::Text(t) => {
                let sep = if self.last_piece.is_some() {
                    "\n\n"
                } else {
                    ""
                };
                self.b.answer_text_at(t, sep, at, path);
                self.last_piece = Some(ex);
                return;
            }
            TextOrList::None => {
                self.b.diag(
                    0,
                    0,
                    &format!("{path}.content"),
                    DiagLevel::Error,
                    "required field `content` is missing or not a list; skipped".into(),
                );
                return;
            }
        };
        let (mut bpath, mut cpath) = (String::new(), String::new());
        for (i, blk) in items.iter().enumerate() {
            elem_path(&mut bpath, path, "content", i);
            let t = blk.kind.get().unwrap_or("");
            if blocks::is_call_type(t) {
                let fields = blocks::CallFields {
                    id: blk.id.get(),
                    name: blk.name.get().unwrap_or(""),
                    server_name: blk.server_name.get(),
                };
                let arguments = || blk.input.0.and_then(lax::raw_value);
                let host = blocks::host_of(t);
                blocks::record_call(&mut self.b, fields, arguments, host, (at, 0, &bpath), None);
            } else if blocks::is_result_type(t) {
                let content = blk.content.as_ref();
                // A server tool's error result is an object with an `error_code`.
                let error_code = content.is_some_and(|c| c.str("error_code").is_some());
                let is_error = blk.is_error.0 == Some(true) || error_code;
                let blocks = || blocks::result_blocks_any(content);
                let id = blk.tool_use_id.get();
                blocks::record_result(&mut self.b, id, blocks, is_error, (at, 0, &bpath));
            } else if t == "text" {
                let text = blk.text.get().unwrap_or("");
                let sep = match self.last_piece {
                    Some(e) if e != ex => "\n\n",
                    _ => "",
                };
                self.last_piece = Some(ex);
                if cited && !blk.citations.items().is_empty() {
                    // The block's claims are ranges of its text (no copy of their own).
                    let piece = self.b.answer_piece_at(text, sep, at, &bpath);
                    for (ci, c) in blk.citations.items().iter().enumerate() {
                        let cpath = elem_path(&mut cpath, &bpath, "citations", ci);
                        self.citation(&piece, c, at, cpath);
                    }
                } else {
                    self.b.answer_text_at(text, sep, at, &bpath);
                }
            }
        }
    }

    /// A claim from a citation of the text block `claim` (the answer's piece it is).
    fn citation(&mut self, claim: &Name, c: &Citation, at: Option<Timestamp>, path: &str) {
        let kind = c.kind.get().unwrap_or("").to_owned();
        let cited_text = c.cited_text.get().map(str::to_owned);
        let url = c.url.get().map(|u| self.b.name(u));
        let citation = CitationInfo {
            kind: self.b.name(&kind),
            url: url.clone(),
            cited_text: cited_text.clone(),
        };
        let mut claim_out = NewClaim {
            text: claim.slice_of(claim.trim()),
            call_id: None,
            span: None,
            citation,
            marker: None,
            json_path: Some(json_path(path)),
        };
        match kind.as_str() {
            "char_location" | "page_location" | "content_block_location" => {
                let Some(di) = c.document_index.0 else {
                    return self.bad(
                        path,
                        "document_index",
                        "a citation without a `document_index`",
                    );
                };
                let Some(doc) = self.docs.get(&di) else {
                    self.b.diag(0, 0, path, DiagLevel::Warning, format!("{kind} citation of document {di}, which is in the request, not in this file: the claim keeps a dangling origin"));
                    claim_out.call_id = Some(format!("document:{di}").into());
                    let loc = Loc {
                        line: 0,
                        path: claim_out.json_path.clone(),
                    };
                    self.b.claim(claim_out, at, loc);
                    return;
                };
                claim_out.call_id = Some(doc.call_id.as_str().into());
                let check = |t: &str| cited_text.as_deref().is_none_or(|ct| same_text(t, ct));
                match kind.as_str() {
                    "char_location" => {
                        let (Some(a), Some(z)) = (c.start_char_index.0, c.end_char_index.0) else {
                            return self.bad(path, "start_char_index", "a char_location citation without start and end");
                        };
                        match doc.text.as_deref().map(|t| (t, resolve_offsets(t, a, z, &[SpanUnit::Char, SpanUnit::Utf16, SpanUnit::Utf8], Some(&check)))) {
                            Some((t, Some(r))) => {
                                let (cs, ce) = char_range(t, &r.bytes);
                                claim_out.span = Some(Span { block: 0, start: cs, end: ce });
                                if r.matched == Some(false) {
                                    self.b.diag(0, 0, path, DiagLevel::Warning, format!("the document text at {a}..{z} does not match cited_text in characters, UTF-16 or UTF-8 units; the span is kept in {}", unit_name(r.unit)));
                                } else if r.unit != SpanUnit::Char {
                                    self.b.diag(0, 0, path, DiagLevel::Warning, format!("offsets {a}..{z} match the cited text only as {}, not characters", unit_name(r.unit)));
                                }
                            }
                            _ => self.b.diag(0, 0, path, DiagLevel::Warning, format!("offsets {a}..{z} do not fit the document's text; the claim has no span")),
                        }
                    }
                    "content_block_location" => {
                        let (Some(a), Some(z)) = (c.start_block_index.0, c.end_block_index.0) else {
                            return self.bad(path, "start_block_index", "a content_block_location citation without start and end");
                        };
                        match doc.blocks.get(a as usize) {
                            Some(t) => {
                                claim_out.span = Some(Span { block: a, start: 0, end: t.chars().count() as u64 });
                                if z > a + 1 {
                                    self.b.diag(0, 0, path, DiagLevel::Warning, format!("the citation covers blocks {a}..{z}; a span covers one block, so it cites block {a}"));
                                }
                            }
                            None => self.b.diag(0, 0, path, DiagLevel::Warning, format!("block {a} is not in the document; the claim has no span")),
                        }
                    }
                    _ => self.b.note("page_location citations name pages of a PDF, whose text provscope does not read: they resolve to the document without a span"),
                }
            }
            "search_result_location" => {
                let Some(si) = c.search_result_index.0 else {
                    return self.bad(
                        path,
                        "search_result_index",
                        "a citation without a `search_result_index`",
                    );
                };
                match self.search.get(si as usize).cloned() {
                    Some((call_id, first, n)) => {
                        let a = c.start_block_index.0.unwrap_or(0) as usize;
                        let z = c.end_block_index.0.unwrap_or(a as u64 + 1) as usize;
                        claim_out.call_id = Some(call_id.into());
                        if a < n {
                            let len = self.block_len(claim_out.call_id.as_deref().unwrap_or(""), first + a);
                            claim_out.span = Some(Span { block: (first + a) as u64, start: 0, end: len });
                            if z > a + 1 {
                                self.b.diag(0, 0, path, DiagLevel::Warning, format!("the citation covers blocks {a}..{z} of search result {si}; a span covers one block, so it cites block {a}"));
                            }
                        }
                    }
                    None => self.b.diag(0, 0, path, DiagLevel::Warning, format!("search result {si} is not in this file's requests; the claim is unsourced")),
                }
            }
            "web_search_result_location" => {
                let found = url.as_deref().and_then(|u| self.result_with_url(u));
                match found {
                    Some(id) => claim_out.call_id = Some(id),
                    None => self.b.diag(
                        0,
                        0,
                        path,
                        DiagLevel::Warning,
                        format!(
                            "no recorded search result carried {}; the claim is unsourced",
                            url.as_deref().unwrap_or("(no url)")
                        ),
                    ),
                }
            }
            other => {
                self.b.diag(
                    0,
                    0,
                    &format!("{path}.type"),
                    DiagLevel::Warning,
                    format!("unknown citation type `{other}`; skipped"),
                );
                return;
            }
        }
        let loc = Loc {
            line: 0,
            path: claim_out.json_path.clone(),
        };
        self.b.claim(claim_out, at, loc);
    }

    fn bad(&mut self, path: &str, field: &str, what: &str) {
        self.b.diag(
            0,
            0,
            &format!("{path}.{field}"),
            DiagLevel::Error,
            format!("{what}; the citation is skipped"),
        );
    }

    fn block_len(&self, call_id: &str, block: usize) -> u64 {
        self.b
            .result_block_text(call_id, block)
            .map_or(0, |t| t.chars().count() as u64)
    }

    fn result_with_url(&self, url: &str) -> Option<Name> {
        self.b
            .find_result(|blocks| blocks.iter().any(|b| block_uri_is(b, url)))
    }
}
