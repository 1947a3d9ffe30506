//! Streamed model responses saved as server-sent events: the real responses of tests/formats/
//! streamed back as each API documents its events (Anthropic `message_start` ...
//! `message_stop`, OpenAI `response.created` ... `response.completed`, Gemini `alt=sse` chunks)
//! load as the same calls, results, answers and claims as the whole responses, in a file and in
//! a cassette, from the command line too; cut and broken streams say where and why.

use crate::importers::{errors, formats, notes, one};
use provscope::ingest::{load_any_bytes, LoadOptions};
use provscope::model::{Claim, DiagLevel, Session};
use serde_json::{json, Value};

fn doc(rel: &str) -> Value {
    serde_json::from_slice(&std::fs::read(formats().join(rel)).unwrap()).unwrap()
}

/// The events as an `event:`/`data:` stream.
fn sse(events: &[(String, Value)]) -> String {
    events
        .iter()
        .map(|(n, d)| format!("event: {n}\ndata: {d}\n\n"))
        .collect()
}

fn ev(kind: &str, mut data: Value) -> (String, Value) {
    data["type"] = json!(kind);
    (kind.to_owned(), data)
}

/// `text` cut into `n` pieces at character boundaries.
fn pieces(text: &str, n: usize) -> Vec<&str> {
    let mut cuts: Vec<usize> = (0..=n)
        .map(|k| {
            let mut at = text.len() * k / n;
            while !text.is_char_boundary(at) {
                at += 1;
            }
            at
        })
        .collect();
    cuts.dedup();
    cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

/// An Anthropic message as the Messages API streams it: text in three deltas with each
/// citation as a `citations_delta`, tool inputs as `input_json_delta` pieces, other blocks
/// whole at their start.
fn anthropic_events(msg: &Value) -> Vec<(String, Value)> {
    let mut start = msg.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    let mut out = vec![ev("message_start", json!({ "message": start }))];
    out.push(ev("ping", json!({})));
    for (i, block) in msg["content"].as_array().unwrap().iter().enumerate() {
        let kind = block["type"].as_str().unwrap();
        let mut first = block.clone();
        let mut deltas = Vec::new();
        if kind == "text" {
            first["text"] = json!("");
            if let Some(o) = first.as_object_mut() {
                o.remove("citations");
            }
            for c in block["citations"].as_array().into_iter().flatten() {
                deltas.push(json!({"type": "citations_delta", "citation": c}));
            }
            for p in pieces(block["text"].as_str().unwrap(), 3) {
                deltas.push(json!({"type": "text_delta", "text": p}));
            }
        } else if block.get("input").is_some() {
            first["input"] = json!({});
            let input = block["input"].to_string();
            for p in pieces(&input, 2) {
                deltas.push(json!({"type": "input_json_delta", "partial_json": p}));
            }
        }
        out.push(ev(
            "content_block_start",
            json!({"index": i, "content_block": first}),
        ));
        for d in deltas {
            out.push(ev("content_block_delta", json!({"index": i, "delta": d})));
        }
        out.push(ev("content_block_stop", json!({ "index": i })));
    }
    out.push(ev(
        "message_delta",
        json!({"delta": {"stop_reason": msg["stop_reason"], "stop_sequence": null}, "usage": {"output_tokens": 1}}),
    ));
    out.push(ev("message_stop", json!({})));
    out
}

/// An OpenAI response as the Responses API streams it: created, each output item added and
/// done, completed (with the whole response), unless `cut`, which ends the stream after the
/// last item's `added` and its content parts' `done`.
fn openai_events(resp: &Value, cut: bool) -> Vec<(String, Value)> {
    let mut created = resp.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    let mut out = vec![ev(
        "response.created",
        json!({"sequence_number": 0, "response": created}),
    )];
    let items = resp["output"].as_array().unwrap();
    for (i, item) in items.iter().enumerate() {
        let mut added = item.clone();
        if added.get("content").is_some() {
            added["content"] = json!([]);
        }
        out.push(ev(
            "response.output_item.added",
            json!({"output_index": i, "item": added}),
        ));
        if let Some(text) = item.pointer("/content/0/text").and_then(Value::as_str) {
            for p in pieces(text, 3) {
                out.push(ev(
                    "response.output_text.delta",
                    json!({"output_index": i, "content_index": 0, "delta": p}),
                ));
            }
        }
        if cut && i + 1 == items.len() {
            for (ci, part) in item["content"].as_array().into_iter().flatten().enumerate() {
                out.push(ev(
                    "response.content_part.done",
                    json!({"output_index": i, "content_index": ci, "part": part}),
                ));
            }
            return out;
        }
        out.push(ev(
            "response.output_item.done",
            json!({"output_index": i, "item": item}),
        ));
    }
    out.push(ev(
        "response.completed",
        json!({"sequence_number": 99, "response": resp}),
    ));
    out
}

fn load(name: &str, bytes: &[u8]) -> Session {
    let mut v = load_any_bytes("s", name, bytes, &LoadOptions::default());
    assert_eq!(v.len(), 1);
    v.remove(0)
}

/// The stream's session holds what the whole response's does.
fn same_as_whole(s: &Session, whole: &Session, what: &str) {
    assert_eq!(s.format(), whole.format(), "{what}");
    assert!(errors(s).is_empty(), "{what}: {:?}", s.diagnostics);
    let texts = |s: &Session| {
        s.answers
            .iter()
            .map(|a| a.text.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(texts(s), texts(whole), "{what}: answers");
    let calls = |s: &Session| {
        s.calls
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
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(calls(s), calls(whole), "{what}: calls");
    let results = |s: &Session| {
        s.results
            .iter()
            .map(|r| {
                (
                    r.call_id().to_owned(),
                    r.block_count(),
                    r.texts().map(|(_, t)| t.to_owned()).collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(results(s), results(whole), "{what}: results");
    let claims = |s: &Session| {
        s.claims()
            .map(|c: &Claim| {
                (
                    c.stamp.claim_id.to_string(),
                    c.stamp.claim_text.to_string(),
                    c.stamp.span,
                    c.stamp.origin.as_ref().map(|o| o.tool_call_id.to_string()),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(claims(s), claims(whole), "{what}: claims");
}

#[test]
fn streamed_anthropic_messages_are_the_messages() {
    for rel in [
        "anthropic-messages/anthropic-web-search-tool.1.json",
        "anthropic-messages/anthropic-mcp.1.json",
    ] {
        let whole = one(rel);
        let text = sse(&anthropic_events(&doc(rel)));
        let s = load("stream.txt", text.as_bytes());
        same_as_whole(&s, &whole, rel);
        assert!(!s.calls.is_empty(), "{rel}");
        assert!(
            notes(&s).iter().any(|n| n.contains("server-sent events")),
            "{rel}: {:?}",
            notes(&s)
        );
    }
    // The web search answer's claims come from its streamed citations.
    let rel = "anthropic-messages/anthropic-web-search-tool.1.json";
    let s = load("s.sse", sse(&anthropic_events(&doc(rel))).as_bytes());
    assert!(s.claim_count() > 0);
}

#[test]
fn streamed_openai_responses_are_the_responses() {
    for rel in [
        "openai-responses/openai-web-search-tool.1.json",
        "openai-responses/openai-mcp-tool.1.json",
        "openai-responses/openai-file-search-tool.2.json",
    ] {
        let whole = one(rel);
        let s = load("stream", sse(&openai_events(&doc(rel), false)).as_bytes());
        same_as_whole(&s, &whole, rel);
        assert!(
            s.diagnostics.iter().all(|d| d.level != DiagLevel::Warning
                || whole.diagnostics.iter().any(|w| w.message == d.message)),
            "{rel}: {:?}",
            s.diagnostics
        );
    }
    // Cut before `response.completed`: the items finished, and the answer from its finished
    // content parts, with a warning at the stream's first line.
    let rel = "openai-responses/openai-web-search-tool.1.json";
    let whole = one(rel);
    let s = load("cut", sse(&openai_events(&doc(rel), true)).as_bytes());
    assert_eq!(s.calls.len(), whole.calls.len());
    assert_eq!(s.answers[0].text, whole.answers[0].text);
    assert_eq!(s.claim_count(), whole.claim_count());
    let cut = s
        .diagnostics
        .iter()
        .find(|d| d.message.contains("ends before response.completed"))
        .unwrap_or_else(|| panic!("{:?}", s.diagnostics));
    assert_eq!((cut.level, cut.line), (DiagLevel::Warning, 1));
    assert!(cut.message.contains("and 1 started"), "{}", cut.message);
}

#[test]
fn gemini_sse_chunks_join_into_the_response() {
    let rel = "gemini-grounding/prism-search-grounding-1.json";
    let whole = one(rel);
    let d = doc(rel);
    let text = d["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    let parts = pieces(text, 3);
    let mut stream = String::new();
    for (k, p) in parts.iter().enumerate() {
        let mut c = json!({"content": {"role": "model", "parts": [{"text": p}]}, "index": 0});
        let mut chunk = json!({"responseId": "r-1", "modelVersion": d["modelVersion"]});
        if k + 1 == parts.len() {
            c["finishReason"] = d["candidates"][0]["finishReason"].clone();
            c["groundingMetadata"] = d["candidates"][0]["groundingMetadata"].clone();
            chunk["usageMetadata"] = d["usageMetadata"].clone();
        }
        chunk["candidates"] = json!([c]);
        // As `alt=sse` writes them: `data:` lines and CRLF line ends.
        stream.push_str(&format!("data: {chunk}\r\n\r\n"));
    }
    let s = load("gemini.txt", stream.as_bytes());
    same_as_whole(&s, &whole, rel);
    assert!(s.claim_count() > 0);
}

#[test]
fn a_cassette_of_a_streamed_call_is_read() {
    let rel = "anthropic-messages/anthropic-web-search-tool.1.json";
    let whole = one(rel);
    let body = sse(&anthropic_events(&doc(rel)));
    let req = json!({"model": "claude-sonnet-4-5", "stream": true, "messages": [{"role": "user", "content": "What is new?"}]});
    // vcrpy keeps a streamed body as one string.
    let yaml = format!(
        "interactions:\n- request:\n    uri: https://api.anthropic.com/v1/messages\n    body: '{}'\n  response:\n    headers:\n      content-type:\n      - text/event-stream\n    body:\n      string: {}\nversion: 1\n",
        req.to_string().replace('\'', "''"),
        serde_json::to_string(&body).unwrap()
    );
    let s = load("c.yaml", yaml.as_bytes());
    assert_eq!(s.format(), "anthropic-messages");
    assert!(errors(&s).is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.calls.len(), whole.calls.len());
    assert_eq!(s.claim_count(), whole.claim_count());
    assert_eq!(s.answers.last().unwrap().text, whole.answers[0].text);
    // A broken event in the body is named by its line in the body.
    let broken = body.replacen("data: {\"type\":\"ping\"}", "data: {\"type\":", 1);
    assert_ne!(broken, body);
    let yaml = yaml.replace(
        &serde_json::to_string(&body).unwrap(),
        &serde_json::to_string(&broken).unwrap(),
    );
    let s = load("c.yaml", yaml.as_bytes());
    assert_eq!(s.claim_count(), whole.claim_count());
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.message.contains("line 4 of the streamed body"))
        .unwrap_or_else(|| panic!("{:?}", s.diagnostics));
    assert_eq!(d.path, "$.interactions[0].response.body");
}

#[test]
fn broken_streams_say_where_and_never_panic() {
    let rel = "anthropic-messages/anthropic-web-search-tool.1.json";
    let full = sse(&anthropic_events(&doc(rel)));
    // Every third cut at a line end after the first event's data (what tells the API), and one
    // mid-line: never a panic, always the anthropic importer, and a stream cut before its end
    // says so. Cut before that data, nothing tells which API streamed it.
    let ends: Vec<usize> = full.match_indices('\n').map(|(i, _)| i + 1).collect();
    for at in ends[1..].iter().step_by(3).chain([&(full.len() / 2)]) {
        let mut at = *at;
        while !full.is_char_boundary(at) {
            at += 1;
        }
        let s = load_any_bytes(
            "c",
            "c.txt",
            &full.as_bytes()[..at],
            &LoadOptions::default(),
        );
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].format(), "anthropic-messages", "cut at {at}");
        // (A stream saved without its last blank line is whole.)
        if !full[..at].contains("{\"type\":\"message_stop\"}") {
            assert!(!s[0].diagnostics.is_empty(), "cut at {at} says something");
        }
    }
    let s = load_any_bytes(
        "c",
        "c.txt",
        &full.as_bytes()[..ends[0]],
        &LoadOptions::default(),
    );
    assert_eq!(s[0].format(), "unknown");
    // Data that is not JSON: a warning at its line; the rest is read.
    let bad = full.replacen(
        "event: ping\ndata: {\"type\":\"ping\"}",
        "event: ping\ndata: {oops",
        1,
    );
    assert_ne!(bad, full);
    let s = load("bad.txt", bad.as_bytes());
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.message.contains("not JSON"))
        .unwrap_or_else(|| panic!("{:?}", s.diagnostics));
    assert_eq!((d.level, d.line), (DiagLevel::Warning, 4));
    assert_eq!(s.claim_count(), one(rel).claim_count());
    // No event makes a response: an error, not a silent empty session.
    let s = load(
        "e.txt",
        b"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
    );
    assert!(
        errors(&s).iter().any(|e| e.contains("no response")),
        "{:?}",
        s.diagnostics
    );
}

#[test]
fn the_cli_reads_streams_beside_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let rel = "openai-responses/openai-web-search-tool.1.json";
    std::fs::write(
        dir.path().join("run.sse"),
        sse(&openai_events(&doc(rel), false)),
    )
    .unwrap();
    std::fs::copy(formats().join(rel), dir.path().join("whole.json")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(["summary", "--format", "json", "-j1"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = v.as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(sessions.len(), 2, "{v}");
    for s in sessions {
        assert_eq!(s["format"], "openai-responses", "{s}");
    }
    assert_eq!(sessions[0]["claims"], sessions[1]["claims"], "{v}");
}
