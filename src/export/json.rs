//! `verify --format json`: the stable, documented schema `provscope.verify/1`
//! (see `docs/verify-json.md`).

use crate::check::{Finding, Outcome, SessionReport};
use crate::model::Timestamp;
use serde_json::{json, Value};

/// Schema identifier written in every document.
pub const SCHEMA: &str = "provscope.verify/1";

fn finding(f: &Finding) -> Value {
    json!({
        "kind": f.kind,
        "severity": f.severity,
        "message": f.message,
        "claim_id": f.claim_id,
        "turn": f.turn,
        "call_ids": f.call_ids,
        "line": f.line,
        "evidence": f.evidence,
    })
}

/// One session as JSON.
pub fn session(r: &SessionReport, diagnostics: &[crate::model::Diagnostic]) -> Value {
    let claims: Vec<Value> = r
        .claims
        .iter()
        .map(|c| {
            json!({
                "claim_id": c.claim_id,
                "turn": c.turn,
                "claim_text": c.claim_text,
                "call_id": c.call_id,
                "source_verdict": c.source_verdict,
                "fact_verdict": c.fact_verdict,
                "fact_source": c.fact_source,
                "quadrant": c.quadrant,
                "support": c.support,
                "findings": r.findings_for(c).map(finding).collect::<Vec<_>>(),
            })
        })
        .collect();
    let other: Vec<Value> = r
        .findings
        .iter()
        .filter(|f| f.claim_id.is_none())
        .map(finding)
        .collect();
    json!({
        "session_id": r.session_id,
        "name": r.name,
        "file": r.file,
        "metrics": r.metrics,
        "claims": claims,
        "session_findings": other,
        "diagnostics": diagnostics,
    })
}

/// The whole run as one JSON document.
pub fn document(o: &Outcome, checked_at: Timestamp) -> Value {
    let sessions: Vec<Value> = o
        .reports
        .iter()
        .zip(&o.diagnostics)
        .map(|(r, d)| session(r, d))
        .collect();
    json!({
        "schema": SCHEMA,
        "provscope_version": env!("CARGO_PKG_VERSION"),
        "checked_at": checked_at.to_string(),
        "metrics": o.overall,
        "sessions": sessions,
        "input_errors": o.input_errors,
    })
}
