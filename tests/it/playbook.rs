//! The playbook's rules, rule by rule (issue 14): metrics as defined, metric gates, trust that
//! gates context, tier rendering and review schedules, defaulted TTLs, the answer text against
//! its stamps, dangling versus drift, receipts in a session and sub-agent provenance. Each rule
//! has a case that fires it and near misses that must not.

use crate::common;

use base64::Engine;
use common::{of_kind, Fx, FxCall, FxClaim};
use ed25519_dalek::{Signer, SigningKey};
use provscope::attest::receipt::{self, algorithm_for, chain_hash, ChainInput};
use provscope::check::{Config, Kind, Severity, SourceVerdict};
use provscope::ingest::{load_file, LoadOptions};
use provscope::pipeline::Pipeline;
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

fn write_lines(path: &Path, lines: &[Value]) {
    let body: String = lines.iter().map(|v| v.to_string() + "\n").collect();
    std::fs::write(path, body).unwrap();
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
// 3. Trust gates context.

fn with_background(server: &str) -> Fx {
    let mut fx = Fx::baseline();
    let mut c = FxCall::new("req_bg", 1, server, "Seat prices vary by region.");
    c.tool = "scrape".into();
    c.issued = "2026-10-02T14:01:10Z".into();
    c.returned = "2026-10-02T14:01:11Z".into();
    fx.calls.push(c);
    fx
}

#[test]
fn untrusted_context_fires_for_uncited_results_of_untrusted_servers() {
    // Undeclared server, never cited.
    let r = with_background("deals-scraper").report();
    let f = of_kind(&r, Kind::UntrustedContext);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].severity, Severity::Warning);
    assert_eq!(f[0].call_ids, ["req_bg"]);
    assert!(f[0].claim_id.is_none());
    assert!(
        f[0].message.contains("declared nowhere"),
        "{}",
        f[0].message
    );
    assert_eq!(f[0].evidence.to_json()["cited_by"], json!([]));
    // T3 from the config: denied by default.
    let cfg = Config::parse("[tiers]\n\"deals-*\" = \"T3\"\n").unwrap();
    let r = with_background("deals-scraper").report_with(&cfg);
    assert_eq!(
        of_kind(&r, Kind::UntrustedContext)[0].severity,
        Severity::Warning
    );
    // A declared T2 result below require_tier_gte_1 is background the playbook allows: info.
    let r = with_background("community-prices").report();
    assert_eq!(
        of_kind(&r, Kind::UntrustedContext)[0].severity,
        Severity::Info
    );
    // Severity is configurable.
    let cfg = Config::parse("[severity]\nuntrusted_context = \"error\"\n").unwrap();
    let r = with_background("deals-scraper").report_with(&cfg);
    assert_eq!(
        of_kind(&r, Kind::UntrustedContext)[0].severity,
        Severity::Error
    );
}

#[test]
fn untrusted_context_near_misses() {
    // T1 under require_tier_gte_1.
    assert!(of_kind(
        &with_background("mirror.vendor.com").report(),
        Kind::UntrustedContext
    )
    .is_empty());
    // Recorded, but not in the turn's context.
    let mut fx = with_background("deals-scraper");
    fx.context = vec![(1, vec![("req_1".into(), Some("[1]".into()))])];
    assert!(of_kind(&fx.report(), Kind::UntrustedContext).is_empty());
    // The config declares it.
    let cfg = Config::parse("[tiers]\n\"deals-scraper\" = \"T1\"\n").unwrap();
    assert!(of_kind(
        &with_background("deals-scraper").report_with(&cfg),
        Kind::UntrustedContext
    )
    .is_empty());
}

// ---------------------------------------------------------------------------------------------
// 4. Tier rendering and review schedules.

#[test]
fn t1_claims_must_show_their_marker_or_label() {
    let mut fx = Fx::baseline();
    fx.calls[0].server = "mirror.vendor.com".into();
    fx.claims[0].marker = None;
    let r = fx.report();
    let f = of_kind(&r, Kind::TierRendering);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(f[0].evidence.to_json()["rule"], "t1_label");
    // Marker in the stamp but not in the answer text: still unlabelled, reported once.
    fx.claims[0].marker = Some("[1]".into());
    fx.answer_text = vec![(1, "Team seats cost $19 per user per month.".into())];
    let r = fx.report();
    assert_eq!(of_kind(&r, Kind::TierRendering).len(), 1);
    assert!(
        of_kind(&r, Kind::AnswerMismatch).is_empty(),
        "one cause, one finding"
    );
    // Near misses: the marker shown; or the source named where the claim is stated.
    fx.answer_text = vec![(1, "Team seats cost $19 per user per month [1].".into())];
    assert!(of_kind(&fx.report(), Kind::TierRendering).is_empty());
    fx.claims[0].marker = None;
    fx.answer_text = vec![(
        1,
        "Per mirror.vendor.com, Team seats cost $19 per user per month.".into(),
    )];
    assert!(of_kind(&fx.report(), Kind::TierRendering).is_empty());
}

