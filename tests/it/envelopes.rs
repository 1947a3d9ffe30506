//! Envelope checks inside `verify`: a valid envelope passes; near misses (one flipped bit in
//! the payload, the signature or the recorded result) fail with the right kind; every kind of
//! bad input is a clear finding, never a panic.

use crate::attest_common;

use attest_common::*;
use base64::Engine;
use provscope::check::{Config, Kind};
use serde_json::{json, Value};

const SERVER: &str = "pricing.internal";

/// Header lines trusting `attestor`, plus two calls, loaded; with envelopes made by `sealer`.
fn sealed_session(
    require: bool,
    attestors: &[String],
    own: &[String],
    sealer: &ed25519_dalek::SigningKey,
) -> (Vec<String>, Vec<Value>) {
    let calls = [
        call(
            "req_1",
            SERVER,
            "Team plan: seats cost €19 per user per month.",
        ),
        call(
            "req_2",
            SERVER,
            "Business plan: seats cost €39 per user per month.",
        ),
    ];
    let mut lines = vec![header(json!([server(SERVER, attestors, own)]), require)];
    lines.extend(call_lines(&calls));
    let s = load(&lines);
    let envs = calls
        .iter()
        .map(|c| seal_value(&s, &c.id, sealer))
        .collect();
    (lines, envs)
}

fn with_envelopes(lines: &[String], envs: &[(&str, Value)]) -> Vec<String> {
    let mut out = lines.to_vec();
    for (id, e) in envs {
        out.push(envelope_line(id, e));
    }
    out
}

#[test]
fn valid_envelopes_pass() {
    let k = key(1);
    let (lines, envs) = sealed_session(true, &[public(&k)], &[], &k);
    let s = load(&with_envelopes(
        &lines,
        &[("req_1", envs[0].clone()), ("req_2", envs[1].clone())],
    ));
    assert_eq!(envelope_findings(&s), vec![]);
    // The PEM form of the same key is trusted the same way.
    let pem = provscope::attest::keys::public_pem(&k.verifying_key()).unwrap();
    let (lines, envs) = sealed_session(true, &[pem], &[], &k);
    let s = load(&with_envelopes(
        &lines,
        &[("req_1", envs[0].clone()), ("req_2", envs[1].clone())],
    ));
    assert_eq!(envelope_findings(&s), vec![]);
}

#[test]
fn missing_envelope_when_required_by_header_or_config() {
    let k = key(1);
    let (lines, envs) = sealed_session(true, &[public(&k)], &[], &k);
    let s = load(&with_envelopes(&lines, &[("req_1", envs[0].clone())]));
    let f = envelope_findings(&s);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].kind, Kind::EnvelopeMissing);
    assert_eq!(f[0].call_ids, vec!["req_2"]);
    assert_eq!(f[0].evidence.to_json()["required_by"], "session");
    // Not required: nothing.
    let (lines, envs) = sealed_session(false, &[public(&k)], &[], &k);
    let s = load(&with_envelopes(&lines, &[("req_1", envs[0].clone())]));
    assert_eq!(envelope_findings(&s), vec![]);
    // Required by the configuration instead.
    let cfg = Config::parse("require_envelopes = true").unwrap();
    let f = envelope_findings_with(&s, &cfg);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, Kind::EnvelopeMissing);
    assert_eq!(f[0].evidence.to_json()["required_by"], "config");
}

#[test]
fn one_flipped_bit_in_payload_or_signature_is_invalid() {
    let k = key(1);
    let (lines, envs) = sealed_session(false, &[public(&k)], &[], &k);
    for field in ["payload", "sig"] {
        let len = b64_len(&envs[0], field);
        for (n, byte) in spread(len, 12).into_iter().enumerate() {
            let bad = flip_b64(&envs[0], field, byte, (n % 8) as u8);
            let s = load(&with_envelopes(
                &lines,
                &[("req_1", bad), ("req_2", envs[1].clone())],
            ));
            let f = envelope_findings(&s);
            assert_eq!(f.len(), 1, "{field} byte {byte}: {f:#?}");
            assert_eq!(f[0].kind, Kind::EnvelopeInvalid, "{field} byte {byte}");
            assert_eq!(f[0].call_ids, vec!["req_1"]);
            assert!(
                ["bad_signature", "bad_payload"].contains(&reason(&f[0]).as_str()),
                "{field} byte {byte}: {}",
                f[0].message
            );
        }
    }
}

