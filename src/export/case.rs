//! Exporting a flagged claim of a recorded session as a conflicting-source regression case
//! (`provscope.case/2`, `model::case`): `check::case::plan` decides what the case expects, this
//! renders the plan; `check::case` judges the case against new sessions.

use crate::check::case::{plan, Plan};
use crate::check::{Kind, SessionReport};
pub use crate::model::case::{Case, CaseSource, Competitor, Expectation, FORMAT, FORMAT_V1};
use crate::model::case::{ExpectationV1, Link};
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
    /// A case whose field is missing or has the wrong type.
    #[error("{path}: field `{field}`: {message}")]
    Field {
        /// The file.
        path: String,
        /// The field's path (`expect.max_tier`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A case of another format version.
    #[error("{path}: format `{found}` is not a case format this provscope reads ({FORMAT}, {FORMAT_V1}); upgrade provscope?")]
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
    parse(&p, &text)
}

/// Parses and validates a case's text (`path` names it in errors). Version 1 files are read,
/// their expectations converted ([`Expectation::from_v1`]).
pub fn parse(p: &str, text: &str) -> Result<Case, CaseError> {
    let mut v: Value = serde_json::from_str(text).map_err(|e| CaseError::Parse {
        path: p.to_owned(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let field = |field: &str, message: String| CaseError::Field {
        path: p.to_owned(),
        field: field.to_owned(),
        message,
    };
    let Some(obj) = v.as_object_mut() else {
        return Err(field(".", "a case is a JSON object".into()));
    };
    let format = match obj.get("format") {
        None => {
            return Err(field(
                "format",
                "missing (a case names its format, e.g. provscope.case/2)".into(),
            ))
        }
        Some(Value::String(f)) => f.clone(),
        Some(_) => return Err(field("format", "must be a string".into())),
    };
    if format == FORMAT_V1 {
        let old = obj.remove("expect").unwrap_or(Value::Null);
        let e: ExpectationV1 = serde_path_to_error::deserialize(old).map_err(|e| {
            let at = e.path().to_string();
            let f = if at.is_empty() || at == "." {
                "expect".to_owned()
            } else {
                format!("expect.{at}")
            };
            field(&f, e.inner().to_string())
        })?;
        let e = serde_json::to_value(Expectation::from_v1(e))
            .map_err(|e| field("expect", e.to_string()))?;
        obj.insert("expect".into(), e);
        obj.insert("format".into(), Value::String(FORMAT.into()));
    } else if format != FORMAT {
        return Err(CaseError::Version {
            path: p.to_owned(),
            found: format,
        });
    }
    serde_path_to_error::deserialize(v).map_err(|e| {
        let at = e.path().to_string();
        field(if at.is_empty() { "." } else { &at }, e.inner().to_string())
    })
}

/// The default file name of a case: `SESSION.CLAIM.TURN.case.json`. Names come from logs:
/// every byte but ASCII letters, digits, `-` and `_` is written `%XX`, so the name is one
/// path component, safe on every file system, and different claims never share a name.
pub fn file_name(session_name: &str, claim_id: &str, turn: u32) -> String {
    format!(
        "{}.{}.{turn}.case.json",
        safe_component(session_name),
        safe_component(claim_id)
    )
}

/// A name from a log as one safe path component: every byte but ASCII letters, digits, `-` and
/// `_` is written `%XX`.
pub fn safe_component(s: &str) -> String {
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

/// Builds a case for `claim_id` (the statement at `turn`, or the first flagged one). An
/// unsourced claim is an error ([`CaseError::Unsourced`]); see [`export_any`].
pub fn export(
    s: &Session,
    r: &SessionReport,
    claim_id: &str,
    turn: Option<u32>,
    redact: &[regex::Regex],
) -> Result<Case, CaseError> {
    export_any(s, r, claim_id, turn, redact, false)
}

/// Builds a case; with `unsourced_ok`, an unsourced claim gives a case with no competing sources
/// whose expectations say what can be said (cite a source the render policy allows).
pub fn export_any(
    s: &Session,
    r: &SessionReport,
    claim_id: &str,
    turn: Option<u32>,
    redact: &[regex::Regex],
    unsourced_ok: bool,
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
    let sourced = v.call_id.is_some();
    if !sourced && !unsourced_ok {
        return Err(CaseError::Unsourced {
            claim: claim_id.to_owned(),
            turn: v.turn,
        });
    }
    let Plan {
        sources,
        expect,
        claim_value,
    } = plan(s, r, v);
    let competing = sources
        .iter()
        .map(|src| {
            let args = src
                .call
                .request
                .params
                .arguments
                .as_ref()
                .and_then(|a| serde_json::from_str(a.get()).ok())
                .unwrap_or(Value::Null);
            Competitor {
                call_id: src.call.id.to_string(),
                server: src.result.tag.server.to_string(),
                tool: src.result.tag.tool.to_string(),
                tier: r.tier(&src.result.tag.server).tier,
                turn: src.call.turn,
                input_schema: Some(infer_schema(&args)),
                arguments: redact_keys(args),
                value: src.value.clone(),
                stated: src.stated.clone(),
                fetched_at: src.result.effective_fetched_at(),
                cited: src.link == Link::Cited,
                linked_by: src.link,
                result: src
                    .result
                    .response
                    .result
                    .as_ref()
                    .and_then(|x| serde_json::to_value(x).ok()),
            }
        })
        .collect();
    let question = s
        .turn(v.turn)
        .map(|t| t.user.to_string())
        .unwrap_or_default();
    let findings: Vec<&crate::check::Finding> = r.findings_for(v).collect();
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
        claim_text: v.claim_text.to_string(),
        claim_value,
        sourced,
        findings: {
            let mut k: Vec<Kind> = findings.iter().map(|f| f.kind).collect();
            k.sort();
            k.dedup();
            k
        },
        expect,
        competing,
        redactions: redact.iter().map(|r| r.as_str().to_owned()).collect(),
    };
    apply_patterns(&mut case, redact);
    Ok(case)
}

/// A JSON Schema for a tool inferred from one call's arguments (the session log records
/// arguments, not the tool's declared schema): an object with each argument's JSON type.
pub fn infer_schema(args: &Value) -> Value {
    fn of(v: &Value) -> Value {
        match v {
            Value::Null => serde_json::json!({"type": "null"}),
            Value::Bool(_) => serde_json::json!({"type": "boolean"}),
            Value::Number(n) if n.is_i64() || n.is_u64() => serde_json::json!({"type": "integer"}),
            Value::Number(_) => serde_json::json!({"type": "number"}),
            Value::String(_) => serde_json::json!({"type": "string"}),
            Value::Array(_) => serde_json::json!({"type": "array"}),
            Value::Object(m) => {
                let props: serde_json::Map<String, Value> =
                    m.iter().map(|(k, v)| (k.clone(), of(v))).collect();
                serde_json::json!({"type": "object", "properties": props})
            }
        }
    }
    let mut schema = match args {
        Value::Object(_) => of(args),
        _ => serde_json::json!({"type": "object", "properties": {}}),
    };
    if let Value::Object(m) = &mut schema {
        m.insert(
            "description".into(),
            Value::String("inferred by provscope from the recorded arguments".into()),
        );
    }
    schema
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
        if let Some(res) = &mut x.result {
            redact_value(res, pats);
        }
        if let Some(st) = &mut x.stated {
            redact_str(&mut st.text, pats);
        }
    }
}
