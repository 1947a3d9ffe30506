//! `provscope gen`: deterministic synthetic sessions.

use super::{Out, EXIT_INPUT, EXIT_OK};
use crate::gen::{write_session, GenSpec};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `provscope gen`.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// Number of sessions (one file each).
    #[arg(long, default_value_t = 10)]
    pub sessions: u64,
    /// Turns per session.
    #[arg(long, default_value_t = 6)]
    pub turns: u32,
    /// Tool calls per turn.
    #[arg(long, default_value_t = 3)]
    pub calls: u32,
    /// Seed: the same seed and sizes always give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Share of claims that carry a fault (0..1); faults are drawn uniformly from the failure modes.
    #[arg(long, default_value_t = 0.25)]
    pub fault_rate: f64,
    /// Approximate size of each tool result's text, in bytes.
    #[arg(long, default_value_t = 600)]
    pub result_bytes: usize,
    /// Seal every call in an execution envelope (deterministic test attestor) and mix in
    /// results changed after sealing.
    #[arg(long)]
    pub envelopes: bool,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
}

/// Writes the sessions.
pub fn run(out: &mut Out, a: &GenArgs) -> u8 {
    if !(0.0..=1.0).contains(&a.fault_rate) {
        eprintln!("provscope: --fault-rate must be between 0 and 1");
        return EXIT_INPUT;
    }
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("provscope: cannot create {}: {e}", a.out.display());
        return EXIT_INPUT;
    }
    let spec = GenSpec {
        turns: a.turns,
        calls: a.calls,
        seed: a.seed,
        fault_rate: a.fault_rate,
        result_bytes: a.result_bytes,
        envelopes: a.envelopes,
    };
    let mut total = 0u64;
    for i in 0..a.sessions {
        let path = a.out.join(format!("gen-{i:06}.jsonl"));
        let res = std::fs::File::create(&path).and_then(|f| {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            write_session(&mut w, &spec, i)?;
            w.flush()?;
            w.get_ref().metadata().map(|m| m.len())
        });
        match res {
            Ok(n) => total += n,
            Err(e) => {
                eprintln!("provscope: cannot write {}: {e}", path.display());
                return EXIT_INPUT;
            }
        }
    }
    out.line(&format!(
        "wrote {} sessions ({:.1} MB) to {}",
        a.sessions,
        total as f64 / 1e6,
        a.out.display()
    ));
    EXIT_OK
}
