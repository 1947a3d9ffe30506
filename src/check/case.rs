//! Conflicting-source cases: which recorded results compete for a claim and what a passing answer
//! must do, decided once in [`plan`] (`export::case` only renders the plan), and judging a case
//! against newly recorded sessions ([`check_case`], `provscope check`). The semantics are
//! documented in `docs/cases.md`.

pub mod question;

use super::{surfaces_conflict, ClaimVerdict, Kind, SessionReport};
use crate::model::case::{Because, Case, Expectation, Rule, RuleKind, Stated};
use crate::model::{Session, Tier};
use question::Source;
use serde::Serialize;

/// How a statement was matched to a case.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MatchedBy {
    /// The same claim id.
    ClaimId,
    /// Another claim id, in a turn asking the case's question, stating the case's quantity.
    Question,
    /// Nothing answered the case.
    Nothing,
}

/// The outcome of one case against one claim statement: one per (case, session, turn, claim).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CheckResult {
    /// The case.
    pub case_id: String,
    /// The case file.
    pub case_file: String,
    /// The claim checked (empty when no session answered the case).
    pub claim_id: String,
    /// The session checked (its name; empty when no session answered the case).
    pub session: String,
    /// The session's log file.
    pub session_file: String,
    /// Turn of the matching claim.
    pub turn: Option<u32>,
    /// How the claim was matched to the case.
    pub matched_by: MatchedBy,
    /// The server the claim cites, when it has a recorded origin.
    pub cited_server: Option<String>,
    /// Passed?
    pub passed: bool,
    /// Why it failed (empty when it passed).
    pub reasons: Vec<String>,
}

impl CheckResult {
    /// `CASE: CLAIM in FILE turn N` (or just the case when no session answered).
    pub fn label(&self) -> String {
        if self.session.is_empty() {
            self.case_id.clone()
        } else {
            format!(
                "{}: {} in {} turn {}",
                self.case_id,
                self.claim_id,
                self.session_file,
                self.turn.unwrap_or(0)
            )
        }
    }
}

/// What a case for one claim statement expects, decided here once: the recorded results that
/// compete for the claim (cited first), what a passing answer must do, and the value the claim
/// states. `export::case` renders it as a case file.
#[derive(Clone, Debug)]
pub struct Plan<'s> {
    /// The competing sources, cited first.
    pub sources: Vec<Source<'s>>,
    /// What a passing answer must do, with the rule behind each expectation.
    pub expect: Expectation,
    /// The value the claim states, when it could be read.
    pub claim_value: Option<Stated>,
}

/// The plan of a case for the claim statement `v` of session `s`: a sourced claim is judged
/// against the results competing for it; an unsourced one (recorded by `correct`) has nothing
/// to compete, so it must cite a source its render policy allows.
pub fn plan<'s>(s: &'s Session, r: &SessionReport, v: &ClaimVerdict) -> Plan<'s> {
    let sources = question::competing(s, r, v);
    let expect = if v.call_id.is_some() {
        expectations(r, v, &sources)
    } else {
        unsourced_expectations(v)
    };
    let keys = super::support::ClaimKeys::new(&v.claim_text);
    let claim_value = question::quantity(&keys, &v.claim_text, v.cited_text(s))
        .map(|q| question::claim_value(&q));
    Plan {
        sources,
        expect,
        claim_value,
    }
}

