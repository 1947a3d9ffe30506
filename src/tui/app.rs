//! The explorer's state. Everything a view draws is here, already computed by `check`; the
//! explorer adds only selection, navigation, scroll positions and the engineer's
//! classifications. Only `update` changes it.

use super::action::{Pane, View};
use super::filter::{kind_bit, Filter};
use super::input::Input;
use super::keymap::Keymap;
use super::order::SortedOrder;
use super::theme::Theme;
use crate::check::{ClaimVerdict, Finding, Quadrant, SessionReport, Severity};
use crate::model::{DiagLevel, Name, Session, Timestamp, Turn};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

/// A loaded and checked session, indexed for the views.
pub struct Loaded {
    /// The session.
    pub session: Session,
    /// Its findings and verdicts.
    pub report: SessionReport,
    /// For each entry of `session.turns`, the range of `report.claims` stated in that turn.
    pub turn_claims: Vec<Range<usize>>,
    /// Most serious finding.
    pub worst: Option<Severity>,
    /// Claims with a warning or an error, in turn order.
    pub flagged: Vec<u32>,
    /// Turns (indexes into `session.turns`) holding a line the loader could not read.
    pub damaged_turns: Vec<usize>,
    /// Index of the first claim of each answer (prefix sums), to find claim `i` in O(log n).
    answer_starts: Vec<usize>,
    /// Per claim: worst severity (0 error, 1 warning, 2 info, 3 none).
    worst_of: Vec<u8>,
    /// Per claim: the finding kinds it carries, one bit each ([`kind_bit`]).
    kinds_of: Vec<u32>,
}

fn sev_code(s: Option<Severity>) -> u8 {
    match s {
        Some(Severity::Error) => 0,
        Some(Severity::Warning) => 1,
        Some(Severity::Info) => 2,
        None => 3,
    }
}

/// The session with a turn listed for every turn number its calls, results, contexts and
/// answers name without a `turn` event (a log `provscope record` writes has none: its calls are
/// in turn 1), so that the views show them. The checks ran before, on the session as loaded.
fn with_implied_turns(mut s: Session) -> Session {
    let mut implied: Vec<(u32, u64)> = Vec::new();
    let events = s
        .calls
        .iter()
        .map(|c| (c.turn, c.line))
        .chain(s.results.iter().map(|r| (r.turn, r.line)))
        .chain(s.contexts.iter().map(|c| (c.turn, c.line)))
        .chain(s.answers.iter().map(|a| (a.turn, a.line)));
    for (turn, line) in events {
        if !s.index.turn.contains(turn) {
            implied.push((turn, line));
        }
    }
    if implied.is_empty() {
        return s;
    }
    implied.sort_unstable();
    implied.dedup_by_key(|x| x.0);
    s.turns
        .extend(implied.into_iter().map(|(index, line)| Turn {
            index,
            user: Name::default(),
            started_at: None,
            ended_at: None,
            line,
            json_path: None,
        }));
    s.turns.sort_by_key(|t| t.index);
    s.index.turn = s
        .turns
        .iter()
        .enumerate()
        .map(|(i, t)| (t.index, i))
        .collect();
    s
}

impl Loaded {
    /// Indexes a session and its report for the views.
    pub fn new(session: Session, report: SessionReport) -> Self {
        let session = with_implied_turns(session);
        let mut turn_claims = Vec::with_capacity(session.turns.len());
        let claims = &report.claims;
        let mut i = 0;
        for t in &session.turns {
            while i < claims.len() && claims[i].turn < t.index {
                i += 1;
            }
            let start = i;
            while i < claims.len() && claims[i].turn == t.index {
                i += 1;
            }
            turn_claims.push(start..i);
        }
        let worst = report.worst();
        let mut answer_starts = Vec::with_capacity(session.answers.len());
        let mut n = 0;
        for a in &session.answers {
            answer_starts.push(n);
            n += a.claims.len();
        }
        let mut worst_of = Vec::with_capacity(claims.len());
        let mut kinds_of = Vec::with_capacity(claims.len());
        let mut flagged = Vec::new();
        for (k, c) in claims.iter().enumerate() {
            let fs = report.findings_for(c);
            let mut w = None;
            let mut mask = 0;
            for f in fs {
                w = Some(w.map_or(f.severity, |x: Severity| x.min(f.severity)));
                mask |= kind_bit(f.kind);
            }
            if matches!(w, Some(Severity::Error | Severity::Warning)) {
                flagged.push(k as u32);
            }
            worst_of.push(sev_code(w));
            kinds_of.push(mask);
        }
        // A diagnostic's line falls in the turn whose event precedes it.
        let mut damaged_turns: Vec<usize> = session
            .diagnostics
            .iter()
            .filter(|d| d.level == DiagLevel::Error && d.line > 0)
            .filter_map(|d| {
                session
                    .turns
                    .partition_point(|t| t.line <= d.line)
                    .checked_sub(1)
            })
            .collect();
        damaged_turns.dedup();
        Loaded {
            session,
            report,
            turn_claims,
            worst,
            flagged,
            damaged_turns,
            answer_starts,
            worst_of,
            kinds_of,
        }
    }

