//! `verify --format junit`: one test suite per session, one test case per claim statement.
//! A claim fails when it has a finding at or above the failure threshold.

use super::xml_escape as x;
use crate::check::{Outcome, Severity};
use crate::model::Timestamp;
use std::fmt::Write;

fn describe(f: &crate::check::Finding) -> String {
    format!("{} [{}]: {}", f.kind, f.severity, f.message)
}

/// Renders JUnit XML.
pub fn render(o: &Outcome, fail_on: Option<Severity>, checked_at: Timestamp) -> String {
    let fails = |s: Severity| fail_on.is_some_and(|t| s <= t);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total: usize = o.reports.iter().map(|r| r.claims.len()).sum();
    let failures: usize = o
        .reports
        .iter()
        .flat_map(|r| {
            r.claims
                .iter()
                .map(move |c| r.findings_for(c).any(|f| fails(f.severity)))
        })
        .filter(|b| *b)
        .count();
    let _ = writeln!(out, "<testsuites name=\"provscope verify\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\">");
    for r in &o.reports {
        let n = r.claims.len();
        let nf = r
            .claims
            .iter()
            .filter(|c| r.findings_for(c).any(|f| fails(f.severity)))
            .count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{nf}\" errors=\"0\" skipped=\"0\" timestamp=\"{}\">",
            x(&r.name),
            &checked_at.to_string().trim_end_matches('Z')
        );
        for c in &r.claims {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"turn {} {}\"",
                x(&r.session_id),
                c.turn,
                x(&c.claim_id),
            );
            let bad: Vec<_> = r.findings_for(c).filter(|f| fails(f.severity)).collect();
            let rest: Vec<_> = r.findings_for(c).filter(|f| !fails(f.severity)).collect();
            if bad.is_empty() && rest.is_empty() {
                out.push_str("/>\n");
                continue;
            }
            out.push_str(">\n");
            if let Some(first) = bad.first() {
                let mut body: Vec<String> = bad.iter().map(|f| describe(f)).collect();
                body.push(format!("at {}:{}", r.file, c.line));
                let _ = writeln!(
                    out,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    first.kind,
                    x(&first.message),
                    x(&body.join("\n"))
                );
            }
            if !rest.is_empty() {
                let body: Vec<String> = rest.iter().map(|f| describe(f)).collect();
                let _ = writeln!(
                    out,
                    "      <system-out>{}</system-out>",
                    x(&body.join("\n"))
                );
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