fn list(values: &[(String, String)]) -> String {
    values
        .iter()
        .map(|(v, who)| format!("{v} ({who})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The expectations of a case for the claim statement `v` with its competing `sources` (cited
/// first), and the rule behind each.
fn expectations(r: &SessionReport, v: &ClaimVerdict, sources: &[Source]) -> Expectation {
    let max_tier = v.policy.required.unwrap_or(1);
    let tier = |server: &str| r.tier(server).tier;
    let max_rule = Rule::new(
        RuleKind::RenderPolicy,
        if v.policy.text.is_empty() {
            format!("no render policy recorded: require_tier_gte_{max_tier} applies")
        } else {
            format!("the claim's render policy {}", v.policy.text)
        },
    );
    // The most trusted competing servers that meet the render policy.
    let mut servers: Vec<(&str, Tier)> = Vec::new();
    for s in sources {
        if !servers.iter().any(|(n, _)| *n == s.call.server) {
            servers.push((s.call.server.as_str(), tier(&s.call.server)));
        }
    }
    let qualifying: Vec<(&str, Tier)> = servers
        .iter()
        .copied()
        .filter(|(_, t)| t.satisfies(max_tier))
        .collect();
    let best_rank = qualifying.iter().map(|(_, t)| t.rank()).min();
    let best: Vec<(&str, Tier)> = qualifying
        .iter()
        .copied()
        .filter(|(_, t)| Some(t.rank()) == best_rank)
        .collect();
    let shown = |xs: &[(&str, Tier)]| {
        xs.iter()
            .map(|(n, t)| format!("{n} ({})", t.label()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let others: Vec<(&str, Tier)> = servers
        .iter()
        .copied()
        .filter(|x| !best.contains(x))
        .collect();
    let cite = match best.as_slice() {
        [] if servers.is_empty() => Rule::new(
            RuleKind::NoneQualifies,
            format!(
                "no recorded result answers the claim (its origin `{}` was never recorded): it must cite a server of T{max_tier} or better",
                v.call_id.as_deref().unwrap_or("")
            ),
        ),
        [] => Rule::new(
            RuleKind::NoneQualifies,
            format!(
                "no competing source meets require_tier_gte_{max_tier} ({}): the claim must cite a server of T{max_tier} or better",
                shown(&servers)
            ),
        ),
        [one] => Rule::new(
            RuleKind::MostTrusted,
            if others.is_empty() {
                format!("{} is the only source", shown(&[*one]))
            } else {
                format!(
                    "{} is the most trusted of the competing sources (also: {})",
                    shown(&[*one]),
                    shown(&others)
                )
            },
        ),
        many => Rule::new(
            RuleKind::Tie,
            format!(
                "{} tie as the most trusted sources: any of them may be cited, and a disagreement between them must be surfaced",
                shown(many)
            ),
        ),
    };
    // Values: which sources disagree.
    let values: Vec<(&Stated, &str)> = sources
        .iter()
        .filter_map(|s| s.stated.as_ref().map(|st| (st, s.call.server.as_str())))
        .collect();
    let mut distinct: Vec<(String, String)> = Vec::new();
    for (st, who) in &values {
        match distinct.iter_mut().find(|(t, _)| *t == st.text) {
            Some((_, w)) => {
                if !w.split(", ").any(|x| x == *who) {
                    w.push_str(", ");
                    w.push_str(who);
                }
            }
            None => distinct.push((st.text.clone(), (*who).to_owned())),
        }
    }
    let disagree = values
        .iter()
        .any(|(a, _)| values.iter().any(|(b, _)| !a.same_as(b) && !b.same_as(a)));
    let unread: Vec<&str> = sources
        .iter()
        .filter(|s| s.stated.is_none())
        .map(|s| s.call.id.as_str())
        .collect();
    let surface = if sources.len() <= 1 {
        Rule::new(RuleKind::SingleSource, "one source: nothing to surface")
    } else if disagree {
        Rule::new(
            RuleKind::SourcesDisagree,
            format!(
                "the sources disagree: {}; the answer must state the competing values or name the disagreement next to the claim",
                list(&distinct)
            ),
        )
    } else {
        let mut d = format!(
            "the {} sources agree{}",
            sources.len(),
            if distinct.is_empty() {
                String::new()
            } else {
                format!(": {}", list(&distinct))
            }
        );
        if !unread.is_empty() {
            d.push_str(&format!(
                " (no value could be read from {})",
                unread.join(", ")
            ));
        }
        Rule::new(RuleKind::SourcesAgree, d)
    };
    let value_rule = if distinct.is_empty() {
        Rule::new(
            RuleKind::NoValues,
            "no value for the claim's quantity could be read from the sources: not checked",
        )
    } else {
        Rule::new(
            RuleKind::SourcesValues,
            format!(
                "the claim must state one of the sources' values: {}",
                list(&distinct)
            ),
        )
    };
    let fresh = match v.freshness.as_ref().filter(|f| f.stale) {
        Some(f) => format!(
            "the cited result was past its {} s TTL at answer time: a passing answer cites a fresh result",
            f.ttl_seconds
        ),
        None => "a passing answer cites a result within its TTL at answer time".to_owned(),
    };
    Expectation {
        cite_server: match best.as_slice() {
            [one] => Some(one.0.to_owned()),
            _ => None,
        },
        cite_any_of: best.iter().map(|(n, _)| (*n).to_owned()).collect(),
        max_tier,
        fresh: true,
        surface_conflict: surface.rule == RuleKind::SourcesDisagree,
        value_from_sources: value_rule.rule == RuleKind::SourcesValues,
        because: Because {
            cite,
            max_tier: max_rule,
            fresh: Rule::new(RuleKind::Ttl, fresh),
            surface_conflict: surface,
            value_from_sources: value_rule,
        },
    }
}

/// The expectations of a case for an unsourced claim (recorded by `correct`): there is no
/// result to compete, so the claim must cite a source the render policy allows.
fn unsourced_expectations(v: &ClaimVerdict) -> Expectation {
    let max_tier = v.policy.required.unwrap_or(1);
    Expectation {
        cite_server: None,
        cite_any_of: Vec::new(),
        max_tier,
        fresh: true,
        surface_conflict: false,
        value_from_sources: false,
        because: Because {
            cite: Rule::new(
                RuleKind::NoneQualifies,
                format!("the claim was unsourced: it must cite a server of T{max_tier} or better"),
            ),
            max_tier: Rule::new(
                RuleKind::RenderPolicy,
                format!("the claim's render policy {}", v.policy.text),
            ),
            fresh: Rule::new(
                RuleKind::Ttl,
                "a passing answer cites a result within its TTL at answer time",
            ),
            surface_conflict: Rule::new(RuleKind::SingleSource, "no recorded source"),
            value_from_sources: Rule::new(RuleKind::NoValues, "no recorded source"),
        },
    }
}

/// The values the case's sources state, distinct, each with the servers that state it.
fn source_values(case: &Case) -> Vec<(Stated, String)> {
    let mut out: Vec<(Stated, String)> = Vec::new();
    for c in &case.competing {
        let Some(st) = &c.stated else { continue };
        match out.iter_mut().find(|(v, _)| v.same_as(st) && st.same_as(v)) {
            Some((_, w)) => {
                if !w.split(", ").any(|x| x == c.server) {
                    w.push_str(", ");
                    w.push_str(&c.server);
                }
            }
            None => out.push((st.clone(), c.server.clone())),
        }
    }
    out
}

/// The value a case is about (the original claim's, else the first source's).
fn case_quantity(case: &Case) -> Option<&Stated> {
    case.claim_value
        .as_ref()
        .or_else(|| case.competing.iter().find_map(|c| c.stated.as_ref()))
}

/// Why one statement fails the case (empty: it passes).
fn judge(case: &Case, s: &Session, r: &SessionReport, v: &ClaimVerdict) -> Vec<String> {
    let e = &case.expect;
    let mut reasons = Vec::new();
    match v
        .call_id
        .as_deref()
        .and_then(|id| s.call(id).map(|c| (id, c)))
    {
        None => reasons.push(format!("claim `{}` has no recorded origin", v.claim_id)),
        Some((id, call)) => {
            let tier = r.tier(&call.server).tier;
            if !e.cite_any_of.is_empty() && !e.cite_any_of.iter().any(|x| *x == call.server) {
                let want = match e.cite_any_of.as_slice() {
                    [one] => format!("expected {one} ({})", e.because.cite.detail),
                    many => format!(
                        "expected one of {} ({})",
                        many.join(", "),
                        e.because.cite.detail
                    ),
                };
                reasons.push(format!(
                    "cites `{id}` on {} ({}), {want}",
                    call.server,
                    tier.label()
                ));
            } else if !tier.satisfies(e.max_tier) {
                reasons.push(format!(
                    "cites {} ({}), below the required T{} ({})",
                    call.server,
                    tier.label(),
                    e.max_tier,
                    e.because.max_tier.detail
                ));
            }
        }
    }
    if e.fresh && r.findings_for(v).any(|f| f.kind == Kind::Stale) {
        reasons.push("the cited result was stale at answer time".into());
    }
    let values = source_values(case);
    if e.value_from_sources && !values.is_empty() {
        let like = case_quantity(case).unwrap_or(&values[0].0);
        if let Some(said) = question::stated_like(&v.claim_text, like) {
            if !values
                .iter()
                .any(|(x, _)| said.same_as(x) || x.same_as(&said))
            {
                let shown: Vec<(String, String)> = values
                    .iter()
                    .map(|(x, w)| (x.text.clone(), w.clone()))
                    .collect();
                let nums: Vec<f64> = values.iter().filter_map(|(x, _)| x.number).collect();
                let how = match said.number {
                    Some(n)
                        if nums
                            .iter()
                            .any(|&x| x != 0.0 && ((n - x) / x).abs() <= 0.05) =>
                    {
                        "rounding a source's value into a new one"
                    }
                    Some(n)
                        if nums.len() > 1
                            && nums.iter().any(|&x| x < n)
                            && nums.iter().any(|&x| x > n) =>
                    {
                        "a value between them: averaging"
                    }
                    Some(_) => "a value no source gave",
                    None => "a status no source gave",
                };
                reasons.push(format!(
                    "states {}, which is none of the sources' values ({}): {how}",
                    said.text,
                    list(&shown)
                ));
            }
        }
    }
    if e.surface_conflict {
        let answer = s.answer(v.turn).map_or("", |a| a.text.as_str());
        let near = question::window(answer, &v.claim_text);
        let all_stated = values.len() > 1 && values.iter().all(|(x, _)| question::states(near, x));
        if !(surfaces_conflict(near) || all_stated) {
            let shown: Vec<(String, String)> = values
                .iter()
                .map(|(x, w)| (x.text.clone(), w.clone()))
                .collect();
            reasons.push(if shown.is_empty() {
                "the answer does not tell the user the sources disagree (next to the claim)".into()
            } else {
                format!(
                    "the answer does not tell the user the sources disagree: next to the claim it neither names the disagreement nor states the competing values {}",
                    list(&shown)
                )
            });
        }
    }
    reasons
}

/// True when statement `v` answers the case's question under another claim id: its turn asks
/// the case's question (normalized), it states a value of the case's quantity, and it shares at
/// least half of the case claim's content words.
fn answers_question(case: &Case, q: &str, s: &Session, v: &ClaimVerdict) -> (bool, f64) {
    if q.is_empty()
        || s.turn(v.turn)
            .is_none_or(|t| super::support::normalize(&t.user) != q)
    {
        return (false, 0.0);
    }
    let keys = super::support::ClaimKeys::new(&case.claim_text);
    let score = keys.word_score(&super::support::TextIndex::new(&v.claim_text));
    let states = match case_quantity(case) {
        Some(like) => question::stated_like(&v.claim_text, like).is_some(),
        None => true,
    };
    (states && score >= question::RELATED, score)
}

/// Checks a case against sessions. Every statement of the case's claim id is judged; in a turn
/// with no statement of that id that asks the case's question, the statement that best answers
/// it is judged. One result per (case, session, turn, claim).
pub fn check_case(
    case: &Case,
    case_file: &str,
    against: &[(&Session, &SessionReport)],
) -> Vec<CheckResult> {
    let q = super::support::normalize(&case.question);
    let mut out = Vec::new();
    for (s, r) in against {
        let mut picked: Vec<(usize, MatchedBy)> = Vec::new();
        let mut by_turn: std::collections::BTreeMap<u32, (usize, f64)> = Default::default();
        for (i, v) in r.claims.iter().enumerate() {
            if v.claim_id == case.claim_id {
                if !picked.iter().any(|(j, _)| {
                    r.claims[*j].turn == v.turn && r.claims[*j].claim_id == v.claim_id
                }) {
                    picked.push((i, MatchedBy::ClaimId));
                }
                continue;
            }
            let (ok, score) = answers_question(case, &q, s, v);
            if ok && by_turn.get(&v.turn).is_none_or(|(_, b)| score > *b) {
                by_turn.insert(v.turn, (i, score));
            }
        }
        for (turn, (i, _)) in by_turn {
            if !picked.iter().any(|(j, _)| r.claims[*j].turn == turn) {
                picked.push((i, MatchedBy::Question));
            }
        }
        picked.sort_by_key(|(i, _)| *i);
        for (i, how) in picked {
            let v = &r.claims[i];
            let reasons = judge(case, s, r, v);
            out.push(CheckResult {
                case_id: case.case_id.clone(),
                case_file: case_file.to_owned(),
                claim_id: v.claim_id.to_string(),
                session: s.name.clone(),
                session_file: s.source.to_string(),
                turn: Some(v.turn),
                matched_by: how,
                cited_server: v
                    .call_id
                    .as_deref()
                    .and_then(|id| s.call(id))
                    .map(|c| c.server.to_string()),
                passed: reasons.is_empty(),
                reasons,
            });
        }
    }
    if out.is_empty() {
        out.push(CheckResult {
            case_id: case.case_id.clone(),
            case_file: case_file.to_owned(),
            claim_id: String::new(),
            session: String::new(),
            session_file: String::new(),
            turn: None,
            matched_by: MatchedBy::Nothing,
            cited_server: None,
            passed: false,
            reasons: vec![format!(
                "no session states claim `{}` or answers \"{}\" with its quantity",
                case.claim_id, case.question
            )],
        });
    }
    out
}