#[test]
fn t2_claims_must_be_attributed_in_the_answer_text() {
    let mut fx = Fx::baseline();
    fx.calls[0].server = "community-prices".into();
    fx.claims[0].policy = "require_tier_gte_2".into();
    let r = fx.report();
    let f = of_kind(&r, Kind::TierRendering);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].evidence.to_json()["rule"], "t2_attribution");
    assert_eq!(r.claims[0].source_verdict, SourceVerdict::Wrong);
    // A hedged claim text does not help: the answer text is what the user reads.
    fx.claims[0].text =
        "According to community reports, Team seats cost $19 per user per month".into();
    fx.answer_text = vec![(1, "Team seats cost $19 per user per month [1].".into())];
    assert_eq!(of_kind(&fx.report(), Kind::TierRendering).len(), 1);
    // Near misses: attributed in the answer text; or without a marker, in its sentence.
    fx.answer_text = vec![(
        1,
        "According to a community price list, Team seats cost $19 per user per month [1].".into(),
    )];
    assert!(of_kind(&fx.report(), Kind::TierRendering).is_empty());
    fx.claims[0].marker = None;
    fx.answer_text = vec![(
        1,
        "Plans differ. Reportedly, Team seats cost $19 per user per month.".into(),
    )];
    assert!(of_kind(&fx.report(), Kind::TierRendering).is_empty());
    // Below the policy: below_tier only.
    let mut fx = Fx::baseline();
    fx.calls[0].server = "community-prices".into();
    let r = fx.report();
    assert_eq!(of_kind(&r, Kind::BelowTier).len(), 1);
    assert!(of_kind(&r, Kind::TierRendering).is_empty());
}

#[test]
fn overdue_tier_reviews_warn_on_every_claim_citing_the_server() {
    let mut fx = Fx::baseline();
    fx.claims.push(FxClaim::new(
        "clm_again",
        1,
        "Seats cost $19 per user per month",
        "req_1",
        "seats cost $19 per user per month",
    ));
    let cfg = Config::parse(
        "[tiers]\n\"pricing.internal\" = { tier = \"T0\", reviewed = 2026-06-01, review_every = \"90d\" }\n",
    )
    .unwrap();
    let r = fx.report_with(&cfg);
    let f = of_kind(&r, Kind::TierReviewOverdue);
    assert_eq!(f.len(), 2, "{:#?}", r.findings);
    assert_eq!(f[0].severity, Severity::Warning);
    assert!(f[0].message.contains("due 2026-08-30"), "{}", f[0].message);
    assert_eq!(
        r.claims[0].source_verdict,
        SourceVerdict::Right,
        "a warning"
    );
    assert!(r.claims[0].tier.unwrap().review_due.is_some());
    // The explorer's source panel shows when the review was due.
    {
        use provscope::tui::action::{Action, LoadMsg, Msg, View};
        use provscope::tui::app::Loaded;
        use provscope::tui::update::update;
        let s = provscope::ingest::load_bytes(
            "fx",
            "fx.jsonl",
            fx.jsonl().as_bytes(),
            &LoadOptions::default(),
        );
        let r = provscope::check::check_session(&s, &cfg);
        let mut app = provscope::tui::new_app(&cfg, false).unwrap();
        update(
            &mut app,
            Msg::Load(LoadMsg::Sessions(vec![Loaded::new(s, r)])),
        );
        update(&mut app, Msg::Load(LoadMsg::Done));
        crate::tui_util::open_claim(&mut app, "fx", "clm_price");
        update(&mut app, Action::Goto(View::Claim));
        let screen = crate::tui_util::screen(&mut app, 200, 60);
        assert!(
            screen.contains("[T0, from provscope.toml, review due 2026-08-30]"),
            "{screen}"
        );
    }
    // Near misses: reviewed recently enough; no schedule; the plain form.
    for toml in [
        "[tiers]\n\"pricing.internal\" = { tier = \"T0\", reviewed = 2026-06-01, review_every = \"180d\" }\n",
        "[tiers]\n\"pricing.internal\" = { tier = \"T0\", reviewed = 2020-01-01 }\n",
        "[tiers]\n\"pricing.internal\" = \"T0\"\n",
    ] {
        let cfg = Config::parse(toml).unwrap();
        assert!(of_kind(&fx.report_with(&cfg), Kind::TierReviewOverdue).is_empty(), "{toml}");
    }
}

// ---------------------------------------------------------------------------------------------
// 5. A missing TTL is a diagnostic.

fn without_ttls(fx: &Fx) -> String {
    fx.lines()
        .into_iter()
        .map(|mut v| {
            if v["event"] == "tool_result" {
                v["tag"].as_object_mut().unwrap().remove("ttl_seconds");
            }
            if v["event"] == "answer" {
                for c in v["claims"].as_array_mut().unwrap() {
                    if let Some(o) = c["origin"].as_object_mut() {
                        o.remove("ttl_seconds");
                    }
                }
            }
            v.to_string() + "\n"
        })
        .collect()
}

