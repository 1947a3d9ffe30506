//! Execution envelopes: a DSSE envelope whose payload is an in-toto Statement v1 binding one
//! MCP `tools/call` (tool, arguments, call id, time) to the result delivered, by hashes and an
//! Ed25519 signature of an attestor outside the tool server's trust boundary.
//! `docs/envelope-format.md` is the normative description.
//!
//! Producers (the recording proxy, `provscope envelope seal`) call [`seal`]; verifiers call
//! [`read`] (or [`open`] for an owned statement), then [`compare_call`], [`compare_result`]
//! and [`compare_freshness`] against the recorded session.

use super::dsse::{Envelope, PAYLOAD_TYPE_IN_TOTO};
use super::hash::HashError;
use super::keys::compact;
use crate::model::event::{CacheInfo, IngestTag};
use crate::model::{Call, CallResponse, Name, Session, Timestamp, TimestampError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// `_type` of an in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// `predicateType` of provscope's execution predicate, version 2 (what [`seal`] writes): v1 plus
/// the ingestion tag's freshness (`fetched_at`, `ttl_seconds`, `cache`).
pub const PREDICATE_TYPE: &str = "https://provscope.dev/mcp-execution/v2";
/// `predicateType` of version 1, still verified: its freshness is not attested.
pub const PREDICATE_TYPE_V1: &str = "https://provscope.dev/mcp-execution/v1";
/// Prefix of the subject name: `mcp-call:<call id>`.
pub const SUBJECT_PREFIX: &str = "mcp-call:";

/// An in-toto Statement v1 with provscope's execution predicate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    /// `https://in-toto.io/Statement/v1`.
    #[serde(rename = "_type")]
    pub statement_type: String,
    /// Exactly one subject: the call.
    pub subject: Vec<Subject>,
    /// [`PREDICATE_TYPE`] (v2) or [`PREDICATE_TYPE_V1`].
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    /// What the attestor observed.
    pub predicate: Execution,
}

/// An in-toto resource descriptor: the call, named `mcp-call:<call id>`, with digest
/// `{"sha256": call_hash}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// `mcp-call:<call id>`.
    pub name: String,
    /// `{"sha256": <call_hash>}`.
    pub digest: BTreeMap<String, String>,
}

/// The execution predicate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    /// The session the call belongs to.
    pub session_id: String,
    /// The session-unique call id.
    pub call_id: String,
    /// The MCP server the call went to.
    pub server: String,
    /// The tool name.
    pub tool: String,
    /// Hex SHA-256 of the JCS of the arguments (`{}` when absent), as in the ingestion tag.
    pub arguments_hash: String,
    /// When the call was sent (RFC 3339; the string hashed into `call_hash`).
    pub called_at: String,
    /// When the response reached the client (RFC 3339).
    pub returned_at: String,
    /// v2: the ingestion tag's `fetched_at` (RFC 3339). Absent in v1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<String>,
    /// v2: the ingestion tag's `ttl_seconds`, `null` when the tag has none (`Some(None)`).
    /// Absent in v1 (`None`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub ttl_seconds: Option<Option<u64>>,
    /// v2: the ingestion tag's `cache`. Absent in v1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<SealedCache>,
    /// v2: where the arguments (`arguments.<path>`) or the delivered response
    /// (`response.<path>`) held numbers RFC 8785 cannot represent exactly when sealed, so the
    /// hashes do not vouch for their exact value (at most [`MAX_SEALED_INEXACT`]). Absent when
    /// there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inexact_numbers: Vec<String>,
    /// Hex SHA-256 of JCS `{"tool","arguments","call_id","called_at"}`.
    pub call_hash: String,
    /// Hex SHA-256 of JCS `{"result": <delivered>, "call_hash": call_hash}`.
    pub result_hash: String,
    /// Who sealed it.
    pub attestor: AttestorInfo,
}

/// The cache provenance sealed in a v2 predicate: `{"hit": bool}`, plus
/// `"original_fetched_at"` when the tag states it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedCache {
    /// Served from a cache.
    pub hit: bool,
    /// When the cached copy was originally fetched (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_fetched_at: Option<String>,
}

/// A field that is present (even as `null`) deserializes to `Some`; absent is `None` (serde's
/// `default`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

impl Execution {
    /// True for a version 1 predicate, which does not seal the result's freshness.
    pub fn is_v1(&self) -> bool {
        self.fetched_at.is_none()
            && self.ttl_seconds.is_none()
            && self.cache.is_none()
            && self.inexact_numbers.is_empty()
    }
}

/// The most paths a predicate's `inexact_numbers` lists.
pub const MAX_SEALED_INEXACT: usize = 256;

