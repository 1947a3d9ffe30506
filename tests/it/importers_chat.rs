//! OpenAI Chat Completions (`openai-chat`): the inputs of tests/inputs/openai-chat/ (hand-written
//! from OpenAI's API reference: a response with tool calls, a search model's response with
//! `url_citation` annotations, a request body holding a conversation, a logging proxy's
//! `{request, response}` records one a line, a streamed response; the same for the deprecated
//! `function_call` and `function` messages, and a real VCR cassette of them), the same records in
//! the other shapes a user saves them in, and bad input.

use crate::importers::{call_rows, diags, errors, notes, provscope, summary_rows, warnings};
use provscope::ingest::import::{self, Detected};
use provscope::ingest::{load_any_bytes, load_file_sessions, LoadOptions};
use provscope::model::Session;
use serde_json::{json, Value};
use std::path::PathBuf;

const FORMAT: &str = "openai-chat";

fn dir() -> PathBuf {
    super::importers_shapes::inputs().join("openai-chat")
}

fn load(name: &str) -> Session {
    let mut v = load_file_sessions(&dir().join(name), &LoadOptions::default());
    assert_eq!(v.len(), 1, "{name}");
    v.remove(0)
}

fn bytes(name: &str, data: &[u8]) -> Session {
    let mut v = load_any_bytes(name, name, data, &LoadOptions::default());
    assert_eq!(v.len(), 1, "{name}");
    v.remove(0)
}

/// The stream `file` of the inputs cut before the chunk that holds `marker`: what a client
/// whose connection broke there kept.
fn cut_stream(file: &str, marker: &str) -> Session {
    let sse = std::fs::read_to_string(dir().join(file)).unwrap();
    let cut = &sse[..sse.find(marker).unwrap()];
    let cut = &cut[..cut.rfind("data:").unwrap()];
    bytes("cut.sse", cut.as_bytes())
}

fn records() -> Vec<Value> {
    std::fs::read_to_string(dir().join("proxy-log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The proxy's records and the streamed response in the other shapes the importer reads:
/// (file name, bytes).
pub fn shapes() -> Vec<(&'static str, Vec<u8>)> {
    let recs = records();
    let sse = std::fs::read_to_string(dir().join("stream-tool-call.sse")).unwrap();
    let chunks: String = sse
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| d.starts_with('{'))
        .map(|d| format!("{d}\n"))
        .collect();
    vec![
        (
            "records.json",
            serde_json::to_string_pretty(&recs).unwrap().into_bytes(),
        ),
        (
            "record.json",
            serde_json::to_string_pretty(&recs[1]).unwrap().into_bytes(),
        ),
        ("chunks.jsonl", chunks.into_bytes()),
        (
            "legacy-records.json",
            serde_json::to_string_pretty(&legacy_records())
                .unwrap()
                .into_bytes(),
        ),
        ("legacy-chunks.jsonl", legacy_chunks().into_bytes()),
    ]
}

/// The records of the legacy proxy log (`function_call` and `function` messages).
fn legacy_records() -> Vec<Value> {
    std::fs::read_to_string(dir().join("legacy-function-proxy.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The legacy stream's chunks, one a line.
fn legacy_chunks() -> String {
    std::fs::read_to_string(dir().join("legacy-stream-function-call.sse"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| d.starts_with('{'))
        .map(|d| format!("{d}\n"))
        .collect()
}

/// The arguments of a call, as JSON.
fn args(s: &Session, id: &str) -> Value {
    let c = s.call(id).unwrap();
    serde_json::from_str(c.request.params.arguments.as_deref().unwrap().get()).unwrap()
}

#[test]
fn every_input_is_detected_by_its_content() {
    for e in std::fs::read_dir(dir()).unwrap() {
        let p = e.unwrap().path();
        let d = import::detect(&std::fs::read(&p).unwrap());
        assert_eq!(format!("{d:?}"), "Import(openai-chat)", "{}", p.display());
    }
    for (name, b) in shapes() {
        assert_eq!(
            format!("{:?}", import::detect(&b)),
            "Import(openai-chat)",
            "{name}"
        );
    }
    // An Anthropic Messages request (`tool_use`/`tool_result` blocks) is no Chat Completions
    // request; a Responses response, a bare `messages` list without a model, are not either.
    for (doc, not) in [
        (
            json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}]}),
            true,
        ),
        (
            json!({"id": "resp_1", "object": "response", "created_at": 1, "output": []}),
            true,
        ),
        (
            json!({"messages": [{"role": "user", "content": "hi"}]}),
            true,
        ),
        (
            json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}),
            false,
        ),
    ] {
        let d = import::detect(doc.to_string().as_bytes());
        let chat = matches!(d, Detected::Import(i) if i.name == FORMAT);
        assert_eq!(chat, !not, "{doc}: {d:?}");
    }
    assert_eq!(
        format!(
            "{:?}",
            import::detect(br#"{"id": "resp_1", "object": "response", "output": []}"#)
        ),
        "Import(openai-responses)"
    );
}

#[test]
fn a_response_gives_its_tool_calls_with_their_arguments_hashed() {
    let s = load("completion-tool-calls.json");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", diags(&s));
    assert_eq!(s.id(), "chatcmpl-C0aFq9dTg2s8VbGk1nQ5rL7mZx3Yw");
    let h = s.header.as_ref().unwrap();
    assert_eq!(h.model.as_deref(), Some("gpt-4.1-2025-04-14"));
    let rows = call_rows(&s);
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        ids,
        [
            "call_Kq1t0dGq3WmXl2W0sJ4cQ9aB",
            "call_V7pN2xY8bR4sT6uW1zA3cD5e"
        ]
    );
    assert_eq!(
        args(&s, "call_Kq1t0dGq3WmXl2W0sJ4cQ9aB"),
        json!({"location": "Paris, France", "unit": "celsius"})
    );
    assert_eq!(
        args(&s, "call_V7pN2xY8bR4sT6uW1zA3cD5e"),
        json!({"location": "Bogotá, Colombia", "unit": "celsius"})
    );
    for c in &s.calls {
        assert_eq!((c.server.as_str(), c.tool()), ("app", "get_weather"));
        // Issued at `created`.
        assert_eq!(c.issued_at.to_string(), "2025-07-31T17:00:00Z");
        assert!(c
            .json_path
            .as_deref()
            .unwrap()
            .starts_with("$.choices[0].message.tool_calls["));
    }
    // A response holds no tool output and no user message: one empty turn, and the notes say so.
    assert!(s.results.is_empty());
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.turns[0].user.as_str(), "");
    let n = notes(&s).join("\n");
    assert!(n.contains("no request"), "{n}");
}

