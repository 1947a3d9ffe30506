//! Pins the exact findings of every bundled sample session (listed in sample-sessions/README.md).

use provscope::check::{check_session, Config};
use provscope::ingest::{samples, LoadOptions};
use std::fmt::Write;

#[test]
fn sample_findings_are_pinned() {
    let mut out = String::new();
    let sessions = samples::load_all(&LoadOptions::default());
    assert!(sessions.len() >= 8, "at least 8 bundled samples");
    for s in &sessions {
        assert!(s.diagnostics.is_empty(), "{}: {:?}", s.name, s.diagnostics);
        let r = check_session(s, &Config::default());
        let _ = writeln!(out, "## {}", s.name);
        if r.findings.is_empty() {
            let _ = writeln!(out, "(no findings)");
        }
        for f in &r.findings {
            let _ = writeln!(
                out,
                "turn {} {} {} {} [{}]",
                f.turn.map_or("-".into(), |t| t.to_string()),
                f.claim_id.as_deref().unwrap_or("-"),
                f.severity,
                f.kind,
                f.call_ids.join(",")
            );
        }
        let q: Vec<String> = r
            .metrics
            .quadrants
            .iter()
            .map(|(q, n)| format!("{}={n}", q.name()))
            .collect();
        let _ = writeln!(out, "grid: {}", q.join(" "));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn clean_samples_have_no_findings() {
    for s in samples::load_all(&LoadOptions::default()) {
        if s.name.contains("clean") || s.name.contains("multilingual") {
            let r = check_session(&s, &Config::default());
            assert!(r.findings.is_empty(), "{}: {:#?}", s.name, r.findings);
        }
    }
}