    /// The recorded claim `i` (same order as `report.claims`).
    pub fn claim_at(&self, i: usize) -> Option<&crate::model::Claim> {
        let a = self
            .answer_starts
            .partition_point(|&s| s <= i)
            .checked_sub(1)?;
        self.session
            .answers
            .get(a)?
            .claims
            .get(i - self.answer_starts[a])
    }

    /// The index in `report.claims` of claim `claim_id` stated at `turn`.
    pub fn claim_index(&self, claim_id: &str, turn: u32) -> Option<usize> {
        let t = self.session.turns.iter().position(|t| t.index == turn)?;
        let r = self.turn_claims.get(t)?.clone();
        r.into_iter()
            .find(|&i| self.report.claims[i].claim_id == claim_id)
    }

    /// The findings of claim `i`.
    pub fn findings(&self, i: usize) -> impl Iterator<Item = &Finding> {
        self.report
            .claims
            .get(i)
            .into_iter()
            .flat_map(|c| self.report.findings_for(c))
    }

    /// The worst severity of claim `i`.
    pub fn claim_worst(&self, i: usize) -> Option<Severity> {
        match self.worst_of.get(i) {
            Some(0) => Some(Severity::Error),
            Some(1) => Some(Severity::Warning),
            Some(2) => Some(Severity::Info),
            _ => None,
        }
    }

    /// The finding kinds of claim `i`, one bit each.
    pub fn kind_mask(&self, i: usize) -> u32 {
        self.kinds_of.get(i).copied().unwrap_or(0)
    }

    /// The claim verdict `i`.
    pub fn claim(&self, i: usize) -> Option<&ClaimVerdict> {
        self.report.claims.get(i)
    }

    /// Quadrant counts of the computed grid.
    pub fn quadrant_count(&self, q: Quadrant) -> u64 {
        self.report.metrics.quadrants.get(&q).copied().unwrap_or(0)
    }

    /// The turn (index into `session.turns`) of claim `i`.
    pub fn turn_of(&self, i: usize) -> Option<usize> {
        let t = self.turn_claims.partition_point(|r| r.end <= i);
        self.turn_claims
            .get(t)
            .filter(|r| r.contains(&i))
            .map(|_| t)
    }

    /// True when the file is not any log format provscope reads (nothing was loaded from it).
    pub fn unknown_format(&self) -> bool {
        self.session.header.is_none() && self.session.turns.is_empty() && self.session.has_errors()
    }

    /// The error-level diagnostics.
    pub fn errors(&self) -> impl Iterator<Item = &crate::model::Diagnostic> {
        self.session
            .diagnostics
            .iter()
            .filter(|d| d.level == DiagLevel::Error)
    }
}

/// A classification the engineer made (persisted in the case store).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mark {
    /// The quadrant assigned by hand.
    pub quadrant: Option<Quadrant>,
    /// Free-text note.
    pub note: String,
    /// What the case store recorded with it (None until it is saved or when it was read from
    /// nowhere).
    pub recorded: Option<HandRecord>,
}

/// A hand classification as the case store holds it: the owner and next action recorded with
/// the quadrant, who decided and when.
#[derive(Clone, Debug, PartialEq)]
pub struct HandRecord {
    /// Who owns it.
    pub owner: String,
    /// What to do next.
    pub next_action: String,
    /// Who classified it.
    pub reviewer: String,
    /// When.
    pub at: Timestamp,
}

