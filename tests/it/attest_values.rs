//! Values a hash cannot see: duplicate keys anywhere in a recorded call or result are an error
//! for that line; numbers RFC 8785 cannot represent exactly get a diagnostic, and the envelope
//! check says it cannot vouch for them (never a silent "verified").

use crate::attest_common;

use attest_common::*;
use provscope::check::{Kind, Severity};
use provscope::model::DiagLevel;
use serde_json::{json, Value};

const SERVER: &str = "pricing.internal";

/// A one-call session whose result is `result`, sealed; the lines (envelope last).
fn sealed_with(result: Value) -> Vec<String> {
    let k = key(1);
    let mut lines = vec![header(json!([server(SERVER, &[public(&k)], &[])]), true)];
    lines.extend(call_lines(&[call("req_1", SERVER, "x")]));
    let i = lines
        .iter()
        .position(|l| l.contains("\"tool_result\""))
        .unwrap();
    let mut v: Value = serde_json::from_str(&lines[i]).unwrap();
    v["response"]["result"] = result;
    lines[i] = v.to_string();
    let s = load(&lines);
    let env = seal_value(&s, "req_1", &k);
    lines.push(envelope_line("req_1", &env));
    lines
}

fn result_line(lines: &[String]) -> usize {
    lines
        .iter()
        .position(|l| l.contains("\"tool_result\""))
        .unwrap()
}

/// The hole: a duplicate key inside structuredContent or _meta could be changed (the parser
/// and the hash keep the last value) without `result_tampered`.
#[test]
fn duplicate_keys_anywhere_in_a_result_are_an_error_for_the_line() {
    let lines = sealed_with(json!({"content": [{"type": "text", "text": "x"}],
        "structuredContent": {"price": 19, "currency": "EUR"}, "_meta": {"src": "db"}}));
    let i = result_line(&lines);
    for (from, to, path) in [
        (
            "\"price\":19",
            "\"price\":91,\"price\":19",
            "tool_result.response.result.structuredContent.price",
        ),
        (
            "\"src\":\"db\"",
            "\"src\":\"cache\",\"src\":\"db\"",
            "tool_result.response.result._meta.src",
        ),
        (
            "\"_meta\":{",
            "\"_meta\":{\"src\":\"x\"},\"_meta\":{",
            "tool_result.response.result._meta",
        ),
        (
            "\"type\":\"text\"",
            "\"annotations\":{\"a\":1,\"a\":2},\"type\":\"text\"",
            "tool_result.response.result.content[0].annotations.a",
        ),
        (
            "\"currency\":\"EUR\"",
            "\"currency\":\"EUR\",\"curr\\u0065ncy\":\"USD\"",
            "tool_result.response.result.structuredContent.currency",
        ),
    ] {
        let mut l = lines.clone();
        assert_eq!(l[i].matches(from).count(), 1, "{from}");
        l[i] = l[i].replace(from, to);
        let s = load(&l);
        let errs: Vec<_> = s
            .diagnostics
            .iter()
            .filter(|d| d.level == DiagLevel::Error)
            .collect();
        assert_eq!(errs.len(), 1, "{to}: {:?}", s.diagnostics);
        assert_eq!(errs[0].path, path);
        assert_eq!(errs[0].line, i as u64 + 1);
        assert!(
            errs[0].message.contains("duplicate key"),
            "{}",
            errs[0].message
        );
        assert!(s.result("req_1").is_none(), "the line is skipped");
    }
    // In the arguments of a call, likewise.
    let mut l = lines.clone();
    let c = l.iter().position(|x| x.contains("\"tool_call\"")).unwrap();
    l[c] = l[c].replace("\"plan\":\"team\"", "\"plan\":\"free\",\"plan\":\"team\"");
    let s = load(&l);
    assert!(s.has_errors());
    assert!(s.call("req_1").is_none());
}

/// The hole: 9007199254740993 hashes as 9007199254740992, so it could be changed to its
/// neighbour under a valid envelope and `verify` said nothing.
#[test]
fn numbers_jcs_cannot_represent_are_a_diagnostic_and_not_vouched_for() {
    let lines = sealed_with(json!({"content": [{"type": "text", "text": "x"}],
        "structuredContent": {"order": 9007199254740993u64, "total": 1.5}}));
    for number in ["9007199254740993", "9007199254740992"] {
        let mut l = lines.clone();
        let i = result_line(&l);
        l[i] = l[i].replace("9007199254740993", number);
        let s = load(&l);
        let warns: Vec<_> = s
            .diagnostics
            .iter()
            .filter(|d| d.level == DiagLevel::Warning)
            .collect();
        if number.ends_with('3') {
            assert_eq!(warns.len(), 1, "{:?}", s.diagnostics);
            assert_eq!(
                warns[0].path,
                "tool_result.response.result.structuredContent.order"
            );
            assert!(
                warns[0].message.contains("9007199254740992"),
                "{}",
                warns[0].message
            );
        }
        let f = envelope_findings(&s);
        assert_eq!(f.len(), 1, "{number}: {f:#?}");
        assert_eq!(f[0].kind, Kind::EnvelopePartial);
        assert_eq!(f[0].severity, Severity::Warning);
        let e = f[0].evidence.to_json();
        assert_eq!(e["reason"], "inexact_numbers");
        // The attestor sealed where the inexact number was: an edit to its exactly
        // representable neighbour is still not vouched for.
        assert_eq!(
            e["unattested"],
            json!(["response.result.structuredContent.order"])
        );
        let now = if number.ends_with('3') {
            json!(["response.result.structuredContent.order = 9007199254740993"])
        } else {
            json!([])
        };
        assert_eq!(e["numbers"], now);
    }
    // Numbers canonical JSON keeps exactly: nothing to say.
    let lines = sealed_with(
        json!({"content": [], "structuredContent": {"n": 9007199254740992u64,
        "f": 0.1, "e": 1.0e-7}}),
    );
    let s = load(&lines);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(envelope_findings(&s), vec![]);
}
