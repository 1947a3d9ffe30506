//! The diff views' state and keys: two sessions (or two runs) compared by [`crate::diff`], shown
//! side by side. The pairing of turns and claims, the changes and their direction are the diff
//! model's ([`SessionDiff::aligned`], [`SessionDiff::turns`]); here they are only laid out as
//! rows and stepped through.

use super::action::{Pane, View};
use super::app::{App, Loaded};
use super::update::{step, Effect};
use crate::check::ClaimVerdict;
use crate::diff::{self, CheckedSession, Direction, Presence, RunDiff, SessionDiff};
use std::sync::Arc;

impl CheckedSession for Loaded {
    fn session(&self) -> &crate::model::Session {
        &self.session
    }
    fn report(&self) -> &crate::check::SessionReport {
        &self.report
    }
}

/// A diff the runtime computed: the model and which loaded sessions were each side.
pub struct Computed {
    /// The diff of the two sides (aligned).
    pub run: RunDiff,
    /// A's sessions (indexes into `App::sessions`), in the order given to the diff.
    pub a: Vec<usize>,
    /// B's sessions, likewise.
    pub b: Vec<usize>,
    /// The sessions compared, A's then B's, as they were (a followed log reloaded meanwhile does
    /// not change what the diff shows).
    pub sides: [Vec<Arc<Loaded>>; 2],
}

/// Compares loaded sessions `a` (the baseline) with `b`, as `provscope diff` does, aligned for
/// the side by side view. The runtime runs it on a thread; tests call it directly.
pub fn compute(sessions: &[Arc<Loaded>], a: &[usize], b: &[usize], o: &diff::Options) -> Computed {
    let valid =
        |v: &[usize]| -> Vec<usize> { v.iter().copied().filter(|&i| i < sessions.len()).collect() };
    let (a, b) = (valid(a), valid(b));
    let side =
        |v: &[usize]| -> Vec<Arc<Loaded>> { v.iter().map(|&i| sessions[i].clone()).collect() };
    let o = diff::Options {
        align: true,
        ..o.clone()
    };
    let sides = [side(&a), side(&b)];
    Computed {
        run: diff::runs(sides[0].clone(), sides[1].clone(), o),
        a,
        b,
        sides,
    }
}

/// A side of the diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The baseline.
    A,
    /// What is compared with it.
    B,
}

impl Side {
    /// The side across.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// One row of the side by side view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffRow {
    /// A turn (index into `aligned`).
    Turn(usize),
    /// A claim: (turn in `aligned`, claim in its `claims`).
    Claim(usize, usize),
    /// A call only in A: (index into `turns`, index into `calls_removed`).
    CallRemoved(usize, usize),
    /// A call only in B: (index into `turns`, index into `calls_added`).
    CallAdded(usize, usize),
    /// A result whose content changed: (index into `turns`, index into `results_changed`).
    Result(usize, usize),
    /// A finding not about a claim gone in B: (turn in `turns`, or the session's; index).
    FindingResolved(Option<usize>, usize),
    /// A finding not about a claim new in B.
    FindingAdded(Option<usize>, usize),
}

/// The rows of a session diff: every aligned turn with its claims, then the turn's calls added
/// or removed, changed results and other findings; the session's own findings last.
pub fn rows(d: &SessionDiff) -> Vec<DiffRow> {
    let mut out = Vec::new();
    for (ti, t) in d.aligned.iter().enumerate() {
        out.push(DiffRow::Turn(ti));
        out.extend((0..t.claims.len()).map(|k| DiffRow::Claim(ti, k)));
        if let Some(x) = t.diff {
            if let Some(td) = d.turns.get(x) {
                out.extend((0..td.calls_removed.len()).map(|k| DiffRow::CallRemoved(x, k)));
                out.extend((0..td.calls_added.len()).map(|k| DiffRow::CallAdded(x, k)));
                out.extend((0..td.results_changed.len()).map(|k| DiffRow::Result(x, k)));
                out.extend(
                    (0..td.findings_resolved.len()).map(|k| DiffRow::FindingResolved(Some(x), k)),
                );
                out.extend((0..td.findings_added.len()).map(|k| DiffRow::FindingAdded(Some(x), k)));
            }
        }
    }
    out.extend((0..d.findings_resolved.len()).map(|k| DiffRow::FindingResolved(None, k)));
    out.extend((0..d.findings_added.len()).map(|k| DiffRow::FindingAdded(None, k)));
    out
}

