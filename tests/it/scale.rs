//! Issue 18 as a user sees it: envelopes verified in batches, within a session or shared by
//! several small sessions, still name exactly the envelope whose signature is bad, and reports written session by session (`verify` JSON, JUnit,
//! SARIF, text; `summary` JSON) are the documents a whole-run serialization gives.

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
    // 90 turns of 4 calls: 360 sealed calls in one session, one batch.
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
    // Bad ones at both ends and around the middle: exactly those, each named once.
    corrupt(&file, &["call_1", "call_256", "call_257", "call_360"]);
    let want: Vec<(String, String)> = ["call_1", "call_200", "call_256", "call_257", "call_360"]
        .iter()
        .map(|c| (c.to_string(), "bad_signature".to_owned()))
        .collect();
    let mut want = want;
    want.sort();
    assert_eq!(envelope_findings(&verify_json(&dir)), want);
}

/// Parsing and pretty-printing again gives the same bytes only if the output is exactly what
/// one `to_writer_pretty` of the whole document writes (keys keep their order).
fn is_whole_pretty_json(out: &[u8]) {
    let text = std::str::from_utf8(out).unwrap();
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string_pretty(&v).unwrap() + "\n", text);
}

#[test]
fn reports_written_session_by_session_are_whole_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("gen");
    gen(
        &dir,
        &[
            "--sessions",
            "24",
            "--turns",
            "8",
            "--calls",
            "3",
            "--seed",
            "42",
            "--fault-rate",
            "0.25",
            "--envelopes",
        ],
    );
    let d = dir.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut a = args.to_vec();
        a.push(d);
        let o = provscope(&a);
        assert!(
            o.status.code().is_some_and(|c| c <= 1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        o.stdout
    };
    let json = run(&["verify", "--format", "json", "--now", NOW, "-j1"]);
    is_whole_pretty_json(&json);
    let doc: Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 24);
    assert!(doc["metrics"]["claims"].as_u64().unwrap() > 0);
    // Loaded in parallel, written in input order: the same bytes.
    assert_eq!(
        run(&["verify", "--format", "json", "--now", NOW, "-j2"]),
        json
    );

    let sarif = run(&["verify", "--format", "sarif", "--now", NOW, "-j1"]);
    is_whole_pretty_json(&sarif);
    let sarif: Value = serde_json::from_slice(&sarif).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap().len();
    let findings: usize = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["session_findings"].as_array().unwrap().len()
                + s["claims"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["findings"].as_array().unwrap().len())
                    .sum::<usize>()
        })
        .sum();
    assert!(results > 0);
    assert!(
        results >= findings,
        "{results} SARIF results, {findings} findings in JSON"
    );

    // JUnit: the totals at the top count the cases and failures written below them.
    let junit =
        String::from_utf8(run(&["verify", "--format", "junit", "--now", NOW, "-j1"])).unwrap();
    let head = junit.lines().nth(1).unwrap();
    let cases = junit.matches("<testcase ").count();
    let failures = junit.matches("<failure ").count();
    assert!(failures > 0);
    assert!(
        head.contains(&format!("tests=\"{cases}\" failures=\"{failures}\"")),
        "{head}"
    );
    assert_eq!(junit.matches("<testsuite ").count(), 24);
    assert!(junit.ends_with("</testsuites>\n"));
    // A failed gate, known only once every session is checked, still reaches each format.
    let gate = ["--fail-under", "citation_precision=0.9999"];
    let junit = String::from_utf8(run(&[
        &["verify", "--format", "junit", "--now", NOW][..],
        &gate,
    ]
    .concat()))
    .unwrap();
    let head = junit.lines().nth(1).unwrap();
    let (cases, failures) = (
        junit.matches("<testcase ").count(),
        junit.matches("<failure ").count(),
    );
    assert!(
        head.contains(&format!("tests=\"{cases}\" failures=\"{failures}\"")),
        "{head}"
    );
    assert!(junit.contains("<testsuite name=\"provscope gates\""));
    let sarif = run(&[&["verify", "--format", "sarif", "--now", NOW][..], &gate].concat());
    is_whole_pretty_json(&sarif);
    let sarif: Value = serde_json::from_slice(&sarif).unwrap();
    let last = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["ruleId"], "metric_gate");
    assert_eq!(
        sarif["runs"][0]["properties"]["gates"][0]["metric"],
        "citation_precision"
    );
    let json = run(&[&["verify", "--format", "json", "--now", NOW][..], &gate].concat());
    is_whole_pretty_json(&json);
    let doc: Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(doc["gates"][0]["passed"], false);
    let text = String::from_utf8(run(&[&["verify", "--now", NOW][..], &gate].concat())).unwrap();
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("gate citation_precision >= 0.9999: FAILED"),
        "{text}"
    );

    // Text: one block per session, then the totals over all of them.
    let text = String::from_utf8(run(&["verify", "--now", NOW, "-j1"])).unwrap();
    let claims = doc["metrics"]["claims"].as_u64().unwrap();
    assert!(
        text.contains(&format!("\n24 sessions, {claims} claims: ")),
        "{}",
        text.lines().last().unwrap_or("")
    );

    // summary --format json: streamed rows, one per session, the same array.
    let summary = run(&["summary", "--format", "json"]);
    is_whole_pretty_json(&summary);
    let rows: Value = serde_json::from_slice(&summary).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 24);
    assert_eq!(rows[0]["session"], "gen-000000");
    // No sessions at all: an empty array, as before.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = provscope(&["summary", "--format", "json", empty.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "[]\n");
}

/// Every envelope finding of a `verify --format json` document with its session: (session
/// id, call ids, reason).
fn envelope_findings_by_session(doc: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for s in doc["sessions"].as_array().unwrap() {
        let one = serde_json::json!({ "sessions": [s] });
        let id = s["session_id"].as_str().unwrap().to_owned();
        out.extend(
            envelope_findings(&one)
                .into_iter()
                .map(|(c, r)| (id.clone(), c, r)),
        );
    }
    out.sort();
    out
}

#[test]
fn small_sealed_sessions_verified_in_shared_batches_name_each_bad_signature_in_its_session() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sealed");
    // 40 sessions of 6 sealed calls: `verify -j1` checks them together, their 240
    // signatures in one shared batch.
    gen(
        &dir,
        &[
            "--sessions",
            "40",
            "--turns",
            "3",
            "--calls",
            "2",
            "--envelopes",
            "--fault-rate",
            "0",
            "--seed",
            "9",
        ],
    );
    let clean = verify_json(&dir);
    assert_eq!(clean["sessions"].as_array().unwrap().len(), 40);
    assert_eq!(envelope_findings(&clean), vec![]);
    corrupt(&dir.join("gen-000003.jsonl"), &["call_2"]);
    corrupt(&dir.join("gen-000031.jsonl"), &["call_1", "call_6"]);
    let doc = verify_json(&dir);
    let id = |f: &str| {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        let head: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        head["session_id"].as_str().unwrap().to_owned()
    };
    let bad = |f: &str, c: &str| (id(f), c.to_owned(), "bad_signature".to_owned());
    let mut want = vec![
        bad("gen-000003.jsonl", "call_2"),
        bad("gen-000031.jsonl", "call_1"),
        bad("gen-000031.jsonl", "call_6"),
    ];
    want.sort();
    assert_eq!(envelope_findings_by_session(&doc), want);
    // The same document on two threads (each checks its own blocks of inputs, grouped apart).
    let j2 = provscope(&[
        "verify",
        "--format",
        "json",
        "--now",
        NOW,
        "-j2",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(serde_json::from_slice::<Value>(&j2.stdout).unwrap(), doc);
}
