//! Conflicting-source regression cases (`provscope.case/1`): exported from a flagged claim of a
//! recorded session, and checked against newly recorded sessions of the same question.
//! The format is documented in `docs/cases.md`.

use crate::check::{surfaces_conflict, Evidence, Kind, SessionReport};
use crate::model::{Session, Tier, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Format identifier written in every case.
pub const FORMAT: &str = "provscope.case/1";

/// Where a case came from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CaseSource {
    /// Session id.
    pub session_id: String,
    /// Log file it was exported from.
    pub file: String,
    /// Turn of the claim.
    pub turn: u32,
}

/// One of the competing results, copied from the stamped results (never re-fetched).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Competitor {
    /// Call id in the source session.
    pub call_id: String,
    /// Server.
    pub server: String,
    /// Tool.
    pub tool: String,
    /// Tier at export time.
    pub tier: Tier,
    /// Call arguments (redacted).
    pub arguments: Value,
    /// The value this result gave (the cited span, or the conflicting value).
    pub value: String,
    /// When it was fetched.
    pub fetched_at: Timestamp,
    /// Whether the original answer cited it.
    pub cited: bool,
}

/// What a passing answer must do.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Expectation {
    /// The server the claim must cite (the most trusted competing one), if one is named.
    pub cite_server: Option<String>,
    /// Otherwise: the cited server's tier must be at most this (0 = T0).
    pub max_tier: u8,
    /// The cited result must be within its TTL at answer time.
    pub fresh: bool,
    /// The answer must tell the user the sources disagree.
    pub surface_conflict: bool,
}

/// A conflicting-source test case.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Case {
    /// Always [`FORMAT`].
    pub format: String,
    /// `session/claim@turn`.
    pub case_id: String,
    /// When it was exported.
    pub created_at: Timestamp,
    /// Origin of the case.
    pub source: CaseSource,
    /// The user's question.
    pub question: String,
    /// The claim id answers are matched by.
    pub claim_id: String,
    /// The claim as originally stated.
    pub claim_text: String,
    /// Finding kinds the original claim had.
    pub findings: Vec<Kind>,
    /// The competing results.
    pub competing: Vec<Competitor>,
    /// What a passing answer does.
    pub expect: Expectation,
    /// Redaction patterns applied (the patterns themselves, not what they matched).
    pub redactions: Vec<String>,
}

/// The default file name of a case: `SESSION.CLAIM.TURN.case.json`, with anything but ASCII
/// letters, digits, `-` and `_` replaced by `_` (names come from logs).
pub fn file_name(session_name: &str, claim_id: &str, turn: u32) -> String {
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("{}.{}.{turn}.case.json", safe(session_name), safe(claim_id))
}

/// Keys whose values are always redacted from exported arguments.
const SECRET_KEYS: [&str; 9] = [
    "password",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "session",
    "private_key",
];

