//! Bulk import of a generated directory's claims and findings into the case store, against
//! plain two-column inserts of the same row count in one transaction, measured in the same run.
//! Run: `cargo bench --bench store` (`-- --dir PATH`; default target/bench-data/gen-200mb,
//! made by `cargo bench --bench load`).
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use provscope::check::Config;
use provscope::ingest::LoadOptions;
use provscope::store::{SessionRef, Store};
use std::time::Instant;

/// The same allocator as the `provscope` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args
        .iter()
        .position(|a| a == "--dir")
        .map(|i| std::path::PathBuf::from(&args[i + 1]))
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/gen-200mb")
        });
    if !dir.is_dir() {
        eprintln!(
            "{} does not exist: run `cargo bench --bench load` first, or pass --dir",
            dir.display()
        );
        std::process::exit(2);
    }
    let o = provscope::pipeline::Pipeline::new(LoadOptions::default(), Config::default(), 2)
        .outcome(std::slice::from_ref(&dir));
    let refs: Vec<SessionRef> = o
        .reports
        .iter()
        .map(|r| SessionRef {
            session_id: r.session_id.clone(),
            path: r.file.clone(),
            content_hash: None,
        })
        .collect();
    let tmp = std::env::temp_dir().join(format!("provscope-store-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);

    // provscope import: batches of up to 1024 sessions per transaction, as `provscope import` does.
    let db = tmp.join("cases.sqlite");
    let store = Store::open(&db).expect("open store");
    let t = Instant::now();
    let mut rows = 0usize;
    let items: Vec<(&SessionRef, &provscope::check::SessionReport)> =
        refs.iter().zip(&o.reports).collect();
    for chunk in items.chunks(1024) {
        rows += store.import_reports(chunk.iter().copied()).expect("import");
    }
    let import = t.elapsed().as_secs_f64();
    drop(store);

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
    let _ = std::fs::remove_dir_all(&tmp);
    println!("| rows | import rows/s | plain inserts rows/s | import / plain |");
    println!("|---|---|---|---|");
    println!(
        "| {rows} | {:.0} | {:.0} | {:.0}% |",
        rows as f64 / import,
        rows as f64 / plain,
        100.0 * plain / import
    );
}
