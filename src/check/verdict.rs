//! What `check` publishes about each claim and call, typed, so the explorer and every exporter
//! render decisions instead of re-deriving them: the resolved cited span, freshness and where the
//! TTL came from, the effective tier and where it came from, the render policy, drift groups,
//! fan-out groups, envelope status and the quadrant (computed, and effective with a hand
//! classification).

use super::finding::Finding;
use super::grid::{FactVerdict, Quadrant, SourceVerdict};
use crate::model::{Name, Session, Tier, Timestamp};
use serde::Serialize;
use std::ops::Range;

/// The verdicts of one claim statement (one claim in one turn).
#[derive(Clone, Debug, Serialize)]
pub struct ClaimVerdict {
    /// Claim id (shared with the session's claim).
    pub claim_id: Name,
    /// Turn.
    pub turn: u32,
    /// The claim text (shared with the session's claim).
    pub claim_text: Name,
    /// Cited call, if any.
    pub call_id: Option<Name>,
    /// Who made the stamp: the log's producer (`declared`) or an importer from the API's own
    /// citations (`derived`).
    pub provenance: crate::model::Provenance,
    /// Source axis.
    pub source_verdict: SourceVerdict,
    /// Fact axis.
    pub fact_verdict: FactVerdict,
    /// Where the fact label came from.
    pub fact_source: Option<Name>,
    /// The grid cell, when both axes are known.
    pub quadrant: Option<Quadrant>,
    /// Support of the claim by its span, when it resolves.
    pub support: Option<f64>,
    /// Indexes into the report's findings.
    #[serde(skip)]
    pub findings: Vec<usize>,
    /// Log line of the answer.
    pub line: u64,
    /// JSON path of the claim's record (its citation) in an imported document.
    #[serde(skip)]
    pub json_path: Option<crate::model::Name>,
    /// Position in the answer's claim list.
    #[serde(skip)]
    pub position: usize,
    /// The cited span, when the origin and span resolve.
    #[serde(skip)]
    pub cited: Option<CitedSpan>,
    /// Freshness of the cited result at answer time, when an origin exists.
    #[serde(skip)]
    pub freshness: Option<Freshness>,
    /// The origin server's effective tier, when an origin exists.
    #[serde(skip)]
    pub tier: Option<EffectiveTier>,
    /// The render policy applied to the claim.
    #[serde(skip)]
    pub policy: Policy,
    /// Whether the cited call was in context at this turn (`None`: no context recorded, or
    /// unsourced).
    #[serde(skip)]
    pub in_context: Option<bool>,
    /// Index into the report's drift groups, when the claim is stated in several turns.
    #[serde(skip)]
    pub drift_group: Option<u32>,
    /// Index into the report's fan-outs, when the cited call was issued with others.
    #[serde(skip)]
    pub fanout: Option<u32>,
    /// Where the answer text states the claim, as the answer checks read it.
    #[serde(skip)]
    pub answer: Option<AnswerPassage>,
    /// When the claim cites a sub-agent's answer: the sub-agent's own stamp it rests on
    /// (boxed: most claims cite none, and a report holds every claim).
    #[serde(skip)]
    pub sub_claim: Option<Box<SubClaim>>,
}

/// The sub-agent's stamp a claim citing its answer rests on (`sub_agent_source`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubClaim {
    /// The sub-agent's session id (open it with the call's sub-session link).
    pub session_id: String,
    /// The sub-agent's claim id (the first, when several state it).
    pub claim_id: String,
    /// Its turn.
    pub turn: u32,
    /// Its source verdict in the sub-session (wrong when any matching stamp is wrong).
    pub source_verdict: SourceVerdict,
}

/// A call's link to the session of the sub-agent it ran, as `verify` followed it.
#[derive(Clone, Debug, PartialEq)]
pub struct SubSessionLink {
    /// The call.
    pub call_id: String,
    /// The linked session id.
    pub id: String,
    /// What following it gave.
    pub status: SubStatus,
}

/// The outcome of following a sub-session link.
#[derive(Clone, Debug, PartialEq)]
pub enum SubStatus {
    /// Loaded and checked.
    Checked {
        /// The log, as followed.
        path: String,
        /// 1 for a sub-agent of the session given, 2 for its sub-agents, ...
        depth: u32,
        /// Its claim statements.
        claims: usize,
        /// Its findings.
        findings: usize,
        /// Its most serious finding.
        worst: Option<super::Severity>,
    },
    /// Not followed.
    Unresolved {
        /// Why.
        problem: super::sub::SubProblem,
        /// Details.
        detail: String,
    },
}

