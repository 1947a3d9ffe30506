//! Importers on shapes of real files they once read wrong (issue 12): the inputs are in
//! tests/inputs/ (edited copies of real files, or built from the formats' documentation; see its
//! SOURCES.md) or generated here.

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

fn warnings(s: &Session) -> Vec<String> {
    s.diagnostics
        .iter()
        .filter(|d| d.level == DiagLevel::Warning)
        .map(|d| d.to_string())
        .collect()
}

fn notes(s: &Session) -> Vec<String> {
    s.import
        .as_ref()
        .map(|i| i.notes.iter().map(|n| n.to_string()).collect())
        .unwrap_or_default()
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
