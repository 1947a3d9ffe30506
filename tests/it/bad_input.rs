//! Hostile and broken input: every case gets a clear diagnostic with file:line:column and field,
//! everything valid still loads, nothing panics.

use crate::common;

use provscope::ingest::{load_bytes, load_file, LoadOptions};
use provscope::model::{DiagLevel, Session};

fn load(text: &[u8]) -> Session {
    load_bytes("t", "t.jsonl", text, &LoadOptions::default())
}

fn good() -> String {
    common::Fx::baseline().jsonl()
}

fn messages(s: &Session) -> Vec<String> {
    s.diagnostics.iter().map(|d| d.to_string()).collect()
}

#[test]
fn truncated_last_line_keeps_the_rest() {
    let g = good();
    let cut = &g[..g.len() - 20]; // inside the final label event
    let s = load(cut.as_bytes());
    let m = messages(&s);
    assert_eq!(s.diagnostics.len(), 1, "{m:?}");
    let last_line = g.lines().count();
    assert!(m[0].starts_with(&format!("t.jsonl:{last_line}:")), "{m:?}");
    assert!(m[0].contains("truncated line"), "{m:?}");
    assert_eq!(s.claim_count(), 1);
    assert_eq!(s.results.len(), 1);
}

#[test]
fn invalid_utf8_names_the_column() {
    let mut bytes = b"{\"event\":\"turn\",\"turn\":1,\"user\":\"caf".to_vec();
    bytes.extend_from_slice(&[0xC3, 0x28]);
    bytes.extend_from_slice(b"\"}\n");
    let s = load(&bytes);
    let d = &s.diagnostics[0];
    assert_eq!((d.line, d.column), (1, 37));
    assert!(d.message.contains("invalid UTF-8"));
}

#[test]
fn a_line_over_the_cap_is_skipped_without_buffering() {
    let mut text = good();
    let big = format!(
        "{{\"event\":\"turn\",\"turn\":9,\"user\":\"{}\"}}\n",
        "x".repeat(50 * 1024 * 1024)
    );
    text.insert_str(0, &big);
    let opts = LoadOptions {
        max_line_bytes: 1 << 20,
        ..LoadOptions::default()
    };
    let s = load_bytes("t", "t.jsonl", text.as_bytes(), &opts);
    assert_eq!(s.diagnostics.len(), 1, "{:?}", messages(&s));
    assert!(s.diagnostics[0]
        .message
        .contains("over the 1048576 byte cap"));
    assert_eq!(s.diagnostics[0].line, 1);
    assert_eq!(s.claim_count(), 1);
}

#[test]
fn wrong_types_name_the_field_path() {
    let s = load(b"{\"event\":\"tool_call\",\"turn\":\"one\",\"server\":\"a\",\"issued_at\":\"2026-10-02T14:00:00Z\",\"request\":{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}}\n");
    let d = &s.diagnostics[0];
    assert_eq!(d.path, "tool_call.turn");
    assert!(d.message.contains("wrong type"), "{}", d.message);
    assert!(d.column > 1);
    let s = load(b"{\"event\":\"tool_result\",\"turn\":1,\"tag\":{\"call_id\":\"a\",\"server\":\"s\",\"tool\":\"t\",\"arguments_hash\":\"x\",\"fetched_at\":\"last week\",\"returned_at\":\"2026-10-02T14:00:00Z\"},\"response\":{\"id\":1}}\n");
    assert_eq!(s.diagnostics[0].path, "tool_result.tag.fetched_at");
    assert!(s.diagnostics[0].message.contains("RFC 3339"));
}

#[test]
fn a_bad_stamp_costs_only_itself() {
    let mut lines: Vec<serde_json::Value> = common::Fx::baseline().lines();
    let ans = lines.iter_mut().find(|v| v["event"] == "answer").unwrap();
    let mut bad = ans["claims"][0].clone();
    bad["claim_id"] = serde_json::json!("clm_bad");
    bad["span"]["start"] = serde_json::json!("zero");
    ans["claims"].as_array_mut().unwrap().push(bad);
    let text: String = lines.iter().map(|v| v.to_string() + "\n").collect();
    let s = load(text.as_bytes());
    assert_eq!(s.claim_count(), 1);
    assert_eq!(s.diagnostics.len(), 1);
    assert_eq!(s.diagnostics[0].path, "answer.claims[1].span.start");
}

