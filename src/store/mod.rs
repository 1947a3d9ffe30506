//! The case store: a SQLite database where the grid's decisions become durable.
//!
//! Classifications (an append-only history whose latest row per claim statement is the current
//! classification), review progress, review cursors, corrections and recorded runs live here.
//! The explorer and the CLI share one file: WAL mode and a 5 s busy timeout let them use it at
//! once, and every write is one `BEGIN IMMEDIATE` transaction committed before the method
//! returns, so concurrent writers never lose an update and a killed process loses nothing
//! already committed.
//!
//! The schema is versioned with `PRAGMA user_version` and migrated on open; a database written
//! by a newer provscope is refused, never modified. See `docs/case-store.md`.

mod copy;
mod pg;
pub use pg::{is_url as is_postgres_url, redact as redact_url, WRITE_ATTEMPTS};
mod runs;
pub use runs::{Correction, Run};
pub mod schema;
mod sql;
mod sqlite;

pub use schema::{APPLICATION_ID, SCHEMA_VERSION};

use crate::check::{FactVerdict, Quadrant, SourceVerdict};
use crate::model::Timestamp;
use rusqlite::Connection;
use serde::Serialize;
use sql::{vals, DbError, Q};
use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a write waits for another writer before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// File name of the store inside the platform data directory.
pub const DEFAULT_FILE_NAME: &str = "cases.sqlite";

/// Fallback path when the platform has no data directory.
pub const FALLBACK_PATH: &str = "provscope-cases.sqlite";

/// Why the store could not be opened, read or written. Every message names the database.
#[derive(Debug)]
pub enum StoreError {
    /// A filesystem operation failed (creating the database's directory).
    Io {
        /// The database.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// PostgreSQL (or the connection to it) reported an error. `path` is the redacted URL.
    Postgres {
        /// The database (its URL, password redacted).
        path: PathBuf,
        /// The cause.
        source: postgres::Error,
    },
    /// SQLite reported an error.
    Sqlite {
        /// The database.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },
    /// A reading command met a database of an older schema version, which only a writing
    /// command (or `provscope db migrate`) upgrades; it was not modified.
    OlderSchema {
        /// The database.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The version this build reads.
        supported: i64,
    },
    /// The database was written by a newer provscope; it was not modified.
    NewerSchema {
        /// The database.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest version this build supports.
        supported: i64,
    },
    /// The file is not a provscope case store (another SQLite database, or not SQLite at all);
    /// it was not modified.
    NotACaseStore {
        /// The file.
        path: PathBuf,
        /// Why it was rejected.
        reason: String,
    },
    /// A stored value cannot be read back (for example an unknown quadrant name), or a caller
    /// passed inconsistent arguments.
    Invalid {
        /// The database.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl StoreError {
    /// The database the error is about.
    pub fn path(&self) -> &Path {
        match self {
            StoreError::Io { path, .. }
            | StoreError::Sqlite { path, .. }
            | StoreError::Postgres { path, .. }
            | StoreError::NewerSchema { path, .. }
            | StoreError::OlderSchema { path, .. }
            | StoreError::NotACaseStore { path, .. }
            | StoreError::Invalid { path, .. } => path,
        }
    }

    /// True when another process held the database locked for longer than the busy timeout.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            StoreError::Sqlite {
                source: rusqlite::Error::SqliteFailure(e, _),
                ..
            } if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io {
                path,
                action,
                source,
            } => write!(
                f,
                "cannot {action} for the case store {}: {source}.",
                path.display()
            ),
            StoreError::Sqlite { path, source } => {
                if self.is_busy() {
                    write!(
                        f,
                        "the case store {} stayed locked by another process for more than {} s; \
                         try again when it is done ({source}).",
                        path.display(),
                        BUSY_TIMEOUT.as_secs()
                    )
                } else {
                    write!(f, "case store {}: {source}.", path.display())
                }
            }
            StoreError::Postgres { path, source } => {
                let detail = pg::pg_message(source);
                if source.is_closed() || source.code().is_none() {
                    write!(
                        f,
                        "cannot reach the case store {}: {detail}; nothing was written.",
                        path.display()
                    )
                } else {
                    write!(f, "case store {}: {detail}.", path.display())
                }
            }
            StoreError::NewerSchema {
                path,
                found,
                supported,
            } => write!(
                f,
                "the case store {} has schema version {found}, written by a newer provscope; \
                 this build supports up to version {supported}. It was left unchanged: upgrade \
                 provscope, or pass --db with another file.",
                path.display()
            ),
            StoreError::OlderSchema {
                path,
                found,
                supported,
            } => write!(
                f,
                "the case store {} has schema version {found}, older than this build's version \
                 {supported}; reading commands leave it unchanged. Upgrade it with `provscope db \
                 migrate --db {}` (any command that writes does too).",
                path.display(),
                path.display()
            ),
            StoreError::NotACaseStore { path, reason } => write!(
                f,
                "{} is not a provscope case store ({reason}); it was left unchanged. Pass --db \
                 with another file.",
                path.display()
            ),
            StoreError::Invalid { path, message } => {
                write!(f, "case store {}: {message}.", path.display())
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Sqlite { source, .. } => Some(source),
            StoreError::Postgres { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The store's result type.
pub type Result<T> = std::result::Result<T, StoreError>;

/// Identifies a session in the store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionRef {
    /// The session id (the header's `session_id`, or the file name when there is no header).
    pub session_id: String,
    /// Where the log was last seen.
    pub path: String,
    /// `sha256:<hex>` of the log's bytes, when known.
    pub content_hash: Option<String>,
}

impl SessionRef {
    /// A reference with a known content hash computed from `bytes`.
    pub fn with_bytes(session_id: &str, path: &str, bytes: &[u8]) -> SessionRef {
        SessionRef {
            session_id: session_id.to_owned(),
            path: path.to_owned(),
            content_hash: Some(content_hash(bytes)),
        }
    }

    /// A reference to a log on disk: the absolute path and the hash of the file's bytes.
    pub fn for_file(session_id: &str, path: &Path) -> std::io::Result<SessionRef> {
        use sha2::{Digest, Sha256};
        use std::io::Read;
        let mut f = std::fs::File::open(path)?;
        let mut h = Sha256::new();
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(SessionRef {
            session_id: session_id.to_owned(),
            path: abs.display().to_string(),
            content_hash: Some(format!("sha256:{}", hex::encode(h.finalize()))),
        })
    }
}

/// `sha256:<hex>` of a log's bytes: the store's content hash.
pub fn content_hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// A claim statement's place in the grid, as decided by a person or a script.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Classification {
    /// Session id.
    pub session_id: String,
    /// Claim id.
    pub claim_id: String,
    /// The turn stating the claim.
    pub turn: u32,
    /// The grid cell.
    pub quadrant: Quadrant,
    /// Who owns it (usually [`Quadrant::owner`]).
    pub owner: String,
    /// What to do next (usually [`Quadrant::next_action`]).
    pub next_action: String,
    /// Free text.
    pub note: String,
    /// Who decided.
    pub reviewer: String,
    /// When.
    pub at: Timestamp,
}

impl Classification {
    /// A classification with the playbook's owner and next action for `quadrant`.
    pub fn new(
        session_id: &str,
        claim_id: &str,
        turn: u32,
        quadrant: Quadrant,
        note: &str,
        reviewer: &str,
        at: Timestamp,
    ) -> Classification {
        Classification {
            session_id: session_id.to_owned(),
            claim_id: claim_id.to_owned(),
            turn,
            quadrant,
            owner: quadrant.owner().to_owned(),
            next_action: quadrant.next_action().to_owned(),
            note: note.to_owned(),
            reviewer: reviewer.to_owned(),
            at,
        }
    }
}

/// The two axes of a quadrant.
pub fn axes(q: Quadrant) -> (FactVerdict, SourceVerdict) {
    match q {
        Quadrant::FactRightSourceRight => (FactVerdict::Right, SourceVerdict::Right),
        Quadrant::FactRightSourceWrong => (FactVerdict::Right, SourceVerdict::Wrong),
        Quadrant::FactWrongSourceRight => (FactVerdict::Wrong, SourceVerdict::Right),
        Quadrant::FactWrongSourceWrong => (FactVerdict::Wrong, SourceVerdict::Wrong),
    }
}

fn fact_name(f: FactVerdict) -> &'static str {
    match f {
        FactVerdict::Right => "right",
        FactVerdict::Wrong => "wrong",
        FactVerdict::Unknown => "unknown",
    }
}

fn source_name(s: SourceVerdict) -> &'static str {
    match s {
        SourceVerdict::Right => "right",
        SourceVerdict::Wrong => "wrong",
    }
}

/// Where a session's records are kept in the store. A session's identity is its declared id
/// *and* its content: a log whose `session_id` is already held by a log with other content gets
/// records of its own under `ID@sha256:<first 16 hex digits>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Identity {
    /// The store's key for the session: pass it to [`Store::classifications`] and the other
    /// methods that take a session id.
    pub key: String,
    /// True when the store already had records under `key`.
    pub recorded: bool,
    /// Another log already recorded under the same declared id with different content (whose
    /// records are left alone).
    pub other: Option<SessionRef>,
}

