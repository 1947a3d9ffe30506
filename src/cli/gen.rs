//! `provscope gen`: deterministic synthetic sessions.

use super::{CliError, CmdResult, Ctx, Exit};
use crate::gen::{write_session, GenSpec};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `provscope gen`. Every accepted value works; sizes outside the ranges are
/// refused with a message.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// Number of sessions (one file each).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub sessions: u64,
    /// Turns per session (1 to 1000000).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub turns: u32,
    /// Tool calls per turn (1 to 10000).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub calls: u32,
    /// Seed: the same seed and sizes always give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Share of claims that carry a fault (0..1); faults are drawn uniformly from the failure modes.
    #[arg(long, default_value_t = 0.25)]
    pub fault_rate: f64,
    /// Approximate size of each tool result's text, in bytes (at most 16 MiB).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(0..=16 << 20))]
    pub result_bytes: u64,
    /// Seal every call in an execution envelope (deterministic test attestor) and mix in
    /// results changed after sealing.
    #[arg(long)]
    pub envelopes: bool,
    /// Link the first call of every fourth turn to a sub-agent's session log that is not
    /// written (an unresolved `sub_agent_source` link, for long sessions that delegate).
    #[arg(long)]
    pub sub_agents: bool,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
}

/// Writes the sessions.
pub fn run(ctx: &mut Ctx, a: &GenArgs) -> CmdResult {
    if !(0.0..=1.0).contains(&a.fault_rate) {
        return Err(CliError::Usage(
            "--fault-rate must be between 0 and 1".into(),
        ));
    }
    std::fs::create_dir_all(&a.out).map_err(|e| CliError::write(&a.out, e))?;
    let spec = GenSpec {
        turns: a.turns,
        calls: a.calls,
        seed: a.seed,
        fault_rate: a.fault_rate,
        result_bytes: usize::try_from(a.result_bytes).unwrap_or(usize::MAX),
        envelopes: a.envelopes,
        sub_agents: a.sub_agents,
    };
    let mut total = 0u64;
    for i in 0..a.sessions {
        let path = a.out.join(format!("gen-{i:06}.jsonl"));
        let n = std::fs::File::create(&path)
            .and_then(|f| {
                let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
                write_session(&mut w, &spec, i)?;
                w.flush()?;
                w.get_ref().metadata().map(|m| m.len())
            })
            .map_err(|e| CliError::write(&path, e))?;
        total += n;
    }
    writeln!(
        ctx.human(),
        "wrote {} sessions ({:.1} MB) to {}",
        a.sessions,
        total as f64 / 1e6,
        a.out.display()
    )
    .map_err(CliError::stdout)?;
    Ok(Exit::Ok)
}