#[test]
fn a_missing_ttl_is_one_diagnostic_per_server_naming_the_default() {
    let mut fx = Fx::baseline();
    fx.calls.push(FxCall::new(
        "req_2",
        1,
        "pricing.internal",
        "Team plan: annual billing is $15 per user per month.",
    ));
    fx.claims.push(FxClaim::new(
        "clm_annual",
        1,
        "Annual billing is $15 per user per month",
        "req_2",
        "annual billing is $15 per user per month",
    ));
    let s = provscope::ingest::load_bytes(
        "fx",
        "fx.jsonl",
        without_ttls(&fx).as_bytes(),
        &LoadOptions::default(),
    );
    let cfg = Config::parse("default_ttl_seconds = 900\n").unwrap();
    let r = provscope::check::check_session(&s, &cfg);
    assert_eq!(r.diagnostics.len(), 1, "{:#?}", r.diagnostics);
    let d = &r.diagnostics[0];
    assert!(
        d.message.contains("`pricing.internal`") && d.message.contains("900 s"),
        "{}",
        d.message
    );
    assert!(d.message.contains("2 cited result(s)"), "{}", d.message);
    assert_eq!(d.path, "tool_result.tag.ttl_seconds");
    // Near miss: the tag has a TTL.
    assert!(fx.report().diagnostics.is_empty());
    // `verify` prints it as a warning diagnostic and exits 0.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.jsonl"), without_ttls(&fx)).unwrap();
    let o = provscope(dir.path(), &["verify", "s.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("warning: tool_result.tag.ttl_seconds: server `pricing.internal`")
    );
}

// ---------------------------------------------------------------------------------------------
// 6. The answer text against its stamps.

fn answer(text: &str) -> Fx {
    let mut fx = Fx::baseline();
    fx.answer_text = vec![(1, text.into())];
    fx
}

#[test]
fn answer_mismatch_marker_absent() {
    let r = answer("Team seats cost $19 per user per month.").report();
    let f = of_kind(&r, Kind::AnswerMismatch);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].severity, Severity::Warning);
    assert_eq!(f[0].evidence.to_json()["reason"], "marker_absent");
    assert_eq!(
        r.claims[0].answer.as_ref().unwrap().marker_shown,
        Some(false)
    );
}

#[test]
fn answer_mismatch_contradicted_and_unstamped_text() {
    // The case: the answer says 60 business days at [1]; the stamp says 5.
    let mut fx = Fx::baseline();
    fx.calls[0].text = "Premium refunds are processed within 5 business days of approval.".into();
    fx.claims[0].text = "Premium refunds are processed within 5 business days".into();
    fx.claims[0].cite = Some((
        "req_1".into(),
        "Premium refunds are processed within 5 business days".into(),
    ));
    fx.answer_text = vec![(
        1,
        "Premium refunds take 60 business days and are not refundable [1].".into(),
    )];
    let r = fx.report();
    let f = of_kind(&r, Kind::AnswerMismatch);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].severity, Severity::Error);
    let e = f[0].evidence.to_json();
    assert_eq!(e["reason"], "contradicted");
    assert_eq!(e["answer_values"], json!(["60 day(s)"]));
    assert_eq!(e["claim_values"], json!(["5 day(s)"]));
    assert_eq!(r.claims[0].source_verdict, SourceVerdict::Wrong);
    assert_eq!(
        r.metrics.citation_precision,
        Some(1.0),
        "the stamp itself is supported"
    );
    // A second passage at the same marker that no stamp states.
    fx.answer_text = vec![(
        1,
        "Premium refunds are processed within 5 business days [1]. Refunds over $500 need 30 days [1].".into(),
    )];
    let r = fx.report();
    let f = of_kind(&r, Kind::AnswerMismatch);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert!(f[0].claim_id.is_none());
    let e = f[0].evidence.to_json();
    assert_eq!(e["reason"], "unstamped");
    assert_eq!(e["passage"], "Refunds over $500 need 30 days");
    assert_eq!(e["claims"], json!(["clm_price"]));
    assert_eq!(f[0].severity, Severity::Error);
}

#[test]
fn a_passage_misstating_a_stamp_stated_elsewhere_is_that_claims_error() {
    // Sample 01 with the edit: "60 business days ... not refundable [1]". The claim's
    // "5 business days" is also in the next [1] passage ("3–5 business days"), so the claim is
    // stated there; the edited passage is its misstatement, flagged on the claim.
    let text = std::fs::read_to_string(sample("01-clean-baseline.jsonl")).unwrap();
    let edited = text.replacen(
        "within 5 business days of approval [1]",
        "within 60 business days of approval and are not refundable [1]",
        1,
    );
    assert_ne!(text, edited);
    let s =
        provscope::ingest::load_bytes("01", "01.jsonl", edited.as_bytes(), &LoadOptions::default());
    let r = provscope::check::check_session(&s, &Config::default());
    let f = of_kind(&r, Kind::AnswerMismatch);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].claim_id.as_deref(), Some("clm_premium_refund_time"));
    assert_eq!(f[0].severity, Severity::Error);
    let e = f[0].evidence.to_json();
    assert_eq!(e["reason"], "contradicted");
    assert_eq!(e["answer_values"], json!(["60 day(s)"]));
    let v = r
        .claims
        .iter()
        .find(|c| c.claim_id == "clm_premium_refund_time" && c.turn == 1)
        .unwrap();
    assert_eq!(v.source_verdict, SourceVerdict::Wrong);
    // Near miss: the untouched sample is clean.
    let s =
        provscope::ingest::load_bytes("01", "01.jsonl", text.as_bytes(), &LoadOptions::default());
    assert!(provscope::check::check_session(&s, &Config::default())
        .findings
        .is_empty());
}

