//! The provenance checks: pure functions from a loaded session to findings, the grid and metrics.
//!
//! Where each finding kind is computed (`grep -rn "Kind::Stale" src/check` finds the site):
//! - `origin.rs`: unsourced, dangling_origin, origin_mismatch, span_invalid, span_unsupported,
//!   stale, below_tier
//! - `context.rs`: ambiguous_support, flattened_context, injection_suspect
//! - `drift.rs`: citation_drift
//! - `parallel.rs`: parallel_conflict
//! - `envelopes.rs`: envelope_missing, envelope_invalid, result_tampered (via `crate::attest`)
//! - `answer.rs`: answer_mismatch, tier_rendering (the answer text against its stamps)
//! - `trust.rs`: untrusted_context, tier_review_overdue, and the defaulted-TTL diagnostic

mod answer;
pub mod case;
mod config;
mod context;
mod drift;
mod envelopes;
pub mod evidence;
mod finding;
pub mod gates;
mod grid;
pub mod incremental;
#[cfg(test)]
mod linear_tests;
mod metrics;
mod origin;
mod parallel;
pub mod progress;
mod receipts;
pub mod sub;
mod trust;
pub use parallel::surfaces_conflict;
pub mod support;
mod verdict;

pub use config::{
    parse_policy, Config, ConfigError, Gate, GateBound, GateSource, SubSessionPolicy, TierRule,
    ValueError, CONFIG_FILE,
};
pub use evidence::Evidence;
pub use finding::{Finding, Kind, Severity, ALL_KINDS};
pub use grid::{FactVerdict, Quadrant, SourceVerdict, QUADRANTS};
pub use verdict::{
    AnswerPassage, CitedSpan, ClaimVerdict, DriftGroup, EffectiveQuadrant, EffectiveTier,
    EnvelopeStatus, Fanout, Freshness, Policy, PolicySource, ServerTiers, SubClaim, SubSessionLink,
    SubStatus, TierSource, TtlSource,
};

/// The four quadrants in the playbook's order.
pub fn grid_quadrants() -> [Quadrant; 4] {
    QUADRANTS
}
pub use metrics::{Metrics, GATE_METRICS, WRONG_ORIGIN_KINDS};

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
    /// The importer that read the file (`docs/importers.md`), `provscope` for a session log.
    pub format: &'static str,
    /// Every finding, in turn order.
    pub findings: Vec<Finding>,
    /// One verdict per claim, in turn order.
    pub claims: Vec<ClaimVerdict>,
    /// Session metrics.
    pub metrics: Metrics,
    /// The effective tier of every server the session called (config over header).
    pub tiers: ServerTiers,
    /// Envelope status of every call that has an envelope or an envelope finding.
    #[serde(skip)]
    pub envelopes: HashMap<String, EnvelopeStatus>,
    /// Claims stated in several turns, as grouped for citation drift.
    #[serde(skip)]
    pub drift_groups: Vec<DriftGroup>,
    /// Calls issued together with a cited call, as grouped for parallel conflicts.
    #[serde(skip)]
    pub fanouts: Vec<Fanout>,
    /// Diagnostics the checks add to the loader's (a defaulted TTL, once per server).
    #[serde(skip)]
    pub diagnostics: Vec<crate::model::Diagnostic>,
    /// Every call's link to a sub-agent's session, as followed.
    #[serde(skip)]
    pub sub_sessions: Vec<SubSessionLink>,
}

impl SessionReport {
    /// The findings of one claim statement.
    pub fn findings_for<'a>(&'a self, v: &'a ClaimVerdict) -> impl Iterator<Item = &'a Finding> {
        v.findings.iter().map(|&i| &self.findings[i])
    }

    /// Each finding's claim statement, by the finding's index: `None` for a session-level
    /// finding. For reports that show a finding with its claim's stamp.
    pub fn finding_claims(&self) -> Vec<Option<&ClaimVerdict>> {
        let mut out = vec![None; self.findings.len()];
        for c in &self.claims {
            for &i in &c.findings {
                if let Some(slot) = out.get_mut(i) {
                    slot.get_or_insert(c);
                }
            }
        }
        out
    }

