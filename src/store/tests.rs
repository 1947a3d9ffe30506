use super::schema::{Migration, MIGRATIONS};
use super::*;
use rusqlite::Connection;

fn session(id: &str) -> SessionRef {
    SessionRef {
        session_id: id.into(),
        path: format!("/logs/{id}.jsonl"),
        content_hash: Some(content_hash(id.as_bytes())),
    }
}

impl Store {
    /// The SQLite connection (tests).
    fn with_conn<T>(&self, f: impl FnOnce(&Connection) -> T) -> T {
        match &*self.backend.borrow() {
            Backend::Sqlite { conn, .. } => f(conn),
            Backend::Deferred(_) | Backend::Postgres { .. } => panic!("not SQLite"),
        }
    }
}

fn class(s: &str, claim: &str, turn: u32, q: Quadrant, note: &str, at: i64) -> Classification {
    Classification::new(s, claim, turn, q, note, "ana", Timestamp(at))
}

#[test]
fn classify_round_trip_and_upsert_keeps_history() {
    let st = Store::open_in_memory().unwrap();
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
    let s = session("s1");
    let a = class(
        "s1",
        "clm_a",
        2,
        Quadrant::FactRightSourceWrong,
        "stale",
        1_000,
    );
    st.classify(&s, &a).unwrap();
    assert_eq!(
        st.classification("s1", "clm_a", 2).unwrap(),
        Some(a.clone())
    );
    assert_eq!(st.classification("s1", "clm_a", 1).unwrap(), None);
    assert_eq!(st.classification("s2", "clm_a", 2).unwrap(), None);
    assert_eq!(a.owner, "Agent platform team");

    let b = class(
        "s1",
        "clm_a",
        2,
        Quadrant::FactWrongSourceWrong,
        "worse",
        2_000,
    );
    st.classify(&s, &b).unwrap();
    let c = class("s1", "clm_b", 1, Quadrant::FactRightSourceRight, "", 3_000);
    st.classify(&s, &c).unwrap();
    assert_eq!(
        st.classification("s1", "clm_a", 2).unwrap(),
        Some(b.clone())
    );
    assert_eq!(
        st.classifications("s1").unwrap(),
        vec![c.clone(), b.clone()],
        "turn order"
    );
    assert_eq!(
        st.classification_history("s1", "clm_a", 2).unwrap(),
        vec![a, b]
    );
    let axes: (String, String) = st.with_conn(|c| {
        c.query_row(
            "SELECT fact_verdict, source_verdict FROM classifications WHERE claim_id = 'clm_b'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    });
    assert_eq!(axes, ("right".into(), "right".into()));
}

#[test]
fn classification_under_the_wrong_session_is_refused() {
    let st = Store::open_in_memory().unwrap();
    let c = class("other", "clm_a", 1, Quadrant::FactRightSourceRight, "", 1);
    let e = st.classify(&session("s1"), &c).unwrap_err();
    assert!(matches!(e, StoreError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("`other`"), "{e}");
    assert!(st.classifications("other").unwrap().is_empty());
}

#[test]
fn review_progress_and_cursor() {
    let st = Store::open_in_memory().unwrap();
    assert!(st.reviewed("s1").unwrap().is_empty());
    assert_eq!(st.review_cursor("s1").unwrap(), None);
    st.set_reviewed("s1", "clm_b", 3, true).unwrap();
    st.set_reviewed("s1", "clm_a", 3, true).unwrap();
    st.set_reviewed("s1", "clm_c", 1, true).unwrap();
    st.set_reviewed("s1", "clm_c", 1, false).unwrap();
    st.set_reviewed("s1", "clm_b", 3, true).unwrap();
    assert_eq!(
        st.reviewed("s1").unwrap(),
        vec![("clm_a".to_owned(), 3), ("clm_b".to_owned(), 3)]
    );
    st.set_review_cursor("s1", "clm_a", 3).unwrap();
    st.set_review_cursor("s1", "clm_b", 4).unwrap();
    assert_eq!(
        st.review_cursor("s1").unwrap(),
        Some(("clm_b".to_owned(), 4))
    );
    // The session was recorded without a path; upsert_session names it later.
    assert_eq!(st.session("s1").unwrap().unwrap().path, "");
    st.upsert_session(&session("s1")).unwrap();
    assert_eq!(st.session("s1").unwrap(), Some(session("s1")));
    // An empty path or a missing hash never erases what is known.
    st.upsert_session(&SessionRef {
        session_id: "s1".into(),
        path: String::new(),
        content_hash: None,
    })
    .unwrap();
    assert_eq!(st.session("s1").unwrap(), Some(session("s1")));
}

#[test]
fn claims_texts_are_recorded() {
    let st = Store::open_in_memory().unwrap();
    let s = session("s1");
    st.classify(
        &s,
        &class("s1", "clm_a", 1, Quadrant::FactRightSourceRight, "", 5),
    )
    .unwrap();
    st.upsert_claims(&s, [("clm_a", 1, "Seats cost $19"), ("clm_b", 2, "x")])
        .unwrap();
    let n: i64 = st.with_conn(|c| {
        c.query_row(
            "SELECT count(*) FROM claims WHERE claim_text <> ''",
            [],
            |r| r.get(0),
        )
        .unwrap()
    });
    assert_eq!(n, 2);
}

#[test]
fn history_is_append_only() {
    let st = Store::open_in_memory().unwrap();
    st.classify(
        &session("s1"),
        &class("s1", "clm_a", 1, Quadrant::FactRightSourceRight, "", 5),
    )
    .unwrap();
    let e = st.with_conn(|c| {
        c.execute("UPDATE classification_history SET note = 'x'", [])
            .unwrap_err()
    });
    assert!(e.to_string().contains("append-only"), "{e}");
    let e = st.with_conn(|c| {
        c.execute("DELETE FROM classification_history", [])
            .unwrap_err()
    });
    assert!(e.to_string().contains("append-only"), "{e}");
    // Forgetting a whole session is still possible.
    st.with_conn(|c| {
        c.execute("DELETE FROM sessions WHERE session_id = 's1'", [])
            .unwrap()
    });
    assert!(st.classifications("s1").unwrap().is_empty());
    assert!(st
        .classification_history("s1", "clm_a", 1)
        .unwrap()
        .is_empty());
}

#[test]
fn unknown_quadrant_in_the_file_is_a_clear_error() {
    let st = Store::open_in_memory().unwrap();
    st.classify(
        &session("s1"),
        &class("s1", "clm_a", 1, Quadrant::FactRightSourceRight, "", 5),
    )
    .unwrap();
    // New history rows are checked as the classifications table's rows were.
    let refused = st.with_conn(|c| {
        c.execute(
            "INSERT INTO classification_history (session_id, claim_id, turn, quadrant,
                 fact_verdict, source_verdict, owner, next_action, note, reviewer, at)
             VALUES ('s1', 'clm_a', 1, 'sideways', 'right', 'right', '', '', '', 'ana', 6)",
            [],
        )
    });
    assert!(refused.is_err(), "an unknown quadrant was stored");
    // Written past the checks (as by another program): the history is the current value.
    st.with_conn(|c| {
        c.execute_batch(
            "DROP TRIGGER classification_history_valid;
             INSERT INTO classification_history (session_id, claim_id, turn, quadrant,
                 fact_verdict, source_verdict, owner, next_action, note, reviewer, at)
             VALUES ('s1', 'clm_a', 1, 'sideways', 'right', 'right', '', '', '', 'ana', 6);",
        )
        .unwrap()
    });
    let e = st.classifications("s1").unwrap_err();
    assert!(e.to_string().contains("unknown quadrant `sideways`"), "{e}");
}

#[test]
fn migrations_run_in_order_and_keep_data() {
    const V2: &str = "ALTER TABLE classification_history ADD COLUMN confidence REAL;";
    let st = Store::open_in_memory().unwrap();
    st.classify(
        &session("s1"),
        &class("s1", "clm_a", 1, Quadrant::FactWrongSourceRight, "kept", 5),
    )
    .unwrap();
    let mut next: Vec<Migration> = MIGRATIONS
        .iter()
        .map(|m| Migration {
            version: m.version,
            summary: m.summary,
            sql: m.sql,
            postgres: m.postgres,
        })
        .collect();
    next.push(Migration {
        version: SCHEMA_VERSION + 1,
        summary: "confidence",
        sql: V2,
        postgres: V2,
    });
    st.migrate_with(&next).unwrap();
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION + 1);
    assert_eq!(
        st.classification("s1", "clm_a", 1).unwrap().unwrap().note,
        "kept"
    );
    // Idempotent.
    st.migrate_with(&next).unwrap();
    // And this build's migrations now refuse it.
    let e = st.migrate().unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::NewerSchema { found, supported, .. }
                if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION
        ),
        "{e}"
    );
}

