//! `provscope report`: the incident-review write-up of a session, or of several sessions (files
//! or directories) with an executive summary and the grid over all of them.

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
    /// A session log; several logs or a directory give one report over every session.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
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

/// What the case store knows about a session: classifications, corrections and the claims
/// marked reviewed.
#[derive(Default)]
struct Review {
    classes: Vec<crate::store::Classification>,
    corrections: Vec<crate::store::Correction>,
    reviewed: Vec<(String, u32)>,
}

impl Review {
    fn as_report(&self) -> report::Review<'_> {
        report::Review {
            classes: &self.classes,
            corrections: &self.corrections,
            reviewed: &self.reviewed,
        }
    }
}

fn review_of(
    store: Option<&Store>,
    session_id: &str,
    file: &std::path::Path,
) -> Result<Review, CliError> {
    let Some(store) = store else {
        return Ok(Default::default());
    };
    let key = SessionRef::for_file(session_id, file)
        .ok()
        .and_then(|sref| store.identify(&sref).ok())
        .map_or_else(|| session_id.to_owned(), |i| i.key);
    Ok(Review {
        classes: store.classifications(&key)?,
        corrections: store.corrections(&key)?,
        reviewed: store.reviewed(&key)?,
    })
}

/// Runs `report`. Classifications, corrections and review marks come from the case store when one exists
/// (never created).
pub fn run(ctx: &mut Ctx, st: &Settings, a: &ReportArgs) -> CmdResult {
    let store = Store::open_read_only(&st.db_path())?;
    if let [one] = a.paths.as_slice() {
        if !one.is_dir() {
            let c = load_one(ctx, st, one)?;
            let review = review_of(store.as_ref(), &c.report.session_id, one)?;
            let doc = report::document(&c.session, &c.report, review.as_report());
            let body = match a.format {
                ReportFormat::Json => {
                    serde_json::to_string_pretty(&doc).map_err(|e| CliError::stdout(e.into()))?
                        + "\n"
                }
                ReportFormat::Md => report::markdown(&doc),
                ReportFormat::Html => report::html(&doc),
            };
            return write_or_print(ctx, a.output.as_deref(), &body, a.force);
        }
    }
    let inputs = st.pipeline.discover(&a.paths);
    ctx.diags(inputs.errors.iter());
    let mut checked = Vec::new();
    st.pipeline.run(&inputs, |c| {
        checked.push(c);
        true
    });
    let mut reviews = Vec::with_capacity(checked.len());
    let mut kept = Vec::with_capacity(checked.len());
    for c in checked {
        ctx.diags(&c.session.diagnostics);
        if crate::pipeline::Readability::of(&c.session) == crate::pipeline::Readability::Unreadable
        {
            continue;
        }
        let file = std::path::PathBuf::from(c.session.source.to_string());
        reviews.push(review_of(store.as_ref(), &c.report.session_id, &file)?);
        kept.push(c);
    }
    if kept.is_empty() {
        return Err(CliError::Input(
            "no readable session to report on (see the diagnostics above)".into(),
        ));
    }
    let docs = kept
        .iter()
        .zip(&reviews)
        .map(|(c, review)| report::document(&c.session, &c.report, review.as_report()))
        .collect();
    let doc = report::set(docs);
    let body = match a.format {
        ReportFormat::Json => {
            serde_json::to_string_pretty(&doc).map_err(|e| CliError::stdout(e.into()))? + "\n"
        }
        ReportFormat::Md => report::markdown_set(&doc),
        ReportFormat::Html => report::html_set(&doc),
    };
    write_or_print(ctx, a.output.as_deref(), &body, a.force)
}
