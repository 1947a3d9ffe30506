//! `provscope record`: an attesting stdio MCP proxy. `docs/recording.md` is the user's guide.
//!
//! The proxy spawns the real server and forwards every byte both ways in order (client stdin ->
//! server stdin, server stdout -> client stdout; the server's stderr is the proxy's own stderr,
//! inherited). Each forwarding thread cuts its stream into newline-delimited JSON-RPC lines
//! ([`framing`]) and forwards each line whole, unchanged, except for the id of a request that
//! reuses an id still in flight and of its response ([`pairing`]: every id the server sees in
//! flight is unique, so no result is ever paired with the wrong request). Forwarding never waits
//! on the log: the threads send the paired events through an unbounded channel to the recorder
//! thread, which appends to the session log ([`writer`]), per answered `tools/call`: the
//! session header (once), a `tool_call`, a `tool_result` with its ingestion tag, and an
//! `envelope` sealed with the attestor's key, then `fsync`s.
//!
//! [`Core`] is the same pipeline on one thread (bytes in, forwarded bytes and log lines out), so
//! it is tested without processes; the plumbing (spawn, pumps, signals, exit status) is in
//! [`process`].
//! Hashing and sealing come from [`crate::attest`]; this module only observes and writes.

pub mod framing;
pub mod pairing;
#[cfg(unix)]
pub mod process;
pub mod writer;

pub use framing::{LineBuffer, Piece};
pub use pairing::{relay_line, Event, Pairing};
#[cfg(unix)]
pub use process::run;
pub use writer::{examine_existing, Existing, LogFile, LogSink, Recorder, Refused, Stats};

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

/// The proxy's pipeline on one thread: framing and pairing of both directions, and the
/// recorder. `feed` returns the bytes the proxy forwards for what it was given, exactly what
/// the forwarding threads of [`process`] forward.
pub struct Core<S: LogSink> {
    recorder: Recorder<S>,
    pairing: Pairing,
    lines: [LineBuffer; 2],
}

impl<S: LogSink> Core<S> {
    /// A pipeline recording into `sink`; lines over `cfg.max_message_bytes` are not examined.
    pub fn new(cfg: RecordConfig, clock: Clock, sink: S) -> Core<S> {
        let cap = cfg.max_message_bytes;
        Core {
            recorder: Recorder::new(cfg, clock, sink),
            pairing: Pairing::default(),
            lines: [LineBuffer::new(cap), LineBuffer::new(cap)],
        }
    }

    /// Bytes read from direction `dir`'s source at `at`: what is forwarded to its destination.
    pub fn feed(&mut self, dir: Dir, at: Instant, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        let Core {
            recorder,
            pairing,
            lines,
        } = self;
        lines[dir.index()].push(bytes, |piece| match piece {
            Piece::Line(l) => {
                let (fwd, events) = relay_line(pairing, dir, at, l);
                out.extend_from_slice(&fwd);
                for e in events {
                    recorder.event(e);
                }
            }
            Piece::Raw(r) => out.extend_from_slice(r),
            Piece::Oversize(n) => recorder.oversize(dir, n),
        });
        out
    }

    /// Direction `dir`'s source ended: the rest to forward (a last line without its newline,
    /// unexamined).
    pub fn end(&mut self, dir: Dir) -> Vec<u8> {
        let mut out = Vec::new();
        self.lines[dir.index()].finish(|piece| {
            if let Piece::Raw(r) | Piece::Line(r) = piece {
                out.extend_from_slice(r);
            }
        });
        out
    }

    /// The recorder (stats, notes, sink).
    pub fn recorder(&mut self) -> &mut Recorder<S> {
        &mut self.recorder
    }

    /// Recording ends.
    pub fn finish(&mut self) -> Stats {
        self.recorder.finish()
    }
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

    pub(crate) fn rec() -> (Core<Vec<u8>>, Instant) {
        rec_with(cfg("everything"))
    }

