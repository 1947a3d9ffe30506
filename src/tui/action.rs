//! Everything that can happen to the explorer, as data. Keys map to [`Action`]s (keymap.rs);
//! every input the runtime receives (keys, mouse, resize, loaded sessions, search results,
//! the outcome of an effect) is a [`Msg`] that only `update` applies; views only draw.

use super::app::Loaded;
use crate::check::Quadrant;
use ratatui::crossterm::event::KeyEvent;

/// A view of the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// One row per session.
    Sessions,
    /// Turn timeline and the selected turn's calls and claims.
    Session,
    /// The claim beside its origin result span (or any call's result).
    Claim,
    /// The claim's binding history across turns.
    Drift,
    /// The fan-out group of the claim's origin.
    Parallel,
    /// The fact-versus-source grid over the filtered claims of every loaded session.
    Grid,
    /// The filtered claims of every loaded session, one row each.
    Queue,
    /// Step through the flagged claims of the filtered set.
    Review,
    /// The paired sessions of two runs compared.
    DiffPairs,
    /// Two sessions side by side, turns and claims aligned, changes highlighted.
    Diff,
    /// A claim (or a result) of both sessions, each beside its source.
    DiffClaim,
}

impl View {
    /// Title shown in the header.
    pub fn title(self) -> &'static str {
        match self {
            View::Sessions => "Sessions",
            View::Session => "Session",
            View::Claim => "Claim beside source",
            View::Drift => "Drift",
            View::Parallel => "Parallel",
            View::Grid => "Grid",
            View::Queue => "Queue",
            View::Review => "Review",
            View::DiffPairs => "Diff · sessions",
            View::Diff => "Diff",
            View::DiffClaim => "Diff · claim beside both sources",
        }
    }
}

/// An action (what a key or a click asks for).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Move the selection up one row.
    Up,
    /// Move the selection down one row.
    Down,
    /// Move focus left (session view: towards the turns).
    Left,
    /// Move focus right (session view: towards the claims).
    Right,
    /// Focus the next pane.
    FocusNext,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// To the first row.
    Top,
    /// To the last row.
    Bottom,
    /// Open the selection (sessions -> session -> claim; a grid cell -> its claims).
    Open,
    /// Back to the previous view; quit from the first one.
    Back,
    /// Quit from anywhere.
    Quit,
    /// Show or hide the help overlay.
    Help,
    /// Start a search over everything loaded.
    Search,
    /// Edit the filter of the queue, grid and review.
    Filter,
    /// Switch to a view.
    Goto(View),
    /// Next flagged claim.
    Next,
    /// Previous flagged claim.
    Prev,
    /// `n`/`N` order: turn order or severity first.
    ToggleOrder,
    /// Assign the selected claim to a quadrant.
    Classify(Quadrant),
    /// Edit the note of the selected claim.
    Note,
    /// Toggle "reviewed" on the selected claim.
    ToggleReviewed,
    /// Export the selected claim as a conflicting-source regression case.
    Export,
    /// Open the session of the agent a call of the selected turn ran (a sub-agent, a hand-off).
    SubSession,
    /// Sort the sessions by the next column.
    Sort,
    /// Reverse the sort direction.
    SortReverse,
    /// Scroll the focused pane (the source pane in the claim view) by lines.
    Scroll(i32),
    /// Show the previous (-1) or next (+1) call of the turn beside the claim.
    CycleCall(i32),
    /// Copy the focused item to the clipboard (OSC 52).
    Copy,
    /// Open the log at the event's line in `$EDITOR` (or `$PAGER`).
    OpenExternal,
    /// Mouse wheel over what was drawn there.
    Wheel(Option<Hit>, i32),
    /// Mouse click on what was drawn there.
    Click(Hit),
    /// The terminal was resized.
    Resize(u16, u16),
    /// Start or stop following the opened logs as they grow.
    Follow,
    /// Sessions list: mark the selected session as A of a diff; on another session, compare A
    /// with it.
    DiffMark,
}

/// Something drawn that a mouse can hit, as recorded by `render` in [`super::views::Drawn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// A row of the sessions table (index into the sorted order).
    SessionRow(usize),
    /// A turn in the session view (index into `turns`).
    Turn(usize),
    /// A call of the selected turn (index among the turn's calls).
    Call(usize),
    /// A claim (index into `report.claims`).
    Claim(usize),
    /// A row of the queue.
    QueueRow(usize),
    /// A grid cell (index into `QUADRANTS`).
    GridCell(usize),
    /// A row of the search results.
    SearchRow(usize),
    /// A row of the side by side diff.
    DiffRow(usize),
    /// A row of the diff's session pairs.
    PairRow(usize),
    /// A pane, for the wheel.
    Pane(Pane),
}

