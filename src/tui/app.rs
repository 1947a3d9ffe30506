//! The explorer's state. Everything a view draws is here, already computed by `check`; the
//! explorer adds only selection, navigation and the engineer's classifications.

use super::action::View;
use super::keymap::Keymap;
use super::theme::Theme;
use crate::check::{ClaimVerdict, Finding, Quadrant, SessionReport, Severity};
use crate::model::Session;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// A loaded and checked session.
pub struct Loaded {
    /// The session.
    pub session: Session,
    /// Its findings and verdicts.
    pub report: SessionReport,
    /// For each entry of `session.turns`, the range of `report.claims` stated in that turn.
    pub turn_claims: Vec<Range<usize>>,
    /// Most serious finding.
    pub worst: Option<Severity>,
    /// Index of the first claim of each answer (prefix sums), to find claim `i` in O(log n).
    answer_starts: Vec<usize>,
}

impl Loaded {
    /// Indexes a session and its report for the views.
    pub fn new(session: Session, report: SessionReport) -> Self {
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
        Loaded {
            session,
            report,
            turn_claims,
            worst,
            answer_starts,
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
        self.findings(i).map(|f| f.severity).min()
    }

    /// The claim verdict `i`.
    pub fn claim(&self, i: usize) -> Option<&ClaimVerdict> {
        self.report.claims.get(i)
    }

    /// Quadrant counts: computed grid plus nothing else.
    pub fn quadrant_count(&self, q: Quadrant) -> u64 {
        self.report.metrics.quadrants.get(&q).copied().unwrap_or(0)
    }
}

/// A classification the engineer made (persisted in the case store).
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// The quadrant assigned by hand.
    pub quadrant: Option<Quadrant>,
    /// Free-text note.
    pub note: String,
}

/// Key of a claim statement across sessions: (session id, claim id, turn).
pub type ClaimKey = (String, String, u32);

/// Sessions view sort order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// By name.
    Name,
    /// Worst finding first.
    Worst,
    /// Most claims first.
    Claims,
}

/// A text input in progress.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// `/` search.
    Search(String),
    /// Note for the selected claim.
    Note(String),
}

/// Search results: indexes into the current session's claims, with matched character positions.
#[derive(Clone, Debug, Default)]
pub struct SearchResults {
    /// The query these results answer.
    pub query: String,
    /// (claim index, score, matched char positions in the claim text)
    pub hits: Vec<(usize, i64, Vec<usize>)>,
    /// True while results are still coming.
    pub running: bool,
    /// Selected hit.
    pub selected: usize,
}

/// The whole state.
pub struct App {
    /// Sessions loaded so far (shared with search threads).
    pub sessions: Vec<std::sync::Arc<Loaded>>,
    /// (done, total) while loading in the background.
    pub loading: Option<(usize, usize)>,
    /// Problems with inputs, shown in the sessions view.
    pub problems: Vec<String>,
    /// Current view.
    pub view: View,
    /// Where `Back` goes.
    pub history: Vec<View>,
    /// Order of the sessions view: indexes into `sessions`.
    pub order: Vec<usize>,
    /// Sort key of the sessions view.
    pub sort: SortKey,
    /// Selected row in the sessions view (index into `order`).
    pub sel_session: usize,
    /// Selected turn (index into `session.turns`).
    pub sel_turn: usize,
    /// Selected claim (index into `report.claims`).
    pub sel_claim: usize,
    /// Session view focus: false = turns, true = claims.
    pub focus_claims: bool,
    /// Claim view: source scroll offset (lines).
    pub source_scroll: u16,
    /// Help overlay shown.
    pub help: bool,
    /// Text input in progress.
    pub input: Option<Input>,
    /// Last search.
    pub search: Option<SearchResults>,
    /// Review: flagged claims of the current session, severity then turn order.
    pub review: Vec<usize>,
    /// Position in `review`.
    pub review_pos: usize,
    /// Classifications and notes by claim statement.
    pub marks: HashMap<ClaimKey, Mark>,
    /// Reviewed claim statements.
    pub reviewed: HashSet<ClaimKey>,
    /// Where the last review of each session stopped: session id -> (claim id, turn).
    pub cursors: HashMap<String, (String, u32)>,
    /// One-line status (saved, errors).
    pub status: String,
    /// Terminal size.
    pub size: (u16, u16),
    /// Keys.
    pub keymap: Keymap,
    /// Which sub-agent link of the turn the next `SubSession` opens.
    pub sub_cursor: usize,
    /// Where Back returns after a sub-agent session was opened: (history length, session, turn).
    pub return_to: Vec<(usize, usize, usize)>,
    /// Colours.
    pub theme: Theme,
}

