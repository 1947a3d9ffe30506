//! The explorer (`provscope [PATH...]`, `provscope open PATH...`): on a terminal it opens the
//! TUI, otherwise it prints the summary.

use super::{summary, CliError, CmdResult, Ctx, Exit, Settings};
use std::path::PathBuf;

/// Opens the explorer when stdin and stdout are a terminal; otherwise prints the summary.
pub fn run(
    ctx: &mut Ctx,
    st: &Settings,
    paths: Vec<PathBuf>,
    start: Option<crate::tui::StartAt>,
) -> CmdResult {
    use std::io::IsTerminal;
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        let args = summary::SummaryArgs {
            paths,
            format: summary::Format::Text,
        };
        return summary::run(ctx, st, &args);
    }
    crate::tui::run(crate::tui::Options {
        paths,
        load: st.load().clone(),
        config: st.config().clone(),
        db: st.db_path(),
        color: st.color,
        threads: st.pipeline.threads,
        start,
    })
    .map_err(|e| CliError::Explorer(e.to_string()))?;
    Ok(Exit::Ok)
}
