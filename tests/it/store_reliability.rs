//! The case store under stress: SIGKILL mid-write, newer and older schemas, concurrent writers.

use crate::backends::{backends, Db};
use provscope::check::Quadrant;
use provscope::model::Timestamp;
use provscope::store::{Classification, SessionRef, Store, StoreError, SCHEMA_VERSION};
use rand::{Rng, SeedableRng};
use rusqlite::Connection;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn torture(db: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_provscope"));
    c.arg("__store-torture")
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn count(conn: &Connection, sql: &str, p: &str) -> i64 {
    conn.query_row(sql, [p], |r| r.get(0)).unwrap()
}

/// Lines the child finished writing (a line cut by the kill is not a report).
fn reported(out: &str) -> Vec<u64> {
    let complete = match out.rfind('\n') {
        Some(i) => &out[..=i],
        None => "",
    };
    complete
        .lines()
        .map(|l| l.parse().expect("an index per line"))
        .collect()
}

#[test]
fn sigkill_mid_write_loses_nothing_committed() {
    for db in backends("sigkill_mid_write") {
        sigkill_rounds(&db);
    }
}

fn sigkill_rounds(db: &Db) {
    let be = db.name();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(7, |d| d.as_nanos() as u64);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut total_reported = 0usize;
    for round in 0..50 {
        let prefix = format!("k{round}");
        let mut child = torture(&db.path(), &["--count", "1000000", "--prefix", &prefix])
            .spawn()
            .expect("spawn provscope");
        let mut stdout = child.stdout.take().unwrap();
        let (first_tx, first_rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut s = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                let first = !s.contains(&b'\n');
                s.extend_from_slice(&buf[..n]);
                if first && s.contains(&b'\n') {
                    let _ = first_tx.send(());
                }
            }
            String::from_utf8(s).expect("the writer prints indexes")
        });
        // Random points: before the store is open or during migration (the first rounds), then
        // mid-loop: after the first write is reported, however slow the machine is.
        let delay = if round < 5 {
            rng.random_range(0..15)
        } else {
            let _ = first_rx.recv_timeout(Duration::from_secs(30));
            rng.random_range(0..250)
        };
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().expect("SIGKILL");
        let status = child.wait().unwrap();
        let out = reader.join().unwrap();
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        assert!(
            status.code().is_none() || status.success(),
            "{be} round {round} (seed {seed}): the writer failed on its own: {err}"
        );
        let done = reported(&out);
        total_reported += done.len();

        // A plain client (for SQLite, one that recovers the WAL); nothing about provscope is
        // assumed.
        if let Db::Sqlite { .. } = db {
            assert_eq!(db.integrity(), "ok", "{be} round {round} (seed {seed})");
        }
        if !db.has_table("classifications") {
            assert!(
                done.is_empty(),
                "{be} round {round}: reported writes but no schema"
            );
            continue;
        }
        let like = format!("{prefix}\\_%");
        let present: BTreeSet<u64> = db
            .strings(
                "SELECT claim_id FROM classifications WHERE session_id = 'torture'
                 AND claim_id LIKE $1 ESCAPE '\\'",
                &like,
            )
            .iter()
            .map(|id| {
                id[prefix.len() + 1..]
                    .parse::<u64>()
                    .expect("numeric suffix")
            })
            .collect();
        for i in &done {
            assert!(
                present.contains(i),
                "{be} round {round} (seed {seed}): write {i} was reported committed but is missing"
            );
        }
        // Writes are sequential: what is there is a prefix 0..n, at most one past the reports.
        let n = present.len() as u64;
        assert!(
            present.iter().copied().eq(0..n),
            "{be} round {round}: not a prefix"
        );
        assert!(
            n <= done.len() as u64 + 1,
            "{be} round {round}: {n} present"
        );
        // Each write is one transaction: one history row (the current classification) each.
        let history = db.count(
            "SELECT count(*) FROM classification_history WHERE claim_id LIKE $1 ESCAPE '\\'",
            &like,
        );
        assert_eq!(history as u64, n, "{be} round {round}: history out of step");
    }
    assert!(
        total_reported > 50,
        "{be}: the kills should land mid-loop (seed {seed}): only {total_reported} writes reported"
    );
    let st = Store::open(&db.path()).expect("the store opens after 50 kills");
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(st.integrity_check().unwrap(), "ok", "{be}");
}