/// What the hashes of a call cannot see, in the parts a parser keeps raw: duplicate keys and
/// numbers RFC 8785 cannot represent exactly, in the `arguments` (`arguments.<path>`) and the
/// response (`response.result.structuredContent.<path>`, `response.result._meta...`,
/// `response.result.content[i].<field>...`, `response.error.data...`). The fields provscope
/// parses (content text, `isError`, error code and message, ...) already refuse duplicates and
/// hold no inexact number, so only the raw parts are scanned. Lists at most `cap` numbers.
pub fn blind_spots(
    arguments: Option<&RawValue>,
    response: Option<&CallResponse>,
    cap: usize,
) -> super::hash::JsonScan {
    use super::hash::{scan_json_capped, JsonScan};
    let mut out = JsonScan::default();
    let mut add = |prefix: &str, raw: &RawValue| {
        let s = scan_json_capped(raw.get(), cap.saturating_sub(out.inexact.len()));
        let join = |path: String| {
            if path.is_empty() {
                prefix.to_owned()
            } else if path.starts_with('[') {
                format!("{prefix}{path}")
            } else {
                format!("{prefix}.{path}")
            }
        };
        if out.duplicate_key.is_none() {
            out.duplicate_key = s.duplicate_key.map(|(p, k)| (join(p), k));
        }
        out.inexact_total += s.inexact_total;
        out.inexact
            .extend(s.inexact.into_iter().map(|(p, t)| (join(p), t)));
    };
    fn extras<'e>(
        prefix: &str,
        extra: &'e [(Name, Box<RawValue>)],
        dup: &mut Option<(String, String)>,
        each: &mut impl FnMut(&str, &'e RawValue),
    ) {
        for (i, (k, v)) in extra.iter().enumerate() {
            if dup.is_none() && extra[..i].iter().any(|(x, _)| x == k) {
                *dup = Some((prefix.to_owned(), k.to_string()));
            }
            each(&format!("{prefix}.{k}"), v);
        }
    }
    if let Some(a) = arguments {
        add("arguments", a);
    }
    let mut dup = None;
    if let Some(r) = response {
        if let Some(res) = &r.result {
            if let Some(sc) = res.structured() {
                add("response.result.structuredContent", sc);
            }
            extras("response.result", res.extra(), &mut dup, &mut |p, v| {
                add(p, v)
            });
            for (i, b) in res.content.iter().enumerate() {
                // Most blocks hold nothing raw: their path is written only when one does.
                if b.extra.is_empty() && b.resource.as_ref().is_none_or(|r| r.extra.is_empty()) {
                    continue;
                }
                let at = format!("response.result.content[{i}]");
                extras(&at, &b.extra, &mut dup, &mut |p, v| add(p, v));
                if let Some(rs) = &b.resource {
                    extras(
                        &format!("{at}.resource"),
                        &rs.extra,
                        &mut dup,
                        &mut |p, v| add(p, v),
                    );
                }
            }
        }
        if let Some(d) = r.error.as_ref().and_then(|e| e.data.as_deref()) {
            add("response.error.data", d);
        }
    }
    if out.duplicate_key.is_none() {
        out.duplicate_key = dup;
    }
    out.inexact.truncate(cap);
    out
}

/// The attestor's identity as stated in the payload (informational: trust comes from the
/// session header's `attestor_keys`, never from this field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttestorInfo {
    /// A free-form name (`provscope-record@host`, a service URL, ...).
    pub id: String,
    /// `ed25519:<base64>` of the signing key.
    pub key: String,
}

/// An attestor: a name and a signing key.
pub struct Attestor {
    /// Stated in every envelope as `attestor.id`.
    pub id: String,
    /// The signing key.
    pub key: ed25519_dalek::SigningKey,
}

/// What the attestor observed of one call: everything [`seal`] binds.
#[derive(Clone, Copy)]
pub struct Observed<'a> {
    /// Session id.
    pub session_id: &'a str,
    /// Session-unique call id.
    pub call_id: &'a str,
    /// Server name.
    pub server: &'a str,
    /// Tool name (`params.name`).
    pub tool: &'a str,
    /// `params.arguments` as sent (absent means `{}`).
    pub arguments: Option<&'a RawValue>,
    /// When the request was sent.
    pub called_at: Timestamp,
    /// When the response arrived.
    pub returned_at: Timestamp,
    /// The ingestion tag's `fetched_at` (for a fresh call, when the response arrived).
    pub fetched_at: Timestamp,
    /// The ingestion tag's `ttl_seconds`.
    pub ttl_seconds: Option<u64>,
    /// The ingestion tag's `cache`.
    pub cache: &'a CacheInfo,
    /// The JSON-RPC response as delivered to the client.
    pub response: &'a CallResponse,
}

