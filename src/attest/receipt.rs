//! ArkForge Trust Layer "Agent Action Receipt" proofs (proof-spec 2.1.0): recomputing the
//! request, response and chain hashes and checking the issuer's Ed25519 signature.
//!
//! A proof carries `hashes.{request,response,chain}` (`sha256:<hex>`), `timestamp`,
//! `parties.{buyer_fingerprint,seller}`, `payment.transaction_id`, optionally
//! `upstream_timestamp` and `payment_evidence.receipt_content_hash`, and
//! `arkforge_signature` / `arkforge_pubkey` (`ed25519:` + base64url without padding).
//! The chain hash is computed one of two ways, selected by `spec_version`:
//!
//! - legacy (no `spec_version`, `1.0`, `1.1`, `2.0`): SHA-256 of the concatenation
//!   `request_hash + response_hash + transaction_id + timestamp + buyer_fingerprint + seller
//!   [+ upstream_timestamp] [+ receipt_content_hash]`;
//! - canonical JSON (`1.2`, `2.1`): SHA-256 of Python-canonical JSON ([`super::pyjson`]) of the
//!   object of those fields (`transaction_id` by that name).
//!
//! The issuer signs the chain hash's lowercase hex string (UTF-8) with Ed25519.
//!
//! The legacy concatenation does not separate its fields: `"ab" + "c"` and `"a" + "bc"` hash
//! alike, so characters could move between adjacent fields under the same signature. Every
//! bound field is therefore format-checked ([`field_problems`]: hashes and the fingerprint are
//! 64 lowercase hex digits, `timestamp` is RFC 3339, `upstream_timestamp` an HTTP date or RFC
//! 3339, `seller` a domain name, `transaction_id` printable without spaces); a legacy receipt
//! that fails is invalid, and every legacy receipt carries a warning.

use super::envelope::ct_eq;
use super::keys::{self, b64_decode, PublicKey, Signature};
use super::pyjson;
use serde_json::{Map, Value};

/// How the chain hash is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainAlgorithm {
    /// String concatenation (spec 1.1 / 2.0).
    Legacy,
    /// Python-canonical JSON of a dict (spec 1.2 / 2.1).
    CanonicalJson,
}

impl ChainAlgorithm {
    /// A short human name.
    pub fn name(self) -> &'static str {
        match self {
            ChainAlgorithm::Legacy => "legacy concatenation",
            ChainAlgorithm::CanonicalJson => "canonical JSON",
        }
    }

    /// The other algorithm.
    pub fn other(self) -> ChainAlgorithm {
        match self {
            ChainAlgorithm::Legacy => ChainAlgorithm::CanonicalJson,
            ChainAlgorithm::CanonicalJson => ChainAlgorithm::Legacy,
        }
    }
}

/// Why a receipt's field cannot be read, or its hashes computed.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptError {
    /// A `spec_version` this build does not verify.
    #[error("spec_version `{0}` is not supported (this build verifies 1.1, 1.2, 2.0 and 2.1)")]
    UnsupportedSpec(String),
    /// A field of another JSON type.
    #[error("`{field}` is {found}, expected a string")]
    NotAString {
        /// The dotted path of the field.
        field: String,
        /// What it is (`a number`, `null`, ...).
        found: &'static str,
    },
    /// A required field that is absent.
    #[error("`{0}` is missing")]
    Missing(String),
    /// `ed25519:` text that is not the expected key or signature.
    #[error("{what} {problem}")]
    Encoded {
        /// The field (`arkforge_signature`, `arkforge_pubkey`).
        what: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The embedded key is not a usable Ed25519 key.
    #[error(transparent)]
    Key(#[from] keys::KeyError),
    /// A body or the chain data has no canonical JSON form.
    #[error(transparent)]
    Hash(#[from] super::hash::HashError),
}

/// The algorithm a `spec_version` selects. Known: absent, `1.0`, `1.1`, `2.0` (legacy) and
/// `1.2`, `2.1` (canonical JSON); a patch level (`2.1.3`) is ignored.
pub fn algorithm_for(spec_version: Option<&str>) -> Result<ChainAlgorithm, ReceiptError> {
    let Some(v) = spec_version else {
        return Ok(ChainAlgorithm::Legacy);
    };
    let mut parts = v.trim().split('.');
    let major = parts.next().unwrap_or("");
    let minor = parts.next().unwrap_or("0");
    match (major, minor) {
        ("1", "0") | ("1", "1") | ("2", "0") => Ok(ChainAlgorithm::Legacy),
        ("1", "2") | ("2", "1") => Ok(ChainAlgorithm::CanonicalJson),
        _ => Err(ReceiptError::UnsupportedSpec(v.to_owned())),
    }
}

/// The values the chain hash binds (hashes as bare lowercase hex).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChainInput {
    /// SHA-256 of the canonical request.
    pub request_hash: String,
    /// SHA-256 of the canonical response.
    pub response_hash: String,
    /// `payment.transaction_id` (`payment_intent_id` in the vectors).
    pub transaction_id: String,
    /// `timestamp`.
    pub timestamp: String,
    /// SHA-256 of the API key.
    pub buyer_fingerprint: String,
    /// `parties.seller`.
    pub seller: String,
    /// `upstream_timestamp`, when present and not null.
    pub upstream_timestamp: Option<String>,
    /// `payment_evidence.receipt_content_hash` without `sha256:`, when present.
    pub receipt_content_hash: Option<String>,
}

/// Lowercase hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    super::hash::sha256_hex(&[bytes])
}

