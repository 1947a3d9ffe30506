//! Everything a user can ask the explorer to do. Keys map to actions (keymap.rs); `update`
//! applies actions to the state; views only draw.

use crate::check::Quadrant;

/// A view of the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// One row per session.
    Sessions,
    /// Turn timeline and the selected turn's claims.
    Session,
    /// The claim beside its origin result span.
    Claim,
    /// The claim's binding history across turns.
    Drift,
    /// The fan-out group of the claim's origin.
    Parallel,
    /// The fact-versus-source grid.
    Grid,
    /// Step through every flagged claim.
    Review,
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
            View::Review => "Review",
        }
    }
}

/// An action.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Move the selection up one row.
    Up,
    /// Move the selection down one row.
    Down,
    /// Move focus left (session view: turns).
    Left,
    /// Move focus right (session view: claims).
    Right,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// To the first row.
    Top,
    /// To the last row.
    Bottom,
    /// Open the selection (sessions -> session -> claim).
    Open,
    /// Back to the previous view; quit from the first one.
    Back,
    /// Quit from anywhere.
    Quit,
    /// Show or hide the help overlay.
    Help,
    /// Start a fuzzy search.
    Search,
    /// Switch to a view.
    Goto(View),
    /// Next flagged claim (review).
    Next,
    /// Previous flagged claim (review).
    Prev,
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
    /// Change the sessions sort column.
    Sort,
    /// Scroll the source pane.
    ScrollSource(i32),
    /// Mouse wheel at a position.
    Wheel(i32),
    /// Mouse click at (column, row).
    Click(u16, u16),
    /// The terminal was resized.
    Resize(u16, u16),
    /// A character typed while a text input (search, note) has focus.
    Char(char),
    /// Backspace in a text input.
    Backspace,
    /// Enter in a text input.
    Submit,
    /// Escape in a text input.
    Cancel,
}