#[test]
fn unknown_kinds_and_future_versions() {
    let mut text = good().replace("\"version\":1", "\"version\":7");
    text.push_str("{\"event\":\"heartbeat\",\"at\":1}\n");
    let s = load(text.as_bytes());
    let m = messages(&s);
    assert!(
        m.iter().any(|x| x.contains("format version 7 is newer")),
        "{m:?}"
    );
    assert!(
        m.iter()
            .any(|x| x.contains("unknown event kind `heartbeat`") && x.contains("warning")),
        "{m:?}"
    );
    assert_eq!(s.claim_count(), 1, "still loads best-effort");
}

#[test]
fn duplicate_ids_and_result_before_call() {
    let fx = common::Fx::baseline();
    let lines = fx.lines();
    let call = lines
        .iter()
        .find(|v| v["event"] == "tool_call")
        .unwrap()
        .to_string();
    let result = lines
        .iter()
        .find(|v| v["event"] == "tool_result")
        .unwrap()
        .to_string();
    let ans = lines.iter().find(|v| v["event"] == "answer").unwrap();
    let mut dup_claims = ans.clone();
    let c0 = dup_claims["claims"][0].clone();
    dup_claims["claims"].as_array_mut().unwrap().push(c0);
    dup_claims["turn"] = serde_json::json!(2);
    let text = format!(
        "{}\n{result}\n{call}\n{call}\n{result}\n{}\n",
        lines[0], dup_claims
    );
    let s = load(text.as_bytes());
    let m = messages(&s).join("\n");
    assert!(m.contains("duplicate call id `req_1`"), "{m}");
    assert!(
        m.contains("a result for call `req_1` was already recorded"),
        "{m}"
    );
    assert!(m.contains("recorded before its call"), "{m}");
    assert!(m.contains("claim id `clm_price` appears twice"), "{m}");
    assert_eq!(s.calls.len(), 1);
    assert_eq!(s.claim_count(), 1);
}

#[test]
fn empty_binary_and_missing_inputs() {
    let s = load(b"");
    assert!(messages(&s)[0].contains("holds no events"));
    let s = load(b"\x7fELF\x02\x01\x01\x00\x00\x00garbage\n\x00\x00\n");
    assert_eq!(s.diagnostics.len(), 1);
    assert!(s.diagnostics[0].message.contains("binary file"));
    let s = load_file(
        std::path::Path::new("/definitely/not/here.jsonl"),
        &LoadOptions::default(),
    );
    assert!(messages(&s)[0].contains("cannot read the file"));
    let dir = tempfile::tempdir().unwrap();
    let (files, errs) = provscope::ingest::discover(&[dir.path().to_path_buf()]);
    assert!(files.is_empty());
    assert!(errs[0].message.contains("no session logs or known traces"));
    let (_, errs) = provscope::ingest::discover(&[dir.path().join("nope")]);
    assert!(errs[0].message.contains("no such file"));
}

#[test]
fn every_diagnostic_level_is_sane_on_garbage_lines() {
    let s = load(b"not json\n{\"event\":\n[1,2,3]\n{\"event\":5}\n{}\n");
    assert_eq!(s.diagnostics.len(), 5, "{:?}", messages(&s));
    assert!(s
        .diagnostics
        .iter()
        .all(|d| d.level == DiagLevel::Error && d.line >= 1));
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: crate::fuzz::cases(2000), ..ProptestConfig::default() })]

        /// Arbitrary bytes never panic the loader.
        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = load(&bytes);
        }

        /// Mutating a valid session (truncation, byte flips, line shuffles) never panics and
        /// never loses a line that was left intact.
        #[test]
        fn mutated_sessions(cut in 0usize..4000, flips in proptest::collection::vec((0usize..4000, any::<u8>()), 0..6)) {
            let g = good();
            let mut b = g.as_bytes().to_vec();
            for (pos, v) in flips {
                if !b.is_empty() {
                    let p = pos % b.len();
                    b[p] = v;
                }
            }
            b.truncate(cut.min(b.len()));
            let s = load(&b);
            let report = provscope::check::check_session(&s, &provscope::check::Config::default());
            prop_assert!(report.claims.len() <= 1);
        }
    }
}
