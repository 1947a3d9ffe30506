//! What the model-API importers (Anthropic, OpenAI, Gemini) share: a file holds one API
//! response, or a VCR cassette of recorded requests and responses.

use super::build::Builder;
use super::cassette::{self, Interaction};
use super::sse;
use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Timestamp};
use serde_json::Value;

/// One model API's reading of its files.
pub(super) trait ApiFile {
    /// A response body, as the API's lax reader sees it.
    type Response<'a>: super::lax::Fields<'a> + serde::Deserialize<'a>;
    /// Hosts whose interactions a cassette holds for this API.
    const HOSTS: &'static [&'static str];
    /// The note on a file that holds one response: what such a file cannot hold.
    const RESPONSE_NOTE: &'static str;
    /// The note on a cassette, if there is one to make.
    const CASSETTE_NOTE: Option<&'static str> = None;
    /// How the path of a cassette interaction's URI ends when it is a call of this API's
    /// endpoint. Other calls to the same host (token counts, file uploads, a stored response
    /// fetched again) are not read.
    const ENDPOINT: &'static str;
    /// Whether a JSON array of this API's responses may hold the chunks of streamed responses
    /// (Gemini's `streamGenerateContent`), which are joined into the responses they make
    /// ([`super::stream::join_gemini_chunks`]); otherwise each element is a whole response.
    const STREAMED_CHUNKS: bool = false;
    /// Whether a response file is read by [`lax::from_str`](super::lax::from_str) (the answers
    /// of `serde_json::from_str`, faster where the response's skipped strings are long).
    const SKIM: bool = false;

    /// The session being built.
    fn builder(&mut self) -> &mut Builder;
    /// Reads the request body of interaction `it`; `path` is the body's JSON path.
    fn request(&mut self, body: &Value, it: &Interaction, path: &str);
    /// Reads one recorded interaction of this API's endpoint; `path` is its JSON path
    /// (`interactions[i]`). The request is read first, then the response as a response file is
    /// read.
    fn interaction(&mut self, it: &Interaction, path: &str)
    where
        Self: Sized,
    {
        if !is_endpoint(&it.uri, Self::ENDPOINT) {
            return;
        }
        if let Some(req) = &it.request {
            self.request(req, it, &format!("{path}.request.body"));
        }
        if let Some(resp) = &it.response {
            response_value(self, resp, &format!("{path}.response.body"), it.date);
        }
    }
    /// Reads one response at `path`, answered at `at` when that is known.
    fn response(&mut self, r: &Self::Response<'_>, path: &str, at: Option<Timestamp>);
    /// Puts the whole responses a stream of this API's server-sent events makes into `out`,
    /// each as soon as it is complete.
    fn assemble(events: impl Iterator<Item = sse::Event>, out: &mut impl sse::Out);
}

/// Reads `input` as one response or as a cassette into `api`'s session. Bad input becomes a
/// diagnostic; whatever is valid is read. A response that is a JSON object sets the input's
/// [`Input::detection_keys`](super::Input::detection_keys).
pub(super) fn read<A: ApiFile>(api: &mut A, input: &super::Input) {
    let text = match input
        .text
        .map_or_else(|| super::util::utf8(input.bytes), Ok)
    {
        // A byte order mark is no content.
        Ok(t) => t.strip_prefix('\u{feff}').unwrap_or(t),
        Err(e) => {
            let msg = format!("invalid UTF-8 at byte {}; not read", e.valid_up_to() + 1);
            api.builder().diag(0, 0, "", DiagLevel::Error, msg);
            return;
        }
    };
    if super::sniff::starts_as_cassette(text) {
        let (its, problems) = cassette::read(text, A::HOSTS);
        for p in problems {
            api.builder()
                .diag(p.line, p.column, &p.path, p.level, p.message);
        }
        for mut it in its {
            let path = format!("interactions[{}]", it.index);
            if let Some(events) = it.stream.take() {
                it.response = streamed_body::<A>(api, events, &format!("{path}.response.body"));
            }
            api.interaction(&it, &path);
        }
        if let Some(note) = A::CASSETTE_NOTE {
            api.builder().note(note);
        }
    } else if text.trim_start().starts_with('[') {
        read_array(api, text);
        api.builder().note(A::RESPONSE_NOTE);
    } else if sse::starts_as_sse(text) {
        read_sse(api, text);
        api.builder().note(A::RESPONSE_NOTE);
    } else {
        let read = if A::SKIM {
            super::lax::from_str::<super::lax::Document<A::Response<'_>>>(text)
        } else {
            serde_json::from_str(text)
        };
        match read {
            Ok(r) => {
                input.detection_keys.set(r.detection_keys);
                api.response(&r.fields, "", None);
            }
            Err(e) => malformed(api, &e),
        }
        api.builder().note(A::RESPONSE_NOTE);
    }
}

