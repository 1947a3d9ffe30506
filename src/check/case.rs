//! Judging a regression case against newly recorded sessions (`provscope check`).

use super::{surfaces_conflict, Kind, SessionReport};
use crate::model::case::Case;
use crate::model::Session;
use serde::Serialize;

/// The outcome of one case against one session.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CheckResult {
    /// The case.
    pub case_id: String,
    /// The session checked (empty when no session answered the question).
    pub session: String,
    /// Turn of the matching claim.
    pub turn: Option<u32>,
    /// Passed?
    pub passed: bool,
    /// Why it failed (empty when it passed).
    pub reasons: Vec<String>,
}

impl CheckResult {
    /// `CASE in SESSION turn N` (or just the case when no session answered).
    pub fn label(&self) -> String {
        if self.session.is_empty() {
            self.case_id.clone()
        } else {
            format!(
                "{} in {} turn {}",
                self.case_id,
                self.session,
                self.turn.unwrap_or(0)
            )
        }
    }
}

/// Checks a case against sessions: every statement of the case's claim (by claim id, or in a turn
/// asking the same question) must cite the expected origin, be fresh, and surface the conflict.
pub fn check_case(case: &Case, against: &[(&Session, &SessionReport)]) -> Vec<CheckResult> {
    let norm = |s: &str| super::support::normalize(s);
    let q = norm(&case.question);
    let mut out = Vec::new();
    for (s, r) in against {
        for (i, v) in r.claims.iter().enumerate() {
            let same_question = !q.is_empty() && s.turn(v.turn).is_some_and(|t| norm(&t.user) == q);
            let by_question = same_question
                && v.call_id.as_deref().is_some_and(|id| {
                    s.call(id).is_some_and(|c| {
                        case.competing
                            .iter()
                            .any(|x| x.tool == c.tool() || x.server == c.server)
                    })
                });
            if v.claim_id != case.claim_id && !by_question {
                continue;
            }
            let mut reasons = Vec::new();
            match v
                .call_id
                .as_deref()
                .and_then(|id| s.call(id).map(|c| (id, c)))
            {
                None => reasons.push(format!("claim `{}` has no recorded origin", v.claim_id)),
                Some((id, call)) => {
                    let tier = r.tier(&call.server).tier;
                    match &case.expect.cite_server {
                        Some(want) if *want != call.server => reasons.push(format!(
                            "cites `{id}` on {} ({}), expected {want}",
                            call.server,
                            tier.label()
                        )),
                        None if !tier.satisfies(case.expect.max_tier) => reasons.push(format!(
                            "cites {} ({}), below the required T{}",
                            call.server,
                            tier.label(),
                            case.expect.max_tier
                        )),
                        _ => {}
                    }
                }
            }
            let findings: Vec<_> = r.findings_for(&r.claims[i]).collect();
            if case.expect.fresh && findings.iter().any(|f| f.kind == Kind::Stale) {
                reasons.push("the cited result was stale at answer time".into());
            }
            if case.expect.surface_conflict {
                let answer = s.answer(v.turn).map_or("", |a| a.text.as_str());
                let other_values = case
                    .competing
                    .iter()
                    .filter(|c| !c.cited)
                    .any(|c| !c.value.is_empty() && answer.contains(c.value.as_str()));
                if !(surfaces_conflict(answer) || other_values) {
                    reasons.push("the answer does not tell the user the sources disagree".into());
                }
            }
            out.push(CheckResult {
                case_id: case.case_id.clone(),
                session: s.name.clone(),
                turn: Some(v.turn),
                passed: reasons.is_empty(),
                reasons,
            });
        }
    }
    if out.is_empty() {
        out.push(CheckResult {
            case_id: case.case_id.clone(),
            session: String::new(),
            turn: None,
            passed: false,
            reasons: vec![format!(
                "no session states claim `{}` or asks \"{}\"",
                case.claim_id, case.question
            )],
        });
    }
    out
}