#[test]
fn answer_mismatch_not_stated() {
    let r = answer("Call our sales team today [1].").report();
    let f = of_kind(&r, Kind::AnswerMismatch);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].evidence.to_json()["reason"], "not_stated");
    assert_eq!(f[0].severity, Severity::Warning);
}

#[test]
fn answer_mismatch_near_misses() {
    for text in [
        // Same values, other words.
        "Yes. Team seats are $19 per user, billed per month [1].",
        // The marker after the sentence's full stop.
        "For the email: \"Team seats cost $19 per user per month.\" [1]",
        // Adjacent markers share a passage.
        "Team seats cost $19 per user per month [1][2].",
        // Unmarked text around it is not checked.
        "Good news. Team seats cost $19 per user per month [1]. Prices may change in 2027.",
    ] {
        let r = answer(text).report();
        assert!(
            of_kind(&r, Kind::AnswerMismatch).is_empty(),
            "{text}: {:#?}",
            r.findings
        );
    }
    // A more specific claim than the answer text (an id the user gave) is not contradicted.
    let mut fx = Fx::baseline();
    fx.calls[0].text = "Order A-10482 belongs to Zoë Lindqvist.".into();
    fx.claims[0].text = "Order A-10482 belongs to Zoë Lindqvist".into();
    fx.claims[0].cite = Some((
        "req_1".into(),
        "Order A-10482 belongs to Zoë Lindqvist".into(),
    ));
    fx.answer_text = vec![(1, "Yes. The order belongs to Zoë Lindqvist [1].".into())];
    assert!(of_kind(&fx.report(), Kind::AnswerMismatch).is_empty());
    // A bare-digit marker is never found inside a number.
    let mut fx = answer("In 2026 Team seats cost $19 per user per month.");
    fx.claims[0].marker = Some("1".into());
    let r = fx.report();
    assert_eq!(
        of_kind(&r, Kind::AnswerMismatch)[0].evidence.to_json()["reason"],
        "marker_absent"
    );
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

// ---------------------------------------------------------------------------------------------
// 8. ArkForge receipts in the session.

fn issuer() -> SigningKey {
    SigningKey::from_bytes(&[7u8; 32])
}

fn pubkey(k: &SigningKey) -> String {
    format!(
        "ed25519:{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(k.verifying_key().as_bytes())
    )
}

/// A receipt binding `args` and `response`, signed by `key`, chain under `spec`.
fn receipt_for(args: &Value, response: &Value, key: &SigningKey, spec: &str) -> Value {
    let c = ChainInput {
        request_hash: receipt::body_hash(args).unwrap(),
        response_hash: receipt::body_hash(response).unwrap(),
        transaction_id: "pi_test_fx1".into(),
        timestamp: "2026-10-02T14:01:01Z".into(),
        buyer_fingerprint: receipt::sha256_hex(b"mcp_test_key"),
        seller: "arkforge.fr".into(),
        upstream_timestamp: None,
        receipt_content_hash: None,
    };
    let chain = chain_hash(&c, algorithm_for(Some(spec)).unwrap()).unwrap();
    let sig = key.sign(chain.as_bytes());
    json!({
        "proof_id": "prf_fx1",
        "spec_version": spec,
        "timestamp": c.timestamp,
        "hashes": {"request": format!("sha256:{}", c.request_hash),
                   "response": format!("sha256:{}", c.response_hash),
                   "chain": format!("sha256:{chain}")},
        "parties": {"buyer_fingerprint": c.buyer_fingerprint, "seller": c.seller},
        "payment": {"transaction_id": c.transaction_id},
        "arkforge_signature": format!("ed25519:{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sig.to_bytes())),
        "arkforge_pubkey": pubkey(key),
    })
}

/// The baseline with a receipt for req_1 and the issuer's key pinned in the header.
fn with_receipt(receipt: Value, pin: bool) -> Session {
    let fx = Fx::baseline();
    let mut lines = fx.lines();
    if pin {
        lines[0]["receipt_keys"] = json!([pubkey(&issuer())]);
    }
    lines.push(json!({"event": "envelope", "call_id": "req_1", "receipt": receipt}));
    let body: String = lines.iter().map(|v| v.to_string() + "\n").collect();
    let s =
        provscope::ingest::load_bytes("fx", "fx.jsonl", body.as_bytes(), &LoadOptions::default());
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    s
}

use provscope::model::Session;

fn result_of(fx: &Fx) -> Value {
    json!({"content": [{"type": "text", "text": fx.calls[0].text}]})
}

#[test]
fn a_receipt_in_the_session_verifies_with_the_pinned_key() {
    let fx = Fx::baseline();
    let args = fx.calls[0].args.clone();
    let good = receipt_for(&args, &result_of(&fx), &issuer(), "2.1");
    let s = with_receipt(good.clone(), true);
    let r = provscope::check::check_session(&s, &Config::default());
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(
        r.envelope("req_1"),
        provscope::check::EnvelopeStatus::Verified
    );
    // Pinned in provscope.toml instead of the header.
    let s = with_receipt(good.clone(), false);
    let cfg = Config::parse(&format!("receipt_keys = [\"{}\"]\n", pubkey(&issuer()))).unwrap();
    assert!(provscope::check::check_session(&s, &cfg)
        .findings
        .is_empty());
    // No pinned key: the embedded one proves nothing.
    let r = provscope::check::check_session(&s, &Config::default());
    let f = of_kind(&r, Kind::EnvelopeInvalid);
    assert_eq!(f[0].evidence.to_json()["reason"], "no_trusted_keys");
    // A legacy chain verifies, with an info that its fields are not separable.
    let legacy = receipt_for(&args, &result_of(&fx), &issuer(), "2.0");
    let r = provscope::check::check_session(&with_receipt(legacy, true), &Config::default());
    let f = of_kind(&r, Kind::EnvelopePartial);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].severity, Severity::Info);
    assert_eq!(f[0].evidence.to_json()["reason"], "legacy_receipt");
}