/// The error of a file that is no JSON, at the line and column where it stops being JSON.
fn malformed<A: ApiFile>(api: &mut A, e: &serde_json::Error) {
    let msg = format!(
        "malformed JSON: {}; nothing read",
        strip_pos(&e.to_string())
    );
    let (line, column) = (e.line() as u64, e.column() as u64);
    api.builder().diag(line, column, "", DiagLevel::Error, msg);
}

/// The note on a JSON array of whole responses.
const ARRAY_NOTE: &str =
    "the file is a JSON array of responses: each is read in order, as the responses of one conversation";

/// Reads a JSON array of responses: each element a response at its index (`[i]`), in order,
/// or, for an API that streams chunks, the responses its chunks join into.
fn read_array<A: ApiFile>(api: &mut A, text: &str) {
    let items = match serde_json::from_str::<Vec<&serde_json::value::RawValue>>(text) {
        Ok(items) => items,
        Err(e) => return malformed(api, &e),
    };
    if items.is_empty() {
        let msg = "an empty JSON array: no response to read".to_owned();
        api.builder().diag(0, 0, "", DiagLevel::Error, msg);
        return;
    }
    if !A::STREAMED_CHUNKS {
        api.builder().note(ARRAY_NOTE);
        for (i, raw) in items.iter().enumerate() {
            if let Ok(r) = serde_json::from_str::<A::Response<'_>>(raw.get()) {
                api.response(&r, &format!("[{i}]"), None);
            }
        }
        return;
    }
    let values: Vec<Value> = items
        .iter()
        .map(|r| serde_json::from_str(r.get()).unwrap_or(Value::Null))
        .collect();
    let joined = super::stream::join_gemini_chunks(&values);
    if joined.iter().any(|(range, _)| range.len() > 1) {
        api.builder().note("the file is a JSON array of streamed chunks (streamGenerateContent): the chunks of each response are joined into it (texts appended, the last chunk's metadata), and its JSON paths are those of the joined response, under the index of its first chunk");
    } else {
        api.builder().note(ARRAY_NOTE);
    }
    for (range, v) in joined {
        response_value(api, &v, &format!("[{}]", range.start), None);
    }
}

/// The note on a file of server-sent events.
const SSE_NOTE: &str = "the file is a stream of server-sent events: each response is put together from its events (the API's final event where it sends the whole response, else the pieces it streamed), and its JSON paths are those of the response put together";

/// Reads a file of server-sent events: the responses its events make, in order, each at its
/// index (`[i]`) when there are several. What is wrong with an event is a warning at its line.
/// Each event is folded into its response as it is read and dropped, and each response is
/// read as soon as it is complete: a stream holds neither all its events nor all its
/// responses at once.
fn read_sse<A: ApiFile>(api: &mut A, text: &str) {
    let mut events = sse::Events::new(text);
    let mut reader = SseReader {
        api,
        first: None,
        count: 0,
    };
    A::assemble(&mut events, &mut reader);
    let SseReader { api, first, count } = reader;
    for p in events.problems {
        api.builder()
            .diag(p.line, 0, "", DiagLevel::Warning, p.message);
    }
    match first {
        // The only response: read at the document's root.
        Some(v) if count == 1 => {
            api.builder().note(SSE_NOTE);
            streamed_response(api, v, "");
        }
        _ if count == 0 => {
            let msg = "no response could be put together from the events of this stream".to_owned();
            api.builder().diag(0, 0, "", DiagLevel::Error, msg);
        }
        _ => {}
    }
}