    pub(crate) fn rec_with(c: RecordConfig) -> (Core<Vec<u8>>, Instant) {
        let t0 = Instant::now();
        let clock = Clock::anchored(Timestamp::parse("2026-10-02T14:00:00Z").unwrap(), t0);
        (Core::new(c, clock, Vec::new()), t0)
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
    use super::test_support::*;
    use super::*;

    #[test]
    fn records_a_call_across_chunks_and_the_log_verifies() {
        let (mut r, t0) = rec();
        let req = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi \u00e9"},"_meta":{"progressToken":1}}}"#;
        r.feed(Dir::ToServer, ms(t0, 5), &req[..20]);
        r.feed(Dir::ToServer, ms(t0, 6), &req[20..]);
        r.feed(Dir::ToServer, ms(t0, 7), b"\n");
        r.feed(
            Dir::ToClient,
            ms(t0, 9),
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Echo: hi\"}],\"structuredContent\":{\"a\":1.0e2}}}\n",
        );
        assert_eq!(r.recorder().stats().recorded, 1);
        let s = load(r.recorder().sink());
        assert_eq!(
            (s.calls.len(), s.results.len(), s.envelopes.len()),
            (1, 1, 1)
        );
        let c = &s.calls[0];
        assert_eq!(c.id, "everything#3");
        assert_eq!(c.issued_at.to_string(), "2026-10-02T14:00:00.007Z");
        assert_eq!(
            s.results[0].tag.returned_at.to_string(),
            "2026-10-02T14:00:00.009Z"
        );
        assert_eq!(s.results[0].tag.ttl_seconds, Some(60));
        let h = s.header.as_ref().unwrap();
        assert!(h.require_envelopes);
        assert_eq!(h.servers[0].tier, Tier::T1);
        // the request is kept as sent, _meta included
        let line = String::from_utf8_lossy(r.recorder().sink())
            .lines()
            .nth(1)
            .unwrap()
            .to_owned();
        assert!(line.starts_with("{\"event\":\"tool_call\""), "{line}");
        assert!(
            line.contains(&String::from_utf8_lossy(req).into_owned()),
            "{line}"
        );
        assert_eq!(envelope_findings(&s), Vec::<String>::new());
    }

    #[test]
    fn batches_errors_and_string_ids() {
        let (mut r, t0) = rec();
        r.feed(
            Dir::ToServer,
            ms(t0, 1),
            br#"[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/list"},{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"y","arguments":{}}}]
"#,
        );
        // server->client request with a colliding id, and its response: not recorded
        r.feed(
            Dir::ToClient,
            ms(t0, 2),
            b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"roots/list\"}\r\n",
        );
        r.feed(
            Dir::ToServer,
            ms(t0, 3),
            b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"roots\":[]}}\n",
        );
        r.feed(
            Dir::ToClient,
            ms(t0, 4),
            br#"[{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: y"}},{"jsonrpc":"2.0","id":"b","result":{"tools":[]}},{"jsonrpc":"2.0","id":"a","result":{"content":[],"isError":true}}]
"#,
        );
        assert_eq!(r.recorder().stats().recorded, 2);
        let s = load(r.recorder().sink());
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["everything#7", "everything#a"]);
        assert!(s.result("everything#7").unwrap().response.error.is_some());
        assert_eq!(envelope_findings(&s), Vec::<String>::new());
    }

