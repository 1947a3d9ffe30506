//! Gemini `generateContent`: one response (`{"candidates":[...]}`) or a VCR cassette. Function
//! calls and responses, Gemini 3 server-side `toolCall`/`toolResponse` parts (with `id`), code
//! execution; `groundingMetadata.groundingSupports` become derived stamps: `segment` offsets are
//! UTF-8 bytes into the answer part, `groundingChunkIndices` point at `groundingChunks` (web
//! `uri`/`title`, or `retrievedContext` text), which become the grounding call's result.

use super::build::{json_path, link_block, text_block, Builder, Loc, NewCall, NewClaim, NewResult};
use super::cassette;
use super::cite::{char_range, resolve_offsets, same_text, unit_name};
use super::sniff::Head;
use super::util::{self, s, time_str};
use super::Input;
use crate::model::{CitationInfo, DiagLevel, Session, Span, SpanUnit, Timestamp};
use serde_json::Value;

const NAME: &str = "gemini";
const HOSTS: &[&str] = &[
    "generativelanguage.googleapis.com",
    "aiplatform.googleapis.com",
];

pub fn sniff(h: &Head) -> bool {
    if h.is_cassette() {
        return cassette::mentions(h.text, HOSTS);
    }
    h.has("candidates")
        && (h.has("usageMetadata") || h.has("modelVersion") || h.text.contains("\"content\""))
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
    let text = match std::str::from_utf8(input.bytes) {
        Ok(t) => t,
        Err(e) => {
            c.b.diag(
                0,
                0,
                "",
                DiagLevel::Error,
                format!("invalid UTF-8 at byte {}; not read", e.valid_up_to() + 1),
            );
            return vec![c.b.finish()];
        }
    };
    if Head::new(&text[..text.len().min(4096)]).is_cassette() {
        let (its, problems) = cassette::read(text, HOSTS);
        for p in problems {
            c.b.diag(p.line, p.column, &p.path, p.level, p.message);
        }
        for it in its.iter().filter(|it| it.uri.contains(":generateContent")) {
            let path = format!("interactions[{}]", it.index);
            if let Some(req) = &it.request {
                c.request(req, &format!("{path}.request.body"), it.date);
            }
            if let Some(resp) = &it.response {
                c.response(resp, &format!("{path}.response.body"), it.date);
            }
        }
    } else {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => c.response(&v, "", None),
            Err(e) => c.b.diag(
                e.line() as u64,
                e.column() as u64,
                "",
                DiagLevel::Error,
                format!("malformed JSON: {e}; nothing read"),
            ),
        }
        c.b.note("a single response holds no user message: turn 1 has an empty user message");
    }
    vec![c.b.finish()]
}