impl<'a> Observed<'a> {
    /// The observation recorded in a session for `call_id` (its `tool_call` and `tool_result`).
    pub fn from_session(s: &'a Session, call_id: &str) -> Result<Observed<'a>, String> {
        let call = s
            .call(call_id)
            .ok_or_else(|| format!("no tool_call with call id `{call_id}` in the session"))?;
        let result = s
            .result(call_id)
            .ok_or_else(|| format!("no tool_result for call `{call_id}` in the session"))?;
        Ok(Observed {
            session_id: s.id(),
            call_id: &call.id,
            server: &call.server,
            tool: call.tool(),
            arguments: call.request.params.arguments.as_deref(),
            called_at: call.issued_at,
            returned_at: result.tag.returned_at,
            fetched_at: result.tag.fetched_at,
            ttl_seconds: result.tag.ttl_seconds,
            cache: &result.tag.cache,
            response: &result.response,
        })
    }
}

/// Why an envelope's statement is not a well-formed execution statement, or why a hash over a
/// call could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum StatementError {
    /// A payload type other than in-toto's.
    #[error("payloadType is `{0}`; an execution envelope's is `{PAYLOAD_TYPE_IN_TOTO}`")]
    PayloadType(String),
    /// The payload does not deserialize as a statement.
    #[error("payload: not an execution statement at `{path}` ({detail})")]
    NotAStatement {
        /// Where deserialization stopped.
        path: String,
        /// The deserializer's words.
        detail: String,
    },
    /// A statement `_type` other than in-toto v1's.
    #[error("payload._type is `{0}`; expected `{STATEMENT_TYPE}`")]
    StatementType(String),
    /// A v2 predicate without a freshness field.
    #[error(
        "payload.predicate.{0} is missing; a v2 execution predicate seals fetched_at, \
         ttl_seconds (null when none) and cache"
    )]
    MissingFreshness(&'static str),
    /// A v1 predicate type over a predicate with v2 fields.
    #[error(
        "payload.predicate has fetched_at, ttl_seconds, cache or inexact_numbers, which a v1 \
         predicate does not have; such a predicate's type is `{PREDICATE_TYPE}`"
    )]
    V1WithV2Fields,
    /// An unknown predicate type.
    #[error(
        "payload.predicateType is `{0}`; expected `{PREDICATE_TYPE}` (or `{PREDICATE_TYPE_V1}`)"
    )]
    PredicateType(String),
    /// A hash field that is not 64 lowercase hex digits.
    #[error("payload.predicate.{field} is `{value}`; expected 64 lowercase hex digits")]
    NotHex {
        /// The predicate field.
        field: &'static str,
        /// Its value.
        value: String,
    },
    /// A time field that is not RFC 3339.
    #[error("payload.predicate.{field}: {source}")]
    Time {
        /// The predicate field.
        field: &'static str,
        /// Why.
        source: TimestampError,
    },
    /// Not exactly one subject.
    #[error("payload.subject has {0} entries; an execution statement has exactly one, the call")]
    SubjectCount(usize),
    /// A subject naming another call.
    #[error("payload.subject[0].name is `{found}`; expected `{want}` (the predicate's call_id)")]
    SubjectName {
        /// The subject's name.
        found: String,
        /// `call:<call_id>`.
        want: String,
    },
    /// A subject digest that is not the call hash.
    #[error(
        "payload.subject[0].digest.sha256 is `{digest}` but predicate.call_hash is `{call_hash}`"
    )]
    SubjectDigest {
        /// The subject's digest.
        digest: String,
        /// The predicate's call hash.
        call_hash: String,
    },
    /// A subject without a SHA-256 digest.
    #[error("payload.subject[0].digest has no sha256")]
    NoSubjectDigest,
    /// A sealed time that is not RFC 3339 (when compared with the recording).
    #[error(transparent)]
    Timestamp(#[from] TimestampError),
    /// A hash over the call or result could not be computed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The statement could not be serialized.
    #[error("cannot serialize the statement: {0}")]
    Serialize(serde_json::Error),
}

/// The call hash: hex SHA-256 of the RFC 8785 canonical JSON of
/// `{"tool": tool, "arguments": arguments or {}, "call_id": call_id, "called_at": called_at}`.
pub fn call_hash(
    tool: &str,
    arguments: Option<&RawValue>,
    call_id: &str,
    called_at: &str,
) -> Result<String, HashError> {
    let mut args = Vec::new();
    super::hash::canonical_arguments_into(arguments, &mut args)?;
    Ok(hex::encode(call_digest(tool, &args, call_id, called_at)?))
}

/// The [`call_hash`] digest from the arguments already in canonical form
/// (`hash::canonical_arguments`), so a caller that also needs the arguments hash
/// canonicalizes them once. The object is assembled from canonical parts in RFC 8785 member
/// order (keys sorted by UTF-16 code units: `arguments`, `call_id`, `called_at`, `tool`),
/// which is exactly what canonicalizing the whole object yields (tested against it).
pub fn call_digest(
    tool: &str,
    canonical_args: &[u8],
    call_id: &str,
    called_at: &str,
) -> Result<[u8; 32], HashError> {
    use super::jcs::write_str;
    let mut rest = Vec::with_capacity(64 + call_id.len() + called_at.len() + tool.len());
    rest.extend_from_slice(b",\"call_id\":");
    write_str(call_id, &mut rest);
    rest.extend_from_slice(b",\"called_at\":");
    write_str(called_at, &mut rest);
    rest.extend_from_slice(b",\"tool\":");
    write_str(tool, &mut rest);
    rest.push(b'}');
    Ok(super::hash::sha256(&[
        b"{\"arguments\":",
        canonical_args,
        &rest,
    ]))
}

/// The result hash: hex SHA-256 of the RFC 8785 canonical JSON of
/// `{"result": <delivered>, "call_hash": call_hash}`, where what was delivered is the `result`
/// object; `{"error": E}` for a JSON-RPC error; `{"error": E, "result": R}` when both were sent
/// (invalid JSON-RPC, kept so nothing can be added unseen); `null` when neither was.
pub fn result_hash(response: &CallResponse, call_hash: &str) -> Result<String, HashError> {
    Ok(hex::encode(result_digest(response, call_hash)?))
}

/// The [`result_hash`] digest, assembled from canonical parts in RFC 8785 member order
/// (`call_hash` < `result`), which is what canonicalizing the whole object yields (tested
/// against it), in one buffer.
fn result_digest(response: &CallResponse, call_hash: &str) -> Result<[u8; 32], HashError> {
    use super::jcs;
    let mut buf = Vec::with_capacity(1024);
    buf.extend_from_slice(b"{\"call_hash\":");
    jcs::write_str(call_hash, &mut buf);
    buf.extend_from_slice(b",\"result\":");
    jcs::write_delivered(response, &mut buf)?;
    buf.push(b'}');
    Ok(super::hash::sha256(&[&buf]))
}

