//! Gemini `generateContent`: one response (`{"candidates":[...]}`) or a VCR cassette. Function
//! calls and responses, Gemini 3 server-side `toolCall`/`toolResponse` parts (with `id`), code
//! execution; `groundingMetadata.groundingSupports` become derived stamps: `segment` offsets are
//! UTF-8 bytes into the answer part, `groundingChunkIndices` point at `groundingChunks` (web
//! `uri`/`title`, or `retrievedContext` text), which become the grounding call's result.
//! A response the Python SDK wrote (`to_json_dict()`, `model_dump_json()`) has the same fields
//! in snake_case (`grounding_metadata`, `function_call`, `start_index`): both are read.

use super::api::{self, ApiFile};
use super::build::{
    elem_path, json_path, link_block, text_block, Builder, Loc, NewCall, NewClaim, NewResult,
};
use super::cassette::{self, Interaction};
use super::cite::{char_range, resolve_offsets_in, same_text, unit_name, Offsets};
use super::lax::{self, lax_object, Bool, List, Opt, Raw, Str, U64};
use super::sniff::Head;
use super::sse;
use super::util::{self, s, time_str};
use super::Input;
use crate::model::{CitationInfo, DiagLevel, Name, Session, Span, SpanUnit, Timestamp};
use serde_json::Value;

lax_object! {
    /// A `generateContent` response: the fields the importer reads.
    struct Response<'a> {
        candidates: List<Candidate<'a>> = "candidates",
        error: Raw<'a> = "error",
        response_id: Str<'a> = "responseId" | "response_id",
        model_version: Str<'a> = "modelVersion" | "model_version",
        create_time: Str<'a> = "createTime" | "create_time",
    }
}

lax_object! {
    /// A candidate: its content and grounding (its key's spelling names the paths under it).
    struct Candidate<'a> {
        content: Content<'a> = "content",
        grounding: Opt<Grounding<'a>> = "groundingMetadata",
        grounding_snake: Opt<Grounding<'a>> = "grounding_metadata",
    }
}

lax_object! {
    /// A model turn's content.
    struct Content<'a> {
        parts: List<Part<'a>> = "parts",
    }
}

lax_object! {
    /// One part of a content: text, a call, code or its result.
    struct Part<'a> {
        text: Str<'a> = "text",
        thought: Bool = "thought",
        function_call: Opt<FunctionCall<'a>> = "functionCall" | "function_call",
        tool_call: Opt<ToolCall<'a>> = "toolCall" | "tool_call",
        executable_code: Raw<'a> = "executableCode" | "executable_code",
        code_result: Opt<CodeResult<'a>> = "codeExecutionResult" | "code_execution_result",
    }
}

lax_object! {
    /// A `functionCall` part.
    struct FunctionCall<'a> {
        name: Str<'a> = "name",
        id: Str<'a> = "id",
        args: Raw<'a> = "args",
    }
}

lax_object! {
    /// A Gemini 3 server-side `toolCall` part.
    struct ToolCall<'a> {
        id: Str<'a> = "id",
        tool_type: Str<'a> = "toolType" | "tool_type",
        args: Raw<'a> = "args",
    }
}

lax_object! {
    /// A `codeExecutionResult` part.
    struct CodeResult<'a> {
        output: Str<'a> = "output",
        outcome: Str<'a> = "outcome",
    }
}

lax_object! {
    /// A candidate's `groundingMetadata`.
    struct Grounding<'a> {
        chunks: List<Chunk<'a>> = "groundingChunks" | "grounding_chunks",
        web_search_queries: Raw<'a> = "webSearchQueries" | "web_search_queries",
        retrieval_queries: Raw<'a> = "retrievalQueries" | "retrieval_queries",
        supports: List<Support<'a>> = "groundingSupports" | "grounding_supports",
    }
}

