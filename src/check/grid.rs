//! The fact-versus-source grid: per claim, a source verdict from the findings, a fact verdict
//! from labels, and when both are known the quadrant with the playbook's verdict, owner and action.

use super::finding::{Finding, Severity};
use super::verdict::ClaimVerdict;
use super::Resolved;
use crate::model::{Fact, Session};
use serde::{Deserialize, Serialize};

/// The source axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceVerdict {
    /// Stamped, and no error-severity finding.
    Right,
    /// An error-severity finding, or no origin at all (an unsourced claim has no right source).
    Wrong,
}

impl SourceVerdict {
    /// `right` or `wrong`.
    pub fn name(self) -> &'static str {
        match self {
            SourceVerdict::Right => "right",
            SourceVerdict::Wrong => "wrong",
        }
    }
}

/// The fact axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FactVerdict {
    /// Labelled right.
    Right,
    /// Labelled wrong.
    Wrong,
    /// No label.
    Unknown,
}

impl FactVerdict {
    /// `right`, `wrong` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            FactVerdict::Right => "right",
            FactVerdict::Wrong => "wrong",
            FactVerdict::Unknown => "unknown",
        }
    }
}

/// A cell of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quadrant {
    /// Ship it.
    FactRightSourceRight,
    /// Hidden failure, the riskiest cell.
    FactRightSourceWrong,
    /// Good tool, bad read.
    FactWrongSourceRight,
    /// Garbage in.
    FactWrongSourceWrong,
}

/// Every quadrant in the playbook's order.
pub const QUADRANTS: [Quadrant; 4] = [
    Quadrant::FactRightSourceRight,
    Quadrant::FactRightSourceWrong,
    Quadrant::FactWrongSourceRight,
    Quadrant::FactWrongSourceWrong,
];

impl Quadrant {
    /// From the two axes.
    pub fn of(fact: FactVerdict, source: SourceVerdict) -> Option<Quadrant> {
        Some(match (fact, source) {
            (FactVerdict::Right, SourceVerdict::Right) => Quadrant::FactRightSourceRight,
            (FactVerdict::Right, SourceVerdict::Wrong) => Quadrant::FactRightSourceWrong,
            (FactVerdict::Wrong, SourceVerdict::Right) => Quadrant::FactWrongSourceRight,
            (FactVerdict::Wrong, SourceVerdict::Wrong) => Quadrant::FactWrongSourceWrong,
            (FactVerdict::Unknown, _) => return None,
        })
    }

    /// Stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Quadrant::FactRightSourceRight => "fact_right_source_right",
            Quadrant::FactRightSourceWrong => "fact_right_source_wrong",
            Quadrant::FactWrongSourceRight => "fact_wrong_source_right",
            Quadrant::FactWrongSourceWrong => "fact_wrong_source_wrong",
        }
    }

    /// Parses a stable name (or a short form: `rr`, `rw`, `wr`, `ww`).
    pub fn parse(s: &str) -> Option<Quadrant> {
        QUADRANTS
            .iter()
            .copied()
            .find(|q| q.name() == s)
            .or(match s {
                "rr" => Some(Quadrant::FactRightSourceRight),
                "rw" => Some(Quadrant::FactRightSourceWrong),
                "wr" => Some(Quadrant::FactWrongSourceRight),
                "ww" => Some(Quadrant::FactWrongSourceWrong),
                _ => None,
            })
    }

    /// Human title, as in the playbook's table.
    pub fn title(self) -> &'static str {
        match self {
            Quadrant::FactRightSourceRight => "Fact right, source right",
            Quadrant::FactRightSourceWrong => "Fact right, source wrong",
            Quadrant::FactWrongSourceRight => "Fact wrong, source right",
            Quadrant::FactWrongSourceWrong => "Fact wrong, source wrong",
        }
    }

    /// The playbook's verdict.
    pub fn verdict(self) -> &'static str {
        match self {
            Quadrant::FactRightSourceRight => "Ship it",
            Quadrant::FactRightSourceWrong => "Hidden failure, the riskiest cell in the grid",
            Quadrant::FactWrongSourceRight => "Good tool, bad read",
            Quadrant::FactWrongSourceWrong => "Garbage in",
        }
    }

    /// Who owns it.
    pub fn owner(self) -> &'static str {
        match self {
            Quadrant::FactRightSourceRight => "Approver",
            Quadrant::FactRightSourceWrong => "Agent platform team",
            Quadrant::FactWrongSourceRight => "Model or product owner",
            Quadrant::FactWrongSourceWrong => "Whoever granted server access",
        }
    }

    /// What to do next.
    pub fn next_action(self) -> &'static str {
        match self {
            Quadrant::FactRightSourceRight => "Log the pair as a regression baseline",
            Quadrant::FactRightSourceWrong => {
                "Re-bind or regenerate the claim; add a wrong-source test to CI"
            }
            Quadrant::FactWrongSourceRight => "Fix extraction and prompting; keep the source",
            Quadrant::FactWrongSourceWrong => "Quarantine the server; demote its tier",
        }
    }
}

