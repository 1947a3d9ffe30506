//! `provscope record`: an attesting stdio MCP proxy. `docs/recording.md` is the user's guide.
//!
//! The proxy spawns the real server and forwards every byte both ways unchanged and in order
//! (client stdin -> server stdin, server stdout -> client stdout; the server's stderr is the
//! proxy's own stderr, inherited). Forwarding never waits on the log: each forwarding thread
//! sends a copy of every chunk it forwarded, with the instant it passed, through an unbounded
//! channel to the recorder thread, which splits the two byte streams into newline-delimited
//! JSON-RPC messages (batches included, [`framing`]), pairs every `tools/call` request with its
//! response by JSON-RPC id ([`pairing`]), and appends to the session log ([`writer`]), per
//! answered call: the session header (once), a `tool_call`, a `tool_result` with its ingestion
//! tag, and an `envelope` sealed with the attestor's key, then `fsync`s.
//!
//! The recording core ([`Recorder`]) is pure (bytes in, log lines out) so it is tested without
//! processes; the plumbing (spawn, pumps, signals, exit status) is in [`process`].
//! Hashing and sealing come from [`crate::attest`]; this module only observes and writes.

pub mod framing;
pub mod pairing;
#[cfg(unix)]
pub mod process;
pub mod writer;

pub use pairing::{Recorder, Stats};
#[cfg(unix)]
pub use process::run;
pub use writer::{examine_existing, Existing, LogFile, LogSink, Refused};

use crate::attest::envelope::Attestor;
use crate::model::{Tier, Timestamp};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

/// The turn every recorded call belongs to. A stdio proxy sees JSON-RPC traffic only, not the
/// user's messages or the agent's turns, so all calls of a recording are in turn 1 and no `turn`
/// event is written.
pub const RECORDED_TURN: u32 = 1;

/// Exit status when the server exited with 0 but the log could not be used: some answered calls
/// could not be written (disk full, I/O error), or the log could not be opened or holds another
/// session. `EX_IOERR` of sysexits.h.
pub const EXIT_LOG_FAILED: u8 = 74;

/// The default time to live written in every ingestion tag, in seconds.
pub const DEFAULT_TTL_SECONDS: u64 = 3600;

/// Which way bytes went through the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Client to server (the proxy's stdin to the server's stdin).
    ToServer,
    /// Server to client (the server's stdout to the proxy's stdout).
    ToClient,
}

impl Dir {
    pub(crate) fn index(self) -> usize {
        match self {
            Dir::ToServer => 0,
            Dir::ToClient => 1,
        }
    }

    pub(crate) fn sender(self) -> &'static str {
        match self {
            Dir::ToServer => "the client",
            Dir::ToClient => "the server",
        }
    }
}

/// Converts the monotonic instants the pumps take into wall-clock timestamps that never go
/// backwards during a recording (the wall clock is read once, at the start).
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    wall0: Timestamp,
    mono0: Instant,
}

impl Clock {
    /// A clock anchored now.
    pub fn start() -> Clock {
        Clock {
            wall0: Timestamp::now(),
            mono0: Instant::now(),
        }
    }

    /// A clock anchored at a given wall-clock time (tests).
    pub fn anchored(wall0: Timestamp, mono0: Instant) -> Clock {
        Clock { wall0, mono0 }
    }

    /// The wall-clock time of a monotonic instant, in milliseconds.
    pub fn at(&self, t: Instant) -> Timestamp {
        let ms = t.saturating_duration_since(self.mono0).as_millis();
        Timestamp(
            self.wall0
                .millis()
                .saturating_add(i64::try_from(ms).unwrap_or(i64::MAX)),
        )
    }

    /// When the recording started.
    pub fn started(&self) -> Timestamp {
        self.wall0
    }
}

/// What the recorder is told about the recording.
pub struct RecordConfig {
    /// The session id written in the header and sealed in every envelope.
    pub session_id: String,
    /// The server name (header, `tool_call.server`, tags, envelopes, call id prefix).
    pub server: String,
    /// The server's trust tier, written in the header.
    pub tier: Tier,
    /// `ttl_seconds` of every ingestion tag.
    pub ttl_seconds: u64,
    /// The attestor that seals envelopes; its public key goes in the header's `attestor_keys`.
    pub attestor: Attestor,
    /// Messages longer than this many bytes are forwarded but not recorded.
    pub max_message_bytes: usize,
    /// Written as the header's `title`.
    pub title: Option<String>,
    /// When false the header is already in the log (continuing an earlier recording).
    pub write_header: bool,
    /// Call ids already used in the log (continuing an earlier recording).
    pub used_call_ids: HashSet<String>,
}

/// A fresh session id: `rec-<UTC time>-<8 random hex digits>`.
pub fn new_session_id(now: Timestamp) -> String {
    let mut r = [0u8; 4];
    if getrandom::fill(&mut r).is_err() {
        r = (now.millis() as u32).to_le_bytes();
    }
    let t: String = now
        .to_string()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    format!("rec-{t}-{}", hex::encode(r))
}

