//! DSSE interop with securesystemslib (PyPI, pinned in tests/interop/requirements.txt, installed
//! by tests/interop/install.sh): an envelope provscope signed verifies there, one signed there
//! verifies in provscope, and one flipped bit of payload, signature or sealed result, at positions
//! spread across each, is rejected by both.

use crate::attest_common;

use attest_common::*;
use provscope::attest::envelope::{statement, Attestor, Observed};
use provscope::attest::keys;
use provscope::check::Kind;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python(args: &[&str]) -> String {
    let o = Command::new("python3")
        .arg(root().join("tests/interop/dsse_interop.py"))
        .args(args)
        .env("PROVSCOPE_PYDEPS", root().join(".cache/pydeps"))
        .output()
        .expect("run python3");
    assert!(
        o.status.success(),
        "dsse_interop.py {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

const SERVER: &str = "pricing.internal";
const TEXT: &str = "Team plan: seats cost €19 per user per month, billed annually.";

/// The fixture's lines with the header trusting `attestor` (an `ed25519:` key).
fn lines_trusting(attestor: &str) -> Vec<String> {
    let mut l = vec![header(
        json!([server(SERVER, &[attestor.to_owned()], &[])]),
        true,
    )];
    l.extend(call_lines(&[call("req_1", SERVER, TEXT)]));
    l
}

/// One case: an envelope, and optionally a recorded result that differs from the sealed one.
struct Case {
    what: String,
    env: Value,
    altered_text: Option<String>,
}

/// The valid envelope, then single-bit flips spread across payload and signature, then
/// single-bit flips spread across the recorded result text.
fn cases(env: &Value) -> Vec<Case> {
    let mut out = vec![Case {
        what: "valid".into(),
        env: env.clone(),
        altered_text: None,
    }];
    for field in ["payload", "sig"] {
        let len = b64_len(env, field);
        for (n, byte) in spread(len, 16).into_iter().enumerate() {
            let bit = (n * 3 % 8) as u8;
            out.push(Case {
                what: format!("{field} byte {byte} bit {bit}"),
                env: flip_b64(env, field, byte, bit),
                altered_text: None,
            });
        }
    }
    for pos in spread(TEXT.len(), 10) {
        let mut b = TEXT.as_bytes().to_vec();
        if !b[pos].is_ascii() {
            continue;
        }
        b[pos] ^= 1 << (pos % 5);
        if let Ok(t) = String::from_utf8(b) {
            out.push(Case {
                what: format!("result byte {pos}"),
                env: env.clone(),
                altered_text: Some(t),
            });
        }
    }
    out
}

/// provscope's verdict on each case: true when no envelope finding.
fn provscope_verdicts(attestor: &str, cases: &[Case]) -> Vec<bool> {
    cases
        .iter()
        .map(|c| {
            let mut l = lines_trusting(attestor);
            if let Some(t) = &c.altered_text {
                let i = l
                    .iter()
                    .position(|x| x.contains("\"tool_result\""))
                    .unwrap();
                let mut v: Value = serde_json::from_str(&l[i]).unwrap();
                v["response"]["result"]["content"][0]["text"] = json!(t);
                l[i] = v.to_string();
            }
            l.push(envelope_line("req_1", &c.env));
            let f = envelope_findings(&load(&l));
            if c.altered_text.is_some() {
                assert!(
                    f.iter().all(|f| f.kind == Kind::ResultTampered),
                    "{}",
                    c.what
                );
            }
            f.is_empty()
        })
        .collect()
}

/// securesystemslib's verdict on each case (one Python process for all of them).
fn securesystemslib_verdicts(
    dir: &Path,
    public_key: &str,
    keyid: &str,
    cases: &[Case],
) -> Vec<(bool, String)> {
    let list: Vec<Value> = cases
        .iter()
        .map(|c| {
            let text = c.altered_text.as_deref().unwrap_or(TEXT);
            json!({"envelope": c.env, "public_key": public_key, "keyid": keyid,
                   "result": {"content": [{"type": "text", "text": text}]}})
        })
        .collect();
    let file = dir.join("cases.json");
    std::fs::write(&file, serde_json::to_string(&list).unwrap()).unwrap();
    let out: Vec<Value> =
        serde_json::from_str(&python(&["verify", file.to_str().unwrap()])).unwrap();
    out.iter()
        .map(|v| {
            (
                v["ok"].as_bool().unwrap(),
                v["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn assert_both_agree(dir: &Path, public_key: &str, keyid: &str, env: &Value) {
    let cases = cases(env);
    assert!(cases.len() > 35, "{} cases", cases.len());
    let ours = provscope_verdicts(public_key, &cases);
    let theirs = securesystemslib_verdicts(dir, public_key, keyid, &cases);
    for (i, c) in cases.iter().enumerate() {
        let want = i == 0;
        assert_eq!(ours[i], want, "provscope on {}", c.what);
        assert_eq!(
            theirs[i].0, want,
            "securesystemslib on {}: {}",
            c.what, theirs[i].1
        );
    }
}

#[test]
fn provscope_signed_envelopes_verify_in_securesystemslib() {
    if !crate::peers::interop() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let k = key(11);
    let public_key = public(&k);
    let s = load(&lines_trusting(&public_key));
    let env = seal_value(&s, "req_1", &k);
    assert_both_agree(
        dir.path(),
        &public_key,
        &keys::keyid(&k.verifying_key()),
        &env,
    );
}

#[test]
fn securesystemslib_signed_envelopes_verify_in_provscope() {
    if !crate::peers::interop() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The statement for the recorded call, which securesystemslib signs with its own key.
    let placeholder = Attestor {
        id: "placeholder".into(),
        key: key(12),
    };
    let s = load(&lines_trusting(&public(&key(12))));
    let st = statement(&Observed::from_session(&s, "req_1").unwrap(), &placeholder).unwrap();
    let st_file = dir.path().join("statement.json");
    std::fs::write(&st_file, serde_json::to_string(&st).unwrap()).unwrap();
    let out_file = dir.path().join("signed.json");
    python(&[
        "sign",
        st_file.to_str().unwrap(),
        out_file.to_str().unwrap(),
    ]);
    let signed: Value = serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    let public_key = signed["public_key"].as_str().unwrap();
    assert_ne!(public_key, public(&key(12)), "a fresh securesystemslib key");
    assert_both_agree(
        dir.path(),
        public_key,
        signed["keyid"].as_str().unwrap(),
        &signed["envelope"],
    );
}