/// The canonical-JSON chain input (spec 1.2 / 2.1): Python-canonical JSON of the dict.
pub fn canonical_chain_data(c: &ChainInput) -> Result<String, ReceiptError> {
    let mut m = Map::new();
    m.insert(
        "buyer_fingerprint".into(),
        c.buyer_fingerprint.clone().into(),
    );
    m.insert("request_hash".into(), c.request_hash.clone().into());
    m.insert("response_hash".into(), c.response_hash.clone().into());
    m.insert("seller".into(), c.seller.clone().into());
    m.insert("timestamp".into(), c.timestamp.clone().into());
    m.insert("transaction_id".into(), c.transaction_id.clone().into());
    if let Some(u) = &c.upstream_timestamp {
        m.insert("upstream_timestamp".into(), u.clone().into());
    }
    if let Some(r) = &c.receipt_content_hash {
        m.insert("receipt_content_hash".into(), r.clone().into());
    }
    Ok(pyjson::dumps(&Value::Object(m))?)
}

/// The chain hash under one algorithm.
pub fn chain_hash(c: &ChainInput, alg: ChainAlgorithm) -> Result<String, ReceiptError> {
    match alg {
        ChainAlgorithm::Legacy => {
            let mut s = String::new();
            for part in [
                &c.request_hash,
                &c.response_hash,
                &c.transaction_id,
                &c.timestamp,
                &c.buyer_fingerprint,
                &c.seller,
            ] {
                s.push_str(part);
            }
            if let Some(u) = &c.upstream_timestamp {
                s.push_str(u);
            }
            if let Some(r) = &c.receipt_content_hash {
                s.push_str(r);
            }
            Ok(sha256_hex(s.as_bytes()))
        }
        ChainAlgorithm::CanonicalJson => Ok(sha256_hex(canonical_chain_data(c)?.as_bytes())),
    }
}

/// The hash of a request or response body: SHA-256 of its Python-canonical JSON.
pub fn body_hash(v: &Value) -> Result<String, ReceiptError> {
    Ok(sha256_hex(pyjson::dumps(v)?.as_bytes()))
}

/// The outcome of one verification step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Checked and right.
    Ok,
    /// Checked and wrong: the receipt is invalid.
    Failed,
    /// Not checked (the data was not given).
    Skipped,
}

/// One verification step.
#[derive(Clone, Debug)]
pub struct Step {
    /// `structure`, `request hash`, `response hash`, `chain hash`, `signature`.
    pub name: &'static str,
    /// Its outcome.
    pub status: Status,
    /// One sentence.
    pub detail: String,
}

/// Which key the signature verified under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignedBy {
    /// Not verified (no signature step succeeded).
    #[default]
    Nobody,
    /// A key pinned from a trusted source (`--pub`): proof of origin.
    PinnedKey,
    /// Only the key embedded in the receipt itself: whoever edits the receipt can replace it,
    /// so this is not proof of origin.
    EmbeddedKey,
}

/// Everything `verify` found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// `proof_id`, when present.
    pub proof_id: Option<String>,
    /// `spec_version`, when present.
    pub spec_version: Option<String>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Things a person should know that do not make the receipt invalid.
    pub warnings: Vec<String>,
    /// Which key the signature verified under.
    pub signed_by: SignedBy,
    /// The chain algorithm `spec_version` selects, once known.
    pub algorithm: Option<ChainAlgorithm>,
}

