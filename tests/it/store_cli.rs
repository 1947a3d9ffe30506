//! `provscope classify` and `provscope classifications` as processes, against the case store.

use provscope::check::Quadrant;
use provscope::store::Store;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn provscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("USER", "tester")
        .output()
        .expect("run provscope")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A copy of a bundled sample in a fresh directory, and a database path beside it.
fn setup(sample: &str) -> (tempfile::TempDir, String, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-sessions")
        .join(sample);
    let log = dir.path().join(sample);
    std::fs::copy(&src, &log).unwrap();
    let db = dir.path().join("state").join("cases.sqlite");
    (dir, log.display().to_string(), db)
}

const STALE_ID: &str = "sess_2026-10-06_1d8c33f0";

#[test]
fn classify_then_read_back() {
    let (_dir, log, db) = setup("04-stale-cache.jsonl");
    let dbs = db.to_str().unwrap();
    let o = provscope(&[
        "classify",
        &log,
        "clm_seat_price",
        "--quadrant",
        "rw",
        "--note",
        "cached price past its TTL",
        "--db",
        dbs,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains("clm_seat_price (turn 3)") && text.contains("fact_right_source_wrong"),
        "the last turn stating the claim by default: {text}"
    );
    assert!(text.contains("Agent platform team"), "{text}");
    assert!(db.is_file(), "the database and its directory are created");

    // The library sees exactly what the CLI wrote (the explorer reads the same rows).
    let st = Store::open(&db).unwrap();
    let c = st
        .classification(STALE_ID, "clm_seat_price", 3)
        .unwrap()
        .expect("stored");
    assert_eq!(c.quadrant, Quadrant::FactRightSourceWrong);
    assert_eq!(c.owner, Quadrant::FactRightSourceWrong.owner());
    assert_eq!(c.next_action, Quadrant::FactRightSourceWrong.next_action());
    assert_eq!(c.note, "cached price past its TTL");
    assert_eq!(c.reviewer, "tester");
    let s = st.session(STALE_ID).unwrap().expect("session recorded");
    assert!(s.path.ends_with("04-stale-cache.jsonl"), "{}", s.path);
    let bytes = std::fs::read(&log).unwrap();
    assert_eq!(s.content_hash, Some(provscope::store::content_hash(&bytes)));
    drop(st);

    // An explicit turn, the long quadrant name, --db before the command, a reviewer.
    let o = provscope(&[
        "--db",
        dbs,
        "classify",
        &log,
        "clm_seat_price",
        "--turn",
        "1",
        "--quadrant",
        "fact_right_source_right",
        "--reviewer",
        "ana",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // Re-classifying keeps the history.
    let o = provscope(&["classify", &log, "clm_seat_price", "-q", "ww", "--db", dbs]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let st = Store::open(&db).unwrap();
    let h = st
        .classification_history(STALE_ID, "clm_seat_price", 3)
        .unwrap();
    assert_eq!(
        h.iter().map(|c| c.quadrant).collect::<Vec<_>>(),
        vec![
            Quadrant::FactRightSourceWrong,
            Quadrant::FactWrongSourceWrong
        ]
    );
    st.set_reviewed(STALE_ID, "clm_seat_price", 1, true)
        .unwrap();
    drop(st);

    let o = provscope(&["classifications", &log, "--db", dbs]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains("2 classifications"), "{text}");
    let t1 = text.find("turn 1  clm_seat_price  fact_right_source_right  reviewed");
    let t3 = text.find("turn 3  clm_seat_price  fact_wrong_source_wrong");
    assert!(t1.is_some() && t3.is_some() && t1 < t3, "{text}");
    assert!(text.contains("decided      ana at"), "{text}");

    // By session id, as JSON.
    let o = provscope(&["classifications", STALE_ID, "--format", "json", "--db", dbs]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema"], "provscope.classifications/1");
    assert_eq!(v["session"]["session_id"], STALE_ID);
    let cs = v["classifications"].as_array().unwrap();
    assert_eq!(cs.len(), 2);
    assert_eq!(cs[0]["turn"], 1);
    assert_eq!(cs[0]["quadrant"], "fact_right_source_right");
    assert_eq!(cs[0]["reviewed"], true);
    assert_eq!(cs[0]["fact_verdict"], "right");
    assert_eq!(cs[1]["quadrant"], "fact_wrong_source_wrong");
    assert_eq!(cs[1]["source_verdict"], "wrong");
    assert_eq!(cs[1]["owner"], "Whoever granted server access");
    assert_eq!(cs[1]["reviewed"], false);
    assert!(cs[1]["at"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn hand_classification_against_the_checks_is_noted() {
    let (_dir, log, db) = setup("04-stale-cache.jsonl");
    let o = provscope(&[
        "classify",
        &log,
        "clm_seat_price",
        "-q",
        "rr",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        err(&o).contains("the checks judge the source wrong (findings: stale)"),
        "{}",
        err(&o)
    );
}

#[test]
fn clear_errors_and_exit_2() {
    let (dir, log, db) = setup("04-stale-cache.jsonl");
    let dbs = db.to_str().unwrap();

    let o = provscope(&["classify", &log, "clm_nope", "-q", "rw", "--db", dbs]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("no claim `clm_nope` in") && err(&o).contains("clm_seat_price"),
        "{}",
        err(&o)
    );

    let o = provscope(&[
        "classify",
        &log,
        "clm_seat_price",
        "-q",
        "sideways",
        "--db",
        dbs,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("unknown quadrant `sideways`") && err(&o).contains("rr, rw, wr or ww"),
        "{}",
        err(&o)
    );

    let o = provscope(&[
        "classify",
        &log,
        "clm_seat_price",
        "-q",
        "rw",
        "--turn",
        "2",
        "--db",
        dbs,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("is not stated in turn 2") && err(&o).contains("turns 1, 3"),
        "{}",
        err(&o)
    );

    let missing = dir.path().join("missing.jsonl");
    let o = provscope(&[
        "classify",
        missing.to_str().unwrap(),
        "clm_seat_price",
        "-q",
        "rw",
        "--db",
        dbs,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("cannot read the session log"),
        "{}",
        err(&o)
    );
    assert!(!db.exists(), "nothing written on errors");

    // A --db that is not a case store: refused, left unchanged.
    let before = std::fs::read(&log).unwrap();
    let o = provscope(&["classify", &log, "clm_seat_price", "-q", "rw", "--db", &log]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("is not a provscope case store (it is not a SQLite database)"),
        "{}",
        err(&o)
    );
    assert_eq!(std::fs::read(&log).unwrap(), before);

    // A --db in a place that cannot be created.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    let under = blocker.join("cases.sqlite");
    let o = provscope(&[
        "classify",
        &log,
        "clm_seat_price",
        "-q",
        "rw",
        "--db",
        under.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("cannot create the directory for the case store"),
        "{}",
        err(&o)
    );

    // Reading: unknown session ids, and never creating the database.
    let o = provscope(&["classifications", "no-such-session", "--db", dbs]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("neither a session log nor a session id"),
        "{}",
        err(&o)
    );
    let o = provscope(&["classifications", &log, "--db", dbs]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).contains("0 classifications"), "{}", out(&o));
    assert!(!db.exists(), "reading does not create the database");
}

#[test]
fn torture_writer_is_hidden_and_prints_committed_indexes() {
    let o = provscope(&["--help"]);
    assert!(!out(&o).contains("torture"), "{}", out(&o));
    assert!(
        out(&o).contains("classify") && out(&o).contains("classifications"),
        "{}",
        out(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.sqlite");
    let o = provscope(&[
        "__store-torture",
        "--db",
        db.to_str().unwrap(),
        "--count",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o), "0\n1\n2\n3\n4\n");
    let st = Store::open(&db).unwrap();
    assert_eq!(st.classifications("torture").unwrap().len(), 5);
}

/// Issue 10 item 7: a session's identity includes its content hash.
#[test]
fn another_log_declaring_the_same_session_id_gets_its_own_records_and_a_warning() {
    let (dir, a, db) = setup("04-stale-cache.jsonl");
    let dbs = db.to_str().unwrap();
    // Same session id, different bytes (a trailing blank line is still a valid log).
    let b = dir.path().join("copy.jsonl");
    let mut bytes = std::fs::read(&a).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(&b, &bytes).unwrap();
    let b = b.display().to_string();

    let o = provscope(&[
        "classify",
        &a,
        "clm_seat_price",
        "-q",
        "rw",
        "--note",
        "note of a",
        "--db",
        dbs,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!err(&o).contains("warning"), "{}", err(&o));
    let o = provscope(&[
        "classify",
        &b,
        "clm_seat_price",
        "-q",
        "ww",
        "--note",
        "note of b",
        "--db",
        dbs,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let e = err(&o);
    assert!(
        e.contains("warning") && e.contains("different content") && e.contains("kept apart"),
        "{e}"
    );

    let read = |log: &str| -> serde_json::Value {
        let o = provscope(&["classifications", log, "--format", "json", "--db", dbs]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        serde_json::from_str(&out(&o)).unwrap()
    };
    let ja = read(&a);
    let jb = read(&b);
    let one = |j: &serde_json::Value| {
        let cs = j["classifications"].as_array().unwrap();
        assert_eq!(cs.len(), 1, "{j}");
        (
            cs[0]["quadrant"].as_str().unwrap().to_owned(),
            cs[0]["note"].as_str().unwrap().to_owned(),
        )
    };
    assert_eq!(
        one(&ja),
        ("fact_right_source_wrong".into(), "note of a".into()),
        "the first log keeps its classification and note"
    );
    assert_eq!(
        one(&jb),
        ("fact_wrong_source_wrong".into(), "note of b".into())
    );
    assert_eq!(ja["key"], STALE_ID);
    let kb = jb["key"].as_str().unwrap();
    assert!(kb.starts_with(&format!("{STALE_ID}@sha256:")), "{kb}");
    assert_eq!(jb["session"]["session_id"], STALE_ID);
    // History is per identity too: a's claim was classified once.
    let st = Store::open(&db).unwrap();
    assert_eq!(
        st.classification_history(STALE_ID, "clm_seat_price", 3)
            .unwrap()
            .len(),
        1
    );
    // Classifying the first log again still goes to its own records, without a warning.
    drop(st);
    let o = provscope(&["classify", &a, "clm_seat_price", "-q", "rr", "--db", dbs]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!err(&o).contains("warning"), "{}", err(&o));
    assert_eq!(one(&read(&a)).0, "fact_right_source_right");
    assert_eq!(one(&read(&b)).0, "fact_wrong_source_wrong");
}

/// `--db` must be a regular file (or missing): devices, FIFOs and directories are refused.
#[test]
fn dev_null_and_other_non_regular_paths_are_refused() {
    let (dir, log, _) = setup("04-stale-cache.jsonl");
    let journal_before = Path::new("/dev/null-journal").exists();
    let fifo = dir.path().join("fifo.sqlite");
    let made_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut targets = vec![
        ("/dev/null".to_owned(), "character device"),
        (dir.path().display().to_string(), "directory"),
    ];
    if made_fifo {
        targets.push((fifo.display().to_string(), "FIFO"));
    }
    for (db, kind) in &targets {
        let runs: Vec<Vec<&str>> = vec![
            vec!["classify", &log, "clm_seat_price", "-q", "rw", "--db", db],
            vec!["classifications", &log, "--db", db],
            vec!["trend", "--db", db],
            vec!["report", &log, "--db", db],
            vec!["db", "status", "--db", db],
        ];
        for args in runs {
            let o = provscope(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", out(&o));
            let e = err(&o);
            assert!(
                e.contains("not a regular file") && e.contains(kind) && e.contains(db.as_str()),
                "{args:?}: {e}"
            );
        }
    }
    assert!(
        journal_before || !Path::new("/dev/null-journal").exists(),
        "nothing is created beside /dev/null"
    );
}

fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = if e.path().is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    v.sort();
    v
}

/// Reading commands open the store read-only: they create no database, no `-wal`/`-shm`, and
/// change no byte.
#[test]
fn reading_commands_never_create_or_change_files() {
    let (dir, log, db) = setup("04-stale-cache.jsonl");
    let dbs = db.to_str().unwrap();
    let reads = |dbs: &str| {
        for args in [
            vec!["classifications", STALE_ID, "--db", dbs],
            vec!["classifications", &log, "--db", dbs],
            vec!["trend", "--db", dbs],
            vec!["report", &log, "--db", dbs],
            vec!["db", "status", "--db", dbs],
        ] {
            let o = provscope(&args);
            assert!(o.status.code() != Some(101), "{args:?}: {}", err(&o));
        }
    };
    // No store yet: nothing is created, not even its directory.
    reads(dbs);
    assert!(!db.parent().unwrap().exists(), "no directory created");
    assert!(!db.exists());

    let o = provscope(&["classify", &log, "clm_seat_price", "-q", "rw", "--db", dbs]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = provscope(&["verify", "--record-run", &log, "--db", dbs]);
    assert!(o.status.code() != Some(2), "{}", err(&o));
    let state = db.parent().unwrap();
    let before = listing(state);
    assert_eq!(before.len(), 1, "only the database after writers closed it");
    reads(dbs);
    let o = provscope(&["trend", "--db", dbs]);
    assert!(out(&o).contains("RUN"), "{}", err(&o));
    assert_eq!(listing(state), before, "no file created or changed");
    drop(dir);
}

/// A database the user may only read is read (today: "attempt to write a readonly database").
#[test]
fn a_read_only_database_can_be_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ro");
    std::fs::create_dir(&root).unwrap();
    let log = root.join("04-stale-cache.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/04-stale-cache.jsonl"),
        &log,
    )
    .unwrap();
    let db = root.join("cases.sqlite");
    let (logs, dbs) = (log.display().to_string(), db.display().to_string());
    let o = provscope(&[
        "classify",
        &logs,
        "clm_seat_price",
        "-q",
        "rw",
        "--db",
        &dbs,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // Root ignores permission bits: then the reader runs as `nobody` with a copy of the binary
    // it can execute. Otherwise the file and its directory lose their write bits.
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let bin = root.join("provscope");
    let mut cmd = if is_root {
        std::fs::copy(env!("CARGO_BIN_EXE_provscope"), &bin).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_provscope"))
    };
    for (p, mode) in [
        (&db, 0o444),
        (&log, 0o444),
        (&root, 0o555),
        (&dir.path().to_path_buf(), 0o755),
    ] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    if is_root {
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let before = listing(&root);
    let o = cmd
        .args(["classifications", &logs, "--format", "json", "--db", &dbs])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let j: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(
        j["classifications"][0]["quadrant"], "fact_right_source_wrong",
        "{j}"
    );
    assert_eq!(listing(&root), before);
}

fn provscope_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_provscope"));
    c.args(args).env("NO_COLOR", "1").env("USER", "tester");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run provscope")
}

/// The team workflow on both backends: two logs declaring one id, two reviewers disagreeing,
/// runs from two machines in one trend, `PROVSCOPE_DB`, `db copy` both ways; no password is
/// ever printed.
#[test]
fn team_workflow_on_both_backends() {
    use crate::backends::{backends, Db};
    for db in backends("team_workflow") {
        let be = db.name();
        let dbs = db.arg();
        let (dir, a, _) = setup("04-stale-cache.jsonl");
        let b = dir.path().join("copy.jsonl");
        let mut bytes = std::fs::read(&a).unwrap();
        bytes.extend_from_slice(b"\n");
        std::fs::write(&b, &bytes).unwrap();
        let b = b.display().to_string();
        let mut printed = String::new();
        let mut run = |args: &[&str], env: &[(&str, &str)]| -> Output {
            let o = provscope_env(args, env);
            printed.push_str(&out(&o));
            printed.push_str(&err(&o));
            o
        };
        let ok = |o: &Output| assert_eq!(o.status.code(), Some(0), "{be}: {}", err(o));

        let o = run(
            &[
                "classify",
                &a,
                "clm_seat_price",
                "-q",
                "rw",
                "--note",
                "ana's",
                "--db",
                &dbs,
            ],
            &[("USER", "ana")],
        );
        ok(&o);
        let o = run(
            &["classify", &b, "clm_seat_price", "-q", "ww", "--db", &dbs],
            &[("USER", "ana")],
        );
        ok(&o);
        assert!(err(&o).contains("kept apart"), "{be}: {}", err(&o));
        // A second reviewer disagrees: kept in history, the conflict is shown.
        let o = run(
            &[
                "classify",
                &a,
                "clm_seat_price",
                "-q",
                "wr",
                "--note",
                "bob's",
                "--db",
                &dbs,
            ],
            &[("USER", "bob")],
        );
        ok(&o);
        let e = err(&o);
        assert!(
            e.contains("conflict")
                && e.contains("ana fact_right_source_wrong")
                && e.contains("bob fact_wrong_source_right"),
            "{be}: {e}"
        );
        // PROVSCOPE_DB stands for --db.
        let o = run(
            &["classifications", &a, "--format", "json"],
            &[("PROVSCOPE_DB", &dbs)],
        );
        ok(&o);
        let j: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
        assert_eq!(
            j["classifications"][0]["quadrant"], "fact_wrong_source_right",
            "{be}"
        );
        assert_eq!(
            j["conflicts"][0]["decisions"].as_array().unwrap().len(),
            2,
            "{be}: {j}"
        );
        assert_eq!(j["conflicts"][0]["decisions"][0]["reviewer"], "ana");
        let o = run(
            &["classifications", &b, "--format", "json", "--db", &dbs],
            &[],
        );
        let jb: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
        assert_eq!(
            jb["classifications"][0]["quadrant"], "fact_wrong_source_wrong",
            "{be}"
        );
        assert!(jb["conflicts"].as_array().unwrap().is_empty());

        // Runs from two machines, one trend.
        for origin in ["ci-linux", "laptop-ana"] {
            let o = run(
                &["verify", "--record-run", &a, "--db", &dbs],
                &[("PROVSCOPE_RUN_ORIGIN", origin)],
            );
            assert!(o.status.code() != Some(2), "{be}: {}", err(&o));
        }
        // PROVSCOPE_DB for every command that takes --db.
        let o = run(&["trend", "--format", "json"], &[("PROVSCOPE_DB", &dbs)]);
        ok(&o);
        let t: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
        let origins: Vec<&str> = t["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["origin"].as_str().unwrap())
            .collect();
        assert_eq!(origins, ["ci-linux", "laptop-ana"], "{be}");

        // db copy into the other backend and back: the same rows.
        let status = |dbs: &str, printed: &mut String| -> String {
            let o = provscope_env(&["db", "status", "--db", dbs], &[]);
            printed.push_str(&out(&o));
            assert_eq!(o.status.code(), Some(0), "{}", err(&o));
            out(&o).lines().skip(1).collect::<Vec<_>>().join("\n")
        };
        let before = status(&dbs, &mut printed);
        let other: Option<String> = match &db {
            Db::Pg(_) => Some(format!(
                "sqlite:{}",
                dir.path().join("copy.sqlite").display()
            )),
            Db::Sqlite { .. } => crate::backends::pg_db("team_workflow_copy"),
        };
        if let Some(other) = other {
            let o = provscope_env(&["db", "copy", "--from", &dbs, "--to", &other], &[]);
            printed.push_str(&out(&o));
            printed.push_str(&err(&o));
            assert_eq!(o.status.code(), Some(0), "{be}: {}", err(&o));
            assert_eq!(status(&other, &mut printed), before, "{be}: copied");
            let o = provscope_env(&["db", "copy", "--from", &dbs, "--to", &other], &[]);
            assert_eq!(o.status.code(), Some(2), "{be}: only into an empty store");
            assert!(err(&o).contains("empty store"), "{}", err(&o));
            let o = provscope_env(
                &["classifications", &a, "--format", "json", "--db", &other],
                &[],
            );
            let jc: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
            assert_eq!(
                jc["conflicts"], j["conflicts"],
                "{be}: history copied in order"
            );
        }
        if let Db::Pg(url) = &db {
            let password = url
                .split("://")
                .nth(1)
                .and_then(|r| r.split('@').next())
                .and_then(|u| u.split(':').nth(1))
                .unwrap_or("");
            assert!(!password.is_empty());
            assert!(
                !printed.contains(password),
                "the password was printed:\n{printed}"
            );
            assert!(printed.contains(":***@"), "{printed}");
        }
    }
}