#[test]
fn a_failing_migration_changes_nothing() {
    let st = Store::open_in_memory().unwrap();
    let mut broken: Vec<Migration> = MIGRATIONS
        .iter()
        .map(|m| Migration {
            version: m.version,
            summary: m.summary,
            sql: m.sql,
            postgres: m.postgres,
        })
        .collect();
    broken.push(Migration {
        version: SCHEMA_VERSION + 1,
        summary: "broken",
        sql: "CREATE TABLE extra (x INTEGER); ALTER TABLE nope ADD COLUMN y;",
        postgres: "",
    });
    let e = st.migrate_with(&broken).unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "migration to schema version {}",
            SCHEMA_VERSION + 1
        )),
        "{e}"
    );
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
    let extra: bool = st.with_conn(|c| {
        c.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'extra')",
            [],
            |r| r.get(0),
        )
        .unwrap()
    });
    assert!(!extra);
}

#[test]
fn default_path_ends_in_the_store_file() {
    let p = Store::default_path();
    assert!(
        p.ends_with(DEFAULT_FILE_NAME) || p == Path::new(FALLBACK_PATH),
        "{}",
        p.display()
    );
}

#[test]
fn errors_name_the_database() {
    let e = StoreError::NewerSchema {
        path: "/x/cases.sqlite".into(),
        found: 9,
        supported: 1,
    };
    let m = e.to_string();
    assert!(
        m.contains("/x/cases.sqlite") && m.contains("version 9") && m.contains("up to version 1"),
        "{m}"
    );
    assert_eq!(e.path(), Path::new("/x/cases.sqlite"));
}