/// The panes that scroll on their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pane {
    /// The turns list.
    Turns,
    /// The calls of a turn.
    Calls,
    /// The claims of a turn.
    Claims,
    /// A turn's user message and answer.
    Answer,
    /// The claim pane of the claim and review views.
    Claim,
    /// The result beside the claim.
    Source,
    /// The help overlay.
    Help,
    /// The drift and parallel views' body.
    Body,
    /// A's source in the diff's claim view.
    DiffA,
    /// B's source in the diff's claim view.
    DiffB,
    /// A's claim in the diff's claim view.
    DiffClaimA,
    /// B's claim in the diff's claim view.
    DiffClaimB,
}

/// Messages from the background loader.
pub enum LoadMsg {
    /// How many files will come (more may be found while walking).
    Total(usize),
    /// Loaded and checked sessions.
    Sessions(Vec<Loaded>),
    /// A large session log opened in steps (`loader::Steps`): the session as loaded and checked
    /// from the first `checked` bytes of its file (whole turns). Each step of a file replaces the
    /// last in place; the last (`checked == total`) is the whole file, checked as any file.
    Step {
        /// The file, as sessions name their source.
        source: String,
        /// The session so far, checked.
        loaded: Box<Loaded>,
        /// Bytes of the file the session holds.
        checked: u64,
        /// Bytes of the file.
        total: u64,
        /// The file is the only input (its session view opens with the first step).
        alone: bool,
    },
    /// Bytes of a file read so far by the step being loaded.
    Read {
        /// The file, as sessions name their source.
        source: String,
        /// Bytes read.
        bytes: u64,
    },
    /// How far the checks of the step being loaded are (`check::progress`), once it is read.
    Checking {
        /// The file, as sessions name their source.
        source: String,
        /// Units of the check done.
        done: u64,
        /// Units of the whole check.
        total: u64,
    },
    /// A problem with an input, for the sessions view.
    Problem(String),
    /// Everything is loaded.
    Done,
    /// Following started: how many files, and how changes are learnt.
    Following {
        /// Files followed.
        files: usize,
        /// "file notifications" or "polling".
        mode: &'static str,
    },
    /// Following could not start (the bundled samples do not grow): why.
    NotFollowing(String),
    /// A followed file changed: its sessions, loaded and checked again from its complete lines,
    /// replace the sessions loaded from `source`.
    Reloaded {
        /// The file, as sessions name their source.
        source: String,
        /// Its sessions now.
        sessions: Vec<Loaded>,
        /// Said in the status line (the file was truncated or replaced).
        note: Option<String>,
    },
}

/// What the case store knows about one loaded session (read by the runtime, applied by `update`).
#[derive(Clone, Debug, Default)]
pub struct Restored {
    /// The session id.
    pub session_id: String,
    /// The current hand classifications.
    pub marks: Vec<crate::store::Classification>,
    /// The corrections (`provscope correct`), oldest first.
    pub corrections: Vec<crate::store::Correction>,
    /// (claim id, turn) reviewed.
    pub reviewed: Vec<(String, u32)>,
    /// Where the last review stopped.
    pub cursor: Option<(String, u32)>,
}

/// Every input of `update`.
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// An action (from a mouse event mapped on the drawn layout, a test, or the runtime).
    Action(Action),
    /// Pasted text (bracketed paste), for a text input.
    Paste(String),
    /// The loader's progress.
    Load(LoadMsg),
    /// Marks restored from the case store.
    Restored(Restored),
    /// A chunk of search results.
    Search(super::search::SearchChunk),
    /// An effect finished: a status line (`Err` for failures).
    Done(Result<String, String>),
    /// A classification was saved in the case store as shown (who decided, when), with the
    /// status line.
    Classified(crate::store::Classification, String),
    /// A case file was written (its path, for `y`).
    CaseWritten(String),
    /// A diff computed by the runtime ([`super::diff::compute`]).
    Diffed(Box<super::diff::Computed>),
    /// The sessions of a sub-agent's file, loaded by the runtime: open the one with `id`.
    SubSessions {
        /// The loaded sessions of the file.
        sessions: Vec<Loaded>,
        /// The session to open.
        id: String,
        /// The file.
        path: String,
    },
}

impl From<Action> for Msg {
    fn from(a: Action) -> Msg {
        Msg::Action(a)
    }
}

impl From<KeyEvent> for Msg {
    fn from(k: KeyEvent) -> Msg {
        Msg::Key(k)
    }
}