/// The statement for an observation.
pub fn statement(o: &Observed, attestor: &Attestor) -> Result<Statement, HashError> {
    let called_at = o.called_at.to_string();
    let ch = call_hash(o.tool, o.arguments, o.call_id, &called_at)?;
    let rh = result_hash(o.response, &ch)?;
    let arguments_hash = super::hash::arguments_hash(o.arguments)?;
    Ok(Statement {
        statement_type: STATEMENT_TYPE.into(),
        subject: vec![Subject {
            name: format!("{SUBJECT_PREFIX}{}", o.call_id),
            digest: BTreeMap::from([("sha256".to_owned(), ch.clone())]),
        }],
        predicate_type: PREDICATE_TYPE.into(),
        predicate: Execution {
            session_id: o.session_id.into(),
            call_id: o.call_id.into(),
            server: o.server.into(),
            tool: o.tool.into(),
            arguments_hash,
            called_at,
            returned_at: o.returned_at.to_string(),
            fetched_at: Some(o.fetched_at.to_string()),
            ttl_seconds: Some(o.ttl_seconds),
            cache: Some(SealedCache {
                hit: o.cache.hit,
                original_fetched_at: o.cache.original_fetched_at.map(|t| t.to_string()),
            }),
            inexact_numbers: blind_spots(o.arguments, Some(o.response), MAX_SEALED_INEXACT)
                .inexact
                .into_iter()
                .map(|(p, _)| p)
                .collect(),
            call_hash: ch,
            result_hash: rh,
            attestor: AttestorInfo {
                id: attestor.id.clone(),
                key: compact(&attestor.key.verifying_key()),
            },
        },
    })
}

/// Seals one observed call: the statement, serialized as RFC 8785 canonical JSON, in a DSSE
/// envelope signed by the attestor. Deterministic (Ed25519 signatures are).
pub fn seal(o: &Observed, attestor: &Attestor) -> Result<Envelope, StatementError> {
    let st = statement(o, attestor)?;
    let payload = serde_jcs::to_vec(&st).map_err(StatementError::Serialize)?;
    Ok(Envelope::sign(PAYLOAD_TYPE_IN_TOTO, payload, &attestor.key))
}

/// The session-log line carrying an envelope: `{"event":"envelope","call_id":...,"envelope":{...}}`.
pub fn event_line(call_id: &str, env: &Envelope) -> String {
    // Built by hand so `event` comes first whatever the JSON map's ordering.
    format!(
        "{{\"event\":\"envelope\",\"call_id\":{},\"envelope\":{}}}",
        serde_json::Value::String(call_id.to_owned()),
        env.to_json()
    )
}

/// Reads the statement out of an envelope and checks it is well formed: the payload type, the
/// statement and predicate types, one subject naming the call with the call hash as digest,
/// lowercase hex hashes, RFC 3339 times. Does not check signatures (see `dsse::verify_all`).
/// The owned form, for showing a statement; verification reads it in place with [`read`].
pub fn open(env: &Envelope) -> Result<Statement, StatementError> {
    read(env)?;
    let de = &mut serde_json::Deserializer::from_slice(&env.payload);
    serde_path_to_error::deserialize(de).map_err(|e| StatementError::NotAStatement {
        path: e.path().to_string(),
        detail: e.into_inner().to_string(),
    })
}

/// A string of a statement, borrowed from the payload unless it holds escapes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text<'a>(pub Cow<'a, str>);

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// [`Statement`] as read in place (the same fields, the same rules).
#[derive(Deserialize)]
struct StatementIn<'a> {
    #[serde(rename = "_type", borrow)]
    statement_type: Text<'a>,
    #[serde(borrow)]
    subject: Vec<SubjectIn<'a>>,
    #[serde(rename = "predicateType", borrow)]
    predicate_type: Text<'a>,
    #[serde(borrow)]
    predicate: ExecutionIn<'a>,
}

#[derive(Deserialize)]
struct SubjectIn<'a> {
    #[serde(borrow)]
    name: Text<'a>,
    #[serde(borrow)]
    digest: DigestIn<'a>,
}

/// A subject's `digest` map: any algorithms, strings only; the last `sha256` is kept (as a
/// map would keep it).
struct DigestIn<'a> {
    sha256: Option<Text<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for DigestIn<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = DigestIn<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of digests")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<DigestIn<'de>, M::Error> {
                let mut sha256 = None;
                while let Some(k) = m.next_key::<Text<'de>>()? {
                    let v: Text<'de> = m.next_value()?;
                    if &*k == "sha256" {
                        sha256 = Some(v);
                    }
                }
                Ok(DigestIn { sha256 })
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
struct ExecutionIn<'a> {
    #[serde(borrow)]
    session_id: Text<'a>,
    #[serde(borrow)]
    call_id: Text<'a>,
    #[serde(borrow)]
    server: Text<'a>,
    #[serde(borrow)]
    tool: Text<'a>,
    #[serde(borrow)]
    arguments_hash: Text<'a>,
    #[serde(borrow)]
    called_at: Text<'a>,
    #[serde(borrow)]
    returned_at: Text<'a>,
    #[serde(default, borrow)]
    fetched_at: Option<Text<'a>>,
    #[serde(default, deserialize_with = "present")]
    ttl_seconds: Option<Option<u64>>,
    #[serde(default, borrow)]
    cache: Option<CacheIn<'a>>,
    #[serde(default, borrow)]
    inexact_numbers: Vec<Text<'a>>,
    #[serde(borrow)]
    call_hash: Text<'a>,
    #[serde(borrow)]
    result_hash: Text<'a>,
    #[serde(borrow)]
    attestor: AttestorIn<'a>,
}

