//! `provscope check`: run exported cases against newly recorded sessions (CI).

use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::check::case::{check_case, CheckResult, MatchedBy};
use crate::check::SessionReport;
use crate::export;
use crate::model::Session;
use std::io::Write;
use std::path::PathBuf;

/// Output formats of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// One line per case and session.
    Text,
    /// JSON array of results.
    Json,
    /// JUnit XML.
    Junit,
}

/// Arguments of `check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Case files (`provscope.case/2`; `provscope.case/1` is still read).
    #[arg(required = true)]
    pub cases: Vec<PathBuf>,
    /// Sessions (files or directories) to check the cases against.
    #[arg(long, required = true, num_args = 1..)]
    pub against: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
}

/// Runs `check`: exit 1 when any case fails.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &CheckArgs) -> CmdResult {
    let cases = a
        .cases
        .iter()
        .map(|p| export::case::read(p).map(|c| (p.display().to_string(), c)))
        .collect::<Result<Vec<_>, _>>()?;
    let inputs = st.pipeline.discover(&a.against);
    ctx.diags(&inputs.errors);
    if inputs.has_errors() {
        return Ok(Exit::InputErrors);
    }
    let checked = st.pipeline.collect(&inputs);
    for c in &checked {
        ctx.diags(&c.session.diagnostics);
    }
    let pairs: Vec<(&Session, &SessionReport)> =
        checked.iter().map(|c| (&c.session, &c.report)).collect();
    let results: Vec<CheckResult> = cases
        .iter()
        .flat_map(|(file, c)| check_case(c, file, &pairs))
        .collect();
    match a.format {
        // Machine formats come from their serializers, untouched.
        CheckFormat::Json => {
            serde_json::to_writer_pretty(&mut ctx.out, &results)
                .map_err(|e| CliError::stdout(e.into()))?;
            ctx.out.line("");
        }
        CheckFormat::Junit => export::junit::write(
            &mut ctx.out,
            "provscope check",
            &export::junit::check_suites(&results),
        )
        .map_err(CliError::stdout)?,
        CheckFormat::Text => write_text(&mut ctx.human(), &results).map_err(CliError::stdout)?,
    }
    // A case nothing answers is a bad case (its claim no longer exists, or the sessions are the
    // wrong ones): an input error, not a failed test.
    let unanswered: Vec<&CheckResult> = results
        .iter()
        .filter(|r| r.matched_by == MatchedBy::Nothing)
        .collect();
    for r in &unanswered {
        ctx.warn(&format!(
            "{}: case {} matches no claim in the sessions checked: {}",
            r.case_file,
            r.case_id,
            r.reasons.join("; ")
        ));
    }
    if !unanswered.is_empty() {
        return Ok(Exit::InputErrors);
    }
    Ok(Exit::findings_if(results.iter().any(|r| !r.passed)))
}

fn write_text(t: &mut impl Write, results: &[CheckResult]) -> std::io::Result<()> {
    for r in results {
        if r.passed {
            writeln!(t, "pass {}", crate::text::one_line(&r.label()))?;
        } else {
            // One result per line, whatever the reasons contain.
            let why = crate::text::one_line(&r.reasons.join("; ")).into_owned();
            writeln!(t, "FAIL {}: {why}", crate::text::one_line(&r.label()))?;
        }
    }
    let failed = results.iter().filter(|r| !r.passed).count();
    writeln!(t, "{} passed, {} failed", results.len() - failed, failed)
}
