//! `provscope report` over several sessions: a directory or several files give one report with
//! an executive summary, the grid over every session and one row per session; the reviewer, the
//! by-hand flag, readable quadrant names and the reviewed status are in every format.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn provscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions")
}

#[test]
fn a_directory_gives_one_report_with_a_summary_and_the_grid() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let db = db.to_str().unwrap();
    let stale = samples().join("04-stale-cache.jsonl");
    let o = provscope(&[
        "classify",
        "--db",
        db,
        stale.to_str().unwrap(),
        "clm_seat_price",
        "--quadrant",
        "ww",
        "--reviewer",
        "ana.lopez",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let dir_arg = samples();
    let dir_arg = dir_arg.to_str().unwrap();

    let o = provscope(&["report", "--db", db, dir_arg, "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["format"], "provscope.report-set/1");
    let sum = &v["summary"];
    assert_eq!(sum["sessions"], 10);
    assert_eq!(v["sessions"].as_array().unwrap().len(), 10);
    // The grid counts every claim once: the four quadrants and "not placed" add up.
    let grid: u64 = sum["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["claims"].as_u64().unwrap())
        .sum();
    assert_eq!(
        grid + sum["not_placed"].as_u64().unwrap(),
        sum["claims"].as_u64().unwrap()
    );
    let rows: u64 = sum["per_session"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["claims"].as_u64().unwrap())
        .sum();
    assert_eq!(rows, sum["claims"].as_u64().unwrap());
    assert_eq!(sum["classified_by_hand"], 1);
    assert_eq!(sum["grid"][1]["title"], "Fact right, source wrong");
    // The hand classification moved the claim: 04's row counts it as WW.
    let row = sum["per_session"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["file"]
                .as_str()
                .unwrap()
                .ends_with("04-stale-cache.jsonl")
        })
        .unwrap();
    let one: Value = serde_json::from_slice(
        &provscope(&[
            "report",
            "--db",
            dir.path().join("empty.sqlite").to_str().unwrap(),
            stale.to_str().unwrap(),
            "--format",
            "json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(
        one["format"], "provscope.report/1",
        "one file: the one-session report"
    );
    let computed_ww = one["flagged_claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["quadrant"] == "fact_wrong_source_wrong")
        .count() as u64;
    assert!(
        row["quadrants"]["fact_wrong_source_wrong"]
            .as_u64()
            .unwrap()
            > computed_ww,
        "{row}"
    );
    let claim = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["flagged_claims"].as_array().unwrap())
        .find(|c| c["reviewer"] == "ana.lopez")
        .unwrap();
    assert_eq!(claim["classified_by_hand"], true);
    assert_eq!(claim["reviewed"], false);

    let o = provscope(&["report", "--db", db, dir_arg]);
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(
        md.starts_with("# Incident review: 10 sessions")
            && md.contains("## Executive summary")
            && md.contains("## Grid summary")
            && md.contains("| Fact right, source wrong |")
            && md.contains("Hidden failures (Fact right, source wrong)")
            && md.contains("## Incident review: ")
            && md.contains("classified by hand by ana.lopez, not reviewed"),
        "{md}"
    );

    let o = provscope(&["report", "--db", db, dir_arg, "--format", "html"]);
    let h = String::from_utf8_lossy(&o.stdout);
    assert!(
        h.starts_with("<!DOCTYPE html>")
            && h.contains("<title>Incident review: 10 sessions</title>")
            && h.contains("<h2>Grid summary</h2>")
            && h.contains("<td class=\"quadrant\">Fact right, source wrong</td>")
            && h.contains("classified by hand by <span class=\"reviewer\">ana.lopez</span>")
            && h.contains("<b class=\"quadrant\">Fact wrong, source wrong</b>")
            && !h.contains(">fact_right_source_wrong<"),
        "{h}"
    );
    assert_eq!(h.matches("<section>").count(), 10);
    assert_eq!(h.matches("<!DOCTYPE").count(), 1);

    // Several files work the same way.
    let o = provscope(&[
        "report",
        stale.to_str().unwrap(),
        samples()
            .join("06-parallel-conflict.jsonl")
            .to_str()
            .unwrap(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summary"]["sessions"], 2);
}