impl App {
    /// An empty app.
    pub fn new(keymap: Keymap, theme: Theme) -> Self {
        App {
            sessions: Vec::new(),
            loading: None,
            problems: Vec::new(),
            view: View::Sessions,
            history: Vec::new(),
            order: Vec::new(),
            sort: SortKey::Name,
            sel_session: 0,
            sel_turn: 0,
            sel_claim: 0,
            focus_claims: false,
            source_scroll: 0,
            help: false,
            input: None,
            search: None,
            review: Vec::new(),
            review_pos: 0,
            marks: HashMap::new(),
            reviewed: HashSet::new(),
            cursors: HashMap::new(),
            status: String::new(),
            size: (80, 24),
            keymap,
            sub_cursor: 0,
            return_to: Vec::new(),
            theme,
        }
    }

    /// Adds a loaded session and keeps the order sorted.
    pub fn push_session(&mut self, l: Loaded) {
        self.sessions.push(std::sync::Arc::new(l));
        self.order.push(self.sessions.len() - 1);
        self.resort();
    }

    /// Re-sorts the sessions view, keeping the selected session selected.
    pub fn resort(&mut self) {
        let selected = self.order.get(self.sel_session).copied();
        let s = &self.sessions;
        match self.sort {
            SortKey::Name => self
                .order
                .sort_by(|a, b| s[*a].session.name.cmp(&s[*b].session.name)),
            SortKey::Worst => self.order.sort_by_key(|i| {
                (
                    s[*i].worst.map_or(9, |w| w as u8),
                    s[*i].session.name.clone(),
                )
            }),
            SortKey::Claims => self
                .order
                .sort_by_key(|i| std::cmp::Reverse(s[*i].report.claims.len())),
        }
        if let Some(sel) = selected {
            self.sel_session = self.order.iter().position(|i| *i == sel).unwrap_or(0);
        }
    }

    /// The selected session.
    pub fn current(&self) -> Option<&Loaded> {
        self.order
            .get(self.sel_session)
            .and_then(|&i| self.sessions.get(i))
            .map(|a| a.as_ref())
    }

    /// The selected claim's verdict.
    pub fn current_claim(&self) -> Option<&ClaimVerdict> {
        self.current().and_then(|l| l.claim(self.sel_claim))
    }

    /// Key of the selected claim statement.
    pub fn claim_key(&self) -> Option<ClaimKey> {
        let l = self.current()?;
        let c = l.claim(self.sel_claim)?;
        Some((l.report.session_id.clone(), c.claim_id.clone(), c.turn))
    }

    /// Flagged claims of the current session in review order: severity, then turn, then position.
    pub fn build_review(&mut self) {
        let Some(l) = self.current() else {
            self.review.clear();
            return;
        };
        let mut items: Vec<(Severity, u32, usize)> = (0..l.report.claims.len())
            .filter_map(|i| {
                l.claim_worst(i)
                    .filter(|s| *s != Severity::Info)
                    .map(|s| (s, l.report.claims[i].turn, i))
            })
            .collect();
        items.sort();
        self.review = items.into_iter().map(|(_, _, i)| i).collect();
    }

    /// Selects claim `i` of the current session (and its turn).
    pub fn select_claim(&mut self, i: usize) {
        let Some(l) = self.current() else { return };
        if let Some(t) = l.turn_claims.iter().position(|r| r.contains(&i)) {
            self.sel_turn = t;
        }
        self.sel_claim = i;
        self.source_scroll = u16::MAX; // "scroll to the span" on next render
    }
}