/// One of `groundingChunks`, read once: its web or retrieved-context fields, or, for a chunk
/// with neither, the whole value (kept as a content block as it is).
#[derive(Default)]
struct Chunk<'a> {
    web: Opt<Web<'a>>,
    retrieved: Opt<Retrieved<'a>>,
    /// The chunk as a `Value` when it has neither `web` nor `retrievedContext` (`Null` when
    /// one of its values is not one `Value` can hold).
    other: Option<Value>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Chunk<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, SeqAccess, Visitor};
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Chunk<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Chunk<'a>, A::Error> {
                let mut c = Chunk::default();
                // Other keys, as `serde_json` would read the object into a `Value` (the last of
                // duplicate keys wins, in the place of the first).
                let mut rest = serde_json::Map::new();
                let mut bad = false;
                while let Some(lax::Key(k)) = m.next_key::<lax::Key<'de>>()? {
                    match &*k {
                        "web" => c.web = m.next_value()?,
                        "retrievedContext" | "retrieved_context" => c.retrieved = m.next_value()?,
                        _ => {
                            let raw: &'de serde_json::value::RawValue = m.next_value()?;
                            match serde_json::from_str::<Value>(raw.get()) {
                                Ok(v) => {
                                    rest.insert(k.into_owned(), v);
                                }
                                Err(_) => bad = true,
                            }
                        }
                    }
                }
                if c.web.0.is_none() && c.retrieved.0.is_none() {
                    c.other = Some(if bad {
                        Value::Null
                    } else {
                        Value::Object(rest)
                    });
                }
                Ok(c)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Chunk<'a>, A::Error> {
                let v = <Value as serde::Deserialize>::deserialize(
                    serde::de::value::SeqAccessDeserializer::new(seq),
                )?;
                Ok(Chunk::of(v))
            }
            fn visit_bool<E>(self, b: bool) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::Bool(b)))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::from(n)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::from(n)))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::from(n)))
            }
            fn visit_str<E>(self, t: &str) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::String(t.to_owned())))
            }
            fn visit_string<E>(self, t: String) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::String(t)))
            }
            fn visit_unit<E>(self) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Chunk<'a>, E> {
                Ok(Chunk::of(Value::Null))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl Chunk<'_> {
    /// A chunk that is not an object.
    fn of(v: Value) -> Self {
        Chunk {
            other: Some(v),
            ..Chunk::default()
        }
    }
}

lax_object! {
    /// A web chunk.
    struct Web<'a> {
        uri: Str<'a> = "uri",
        title: Str<'a> = "title",
    }
}

lax_object! {
    /// A retrieved-context chunk.
    struct Retrieved<'a> {
        text: Str<'a> = "text",
        uri: Str<'a> = "uri",
    }
}

lax_object! {
    /// One of `groundingSupports`.
    struct Support<'a> {
        segment: Segment<'a> = "segment",
        chunk_indices: List<U64> = "groundingChunkIndices" | "grounding_chunk_indices",
    }
}

lax_object! {
    /// A support's `segment` of the answer.
    struct Segment<'a> {
        start: U64 = "startIndex" | "start_index",
        end: U64 = "endIndex" | "end_index",
        text: Str<'a> = "text",
        part_index: U64 = "partIndex" | "part_index",
    }
}

/// The keys of grounding metadata as a response spells them, for the JSON paths under it.
struct Spelling {
    metadata: &'static str,
    chunks: &'static str,
    supports: &'static str,
    end_index: &'static str,
}

/// The API's spelling (camelCase).
const API_KEYS: Spelling = Spelling {
    metadata: "groundingMetadata",
    chunks: "groundingChunks",
    supports: "groundingSupports",
    end_index: "endIndex",
};

/// The Python SDK's (`to_json_dict()`: snake_case).
const SDK_KEYS: Spelling = Spelling {
    metadata: "grounding_metadata",
    chunks: "grounding_chunks",
    supports: "grounding_supports",
    end_index: "end_index",
};

const NAME: &str = "gemini";
const HOSTS: &[&str] = &[
    "generativelanguage.googleapis.com",
    "aiplatform.googleapis.com",
];

/// The arguments of a grounding call, `{"queries": ...}`, as `util::raw` writes the `json!`
/// object of them (compact), written directly.
fn queries_arguments(queries: &Value) -> Option<Box<serde_json::value::RawValue>> {
    let mut json = b"{\"queries\":".to_vec();
    serde_json::to_writer(&mut json, queries).ok()?;
    json.push(b'}');
    String::from_utf8(json)
        .ok()
        .and_then(|j| serde_json::value::RawValue::from_string(j).ok())
}

