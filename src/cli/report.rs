//! `provscope report`: the incident-review write-up of a session.

use super::{load_one, write_or_print, CliError, CmdResult, Ctx, Settings};
use crate::export::report;
use crate::store::{SessionRef, Store};
use std::path::PathBuf;

/// Output formats of `report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Markdown.
    Md,
    /// JSON (`provscope.report/1`).
    Json,
    /// Self-contained HTML.
    Html,
}

/// Arguments of `report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The session log.
    pub session: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Md)]
    pub format: ReportFormat,
    /// Write here instead of stdout (never over an existing file without --force).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Replace the --output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Runs `report`. Classifications and corrections come from the case store when one exists
/// (never created).
pub fn run(ctx: &mut Ctx, st: &Settings, a: &ReportArgs) -> CmdResult {
    let c = load_one(ctx, st, &a.session)?;
    let (classes, corrections) = match Store::open_read_only(&st.db_path())? {
        Some(store) => {
            let key = SessionRef::for_file(&c.report.session_id, &a.session)
                .ok()
                .and_then(|sref| store.identify(&sref).ok())
                .map_or_else(|| c.report.session_id.clone(), |i| i.key);
            (store.classifications(&key)?, store.corrections(&key)?)
        }
        None => (Vec::new(), Vec::new()),
    };
    let doc = report::document(&c.session, &c.report, &classes, &corrections);
    let body = match a.format {
        ReportFormat::Json => {
            serde_json::to_string_pretty(&doc).map_err(|e| CliError::stdout(e.into()))? + "\n"
        }
        ReportFormat::Md => report::markdown(&doc),
        ReportFormat::Html => report::html(&doc),
    };
    write_or_print(ctx, a.output.as_deref(), &body, a.force)
}
