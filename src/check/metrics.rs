//! The playbook's metrics; formulas in `docs/metrics.md`.

use super::finding::{Finding, Kind, Severity};
use super::grid::{FactVerdict, Quadrant, SourceVerdict, QUADRANTS};
use super::verdict::ClaimVerdict;
use super::{Config, Resolved};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Counts and rates for one session or many.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Metrics {
    /// Claim statements (a claim restated in three turns counts three times).
    pub claims: u64,
    /// Claims with an origin.
    pub stamped: u64,
    /// Stamped claims whose origin resolves to a recorded result whose span supports them.
    pub supported: u64,
    /// `supported / stamped`; null when nothing is stamped.
    pub citation_precision: Option<f64>,
    /// Claims labelled factually right.
    pub fact_right: u64,
    /// Of those, claims whose source verdict is wrong.
    pub fact_right_source_wrong: u64,
    /// `fact_right_source_wrong / fact_right`; null when nothing is labelled right.
    pub wrong_source_rate: Option<f64>,
    /// Claims per quadrant (labelled claims only).
    pub quadrants: BTreeMap<Quadrant, u64>,
    /// Findings per kind.
    pub kinds: BTreeMap<Kind, u64>,
    /// Findings per severity.
    pub severities: BTreeMap<Severity, u64>,
}

/// No claims: every quadrant present with a count of zero (the documented shape), no rates.
impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            claims: 0,
            stamped: 0,
            supported: 0,
            citation_precision: None,
            fact_right: 0,
            fact_right_source_wrong: 0,
            wrong_source_rate: None,
            quadrants: QUADRANTS.iter().map(|q| (*q, 0)).collect(),
            kinds: BTreeMap::new(),
            severities: BTreeMap::new(),
        }
    }
}

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
            if r.claim.stamp.origin.is_some() {
                m.stamped += 1;
                if r.result.is_some()
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
        self.citation_precision = ratio(self.supported, self.stamped);
        self.wrong_source_rate = ratio(self.fact_right_source_wrong, self.fact_right);
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