#[test]
fn one_flipped_bit_in_the_recorded_result_is_tampering() {
    let k = key(1);
    let (lines, envs) = sealed_session(false, &[public(&k)], &[], &k);
    let i = lines
        .iter()
        .position(|l| l.contains("\"tool_result\""))
        .unwrap();
    let text = "Team plan: seats cost €19 per user per month.";
    let mut tried = 0;
    for pos in spread(text.len(), 8) {
        if !text.is_char_boundary(pos) || !text.as_bytes()[pos].is_ascii_alphanumeric() {
            continue;
        }
        let mut b = text.as_bytes().to_vec();
        b[pos] ^= 0x01;
        let Ok(altered) = String::from_utf8(b) else {
            continue;
        };
        let mut l = lines.clone();
        l[i] = l[i].replace(text, &altered);
        let s = load(&with_envelopes(
            &l,
            &[("req_1", envs[0].clone()), ("req_2", envs[1].clone())],
        ));
        let f = envelope_findings(&s);
        assert_eq!(f.len(), 1, "byte {pos}: {f:#?}");
        assert_eq!(f[0].kind, Kind::ResultTampered);
        assert_eq!(f[0].severity, provscope::check::Severity::Error);
        let ev = f[0].evidence.to_json();
        assert_ne!(ev["sealed_result_hash"], ev["recorded_result_hash"]);
        assert_eq!(ev["server"], SERVER);
        assert_eq!(
            ev["keyid"],
            provscope::attest::keys::keyid(&k.verifying_key())
        );
        tried += 1;
    }
    assert!(tried >= 5, "only {tried} positions tried");
}

#[test]
fn tampering_is_reported_on_every_claim_citing_the_result() {
    let k = key(1);
    let (mut lines, envs) = sealed_session(false, &[public(&k)], &[], &k);
    let i = lines
        .iter()
        .position(|l| l.contains("\"tool_result\""))
        .unwrap();
    lines[i] = lines[i].replace("€19", "€91");
    let text = "Team plan: seats cost €91 per user per month.";
    let hash = provscope::attest::hash::canonical_sha256(&json!({"plan": "team", "n": 0})).unwrap();
    let origin = json!({"tool_call_id": "req_1", "server": SERVER, "tool": "get_plan_price",
                        "arguments_hash": hash, "fetched_at": "2026-10-02T14:00:00.500Z"});
    let end = text.chars().count();
    lines.push(
        json!({"event": "answer", "turn": 1, "generated_at": "2026-10-02T14:00:05Z",
               "text": text, "claims": [
                   {"claim_id": "clm_a", "claim_text": "Seats cost €91", "origin": origin,
                    "span": {"block": 0, "start": 0, "end": end}},
                   {"claim_id": "clm_b", "claim_text": "Team plan seats are per user", "origin": origin,
                    "span": {"block": 0, "start": 0, "end": end}}]})
        .to_string(),
    );
    let s = load(&with_envelopes(
        &lines,
        &[("req_1", envs[0].clone()), ("req_2", envs[1].clone())],
    ));
    let f = envelope_findings(&s);
    let claims: Vec<&str> = f.iter().filter_map(|f| f.claim_id.as_deref()).collect();
    assert_eq!(claims, vec!["clm_a", "clm_b"], "{f:#?}");
    assert!(f.iter().all(|f| f.kind == Kind::ResultTampered));
}