#[test]
fn a_bad_arguments_string_is_a_diagnostic_not_a_hash() {
    let text = std::fs::read_to_string(dir().join("completion-tool-calls.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] =
        json!("{\"location\": \"Paris");
    let s = bytes("bad.json", v.to_string().as_bytes());
    // The place and the reason; then the builder's word on a call without arguments.
    let w = warnings(&s);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("$.choices[0].message.tool_calls[0].function.arguments")
            && w[0].contains("not JSON"),
        "{w:?}"
    );
    assert!(w[1].contains("no arguments hash"), "{w:?}");
    // The call is kept, without arguments (no hash of anything made up); the other is whole.
    assert_eq!(s.calls.len(), 2);
    let c = s.call("call_Kq1t0dGq3WmXl2W0sJ4cQ9aB").unwrap();
    assert!(c.request.params.arguments.is_none());
    assert_eq!(
        args(&s, "call_V7pN2xY8bR4sT6uW1zA3cD5e")["location"],
        "Bogotá, Colombia"
    );
}

#[test]
fn a_search_models_citations_are_claims_of_the_sentence_before_them() {
    let s = load("completion-web-search.json");
    assert_eq!(s.format(), FORMAT);
    assert_eq!(s.answers.len(), 1);
    let a = &s.answers[0];
    assert!(a.text.starts_with("The Eiffel Tower is 330 metres tall"));
    let claims: Vec<(&str, Option<&str>, Option<&str>)> = a
        .claims
        .iter()
        .map(|c| {
            let st = &c.stamp;
            (
                st.claim_text.as_str(),
                st.render.as_ref().and_then(|r| r.marker.as_deref()),
                st.citation.as_ref().and_then(|c| c.url.as_deref()),
            )
        })
        .collect();
    assert_eq!(
        claims,
        [
            (
                "The Eiffel Tower is 330 metres tall since a new antenna was added in 2022",
                Some("([toureiffel.paris](https://www.toureiffel.paris/en/the-monument/key-figures?utm_source=openai))"),
                Some("https://www.toureiffel.paris/en/the-monument/key-figures?utm_source=openai"),
            ),
            (
                "It was built by Gustave Eiffel’s company for the Exposition Universelle of 1889, on the Champ‑de‑Mars",
                Some("([britannica.com](https://www.britannica.com/topic/Eiffel-Tower-Paris-France?utm_source=openai))"),
                Some("https://www.britannica.com/topic/Eiffel-Tower-Paris-France?utm_source=openai"),
            ),
        ]
    );
    for c in &a.claims {
        // Derived from the API's citation, and unsourced: the file holds no result with the URL.
        assert!(c.stamp.origin.is_none());
        assert_eq!(
            c.stamp.citation.as_ref().unwrap().kind.as_str(),
            "url_citation"
        );
        assert_eq!(
            format!("{:?}", c.stamp.provenance()),
            "Derived",
            "{:?}",
            c.stamp
        );
    }
    let w = warnings(&s);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].contains("$.choices[0].message.annotations[0]") && w[0].contains("unsourced"));
}