pub(crate) fn verdicts(
    s: &Session,
    resolved: &[Resolved],
    findings: &[Finding],
) -> Vec<ClaimVerdict> {
    // The findings of each claim statement, as ranges of one list of finding indexes sorted by
    // (turn, claim id): a map of lists, one per statement, was the peak of a long session's
    // check (it is built while the report's verdicts are). Equal keys stay in finding order.
    let mut order: Vec<usize> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.turn.is_some() && f.claim_id.is_some())
        .map(|(i, _)| i)
        .collect();
    let key = |i: usize| {
        let f = &findings[i];
        (f.turn.unwrap_or(0), f.claim_id.as_deref().unwrap_or(""))
    };
    order.sort_by(|&a, &b| key(a).cmp(&key(b)));
    // A statement's range is taken once: a claim id stated twice in one turn gets its findings
    // on the first statement only.
    let mut taken = vec![false; order.len()];
    resolved
        .iter()
        .map(|r| {
            let c = r.claim;
            let k = (c.turn, c.id());
            let start = order.partition_point(|&i| key(i) < k);
            let end = start + order[start..].partition_point(|&i| key(i) == k);
            let mine: Vec<usize> = if start < end && !taken[start] {
                taken[start] = true;
                order[start..end].to_vec()
            } else {
                Vec::new()
            };
            let error = mine
                .iter()
                .any(|&i| findings[i].severity == Severity::Error);
            let source = if error || c.stamp.origin.is_none() {
                SourceVerdict::Wrong
            } else {
                SourceVerdict::Right
            };
            let label = s.label_for(c.id(), c.turn);
            let fact = match label.map(|l| l.fact) {
                Some(Fact::Right) => FactVerdict::Right,
                Some(Fact::Wrong) => FactVerdict::Wrong,
                None => FactVerdict::Unknown,
            };
            ClaimVerdict {
                claim_id: c.stamp.claim_id.clone(),
                turn: c.turn,
                claim_text: c.stamp.claim_text.clone(),
                call_id: c.stamp.origin.as_ref().map(|o| o.tool_call_id.clone()),
                provenance: c.stamp.provenance(),
                source_verdict: source,
                fact_verdict: fact,
                fact_source: label.and_then(|l| l.source.clone()),
                quadrant: Quadrant::of(fact, source),
                support: r
                    .support
                    .as_ref()
                    .map(|s| (s.score * 100.0).round() / 100.0),
                findings: mine,
                line: c.line,
                json_path: c.json_path.clone(),
                position: c.position,
                cited: r.cited.clone(),
                freshness: r.freshness.clone(),
                tier: None,
                policy: r.policy.clone(),
                in_context: None,
                drift_group: None,
                fanout: None,
                answer: None,
                sub_claim: None,
            }
        })
        .collect()
}