#[test]
fn trust_decisions() {
    let attestor = key(1);
    let stranger = key(2);
    let tool_server = key(3);
    // Signed by a key the header does not trust for the server.
    let (lines, envs) = sealed_session(false, &[public(&attestor)], &[], &stranger);
    let s = load(&with_envelopes(&lines, &[("req_1", envs[0].clone())]));
    let f = envelope_findings(&s);
    assert_eq!(f.len(), 1);
    assert_eq!(reason(&f[0]), "untrusted_key", "{}", f[0].message);
    assert!(f[0].message.contains(SERVER));
    // Signed by the tool server's own key: self-attestation, even if also listed as attestor.
    for attestors in [
        vec![public(&attestor)],
        vec![public(&attestor), public(&tool_server)],
    ] {
        let (lines, envs) =
            sealed_session(false, &attestors, &[public(&tool_server)], &tool_server);
        let s = load(&with_envelopes(&lines, &[("req_1", envs[0].clone())]));
        let f = envelope_findings(&s);
        assert_eq!(f.len(), 1);
        assert_eq!(reason(&f[0]), "self_attestation", "{}", f[0].message);
    }
    // No attestor keys at all.
    let (lines, envs) = sealed_session(false, &[], &[], &attestor);
    let s = load(&with_envelopes(&lines, &[("req_1", envs[0].clone())]));
    let f = envelope_findings(&s);
    assert_eq!(reason(&f[0]), "no_trusted_keys");
    // keyid is a hint only: a wrong keyid does not matter, a right keyid does not help.
    let (lines, envs) = sealed_session(false, &[public(&attestor)], &[], &attestor);
    let mut e = envs[0].clone();
    e["signatures"][0]["keyid"] = json!("not-the-key-id");
    let s = load(&with_envelopes(&lines, &[("req_1", e)]));
    assert_eq!(envelope_findings(&s), vec![]);
    let (lines, envs) = sealed_session(false, &[public(&attestor)], &[], &stranger);
    let mut e = envs[0].clone();
    e["signatures"][0]["keyid"] = json!(provscope::attest::keys::keyid(&attestor.verifying_key()));
    let s = load(&with_envelopes(&lines, &[("req_1", e)]));
    assert_eq!(envelope_findings(&s).len(), 1);
}

#[test]
fn header_keys_that_do_not_parse_are_named() {
    let k = key(1);
    let p256 = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEwKRMwphX0hD2vTVvj3WqW9SwE59E\nUgUoIl4slTZkubCxqoPVT/AHKZho1oWrANmsaWt8OKAnyKhOmU/orbuudg==\n-----END PUBLIC KEY-----\n";
    let private = provscope::attest::keys::private_pem(&k)
        .unwrap()
        .to_string();
    let (lines, envs) = sealed_session(false, &[p256.into(), private], &[], &k);
    let s = load(&with_envelopes(&lines, &[("req_1", envs[0].clone())]));
    let f = envelope_findings(&s);
    assert_eq!(f.len(), 1);
    assert_eq!(reason(&f[0]), "no_trusted_keys");
    let unusable = f[0].evidence.to_json()["unusable_header_keys"].to_string();
    assert!(unusable.contains("wrong key type"), "{unusable}");
    assert!(unusable.contains("private key"), "{unusable}");
}

#[test]
fn call_mismatch_and_unknown_call() {
    let k = key(1);
    let (lines, envs) = sealed_session(false, &[public(&k)], &[], &k);
    // req_2's envelope filed under req_1: the sealed call is another call.
    let s = load(&with_envelopes(&lines, &[("req_1", envs[1].clone())]));
    let f = envelope_findings(&s);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(reason(&f[0]), "call_mismatch");
    assert!(f[0].evidence.to_json().get("sealed_call_hash").is_some());
    assert_ne!(
        f[0].evidence.to_json()["sealed_call_hash"],
        f[0].evidence.to_json()["recorded_call_hash"]
    );
    // The recorded arguments changed after sealing.
    let mut l = lines.clone();
    let i = l.iter().position(|x| x.contains("\"tool_call\"")).unwrap();
    l[i] = l[i].replace("\"plan\":\"team\"", "\"plan\":\"business\"");
    let s = load(&with_envelopes(&l, &[("req_1", envs[0].clone())]));
    let f = envelope_findings(&s);
    assert_eq!(reason(&f[0]), "call_mismatch");
    let fields = f[0].evidence.to_json()["mismatches"].to_string();
    assert!(
        fields.contains("arguments_hash") && fields.contains("call_hash"),
        "{fields}"
    );
    // An envelope for a call that was never recorded.
    let s = load(&with_envelopes(&lines, &[("req_404", envs[0].clone())]));
    let f = envelope_findings(&s);
    assert_eq!(f.len(), 1);
    assert_eq!(reason(&f[0]), "unknown_call");
    assert_eq!(f[0].call_ids, vec!["req_404"]);
}

