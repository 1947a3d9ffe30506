//! The case store's speed, every figure against a baseline measured in the same run:
//!
//! 1. Bulk import of a generated directory's sessions, claims and findings (as `provscope
//!    import` does: transactions of up to 1024 sessions) into SQLite, against plain two-column
//!    inserts of the same row count in one transaction.
//! 2. The same import into PostgreSQL over loopback, as a share of the SQLite import rate.
//! 3. Eight concurrent writers (threads, each with its own connection), half of their writes
//!    re-classifying one shared claim: classifications per second on each backend, and a check
//!    that no update was lost (every write in the history, in each writer's order).
//!
//! Run: `cargo bench --bench store` (`-- --dir PATH`; default target/bench-data/gen-200mb, made
//! here or by `cargo bench --bench load`). PostgreSQL: `$PROVSCOPE_TEST_PG` (for example from
//! `eval "$(bash tests/support/pg.sh start)"`); each run creates and drops a database of its own.
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::generate;
use provscope::check::{Config, Quadrant, SessionReport};
use provscope::ingest::LoadOptions;
use provscope::model::Timestamp;
use provscope::store::{Classification, SessionRef, Store};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The same allocator as the `provscope` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const WRITERS: usize = 8;

/// A fresh database on the server of `url`; returns its URL and name.
fn pg_database(url: &str, tag: &str) -> (String, String) {
    let name = format!("bench_{tag}_{}", std::process::id());
    let mut admin = postgres::Client::connect(url, postgres::NoTls).expect("PostgreSQL server");
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    let (base, query) = match url.find('?') {
        Some(i) => (&url[..i], &url[i..]),
        None => (url, ""),
    };
    let cut = base.rfind('/').unwrap();
    (format!("{}/{name}{query}", &base[..cut]), name)
}

fn drop_database(url: &str, name: &str) {
    if let Ok(mut admin) = postgres::Client::connect(url, postgres::NoTls) {
        let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
    }
}

fn import(db: &Path, items: &[(&SessionRef, &SessionReport)]) -> (usize, f64) {
    let store = Store::open(db).expect("open store");
    let t = Instant::now();
    let mut rows = 0usize;
    for chunk in items.chunks(1024) {
        rows += store.import_reports(chunk.iter().copied()).expect("import");
    }
    (rows, t.elapsed().as_secs_f64())
}