impl Conv {
    fn request(&mut self, req: &Value, path: &str, at: Option<Timestamp>) {
        let contents = util::arr(req, "contents");
        let from = if contents.len() > self.seen {
            self.seen
        } else {
            0
        };
        for (i, content) in contents.iter().enumerate().skip(from) {
            let cpath = format!("{path}.contents[{i}]");
            match s(content, "role") {
                Some("model") => self.model_parts(content, at, &cpath, None),
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

    fn response(&mut self, resp: &Value, path: &str, at: Option<Timestamp>) {
        let Some(cands) = resp.get("candidates").and_then(Value::as_array) else {
            if resp.get("error").is_some() {
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
        if let Some(id) = s(resp, "responseId") {
            self.b.session_id(id);
        }
        if let Some(m) = s(resp, "modelVersion") {
            self.b.model(m);
        }
        let at = s(resp, "createTime").and_then(time_str).or(at);
        if cands.len() > 1 {
            self.b
                .note("responses with several candidates: the first candidate is read");
        }
        let Some(cand) = cands.first() else { return };
        let cpath = format!("{path}.candidates[0]");
        let content = cand.get("content").unwrap_or(&Value::Null);
        self.model_parts(
            content,
            at,
            &format!("{cpath}.content"),
            cand.get("groundingMetadata")
                .map(|g| (g, format!("{cpath}.groundingMetadata"))),
        );
    }

    fn model_parts(
        &mut self,
        content: &Value,
        at: Option<Timestamp>,
        path: &str,
        grounding: Option<(&Value, String)>,
    ) {
        let parts = util::arr(content, "parts");
        let mut texts: Vec<(usize, &str)> = Vec::new();
        let mut search_call: Option<String> = None;
        for (i, p) in parts.iter().enumerate() {
            let ppath = format!("{path}.parts[{i}]");
            if let Some(t) = s(p, "text") {
                if p.get("thought").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                let sep = if self.answered { "\n\n" } else { "" };
                self.b.answer_text(t, sep, at, Loc::path(0, &ppath));
                self.answered = true;
                texts.push((i, t));
            } else if let Some(fc) = p.get("functionCall") {
                let name = s(fc, "name").unwrap_or("").to_owned();
                let id = match s(fc, "id") {
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
                        arguments: fc.get("args").and_then(util::raw),
                        at,
                        json_path: Some(json_path(&ppath)),
                        ..NewCall::default()
                    });
                }
            } else if let Some(tc) = p.get("toolCall") {
                // Gemini 3 server-side tools (file search, Google search) with an id.
                let Some(id) = s(tc, "id") else {
                    self.b.diag(
                        0,
                        0,
                        &format!("{ppath}.toolCall.id"),
                        DiagLevel::Warning,
                        "a toolCall without an id; skipped".into(),
                    );
                    continue;
                };
                let tool = s(tc, "toolType")
                    .or_else(|| s(tc, "tool_type"))
                    .unwrap_or("tool")
                    .to_ascii_lowercase();
                if !self.b.has_call(id) {
                    let args = tc
                        .get("args")
                        .cloned()
                        .unwrap_or(Value::Object(Default::default()));
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
            } else if let Some(code) = p.get("executableCode") {
                let id = format!("code_execution#{}.{i}", self.responses);
                self.b.call(NewCall {
                    id: id.clone(),
                    server: "google".into(),
                    tool: "code_execution".into(),
                    arguments: util::raw(code),
                    at,
                    json_path: Some(json_path(&ppath)),
                    ..NewCall::default()
                });
                self.open_calls.push((id, "code_execution".into()));
            } else if let Some(out) = p.get("codeExecutionResult") {
                if let Some(pos) = self
                    .open_calls
                    .iter()
                    .position(|(_, n)| n == "code_execution")
                {
                    let (id, _) = self.open_calls.remove(pos);
                    self.b.result(NewResult {
                        call_id: id,
                        content: vec![text_block(s(out, "output").unwrap_or("").to_owned())],
                        is_error: s(out, "outcome").is_some_and(|o| o != "OUTCOME_OK"),
                        at,
                        json_path: Some(json_path(&ppath)),
                        ..NewResult::default()
                    });
                }
            }
        }
        if let Some((g, gpath)) = grounding {
            self.grounding(g, &gpath, &texts, search_call, at);
        }
    }

    fn grounding(
        &mut self,
        g: &Value,
        path: &str,
        texts: &[(usize, &str)],
        call: Option<String>,
        at: Option<Timestamp>,
    ) {
        let chunks = util::arr(g, "groundingChunks");
        if chunks.is_empty() {
            return;
        }
        let queries = g
            .get("webSearchQueries")
            .or_else(|| g.get("retrievalQueries"))
            .cloned()
            .unwrap_or(Value::Null);
        let web = chunks.iter().any(|c| c.get("web").is_some());
        let call_id = match call {
            Some(id) => id,
            None => {
                let id = format!("grounding#{}", self.responses);
                let tool = if web { "google_search" } else { "retrieval" };
                self.b.call(NewCall {
                    id: id.clone(),
                    server: "google".into(),
                    tool: tool.into(),
                    arguments: util::raw(&serde_json::json!({"queries": queries})),
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
                if let Some(w) = c.get("web") {
                    link_block(s(w, "uri").unwrap_or(""), s(w, "title"))
                } else if let Some(r) = c.get("retrievedContext") {
                    let mut b = text_block(s(r, "text").unwrap_or("").to_owned());
                    if let Some(u) = s(r, "uri") {
                        if let Some(v) = util::raw(&Value::String(u.to_owned())) {
                            b.extra.push(("uri".into(), v));
                        }
                    }
                    b
                } else {
                    util::block(c)
                }
            })
            .collect();
        if !self.b.has_result(&call_id) {
            self.b.result(NewResult {
                call_id: call_id.clone(),
                content,
                at,
                json_path: Some(json_path(&format!("{path}.groundingChunks"))),
                ..NewResult::default()
            });
        }
        for (si, sup) in util::arr(g, "groundingSupports").iter().enumerate() {
            let spath = format!("{path}.groundingSupports[{si}]");
            let seg = sup.get("segment").unwrap_or(&Value::Null);
            let start = seg.get("startIndex").and_then(Value::as_u64).unwrap_or(0);
            let Some(end) = seg.get("endIndex").and_then(Value::as_u64) else {
                self.b.diag(
                    0,
                    0,
                    &format!("{spath}.segment.endIndex"),
                    DiagLevel::Error,
                    "a grounding support without `segment.endIndex`; skipped".into(),
                );
                continue;
            };
            let seg_text = s(seg, "text");
            let check = |t: &str| seg_text.is_none_or(|x| same_text(t, x));
            // `partIndex` may be omitted even when the text is not parts[0] (Gemini 3 puts the
            // tool call and response parts first): try the named part, else each text part.
            let named = seg
                .get("partIndex")
                .and_then(Value::as_u64)
                .map(|p| p as usize);
            let candidates: Vec<&(usize, &str)> = match named {
                Some(p) => texts.iter().filter(|(i, _)| *i == p).collect(),
                None => texts.iter().collect(),
            };
            let units = [SpanUnit::Utf8, SpanUnit::Char, SpanUnit::Utf16];
            let mut found = None;
            let mut fallback = None;
            for (_, t) in &candidates {
                if let Some(r) = resolve_offsets(t, start, end, &units, Some(&check)) {
                    if r.matched != Some(false) {
                        found = Some((*t, r));
                        break;
                    }
                    if fallback.is_none() {
                        fallback = Some((*t, r));
                    }
                }
            }
            let (claim_text, unit_note) = match (found, fallback) {
                (Some((t, r)), _) => (
                    t[r.bytes.clone()].to_owned(),
                    (r.unit != SpanUnit::Utf8).then_some(r.unit),
                ),
                (None, Some((t, r))) => {
                    self.b.diag(0, 0, &format!("{spath}.segment"), DiagLevel::Warning, format!("the answer text at {start}..{end} does not match segment.text in UTF-8, character or UTF-16 units; the segment's own text is the claim"));
                    (
                        seg_text.map_or_else(|| t[r.bytes].to_owned(), str::to_owned),
                        None,
                    )
                }
                (None, None) => match seg_text {
                    Some(x) => {
                        self.b.diag(0, 0, &format!("{spath}.segment"), DiagLevel::Warning, format!("offsets {start}..{end} do not fit the answer part; the segment's own text is the claim"));
                        (x.to_owned(), None)
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
            for ci in sup
                .get("groundingChunkIndices")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(ci) = ci.as_u64() else { continue };
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
                let web = chunk.get("web");
                let text = chunk
                    .pointer("/retrievedContext/text")
                    .and_then(Value::as_str);
                let span = text.map(|t| {
                    let (a, z) = char_range(t, &(0..t.len()));
                    Span {
                        block: ci,
                        start: a,
                        end: z,
                    }
                });
                self.b.claim(
                    NewClaim {
                        text: claim_text.trim().to_owned(),
                        call_id: Some(call_id.clone()),
                        span,
                        citation: CitationInfo {
                            kind: if web.is_some() {
                                "grounding_chunk.web".into()
                            } else {
                                "grounding_chunk.retrieved_context".into()
                            },
                            url: web.and_then(|w| s(w, "uri")).map(str::to_owned),
                            cited_text: None,
                        },
                        marker: None,
                        json_path: Some(json_path(&spath)),
                    },
                    at,
                    Loc::path(0, &spath),
                );
            }
        }
    }
}
