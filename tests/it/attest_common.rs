//! Helpers for the envelope tests: a small session with sealed calls, and bit flips.

use base64::Engine;
use ed25519_dalek::SigningKey;
use provscope::attest::envelope::{seal, Attestor, Observed};
use provscope::attest::keys;
use provscope::check::{check_session, Config, Finding, Kind};
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::model::Session;
use serde_json::{json, Value};

pub const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// A deterministic test key (never a secret).
pub fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// The `ed25519:` form of a key's public half.
pub fn public(k: &SigningKey) -> String {
    keys::compact(&k.verifying_key())
}

/// One call of the fixture: id, server, tool result text.
pub struct Call {
    pub id: String,
    pub server: String,
    pub text: String,
}

pub fn call(id: &str, server: &str, text: &str) -> Call {
    Call {
        id: id.into(),
        server: server.into(),
        text: text.into(),
    }
}

/// The session header with `servers` as given.
pub fn header(servers: Value, require: bool) -> String {
    json!({
        "event": "session", "version": 1, "session_id": "sess_env_test",
        "started_at": "2026-10-02T14:00:00Z", "servers": servers,
        "require_envelopes": require,
    })
    .to_string()
}

/// A server entry trusting `attestors` and owning `own`.
pub fn server(name: &str, attestors: &[String], own: &[String]) -> Value {
    json!({"name": name, "tier": "T0", "attestor_keys": attestors, "server_keys": own})
}

/// The turn, tool_call and tool_result lines of the calls (one turn).
pub fn call_lines(calls: &[Call]) -> Vec<String> {
    let mut out = vec![json!({"event": "turn", "turn": 1, "user": "hi"}).to_string()];
    for (i, c) in calls.iter().enumerate() {
        let args = json!({"plan": "team", "n": i});
        let hash = provscope::attest::hash::canonical_sha256(&args).unwrap();
        out.push(
            json!({
                "event": "tool_call", "turn": 1, "server": c.server,
                "issued_at": format!("2026-10-02T14:00:{:02}.250Z", i % 60),
                "request": {"jsonrpc": "2.0", "id": c.id, "method": "tools/call",
                            "params": {"name": "get_plan_price", "arguments": args}}
            })
            .to_string(),
        );
        out.push(
            json!({
                "event": "tool_result", "turn": 1,
                "tag": {"call_id": c.id, "server": c.server, "tool": "get_plan_price",
                        "arguments_hash": hash,
                        "fetched_at": format!("2026-10-02T14:00:{:02}.500Z", i % 60),
                        "returned_at": format!("2026-10-02T14:00:{:02}.500Z", i % 60)},
                "response": {"jsonrpc": "2.0", "id": c.id,
                             "result": {"content": [{"type": "text", "text": c.text}]}}
            })
            .to_string(),
        );
    }
    out
}

/// Loads JSONL lines as a session (with a raised line cap, for the huge-payload test).
pub fn load(lines: &[String]) -> Session {
    let text = lines.join("\n") + "\n";
    let opts = LoadOptions {
        max_line_bytes: 512 << 20,
        ..LoadOptions::default()
    };
    load_bytes("env-test", "env-test.jsonl", text.as_bytes(), &opts)
}

/// Seals call `id` of the session with `key`; the envelope as a JSON value.
pub fn seal_value(s: &Session, id: &str, k: &SigningKey) -> Value {
    let obs = Observed::from_session(s, id).unwrap();
    let env = seal(
        &obs,
        &Attestor {
            id: "test-attestor".into(),
            key: k.clone(),
        },
    )
    .unwrap();
    env.to_value()
}

/// The `envelope` event line for a (possibly altered) envelope value.
pub fn envelope_line(call_id: &str, env: &Value) -> String {
    json!({"event": "envelope", "call_id": call_id, "envelope": env}).to_string()
}

/// Findings of the three envelope kinds.
pub fn envelope_findings(s: &Session) -> Vec<Finding> {
    envelope_findings_with(s, &Config::default())
}

pub fn envelope_findings_with(s: &Session, cfg: &Config) -> Vec<Finding> {
    assert!(
        !s.has_errors(),
        "fixture does not load cleanly: {:?}",
        s.diagnostics
    );
    check_session(s, cfg)
        .findings
        .into_iter()
        .filter(|f| {
            matches!(
                f.kind,
                Kind::EnvelopeMissing
                    | Kind::EnvelopeInvalid
                    | Kind::ResultTampered
                    | Kind::EnvelopePartial
            )
        })
        .collect()
}

/// Flips one bit of a base64 field's decoded bytes (`payload`, or `signatures[0].sig`).
pub fn flip_b64(env: &Value, field: &str, byte: usize, bit: u8) -> Value {
    let mut e = env.clone();
    let slot = if field == "payload" {
        &mut e["payload"]
    } else {
        &mut e["signatures"][0]["sig"]
    };
    let mut bytes = B64.decode(slot.as_str().unwrap()).unwrap();
    bytes[byte] ^= 1 << bit;
    *slot = Value::String(B64.encode(bytes));
    e
}

/// Decoded length of a base64 field (`payload` or `sig`).
pub fn b64_len(env: &Value, field: &str) -> usize {
    let s = if field == "payload" {
        env["payload"].as_str().unwrap()
    } else {
        env["signatures"][0]["sig"].as_str().unwrap()
    };
    B64.decode(s).unwrap().len()
}

/// `n` positions spread over `0..len`, always including the first and the last.
pub fn spread(len: usize, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).map(|i| i * (len - 1) / (n - 1).max(1)).collect();
    v.dedup();
    v
}

/// The evidence `reason` of a finding.
pub fn reason(f: &Finding) -> String {
    f.evidence.to_json()["reason"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}
