//! Load and verify throughput against a plain typed serde_json parse of the same bytes and
//! against `benches/baseline.py`, and peak memory, on `provscope gen` directories of 20 MB and
//! 200 MB. One core (`-j1`) throughout, plus `verify` on every core (`provscope verify`'s default).
//!
//! Run: `cargo bench --bench load` (add `-- --sizes 20,200` to choose sizes in MB).
//! Each measurement runs in a child process so its peak RSS (VmHWM) is its own; every
//! measurement, the Python one too, is the best of three runs.
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dir_bytes, files, generate, vmhwm_kb};
use provscope::check::Config;
use provscope::ingest::{load_paths, LoadOptions};
use provscope::model::{Event, Stamp};
use std::io::BufRead;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The same allocator as the `provscope` binary, for every mode (the baseline too).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The baseline: what a user would write: read lines, parse each into typed structs.
fn parse_only(dir: &Path) -> usize {
    let mut n = 0;
    for f in files(dir) {
        let r = std::io::BufReader::with_capacity(256 * 1024, std::fs::File::open(f).unwrap());
        for line in r.split(b'\n') {
            let line = line.unwrap();
            if let Ok(ev) = serde_json::from_slice::<Event>(&line) {
                if let Event::Answer(a) = &ev {
                    for c in &a.claims {
                        n += serde_json::from_str::<Stamp>(c.get()).is_ok() as usize;
                    }
                }
                n += 1;
            }
        }
    }
    n
}

fn child(mode: &str, dir: &Path) {
    let t = Instant::now();
    let items = match mode {
        "parse" => parse_only(dir),
        "load" => load_paths(&[dir.to_path_buf()], &LoadOptions::default(), 1)
            .sessions
            .len(),
        "verify" | "verify-all-cores" => {
            let threads = if mode == "verify" { 1 } else { cores() };
            let o = provscope::pipeline::Pipeline::new(
                LoadOptions::default(),
                Config::default(),
                threads,
            )
            .outcome(&[dir.to_path_buf()]);
            let doc = provscope::export::json::document(&o, provscope::model::Timestamp(0));
            serde_json::to_writer(std::io::sink(), &doc).unwrap();
            o.reports.len()
        }
        _ => panic!("unknown mode {mode}"),
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{{\"secs\":{secs},\"items\":{items},\"vmhwm_kb\":{}}}",
        vmhwm_kb()
    );
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Wall time of `python3 benches/baseline.py DIR`, best of three (interpreter start included:
/// that is what a user of the script waits for).
fn python_baseline(dir: &Path) -> Option<f64> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/baseline.py");
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let out = Command::new("python3")
                .arg(&script)
                .arg(dir)
                .output()
                .ok()?;
            out.status.success().then(|| t.elapsed().as_secs_f64())
        })
        .collect::<Option<Vec<f64>>>()?
        .into_iter()
        .reduce(f64::min)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], Path::new(&args[i + 2]));
        return;
    }
    let sizes: Vec<u64> = args
        .iter()
        .position(|a| a == "--sizes")
        .map(|i| args[i + 1].split(',').map(|s| s.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![20, 200]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let n = cores();
    println!("| input | parse-only MB/s | load MB/s | load/parse | verify json MB/s | verify/parse | python baseline MB/s | verify/python | verify json, {n} cores, MB/s | {n} cores/python | peak RSS load / input | peak RSS verify / input |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for mb in sizes {
        let dir = root.join(format!("gen-{mb}mb"));
        generate(&dir, mb);
        let bytes = dir_bytes(&dir) as f64;
        let run = |mode: &str| common::best_child([Path::new("--child"), Path::new(mode), &dir], 3);
        let p = run("parse");
        let l = run("load");
        let v = run("verify");
        let vm = run("verify-all-cores");
        let py = python_baseline(&dir);
        let secs = |x: &serde_json::Value| x["secs"].as_f64().unwrap();
        let mbs = |x: &serde_json::Value| bytes / 1e6 / secs(x);
        let rss = |x: &serde_json::Value| x["vmhwm_kb"].as_f64().unwrap() * 1024.0 / bytes;
        let pyr = py.map_or("n/a".into(), |s| format!("{:.0}", bytes / 1e6 / s));
        let vs_py =
            |x: &serde_json::Value| py.map_or("n/a".into(), |s| format!("{:.1}x", s / secs(x)));
        println!(
            "| {:.0} MB | {:.0} | {:.0} | {:.0}% | {:.0} | {:.0}% | {pyr} | {} | {:.0} | {} | {:.2}x | {:.2}x |",
            bytes / 1e6,
            mbs(&p),
            mbs(&l),
            100.0 * mbs(&l) / mbs(&p),
            mbs(&v),
            100.0 * mbs(&v) / mbs(&p),
            vs_py(&v),
            mbs(&vm),
            vs_py(&vm),
            rss(&l),
            rss(&v)
        );
    }
}
