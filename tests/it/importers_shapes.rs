//! Importers on shapes of real files they once read wrong (issue 12): the inputs are in
//! tests/inputs/ (edited copies of real files, or built from the formats' documentation; see its
//! SOURCES.md) or generated here.

use crate::importers::{notes, warnings};
use provscope::ingest::{load_file_sessions, LoadOptions};
use provscope::model::{DiagLevel, Session};
use std::path::{Path, PathBuf};

/// The folder of edited and built inputs.
pub fn inputs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs")
}

fn load(rel: &str) -> Vec<Session> {
    load_file_sessions(&inputs().join(rel), &LoadOptions::default())
}

#[test]
fn claude_code_synthetic_messages_are_no_answer_of_the_model() {
    // The real transcript 4b2030ed with a resume ("Continue from where you left off." and
    // Claude Code's "No response requested.") and a second question whose API call failed
    // (Claude Code writes the error as an assistant message of model `<synthetic>`).
    let mut v = load("claude-code/synthetic-messages.jsonl");
    assert_eq!(v.len(), 1);
    let s = v.remove(0);
    assert_eq!(s.format(), "claude-code");
    let users: Vec<String> = s.turns.iter().map(|t| t.user.to_string()).collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1], "and which one is the mildest?");
    // Only the model's answer to the first question; the second turn has none.
    assert_eq!(s.answers.len(), 1, "{:?}", s.answers);
    let a = &s.answers[0];
    assert_eq!(a.turn, s.turns[0].index);
    assert!(a.text.ends_with("due to milder spice levels"), "{}", a.text);
    for not in ["No response requested.", "API Error", "Overloaded"] {
        assert!(!a.text.contains(not), "{not} in {}", a.text);
    }
    // The API error is a warning at its line, saying who wrote it.
    let w = warnings(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("synthetic-messages.jsonl:16:1: warning: $.message.content[0].text: an API error (HTTP 529) written by Claude Code, not by the model: \"API Error: 529"),
        "{}",
        w[0]
    );
    assert!(s.diagnostics.iter().all(|d| d.level != DiagLevel::Error));
    assert!(
        notes(&s)
            .iter()
            .any(|n| n.contains("No response requested.")),
        "{:?}",
        notes(&s)
    );
    // The model is the one that answered, never `<synthetic>`.
    let h = s.header.as_ref().unwrap();
    assert_eq!(h.model.as_deref(), Some("claude-opus-4-5-20251101"));
}

#[test]
fn anthropic_message_batch_results_give_a_session_per_request() {
    // A batch's results (`GET /v1/messages/batches/{id}/results`): the two lines of the API
    // reference's example, a real response with citations (prism-text-document-citations-1)
    // as a third request, and one request each errored, expired and canceled.
    let rel = "anthropic-batch/msgbatch-results.jsonl";
    let v = load(rel);
    let ids: Vec<&str> = v.iter().map(|s| s.id()).collect();
    assert_eq!(
        ids,
        ["my-second-request", "grass-and-sky", "my-first-request"]
    );
    for s in &v {
        assert_eq!(s.format(), "anthropic-messages");
        assert_eq!(s.name, s.id(), "named by custom_id");
        assert_eq!(s.answers.len(), 1);
        assert!(notes(s).iter().any(|n| n.contains("Message Batch")));
    }
    assert!(v[0].answers[0].text.starts_with("Hello again!"));
    assert!(v[2].answers[0].text.starts_with("Hello! How can I assist"));
    // The response with citations is read as the response file is, each place at its line.
    let cited = &v[1];
    let a = &cited.answers[0];
    assert_eq!(a.line, 2);
    assert_eq!(a.claims.len(), 2);
    for c in &a.claims {
        assert_eq!(c.line, 2);
        assert!(
            c.json_path
                .as_deref()
                .is_some_and(|p| p.starts_with("$.result.message.content[")),
            "{:?}",
            c.json_path
        );
    }
    let whole = provscope::ingest::load_file_sessions(
        &super::importers::formats()
            .join("anthropic-messages/prism-text-document-citations-1.json"),
        &LoadOptions::default(),
    )
    .remove(0);
    assert_eq!(a.text, whole.answers[0].text);
    let claim_ids = |s: &Session| -> Vec<String> {
        s.answers[0]
            .claims
            .iter()
            .map(|c| c.id().to_owned())
            .collect()
    };
    assert_eq!(claim_ids(cited), claim_ids(&whole));
    // Its dangling document citations are warned about at line 2.
    assert!(
        warnings(cited)
            .iter()
            .all(|w| w.contains("msgbatch-results.jsonl:2: warning: $.result.message.content[")),
        "{:?}",
        warnings(cited)
    );
    // The requests that did not succeed: a warning each, at its line, naming the type, told
    // once (with the first session).
    let w = warnings(&v[0]);
    assert_eq!(w.len(), 3, "{w:?}");
    for (w, (line, want)) in w.iter().zip([
        (3, "request `bad-params` of the batch is `errored`: invalid_request_error: \"max_tokens: Field required\""),
        (4, "request `too-late` of the batch is `expired`"),
        (5, "request `stopped` of the batch is `canceled`"),
    ]) {
        assert!(
            w.contains(&format!("msgbatch-results.jsonl:{line}: warning: $.result.type: {want}")),
            "{w}"
        );
    }
    assert!(v[2].diagnostics.is_empty(), "{:?}", v[2].diagnostics);
    assert!(v
        .iter()
        .flat_map(|s| &s.diagnostics)
        .all(|d| d.level != DiagLevel::Error));
}

