//! The SQLite backend: opening (read-write with migrations, or read-only without creating
//! anything), the header checks that refuse files this build must not touch.

use super::schema::{self, Dialect, Migration, APPLICATION_ID, SCHEMA_VERSION};
use super::{Result, StoreError, BUSY_TIMEOUT};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};

fn sqlite(path: &Path, e: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_path_buf(),
        source: e,
    }
}

/// What kind of file `m` describes, for refusals ("a character device").
fn kind_of(m: &std::fs::Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// `Ok(true)` when `path` is an existing regular file, `Ok(false)` when nothing is there;
/// anything else (a directory, a device such as `/dev/null`, a FIFO) is refused.
pub(super) fn existing_regular_file(path: &Path) -> Result<bool> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => Err(StoreError::NotACaseStore {
            path: path.to_path_buf(),
            reason: format!("it is {}, not a regular file", kind_of(&m)),
        }),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(false)
        }
        Err(e) => Err(StoreError::Io {
            path: path.to_path_buf(),
            action: "read the file's metadata",
            source: e,
        }),
    }
}

/// Opens (creating the file and its directories when missing) and migrates the store at `path`:
/// WAL mode, a 5 s busy timeout, foreign keys on. A database with a newer schema version, or a
/// file that is not a case store, is refused and left byte-for-byte unchanged.
pub(super) fn open_read_write(path: &Path) -> Result<Connection> {
    // SQLite answers some lock conflicts at once instead of waiting out the busy timeout (a new
    // file switched to WAL while another process creates it, WAL recovery): those are retried
    // until the same timeout, so two writers opening a new store never fail in a fraction of a
    // second with "stayed locked for more than 5 s".
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match open_read_write_once(path) {
            Err(e) if e.is_busy() && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return r,
        }
    }
}

fn open_read_write_once(path: &Path) -> Result<Connection> {
    let owned = path.to_path_buf();
    if existing_regular_file(path)? {
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
    check_before_writing(&conn, path)?;
    configure(&conn, path, true)?;
    migrate_with(&conn, path, schema::MIGRATIONS)?;
    Ok(conn)
}

/// A fresh store in memory (tests).
pub(super) fn open_in_memory() -> Result<Connection> {
    let path = Path::new(":memory:");
    let conn = Connection::open_in_memory().map_err(|e| sqlite(path, e))?;
    configure(&conn, path, false)?;
    migrate_with(&conn, path, schema::MIGRATIONS)?;
    Ok(conn)
}

/// How a read-only open went.
pub(super) enum ReadOnly {
    /// Nothing to read: no file, or an empty database.
    Empty,
    /// A store at this build's schema version.
    Open(Connection),
}

/// Opens an existing store for reading only. Never creates a file (no database, no `-wal` or
/// `-shm`), never migrates: an older schema is refused with a message that says how to
/// upgrade it. A missing file or an empty database reads as [`ReadOnly::Empty`].
///
/// When no `-wal` file is beside the database, no writer has it open and every commit is in
/// the main file: it is read as immutable (SQLite then needs no shared-memory file, which a
/// read-only directory could not hold). Otherwise it is opened read-only through the writers'
/// WAL index, and sees their latest commits.
pub(super) fn open_read_only(path: &Path) -> Result<ReadOnly> {
    if !existing_regular_file(path)? {
        return Ok(ReadOnly::Empty);
    }
    if std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) == 0 {
        return Ok(ReadOnly::Empty);
    }
    check_raw_header(path)?;
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut wal = abs.clone().into_os_string();
    wal.push("-wal");
    let immutable = !Path::new(&wal).exists();
    let uri = format!(
        "file:{}?mode=ro{}",
        uri_path(&abs),
        if immutable { "&immutable=1" } else { "" }
    );
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(&uri, flags).map_err(|e| sqlite(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sqlite(path, e))?;
    // The header and the table list from one snapshot (see check_before_writing).
    let version = {
        let snapshot = conn.unchecked_transaction().map_err(|e| sqlite(path, e))?;
        let (version, app_id) = header(&snapshot).map_err(|e| not_sqlite(path, e))?;
        check_header(path, version, app_id, SCHEMA_VERSION, || {
            has_tables(&snapshot)
        })?;
        version
    };
    if version == 0 {
        return Ok(ReadOnly::Empty);
    }
    if version < SCHEMA_VERSION {
        return Err(StoreError::OlderSchema {
            path: path.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(ReadOnly::Open(conn))
}

/// The path part of a `file:` URI: `%`, `?` and `#` percent-encoded.
fn uri_path(p: &Path) -> String {
    let s = p.to_string_lossy();
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

fn not_sqlite(path: &Path, e: rusqlite::Error) -> StoreError {
    match e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
            StoreError::NotACaseStore {
                path: path.to_path_buf(),
                reason: "it is not a SQLite database".into(),
            }
        }
        e => sqlite(path, e),
    }
}

/// Reads (never writes) the schema version and application id through SQLite, which also sees
/// commits still in the WAL, and refuses what this build must not touch. Until the check
/// passes, closing the connection does not checkpoint a pending WAL into the file.
fn check_before_writing(c: &Connection, path: &Path) -> Result<()> {
    c.busy_timeout(BUSY_TIMEOUT).map_err(|e| sqlite(path, e))?;
    c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .map_err(|e| sqlite(path, e))?;
    // One read transaction: the header and the table list from the same snapshot. Read apart,
    // another process's first migration could commit in between, and its tables would be seen
    // without their schema version ("not a provscope case store").
    let snapshot = c.unchecked_transaction().map_err(|e| sqlite(path, e))?;
    let (version, app_id) = header(&snapshot).map_err(|e| not_sqlite(path, e))?;
    check_header(path, version, app_id, SCHEMA_VERSION, || {
        has_tables(&snapshot)
    })?;
    drop(snapshot);
    c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false)
        .map_err(|e| sqlite(path, e))?;
    Ok(())
}

fn configure(c: &Connection, path: &Path, file: bool) -> Result<()> {
    let err = |e| sqlite(path, e);
    c.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
    c.pragma_update(None, "foreign_keys", true).map_err(err)?;
    if file {
        let mode: String = c
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "SQLite could not switch the journal to WAL mode (it reports `{mode}`); \
                     is the file on a network filesystem?"
                ),
            });
        }
    }
    // FULL: a commit is on disk before the method returns, even across a power cut.
    c.pragma_update(None, "synchronous", "FULL").map_err(err)?;
    Ok(())
}