pub fn sniff(h: &Head) -> bool {
    if h.is_cassette() {
        return cassette::mentions(h.text, HOSTS);
    }
    // The text first: a response's first candidate has content right away, and a key not asked
    // for is one that a detection from the first keys need not see again (`FirstKeys`).
    h.has("candidates")
        && (h.text.contains("\"content\"") || h.has("usageMetadata") || h.has("modelVersion"))
}

struct Conv {
    b: Builder,
    seen: usize,
    answered: bool,
    responses: usize,
    /// Calls without an id, waiting for their response (matched by name, in order).
    open_calls: Vec<(String, String)>,
}

pub fn import(input: &Input) -> Vec<Session> {
    let mut c = Conv {
        b: Builder::new(NAME, input.name.clone(), input.source.clone()),
        seen: 0,
        answered: false,
        responses: 0,
        open_calls: Vec::new(),
    };
    api::read(&mut c, input);
    vec![c.b.finish()]
}

impl ApiFile for Conv {
    type Response<'a> = Response<'a>;
    const HOSTS: &'static [&'static str] = HOSTS;
    const ENDPOINT: &'static str = ":generateContent";
    const STREAMED_CHUNKS: bool = true;
    // Half of a response is `searchEntryPoint.renderedContent`, skipped faster by the skim.
    const SKIM: bool = true;
    const RESPONSE_NOTE: &'static str =
        "a single response holds no user message: turn 1 has an empty user message";

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
        sse::gemini(events, out)
    }
}

impl Conv {
    fn read_request(&mut self, req: &Value, path: &str, at: Option<Timestamp>) {
        let contents = util::arr(req, "contents");
        let from = if contents.len() > self.seen {
            self.seen
        } else {
            0
        };
        for (i, content) in contents.iter().enumerate().skip(from) {
            let cpath = format!("{path}.contents[{i}]");
            match s(content, "role") {
                Some("model") => {
                    let text = content.to_string();
                    if let Ok(content) = serde_json::from_str::<Content>(&text) {
                        self.model_parts(&content, at, &cpath, None);
                    }
                }
                _ => {
                    let parts = util::arr(content, "parts");
                    let text: Vec<&str> = parts.iter().filter_map(|p| s(p, "text")).collect();
                    if !text.is_empty() {
                        self.b.turn(&text.join("\n"), at, Loc::path(0, &cpath));
                        self.answered = false;
                    }
                    for (pi, p) in parts.iter().enumerate() {
                        if let Some(fr) = p.get("functionResponse") {
                            self.function_response(
                                fr,
                                at,
                                &format!("{cpath}.parts[{pi}].functionResponse"),
                            );
                        }
                    }
                }
            }
        }
        self.seen = contents.len() + 1;
    }

    fn function_response(&mut self, fr: &Value, at: Option<Timestamp>, path: &str) {
        let name = s(fr, "name").unwrap_or("");
        let id = match s(fr, "id") {
            Some(id) => Some(id.to_owned()),
            None => self
                .open_calls
                .iter()
                .position(|(_, n)| n == name)
                .map(|i| self.open_calls.remove(i).0),
        };
        let Some(id) = id else {
            return self.b.diag(
                0,
                0,
                path,
                DiagLevel::Warning,
                format!("a functionResponse for `{name}` with no matching call; skipped"),
            );
        };
        if self.b.has_result(&id) {
            return;
        }
        let content = fr
            .get("response")
            .map(|r| vec![text_block(r.to_string())])
            .unwrap_or_default();
        self.b.result(NewResult {
            call_id: id,
            content,
            at,
            json_path: Some(json_path(path)),
            ..NewResult::default()
        });
    }