/// What the answer text shows of a claim statement (`answer_mismatch`, `tier_rendering`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerPassage {
    /// Whether the stamp's marker appears in the answer text (`None`: the stamp has no marker).
    pub marker_shown: Option<bool>,
    /// Byte range in the answer text of the passage that states the claim (its marker's
    /// passage, or for a claim without a marker the sentence that states it best).
    pub range: Option<Range<usize>>,
    /// Whether a passage of its marker states the claim.
    pub stated: bool,
}

impl AnswerPassage {
    /// The passage's text in the answer it was computed from.
    pub fn text<'a>(&self, answer: &'a str) -> Option<&'a str> {
        answer.get(self.range.clone()?)
    }
}

impl ClaimVerdict {
    /// The cited span's text in `s` (the session this verdict was computed from).
    pub fn cited_text<'s>(&self, s: &'s Session) -> Option<&'s str> {
        let c = self.cited.as_ref()?;
        let text = s.result(&c.call_id)?.block_text(c.block)?;
        text.get(c.range.clone())
    }

    /// The quadrant to show: a hand classification wins over the computed one.
    pub fn effective_quadrant(&self, by_hand: Option<Quadrant>) -> Option<EffectiveQuadrant> {
        match (by_hand, self.quadrant) {
            (Some(q), _) => Some(EffectiveQuadrant {
                quadrant: q,
                by_hand: true,
            }),
            (None, Some(q)) => Some(EffectiveQuadrant {
                quadrant: q,
                by_hand: false,
            }),
            (None, None) => None,
        }
    }
}

/// A quadrant and whether an engineer set it by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EffectiveQuadrant {
    /// The cell.
    pub quadrant: Quadrant,
    /// Classified by hand (otherwise computed from labels and findings).
    pub by_hand: bool,
}

/// The resolved span of a stamp: which block of which result, and the byte range in its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CitedSpan {
    /// The cited call (shared with the session's result).
    pub call_id: Name,
    /// Content block index.
    pub block: u64,
    /// Byte range in the block's citable text.
    pub range: Range<usize>,
}

/// Where a TTL came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TtlSource {
    /// The result's ingestion tag.
    Tag,
    /// The claim's stamp (`origin.ttl_seconds`).
    Stamp,
    /// `default_ttl_seconds` in the configuration: the source had none.
    ConfigDefault,
}

impl TtlSource {
    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            TtlSource::Tag => "from the ingestion tag",
            TtlSource::Stamp => "from the stamp",
            TtlSource::ConfigDefault => "configured default (the source had none)",
        }
    }
}

/// Freshness of a cited result when the answer was generated.
#[derive(Clone, Debug, PartialEq)]
pub struct Freshness {
    /// When the data was really fetched (the original fetch for cache hits).
    pub fetched_at: Timestamp,
    /// When the tag says it was served (differs from `fetched_at` for cache hits).
    pub served_at: Timestamp,
    /// Served from a cache.
    pub cache_hit: bool,
    /// The TTL applied, in seconds.
    pub ttl_seconds: u64,
    /// Where the TTL came from.
    pub ttl_from: TtlSource,
    /// `fetched_at + ttl_seconds`.
    pub expires_at: Timestamp,
    /// Age at answer time in milliseconds (`None` when the turn has no answer).
    pub age_ms: Option<i64>,
    /// Past its TTL at answer time.
    pub stale: bool,
}

/// Where a server's tier came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TierSource {
    /// `[tiers]` in provscope.toml.
    Config,
    /// The session header's `servers`.
    Header,
    /// Declared nowhere: `unknown`.
    Undeclared,
}

impl TierSource {
    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            TierSource::Config => "from provscope.toml",
            TierSource::Header => "declared in the session header",
            TierSource::Undeclared => "declared nowhere",
        }
    }
}

/// A server's tier as the checks applied it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EffectiveTier {
    /// The tier.
    pub tier: Tier,
    /// Where it came from.
    pub from: TierSource,
    /// When the `[tiers]` entry that grants it is due for review (`reviewed + review_every`),
    /// when it has a schedule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_due: Option<Timestamp>,
}

/// The effective tier of every server a session called, sorted by server name. A sorted list,
/// the names the session's calls hold: a session calls a few servers, where a `BTreeMap`'s
/// first node took 544 bytes of every session report (10,000 sessions of two servers held
/// 6.4 MB in them). Serialized as a map, in name order, as the `BTreeMap` was.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerTiers(Box<[(Name, EffectiveTier)]>);

impl ServerTiers {
    /// A server's effective tier, if the session called it.
    pub fn get(&self, server: &str) -> Option<&EffectiveTier> {
        self.0
            .binary_search_by(|(name, _)| name.as_str().cmp(server))
            .ok()
            .map(|i| &self.0[i].1)
    }