impl Report {
    /// Consistent: no step failed, and the signature was checked and is right (under a pinned
    /// key or only the embedded one: see [`Report::signed_by`]).
    pub fn valid(&self) -> bool {
        !self.steps.iter().any(|s| s.status == Status::Failed)
            && self
                .steps
                .iter()
                .any(|s| s.name == "signature" && s.status == Status::Ok)
    }

    fn push(&mut self, name: &'static str, status: Status, detail: impl std::fmt::Display) {
        self.steps.push(Step {
            name,
            status,
            detail: detail.to_string(),
        });
    }
}

/// What to verify against.
#[derive(Default)]
pub struct Options<'a> {
    /// Issuer keys pinned from a trusted source; empty means only the embedded key is available.
    pub pinned: &'a [PublicKey],
    /// The request body, to recompute `hashes.request`.
    pub request: Option<&'a Value>,
    /// The response body, to recompute `hashes.response`.
    pub response: Option<&'a Value>,
}

fn get<'v>(v: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(v, |cur, k| cur.get(k))
}

fn string_at(v: &Value, path: &[&str]) -> Result<String, ReceiptError> {
    match get(v, path) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(ReceiptError::NotAString {
            field: path.join("."),
            found: kind(other),
        }),
        None => Err(ReceiptError::Missing(path.join("."))),
    }
}

fn optional_string(v: &Value, path: &[&str]) -> Result<Option<String>, ReceiptError> {
    match get(v, path) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ReceiptError::NotAString {
            field: path.join("."),
            found: kind(other),
        }),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn strip_sha256(s: &str) -> String {
    s.strip_prefix("sha256:").unwrap_or(s).to_owned()
}

