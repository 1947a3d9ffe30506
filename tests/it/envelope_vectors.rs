//! Recomputes tests/vectors/envelope-v2.json (written by an independent Python implementation,
//! tests/vectors/make_vectors.py) with provscope: every hash input, hash, payload, PAE,
//! signature and envelope must match byte for byte, and the envelopes must verify in a session.
//! The v1 vectors (the previous predicate) still verify, with a note that their freshness is not
//! attested.

use crate::attest_common;

use attest_common::*;
use ed25519_dalek::SigningKey;
use provscope::attest::dsse::{self, Envelope, SigCheck};
use provscope::attest::envelope::{self as exec, Attestor, Observed};
use provscope::attest::hash::arguments_hash;
use provscope::attest::keys;
use provscope::check::{Kind, Severity};
use provscope::model::event::CacheInfo;
use provscope::model::{CallResponse, Timestamp};
use serde_json::{json, value::RawValue, Value};

fn vectors_of(version: u8) -> Value {
    let path = format!(
        "{}/tests/vectors/envelope-v{version}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn vectors() -> Value {
    vectors_of(2)
}

fn test_key(doc: &Value) -> SigningKey {
    let mut seed = [0u8; 32];
    hex::decode_to_slice(doc["key"]["seed_hex"].as_str().unwrap(), &mut seed).unwrap();
    SigningKey::from_bytes(&seed)
}

#[test]
fn vectors_recompute_byte_for_byte() {
    let doc = vectors();
    let key = test_key(&doc);
    assert_eq!(
        hex::encode(key.verifying_key().as_bytes()),
        doc["key"]["public_hex"].as_str().unwrap(),
        "the vectors use RFC 8032 TEST 1"
    );
    assert_eq!(keys::keyid(&key.verifying_key()), doc["key"]["keyid"]);
    assert_eq!(keys::compact(&key.verifying_key()), doc["key"]["public"]);
    let vs = doc["vectors"].as_array().unwrap();
    assert_eq!(vs.len(), 2);
    for v in vs {
        let name = v["name"].as_str().unwrap();
        let inp = &v["input"];
        let exp = &v["expected"];
        let args: Option<Box<RawValue>> = match &inp["arguments"] {
            Value::Null => None,
            a => Some(RawValue::from_string(a.to_string()).unwrap()),
        };
        let response: CallResponse = serde_json::from_value(inp["response"].clone()).unwrap();
        let cache: CacheInfo = serde_json::from_value(inp["cache"].clone()).unwrap();
        let obs = Observed {
            session_id: inp["session_id"].as_str().unwrap(),
            call_id: inp["call_id"].as_str().unwrap(),
            server: inp["server"].as_str().unwrap(),
            tool: inp["tool"].as_str().unwrap(),
            arguments: args.as_deref(),
            called_at: Timestamp::parse(inp["called_at"].as_str().unwrap()).unwrap(),
            returned_at: Timestamp::parse(inp["returned_at"].as_str().unwrap()).unwrap(),
            fetched_at: Timestamp::parse(inp["fetched_at"].as_str().unwrap()).unwrap(),
            ttl_seconds: inp["ttl_seconds"].as_u64(),
            cache: &cache,
            response: &response,
        };
        assert_eq!(
            arguments_hash(args.as_deref()).unwrap(),
            exp["arguments_hash"],
            "{name}"
        );
        // The hash inputs are RFC 8785 canonical JSON of the fixed objects.
        let call_input = json!({
            "tool": obs.tool,
            "arguments": inp["arguments"].as_object().cloned().unwrap_or_default(),
            "call_id": obs.call_id,
            "called_at": inp["called_at"],
        });
        assert_eq!(
            serde_jcs::to_string(&call_input).unwrap(),
            exp["call_hash_input"],
            "{name}"
        );
        let ch = exec::call_hash(
            obs.tool,
            obs.arguments,
            obs.call_id,
            &obs.called_at.to_string(),
        )
        .unwrap();
        assert_eq!(ch, exp["call_hash"], "{name}");
        assert_eq!(
            exec::result_hash(&response, &ch).unwrap(),
            exp["result_hash"],
            "{name}"
        );
        let env = exec::seal(
            &obs,
            &Attestor {
                id: doc["attestor_id"].as_str().unwrap().into(),
                key: key.clone(),
            },
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(env.payload.clone()).unwrap(),
            exp["payload"],
            "{name}"
        );
        assert_eq!(hex::encode(env.pae()), exp["pae_hex"], "{name}");
        assert_eq!(
            hex::encode(env.signatures[0].sig.to_bytes()),
            exp["signature_hex"],
            "{name}"
        );
        assert_eq!(env.to_value(), exp["envelope"], "{name}");
        // And the published envelope parses, opens and verifies.
        let parsed = Envelope::from_value(&exp["envelope"]).unwrap();
        let st = exec::open(&parsed).unwrap();
        assert_eq!(st.predicate.call_hash, exp["call_hash"]);
        let vk = key.verifying_key();
        let pae = parsed.pae();
        assert!(dsse::verify_one(&SigCheck {
            msg: &pae,
            sig: &parsed.signatures[0].sig,
            key: &vk,
        }));
    }
}

/// The session of a vector: header trusting the vector key, the call, its result (tagged with
/// `tag`), and the vector's envelope.
fn vector_session(doc: &Value, v: &Value, tag: Value) -> provscope::model::Session {
    let inp = &v["input"];
    let lines = vec![
        json!({"event": "session", "version": 1, "session_id": inp["session_id"],
               "started_at": "2026-10-02T14:00:00Z", "require_envelopes": true,
               "servers": [{"name": inp["server"], "tier": "T0",
                            "attestor_keys": [doc["key"]["public"]]}]})
        .to_string(),
        json!({"event": "turn", "turn": 1, "user": "price?"}).to_string(),
        json!({"event": "tool_call", "turn": 1, "server": inp["server"],
               "issued_at": inp["called_at"],
               "request": {"jsonrpc": "2.0", "id": inp["response"]["id"], "method": "tools/call",
                           "params": {"name": inp["tool"], "arguments": inp["arguments"]}}})
        .to_string(),
        json!({"event": "tool_result", "turn": 1, "tag": tag, "response": inp["response"]})
            .to_string(),
        envelope_line(inp["call_id"].as_str().unwrap(), &v["expected"]["envelope"]),
    ];
    load(&lines)
}

/// The ingestion tag a vector's input describes (v1 inputs have no freshness: fresh, no TTL).
fn vector_tag(v: &Value) -> Value {
    let inp = &v["input"];
    let mut tag = json!({"call_id": inp["call_id"], "server": inp["server"], "tool": inp["tool"],
        "arguments_hash": v["expected"]["arguments_hash"],
        "fetched_at": inp.get("fetched_at").unwrap_or(&inp["returned_at"]),
        "returned_at": inp["returned_at"]});
    if let Some(ttl) = inp.get("ttl_seconds").filter(|t| !t.is_null()) {
        tag["ttl_seconds"] = ttl.clone();
    }
    if let Some(c) = inp.get("cache") {
        tag["cache"] = c.clone();
    }
    tag
}

#[test]
fn vector_envelopes_verify_in_a_session() {
    let doc = vectors();
    for v in doc["vectors"].as_array().unwrap() {
        let s = vector_session(&doc, v, vector_tag(v));
        assert_eq!(envelope_findings(&s), vec![], "{}", v["name"]);
    }
}

#[test]
fn an_edited_tag_is_tampering_naming_the_field() {
    let doc = vectors();
    for v in doc["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let base = vector_tag(v);
        let mut edits: Vec<(&str, Value)> = Vec::new();
        let mut t = base.clone();
        t["fetched_at"] = json!("2026-10-02T15:00:00Z");
        edits.push(("tag.fetched_at", t));
        let mut t = base.clone();
        t["returned_at"] = json!("2026-10-02T15:00:00Z");
        edits.push(("tag.returned_at", t));
        let mut t = base.clone();
        t["ttl_seconds"] = json!(86400);
        edits.push(("tag.ttl_seconds", t));
        let mut t = base.clone();
        let hit = t["cache"]["hit"].as_bool().unwrap();
        t["cache"]["hit"] = json!(!hit);
        edits.push(("tag.cache.hit", t));
        let mut t = base.clone();
        t["cache"]["original_fetched_at"] = json!("2026-10-02T14:00:00Z");
        edits.push(("tag.cache.original_fetched_at", t));
        if base.get("ttl_seconds").is_some() {
            let mut t = base.clone();
            t.as_object_mut().unwrap().remove("ttl_seconds");
            edits.push(("tag.ttl_seconds", t));
        }
        for (field, tag) in edits {
            let s = vector_session(&doc, v, tag);
            let f = envelope_findings(&s);
            assert_eq!(f.len(), 1, "{name} {field}: {f:#?}");
            assert_eq!(f[0].kind, Kind::ResultTampered, "{name} {field}");
            assert_eq!(f[0].severity, Severity::Error);
            assert_eq!(
                f[0].evidence.to_json()["tampered_fields"],
                json!([field]),
                "{name} {field}"
            );
            assert!(f[0].message.contains(field), "{}", f[0].message);
            // The result itself is intact: the hashes agree.
            assert_eq!(
                f[0].evidence.to_json()["sealed_result_hash"],
                f[0].evidence.to_json()["recorded_result_hash"]
            );
        }
        // The same instant written differently is not an edit.
        let mut t = base.clone();
        let fetched = Timestamp::parse(base["fetched_at"].as_str().unwrap()).unwrap();
        let shifted = time::OffsetDateTime::from_unix_timestamp_nanos(
            i128::from(fetched.millis()) * 1_000_000,
        )
        .unwrap()
        .to_offset(time::macros::offset!(+2));
        t["fetched_at"] = json!(shifted
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap());
        let s = vector_session(&doc, v, t);
        assert_eq!(
            envelope_findings(&s),
            vec![],
            "{name}: same instant, +02:00"
        );
    }
}

#[test]
fn v1_envelopes_still_verify_with_a_note_that_freshness_is_not_attested() {
    let doc = vectors_of(1);
    for v in doc["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let tag = vector_tag(v);
        let s = vector_session(&doc, v, tag.clone());
        let f = envelope_findings(&s);
        assert_eq!(f.len(), 1, "{name}: {f:#?}");
        assert_eq!(f[0].kind, Kind::EnvelopePartial);
        assert_eq!(f[0].severity, Severity::Info);
        assert_eq!(f[0].evidence.to_json()["reason"], "freshness_unattested");
        assert!(f[0].message.contains("not attested"), "{}", f[0].message);
        // v1 sealed returned_at: editing it is tampering; fetched_at was never sealed.
        let mut t = tag.clone();
        t["returned_at"] = json!("2026-10-02T15:00:00Z");
        let f = envelope_findings(&vector_session(&doc, v, t));
        assert_eq!(f.len(), 1, "{name}: {f:#?}");
        assert_eq!(f[0].kind, Kind::ResultTampered);
        let mut t = tag.clone();
        t["fetched_at"] = json!("2026-10-02T15:00:00Z");
        let f = envelope_findings(&vector_session(&doc, v, t));
        assert_eq!(f[0].kind, Kind::EnvelopePartial, "{name}");
        // And the v1 envelope's signature and statement check out on their own.
        let env = Envelope::from_value(&v["expected"]["envelope"]).unwrap();
        let st = exec::open(&env).unwrap();
        assert!(st.predicate.is_v1());
    }
}

#[test]
fn the_worked_example_in_the_docs_is_the_first_vector() {
    let doc = vectors();
    let e = &doc["vectors"][0]["expected"];
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/envelope-format.md"
    ))
    .unwrap();
    for field in [
        "arguments_hash",
        "call_hash_input",
        "call_hash",
        "result_hash_input",
        "result_hash",
        "payload",
        "signature_hex",
    ] {
        assert!(
            text.contains(e[field].as_str().unwrap()),
            "docs lack {field}"
        );
    }
    assert!(text.contains(e["envelope"]["payload"].as_str().unwrap()));
    assert!(text.contains(e["envelope"]["signatures"][0]["sig"].as_str().unwrap()));
    let n = e["payload"].as_str().unwrap().len();
    assert!(text.contains(&format!("application/vnd.in-toto+json {n} ")));
}