#[test]
fn a_request_body_gives_the_conversations_turns_calls_and_results() {
    let s = load("request-conversation.json");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", diags(&s));
    let users: Vec<&str> = s.turns.iter().map(|t| t.user.as_str()).collect();
    assert_eq!(
        users,
        [
            "What's the weather in Paris and Bogotá right now?",
            "Should I pack an umbrella for Paris?"
        ]
    );
    assert_eq!(s.turns[0].json_path.as_deref(), Some("$.messages[1]"));
    let rows = call_rows(&s);
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0].3.as_deref(),
        Some("{\"location\": \"Paris, France\", \"temperature\": 18, \"unit\": \"celsius\", \"conditions\": \"light rain\"}")
    );
    // A tool message's content as parts.
    assert!(rows[1].3.as_deref().unwrap().contains("Bogotá"));
    for c in &s.calls {
        assert_eq!(c.turn, 1);
        let r = s.result(&c.id).unwrap();
        assert_eq!(r.tag.call_id, c.id);
        assert_eq!(r.tag.tool.as_str(), "get_weather");
        assert_eq!(
            r.tag.arguments_hash.as_str(),
            provscope::attest::hash::arguments_hash(c.request.params.arguments.as_deref()).unwrap()
        );
        assert_eq!(r.tag.ttl_seconds, None);
        assert!(r.json_path.as_deref().unwrap().starts_with("$.messages["));
    }
    assert_eq!(s.answers.len(), 1);
    assert_eq!(
        s.answers[0].text.as_str(),
        "It's 18 °C with light rain in Paris, and 14 °C and cloudy in Bogotá."
    );
    assert!(s.answers[0].claims.is_empty(), "nothing invented");
    let n = notes(&s).join("\n");
    assert!(n.contains("default_ttl_seconds"), "{n}");
}

/// The proxy's three records as one session: what every shape of them gives.
fn check_proxy_session(s: &Session, lines: bool) {
    assert_eq!(s.format(), FORMAT);
    let users: Vec<&str> = s.turns.iter().map(|t| t.user.as_str()).collect();
    assert_eq!(
        users,
        [
            "When did the James Webb Space Telescope launch, and where is it now?",
            "How far is that in miles?"
        ]
    );
    // The call is read once, although records 2 and 3 repeat it in their history.
    let rows = call_rows(s);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let id = "call_3hX9mQ2vT8kL1pR6sN4wB0yZ";
    assert_eq!((rows[0].0.as_str(), rows[0].1.as_str()), (id, "search_web"));
    assert_eq!(
        args(s, id),
        json!({"query": "James Webb Space Telescope launch date L2 orbit"})
    );
    let r = s.result(id).unwrap();
    assert!(r.block_text(0).unwrap().contains("science.nasa.gov"));
    assert_eq!(r.tag.fetched_at.to_string(), "2025-08-01T12:00:06Z");
    // Two answers: the cited one of turn 1 (its history copy in record 3 not read again) and
    // turn 2's.
    let answers: Vec<&str> = s.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(answers[0].starts_with("The James Webb Space Telescope launched on 25 December 2021"));
    assert_eq!(answers[1], "About 930,000 miles (1.5 million km).");
    let claims = &s.answers[0].claims;
    assert_eq!(claims.len(), 2);
    // The NASA page was in the search result: the stamp's origin is that call, with its
    // tool and arguments hash.
    let o = claims[0].stamp.origin.as_ref().unwrap();
    assert_eq!(o.tool_call_id.as_str(), id);
    assert_eq!((o.server.as_str(), o.tool.as_str()), ("app", "search_web"));
    assert_eq!(o.arguments_hash, r.tag.arguments_hash);
    assert_eq!(
        claims[0].stamp.claim_text.as_str(),
        "The James Webb Space Telescope launched on 25 December 2021 on an Ariane 5 from Kourou"
    );
    // The ESA page was not: unsourced, with a warning at the annotation (and its line).
    assert!(claims[1].stamp.origin.is_none());
    let w = warnings(s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("https://www.esa.int/") && w[0].contains("unsourced"));
    let at = if lines {
        ":2: warning: $.response.choices[0].message.annotations[1]"
    } else {
        "$[1].response.choices[0].message.annotations[1]"
    };
    assert!(w[0].contains(at), "{w:?}");
    assert!(errors(s).is_empty(), "{:?}", diags(s));
}

#[test]
fn a_proxys_records_give_one_conversation_each_call_once() {
    let s = load("proxy-log.jsonl");
    check_proxy_session(&s, true);
    // Lines: every record keeps its line.
    assert_eq!(s.turns[1].line, 3);
    assert_eq!(s.calls[0].line, 1);
    let (name, list) = shapes().remove(0);
    check_proxy_session(&bytes(name, &list), false);
}

/// A record with the keys of each of its request's messages in reverse order.
fn reverse_keys(r: &mut Value) {
    for m in r["request"]["messages"].as_array_mut().unwrap() {
        let rev: serde_json::Map<String, Value> = m
            .as_object()
            .unwrap()
            .iter()
            .rev()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        *m = Value::Object(rev);
    }
}

