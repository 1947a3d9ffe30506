//! `provscope classify` and `provscope classifications`: the grid's decisions from scripts,
//! kept in the case store (`--db`). Also the hidden `__store-torture` writer used by the
//! store's crash tests.

use super::{CliError, CmdResult, Ctx, Exit};
use crate::check::{check_session, Config, Quadrant, SourceVerdict, QUADRANTS};
use crate::ingest::{load_file, LoadOptions};
use crate::model::{Session, Timestamp};
use crate::store::{self, Classification, SessionRef, Store};
use crate::text::one_line;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `provscope classify`.
#[derive(clap::Args, Debug)]
pub struct ClassifyArgs {
    /// The session log.
    pub session: PathBuf,
    /// The claim id.
    pub claim: String,
    /// The grid cell: rr, rw, wr, ww (fact then source, right or wrong) or its name, such as
    /// fact_right_source_wrong.
    #[arg(long, short = 'q', value_parser = parse_quadrant, value_name = "QUADRANT")]
    pub quadrant: Quadrant,
    /// The turn stating the claim (default: the last turn that states it).
    #[arg(long, value_name = "N")]
    pub turn: Option<u32>,
    /// A free-text note.
    #[arg(long, default_value = "", value_name = "TEXT")]
    pub note: String,
    /// Who decided (default: $USER).
    #[arg(long, value_name = "NAME")]
    pub reviewer: Option<String>,
}

/// Output formats of `classifications`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// For people.
    Text,
    /// The `provscope.classifications/1` JSON document.
    Json,
}