#[test]
fn anthropic_message_batch_results_are_known_by_content_and_bad_lines_are_named() {
    use provscope::ingest::import::{detect, Detected};
    let text =
        std::fs::read_to_string(inputs().join("anthropic-batch/msgbatch-results.jsonl")).unwrap();
    assert!(
        matches!(detect(text.as_bytes()), Detected::Import(i) if i.name == "anthropic-messages")
    );
    // Any name, and keys in another order.
    let swapped = r#"{"result":{"type":"expired"},"custom_id":"late"}"#;
    let lines: Vec<&str> = text.lines().collect();
    let bad = [
        swapped,
        lines[0],
        r#"{"custom_id":"cut","result":{"type":"succeeded","message":{"id":"m""#,
        r#"{"custom_id":"odd","result":{"type":"paused"}}"#,
        r#"{"custom_id":"nothing","result":{"type":"succeeded"}}"#,
        "",
        r#"{"custom_id":"no-result"}"#,
    ]
    .join("\n");
    let v =
        provscope::ingest::load_any_bytes("b", "b.txt", bad.as_bytes(), &LoadOptions::default());
    let ids: Vec<&str> = v.iter().map(|s| s.id()).collect();
    assert_eq!(ids, ["my-second-request", "nothing"]);
    let diags: Vec<String> = v
        .iter()
        .flat_map(|s| &s.diagnostics)
        .map(|d| d.to_string())
        .collect();
    let want = [
        "b.txt:1: warning: $.result.type: request `late` of the batch is `expired`",
        "b.txt:3:",
        "b.txt:4: warning: $.result.type: request `odd` of the batch has the result type `paused`; skipped",
        "b.txt:7: error: $.result: a batch result without a `result`; skipped",
        "b.txt:5: error: $.result.message: a succeeded result without a message; nothing read",
    ];
    assert_eq!(diags.len(), want.len(), "{diags:?}");
    for (d, w) in diags.iter().zip(want) {
        assert!(d.starts_with(w), "{d} / {w}");
    }
    assert!(
        diags[1].contains("error: not a batch result ("),
        "{}",
        diags[1]
    );
    // The same results as a JSON array (the SDK's results, saved as one document).
    let array = format!("[{}]", lines.join(","));
    let v =
        provscope::ingest::load_any_bytes("a", "a.json", array.as_bytes(), &LoadOptions::default());
    assert_eq!(v.len(), 3);
    assert_eq!(
        v[1].answers[0].claims[0]
            .json_path
            .as_deref()
            .map(|p| p.starts_with("$[1].result.message.content[")),
        Some(true)
    );
    assert!(
        warnings(&v[0])[0].starts_with("a.json: warning: $[2].result.type: request `bad-params`"),
        "{:?}",
        warnings(&v[0])
    );
}

/// A call's id, tool and result text.
type CallRead = (String, String, Option<String>);

/// A session's calls and answers, to compare two readings of one trace.
fn calls_and_answers(s: &Session) -> (Vec<CallRead>, Vec<String>) {
    let calls = s
        .calls
        .iter()
        .map(|c| {
            let r = s.result(&c.id).and_then(|r| r.block_text(0));
            (c.id.to_string(), c.tool().to_owned(), r.map(str::to_owned))
        })
        .collect();
    (
        calls,
        s.answers.iter().map(|a| a.text.to_string()).collect(),
    )
}

fn export(name: &str) -> Session {
    load_file_sessions(
        &super::importers::formats()
            .join("langfuse-trace-export")
            .join(name),
        &LoadOptions::default(),
    )
    .remove(0)
}

