//! Metric gates: the rollout plan's CI thresholds on the run's rates (`--fail-under`,
//! `--fail-over`, `[gates]` in provscope.toml), judged on the overall metrics.

use super::config::{Gate, GateBound, GateSource};
use super::Metrics;
use serde::Serialize;

/// A gate and how the run fared against it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GateResult {
    /// The rate.
    pub metric: String,
    /// Which way it fails.
    pub bound: GateBound,
    /// The threshold.
    pub threshold: f64,
    /// Where the gate was set.
    pub from: GateSource,
    /// The run's figure; null when the rate is undefined (its denominator is 0).
    pub value: Option<f64>,
    /// Whether the run passes it. An undefined figure never passes.
    pub passed: bool,
    /// One sentence with the figure and the threshold.
    pub message: String,
}

/// Judges every gate against the overall metrics.
pub fn evaluate(gates: &[Gate], m: &Metrics) -> Vec<GateResult> {
    gates.iter().map(|g| judge(g, m)).collect()
}

fn judge(g: &Gate, m: &Metrics) -> GateResult {
    let value = m.rate(&g.metric).flatten();
    let (word, flag) = match g.bound {
        GateBound::Under => ("under", "fail_under"),
        GateBound::Over => ("over", "fail_over"),
    };
    let set = match g.from {
        GateSource::Flag => format!("--fail-{word}"),
        GateSource::Config => format!("[gates] {flag}"),
    };
    let (passed, message) = match value {
        None => (
            false,
            format!(
                "{} is undefined ({}), so the gate {set} {} cannot pass",
                g.metric,
                undefined_because(&g.metric),
                g.threshold
            ),
        ),
        Some(v) => {
            let failed = match g.bound {
                GateBound::Under => v < g.threshold,
                GateBound::Over => v > g.threshold,
            };
            let msg = if failed {
                format!(
                    "{} is {}, {word} the threshold {} ({set})",
                    g.metric,
                    figure(v),
                    g.threshold
                )
            } else {
                let cmp = match g.bound {
                    GateBound::Under => ">=",
                    GateBound::Over => "<=",
                };
                format!(
                    "{} is {}, {cmp} {} ({set})",
                    g.metric,
                    figure(v),
                    g.threshold
                )
            };
            (!failed, msg)
        }
    };
    GateResult {
        metric: g.metric.clone(),
        bound: g.bound,
        threshold: g.threshold,
        from: g.from,
        value,
        passed,
        message,
    }
}

/// A rate as people read it: the ratio with 4 decimals and the percentage.
fn figure(v: f64) -> String {
    format!("{v:.4} ({:.1}%)", v * 100.0)
}

fn undefined_because(metric: &str) -> &'static str {
    match metric {
        "citation_precision" => "no claims",
        "stamped_citation_precision" => "no stamped claims",
        _ => "no claim is labelled factually right",
    }
}

/// A short name for a gate: `citation_precision >= 0.9`.
pub fn title(g: &GateResult) -> String {
    let cmp = match g.bound {
        GateBound::Under => ">=",
        GateBound::Over => "<=",
    };
    format!("{} {cmp} {}", g.metric, g.threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(supported: u64, claims: u64) -> Metrics {
        let mut m = Metrics {
            claims,
            stamped: claims,
            supported,
            ..Metrics::default()
        };
        m.add(&Metrics::default());
        m
    }

    #[test]
    fn under_and_over_with_the_figure_and_threshold_in_the_message() {
        let under = Gate::parse_flag("citation_precision=0.9", GateBound::Under).unwrap();
        let r = &evaluate(std::slice::from_ref(&under), &m(1, 2))[0];
        assert!(!r.passed);
        assert_eq!(
            r.message,
            "citation_precision is 0.5000 (50.0%), under the threshold 0.9 (--fail-under)"
        );
        assert!(
            evaluate(std::slice::from_ref(&under), &m(9, 10))[0].passed,
            "at the threshold"
        );
        let over = Gate::parse_flag("wrong_source_rate=0.05", GateBound::Over).unwrap();
        let r = &evaluate(&[over], &m(1, 2))[0];
        assert!(!r.passed, "undefined never passes");
        assert!(r.message.contains("undefined"), "{}", r.message);
    }
}