impl Identity {
    /// The warning to show when the log `s` was kept apart from another log declaring its id.
    pub fn warning(&self, s: &SessionRef) -> Option<String> {
        let o = self.other.as_ref()?;
        let shown = |p: &str| {
            if p.is_empty() {
                "an unnamed log".to_owned()
            } else {
                p.to_owned()
            }
        };
        Some(format!(
            "session `{}` is already in the case store from another log ({}, {}); {} declares \
             the same session id with different content ({}), so its classifications, notes \
             and review progress are kept apart under `{}`",
            s.session_id,
            shown(&o.path),
            o.content_hash.as_deref().unwrap_or("no content hash"),
            shown(&s.path),
            s.content_hash.as_deref().unwrap_or("no content hash"),
            self.key
        ))
    }
}

/// One reviewer's latest decision on a claim statement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// Who decided.
    pub reviewer: String,
    /// The quadrant they chose.
    pub quadrant: Quadrant,
    /// When.
    pub at: Timestamp,
    /// Their note.
    pub note: String,
}

/// Reviewers who disagree on a claim statement; every decision stays in the history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Conflict {
    /// Claim id.
    pub claim_id: String,
    /// Turn.
    pub turn: u32,
    /// Each reviewer's latest decision, oldest first (the last is the current classification).
    pub decisions: Vec<Decision>,
}

/// How a `--db` value is shown: a path as it is, a URL with its password redacted.
pub fn shown(db: &Path) -> String {
    let s = db.to_string_lossy();
    if pg::is_url(&s) {
        pg::redact(&s)
    } else {
        db.display().to_string()
    }
}

/// The reviewer name used when none is given: `$USER` (or `$USERNAME`, `$LOGNAME`), else `''`.
pub fn default_reviewer() -> String {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .unwrap_or_default()
}

/// The store key of a log declaring `declared` whose content hash is `hash`, when another log
/// already holds `declared`.
pub fn derived_key(declared: &str, hash: &str) -> String {
    let short: String = hash.chars().take("sha256:".len() + 16).collect();
    format!("{declared}@{short}")
}

/// Where the store lives and how it is open.
enum Backend {
    /// A SQLite file that does not exist yet (or is empty): reads see an empty store, the first
    /// write creates it.
    Deferred(PathBuf),
    /// A SQLite connection: `file` is `None` in memory; `writable` is false for read-only opens,
    /// which are reopened read-write by the first write.
    Sqlite {
        conn: Connection,
        file: Option<PathBuf>,
        writable: bool,
    },
    /// A PostgreSQL connection; read-only stores run reads only.
    Postgres { pg: Box<pg::Pg>, writable: bool },
}

