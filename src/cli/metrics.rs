//! `provscope metrics`: citation precision, wrong-source rate and the grid per session and overall.

use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::check::gates::GateResult;
use crate::check::{gates, Gate, GateBound, Metrics};
use crate::export;
use std::path::PathBuf;

/// Arguments of `provscope metrics`.
#[derive(clap::Args, Debug)]
pub struct MetricsArgs {
    /// Session logs, traces or directories; none means the bundled samples.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MetricsFormat::Text)]
    pub format: MetricsFormat,
    /// Metric gates.
    #[command(flatten)]
    pub gates: GateArgs,
}

/// `--fail-under` / `--fail-over`: the rollout plan's CI thresholds (also `[gates]` in
/// provscope.toml; a flag replaces the config's gate on the same metric and direction).
#[derive(clap::Args, Debug, Default)]
pub struct GateArgs {
    /// Exit 1 when the run's METRIC is below VALUE (repeatable), e.g. citation_precision=0.9.
    #[arg(long, value_name = "METRIC=VALUE", value_parser = under)]
    pub fail_under: Vec<Gate>,
    /// Exit 1 when the run's METRIC is above VALUE (repeatable), e.g. wrong_source_rate=0.05.
    #[arg(long, value_name = "METRIC=VALUE", value_parser = over)]
    pub fail_over: Vec<Gate>,
}

fn under(s: &str) -> Result<Gate, crate::check::ValueError> {
    Gate::parse_flag(s, GateBound::Under)
}

fn over(s: &str) -> Result<Gate, crate::check::ValueError> {
    Gate::parse_flag(s, GateBound::Over)
}

impl GateArgs {
    /// Judges the gates (config and flags) on the run's overall metrics and prints every
    /// failed gate on stderr; the results are for the reports.
    pub fn judge(&self, ctx: &mut Ctx, st: &Settings, overall: &Metrics) -> Vec<GateResult> {
        let flags: Vec<Gate> = self
            .fail_under
            .iter()
            .chain(&self.fail_over)
            .cloned()
            .collect();
        let results = gates::evaluate(&st.config().gates_with(&flags), overall);
        for g in results.iter().filter(|g| !g.passed) {
            let _ = ctx
                .err
                .paint(crate::text::Paint::Error, "provscope: gate failed: ");
            let _ = std::io::Write::write_fmt(&mut ctx.err, format_args!("{}\n", g.message));
        }
        results
    }
}

/// Output formats of `metrics` and `trend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MetricsFormat {
    /// A table.
    Text,
    /// JSON.
    Json,
}

/// Runs `metrics`, keeping one row of metrics (and the diagnostics) per session.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &MetricsArgs) -> CmdResult {
    let inputs = st.pipeline.discover(&a.paths);
    let mut overall = Metrics::default();
    let mut rows = Vec::new();
    let mut diags = Vec::new();
    st.pipeline.run(&inputs, |mut c| {
        overall.add(&c.report.metrics);
        rows.push(export::metrics::SessionMetrics::of(&c.report));
        diags.append(&mut c.session.diagnostics);
        diags.append(&mut c.report.diagnostics);
        true
    });
    // Diagnostics first: a gate's verdict is the last thing on stderr.
    ctx.diags(inputs.errors.iter().chain(&diags));
    let gates = a.gates.judge(ctx, st, &overall);
    match a.format {
        MetricsFormat::Json => {
            serde_json::to_writer_pretty(
                &mut ctx.out,
                &export::metrics::document(&overall, &rows, &gates),
            )
            .map_err(|e| CliError::stdout(e.into()))?;
            ctx.out.line("");
        }
        MetricsFormat::Text => {
            export::metrics::write_table(&mut ctx.human(), &overall, &rows, &gates)
                .map_err(CliError::stdout)?;
        }
    }
    let input_errors = inputs
        .errors
        .iter()
        .chain(&diags)
        .any(|d| d.level == crate::model::DiagLevel::Error);
    Ok(if input_errors {
        Exit::InputErrors
    } else {
        Exit::findings_if(gates.iter().any(|g| !g.passed))
    })
}
