//! Typed evidence: the values that prove a finding, one type per finding kind.
//!
//! The JSON form of every type is the documented `evidence` object of `docs/checks.md` and
//! `docs/verify-json.md` (keys in the order written there); readers (the explorer, reports, cases)
//! use the fields, never string keys.

use super::finding::Kind;
use super::verdict::TierSource;
use crate::model::{Name, Tier, Timestamp};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// The evidence of a finding; the variant always matches the finding's kind. Variants larger
/// than a few words are boxed: a report holds a finding per flagged statement, and the enum is
/// as large as its largest variant.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Evidence {
    /// `unsourced`.
    Unsourced(Unsourced),
    /// `dangling_origin`.
    DanglingOrigin(DanglingOrigin),
    /// `origin_mismatch`.
    OriginMismatch(Box<OriginMismatch>),
    /// `span_invalid`.
    SpanInvalid(Box<SpanInvalid>),
    /// `span_unsupported`.
    SpanUnsupported(SpanUnsupported),
    /// `ambiguous_support`.
    AmbiguousSupport(AmbiguousSupport),
    /// `stale`.
    Stale(Stale),
    /// `below_tier`.
    BelowTier(BelowTier),
    /// `citation_drift`.
    CitationDrift(CitationDrift),
    /// `parallel_conflict`.
    ParallelConflict(Box<ParallelConflict>),
    /// `flattened_context`.
    FlattenedContext(FlattenedContext),
    /// `injection_suspect`.
    InjectionSuspect(InjectionSuspect),
    /// `envelope_missing`.
    EnvelopeMissing(EnvelopeMissing),
    /// `envelope_invalid`.
    EnvelopeInvalid(Box<EnvelopeInvalid>),
    /// `result_tampered`.
    ResultTampered(Box<ResultTampered>),
    /// `envelope_partial`.
    EnvelopePartial(Box<EnvelopePartial>),
    /// `answer_mismatch`.
    AnswerMismatch(Box<AnswerMismatch>),
    /// `tier_rendering`.
    TierRendering(Box<TierRendering>),
    /// `tier_review_overdue`.
    TierReviewOverdue(Box<TierReviewOverdue>),
    /// `untrusted_context`.
    UntrustedContext(Box<UntrustedContext>),
    /// `sub_agent_source`.
    SubAgentSource(Box<SubAgentSource>),
}

impl Evidence {
    /// The finding kind this evidence belongs to.
    pub fn kind(&self) -> Kind {
        match self {
            Evidence::Unsourced(_) => Kind::Unsourced,
            Evidence::DanglingOrigin(_) => Kind::DanglingOrigin,
            Evidence::OriginMismatch(_) => Kind::OriginMismatch,
            Evidence::SpanInvalid(_) => Kind::SpanInvalid,
            Evidence::SpanUnsupported(_) => Kind::SpanUnsupported,
            Evidence::AmbiguousSupport(_) => Kind::AmbiguousSupport,
            Evidence::Stale(_) => Kind::Stale,
            Evidence::BelowTier(_) => Kind::BelowTier,
            Evidence::CitationDrift(_) => Kind::CitationDrift,
            Evidence::ParallelConflict(_) => Kind::ParallelConflict,
            Evidence::FlattenedContext(_) => Kind::FlattenedContext,
            Evidence::InjectionSuspect(_) => Kind::InjectionSuspect,
            Evidence::EnvelopeMissing(_) => Kind::EnvelopeMissing,
            Evidence::EnvelopeInvalid(_) => Kind::EnvelopeInvalid,
            Evidence::ResultTampered(_) => Kind::ResultTampered,
            Evidence::EnvelopePartial(_) => Kind::EnvelopePartial,
            Evidence::AnswerMismatch(_) => Kind::AnswerMismatch,
            Evidence::TierRendering(_) => Kind::TierRendering,
            Evidence::TierReviewOverdue(_) => Kind::TierReviewOverdue,
            Evidence::UntrustedContext(_) => Kind::UntrustedContext,
            Evidence::SubAgentSource(_) => Kind::SubAgentSource,
        }
    }