#[derive(Deserialize)]
struct CacheIn<'a> {
    hit: bool,
    #[serde(default, borrow)]
    original_fetched_at: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct AttestorIn<'a> {
    #[serde(borrow)]
    id: Text<'a>,
    #[serde(borrow)]
    key: Text<'a>,
}

/// A sealed hash: its text in the statement and the digest it names.
#[derive(Clone, Debug)]
pub struct SealedHash<'a> {
    /// 64 lowercase hex digits.
    pub text: Text<'a>,
    /// The 32 bytes.
    pub digest: [u8; 32],
}

impl SealedHash<'_> {
    /// Whether `digest` is this hash, compared in constant time.
    pub fn matches(&self, digest: &[u8; 32]) -> bool {
        super::hash::ct_bytes_eq(&self.digest, digest)
    }
}

/// A sealed time: its text in the statement and the instant it names.
#[derive(Clone, Debug)]
pub struct SealedTime<'a> {
    /// RFC 3339, as sealed.
    pub text: Text<'a>,
    /// Parsed.
    pub at: Timestamp,
}

/// The cache provenance a v2 predicate seals, as [`read`] reads it.
#[derive(Clone, Debug)]
pub struct SealedCacheAt<'a> {
    /// Served from a cache.
    pub hit: bool,
    /// When the cached copy was originally fetched.
    pub original_fetched_at: Option<SealedTime<'a>>,
}

/// An execution statement read by [`read`], for verification: the predicate's fields
/// (see [`Execution`]) borrowed from the payload where they hold no escapes, its hashes
/// decoded and its times parsed, once.
#[derive(Clone, Debug)]
pub struct Sealed<'a> {
    /// [`PREDICATE_TYPE`] or [`PREDICATE_TYPE_V1`].
    pub predicate_type: Text<'a>,
    /// The session the call belongs to.
    pub session_id: Text<'a>,
    /// The session-unique call id.
    pub call_id: Text<'a>,
    /// The MCP server.
    pub server: Text<'a>,
    /// The tool name.
    pub tool: Text<'a>,
    /// SHA-256 of the JCS of the arguments.
    pub arguments_hash: SealedHash<'a>,
    /// When the call was sent (its text is hashed into the call hash).
    pub called_at: SealedTime<'a>,
    /// When the response reached the client.
    pub returned_at: SealedTime<'a>,
    /// v2: the ingestion tag's `fetched_at`.
    pub fetched_at: Option<SealedTime<'a>>,
    /// v2: the ingestion tag's `ttl_seconds` (`Some(None)` for `null`).
    pub ttl_seconds: Option<Option<u64>>,
    /// v2: the ingestion tag's `cache`.
    pub cache: Option<SealedCacheAt<'a>>,
    /// v2: paths of numbers RFC 8785 could not represent exactly when sealed.
    pub inexact_numbers: Vec<Text<'a>>,
    /// The call hash.
    pub call_hash: SealedHash<'a>,
    /// The result hash.
    pub result_hash: SealedHash<'a>,
    /// Who sealed it (informational).
    pub attestor_id: Text<'a>,
    /// `ed25519:<base64>` of the signing key the payload names.
    pub attestor_key: Text<'a>,
}

impl Sealed<'_> {
    /// True for a version 1 predicate, which does not seal the result's freshness.
    pub fn is_v1(&self) -> bool {
        self.fetched_at.is_none()
            && self.ttl_seconds.is_none()
            && self.cache.is_none()
            && self.inexact_numbers.is_empty()
    }
}

fn sealed_time(text: Text<'_>, at: Timestamp) -> SealedTime<'_> {
    SealedTime { text, at }
}

/// The 32 bytes 64 lowercase hex digits name, in one pass; `None` for anything else.
fn hex64_digest(s: &str) -> Option<[u8; 32]> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    let b: &[u8; 64] = s.as_bytes().try_into().ok()?;
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *o = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(out)
}