#[test]
fn receipts_that_do_not_match_the_recording_are_envelope_findings() {
    let fx = Fx::baseline();
    let args = fx.calls[0].args.clone();
    // Signed by another key.
    let other = SigningKey::from_bytes(&[9u8; 32]);
    let r = provscope::check::check_session(
        &with_receipt(receipt_for(&args, &result_of(&fx), &other, "2.1"), true),
        &Config::default(),
    );
    assert_eq!(
        of_kind(&r, Kind::EnvelopeInvalid)[0].evidence.to_json()["reason"],
        "bad_signature"
    );
    // Bound to other arguments.
    let r = provscope::check::check_session(
        &with_receipt(
            receipt_for(&json!({"plan": "pro"}), &result_of(&fx), &issuer(), "2.1"),
            true,
        ),
        &Config::default(),
    );
    let f = of_kind(&r, Kind::EnvelopeInvalid);
    assert_eq!(f[0].evidence.to_json()["reason"], "call_mismatch");
    assert_eq!(
        f[0].evidence.to_json()["mismatches"][0]["field"],
        "hashes.request"
    );
    // The delivered result is not the one the receipt binds: the citing claim's source is wrong.
    let other_result = json!({"content": [{"type": "text", "text": "Team plan: seats cost $24 per user per month."}]});
    let r = provscope::check::check_session(
        &with_receipt(receipt_for(&args, &other_result, &issuer(), "2.1"), true),
        &Config::default(),
    );
    let f = of_kind(&r, Kind::ResultTampered);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].claim_id.as_deref(), Some("clm_price"));
    assert_eq!(r.claims[0].source_verdict, SourceVerdict::Wrong);
    // An altered field breaks the chain.
    let mut bad = receipt_for(&args, &result_of(&fx), &issuer(), "2.1");
    bad["parties"]["seller"] = json!("evil.example");
    let r = provscope::check::check_session(&with_receipt(bad, true), &Config::default());
    let f = of_kind(&r, Kind::EnvelopeInvalid);
    assert_eq!(f[0].evidence.to_json()["reason"], "receipt_invalid");
    assert_eq!(f[0].evidence.to_json()["field"], "chain hash");
}

// ---------------------------------------------------------------------------------------------
// 9. Sub-agent provenance.

/// A sub-agent session whose answer states the price, with `id`.
fn sub_agent(id: &str) -> Vec<Value> {
    let mut lines = Fx::baseline().lines();
    lines[0]["session_id"] = json!(id);
    lines
}

/// An orchestrator whose call `req_1` ran the sub-agent at `path` (its result is the sub-agent's
/// answer text) and whose claim cites a phrase of that answer.
fn orchestrator(sub_answer: &str, phrase: &str, path: &str) -> Vec<Value> {
    let mut fx = Fx::baseline();
    fx.servers.push(("research-agent".into(), "T0".into()));
    fx.calls[0].server = "research-agent".into();
    fx.calls[0].tool = "ask_agent".into();
    fx.calls[0].text = sub_answer.into();
    fx.claims[0].text = "Team seats cost $19 per user per month".into();
    fx.claims[0].cite = Some(("req_1".into(), phrase.into()));
    let mut lines = fx.lines();
    for v in &mut lines {
        if v["event"] == "tool_result" {
            v["sub_session"] = json!({"session_id": "sub_1", "path": path});
        }
    }
    lines
}

fn check_file(path: &Path, cfg: Config) -> provscope::check::SessionReport {
    let s = load_file(path, &LoadOptions::default());
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    Pipeline::new(LoadOptions::default(), cfg, 1).check(&s)
}

const SUB_ANSWER: &str = "Team seats cost $19 per user per month [1]";