    /// The documented JSON object (as in `verify --format json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The evidence as `(key, value)` rows for people: strings bare, lists comma-separated,
    /// objects as `key value` pairs. Values come from logs: sanitize before drawing them.
    pub fn rows(&self) -> Vec<(String, String)> {
        let serde_json::Value::Object(m) = self.to_json() else {
            return Vec::new();
        };
        m.into_iter().map(|(k, v)| (k, readable(&v))).collect()
    }
}

/// A JSON value as people read it.
fn readable(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "none".into(),
        Value::Array(a) => a.iter().map(readable).collect::<Vec<_>>().join(", "),
        Value::Object(m) => m
            .iter()
            .filter(|(_, x)| !x.is_null())
            .map(|(k, x)| format!("{k} {}", readable(x)))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// `unsourced`: the citation marker an unsourced claim was rendered with, if any.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unsourced {
    /// The marker shown to the user (an unearned citation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
}

/// `dangling_origin`: the cited call id and why it does not resolve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DanglingOrigin {
    /// The cited call id.
    pub tool_call_id: String,
    /// Set when no such call was recorded: how many calls the session has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_calls: Option<usize>,
    /// Set when the call was recorded but never answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A stamp value next to the recorded one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Disagreement<T> {
    /// As stamped.
    pub stamp: T,
    /// As recorded.
    pub recorded: T,
}

/// `origin_mismatch`: every origin field that disagrees with the recording (absent = agrees).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OriginMismatch {
    /// Server names.
    pub server: Option<Disagreement<String>>,
    /// Tool names.
    pub tool: Option<Disagreement<String>>,
    /// Arguments hashes.
    pub arguments_hash: Option<Disagreement<String>>,
    /// Fetch times.
    pub fetched_at: Option<Disagreement<Timestamp>>,
    /// TTLs in seconds.
    pub ttl_seconds: Option<Disagreement<u64>>,
}

impl OriginMismatch {
    /// The names of the fields that disagree, in documentation order.
    pub fn fields(&self) -> Vec<&'static str> {
        [
            ("server", self.server.is_some()),
            ("tool", self.tool.is_some()),
            ("arguments_hash", self.arguments_hash.is_some()),
            ("fetched_at", self.fetched_at.is_some()),
            ("ttl_seconds", self.ttl_seconds.is_some()),
        ]
        .into_iter()
        .filter_map(|(n, on)| on.then_some(n))
        .collect()
    }
}

impl Serialize for OriginMismatch {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(d) = &self.server {
            m.serialize_entry("server", d)?;
        }
        if let Some(d) = &self.tool {
            m.serialize_entry("tool", d)?;
        }
        if let Some(d) = &self.arguments_hash {
            m.serialize_entry("arguments_hash", d)?;
        }
        if let Some(d) = &self.fetched_at {
            m.serialize_entry("fetched_at", d)?;
        }
        if let Some(d) = &self.ttl_seconds {
            m.serialize_entry("ttl_seconds", d)?;
        }
        m.end()
    }
}

/// `span_invalid`: which part of the span does not resolve (empty when there is no span).
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct SpanInvalid {
    /// The cited block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<u64>,
    /// How many blocks the result has (when the block is missing or has no text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<usize>,
    /// Span start (when the offsets are invalid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// Span end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<u64>,
    /// The block's length in `unit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_length: Option<u64>,
    /// How offsets are counted: `char`, `utf8` or `utf16`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// `span_unsupported`: the support score, the claim's missing tokens and the cited text.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpanUnsupported {
    /// Support score, rounded to 2 decimals.
    pub support: f64,
    /// Claim tokens the span does not contain.
    pub missing: Vec<String>,
    /// The cited span's text.
    pub span_text: String,
}

/// A result in context that supports a claim as well as the cited one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rival {
    /// Its call id.
    pub call_id: String,
    /// Its server.
    pub server: String,
    /// Its support score.
    pub support: f64,
}

