//! The provenance checks: pure functions from a loaded session to findings, the grid and metrics.
//!
//! Where each finding kind is computed (`grep -rn "Kind::Stale" src/check` finds the site):
//! - `origin.rs`: unsourced, dangling_origin, origin_mismatch, span_invalid, span_unsupported,
//!   stale, below_tier
//! - `context.rs`: ambiguous_support, flattened_context, injection_suspect
//! - `drift.rs`: citation_drift
//! - `parallel.rs`: parallel_conflict
//! - `envelopes.rs`: envelope_missing, envelope_invalid, result_tampered (via `crate::attest`)

mod config;
mod context;
mod drift;
mod envelopes;
pub mod evidence;
mod finding;
mod grid;
mod metrics;
mod origin;
mod parallel;
pub use parallel::surfaces_conflict;
mod run;
pub mod support;

pub use config::{parse_policy, Config, CONFIG_FILE};
pub use evidence::Evidence;
pub use finding::{Finding, Kind, Severity, ALL_KINDS};
pub use grid::{ClaimVerdict, FactVerdict, Quadrant, SourceVerdict, QUADRANTS};

/// The four quadrants in the playbook's order.
pub fn grid_quadrants() -> [Quadrant; 4] {
    QUADRANTS
}
pub use metrics::Metrics;
pub use run::{check_paths, Outcome};

use crate::model::{Call, Claim, Session, Tier, ToolResult};
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use support::{ClaimKeys, Support, TextIndex};

/// Everything the checks found in one session.
#[derive(Clone, Debug, Serialize)]
pub struct SessionReport {
    /// Session id.
    pub session_id: String,
    /// Display name.
    pub name: String,
    /// The log file.
    pub file: String,
    /// Every finding, in turn order.
    pub findings: Vec<Finding>,
    /// One verdict per claim, in turn order.
    pub claims: Vec<ClaimVerdict>,
    /// Session metrics.
    pub metrics: Metrics,
    /// The effective tier of every server the session called (config over header).
    pub tiers: std::collections::BTreeMap<String, Tier>,
}

impl SessionReport {
    /// The findings of one claim statement.
    pub fn findings_for<'a>(&'a self, v: &'a ClaimVerdict) -> impl Iterator<Item = &'a Finding> {
        v.findings.iter().map(|&i| &self.findings[i])
    }

    /// The most serious severity among findings, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).min()
    }
}

/// A claim with its origin resolved against the recorded session (computed once, shared by checks).
pub(crate) struct Resolved<'s> {
    pub claim: &'s Claim,
    pub call: Option<&'s Call>,
    pub result: Option<&'s ToolResult>,
    /// The cited span's text, when the span resolves.
    pub span_text: Option<&'s str>,
    /// The claim's key tokens.
    pub keys: ClaimKeys,
    /// Support of the claim by its span.
    pub support: Option<Support>,
}

/// Shared state of one session's check run.
pub(crate) struct Checker<'s> {
    pub s: &'s Session,
    pub cfg: &'s Config,
    pub findings: Vec<Finding>,
    tiers: HashMap<&'s str, Tier>,
    text_index: HashMap<&'s str, TextIndex<'s>>,
    args_hashes: HashMap<&'s str, Result<String, String>>,
}

impl<'s> Checker<'s> {
    fn new(s: &'s Session, cfg: &'s Config) -> Self {
        Checker {
            s,
            cfg,
            findings: Vec::new(),
            tiers: HashMap::default(),
            text_index: HashMap::default(),
            args_hashes: HashMap::default(),
        }
    }

    /// Records a finding unless its kind is disabled; applies the configured severity.
    pub fn emit(&mut self, mut f: Finding) {
        if !self.cfg.enabled(f.kind) {
            return;
        }
        f.severity = self.cfg.severity_of(f.kind, f.severity);
        self.findings.push(f);
    }

    /// A server's effective tier: the config's override, else the session header's.
    pub fn tier(&mut self, server: &'s str) -> Tier {
        if let Some(t) = self.tiers.get(server) {
            return *t;
        }
        let t = self
            .cfg
            .tier_override(server)
            .unwrap_or_else(|| self.s.declared_tier(server));
        self.tiers.insert(server, t);
        t
    }

    /// The arguments hash of a recorded call, computed once per distinct arguments text (calls
    /// repeat their arguments; the same text has the same canonical form).
    pub fn args_hash(&mut self, call: &'s Call) -> &Result<String, String> {
        let raw = call.request.params.arguments.as_deref();
        // "" never is the text of a JSON value: it stands for absent arguments.
        self.args_hashes
            .entry(raw.map_or("", |r| r.get()))
            .or_insert_with(|| crate::attest::hash::arguments_hash(raw))
    }

    /// The index of a result's whole citable text (all blocks), cached. A single block is
    /// borrowed; several are joined with newlines.
    pub fn result_index(&mut self, r: &'s ToolResult) -> &TextIndex<'s> {
        self.text_index.entry(r.call_id()).or_insert_with(|| {
            let mut texts = r.texts().map(|(_, t)| t);
            match (texts.next(), texts.next()) {
                (None, _) => TextIndex::default(),
                (Some(t), None) => TextIndex::new(t),
                (Some(a), Some(b)) => {
                    let mut all = format!("{a}\n{b}\n");
                    for t in texts {
                        all.push_str(t);
                        all.push('\n');
                    }
                    TextIndex::from_string(all)
                }
            }
        })
    }
}

/// Runs every check on one session.
pub fn check_session(s: &Session, cfg: &Config) -> SessionReport {
    let mut ck = Checker::new(s, cfg);
    let resolved: Vec<Resolved> = s.claims().map(|c| origin::resolve(&ck, c)).collect();
    for r in &resolved {
        origin::check_claim(&mut ck, r);
    }
    context::check(&mut ck, &resolved);
    drift::check(&mut ck, &resolved);
    parallel::check(&mut ck, &resolved);
    envelopes::check(&mut ck, &resolved);
    let mut findings = std::mem::take(&mut ck.findings);
    findings.sort_by(|a, b| {
        (a.turn.unwrap_or(0), a.line, a.severity, a.kind).cmp(&(
            b.turn.unwrap_or(0),
            b.line,
            b.severity,
            b.kind,
        ))
    });
    let claims = grid::verdicts(s, &resolved, &findings);
    let metrics = metrics::Metrics::of_session(&claims, &findings, &resolved, cfg);
    let tiers = s
        .calls
        .iter()
        .map(|c| (c.server.clone(), ck.tier(c.server.as_str())))
        .collect();
    SessionReport {
        session_id: s.id().to_owned(),
        name: s.name.clone(),
        file: s.source.to_string(),
        findings,
        claims,
        metrics,
        tiers,
    }
}
