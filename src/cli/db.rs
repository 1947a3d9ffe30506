//! `provscope db migrate|status`: the case store's schema, from the command line.

use super::{Out, EXIT_INPUT, EXIT_OK};
use crate::store::{Store, StoreError, SCHEMA_VERSION};
use std::path::{Path, PathBuf};

/// `provscope db` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum DbCmd {
    /// Create the case store (--db) if needed and apply pending schema migrations.
    Migrate,
    /// Show the case store's schema version and what it holds, without changing it.
    Status,
    /// Copy every row of one store into another, empty one (for example SQLite to PostgreSQL).
    Copy {
        /// The source: `sqlite:PATH`, a path, or a `postgres://` URL.
        #[arg(long, value_name = "DB")]
        from: PathBuf,
        /// The destination (created and migrated if needed; must hold no rows).
        #[arg(long, value_name = "DB")]
        to: PathBuf,
    },
}

/// Runs a `db` subcommand against `db` (or the default store).
pub fn run(out: &mut Out, cmd: &DbCmd, db: Option<&Path>) -> u8 {
    let path = db.map_or_else(Store::default_location, Path::to_path_buf);
    match cmd {
        DbCmd::Copy { from, to } => {
            let src = match Store::open_read_only(from) {
                Ok(Some(s)) => s,
                Ok(None) => {
                    eprintln!(
                        "provscope: {} holds no case store to copy",
                        crate::store::shown(from)
                    );
                    return EXIT_INPUT;
                }
                Err(e) => {
                    eprintln!("provscope: {e}");
                    return EXIT_INPUT;
                }
            };
            let dst = match Store::open(to) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("provscope: {e}");
                    return EXIT_INPUT;
                }
            };
            match dst.copy_from(&src) {
                Ok(counts) => {
                    out.line(&format!(
                        "copied {} into {}:",
                        src.path().display(),
                        dst.path().display()
                    ));
                    for (t, n) in counts {
                        out.line(&format!("  {t:<24} {n}"));
                    }
                    EXIT_OK
                }
                Err(e) => {
                    eprintln!("provscope: {e}");
                    EXIT_INPUT
                }
            }
        }
        DbCmd::Migrate => {
            let before = match Store::open_read_only(&path) {
                Ok(Some(s)) => s.schema_version().unwrap_or(0),
                Ok(None) => 0,
                Err(StoreError::OlderSchema { found, .. }) => found,
                Err(e) => {
                    eprintln!("provscope: {e}");
                    return EXIT_INPUT;
                }
            };
            match Store::open(&path) {
                Ok(st) => {
                    let now = st.schema_version().unwrap_or(SCHEMA_VERSION);
                    if before == now {
                        out.line(&format!(
                            "{}: schema version {now}, up to date",
                            st.path().display()
                        ));
                    } else {
                        out.line(&format!(
                            "{}: migrated from schema version {before} to {now}",
                            st.path().display()
                        ));
                    }
                    EXIT_OK
                }
                Err(e) => {
                    eprintln!("provscope: {e}");
                    EXIT_INPUT
                }
            }
        }
        DbCmd::Status => match Store::open_read_only(&path) {
            Ok(None) => {
                out.line(&format!(
                    "{}: no case store yet (this build writes schema version {SCHEMA_VERSION})",
                    crate::store::shown(&path)
                ));
                EXIT_OK
            }
            Ok(Some(st)) => {
                out.line(&format!(
                    "{}: schema version {} (this build: {SCHEMA_VERSION})",
                    st.path().display(),
                    st.schema_version().unwrap_or(0)
                ));
                match st.counts() {
                    Ok(counts) => {
                        for (table, n) in counts {
                            out.line(&format!("  {table:<24} {n}"));
                        }
                        EXIT_OK
                    }
                    Err(e) => {
                        eprintln!("provscope: {e}");
                        EXIT_INPUT
                    }
                }
            }
            Err(StoreError::OlderSchema { found, .. }) => {
                out.line(&format!(
                    "{}: schema version {found}, older than this build's {SCHEMA_VERSION}: \
                     `provscope db migrate` upgrades it",
                    crate::store::shown(&path)
                ));
                EXIT_OK
            }
            Err(e) => {
                eprintln!("provscope: {e}");
                EXIT_INPUT
            }
        },
    }
}