    fn read_response(&mut self, resp: &Response, path: &str, at: Option<Timestamp>) {
        let Some(cands) = &resp.candidates.0 else {
            if resp.error.0.is_some() {
                self.b.diag(
                    0,
                    0,
                    &format!("{path}.error"),
                    DiagLevel::Warning,
                    "the API answered with an error; no candidates in this interaction".into(),
                );
            } else {
                self.b.diag(
                    0,
                    0,
                    &format!("{path}.candidates"),
                    DiagLevel::Error,
                    "required field `candidates` is missing or not a list".into(),
                );
            }
            return;
        };
        self.responses += 1;
        if let Some(id) = resp.response_id.get() {
            self.b.session_id(id);
        }
        if let Some(m) = resp.model_version.get() {
            self.b.model(m);
        }
        let at = resp.create_time.get().and_then(time_str).or(at);
        if cands.len() > 1 {
            self.b
                .note("responses with several candidates: the first candidate is read");
        }
        let Some(cand) = cands.first() else { return };
        let cpath = format!("{path}.candidates[0]");
        self.model_parts(
            &cand.content,
            at,
            &format!("{cpath}.content"),
            match (&cand.grounding.0, &cand.grounding_snake.0) {
                (Some(g), _) => Some((g, &API_KEYS)),
                (None, Some(g)) => Some((g, &SDK_KEYS)),
                (None, None) => None,
            }
            .map(|(g, keys)| (g, keys, format!("{cpath}.{}", keys.metadata))),
        );
    }

    fn model_parts(
        &mut self,
        content: &Content,
        at: Option<Timestamp>,
        path: &str,
        grounding: Option<(&Grounding, &Spelling, String)>,
    ) {
        let parts = content.parts.items();
        // The answer's text parts, as names when their claims are ranges of them.
        let mut pieces: Vec<(usize, Name)> = Vec::new();
        let mut search_call: Option<String> = None;
        let mut ppath = String::new();
        for (i, p) in parts.iter().enumerate() {
            elem_path(&mut ppath, path, "parts", i);
            if let Some(t) = p.text.get() {
                if p.thought.0 == Some(true) {
                    continue;
                }
                let sep = if self.answered { "\n\n" } else { "" };
                if grounding.is_some() {
                    pieces.push((i, self.b.answer_piece_at(t, sep, at, &ppath)));
                } else {
                    self.b.answer_text_at(t, sep, at, &ppath);
                }
                self.answered = true;
            } else if let Some(fc) = &p.function_call.0 {
                let name = fc.name.get().unwrap_or("").to_owned();
                let id = match fc.id.get() {
                    Some(id) => id.to_owned(),
                    None => {
                        let id = format!("{name}#{}.{i}", self.responses);
                        self.open_calls.push((id.clone(), name.clone()));
                        id
                    }
                };
                if !self.b.has_call(&id) {
                    self.b.call(NewCall {
                        id,
                        server: "app".into(),
                        tool: name,
                        arguments: fc.args.value().and_then(|v| util::raw(&v)),
                        at,
                        json_path: Some(json_path(&ppath)),
                        ..NewCall::default()
                    });
                }
            } else if let Some(tc) = &p.tool_call.0 {
                // Gemini 3 server-side tools (file search, Google search) with an id.
                let Some(id) = tc.id.get() else {
                    self.b.diag(
                        0,
                        0,
                        &format!("{ppath}.toolCall.id"),
                        DiagLevel::Warning,
                        "a toolCall without an id; skipped".into(),
                    );
                    continue;
                };
                let tool = tc.tool_type.get().unwrap_or("tool").to_ascii_lowercase();
                if !self.b.has_call(id) {
                    let args = tc.args.value().unwrap_or(Value::Object(Default::default()));
                    self.b.call(NewCall {
                        id: id.into(),
                        server: "google".into(),
                        tool,
                        arguments: util::raw(&args),
                        at,
                        json_path: Some(json_path(&ppath)),
                        ..NewCall::default()
                    });
                }
                search_call = Some(id.to_owned());
            } else if let Some(code) = p.executable_code.0 {
                let id = format!("code_execution#{}.{i}", self.responses);
                self.b.call(NewCall {
                    id: id.clone(),
                    server: "google".into(),
                    tool: "code_execution".into(),
                    arguments: lax::raw_value(code),
                    at,
                    json_path: Some(json_path(&ppath)),
                    ..NewCall::default()
                });
                self.open_calls.push((id, "code_execution".into()));
            } else if let Some(out) = &p.code_result.0 {
                if let Some(pos) = self
                    .open_calls
                    .iter()
                    .position(|(_, n)| n == "code_execution")
                {
                    let (id, _) = self.open_calls.remove(pos);
                    self.b.result(NewResult {
                        call_id: id,
                        content: vec![text_block(out.output.get().unwrap_or("").to_owned())],
                        is_error: out.outcome.get().is_some_and(|o| o != "OUTCOME_OK"),
                        at,
                        json_path: Some(json_path(&ppath)),
                        ..NewResult::default()
                    });
                }
            }
        }
        if let Some((g, keys, gpath)) = grounding {
            let texts: Vec<(usize, &Name, Offsets)> = pieces
                .iter()
                .map(|(i, n)| (*i, n, Offsets::new(n)))
                .collect();
            self.grounding(g, keys, &gpath, &texts, search_call, at);
        }
    }