/// The change a row shows, with its direction (None: unchanged).
pub fn change(d: &SessionDiff, row: DiffRow) -> Option<Direction> {
    match row {
        DiffRow::Turn(ti) => {
            let t = d.turns.get(d.aligned.get(ti)?.diff?)?;
            (t.moved || t.presence != Presence::Paired || t.question_a.is_some())
                .then_some(Direction::Neutral)
        }
        DiffRow::Claim(ti, k) => {
            let t = d.aligned.get(ti)?;
            let c = d.turns.get(t.diff?)?.claims.get(t.claims.get(k)?.diff?)?;
            Some(c.direction)
        }
        DiffRow::CallRemoved(..) | DiffRow::CallAdded(..) | DiffRow::Result(..) => {
            Some(Direction::Neutral)
        }
        DiffRow::FindingResolved(t, k) => finding(d, t, k, false).map(|f| f.direction(false)),
        DiffRow::FindingAdded(t, k) => finding(d, t, k, true).map(|f| f.direction(true)),
    }
}

/// A finding not about a claim, added or resolved, of turn `t` (None: the session's).
pub fn finding(
    d: &SessionDiff,
    t: Option<usize>,
    k: usize,
    added: bool,
) -> Option<&diff::FindingRef> {
    let list = match (t, added) {
        (Some(x), true) => &d.turns.get(x)?.findings_added,
        (Some(x), false) => &d.turns.get(x)?.findings_resolved,
        (None, true) => &d.findings_added,
        (None, false) => &d.findings_resolved,
    };
    list.get(k)
}

/// A pair of sessions open side by side.
#[derive(Clone, Debug)]
pub struct OpenPair {
    /// Index into `RunDiff::sessions`.
    pub session: usize,
    /// Its rows.
    pub rows: Vec<DiffRow>,
    /// The selected row.
    pub selected: usize,
    /// The side in focus (what `Enter`, `y` and `o` act on first).
    pub side: Side,
    /// Beside both sources: whether the focused side's claim or its source scrolls.
    pub part: Part,
}

/// The pane of a side in focus beside both sources.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Part {
    /// The claim and its findings.
    Claim,
    /// The result beside it (`J`/`K` scroll it first).
    #[default]
    Source,
}

/// Two sets of sessions compared (`D` in the sessions list, `provscope diff A B --explore`).
pub struct DiffState {
    /// The diff model.
    pub run: RunDiff,
    /// A's sessions as indexes into `App::sessions` (a `SessionRef::index` leads here).
    pub a: Vec<usize>,
    /// B's sessions likewise.
    pub b: Vec<usize>,
    /// The sessions compared, A's then B's (in the same order as `a` and `b`).
    pub sides: [Vec<Arc<Loaded>>; 2],
    /// Selected row of the pairs list: paired sessions, then those only in B, then only in A.
    pub pair: usize,
    /// The pair shown side by side.
    pub open: Option<OpenPair>,
}

impl DiffState {
    /// The session of a side of pair `k`.
    pub fn loaded(&self, k: usize, side: Side) -> Option<&Arc<Loaded>> {
        let d = self.run.sessions.get(k)?;
        match side {
            Side::A => self.sides[0].get(d.a.index),
            Side::B => self.sides[1].get(d.b.index),
        }
    }

    /// Rows of the pairs list.
    pub fn pair_rows(&self) -> usize {
        self.run.sessions.len() + self.run.sessions_added.len() + self.run.sessions_removed.len()
    }
}

/// The open pair: its diff and the state of the view.
pub fn open_pair(app: &App) -> Option<(&DiffState, &SessionDiff, &OpenPair)> {
    let ds = app.diff.as_ref()?;
    let op = ds.open.as_ref()?;
    Some((ds, ds.run.sessions.get(op.session)?, op))
}

