//! Checking a growing session again after lines were appended, re-running the turn-local checks
//! for the affected turns only (`verify --follow`, the explorer's follow mode).
//!
//! Each turn gets a fingerprint of everything the turn-local checks read about it: the turn, its
//! answer and claims, its context, its calls with their results and envelopes. A turn is
//! affected when its fingerprint changed, when one of its claims cites a call whose record (call,
//! result, envelopes) or whose turn's calls changed, or when its context lists such a call; a
//! changed session header affects every turn. The turn-local checks (origin, span, support,
//! stale, tier, ambiguous support, flattened context, answer text, tier review, parallel
//! conflicts: see [`turn_local`]) run for the affected turns only; the other turns keep their
//! findings and answer passages from the last report. The checks that look across turns (citation
//! drift, untrusted context, injection suspects, envelopes, sub-agents, defaulted TTLs) and the
//! verdicts, grid and metrics run over the whole session, from the claims' resolved origins.
//! The result equals a whole check (`tests/it/follow_incremental.rs` proves it on every prefix of
//! the sample logs and generated sessions).

use super::sub::SubCheck;
use super::{AnswerPassage, Config, Evidence, Finding, Keep, Kind, Resolved, SessionReport};
use crate::model::Session;
use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};

/// Whether findings of `kind` are computed turn by turn (kept for turns not affected).
pub fn turn_local(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Unsourced
            | Kind::DanglingOrigin
            | Kind::OriginMismatch
            | Kind::SpanInvalid
            | Kind::SpanUnsupported
            | Kind::Stale
            | Kind::BelowTier
            | Kind::AmbiguousSupport
            | Kind::FlattenedContext
            | Kind::AnswerMismatch
            | Kind::TierRendering
            | Kind::TierReviewOverdue
            | Kind::ParallelConflict
    )
}

type Print = [u8; 32];

/// Fingerprints of a session: its header, each turn, each call's record.
#[derive(Clone, Debug, Default, PartialEq)]
struct Prints {
    session: Print,
    turns: FxHashMap<u32, Print>,
    calls: FxHashMap<String, Print>,
}

/// Feeds `Debug` output to a hash without building the string.
struct Feed<'a>(&'a mut Sha256);

impl std::fmt::Write for Feed<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.update(s.as_bytes());
        Ok(())
    }
}

fn feed(h: &mut Sha256, v: &dyn std::fmt::Debug) {
    use std::fmt::Write;
    // Writing to a hash cannot fail.
    let _ = write!(Feed(h), "{v:?}\u{1f}");
}

impl Prints {
    fn of(s: &Session) -> Prints {
        let mut h = Sha256::new();
        feed(&mut h, &(s.id(), &s.name, &*s.source, &s.header, &s.import));
        let session = h.finalize().into();
        let mut ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        ids.extend(s.results.iter().map(|r| r.call_id()));
        ids.extend(s.envelopes.iter().map(|e| e.call_id.as_str()));
        let mut calls: FxHashMap<String, Print> = FxHashMap::default();
        for id in ids {
            if calls.contains_key(id) {
                continue;
            }
            let mut h = Sha256::new();
            feed(&mut h, &(s.call(id), s.result(id)));
            for e in s.envelopes_for(id) {
                feed(&mut h, e);
            }
            calls.insert(id.to_owned(), h.finalize().into());
        }
        let mut turns: Vec<u32> = s.turns.iter().map(|t| t.index).collect();
        turns.extend(s.calls.iter().map(|c| c.turn));
        turns.extend(s.results.iter().map(|r| r.turn));
        turns.extend(s.contexts.iter().map(|c| c.turn));
        turns.extend(s.answers.iter().map(|a| a.turn));
        turns.sort_unstable();
        turns.dedup();
        let turns = turns
            .into_iter()
            .map(|t| {
                let mut h = Sha256::new();
                feed(&mut h, &(s.turn(t), s.answer(t), s.context(t)));
                for c in s.calls_in_turn(t) {
                    h.update(calls.get(c.id.as_str()).copied().unwrap_or_default());
                }
                for r in s.results_in_turn(t) {
                    h.update(calls.get(r.call_id()).copied().unwrap_or_default());
                }
                (t, h.finalize().into())
            })
            .collect();
        Prints {
            session,
            turns,
            calls,
        }
    }

