//! Exporting a flagged claim of a recorded session as a conflicting-source regression case
//! (`provscope.case/1`, `model::case`); `check::case` judges it against new sessions.

use crate::check::{Evidence, Kind, SessionReport};
pub use crate::model::case::{Case, CaseSource, Competitor, Expectation, FORMAT};
use crate::model::{Session, Timestamp};
use serde_json::Value;

/// Why a case cannot be exported or read.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// No statement of the claim in the session.
    #[error("no claim `{claim}` in session {session}")]
    NoClaim {
        /// The claim id asked for.
        claim: String,
        /// The session id.
        session: String,
    },
    /// The claim is not stated in that turn.
    #[error("claim `{claim}` is not stated in turn {turn}")]
    NotInTurn {
        /// The claim id.
        claim: String,
        /// The turn asked for.
        turn: u32,
    },
    /// The claim has no origin, so there is no result to build a case from.
    #[error("claim `{claim}` (turn {turn}) is unsourced: there is no result to build a case from")]
    Unsourced {
        /// The claim id.
        claim: String,
        /// Its turn.
        turn: u32,
    },
    /// A case file cannot be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A case file is not a case.
    #[error("{path}:{line}:{column}: not a provscope case: {message}")]
    Parse {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A case of another format version.
    #[error("{path}: format `{found}` is not {FORMAT} (upgrade provscope?)")]
    Version {
        /// The file.
        path: String,
        /// The format it declares.
        found: String,
    },
}

/// Reads and validates a case file.
pub fn read(path: &std::path::Path) -> Result<Case, CaseError> {
    let p = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| CaseError::Read {
        path: p.clone(),
        source,
    })?;
    let c: Case = serde_json::from_str(&text).map_err(|e| CaseError::Parse {
        path: p.clone(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    if c.format != FORMAT {
        return Err(CaseError::Version {
            path: p,
            found: c.format,
        });
    }
    Ok(c)
}

/// The default file name of a case: `SESSION.CLAIM.TURN.case.json`. Names come from logs:
/// every byte but ASCII letters, digits, `-` and `_` is written `%XX`, so the name is one
/// path component, safe on every file system, and different claims never share a name.
pub fn file_name(session_name: &str, claim_id: &str, turn: u32) -> String {
    fn safe(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for b in s.bytes() {
            if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                out.push(char::from(b));
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }
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
) -> Result<Case, CaseError> {
    let statements: Vec<usize> = r
        .claims
        .iter()
        .enumerate()
        .filter(|(_, c)| c.claim_id == claim_id)
        .map(|(i, _)| i)
        .collect();
    if statements.is_empty() {
        return Err(CaseError::NoClaim {
            claim: claim_id.to_owned(),
            session: s.id().to_owned(),
        });
    }
    let pick = match turn {
        Some(t) => statements
            .iter()
            .copied()
            .find(|&i| r.claims[i].turn == t)
            .ok_or_else(|| CaseError::NotInTurn {
                claim: claim_id.to_owned(),
                turn: t,
            })?,
        None => statements
            .iter()
            .copied()
            .find(|&i| !r.claims[i].findings.is_empty())
            .unwrap_or(statements[0]),
    };
    let v = &r.claims[pick];
    let cited_id = v.call_id.clone().ok_or_else(|| CaseError::Unsourced {
        claim: claim_id.to_owned(),
        turn: v.turn,
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
    let cited_text = v.cited_text(s).unwrap_or_default().to_owned();
    let mut competing = Vec::new();
    for (id, value) in ids {
        let Some(res) = s.result(&id) else { continue };
        let call = s.call(&id);
        let value = match value {
            Some(v) => v,
            None if id == cited_id => cited_text.clone(),
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
            tier: r.tier(&res.tag.server).tier,
            arguments: redact_keys(args),
            value,
            fetched_at: res.effective_fetched_at(),
            cited: id == cited_id,
        });
    }
    let max_tier = v.policy.required.unwrap_or(1);
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
