//! `provscope diff A B`: what changed between two sessions or two runs (directories), per claim,
//! per turn and in the metrics. Exit 1 when a claim got worse (`--fail-on`), 2 on input errors.

use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::diff::{Direction, Options, RunBuilder, RunDiff};
use crate::pipeline::{Checked, Inputs, Readability};
use std::path::{Path, PathBuf};

/// Arguments of `provscope diff`.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The baseline: a session log (or any format provscope reads), or a directory (a run).
    pub a: PathBuf,
    /// What to compare with it: a session log or a directory.
    pub b: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Exit 1 when: a claim got worse (`worse`), anything changed (`any`), or never.
    #[arg(long, value_enum, default_value_t = DiffFailOn::Worse)]
    pub fail_on: DiffFailOn,
    /// Unchanged words shown around each changed stretch of a result.
    #[arg(long, default_value_t = 4, value_name = "WORDS")]
    pub context: usize,
    /// Write the report here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Replace the --output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Open the diff in the explorer (side by side) instead of printing it; needs a terminal.
    #[arg(long, conflicts_with_all = ["format", "output", "force"])]
    pub explore: bool,
}

/// Output formats of `diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// For people.
    Text,
    /// The `provscope.diff/1` JSON document.
    Json,
    /// Markdown, to paste into a pull request.
    Md,
}

/// When `diff` exits 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFailOn {
    /// A claim got worse (a finding added, a verdict from right to wrong, a less trusted
    /// source, support below the threshold, a new claim with a wrong source).
    Worse,
    /// Anything changed.
    Any,
    /// Never.
    Never,
}

impl DiffFailOn {
    /// Whether this diff fails.
    pub fn fails(self, d: &RunDiff) -> bool {
        match self {
            DiffFailOn::Worse => d.direction == Direction::Worse,
            DiffFailOn::Any => !d.counts.is_empty(),
            DiffFailOn::Never => false,
        }
    }
}

/// Loads one side, printing its diagnostics; unreadable logs are left out.
fn side(
    ctx: &mut Ctx,
    st: &Settings,
    path: &Path,
    mut sink: impl FnMut(Checked),
) -> Result<usize, CliError> {
    let inputs: Inputs = st.pipeline.discover(&[path.to_path_buf()]);
    ctx.diags(&inputs.errors);
    let mut used = 0;
    st.pipeline.run(&inputs, |c| {
        ctx.diags(&c.session.diagnostics);
        if c.readability() != Readability::Unreadable {
            used += 1;
            sink(c);
        }
        true
    });
    if used == 0 {
        return Err(CliError::Input(format!(
            "{}: no readable session to compare{}",
            path.display(),
            if inputs.has_errors() || inputs.is_empty() {
                ""
            } else {
                " (see the diagnostics above)"
            }
        )));
    }
    Ok(used)
}

/// `--explore`: both sides loaded and checked as for the printed diff (diagnostics on stderr,
/// exit 2 when a side has no readable session), then compared side by side in the explorer.
fn explore(ctx: &mut Ctx, st: &Settings, a: &DiffArgs, opts: Options) -> CmdResult {
    use std::io::IsTerminal;
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        return Err(CliError::Usage(
            "--explore opens the explorer, which needs a terminal; without one `provscope diff A B` prints the diff".into(),
        ));
    }
    let loaded = |c: Checked| crate::tui::app::Loaded::new(c.session, c.report);
    let mut left = Vec::new();
    side(ctx, st, &a.a, |c| left.push(loaded(c)))?;
    let mut right = Vec::new();
    side(ctx, st, &a.b, |c| right.push(loaded(c)))?;
    crate::tui::run(crate::tui::Options {
        paths: Vec::new(),
        load: st.load().clone(),
        config: st.config().clone(),
        db: st.db_path(),
        color: st.color,
        threads: st.pipeline.threads,
        start: None,
        follow: false,
        diff: Some(crate::tui::DiffInput {
            a: left,
            b: right,
            options: opts,
        }),
    })
    .map_err(|e| CliError::Explorer(e.to_string()))?;
    if ctx.input_errors > 0 {
        return Ok(Exit::InputErrors);
    }
    Ok(Exit::Ok)
}

/// Runs `diff`.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &DiffArgs) -> CmdResult {
    let opts = Options {
        support_threshold: st.config().support_threshold,
        context_words: a.context,
        align: false,
    };
    if a.explore {
        return explore(ctx, st, a, opts);
    }
    let mut left = Vec::new();
    side(ctx, st, &a.a, |c| left.push(c))?;
    let mut builder = RunBuilder::new(left, opts);
    side(ctx, st, &a.b, |c| builder.push(c))?;
    let d = builder.finish();
    let (na, nb) = (a.a.display().to_string(), a.b.display().to_string());
    let to_file = a.output.is_some();
    let body: Vec<u8> = match a.format {
        DiffFormat::Json => {
            let mut v = serde_json::to_vec_pretty(&d).map_err(|e| CliError::stdout(e.into()))?;
            v.push(b'\n');
            v
        }
        DiffFormat::Text => {
            let mut t = crate::text::Term::new(Vec::new(), ctx.color && !to_file);
            crate::export::diff::write_text(&mut t, &d, &na, &nb).map_err(CliError::stdout)?;
            t.into_inner().map_err(CliError::stdout)?
        }
        DiffFormat::Md => {
            // Through the boundary as well: what is pasted never carries a control character.
            let mut t = crate::text::Term::new(Vec::new(), false);
            t.text(&crate::export::diff::markdown(&d, &na, &nb))
                .map_err(CliError::stdout)?;
            t.into_inner().map_err(CliError::stdout)?
        }
    };
    match &a.output {
        Some(p) => {
            crate::export::write_new(p, &body, a.force).map_err(|e| CliError::write(p, e))?
        }
        None => ctx.out.bytes(&body),
    }
    if ctx.input_errors > 0 {
        return Ok(Exit::InputErrors);
    }
    Ok(Exit::findings_if(a.fail_on.fails(&d)))
}
