//! Conflicting-source regression cases (`provscope.case/2`), the persisted format: exported by
//! `export::case`, judged by `check::case`, replayed by `provscope serve`. Documented in
//! `docs/cases.md`. Files of the previous version (`provscope.case/1`) are still read: see
//! [`Expectation::from_v1`].

use super::{Kind, Tier, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Format identifier written in every case.
pub const FORMAT: &str = "provscope.case/2";

/// The previous format, still read (its expectations are kept, marked [`RuleKind::LegacyV1`]).
pub const FORMAT_V1: &str = "provscope.case/1";

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

/// A value a source or claim states for the question: a number with its unit, or a status.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Stated {
    /// As shown to people: `USD 19`, `15%`, `5 day(s)`, `resolved`.
    pub text: String,
    /// The number, when the value is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<f64>,
    /// Its unit: an ISO currency code, `%`, or a duration unit (`day`, `hour`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Status words (`resolved`, `degraded`, ...), when the value is a status.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub status: Vec<String>,
}

impl Stated {
    /// True when both state the same value (same number and unit, or a shared status word).
    pub fn same_as(&self, other: &Stated) -> bool {
        match (self.number, other.number) {
            (Some(a), Some(b)) => {
                (a - b).abs() < 0.0005 && (self.unit == other.unit || self.unit.is_none())
            }
            (None, None) => self.status.iter().any(|w| other.status.contains(w)),
            _ => false,
        }
    }
}

/// Why a result is one of a case's competing sources.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Link {
    /// The result the original claim cited.
    Cited,
    /// The same tool called with the same arguments (on any server).
    SameCall,
    /// Another tool whose result states the same quantity (same unit or status, about the
    /// same thing as the claim).
    SameQuantity,
    /// Named by a finding (`parallel_conflict`, `ambiguous_support`) although neither rule above
    /// matched.
    Finding,
    /// Not recorded (`provscope.case/1`).
    #[default]
    Unrecorded,
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
    /// Turn of the call (`0` when not recorded).
    #[serde(default)]
    pub turn: u32,
    /// Call arguments (redacted).
    pub arguments: Value,
    /// The value this result gave, as text (the statement of the quantity, or its start).
    pub value: String,
    /// The value for the question, when one could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated: Option<Stated>,
    /// When it was fetched.
    pub fetched_at: Timestamp,
    /// Whether the original answer cited it.
    pub cited: bool,
    /// Why it competes.
    #[serde(default)]
    pub linked_by: Link,
    /// The result as recorded (`result` of the JSON-RPC response, redacted like the values):
    /// what `provscope serve` answers with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The tool's input schema: recorded when the log has one, else inferred from the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
}

/// The rule that produced an expectation.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// One competing source is more trusted than every other one.
    MostTrusted,
    /// Several competing sources share the best tier.
    Tie,
    /// No competing source meets the render policy.
    NoneQualifies,
    /// The render policy of the claim.
    RenderPolicy,
    /// Every stamp carries a fetch time and a TTL: a passing answer cites a fresh result.
    Ttl,
    /// The competing sources state different values.
    SourcesDisagree,
    /// The competing sources state the same value.
    SourcesAgree,
    /// There is one source: nothing to surface.
    SingleSource,
    /// The sources' values are known: an answer must state one of them.
    SourcesValues,
    /// No value could be read from the sources: not checked.
    NoValues,
    /// Copied from a `provscope.case/1` file, which did not record its rules.
    LegacyV1,
}

/// An expectation's rule and what it found.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Rule {
    /// The rule.
    pub rule: RuleKind,
    /// What it found, in a sentence.
    pub detail: String,
}

impl Rule {
    /// A rule with its detail.
    pub fn new(rule: RuleKind, detail: impl Into<String>) -> Rule {
        Rule {
            rule,
            detail: detail.into(),
        }
    }

    fn legacy() -> Rule {
        Rule::new(RuleKind::LegacyV1, "read from a provscope.case/1 file")
    }
}

/// Which rule produced each expectation.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Because {
    /// `cite_server` / `cite_any_of`.
    pub cite: Rule,
    /// `max_tier`.
    pub max_tier: Rule,
    /// `fresh`.
    pub fresh: Rule,
    /// `surface_conflict`.
    pub surface_conflict: Rule,
    /// `value_from_sources`.
    pub value_from_sources: Rule,
}

/// What a passing answer must do.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Expectation {
    /// The server the claim must cite, when one is more trusted than every other (`null` on a
    /// tie or when none qualifies).
    pub cite_server: Option<String>,
    /// The servers any of which the claim may cite: the most trusted competing servers that
    /// meet the render policy (several on a tie; empty when none qualifies).
    #[serde(default)]
    pub cite_any_of: Vec<String>,
    /// The cited server's tier must be at most this (0 = T0), from the render policy.
    pub max_tier: u8,
    /// The cited result must be within its TTL at answer time.
    pub fresh: bool,
    /// The answer must state the competing values or name the disagreement next to the claim.
    pub surface_conflict: bool,
    /// The claim's value must be one of the sources' values (no averaging, no rounding).
    #[serde(default)]
    pub value_from_sources: bool,
    /// Which rule produced each expectation.
    pub because: Because,
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
    /// The value the original claim stated, when one could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_value: Option<Stated>,
    /// Whether the original claim had an origin (an unsourced claim's case, written by
    /// `correct`, has no competing sources).
    #[serde(default = "yes")]
    pub sourced: bool,
    /// Finding kinds the original claim had.
    pub findings: Vec<Kind>,
    /// The competing results, the cited one first.
    pub competing: Vec<Competitor>,
    /// What a passing answer does.
    pub expect: Expectation,
    /// Redaction patterns applied (the patterns themselves, not what they matched).
    pub redactions: Vec<String>,
}

fn yes() -> bool {
    true
}

/// A `provscope.case/1` expectation, as it was written.
#[derive(Clone, Debug, Deserialize)]
pub struct ExpectationV1 {
    /// The server to cite.
    pub cite_server: Option<String>,
    /// The tier bound.
    pub max_tier: u8,
    /// Freshness.
    pub fresh: bool,
    /// Surfacing.
    pub surface_conflict: bool,
}

impl Expectation {
    /// A version-1 expectation in today's terms: the same checks, rules marked legacy, and no
    /// value check (version 1 did not have one).
    pub fn from_v1(e: ExpectationV1) -> Expectation {
        Expectation {
            cite_any_of: e.cite_server.iter().cloned().collect(),
            cite_server: e.cite_server,
            max_tier: e.max_tier,
            fresh: e.fresh,
            surface_conflict: e.surface_conflict,
            value_from_sources: false,
            because: Because {
                cite: Rule::legacy(),
                max_tier: Rule::legacy(),
                fresh: Rule::legacy(),
                surface_conflict: Rule::legacy(),
                value_from_sources: Rule::legacy(),
            },
        }
    }
}