/// The proxy's records as other logging proxies and libraries write them: bodies as JSON text,
/// a request under `body` (alone, or beside the HTTP request's `method`, `url` and `headers`),
/// `request_body` and `response_body`, a completion without `object`, LiteLLM's `messages`
/// beside `response` with a Unix `startTime`, and the replayed messages' keys in another order
/// (the same messages, not new ones).
#[test]
fn a_proxys_records_in_other_loggers_shapes_give_the_same_conversation() {
    let recs = records();
    let each = |f: &dyn Fn(&mut Value)| -> Vec<u8> {
        let mut out = String::new();
        for r in &recs {
            let mut r = r.clone();
            f(&mut r);
            out.push_str(&r.to_string());
            out.push('\n');
        }
        out.into_bytes()
    };
    let text = each(&|r| {
        for k in ["request", "response"] {
            r[k] = Value::String(r[k].to_string());
        }
    });
    let wrapped = each(&|r| r["request"] = json!({"body": r["request"].take()}));
    let http = each(&|r| {
        let body = r["request"].take();
        r["request"] = json!({"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "headers": {"content-type": "application/json"}, "body": body});
    });
    let http_text = each(&|r| {
        let body = r["request"].take().to_string();
        r["request"] = json!({"url": "/v1/chat/completions", "body": body});
    });
    let renamed = each(&|r| {
        let map = r.as_object_mut().unwrap();
        let (req, resp) = (
            map.remove("request").unwrap(),
            map.remove("response").unwrap(),
        );
        map.insert("request_body".into(), req);
        map.insert("response_body".into(), resp);
    });
    let no_object = each(&|r| {
        r["response"].as_object_mut().unwrap().remove("object");
    });
    // LiteLLM's standard logging payload: the request's fields at the top, the time in
    // seconds.
    let litellm = each(&|r| {
        let t = r["timestamp"].as_str().unwrap();
        let secs = provscope::model::Timestamp::parse(t).unwrap().0 as f64 / 1000.0;
        *r = json!({
            "id": "litellm-1",
            "call_type": "acompletion",
            "model": r["request"]["model"],
            "messages": r["request"]["messages"],
            "response": r["response"],
            "startTime": secs,
        });
    });
    // Each message written with its keys reversed; then only every other record's: a later
    // request's copy of an earlier message is not the same text, only the same JSON value.
    let reordered = each(&|r| reverse_keys(r));
    let mut alternating = String::new();
    for (i, r) in recs.iter().enumerate() {
        let mut r = r.clone();
        if i % 2 == 1 {
            reverse_keys(&mut r);
        }
        alternating.push_str(&r.to_string());
        alternating.push('\n');
    }
    for (name, data) in [
        ("text.jsonl", text),
        ("wrapped.jsonl", wrapped),
        ("http.jsonl", http),
        ("http-text.jsonl", http_text),
        ("renamed.jsonl", renamed),
        ("no-object.jsonl", no_object),
        ("litellm.jsonl", litellm),
        ("reordered.jsonl", reordered),
        ("alternating.jsonl", alternating.into_bytes()),
    ] {
        let s = bytes(name, &data);
        assert_eq!(s.format(), FORMAT, "{name}");
        check_proxy_session(&s, true);
    }
    // A response under `body`: the same answers, at their place under it.
    let resp = each(&|r| {
        let body = r["response"].take();
        r["response"] = json!({"status": 200, "headers": {}, "body": body});
    });
    let s = bytes("resp.jsonl", &resp);
    assert_eq!(s.answers.len(), 2);
    assert_eq!(s.answers[0].claims.len(), 2);
    let w = warnings(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(":2: warning: $.response.body.choices[0].message.annotations[1]"),
        "{w:?}"
    );
    assert!(errors(&s).is_empty(), "{:?}", diags(&s));
}

/// A value nested deeper than the JSON reader goes (hostile or broken input) costs only
/// itself: the record around it is read, with an error at the value's path.
#[test]
fn a_value_nested_too_deep_costs_only_itself() {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let mut recs = records();
    // Record 2's tool message: its content nested 5,000 deep; record 1: a field not read.
    assert_eq!(recs[1]["request"]["messages"][3]["role"], "tool");
    recs[1]["request"]["messages"][3]["content"] = json!("DEEP");
    recs[0]["extra"] = json!("DEEP");
    let lines: Vec<String> = recs
        .iter()
        .map(|r| r.to_string().replace("\"DEEP\"", &deep))
        .collect();
    let s = bytes("deep.jsonl", lines.join("\n").as_bytes());
    let errs = errors(&s);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("deep.jsonl:2: error: $.request.messages[3].content: malformed JSON"),
        "{errs:?}"
    );
    // The call, its (empty) result, both answers and turn 2 are read.
    assert_eq!(s.calls.len(), 1);
    assert!(s.result("call_3hX9mQ2vT8kL1pR6sN4wB0yZ").is_some());
    assert_eq!(s.answers.len(), 2);
    assert_eq!(s.turns.len(), 2);
}

#[test]
fn one_record_gives_its_request_and_response() {
    let (name, one) = shapes().remove(1);
    let s = bytes(name, &one);
    assert_eq!(s.format(), FORMAT);
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.calls.len(), 1);
    assert_eq!(s.results.len(), 1);
    assert_eq!(s.answers[0].claims.len(), 2);
    assert!(s.answers[0].claims[0].stamp.origin.is_some());
    assert!(!notes(&s).iter().any(|n| n.contains("no request")));
}

#[test]
fn a_streamed_response_is_joined_from_its_chunks() {
    for s in [load("stream-tool-call.sse"), {
        let (name, b) = shapes().remove(2);
        bytes(name, &b)
    }] {
        assert_eq!(s.format(), FORMAT);
        assert!(errors(&s).is_empty(), "{:?}", diags(&s));
        assert_eq!(s.id(), "chatcmpl-C2xStreAm0123456789abcdefXYZ");
        let id = "call_s7T2uV9wX1yZ3aB5cD7eF9gH";
        assert_eq!(s.calls.len(), 1);
        assert_eq!(s.calls[0].tool(), "get_weather");
        assert_eq!(args(&s, id), json!({"location": "Lisbon"}));
    }
    // Cut before its last chunk: what came, and a warning.
    let s = cut_stream("stream-tool-call.sse", "\"finish_reason\": \"tool_calls\"");
    assert_eq!(s.calls.len(), 1);
    assert!(
        warnings(&s).iter().any(|w| w.contains("finish_reason")),
        "{:?}",
        diags(&s)
    );
}

