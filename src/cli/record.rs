//! `provscope record --key K.key --log OUT.jsonl [--server-name NAME] [--tier T] -- SERVER_CMD ...`:
//! an attesting stdio MCP proxy (see `crate::record` and `docs/recording.md`).

use super::{CliError, CmdResult, Exit};
use crate::attest::envelope::Attestor;
use crate::attest::keys;
use crate::model::Tier;
use crate::record;
use std::ffi::OsString;
use std::path::PathBuf;

/// Arguments of `provscope record`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "An MCP client launches `provscope record ... -- SERVER_CMD ARGS...` as its server \
command (docs/recording.md has Claude Desktop and mcpServers examples). Every byte is forwarded \
unchanged both ways; each answered tools/call is appended to the log as tool_call, tool_result \
and a sealed envelope, then fsynced.\n\nExit status: the server's (128+N when signal N killed \
it); 74 when the server exited 0 but calls could not be written to the log; 127/126 when the \
server cannot be started; 2 for usage errors."
)]
pub struct RecordArgs {
    /// The attestor's private key (PKCS#8 PEM, from `provscope keygen`).
    #[arg(long, value_name = "K.key")]
    pub key: PathBuf,
    /// The session log to append to (created with mode 0600).
    #[arg(long, value_name = "OUT.jsonl")]
    pub log: PathBuf,
    /// The server's name in the log (default: from the command, e.g. `server-memory` for
    /// `npx -y @modelcontextprotocol/server-memory`).
    #[arg(long, value_name = "NAME")]
    pub server_name: Option<String>,
    /// The server's trust tier written in the header: T0..T3 or unknown.
    #[arg(long, value_name = "T0..T3", default_value = "unknown", value_parser = parse_tier)]
    pub tier: Tier,
    /// The session id (default: rec-<UTC time>-<random>).
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// `ttl_seconds` written in every result's ingestion tag.
    #[arg(long, value_name = "SECONDS", default_value_t = record::DEFAULT_TTL_SECONDS)]
    pub ttl: u64,
    /// The attestor name sealed in every envelope (default: provscope-record/VERSION).
    #[arg(long, value_name = "NAME")]
    pub attestor_id: Option<String>,
    /// The server command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "SERVER_CMD")]
    pub command: Vec<OsString>,
}

fn parse_tier(s: &str) -> Result<Tier, String> {
    Tier::parse(s).ok_or_else(|| format!("`{s}` is not a tier (T0, T1, T2, T3 or unknown)"))
}

/// Runs `record`; `max_line_bytes` (the global `--max-line-bytes`) caps what is recorded.
pub fn run(a: RecordArgs, max_line_bytes: usize) -> CmdResult {
    let key = keys::load_private(&a.key).map_err(|e| CliError::Usage(format!("record: {e}")))?;
    let server = match &a.server_name {
        Some(s) if !s.trim().is_empty() => s.clone(),
        Some(_) => {
            return Err(CliError::Usage(
                "record: --server-name must not be empty".into(),
            ))
        }
        None => record::default_server_name(&a.command),
    };
    if a.session_id.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(CliError::Usage(
            "record: --session-id must not be empty".into(),
        ));
    }
    let opts = record::ProxyOptions {
        attestor: Attestor {
            id: a
                .attestor_id
                .unwrap_or_else(|| format!("provscope-record/{}", env!("CARGO_PKG_VERSION"))),
            key,
        },
        log: a.log,
        server,
        tier: a.tier,
        session_id: a.session_id,
        ttl_seconds: a.ttl,
        max_message_bytes: max_line_bytes,
        command: a.command,
    };
    run_proxy(opts)
}

/// `record` exits as its server did (or 2 when it could not run it).
#[cfg(unix)]
fn run_proxy(opts: record::ProxyOptions) -> CmdResult {
    Ok(Exit::Status(record::run(opts)))
}

#[cfg(not(unix))]
fn run_proxy(_: record::ProxyOptions) -> CmdResult {
    Err(CliError::Usage(
        "record: only supported on Unix-like systems".into(),
    ))
}