/// `ambiguous_support`: the cited span's support and every rival.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AmbiguousSupport {
    /// Support of the cited span.
    pub cited_support: f64,
    /// Rivals in context.
    pub rivals: Vec<Rival>,
}

/// `stale`: the freshness arithmetic.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stale {
    /// When the data was fetched (the original fetch for cache hits).
    pub fetched_at: Timestamp,
    /// The TTL applied.
    pub ttl_seconds: u64,
    /// `fetched_at + ttl_seconds`.
    pub expired_at: Timestamp,
    /// When the answer was generated.
    pub generated_at: Timestamp,
    /// Age at answer time.
    pub age_seconds: i64,
    /// How long past the TTL.
    pub over_by_seconds: i64,
    /// Served from a cache.
    pub cache_hit: bool,
}

/// `below_tier`: the origin server, its effective tier and the policy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BelowTier {
    /// Origin server.
    pub server: String,
    /// Its effective tier.
    pub tier: Tier,
    /// The render policy applied.
    pub policy: String,
}

/// One statement of a claim in a drift history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriftEntry {
    /// Turn.
    pub turn: u32,
    /// Claim id stated (shared with the session's claim).
    pub claim_id: Name,
    /// Cited call, if any.
    pub call_id: Option<Name>,
    /// Whether the cited call was in context at that turn (null: unknown or unsourced).
    pub in_context: Option<Option<bool>>,
    /// The cited span's text (shared by the statements of the claim that cite the same text).
    pub value: Option<Name>,
}

/// `citation_drift`: a bounded window of the claim's binding history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CitationDrift {
    /// The first statement, the last few before this one, and this one.
    pub history: DriftHistory,
    /// How many statements the whole history has.
    pub history_length: usize,
}

/// The statements a drift finding shows: a window over the statements of its claim that some
/// finding shows, which every drift finding of the claim shares (a claim restated in many
/// turns drifts in many of them, and each window repeats most of the last one). Serializes as
/// the list of its entries.
#[derive(Clone, Debug, PartialEq)]
pub struct DriftHistory {
    statements: std::sync::Arc<[DriftEntry]>,
    /// Whether `statements[0]` (the first statement) leads the window.
    lead: bool,
    /// The window's other entries: `statements[from..to]`.
    from: u32,
    to: u32,
}

impl DriftHistory {
    /// `statements[0]` when `lead`, then `statements[range]` (clamped to the statements).
    pub fn new(
        statements: std::sync::Arc<[DriftEntry]>,
        lead: bool,
        range: std::ops::Range<usize>,
    ) -> Self {
        let n = statements.len();
        let to = range.end.min(n);
        let from = range.start.min(to);
        DriftHistory {
            statements,
            lead: lead && n > 0,
            from: u32::try_from(from).unwrap_or(u32::MAX),
            to: u32::try_from(to).unwrap_or(u32::MAX),
        }
    }

    /// The entries, in turn order.
    pub fn entries(&self) -> impl Iterator<Item = &DriftEntry> {
        let lead = self.statements.iter().take(usize::from(self.lead));
        let rest = self
            .statements
            .get(self.from as usize..self.to as usize)
            .unwrap_or_default();
        lead.chain(rest)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        usize::from(self.lead) + (self.to - self.from) as usize
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Serialize for DriftHistory {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.entries())
    }
}

/// One side of a parallel conflict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConflictSide {
    /// Call id.
    pub call_id: String,
    /// Server.
    pub server: String,
    /// Tool.
    pub tool: String,
    /// Effective tier.
    pub tier: Tier,
    /// The value this side stated.
    pub value: String,
    /// When the call was issued.
    pub issued_at: Timestamp,
    /// When its result returned.
    pub returned_at: Timestamp,
}