#[test]
fn langfuse_list_of_traces_gives_a_session_per_trace() {
    // A page of `GET /api/public/traces`: the claude-agent trace with its observations as
    // objects, the vercel-aisdk trace with only their ids (as the list returns them).
    let v = load("langfuse-api/traces-page.json");
    assert_eq!(v.len(), 2);
    let (full, ids) = (&v[0], &v[1]);
    // Told apart by name (the file's, then the first 12 characters of the trace id).
    for s in &v {
        assert_eq!(s.name, format!("traces-page#{}", &s.id()[..12]));
    }
    assert_ne!(full.name, ids.name);
    let (want_full, want_ids) = (
        export("claude-agent-2025-12-22.trace.json"),
        export("vercel-aisdk-2025-11-17.trace.json"),
    );
    assert_eq!(full.format(), "langfuse");
    assert_eq!(full.id(), want_full.id());
    assert_eq!(calls_and_answers(full), calls_and_answers(&want_full));
    assert!(!full.calls.is_empty());
    let users = |s: &Session| {
        s.turns
            .iter()
            .map(|t| t.user.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(users(full), users(&want_full));
    // Paths point into the list.
    assert!(full.calls.iter().all(|c| c
        .json_path
        .as_deref()
        .is_some_and(|p| p.starts_with("$.data[0].observations["))));
    // The trace listed with observation ids: its own input is read, and one warning says why
    // there is nothing else.
    assert_eq!(ids.id(), want_ids.id());
    assert!(ids.calls.is_empty() && ids.answers.is_empty());
    assert_eq!(
        users(ids),
        ["What is the weather like today in San Francisco?"]
    );
    assert_eq!(ids.turns[0].json_path.as_deref(), Some("$.data[1].input"));
    let w = warnings(full);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("traces-page.json: warning: $.data: the file lists observation ids only (3 ids, of 1 trace)")
            && w[0].contains("GET /api/public/traces/{id}"),
        "{}",
        w[0]
    );
    assert!(
        ids.diagnostics.is_empty(),
        "told once: {:?}",
        ids.diagnostics
    );
    assert!(
        notes(full).iter().any(|n| n.contains("page 1 of 3")),
        "{:?}",
        notes(full)
    );
}

#[test]
fn langfuse_list_of_observations_gives_a_session_per_trace() {
    // `GET /api/public/observations`: the observations of two traces, interleaved; each names its
    // trace (`traceId`).
    let v = load("langfuse-api/observations.json");
    assert_eq!(v.len(), 2);
    for (s, name) in v.iter().zip([
        "claude-agent-2025-12-22.trace.json",
        "openai-agents-2025-09-30.trace.json",
    ]) {
        let want = export(name);
        assert_eq!(s.format(), "langfuse");
        assert_eq!(s.id(), want.id(), "{name}");
        assert_eq!(calls_and_answers(s), calls_and_answers(&want), "{name}");
        assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    }
    // Bad items are named by their path; the rest is read.
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(inputs().join("langfuse-api/observations.json")).unwrap(),
    )
    .unwrap();
    let data = doc["data"].as_array_mut().unwrap();
    data.insert(1, serde_json::json!({"name": "neither"}));
    data.insert(2, serde_json::json!(7));
    let text = serde_json::to_string(&doc).unwrap();
    let v =
        provscope::ingest::load_any_bytes("o", "o.json", text.as_bytes(), &LoadOptions::default());
    assert_eq!(v.len(), 2);
    let errors: Vec<String> = v[0].diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with("o.json: error: $.data[1]: an item that is neither a trace"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].starts_with("o.json: error: $.data[2]: "),
        "{}",
        errors[1]
    );
    // An empty page.
    let v = provscope::ingest::load_any_bytes("e", "e.json", br#"{"data": [], "meta": {"page": 1, "limit": 50, "totalItems": 0, "totalPages": 0}, "htmlPath": 1}"#, &LoadOptions::default());
    assert_eq!(v.len(), 1);
    assert!(v[0].diagnostics.iter().any(|d| d.level == DiagLevel::Error));
}