    /// The turns of `s` (fingerprinted `self`) whose turn-local findings `last` still holds.
    fn clean(&self, s: &Session, last: &Prints) -> FxHashSet<u32> {
        if self.session != last.session {
            return FxHashSet::default();
        }
        let changed_turns: FxHashSet<u32> = self
            .turns
            .iter()
            .filter(|(t, p)| last.turns.get(*t) != Some(*p))
            .map(|(t, _)| *t)
            .collect();
        let changed_call = |id: &str| self.calls.get(id) != last.calls.get(id);
        let mut dirty = changed_turns.clone();
        for c in s.claims() {
            let Some(o) = &c.stamp.origin else { continue };
            let id = o.tool_call_id.as_str();
            if changed_call(id) || s.call(id).is_some_and(|x| changed_turns.contains(&x.turn)) {
                dirty.insert(c.turn);
            }
        }
        for ctx in &s.contexts {
            if ctx.results.iter().any(|e| changed_call(&e.call_id)) {
                dirty.insert(ctx.turn);
            }
        }
        self.turns
            .keys()
            .filter(|t| !dirty.contains(t))
            .copied()
            .collect()
    }
}

/// What an incremental check keeps of the last one: its report and the session's fingerprints.
#[derive(Clone, Debug)]
pub struct Memo {
    prints: Prints,
    report: SessionReport,
}

impl Memo {
    /// The report of the check that made this memo.
    pub fn report(&self) -> &SessionReport {
        &self.report
    }
}

/// What an incremental check did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recheck {
    /// The turns the turn-local checks looked at, in order.
    pub checked: Vec<u32>,
    /// Turns whose findings were kept from the last report.
    pub kept: usize,
}

/// Checks `s` again after the check that left `last` (None: a whole check), re-running the
/// turn-local checks only for the turns affected since; equal to
/// [`super::check_session_with`]`(s, cfg, subs)`. The memo is for the next change.
pub fn check_since(
    s: &Session,
    cfg: &Config,
    subs: &[SubCheck],
    last: Option<&Memo>,
) -> (SessionReport, Memo, Recheck) {
    let prints = Prints::of(s);
    let keep = last.map(|m| Keep {
        report: &m.report,
        clean: prints.clean(s, &m.prints),
    });
    let kept = keep.as_ref().map_or(0, |k| k.clean.len());
    let (report, checked) = super::run(s, cfg, subs, keep, None);
    let memo = Memo {
        prints,
        report: report.clone(),
    };
    let recheck = Recheck {
        checked: checked.into_iter().collect(),
        kept,
    };
    (report, memo, recheck)
}

/// A kept finding with the one session-wide value a turn-local finding carries brought up to
/// date: how many calls the session has, in a dangling origin's evidence.
pub(crate) fn refresh(mut f: Finding, s: &Session) -> Finding {
    if let Evidence::DanglingOrigin(d) = &mut f.evidence {
        if d.recorded_calls.is_some() {
            d.recorded_calls = Some(s.calls.len());
        }
    }
    f
}

/// Fills the answer passages of the claims of clean turns from the last report (the answer
/// check skipped them): a clean turn's claims are the same, in the same order.
pub(crate) fn keep_answers(k: &Keep, resolved: &[Resolved], answers: &mut [Option<AnswerPassage>]) {
    let old: FxHashMap<(u32, usize), &Option<AnswerPassage>> = k
        .report
        .claims
        .iter()
        .filter(|v| k.clean.contains(&v.turn))
        .map(|v| ((v.turn, v.position), &v.answer))
        .collect();
    for (r, a) in resolved.iter().zip(answers.iter_mut()) {
        if let Some(o) = old.get(&(r.claim.turn, r.claim.position)) {
            a.clone_from(o);
        }
    }
}