/// `parallel_conflict`: the two sides, issue and arrival order, whether the answer surfaced it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParallelConflict {
    /// The cited side.
    pub cited: ConflictSide,
    /// The sibling that disagrees.
    pub other: ConflictSide,
    /// Call ids in issue order.
    pub issue_order: Vec<String>,
    /// Call ids in arrival order.
    pub arrival_order: Vec<String>,
    /// Whether the answer tells the user the sources disagree.
    pub surfaced: bool,
    /// The fan-out group id, if recorded.
    pub fanout: Option<String>,
}

/// `flattened_context`: the calls that entered context without a marker.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlattenedContext {
    /// Unmarked call ids.
    pub unmarked_calls: Vec<String>,
}

/// `injection_suspect`: the untrusted tier and what looked like steering.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InjectionSuspect {
    /// The result's server tier.
    pub tier: Tier,
    /// What was found, per block.
    pub signals: Vec<String>,
}

/// Who requires envelopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RequiredBy {
    /// The session header's `require_envelopes`.
    Session,
    /// `require_envelopes` in provscope.toml.
    Config,
}

/// `envelope_missing`: the unattested call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvelopeMissing {
    /// Its server.
    pub server: String,
    /// Its tool.
    pub tool: String,
    /// Who requires envelopes.
    pub required_by: RequiredBy,
}

/// Why an envelope is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InvalidReason {
    /// The envelope names a call that was not recorded.
    UnknownCall,
    /// Not a DSSE envelope.
    Malformed,
    /// The payload is not the execution statement.
    BadPayload,
    /// The sealed call is not the recorded call.
    CallMismatch,
    /// The delivered result cannot be hashed.
    UnhashableResult,
    /// The header trusts no attestor key for the server.
    NoTrustedKeys,
    /// Signed by the tool server's own key.
    SelfAttestation,
    /// Signed by a key the header does not trust.
    UntrustedKey,
    /// A signature verifies under no known key.
    BadSignature,
    /// An ArkForge receipt fails a step of its own verification (structure, field formats,
    /// chain hash); `field` names the step.
    ReceiptInvalid,
}

/// One sealed field that differs from the recording.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SealMismatch {
    /// The predicate field.
    pub field: &'static str,
    /// Sealed value.
    pub sealed: String,
    /// Recomputed from the recording.
    pub recorded: String,
}

/// `envelope_invalid`: the envelope's line, the reason, and the reason's details.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvelopeInvalid {
    /// Line of the `envelope` event.
    pub envelope_line: u64,
    /// The attested call's server, when the call was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Why it is invalid.
    pub reason: InvalidReason,
    /// `malformed`: the envelope field at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// `bad_payload`: the payload type found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_type: Option<String>,
    /// Signature reasons: how many attestor keys the header trusts for the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trusted_keys: Option<usize>,
    /// Header keys that did not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unusable_header_keys: Option<Vec<String>>,
    /// `call_mismatch`: every differing field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatches: Option<Vec<SealMismatch>>,
    /// The key id that signed (verified signer, or the offending key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyid: Option<String>,
    /// `bad_signature`: the signature's own (unverified) keyid hint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyid_hint: Option<String>,
    /// Which signature (0-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<usize>,
    /// `call_mismatch` on the call hash: sealed value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealed_call_hash: Option<String>,
    /// `call_mismatch` on the call hash: recomputed value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_call_hash: Option<String>,
    /// An ArkForge receipt's `proof_id`, when the envelope event carries a receipt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_id: Option<String>,
}

impl EnvelopeInvalid {
    /// Evidence with only the line, server and reason set.
    pub fn new(envelope_line: u64, server: Option<String>, reason: InvalidReason) -> Self {
        EnvelopeInvalid {
            envelope_line,
            server,
            reason,
            field: None,
            payload_type: None,
            trusted_keys: None,
            unusable_header_keys: None,
            mismatches: None,
            keyid: None,
            keyid_hint: None,
            signature: None,
            sealed_call_hash: None,
            recorded_call_hash: None,
            proof_id: None,
        }
    }
}

