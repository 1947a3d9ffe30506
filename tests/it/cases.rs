//! Regression cases end to end: export a parallel-conflict case, `check` fails against the
//! original and passes against a fixed session, JUnit validates; the trend alarm; the report's
//! HTML escaping; `correct` writes its case and records the outcome.

use provscope::check::{Metrics, Quadrant};
use provscope::model::Timestamp;
use provscope::store::Store;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn provscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sample(name: &str) -> PathBuf {
    root().join("sample-sessions").join(name)
}

/// 06 with the incident claim re-bound to the first-party record and the conflict surfaced.
fn fixed_parallel_session(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(sample("06-parallel-conflict.jsonl")).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let result = lines
        .iter()
        .find(|v| v["event"] == "tool_result" && v["tag"]["call_id"] == "incidents#7")
        .cloned()
        .unwrap();
    let block = result["response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let b = block.find("degraded").unwrap();
    let start = block[..b].chars().count();
    for v in lines
        .iter_mut()
        .filter(|v| v["event"] == "answer" && v["turn"] == 1)
    {
        v["text"] = Value::String(
            "INC-4471 is still degraded [1]. Note: the sources disagree; the public status page says resolved. \
             I couldn't reach the on-call service (upstream timeout), so I can't tell you who is on call right now."
                .into(),
        );
        for c in v["claims"].as_array_mut().unwrap() {
            if c["claim_id"] == "clm_inc_resolved" {
                let tag = &result["tag"];
                c["claim_text"] = Value::String("INC-4471 is still degraded".into());
                c["origin"] = serde_json::json!({"tool_call_id": "incidents#7", "server": tag["server"], "tool": tag["tool"],
                    "arguments_hash": tag["arguments_hash"], "fetched_at": tag["fetched_at"], "ttl_seconds": tag["ttl_seconds"]});
                c["span"] = serde_json::json!({"block": 0, "start": start, "end": start + "degraded".len()});
            }
        }
    }
    let out = dir.join("06-fixed.jsonl");
    std::fs::write(
        &out,
        lines
            .iter()
            .map(|v| v.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    out
}

#[test]
fn exported_case_fails_on_the_original_and_passes_on_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case.json");
    let orig = sample("06-parallel-conflict.jsonl");
    let o = provscope(&[
        "export",
        "case",
        orig.to_str().unwrap(),
        "--claim",
        "clm_inc_resolved",
        "-o",
        case.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&case).unwrap()).unwrap();
    assert_eq!(c["format"], "provscope.case/2");
    assert_eq!(c["expect"]["cite_server"], "incidents.internal");
    assert_eq!(c["competing"].as_array().unwrap().len(), 2);

    let o = provscope(&[
        "check",
        case.to_str().unwrap(),
        "--against",
        orig.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let t = stdout(&o);
    assert!(
        t.contains("expected incidents.internal")
            && t.contains("does not tell the user the sources disagree"),
        "{t}"
    );

    let fixed = fixed_parallel_session(dir.path());
    let o = provscope(&[
        "check",
        case.to_str().unwrap(),
        "--against",
        fixed.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("1 passed, 0 failed"));

    // JUnit validates against the Jenkins schema.
    let junit = dir.path().join("check.xml");
    let o = provscope(&[
        "check",
        case.to_str().unwrap(),
        "--against",
        orig.to_str().unwrap(),
        fixed.to_str().unwrap(),
        "--format",
        "junit",
    ]);
    std::fs::write(&junit, &o.stdout).unwrap();
    if !crate::peers::interop() {
        return;
    }
    let v = Command::new("python3")
        .arg(root().join("tests/interop/validate_reports.py"))
        .args(["--junit", junit.to_str().unwrap()])
        .env("PROVSCOPE_PYDEPS", root().join(".cache/pydeps"))
        .env(
            "PROVSCOPE_NODE_MODULES",
            root().join(".cache/npm/node_modules"),
        )
        .output()
        .unwrap();
    assert!(v.status.success(), "{}{}", stdout(&v), stderr(&v));
}

#[test]
fn redaction_by_pattern_and_by_key() {
    let o = provscope(&[
        "export",
        "case",
        sample("06-parallel-conflict.jsonl").to_str().unwrap(),
        "--claim",
        "clm_inc_resolved",
        "--redact",
        r"INC-\d+",
    ]);
    let t = stdout(&o);
    assert!(!t.contains("INC-4471") && t.contains("[REDACTED]"), "{t}");
    let o = provscope(&[
        "export",
        "case",
        sample("06-parallel-conflict.jsonl").to_str().unwrap(),
        "--claim",
        "clm_inc_resolved",
        "--redact",
        "(",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = provscope(&[
        "export",
        "case",
        sample("07-unsourced.jsonl").to_str().unwrap(),
        "--claim",
        "clm_double_click",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unsourced"), "{}", stderr(&o));
}

fn run_with(shares: (u64, u64)) -> Metrics {
    let mut m = Metrics::default();
    m.quadrants.insert(Quadrant::FactRightSourceWrong, shares.0);
    m.quadrants.insert(Quadrant::FactWrongSourceRight, shares.1);
    m
}

#[test]
fn trend_alarm_fires_when_the_hidden_failure_share_rises_and_not_on_the_reverse() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let s = Store::open(&db).unwrap();
    // Two runs over the same inputs (trend never compares runs over other inputs by default).
    s.record_run(Timestamp(1_000), "x", &run_with((1, 3)))
        .unwrap(); // 25%
    s.record_run(Timestamp(2_000), "x", &run_with((3, 1)))
        .unwrap(); // 75%
    drop(s);
    let o = provscope(&["trend", "--db", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("ALARM") && stderr(&o).contains("from 25% in run 1 to 75% in run 2"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("75%"), "{}", stdout(&o));

    let db2 = dir.path().join("b.sqlite");
    let s = Store::open(&db2).unwrap();
    s.record_run(Timestamp(1_000), "x", &run_with((3, 1)))
        .unwrap();
    s.record_run(Timestamp(2_000), "x", &run_with((1, 3)))
        .unwrap();
    drop(s);
    let o = provscope(&["trend", "--db", db2.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("ALARM"));

    // verify --record-run feeds it.
    let db3 = dir.path().join("c.sqlite");
    let o = provscope(&[
        "verify",
        "--record-run",
        "--db",
        db3.to_str().unwrap(),
        "--fail-on",
        "never",
        sample("04-stale-cache.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(Store::open(&db3).unwrap().runs().unwrap().len(), 1);
    assert_eq!(
        provscope(&[
            "trend",
            "--db",
            dir.path().join("none.sqlite").to_str().unwrap()
        ])
        .status
        .code(),
        Some(2)
    );
}

#[test]
fn report_formats_and_html_escapes_everything_from_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(sample("05-untrusted-injection.jsonl")).unwrap();
    let evil = text
        .replace(
            "Nonprofit programme",
            "<script>alert(1)</script> Nonprofit programme",
        )
        .replace("\"user\":\"", "\"user\":\"<img src=x onerror=alert(2)> ");
    let log = dir.path().join("evil.jsonl");
    std::fs::write(&log, evil).unwrap();
    let o = provscope(&[
        "report",
        log.to_str().unwrap(),
        "--format",
        "html",
        "--db",
        dir.path().join("n.sqlite").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let h = stdout(&o);
    assert!(h.starts_with("<!DOCTYPE html>") && h.contains("Flagged claims"));
    assert!(
        !h.contains("<script>") && !h.contains("<img"),
        "unescaped log text in HTML"
    );
    assert!(
        h.contains("&lt;img src=x onerror=alert(2)&gt;"),
        "user text shown escaped"
    );
    assert!(!h.contains("src=\"http"), "no external resources");
    let o = provscope(&["report", sample("04-stale-cache.jsonl").to_str().unwrap()]);
    let md = stdout(&o);
    assert!(
        md.contains("# Incident review")
            && md.contains("stale")
            && md.contains("owner: Agent platform team"),
        "{md}"
    );
    let o = provscope(&[
        "report",
        sample("04-stale-cache.jsonl").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["format"], "provscope.report/1");
    assert!(!v["flagged_claims"].as_array().unwrap().is_empty());
}

#[test]
fn correct_records_the_outcome_and_writes_the_case() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    let case = dir.path().join("c.case.json");
    let o = provscope(&[
        "correct",
        sample("04-stale-cache.jsonl").to_str().unwrap(),
        "--claim",
        "clm_seat_price",
        "--outcome",
        "survived",
        "--note",
        "re-fetched live: still $19",
        "--db",
        db.to_str().unwrap(),
        "-o",
        case.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&case).unwrap()).unwrap();
    assert_eq!(c["claim_id"], "clm_seat_price");
    assert_eq!(c["findings"], serde_json::json!(["stale"]));
    let s = Store::open(&db).unwrap();
    let sid = c["source"]["session_id"].as_str().unwrap();
    let recs = s.corrections(sid).unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].outcome, "survived");
}