/// A correction of a shipped answer (`provscope correct`), read from the case store.
#[derive(Clone, Debug, PartialEq)]
pub struct CorrectionMark {
    /// `survived` or `corrected`.
    pub outcome: String,
    /// Free text.
    pub note: String,
    /// When it was recorded.
    pub at: Timestamp,
}

/// Key of a claim statement across sessions: (session id, claim id, turn).
pub type ClaimKey = (String, String, u32);

/// The engineer's work on one loaded session, by claim index.
#[derive(Clone, Debug, Default)]
pub struct SessionState {
    /// Classifications and notes.
    pub marks: HashMap<u32, Mark>,
    /// Reviewed claims.
    pub reviewed: HashSet<u32>,
    /// Where the last review stopped.
    pub cursor: Option<u32>,
    /// Corrections recorded for a claim (`provscope correct`), oldest first.
    pub corrections: HashMap<u32, Vec<CorrectionMark>>,
}

/// A column of the sessions list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// By name.
    Name,
    /// By turns.
    Turns,
    /// By claims.
    Claims,
    /// Worst finding first.
    Worst,
    /// By a quadrant's count.
    Quadrant(Quadrant),
    /// By review progress (share of flagged claims reviewed).
    Reviewed,
}

impl SortKey {
    /// Every column, in the order `s` steps through them.
    pub const ALL: [SortKey; 9] = [
        SortKey::Name,
        SortKey::Turns,
        SortKey::Claims,
        SortKey::Worst,
        SortKey::Quadrant(Quadrant::FactRightSourceRight),
        SortKey::Quadrant(Quadrant::FactRightSourceWrong),
        SortKey::Quadrant(Quadrant::FactWrongSourceRight),
        SortKey::Quadrant(Quadrant::FactWrongSourceWrong),
        SortKey::Reviewed,
    ];

    /// The column's name.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Turns => "turns",
            SortKey::Claims => "claims",
            SortKey::Worst => "worst finding",
            SortKey::Quadrant(q) => match q {
                Quadrant::FactRightSourceRight => "RR",
                Quadrant::FactRightSourceWrong => "RW",
                Quadrant::FactWrongSourceRight => "WR",
                Quadrant::FactWrongSourceWrong => "WW",
            },
            SortKey::Reviewed => "reviewed",
        }
    }
}

/// Session view focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The turns.
    Turns,
    /// The calls of the turn.
    Calls,
    /// The claims of the turn.
    Claims,
    /// The question and answer.
    Answer,
}

/// A search or result hit's target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// A claim (index into `report.claims`).
    Claim(u32),
    /// A call (index into `session.calls`).
    Call(u32),
}

/// One search hit.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    /// Index into `App::sessions`.
    pub session: u32,
    /// What matched.
    pub target: Target,
    /// 3 exact field, 2 prefix of a field, 1 substring, 0 fuzzy.
    pub rank: u8,
    /// Fuzzy score within a rank.
    pub score: i64,
    /// What is shown, and the matched character positions in it.
    pub text: String,
    /// Matched character positions in `text`.
    pub positions: Vec<usize>,
}

/// Search results over every loaded session.
#[derive(Clone, Debug, Default)]
pub struct SearchResults {
    /// The query these results answer.
    pub query: String,
    /// Best first.
    pub hits: Vec<SearchHit>,
    /// True while results are still coming.
    pub running: bool,
    /// Selected hit.
    pub selected: usize,
}

/// The filtered claims of every loaded session.
#[derive(Clone, Debug, Default)]
pub struct Queue {
    /// (session index, claim index), sessions in list order, claims in turn order.
    pub items: Vec<(u32, u32)>,
    /// Selected row.
    pub selected: usize,
    /// How many sessions were loaded when it was built.
    pub sessions: usize,
    /// Positions in `items` by effective quadrant (`QUADRANTS` order, then none).
    pub by_cell: [Vec<u32>; 5],
}

/// Scroll offsets (rows) of the panes that scroll on their own.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scroll {
    offsets: HashMap<Pane, usize>,
}

impl Scroll {
    /// The offset of a pane.
    pub fn get(&self, p: Pane) -> usize {
        self.offsets.get(&p).copied().unwrap_or(0)
    }