/// `result_tampered`: sealed and recomputed result hashes, and who sealed them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResultTampered {
    /// Sealed result hash.
    pub sealed_result_hash: String,
    /// Recomputed from the recorded result.
    pub recorded_result_hash: String,
    /// The sealed call hash the result hash chains to.
    pub call_hash: String,
    /// The call's server.
    pub server: String,
    /// The attestor's id.
    pub attestor: String,
    /// The verified signer's key id.
    pub keyid: String,
    /// Line of the envelope.
    pub envelope_line: u64,
    /// Line of the result.
    pub result_line: u64,
    /// Every field that differs: `result_hash`, `tag.returned_at`, `tag.fetched_at`,
    /// `tag.ttl_seconds`, `tag.cache.hit`, `tag.cache.original_fetched_at`.
    pub tampered_fields: Vec<&'static str>,
    /// Each differing field with its sealed and recorded value.
    pub mismatches: Vec<SealMismatch>,
}

/// Why a verified envelope does not vouch for everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialReason {
    /// A v1 predicate: `fetched_at`, `ttl_seconds` and `cache` are not sealed.
    FreshnessUnattested,
    /// The arguments or the result hold numbers RFC 8785 cannot represent exactly, so the
    /// hashes do not see their exact value.
    InexactNumbers,
    /// An ArkForge receipt whose chain hash is the legacy concatenation, which does not
    /// separate its fields.
    LegacyReceipt,
}

/// `envelope_partial`: a verified envelope, and what it does not vouch for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvelopePartial {
    /// Why.
    pub reason: PartialReason,
    /// The call's server.
    pub server: String,
    /// The verified signer's key id.
    pub keyid: String,
    /// Line of the envelope.
    pub envelope_line: u64,
    /// `freshness_unattested`: the predicate type; `legacy_receipt`: the receipt's
    /// `spec_version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate_type: Option<String>,
    /// What is not vouched for: tag fields, or the paths of the numbers
    /// (`response.result.structuredContent.id`, `arguments.n`).
    pub unattested: Vec<String>,
    /// `inexact_numbers`: the inexact numbers the log holds now, as `path = number`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numbers: Option<Vec<String>>,
}

/// What is wrong between the answer text and its stamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerReason {
    /// The stamp's marker does not appear in the answer text.
    MarkerAbsent,
    /// The answer text at the marker states another value (number, date) than the claim.
    Contradicted,
    /// The answer text at the marker does not state the claim.
    NotStated,
    /// The answer says something at a marker that none of that marker's stamps state.
    Unstamped,
}

/// `answer_mismatch`: the marker, the answer passage and the values that disagree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnswerMismatch {
    /// Why.
    pub reason: AnswerReason,
    /// The marker (several, space-separated, for a passage closed by adjacent markers).
    pub marker: Option<String>,
    /// The answer text at the marker (null when the marker is absent).
    pub passage: Option<String>,
    /// `contradicted`: the claim's values the passage lacks; `not_stated`: its missing tokens.
    pub claim_values: Vec<String>,
    /// `contradicted`: the passage's values in their place; `unstamped`: every value it states.
    pub answer_values: Vec<String>,
    /// `unstamped`: the claims stamped with the marker.
    pub claims: Vec<String>,
}

/// Which tier rendering rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TierRule {
    /// T1: stamped and labelled (the marker shown, or the source named).
    T1Label,
    /// T2: facts only, attributed (an attribution phrase or the source named).
    T2Attribution,
}

/// `tier_rendering`: the rule, the server and what the answer shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierRendering {
    /// The rule broken.
    pub rule: TierRule,
    /// Origin server.
    pub server: String,
    /// Its effective tier.
    pub tier: Tier,
    /// The stamp's marker, if any.
    pub marker: Option<String>,
    /// The answer text where the claim is stated (its marker's passage, or its best sentence).
    pub passage: Option<String>,
}

