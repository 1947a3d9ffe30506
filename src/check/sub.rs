//! Sub-agent provenance (`sub_agent_source`): a claim citing a call that ran another agent is
//! only as good as that agent's own stamp for it. The pipeline follows each call's link to the
//! sub-agent's session log (bounded depth, cycles detected, never outside the referring log's
//! directory without consent: `pipeline.rs`) and checks it; this module judges the citing
//! claims against the sub-session's verdicts. The rules are in `docs/checks.md`.

use super::evidence::{self as ev, Evidence};
use super::finding::{Finding, Severity};
use super::grid::SourceVerdict;
use super::support::{ClaimKeys, TextIndex};
use super::verdict::{SubClaim, SubSessionLink, SubStatus};
use super::{Checker, Resolved, SessionReport};
use crate::model::{Session, SubSession};
use serde::Serialize;

/// Why a sub-agent's session could not be followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubProblem {
    /// The link names no log file.
    NoPath,
    /// The log does not exist.
    NotFound,
    /// The log cannot be used (unreadable, not a session log, nothing valid in it).
    Unreadable,
    /// The path leads outside the referring log's directory (absolute, `..`, a symlink) and
    /// following it was not allowed (`--follow-outside`, `[sub_sessions] allow_outside`).
    Outside,
    /// The log is already being checked higher up the chain of sub-agents.
    Cycle,
    /// Following it would exceed `max_depth`.
    TooDeep,
    /// The log holds no session with the linked id.
    IdMismatch,
}

impl SubProblem {
    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            SubProblem::NoPath => "the link names no log file",
            SubProblem::NotFound => "its log does not exist",
            SubProblem::Unreadable => "its log cannot be read as a session",
            SubProblem::Outside => {
                "its log is outside the referring log's directory, and following it was not allowed"
            }
            SubProblem::Cycle => "its log refers back to a session already being checked (a cycle)",
            SubProblem::TooDeep => "following it would exceed the maximum sub-agent depth",
            SubProblem::IdMismatch => "its log holds no session with the linked id",
        }
    }
}

/// What following one link gave.
pub enum SubOutcome {
    /// The sub-agent's session, checked.
    Checked {
        /// The log, as followed.
        path: String,
        /// How deep (1: a sub-agent of the session given).
        depth: u32,
        /// The session.
        session: Box<Session>,
        /// Its report.
        report: Box<SessionReport>,
    },
    /// It could not be followed.
    Unresolved {
        /// Why.
        problem: SubProblem,
        /// Details (the path, the reason a file could not be read).
        detail: String,
    },
}

/// One call's link, followed.
pub struct SubCheck {
    /// The call that ran the sub-agent.
    pub call_id: String,
    /// The link as recorded.
    pub link: SubSession,
    /// What following it gave.
    pub outcome: SubOutcome,
}

/// The statements of the sub-session that make the claim: by position when the cited block is
/// the sub-agent's last answer (the span overlaps the passage stating the sub-claim), else by
/// the claim's values and words (the last answer's claims first).
fn matching<'a>(
    r: &Resolved,
    sub: &Session,
    report: &'a SessionReport,
    thr: f64,
) -> Vec<&'a super::ClaimVerdict> {
    let last = sub.answers.last();
    if let (Some(cs), Some(res), Some(a)) = (&r.cited, r.result, last) {
        if res.block_text(cs.block) == Some(a.text.as_str()) {
            let hit: Vec<&super::ClaimVerdict> = report
                .claims
                .iter()
                .filter(|v| v.turn == a.turn)
                .filter(|v| {
                    v.answer
                        .as_ref()
                        .and_then(|p| p.range.clone())
                        .is_some_and(|pr| pr.start < cs.range.end && cs.range.start < pr.end)
                })
                .collect();
            if !hit.is_empty() {
                return hit;
            }
        }
    }
    let span = r.span_text.map(TextIndex::new);
    let states = |v: &super::ClaimVerdict| {
        r.keys.score(&TextIndex::new(&v.claim_text)).supported(thr)
            || span
                .as_ref()
                .is_some_and(|t| ClaimKeys::new(&v.claim_text).score(t).supported(thr))
    };
    let last_turn = last.map(|a| a.turn);
    let in_last: Vec<&super::ClaimVerdict> = report
        .claims
        .iter()
        .filter(|v| Some(v.turn) == last_turn && states(v))
        .collect();
    if !in_last.is_empty() {
        return in_last;
    }
    report.claims.iter().filter(|v| states(v)).collect()
}