/// Reads a stream's responses as the assembler completes them. The first is held until a
/// second comes (its path is `[0]` then) or the stream ends (its path is the root).
struct SseReader<'a, A> {
    api: &'a mut A,
    first: Option<Value>,
    count: usize,
}

impl<A: ApiFile> sse::Out for SseReader<'_, A> {
    fn response(&mut self, _line: u64, response: Value) {
        self.count += 1;
        match self.count {
            1 => self.first = Some(response),
            n => {
                if let Some(first) = self.first.take() {
                    self.api.builder().note(SSE_NOTE);
                    streamed_response(self.api, first, "[0]");
                }
                streamed_response(self.api, response, &format!("[{}]", n - 1));
            }
        }
    }

    fn problem(&mut self, p: sse::Problem) {
        self.api
            .builder()
            .diag(p.line, 0, "", DiagLevel::Warning, p.message);
    }
}

/// Reads a response a stream put together; its tree is dropped once written out as text (the
/// response is read from the text).
fn streamed_response<A: ApiFile>(api: &mut A, response: Value, path: &str) {
    let text = response.to_string();
    drop(response);
    response_text(api, &text, path, None);
}

/// The response a cassette's streamed body (server-sent events) makes, with what was wrong as
/// warnings at the body's path (naming the event's line in the body).
fn streamed_body<A: ApiFile>(api: &mut A, events: Vec<sse::Event>, path: &str) -> Option<Value> {
    let mut assembled = sse::Assembled::default();
    A::assemble(events.into_iter(), &mut assembled);
    for p in assembled.problems {
        api.builder()
            .diag(0, 0, path, DiagLevel::Warning, p.in_body());
    }
    let mut responses = assembled.responses.into_iter();
    let first = responses.next().map(|(_, v)| v);
    if responses.next().is_some() {
        let msg = "the streamed body makes more than one response; the first is read".to_owned();
        api.builder().diag(0, 0, path, DiagLevel::Warning, msg);
    }
    if first.is_some() {
        api.builder()
            .note("a cassette's streamed bodies are put together from their server-sent events");
    }
    first
}

/// Whether the path of `uri` (without its query or fragment) ends with `endpoint`.
pub(super) fn is_endpoint(uri: &str, endpoint: &str) -> bool {
    let path = uri.split(['?', '#']).next().unwrap_or_default();
    path.ends_with(endpoint)
}

/// Reads a cassette's response body (a `Value`) as a response file is read.
pub(super) fn response_value<A: ApiFile>(
    api: &mut A,
    body: &Value,
    path: &str,
    at: Option<Timestamp>,
) {
    response_text(api, &body.to_string(), path, at);
}

/// Reads a response written out as JSON text (a cassette's body or a stream's response, put
/// back together) as a response file is read.
fn response_text<A: ApiFile>(api: &mut A, text: &str, path: &str, at: Option<Timestamp>) {
    // A statement, not the tail: the parsed response borrows `text` and must be dropped first.
    if let Ok(r) = serde_json::from_str::<A::Response<'_>>(text) {
        api.response(&r, path, at);
    };
}

#[cfg(test)]
mod tests {
    use super::is_endpoint;

    #[test]
    fn endpoint_is_the_end_of_the_uris_path() {
        assert!(is_endpoint(
            "https://api.openai.com/v1/responses",
            "/responses"
        ));
        assert!(is_endpoint(
            "https://api.anthropic.com/v1/messages?beta=true",
            "/messages"
        ));
        assert!(is_endpoint(
            "https://x.googleapis.com/v1beta/models/m:generateContent#f",
            ":generateContent"
        ));
        assert!(!is_endpoint(
            "https://api.anthropic.com/v1/messages/count_tokens",
            "/messages"
        ));
        assert!(!is_endpoint(
            "https://api.openai.com/v1/responses/resp_1",
            "/responses"
        ));
        assert!(!is_endpoint(
            "https://x.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse",
            ":generateContent"
        ));
        assert!(!is_endpoint("", "/messages"));
    }
}
