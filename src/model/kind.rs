//! The vocabulary of findings: their kinds and severities (stable names used in every output
//! format and in `provscope.toml`). `check` computes findings of these kinds.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a finding is about. The names are stable: they appear in JSON, SARIF, JUnit and config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A claim with no origin (an error when it is rendered with a citation marker anyway).
    Unsourced,
    /// `origin.tool_call_id` names no recorded call or result.
    DanglingOrigin,
    /// The stamp's server, tool, arguments hash or fetch time disagree with the recorded call.
    OriginMismatch,
    /// The span's block or offsets cannot be resolved.
    SpanInvalid,
    /// The cited span does not support the claim.
    SpanUnsupported,
    /// Another result in context supports the claim as well or better.
    AmbiguousSupport,
    /// The cited result was past its TTL when the answer was generated.
    Stale,
    /// The origin server's tier is below what the claim's render policy requires.
    BelowTier,
    /// The same claim re-binds across turns, or cites a result no longer in context.
    CitationDrift,
    /// Concurrent calls disagree and the answer hides it or cites the less trusted one.
    ParallelConflict,
    /// Results entered context without per-call markers.
    FlattenedContext,
    /// An untrusted result carries instructions, fake citations or stamp-like JSON.
    InjectionSuspect,
    /// A call has no execution envelope where one is required.
    EnvelopeMissing,
    /// An envelope does not verify.
    EnvelopeInvalid,
    /// The result delivered to the model, or its ingestion tag, differs from what was sealed.
    ResultTampered,
    /// An envelope verifies but does not vouch for everything the log states about its call.
    EnvelopePartial,
    /// The answer text does not show a stamp's marker, states another value than the stamp, or
    /// says something at a marker that none of its stamps state.
    AnswerMismatch,
    /// A T1 claim is not labelled, or a T2 claim not attributed, where the answer states it.
    TierRendering,
    /// The configured review of the cited server's tier was overdue at answer time.
    TierReviewOverdue,
    /// A result from a server below the render policy, or undeclared, was in the model's context.
    UntrustedContext,
    /// A claim cites a sub-agent's answer whose own stamp for it is wrong or missing, or whose
    /// session could not be checked.
    SubAgentSource,
}

/// Every kind, in documentation order.
pub const ALL_KINDS: [Kind; 21] = [
    Kind::Unsourced,
    Kind::DanglingOrigin,
    Kind::OriginMismatch,
    Kind::SpanInvalid,
    Kind::SpanUnsupported,
    Kind::AmbiguousSupport,
    Kind::Stale,
    Kind::BelowTier,
    Kind::CitationDrift,
    Kind::ParallelConflict,
    Kind::FlattenedContext,
    Kind::InjectionSuspect,
    Kind::EnvelopeMissing,
    Kind::EnvelopeInvalid,
    Kind::ResultTampered,
    Kind::EnvelopePartial,
    Kind::AnswerMismatch,
    Kind::TierRendering,
    Kind::TierReviewOverdue,
    Kind::UntrustedContext,
    Kind::SubAgentSource,
];

impl Kind {
    /// The stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Unsourced => "unsourced",
            Kind::DanglingOrigin => "dangling_origin",
            Kind::OriginMismatch => "origin_mismatch",
            Kind::SpanInvalid => "span_invalid",
            Kind::SpanUnsupported => "span_unsupported",
            Kind::AmbiguousSupport => "ambiguous_support",
            Kind::Stale => "stale",
            Kind::BelowTier => "below_tier",
            Kind::CitationDrift => "citation_drift",
            Kind::ParallelConflict => "parallel_conflict",
            Kind::FlattenedContext => "flattened_context",
            Kind::InjectionSuspect => "injection_suspect",
            Kind::EnvelopeMissing => "envelope_missing",
            Kind::EnvelopeInvalid => "envelope_invalid",
            Kind::ResultTampered => "result_tampered",
            Kind::EnvelopePartial => "envelope_partial",
            Kind::AnswerMismatch => "answer_mismatch",
            Kind::TierRendering => "tier_rendering",
            Kind::TierReviewOverdue => "tier_review_overdue",
            Kind::UntrustedContext => "untrusted_context",
            Kind::SubAgentSource => "sub_agent_source",
        }
    }

    /// Parses a stable name.
    pub fn parse(s: &str) -> Option<Kind> {
        ALL_KINDS.iter().copied().find(|k| k.name() == s)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How serious a finding is. Ordered most serious first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The source is wrong: the claim's verdict on the source axis is "wrong".
    Error,
    /// Suspicious; does not by itself make the source wrong.
    Warning,
    /// Context for a reviewer.
    Info,
}

impl Severity {
    /// Parses `error`, `warning` or `info`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }

    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
