//! The explorer: a ratatui TUI in the Elm style. `app` is the state, `action` the messages,
//! `update` the only place state changes, `views` pure render functions that return what they
//! drew where, `keymap` the key table, `terminal` the one owner of the terminal, `runtime` the
//! loop that blocks on one channel and carries out effects. It renders findings; it never
//! computes provenance.

pub mod action;
pub mod app;
pub mod diff;
pub mod filter;
pub mod input;
pub mod keymap;
pub mod loader;
pub mod order;
mod places;
mod queue;
pub mod runtime;
pub mod search;
mod terminal;
pub mod theme;
pub mod update;
pub mod views;

use crate::check::Config;
use crate::ingest::LoadOptions;
use app::App;
use std::path::PathBuf;

pub use runtime::{perform, restore_marks, run};

/// Where the explorer starts: a claim (`provscope open FILE --claim ID [--turn N]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StartAt {
    /// The claim id.
    pub claim: String,
    /// The turn that states it (default: the first).
    pub turn: Option<u32>,
}

/// What the explorer opens.
pub struct Options {
    /// Logs or directories; empty means the bundled samples.
    pub paths: Vec<PathBuf>,
    /// Loader settings.
    pub load: LoadOptions,
    /// Check configuration (also carries `[keys]` and `[colors]`).
    pub config: Config,
    /// The case database.
    pub db: PathBuf,
    /// Colour allowed (false under NO_COLOR).
    pub color: bool,
    /// Threads that load and check.
    pub threads: usize,
    /// Start on this claim.
    pub start: Option<StartAt>,
    /// Follow the logs as they grow (`--follow`; `F` toggles it).
    pub follow: bool,
    /// Open on the diff of these sessions (`provscope diff A B --explore`) instead of loading
    /// `paths`.
    pub diff: Option<DiffInput>,
}

/// Two sides already loaded and checked, to compare (`provscope diff A B --explore`).
pub struct DiffInput {
    /// The baseline's sessions.
    pub a: Vec<app::Loaded>,
    /// The sessions compared with it.
    pub b: Vec<app::Loaded>,
    /// How to compare them.
    pub options: crate::diff::Options,
}

/// A `[keys]` or `[colors]` entry of the configuration the explorer cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{section}.{entry}: {problem}")]
pub struct SettingsError {
    /// `keys` or `colors`.
    pub section: &'static str,
    /// The entry (an action or a colour role).
    pub entry: String,
    /// What is wrong with it.
    pub problem: String,
}

/// Why the explorer could not start or had to stop. The terminal is restored before this is
/// returned; the CLI prints it.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// `[keys]` or `[colors]` is unusable.
    #[error("invalid configuration: {0}")]
    Settings(#[from] SettingsError),
    /// The terminal could not be put in raw mode or the alternate screen.
    #[error(
        "cannot open the terminal: {0} (use `provscope summary` or `provscope verify` without a \
         terminal)"
    )]
    Terminal(std::io::Error),
    /// Drawing a frame failed.
    #[error("cannot draw: {0}")]
    Draw(std::io::Error),
    /// Reading terminal input failed.
    #[error("terminal input failed: {0}")]
    Input(std::io::Error),
}

/// Builds the app state from configuration (keys and colours).
pub fn new_app(cfg: &Config, color: bool) -> Result<App, SettingsError> {
    let keymap = match &cfg.keys {
        Some(t) => keymap::Keymap::with_overrides(t)?,
        None => keymap::Keymap::default(),
    };
    let theme = match &cfg.colors {
        Some(t) => theme::Theme::new(color).with_overrides(t)?,
        None => theme::Theme::new(color),
    };
    Ok(App::new(keymap, theme))
}
