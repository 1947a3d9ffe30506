//! The case store: a SQLite database where the grid's decisions become durable.
//!
//! Classifications (with an append-only history), review progress and the review cursor live
//! here; corrections and recorded runs will too. The explorer and the CLI share one file: WAL
//! mode and a 5 s busy timeout let them use it at once, and every write is one `BEGIN IMMEDIATE`
//! transaction committed before the method returns, so concurrent writers never lose an
//! update and a killed process loses nothing already committed.
//!
//! The schema is versioned with `PRAGMA user_version` and migrated on open; a database written
//! by a newer provscope is refused, never modified. See `docs/case-store.md`.

mod runs;
pub use runs::{Correction, Run};
mod schema;

pub use schema::{APPLICATION_ID, SCHEMA_VERSION};

use crate::check::{FactVerdict, Quadrant, SourceVerdict};
use crate::model::Timestamp;
use rusqlite::config::DbConfig;
use rusqlite::{
    params, Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior,
};
use serde::Serialize;
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
    /// SQLite reported an error.
    Sqlite {
        /// The database.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
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
            | StoreError::NewerSchema { path, .. }
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

/// The case store: one SQLite connection. `Send`, not `Sync`: give each thread its own
/// [`Store::open`] of the same path.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

const CLASSIFICATION_COLUMNS: &str =
    "session_id, claim_id, turn, quadrant, owner, next_action, note, reviewer, at";

impl Store {
    /// Opens (creating the file and its directories when missing) and migrates the store at
    /// `path`: WAL mode, a 5 s busy timeout, foreign keys on. A database with a newer schema
    /// version, or a file that is not a case store, is refused and left byte-for-byte unchanged.
    pub fn open(path: &Path) -> Result<Store> {
        let owned = path.to_path_buf();
        let exists = match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(StoreError::NotACaseStore {
                    path: owned,
                    reason: "it is a directory".into(),
                })
            }
            Ok(_) => true,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                false
            }
            Err(e) => {
                return Err(StoreError::Io {
                    path: owned,
                    action: "read the file's metadata",
                    source: e,
                })
            }
        };
        if exists {
            // Look before touching: the raw header answers most refusals without SQLite.
            check_raw_header(path)?;
        } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Io {
                path: owned.clone(),
                action: "create the directory",
                source: e,
            })?;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| sqlite(&owned, e))?;
        let store = Store { conn, path: owned };
        store.check_before_writing()?;
        store.configure(true)?;
        store.migrate()?;
        Ok(store)
    }

    /// Reads (never writes) the schema version and application id through SQLite, which also
    /// sees commits still in the WAL, and refuses what this build must not touch. Until the
    /// check passes, closing the connection does not checkpoint a pending WAL into the file.
    fn check_before_writing(&self) -> Result<()> {
        let c = &self.conn;
        c.busy_timeout(BUSY_TIMEOUT).map_err(|e| self.err(e))?;
        c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(|e| self.err(e))?;
        let (version, app_id) = header(c).map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
                StoreError::NotACaseStore {
                    path: self.path.clone(),
                    reason: "it is not a SQLite database".into(),
                }
            }
            e => self.err(e),
        })?;
        check_header(&self.path, version, app_id, SCHEMA_VERSION, || {
            has_tables(c)
        })?;
        c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// A fresh store in memory (tests).
    pub fn open_in_memory() -> Result<Store> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|e| sqlite(&path, e))?;
        let store = Store { conn, path };
        store.configure(false)?;
        store.migrate()?;
        Ok(store)
    }

    /// The platform data directory's `provscope/cases.sqlite` (for example
    /// `~/.local/share/provscope/cases.sqlite` on Linux), or `./provscope-cases.sqlite` when the
    /// platform has none.
    pub fn default_path() -> PathBuf {
        directories::ProjectDirs::from("dev", "provscope", "provscope")
            .map(|d| d.data_dir().join(DEFAULT_FILE_NAME))
            .unwrap_or_else(|| PathBuf::from(FALLBACK_PATH))
    }

    /// The database file (`:memory:` for in-memory stores).
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&self, file: bool) -> Result<()> {
        let c = &self.conn;
        c.busy_timeout(BUSY_TIMEOUT).map_err(|e| self.err(e))?;
        c.pragma_update(None, "foreign_keys", true)
            .map_err(|e| self.err(e))?;
        if file {
            let mode: String = c
                .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
                .map_err(|e| self.err(e))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::Invalid {
                    path: self.path.clone(),
                    message: format!(
                        "SQLite could not switch the journal to WAL mode (it reports `{mode}`); \
                         is the file on a network filesystem?"
                    ),
                });
            }
        }
        // FULL: a commit is on disk before the method returns, even across a power cut.
        c.pragma_update(None, "synchronous", "FULL")
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Applies every pending migration in one immediate transaction; refuses newer schemas.
    fn migrate(&self) -> Result<()> {
        self.migrate_with(schema::MIGRATIONS)
    }

    fn migrate_with(&self, migrations: &[schema::Migration]) -> Result<()> {
        let supported = migrations.len() as i64;
        let tx = self.begin()?;
        let (version, app_id) = header(&tx).map_err(|e| self.err(e))?;
        check_header(&self.path, version, app_id, supported, || has_tables(&tx))?;
        for m in migrations.iter().filter(|m| m.version > version) {
            tx.execute_batch(m.sql).map_err(|e| StoreError::Invalid {
                path: self.path.clone(),
                message: format!(
                    "migration to schema version {} ({}) failed, nothing was changed: {e}",
                    m.version, m.summary
                ),
            })?;
            tx.pragma_update(None, "user_version", m.version)
                .map_err(|e| self.err(e))?;
        }
        if version < supported || app_id != APPLICATION_ID {
            tx.pragma_update(None, "application_id", APPLICATION_ID)
                .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Records (or refreshes) a session: its path, content hash and `last_seen`.
    pub fn upsert_session(&self, s: &SessionRef) -> Result<()> {
        let tx = self.begin()?;
        upsert_session(&tx, s, Timestamp::now()).map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    /// The stored reference of a session.
    pub fn session(&self, session_id: &str) -> Result<Option<SessionRef>> {
        self.conn
            .query_row(
                "SELECT session_id, path, content_hash FROM sessions WHERE session_id = ?1",
                [session_id],
                |r| {
                    Ok(SessionRef {
                        session_id: r.get(0)?,
                        path: r.get(1)?,
                        content_hash: r.get(2)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Records the session and the text of its claim statements `(claim_id, turn, text)`, in one
    /// transaction; existing texts are replaced.
    pub fn upsert_claims<'a, I>(&self, s: &SessionRef, claims: I) -> Result<()>
    where
        I: IntoIterator<Item = (&'a str, u32, &'a str)>,
    {
        let tx = self.begin()?;
        upsert_session(&tx, s, Timestamp::now()).map_err(|e| self.err(e))?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO claims (session_id, claim_id, turn, claim_text)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (session_id, claim_id, turn)
                     DO UPDATE SET claim_text = excluded.claim_text",
                )
                .map_err(|e| self.err(e))?;
            for (id, turn, text) in claims {
                st.execute(params![s.session_id, id, turn, text])
                    .map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// Classifies a claim statement: replaces the current classification of
    /// `(session_id, claim_id, turn)` and appends it to the history, in one transaction.
    pub fn classify(&self, s: &SessionRef, c: &Classification) -> Result<()> {
        if s.session_id != c.session_id {
            return Err(StoreError::Invalid {
                path: self.path.clone(),
                message: format!(
                    "a classification of session `{}` was filed under session `{}`",
                    c.session_id, s.session_id
                ),
            });
        }
        let tx = self.begin()?;
        self.classify_in(&tx, s, c).map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    fn classify_in(
        &self,
        tx: &Transaction<'_>,
        s: &SessionRef,
        c: &Classification,
    ) -> rusqlite::Result<()> {
        upsert_session(tx, s, Timestamp::now())?;
        let (fact, source) = axes(c.quadrant);
        tx.prepare_cached(
            "INSERT INTO claims (session_id, claim_id, turn) VALUES (?1, ?2, ?3)
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![c.session_id, c.claim_id, c.turn])?;
        let values = params![
            c.session_id,
            c.claim_id,
            c.turn,
            c.quadrant.name(),
            fact_name(fact),
            source_name(source),
            c.owner,
            c.next_action,
            c.note,
            c.reviewer,
            c.at.millis(),
        ];
        tx.prepare_cached(
            "INSERT INTO classifications (session_id, claim_id, turn, quadrant, fact_verdict,
                 source_verdict, owner, next_action, note, reviewer, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
             ON CONFLICT (session_id, claim_id, turn) DO UPDATE SET
                 quadrant = excluded.quadrant, fact_verdict = excluded.fact_verdict,
                 source_verdict = excluded.source_verdict, owner = excluded.owner,
                 next_action = excluded.next_action, note = excluded.note,
                 reviewer = excluded.reviewer, at = excluded.at",
        )?
        .execute(values)?;
        tx.prepare_cached(
            "INSERT INTO classification_history (session_id, claim_id, turn, quadrant,
                 fact_verdict, source_verdict, owner, next_action, note, reviewer, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(values)?;
        Ok(())
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
             WHERE session_id = ?1 AND claim_id = ?2 AND turn = ?3"
        );
        let row = self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut st| {
                st.query_row(params![session_id, claim_id, turn], raw_classification)
                    .optional()
            })
            .map_err(|e| self.err(e))?;
        row.map(|r| self.decode(r)).transpose()
    }

    /// Every current classification of a session, in turn then claim id order.
    pub fn classifications(&self, session_id: &str) -> Result<Vec<Classification>> {
        let sql = format!(
            "SELECT {CLASSIFICATION_COLUMNS} FROM classifications WHERE session_id = ?1
             ORDER BY turn, claim_id"
        );
        self.query_classifications(&sql, session_id, None)
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
             WHERE session_id = ?1 AND claim_id = ?2 AND turn = ?3 ORDER BY id"
        );
        self.query_classifications(&sql, session_id, Some((claim_id, turn)))
    }

    fn query_classifications(
        &self,
        sql: &str,
        session_id: &str,
        claim: Option<(&str, u32)>,
    ) -> Result<Vec<Classification>> {
        let raws = self
            .conn
            .prepare_cached(sql)
            .and_then(|mut st| {
                let rows = match claim {
                    Some((id, turn)) => {
                        st.query_map(params![session_id, id, turn], raw_classification)?
                    }
                    None => st.query_map(params![session_id], raw_classification)?,
                };
                rows.collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| self.err(e))?;
        raws.into_iter().map(|r| self.decode(r)).collect()
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
        let tx = self.begin()?;
        let now = Timestamp::now().millis();
        ensure_session(&tx, session_id, now)
            .and_then(|()| {
                tx.prepare_cached(
                    "INSERT INTO review (session_id, claim_id, turn, reviewed, at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (session_id, claim_id, turn)
                     DO UPDATE SET reviewed = excluded.reviewed, at = excluded.at",
                )?
                .execute(params![session_id, claim_id, turn, reviewed, now])
            })
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    /// The claim statements of a session marked reviewed, in turn then claim id order.
    pub fn reviewed(&self, session_id: &str) -> Result<Vec<(String, u32)>> {
        self.conn
            .prepare_cached(
                "SELECT claim_id, turn FROM review WHERE session_id = ?1 AND reviewed = 1
                 ORDER BY turn, claim_id",
            )
            .and_then(|mut st| {
                st.query_map([session_id], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Remembers where the review walkthrough of a session stopped. A session not yet in the
    /// store is recorded with an empty path until [`Store::upsert_session`] names it.
    pub fn set_review_cursor(&self, session_id: &str, claim_id: &str, turn: u32) -> Result<()> {
        let tx = self.begin()?;
        let now = Timestamp::now().millis();
        ensure_session(&tx, session_id, now)
            .and_then(|()| {
                tx.prepare_cached(
                    "INSERT INTO review_cursor (session_id, claim_id, turn, at)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (session_id) DO UPDATE SET
                         claim_id = excluded.claim_id, turn = excluded.turn, at = excluded.at",
                )?
                .execute(params![session_id, claim_id, turn, now])
            })
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    /// Where the review walkthrough of a session stopped.
    pub fn review_cursor(&self, session_id: &str) -> Result<Option<(String, u32)>> {
        self.conn
            .query_row(
                "SELECT claim_id, turn FROM review_cursor WHERE session_id = ?1",
                [session_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// `PRAGMA integrity_check`: `"ok"` for a healthy database, else SQLite's findings.
    pub fn integrity_check(&self) -> Result<String> {
        self.conn
            .prepare("PRAGMA integrity_check")
            .and_then(|mut st| {
                st.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map(|lines| lines.join("\n"))
            .map_err(|e| self.err(e))
    }

    /// Starts a write transaction that takes the write lock at once (waiting up to the busy
    /// timeout), so a read-then-write never fails with a stale snapshot under concurrency.
    fn begin(&self) -> Result<Transaction<'_>> {
        Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        sqlite(&self.path, e)
    }

    fn decode(&self, r: RawClassification) -> Result<Classification> {
        let quadrant = Quadrant::parse(&r.quadrant).ok_or_else(|| StoreError::Invalid {
            path: self.path.clone(),
            message: format!(
                "claim `{}` turn {} of session `{}` has an unknown quadrant `{}`",
                r.claim_id, r.turn, r.session_id, r.quadrant
            ),
        })?;
        Ok(Classification {
            session_id: r.session_id,
            claim_id: r.claim_id,
            turn: r.turn,
            quadrant,
            owner: r.owner,
            next_action: r.next_action,
            note: r.note,
            reviewer: r.reviewer,
            at: Timestamp(r.at),
        })
    }
}

struct RawClassification {
    session_id: String,
    claim_id: String,
    turn: u32,
    quadrant: String,
    owner: String,
    next_action: String,
    note: String,
    reviewer: String,
    at: i64,
}

fn raw_classification(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawClassification> {
    Ok(RawClassification {
        session_id: r.get(0)?,
        claim_id: r.get(1)?,
        turn: r.get(2)?,
        quadrant: r.get(3)?,
        owner: r.get(4)?,
        next_action: r.get(5)?,
        note: r.get(6)?,
        reviewer: r.get(7)?,
        at: r.get(8)?,
    })
}

fn sqlite(path: &Path, e: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_path_buf(),
        source: e,
    }
}

fn upsert_session(tx: &Connection, s: &SessionRef, now: Timestamp) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO sessions (session_id, path, content_hash, first_seen, last_seen)
         VALUES (?1, ?2, ?3, ?4, ?4)
         ON CONFLICT (session_id) DO UPDATE SET
             path = CASE WHEN excluded.path = '' THEN path ELSE excluded.path END,
             content_hash = coalesce(excluded.content_hash, content_hash),
             last_seen = excluded.last_seen",
    )?
    .execute(params![s.session_id, s.path, s.content_hash, now.millis()])?;
    Ok(())
}

fn ensure_session(tx: &Connection, session_id: &str, now: i64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO sessions (session_id, path, content_hash, first_seen, last_seen)
         VALUES (?1, '', NULL, ?2, ?2) ON CONFLICT DO NOTHING",
    )?
    .execute(params![session_id, now])?;
    Ok(())
}

/// `(user_version, application_id)`.
fn header(c: &Connection) -> rusqlite::Result<(i64, i64)> {
    let v = c.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let a = c.pragma_query_value(None, "application_id", |r| r.get(0))?;
    Ok((v, a))
}

fn has_tables(c: &Connection) -> rusqlite::Result<bool> {
    c.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%')",
        [],
        |r| r.get(0),
    )
}

/// Decides from the header whether this build may open (and migrate) the database.
fn check_header(
    path: &Path,
    version: i64,
    app_id: i64,
    supported: i64,
    has_tables: impl FnOnce() -> rusqlite::Result<bool>,
) -> Result<()> {
    if app_id != 0 && app_id != APPLICATION_ID {
        return Err(StoreError::NotACaseStore {
            path: path.to_path_buf(),
            reason: format!("it is a SQLite database of another application, id {app_id:#x}"),
        });
    }
    if version > supported {
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            supported,
        });
    }
    if version < 0 {
        return Err(StoreError::NotACaseStore {
            path: path.to_path_buf(),
            reason: format!("its schema version {version} is negative"),
        });
    }
    if version == 0 && app_id == 0 && has_tables().map_err(|e| sqlite(path, e))? {
        return Err(StoreError::NotACaseStore {
            path: path.to_path_buf(),
            reason: "it is a SQLite database with tables but no provscope schema version".into(),
        });
    }
    Ok(())
}

/// Checks the 100-byte SQLite header of an existing file without opening it as a database:
/// the magic string, `user_version` (offset 60) and `application_id` (offset 68). The header
/// can lag behind commits still in a WAL file; [`Store::check_before_writing`] decides then.
fn check_raw_header(path: &Path) -> Result<()> {
    use std::io::Read;
    let io = |e| StoreError::Io {
        path: path.to_path_buf(),
        action: "read the file",
        source: e,
    };
    let mut head = Vec::with_capacity(100);
    std::fs::File::open(path)
        .map_err(io)?
        .take(100)
        .read_to_end(&mut head)
        .map_err(io)?;
    if head.is_empty() {
        return Ok(()); // An empty file is an empty database.
    }
    if head.len() < 100 || !head.starts_with(b"SQLite format 3\0") {
        return Err(StoreError::NotACaseStore {
            path: path.to_path_buf(),
            reason: "it is not a SQLite database".into(),
        });
    }
    let be = |at: usize| {
        i64::from(i32::from_be_bytes([
            head[at],
            head[at + 1],
            head[at + 2],
            head[at + 3],
        ]))
    };
    // Tables are decided by SQLite later, with the WAL taken into account.
    check_header(path, be(60), be(68), SCHEMA_VERSION, || Ok(false))
}

#[cfg(test)]
mod tests;
