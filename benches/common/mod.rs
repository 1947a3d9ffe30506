//! What several benches share: the generated session directory of `benches/load.rs`, peak RSS,
//! and running this bench binary as a measured child process.
//!
//! A folder module (`common/mod.rs`), so cargo does not take it for a bench target of its own.
//! Each bench uses part of it.
#![allow(dead_code)]

use provscope::gen::{write_session, GenSpec};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The session shape of the load, follow, store and diff benches: 40 turns of 4 calls,
/// 900-byte results, a quarter of the claims faulty.
pub fn load_spec(fault_rate: f64) -> GenSpec {
    GenSpec {
        turns: 40,
        calls: 4,
        seed: 42,
        fault_rate,
        result_bytes: 900,
        envelopes: false,
        sub_agents: false,
    }
}

/// When [`write_sessions`] stops.
#[derive(Clone, Copy)]
pub enum Until {
    /// Once the directory holds at least this many bytes.
    Bytes(u64),
    /// After this many sessions.
    Sessions(u64),
}

/// Writes `gen-NNNNNN.jsonl` sessions of `spec` into `dir` (emptied first) until `until`;
/// returns how many it wrote.
pub fn write_sessions(dir: &Path, spec: &GenSpec, until: Until) -> u64 {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let (mut total, mut i) = (0u64, 0u64);
    loop {
        let done = match until {
            Until::Bytes(b) => total >= b,
            Until::Sessions(n) => i >= n,
        };
        if done {
            return i;
        }
        let p = dir.join(format!("gen-{i:06}.jsonl"));
        let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        write_session(&mut w, spec, i).unwrap();
        w.flush().unwrap();
        drop(w);
        total += p.metadata().unwrap().len();
        i += 1;
    }
}

/// The load bench's directory of `mb` MB (`load_spec(0.25)`), generated unless it is already
/// there at that size.
pub fn generate(dir: &Path, mb: u64) {
    if !dir.exists() || dir_bytes(dir) < mb * 1_000_000 {
        write_sessions(dir, &load_spec(0.25), Until::Bytes(mb * 1_000_000));
    }
}

/// The `.jsonl` files of `dir`, sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|it| {
            it.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Bytes of the `.jsonl` files of `dir` (0 when it does not exist).
pub fn dir_bytes(dir: &Path) -> u64 {
    files(dir)
        .iter()
        .filter_map(|f| f.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// This process's peak resident set (`VmHWM`, KB; 0 off Linux).
pub fn vmhwm_kb() -> u64 {
    vmhwm_kb_in("/proc/self/status")
}

/// The peak resident set (`VmHWM`, KB) a `/proc/.../status` file reports; 0 when unreadable.
pub fn vmhwm_kb_in(status: &str) -> u64 {
    std::fs::read_to_string(status)
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// Runs this bench binary `runs` times with `args` (its `--child` mode, which prints one JSON
/// object with `secs`), and returns the fastest run's object.
pub fn best_child<I, S>(args: I, runs: usize) -> serde_json::Value
where
    I: IntoIterator<Item = S> + Clone,
    S: AsRef<std::ffi::OsStr>,
{
    let exe = std::env::current_exe().unwrap();
    (0..runs)
        .map(|_| {
            let out = Command::new(&exe).args(args.clone()).output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
        })
        .min_by(|a, b| a["secs"].as_f64().partial_cmp(&b["secs"].as_f64()).unwrap())
        .unwrap()
}