#[test]
fn chunk_lines_of_many_responses_place_each_at_its_first_chunk() {
    // The stream's chunks one a line, for 40 responses one after another (each copy's
    // completion and call ids its own): each response's call is at the line of its first chunk.
    let (_, one) = shapes().remove(2);
    let one = String::from_utf8(one).unwrap();
    let per = one.lines().count() as u64;
    let copies = 40u64;
    let text: String = (0..copies)
        .map(|k| {
            one.replace("chatcmpl-", &format!("chatcmpl-{k}-"))
                .replace("call_", &format!("call_{k}_"))
        })
        .collect();
    let s = bytes("chunks.jsonl", text.as_bytes());
    assert!(errors(&s).is_empty(), "{:?}", diags(&s));
    assert_eq!(s.calls.len() as u64, copies);
    for (k, c) in (0..copies).zip(&s.calls) {
        assert_eq!(c.id.as_str(), format!("call_{k}_s7T2uV9wX1yZ3aB5cD7eF9gH"));
        assert_eq!(c.line, k * per + 1, "{}", c.id);
        assert_eq!(args(&s, &c.id), json!({"location": "Lisbon"}));
    }
}

#[test]
fn many_legacy_calls_at_one_place_are_numbered_in_turn() {
    // The proxy's first record sent 30 times (each answer asking for another city): each
    // response's `function_call` is a new call at the same place, `<name>#2` then `.2`, `.3`...
    let rec = &legacy_records()[0];
    let text: String = (0..30)
        .map(|k| {
            let mut r = rec.clone();
            r["response"]["choices"][0]["message"]["function_call"]["arguments"] =
                json!(format!("{{\"location\": \"City {k}\"}}"));
            format!("{r}\n")
        })
        .collect();
    let s = bytes("legacy-repeated.jsonl", text.as_bytes());
    assert!(errors(&s).is_empty(), "{:?}", diags(&s));
    let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    let want: Vec<String> = (1..=30)
        .map(|n| match n {
            1 => "get_current_weather#2".to_owned(),
            n => format!("get_current_weather#2.{n}"),
        })
        .collect();
    assert_eq!(ids, want);
    for (k, c) in s.calls.iter().enumerate() {
        assert_eq!(args(&s, &c.id), json!({"location": format!("City {k}")}));
    }
}

