//! `verify --format sarif`: SARIF 2.1.0, one result per finding, located at the log file and line.

use crate::check::gates::GateResult;
use crate::check::{ClaimVerdict, Finding, SessionReport, Severity, ALL_KINDS};
use serde_json::{json, Value};

/// The SARIF rule of a failed metric gate (after the finding kinds).
pub const GATE_RULE: &str = "metric_gate";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn description(k: crate::check::Kind) -> &'static str {
    use crate::check::Kind::*;
    match k {
        Unsourced => "A claim with no origin.",
        DanglingOrigin => "The stamp's origin names no recorded call or result.",
        OriginMismatch => "The stamp disagrees with the recorded call (misattribution).",
        SpanInvalid => "The cited span cannot be resolved.",
        SpanUnsupported => "The cited span does not support the claim.",
        AmbiguousSupport => "Another result in context supports the claim as well or better.",
        Stale => "The cited result was past its TTL at answer time.",
        BelowTier => "The origin server's tier is below the render policy.",
        CitationDrift => "The claim's binding moved across turns.",
        ParallelConflict => {
            "Concurrent calls disagreed and the answer hid it or cited the less trusted one."
        }
        FlattenedContext => "Results entered context without per-call markers.",
        InjectionSuspect => "An untrusted result tries to instruct the agent or forge citations.",
        EnvelopeMissing => "A call has no execution envelope where one is required.",
        EnvelopeInvalid => "An execution envelope does not verify.",
        ResultTampered => "The delivered result or its ingestion tag differs from what was sealed.",
        EnvelopePartial => "An envelope verifies but does not vouch for every recorded value.",
        AnswerMismatch => "The answer text does not show or state what its stamps say.",
        TierRendering => "A T1 claim is not labelled, or a T2 claim not attributed, in the answer.",
        TierReviewOverdue => "The review of the cited server's tier was overdue at answer time.",
        UntrustedContext => "A result from an untrusted or undeclared server reached the context.",
        SubAgentSource => "A claim cites a sub-agent whose own stamp for it is wrong or missing.",
    }
}

/// The SARIF 2.1.0 log without its results, cut where they go: results are then written one
/// by one ([`result`], then [`gate_result`] for each failed gate) as sessions are checked. The
/// head does not depend on `gates`; the tail (the run's `properties`) does.
pub fn frame(gates: &[GateResult]) -> std::io::Result<super::stream::Frame> {
    let mut rules: Vec<Value> = ALL_KINDS
        .iter()
        .map(|k| {
            json!({
                "id": k.name(),
                "name": k.name(),
                "shortDescription": {"text": description(*k)},
            })
        })
        .collect();
    rules.push(json!({
        "id": GATE_RULE,
        "name": GATE_RULE,
        "shortDescription": {"text": "A run's metric is past a gate (--fail-under, --fail-over, [gates])."},
    }));
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "provscope",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": [],
            "properties": {"gates": gates},
        }],
    });
    super::stream::Frame::new(&doc, "results", 3)
}

/// The SARIF result of one finding of a session; `claim` is the finding's claim statement
/// ([`SessionReport::finding_claims`]), whose stamp's provenance the result names.
pub fn result(r: &SessionReport, f: &Finding, claim: Option<&ClaimVerdict>) -> Value {
    let rule_index = ALL_KINDS.iter().position(|k| *k == f.kind).unwrap_or(0);
    // Session-level findings without a line point at the first line.
    let region = json!({"startLine": f.line.max(1)});
    let mut logical = vec![json!({
        "name": f.claim_id.as_deref().map_or_else(|| f.call_ids.join(","), str::to_owned),
        "fullyQualifiedName": format!("{}/turn-{}/{}", r.session_id, f.turn.unwrap_or(0), f.claim_id.as_deref().unwrap_or("")),
        "kind": "member",
    })];
    // In an imported document the JSON path is the precise place (SARIF has no JSON region).
    if let Some(p) = &f.json_path {
        logical.push(json!({
            "name": p.rsplit('.').next().unwrap_or(p),
            "fullyQualifiedName": p,
            "kind": "object",
        }));
    }
    json!({
        "ruleId": f.kind.name(),
        "ruleIndex": rule_index,
        "level": level(f.severity),
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri(&r.file)},
                "region": region,
            },
            "logicalLocations": logical,
        }],
        "properties": {
            "json_path": f.json_path,
            "session_id": r.session_id,
            "format": r.format,
            "turn": f.turn,
            "claim_id": f.claim_id,
            "stamp": claim.map(|c| c.provenance),
            "call_ids": f.call_ids,
            "evidence": f.evidence,
        },
    })
}

/// The SARIF result of a failed gate: it concerns the whole run, so it has no location.
pub fn gate_result(g: &GateResult) -> Value {
    json!({
        "ruleId": GATE_RULE,
        "ruleIndex": ALL_KINDS.len(),
        "level": "error",
        "message": {"text": g.message},
        "properties": {"gate": g},
    })
}

/// A relative path as a URI reference (forward slashes, spaces and `%` escaped).
fn uri(path: &str) -> String {
    let mut out = String::new();
    for c in path.replace('\\', "/").chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}