    /// The servers and their tiers, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &EffectiveTier)> {
        self.0.iter().map(|(name, t)| (name.as_str(), t))
    }

    /// How many servers.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no server was called.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(Name, EffectiveTier)> for ServerTiers {
    /// Sorted by name; of a name given twice, the first tier is kept.
    fn from_iter<I: IntoIterator<Item = (Name, EffectiveTier)>>(it: I) -> Self {
        let mut v: Vec<(Name, EffectiveTier)> = it.into_iter().collect();
        v.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        v.dedup_by(|later, first| later.0.as_str() == first.0.as_str());
        ServerTiers(v.into_boxed_slice())
    }
}

impl Serialize for ServerTiers {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_map(self.iter())
    }
}

/// Where a claim's render policy came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicySource {
    /// The stamp's `render.policy`.
    Stamp,
    /// The session header's `render_policy`.
    Header,
    /// `default_policy` in the configuration.
    ConfigDefault,
}

/// The render policy applied to a claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// As written, e.g. `require_tier_gte_1`.
    pub text: Name,
    /// The least trusted tier it allows (`Some(1)`: T1 or better); `None` when unknown.
    pub required: Option<u8>,
    /// Where it came from.
    pub from: PolicySource,
}

/// The statements of one claim across turns (same claim id or the same text up to case and
/// punctuation), as `check` grouped them for citation drift.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriftGroup {
    /// Indexes into the report's claims, in turn order.
    pub statements: Vec<usize>,
}

/// A group of calls issued together (one fan-out id, or overlapping in time in one turn), as
/// `check` grouped them for parallel conflicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fanout {
    /// The cited call the group was built around.
    pub call_id: Name,
    /// The recorded fan-out id, if any.
    pub fanout: Option<Name>,
    /// The turn.
    pub turn: u32,
    /// Call ids in issue order (the session's ids, shared).
    pub issue_order: Box<[Name]>,
    /// Call ids in arrival order (calls without a result last).
    pub arrival_order: Box<[Name]>,
}

/// A call's execution-envelope status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EnvelopeStatus {
    /// No envelope, and none required.
    #[default]
    None,
    /// Every envelope verified under a trusted attestor key and matches the recording.
    Verified,
    /// Verified, but it does not vouch for everything the log states (see the findings).
    Partial,
    /// An envelope is invalid or the result was tampered with (see the findings).
    Failed,
    /// Required but absent.
    Missing,
}

impl EnvelopeStatus {
    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            EnvelopeStatus::None => "none",
            EnvelopeStatus::Verified => "sealed and verified",
            EnvelopeStatus::Partial => "verified, partly (see findings)",
            EnvelopeStatus::Failed => "FAILED (see findings)",
            EnvelopeStatus::Missing => "MISSING (required)",
        }
    }

    /// Derived from the findings on a call and whether it has an envelope.
    pub(crate) fn of(findings: &[&Finding], has_envelope: bool) -> EnvelopeStatus {
        use super::Kind;
        if findings.iter().any(|f| f.kind == Kind::EnvelopeMissing) {
            EnvelopeStatus::Missing
        } else if findings
            .iter()
            .any(|f| matches!(f.kind, Kind::EnvelopeInvalid | Kind::ResultTampered))
        {
            EnvelopeStatus::Failed
        } else if findings.iter().any(|f| f.kind == Kind::EnvelopePartial) {
            EnvelopeStatus::Partial
        } else if has_envelope {
            EnvelopeStatus::Verified
        } else {
            EnvelopeStatus::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tier(n: u8) -> EffectiveTier {
        EffectiveTier {
            tier: [Tier::T1, Tier::T2, Tier::T3, Tier::Unknown][usize::from(n % 4)],
            from: [TierSource::Config, TierSource::Header][usize::from(n % 2)],
            review_due: n
                .is_multiple_of(3)
                .then_some(Timestamp(i64::from(n) * 1_000)),
        }
    }

    proptest! {
        /// The sorted list answers and serializes as the `BTreeMap` it replaced, built the way
        /// the checks built it (the first tier of a server kept).
        #[test]
        fn server_tiers_read_and_serialize_as_a_map(
            servers in proptest::collection::vec(("[a-c.é]{0,4}", any::<u8>()), 0..12),
            probes in proptest::collection::vec("[a-c.é]{0,4}", 0..8),
        ) {
            let mut map = std::collections::BTreeMap::new();
            for (name, n) in &servers {
                map.entry(name.clone()).or_insert(tier(*n));
            }
            let list: ServerTiers = servers
                .iter()
                .map(|(name, n)| (Name::from(name.as_str()), tier(*n)))
                .collect();
            prop_assert_eq!(list.len(), map.len());
            prop_assert_eq!(
                serde_json::to_string(&list).unwrap(),
                serde_json::to_string(&map).unwrap()
            );
            for p in probes.iter().chain(servers.iter().map(|s| &s.0)) {
                prop_assert_eq!(list.get(p), map.get(p));
            }
        }
    }
}