#[test]
fn bad_records_are_reported_and_the_rest_loads() {
    let text = std::fs::read_to_string(dir().join("proxy-log.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // Line 3 cut short, and a line that is no record.
    lines[2].truncate(40);
    lines.push("{\"hello\": 1}".into());
    let s = bytes("bad.jsonl", lines.join("\n").as_bytes());
    let errs = errors(&s);
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(
        errs[0].contains("bad.jsonl:3:40: error: malformed JSON"),
        "{errs:?}"
    );
    assert!(
        errs[1].contains("bad.jsonl:4: error:") && errs[1].contains("not a Chat Completions"),
        "{errs:?}"
    );
    // Records 1 and 2 still load.
    assert_eq!(s.calls.len(), 1);
    assert_eq!(s.answers[0].claims.len(), 2);
    // A document cut short: one error at its line and column.
    let doc = std::fs::read_to_string(dir().join("completion-web-search.json")).unwrap();
    let s = bytes("cut.json", &doc.as_bytes()[..300]);
    let errs: Vec<String> = diags(&s);
    assert!(
        errs.iter()
            .any(|e| e.starts_with("cut.json:") && e.contains("malformed JSON")),
        "{errs:?}"
    );
    // A response without choices; a request whose messages are no list.
    let s = bytes(
        "x.json",
        br#"{"id": "chatcmpl-1", "object": "chat.completion", "created": 1}"#,
    );
    assert!(diags(&s)
        .iter()
        .any(|d| d.contains("$.choices") && d.contains("`choices`")));
    let s = bytes(
        "y.json",
        br#"{"model": "gpt-4o", "messages": {"role": "user"}}"#,
    );
    assert!(diags(&s)
        .iter()
        .any(|d| d.contains("$.messages") && d.contains("`messages`")));
}

#[test]
fn summary_names_the_importer() {
    let d = dir();
    let d = d.to_str().unwrap();
    let rows = summary_rows(d);
    assert_eq!(rows.len(), 9);
    for r in &rows {
        assert_eq!(r["format"], FORMAT, "{r}");
        assert_eq!(r["errors"], 0, "{r}");
    }
    let o = provscope(&["summary", dir().join("proxy-log.jsonl").to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    let row = out.lines().find(|l| l.starts_with("proxy-log")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    // SESSION FORMAT TURNS CALLS RESULTS CLAIMS
    assert_eq!(
        cols[..6],
        ["proxy-log", FORMAT, "2", "1", "1", "2"],
        "{out}"
    );
    // verify points at the unsourced citation's line and path.
    let o = provscope(&["verify", dir().join("proxy-log.jsonl").to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("proxy-log.jsonl:2:$.response.choices[0].message.annotations[1]"),
        "{out}"
    );
}

// The deprecated `function_call` / `function` messages (no call id).

const W: &str = "get_current_weather";

/// The result text of call `id`.
fn result_text(s: &Session, id: &str) -> String {
    s.result(id)
        .and_then(|r| r.block_text(0))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_request_body_gives_its_legacy_function_calls_and_results() {
    let s = load("legacy-function-request.json");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", diags(&s));
    // Each call's id is its function's name and its message's place in `messages`.
    let rows = call_rows(&s);
    let ids: Vec<(&str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.1.as_str())).collect();
    assert_eq!(
        ids,
        [
            ("get_current_weather#2", W),
            ("get_current_weather#4", W),
            ("get_weather_alerts#8", "get_weather_alerts")
        ]
    );
    assert_eq!(
        args(&s, "get_current_weather#2"),
        json!({"location": "Boston, MA"})
    );
    assert_eq!(
        args(&s, "get_current_weather#4"),
        json!({"location": "Oslo, Norway", "unit": "celsius"})
    );
    // Each `function` message is the result of the call before it of the same name.
    assert!(result_text(&s, "get_current_weather#2").contains("\"Boston, MA\""));
    assert!(result_text(&s, "get_current_weather#4").contains("\"Oslo, Norway\""));
    assert_eq!(result_text(&s, "get_weather_alerts#8"), "[]");
    for c in &s.calls {
        assert_eq!(c.server.as_str(), "app");
        let r = s.result(&c.id).unwrap();
        assert_eq!(r.tag.call_id, c.id);
        assert_eq!(r.tag.tool, c.request.params.name);
        assert!(!r.tag.arguments_hash.is_empty());
        assert_eq!(
            r.tag.arguments_hash.as_str(),
            provscope::attest::hash::arguments_hash(c.request.params.arguments.as_deref()).unwrap()
        );
    }
    assert_eq!(
        s.call("get_current_weather#4")
            .unwrap()
            .json_path
            .as_deref(),
        Some("$.messages[4].function_call")
    );
    assert_eq!(
        s.result("get_current_weather#4")
            .unwrap()
            .json_path
            .as_deref(),
        Some("$.messages[5]")
    );
    // Two turns; the calls in the turn of their user message.
    let users: Vec<&str> = s.turns.iter().map(|t| t.user.as_str()).collect();
    assert_eq!(
        users,
        [
            "What's the weather like in Boston and in Oslo?",
            "Thanks. Any weather alerts for Massachusetts?"
        ]
    );
    let turns: Vec<u32> = s.calls.iter().map(|c| c.turn).collect();
    assert_eq!(turns, [1, 1, 2]);
    assert_eq!(s.answers.len(), 1);
    assert!(!notes(&s).iter().any(|n| n.contains("function")));
}

/// The legacy proxy's four records as one session: what every shape of them gives.
fn check_legacy_proxy_session(s: &Session) {
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", diags(s));
    // Each response's call once (its replays in the next requests are the same call), with the
    // id of the place its message takes in the conversation.
    let rows = call_rows(s);
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, ["get_current_weather#2", "get_current_weather#6"]);
    assert_eq!(s.results.len(), 2);
    assert!(result_text(s, "get_current_weather#2").contains("\"Boston, MA\""));
    assert!(result_text(s, "get_current_weather#6").contains("\"Oslo, Norway\""));
    // Called at the response's `created`; the result arrives with the next request.
    let c = s.call("get_current_weather#6").unwrap();
    assert_eq!(c.issued_at.to_string(), "2023-07-04T09:12:31Z");
    assert_eq!(c.turn, 2);
    let r = s.result("get_current_weather#6").unwrap();
    assert_eq!(r.tag.fetched_at.to_string(), "2023-07-04T09:12:33.655Z");
    let users: Vec<&str> = s.turns.iter().map(|t| t.user.as_str()).collect();
    assert_eq!(
        users,
        ["What's the weather like in Boston?", "And in Oslo?"]
    );
    let answers: Vec<&str> = s.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(
        answers,
        [
            "It's 72 °F in Boston right now, sunny and windy.",
            "In Oslo it's 4 °C and cloudy."
        ]
    );
}

#[test]
fn a_proxys_legacy_records_give_each_call_once_with_a_stable_id() {
    let s = load("legacy-function-proxy.jsonl");
    check_legacy_proxy_session(&s);
    assert_eq!(s.calls[1].line, 3);
    assert_eq!(
        s.calls[1].json_path.as_deref(),
        Some("$.response.choices[0].message.function_call")
    );
    assert_eq!(s.results[1].line, 4);
    assert_eq!(
        s.results[1].json_path.as_deref(),
        Some("$.request.messages[7]")
    );
    let (name, list) = shapes().remove(3);
    check_legacy_proxy_session(&bytes(name, &list));
    // A history rewritten before the calls (another system message): read again from the
    // start (its user messages are turns again, as for `tool_calls`), and still each call
    // once, each result once.
    let mut recs = legacy_records();
    recs[3]["request"]["messages"][0]["content"] = json!("You are terse.");
    let lines: Vec<String> = recs.iter().map(Value::to_string).collect();
    let s = bytes("rewritten.jsonl", lines.join("\n").as_bytes());
    let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["get_current_weather#2", "get_current_weather#6"]);
    let results: Vec<&str> = s.results.iter().map(|r| r.call_id()).collect();
    assert_eq!(results, ["get_current_weather#2", "get_current_weather#6"]);
    assert!(s.diagnostics.is_empty(), "{:?}", diags(&s));
    // Only the requests (each replays the calls before it): the same calls and results.
    let reqs: Vec<String> = legacy_records()
        .iter()
        .map(|r| r["request"].to_string())
        .collect();
    let s = bytes("requests.jsonl", reqs.join("\n").as_bytes());
    let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["get_current_weather#2", "get_current_weather#6"]);
    assert_eq!(s.results.len(), 2);
}

#[test]
fn a_stream_of_function_call_pieces_is_one_call() {
    for s in [load("legacy-stream-function-call.sse"), {
        let (name, b) = shapes().remove(4);
        bytes(name, &b)
    }] {
        assert_eq!(s.format(), FORMAT);
        assert!(errors(&s).is_empty(), "{:?}", diags(&s));
        assert_eq!(s.id(), "chatcmpl-7Vm0I8bkjxgSTReAmFunC0613xyz");
        // A response alone: the first place of a conversation.
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["get_current_weather#0"]);
        assert_eq!(s.calls[0].tool(), W);
        assert_eq!(
            args(&s, "get_current_weather#0"),
            json!({"location": "Boston, MA"})
        );
        assert!(s.results.is_empty());
    }
    // Cut before the chunk with the `finish_reason`: the call as far as it came, and a warning.
    let s = cut_stream(
        "legacy-stream-function-call.sse",
        "\"finish_reason\": \"function_call\"",
    );
    assert_eq!(s.calls.len(), 1);
    assert!(
        warnings(&s).iter().any(|w| w.contains("finish_reason")),
        "{:?}",
        diags(&s)
    );
}

#[test]
fn a_real_cassette_of_legacy_function_calls_is_read() {
    // gpt-fn's recording: a 400 (the model did not know `functions`), then the same request
    // answered twice by gpt-3.5-turbo-0613 with a `function_call`.
    let s = load("gpt-fn-test_function_completion.yaml");
    assert_eq!(s.format(), FORMAT);
    assert!(errors(&s).is_empty(), "{:?}", diags(&s));
    // Two answers to the same request at the same place: two calls, the second `.2`.
    let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["book_a_flight#2", "book_a_flight#2.2"]);
    assert_eq!(
        args(&s, "book_a_flight#2"),
        json!({"date": "2022-10-15", "destination": "London"})
    );
    assert_eq!(
        args(&s, "book_a_flight#2.2"),
        json!({"date": "2022-10-10", "destination": "London"})
    );
    assert_eq!(s.calls[0].server.as_str(), "app");
    assert_eq!(s.turns.len(), 1);
    assert_eq!(
        s.turns[0].user.as_str(),
        "I want to book a flight to London."
    );
    assert!(s.results.is_empty());
}

#[test]
fn a_function_message_is_paired_with_the_latest_unanswered_call_of_its_name() {
    let body = json!({"model": "gpt-3.5-turbo-0613", "messages": [
        {"role": "user", "content": "Weather in Boston, then in Oslo"},
        {"role": "assistant", "content": null, "function_call": {"name": W, "arguments": "{\"location\": \"Boston\"}"}},
        {"role": "assistant", "content": null, "function_call": {"name": "get_time", "arguments": "{}"}},
        {"role": "assistant", "content": null, "function_call": {"name": W, "arguments": "{\"location\": \"Oslo\"}"}},
        {"role": "function", "name": W, "content": "Oslo: 4 C"},
        {"role": "function", "name": "get_time", "content": "12:00"},
        {"role": "function", "name": W, "content": "Boston: 72 F"},
        {"role": "function", "name": "lookup", "content": "no call asked for this"},
        {"role": "function", "content": "no name"}
    ]});
    let s = bytes("pairs.json", body.to_string().as_bytes());
    assert_eq!(result_text(&s, "get_current_weather#3"), "Oslo: 4 C");
    assert_eq!(result_text(&s, "get_time#2"), "12:00");
    assert_eq!(result_text(&s, "get_current_weather#1"), "Boston: 72 F");
    // A `function` message no call asked for: kept, as the result of no call, with a warning
    // at its path; one without `name` is an error and skipped.
    let w = warnings(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("$.messages[7]") && w[0].contains("`lookup`") && w[0].contains("lookup#7"),
        "{w:?}"
    );
    assert_eq!(result_text(&s, "lookup#7"), "no call asked for this");
    assert!(s.call("lookup#7").is_none());
    let e = errors(&s);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("$.messages[8].name"), "{e:?}");
    assert_eq!(s.calls.len(), 3);
    assert_eq!(s.results.len(), 4);
    // A next request that sends the result without replaying the response's message: the
    // result of the response's call, still unanswered.
    let completion = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1688461923,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
            "function_call": {"name": W, "arguments": "{\"location\": \"Boston\"}"}},
            "finish_reason": "function_call"}]});
    let user = json!({"role": "user", "content": "Weather in Boston?"});
    let lines = [
        json!({"request": {"model": "gpt-3.5-turbo-0613", "messages": [user]}, "response": completion}),
        json!({"request": {"model": "gpt-3.5-turbo-0613", "messages": [user,
            {"role": "function", "name": W, "content": "Boston: 72 F"}]}}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let s = bytes("unreplayed.jsonl", lines.as_bytes());
    assert!(s.diagnostics.is_empty(), "{:?}", diags(&s));
    assert_eq!(s.calls[0].id.as_str(), "get_current_weather#1");
    assert_eq!(result_text(&s, "get_current_weather#1"), "Boston: 72 F");
    assert_eq!(s.results.len(), 1);
}

#[test]
fn a_bad_legacy_arguments_string_is_a_diagnostic_not_a_hash() {
    let text = std::fs::read_to_string(dir().join("legacy-function-request.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["messages"][2]["function_call"]["arguments"] = json!("{\"location\": \"Bost");
    let s = bytes("bad.json", v.to_string().as_bytes());
    let w = warnings(&s);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("$.messages[2].function_call.arguments") && w[0].contains("not JSON"),
        "{w:?}"
    );
    assert!(w[1].contains("no arguments hash"), "{w:?}");
    // The call is kept, without arguments, and still gets its result.
    let c = s.call("get_current_weather#2").unwrap();
    assert!(c.request.params.arguments.is_none());
    assert!(result_text(&s, "get_current_weather#2").contains("Boston"));
    assert_eq!(s.calls.len(), 3);
}

#[test]
fn verify_and_summary_read_legacy_function_calls() {
    let f = dir().join("legacy-function-request.json");
    let f = f.to_str().unwrap();
    let rows = summary_rows(f);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["format"], FORMAT, "{r}");
    assert_eq!(
        (&r["turns"], &r["calls"], &r["results"]),
        (&json!(2), &json!(3), &json!(3)),
        "{r}"
    );
    assert_eq!(r["errors"], 0, "{r}");
    // verify: no input error; an orphan function message's warning names its path.
    let o = provscope(&["verify", f]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains(": error:"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("orphan.json");
    std::fs::write(
        &p,
        json!({"model": "gpt-3.5-turbo", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "function", "name": "lookup\u{1b}[2J", "content": "x"}
        ]})
        .to_string(),
    )
    .unwrap();
    let o = provscope(&["verify", p.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("orphan.json: warning: $.messages[1]") && err.contains("no unanswered"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "the name is escaped: {err}");
}

/// What a session says of its calls and results: (id, tool, arguments, turn) and (call id,
/// text).
type CallsAndResults = (
    Vec<(String, String, Option<String>, u32)>,
    Vec<(String, String)>,
);

fn calls_and_results(s: &Session) -> CallsAndResults {
    let calls = s
        .calls
        .iter()
        .map(|c| {
            (
                c.id.to_string(),
                c.tool().to_owned(),
                c.request
                    .params
                    .arguments
                    .as_ref()
                    .map(|a| a.get().to_owned()),
                c.turn,
            )
        })
        .collect();
    let results = s
        .results
        .iter()
        .map(|r| {
            (
                r.call_id().to_owned(),
                r.block_text(0).unwrap_or_default().to_owned(),
            )
        })
        .collect();
    (calls, results)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, ..Default::default() })]

    /// A conversation of legacy function calls (calls, results, orphan results and questions in
    /// any order) read as its last request alone, or as a proxy's records (each call the
    /// response to a request of the messages before it, each request replaying the history),
    /// gives the same calls with the same ids, and the same results.
    #[test]
    fn legacy_ids_are_the_same_in_a_request_and_in_a_proxys_records(
        steps in proptest::collection::vec((0u8..3, 0usize..2, 0u8..3), 1..14)
    ) {
        let names = ["lookup", "fetch"];
        let mut msgs = vec![json!({"role": "user", "content": "q"})];
        for (i, (kind, n, arg)) in steps.iter().enumerate() {
            msgs.push(match kind {
                0 => json!({"role": "user", "content": format!("q{i}")}),
                1 => json!({"role": "assistant", "content": null, "function_call":
                    {"name": names[*n], "arguments": format!("{{\"x\": {arg}}}")}}),
                _ => json!({"role": "function", "name": names[*n], "content": format!("r{i}")}),
            });
        }
        let whole = json!({"model": "gpt-3.5-turbo-0613", "messages": msgs});
        let alone = bytes("alone.json", whole.to_string().as_bytes());
        let mut lines = Vec::new();
        for (i, m) in msgs.iter().enumerate() {
            if m["role"] == "assistant" {
                lines.push(json!({
                    "request": {"model": "gpt-3.5-turbo-0613", "messages": msgs[..i]},
                    "response": {"id": format!("chatcmpl-{i}"), "object": "chat.completion",
                        "created": 1688461923 + i,
                        "choices": [{"index": 0, "message": m, "finish_reason": "function_call"}]}
                }).to_string());
            }
        }
        lines.push(json!({"request": whole, "response": {"id": "chatcmpl-end",
            "object": "chat.completion", "created": 1688462000,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"},
                "finish_reason": "stop"}]}}).to_string());
        let records = bytes("records.jsonl", lines.join("\n").as_bytes());
        proptest::prop_assert_eq!(calls_and_results(&alone), calls_and_results(&records));
        proptest::prop_assert!(errors(&alone).is_empty());
        proptest::prop_assert!(errors(&records).is_empty());
    }
}