#[test]
fn langfuse_list_of_many_traces_groups_each_traces_observations_in_first_seen_order() {
    // The page's observations copied for 24 traces per original (each copy's `traceId` and ids
    // its own), and the items interleaved: copy k's items in an order that visits the traces
    // out of their first-seen order. Each trace is one session, in the order its first item
    // comes, holding its own observations (as the page of two traces gives them).
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(inputs().join("langfuse-api/observations.json")).unwrap(),
    )
    .unwrap();
    let base = doc["data"].as_array().unwrap();
    let copies = 24usize;
    let mut items = Vec::new();
    for (i, item) in base.iter().enumerate() {
        for k in 0..copies {
            // Copy k's item i, copies visited in a scattered order.
            let k = (k * 7 + i) % copies;
            let mut o = item.clone();
            for key in ["id", "parentObservationId"] {
                if let Some(id) = o[key].as_str() {
                    o[key] = format!("{id}-{k}").into();
                }
            }
            let t = o["traceId"].as_str().unwrap();
            o["traceId"] = format!("{t}-{k}").into();
            items.push(o);
        }
    }
    let mut first_seen: Vec<String> = Vec::new();
    for o in &items {
        let t = o["traceId"].as_str().unwrap().to_owned();
        if !first_seen.contains(&t) {
            first_seen.push(t);
        }
    }
    let mut page = doc.clone();
    page["data"] = items.into();
    let text = serde_json::to_string(&page).unwrap();
    let v =
        provscope::ingest::load_any_bytes("p", "p.json", text.as_bytes(), &LoadOptions::default());
    let one = load("langfuse-api/observations.json");
    assert_eq!(v.len(), first_seen.len());
    assert_eq!(v.len(), one.len() * copies);
    for (s, t) in v.iter().zip(&first_seen) {
        assert_eq!(s.id(), t.as_str());
        let (orig, k) = t.rsplit_once('-').unwrap();
        let want = one.iter().find(|w| w.id() == orig).unwrap();
        let (calls, answers) = calls_and_answers(s);
        let (want_calls, want_answers) = calls_and_answers(want);
        assert_eq!(answers, want_answers, "{t}");
        assert_eq!(calls.len(), want_calls.len(), "{t}");
        for (c, w) in calls.iter().zip(&want_calls) {
            assert_eq!((&c.1, &c.2), (&w.1, &w.2), "{t}");
            // A call id made of an observation id carries the copy's suffix, or is the model's.
            assert!(c.0 == w.0 || c.0 == format!("{}-{k}", w.0), "{c:?} {w:?}");
        }
    }
}

/// A trace of the public API (`GET /api/public/traces/{id}`) whose `input`, among its first
/// keys, is 200 KiB: the claude-agent export's trace fields (without `projectId`, as the
/// importers' test of the API trace writes them), its prompt padded to 200 KiB, and its
/// observations last, as the API orders them.
pub fn long_input_trace() -> Vec<u8> {
    let path = super::importers::formats()
        .join("langfuse-trace-export/claude-agent-2025-12-22.trace.json");
    let export: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut api = export["trace"].clone();
    let o = api.as_object_mut().unwrap();
    o.remove("projectId");
    o.remove("observations");
    // JSON written as a string, with escapes, as Langfuse stores an SDK's input.
    let prompt = format!(
        "What's the weather like in Berlin and New York? {}",
        "\"pad\" ".repeat(200 * 1024 / 6)
    );
    o["input"] = serde_json::json!({"prompt": prompt}).to_string().into();
    o.insert("observations".into(), export["observations"].clone());
    let text = serde_json::to_string(&api).unwrap();
    assert!(text.find("\"observations\"").unwrap() > 200 * 1024);
    text.into_bytes()
}

#[test]
fn langfuse_api_trace_with_a_long_input_first_is_detected() {
    use provscope::ingest::import::{detect, Detected};
    let bytes = long_input_trace();
    assert!(matches!(detect(&bytes), Detected::Import(i) if i.name == "langfuse"));
    let dir = tempfile::tempdir().unwrap();
    // Any name: detection reads the content.
    let p = dir.path().join("trace-export");
    std::fs::write(&p, &bytes).unwrap();
    let v = load_file_sessions(&p, &LoadOptions::default());
    assert_eq!(v.len(), 1);
    let s = &v[0];
    assert_eq!(s.format(), "langfuse");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let want = export("claude-agent-2025-12-22.trace.json");
    assert_eq!(s.id(), want.id());
    assert_eq!(calls_and_answers(s), calls_and_answers(&want));
    // A directory scan finds it too.
    let scan = tempfile::tempdir().unwrap();
    std::fs::write(scan.path().join("api-trace.json"), &bytes).unwrap();
    let v = provscope::ingest::load_paths(&[scan.path().to_path_buf()], &LoadOptions::default(), 1);
    assert_eq!(v.sessions.len(), 1);
    assert_eq!(v.sessions[0].format(), "langfuse");
}
