//! `provscope trend`: the quadrant distribution per recorded run, and the alarm (exit 1).

use super::metrics::MetricsFormat;
use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::export::trend;
use crate::store::Store;

/// Arguments of `trend`.
#[derive(clap::Args, Debug)]
pub struct TrendArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = MetricsFormat::Text)]
    pub format: MetricsFormat,
    /// Compare the last run with the run just before it even when their inputs differ (by
    /// default only a run over the same inputs is compared).
    #[arg(long)]
    pub any_inputs: bool,
}

/// Runs `trend`: exit 1 when the alarm fires.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &TrendArgs) -> CmdResult {
    let store = Store::open_read_only(&st.db_path())?.ok_or_else(|| {
        CliError::Input(
            "no case database yet: record runs with `provscope verify --record-run`".into(),
        )
    })?;
    let runs = store.runs()?;
    let corrections = store.all_corrections()?;
    let classes = store.all_classifications()?;
    let t = trend::analyze(&runs, a.any_inputs, &corrections, &classes);
    match a.format {
        MetricsFormat::Json => {
            serde_json::to_writer_pretty(&mut ctx.out, &trend::document(&t))
                .map_err(|e| CliError::stdout(e.into()))?;
            ctx.out.line("");
        }
        MetricsFormat::Text => {
            trend::write_table(&mut ctx.human(), &t).map_err(CliError::stdout)?
        }
    }
    match t.alarm {
        Some(alarm) => {
            let _ = ctx.err.paint(crate::text::Paint::Error, "ALARM: ");
            let _ = std::io::Write::write_fmt(&mut ctx.err, format_args!("{}\n", alarm.message()));
            Ok(Exit::Findings)
        }
        None => Ok(Exit::Ok),
    }
}