/// Every file of a directory with its size and SHA-256 (compared, never printed whole).
fn bytes_of_dir(dir: &Path) -> Vec<(String, usize, String)> {
    let mut v: Vec<(String, usize, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let b = std::fs::read(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                b.len(),
                provscope::store::content_hash(&b),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn newer_schema_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    {
        let st = Store::open(&db).unwrap();
        let s = SessionRef {
            session_id: "s".into(),
            path: "s.jsonl".into(),
            content_hash: None,
        };
        let c = Classification::new(
            "s",
            "clm",
            1,
            Quadrant::FactRightSourceWrong,
            "",
            "",
            Timestamp(1),
        );
        st.classify(&s, &c).unwrap();
    }
    {
        let conn = Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 6)
            .unwrap();
    }
    let before = bytes_of_dir(dir.path());
    assert_eq!(before.len(), 1, "only the database file: {before:?}");

    let e = Store::open(&db).unwrap_err();
    match &e {
        StoreError::NewerSchema {
            found, supported, ..
        } => {
            assert_eq!(*found, SCHEMA_VERSION + 6);
            assert_eq!(*supported, SCHEMA_VERSION);
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains(&db.display().to_string())
            && msg.contains("newer provscope")
            && msg.contains("left unchanged"),
        "{msg}"
    );
    assert_eq!(bytes_of_dir(dir.path()), before, "not a byte changed");

    let o = Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(["classifications", "s", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("newer provscope"), "{err}");
    assert_eq!(bytes_of_dir(dir.path()), before, "not a byte changed");
}

/// A newer provscope killed before its WAL was checkpointed: the file's header still says the
/// old version, the WAL says the new one. SQLite's view wins, and the WAL is not folded in.
#[test]
fn newer_schema_still_in_the_wal_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    drop(Store::open(&db).unwrap());
    {
        let conn = Connection::open(&db).unwrap();
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
    }
    let wal = dir.path().join("cases.sqlite-wal");
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "the WAL holds the bump"
    );
    let snapshot = || {
        bytes_of_dir(dir.path())
            .into_iter()
            .filter(|(name, ..)| !name.ends_with("-shm"))
            .collect::<Vec<_>>()
    };
    let before = snapshot();
    let e = Store::open(&db).unwrap_err();
    assert!(
        matches!(e, StoreError::NewerSchema { found, .. } if found == SCHEMA_VERSION + 1),
        "{e}"
    );
    assert_eq!(snapshot(), before, "database and WAL untouched");
}

#[test]
fn older_schema_is_migrated() {
    let dir = tempfile::tempdir().unwrap();

    // An empty file is a version 0 database.
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    let st = Store::open(&empty).unwrap();
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
    drop(st);

    // A version 0 database made by hand, in rollback-journal mode, with our application id.
    let v0 = dir.path().join("v0.sqlite");
    {
        let conn = Connection::open(&v0).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = DELETE;
             PRAGMA application_id = 1347573331;
             PRAGMA user_version = 0;",
        )
        .unwrap();
    }
    let st = Store::open(&v0).unwrap();
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
    let s = SessionRef {
        session_id: "s".into(),
        path: "s.jsonl".into(),
        content_hash: Some("sha256:00".into()),
    };
    let c = Classification::new(
        "s",
        "clm",
        2,
        Quadrant::FactWrongSourceRight,
        "n",
        "r",
        Timestamp(5),
    );
    st.classify(&s, &c).unwrap();
    st.set_reviewed("s", "clm", 2, true).unwrap();
    drop(st);
    let conn = Connection::open(&v0).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    for table in [
        "sessions",
        "claims",
        "classifications",
        "classification_history",
        "review",
        "review_cursors",
        "corrections",
        "runs",
    ] {
        let n = count(
            &conn,
            "SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ?1",
            table,
        );
        assert_eq!(n, 1, "table {table}");
    }
    drop(conn);
    // Reopening keeps everything and migrates nothing again.
    let st = Store::open(&v0).unwrap();
    assert_eq!(st.classification("s", "clm", 2).unwrap(), Some(c));
    assert_eq!(st.reviewed("s").unwrap(), vec![("clm".to_owned(), 2)]);
}

#[test]
fn foreign_files_are_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.sqlite");
    {
        let conn = Connection::open(&other).unwrap();
        conn.execute_batch("CREATE TABLE sessions (x INTEGER); INSERT INTO sessions VALUES (1);")
            .unwrap();
    }
    let foreign_app = dir.path().join("app.sqlite");
    {
        let conn = Connection::open(&foreign_app).unwrap();
        conn.execute_batch("PRAGMA application_id = 42; PRAGMA user_version = 1;")
            .unwrap();
    }
    let text = dir.path().join("log.jsonl");
    std::fs::write(&text, "{\"event\":\"session\"}\n".repeat(50)).unwrap();
    let before = bytes_of_dir(dir.path());
    for (p, why) in [
        (&other, "tables but no provscope schema version"),
        (&foreign_app, "another application"),
        (&text, "not a SQLite database"),
    ] {
        let e = Store::open(p).unwrap_err();
        assert!(matches!(e, StoreError::NotACaseStore { .. }), "{e}");
        let m = e.to_string();
        assert!(
            m.contains(why) && m.contains(&p.display().to_string()),
            "{m}"
        );
    }
    assert_eq!(bytes_of_dir(dir.path()), before);
    let e = Store::open(dir.path()).unwrap_err();
    assert!(e.to_string().contains("is a directory"), "{e}");
}

