//! The playbook's metrics; formulas, with a worked example, in `docs/metrics.md`.

use super::finding::{Finding, Kind, Severity};
use super::grid::{FactVerdict, Quadrant, SourceVerdict, QUADRANTS};
use super::verdict::ClaimVerdict;
use super::{Config, Resolved};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Counts and rates for one session or many.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(from = "StoredMetrics")]
pub struct Metrics {
    /// Claim statements (a claim restated in three turns counts three times).
    pub claims: u64,
    /// Claims with an origin.
    pub stamped: u64,
    /// Claims whose origin resolves to a recorded, non-error result whose span supports them.
    pub supported: u64,
    /// The playbook's citation precision: `supported / claims` (every answer claim, unsourced
    /// ones included); null when there are no claims.
    pub citation_precision: Option<f64>,
    /// `supported / stamped`: how well the stamps that exist resolve (the binding machinery
    /// alone); null when nothing is stamped.
    pub stamped_citation_precision: Option<f64>,
    /// Claims labelled factually right.
    pub fact_right: u64,
    /// Of those, stamped claims whose origin is wrong, stale or below tier (an error finding of
    /// a kind in [`WRONG_ORIGIN_KINDS`]).
    pub fact_right_wrong_origin: u64,
    /// The playbook's wrong-source rate: `fact_right_wrong_origin / fact_right`; null when
    /// nothing is labelled right.
    pub wrong_source_rate: Option<f64>,
    /// Of the fact-right claims, those whose source verdict is wrong (the grid's hidden-failure
    /// cell: any error finding, or no origin).
    pub fact_right_source_wrong: u64,
    /// `fact_right_source_wrong / fact_right`: the share of fact-right claims in the
    /// hidden-failure cell; null when nothing is labelled right.
    pub fact_right_source_wrong_rate: Option<f64>,
    /// Claims per quadrant (labelled claims only).
    pub quadrants: BTreeMap<Quadrant, u64>,
    /// Findings per kind.
    pub kinds: BTreeMap<Kind, u64>,
    /// Findings per severity.
    pub severities: BTreeMap<Severity, u64>,
}

/// The kinds that mean a stamp points at a wrong, stale or below-tier origin (when their
/// severity is `error` after configuration): what the wrong-source rate counts.
pub const WRONG_ORIGIN_KINDS: [Kind; 7] = [
    Kind::DanglingOrigin,
    Kind::OriginMismatch,
    Kind::CitationDrift,
    Kind::ParallelConflict,
    Kind::ResultTampered,
    Kind::Stale,
    Kind::BelowTier,
];

/// Metrics as stored by earlier builds too (`provscope verify --record-run`): counts this build
/// adds are optional, and every rate is recomputed from the counts, so a run stored before the
/// playbook's definitions were adopted reads with today's formulas (its wrong-source rate is
/// null: the count it needs was not recorded).
#[derive(Deserialize)]
struct StoredMetrics {
    #[serde(default)]
    claims: u64,
    #[serde(default)]
    stamped: u64,
    #[serde(default)]
    supported: u64,
    #[serde(default)]
    fact_right: u64,
    #[serde(default)]
    fact_right_wrong_origin: Option<u64>,
    #[serde(default)]
    fact_right_source_wrong: u64,
    #[serde(default)]
    quadrants: BTreeMap<Quadrant, u64>,
    #[serde(default)]
    kinds: BTreeMap<Kind, u64>,
    #[serde(default)]
    severities: BTreeMap<Severity, u64>,
}

impl From<StoredMetrics> for Metrics {
    fn from(s: StoredMetrics) -> Metrics {
        let mut m = Metrics {
            claims: s.claims,
            stamped: s.stamped,
            supported: s.supported,
            fact_right: s.fact_right,
            fact_right_wrong_origin: s.fact_right_wrong_origin.unwrap_or(0),
            fact_right_source_wrong: s.fact_right_source_wrong,
            kinds: s.kinds,
            severities: s.severities,
            ..Metrics::default()
        };
        for (q, n) in s.quadrants {
            m.quadrants.insert(q, n);
        }
        m.finish();
        if s.fact_right_wrong_origin.is_none() {
            m.wrong_source_rate = None;
        }
        m
    }
}

/// No claims: every quadrant present with a count of zero (the documented shape), no rates.
impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            claims: 0,
            stamped: 0,
            supported: 0,
            citation_precision: None,
            stamped_citation_precision: None,
            fact_right: 0,
            fact_right_wrong_origin: 0,
            wrong_source_rate: None,
            fact_right_source_wrong: 0,
            fact_right_source_wrong_rate: None,
            quadrants: QUADRANTS.iter().map(|q| (*q, 0)).collect(),
            kinds: BTreeMap::new(),
            severities: BTreeMap::new(),
        }
    }
}