/// Builds a case for `claim_id` (the statement at `turn`, or the first flagged one).
pub fn export(
    s: &Session,
    r: &SessionReport,
    claim_id: &str,
    turn: Option<u32>,
    redact: &[regex::Regex],
) -> Result<Case, String> {
    let statements: Vec<usize> = r
        .claims
        .iter()
        .enumerate()
        .filter(|(_, c)| c.claim_id == claim_id)
        .map(|(i, _)| i)
        .collect();
    if statements.is_empty() {
        return Err(format!("no claim `{claim_id}` in session {}", s.id()));
    }
    let pick = match turn {
        Some(t) => statements
            .iter()
            .copied()
            .find(|&i| r.claims[i].turn == t)
            .ok_or_else(|| format!("claim `{claim_id}` is not stated in turn {t}"))?,
        None => statements
            .iter()
            .copied()
            .find(|&i| !r.claims[i].findings.is_empty())
            .unwrap_or(statements[0]),
    };
    let v = &r.claims[pick];
    let cited_id = v.call_id.clone().ok_or_else(|| {
        format!(
            "claim `{claim_id}` (turn {}) is unsourced: there is no result to build a case from",
            v.turn
        )
    })?;
    let findings: Vec<&crate::check::Finding> = r.findings_for(v).collect();
    // The cited result, then every result a finding names as competing with it.
    let mut ids = vec![(cited_id.clone(), None::<String>)];
    for f in &findings {
        match f.kind {
            Kind::ParallelConflict => {
                if let Evidence::ParallelConflict(p) = &f.evidence {
                    ids.push((p.other.call_id.clone(), Some(p.other.value.clone())));
                }
            }
            Kind::AmbiguousSupport => {
                for id in f.call_ids.iter().filter(|c| **c != cited_id) {
                    ids.push((id.clone(), None));
                }
            }
            _ => {}
        }
    }
    ids.dedup_by(|a, b| a.0 == b.0);
    let unit = s.span_unit();
    let stamp_span = s
        .claim_history(claim_id)
        .find(|c| c.turn == v.turn)
        .and_then(|c| c.stamp.span);
    let mut competing = Vec::new();
    for (id, value) in ids {
        let Some(res) = s.result(&id) else { continue };
        let call = s.call(&id);
        let value = match value {
            Some(v) => v,
            None if id == cited_id => stamp_span
                .and_then(|sp| {
                    let t = res.block_text(sp.block)?;
                    crate::model::span::resolve(t, sp.start, sp.end, unit)
                        .ok()
                        .map(|rg| t[rg].to_owned())
                })
                .unwrap_or_default(),
            None => res
                .texts()
                .next()
                .map(|(_, t)| t.chars().take(300).collect())
                .unwrap_or_default(),
        };
        let args = call
            .and_then(|c| c.request.params.arguments.as_ref())
            .and_then(|a| serde_json::from_str(a.get()).ok())
            .unwrap_or(Value::Null);
        competing.push(Competitor {
            call_id: id.clone(),
            server: res.tag.server.clone(),
            tool: res.tag.tool.clone(),
            tier: r
                .tiers
                .get(&res.tag.server)
                .copied()
                .unwrap_or_else(|| s.declared_tier(&res.tag.server)),
            arguments: redact_keys(args),
            value,
            fetched_at: res.effective_fetched_at(),
            cited: id == cited_id,
        });
    }
    let policy = s
        .claim_history(claim_id)
        .find(|c| c.turn == v.turn)
        .and_then(|c| c.stamp.render.as_ref()?.policy.clone())
        .or_else(|| s.header.as_ref().and_then(|h| h.render_policy.clone()));
    let max_tier = policy
        .as_deref()
        .and_then(crate::check::parse_policy)
        .unwrap_or(1);
    let stale_cited = findings.iter().any(|f| f.kind == Kind::Stale);
    let best = competing
        .iter()
        .filter(|c| !(c.cited && stale_cited))
        .filter(|c| c.tier.satisfies(max_tier))
        .min_by_key(|c| (c.tier.rank(), !c.cited))
        .map(|c| c.server.clone());
    let question = s.turn(v.turn).map(|t| t.user.clone()).unwrap_or_default();
    let mut case = Case {
        format: FORMAT.into(),
        case_id: format!("{}/{}@{}", s.id(), claim_id, v.turn),
        created_at: Timestamp::now(),
        source: CaseSource {
            session_id: s.id().to_owned(),
            file: s.source.to_string(),
            turn: v.turn,
        },
        question,
        claim_id: claim_id.to_owned(),
        claim_text: v.claim_text.clone(),
        findings: {
            let mut k: Vec<Kind> = findings.iter().map(|f| f.kind).collect();
            k.sort();
            k.dedup();
            k
        },
        expect: Expectation {
            cite_server: best,
            max_tier,
            fresh: true,
            surface_conflict: competing.len() > 1,
        },
        competing,
        redactions: redact.iter().map(|r| r.as_str().to_owned()).collect(),
    };
    apply_patterns(&mut case, redact);
    Ok(case)
}

/// Replaces the values of secret-looking keys, recursively.
fn redact_keys(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let lower = k.to_ascii_lowercase();
                    if SECRET_KEYS.iter().any(|s| lower.contains(s)) {
                        (k, Value::String("[REDACTED]".into()))
                    } else {
                        (k, redact_keys(v))
                    }
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(redact_keys).collect()),
        other => other,
    }
}

fn redact_str(s: &mut String, pats: &[regex::Regex]) {
    for p in pats {
        if p.is_match(s) {
            *s = p.replace_all(s, "[REDACTED]").into_owned();
        }
    }
}

fn redact_value(v: &mut Value, pats: &[regex::Regex]) {
    match v {
        Value::String(s) => redact_str(s, pats),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_value(x, pats)),
        Value::Object(m) => m.values_mut().for_each(|x| redact_value(x, pats)),
        _ => {}
    }
}

fn apply_patterns(c: &mut Case, pats: &[regex::Regex]) {
    if pats.is_empty() {
        return;
    }
    redact_str(&mut c.question, pats);
    redact_str(&mut c.claim_text, pats);
    for x in &mut c.competing {
        redact_str(&mut x.value, pats);
        redact_value(&mut x.arguments, pats);
    }
}

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

/// Checks a case against sessions: every statement of the case's claim (by claim id, or in a turn
/// asking the same question) must cite the expected origin, be fresh, and surface the conflict.
pub fn check_case(case: &Case, against: &[(&Session, &SessionReport)]) -> Vec<CheckResult> {
    let norm = |s: &str| crate::check::support::normalize(s);
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
                    let tier = r
                        .tiers
                        .get(&call.server)
                        .copied()
                        .unwrap_or_else(|| s.declared_tier(&call.server));
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
