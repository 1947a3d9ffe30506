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
    follow: bool,
) -> CmdResult {
    use std::io::IsTerminal;
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        if follow {
            return Err(super::CliError::Usage(
                "--follow opens the explorer, which needs a terminal; `provscope verify --follow PATH...` follows logs without one".into(),
            ));
        }
        let args = summary::SummaryArgs {
            paths,
            format: summary::Format::Text,
        };
        return summary::run(ctx, st, &args);
    }
    (ctx.explorer_opens)();
    crate::tui::run(crate::tui::Options {
        paths,
        load: st.load().clone(),
        config: st.config().clone(),
        db: st.db_path(),
        color: st.color,
        threads: st.pipeline.threads,
        start,
        follow,
        diff: None,
    })
    .map_err(|e| CliError::Explorer(e.to_string()))?;
    Ok(Exit::Ok)
}