#[test]
fn content_hash_is_sha256() {
    assert_eq!(
        content_hash(b""),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn a_v1_database_is_migrated_to_the_current_schema_and_keeps_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.sqlite");
    {
        let conn = Connection::open(&path).unwrap();
        sqlite::migrate_with(&conn, &path, &MIGRATIONS[..1]).unwrap();
        assert_eq!(sqlite::header(&conn).unwrap().0, 1);
        conn.execute_batch(
            "INSERT INTO sessions VALUES ('s1', '/logs/s1.jsonl', NULL, 1, 1);
             INSERT INTO classifications VALUES ('s1', 'clm_a', 1, 'fact_right_source_wrong',
                 'right', 'wrong', 'Agent platform team', 'Re-bind', 'from v1', 'ana', 5);",
        )
        .unwrap();
    }
    let st = Store::open(&path).unwrap();
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(
        st.classification("s1", "clm_a", 1).unwrap().unwrap().note,
        "from v1"
    );
    assert_eq!(st.session("s1").unwrap().unwrap().session_id, "s1");
    assert!(
        st.finding_counts().unwrap().is_empty(),
        "the v2 findings table exists"
    );
}

#[test]
fn import_writes_claims_and_findings_and_replaces_on_reimport() {
    use crate::check::{check_session, Config};
    let st = Store::open_in_memory().unwrap();
    let s = crate::ingest::samples::load_all(&Default::default())
        .into_iter()
        .find(|s| s.name.starts_with("04"))
        .unwrap();
    let r = check_session(&s, &Config::default());
    let sref = SessionRef {
        session_id: r.session_id.clone(),
        path: "04.jsonl".into(),
        content_hash: None,
    };
    let rows = st.import_report(&sref, &r).unwrap();
    assert_eq!(rows, 1 + r.claims.len() + r.findings.len());
    st.import_report(&sref, &r).unwrap();
    let counts = st.finding_counts().unwrap();
    assert_eq!(counts, vec![("stale".to_owned(), 3)]);
}

#[test]
fn identity_includes_the_content_hash() {
    let st = Store::open_in_memory().unwrap();
    let a = SessionRef::with_bytes("s1", "/logs/a.jsonl", b"a");
    let b = SessionRef::with_bytes("s1", "/logs/b.jsonl", b"b");
    let ia = st
        .classify(
            &a,
            &class("s1", "clm", 1, Quadrant::FactRightSourceWrong, "a", 1),
        )
        .unwrap();
    assert_eq!(ia.key, "s1");
    assert_eq!(ia.warning(&a), None);
    let ib = st.identify(&b).unwrap();
    assert_eq!(
        ib.key,
        derived_key("s1", b.content_hash.as_deref().unwrap())
    );
    assert!(!ib.recorded);
    assert_eq!(
        ib.other.as_ref().map(|o| o.path.as_str()),
        Some("/logs/a.jsonl")
    );
    assert!(ib.warning(&b).unwrap().contains("kept apart"));
    let ib2 = st
        .classify(
            &b,
            &class("s1", "clm", 1, Quadrant::FactWrongSourceWrong, "b", 2),
        )
        .unwrap();
    assert_eq!(ib2.key, ib.key);
    assert_eq!(
        st.classification("s1", "clm", 1).unwrap().unwrap().note,
        "a"
    );
    assert_eq!(
        st.classification(&ib.key, "clm", 1).unwrap().unwrap().note,
        "b"
    );
    // The same content found again, even at another path, is the same session.
    let b_moved = SessionRef::with_bytes("s1", "/elsewhere/b.jsonl", b"b");
    let again = st.upsert_session(&b_moved).unwrap();
    assert_eq!((again.key.as_str(), again.other), (ib.key.as_str(), None));
    assert_eq!(st.identities("s1").unwrap().len(), 2);
    // A session first named only by id (review progress) is adopted by the first log.
    st.set_reviewed("s2", "clm", 1, true).unwrap();
    let i2 = st
        .upsert_session(&SessionRef::with_bytes("s2", "/logs/s2.jsonl", b"x"))
        .unwrap();
    assert_eq!((i2.key.as_str(), i2.recorded), ("s2", true));
    // Without a content hash the declared id is the key (the explorer, legacy callers).
    let plain = SessionRef {
        session_id: "s1".into(),
        path: String::new(),
        content_hash: None,
    };
    assert_eq!(st.identify(&plain).unwrap().key, "s1");
}

#[test]
fn deferred_store_reads_empty_then_creates_on_first_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub").join("cases.sqlite");
    let st = Store::open_deferred(&path).unwrap();
    assert!(st.classifications("s1").unwrap().is_empty());
    assert_eq!(st.review_cursor("s1").unwrap(), None);
    assert!(!path.exists() && !st.is_writable());
    st.set_review_cursor("s1", "clm", 2).unwrap();
    assert!(path.is_file() && st.is_writable());
    assert_eq!(st.review_cursor("s1").unwrap(), Some(("clm".into(), 2)));
    drop(st);
    // An existing store opens read-only until the first write.
    let st = Store::open_deferred(&path).unwrap();
    assert!(!st.is_writable());
    assert_eq!(st.review_cursor("s1").unwrap(), Some(("clm".into(), 2)));
    assert!(Store::open_read_only(&dir.path().join("none.sqlite"))
        .unwrap()
        .is_none());
}
