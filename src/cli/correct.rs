//! `provscope correct`: record what happened to a flagged shipped answer (the playbook's
//! incident procedure) and write its conflicting-source test.

use super::{load_one, CliError, CmdResult, Ctx, Exit, Settings};
use crate::export::case;
use crate::model::Timestamp;
use crate::store::{Correction, SessionRef, Store};
use std::io::Write;
use std::path::PathBuf;

/// Outcomes of `correct`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Outcome {
    /// Re-fetched from a trusted origin and the claim held: re-stamped, record corrected.
    Survived,
    /// The claim did not hold: the user was notified and the answer fixed.
    Corrected,
}

/// Arguments of `correct`.
#[derive(clap::Args, Debug)]
pub struct CorrectArgs {
    /// The session log.
    pub session: PathBuf,
    /// The claim id.
    #[arg(long)]
    pub claim: String,
    /// The turn (default: the first turn where the claim has findings).
    #[arg(long)]
    pub turn: Option<u32>,
    /// What happened.
    #[arg(long, value_enum)]
    pub outcome: Outcome,
    /// A note for the record.
    #[arg(long, default_value = "")]
    pub note: String,
    /// Where to write the conflicting-source test (default: `SESSION.CLAIM.TURN.case.json` here).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Replace the test file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Runs `correct`.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &CorrectArgs) -> CmdResult {
    let c = load_one(ctx, st, &a.session)?;
    let case = case::export(&c.session, &c.report, &a.claim, a.turn, &[])?;
    let file = a.output.clone().unwrap_or_else(|| {
        PathBuf::from(case::file_name(&c.session.name, &a.claim, case.source.turn))
    });
    let body = serde_json::to_string_pretty(&case).map_err(|e| CliError::stdout(e.into()))? + "\n";
    // The test is written first: a refused or failed write records nothing.
    crate::export::write_new(&file, body.as_bytes(), a.force)
        .map_err(|e| CliError::write(&file, e))?;
    let store = Store::open(&st.db_path())?;
    let outcome = match a.outcome {
        Outcome::Survived => "survived",
        Outcome::Corrected => "corrected",
    };
    let sref = SessionRef::for_file(&c.report.session_id, &a.session).unwrap_or(SessionRef {
        session_id: c.report.session_id.clone(),
        path: String::new(),
        content_hash: None,
    });
    let id = store.upsert_session(&sref)?;
    if let Some(w) = id.warning(&sref) {
        ctx.warn(&w);
    }
    store.add_correction(&Correction {
        session_id: id.key,
        claim_id: a.claim.clone(),
        turn: case.source.turn,
        outcome: outcome.into(),
        note: a.note.clone(),
        at: Timestamp::now(),
    })?;
    writeln!(
        ctx.human(),
        "recorded {outcome} for {} turn {} in {}; conflicting-source test written to {}",
        a.claim,
        case.source.turn,
        store.path().display(),
        file.display()
    )
    .map_err(CliError::stdout)?;
    Ok(Exit::Ok)
}