    /// The most serious severity among findings, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).min()
    }

    /// A server's effective tier (`unknown`, declared nowhere, for a server never called).
    pub fn tier(&self, server: &str) -> EffectiveTier {
        self.tiers.get(server).copied().unwrap_or(EffectiveTier {
            tier: Tier::Unknown,
            from: TierSource::Undeclared,
            review_due: None,
        })
    }

    /// A call's envelope status.
    pub fn envelope(&self, call_id: &str) -> EnvelopeStatus {
        self.envelopes.get(call_id).copied().unwrap_or_default()
    }

    /// The drift group of a claim statement, when it is stated in several turns.
    pub fn drift_group(&self, v: &ClaimVerdict) -> Option<&DriftGroup> {
        v.drift_group
            .and_then(|g| self.drift_groups.get(g as usize))
    }

    /// The fan-out of a claim statement's cited call, when it was issued with others.
    pub fn fanout(&self, v: &ClaimVerdict) -> Option<&Fanout> {
        v.fanout.and_then(|g| self.fanouts.get(g as usize))
    }
}

/// A claim with its origin resolved against the recorded session (computed once, shared by checks).
pub(crate) struct Resolved<'s> {
    pub claim: &'s Claim,
    pub call: Option<&'s Call>,
    pub result: Option<&'s ToolResult>,
    /// The cited span's text, when the span resolves.
    pub span_text: Option<&'s str>,
    /// The claim's key tokens, shared by the claims stated in the same words.
    pub keys: std::rc::Rc<ClaimKeys>,
    /// Support of the claim by its span.
    pub support: Option<Support>,
    /// The resolved span.
    pub cited: Option<CitedSpan>,
    /// Freshness of the cited result at answer time.
    pub freshness: Option<Freshness>,
    /// The render policy that applies.
    pub policy: Policy,
}

/// Shared state of one session's check run.
pub(crate) struct Checker<'s> {
    pub s: &'s Session,
    pub cfg: &'s Config,
    pub findings: Vec<Finding>,
    tiers: HashMap<&'s str, EffectiveTier>,
    text_index: HashMap<&'s str, TextIndex<'s>>,
    args_hashes: HashMap<&'s str, Result<String, crate::attest::hash::HashError>>,
    /// Turns whose turn-local findings are kept from the last check (see [`incremental`]):
    /// the turn-local checks skip them. Empty for a whole check.
    clean: rustc_hash::FxHashSet<u32>,
    /// Turns the turn-local checks looked at (the probe of incremental checking).
    pub checked: std::collections::BTreeSet<u32>,
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
            clean: Default::default(),
            checked: Default::default(),
        }
    }

    /// Whether the turn-local checks look at `turn` (else its findings are kept); records it.
    pub fn in_scope(&mut self, turn: u32) -> bool {
        if self.clean.contains(&turn) {
            return false;
        }
        self.checked.insert(turn);
        true
    }

    /// Records a finding unless its kind is disabled; applies the configured severity.
    pub fn emit(&mut self, mut f: Finding) {
        if !self.cfg.enabled(f.kind) {
            return;
        }
        if incremental::turn_local(f.kind) && f.turn.is_some_and(|t| self.clean.contains(&t)) {
            // Kept from the last check (a turn-local check never reports for a clean turn; this
            // keeps the merge exact if one did).
            return;
        }
        f.severity = self.cfg.severity_of(f.kind, f.severity);
        f.shrink();
        self.findings.push(f);
    }

    /// A server's effective tier: the config's override, else the session header's.
    pub fn tier(&mut self, server: &'s str) -> Tier {
        self.effective_tier(server).tier
    }

    /// A server's effective tier and where it came from.
    pub fn effective_tier(&mut self, server: &'s str) -> EffectiveTier {
        if let Some(t) = self.tiers.get(server) {
            return *t;
        }
        let t = match self.cfg.tier_rule(server) {
            Some(rule) => EffectiveTier {
                tier: rule.tier,
                from: TierSource::Config,
                review_due: rule.review_due(),
            },
            None => match self.s.server(server) {
                Some(info) => EffectiveTier {
                    tier: info.tier,
                    from: TierSource::Header,
                    review_due: None,
                },
                None => EffectiveTier {
                    tier: Tier::Unknown,
                    from: TierSource::Undeclared,
                    review_due: None,
                },
            },
        };
        self.tiers.insert(server, t);
        t
    }

    /// The arguments hash of a recorded call, computed once per distinct arguments text (calls
    /// repeat their arguments; the same text has the same canonical form).
    pub fn args_hash(&mut self, call: &'s Call) -> &Result<String, crate::attest::hash::HashError> {
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

/// Runs every check on one session (sub-agent links are not followed: see
/// [`check_session_with`] and `Pipeline::check`).
pub fn check_session(s: &Session, cfg: &Config) -> SessionReport {
    check_session_with(s, cfg, &[])
}

/// Runs every check on one session, judging claims that cite a sub-agent against the sub-agent
/// sessions the pipeline followed.
pub fn check_session_with(s: &Session, cfg: &Config, subs: &[sub::SubCheck]) -> SessionReport {
    run(s, cfg, subs, None, None).0
}

/// Runs every check on several sessions, each with the sub-agent sessions followed for it, as
/// [`check_session_with`] does one by one (the same reports), but with the envelope signatures
/// of all of them verified in shared batches: small sessions' envelopes verify at the rate of
/// large batches.
pub fn check_sessions(
    sessions: &[(&Session, &[sub::SubCheck])],
    cfg: &Config,
) -> Vec<SessionReport> {
    let decoded: Vec<envelopes::Decoded> =
        sessions.iter().map(|(s, _)| envelopes::decode(s)).collect();
    let mut keys = envelopes::KeyCache::default();
    let mut prepared: Vec<envelopes::Prepared> = sessions
        .iter()
        .zip(&decoded)
        .map(|((s, _), d)| envelopes::prepare(s, cfg, d, &mut keys))
        .collect();
    envelopes::verify_together(&mut prepared);
    sessions
        .iter()
        .zip(prepared)
        .map(|((s, subs), p)| run(s, cfg, subs, None, Some(p)).0)
        .collect()
}

/// The last check's report and the turns whose turn-local findings it keeps.
pub(crate) struct Keep<'p> {
    pub report: &'p SessionReport,
    pub clean: rustc_hash::FxHashSet<u32>,
}