    /// Sets the offset of a pane.
    pub fn set(&mut self, p: Pane, v: usize) {
        self.offsets.insert(p, v);
    }
}

/// The follow mode: logs re-read as they grow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FollowState {
    /// Files followed (0 until the follower reports).
    pub files: usize,
    /// How changes are learnt ("file notifications", "polling"); empty until started.
    pub mode: &'static str,
    /// Reloads so far.
    pub updates: u64,
    /// The file last reloaded.
    pub last: Option<String>,
}

/// A large session log being opened in steps (its first turns first, see `loader::Steps`).
#[derive(Clone, Debug, PartialEq)]
pub struct Growing {
    /// The file, as sessions name their source.
    pub source: String,
    /// The session (index into `App::sessions`).
    pub index: usize,
    /// Bytes of the file loaded and checked so far (what the session holds).
    pub checked: u64,
    /// Bytes of the file read by the step being loaded.
    pub read: u64,
    /// Once the step being loaded is read: the share of its checks done, in percent.
    pub checking: Option<u8>,
    /// Bytes of the file.
    pub total: u64,
}

/// The whole state.
pub struct App {
    /// Sessions loaded so far (shared with search threads).
    pub sessions: Vec<Arc<Loaded>>,
    /// The engineer's work per loaded session (same indexes as `sessions`).
    pub states: Vec<SessionState>,
    /// Session id -> indexes into `sessions`.
    pub by_id: HashMap<String, Vec<usize>>,
    /// (done, total) while loading in the background.
    pub loading: Option<(usize, usize)>,
    /// Large logs still being opened in steps.
    pub growing: Vec<Growing>,
    /// The only input's session view was opened with its first step.
    pub opened_early: bool,
    /// Problems with inputs, shown in the sessions view.
    pub problems: Vec<String>,
    /// Current view.
    pub view: View,
    /// Where `Back` goes.
    pub history: Vec<View>,
    /// Order of the sessions view.
    pub order: SortedOrder,
    /// Sort column of the sessions view.
    pub sort: SortKey,
    /// Sort descending.
    pub sort_reverse: bool,
    /// Selected row in the sessions view (index into `order`).
    pub sel_session: usize,
    /// The open session (index into `sessions`).
    pub cur: Option<usize>,
    /// Selected turn (index into `session.turns`).
    pub sel_turn: usize,
    /// Selected claim (index into `report.claims`).
    pub sel_claim: usize,
    /// Selected call (index among the selected turn's calls).
    pub sel_call: usize,
    /// Session view focus.
    pub focus: Focus,
    /// Claim view: the source pane has the focus (else the claim pane).
    pub source_focus: bool,
    /// Claim view: the call shown beside the claim instead of the cited one.
    pub shown_call: Option<String>,
    /// Scroll offsets.
    pub scroll: Scroll,
    /// Help overlay shown.
    pub help: bool,
    /// Text input in progress.
    pub input: Option<Input>,
    /// Last search.
    pub search: Option<SearchResults>,
    /// Generation of the running search (newer cancels older).
    pub search_gen: u64,
    /// Filter of the queue, grid and review.
    pub filter: Filter,
    /// The filtered claims.
    pub queue: Queue,
    /// Review: positions in `queue.items` of the flagged ones.
    pub review: Vec<usize>,
    /// Position in `review`.
    pub review_pos: usize,
    /// `n`/`N` order in the claim view: severity first (else turn order).
    pub severity_order: bool,
    /// Selected grid cell (index into `QUADRANTS`).
    pub grid_cell: usize,
    /// What `y` copies right after a case was written.
    pub last_case: Option<String>,
    /// The claim to open once loading is done (`open --claim`).
    pub start: Option<super::StartAt>,
    /// One-line status (saved, errors).
    pub status: String,
    /// Terminal size.
    pub size: (u16, u16),
    /// Keys.
    pub keymap: Keymap,
    /// Which sub-agent link of the turn the next `SubSession` opens.
    pub sub_cursor: usize,
    /// The sub-agent's stamp to select once its session is open: (claim id, turn).
    pub sub_target: Option<(String, u32)>,
    /// Where Back returns after a sub-agent session was opened: (history length, session, turn).
    pub return_to: Vec<(usize, usize, usize)>,
    /// Colours.
    pub theme: Theme,
    /// Following the logs as they grow (`--follow`, `F`).
    pub follow: Option<FollowState>,
    /// Sessions no longer in their file after a reload (kept in `sessions` so that indexes stay
    /// valid, but out of the list, the queue and `by_id`).
    pub dropped: HashSet<usize>,
    /// The session marked as A of a diff (`D` in the sessions list).
    pub diff_mark: Option<usize>,
    /// The sessions to compare once loading is done (`provscope diff A B --explore`): A's, B's.
    pub diff_start: Option<(Vec<usize>, Vec<usize>)>,
    /// The diff shown in the diff views.
    pub diff: Option<super::diff::DiffState>,
}