/// Arguments of `provscope classifications`.
#[derive(clap::Args, Debug)]
pub struct ClassificationsArgs {
    /// The session log, or a session id already in the case store.
    pub session: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

/// Arguments of the hidden `__store-torture` command.
#[derive(clap::Args, Debug)]
pub struct TortureArgs {
    /// Classifications to write.
    #[arg(long, default_value_t = 1000)]
    pub count: u64,
    /// Claim id prefix: claim `PREFIX_I` for write I.
    #[arg(long, default_value = "t")]
    pub prefix: String,
    /// Session id written to.
    #[arg(long, default_value = "torture")]
    pub session: String,
    /// Re-classify one claim (`PREFIX`) every time instead of a new claim per write.
    #[arg(long)]
    pub same_claim: bool,
}

fn parse_quadrant(s: &str) -> Result<Quadrant, String> {
    Quadrant::parse(s.trim()).ok_or_else(|| {
        let names: Vec<&str> = QUADRANTS.iter().map(|q| q.name()).collect();
        format!(
            "unknown quadrant `{s}`: use rr, rw, wr or ww (fact then source, right or wrong), \
             or one of {}",
            names.join(", ")
        )
    })
}

fn db_path(db: Option<&Path>) -> PathBuf {
    db.map_or_else(Store::default_location, Path::to_path_buf)
}

fn default_reviewer() -> String {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .unwrap_or_default()
}

/// Loads a session log, printing its diagnostics; an error when it cannot be used.
fn load(ctx: &mut Ctx, path: &Path, opts: &LoadOptions) -> Result<Session, CliError> {
    if let Err(e) = std::fs::File::open(path) {
        return Err(CliError::Input(format!(
            "cannot read the session log {}: {e}",
            path.display()
        )));
    }
    let s = load_file(path, opts);
    ctx.diags(&s.diagnostics);
    if s.turns.is_empty() && s.answers.is_empty() && s.has_errors() {
        return Err(CliError::Input(format!(
            "{} holds no readable session events",
            path.display()
        )));
    }
    Ok(s)
}

/// A line for people on stdout, through the sanitizing boundary.
fn line(ctx: &mut Ctx, s: String) {
    let _ = writeln!(ctx.human(), "{s}");
}

/// `provscope classify`.
pub fn run(
    ctx: &mut Ctx,
    a: &ClassifyArgs,
    opts: &LoadOptions,
    cfg: &Config,
    db: Option<&Path>,
) -> CmdResult {
    let session = load(ctx, &a.session, opts)?;
    let turns: Vec<u32> = session.claim_history(&a.claim).map(|c| c.turn).collect();
    let Some(&last) = turns.last() else {
        let mut ids: Vec<&str> = session.claims().map(|c| c.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        let listed = if ids.is_empty() {
            "it has no claims".to_owned()
        } else {
            let more = if ids.len() > 12 {
                format!(" and {} more", ids.len() - 12)
            } else {
                String::new()
            };
            let shown: Vec<String> = ids.iter().take(12).map(|i| one_line(i).into()).collect();
            format!("its claims are {}{more}", shown.join(", "))
        };
        return Err(CliError::Input(format!(
            "no claim `{}` in {}; {listed}",
            one_line(&a.claim),
            a.session.display()
        )));
    };
    let turn = match a.turn {
        None => last,
        Some(t) if turns.contains(&t) => t,
        Some(t) => {
            let list: Vec<String> = turns.iter().map(u32::to_string).collect();
            return Err(CliError::Input(format!(
                "claim `{}` is not stated in turn {t} of {}; it is stated in turn{} {}",
                one_line(&a.claim),
                a.session.display(),
                if turns.len() == 1 { "" } else { "s" },
                list.join(", ")
            )));
        }
    };
    let report = check_session(&session, cfg);
    let sref = match SessionRef::for_file(session.id(), &a.session) {
        Ok(r) => r,
        Err(e) => {
            return Err(CliError::Input(format!(
                "cannot read the session log {}: {e}",
                a.session.display()
            )));
        }
    };
    let path = db_path(db);
    let st = Store::open(&path)?;
    let reviewer = a.reviewer.clone().unwrap_or_else(default_reviewer);
    let c = Classification::new(
        session.id(),
        &a.claim,
        turn,
        a.quadrant,
        &a.note,
        &reviewer,
        Timestamp::now(),
    );
    let claims = report
        .claims
        .iter()
        .map(|v| (v.claim_id.as_str(), v.turn, v.claim_text.as_str()));
    match st
        .upsert_claims(&sref, claims)
        .and_then(|id| st.classify(&sref, &c).map(|_| id))
    {
        Ok(id) => {
            if let Some(w) = id.warning(&sref) {
                ctx.warn(&one_line(&w));
            }
            // Another reviewer decided otherwise: both decisions stay in the history.
            if let Ok(conflicts) = st.conflicts(&id.key) {
                for k in conflicts
                    .iter()
                    .filter(|k| k.claim_id == a.claim && k.turn == turn)
                {
                    ctx.note(&format!("conflict: {}", conflict_line(k)));
                }
            }
        }
        Err(e) => return Err(e.into()),
    }
    if let Some(v) = report
        .claims
        .iter()
        .find(|v| v.claim_id == a.claim && v.turn == turn)
    {
        let (_, source) = store::axes(a.quadrant);
        if source != v.source_verdict {
            let kinds: Vec<&str> = report.findings_for(v).map(|f| f.kind.name()).collect();
            let why = match (v.source_verdict, kinds.is_empty()) {
                (SourceVerdict::Wrong, true) => " (no origin)".to_owned(),
                (_, false) => format!(" (findings: {})", kinds.join(", ")),
                _ => String::new(),
            };
            ctx.note(&format!(
                "note: the checks judge the source {}{why}; classified as source {} by hand",
                verdict_word(v.source_verdict),
                verdict_word(source)
            ));
        }
    }
    let q = a.quadrant;
    line(
        ctx,
        format!(
            "classified {} (turn {turn}) of {} as {}: {}. {}.",
            one_line(&a.claim),
            one_line(session.id()),
            q.name(),
            q.title(),
            q.verdict()
        ),
    );
    line(ctx, format!("  owner        {}", q.owner()));
    line(ctx, format!("  next action  {}", q.next_action()));
    if !a.note.is_empty() {
        line(ctx, format!("  note         {}", one_line(&a.note)));
    }
    line(ctx, format!("  case store   {}", store::shown(&path)));
    Ok(Exit::Ok)
}

/// "reviewers disagree on clm_x (turn 3): ana fact_right_source_wrong at …, bob … (current)".
fn conflict_line(k: &store::Conflict) -> String {
    let n = k.decisions.len();
    let each: Vec<String> = k
        .decisions
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let who = if d.reviewer.is_empty() {
                "(no name)".to_owned()
            } else {
                one_line(&d.reviewer).into()
            };
            format!(
                "{who} {} at {}{}",
                d.quadrant.name(),
                d.at,
                if i + 1 == n { " (current)" } else { "" }
            )
        })
        .collect();
    format!(
        "reviewers disagree on {} (turn {}): {}; every decision is kept in the history",
        one_line(&k.claim_id),
        k.turn,
        each.join(", ")
    )
}

fn verdict_word(v: SourceVerdict) -> &'static str {
    match v {
        SourceVerdict::Right => "right",
        SourceVerdict::Wrong => "wrong",
    }
}

#[derive(Serialize)]
struct Listed<'a> {
    #[serde(flatten)]
    c: &'a Classification,
    fact_verdict: crate::check::FactVerdict,
    source_verdict: SourceVerdict,
    reviewed: bool,
}

#[derive(Serialize)]
struct ListDoc<'a> {
    schema: &'static str,
    db: String,
    /// The store key the classifications are kept under.
    key: &'a str,
    session: Option<&'a SessionRef>,
    classifications: Vec<Listed<'a>>,
    /// Claim statements whose reviewers disagree (each reviewer's latest decision).
    conflicts: &'a [store::Conflict],
}

