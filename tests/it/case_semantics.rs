//! What a conflicting-source case means (docs/cases.md), outcome by outcome, each with a session
//! that passes and one that fails, run as processes: `export case`, then `check --against`.
//! Sessions come from the samples (02 agreeing and tied sources, 05 injected contradiction) and
//! from the fixture builder (sequential conflict, averaging, rounding). Also: bad cases exit 2,
//! version 1 cases are still read, results name case, claim, session file and turn.

use crate::common::{Fx, FxCall, FxClaim};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn provscope(args: &[&str]) -> Output {
    crate::proc::output(
        Command::new(env!("CARGO_BIN_EXE_provscope"))
            .args(args)
            .env("NO_COLOR", "1"),
    )
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn sample(name: &str) -> PathBuf {
    root().join("sample-sessions").join(name)
}

/// Exports `claim` of `session` into `dir` and returns the file and its JSON.
fn export(dir: &Path, session: &Path, claim: &str) -> (PathBuf, Value) {
    let out = dir.join(format!("{claim}.case.json"));
    let _ = std::fs::remove_file(&out);
    let o = provscope(&[
        "export",
        "case",
        session.to_str().unwrap(),
        "--claim",
        claim,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["format"], "provscope.case/2");
    (out, v)
}

/// `check CASE --against SESSION`: exit code and text output.
fn check(case: &Path, session: &Path) -> (i32, String) {
    let o = provscope(&[
        "check",
        case.to_str().unwrap(),
        "--against",
        session.to_str().unwrap(),
    ]);
    (o.status.code().unwrap(), text(&o))
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

/// A sample with one claim of turn 1 re-bound to `call_id` (span on `phrase`), its text and the
/// answer's text replaced.
fn rebind(
    dir: &Path,
    sample_name: &str,
    claim: &str,
    call_id: &str,
    phrase: &str,
    claim_text: &str,
    answer: &str,
) -> PathBuf {
    let src = std::fs::read_to_string(sample(sample_name)).unwrap();
    let mut lines: Vec<Value> = src
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let result = lines
        .iter()
        .find(|v| v["event"] == "tool_result" && v["tag"]["call_id"] == call_id)
        .cloned()
        .unwrap();
    let block = result["response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let b = block.find(phrase).expect("phrase in the result");
    let start = block[..b].chars().count();
    let tag = &result["tag"];
    for v in lines
        .iter_mut()
        .filter(|v| v["event"] == "answer" && v["turn"] == 1)
    {
        v["text"] = json!(answer);
        for c in v["claims"].as_array_mut().unwrap() {
            if c["claim_id"] == claim {
                c["claim_text"] = json!(claim_text);
                c["origin"] = json!({"tool_call_id": call_id, "server": tag["server"], "tool": tag["tool"],
                    "arguments_hash": tag["arguments_hash"], "fetched_at": tag["fetched_at"], "ttl_seconds": tag["ttl_seconds"]});
                c["span"] =
                    json!({"block": 0, "start": start, "end": start + phrase.chars().count()});
            }
        }
    }
    let body: String = lines.iter().map(|v| v.to_string() + "\n").collect();
    write(dir, &format!("{sample_name}.{claim}.fixed.jsonl"), &body)
}

/// Two servers answering the price question: a T0 record and a T1 mirror called after it
/// with another tool (a sequential conflict, no fan-out), `t0` and `t1` their texts.
fn two_sources(t0: &str, t1: &str) -> Fx {
    let mut fx = Fx::baseline();
    fx.calls = vec![FxCall::new("req_1", 1, "pricing.internal", t0), {
        let mut c = FxCall::new("req_2", 1, "mirror.vendor.com", t1);
        c.tool = "search_prices".into();
        c.args = json!({"query": "team seat price"});
        c.issued = "2026-10-02T14:01:10Z".into();
        c.returned = "2026-10-02T14:01:11Z".into();
        c.fetched = "2026-10-02T14:01:11Z".into();
        c
    }];
    fx
}

fn claim(text: &str, call: &str, phrase: &str) -> FxClaim {
    FxClaim::new("clm_price", 1, text, call, phrase)
}

#[test]
fn sequential_conflict_expects_the_most_trusted_source_and_surfacing() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = "Team plan: seats cost $19 per user per month.";
    let t1 = "Mirror snapshot: Team seats cost $25 per user per month.";
    let mut fx = two_sources(t0, t1);
    fx.claims = vec![claim(
        "Team seats cost $25 per user per month",
        "req_2",
        "Team seats cost $25 per user per month",
    )];
    let orig = write(dir.path(), "seq.jsonl", &fx.jsonl());
    let (case, v) = export(dir.path(), &orig, "clm_price");
    assert_eq!(v["expect"]["cite_server"], "pricing.internal");
    assert_eq!(v["expect"]["because"]["cite"]["rule"], "most_trusted");
    assert_eq!(v["expect"]["surface_conflict"], true);
    assert_eq!(
        v["expect"]["because"]["surface_conflict"]["rule"],
        "sources_disagree"
    );
    let linked: Vec<(&str, &str)> = v["competing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["server"].as_str().unwrap(),
                c["linked_by"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        linked,
        vec![
            ("mirror.vendor.com", "cited"),
            ("pricing.internal", "same_quantity")
        ]
    );
    // Fails as recorded: the mirror is cited and nothing is surfaced.
    let (code, out) = check(&case, &orig);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("expected pricing.internal") && out.contains("does not tell the user"),
        "{out}"
    );
    // Citing T0 but quoting only its value is not surfacing.
    fx.claims = vec![claim(
        "Team seats cost $19 per user per month",
        "req_1",
        "seats cost $19 per user per month",
    )];
    fx.answer_text = vec![(1, "Team seats cost $19 per user per month [1].".into())];
    let only_t0 = write(dir.path(), "seq-only-t0.jsonl", &fx.jsonl());
    let (code, out) = check(&case, &only_t0);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("states the competing values"), "{out}");
    // Citing T0 and stating the mirror's value next to it passes.
    fx.answer_text = vec![(
        1,
        "Team seats cost $19 per user per month [1] (a vendor mirror lists $25).".into(),
    )];
    let fixed = write(dir.path(), "seq-fixed.jsonl", &fx.jsonl());
    let (code, out) = check(&case, &fixed);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn injected_contradiction_in_sample_05_names_the_first_party_rival() {
    let dir = tempfile::tempdir().unwrap();
    let orig = sample("05-untrusted-injection.jsonl");
    let (case, v) = export(dir.path(), &orig, "clm_nonprofit_discount");
    assert_eq!(v["expect"]["cite_server"], "pricing.internal");
    let rival = v["competing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["call_id"] == "req_501")
        .expect("the T0 policy competes");
    assert_eq!(rival["stated"]["text"], "30%");
    assert_eq!(v["expect"]["surface_conflict"], true);
    let (code, out) = check(&case, &orig);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("expected pricing.internal"), "{out}");
    let fixed = rebind(
        dir.path(),
        "05-untrusted-injection.jsonl",
        "clm_nonprofit_discount",
        "req_501",
        "Registered nonprofits receive 30% off list price for the first 12 months",
        "Registered nonprofits receive 30% off list price for the first 12 months",
        "Registered nonprofits receive 30% off list price for the first 12 months [1]. A community price index claims 50% off for life, which conflicts with our policy.",
    );
    let (code, out) = check(&case, &fixed);
    assert!(code == 0, "{out}");
}

#[test]
fn agreeing_sources_in_sample_02_need_no_surfacing_but_a_new_value_fails() {
    let dir = tempfile::tempdir().unwrap();
    let orig = sample("02-flattened-context.jsonl");
    let (case, v) = export(dir.path(), &orig, "clm_refund_days");
    assert_eq!(v["expect"]["surface_conflict"], false);
    assert_eq!(
        v["expect"]["because"]["surface_conflict"]["rule"],
        "sources_agree"
    );
    assert_eq!(v["competing"].as_array().unwrap().len(), 2);
    let (code, out) = check(&case, &orig);
    assert_eq!(code, 0, "{out}");
    let changed = rebind(
        dir.path(),
        "02-flattened-context.jsonl",
        "clm_refund_days",
        "req_202",
        "Most refunds are processed within 5 business days",
        "Refunds are processed within 7 business days",
        "Refunds are processed within 7 business days [1].",
    );
    let (code, out) = check(&case, &changed);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("states 7 day(s), which is none of the sources' values"),
        "{out}"
    );
}

#[test]
fn a_tie_between_equal_tiers_in_sample_02_says_so_and_requires_surfacing() {
    let dir = tempfile::tempdir().unwrap();
    let orig = sample("02-flattened-context.jsonl");
    let (case, v) = export(dir.path(), &orig, "clm_sepa_days");
    assert_eq!(v["expect"]["cite_server"], Value::Null);
    assert_eq!(v["expect"]["because"]["cite"]["rule"], "tie");
    let mut any: Vec<&str> = v["expect"]["cite_any_of"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    any.sort();
    assert_eq!(any, vec!["kb.internal", "policy-mcp.internal"]);
    assert_eq!(v["expect"]["surface_conflict"], true);
    let (code, out) = check(&case, &orig);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("does not tell the user"), "{out}");
    // Either tied server may be cited when both values are stated next to the claim.
    let fixed = rebind(
        dir.path(),
        "02-flattened-context.jsonl",
        "clm_sepa_days",
        "req_201",
        "SEPA refunds arrive within 8 business days",
        "SEPA refunds arrive within 8 business days",
        "Refunds are processed within 5 business days [1]. SEPA refunds arrive within 8 business days under our refund policy [1], although the help center says up to 10 business days. Contact billing with questions.",
    );
    let (code, out) = check(&case, &fixed);
    assert_eq!(code, 0, "{out}");
}

/// T0 says $19, a T1 mirror (same tool, same arguments) says $25.
fn averaging_fixture(claim_text: &str, answer: &str) -> Fx {
    let mut fx = Fx::baseline();
    let mut mirror = FxCall::new(
        "req_2",
        1,
        "mirror.vendor.com",
        "Team plan: seats cost $25 per user per month.",
    );
    mirror.issued = "2026-10-02T14:01:05Z".into();
    fx.calls.push(mirror);
    fx.claims = vec![claim(
        claim_text,
        "req_1",
        "seats cost $19 per user per month",
    )];
    fx.answer_text = vec![(1, answer.into())];
    fx
}

#[test]
fn averaging_into_a_new_value_fails_even_when_the_disagreement_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let orig = averaging_fixture(
        "Team seats cost $19 per user per month",
        "Team seats cost $19 per user per month [1].",
    );
    let orig = write(dir.path(), "avg.jsonl", &orig.jsonl());
    let (case, v) = export(dir.path(), &orig, "clm_price");
    assert_eq!(v["expect"]["value_from_sources"], true);
    assert_eq!(v["competing"][1]["linked_by"], "same_call");
    let avg = averaging_fixture(
        "Team seats cost $22 per user per month",
        "Team seats cost $22 per user per month [1]; sources disagree.",
    );
    let avg = write(dir.path(), "avg-22.jsonl", &avg.jsonl());
    let (code, out) = check(&case, &avg);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("states USD 22, which is none of the sources' values")
            && out.contains("averaging"),
        "{out}"
    );
    let ok = averaging_fixture(
        "Team seats cost $19 per user per month",
        "Team seats cost $19 per user per month [1]; sources disagree.",
    );
    let ok = write(dir.path(), "avg-ok.jsonl", &ok.jsonl());
    let (code, out) = check(&case, &ok);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn rounding_into_a_new_value_fails() {
    let dir = tempfile::tempdir().unwrap();
    let fx = |claim_text: &str, answer: &str| {
        let mut fx = two_sources(
            "Team plan: seats cost $19.99 per user per month.",
            "Mirror snapshot: Team seats cost $24.50 per user per month.",
        );
        fx.claims = vec![claim(
            claim_text,
            "req_1",
            "seats cost $19.99 per user per month",
        )];
        fx.answer_text = vec![(1, answer.into())];
        fx.jsonl()
    };
    let orig = write(
        dir.path(),
        "round.jsonl",
        &fx(
            "Team seats cost $19.99 per user per month",
            "Team seats cost $19.99 per user per month [1].",
        ),
    );
    let (case, _) = export(dir.path(), &orig, "clm_price");
    let rounded = write(
        dir.path(),
        "round-20.jsonl",
        &fx(
            "Team seats cost about $20 per user per month",
            "Team seats cost about $20 per user per month [1]; a mirror lists $24.50.",
        ),
    );
    let (code, out) = check(&case, &rounded);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("states USD 20, which is none of the sources' values")
            && out.contains("rounding"),
        "{out}"
    );
    let exact = write(
        dir.path(),
        "round-ok.jsonl",
        &fx(
            "Team seats cost $19.99 per user per month",
            "Team seats cost $19.99 per user per month [1]; a mirror lists $24.50.",
        ),
    );
    let (code, out) = check(&case, &exact);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn results_name_case_claim_session_file_and_turn_and_junit_names_are_distinct() {
    let dir = tempfile::tempdir().unwrap();
    let orig = sample("06-parallel-conflict.jsonl");
    let (case, _) = export(dir.path(), &orig, "clm_inc_resolved");
    let copy = write(
        dir.path(),
        "06-copy.jsonl",
        &std::fs::read_to_string(&orig).unwrap(),
    );
    let o = provscope(&[
        "check",
        case.to_str().unwrap(),
        "--against",
        orig.to_str().unwrap(),
        copy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let rs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rs.len(), 2);
    for r in &rs {
        assert_eq!(r["claim_id"], "clm_inc_resolved");
        assert_eq!(r["turn"], 1);
        assert_eq!(r["case_file"], case.to_str().unwrap());
        assert_eq!(r["matched_by"], "claim_id");
        assert_eq!(r["cited_server"], "statuspage.vendor.io");
    }
    assert_ne!(rs[0]["session_file"], rs[1]["session_file"]);
    let o = provscope(&[
        "check",
        case.to_str().unwrap(),
        "--against",
        orig.to_str().unwrap(),
        copy.to_str().unwrap(),
        "--format",
        "junit",
    ]);
    let xml = String::from_utf8(o.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let names: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| n.attribute("name").unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert_ne!(names[0], names[1]);
    assert!(names[0].contains("clm_inc_resolved") && names[0].contains("turn 1"));
    // Text: one line per result, each naming claim, file and turn.
    let (_, out) = check(&case, &orig);
    assert!(
        out.contains("/clm_inc_resolved@1: clm_inc_resolved in ")
            && out.contains("06-parallel-conflict.jsonl turn 1"),
        "{out}"
    );
}

#[test]
fn bad_cases_exit_2_with_a_clear_error_and_version_1_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let orig = sample("06-parallel-conflict.jsonl");
    let (_, v) = export(dir.path(), &orig, "clm_inc_resolved");
    let run = |name: &str, body: &Value| {
        let p = write(dir.path(), name, &body.to_string());
        check(&p, &orig)
    };
    let mut unknown = v.clone();
    unknown["format"] = json!("provscope.case/9");
    let (code, out) = run("unknown.json", &unknown);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("format `provscope.case/9` is not a case format"),
        "{out}"
    );
    let mut missing = v.clone();
    missing["expect"]
        .as_object_mut()
        .unwrap()
        .remove("max_tier");
    let (code, out) = run("missing.json", &missing);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("field `expect`") && out.contains("max_tier"),
        "{out}"
    );
    let mut no_format = v.clone();
    no_format.as_object_mut().unwrap().remove("format");
    let (code, out) = run("no-format.json", &no_format);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("field `format`: missing"), "{out}");
    let mut gone = v.clone();
    gone["claim_id"] = json!("clm_renamed_away");
    gone["question"] = json!("a question nobody asked");
    let (code, out) = run("gone.json", &gone);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("matches no claim") && out.contains("clm_renamed_away"),
        "{out}"
    );
    let (code, out) = run("junk.json", &json!([1, 2]));
    assert_eq!(code, 2, "{out}");
    // Version 1: read, judged with its old expectations.
    let mut v1 = v.clone();
    v1["format"] = json!("provscope.case/1");
    v1["expect"] = json!({"cite_server": "incidents.internal", "max_tier": 1, "fresh": true, "surface_conflict": true});
    for c in v1["competing"].as_array_mut().unwrap() {
        let o = c.as_object_mut().unwrap();
        for k in ["turn", "stated", "linked_by", "result", "input_schema"] {
            o.remove(k);
        }
    }
    let (code, out) = run("v1.json", &v1);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("expected incidents.internal"), "{out}");
    let mut v1_bad = v1.clone();
    v1_bad["expect"].as_object_mut().unwrap().remove("fresh");
    let (code, out) = run("v1-bad.json", &v1_bad);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("expect") && out.contains("fresh"), "{out}");
}