impl App {
    /// An empty app.
    pub fn new(keymap: Keymap, theme: Theme) -> Self {
        App {
            sessions: Vec::new(),
            states: Vec::new(),
            by_id: HashMap::new(),
            loading: None,
            growing: Vec::new(),
            opened_early: false,
            problems: Vec::new(),
            view: View::Sessions,
            history: Vec::new(),
            order: SortedOrder::new(),
            sort: SortKey::Name,
            sort_reverse: false,
            sel_session: 0,
            cur: None,
            sel_turn: 0,
            sel_claim: 0,
            sel_call: 0,
            focus: Focus::Turns,
            source_focus: false,
            shown_call: None,
            scroll: Scroll::default(),
            help: false,
            input: None,
            search: None,
            search_gen: 0,
            filter: Filter::default(),
            queue: Queue::default(),
            review: Vec::new(),
            review_pos: 0,
            severity_order: false,
            grid_cell: 0,
            last_case: None,
            start: None,
            status: String::new(),
            size: (80, 24),
            keymap,
            sub_cursor: 0,
            sub_target: None,
            return_to: Vec::new(),
            theme,
            follow: None,
            dropped: HashSet::new(),
            diff_mark: None,
            diff_start: None,
            diff: None,
        }
    }

    /// Adds a loaded session in O(log n), keeping the selected row on the same session; a
    /// selection on the first row stays on the first row (sessions arrive in no particular
    /// order while the list fills, and the list is read from its top).
    pub fn push_session(&mut self, l: Loaded) {
        let idx = self.sessions.len();
        self.by_id
            .entry(l.report.session_id.clone())
            .or_default()
            .push(idx);
        self.sessions.push(Arc::new(l));
        self.states.push(SessionState::default());
        let row = self.order.insert(
            idx as u32,
            comparator(&self.sessions, &self.states, self.sort, self.sort_reverse),
        );
        if row <= self.sel_session && self.sel_session > 0 {
            self.sel_session += 1;
        }
    }

    /// Replaces the sessions loaded from file `source` by `new` (a followed file was read
    /// again): in place, in file order, while both have sessions; the rest of `new` is added;
    /// old ones no longer in the file leave the list. The engineer's marks of a replaced session
    /// are dropped here (the runtime restores them from the case store). Returns the indexes
    /// replaced or added.
    pub fn replace_source(&mut self, source: &str, new: Vec<Loaded>) -> Vec<usize> {
        let old: Vec<usize> = (0..self.sessions.len())
            .filter(|i| !self.dropped.contains(i) && &*self.sessions[*i].session.source == source)
            .collect();
        let selected = self.order.get(self.sel_session);
        let mut touched = Vec::with_capacity(new.len());
        let mut rest = Vec::new();
        for (k, l) in new.into_iter().enumerate() {
            match old.get(k) {
                Some(&i) => {
                    self.unindex(i);
                    self.by_id
                        .entry(l.report.session_id.clone())
                        .or_default()
                        .push(i);
                    self.sessions[i] = Arc::new(l);
                    self.states[i] = SessionState::default();
                    touched.push(i);
                }
                None => rest.push(l),
            }
        }
        for &i in old.iter().skip(touched.len()) {
            self.unindex(i);
            self.dropped.insert(i);
        }
        if old.len() > touched.len() {
            let dropped = &self.dropped;
            let keep: Vec<usize> = self.order.iter().filter(|i| !dropped.contains(i)).collect();
            self.order = SortedOrder::new();
            for i in keep {
                self.order.insert(
                    i as u32,
                    comparator(&self.sessions, &self.states, self.sort, self.sort_reverse),
                );
            }
        }
        self.order.resort(comparator(
            &self.sessions,
            &self.states,
            self.sort,
            self.sort_reverse,
        ));
        self.sel_session = selected
            .and_then(|s| self.order.position(s))
            .unwrap_or(self.sel_session)
            .min(self.order.len().saturating_sub(1));
        for l in rest {
            touched.push(self.sessions.len());
            self.push_session(l);
        }
        touched
    }

