//! The playbook's rules, rule by rule (issue 14). Each rule has a case that fires it and near
//! misses that must not.

use crate::common;

use common::{of_kind, Fx, FxCall, FxClaim};
use provscope::check::{Config, Kind};
use provscope::ingest::LoadOptions;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary in `dir`, killed after 60 s (coreutils `timeout`) so a hang fails the test
/// instead of holding the build lock.
fn provscope(dir: &Path, args: &[&str]) -> Output {
    Command::new("timeout")
        .arg("60")
        .arg(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run provscope")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ---------------------------------------------------------------------------------------------
// 1. Metrics as the playbook defines them.

/// Two stamped claims (one supported, one stale), one unsourced claim, all labelled right.
fn three_claims() -> Fx {
    let mut fx = Fx::baseline();
    fx.calls.push(FxCall::new(
        "req_2",
        1,
        "pricing.internal",
        "Team plan: annual billing is $15 per user per month.",
    ));
    fx.calls[1].fetched = "2026-10-02T09:00:00Z".into();
    fx.calls[1].ttl = 60;
    fx.claims.push(FxClaim::new(
        "clm_annual",
        1,
        "Annual billing is $15 per user per month",
        "req_2",
        "annual billing is $15 per user per month",
    ));
    let mut unsourced = FxClaim::new("clm_trial", 1, "Every plan has a free trial", "x", "x");
    unsourced.cite = None;
    unsourced.marker = None;
    fx.claims.push(unsourced);
    fx.labels = vec![
        ("clm_price".into(), "right"),
        ("clm_annual".into(), "right"),
        ("clm_trial".into(), "right"),
    ];
    fx
}

#[test]
fn citation_precision_and_wrong_source_rate_as_the_playbook_defines_them() {
    let r = three_claims().report();
    let m = &r.metrics;
    assert_eq!((m.claims, m.stamped, m.supported), (3, 2, 2));
    // Share of answer claims (all three) that resolve to a supporting result.
    assert_eq!(m.citation_precision, Some(2.0 / 3.0));
    // The binding machinery alone: over stamped claims.
    assert_eq!(m.stamped_citation_precision, Some(1.0));
    // Fact-right claims whose stamp points at a wrong, stale or below-tier origin: the stale
    // one. The unsourced claim has no stamp pointing anywhere.
    assert_eq!(m.fact_right, 3);
    assert_eq!(m.fact_right_wrong_origin, 1);
    assert_eq!(m.wrong_source_rate, Some(1.0 / 3.0));
    // The grid's hidden-failure cell counts the unsourced claim too.
    assert_eq!(m.fact_right_source_wrong, 2);
    assert_eq!(m.fact_right_source_wrong_rate, Some(2.0 / 3.0));
}

#[test]
fn warning_findings_and_unlabelled_claims_do_not_count_as_wrong_origins() {
    let mut fx = Fx::baseline();
    fx.context = vec![(1, vec![("req_1".into(), None)])]; // flattened_context: a warning
    let m = fx.report().metrics;
    assert_eq!(m.wrong_source_rate, Some(0.0));
    fx.labels.clear();
    assert_eq!(fx.report().metrics.wrong_source_rate, None);
}

// ---------------------------------------------------------------------------------------------
// 2. Metric gates.

#[test]
fn metrics_gates_exit_1_with_the_figure_and_threshold() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.jsonl"), three_claims().jsonl()).unwrap();
    let o = provscope(
        dir.path(),
        &[
            "metrics",
            "s.jsonl",
            "--fail-under",
            "citation_precision=0.9",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains(
            "gate failed: citation_precision is 0.6667 (66.7%), under the threshold 0.9 (--fail-under)"
        ),
        "{err}"
    );
    assert!(text(&o.stdout).contains("gate citation_precision >= 0.9: FAILED"));
    // Near miss: a threshold the run meets.
    let o = provscope(
        dir.path(),
        &[
            "metrics",
            "s.jsonl",
            "--fail-under",
            "citation_precision=0.6",
            "--fail-over",
            "wrong_source_rate=0.5",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // The same gate from provscope.toml; JSON carries every gate.
    std::fs::write(
        dir.path().join("provscope.toml"),
        "[gates]\nfail_over = { wrong_source_rate = 0.05 }\n",
    )
    .unwrap();
    let o = provscope(dir.path(), &["metrics", "s.jsonl", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["gates"][0]["metric"], "wrong_source_rate");
    assert_eq!(j["gates"][0]["passed"], false);
    assert_eq!(j["gates"][0]["from"], "config");
    assert!(text(&o.stderr).contains("([gates] fail_over)"));
    // A bad gate is a usage error.
    let o = provscope(
        dir.path(),
        &["metrics", "s.jsonl", "--fail-under", "recall=0.9"],
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn verify_carries_the_gates_in_junit_sarif_and_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.jsonl"), three_claims().jsonl()).unwrap();
    let gate = [
        "--fail-under",
        "citation_precision=0.9",
        "--fail-on",
        "never",
    ];
    let run = |fmt: &str| {
        let mut args = vec!["verify", "s.jsonl", "--format", fmt];
        args.extend(gate);
        provscope(dir.path(), &args)
    };
    let o = run("junit");
    assert_eq!(
        o.status.code(),
        Some(1),
        "the gate fails even with --fail-on never"
    );
    let xml = text(&o.stdout);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.attribute("name") == Some("provscope gates"))
        .expect("a gates suite");
    assert_eq!(suite.attribute("failures"), Some("1"));
    let failure = suite
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(failure
        .attribute("message")
        .unwrap()
        .contains("0.6667 (66.7%), under the threshold 0.9"));
    let o = run("sarif");
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = s["runs"][0]["results"].as_array().unwrap();
    let g: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "metric_gate")
        .collect();
    assert_eq!(g.len(), 1);
    let rules = s["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(
        rules[g[0]["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "metric_gate"
    );
    assert_eq!(s["runs"][0]["properties"]["gates"][0]["passed"], false);
    let o = run("json");
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["gates"][0]["value"], json!(2.0 / 3.0));
    // Near miss: no gate, nothing added.
    let o = provscope(
        dir.path(),
        &[
            "verify",
            "s.jsonl",
            "--format",
            "junit",
            "--fail-on",
            "never",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!text(&o.stdout).contains("provscope gates"));
}

// ---------------------------------------------------------------------------------------------
// 7. dangling_origin and citation_drift never both fire for the same cause.

#[test]
fn a_call_that_never_returned_is_dangling_not_drift() {
    let mut fx = Fx::baseline();
    fx.turns = 2;
    fx.claims.push(FxClaim::new(
        "clm_price",
        2,
        "Team seats cost $19 per user per month",
        "req_1",
        "seats cost $19 per user per month",
    ));
    fx.context = vec![(2, vec![])];
    // Drop req_1's result: the call never returned.
    let lines: Vec<Value> = fx
        .lines()
        .into_iter()
        .filter(|v| v["event"] != "tool_result")
        .collect();
    let body: String = lines.iter().map(|v| v.to_string() + "\n").collect();
    let s =
        provscope::ingest::load_bytes("fx", "fx.jsonl", body.as_bytes(), &LoadOptions::default());
    let r = provscope::check::check_session(&s, &Config::default());
    assert_eq!(
        of_kind(&r, Kind::DanglingOrigin).len(),
        2,
        "{:#?}",
        r.findings
    );
    assert!(
        of_kind(&r, Kind::CitationDrift).is_empty(),
        "{:#?}",
        r.findings
    );
    assert!(r.findings.iter().all(|f| !f.message.contains("fetched")));
    // Near miss: with its result recorded, the turn-2 statement is restated from memory.
    let r = fx.report();
    let f = of_kind(&r, Kind::CitationDrift);
    assert_eq!(f.len(), 1);
    assert!(
        f[0].message.contains("fetched in turn 1"),
        "{}",
        f[0].message
    );
}
