//! Recomputes tests/vectors/envelope-v1.json (written by an independent Python implementation,
//! tests/vectors/make_vectors.py) with provscope: every hash input, hash, payload, PAE,
//! signature and envelope must match byte for byte, and the envelopes must verify in a session.

use crate::attest_common;

use attest_common::*;
use ed25519_dalek::SigningKey;
use provscope::attest::dsse::{self, Envelope, SigCheck};
use provscope::attest::envelope::{self as exec, Attestor, Observed};
use provscope::attest::hash::arguments_hash;
use provscope::attest::keys;
use provscope::model::{CallResponse, Timestamp};
use serde_json::{json, value::RawValue, Value};

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/envelope-v1.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
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
        let obs = Observed {
            session_id: inp["session_id"].as_str().unwrap(),
            call_id: inp["call_id"].as_str().unwrap(),
            server: inp["server"].as_str().unwrap(),
            tool: inp["tool"].as_str().unwrap(),
            arguments: args.as_deref(),
            called_at: Timestamp::parse(inp["called_at"].as_str().unwrap()).unwrap(),
            returned_at: Timestamp::parse(inp["returned_at"].as_str().unwrap()).unwrap(),
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

#[test]
fn vector_envelopes_verify_in_a_session() {
    let doc = vectors();
    let v = &doc["vectors"][0];
    let inp = &v["input"];
    let tag_hash = v["expected"]["arguments_hash"].clone();
    let lines = vec![
        json!({"event": "session", "version": 1, "session_id": inp["session_id"],
               "started_at": "2026-10-02T14:00:00Z", "require_envelopes": true,
               "servers": [{"name": inp["server"], "tier": "T0",
                            "attestor_keys": [doc["key"]["public"]]}]})
        .to_string(),
        json!({"event": "turn", "turn": 1, "user": "price?"}).to_string(),
        json!({"event": "tool_call", "turn": 1, "server": inp["server"],
               "issued_at": inp["called_at"],
               "request": {"jsonrpc": "2.0", "id": inp["call_id"], "method": "tools/call",
                           "params": {"name": inp["tool"], "arguments": inp["arguments"]}}})
        .to_string(),
        json!({"event": "tool_result", "turn": 1,
               "tag": {"call_id": inp["call_id"], "server": inp["server"], "tool": inp["tool"],
                       "arguments_hash": tag_hash, "fetched_at": inp["returned_at"],
                       "returned_at": inp["returned_at"]},
               "response": inp["response"]})
        .to_string(),
        envelope_line(inp["call_id"].as_str().unwrap(), &v["expected"]["envelope"]),
    ];
    let s = load(&lines);
    assert!(envelope_findings(&s).is_empty());
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
