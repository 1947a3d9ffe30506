//! `provscope diff` of two generated runs against `verify` on one of them, in the same run: the
//! issue-16 goal is diff throughput (bytes of both runs per second) >= 50% of verify's (bytes of
//! one run per second). Run A is `provscope gen` output (seed 42, fault rate 0.25); run B has the
//! same session ids and questions with a fault rate of 0.35 (so claims, calls and results differ
//! through the whole run), and a second B identical to A (every session unchanged). One core
//! (`-j1`) throughout; JSON output serialized into a sink, as `verify --format json` would write
//! it.
//!
//! Run: `cargo bench --bench diff` (add `-- --sizes 20,200` to choose sizes in MB; default 20).
//! Each measurement runs in a child process, best of three.
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dir_bytes, load_spec, write_sessions, Until};
use provscope::check::Config;
use provscope::diff::{Options, RunBuilder};
use provscope::ingest::LoadOptions;
use provscope::pipeline::Pipeline;
use std::path::Path;
use std::time::Instant;

/// The same allocator as the `provscope` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Writes sessions of the load bench's shape with `fault_rate` until `mb` MB, or `count`
/// sessions when given (the same count as A).
fn generate(dir: &Path, mb: u64, fault_rate: f64, count: Option<u64>) -> u64 {
    let until = count.map_or(Until::Bytes(mb * 1_000_000), Until::Sessions);
    write_sessions(dir, &load_spec(fault_rate), until)
}

fn child(mode: &str, a: &Path, b: Option<&Path>) {
    let p = Pipeline::new(LoadOptions::default(), Config::default(), 1);
    let t = Instant::now();
    let summary = match mode {
        "verify" => {
            let o = p.outcome(&[a.to_path_buf()]);
            let doc = provscope::export::json::document(&o, provscope::model::Timestamp(0));
            serde_json::to_writer(std::io::sink(), &doc).unwrap();
            serde_json::json!({"sessions": o.reports.len()})
        }
        "diff" => {
            let b = b.unwrap();
            let left = p.collect(&p.discover(&[a.to_path_buf()]));
            let mut r = RunBuilder::new(left, Options::default());
            p.run(&p.discover(&[b.to_path_buf()]), |c| {
                r.push(c);
                true
            });
            let d = r.finish();
            serde_json::to_writer(std::io::sink(), &d).unwrap();
            serde_json::json!({
                "sessions_paired": d.counts.sessions_paired,
                "claims_worse": d.counts.claims_worse,
                "claims_unchanged": d.counts.claims_unchanged,
                "results_changed": d.counts.results_changed,
            })
        }
        _ => panic!("unknown mode {mode}"),
    };
    let secs = t.elapsed().as_secs_f64();
    println!("{}", serde_json::json!({"secs": secs, "summary": summary}));
}

fn run_child(args: &[&Path], mode: &str) -> serde_json::Value {
    let mut argv = vec![Path::new("--child"), Path::new(mode)];
    argv.extend_from_slice(args);
    common::best_child(argv, 3)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let b = args.get(i + 3).map(Path::new);
        child(&args[i + 1], Path::new(&args[i + 2]), b);
        return;
    }
    let sizes: Vec<u64> = args
        .iter()
        .position(|a| a == "--sizes")
        .map(|i| args[i + 1].split(',').map(|s| s.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![20]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    println!("| run A | run B | verify A MB/s | diff A B MB/s (A+B bytes) | diff/verify | what the diff found |");
    println!("|---|---|---|---|---|---|");
    for mb in sizes {
        let a = root.join(format!("diff-{mb}mb-a"));
        let changed = root.join(format!("diff-{mb}mb-b"));
        let same = root.join(format!("diff-{mb}mb-same"));
        let n = generate(&a, mb, 0.25, None);
        generate(&changed, mb, 0.35, Some(n));
        generate(&same, mb, 0.25, Some(n));
        let v = run_child(&[&a], "verify");
        let secs = |x: &serde_json::Value| x["secs"].as_f64().unwrap();
        let va = dir_bytes(&a) as f64 / 1e6 / secs(&v);
        for (label, b) in [
            ("changed (fault rate 0.35)", &changed),
            ("identical", &same),
        ] {
            let d = run_child(&[&a, b], "diff");
            let bytes = (dir_bytes(&a) + dir_bytes(b)) as f64;
            let dm = bytes / 1e6 / secs(&d);
            println!(
                "| {:.0} MB | {label}, {:.0} MB | {va:.0} | {dm:.0} | {:.0}% | {} |",
                dir_bytes(&a) as f64 / 1e6,
                dir_bytes(b) as f64 / 1e6,
                100.0 * dm / va,
                d["summary"]
            );
        }
    }
}
