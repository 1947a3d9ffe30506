//! Loading and checking cost linear work whatever the session's shape: every lookup goes
//! through an index. `crate::probe` counts the elements each lookup visits; a session four
//! times as long must cost at most a little over four times the count (a lookup that scans
//! would make it about sixteen).
//!
//! Every check runs on the generated sessions (`every_check_fires` names the kinds each test
//! needs): origin, context, answer text, trust (with a `[tiers]` review schedule), drift,
//! parallel, envelopes, and sub-agent links followed as the pipeline follows them.

use super::sub::{SubCheck, SubOutcome};
use super::{Config, Kind, SessionReport};
use crate::gen::{write_session, GenSpec};
use crate::ingest::{load_bytes, LoadOptions};
use crate::model::Session;

/// A `[tiers]` entry whose review is overdue at every generated answer, so that
/// `tier_review_overdue` is judged for every claim citing the community server.
fn config() -> Config {
    Config::parse(
        "[tiers]\n\"community-prices\" = { tier = \"T2\", reviewed = 2026-01-01, review_every = \"90d\" }\n",
    )
    .unwrap()
}

/// The links of `s` followed as `Pipeline::check` follows them: each resolves to a small
/// checked sub-agent session (built outside the count: it is the sub-agent's own work).
fn follow(s: &Session, cfg: &Config) -> Vec<SubCheck> {
    let mut bytes = Vec::new();
    write_session(&mut bytes, &GenSpec::default(), 7).unwrap();
    let sub = load_bytes("sub", "sub.jsonl", &bytes, &LoadOptions::default());
    let report = super::check_session(&sub, cfg);
    s.calls
        .iter()
        .filter_map(|c| {
            let link = c.sub_session.as_deref().cloned()?;
            Some(SubCheck {
                call_id: c.id.to_string(),
                link,
                outcome: SubOutcome::Checked {
                    path: "sub.jsonl".into(),
                    depth: 1,
                    session: Box::new(sub.clone()),
                    report: Box::new(report.clone()),
                },
            })
        })
        .collect()
}

/// Steps counted while loading and checking one generated session, with its report.
fn steps(spec: &GenSpec) -> (u64, usize, SessionReport) {
    let cfg = config();
    let mut bytes = Vec::new();
    write_session(&mut bytes, spec, 0).unwrap();
    let before = crate::probe::count();
    let s = load_bytes("long", "long.jsonl", &bytes, &LoadOptions::default());
    let loading = crate::probe::count() - before;
    assert!(!s.has_errors(), "{:?}", s.diagnostics.first());
    let subs = follow(&s, &cfg);
    assert_eq!(!subs.is_empty(), spec.sub_agents);
    let before = crate::probe::count();
    let r = super::check_session_with(&s, &cfg, &subs);
    let checking = crate::probe::count() - before;
    (loading + checking, s.calls.len(), r)
}

fn assert_linear(small: GenSpec, factor: u32, grow: impl Fn(&mut GenSpec, u32)) -> SessionReport {
    let mut large = small.clone();
    grow(&mut large, factor);
    let (a, na, _) = steps(&small);
    let (b, nb, report) = steps(&large);
    assert_eq!(nb, na * factor as usize);
    let ratio = b as f64 / a as f64;
    assert!(
        ratio <= factor as f64 * 1.1,
        "{na} calls: {a} steps, {nb} calls: {b} steps ({ratio:.2}x for {factor}x the calls)"
    );
    report
}

/// The checks the generated session must exercise: each kind fires at least once.
fn every_check_fires(r: &SessionReport, kinds: &[Kind]) {
    for k in kinds {
        assert!(
            r.findings.iter().any(|f| f.kind == *k),
            "{} never fired: the session does not exercise its check",
            k.name()
        );
    }
}

/// The kinds every generated session with faults has.
const COMMON: [Kind; 12] = [
    Kind::Unsourced,
    Kind::DanglingOrigin,
    Kind::OriginMismatch,
    Kind::SpanUnsupported,
    Kind::Stale,
    Kind::BelowTier,
    Kind::CitationDrift,
    Kind::ParallelConflict,
    Kind::FlattenedContext,
    Kind::InjectionSuspect,
    Kind::UntrustedContext,
    Kind::TierReviewOverdue,
];

#[test]
fn a_long_session_costs_linear_lookups() {
    // Many turns of a few calls: one claim and one label per turn, drift, every fault kind,
    // untrusted results in context, a sub-agent link every fourth turn.
    let spec = GenSpec {
        turns: 300,
        calls: 4,
        fault_rate: 0.5,
        result_bytes: 200,
        sub_agents: true,
        ..GenSpec::default()
    };
    let r = assert_linear(spec, 4, |s, f| s.turns *= f);
    every_check_fires(&r, &COMMON);
    every_check_fires(&r, &[Kind::SubAgentSource]);
}

#[test]
fn sealed_sessions_cost_linear_lookups() {
    // Envelopes on every call, tampered results among them.
    let spec = GenSpec {
        turns: 60,
        calls: 2,
        fault_rate: 0.8,
        result_bytes: 100,
        envelopes: true,
        sub_agents: true,
        ..GenSpec::default()
    };
    let r = assert_linear(spec, 4, |s, f| s.turns *= f);
    every_check_fires(&r, &[Kind::ResultTampered, Kind::SubAgentSource]);
}

#[test]
fn wide_turns_cost_linear_lookups() {
    // A few turns of many calls each, all issued together (sibling searches).
    let spec = GenSpec {
        turns: 6,
        calls: 100,
        fault_rate: 0.8,
        result_bytes: 100,
        ..GenSpec::default()
    };
    assert_linear(spec, 4, |s, f| s.calls *= f);
}

/// The count sees a lookup that scans: a per-claim search through every sub-agent link (what
/// `sub::check` did before its index) makes a 4x longer session cost far more than 4.4x.
#[test]
fn the_count_catches_a_scan_per_claim() {
    let count = |turns: u32| {
        let spec = GenSpec {
            turns,
            calls: 4,
            sub_agents: true,
            result_bytes: 100,
            ..GenSpec::default()
        };
        let mut bytes = Vec::new();
        write_session(&mut bytes, &spec, 0).unwrap();
        let s = load_bytes("long", "long.jsonl", &bytes, &LoadOptions::default());
        let subs = follow(&s, &Config::default());
        let before = crate::probe::count();
        let mut found = 0;
        for c in s.claims() {
            let Some(o) = &c.stamp.origin else { continue };
            found += usize::from(
                subs.iter()
                    .inspect(|_| crate::probe::steps(1))
                    .any(|sc| sc.call_id == o.tool_call_id),
            );
        }
        assert!(found > 0);
        crate::probe::count() - before
    };
    let (a, b) = (count(100), count(400));
    assert!(b as f64 / a as f64 > 8.0, "{a} -> {b}");
}
