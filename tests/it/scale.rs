//! Issue 18 as a user sees it: envelopes verified in batches still name exactly the envelope
//! whose signature is bad.

use base64::Engine;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const NOW: &str = "2026-11-01T00:00:00Z";

fn provscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run provscope")
}

fn gen(dir: &Path, args: &[&str]) {
    let mut a = vec!["gen", "--out", dir.to_str().unwrap()];
    a.extend_from_slice(args);
    let o = provscope(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Flips one bit of the first signature of the envelope line of each call in `calls`.
fn corrupt(file: &Path, calls: &[&str]) {
    let b64 = base64::engine::general_purpose::STANDARD;
    let text = std::fs::read_to_string(file).unwrap();
    let mut hit = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["event"] != "envelope" || !calls.contains(&v["call_id"].as_str().unwrap()) {
                return l.to_owned();
            }
            hit += 1;
            let sig = &mut v["envelope"]["signatures"][0]["sig"];
            let mut bytes = b64.decode(sig.as_str().unwrap()).unwrap();
            bytes[5] ^= 8;
            *sig = Value::String(b64.encode(bytes));
            v.to_string()
        })
        .collect();
    assert_eq!(hit, calls.len());
    std::fs::write(file, lines.join("\n") + "\n").unwrap();
}

/// Every envelope finding of a `verify --format json` document: (call id, reason).
fn envelope_findings(doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in doc["sessions"].as_array().unwrap() {
        let claims = s["claims"].as_array().unwrap();
        let all = s["session_findings"].as_array().unwrap().iter().chain(
            claims
                .iter()
                .flat_map(|c| c["findings"].as_array().unwrap()),
        );
        for f in all {
            if f["kind"].as_str().unwrap().starts_with("envelope") {
                let calls: Vec<&str> = f["call_ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap())
                    .collect();
                out.push((
                    calls.join(","),
                    f["evidence"]["reason"].as_str().unwrap_or("").to_owned(),
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn verify_json(dir: &Path) -> Value {
    let o = provscope(&[
        "verify",
        "--format",
        "json",
        "--now",
        NOW,
        "-j1",
        dir.to_str().unwrap(),
    ]);
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn a_bad_signature_among_hundreds_of_batched_envelopes_is_named_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sealed");
    // 90 turns of 4 calls: 360 sealed calls in one session, more than one batch of 256.
    gen(
        &dir,
        &[
            "--sessions",
            "1",
            "--turns",
            "90",
            "--calls",
            "4",
            "--envelopes",
            "--fault-rate",
            "0",
            "--seed",
            "5",
        ],
    );
    assert_eq!(envelope_findings(&verify_json(&dir)), vec![]);
    let file = dir.join("gen-000000.jsonl");
    corrupt(&file, &["call_200"]);
    assert_eq!(
        envelope_findings(&verify_json(&dir)),
        vec![("call_200".to_owned(), "bad_signature".to_owned())]
    );
    // Bad ones at both ends of both batches: exactly those, each named once.
    corrupt(&file, &["call_1", "call_256", "call_257", "call_360"]);
    let want: Vec<(String, String)> = ["call_1", "call_200", "call_256", "call_257", "call_360"]
        .iter()
        .map(|c| (c.to_string(), "bad_signature".to_owned()))
        .collect();
    let mut want = want;
    want.sort();
    assert_eq!(envelope_findings(&verify_json(&dir)), want);
}