/// [`open`] without copying: the statement read in place from the envelope's payload, with
/// the same checks and the same errors.
pub fn read(env: &Envelope) -> Result<Sealed<'_>, StatementError> {
    if env.payload_type != PAYLOAD_TYPE_IN_TOTO {
        return Err(StatementError::PayloadType(env.payload_type.clone()));
    }
    // Fast path without path tracking; on error the owned form is parsed again to name the
    // field.
    let st: StatementIn = match serde_json::from_slice(&env.payload) {
        Ok(st) => st,
        Err(first) => {
            let de = &mut serde_json::Deserializer::from_slice(&env.payload);
            let owned: Result<Statement, _> = serde_path_to_error::deserialize(de);
            return Err(match owned {
                Err(e) => StatementError::NotAStatement {
                    path: e.path().to_string(),
                    detail: e.into_inner().to_string(),
                },
                Ok(_) => StatementError::NotAStatement {
                    path: ".".into(),
                    detail: first.to_string(),
                },
            });
        }
    };
    if *st.statement_type != *STATEMENT_TYPE {
        return Err(StatementError::StatementType(
            st.statement_type.0.into_owned(),
        ));
    }
    let p = st.predicate;
    let is_v1 = p.fetched_at.is_none()
        && p.ttl_seconds.is_none()
        && p.cache.is_none()
        && p.inexact_numbers.is_empty();
    match &*st.predicate_type {
        PREDICATE_TYPE => {
            for (name, present) in [
                ("fetched_at", p.fetched_at.is_some()),
                ("ttl_seconds", p.ttl_seconds.is_some()),
                ("cache", p.cache.is_some()),
            ] {
                if !present {
                    return Err(StatementError::MissingFreshness(name));
                }
            }
        }
        PREDICATE_TYPE_V1 => {
            if !is_v1 {
                return Err(StatementError::V1WithV2Fields);
            }
        }
        other => return Err(StatementError::PredicateType(other.to_owned())),
    }
    let hash = |field: &'static str, text: Text<'_>| -> Result<[u8; 32], StatementError> {
        hex64_digest(&text).ok_or_else(|| StatementError::NotHex {
            field,
            value: text.0.into_owned(),
        })
    };
    let arguments_hash = hash("arguments_hash", p.arguments_hash.clone())?;
    let call_hash = hash("call_hash", p.call_hash.clone())?;
    let result_hash = hash("result_hash", p.result_hash.clone())?;
    let time = |field: &'static str, text: Text<'_>| -> Result<Timestamp, StatementError> {
        Timestamp::parse(&text).map_err(|source| StatementError::Time { field, source })
    };
    let called_at = time("called_at", p.called_at.clone())?;
    let returned_at = time("returned_at", p.returned_at.clone())?;
    let fetched_at = match &p.fetched_at {
        Some(t) => Some(time("fetched_at", t.clone())?),
        None => None,
    };
    let original = match p
        .cache
        .as_ref()
        .and_then(|c| c.original_fetched_at.as_ref())
    {
        Some(t) => Some(time("cache.original_fetched_at", t.clone())?),
        None => None,
    };
    let [subject] = st.subject.as_slice() else {
        return Err(StatementError::SubjectCount(st.subject.len()));
    };
    if subject.name.strip_prefix(SUBJECT_PREFIX) != Some(&*p.call_id) {
        return Err(StatementError::SubjectName {
            found: subject.name.to_string(),
            want: format!("{SUBJECT_PREFIX}{}", &*p.call_id),
        });
    }
    match &subject.digest.sha256 {
        Some(d) if ct_eq(d, &p.call_hash) => {}
        Some(d) => {
            return Err(StatementError::SubjectDigest {
                digest: d.to_string(),
                call_hash: p.call_hash.to_string(),
            })
        }
        None => return Err(StatementError::NoSubjectDigest),
    }
    Ok(Sealed {
        predicate_type: st.predicate_type,
        session_id: p.session_id,
        call_id: p.call_id,
        server: p.server,
        tool: p.tool,
        arguments_hash: SealedHash {
            text: p.arguments_hash,
            digest: arguments_hash,
        },
        called_at: sealed_time(p.called_at, called_at),
        returned_at: sealed_time(p.returned_at, returned_at),
        fetched_at: p
            .fetched_at
            .zip(fetched_at)
            .map(|(t, at)| sealed_time(t, at)),
        ttl_seconds: p.ttl_seconds,
        cache: p.cache.map(|c| SealedCacheAt {
            hit: c.hit,
            original_fetched_at: c
                .original_fetched_at
                .zip(original)
                .map(|(t, at)| sealed_time(t, at)),
        }),
        inexact_numbers: p.inexact_numbers,
        call_hash: SealedHash {
            text: p.call_hash,
            digest: call_hash,
        },
        result_hash: SealedHash {
            text: p.result_hash,
            digest: result_hash,
        },
        attestor_id: p.attestor.id,
        attestor_key: p.attestor.key,
    })
}

/// Constant-time equality of two hash strings (lengths are not secret).
pub fn ct_eq(a: &str, b: &str) -> bool {
    super::hash::ct_bytes_eq(a.as_bytes(), b.as_bytes())
}

/// One field where a sealed predicate disagrees with the recorded call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The predicate field (`call_hash`, `tool`, ...).
    pub field: &'static str,
    /// The value sealed in the envelope.
    pub sealed: String,
    /// The value recomputed from the recording.
    pub recorded: String,
}

/// Compares a (signature-verified) predicate with the recorded call: call id, session id (when
/// known), server, tool, arguments hash, `called_at` (same instant as `issued_at`, to the
/// millisecond) and the call hash recomputed from the recorded tool, arguments and call id with
/// the sealed `called_at` string. Empty when everything matches.
pub fn compare_call(
    p: &Sealed,
    session_id: Option<&str>,
    call: &Call,
) -> Result<Vec<Mismatch>, StatementError> {
    let args = CanonicalArgs::of(call.request.params.arguments.as_deref())?;
    compare_call_canonical(p, session_id, call, &args)
}