    fn grounding(
        &mut self,
        g: &Grounding,
        keys: &Spelling,
        path: &str,
        texts: &[(usize, &Name, Offsets)],
        call: Option<String>,
        at: Option<Timestamp>,
    ) {
        let chunks = g.chunks.items();
        if chunks.is_empty() {
            return;
        }
        let queries = g
            .web_search_queries
            .0
            .or(g.retrieval_queries.0)
            .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            .unwrap_or(Value::Null);
        let web = chunks.iter().any(|c| c.web.0.is_some());
        let call_id = match call {
            Some(id) => id,
            None => {
                let id = format!("grounding#{}", self.responses);
                let tool = if web { "google_search" } else { "retrieval" };
                self.b.call(NewCall {
                    id: id.clone(),
                    server: "google".into(),
                    tool: tool.into(),
                    arguments: queries_arguments(&queries),
                    at,
                    json_path: Some(json_path(path)),
                    ..NewCall::default()
                });
                id
            }
        };
        let content = chunks
            .iter()
            .map(|c| {
                if let Some(w) = &c.web.0 {
                    link_block(w.uri.get().unwrap_or(""), w.title.get())
                } else if let Some(r) = &c.retrieved.0 {
                    let mut b = text_block(r.text.get().unwrap_or("").to_owned());
                    if let Some(u) = r.uri.get() {
                        if let Ok(v) = serde_json::value::to_raw_value(u) {
                            b.extra.push(("uri".into(), v));
                        }
                    }
                    b
                } else {
                    util::block(c.other.as_ref().unwrap_or(&Value::Null))
                }
            })
            .collect();
        if !self.b.has_result(&call_id) {
            self.b.result(NewResult {
                call_id: call_id.clone(),
                content,
                at,
                json_path: Some(json_path(&format!("{path}.{}", keys.chunks))),
                ..NewResult::default()
            });
        }
        // One id for all the claims that cite the call.
        let call_name = Name::from(call_id.as_str());
        let mut spath = String::new();
        for (si, sup) in g.supports.items().iter().enumerate() {
            elem_path(&mut spath, path, keys.supports, si);
            let seg = &sup.segment;
            let start = seg.start.0.unwrap_or(0);
            let Some(end) = seg.end.0 else {
                self.b.diag(
                    0,
                    0,
                    &format!("{spath}.segment.{}", keys.end_index),
                    DiagLevel::Error,
                    "a grounding support without `segment.endIndex`; skipped".into(),
                );
                continue;
            };
            let seg_text = seg.text.get();
            let check = |t: &str| seg_text.is_none_or(|x| same_text(t, x));
            // `partIndex` may be omitted even when the text is not parts[0] (Gemini 3 puts the
            // tool call and response parts first): try the named part, else each text part.
            let named = seg.part_index.0.map(|p| p as usize);
            let candidates = texts
                .iter()
                .filter(|(i, _, _)| named.is_none_or(|p| *i == p));
            let units = [SpanUnit::Utf8, SpanUnit::Char, SpanUnit::Utf16];
            let mut found = None;
            let mut fallback = None;
            for (_, _, o) in candidates {
                if let Some(r) = resolve_offsets_in(o, start, end, &units, Some(&check)) {
                    if r.matched != Some(false) {
                        found = Some((o.text(), r));
                        break;
                    }
                    if fallback.is_none() {
                        fallback = Some((o.text(), r));
                    }
                }
            }
            let (claim_text, unit_note) = match (found, fallback) {
                (Some((t, r)), _) => (
                    &t[r.bytes.clone()],
                    (r.unit != SpanUnit::Utf8).then_some(r.unit),
                ),
                (None, Some((t, r))) => {
                    self.b.diag(0, 0, &format!("{spath}.segment"), DiagLevel::Warning, format!("the answer text at {start}..{end} does not match segment.text in UTF-8, character or UTF-16 units; the segment's own text is the claim"));
                    (seg_text.unwrap_or(&t[r.bytes]), None)
                }
                (None, None) => match seg_text {
                    Some(x) => {
                        self.b.diag(0, 0, &format!("{spath}.segment"), DiagLevel::Warning, format!("offsets {start}..{end} do not fit the answer part; the segment's own text is the claim"));
                        (x, None)
                    }
                    None => {
                        self.b.diag(0, 0, &format!("{spath}.segment"), DiagLevel::Warning, format!("offsets {start}..{end} do not fit the answer part and the segment has no text; skipped"));
                        continue;
                    }
                },
            };
            if let Some(u) = unit_note {
                self.b.diag(
                    0,
                    0,
                    &format!("{spath}.segment"),
                    DiagLevel::Warning,
                    format!(
                        "offsets {start}..{end} match only as {}, not UTF-8 bytes",
                        unit_name(u)
                    ),
                );
            }
            // One JSON path for the support's claims and the answer they may start.
            let jp = json_path(&spath);
            for ci in sup.chunk_indices.items() {
                let Some(ci) = ci.0 else { continue };
                let Some(chunk) = chunks.get(ci as usize) else {
                    self.b.diag(
                        0,
                        0,
                        &format!("{spath}.groundingChunkIndices"),
                        DiagLevel::Warning,
                        format!("chunk {ci} is not in groundingChunks; skipped"),
                    );
                    continue;
                };
                let web = chunk.web.0.as_ref();
                let text = chunk.retrieved.0.as_ref().and_then(|r| r.text.get());
                let span = text.map(|t| {
                    let (a, z) = char_range(t, &(0..t.len()));
                    Span {
                        block: ci,
                        start: a,
                        end: z,
                    }
                });
                let citation = CitationInfo {
                    kind: self.b.name(if web.is_some() {
                        "grounding_chunk.web"
                    } else {
                        "grounding_chunk.retrieved_context"
                    }),
                    url: web.and_then(|w| w.uri.get()).map(|u| self.b.name(u)),
                    cited_text: None,
                };
                // A range of the answer's part when it is one (not the segment's own text).
                let claim = claim_text.trim();
                let text = texts
                    .iter()
                    .find_map(|(_, n, _)| n.range_of(claim).and_then(|r| n.slice(r)))
                    .unwrap_or_else(|| self.b.name(claim));
                self.b.claim(
                    NewClaim {
                        text,
                        call_id: Some(call_name.clone()),
                        span,
                        citation,
                        marker: None,
                        json_path: Some(jp.clone()),
                    },
                    at,
                    Loc {
                        line: 0,
                        path: Some(jp.clone()),
                    },
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grounding_arguments_are_written_as_the_json_object_of_them() {
        for q in [
            "null",
            r#"["a","b\"c","é"]"#,
            "[]",
            r#"{"z":1,"a":[1.50,-2,{"b":null}],"z":2}"#,
            r#""\u00e9\/""#,
        ] {
            let v: Value = serde_json::from_str(q).unwrap();
            let want = util::raw(&serde_json::json!({ "queries": v })).unwrap();
            assert_eq!(queries_arguments(&v).unwrap().get(), want.get(), "{q}");
        }
    }
}
