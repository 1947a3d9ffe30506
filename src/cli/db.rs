//! `provscope db migrate|status`: the case store's schema, from the command line.

use super::{CliError, CmdResult, Ctx, Exit};
use crate::store::{Store, StoreError, SCHEMA_VERSION};
use std::io::Write;
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
pub fn run(ctx: &mut Ctx, cmd: &DbCmd, db: Option<&Path>) -> CmdResult {
    let path = db.map_or_else(Store::default_location, Path::to_path_buf);
    match cmd {
        DbCmd::Copy { from, to } => {
            let src = match Store::open_read_only(from) {
                Ok(Some(s)) => s,
                Ok(None) => {
                    return Err(CliError::Input(format!(
                        "{} holds no case store to copy",
                        crate::store::shown(from)
                    )))
                }
                Err(e) => return Err(e.into()),
            };
            let dst = Store::open(to)?;
            match dst.copy_from(&src) {
                Ok(counts) => {
                    line(
                        ctx,
                        format!(
                            "copied {} into {}:",
                            src.path().display(),
                            dst.path().display()
                        ),
                    );
                    for (t, n) in counts {
                        line(ctx, format!("  {t:<24} {n}"));
                    }
                    Ok(Exit::Ok)
                }
                Err(e) => Err(e.into()),
            }
        }
        DbCmd::Migrate => {
            let before = match Store::open_read_only(&path) {
                Ok(Some(s)) => s.schema_version().unwrap_or(0),
                Ok(None) => 0,
                Err(StoreError::OlderSchema { found, .. }) => found,
                Err(e) => return Err(e.into()),
            };
            match Store::open(&path) {
                Ok(st) => {
                    let now = st.schema_version().unwrap_or(SCHEMA_VERSION);
                    if before == now {
                        line(
                            ctx,
                            format!("{}: schema version {now}, up to date", st.path().display()),
                        );
                    } else {
                        line(
                            ctx,
                            format!(
                                "{}: migrated from schema version {before} to {now}",
                                st.path().display()
                            ),
                        );
                    }
                    Ok(Exit::Ok)
                }
                Err(e) => Err(e.into()),
            }
        }
        DbCmd::Status => match Store::open_read_only(&path) {
            Ok(None) => {
                line(
                    ctx,
                    format!(
                        "{}: no case store yet (this build writes schema version {SCHEMA_VERSION})",
                        crate::store::shown(&path)
                    ),
                );
                Ok(Exit::Ok)
            }
            Ok(Some(st)) => {
                line(
                    ctx,
                    format!(
                        "{}: schema version {} (this build: {SCHEMA_VERSION})",
                        st.path().display(),
                        st.schema_version().unwrap_or(0)
                    ),
                );
                match st.counts() {
                    Ok(counts) => {
                        for (table, n) in counts {
                            line(ctx, format!("  {table:<24} {n}"));
                        }
                        Ok(Exit::Ok)
                    }
                    Err(e) => Err(e.into()),
                }
            }
            Err(StoreError::OlderSchema { found, .. }) => {
                line(
                    ctx,
                    format!(
                        "{}: schema version {found}, older than this build's {SCHEMA_VERSION}: \
                     `provscope db migrate` upgrades it",
                        crate::store::shown(&path)
                    ),
                );
                Ok(Exit::Ok)
            }
            Err(e) => Err(e.into()),
        },
    }
}

/// A line for people on stdout, through the sanitizing boundary (paths and counts only, but a
/// path can hold anything).
fn line(ctx: &mut Ctx, s: String) {
    let _ = writeln!(ctx.human(), "{s}");
}