/// A call's arguments in RFC 8785 canonical form (absent arguments are `{}`) with their
/// SHA-256: what [`compare_call_canonical`] needs of them, the same for every call that sends
/// the same arguments text, so a caller checking many envelopes computes it once per text.
#[derive(Clone, Debug)]
pub struct CanonicalArgs {
    /// The canonical JSON.
    pub bytes: Vec<u8>,
    /// SHA-256 of `bytes`: the arguments hash.
    pub digest: [u8; 32],
}

impl CanonicalArgs {
    /// Canonicalizes and hashes `arguments`.
    pub fn of(arguments: Option<&RawValue>) -> Result<Self, HashError> {
        let bytes = super::hash::canonical_arguments(arguments)?;
        let digest = super::hash::sha256(&[&bytes]);
        Ok(CanonicalArgs { bytes, digest })
    }
}

/// [`compare_call`] with the call's arguments already canonicalized ([`CanonicalArgs::of`] of
/// `call`'s arguments).
pub fn compare_call_canonical(
    p: &Sealed,
    session_id: Option<&str>,
    call: &Call,
    args: &CanonicalArgs,
) -> Result<Vec<Mismatch>, StatementError> {
    let mut out = Vec::new();
    let mut field = |field: &'static str, sealed: &str, recorded: &str| {
        if !ct_eq(sealed, recorded) {
            out.push(Mismatch {
                field,
                sealed: sealed.to_owned(),
                recorded: recorded.to_owned(),
            });
        }
    };
    field("call_id", &p.call_id, &call.id);
    if let Some(sid) = session_id {
        field("session_id", &p.session_id, sid);
    }
    field("server", &p.server, &call.server);
    field("tool", &p.tool, call.tool());
    // The arguments are canonicalized once, for both hashes; digests are compared as bytes
    // and written out in hex only when they differ.
    if !p.arguments_hash.matches(&args.digest) {
        out.push(Mismatch {
            field: "arguments_hash",
            sealed: p.arguments_hash.text.to_string(),
            recorded: hex::encode(args.digest),
        });
    }
    if p.called_at.at != call.issued_at {
        out.push(Mismatch {
            field: "called_at",
            sealed: p.called_at.text.to_string(),
            recorded: call.issued_at.to_string(),
        });
    }
    let recomputed = call_digest(call.tool(), &args.bytes, &call.id, &p.called_at.text)?;
    if !p.call_hash.matches(&recomputed) {
        out.push(Mismatch {
            field: "call_hash",
            sealed: p.call_hash.text.to_string(),
            recorded: hex::encode(recomputed),
        });
    }
    Ok(out)
}

/// Compares the freshness a (signature-verified) predicate seals with the recorded ingestion tag:
/// `returned_at` (sealed by every version) and, in v2, `fetched_at`, `ttl_seconds`, `cache.hit`
/// and `cache.original_fetched_at`. Times compare as instants (to the millisecond). Fields are
/// named `tag.<field>`. Empty when everything matches (or, for v1, when `returned_at` does).
pub fn compare_freshness(p: &Sealed, tag: &IngestTag) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let time = |field: &'static str, sealed: Option<&SealedTime>, recorded: Option<Timestamp>| {
        (sealed.map(|t| t.at) != recorded).then(|| Mismatch {
            field,
            sealed: sealed.map_or_else(|| "(none)".to_owned(), |t| t.text.to_string()),
            recorded: recorded.map_or_else(|| "(none)".to_owned(), |t| t.to_string()),
        })
    };
    out.extend(time(
        "tag.returned_at",
        Some(&p.returned_at),
        Some(tag.returned_at),
    ));
    if let Some(f) = &p.fetched_at {
        out.extend(time("tag.fetched_at", Some(f), Some(tag.fetched_at)));
    }
    if let Some(ttl) = p.ttl_seconds {
        if ttl != tag.ttl_seconds {
            let show = |t: Option<u64>| t.map_or_else(|| "(none)".to_owned(), |t| t.to_string());
            out.push(Mismatch {
                field: "tag.ttl_seconds",
                sealed: show(ttl),
                recorded: show(tag.ttl_seconds),
            });
        }
    }
    if let Some(c) = &p.cache {
        if c.hit != tag.cache.hit {
            out.push(Mismatch {
                field: "tag.cache.hit",
                sealed: c.hit.to_string(),
                recorded: tag.cache.hit.to_string(),
            });
        }
        out.extend(time(
            "tag.cache.original_fetched_at",
            c.original_fetched_at.as_ref(),
            tag.cache.original_fetched_at,
        ));
    }
    out
}