#[test]
fn two_writer_processes_lose_nothing() {
    for db in backends("two_writer_processes") {
        let be = db.name();
        // Create (and migrate) first when testing PostgreSQL: two clients migrating at once
        // are serialized by an advisory lock, also tested by `eight_writers_…`.
        let a = torture(&db.path(), &["--count", "200", "--prefix", "a"])
            .spawn()
            .unwrap();
        let b = torture(&db.path(), &["--count", "200", "--prefix", "b"])
            .spawn()
            .unwrap();
        for (name, child) in [("a", a), ("b", b)] {
            let o = child.wait_with_output().unwrap();
            assert!(
                o.status.success(),
                "{be} writer {name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(reported(&String::from_utf8_lossy(&o.stdout)).len(), 200);
        }
        let st = Store::open(&db.path()).unwrap();
        let all = st.classifications("torture").unwrap();
        assert_eq!(all.len(), 400, "{be}");
        for p in ["a", "b"] {
            for i in 0..200 {
                let id = format!("{p}_{i}");
                let c = st.classification("torture", &id, 1).unwrap();
                assert_eq!(c.map(|c| c.note), Some(format!("write {i}")), "{be} {id}");
                assert_eq!(
                    st.classification_history("torture", &id, 1).unwrap().len(),
                    1
                );
            }
        }
        assert_eq!(st.integrity_check().unwrap(), "ok");
    }
}

#[test]
fn two_writer_threads_on_one_claim_lose_no_update() {
    for db in backends("two_writer_threads") {
        let be = db.name();
        let path = db.path();
        Store::open(&path).unwrap();
        let s = SessionRef {
            session_id: "s".into(),
            path: "s.jsonl".into(),
            content_hash: None,
        };
        let writers: Vec<_> = ["explorer", "cli"]
            .into_iter()
            .map(|who| {
                let path = path.clone();
                let s = s.clone();
                std::thread::spawn(move || {
                    let st = Store::open(&path).unwrap();
                    for i in 0..200 {
                        let c = Classification::new(
                            "s",
                            "clm_shared",
                            1,
                            Quadrant::FactRightSourceWrong,
                            &format!("{who} {i}"),
                            who,
                            Timestamp(i),
                        );
                        st.classify(&s, &c).unwrap();
                        st.set_reviewed("s", &format!("{who}_{i}"), 1, true)
                            .unwrap();
                        st.set_review_cursor_of(who, "s", &format!("{who}_{i}"), 1)
                            .unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("writer thread");
        }
        let st = Store::open(&path).unwrap();
        let h = st.classification_history("s", "clm_shared", 1).unwrap();
        assert_eq!(h.len(), 400, "{be}");
        for who in ["explorer", "cli"] {
            let notes: Vec<String> = h
                .iter()
                .filter(|c| c.reviewer == who)
                .map(|c| c.note.clone())
                .collect();
            let want: Vec<String> = (0..200).map(|i| format!("{who} {i}")).collect();
            assert_eq!(notes, want, "{be}: {who}'s updates, in order");
            // Each reviewer has a cursor of their own.
            let cursor = st.review_cursor_of(who, "s").unwrap().unwrap();
            assert_eq!(cursor, (format!("{who}_199"), 1), "{be}");
        }
        let current = st.classification("s", "clm_shared", 1).unwrap().unwrap();
        assert_eq!(&current, h.last().unwrap(), "{be}: the last write wins");
        assert_eq!(st.reviewed("s").unwrap().len(), 400);
        // Both reviewers' latest decisions are the same quadrant: no conflict shown.
        assert!(st.conflicts("s").unwrap().is_empty());
    }
}

/// Eight writer processes at once, all on a fresh store (so they also migrate it at once),
/// four of them re-classifying one shared claim: every write is in the history, in each
/// writer's order, and disagreeing reviewers are reported as a conflict.
#[test]
fn eight_concurrent_writers_lose_no_update() {
    for db in backends("eight_concurrent_writers") {
        let be = db.name();
        let children: Vec<_> = (0..8)
            .map(|w| {
                let prefix = format!("w{w}");
                let mut args = vec!["--count", "60", "--prefix"];
                let p = if w < 4 { "shared" } else { prefix.as_str() };
                args.push(p);
                if w < 4 {
                    args.push("--same-claim");
                }
                let mut c = torture(&db.path(), &args);
                c.env("USER", format!("reviewer{w}"));
                c.spawn().unwrap()
            })
            .collect();
        for (w, child) in children.into_iter().enumerate() {
            let o = child.wait_with_output().unwrap();
            assert!(
                o.status.success(),
                "{be} writer {w}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(reported(&String::from_utf8_lossy(&o.stdout)).len(), 60);
        }
        let st = Store::open(&db.path()).unwrap();
        let h = st.classification_history("torture", "shared", 1).unwrap();
        assert_eq!(h.len(), 240, "{be}: 4 x 60 writes on the shared claim");
        assert_eq!(
            st.classification("torture", "shared", 1).unwrap().as_ref(),
            h.last(),
            "{be}: the current classification is the latest write"
        );
        for w in 4..8 {
            for i in 0..60 {
                let id = format!("w{w}_{i}");
                assert!(
                    st.classification("torture", &id, 1).unwrap().is_some(),
                    "{be} {id}"
                );
            }
        }
        assert_eq!(st.classifications("torture").unwrap().len(), 1 + 4 * 60);
        assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
        assert_eq!(st.integrity_check().unwrap(), "ok");
    }
}

/// A real schema-version-2 database (before a session's identity included its content hash)
/// is refused by reading commands, unchanged, then migrated by `db migrate` with its data.
#[test]
fn a_version_2_database_is_migrated_by_db_migrate_and_keeps_its_data() {
    use provscope::store::schema::{Dialect, MIGRATIONS};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v2.sqlite");
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
        for m in &MIGRATIONS[..2] {
            conn.execute_batch(&m.sql_for(Dialect::Sqlite)).unwrap();
        }
        conn.execute_batch(
            "PRAGMA user_version = 2; PRAGMA application_id = 0x50525653;
             INSERT INTO sessions VALUES ('sess_old', '/logs/old.jsonl', 'sha256:00', 1, 2);
             INSERT INTO classifications VALUES ('sess_old', 'clm_a', 1, 'fact_right_source_wrong',
                 'right', 'wrong', 'Agent platform team', 'Re-bind', 'from v2', 'ana', 5);",
        )
        .unwrap();
    }
    let dbs = db.display().to_string();
    let before = std::fs::read(&db).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_provscope"))
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&["classifications", "sess_old", "--db", &dbs]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("schema version 2") && e.contains("db migrate"),
        "{e}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "left unchanged");
    let o = run(&["db", "status", "--db", &dbs]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("schema version 2"));

    let o = run(&["db", "migrate", "--db", &dbs]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!(
            "migrated from schema version 2 to {SCHEMA_VERSION}"
        )),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = run(&[
        "classifications",
        "sess_old",
        "--format",
        "json",
        "--db",
        &dbs,
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["classifications"][0]["note"], "from v2");
    assert_eq!(j["session"]["session_id"], "sess_old");
    let conn = Connection::open(&db).unwrap();
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM sessions WHERE declared_id = ?1",
            "sess_old"
        ),
        1
    );
    let o = run(&["db", "migrate", "--db", &dbs]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("up to date"));
}

/// PostgreSQL: a connection the server drops between writes is replaced and the write goes
/// through; a server that cannot be reached fails loudly, naming the (redacted) database.
#[test]
fn postgres_connection_loss_is_retried_and_an_unreachable_server_fails_loudly() {
    let Some(url) = crate::backends::pg_db("connection_loss") else {
        return;
    };
    let st = Store::open(Path::new(&url)).unwrap();
    let s = SessionRef {
        session_id: "s".into(),
        path: "s.jsonl".into(),
        content_hash: None,
    };
    let c = |i: i64| {
        Classification::new(
            "s",
            "clm",
            1,
            Quadrant::FactRightSourceWrong,
            &format!("n{i}"),
            "ana",
            Timestamp(i),
        )
    };
    st.classify(&s, &c(1)).unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let dbname = url
        .rsplit('/')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_owned();
    let killed: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = $1 AND pid <> pg_backend_pid()",
            &[&dbname],
        )
        .unwrap()
        .get(0);
    assert!(killed >= 1, "provscope's connection was terminated");
    // pg_terminate_backend only signals: wait until the backend is gone.
    for _ in 0..100 {
        let left: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                &[&dbname],
            )
            .unwrap()
            .get(0);
        if left == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if let Err(e) = st.classify(&s, &c(2)) {
        panic!("retried on a new connection: {e}");
    }
    let h = st.classification_history("s", "clm", 1).unwrap();
    assert_eq!(
        h.iter().map(|c| c.note.as_str()).collect::<Vec<_>>(),
        ["n1", "n2"],
        "written exactly once"
    );

    // Nothing listens on port 1.
    let bad = crate::backends::with_dbname("postgres://ana:sekrit@127.0.0.1:1/x", "cases");
    let e = Store::open(Path::new(&bad)).unwrap_err().to_string();
    assert!(
        e.contains("cannot reach the case store postgres://ana:***@127.0.0.1:1/cases"),
        "{e}"
    );
    assert!(!e.contains("sekrit"), "{e}");
    let o = Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args([
            "classify",
            "sample-sessions/04-stale-cache.jsonl",
            "clm_seat_price",
            "-q",
            "rw",
            "--db",
            &bad,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("ana:***@") && !e.contains("sekrit"), "{e}");
}

/// A database with other tables and no provscope_meta is refused and left alone; a newer
/// schema version in provscope_meta is refused.
#[test]
fn postgres_foreign_and_newer_databases_are_refused() {
    let Some(url) = crate::backends::pg_db("pg_foreign") else {
        return;
    };
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin.batch_execute("CREATE TABLE orders (id int)").unwrap();
    let e = Store::open(Path::new(&url)).unwrap_err().to_string();
    assert!(
        e.contains("is not a provscope case store") && e.contains("provscope_meta"),
        "{e}"
    );
    assert!(Store::open_read_only(Path::new(&url)).is_err());
    admin.batch_execute("DROP TABLE orders").unwrap();
    // Empty: reading finds no store and creates nothing.
    assert!(Store::open_read_only(Path::new(&url)).unwrap().is_none());
    let n: i64 = admin
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 0, "a reading command created nothing");
    drop(Store::open(Path::new(&url)).unwrap());
    admin
        .batch_execute("UPDATE provscope_meta SET value = value + 5 WHERE key = 'schema_version'")
        .unwrap();
    let e = Store::open(Path::new(&url)).unwrap_err();
    assert!(matches!(e, StoreError::NewerSchema { .. }), "{e}");
}

/// PostgreSQL checks `claims`' session once per statement (schema version 5) with a foreign
/// key's guarantees: no claim statement without its session, by insert, bulk insert, update,
/// key change, delete (cascaded, also when the delete waited for an insert to commit),
/// truncate, or an insert racing a delete.
#[test]
fn postgres_claims_never_lose_their_session() {
    let Some(url) = crate::backends::pg_db("pg_claim_key") else {
        return;
    };
    drop(Store::open(Path::new(&url)).unwrap());
    let connect = || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        c.batch_execute("SET lock_timeout = '30s'").unwrap();
        c
    };
    let mut a = connect();
    let refused = |r: Result<u64, postgres::Error>| {
        let e = r.expect_err("an orphan claim statement was accepted");
        assert_eq!(
            e.code(),
            Some(&postgres::error::SqlState::FOREIGN_KEY_VIOLATION),
            "{e:?}"
        );
    };
    let claims = |c: &mut postgres::Client, s: &str| -> i64 {
        c.query_one("SELECT count(*) FROM claims WHERE session_id = $1", &[&s])
            .unwrap()
            .get(0)
    };
    for s in ["s1", "s2", "s3", "s4"] {
        a.execute(
            "INSERT INTO sessions (session_id, declared_id, path, first_seen, last_seen)
             VALUES ($1, $1, '', 0, 0)",
            &[&s],
        )
        .unwrap();
    }
    a.execute(
        "INSERT INTO claims (session_id, claim_id, turn) VALUES ('s1', 'c1', 1), ('s1', 'c2', 1)",
        &[],
    )
    .unwrap();
    refused(a.execute(
        "INSERT INTO claims (session_id, claim_id, turn) VALUES ('none', 'c1', 1)",
        &[],
    ));
    // One missing session among many rows refuses the whole statement.
    refused(a.execute(
        "INSERT INTO claims (session_id, claim_id, turn)
         SELECT CASE WHEN i = 500 THEN 'none' ELSE 's2' END, 'c' || i, 1
         FROM generate_series(1, 1000) AS i",
        &[],
    ));
    assert_eq!(claims(&mut a, "s2"), 0);
    refused(a.execute(
        "UPDATE claims SET session_id = 'none' WHERE claim_id = 'c1'",
        &[],
    ));
    refused(a.execute(
        "UPDATE sessions SET session_id = 's9' WHERE session_id = 's1'",
        &[],
    ));
    // The store's own writes go in.
    let st = Store::open(Path::new(&url)).unwrap();
    let r = SessionRef {
        session_id: "bulk".into(),
        path: "bulk.jsonl".into(),
        content_hash: None,
    };
    st.upsert_claims(&r, [("c1", 1, "one"), ("c2", 2, "two")])
        .unwrap();
    assert_eq!(claims(&mut a, "bulk"), 2);

    // Deleting a session deletes its claim statements; not outside READ COMMITTED.
    let mut rr = a
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .start()
        .unwrap();
    assert!(rr
        .execute("DELETE FROM sessions WHERE session_id = 's1'", &[])
        .is_err());
    drop(rr);
    a.execute("DELETE FROM sessions WHERE session_id = 's1'", &[])
        .unwrap();
    assert_eq!(claims(&mut a, "s1"), 0);

    // An insert holds its session: a delete started meanwhile waits, then deletes the
    // committed claim statements too.
    let mut tx = a.transaction().unwrap();
    tx.execute(
        "INSERT INTO claims (session_id, claim_id, turn) VALUES ('s2', 'c1', 1)",
        &[],
    )
    .unwrap();
    let deleter = {
        let mut b = connect();
        std::thread::spawn(move || b.execute("DELETE FROM sessions WHERE session_id = 's2'", &[]))
    };
    wait_for_lock_waiter(&url);
    tx.commit().unwrap();
    assert_eq!(deleter.join().unwrap().unwrap(), 1);
    assert_eq!(
        claims(&mut a, "s2"),
        0,
        "a claim statement outlived its session"
    );

    // A delete in progress: an insert waits for it, then is refused.
    let mut b = connect();
    let mut del = b.transaction().unwrap();
    del.execute("DELETE FROM sessions WHERE session_id = 's3'", &[])
        .unwrap();
    let inserter = {
        let mut c = connect();
        std::thread::spawn(move || {
            c.execute(
                "INSERT INTO claims (session_id, claim_id, turn) VALUES ('s3', 'c1', 1)",
                &[],
            )
        })
    };
    wait_for_lock_waiter(&url);
    del.commit().unwrap();
    refused(inserter.join().unwrap());
    assert_eq!(claims(&mut a, "s3"), 0);

    // Truncating sessions truncates claims.
    a.batch_execute("TRUNCATE sessions CASCADE").unwrap();
    let left: i64 = a
        .query_one("SELECT count(*) FROM claims", &[])
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
}

/// Waits (up to 20 s) until some backend of the database at `url` waits for a lock.
fn wait_for_lock_waiter(url: &str) {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    for _ in 0..400 {
        let n: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND wait_event_type = 'Lock'",
                &[],
            )
            .unwrap()
            .get(0);
        if n > 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no statement waited for a lock within 20 s");
}

/// A session row is refreshed only when a write brings a new path or content hash, or its
/// `last_seen` is over a minute old: other writes never lock it, on either backend.
#[test]
fn a_session_row_is_refreshed_only_when_something_changed_or_a_minute_passed() {
    for db in backends("session_refresh") {
        let be = db.name();
        let st = Store::open(&db.path()).unwrap();
        let row = || {
            db.strings(
            "SELECT path || ' ' || coalesce(content_hash, '-') || ' ' || last_seen FROM sessions
             WHERE session_id = $1",
            "s",
        )
        };
        let split = |v: Vec<String>| -> (String, String, i64) {
            let mut it = v[0].split(' ');
            let (p, h, l) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            (p.to_owned(), h.to_owned(), l.parse().unwrap())
        };
        let with = |path: &str, hash: Option<&str>| SessionRef {
            session_id: "s".into(),
            path: path.into(),
            content_hash: hash.map(str::to_owned),
        };
        let c = |i: i64| {
            Classification::new(
                "s",
                "clm",
                1,
                Quadrant::FactRightSourceRight,
                "",
                "ana",
                Timestamp(i),
            )
        };
        st.classify(&with("a.jsonl", None), &c(1)).unwrap();
        let (p, h, first) = split(row());
        assert_eq!((p.as_str(), h.as_str()), ("a.jsonl", "-"), "{be}");
        // Backdated by 30 s: a write within the minute leaves the row alone.
        set_last_seen(&db, first - 30_000);
        st.classify(&with("a.jsonl", None), &c(2)).unwrap();
        st.classify(&with("", None), &c(3)).unwrap();
        assert_eq!(
            split(row()).2,
            first - 30_000,
            "{be}: refreshed within the minute"
        );
        // A new path is recorded at once, and so is a content hash.
        st.classify(&with("b.jsonl", None), &c(4)).unwrap();
        let (p, _, seen) = split(row());
        assert!(p == "b.jsonl" && seen >= first, "{be}: {p} {seen}");
        st.upsert_session(&with("b.jsonl", Some("sha256:00")))
            .unwrap();
        assert_eq!(split(row()).1, "sha256:00", "{be}");
        // Over a minute old: refreshed by the next write.
        set_last_seen(&db, first - 61_000);
        st.classify(&with("b.jsonl", None), &c(5)).unwrap();
        let (p, h, seen) = split(row());
        assert!(seen >= first, "{be}: last_seen {seen} not refreshed");
        assert_eq!((p.as_str(), h.as_str()), ("b.jsonl", "sha256:00"), "{be}");
        assert_eq!(st.classification_history("s", "clm", 1).unwrap().len(), 5);
    }
}

fn set_last_seen(db: &Db, at: i64) {
    match db {
        Db::Sqlite { path, .. } => {
            let conn = Connection::open(path).unwrap();
            conn.execute("UPDATE sessions SET last_seen = ?1", [at])
                .unwrap();
        }
        Db::Pg(url) => {
            let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
            c.execute("UPDATE sessions SET last_seen = $1", &[&at])
                .unwrap();
        }
    }
}

/// On PostgreSQL a classification does not wait for another writer holding the session's row
/// (as a refresh of it does until its commit is flushed), nor, once its log is recorded with its
/// content hash, for another writer deciding the identity of a log declaring the same id:
/// reviewers of one session do not queue behind each other, with or without a content hash.
#[test]
fn postgres_classifications_do_not_queue_behind_the_session_row() {
    let Some(url) = crate::backends::pg_db("pg_no_session_queue") else {
        return;
    };
    let st = Store::open(Path::new(&url)).unwrap();
    let hashed = SessionRef {
        session_id: "s".into(),
        path: "s.jsonl".into(),
        content_hash: Some("sha256:01".into()),
    };
    let bare = SessionRef {
        content_hash: None,
        ..hashed.clone()
    };
    let c = |claim: &str| {
        Classification::new(
            "s",
            claim,
            1,
            Quadrant::FactRightSourceWrong,
            "",
            "ana",
            Timestamp(1),
        )
    };
    st.classify(&hashed, &c("first")).unwrap();
    let mut holder = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut tx = holder.transaction().unwrap();
    tx.execute(
        "SELECT 1 FROM sessions WHERE session_id = 's' FOR NO KEY UPDATE",
        &[],
    )
    .unwrap();
    // What a writer deciding the identity of a new log declaring `s` holds.
    tx.execute("SELECT pg_advisory_xact_lock(hashtext('s'))", &[])
        .unwrap();
    let (done, rx) = std::sync::mpsc::channel();
    let writer = {
        let url = url.clone();
        std::thread::spawn(move || {
            let st = Store::open(Path::new(&url)).unwrap();
            for (i, s) in [bare, hashed].iter().enumerate() {
                st.classify(s, &c(&format!("other{i}"))).unwrap();
            }
            done.send(()).unwrap();
        })
    };
    let waited = rx.recv_timeout(Duration::from_secs(20));
    tx.rollback().unwrap();
    writer.join().unwrap();
    assert!(
        waited.is_ok(),
        "a classification waited for the session row held by another transaction"
    );
    assert_eq!(st.classifications("s").unwrap().len(), 3);
}

/// On PostgreSQL a connection lost in the middle of a write (before its commit) rolls the write
/// back and it is tried again on a new connection: applied exactly once.
#[test]
fn postgres_a_connection_lost_during_a_write_is_retried_and_applied_once() {
    let Some(url) = crate::backends::pg_db("pg_lost_mid_write") else {
        return;
    };
    let st = Store::open(Path::new(&url)).unwrap();
    let s = SessionRef {
        session_id: "s".into(),
        path: "s.jsonl".into(),
        content_hash: None,
    };
    let c = |note: &str| {
        Classification::new(
            "s",
            "clm",
            1,
            Quadrant::FactRightSourceWrong,
            note,
            "ana",
            Timestamp(1),
        )
    };
    st.classify(&s, &c("one")).unwrap();
    let mut holder = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut tx = holder.transaction().unwrap();
    // A classification only appends: a lock on the whole history makes it wait.
    tx.batch_execute("LOCK TABLE classification_history IN SHARE MODE")
        .unwrap();
    let writer = {
        let (url, s, two) = (url.clone(), s.clone(), c("two"));
        std::thread::spawn(move || {
            let st = Store::open(Path::new(&url)).unwrap();
            st.classify(&s, &two).map_err(|e| e.to_string())
        })
    };
    // The write waits for the table lock; its connection is terminated meanwhile.
    wait_for_lock_waiter(&url);
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
            &[],
        )
        .unwrap();
    tx.rollback().unwrap();
    if let Err(e) = writer.join().unwrap() {
        panic!("retried on a new connection: {e}");
    }
    st.classify(&s, &c("three")).unwrap();
    let notes: Vec<String> = st
        .classification_history("s", "clm", 1)
        .unwrap()
        .into_iter()
        .map(|c| c.note)
        .collect();
    assert_eq!(
        notes,
        ["one", "two", "three"],
        "the lost write applied once"
    );
}

/// A schema-version-5 store, on each backend, whose current classifications are not all its
/// claim statements' latest history rows (two version 5 writers on PostgreSQL could commit their
/// history rows in the other order; a row written by hand has no history): migrated to the
/// append-only schema, every reader sees the same current classifications as before, the
/// history keeps every decision, and `db copy` moves the result to the other backend unchanged.
#[test]
fn a_version_5_store_is_migrated_keeping_its_current_classifications() {
    use provscope::store::schema::{Dialect, APPLICATION_ID, MIGRATIONS};
    const DATA: &str = "
        INSERT INTO sessions (session_id, declared_id, path, content_hash, first_seen, last_seen)
            VALUES ('s5', 's5', '/logs/s5.jsonl', NULL, 1, 1);
        INSERT INTO claims (session_id, claim_id, turn) VALUES
            ('s5', 'clm_a', 1), ('s5', 'clm_b', 2), ('s5', 'clm_c', 3);
        INSERT INTO classification_history (session_id, claim_id, turn, quadrant, fact_verdict,
            source_verdict, owner, next_action, note, reviewer, at) VALUES
            ('s5', 'clm_a', 1, 'fact_right_source_wrong', 'right', 'wrong', 'o', 'n', 'a1', 'ana', 10),
            ('s5', 'clm_a', 1, 'fact_wrong_source_right', 'wrong', 'right', 'o', 'n', 'a2', 'bob', 20),
            ('s5', 'clm_b', 2, 'fact_right_source_right', 'right', 'right', 'o', 'n', 'b1', 'ana', 30),
            ('s5', 'clm_b', 2, 'fact_wrong_source_wrong', 'wrong', 'wrong', 'o', 'n', 'b2', 'bob', 31);
        INSERT INTO classifications (session_id, claim_id, turn, quadrant, fact_verdict,
            source_verdict, owner, next_action, note, reviewer, at) VALUES
            ('s5', 'clm_a', 1, 'fact_wrong_source_right', 'wrong', 'right', 'o', 'n', 'a2', 'bob', 20),
            ('s5', 'clm_b', 2, 'fact_right_source_right', 'right', 'right', 'o', 'n', 'b1', 'ana', 30),
            ('s5', 'clm_c', 3, 'fact_right_source_right', 'right', 'right', 'o', 'n', 'c only', 'carol', 40);";
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_provscope"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let notes = |v: Vec<Classification>| v.into_iter().map(|c| c.note).collect::<Vec<_>>();
    let dbs = backends("v5_migrated");
    let mut listed: Vec<serde_json::Value> = Vec::new();
    for db in &dbs {
        let be = db.name();
        match db {
            Db::Sqlite { path, .. } => {
                let conn = Connection::open(path).unwrap();
                conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
                for m in &MIGRATIONS[..5] {
                    conn.execute_batch(&m.sql_for(Dialect::Sqlite)).unwrap();
                }
                conn.execute_batch(&format!(
                    "PRAGMA user_version = 5; PRAGMA application_id = {APPLICATION_ID}; {DATA}"
                ))
                .unwrap();
            }
            Db::Pg(url) => {
                let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
                for m in &MIGRATIONS[..5] {
                    c.batch_execute(&m.sql_for(Dialect::Postgres)).unwrap();
                }
                c.batch_execute(&format!(
                    "CREATE TABLE provscope_meta (key TEXT PRIMARY KEY NOT NULL, value BIGINT NOT NULL);
                     INSERT INTO provscope_meta VALUES ('schema_version', 5),
                         ('application_id', {APPLICATION_ID});
                     {DATA}"
                ))
                .unwrap();
            }
        }
        let out = run(&["db", "migrate", "--db", &db.arg()]);
        assert!(
            out.contains(&format!(
                "migrated from schema version 5 to {SCHEMA_VERSION}"
            )),
            "{be}: {out}"
        );
        let st = Store::open(&db.path()).unwrap();
        assert_eq!(
            notes(st.classifications("s5").unwrap()),
            ["a2", "b1", "c only"],
            "{be}: the current classifications of version 5"
        );
        let b = st.classification("s5", "clm_b", 2).unwrap().unwrap();
        assert_eq!(
            (b.reviewer.as_str(), b.quadrant),
            ("ana", Quadrant::FactRightSourceRight)
        );
        assert_eq!(
            notes(st.classification_history("s5", "clm_a", 1).unwrap()),
            ["a1", "a2"],
            "{be}: a current row that was the latest history row is not repeated"
        );
        assert_eq!(
            notes(st.classification_history("s5", "clm_b", 2).unwrap()),
            ["b1", "b2", "b1"],
            "{be}: the current decision is now the latest"
        );
        assert_eq!(
            notes(st.classification_history("s5", "clm_c", 3).unwrap()),
            ["c only"],
            "{be}"
        );
        // Every disagreement is still shown, the current decision last.
        let conflicts = st.conflicts("s5").unwrap();
        let shown: Vec<(String, Vec<String>)> = conflicts
            .iter()
            .map(|c| {
                (
                    c.claim_id.clone(),
                    c.decisions.iter().map(|d| d.reviewer.clone()).collect(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("clm_a".to_owned(), vec!["ana".to_owned(), "bob".to_owned()]),
                ("clm_b".to_owned(), vec!["bob".to_owned(), "ana".to_owned()])
            ],
            "{be}"
        );
        assert_eq!(st.integrity_check().unwrap(), "ok", "{be}");
        // Written after the migration: the latest decision is the current one.
        let s = SessionRef {
            session_id: "s5".into(),
            path: String::new(),
            content_hash: None,
        };
        let c = Classification::new(
            "s5",
            "clm_b",
            2,
            Quadrant::FactWrongSourceRight,
            "b3",
            "carol",
            Timestamp(50),
        );
        st.classify(&s, &c).unwrap();
        assert_eq!(st.classification("s5", "clm_b", 2).unwrap(), Some(c));
        let j: serde_json::Value = serde_json::from_str(&run(&[
            "classifications",
            "s5",
            "--format",
            "json",
            "--db",
            &db.arg(),
        ]))
        .unwrap();
        listed.push(j);
    }
    // `db copy` to the other backend: the same current classifications and conflicts.
    if let [sqlite, pg] = &dbs[..] {
        for (from, to, j) in [(sqlite, pg, &listed[0]), (pg, sqlite, &listed[1])] {
            let dir = tempfile::tempdir().unwrap();
            let to = match to {
                Db::Sqlite { .. } => dir.path().join("copy.sqlite").display().to_string(),
                Db::Pg(_) => crate::backends::pg_db("v5_migrated_copy").unwrap(),
            };
            run(&["db", "copy", "--from", &from.arg(), "--to", &to]);
            let c: serde_json::Value = serde_json::from_str(&run(&[
                "classifications",
                "s5",
                "--format",
                "json",
                "--db",
                &to,
            ]))
            .unwrap();
            assert_eq!(
                c["classifications"],
                j["classifications"],
                "{}",
                from.name()
            );
            assert_eq!(c["conflicts"], j["conflicts"], "{}", from.name());
            assert_eq!(j["conflicts"].as_array().unwrap().len(), 2);
        }
    }
}