/// `tier_review_overdue`: the `[tiers]` entry and its schedule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierReviewOverdue {
    /// Origin server.
    pub server: String,
    /// The `[tiers]` pattern that grants its tier.
    pub pattern: String,
    /// The tier granted.
    pub tier: Tier,
    /// Last review (`reviewed`).
    pub reviewed: Timestamp,
    /// `review_every`, in seconds.
    pub review_every_seconds: u64,
    /// `reviewed + review_every`.
    pub due: Timestamp,
    /// When the answer was generated.
    pub generated_at: Timestamp,
}

/// `untrusted_context`: the server, its tier and where it came from, the policy, the turns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UntrustedContext {
    /// The result's server.
    pub server: String,
    /// Its effective tier.
    pub tier: Tier,
    /// Where the tier came from (`undeclared`: nowhere).
    pub tier_from: TierSource,
    /// The session's render policy (header, else `default_policy`).
    pub policy: String,
    /// Every turn whose context held the result.
    pub turns: Vec<u32>,
    /// Claims citing it (empty: background only).
    pub cited_by: Vec<String>,
}

/// Why a claim citing a sub-agent is flagged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubReason {
    /// The sub-agent's own stamp for the claim has a wrong source.
    WrongStamp,
    /// No stamp of the sub-agent states the claim.
    Unstamped,
    /// The sub-agent's session could not be followed.
    Unresolved,
}

/// A sub-agent stamp a claim rests on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubClaimRef {
    /// The sub-agent's claim id.
    pub claim_id: String,
    /// Its turn.
    pub turn: u32,
    /// Its source verdict in the sub-session.
    pub source_verdict: super::grid::SourceVerdict,
    /// Its error findings, as `kind: message`.
    pub findings: Vec<String>,
}

/// `sub_agent_source`: the sub-session, how it was followed, and the stamps the claim rests on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubAgentSource {
    /// Why.
    pub reason: SubReason,
    /// The linked session id.
    pub sub_session_id: String,
    /// The log followed (null when unresolved).
    pub path: Option<String>,
    /// Its depth (1: a sub-agent of the session given).
    pub depth: Option<u32>,
    /// `unresolved`: why it could not be followed.
    pub problem: Option<super::sub::SubProblem>,
    /// `unresolved`: details.
    pub detail: Option<String>,
    /// The sub-agent stamps that state the claim.
    pub sub_claims: Vec<SubClaimRef>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn evidence_stays_a_few_words() {
        // A report holds one finding per flagged statement, and the enum is as large as its
        // largest variant: large variants are boxed.
        let n = std::mem::size_of::<Evidence>();
        assert!(n <= 72, "Evidence is {n} bytes");
    }

    fn entry(turn: u32) -> DriftEntry {
        DriftEntry {
            turn,
            claim_id: format!("c{turn}").into(),
            call_id: Some(format!("call_{turn}").into()),
            in_context: Some(Some(true)),
            value: None,
        }
    }

    #[test]
    fn drift_history_serializes_its_window() {
        let all: Arc<[DriftEntry]> = (1..=5).map(entry).collect();
        let turns = |h: &DriftHistory| h.entries().map(|e| e.turn).collect::<Vec<_>>();
        let h = DriftHistory::new(all.clone(), true, 2..4);
        assert_eq!(turns(&h), [1, 3, 4]);
        assert_eq!(h.len(), 3);
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(json.as_array().map(Vec::len), Some(3));
        assert_eq!(json[1]["claim_id"], "c3");
        let h = DriftHistory::new(all.clone(), false, 0..5);
        assert_eq!(turns(&h), [1, 2, 3, 4, 5]);
        // Out-of-range windows are clamped, never a panic.
        let h = DriftHistory::new(all, false, 4..99);
        assert_eq!(turns(&h), [5]);
        #[allow(clippy::reversed_empty_ranges)]
        let h = DriftHistory::new(Arc::from(Vec::new()), true, 3..1);
        assert!(h.is_empty());
        assert_eq!(serde_json::to_string(&h).unwrap(), "[]");
    }
}