/// Reads the chain input out of a proof.
pub fn chain_input(receipt: &Value) -> Result<ChainInput, ReceiptError> {
    Ok(ChainInput {
        request_hash: strip_sha256(&string_at(receipt, &["hashes", "request"])?),
        response_hash: strip_sha256(&string_at(receipt, &["hashes", "response"])?),
        transaction_id: string_at(receipt, &["payment", "transaction_id"])?,
        timestamp: string_at(receipt, &["timestamp"])?,
        buyer_fingerprint: string_at(receipt, &["parties", "buyer_fingerprint"])?,
        seller: string_at(receipt, &["parties", "seller"])?,
        upstream_timestamp: optional_string(receipt, &["upstream_timestamp"])?,
        receipt_content_hash: optional_string(
            receipt,
            &["payment_evidence", "receipt_content_hash"],
        )?
        .map(|h| strip_sha256(&h)),
    })
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A domain name: dot-separated labels of letters, digits and inner hyphens (1-63 each), at
/// least two, at most 253 characters, the last not all digits.
fn is_domain(s: &str) -> bool {
    let labels: Vec<&str> = s.split('.').collect();
    s.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|l| {
            (1..=63).contains(&l.len())
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
        && labels
            .last()
            .is_some_and(|l| !l.bytes().all(|b| b.is_ascii_digit()))
}

fn is_rfc3339(s: &str) -> bool {
    time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).is_ok()
}

/// An HTTP date (RFC 9110 IMF-fixdate): `Wed, 15 Jan 2026 12:00:01 GMT`.
fn is_http_date(s: &str) -> bool {
    let f = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    time::PrimitiveDateTime::parse(s, &f).is_ok()
}

/// The format problems of a receipt's bound fields (empty when every field has its format).
pub fn field_problems(c: &ChainInput) -> Vec<String> {
    let mut out = Vec::new();
    for (name, v) in [
        ("hashes.request", &c.request_hash),
        ("hashes.response", &c.response_hash),
        ("parties.buyer_fingerprint", &c.buyer_fingerprint),
    ] {
        if !is_hex64(v) {
            out.push(format!("`{name}` is not 64 lowercase hex digits"));
        }
    }
    if let Some(r) = &c.receipt_content_hash {
        if !is_hex64(r) {
            out.push(
                "`payment_evidence.receipt_content_hash` is not 64 lowercase hex digits".into(),
            );
        }
    }
    if !is_rfc3339(&c.timestamp) {
        out.push("`timestamp` is not an RFC 3339 date-time".into());
    }
    if let Some(u) = &c.upstream_timestamp {
        if !is_http_date(u) && !is_rfc3339(u) {
            out.push("`upstream_timestamp` is neither an HTTP date nor RFC 3339".into());
        }
    }
    if !is_domain(&c.seller) {
        out.push("`parties.seller` is not a domain name".into());
    }
    if c.transaction_id.is_empty() || !c.transaction_id.bytes().all(|b| b.is_ascii_graphic()) {
        out.push("`payment.transaction_id` is empty or holds spaces, controls or non-ASCII".into());
    }
    out
}

fn parse_prefixed(text: &str, what: &str, len: usize) -> Result<Vec<u8>, ReceiptError> {
    let bad = |problem: String| ReceiptError::Encoded {
        what: what.to_owned(),
        problem,
    };
    let b64 = text
        .strip_prefix(keys::ED25519_PREFIX)
        .ok_or_else(|| bad("does not start with `ed25519:`".into()))?;
    let bytes = b64_decode(b64).map_err(|e| bad(format!("is not base64url ({e})")))?;
    if bytes.len() != len {
        return Err(bad(format!(
            "decodes to {} bytes; expected {len}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// Verifies a proof: structure, request/response hashes (when the bodies are given), the chain
/// hash under the algorithm its `spec_version` selects (reporting what the other algorithm
/// gives), and the Ed25519 signature over the chain hash, with pinned keys when given and
/// otherwise the embedded `arkforge_pubkey` (with a warning).
pub fn verify(receipt: &Value, opts: &Options) -> Report {
    let mut r = Report {
        proof_id: get(receipt, &["proof_id"])
            .and_then(Value::as_str)
            .map(str::to_owned),
        spec_version: get(receipt, &["spec_version"])
            .and_then(Value::as_str)
            .map(str::to_owned),
        ..Report::default()
    };
    if !receipt.is_object() {
        r.push(
            "structure",
            Status::Failed,
            "the receipt is not a JSON object",
        );
        return r;
    }
    // Present but not a string is not "absent" (which selects the legacy chain).
    if let Err(e) = optional_string(receipt, &["spec_version"]) {
        r.push("structure", Status::Failed, e);
        return r;
    }
    let input = match chain_input(receipt) {
        Ok(i) => i,
        Err(e) => {
            r.push("structure", Status::Failed, e);
            return r;
        }
    };
    let alg = match algorithm_for(r.spec_version.as_deref()) {
        Ok(a) => a,
        Err(e) => {
            r.push("structure", Status::Failed, e);
            return r;
        }
    };
    r.algorithm = Some(alg);
    let problems = field_problems(&input);
    match (alg, problems.is_empty()) {
        (_, true) => r.push("fields", Status::Ok, "every bound field has its format"),
        (ChainAlgorithm::Legacy, false) => r.push(
            "fields",
            Status::Failed,
            format!(
                "{}: in a legacy (concatenated) chain, characters can move between such fields \
                 under the same signature",
                problems.join("; ")
            ),
        ),
        (ChainAlgorithm::CanonicalJson, false) => {
            r.push(
                "fields",
                Status::Ok,
                "bound fields separable (canonical JSON)",
            );
            r.warnings
                .push(format!("malformed fields: {}", problems.join("; ")));
        }
    }
    if alg == ChainAlgorithm::Legacy {
        r.warnings.push(format!(
            "legacy chain (spec_version {}): the chain hash is a concatenation of the fields, \
             which are not separable (characters can move between adjacent fields without \
             changing it); their formats were checked, but only a canonical-JSON receipt \
             (spec_version 2.1) binds each field on its own",
            r.spec_version.as_deref().unwrap_or("absent")
        ));
    }
    // Request and response bodies.
    for (name, body, claimed, flag) in [
        (
            "request hash",
            opts.request,
            &input.request_hash,
            "--request",
        ),
        (
            "response hash",
            opts.response,
            &input.response_hash,
            "--response",
        ),
    ] {
        match body.map(body_hash) {
            None => r.push(
                name,
                Status::Skipped,
                format!("not recomputed (the body is not in the receipt; pass {flag} FILE)"),
            ),
            Some(Err(e)) => r.push(name, Status::Failed, e),
            Some(Ok(h)) if ct_eq(&h, claimed) => r.push(name, Status::Ok, format!("sha256:{h}")),
            Some(Ok(h)) => r.push(
                name,
                Status::Failed,
                format!("the body hashes to sha256:{h}, the receipt says sha256:{claimed}"),
            ),
        }
    }
    // Chain hash, under both algorithms.
    let claimed_chain = match string_at(receipt, &["hashes", "chain"]) {
        Ok(c) => strip_sha256(&c).to_ascii_lowercase(),
        Err(e) => {
            r.push("chain hash", Status::Failed, e);
            return r;
        }
    };
    let mine = chain_hash(&input, alg);
    let other = chain_hash(&input, alg.other());
    match (mine, other) {
        (Err(e), _) => r.push("chain hash", Status::Failed, e),
        (Ok(h), _) if ct_eq(&h, &claimed_chain) => r.push(
            "chain hash",
            Status::Ok,
            format!(
                "sha256:{h} ({}, spec_version {})",
                alg.name(),
                r.spec_version.as_deref().unwrap_or("absent")
            ),
        ),
        (Ok(h), Ok(o)) if ct_eq(&o, &claimed_chain) => r.push(
            "chain hash",
            Status::Failed,
            format!(
                "the receipt's chain hash is the {} one, but spec_version {} requires {} \
                 (sha256:{h})",
                alg.other().name(),
                r.spec_version.as_deref().unwrap_or("absent"),
                alg.name()
            ),
        ),
        (Ok(h), _) => r.push(
            "chain hash",
            Status::Failed,
            format!(
                "recomputed sha256:{h} ({}), the receipt says sha256:{claimed_chain}: a bound \
                 field was altered",
                alg.name()
            ),
        ),
    }
    // Signature over the claimed chain hash's hex string.
    let sig = match get(receipt, &["arkforge_signature"]) {
        None | Some(Value::Null) => {
            r.push(
                "signature",
                Status::Failed,
                "the receipt is unsigned (no arkforge_signature); a chain hash alone proves \
                 nothing, anyone can recompute it",
            );
            return r;
        }
        Some(Value::String(s)) => match parse_prefixed(s, "arkforge_signature", 64) {
            Ok(b) => {
                let mut arr = [0u8; 64];
                arr.copy_from_slice(&b);
                Signature::from_bytes(&arr)
            }
            Err(e) => {
                r.push("signature", Status::Failed, e);
                return r;
            }
        },
        Some(other) => {
            r.push(
                "signature",
                Status::Failed,
                format!("`arkforge_signature` is {}, expected a string", kind(other)),
            );
            return r;
        }
    };
    let embedded = match optional_string(receipt, &["arkforge_pubkey"]) {
        Ok(Some(k)) => match parse_prefixed(&k, "arkforge_pubkey", 32).and_then(|b| {
            Ok(keys::parse_public(&format!(
                "ed25519:{}",
                keys::b64_encode(&b)
            ))?)
        }) {
            Ok(k) => Some(k),
            Err(e) => {
                r.warnings
                    .push(format!("the embedded key is unusable: {e}"));
                None
            }
        },
        Ok(None) => None,
        Err(e) => {
            r.warnings.push(e.to_string());
            None
        }
    };
    let msg = claimed_chain.as_bytes();
    if opts.pinned.is_empty() {
        let Some(k) = embedded else {
            r.push(
                "signature",
                Status::Failed,
                "no key to verify with: the receipt embeds none and no --pub was given",
            );
            return r;
        };
        r.warnings.push(format!(
            "the only key is the one embedded in the receipt ({}); whoever can edit the receipt \
             can replace it. Pin the issuer's key with --pub",
            keys::compact(&k)
        ));
        if k.verify_strict(msg, &sig).is_ok() {
            r.signed_by = SignedBy::EmbeddedKey;
            r.push(
                "signature",
                Status::Ok,
                format!(
                    "verified with the embedded key {}, which the receipt brings itself: not \
                     proof of origin",
                    keys::compact(&k)
                ),
            );
        } else {
            r.push(
                "signature",
                Status::Failed,
                "does not verify under the embedded key",
            );
        }
        return r;
    }
    if let Some(k) = opts
        .pinned
        .iter()
        .find(|k| k.verify_strict(msg, &sig).is_ok())
    {
        r.signed_by = SignedBy::PinnedKey;
        let mut detail = format!("verified with the pinned key {}", keys::compact(k));
        if embedded.is_some_and(|e| e != *k) {
            detail.push_str(" (the receipt embeds a different key)");
        }
        r.push("signature", Status::Ok, detail);
    } else {
        let mut detail = format!(
            "does not verify under the {} pinned key(s)",
            opts.pinned.len()
        );
        if embedded.is_some_and(|e| e.verify_strict(msg, &sig).is_ok()) {
            detail.push_str("; it verifies under the embedded key, which is not pinned");
        }
        r.push("signature", Status::Failed, detail);
    }
    r
}
