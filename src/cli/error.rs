//! How a command ends: an [`Exit`] status, or a [`CliError`] that `cli::run` prints (sanitized)
//! and maps to an exit code, the same for every command.

use std::io;
use std::path::Path;

/// How a command that ran to the end finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Nothing to report: exit 0.
    Ok,
    /// Findings (or failed cases, or an alarm) reached the threshold: exit 1.
    Findings,
    /// Output was written, but some input could not be read: exit 2.
    InputErrors,
    /// A status passed through from a child process (`record` exits as its server did).
    Status(u8),
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Findings => 1,
            Exit::InputErrors => 2,
            Exit::Status(c) => c,
        }
    }

    /// `Findings` when `failed`, else `Ok`.
    pub fn findings_if(failed: bool) -> Exit {
        if failed {
            Exit::Findings
        } else {
            Exit::Ok
        }
    }
}

/// Why a command stopped. Every variant exits 2, except a closed pipe on stdout (exit 0).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A bad argument value.
    #[error("{0}")]
    Usage(String),
    /// `provscope.toml` (or `--config`) is invalid.
    #[error("invalid configuration: {0}")]
    Config(#[from] crate::check::ConfigError),
    /// An input that cannot be used (its message names the file and, where known, the line).
    #[error("{0}")]
    Input(String),
    /// Writing to a destination failed.
    #[error("cannot write {dest}: {source}")]
    Write {
        /// stdout, or the file.
        dest: String,
        /// What failed.
        source: io::Error,
    },
    /// The case store.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A regression case.
    #[error(transparent)]
    Case(#[from] crate::export::case::CaseError),
    /// An export (OTLP) could not be written or sent.
    #[error("{0}")]
    Export(String),
    /// The explorer could not run.
    #[error("{0}")]
    Explorer(String),
    /// A key (a key file, or a key given inline) is unusable.
    #[error(transparent)]
    Key(#[from] crate::attest::keys::KeyError),
}

impl CliError {
    /// A key given to `option`: an inline key's error names the option, a key file's names
    /// the file.
    pub fn key_arg(option: &str, e: crate::attest::keys::KeyError) -> CliError {
        if e.names_its_file() {
            CliError::Key(e)
        } else {
            CliError::Usage(format!("{option}: {e}"))
        }
    }

    /// A write error on a file.
    pub fn write(path: &Path, source: io::Error) -> CliError {
        CliError::Write {
            dest: path.display().to_string(),
            source,
        }
    }

    /// A write error on stdout.
    pub fn stdout(source: io::Error) -> CliError {
        CliError::Write {
            dest: "stdout".into(),
            source,
        }
    }

    /// True for stdout's reader going away: not an error for the user.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, CliError::Write { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// What commands return.
pub type CmdResult = Result<Exit, CliError>;