#[test]
fn bad_envelopes_are_findings_not_panics() {
    let k = key(1);
    let (lines, envs) = sealed_session(false, &[public(&k)], &[], &k);
    let good = &envs[0];
    let mut cases: Vec<(&str, Value)> = Vec::new();
    let payload = good["payload"].as_str().unwrap();
    let mut e = good.clone();
    e["payload"] = json!(&payload[..payload.len() / 2]);
    cases.push(("truncated payload", e));
    let mut e = good.clone();
    e["payload"] = json!("this is not base64!");
    cases.push(("non-base64 payload", e));
    let mut e = good.clone();
    e["signatures"][0]["sig"] = json!("%%%");
    cases.push(("non-base64 signature", e));
    let mut e = good.clone();
    e["signatures"][0]["sig"] = json!("AAAA");
    cases.push(("short signature", e));
    let mut e = good.clone();
    e["payloadType"] = json!("application/json");
    cases.push(("wrong payloadType", e));
    let mut e = good.clone();
    e["signatures"] = json!([]);
    cases.push(("no signatures", e));
    let mut e = good.clone();
    e.as_object_mut().unwrap().remove("signatures");
    cases.push(("signatures missing", e));
    let mut e = good.clone();
    let sig = e["signatures"][0].clone();
    e["signatures"].as_array_mut().unwrap().push(sig);
    cases.push(("duplicated signature", e));
    let mut e = good.clone();
    e["payload"] = json!(B64.encode(b"{\"_type\":\"https://in-toto.io/Statement/v1\"}"));
    cases.push(("payload not a statement", e));
    let mut e = good.clone();
    e["payload"] = json!(B64.encode([0xff, 0xfe, 0x00]));
    cases.push(("payload not JSON", e));
    cases.push(("envelope not an object", json!("hello")));
    cases.push(("envelope null", Value::Null));
    for (what, e) in cases {
        let s = load(&with_envelopes(&lines, &[("req_1", e)]));
        let f = envelope_findings(&s);
        assert_eq!(f.len(), 1, "{what}: {f:#?}");
        assert_eq!(f[0].kind, Kind::EnvelopeInvalid, "{what}");
        assert!(!f[0].message.is_empty());
        assert_eq!(
            f[0].evidence.to_json()["envelope_line"],
            json!(lines.len() + 1),
            "{what}"
        );
    }
}

#[test]
fn a_100_mb_payload_is_refused_without_panicking() {
    let k = key(1);
    let (lines, envs) = sealed_session(false, &[public(&k)], &[], &k);
    let mut e = envs[0].clone();
    // 100 MB of payload, base64 (about 133 MB of text), generated here.
    e["payload"] = json!(B64.encode(vec![b'{'; 100 << 20]));
    let s = load(&with_envelopes(&lines, &[("req_1", e)]));
    let f = envelope_findings(&s);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, Kind::EnvelopeInvalid);
    assert!(f[0].message.contains("limit"), "{}", f[0].message);
}

#[test]
fn many_envelopes_batch_verify_and_the_bad_one_is_found() {
    let k = key(1);
    let calls: Vec<Call> = (0..40)
        .map(|i| call(&format!("req_{i}"), SERVER, &format!("Result number {i}.")))
        .collect();
    let mut lines = vec![header(json!([server(SERVER, &[public(&k)], &[])]), true)];
    lines.extend(call_lines(&calls));
    let s = load(&lines);
    let mut envs: Vec<(String, Value)> = calls
        .iter()
        .map(|c| (c.id.clone(), seal_value(&s, &c.id, &k)))
        .collect();
    let all: Vec<(&str, Value)> = envs.iter().map(|(i, e)| (i.as_str(), e.clone())).collect();
    assert_eq!(
        envelope_findings(&load(&with_envelopes(&lines, &all))),
        vec![]
    );
    envs[17].1 = flip_b64(&envs[17].1, "sig", 5, 3);
    let all: Vec<(&str, Value)> = envs.iter().map(|(i, e)| (i.as_str(), e.clone())).collect();
    let f = envelope_findings(&load(&with_envelopes(&lines, &all)));
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].call_ids, vec!["req_17"]);
    assert_eq!(reason(&f[0]), "bad_signature");
}

#[test]
fn sessions_without_envelopes_are_unaffected() {
    // No envelopes and nothing required: no envelope findings at all.
    let k = key(1);
    let (lines, _) = sealed_session(false, &[public(&k)], &[], &k);
    assert_eq!(envelope_findings(&load(&lines)), vec![]);
}
