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

/// Runs `correct`. An unsourced claim (a user report about a claim that cited nothing) is
/// recorded too; it has no result to build a conflicting-source test from, so none is written.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &CorrectArgs) -> CmdResult {
    let c = load_one(ctx, st, &a.session)?;
    let (file, turn) = match case::export(&c.session, &c.report, &a.claim, a.turn, &[]) {
        Ok(case) => {
            let file = a.output.clone().unwrap_or_else(|| {
                PathBuf::from(case::file_name(&c.session.name, &a.claim, case.source.turn))
            });
            let body =
                serde_json::to_string_pretty(&case).map_err(|e| CliError::stdout(e.into()))? + "\n";
            // The test is written first: a refused or failed write records nothing.
            crate::export::write_new(&file, body.as_bytes(), a.force)
                .map_err(|e| CliError::write(&file, e))?;
            (Some(file), case.source.turn)
        }
        Err(case::CaseError::Unsourced { turn, .. }) => {
            if let Some(o) = &a.output {
                ctx.warn(&format!(
                    "{}: not written: the claim is unsourced, so there is no conflicting-source test to write",
                    o.display()
                ));
            }
            (None, turn)
        }
        Err(e) => return Err(e.into()),
    };
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
        turn,
        outcome: outcome.into(),
        note: a.note.clone(),
        at: Timestamp::now(),
    })?;
    let test = match &file {
        Some(f) => format!("conflicting-source test written to {}", f.display()),
        None => "no conflicting-source test: the claim is unsourced (no result to build one from)"
            .to_owned(),
    };
    writeln!(
        ctx.human(),
        "recorded {outcome} for {} turn {turn} in {}; {test}",
        a.claim,
        store.path().display(),
    )
    .map_err(CliError::stdout)?;
    Ok(Exit::Ok)
}