    /// Replaces session `i` by a longer step of the same log, in place: the engineer's marks,
    /// the list's selected session and the open session's selection stay (a step holds the
    /// turns of the last one, in the same order, so indexes of turns, calls and claims keep
    /// their meaning; a selection past the end is clamped).
    pub fn replace_grown(&mut self, i: usize, l: Loaded) {
        if i >= self.sessions.len() {
            return;
        }
        self.unindex(i);
        self.by_id
            .entry(l.report.session_id.clone())
            .or_default()
            .push(i);
        self.sessions[i] = Arc::new(l);
        self.resort();
        if self.cur == Some(i) {
            let l = &self.sessions[i];
            let turns = l.session.turns.len();
            self.sel_turn = self.sel_turn.min(turns.saturating_sub(1));
            self.sel_claim = self.sel_claim.min(l.report.claims.len().saturating_sub(1));
            let calls = l
                .session
                .turns
                .get(self.sel_turn)
                .map_or(0, |t| l.session.calls_in_turn(t.index).count());
            self.sel_call = self.sel_call.min(calls.saturating_sub(1));
        }
    }

    fn unindex(&mut self, i: usize) {
        let id = self.sessions[i].report.session_id.clone();
        if let Some(v) = self.by_id.get_mut(&id) {
            v.retain(|&x| x != i);
            if v.is_empty() {
                self.by_id.remove(&id);
            }
        }
    }

    /// Re-sorts the sessions view (a new column), keeping the selected session selected.
    pub fn resort(&mut self) {
        let selected = self.order.get(self.sel_session);
        self.order.resort(comparator(
            &self.sessions,
            &self.states,
            self.sort,
            self.sort_reverse,
        ));
        if let Some(sel) = selected {
            self.sel_session = self.order.position(sel).unwrap_or(0);
        }
    }

    /// The open session.
    pub fn current(&self) -> Option<&Loaded> {
        self.cur
            .and_then(|i| self.sessions.get(i))
            .map(|a| a.as_ref())
    }

    /// The session selected in the sessions list.
    pub fn selected_session(&self) -> Option<usize> {
        self.order.get(self.sel_session)
    }

    /// The selected claim's verdict.
    pub fn current_claim(&self) -> Option<&ClaimVerdict> {
        self.current().and_then(|l| l.claim(self.sel_claim))
    }

    /// Key of claim `claim` of session `s`.
    pub fn key_of(&self, s: usize, claim: usize) -> Option<ClaimKey> {
        let l = self.sessions.get(s)?;
        let c = l.claim(claim)?;
        Some((l.report.session_id.clone(), c.claim_id.to_string(), c.turn))
    }

    /// Key of the selected claim statement.
    pub fn claim_key(&self) -> Option<ClaimKey> {
        self.key_of(self.cur?, self.sel_claim)
    }

    /// The mark of claim `claim` of session `s`.
    pub fn mark_of(&self, s: usize, claim: usize) -> Option<&Mark> {
        self.states.get(s)?.marks.get(&(claim as u32))
    }

    /// The mark of the selected claim.
    pub fn mark(&self) -> Option<&Mark> {
        self.mark_of(self.cur?, self.sel_claim)
    }

    /// Whether claim `claim` of session `s` is reviewed.
    pub fn is_reviewed(&self, s: usize, claim: usize) -> bool {
        self.states
            .get(s)
            .is_some_and(|st| st.reviewed.contains(&(claim as u32)))
    }

    /// Whether claim `claim` of session `s` was classified by hand.
    pub fn is_classified(&self, s: usize, claim: usize) -> bool {
        self.mark_of(s, claim).is_some_and(|m| m.quadrant.is_some())
    }