/// The server name used when `--server-name` is absent: the command's file name, or for a
/// launcher (`npx`, `node`, `python3`, `uvx`, ...) the file name of its first non-option
/// argument, without a scope or extension (`npx -y @modelcontextprotocol/server-memory` gives
/// `server-memory`).
pub fn default_server_name(command: &[std::ffi::OsString]) -> String {
    const LAUNCHERS: &[&str] = &[
        "npx", "node", "nodejs", "python", "python3", "uvx", "uv", "bunx", "bun", "deno", "pnpm",
        "yarn", "pipx", "docker", "podman", "java", "ruby", "sh", "bash",
    ];
    fn base(s: &str) -> &str {
        let s = s.trim_end_matches('/');
        let s = s.rsplit('/').next().unwrap_or(s);
        s.split('@')
            .find(|p| !p.is_empty())
            .map(|p| p.strip_suffix(".js").or(p.strip_suffix(".py")).unwrap_or(p))
            .unwrap_or(s)
    }
    let words: Vec<String> = command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let Some(first) = words.first() else {
        return "server".into();
    };
    let name = base(first);
    let name = if LAUNCHERS.contains(&name) {
        words[1..]
            .iter()
            .skip_while(|w| w.starts_with('-') || *w == "run" || *w == "exec")
            .map(|w| base(w))
            .next()
            .unwrap_or(name)
    } else {
        name
    };
    if name.is_empty() {
        "server".into()
    } else {
        name.to_owned()
    }
}

/// How much copied traffic may wait for the recorder before the pumps stop copying (the bytes
/// are still forwarded; the recorder resynchronizes at the next newline and reports the gap).
pub const TAP_BUDGET_BYTES: usize = 512 << 20;

/// Everything `provscope record` needs.
pub struct ProxyOptions {
    /// The attestor (key and id).
    pub attestor: Attestor,
    /// The session log.
    pub log: PathBuf,
    /// `--server-name`.
    pub server: String,
    /// `--tier`.
    pub tier: Tier,
    /// `--session-id`.
    pub session_id: Option<String>,
    /// `--ttl`.
    pub ttl_seconds: u64,
    /// The recording cap on one message.
    pub max_message_bytes: usize,
    /// The server command and its arguments.
    pub command: Vec<std::ffi::OsString>,
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;
    use crate::ingest::{load_bytes, LoadOptions};

    pub(crate) fn cfg(server: &str) -> RecordConfig {
        RecordConfig {
            session_id: "sess-test".into(),
            server: server.into(),
            tier: Tier::T1,
            ttl_seconds: 60,
            attestor: Attestor {
                id: "test".into(),
                key: ed25519_dalek::SigningKey::from_bytes(&[7; 32]),
            },
            max_message_bytes: 1 << 20,
            title: None,
            write_header: true,
            used_call_ids: HashSet::new(),
        }
    }

    pub(crate) fn rec() -> (Recorder<Vec<u8>>, Instant) {
        let t0 = Instant::now();
        let clock = Clock::anchored(Timestamp::parse("2026-10-02T14:00:00Z").unwrap(), t0);
        (Recorder::new(cfg("everything"), clock, Vec::new()), t0)
    }

    pub(crate) fn ms(t0: Instant, n: u64) -> Instant {
        t0 + std::time::Duration::from_millis(n)
    }

    pub(crate) fn load(bytes: &[u8]) -> crate::model::Session {
        let s = load_bytes("rec", "rec", bytes, &LoadOptions::default());
        assert!(
            s.diagnostics.is_empty(),
            "{:?}\n{}",
            s.diagnostics,
            String::from_utf8_lossy(bytes)
        );
        s
    }

    pub(crate) fn envelope_findings(s: &crate::model::Session) -> Vec<String> {
        crate::check::check_session(s, &crate::check::Config::default())
            .findings
            .into_iter()
            .filter(|f| f.kind.name().starts_with("envelope") || f.kind.name() == "result_tampered")
            .map(|f| format!("{f:?}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::ms;
    use super::*;

    #[test]
    fn server_names() {
        let n = |v: &[&str]| default_server_name(&v.iter().map(|s| s.into()).collect::<Vec<_>>());
        assert_eq!(
            n(&["npx", "-y", "@modelcontextprotocol/server-memory"]),
            "server-memory"
        );
        assert_eq!(n(&["node", "/x/dist/index.js", "stdio"]), "index");
        assert_eq!(n(&["/usr/bin/my-server", "--flag"]), "my-server");
        assert_eq!(n(&["python3", "-m", "srv"]), "srv");
        assert_eq!(n(&["uvx", "mcp-server-time@1.0"]), "mcp-server-time");
        assert_eq!(n(&[]), "server");
    }

    #[test]
    fn clock_is_monotonic_from_its_anchor() {
        let t0 = Instant::now();
        let c = Clock::anchored(Timestamp(1000), t0);
        assert_eq!(c.at(t0).millis(), 1000);
        assert_eq!(c.at(ms(t0, 1500)).millis(), 2500);
        assert!(new_session_id(Timestamp(0)).starts_with("rec-19700101T000000Z-"));
    }
}