/// The claim verdicts of a claim row on each side.
pub fn claims_of(
    app: &App,
    row: DiffRow,
) -> Option<(Option<&ClaimVerdict>, Option<&ClaimVerdict>)> {
    let (ds, d, op) = open_pair(app)?;
    let DiffRow::Claim(ti, k) = row else {
        return None;
    };
    let c = d.aligned.get(ti)?.claims.get(k)?;
    let la = ds.loaded(op.session, Side::A)?;
    let lb = ds.loaded(op.session, Side::B)?;
    Some((
        c.a.and_then(|i| la.report.claims.get(i)),
        c.b.and_then(|i| lb.report.claims.get(i)),
    ))
}

/// The selected row.
pub fn selected_row(app: &App) -> Option<DiffRow> {
    let (_, _, op) = open_pair(app)?;
    op.rows.get(op.selected).copied()
}

/// `D` in the sessions list: marks the selected session as A; on another session, compares A
/// with it; on A again, unmarks it.
pub fn mark(app: &mut App) -> Vec<Effect> {
    let Some(sel) = app.selected_session() else {
        return vec![];
    };
    let key = app.keymap.key_of("diff");
    let name = |app: &App, i: usize| super::views::clean(&app.sessions[i].session.name);
    match app.diff_mark {
        Some(a) if a == sel => {
            app.diff_mark = None;
            app.status = format!("diff: {} is no longer A", name(app, a));
            vec![]
        }
        Some(a) => {
            app.diff_mark = None;
            app.status = format!(
                "comparing {} (A) with {} (B)…",
                name(app, a),
                name(app, sel)
            );
            vec![Effect::Diff {
                a: vec![a],
                b: vec![sel],
            }]
        }
        None => {
            app.diff_mark = Some(sel);
            app.status = format!(
                "diff: A is {}; {key} on another session compares with it ({key} here: unmark)",
                name(app, sel)
            );
            vec![]
        }
    }
}

/// A diff arrived: one pair opens side by side, several open the list of pairs.
pub fn diffed(app: &mut App, c: Computed) {
    let run = c.run;
    let only_pair =
        run.sessions.len() == 1 && run.sessions_added.is_empty() && run.sessions_removed.is_empty();
    app.status = match (run.direction, run.counts.is_empty()) {
        (_, true) => "diff: no changes".to_owned(),
        (Direction::Worse, _) => "diff: worse (something got worse in B)".to_owned(),
        (Direction::Better, _) => "diff: better".to_owned(),
        (Direction::Neutral, _) => "diff: changed, neither better nor worse".to_owned(),
    };
    app.diff = Some(DiffState {
        run,
        a: c.a,
        b: c.b,
        sides: c.sides,
        pair: 0,
        open: None,
    });
    if !matches!(app.view, View::DiffPairs | View::Diff | View::DiffClaim) {
        app.history.push(app.view);
    }
    if only_pair {
        open_session_pair(app, 0);
        app.view = View::Diff;
    } else {
        app.view = View::DiffPairs;
    }
}

/// Opens pair `k` side by side, on its first change.
fn open_session_pair(app: &mut App, k: usize) {
    let Some(ds) = app.diff.as_mut() else { return };
    let Some(d) = ds.run.sessions.get(k) else {
        return;
    };
    let rows = rows(d);
    let selected = rows
        .iter()
        .position(|&r| change(d, r).is_some())
        .unwrap_or(0);
    ds.open = Some(OpenPair {
        session: k,
        rows,
        selected,
        side: Side::B,
        part: Part::Source,
    });
}

/// `j`/`k`, pages, `g`/`G` in the diff views.
pub fn move_by(app: &mut App, d: isize) {
    match app.view {
        View::DiffPairs => {
            if let Some(ds) = app.diff.as_mut() {
                ds.pair = step(ds.pair, d, ds.pair_rows());
            }
        }
        View::Diff => {
            if let Some(op) = app.diff.as_mut().and_then(|ds| ds.open.as_mut()) {
                op.selected = step(op.selected, d, op.rows.len());
            }
        }
        View::DiffClaim => {
            // To the next (previous) claim or result, each beside its sources.
            let dir = d.signum();
            let mut moved = false;
            for _ in 0..d.unsigned_abs().min(10_000) {
                if !step_to(app, dir, |_, r| openable(r)) {
                    break;
                }
                moved = true;
            }
            if moved {
                sources_at_spans(app);
            }
        }
        _ => {}
    }
}

