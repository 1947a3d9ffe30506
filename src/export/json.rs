//! `verify --format json`: the stable, documented schema `provscope.verify/1`
//! (see `docs/verify-json.md`). Serialized straight from the reports, borrowing everything.

use crate::check::gates::GateResult;
use crate::check::{
    ClaimVerdict, Evidence, FactVerdict, Finding, Kind, Metrics, Quadrant, SessionReport, Severity,
    SourceVerdict,
};
use crate::model::{Diagnostic, Name, Provenance, Timestamp};
use crate::pipeline::Outcome;
use serde::Serialize;

/// Schema identifier written in every document.
pub const SCHEMA: &str = "provscope.verify/1";

/// One finding.
#[derive(Serialize)]
pub struct FindingDoc<'a> {
    kind: Kind,
    severity: Severity,
    message: &'a str,
    claim_id: Option<&'a str>,
    turn: Option<u32>,
    call_ids: &'a [Name],
    line: u64,
    json_path: Option<&'a str>,
    evidence: &'a Evidence,
}

impl<'a> From<&'a Finding> for FindingDoc<'a> {
    fn from(f: &'a Finding) -> Self {
        FindingDoc {
            kind: f.kind,
            severity: f.severity,
            message: &f.message,
            claim_id: f.claim_id.as_deref(),
            turn: f.turn,
            call_ids: &f.call_ids,
            line: f.line,
            json_path: f.json_path.as_deref(),
            evidence: &f.evidence,
        }
    }
}

/// One claim statement with its verdicts and findings.
#[derive(Serialize)]
pub struct ClaimDoc<'a> {
    claim_id: &'a str,
    turn: u32,
    claim_text: &'a str,
    call_id: Option<&'a str>,
    provenance: Provenance,
    source_verdict: SourceVerdict,
    fact_verdict: FactVerdict,
    fact_source: Option<&'a str>,
    quadrant: Option<Quadrant>,
    support: Option<f64>,
    findings: Vec<FindingDoc<'a>>,
}

/// One session.
#[derive(Serialize)]
pub struct SessionDoc<'a> {
    session_id: &'a str,
    name: &'a str,
    file: &'a str,
    format: &'static str,
    metrics: &'a Metrics,
    claims: Vec<ClaimDoc<'a>>,
    session_findings: Vec<FindingDoc<'a>>,
    diagnostics: &'a [Diagnostic],
}

/// The whole document.
#[derive(Serialize)]
pub struct Document<'a> {
    schema: &'static str,
    provscope_version: &'static str,
    checked_at: String,
    metrics: &'a Metrics,
    gates: &'a [GateResult],
    sessions: Vec<SessionDoc<'a>>,
    input_errors: &'a [Diagnostic],
}

fn claim<'a>(r: &'a SessionReport, c: &'a ClaimVerdict) -> ClaimDoc<'a> {
    ClaimDoc {
        claim_id: &c.claim_id,
        turn: c.turn,
        claim_text: &c.claim_text,
        call_id: c.call_id.as_deref(),
        provenance: c.provenance,
        source_verdict: c.source_verdict,
        fact_verdict: c.fact_verdict,
        fact_source: c.fact_source.as_deref(),
        quadrant: c.quadrant,
        support: c.support,
        findings: r.findings_for(c).map(FindingDoc::from).collect(),
    }
}

/// One session as a document part.
pub fn session<'a>(r: &'a SessionReport, diagnostics: &'a [Diagnostic]) -> SessionDoc<'a> {
    SessionDoc {
        session_id: &r.session_id,
        name: &r.name,
        file: &r.file,
        format: r.format,
        metrics: &r.metrics,
        claims: r.claims.iter().map(|c| claim(r, c)).collect(),
        session_findings: r
            .findings
            .iter()
            .filter(|f| f.claim_id.is_none())
            .map(FindingDoc::from)
            .collect(),
        diagnostics,
    }
}

/// The nesting depth of the document's sessions (elements of the top-level `sessions` array).
pub const SESSIONS_DEPTH: usize = 2;

/// The document of a run without its sessions, cut where they go: its sessions are then
/// written one by one as they are checked ([`session`]), between `head` and `tail`.
pub fn frame(
    overall: &Metrics,
    gates: &[GateResult],
    checked_at: Timestamp,
    input_errors: &[Diagnostic],
) -> std::io::Result<super::stream::Frame> {
    let doc = Document {
        schema: SCHEMA,
        provscope_version: env!("CARGO_PKG_VERSION"),
        checked_at: checked_at.to_string(),
        metrics: overall,
        gates,
        sessions: Vec::new(),
        input_errors,
    };
    super::stream::Frame::new(&doc, "sessions", 1)
}

/// The whole run as one document.
pub fn document(o: &Outcome, checked_at: Timestamp) -> Document<'_> {
    Document {
        schema: SCHEMA,
        provscope_version: env!("CARGO_PKG_VERSION"),
        checked_at: checked_at.to_string(),
        metrics: &o.overall,
        gates: &o.gates,
        sessions: o
            .reports
            .iter()
            .zip(&o.diagnostics)
            .map(|(r, d)| session(r, d))
            .collect(),
        input_errors: &o.input_errors,
    }
}