/// Eight writers at once, `per` classifications each; returns classifications per second
/// after checking that nothing was lost. `hashed`: the log carries a content hash (as `provscope
/// classify` sends; the explorer sends none), so each write also decides the session's identity.
/// A write that fails (SQLite's 5 s busy timeout running out while this niced process is
/// starved by other builds) ends the measurement with its message instead of the rate.
fn writers(db: &Path, per: usize, hashed: bool) -> Result<f64, String> {
    Store::open(db).expect("open store");
    let s = SessionRef {
        session_id: "bench".into(),
        path: "bench.jsonl".into(),
        content_hash: hashed.then(|| provscope::store::content_hash(b"bench")),
    };
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(WRITERS + 1));
    let handles: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (db, s, barrier) = (db.to_path_buf(), s.clone(), barrier.clone());
            std::thread::spawn(move || {
                let st = Store::open(&db).expect("open store");
                let who = format!("writer{w}");
                barrier.wait();
                for i in 0..per {
                    let claim = if i % 2 == 0 {
                        "clm_shared".to_owned()
                    } else {
                        format!("clm_{w}_{i}")
                    };
                    let c = Classification::new(
                        "bench",
                        &claim,
                        1,
                        [
                            Quadrant::FactRightSourceRight,
                            Quadrant::FactRightSourceWrong,
                        ][i % 2],
                        &format!("{who} {i}"),
                        &who,
                        Timestamp(i as i64),
                    );
                    st.classify(&s, &c).map_err(|e| e.to_string())?;
                }
                Ok(())
            })
        })
        .collect();
    barrier.wait();
    let t = Instant::now();
    let failed: Vec<String> = handles
        .into_iter()
        .filter_map(|h| h.join().unwrap().err())
        .collect();
    let secs = t.elapsed().as_secs_f64();
    if let Some(e) = failed.first() {
        return Err(format!(
            "{} writers failed within {secs:.1} s: {e}",
            failed.len()
        ));
    }
    // No lost update: every write of the shared claim is in the history, in each writer's order.
    let st = Store::open(db).unwrap();
    let h = st.classification_history("bench", "clm_shared", 1).unwrap();
    let shared = per.div_ceil(2);
    assert_eq!(
        h.len(),
        WRITERS * shared,
        "lost updates on the shared claim"
    );
    assert_eq!(
        st.classification("bench", "clm_shared", 1)
            .unwrap()
            .as_ref(),
        h.last(),
        "the current classification is not the latest write"
    );
    for w in 0..WRITERS {
        let who = format!("writer{w}");
        let notes: Vec<&str> = h
            .iter()
            .filter(|c| c.reviewer == who)
            .map(|c| c.note.as_str())
            .collect();
        let want: Vec<String> = (0..per).step_by(2).map(|i| format!("{who} {i}")).collect();
        assert_eq!(notes, want, "{who}'s writes out of order or lost");
    }
    assert_eq!(
        st.classifications("bench").unwrap().len(),
        1 + WRITERS * (per - shared)
    );
    Ok((WRITERS * per) as f64 / secs)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let dir = arg("--dir").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/gen-200mb")
    });
    let per: usize = arg("--writes").map_or(400, |w| w.parse().unwrap());
    if !dir.exists() {
        eprintln!("generating {} (200 MB)", dir.display());
        generate(&dir, 200);
    }
    let pg = std::env::var("PROVSCOPE_TEST_PG")
        .ok()
        .filter(|u| !u.is_empty());
    if pg.is_none() {
        eprintln!(
            "PROVSCOPE_TEST_PG is not set: the PostgreSQL figures are SKIPPED \
             (eval \"$(bash tests/support/pg.sh start)\")"
        );
    }
    let o = provscope::pipeline::Pipeline::new(LoadOptions::default(), Config::default(), 2)
        .outcome(std::slice::from_ref(&dir));
    let refs: Vec<SessionRef> = o
        .reports
        .iter()
        .map(|r| SessionRef::for_file(&r.session_id, Path::new(&r.file)).unwrap())
        .collect();
    let items: Vec<(&SessionRef, &SessionReport)> = refs.iter().zip(&o.reports).collect();
    let tmp = std::env::temp_dir().join(format!("provscope-store-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);

    let (rows, sqlite_import) = import(&tmp.join("cases.sqlite"), &items);
    let pg_import = pg.as_deref().map(|url| {
        let (db, name) = pg_database(url, "import");
        let (n, secs) = import(Path::new(&db), &items);
        assert_eq!(n, rows);
        drop_database(url, &name);
        secs
    });

    // Baseline: the same number of simple rows in one transaction.
    let base_db = tmp.join("plain.sqlite");
    let conn = rusqlite::Connection::open(&base_db).expect("open");
    conn.execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t (a INTEGER, b TEXT);")
        .expect("schema");
    let t = Instant::now();
    let tx = conn.unchecked_transaction().expect("tx");
    {
        let mut st = tx
            .prepare("INSERT INTO t (a, b) VALUES (?1, ?2)")
            .expect("prepare");
        for i in 0..rows {
            st.execute(rusqlite::params![i as i64, "x"])
                .expect("insert");
        }
    }
    tx.commit().expect("commit");
    let plain = t.elapsed().as_secs_f64();

    let sqlite_writers =
        [false, true].map(|h| writers(&tmp.join(format!("writers-{h}.sqlite")), per, h));
    let pg_writers = [false, true].map(|h| {
        pg.as_deref().map(|url| {
            let (db, name) = pg_database(url, "writers");
            let r = writers(Path::new(&db), per, h);
            drop_database(url, &name);
            r
        })
    });
    let _ = std::fs::remove_dir_all(&tmp);

    let rate = |secs: f64| rows as f64 / secs;
    println!("| rows | SQLite import rows/s | plain inserts rows/s | import / plain | PostgreSQL import rows/s | PostgreSQL / SQLite |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| {rows} | {:.0} | {:.0} | {:.0}% | {} | {} |",
        rate(sqlite_import),
        rate(plain),
        100.0 * plain / sqlite_import,
        pg_import.map_or("skipped".into(), |s| format!("{:.0}", rate(s))),
        pg_import.map_or("skipped".into(), |s| format!(
            "{:.0}%",
            100.0 * sqlite_import / s
        )),
    );
    println!();
    println!("| {WRITERS} writers x {per} classifications | SQLite /s | PostgreSQL /s | PostgreSQL / SQLite | lost updates |");
    println!("|---|---|---|---|---|");
    let shown = |r: &Result<f64, String>| match r {
        Ok(r) => format!("{r:.0}"),
        Err(e) => format!("failed ({e})"),
    };
    for (i, log) in [
        "log without a content hash (explorer)",
        "log with a content hash (`classify`)",
    ]
    .iter()
    .enumerate()
    {
        println!(
            "| {}, {log} | {} | {} | {} | {} |",
            WRITERS * per,
            shown(&sqlite_writers[i]),
            pg_writers[i].as_ref().map_or("skipped".into(), shown),
            match (&pg_writers[i], &sqlite_writers[i]) {
                (Some(Ok(p)), Ok(q)) => format!("{:.0}%", 100.0 * p / q),
                (None, _) => "skipped".into(),
                _ => "-".into(),
            },
            if sqlite_writers[i].is_ok() && pg_writers[i].as_ref().is_none_or(Result::is_ok) {
                "0 (checked)"
            } else {
                "0 in the runs that finished (checked)"
            },
        );
    }
}
