//! `provscope diff` as a process: constructed pairs of sessions for each kind of change,
//! identical and reordered sessions, golden text and Markdown, hostile text, runs (directories)
//! and input errors.

use crate::common::{Fx, FxCall, FxClaim};
use serde_json::{json, Value};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs provscope in `dir`, killed after a minute.
fn run(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("provscope {args:?} did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    }
}

/// The fixture as a log with session id `id`.
pub(crate) fn log(fx: &Fx, id: &str) -> String {
    fx.jsonl().replace(
        "\"session_id\":\"fx\"",
        &format!("\"session_id\":{}", json!(id)),
    )
}

fn put(dir: &Path, name: &str, text: &str) {
    if let Some(p) = dir.join(name).parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::write(dir.join(name), text).unwrap();
}

/// `diff a.jsonl b.jsonl --format json` with extra arguments: the document and the exit code.
fn diff_json(a: &Fx, b: &Fx, extra: &[&str]) -> (Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.jsonl", &log(a, "s1"));
    put(dir.path(), "b.jsonl", &log(b, "s1"));
    let mut args = vec!["diff", "a.jsonl", "b.jsonl", "--format", "json"];
    args.extend_from_slice(extra);
    let o = run(dir.path(), &args);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {} / {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (v, o.status.code().unwrap())
}

/// Every claim diff of the first paired session.
fn claims(v: &Value) -> Vec<Value> {
    v["sessions"][0]["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["claims"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// The change tags of a claim diff.
fn tags(c: &Value) -> Vec<String> {
    c["changes"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x["change"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn change<'a>(c: &'a Value, tag: &str) -> &'a Value {
    c["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["change"] == tag)
        .unwrap_or_else(|| panic!("no {tag} change in {c}"))
}

/// Two turns, one cited call each.
pub(crate) fn two_turns() -> Fx {
    let mut fx = Fx::baseline();
    fx.turns = 2;
    fx.calls.push(FxCall::new(
        "req_2",
        2,
        "pricing.internal",
        "Business plan: seats cost $39 per user per month.",
    ));
    fx.claims.push(FxClaim::new(
        "clm_business",
        2,
        "Business seats cost $39 per user per month",
        "req_2",
        "seats cost $39 per user per month",
    ));
    fx.labels.push(("clm_business".into(), "right"));
    fx
}

#[test]
fn identical_sessions_have_no_changes_and_exit_0() {
    let (v, code) = diff_json(&two_turns(), &two_turns(), &["--fail-on", "any"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["schema"], "provscope.diff/1");
    assert_eq!(v["direction"], "neutral");
    assert_eq!(v["counts"]["sessions_paired"], 1);
    assert_eq!(v["counts"]["claims_paired"], 2);
    assert_eq!(v["counts"]["claims_unchanged"], 2);
    assert_eq!(v["sessions"][0]["turns"], json!([]));
    assert_eq!(v["metrics"]["citation_precision"], 0.0);
    // The text says so too.
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.jsonl", &log(&two_turns(), "s1"));
    let o = run(dir.path(), &["diff", "a.jsonl", "a.jsonl"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("result: no changes"), "{text}");
    assert!(text.contains("UNCHANGED session s1"), "{text}");
}

/// [`two_turns`] asking the same two questions the other way round (turn 1 is its turn 2), as
/// a log with session id `s1`.
pub(crate) fn swapped_turns() -> String {
    let mut b = two_turns();
    for c in &mut b.calls {
        c.turn = 3 - c.turn;
        *c = FxCall {
            issued: format!("2026-10-02T14:0{}:00Z", c.turn),
            returned: format!("2026-10-02T14:0{}:01Z", c.turn),
            fetched: format!("2026-10-02T14:0{}:01Z", c.turn),
            ..c.clone()
        };
    }
    for c in &mut b.claims {
        c.turn = 3 - c.turn;
    }
    log(&b, "s1")
        .replace("\"question 1\"", "\"@@\"")
        .replace("\"question 2\"", "\"question 1\"")
        .replace("\"@@\"", "\"question 2\"")
}

#[test]
fn reordered_turns_pair_by_question() {
    let a = two_turns();
    // B asks the same two questions the other way round: turn 1 is A's turn 2.
    let swapped = swapped_turns();
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.jsonl", &log(&a, "s1"));
    put(dir.path(), "b.jsonl", &swapped);
    let o = run(
        dir.path(),
        &["diff", "a.jsonl", "b.jsonl", "--format", "json"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["counts"]["claims_paired"], 2, "{v:#}");
    assert_eq!(v["counts"]["claims_unchanged"], 2, "{v:#}");
    assert_eq!(v["counts"]["turns_moved"], 2);
    assert_eq!(v["counts"]["calls_added"], 0);
    assert_eq!(v["counts"]["results_changed"], 0);
    let turns = v["sessions"][0]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert!(turns
        .iter()
        .all(|t| t["moved"] == true && t["claims"].is_null()));
    assert_eq!(turns[0]["turn_a"], 2);
    assert_eq!(turns[0]["turn_b"], 1);
    // Moving is a change: --fail-on any fails, the default does not.
    let o = run(
        dir.path(),
        &["diff", "a.jsonl", "b.jsonl", "--fail-on", "any"],
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn origin_changed_to_a_less_trusted_server_is_worse() {
    let a = Fx::baseline();
    let mut b = Fx::baseline();
    b.calls.push(FxCall::new(
        "req_m",
        1,
        "mirror.vendor.com",
        "Mirror: Team seats cost $19 per user per month.",
    ));
    b.claim("clm_price").cite = Some((
        "req_m".into(),
        "Team seats cost $19 per user per month".into(),
    ));
    let (v, code) = diff_json(&a, &b, &[]);
    assert_eq!(code, 1, "{v:#}");
    let c = &claims(&v)[0];
    assert_eq!(c["direction"], "worse");
    let o = change(c, "origin");
    assert_eq!(o["fields"], json!(["server", "call", "tier"]));
    assert_eq!(o["a"]["server"], "pricing.internal");
    assert_eq!(o["b"]["server"], "mirror.vendor.com");
    assert_eq!(o["a"]["tier"], "T0");
    assert_eq!(o["b"]["tier"], "T1");
    assert_eq!(o["direction"], "worse");
    // The cited text changed too; the call req_m is new, req_1 stays.
    assert_eq!(
        change(c, "span")["b"]["text"],
        "Team seats cost $19 per user per month"
    );
    assert_eq!(v["counts"]["calls_added"], 1);
    assert_eq!(v["counts"]["calls_removed"], 0);
    // The other way round it is better, and exits 0.
    let (v, code) = diff_json(&b, &a, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(claims(&v)[0]["direction"], "better");
    assert_eq!(v["counts"]["calls_removed"], 1);
    // --fail-on never: not even a worse claim fails.
    let (_, code) = diff_json(&a, &b, &["--fail-on", "never"]);
    assert_eq!(code, 0);
}

#[test]
fn span_moved_within_the_same_result_is_a_neutral_span_change() {
    let mut a = Fx::baseline();
    a.calls[0].text = "Team plan: seats cost $19 per user per month. Seats cost $19 per user per month on annual billing.".into();
    let mut b = Fx::baseline();
    b.calls[0].text = a.calls[0].text.clone();
    b.claim("clm_price").cite = Some((
        "req_1".into(),
        "Seats cost $19 per user per month on annual billing".into(),
    ));
    let (v, code) = diff_json(&a, &b, &["--fail-on", "any"]);
    assert_eq!(code, 1);
    let c = &claims(&v)[0];
    assert_eq!(tags(c), vec!["span"], "{c:#}");
    assert_eq!(c["direction"], "neutral");
    let s = change(c, "span");
    assert_eq!(s["a"]["text"], "seats cost $19 per user per month");
    assert_eq!(s["b"]["start"], 46);
    let (_, code) = diff_json(&a, &b, &[]);
    assert_eq!(code, 0, "a neutral change does not fail --fail-on worse");
}

#[test]
fn support_lost_adds_a_finding_and_is_worse() {
    let a = Fx::baseline();
    let mut b = Fx::baseline();
    b.claim("clm_price").cite = Some(("req_1".into(), "Team plan".into()));
    let (v, code) = diff_json(&a, &b, &[]);
    assert_eq!(code, 1);
    let c = &claims(&v)[0];
    let s = change(c, "support");
    assert_eq!(s["a"], 1.0);
    assert!(s["b"].as_f64().unwrap() < 0.5, "{s}");
    assert_eq!(s["direction"], "worse");
    let f = change(c, "finding_added");
    assert_eq!(f["finding"]["kind"], "span_unsupported");
    assert_eq!(f["direction"], "worse");
    assert!(tags(c).contains(&"span".to_owned()));
}

#[test]
fn stale_finding_added_moves_the_quadrant_and_resolving_it_is_better() {
    let a = Fx::baseline();
    let mut b = Fx::baseline();
    b.calls[0].ttl = 1;
    let (v, code) = diff_json(&a, &b, &[]);
    assert_eq!(code, 1, "{v:#}");
    let c = &claims(&v)[0];
    assert_eq!(c["direction"], "worse");
    assert_eq!(change(c, "finding_added")["finding"]["kind"], "stale");
    let q = change(c, "verdict");
    assert_eq!(q["source"], json!(["right", "wrong"]));
    assert_eq!(
        q["quadrant"],
        json!(["fact_right_source_right", "fact_right_source_wrong"])
    );
    assert_eq!(v["metrics"]["quadrants"]["fact_right_source_wrong"], 1);
    assert_eq!(v["metrics"]["wrong_source_rate"], 1.0);
    let (v, code) = diff_json(&b, &a, &[]);
    assert_eq!(code, 0);
    let c = &claims(&v)[0];
    assert_eq!(c["direction"], "better");
    assert_eq!(change(c, "finding_resolved")["finding"]["kind"], "stale");
    assert_eq!(v["counts"]["claims_better"], 1);
}

#[test]
fn fact_label_flipped_moves_the_quadrant() {
    let a = Fx::baseline();
    let mut b = Fx::baseline();
    b.labels = vec![("clm_price".into(), "wrong")];
    let (v, code) = diff_json(&a, &b, &[]);
    assert_eq!(code, 1);
    let cs = claims(&v);
    let q = change(&cs[0], "verdict");
    assert_eq!(q["fact"], json!(["right", "wrong"]));
    assert_eq!(
        q["quadrant"],
        json!(["fact_right_source_right", "fact_wrong_source_right"])
    );
    assert_eq!(q["direction"], "worse");
}

#[test]
fn changed_result_for_the_same_call_gets_a_word_diff() {
    let a = Fx::baseline();
    let mut b = Fx::baseline();
    b.calls[0].text =
        "Team plan: seats cost $19 per user per month. From November: $21 per user.".into();
    let (v, code) = diff_json(&a, &b, &["--fail-on", "any"]);
    assert_eq!(code, 1);
    assert_eq!(
        v["counts"]["claims_unchanged"], 1,
        "the cited span is unchanged"
    );
    let r = &v["sessions"][0]["turns"][0]["results_changed"][0];
    assert_eq!(r["tool"], "get_plan_price");
    assert_eq!(r["call_a"], "req_1");
    assert_eq!(r["words"]["words_added"], 5);
    assert_eq!(r["words"]["words_removed"], 0);
    let h = &r["words"]["hunks"][0];
    assert_eq!(h["removed"], "");
    assert_eq!(h["added"], "From November: $21 per user.");
    assert_eq!(h["before"], "per user per month.");
    assert_eq!(h["after"], "");
    // Other arguments are another call: added and removed, not a changed result.
    let mut c = Fx::baseline();
    c.calls[0].args = json!({"plan": "business"});
    let (v, _) = diff_json(&a, &c, &["--fail-on", "never"]);
    assert_eq!(v["counts"]["calls_added"], 1, "{v:#}");
    assert_eq!(v["counts"]["calls_removed"], 1);
    assert_eq!(v["counts"]["results_changed"], 0);
}

#[test]
fn claims_added_removed_and_paired_by_text() {
    let a = two_turns();
    let mut b = two_turns();
    // A new id for the same statement: paired by its words.
    b.claim("clm_business").id = "clm_biz_v2".into();
    b.labels[1].0 = "clm_biz_v2".into();
    b.claim("clm_biz_v2").text = "business seats cost $39 per user, per month!".into();
    // A new claim with no origin (its source is wrong): worse.
    let mut extra = FxClaim::new("clm_new", 1, "Prices exclude tax", "req_1", "");
    extra.cite = None;
    b.claims.push(extra);
    let (v, code) = diff_json(&a, &b, &[]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["counts"]["claims_added"], 1);
    assert_eq!(v["counts"]["claims_added_worse"], 1);
    assert_eq!(v["counts"]["claims_removed"], 0);
    let cs = claims(&v);
    let added = cs.iter().find(|c| c["presence"] == "added").unwrap();
    assert_eq!(added["claim_id"], "clm_new");
    assert_eq!(added["source_verdict"], "wrong");
    assert_eq!(added["findings"][0]["kind"], "unsourced");
    let by_text = cs.iter().find(|c| c["claim_id"] == "clm_biz_v2").unwrap();
    assert_eq!(by_text["paired_by"], "text");
    assert_eq!(by_text["claim_id_a"], "clm_business");
    assert_eq!(tags(by_text), vec!["text"]);
    // Removing it again is not worse.
    let (v, code) = diff_json(&b, &a, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["counts"]["claims_removed"], 1);
}

/// A pair with one change of each kind, for the golden outputs.
pub(crate) fn golden_pair() -> (Fx, Fx) {
    let a = two_turns();
    let mut b = two_turns();
    b.calls[0].text = "Team plan: seats cost $19 per user per month. Minimum 3 seats.".into();
    b.calls[1].ttl = 1;
    b.calls.push(FxCall::new(
        "req_3",
        2,
        "community-prices",
        "Forum: Business is $35 per user.",
    ));
    b.context = vec![(
        2,
        vec![("req_2".into(), Some("[1]".into())), ("req_3".into(), None)],
    )];
    let mut extra = FxClaim::new(
        "clm_min",
        1,
        "There is a minimum of 3 seats",
        "req_1",
        "Minimum 3 seats",
    );
    extra.marker = Some("[2]".into());
    b.claims.push(extra);
    (a, b)
}

#[test]
fn golden_text_and_markdown() {
    let (a, b) = golden_pair();
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.jsonl", &log(&a, "s1"));
    put(dir.path(), "b.jsonl", &log(&b, "s1"));
    let text = run(dir.path(), &["diff", "a.jsonl", "b.jsonl"]);
    assert_eq!(
        text.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    insta::assert_snapshot!("diff_text", String::from_utf8_lossy(&text.stdout));
    let md = run(
        dir.path(),
        &["diff", "a.jsonl", "b.jsonl", "--format", "md"],
    );
    assert_eq!(md.status.code(), Some(1));
    insta::assert_snapshot!("diff_markdown", String::from_utf8_lossy(&md.stdout));
    // -o writes the same bytes, and never over a file without --force.
    let o = run(
        dir.path(),
        &["diff", "a.jsonl", "b.jsonl", "--format", "md", "-o", "d.md"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read(dir.path().join("d.md")).unwrap(), md.stdout);
    let o = run(dir.path(), &["diff", "a.jsonl", "b.jsonl", "-o", "d.md"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("d.md"));
}

#[test]
fn hostile_text_is_escaped_for_people_and_intact_in_json() {
    let payload = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}x\r\n| `x` [y](z)";
    let a = Fx::baseline();
    let mut b = Fx::baseline();
    b.calls[0].text = format!("Team plan: seats cost $19 per user per month. {payload}");
    b.claim("clm_price").text = format!("Team seats cost $19 per user per month {payload}");
    b.claim("clm_price").id = format!("clm{payload}");
    b.labels[0].0 = format!("clm{payload}");
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a.jsonl", &log(&a, "s1"));
    put(dir.path(), "b.jsonl", &log(&b, &format!("s1{payload}")));
    for fmt in ["text", "md"] {
        let o = run(
            dir.path(),
            &[
                "--color", "never", "diff", "a.jsonl", "b.jsonl", "--format", fmt,
            ],
        );
        assert!(o.status.code().is_some());
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(!out.is_empty());
        if let Some((at, c)) = out
            .char_indices()
            .find(|(_, c)| *c != '\n' && provscope::text::is_unsafe(*c))
        {
            panic!("{fmt}: raw U+{:04X} at {at}: {out}", c as u32);
        }
        assert!(out.contains("^[]0;pwned^G"), "{fmt}: {out}");
        // The payload's line break cannot start a line of its own (a forged table row).
        assert!(!out.lines().any(|l| l.starts_with("| `x`")), "{fmt}: {out}");
    }
    let o = run(
        dir.path(),
        &["diff", "a.jsonl", "b.jsonl", "--format", "json"],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    let v: Value = serde_json::from_str(&text).unwrap();
    let found = text.contains("\\u001b]0;pwned\\u0007");
    assert!(found, "{text}");
    assert_eq!(
        v["sessions"][0]["b"]["session_id"],
        format!("s1{payload}"),
        "values intact"
    );
}

#[test]
fn runs_pair_sessions_by_id_then_first_question_and_give_metric_deltas() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // s1: a claim gets worse; s2: unchanged; s3 renamed s3b but asks the same first question;
    // s4 only in A, s5 only in B.
    let base = Fx::baseline();
    let mut worse = Fx::baseline();
    worse.calls[0].ttl = 1;
    let asks =
        |q: &str, fx: &Fx, id: &str| log(fx, id).replace("\"question 1\"", &json!(q).to_string());
    put(d, "A/s1.jsonl", &log(&base, "s1"));
    put(d, "A/s2.jsonl", &log(&base, "s2"));
    put(
        d,
        "A/s3.jsonl",
        &asks("What is the Team price?", &base, "s3"),
    );
    put(d, "A/s4.jsonl", &asks("Only in A", &base, "s4"));
    put(d, "B/s1.jsonl", &log(&worse, "s1"));
    put(d, "B/s2.jsonl", &log(&base, "s2"));
    put(
        d,
        "B/x3.jsonl",
        &asks("what is the team price", &base, "s3b"),
    );
    put(d, "B/s5.jsonl", &asks("Only in B", &base, "s5"));
    let o = run(d, &["diff", "A", "B", "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = &v["counts"];
    assert_eq!(c["sessions_paired"], 3, "{v:#}");
    assert_eq!(c["sessions_added"], 1);
    assert_eq!(c["sessions_removed"], 1);
    assert_eq!(c["claims_worse"], 1);
    assert_eq!(c["claims_unchanged"], 2);
    assert_eq!(c["claims_added"], 1);
    assert_eq!(c["claims_removed"], 1);
    let pairs: Vec<(String, String)> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["b"]["session_id"].as_str().unwrap().to_owned(),
                s["paired_by"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        pairs.contains(&("s1".into(), "session_id".into())),
        "{pairs:?}"
    );
    assert!(
        pairs.contains(&("s3b".into(), "first_question".into())),
        "{pairs:?}"
    );
    assert_eq!(v["sessions_added"][0]["session_id"], "s5");
    assert_eq!(v["sessions_removed"][0]["session_id"], "s4");
    // Overall metrics: 4 claims each side; one moved from right/right to right/wrong.
    let m = &v["metrics"];
    assert_eq!(m["a"]["claims"], 4);
    assert_eq!(m["b"]["claims"], 4);
    assert_eq!(m["quadrants"]["fact_right_source_right"], -1);
    assert_eq!(m["quadrants"]["fact_right_source_wrong"], 1);
    assert_eq!(m["wrong_source_rate"], 0.25);
    assert_eq!(m["citation_precision"], 0.0);
    // The Markdown for a PR: the verdict, the metric table, only the changed session.
    let o = run(d, &["diff", "A", "B", "--format", "md"]);
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.starts_with("## provscope diff: **worse**"), "{md}");
    assert!(
        md.contains("| wrong-source rate | 0.0% | 25.0% | +25.0 pts |"),
        "{md}"
    );
    assert!(md.contains("### Session `s1`"), "{md}");
    assert!(!md.contains("### Session `s2`"), "{md}");
    assert!(md.contains("### Sessions added\n\n- `s5`"), "{md}");
}

#[test]
fn input_errors_exit_2_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = log(&Fx::baseline(), "s1");
    put(dir.path(), "a.jsonl", &good);
    // A damaged log: its valid lines are compared, the bad line is named, exit 2.
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(2, "{\"event\":\"turn\",");
    put(dir.path(), "b.jsonl", &(lines.join("\n") + "\n"));
    let o = run(dir.path(), &["diff", "a.jsonl", "b.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("b.jsonl:3"), "{err}");
    // A missing side: nothing to compare.
    let o = run(dir.path(), &["diff", "a.jsonl", "missing.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("missing.jsonl"), "{err}");
    assert!(o.stdout.is_empty());
    // An unreadable side (not a log at all).
    put(dir.path(), "junk.jsonl", "this is not a session log\n");
    let o = run(dir.path(), &["diff", "junk.jsonl", "a.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("junk.jsonl"));
}