fn openable(r: DiffRow) -> bool {
    matches!(r, DiffRow::Claim(..) | DiffRow::Result(..))
}

/// Moves the selection to the nearest row in direction `dir` that `want` accepts (no wrap).
fn step_to(app: &mut App, dir: isize, want: impl Fn(&SessionDiff, DiffRow) -> bool) -> bool {
    let Some(ds) = app.diff.as_mut() else {
        return false;
    };
    let Some(op) = ds.open.as_mut() else {
        return false;
    };
    let Some(d) = ds.run.sessions.get(op.session) else {
        return false;
    };
    let mut i = op.selected as isize + dir;
    while i >= 0 && (i as usize) < op.rows.len() {
        if want(d, op.rows[i as usize]) {
            op.selected = i as usize;
            return true;
        }
        i += dir;
    }
    false
}

/// `n`/`N`: the next (previous) change, wrapping; "change k of N" in the status line.
pub fn next_change(app: &mut App, dir: isize) -> Vec<Effect> {
    let in_claim = app.view == View::DiffClaim;
    let Some(ds) = app.diff.as_mut() else {
        return vec![];
    };
    let Some(op) = ds.open.as_mut() else {
        return vec![];
    };
    let Some(d) = ds.run.sessions.get(op.session) else {
        return vec![];
    };
    let changes: Vec<usize> = (0..op.rows.len())
        .filter(|&i| change(d, op.rows[i]).is_some() && (!in_claim || openable(op.rows[i])))
        .collect();
    if changes.is_empty() {
        app.status = "no changes".into();
        return vec![];
    }
    let next = if dir > 0 {
        changes.iter().position(|&i| i > op.selected)
    } else {
        changes.iter().rposition(|&i| i < op.selected)
    };
    let (k, wrapped) = match next {
        Some(k) => (k, false),
        None if dir > 0 => (0, true),
        None => (changes.len() - 1, true),
    };
    op.selected = changes[k];
    app.status = format!(
        "change {} of {}{}",
        k + 1,
        changes.len(),
        if wrapped { " (wrapped)" } else { "" }
    );
    if in_claim {
        sources_at_spans(app);
    }
    vec![]
}

/// `Enter`: a pair opens side by side; a claim or result row opens beside both sources.
pub fn open(app: &mut App) -> Vec<Effect> {
    match app.view {
        View::DiffPairs => {
            let Some(ds) = app.diff.as_ref() else {
                return vec![];
            };
            let k = ds.pair;
            if k < ds.run.sessions.len() {
                open_session_pair(app, k);
                app.history.push(View::DiffPairs);
                app.view = View::Diff;
            } else {
                app.status = if k < ds.run.sessions.len() + ds.run.sessions_added.len() {
                    "only in B: nothing to compare it with".into()
                } else {
                    "only in A: nothing to compare it with".into()
                };
            }
        }
        View::Diff => match selected_row(app) {
            Some(r) if openable(r) => {
                app.history.push(View::Diff);
                app.view = View::DiffClaim;
                sources_at_spans(app);
            }
            Some(_) => {
                app.status = "Enter opens a claim or a changed result beside both sources".into()
            }
            None => {}
        },
        _ => {}
    }
    vec![]
}

/// `Tab`, `h`/`l`: the pane in focus. `h`/`l` choose a side; `Tab` switches sides side by
/// side, and beside both sources steps through A's claim, A's source, B's claim, B's source.
pub fn focus(app: &mut App, dir: i32) {
    let beside = app.view == View::DiffClaim;
    if let Some(op) = app.diff.as_mut().and_then(|ds| ds.open.as_mut()) {
        match (dir, op.side, op.part) {
            (-1, _, _) => op.side = Side::A,
            (1, _, _) => op.side = Side::B,
            (_, _, Part::Claim) if beside => op.part = Part::Source,
            (_, side, Part::Source) if beside => {
                op.side = side.other();
                op.part = Part::Claim;
            }
            (_, side, _) => op.side = side.other(),
        }
    }
}