    #[test]
    fn garbage_oversize_and_reused_ids_never_panic() {
        let mut c = cfg("everything");
        c.max_message_bytes = 200;
        let (mut r, t0) = rec_with(c);
        for junk in [
            &b"\xff\xfe not utf8\n"[..],
            b"{\"id\":1,\"method\":\"tools/call\",\"id\":2}\n",
            b"[1,2,{\"id\":null,\"method\":\"tools/call\"}]\n",
            b"{\"id\":{},\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n",
            b"{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":5}}\n",
            b"\n\n   \n",
            b"null\n",
            b"[]\n",
        ] {
            r.feed(Dir::ToServer, ms(t0, 1), junk);
            r.feed(Dir::ToClient, ms(t0, 1), junk);
        }
        let big = format!(
            "{{\"id\":9,\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{{\"s\":\"{}\"}}}}}}\n",
            "a".repeat(500)
        );
        r.feed(Dir::ToServer, ms(t0, 1), &big.as_bytes()[..100]);
        r.feed(Dir::ToServer, ms(t0, 1), &big.as_bytes()[100..]);
        r.feed(
            Dir::ToClient,
            ms(t0, 2),
            b"{\"id\":9,\"result\":{\"content\":[]}}\n",
        );
        assert_eq!(r.recorder().stats().oversize, 1);
        // id reuse after completion gets a distinct call id
        for _ in 0..2 {
            r.feed(
                Dir::ToServer,
                ms(t0, 3),
                b"{\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n",
            );
            r.feed(
                Dir::ToClient,
                ms(t0, 4),
                b"{\"id\":4,\"result\":{\"content\":[]}}\n",
            );
        }
        // a response that is not a response object
        r.feed(
            Dir::ToServer,
            ms(t0, 5),
            b"{\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n",
        );
        r.feed(
            Dir::ToClient,
            ms(t0, 6),
            b"{\"id\":5,\"result\":{\"content\":\"no\"}}\n",
        );
        r.feed(
            Dir::ToServer,
            ms(t0, 7),
            b"{\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n",
        );
        let st = r.finish();
        assert_eq!(st.recorded, 2, "{st:?}");
        assert_eq!(st.unrecordable, 2, "{st:?}");
        assert_eq!(st.unanswered, 1, "{st:?}");
        let s = load(r.recorder().sink());
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["everything#4", "everything#4#2"]);
    }

    #[test]
    fn forwarding_is_byte_exact_and_lines_whole() {
        let (mut r, t0) = rec();
        let input: &[&[u8]] = &[
            b"{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}",
            b"\r\n\xff\xfe\n[1,",
            b"2]\nno newline at the end",
        ];
        let mut out = Vec::new();
        for c in input {
            out.extend(r.feed(Dir::ToServer, t0, c));
        }
        out.extend(r.end(Dir::ToServer));
        assert_eq!(out, input.concat());
    }

    /// The hole: a client that reuses an in-flight id got the first call's result sealed under
    /// the second call's request. Now the server sees distinct ids, and each call is recorded
    /// with its own request and its own result, whatever order the server answers in.
    #[test]
    fn a_reused_in_flight_id_never_pairs_a_result_with_the_wrong_request() {
        for second_answered_first in [true, false] {
            let (mut r, t0) = rec();
            let a = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{\"q\":\"A\"}}}\n";
            let b = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"fast\",\"arguments\":{\"q\":\"B\"}}}\n";
            assert_eq!(r.feed(Dir::ToServer, ms(t0, 1), a), a);
            let to_server = r.feed(Dir::ToServer, ms(t0, 2), b);
            let to_server = String::from_utf8(to_server).unwrap();
            assert!(
                to_server.contains("\"id\":\"provscope-record:0\""),
                "{to_server}"
            );
            let ans_a = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"answer A\"}]}}\n".to_vec();
            let ans_b = b"{\"jsonrpc\":\"2.0\",\"id\":\"provscope-record:0\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"answer B\"}]}}\n".to_vec();
            let order = if second_answered_first {
                [ans_b, ans_a]
            } else {
                [ans_a, ans_b]
            };
            for (i, ans) in order.iter().enumerate() {
                let got = r.feed(Dir::ToClient, ms(t0, 3 + i as u64), ans);
                // The client gets its own id back.
                assert!(String::from_utf8(got).unwrap().contains("\"id\":7,"));
            }
            assert_eq!(r.recorder().stats().recorded, 2);
            assert_eq!(r.recorder().stats().aliased, 1);
            let notes = r.recorder().take_notes().join("\n");
            assert!(notes.contains("reused JSON-RPC id 7"), "{notes}");
            let s = load(r.recorder().sink());
            assert_eq!(envelope_findings(&s), Vec::<String>::new());
            for c in &s.calls {
                let q = c
                    .request
                    .params
                    .arguments
                    .as_ref()
                    .unwrap()
                    .get()
                    .to_owned();
                let text = s
                    .result(&c.id)
                    .unwrap()
                    .response
                    .result
                    .as_ref()
                    .unwrap()
                    .content[0]
                    .text
                    .clone()
                    .unwrap();
                let want = if q.contains('A') {
                    "answer A"
                } else {
                    "answer B"
                };
                assert_eq!(text, want, "{}: {q}", c.id);
                // recorded as the client sent and received it: id 7 on both sides
                assert_eq!(c.request.id.as_text(), "7");
                assert_eq!(s.result(&c.id).unwrap().response.id.as_text(), "7");
            }
            let mut ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
            ids.sort_unstable();
            assert_eq!(ids, ["everything#7", "everything#7#2"]);
        }
    }

    #[test]
    fn duplicate_keys_are_not_recorded_and_inexact_numbers_are_noted() {
        let (mut r, t0) = rec();
        for (id, result) in [
            (1, r#"{"content":[],"structuredContent":{"a":1,"a":2}}"#),
            (
                2,
                r#"{"content":[],"structuredContent":{"id":9007199254740993}}"#,
            ),
        ] {
            let req = format!(
                "{{\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"t\"}}}}\n"
            );
            r.feed(Dir::ToServer, t0, req.as_bytes());
            let resp = format!("{{\"id\":{id},\"result\":{result}}}\n");
            r.feed(Dir::ToClient, t0, resp.as_bytes());
        }
        let st = r.finish();
        assert_eq!((st.recorded, st.unrecordable), (1, 1), "{st:?}");
        let notes = r.recorder().take_notes().join("\n");
        assert!(notes.contains("key `a` twice"), "{notes}");
        assert!(
            notes.contains("response.result.structuredContent.id = 9007199254740993"),
            "{notes}"
        );
        let text = String::from_utf8(r.recorder().sink().clone()).unwrap();
        let s = crate::ingest::load_bytes("rec", "rec", text.as_bytes(), &Default::default());
        let env = crate::attest::dsse::Envelope::parse(s.envelopes[0].raw.get()).unwrap();
        let st = crate::attest::envelope::open(&env).unwrap();
        assert_eq!(
            st.predicate.inexact_numbers,
            ["response.result.structuredContent.id"]
        );
    }

    #[test]
    fn gaps_are_counted() {
        let (mut r, _) = rec();
        r.recorder().gap(Dir::ToServer, 10);
        assert_eq!(r.recorder().stats().lost_bytes, 10);
        assert!(r.recorder().take_notes()[0].contains("skipped 10 bytes"));
    }

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