/// The sealed and recorded result hashes when they differ, `None` when they match.
pub fn compare_result(p: &Sealed, response: &CallResponse) -> Result<Option<Mismatch>, HashError> {
    let recorded = result_digest(response, &p.call_hash.text)?;
    Ok((!p.result_hash.matches(&recorded)).then(|| Mismatch {
        field: "result_hash",
        sealed: p.result_hash.text.to_string(),
        recorded: hex::encode(recorded),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(json: &str) -> CallResponse {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn result_hash_ignores_key_order_and_number_forms() {
        let a = response(
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"b":1,"a":1.0e2}}}"#,
        );
        let b = response(
            r#"{"id":1,"result":{"structuredContent":{"a":100,"b":1},"content":[{"text":"x","type":"text"}]}}"#,
        );
        assert_eq!(
            result_hash(&a, "00").unwrap(),
            result_hash(&b, "00").unwrap()
        );
        let c = response(
            r#"{"id":1,"result":{"structuredContent":{"a":101,"b":1},"content":[{"text":"x","type":"text"}]}}"#,
        );
        assert_ne!(
            result_hash(&a, "00").unwrap(),
            result_hash(&c, "00").unwrap()
        );
        // the call hash is chained in
        assert_ne!(
            result_hash(&a, "00").unwrap(),
            result_hash(&a, "01").unwrap()
        );
    }

    #[test]
    fn errors_and_results_hash_apart() {
        let e = response(r#"{"id":1,"error":{"code":-32000,"message":"boom"}}"#);
        let r = response(
            r#"{"id":1,"result":{"content":[],"error":{"code":-32000,"message":"boom"}}}"#,
        );
        assert_ne!(
            result_hash(&e, "00").unwrap(),
            result_hash(&r, "00").unwrap()
        );
        let n = response(r#"{"id":1}"#);
        assert_ne!(
            result_hash(&n, "00").unwrap(),
            result_hash(&e, "00").unwrap()
        );
    }

    /// The hashes assembled from canonical parts equal the canonical JSON of the whole object,
    /// as `serde_jcs` writes it, for any strings (escapes, control characters, non-BMP) and
    /// any arguments.
    fn whole_object_hashes(tool: &str, args: &str, id: &str, at: &str, text: &str) {
        use super::super::hash::canonical_sha256;
        let raw = RawValue::from_string(args.to_owned()).unwrap();
        let value: serde_json::Value = serde_json::from_str(args).unwrap();
        let whole = canonical_sha256(&serde_json::json!({
            "tool": tool, "arguments": value, "call_id": id, "called_at": at,
        }))
        .unwrap();
        let ch = call_hash(tool, Some(&raw), id, at).unwrap();
        assert_eq!(ch, whole, "call hash of {tool:?} {args} {id:?} {at:?}");
        let r = response(
            &serde_json::json!({"id": 1, "result": {"content": [{"type": "text", "text": text}],
                "structuredContent": value}})
            .to_string(),
        );
        let whole = canonical_sha256(&serde_json::json!({
            "result": serde_json::to_value(r.result.as_ref().unwrap()).unwrap(),
            "call_hash": ch,
        }))
        .unwrap();
        assert_eq!(
            result_hash(&r, &ch).unwrap(),
            whole,
            "result hash of {text:?}"
        );
    }

    #[test]
    fn assembled_hashes_equal_the_whole_objects() {
        whole_object_hashes(
            "t",
            r#"{"b":2,"a":"é"}"#,
            "req_1",
            "2026-01-01T00:00:00Z",
            "x",
        );
        whole_object_hashes(
            "a\"b\\c\u{1}\u{7f}\n",
            r#"{"\u20ac":1,"\r":[1e2,-0.0,1.5e-7,"\u0000"],"\ud83d\ude00":{"z":null,"a":true}}"#,
            "id \u{1F600} \t",
            "2026-01-01T00:00:00.123+02:00",
            "quote \" back \\ ctl \u{1f} emoji \u{1F600} \u{2028}",
        );
    }

    proptest::proptest! {
        #[test]
        fn assembled_hashes_equal_the_whole_objects_for_any_text(
            tool in "\\PC{0,12}|[\\x00-\\x7f]{0,12}",
            id in "\\PC{0,12}",
            key in "\\PC{0,6}|[\\x00-\\x20]{0,4}",
            text in "\\PC{0,40}|[\\x00-\\x7f]{0,40}",
            n in proptest::num::f64::NORMAL,
        ) {
            let args = serde_json::json!({ key.clone(): n, "k": [text.clone(), key] }).to_string();
            whole_object_hashes(&tool, &args, &id, "2026-01-01T00:00:00Z", &text);
        }
    }

    #[test]
    fn hex_digests_are_64_lowercase_hex_digits() {
        let text = "00ff10a9".repeat(8);
        let want: Vec<u8> = [0x00, 0xff, 0x10, 0xa9].repeat(8);
        assert_eq!(hex64_digest(&text).map(|d| d.to_vec()), Some(want));
        for bad in [
            "00FF10A9".repeat(8),
            "00ff10a9".repeat(8)[1..].to_owned(),
            format!("{}0", "00ff10a9".repeat(8)),
            format!("{}g", &"00ff10a9".repeat(8)[1..]),
            format!("{}é", &"00ff10a9".repeat(8)[2..]),
        ] {
            assert_eq!(hex64_digest(&bad), None, "{bad}");
        }
    }

    #[test]
    fn call_hash_is_jcs_of_the_fixed_object() {
        let args = RawValue::from_string(r#"{"b":2,"a":"é"}"#.into()).unwrap();
        let h = call_hash("t", Some(&args), "req_1", "2026-01-01T00:00:00Z").unwrap();
        let expected = {
            use sha2::{Digest, Sha256};
            let text = r#"{"arguments":{"a":"é","b":2},"call_id":"req_1","called_at":"2026-01-01T00:00:00Z","tool":"t"}"#;
            hex::encode(Sha256::digest(text.as_bytes()))
        };
        assert_eq!(h, expected);
        let none = call_hash("t", None, "req_1", "2026-01-01T00:00:00Z").unwrap();
        let empty = RawValue::from_string("{}".into()).unwrap();
        assert_eq!(
            none,
            call_hash("t", Some(&empty), "req_1", "2026-01-01T00:00:00Z").unwrap()
        );
    }
}