#[test]
fn a_claim_citing_a_sub_agent_rests_on_the_sub_agents_stamp() {
    let dir = tempfile::tempdir().unwrap();
    write_lines(&dir.path().join("sub.jsonl"), &sub_agent("sub_1"));
    let parent = dir.path().join("parent.jsonl");
    write_lines(
        &parent,
        &orchestrator(
            SUB_ANSWER,
            "Team seats cost $19 per user per month",
            "sub.jsonl",
        ),
    );
    let r = check_file(&parent, Config::default());
    assert!(
        of_kind(&r, Kind::SubAgentSource).is_empty(),
        "{:#?}",
        r.findings
    );
    let sc = r.claims[0]
        .sub_claim
        .as_ref()
        .expect("linked to the sub-agent's stamp");
    assert_eq!(
        (sc.session_id.as_str(), sc.claim_id.as_str()),
        ("sub_1", "clm_price")
    );
    assert_eq!(sc.source_verdict, SourceVerdict::Right);
    assert!(matches!(
        r.sub_sessions[0].status,
        provscope::check::SubStatus::Checked { depth: 1, .. }
    ));

    // The sub-agent's own stamp is stale: the orchestrator's claim is wrong transitively.
    let mut stale = sub_agent("sub_1");
    for v in &mut stale {
        if v["event"] == "tool_result" {
            v["tag"]["fetched_at"] = json!("2026-10-01T00:00:00Z");
        }
        if v["event"] == "answer" {
            v["claims"][0]["origin"]["fetched_at"] = json!("2026-10-01T00:00:00Z");
        }
    }
    write_lines(&dir.path().join("sub.jsonl"), &stale);
    let r = check_file(&parent, Config::default());
    let f = of_kind(&r, Kind::SubAgentSource);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].severity, Severity::Error);
    let e = f[0].evidence.to_json();
    assert_eq!(e["reason"], "wrong_stamp");
    assert_eq!(e["sub_claims"][0]["claim_id"], "clm_price");
    assert!(f[0].message.contains("stale"), "{}", f[0].message);
    assert_eq!(r.claims[0].source_verdict, SourceVerdict::Wrong);

    // The orchestrator cites a sentence of the sub-agent's answer that no stamp of it states.
    write_lines(&dir.path().join("sub.jsonl"), &sub_agent("sub_1"));
    let answer = format!("{SUB_ANSWER}. Refunds take 30 days.");
    let mut lines = orchestrator(&answer, "Refunds take 30 days", "sub.jsonl");
    for v in &mut lines {
        if v["event"] == "answer" {
            v["claims"][0]["claim_text"] = json!("Refunds take 30 days");
            v["text"] = json!("Refunds take 30 days [1].");
        }
    }
    write_lines(&parent, &lines);
    let r = check_file(&parent, Config::default());
    let f = of_kind(&r, Kind::SubAgentSource);
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].evidence.to_json()["reason"], "unstamped");
}