/// Starts a write transaction that takes the write lock at once (waiting up to the busy
/// timeout), so a read-then-write never fails with a stale snapshot under concurrency.
pub(super) fn begin(c: &Connection) -> rusqlite::Result<Transaction<'_>> {
    Transaction::new_unchecked(c, TransactionBehavior::Immediate)
}

/// Applies every pending migration in one immediate transaction; refuses newer schemas.
pub(super) fn migrate_with(c: &Connection, path: &Path, migrations: &[Migration]) -> Result<()> {
    let supported = migrations.len() as i64;
    let err = |e| sqlite(path, e);
    let tx = begin(c).map_err(err)?;
    let (version, app_id) = header(&tx).map_err(err)?;
    check_header(path, version, app_id, supported, || has_tables(&tx))?;
    for m in migrations.iter().filter(|m| m.version > version) {
        tx.execute_batch(&m.sql_for(Dialect::Sqlite))
            .map_err(|e| StoreError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "migration to schema version {} ({}) failed, nothing was changed: {e}",
                    m.version, m.summary
                ),
            })?;
        tx.pragma_update(None, "user_version", m.version)
            .map_err(err)?;
    }
    if version < supported || app_id != APPLICATION_ID {
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(err)?;
    }
    tx.commit().map_err(err)
}

/// `(user_version, application_id)`.
pub(super) fn header(c: &Connection) -> rusqlite::Result<(i64, i64)> {
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
pub(super) fn check_header(
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
/// can lag behind commits still in a WAL file; SQLite's own view decides after this.
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

/// `PRAGMA integrity_check`: `"ok"` for a healthy database, else SQLite's findings.
pub(super) fn integrity_check(c: &Connection) -> rusqlite::Result<String> {
    let mut st = c.prepare("PRAGMA integrity_check")?;
    let lines = st
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(lines.join("\n"))
}

/// The database file of a path given as `sqlite:PATH` or plain `PATH`.
pub(super) fn file_of(spec: &str) -> PathBuf {
    PathBuf::from(spec.strip_prefix("sqlite:").unwrap_or(spec))
}