/// Judges every claim citing a followed call; returns the links for the report and, per
/// statement, the sub-agent's stamp it rests on (empty when no sub-agent session was followed).
pub(crate) fn check<'s>(
    ck: &mut Checker<'s>,
    resolved: &[Resolved<'s>],
    subs: &[SubCheck],
) -> (Vec<SubSessionLink>, Vec<Option<Box<SubClaim>>>) {
    let mut per_claim: Vec<Option<Box<SubClaim>>> = Vec::new();
    let links = subs
        .iter()
        .map(|sc| SubSessionLink {
            call_id: sc.call_id.clone(),
            id: sc.link.id.clone(),
            status: match &sc.outcome {
                SubOutcome::Checked {
                    path,
                    depth,
                    report,
                    ..
                } => SubStatus::Checked {
                    path: path.clone(),
                    depth: *depth,
                    claims: report.claims.len(),
                    findings: report.findings.len(),
                    worst: report.worst(),
                },
                SubOutcome::Unresolved { problem, detail } => SubStatus::Unresolved {
                    problem: *problem,
                    detail: detail.clone(),
                },
            },
        })
        .collect();
    if subs.is_empty() {
        return (links, per_claim);
    }
    per_claim.resize(resolved.len(), None);
    let thr = ck.cfg.support_threshold;
    // call id -> its first link, indexed once (a long session links many sub-agents).
    let mut sub_of: rustc_hash::FxHashMap<&str, &SubCheck> = Default::default();
    for sc in subs {
        sub_of.entry(sc.call_id.as_str()).or_insert(sc);
    }
    for (n, r) in resolved.iter().enumerate() {
        let Some(o) = &r.claim.stamp.origin else {
            continue;
        };
        crate::probe::steps(1);
        let Some(&sc) = sub_of.get(o.tool_call_id.as_str()) else {
            continue;
        };
        if r.result.is_none() {
            continue; // dangling_origin: nothing the sub-agent answered is cited
        }
        let base = |reason: ev::SubReason| ev::SubAgentSource {
            reason,
            sub_session_id: sc.link.id.clone(),
            path: None,
            depth: None,
            problem: None,
            detail: None,
            sub_claims: Vec::new(),
        };
        let (sev, e, msg) = match &sc.outcome {
            SubOutcome::Unresolved { problem, detail } => (
                Severity::Warning,
                ev::SubAgentSource {
                    problem: Some(*problem),
                    detail: Some(detail.clone()),
                    ..base(ev::SubReason::Unresolved)
                },
                format!(
                    "cites `{}`, the answer of sub-agent session `{}`, which could not be checked: {} ({detail})",
                    o.tool_call_id,
                    sc.link.id,
                    problem.describe()
                ),
            ),
            SubOutcome::Checked {
                path,
                depth,
                session,
                report,
            } => {
                let found = matching(r, session, report, thr);
                let refs: Vec<ev::SubClaimRef> = found
                    .iter()
                    .map(|v| ev::SubClaimRef {
                        claim_id: v.claim_id.to_string(),
                        turn: v.turn,
                        source_verdict: v.source_verdict,
                        findings: report
                            .findings_for(v)
                            .filter(|f| f.severity == Severity::Error)
                            .map(|f| format!("{}: {}", f.kind, f.message))
                            .collect(),
                    })
                    .collect();
                if let Some(first) = found.first() {
                    per_claim[n] = Some(Box::new(SubClaim {
                        session_id: report.session_id.clone(),
                        claim_id: first.claim_id.to_string(),
                        turn: first.turn,
                        source_verdict: if found
                            .iter()
                            .all(|v| v.source_verdict == SourceVerdict::Right)
                        {
                            SourceVerdict::Right
                        } else {
                            SourceVerdict::Wrong
                        },
                    }));
                }
                let wrong: Vec<&&super::ClaimVerdict> = found
                    .iter()
                    .filter(|v| v.source_verdict == SourceVerdict::Wrong)
                    .collect();
                let with = |reason| ev::SubAgentSource {
                    path: Some(path.clone()),
                    depth: Some(*depth),
                    sub_claims: refs.clone(),
                    ..base(reason)
                };
                if found.is_empty() {
                    (
                        Severity::Error,
                        with(ev::SubReason::Unstamped),
                        format!(
                            "cites `{}`, the answer of sub-agent session `{}`, where no stamp of the sub-agent states this claim: it is only as good as a stamp that does not exist",
                            o.tool_call_id, sc.link.id
                        ),
                    )
                } else if let Some(w) = wrong.first() {
                    let kinds: Vec<String> = report
                        .findings_for(w)
                        .filter(|f| f.severity == Severity::Error)
                        .map(|f| f.kind.to_string())
                        .collect();
                    (
                        Severity::Error,
                        with(ev::SubReason::WrongStamp),
                        format!(
                            "rests on the sub-agent's stamp `{}` (turn {} of session `{}`), whose source is wrong ({})",
                            w.claim_id,
                            w.turn,
                            sc.link.id,
                            if kinds.is_empty() {
                                "unsourced".to_owned()
                            } else {
                                kinds.join(", ")
                            }
                        ),
                    )
                } else {
                    continue;
                }
            }
        };
        ck.emit(
            Finding::new(Evidence::SubAgentSource(Box::new(e)), sev, msg)
                .claim(r.claim)
                .call(&o.tool_call_id),
        );
    }
    (links, per_claim)
}
