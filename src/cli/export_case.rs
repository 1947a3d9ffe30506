//! `provscope export case`: a flagged claim as a conflicting-source regression test.

use super::{load_one, write_or_print, CliError, CmdResult, Ctx, Settings};
use crate::export::case;
use std::path::PathBuf;

/// `provscope export ...`
#[derive(clap::Subcommand, Debug)]
pub enum ExportWhat {
    /// Export a flagged claim as a conflicting-source regression test (`provscope.case/2`).
    Case(ExportCaseArgs),
}

/// Arguments of `export case`.
#[derive(clap::Args, Debug)]
pub struct ExportCaseArgs {
    /// The session log.
    pub session: PathBuf,
    /// The claim id.
    #[arg(long)]
    pub claim: String,
    /// The turn (default: the first turn where the claim has findings).
    #[arg(long)]
    pub turn: Option<u32>,
    /// Write here instead of stdout (never over an existing file without --force).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Replace the --output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Regular expression whose matches are replaced by [REDACTED] (repeatable). Argument keys
    /// that look secret (password, token, api_key, ...) are always redacted.
    #[arg(long, value_name = "PATTERN")]
    pub redact: Vec<String>,
}

/// Compiles `--redact` patterns.
pub fn patterns(pats: &[String]) -> Result<Vec<regex::Regex>, CliError> {
    pats.iter()
        .map(|p| {
            regex::Regex::new(p).map_err(|e| {
                CliError::Usage(format!(
                    "--redact `{p}` is not a valid regular expression: {e}"
                ))
            })
        })
        .collect()
}

/// Runs `export case`.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &ExportCaseArgs) -> CmdResult {
    let pats = patterns(&a.redact)?;
    let c = load_one(ctx, st, &a.session)?;
    let case = case::export(&c.session, &c.report, &a.claim, a.turn, &pats)?;
    let body = serde_json::to_string_pretty(&case).map_err(|e| CliError::stdout(e.into()))? + "\n";
    write_or_print(ctx, a.output.as_deref(), &body, a.force)
}