/// Runs the checks; with `keep`, the turn-local checks skip its clean turns and their findings
/// and answer passages are taken from its report; with `envelopes`, the session's envelopes
/// as already prepared (and perhaps verified) with other sessions'. Returns the turns the
/// turn-local checks looked at.
pub(crate) fn run<'s>(
    s: &'s Session,
    cfg: &'s Config,
    subs: &[sub::SubCheck],
    keep: Option<Keep>,
    prepared: Option<envelopes::Prepared<'s>>,
) -> (SessionReport, std::collections::BTreeSet<u32>) {
    let mut ck = Checker::new(s, cfg);
    if let Some(k) = &keep {
        ck.clean = k.clean.clone();
    }
    let claim_count = s.claim_count();
    let mut stages = progress::Stages::new(claim_count);
    // Sized exactly: collected from a flattened iterator, the list would double its way up and
    // hold up to twice what it needs at the checks' peak.
    let mut resolved: Vec<Resolved> = Vec::with_capacity(claim_count);
    // A claim restated in the same words (the same claim across turns) shares its key tokens:
    // they are held for the whole check, and a long session restates its claims many times.
    let mut keys_of: HashMap<&str, std::rc::Rc<ClaimKeys>> = HashMap::default();
    resolved.extend(s.claims().enumerate().map(|(i, c)| {
        stages.claim(i);
        let keys = keys_of
            .entry(c.stamp.claim_text.as_str())
            .or_insert_with(|| std::rc::Rc::new(ClaimKeys::new(&c.stamp.claim_text)))
            .clone();
        origin::resolve(&ck, c, keys)
    }));
    drop(keys_of);
    stages.next();
    for (i, r) in resolved.iter().enumerate() {
        stages.claim(i);
        if ck.in_scope(r.claim.turn) {
            origin::check_claim(&mut ck, r);
        }
    }
    stages.next();
    context::check(&mut ck, &resolved);
    stages.next();
    let mut answers = answer::check(&mut ck, &resolved);
    stages.next();
    trust::check(&mut ck, &resolved);
    stages.next();
    let drift_groups = drift::check(&mut ck, &resolved);
    stages.next();
    // Each claim's fan-out, and the fan-outs without their lists of claims: they are held
    // until the report is built, which is the peak of a large session.
    let mut fanout_of: Vec<Option<u32>> = vec![None; resolved.len()];
    let fanouts: Vec<Fanout> = parallel::check(&mut ck, &resolved)
        .into_iter()
        .enumerate()
        .map(|(g, (claim_indexes, f))| {
            for i in claim_indexes {
                if let Some(slot) = fanout_of.get_mut(i) {
                    *slot = u32::try_from(g).ok();
                }
            }
            f
        })
        .collect();
    // In a block of its length, as the report keeps it (`shrink_to_fit` may leave the block).
    let fanouts = crate::model::exact(fanouts);
    stages.next();
    envelopes::check(&mut ck, &resolved, prepared);
    stages.next();
    let (sub_sessions, sub_claims) = sub::check(&mut ck, &resolved, subs);
    stages.next();
    let mut diagnostics = trust::ttl_diagnostics(&ck, &resolved);
    let mut findings = std::mem::take(&mut ck.findings);
    if let Some(k) = &keep {
        // The kept findings first: the stable sort below puts equal keys in emission order, and
        // a kept finding's kind is turn-local, so it never ties with one emitted now.
        let kept = k.report.findings.iter().filter(|f| {
            incremental::turn_local(f.kind) && f.turn.is_some_and(|t| k.clean.contains(&t))
        });
        findings.splice(0..0, kept.map(|f| incremental::refresh(f.clone(), s)));
        incremental::keep_answers(k, &resolved, &mut answers);
    }
    // The checks are done: what only they needed (each claim's key tokens and words, the
    // results' text indexes) is freed before the report is built, so the peak of a large
    // session is not the two together.
    let no_keys = std::rc::Rc::new(ClaimKeys::default());
    for r in &mut resolved {
        r.keys = no_keys.clone();
    }
    ck.text_index = HashMap::default();
    ck.args_hashes = HashMap::default();
    // After the kept findings are back: the warning counts every `below_tier` finding.
    diagnostics.extend(trust::undeclared_tiers(&ck, &findings));
    // The report keeps the findings for as long as the session is held.
    findings.shrink_to_fit();
    findings.sort_by(|a, b| {
        (a.turn.unwrap_or(0), a.line, a.severity, a.kind).cmp(&(
            b.turn.unwrap_or(0),
            b.line,
            b.severity,
            b.kind,
        ))
    });
    let mut tiers: Vec<(crate::model::Name, EffectiveTier)> = Vec::new();
    let mut called: rustc_hash::FxHashSet<&str> = Default::default();
    for c in &s.calls {
        if called.insert(c.server.as_str()) {
            tiers.push((c.server.clone(), ck.effective_tier(c.server.as_str())));
        }
    }
    let tiers: ServerTiers = tiers.into_iter().collect();
    let mut claims = grid::verdicts(s, &resolved, &findings);
    let sub_claims = sub_claims.into_iter().chain(std::iter::repeat(None));
    for ((v, a), sc) in claims.iter_mut().zip(answers).zip(sub_claims) {
        v.answer = a;
        v.sub_claim = sc;
    }
    for (v, r) in claims.iter_mut().zip(&resolved) {
        if let Some(o) = &r.claim.stamp.origin {
            let server = r.call.map_or(o.server.as_str(), |c| c.server.as_str());
            v.tier = Some(ck.effective_tier(server));
            v.in_context = s.in_context(r.claim.turn, &o.tool_call_id);
        }
    }
    let drift_groups = drift_groups
        .into_iter()
        .enumerate()
        .map(|(g, statements)| {
            for &i in &statements {
                claims[i].drift_group = u32::try_from(g).ok();
            }
            DriftGroup { statements }
        })
        .collect();
    for (v, g) in claims.iter_mut().zip(fanout_of) {
        v.fanout = g;
    }
    let metrics = metrics::Metrics::of_session(&claims, &findings, &resolved, cfg);
    let envelopes = envelope_statuses(s, &findings);
    let report = SessionReport {
        session_id: s.id().to_owned(),
        name: s.name.clone(),
        file: s.source.to_string(),
        format: s.format(),
        findings,
        claims,
        metrics,
        tiers,
        envelopes,
        drift_groups,
        fanouts,
        diagnostics,
        sub_sessions,
    };
    stages.next();
    (report, ck.checked)
}

/// The envelope status of every call that has an envelope or an envelope finding.
fn envelope_statuses(s: &Session, findings: &[Finding]) -> HashMap<String, EnvelopeStatus> {
    let mut by_call: HashMap<&str, Vec<&Finding>> = HashMap::default();
    for f in findings.iter().filter(|f| {
        matches!(
            f.kind,
            Kind::EnvelopeMissing
                | Kind::EnvelopeInvalid
                | Kind::ResultTampered
                | Kind::EnvelopePartial
        )
    }) {
        for c in &f.call_ids {
            by_call.entry(c.as_str()).or_default().push(f);
        }
    }
    by_call.reserve(s.envelopes.len());
    for e in &s.envelopes {
        by_call.entry(e.call_id.as_str()).or_default();
    }
    let mut out: HashMap<String, EnvelopeStatus> = HashMap::default();
    out.reserve(by_call.len());
    for (call, fs) in by_call {
        let has = s.envelopes_for(call).next().is_some();
        out.insert(call.to_owned(), EnvelopeStatus::of(&fs, has));
    }
    out
}