#[test]
fn sub_agent_links_are_bounded_cycles_detected_and_kept_inside_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let warn = |r: &provscope::check::SessionReport| {
        let f = of_kind(r, Kind::SubAgentSource);
        assert_eq!(f.len(), 1, "{:#?}", r.findings);
        assert_eq!(f[0].severity, Severity::Warning);
        f[0].evidence.to_json()["problem"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // A log that names itself: a cycle.
    let me = dir.path().join("loop.jsonl");
    let mut lines = orchestrator(
        SUB_ANSWER,
        "Team seats cost $19 per user per month",
        "loop.jsonl",
    );
    lines[0]["session_id"] = json!("sub_1");
    write_lines(&me, &lines);
    assert_eq!(warn(&check_file(&me, Config::default())), "cycle");
    // Missing.
    let parent = dir.path().join("parent.jsonl");
    write_lines(
        &parent,
        &orchestrator(
            SUB_ANSWER,
            "Team seats cost $19 per user per month",
            "nope.jsonl",
        ),
    );
    assert_eq!(warn(&check_file(&parent, Config::default())), "not_found");
    // Upward, outside the referring log's directory: refused without consent.
    let inner = dir.path().join("runs");
    std::fs::create_dir(&inner).unwrap();
    write_lines(&dir.path().join("sub.jsonl"), &sub_agent("sub_1"));
    let p2 = inner.join("parent.jsonl");
    write_lines(
        &p2,
        &orchestrator(
            SUB_ANSWER,
            "Team seats cost $19 per user per month",
            "../sub.jsonl",
        ),
    );
    assert_eq!(warn(&check_file(&p2, Config::default())), "outside");
    let mut consent = Config::default();
    consent.sub_sessions.allow_outside = true;
    assert!(of_kind(&check_file(&p2, consent.clone()), Kind::SubAgentSource).is_empty());
    // The same consent on the command line.
    let o = provscope(&inner, &["verify", "parent.jsonl", "--format", "json"]);
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        j["sessions"][0]["claims"][0]["findings"][0]["kind"],
        "sub_agent_source"
    );
    // The message says how to allow it.
    let o = provscope(&inner, &["verify", "parent.jsonl"]);
    assert!(
        text(&o.stdout).contains("allow with --follow-outside"),
        "{}",
        text(&o.stdout)
    );
    // The explorer's claim view says which sub-agent stamp the claim rests on.
    {
        use provscope::tui::action::{Action, LoadMsg, Msg, View};
        use provscope::tui::app::Loaded;
        use provscope::tui::update::update;
        let p = Pipeline::new(LoadOptions::default(), consent.clone(), 1);
        let s = load_file(&p2, &LoadOptions::default());
        let r = p.check(&s);
        let mut app = provscope::tui::new_app(&consent, false).unwrap();
        update(
            &mut app,
            Msg::Load(LoadMsg::Sessions(vec![Loaded::new(s, r)])),
        );
        update(&mut app, Msg::Load(LoadMsg::Done));
        crate::tui_util::open_claim(&mut app, "parent", "clm_price");
        update(&mut app, Action::Goto(View::Claim));
        let screen = crate::tui_util::screen(&mut app, 200, 60);
        assert!(
            screen.contains("rests on sub-agent stamp clm_price"),
            "{screen}"
        );
    }
    let o = provscope(&inner, &["--follow-outside", "verify", "parent.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    // Depth: sub_1 runs sub_2; with max_depth 1 the second level is not followed.
    let mut mid = orchestrator(
        SUB_ANSWER,
        "Team seats cost $19 per user per month",
        "leaf.jsonl",
    );
    mid[0]["session_id"] = json!("sub_1");
    for v in &mut mid {
        if v["event"] == "tool_result" {
            v["sub_session"]["session_id"] = json!("sub_2");
        }
    }
    write_lines(&dir.path().join("sub.jsonl"), &mid);
    write_lines(&dir.path().join("leaf.jsonl"), &sub_agent("sub_2"));
    write_lines(
        &parent,
        &orchestrator(
            SUB_ANSWER,
            "Team seats cost $19 per user per month",
            "sub.jsonl",
        ),
    );
    assert!(of_kind(
        &check_file(&parent, Config::default()),
        Kind::SubAgentSource
    )
    .is_empty());
    let shallow = Config::parse("[sub_sessions]\nmax_depth = 1\n").unwrap();
    // The leaf is too deep: sub_1's claim gets a warning (its source stays right), so the
    // orchestrator's claim is still fine.
    let r = check_file(&parent, shallow.clone());
    assert!(
        of_kind(&r, Kind::SubAgentSource).is_empty(),
        "{:#?}",
        r.findings
    );
    let zero = Config::parse("[sub_sessions]\nmax_depth = 0\n").unwrap();
    assert_eq!(warn(&check_file(&parent, zero)), "too_deep");
    // A link to a log that holds another session id.
    write_lines(&dir.path().join("sub.jsonl"), &sub_agent("someone_else"));
    assert_eq!(warn(&check_file(&parent, Config::default())), "id_mismatch");
}

// ---------------------------------------------------------------------------------------------
// 10. The incident procedure: corrections and hand classifications everywhere, trend over the
// same inputs.

fn sample(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-sessions")
        .join(name)
}

#[test]
fn correct_accepts_unsourced_claims_and_reports_show_corrections() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("07.jsonl");
    std::fs::copy(sample("07-unsourced.jsonl"), &log).unwrap();
    let db = dir.path().join("cases.sqlite");
    let (log, db) = (log.to_str().unwrap(), db.to_str().unwrap());
    let o = provscope(
        dir.path(),
        &[
            "--db",
            db,
            "correct",
            log,
            "--claim",
            "clm_auto_refund",
            "--outcome",
            "corrected",
            "--note",
            "user report #88: no automatic refunds",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("recorded corrected for clm_auto_refund turn 1")
            && text(&o.stdout).contains("no conflicting-source test: the claim is unsourced"),
        "{}",
        text(&o.stdout)
    );
    let cases: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".case.json")
        })
        .collect();
    assert!(cases.is_empty(), "no test for an unsourced claim");
    // The report carries it in every format.
    let o = provscope(dir.path(), &["--db", db, "report", log, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = j["flagged_claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["claim_id"] == "clm_auto_refund")
        .unwrap();
    assert_eq!(c["corrections"][0]["outcome"], "corrected");
    assert_eq!(
        c["corrections"][0]["note"],
        "user report #88: no automatic refunds"
    );
    let md = text(&provscope(dir.path(), &["--db", db, "report", log]).stdout);
    assert!(md.contains("- Correction: **corrected**"), "{md}");
    let html =
        text(&provscope(dir.path(), &["--db", db, "report", log, "--format", "html"]).stdout);
    assert!(html.contains("Correction: <b>corrected</b>"), "{html}");
    // Near miss: a sourced claim still gets its conflicting-source test.
    let o = provscope(
        dir.path(),
        &[
            "--db",
            db,
            "correct",
            log,
            "--claim",
            "clm_carrier",
            "--outcome",
            "survived",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("conflicting-source test written to"));
}

#[test]
fn a_hand_classification_from_a_user_report_appears_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("01.jsonl");
    std::fs::copy(sample("01-clean-baseline.jsonl"), &log).unwrap();
    let db = dir.path().join("cases.sqlite");
    let (log, db) = (log.to_str().unwrap(), db.to_str().unwrap());
    let listed = |dir: &Path| -> Vec<String> {
        let o = provscope(dir, &["--db", db, "report", log, "--format", "json"]);
        let j: Value = serde_json::from_slice(&o.stdout).unwrap();
        j["flagged_claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["claim_id"].as_str().unwrap().to_owned())
            .collect()
    };
    // Near miss: the clean session lists nothing.
    assert!(listed(dir.path()).is_empty());
    // A user reports a wrong fact no check flagged; the reviewer classifies it by hand.
    let o = provscope(
        dir.path(),
        &[
            "--db",
            db,
            "classify",
            log,
            "clm_premium_refund_time",
            "-q",
            "wr",
            "--note",
            "user report: took 9 days",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(listed(dir.path()), ["clm_premium_refund_time"]);
    let o = provscope(dir.path(), &["--db", db, "trend"]);
    assert!(
        text(&o.stdout).contains("recorded: 0 corrected, 0 survived, 1 classified by hand"),
        "{}",
        text(&o.stdout)
    );
}

fn run_with(rw: u64, wr: u64) -> provscope::check::Metrics {
    let mut m = provscope::check::Metrics::default();
    m.quadrants
        .insert(provscope::check::Quadrant::FactRightSourceWrong, rw);
    m.quadrants
        .insert(provscope::check::Quadrant::FactWrongSourceRight, wr);
    m
}

/// Records each `(time, inputs digest, run)` in the store at `db`, in order.
fn record_runs(db: &Path, runs: &[(i64, &str, provscope::check::Metrics)]) {
    let store = provscope::store::Store::open(db).unwrap();
    for (at, inputs, run) in runs {
        store
            .record_run(provscope::model::Timestamp(*at), inputs, run)
            .unwrap();
    }
}

#[test]
fn trend_compares_runs_over_the_same_inputs_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let trend = |db: &Path, extra: &[&str]| {
        let mut args = vec!["--db", db.to_str().unwrap(), "trend"];
        args.extend(extra);
        provscope(dir.path(), &args)
    };
    // Run 1 over A (25%), run 2 over B (75%): unrelated inputs, no alarm, and it says so.
    let db = dir.path().join("a.sqlite");
    record_runs(
        &db,
        &[
            (1_000, "aaaa", run_with(1, 3)),
            (2_000, "bbbb", run_with(3, 1)),
        ],
    );
    let o = trend(&db, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("no earlier run over the same inputs as run 2"),
        "{}",
        text(&o.stdout)
    );
    // --any-inputs compares them anyway, and says their inputs differ.
    let o = trend(&db, &["--any-inputs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("--any-inputs: their inputs differ"));
    assert!(text(&o.stderr).contains("from 25% in run 1 to 75% in run 2"));
    // Run 3 over A again (50%): compared with run 1 (25%), not with run 2 (75%).
    record_runs(&db, &[(3_000, "aaaa", run_with(2, 2))]);
    let o = trend(&db, &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "a rise from 25% to 50%");
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["compared"]["previous_run"], 1);
    assert_eq!(j["compared"]["basis"], "same_inputs");
    assert_eq!(j["alarm"]["previous"], 0.25);
    // An undefined previous share (nothing failed) followed by hidden failures alarms.
    let db2 = dir.path().join("b.sqlite");
    record_runs(
        &db2,
        &[
            (1_000, "aaaa", run_with(0, 0)),
            (2_000, "aaaa", run_with(1, 1)),
        ],
    );
    let o = trend(&db2, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("rose from none (no failed evals) in run 1 to 50% in run 2"),
        "{}",
        text(&o.stderr)
    );
    // Near miss: nothing failed in either run.
    let db3 = dir.path().join("c.sqlite");
    record_runs(
        &db3,
        &[
            (1_000, "aaaa", run_with(0, 0)),
            (2_000, "aaaa", run_with(0, 0)),
        ],
    );
    assert_eq!(trend(&db3, &[]).status.code(), Some(0));
}

#[test]
fn the_explorer_opens_the_sub_agent_stamp_a_claim_rests_on() {
    use provscope::tui::action::{Action, LoadMsg, Msg, View};
    use provscope::tui::app::Loaded;
    use provscope::tui::update::{update, Effect};
    let dir = tempfile::tempdir().unwrap();
    let sub_path = dir.path().join("sub.jsonl");
    write_lines(&sub_path, &sub_agent("sub_1"));
    let parent = dir.path().join("parent.jsonl");
    write_lines(
        &parent,
        &orchestrator(
            SUB_ANSWER,
            "Team seats cost $19 per user per month",
            "sub.jsonl",
        ),
    );
    let pipeline = Pipeline::new(LoadOptions::default(), Config::default(), 1);
    let mut app = provscope::tui::new_app(&Config::default(), false).unwrap();
    let s = load_file(&parent, &LoadOptions::default());
    let r = pipeline.check(&s);
    update(
        &mut app,
        Msg::Load(LoadMsg::Sessions(vec![Loaded::new(s, r)])),
    );
    update(&mut app, Msg::Load(LoadMsg::Done));
    crate::tui_util::open_claim(&mut app, "parent", "clm_price");
    update(&mut app, Action::Goto(View::Claim));
    assert_eq!(app.view, View::Claim);
    // `a` on the claim asks for the sub-agent's log, resolved beside the orchestrator's (not
    // against the current directory).
    let effects = update(&mut app, Action::SubSession);
    let Some(Effect::LoadSession(path, id)) = effects.first().cloned() else {
        panic!("{effects:?}")
    };
    assert_eq!(Path::new(&path), sub_path);
    assert_eq!(id, "sub_1");
    // The load finishes: the sub-agent's session opens at the stamp the claim rests on.
    let s = load_file(&sub_path, &LoadOptions::default());
    let r = pipeline.check(&s);
    update(
        &mut app,
        Msg::SubSessions {
            sessions: vec![Loaded::new(s, r)],
            id,
            path,
        },
    );
    assert_eq!(app.view, View::Claim);
    assert_eq!(app.current().unwrap().report.session_id, "sub_1");
    assert_eq!(app.current_claim().unwrap().claim_id, "clm_price");
    // One Back returns to the orchestrator.
    update(&mut app, Action::Back);
    assert_ne!(app.current().unwrap().report.session_id, "sub_1");
}