/// The case store: one connection. `Send`, not `Sync`: give each thread its own
/// [`Store::open`] of the same database.
pub struct Store {
    name: PathBuf,
    backend: RefCell<Backend>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("db", &self.name).finish()
    }
}

/// What refreshing a known session row sets (`excluded` is the row a write names): an empty
/// path or a missing hash never erases what is known.
macro_rules! session_refresh_set {
    () => {
        "path = CASE WHEN excluded.path = '' THEN sessions.path ELSE excluded.path END,
         content_hash = coalesce(excluded.content_hash, sessions.content_hash),
         last_seen = excluded.last_seen"
    };
}

/// When a known session row is refreshed: a new path or content hash, or a `last_seen` over a
/// minute (60,000 ms) old. Any other write leaves the row alone, so concurrent
/// writers of one session never queue behind its row lock (on PostgreSQL an update holds it
/// until the commit is flushed).
macro_rules! session_refresh_when {
    () => {
        "(excluded.path <> '' AND excluded.path <> sessions.path)
         OR (excluded.content_hash IS NOT NULL
             AND (sessions.content_hash IS NULL OR excluded.content_hash <> sessions.content_hash))
         OR sessions.last_seen < excluded.last_seen - 60000"
    };
}

/// The conflict clause of a session row's insert (both backends): refresh the known row as
/// [`session_refresh_when!`] says.
macro_rules! upsert_session_tail {
    () => {
        concat!(
            "ON CONFLICT (session_id) DO UPDATE SET ",
            session_refresh_set!(),
            " WHERE ",
            session_refresh_when!()
        )
    };
}