/// Focuses one pane of the claim view (a click on it).
pub fn focus_pane(app: &mut App, side: Side, part: Part) {
    if let Some(op) = app.diff.as_mut().and_then(|ds| ds.open.as_mut()) {
        op.side = side;
        op.part = part;
    }
}

/// Puts each source pane of the claim view at its cited span.
pub fn sources_at_spans(app: &mut App) {
    let (a, b) = super::views::diff::span_rows(app);
    app.scroll.set(Pane::DiffA, a);
    app.scroll.set(Pane::DiffB, b);
    app.scroll.set(Pane::DiffClaimA, 0);
    app.scroll.set(Pane::DiffClaimB, 0);
}

/// The session and claim (indexes into `App::sessions` and its report's claims) of the focused
/// side's claim on the selected row: what `c` opens in the claim view.
pub fn focused_claim(app: &App) -> Option<(usize, usize)> {
    let (ds, d, op) = open_pair(app)?;
    let DiffRow::Claim(ti, k) = op.rows.get(op.selected).copied()? else {
        return None;
    };
    let c = d.aligned.get(ti)?.claims.get(k)?;
    let i = if op.side == Side::A { c.a } else { c.b }?;
    let l = ds.loaded(op.session, op.side)?;
    let s = app.sessions.iter().position(|x| Arc::ptr_eq(x, l))?;
    Some((s, i))
}

/// The session, claim and call of the focused side of the selected row.
pub fn focused(app: &App) -> Option<(usize, Option<&ClaimVerdict>, Option<String>)> {
    let (ds, d, op) = open_pair(app)?;
    let row = op.rows.get(op.selected).copied()?;
    let side = op.side;
    let l = ds.loaded(op.session, side)?;
    let s = app.sessions.iter().position(|x| Arc::ptr_eq(x, l))?;
    match row {
        DiffRow::Claim(..) => {
            let (ca, cb) = claims_of(app, row)?;
            let c = if side == Side::A { ca } else { cb };
            Some((
                s,
                c,
                c.and_then(|c| c.call_id.as_deref().map(str::to_owned)),
            ))
        }
        DiffRow::Result(t, k) => {
            let r = d.turns.get(t)?.results_changed.get(k)?;
            let call = if side == Side::A {
                &r.call_a
            } else {
                &r.call_b
            };
            Some((s, None, Some(call.clone())))
        }
        _ => Some((s, None, None)),
    }
}

/// What `y` copies in the diff views: the focused side's claim id (in the claim view with a
/// source focused: its cited text), or its call id.
pub fn copy_text(app: &App) -> Option<String> {
    if app.view == View::DiffPairs {
        let ds = app.diff.as_ref()?;
        let d = ds.run.sessions.get(ds.pair)?;
        return Some(format!("{} {}", d.a.file, d.b.file));
    }
    let (s, c, call) = focused(app)?;
    match c {
        Some(c) if app.view == View::DiffClaim => c
            .cited_text(&app.sessions.get(s)?.session)
            .map(str::to_owned)
            .or_else(|| Some(c.claim_id.to_string())),
        Some(c) => Some(c.claim_id.to_string()),
        None => call,
    }
}

/// What `o` opens: the focused side's log at the claim's (or the result's) line.
pub fn open_external(app: &App) -> Option<(usize, u64, Option<crate::model::Name>)> {
    let (s, c, call) = focused(app)?;
    let l = app.sessions.get(s)?;
    let (line, path) = match (c, call) {
        (Some(c), _) => (c.line, c.json_path.clone()),
        (None, Some(id)) => l
            .session
            .result(&id)
            .map_or((1, None), |r| (r.line, r.json_path.clone())),
        (None, None) => (1, None),
    };
    Some((s, line, path))
}