    /// The corrections of claim `claim` of session `s`, oldest first.
    pub fn corrections_of(&self, s: usize, claim: usize) -> &[CorrectionMark] {
        self.states
            .get(s)
            .and_then(|st| st.corrections.get(&(claim as u32)))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether the incident record holds claim `claim` of session `s`: corrected
    /// (`provscope correct`) or classified by hand. Such a claim is reviewed like a flagged one.
    pub fn on_record(&self, s: usize, claim: usize) -> bool {
        self.is_classified(s, claim) || !self.corrections_of(s, claim).is_empty()
    }

    /// Whether claim `claim` of session `s` is in the review walkthrough: flagged (a warning or
    /// an error) or on the incident record.
    pub fn to_review(&self, s: usize, claim: usize) -> bool {
        self.is_flagged(s, claim) || self.on_record(s, claim)
    }

    /// Whether claim `claim` of session `s` has a warning or an error.
    pub fn is_flagged(&self, s: usize, claim: usize) -> bool {
        self.sessions.get(s).is_some_and(|l| {
            matches!(
                l.claim_worst(claim),
                Some(Severity::Error | Severity::Warning)
            )
        })
    }

    /// The effective quadrant of claim `claim` of session `s` (a hand classification wins).
    pub fn quadrant_of(&self, s: usize, claim: usize) -> Option<crate::check::EffectiveQuadrant> {
        let c = self.sessions.get(s)?.claim(claim)?;
        c.effective_quadrant(self.mark_of(s, claim).and_then(|m| m.quadrant))
    }

    /// Selects claim `i` of the open session (and its turn); the source scrolls to its span.
    pub fn select_claim(&mut self, i: usize) {
        let Some(l) = self.current() else { return };
        if let Some(t) = l.turn_of(i) {
            self.sel_turn = t;
        }
        self.sel_claim = i;
        self.shown_call = None;
        self.scroll.set(Pane::Claim, 0);
        let row = super::views::claim::span_row(self);
        self.scroll.set(Pane::Source, row);
    }

    /// Opens session `s` (index into `sessions`) and selects its first turn.
    pub fn open_session(&mut self, s: usize) {
        if self.cur != Some(s) {
            self.cur = Some(s);
            self.sel_turn = 0;
            self.sel_call = 0;
            self.sel_claim = self
                .current()
                .and_then(|l| l.turn_claims.first().map(|r| r.start))
                .unwrap_or(0);
            self.shown_call = None;
            self.scroll = Scroll::default();
        }
    }
}

/// The sessions list's comparator for a sort column and direction.
pub fn comparator<'a>(
    s: &'a [Arc<Loaded>],
    st: &'a [SessionState],
    key: SortKey,
    rev: bool,
) -> impl Fn(u32, u32) -> std::cmp::Ordering + 'a {
    move |a: u32, b: u32| {
        let (x, y) = (&s[a as usize], &s[b as usize]);
        let by_name = || x.session.name.cmp(&y.session.name);
        let o = match key {
            SortKey::Name => by_name(),
            SortKey::Turns => x.session.turns.len().cmp(&y.session.turns.len()),
            SortKey::Claims => x.report.claims.len().cmp(&y.report.claims.len()),
            SortKey::Worst => sev_code(x.worst)
                .cmp(&sev_code(y.worst))
                .reverse()
                .then_with(|| x.session.has_errors().cmp(&y.session.has_errors())),
            SortKey::Quadrant(q) => x.quadrant_count(q).cmp(&y.quadrant_count(q)),
            SortKey::Reviewed => progress(x, &st[a as usize]).cmp(&progress(y, &st[b as usize])),
        };
        // Name ascending is the natural order; the other columns read biggest first.
        let o = if key == SortKey::Name { o } else { o.reverse() };
        let o = if rev { o.reverse() } else { o };
        o.then_with(by_name).then(a.cmp(&b))
    }
}

/// Share of a session's flagged claims reviewed, in thousandths.
pub fn progress(l: &Loaded, st: &SessionState) -> u32 {
    if l.flagged.is_empty() {
        return 1000;
    }
    let done = l.flagged.iter().filter(|i| st.reviewed.contains(i)).count();
    (done * 1000 / l.flagged.len()) as u32
}
