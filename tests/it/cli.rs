//! The CLI as a process: exit codes, stdout and stderr.

use crate::common;

use std::process::{Command, Output};

fn provscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run provscope")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn no_arguments_summarises_the_bundled_samples() {
    let o = provscope(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("SESSION") && s.contains("sessions"), "{s}");
    assert!(s.lines().count() >= 9, "{s}");
}

#[test]
fn summary_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.jsonl", &common::Fx::baseline().jsonl());
    let o = provscope(&["summary", &good]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("good"));
    let bad = write(dir.path(), "bad.jsonl", "{\"event\":\"turn\",\"turn\":1}\n");
    let o = provscope(&["summary", &bad]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("bad.jsonl:1:"), "{}", err(&o));
    assert!(
        err(&o).contains("required field `user` is missing"),
        "{}",
        err(&o)
    );
    let o = provscope(&["summary", "/no/such/path"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("/no/such/path: error: no such file or directory"));
    let empty = tempfile::tempdir().unwrap();
    let o = provscope(&["summary", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no session logs or known traces"));
    let o = provscope(&["summary", "--format", "json", &good]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["claims"], 1);
    assert_eq!(v[0]["findings"], serde_json::json!({}));
    let mut fx = common::Fx::baseline();
    fx.calls[0].ttl = 5;
    let stale = write(dir.path(), "stale.jsonl", &fx.jsonl());
    let o = provscope(&["summary", &stale]);
    assert!(out(&o).contains("1E 0W 0I"), "{}", out(&o));
}

#[test]
fn verify_exit_codes_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let clean = write(dir.path(), "clean.jsonl", &common::Fx::baseline().jsonl());
    let o = provscope(&["verify", &clean]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert!(out(&o).contains("no findings"));

    let mut fx = common::Fx::baseline();
    fx.calls[0].ttl = 5;
    let stale = write(dir.path(), "stale.jsonl", &fx.jsonl());
    let o = provscope(&["verify", &stale]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(text.contains("error stale claim clm_price"), "{text}");
    assert!(!text.contains('\u{1b}'), "NO_COLOR honoured");
    assert_eq!(
        provscope(&["verify", "--fail-on", "never", &stale])
            .status
            .code(),
        Some(0)
    );

    let o = provscope(&[
        "verify",
        "--format",
        "json",
        "--now",
        "2026-11-01T00:00:00Z",
        &stale,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema"], "provscope.verify/1");
    assert_eq!(v["checked_at"], "2026-11-01T00:00:00Z");
    let claim = &v["sessions"][0]["claims"][0];
    assert_eq!(claim["claim_id"], "clm_price");
    assert_eq!(claim["source_verdict"], "wrong");
    assert_eq!(claim["quadrant"], "fact_right_source_wrong");
    assert_eq!(claim["findings"][0]["kind"], "stale");

    let o = provscope(&["verify", "--format", "sarif", &stale]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let res = &v["runs"][0]["results"][0];
    assert_eq!(res["ruleId"], "stale");
    assert!(
        res["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
            > 1
    );

    let o = provscope(&["verify", "--format", "junit", &stale, &clean]);
    let x = out(&o);
    assert!(
        x.contains("<testsuites")
            && x.contains("failures=\"1\"")
            && x.contains("<failure type=\"stale\""),
        "{x}"
    );

    // Input errors win over findings: exit 2.
    let bad = write(dir.path(), "bad.jsonl", "nope\n");
    assert_eq!(provscope(&["verify", &stale, &bad]).status.code(), Some(2));

    // --output: the report goes to the file, streamed; an unwritable path is exit 2.
    let report = dir.path().join("report.json");
    let o = provscope(&[
        "verify",
        "--format",
        "json",
        "-o",
        report.to_str().unwrap(),
        &stale,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(o.stdout.is_empty());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(
        v["sessions"][0]["claims"][0]["findings"][0]["kind"],
        "stale"
    );
    let nowhere = dir.path().join("no-such-dir").join("r.json");
    let o = provscope(&["verify", "-o", nowhere.to_str().unwrap(), &stale]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("cannot write"), "{}", err(&o));

    // A path that does not exist: exit 2, the path named, and the totals still complete.
    let missing = dir.path().join("missing.jsonl");
    let o = provscope(&["verify", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("missing.jsonl"), "{}", err(&o));
    assert!(
        out(&o).contains("grid: fact right, source right 0, fact right, source wrong 0"),
        "{}",
        out(&o)
    );
    // The JSON document keeps its documented shape: all four quadrants, even at zero.
    let o = provscope(&["verify", "--format", "json", missing.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["metrics"]["quadrants"].as_object().map(|q| q.len()),
        Some(4)
    );
    assert_eq!(v["input_errors"][0]["level"], "error");
}

#[test]
fn invalid_config_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        dir.path(),
        "provscope.toml",
        "default_ttl_seconds = 60\n[tiers]\n\"a\" = \"T7\"\n",
    );
    let o = provscope(&["verify", "--config", &cfg]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("provscope.toml:3:"), "{}", err(&o));
}

#[test]
fn metrics_gen_hash_and_completions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("gen");
    let o = provscope(&[
        "gen",
        "--sessions",
        "3",
        "--turns",
        "5",
        "--seed",
        "7",
        "-o",
        d.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let first = std::fs::read(d.join("gen-000000.jsonl")).unwrap();
    let d2 = dir.path().join("gen2");
    provscope(&[
        "gen",
        "--sessions",
        "3",
        "--turns",
        "5",
        "--seed",
        "7",
        "-o",
        d2.to_str().unwrap(),
    ]);
    assert_eq!(
        first,
        std::fs::read(d2.join("gen-000000.jsonl")).unwrap(),
        "deterministic"
    );
    let o = provscope(&["summary", d.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "generated sessions load cleanly: {}",
        err(&o)
    );
    let o = provscope(&["metrics", "--format", "json", d.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["overall"]["claims"].as_u64().unwrap() >= 15);

    // With envelopes: every call sealed, tampered results caught, nothing else invalid.
    let e = dir.path().join("env");
    let o = provscope(&[
        "gen",
        "--sessions",
        "4",
        "--turns",
        "20",
        "--fault-rate",
        "0.6",
        "--seed",
        "3",
        "--envelopes",
        "-o",
        e.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = provscope(&["metrics", "--format", "json", e.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let kinds = &v["overall"]["kinds"];
    assert!(
        kinds["result_tampered"].as_u64().unwrap_or(0) > 0,
        "{kinds}"
    );
    assert!(
        kinds.get("envelope_invalid").is_none() && kinds.get("envelope_missing").is_none(),
        "{kinds}"
    );

    let o = provscope(&["hash", "{\"b\": 1, \"a\": [true, null]}"]);
    let o2 = provscope(&["hash", "{\"a\":[true,null],\"b\":1}"]);
    assert_eq!(out(&o), out(&o2));
    assert_eq!(out(&o).trim().len(), 64);
    assert_eq!(provscope(&["hash", "{oops"]).status.code(), Some(2));

    let o = provscope(&["completions", "bash"]);
    assert!(out(&o).contains("provscope"));
    assert_eq!(provscope(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(provscope(&["--help"]).status.code(), Some(0));
}

#[test]
fn closed_stdout_does_not_panic() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(["completions", "zsh"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut e = String::new();
    child.stderr.take().unwrap().read_to_string(&mut e).unwrap();
    child.wait().unwrap();
    assert!(!e.contains("panicked"), "{e}");
}