/// The metric names `--fail-under` / `--fail-over` and `[gates]` accept.
pub const GATE_METRICS: [&str; 4] = [
    "citation_precision",
    "stamped_citation_precision",
    "wrong_source_rate",
    "fact_right_source_wrong_rate",
];

impl Metrics {
    pub(crate) fn of_session(
        claims: &[ClaimVerdict],
        findings: &[Finding],
        resolved: &[Resolved],
        cfg: &Config,
    ) -> Metrics {
        let mut m = Metrics::default();
        for (v, r) in claims.iter().zip(resolved) {
            m.claims += 1;
            let stamped = r.claim.stamp.origin.is_some();
            if stamped {
                m.stamped += 1;
                if r.result.is_some_and(|res| !res.is_error())
                    && r.support
                        .as_ref()
                        .is_some_and(|s| s.supported(cfg.support_threshold))
                {
                    m.supported += 1;
                }
            }
            if v.fact_verdict == FactVerdict::Right {
                m.fact_right += 1;
                if v.source_verdict == SourceVerdict::Wrong {
                    m.fact_right_source_wrong += 1;
                }
                let wrong_origin = v.findings.iter().any(|&i| {
                    findings[i].severity == Severity::Error
                        && WRONG_ORIGIN_KINDS.contains(&findings[i].kind)
                });
                if stamped && wrong_origin {
                    m.fact_right_wrong_origin += 1;
                }
            }
            if let Some(q) = v.quadrant {
                *m.quadrants.entry(q).or_default() += 1;
            }
        }
        for f in findings {
            *m.kinds.entry(f.kind).or_default() += 1;
            *m.severities.entry(f.severity).or_default() += 1;
        }
        m.finish();
        m
    }

    /// Adds another set of counts (rates are recomputed).
    pub fn add(&mut self, o: &Metrics) {
        self.claims += o.claims;
        self.stamped += o.stamped;
        self.supported += o.supported;
        self.fact_right += o.fact_right;
        self.fact_right_wrong_origin += o.fact_right_wrong_origin;
        self.fact_right_source_wrong += o.fact_right_source_wrong;
        for (k, v) in &o.quadrants {
            *self.quadrants.entry(*k).or_default() += v;
        }
        for (k, v) in &o.kinds {
            *self.kinds.entry(*k).or_default() += v;
        }
        for (k, v) in &o.severities {
            *self.severities.entry(*k).or_default() += v;
        }
        self.finish();
    }

    fn finish(&mut self) {
        let ratio = |a: u64, b: u64| (b > 0).then(|| a as f64 / b as f64);
        self.citation_precision = ratio(self.supported, self.claims);
        self.stamped_citation_precision = ratio(self.supported, self.stamped);
        self.wrong_source_rate = ratio(self.fact_right_wrong_origin, self.fact_right);
        self.fact_right_source_wrong_rate = ratio(self.fact_right_source_wrong, self.fact_right);
    }

    /// A rate by its name (one of [`GATE_METRICS`]): `None` for an unknown name, `Some(None)`
    /// when the rate is undefined (its denominator is 0).
    pub fn rate(&self, name: &str) -> Option<Option<f64>> {
        Some(match name {
            "citation_precision" => self.citation_precision,
            "stamped_citation_precision" => self.stamped_citation_precision,
            "wrong_source_rate" => self.wrong_source_rate,
            "fact_right_source_wrong_rate" => self.fact_right_source_wrong_rate,
            _ => return None,
        })
    }

    /// Share of fact-right-source-wrong among failed claims (every quadrant but right/right): the
    /// playbook's alarm metric. Null when nothing failed.
    pub fn hidden_failure_share(&self) -> Option<f64> {
        let q = |x: Quadrant| self.quadrants.get(&x).copied().unwrap_or(0);
        let failed = q(Quadrant::FactRightSourceWrong)
            + q(Quadrant::FactWrongSourceRight)
            + q(Quadrant::FactWrongSourceWrong);
        (failed > 0).then(|| q(Quadrant::FactRightSourceWrong) as f64 / failed as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_metrics_of_an_earlier_build_read_with_todays_formulas() {
        let old = r#"{"claims":4,"stamped":3,"supported":2,"citation_precision":0.6667,
            "fact_right":2,"fact_right_source_wrong":1,"wrong_source_rate":0.5,
            "quadrants":{"fact_right_source_wrong":1},"kinds":{"stale":1},"severities":{"error":1}}"#;
        let m: Metrics = serde_json::from_str(old).unwrap();
        assert_eq!(m.citation_precision, Some(0.5));
        assert_eq!(m.stamped_citation_precision, Some(2.0 / 3.0));
        assert_eq!(m.wrong_source_rate, None, "not recorded by that build");
        assert_eq!(m.fact_right_source_wrong_rate, Some(0.5));
        assert_eq!(m.quadrants.len(), 4, "every quadrant present");
        let back: Metrics = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back.wrong_source_rate, Some(0.0), "recorded from now on");
    }
}
