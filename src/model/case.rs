//! Conflicting-source regression cases (`provscope.case/1`), the persisted format: exported by
//! `export::case`, judged by `check::case`. Documented in `docs/cases.md`.

use super::{Kind, Tier, Timestamp};
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
