//! Loading and checking cost linear work whatever the session's shape: every lookup goes
//! through an index. `crate::probe` counts the elements each lookup visits; a session four
//! times as long must cost at most a little over four times the count (a lookup that scans
//! would make it about sixteen).

use crate::gen::{write_session, GenSpec};
use crate::ingest::{load_bytes, LoadOptions};

/// Steps counted while loading and checking one generated session.
fn steps(spec: &GenSpec) -> (u64, usize) {
    let mut bytes = Vec::new();
    write_session(&mut bytes, spec, 0).unwrap();
    let before = crate::probe::count();
    let s = load_bytes("long", "long.jsonl", &bytes, &LoadOptions::default());
    assert!(!s.has_errors(), "{:?}", s.diagnostics.first());
    let r = super::check_session(&s, &super::Config::default());
    assert!(!r.findings.is_empty());
    (crate::probe::count() - before, s.calls.len())
}

fn assert_linear(small: GenSpec, factor: u32, grow: impl Fn(&mut GenSpec, u32)) {
    let mut large = small.clone();
    grow(&mut large, factor);
    let (a, na) = steps(&small);
    let (b, nb) = steps(&large);
    assert_eq!(nb, na * factor as usize);
    let ratio = b as f64 / a as f64;
    assert!(
        ratio <= factor as f64 * 1.1,
        "{na} calls: {a} steps, {nb} calls: {b} steps ({ratio:.2}x for {factor}x the calls)"
    );
}

#[test]
fn a_long_session_costs_linear_lookups() {
    // Many turns of a few calls: one claim and one label per turn, drift, every fault kind.
    let spec = GenSpec {
        turns: 300,
        calls: 4,
        fault_rate: 0.5,
        result_bytes: 200,
        ..GenSpec::default()
    };
    assert_linear(spec, 4, |s, f| s.turns *= f);
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
        ..GenSpec::default()
    };
    assert_linear(spec, 4, |s, f| s.turns *= f);
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