/// `provscope classifications`.
pub fn list(
    ctx: &mut Ctx,
    a: &ClassificationsArgs,
    opts: &LoadOptions,
    db: Option<&Path>,
) -> CmdResult {
    let path = db_path(db);
    let as_file = Path::new(&a.session);
    let from_file = if as_file.is_file() {
        let s = load(ctx, as_file, opts)?;
        match SessionRef::for_file(s.id(), as_file) {
            Ok(r) => Some(r),
            Err(e) => {
                return Err(CliError::Input(format!(
                    "cannot read the session log {}: {e}",
                    as_file.display()
                )));
            }
        }
    } else {
        None
    };
    // Reading never creates, migrates or changes the database.
    let st = Store::open_read_only(&path)?;
    let lookup = |st: &Store, id: &str| -> store::Result<_> {
        Ok((st.session(id)?, st.classifications(id)?, st.reviewed(id)?))
    };
    let id = match (&from_file, &st) {
        (Some(sref), Some(st)) => match st.identify(sref) {
            Ok(i) => i.key,
            Err(e) => return Err(e.into()),
        },
        (Some(sref), None) => sref.session_id.clone(),
        (None, st) => {
            let known = match st {
                Some(st) => match st.session(&a.session) {
                    Ok(s) => s.is_some(),
                    Err(e) => return Err(e.into()),
                },
                None => false,
            };
            if !known {
                return Err(CliError::Input(format!(
                    "{} is neither a session log nor a session id in the case store {}",
                    one_line(&a.session),
                    store::shown(&path)
                )));
            }
            a.session.clone()
        }
    };
    let (sref, cs, reviewed) = match st.as_ref().map(|st| lookup(st, &id)).transpose() {
        Ok(found) => found.unwrap_or_default(),
        Err(e) => return Err(e.into()),
    };
    let conflicts = match st.as_ref().map(|st| st.conflicts(&id)).transpose() {
        Ok(c) => c.unwrap_or_default(),
        Err(e) => return Err(e.into()),
    };
    if let Some(st) = &st {
        let declared = sref.as_ref().map_or(id.as_str(), |s| s.session_id.as_str());
        if let Ok(all) = st.identities(declared) {
            let others: Vec<String> = all
                .iter()
                .filter(|(k, _)| *k != id)
                .map(|(k, r)| format!("`{}` ({})", one_line(k), one_line(&r.path)))
                .collect();
            if !others.is_empty() {
                ctx.note(&format!(
                    "note: other logs declare session id `{}` with different content; \
                     their records are kept apart under {}",
                    one_line(declared),
                    others.join(", ")
                ));
            }
        }
    }
    let rows: Vec<Listed> = cs
        .iter()
        .map(|c| {
            let (fact_verdict, source_verdict) = store::axes(c.quadrant);
            Listed {
                c,
                fact_verdict,
                source_verdict,
                reviewed: reviewed
                    .iter()
                    .any(|(k, t)| *k == c.claim_id && *t == c.turn),
            }
        })
        .collect();
    match a.format {
        ListFormat::Json => {
            let doc = ListDoc {
                schema: "provscope.classifications/1",
                db: store::shown(&path),
                key: &id,
                session: sref.as_ref(),
                classifications: rows,
                conflicts: &conflicts,
            };
            ctx.out
                .line(&serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        ListFormat::Text => {
            let n = rows.len();
            line(
                ctx,
                format!(
                    "{}  {n} classification{}  ({})",
                    one_line(&id),
                    if n == 1 { "" } else { "s" },
                    store::shown(&path)
                ),
            );
            for r in &rows {
                let c = r.c;
                line(
                    ctx,
                    format!(
                        "  turn {}  {}  {}{}",
                        c.turn,
                        one_line(&c.claim_id),
                        c.quadrant.name(),
                        if r.reviewed { "  reviewed" } else { "" }
                    ),
                );
                line(ctx, format!("    owner        {}", one_line(&c.owner)));
                line(
                    ctx,
                    format!("    next action  {}", one_line(&c.next_action)),
                );
                if !c.note.is_empty() {
                    line(ctx, format!("    note         {}", one_line(&c.note)));
                }
                let by = if c.reviewer.is_empty() {
                    String::new()
                } else {
                    format!("{} ", one_line(&c.reviewer))
                };
                line(ctx, format!("    decided      {by}at {}", c.at));
                for k in conflicts
                    .iter()
                    .filter(|k| k.claim_id == c.claim_id && k.turn == c.turn)
                {
                    line(ctx, format!("    conflict     {}", conflict_line(k)));
                }
            }
        }
    }
    Ok(Exit::Ok)
}

/// `provscope __store-torture`: classifies in a loop, printing each index once committed.
pub fn torture(a: &TortureArgs, db: Option<&Path>) -> CmdResult {
    let path = db_path(db);
    let st = Store::open(&path)?;
    let sref = SessionRef {
        session_id: a.session.clone(),
        path: format!("torture://{}", a.session),
        content_hash: None,
    };
    let reviewer = std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "torture".into());
    let mut stdout = std::io::stdout().lock();
    for i in 0..a.count {
        let claim = if a.same_claim {
            a.prefix.clone()
        } else {
            format!("{}_{i}", a.prefix)
        };
        let q = QUADRANTS[(i % 4) as usize];
        let c = Classification::new(
            &a.session,
            &claim,
            1,
            q,
            &format!("write {i}"),
            &reviewer,
            Timestamp::now(),
        );
        if let Err(e) = st.classify(&sref, &c) {
            return Err(CliError::Input(format!("write {i}: {e}")));
        }
        if writeln!(stdout, "{i}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return Ok(Exit::Ok);
        }
    }
    Ok(Exit::Ok)
}