/// [`Store::classify`] on PostgreSQL: the session row (inserted when missing, refreshed only as
/// [`session_refresh_when!`] says, never locked otherwise), the claim statement and the
/// classification's history row in one statement (data-modifying CTEs; the session checks run
/// at its end). Nothing is updated: the current classification is the latest history row, so
/// writers of one claim statement never wait for each other's commit. Returns whether the
/// session row existed before it.
const CLASSIFY_PG: &str = concat!(
    "
WITH known AS (
    SELECT EXISTS (SELECT 1 FROM sessions WHERE session_id = $1) AS recorded
), s AS (
    INSERT INTO sessions (session_id, declared_id, path, content_hash, first_seen, last_seen)
    VALUES ($1, $2, $3, $4, $5, $5)
    ON CONFLICT (session_id) DO NOTHING
), r AS (
    UPDATE sessions SET ",
    session_refresh_set!(),
    "
    FROM (VALUES ($1, $3, $4, $5::bigint)) AS excluded (session_id, path, content_hash, last_seen)
    WHERE sessions.session_id = excluded.session_id AND (",
    session_refresh_when!(),
    ")
), c AS (
    INSERT INTO claims (session_id, claim_id, turn) VALUES ($1, $6, $7) ON CONFLICT DO NOTHING
), h AS (
    INSERT INTO classification_history (session_id, claim_id, turn, quadrant, fact_verdict,
        source_verdict, owner, next_action, note, reviewer, at)
    VALUES ($1, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
)
SELECT recorded FROM known"
);

const CLASSIFICATION_COLUMNS: &str =
    "session_id, claim_id, turn, quadrant, owner, next_action, note, reviewer, at";

type DbResult<T> = std::result::Result<T, DbError>;

impl Store {
    /// Opens for writing (creating the file and its directories when missing) and migrates the
    /// store at `path`: WAL mode, a 5 s busy timeout, foreign keys on. A database with a newer
    /// schema version, a file that is not a case store, and anything but a regular file (a
    /// directory, `/dev/null`, a FIFO) are refused and left unchanged.
    ///
    /// `path` may also be a `postgres://` (or `postgresql://`) URL: the store is then that
    /// database (see `docs/team.md`); `sqlite:PATH` is the same as `PATH`.
    pub fn open(path: &Path) -> Result<Store> {
        let spec = path.to_string_lossy();
        if pg::is_url(&spec) {
            let mut p = pg::Pg::connect(&spec)?;
            p.migrate_with(schema::MIGRATIONS)?;
            return Ok(Store {
                name: p.name.clone(),
                backend: RefCell::new(Backend::Postgres {
                    pg: Box::new(p),
                    writable: true,
                }),
            });
        }
        let file = sqlite::file_of(&spec);
        let conn = sqlite::open_read_write(&file)?;
        Ok(Store {
            name: file.clone(),
            backend: RefCell::new(Backend::Sqlite {
                conn,
                file: Some(file),
                writable: true,
            }),
        })
    }

    /// Opens an existing store for reading only: never creates, migrates or changes a file (not
    /// even a `-wal` or `-shm` beside it), and reads a database the user may not write. `None`
    /// when there is no store yet (no file, or an empty one). A store of an older schema
    /// version is refused with [`StoreError::OlderSchema`].
    pub fn open_read_only(path: &Path) -> Result<Option<Store>> {
        let spec = path.to_string_lossy();
        if pg::is_url(&spec) {
            let mut p = pg::Pg::connect(&spec)?;
            return Ok(match p.check_readable()? {
                None => None,
                Some(_) => Some(Store {
                    name: p.name.clone(),
                    backend: RefCell::new(Backend::Postgres {
                        pg: Box::new(p),
                        writable: false,
                    }),
                }),
            });
        }
        let file = sqlite::file_of(&spec);
        Ok(match sqlite::open_read_only(&file)? {
            sqlite::ReadOnly::Empty => None,
            sqlite::ReadOnly::Open(conn) => Some(Store {
                name: file.clone(),
                backend: RefCell::new(Backend::Sqlite {
                    conn,
                    file: Some(file),
                    writable: false,
                }),
            }),
        })
    }

    /// Opens for reading now and writing later (the explorer): reads as
    /// [`Store::open_read_only`] does, and the first write opens the database for writing,
    /// creating it if needed. An older schema is migrated at once.
    pub fn open_deferred(path: &Path) -> Result<Store> {
        let spec = path.to_string_lossy();
        if pg::is_url(&spec) {
            return Store::open(path);
        }
        let file = sqlite::file_of(&spec);
        let backend = match sqlite::open_read_only(&file) {
            Ok(sqlite::ReadOnly::Empty) => Backend::Deferred(file.clone()),
            Ok(sqlite::ReadOnly::Open(conn)) => Backend::Sqlite {
                conn,
                file: Some(file.clone()),
                writable: false,
            },
            Err(StoreError::OlderSchema { .. }) => return Store::open(&file),
            Err(e) => return Err(e),
        };
        Ok(Store {
            name: file,
            backend: RefCell::new(backend),
        })
    }

    /// A fresh store in memory (tests).
    pub fn open_in_memory() -> Result<Store> {
        let conn = sqlite::open_in_memory()?;
        Ok(Store {
            name: PathBuf::from(":memory:"),
            backend: RefCell::new(Backend::Sqlite {
                conn,
                file: None,
                writable: true,
            }),
        })
    }

    /// The store to use when `--db` is not given: `$PROVSCOPE_DB` when set and not empty (a path
    /// or a `postgres://` URL), else [`Store::default_path`].
    pub fn default_location() -> PathBuf {
        match std::env::var_os("PROVSCOPE_DB") {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => Store::default_path(),
        }
    }

    /// True when this store is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(&*self.backend.borrow(), Backend::Postgres { .. })
    }

    /// The platform data directory's `provscope/cases.sqlite` (for example
    /// `~/.local/share/provscope/cases.sqlite` on Linux), or `./provscope-cases.sqlite` when the
    /// platform has none.
    pub fn default_path() -> PathBuf {
        directories::ProjectDirs::from("dev", "provscope", "provscope")
            .map(|d| d.data_dir().join(DEFAULT_FILE_NAME))
            .unwrap_or_else(|| PathBuf::from(FALLBACK_PATH))
    }

    /// The database (`:memory:` for in-memory stores).
    pub fn path(&self) -> &Path {
        &self.name
    }

    /// Whether the store is open for writing now (read-only and deferred stores become
    /// writable at their first write).
    pub fn is_writable(&self) -> bool {
        matches!(
            &*self.backend.borrow(),
            Backend::Sqlite { writable: true, .. } | Backend::Postgres { writable: true, .. }
        )
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.name.clone(),
            source: e,
        }
    }

    fn db_err(&self, e: DbError) -> StoreError {
        match e {
            DbError::Sqlite(e) => self.err(e),
            DbError::Pg(e) => StoreError::Postgres {
                path: self.name.clone(),
                source: e,
            },
            DbError::Decode(message) => StoreError::Invalid {
                path: self.name.clone(),
                message,
            },
        }
    }

    /// Runs `f` on the open database, or returns `empty()` when there is none yet.
    fn read_or<T>(
        &self,
        empty: impl FnOnce() -> T,
        f: impl FnOnce(&mut Q<'_>) -> DbResult<T>,
    ) -> Result<T> {
        let mut b = self.backend.borrow_mut();
        match &mut *b {
            Backend::Deferred(_) => Ok(empty()),
            Backend::Sqlite { conn, .. } => f(&mut Q::Sqlite(conn)).map_err(|e| self.db_err(e)),
            Backend::Postgres { pg, .. } => pg.read(f).map_err(|e| self.db_err(e)),
        }
    }

    fn read<T: Default>(&self, f: impl FnOnce(&mut Q<'_>) -> DbResult<T>) -> Result<T> {
        self.read_or(T::default, f)
    }

    /// Runs `f` in one write transaction, committed before returning; opens the database for
    /// writing first when it was open read-only or not yet created.
    fn write<T>(&self, mut f: impl FnMut(&mut Q<'_>) -> DbResult<T>) -> Result<T> {
        self.make_writable()?;
        let mut b = self.backend.borrow_mut();
        match &mut *b {
            Backend::Postgres { pg, writable } => {
                if !*writable {
                    return Err(StoreError::Invalid {
                        path: self.name.clone(),
                        message: "the store was opened read-only".into(),
                    });
                }
                pg.write(f)
            }
            Backend::Sqlite { conn, .. } => {
                let tx = sqlite::begin(conn).map_err(|e| self.err(e))?;
                let v = f(&mut Q::Sqlite(&tx)).map_err(|e| self.db_err(e))?;
                tx.commit().map_err(|e| self.err(e))?;
                Ok(v)
            }
            Backend::Deferred(_) => Err(StoreError::Invalid {
                path: self.name.clone(),
                message: "the store could not be opened for writing".into(),
            }),
        }
    }

    fn make_writable(&self) -> Result<()> {
        let reopen = match &*self.backend.borrow() {
            Backend::Deferred(p) => Some(p.clone()),
            Backend::Sqlite {
                writable: false,
                file: Some(p),
                ..
            } => Some(p.clone()),
            _ => None,
        };
        if let Some(p) = reopen {
            let conn = sqlite::open_read_write(&p)?;
            *self.backend.borrow_mut() = Backend::Sqlite {
                conn,
                file: Some(p),
                writable: true,
            };
        }
        Ok(())
    }

    /// Applies `migrations` (tests: a longer or broken list than this build's).
    #[cfg(test)]
    fn migrate_with(&self, migrations: &[schema::Migration]) -> Result<()> {
        match &mut *self.backend.borrow_mut() {
            Backend::Sqlite { conn, .. } => sqlite::migrate_with(conn, &self.name, migrations),
            Backend::Postgres { pg, .. } => pg.migrate_with(migrations),
            Backend::Deferred(_) => Ok(()),
        }
    }

    /// Applies this build's pending migrations.
    #[cfg(test)]
    fn migrate(&self) -> Result<()> {
        self.migrate_with(schema::MIGRATIONS)
    }

    /// The schema version of the database (0 when it does not exist yet).
    pub fn schema_version(&self) -> Result<i64> {
        let pg = self.is_postgres();
        self.read(|q| {
            let sql = if pg {
                "SELECT value FROM provscope_meta WHERE key = 'schema_version'"
            } else {
                "PRAGMA user_version"
            };
            q.first(sql, &[])?.map_or(Ok(0), |r| r.i64(0))
        })
    }

    /// Records (or refreshes) a session: its path, content hash and `last_seen`. Returns where
    /// its records are kept.
    pub fn upsert_session(&self, s: &SessionRef) -> Result<Identity> {
        let now = Timestamp::now();
        self.write(|q| upsert_session(q, s, now))
    }

    /// Where the records of the log `s` are (or would be) kept, without writing anything.
    pub fn identify(&self, s: &SessionRef) -> Result<Identity> {
        self.read_or(
            || Identity {
                key: s.session_id.clone(),
                recorded: false,
                other: None,
            },
            |q| identify(q, s),
        )
    }

    /// The stored reference of a session, by its store key (its `session_id` is the id the log
    /// declares).
    pub fn session(&self, key: &str) -> Result<Option<SessionRef>> {
        self.read(|q| {
            q.first(
                "SELECT declared_id, path, content_hash FROM sessions WHERE session_id = $1",
                vals![key],
            )?
            .map(|r| {
                Ok(SessionRef {
                    session_id: r.text(0)?,
                    path: r.text(1)?,
                    content_hash: r.opt_text(2)?,
                })
            })
            .transpose()
        })
    }

    /// Every log recorded under a declared session id: `(store key, reference)`, oldest first.
    pub fn identities(&self, declared_id: &str) -> Result<Vec<(String, SessionRef)>> {
        self.read(|q| {
            q.query(
                "SELECT session_id, path, content_hash FROM sessions WHERE declared_id = $1
                 ORDER BY first_seen, session_id",
                vals![declared_id],
            )?
            .iter()
            .map(|r| {
                Ok((
                    r.text(0)?,
                    SessionRef {
                        session_id: declared_id.to_owned(),
                        path: r.text(1)?,
                        content_hash: r.opt_text(2)?,
                    },
                ))
            })
            .collect()
        })
    }

    /// Records the session and the text of its claim statements `(claim_id, turn, text)`, in one
    /// transaction; existing texts are replaced.
    pub fn upsert_claims<'a, I>(&self, s: &SessionRef, claims: I) -> Result<Identity>
    where
        I: IntoIterator<Item = (&'a str, u32, &'a str)>,
    {
        let claims: Vec<(&str, u32, &str)> = claims.into_iter().collect();
        let now = Timestamp::now();
        self.write(|q| {
            let id = upsert_session(q, s, now)?;
            for &(claim, turn, text) in &claims {
                q.exec(
                    "INSERT INTO claims (session_id, claim_id, turn, claim_text)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (session_id, claim_id, turn)
                     DO UPDATE SET claim_text = excluded.claim_text",
                    vals![&id.key, claim, turn, text],
                )?;
            }
            Ok(id)
        })
    }

    /// Classifies a claim statement of the log `s`: appends the classification to the history
    /// of `(session, claim_id, turn)`, whose latest row is the current classification, in one
    /// transaction. The classification is kept under the session's store key (see
    /// [`Identity`]).
    pub fn classify(&self, s: &SessionRef, c: &Classification) -> Result<Identity> {
        if s.session_id != c.session_id {
            return Err(StoreError::Invalid {
                path: self.name.clone(),
                message: format!(
                    "a classification of session `{}` was filed under session `{}`",
                    c.session_id, s.session_id
                ),
            });
        }
        let now = Timestamp::now();
        self.write(|q| {
            if !q.is_pg() {
                let id = upsert_session(q, s, now)?;
                classify_in(q, &id.key, c)?;
                return Ok(id);
            }
            // PostgreSQL: the session, claim, classification and history rows in one statement.
            if s.content_hash.is_none() {
                // Nothing to decide: the key is the declared id.
                let rows = q.query(CLASSIFY_PG, &classify_params(&s.session_id, s, c, now))?;
                let recorded = rows.first().map_or(Ok(0), |r| r.i64(0))?;
                return Ok(Identity {
                    key: s.session_id.clone(),
                    recorded: recorded != 0,
                    other: None,
                });
            }
            // A log already recorded with its content keeps its key for good (a row's hash
            // only ever goes from none to one): nothing to decide. Otherwise logs declaring the
            // same id decide their identities one at a time.
            let id = match identify_settled(q, s)? {
                (id, true) => id,
                (_, false) => {
                    q.lock(&s.session_id)?;
                    identify(q, s)?
                }
            };
            q.query(CLASSIFY_PG, &classify_params(&id.key, s, c, now))?;
            Ok(id)
        })
    }

    /// The current classification of a claim statement.
    pub fn classification(
        &self,
        session_id: &str,
        claim_id: &str,
        turn: u32,
    ) -> Result<Option<Classification>> {
        let sql = format!(
            "SELECT {CLASSIFICATION_COLUMNS} FROM classifications
             WHERE session_id = $1 AND claim_id = $2 AND turn = $3"
        );
        let rows = self.read(|q| q.query(&sql, vals![session_id, claim_id, turn]))?;
        rows.first().map(|r| self.decode(r)).transpose()
    }

    /// Every current classification of a session (by store key), in turn then claim id order.
    pub fn classifications(&self, session_id: &str) -> Result<Vec<Classification>> {
        let sql = format!(
            "SELECT {CLASSIFICATION_COLUMNS} FROM classifications WHERE session_id = $1
             ORDER BY turn, claim_id"
        );
        let rows = self.read(|q| q.query(&sql, vals![session_id]))?;
        rows.iter().map(|r| self.decode(r)).collect()
    }

    /// Every current classification of every session, oldest first (for `trend`).
    pub fn all_classifications(&self) -> Result<Vec<Classification>> {
        let sql = format!("SELECT {CLASSIFICATION_COLUMNS} FROM classifications ORDER BY at");
        let rows = self.read(|q| q.query(&sql, vals![]))?;
        rows.iter().map(|r| self.decode(r)).collect()
    }

    /// Every classification ever recorded for a claim statement, oldest first (the last one is
    /// the current one).
    pub fn classification_history(
        &self,
        session_id: &str,
        claim_id: &str,
        turn: u32,
    ) -> Result<Vec<Classification>> {
        let sql = format!(
            "SELECT {CLASSIFICATION_COLUMNS} FROM classification_history
             WHERE session_id = $1 AND claim_id = $2 AND turn = $3 ORDER BY id"
        );
        let rows = self.read(|q| q.query(&sql, vals![session_id, claim_id, turn]))?;
        rows.iter().map(|r| self.decode(r)).collect()
    }

    /// Marks a claim statement reviewed (or not). A session not yet in the store is recorded
    /// with an empty path until [`Store::upsert_session`] names it.
    pub fn set_reviewed(
        &self,
        session_id: &str,
        claim_id: &str,
        turn: u32,
        reviewed: bool,
    ) -> Result<()> {
        let now = Timestamp::now().millis();
        self.write(|q| {
            ensure_session(q, session_id, now)?;
            q.exec(
                "INSERT INTO review (session_id, claim_id, turn, reviewed, at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (session_id, claim_id, turn)
                 DO UPDATE SET reviewed = excluded.reviewed, at = excluded.at",
                vals![session_id, claim_id, turn, reviewed, now],
            )?;
            Ok(())
        })
    }

    /// The claim statements of a session marked reviewed, in turn then claim id order.
    pub fn reviewed(&self, session_id: &str) -> Result<Vec<(String, u32)>> {
        self.read(|q| {
            q.query(
                "SELECT claim_id, turn FROM review WHERE session_id = $1 AND reviewed = 1
                 ORDER BY turn, claim_id",
                vals![session_id],
            )?
            .iter()
            .map(|r| Ok((r.text(0)?, r.u32(1)?)))
            .collect()
        })
    }

    /// Remembers where the current reviewer's ([`default_reviewer`]) review walkthrough of a
    /// session stopped. A session not yet in the store is recorded with an empty path until
    /// [`Store::upsert_session`] names it.
    pub fn set_review_cursor(&self, session_id: &str, claim_id: &str, turn: u32) -> Result<()> {
        self.set_review_cursor_of(&default_reviewer(), session_id, claim_id, turn)
    }

    /// Remembers where `reviewer`'s review walkthrough of a session stopped: each reviewer has
    /// a cursor of their own.
    pub fn set_review_cursor_of(
        &self,
        reviewer: &str,
        session_id: &str,
        claim_id: &str,
        turn: u32,
    ) -> Result<()> {
        let now = Timestamp::now().millis();
        self.write(|q| {
            ensure_session(q, session_id, now)?;
            q.exec(
                "INSERT INTO review_cursors (session_id, reviewer, claim_id, turn, at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (session_id, reviewer) DO UPDATE SET
                     claim_id = excluded.claim_id, turn = excluded.turn, at = excluded.at",
                vals![session_id, reviewer, claim_id, turn, now],
            )?;
            Ok(())
        })
    }

    /// Where the current reviewer's review walkthrough of a session stopped (a cursor saved
    /// before cursors were per reviewer is everyone's until they move their own).
    pub fn review_cursor(&self, session_id: &str) -> Result<Option<(String, u32)>> {
        self.review_cursor_of(&default_reviewer(), session_id)
    }

    /// Where `reviewer`'s review walkthrough of a session stopped.
    pub fn review_cursor_of(
        &self,
        reviewer: &str,
        session_id: &str,
    ) -> Result<Option<(String, u32)>> {
        self.read(|q| {
            q.first(
                "SELECT claim_id, turn FROM review_cursors
                 WHERE session_id = $1 AND (reviewer = $2 OR reviewer = '')
                 ORDER BY CASE WHEN reviewer = '' THEN 1 ELSE 0 END LIMIT 1",
                vals![session_id, reviewer],
            )?
            .map(|r| Ok((r.text(0)?, r.u32(1)?)))
            .transpose()
        })
    }

    /// Claim statements of a session whose reviewers disagree: for each, the latest decision
    /// of every reviewer, when there are at least two reviewers and their quadrants differ
    /// (oldest first; the last one is the current classification).
    pub fn conflicts(&self, session_id: &str) -> Result<Vec<Conflict>> {
        let rows = self.read(|q| {
            q.query(
                "SELECT h.claim_id, h.turn, h.reviewer, h.quadrant, h.at, h.note
                 FROM classification_history h
                 WHERE h.session_id = $1 AND h.id = (
                     SELECT max(g.id) FROM classification_history g
                     WHERE g.session_id = h.session_id AND g.claim_id = h.claim_id
                       AND g.turn = h.turn AND g.reviewer = h.reviewer)
                 ORDER BY h.turn, h.claim_id, h.id",
                vals![session_id],
            )
        })?;
        let mut out: Vec<Conflict> = Vec::new();
        for r in &rows {
            let (claim_id, turn) = (
                r.text(0).map_err(|e| self.db_err(e))?,
                r.u32(1).map_err(|e| self.db_err(e))?,
            );
            let q = r.text(3).map_err(|e| self.db_err(e))?;
            let decision = Decision {
                reviewer: r.text(2).map_err(|e| self.db_err(e))?,
                quadrant: Quadrant::parse(&q).ok_or_else(|| StoreError::Invalid {
                    path: self.name.clone(),
                    message: format!("claim `{claim_id}` has an unknown quadrant `{q}`"),
                })?,
                at: Timestamp(r.i64(4).map_err(|e| self.db_err(e))?),
                note: r.text(5).map_err(|e| self.db_err(e))?,
            };
            match out.last_mut() {
                Some(c) if c.claim_id == claim_id && c.turn == turn => c.decisions.push(decision),
                _ => out.push(Conflict {
                    claim_id,
                    turn,
                    decisions: vec![decision],
                }),
            }
        }
        out.retain(|c| {
            c.decisions.len() > 1
                && c.decisions
                    .iter()
                    .any(|d| d.quadrant != c.decisions[0].quadrant)
        });
        Ok(out)
    }

    /// Rows that reference no session (should be none): `"ok"`, or what was found.
    fn orphans(&self) -> Result<String> {
        let found = self.read(|q| {
            let mut found = Vec::new();
            for t in [
                "claims",
                "classification_history",
                "review",
                "review_cursors",
                "corrections",
                "findings",
            ] {
                let n = q
                    .first(
                        &format!(
                            "SELECT count(*) FROM {t} x WHERE NOT EXISTS
                             (SELECT 1 FROM sessions s WHERE s.session_id = x.session_id)"
                        ),
                        &[],
                    )?
                    .map_or(Ok(0), |r| r.i64(0))?;
                if n > 0 {
                    found.push(format!("{n} rows of {t} reference no session"));
                }
            }
            Ok(found)
        })?;
        Ok(if found.is_empty() {
            "ok".into()
        } else {
            found.join("\n")
        })
    }

    /// Rows per table: what `provscope db status` shows.
    pub fn counts(&self) -> Result<Vec<(&'static str, i64)>> {
        const TABLES: [&str; 9] = [
            "sessions",
            "claims",
            "classifications",
            "classification_history",
            "review",
            "review_cursors",
            "corrections",
            "runs",
            "findings",
        ];
        self.read(|q| {
            TABLES
                .iter()
                .map(|t| {
                    let n = q
                        .first(&format!("SELECT count(*) FROM {t}"), &[])?
                        .map_or(Ok(0), |r| r.i64(0))?;
                    Ok((*t, n))
                })
                .collect()
        })
    }

    /// `PRAGMA integrity_check`: `"ok"` for a healthy database, else SQLite's findings.
    pub fn integrity_check(&self) -> Result<String> {
        let own = match &*self.backend.borrow() {
            Backend::Deferred(_) => Ok("ok".into()),
            Backend::Sqlite { conn, .. } => sqlite::integrity_check(conn).map_err(|e| self.err(e)),
            // PostgreSQL checks its own pages; what the store can check is that every row
            // it holds references a session.
            Backend::Postgres { .. } => Ok(String::new()),
        }?;
        if own.is_empty() {
            self.orphans()
        } else {
            Ok(own)
        }
    }

    fn decode(&self, r: &sql::Row) -> Result<Classification> {
        let raw = || -> DbResult<(Classification, String)> {
            let quadrant = r.text(3)?;
            Ok((
                Classification {
                    session_id: r.text(0)?,
                    claim_id: r.text(1)?,
                    turn: r.u32(2)?,
                    quadrant: Quadrant::FactRightSourceRight,
                    owner: r.text(4)?,
                    next_action: r.text(5)?,
                    note: r.text(6)?,
                    reviewer: r.text(7)?,
                    at: Timestamp(r.i64(8)?),
                },
                quadrant,
            ))
        };
        let (mut c, q) = raw().map_err(|e| self.db_err(e))?;
        c.quadrant = Quadrant::parse(&q).ok_or_else(|| StoreError::Invalid {
            path: self.name.clone(),
            message: format!(
                "claim `{}` turn {} of session `{}` has an unknown quadrant `{q}`",
                c.claim_id, c.turn, c.session_id
            ),
        })?;
        Ok(c)
    }
}

/// A session row as far as identities are concerned.
#[derive(Clone, Debug)]
struct Known {
    key: String,
    declared: String,
    path: String,
    hash: Option<String>,
}

fn known_rows(rows: &[sql::Row]) -> DbResult<Vec<Known>> {
    rows.iter()
        .map(|r| {
            Ok(Known {
                key: r.text(0)?,
                declared: r.text(1)?,
                path: r.text(2)?,
                hash: r.opt_text(3)?,
            })
        })
        .collect()
}

/// Decides the identity of the log `s` given the session rows that share its declared id or
/// hold it as a key (oldest first), and records the decision in `known` as an upsert would.
fn decide(known: &mut Vec<Known>, s: &SessionRef) -> Identity {
    let declared = s.session_id.as_str();
    let has = |known: &[Known], key: &str| known.iter().any(|k| k.key == key);
    let id = match s.content_hash.as_deref() {
        None => Identity {
            key: declared.to_owned(),
            recorded: has(known, declared),
            other: None,
        },
        Some(hash) => {
            if let Some(k) = known
                .iter()
                .find(|k| k.declared == declared && k.hash.as_deref() == Some(hash))
            {
                Identity {
                    key: k.key.clone(),
                    recorded: true,
                    other: None,
                }
            } else {
                match known.iter().find(|k| k.key == declared) {
                    None => Identity {
                        key: declared.to_owned(),
                        recorded: false,
                        other: None,
                    },
                    // Named so far only by id (review progress, an import without content):
                    // this log names it.
                    Some(k) if k.hash.is_none() => Identity {
                        key: declared.to_owned(),
                        recorded: true,
                        other: None,
                    },
                    Some(k) => {
                        let key = derived_key(declared, hash);
                        Identity {
                            recorded: has(known, &key),
                            other: Some(SessionRef {
                                session_id: declared.to_owned(),
                                path: k.path.clone(),
                                content_hash: k.hash.clone(),
                            }),
                            key,
                        }
                    }
                }
            }
        }
    };
    match known.iter_mut().find(|k| k.key == id.key) {
        Some(k) => {
            if !s.path.is_empty() {
                k.path = s.path.clone();
            }
            if s.content_hash.is_some() {
                k.hash = s.content_hash.clone();
            }
        }
        None => known.push(Known {
            key: id.key.clone(),
            declared: declared.to_owned(),
            path: s.path.clone(),
            hash: s.content_hash.clone(),
        }),
    }
    id
}

/// `$1, $2, …, $n`.
fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where the records of the log `s` are (or would be) kept.
fn identify(q: &mut Q<'_>, s: &SessionRef) -> DbResult<Identity> {
    Ok(identify_settled(q, s)?.0)
}

/// [`identify`], and whether the decision is settled for good: a row already holds the log's
/// declared id with its content hash, which no later write changes, so no lock is needed.
fn identify_settled(q: &mut Q<'_>, s: &SessionRef) -> DbResult<(Identity, bool)> {
    let rows = q.query(
        "SELECT session_id, declared_id, path, content_hash FROM sessions
         WHERE declared_id = $1 OR session_id = $1 ORDER BY first_seen, session_id",
        vals![&s.session_id],
    )?;
    let mut known = known_rows(&rows)?;
    let settled = s.content_hash.is_some()
        && known
            .iter()
            .any(|k| k.declared == s.session_id && k.hash == s.content_hash);
    Ok((decide(&mut known, s), settled))
}

/// Records (or refreshes) many logs at once (bulk import): one lock statement, one query for
/// what is known, one insert. Same decisions as [`upsert_session`] one after the other.
fn upsert_sessions(q: &mut Q<'_>, refs: &[&SessionRef], now: Timestamp) -> DbResult<Vec<Identity>> {
    let mut declared: Vec<&str> = refs.iter().map(|s| s.session_id.as_str()).collect();
    declared.sort_unstable();
    declared.dedup();
    if declared.is_empty() {
        return Ok(Vec::new());
    }
    q.lock_many(&declared)?;
    let list = placeholders(declared.len());
    let params: Vec<sql::Val<'_>> = declared.iter().map(|d| sql::Val::T(d)).collect();
    let rows = q.query(
        &format!(
            "SELECT session_id, declared_id, path, content_hash FROM sessions
             WHERE declared_id IN ({list}) OR session_id IN ({list})
             ORDER BY first_seen, session_id"
        ),
        &params,
    )?;
    let mut known = known_rows(&rows)?;
    let ids: Vec<Identity> = refs.iter().map(|s| decide(&mut known, s)).collect();
    // One row per key: what the last log under that key says.
    let mut last: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        last.insert(id.key.as_str(), i);
    }
    let mut order: Vec<usize> = last.into_values().collect();
    order.sort_unstable();
    let when = now.millis();
    let values: Vec<Vec<sql::Val<'_>>> = order
        .iter()
        .map(|&i| {
            vec![
                sql::Val::T(&ids[i].key),
                sql::Val::T(&refs[i].session_id),
                sql::Val::T(&refs[i].path),
                sql::Val::OT(refs[i].content_hash.as_deref()),
                sql::Val::I(when),
                sql::Val::I(when),
            ]
        })
        .collect();
    q.insert_many(
        "INSERT INTO sessions (session_id, declared_id, path, content_hash, first_seen, last_seen)",
        &[
            sql::Col::Text,
            sql::Col::Text,
            sql::Col::Text,
            sql::Col::Text,
            sql::Col::Int,
            sql::Col::Int,
        ],
        upsert_session_tail!(),
        &values,
    )?;
    Ok(ids)
}

/// Records (or refreshes) the log `s` under its identity's key. An empty path or a missing hash
/// never erases what is known.
fn upsert_session(q: &mut Q<'_>, s: &SessionRef, now: Timestamp) -> DbResult<Identity> {
    // Two writers deciding the identity of logs declaring the same id take turns (without a
    // content hash the key is the declared id: nothing to decide).
    if s.content_hash.is_some() {
        q.lock(&s.session_id)?;
    }
    let id = identify(q, s)?;
    q.exec(
        concat!(
            "INSERT INTO sessions (session_id, declared_id, path, content_hash, first_seen,
                 last_seen)
             VALUES ($1, $2, $3, $4, $5, $5) ",
            upsert_session_tail!()
        ),
        vals![
            &id.key,
            &s.session_id,
            &s.path,
            &s.content_hash,
            now.millis()
        ],
    )?;
    Ok(id)
}

/// Makes sure a session row exists for `key` (named only by its key until a log names it).
fn ensure_session(q: &mut Q<'_>, key: &str, now: i64) -> DbResult<()> {
    q.exec(
        "INSERT INTO sessions (session_id, declared_id, path, content_hash, first_seen, last_seen)
         VALUES ($1, $2, '', NULL, $3, $3) ON CONFLICT DO NOTHING",
        vals![key, key, now],
    )?;
    Ok(())
}

/// [`CLASSIFY_PG`]'s parameters: the classification `c` of the log `s` under the store key `key`.
fn classify_params<'a>(
    key: &'a str,
    s: &'a SessionRef,
    c: &'a Classification,
    now: Timestamp,
) -> [sql::Val<'a>; 15] {
    let (fact, source) = axes(c.quadrant);
    [
        sql::Val::T(key),
        sql::Val::T(&s.session_id),
        sql::Val::T(&s.path),
        sql::Val::OT(s.content_hash.as_deref()),
        sql::Val::I(now.millis()),
        sql::Val::T(&c.claim_id),
        sql::Val::from(c.turn),
        sql::Val::T(c.quadrant.name()),
        sql::Val::T(fact_name(fact)),
        sql::Val::T(source_name(source)),
        sql::Val::T(&c.owner),
        sql::Val::T(&c.next_action),
        sql::Val::T(&c.note),
        sql::Val::T(&c.reviewer),
        sql::Val::I(c.at.millis()),
    ]
}

fn classify_in(q: &mut Q<'_>, key: &str, c: &Classification) -> DbResult<()> {
    let (fact, source) = axes(c.quadrant);
    q.exec(
        "INSERT INTO claims (session_id, claim_id, turn) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING",
        vals![key, &c.claim_id, c.turn],
    )?;
    let values = vals![
        key,
        &c.claim_id,
        c.turn,
        c.quadrant.name(),
        fact_name(fact),
        source_name(source),
        &c.owner,
        &c.next_action,
        &c.note,
        &c.reviewer,
        c.at.millis(),
    ];
    q.exec(
        "INSERT INTO classification_history (session_id, claim_id, turn, quadrant,
             fact_verdict, source_verdict, owner, next_action, note, reviewer, at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        values,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests;
