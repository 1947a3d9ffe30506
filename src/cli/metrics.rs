//! `provscope metrics`: citation precision, wrong-source rate and the grid per session and overall.

use super::{CliError, CmdResult, Ctx, Exit, Settings};
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
}

/// Output formats of `metrics` and `trend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MetricsFormat {
    /// A table.
    Text,
    /// JSON.
    Json,
}

/// Runs `metrics`.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &MetricsArgs) -> CmdResult {
    let o = st.pipeline.outcome(&a.paths);
    match a.format {
        MetricsFormat::Json => {
            serde_json::to_writer_pretty(&mut ctx.out, &export::metrics::document(&o))
                .map_err(|e| CliError::stdout(e.into()))?;
            ctx.out.line("");
        }
        MetricsFormat::Text => {
            export::metrics::write_table(&mut ctx.human(), &o).map_err(CliError::stdout)?;
        }
    }
    ctx.diags(o.input_errors.iter().chain(o.diagnostics.iter().flatten()));
    Ok(if o.has_input_errors() {
        Exit::InputErrors
    } else {
        Exit::Ok
    })
}
