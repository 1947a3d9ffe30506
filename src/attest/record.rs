//! `provscope record`: an attesting stdio MCP proxy. `docs/recording.md` is the user's guide.
//!
//! The proxy spawns the real server and forwards every byte both ways unchanged and in order
//! (client stdin -> server stdin, server stdout -> client stdout; the server's stderr is the
//! proxy's own stderr, inherited). Forwarding never waits on the log: each forwarding thread
//! sends a copy of every chunk it forwarded, with the instant it passed, through an unbounded
//! channel to the recorder thread, which splits the two byte streams into newline-delimited
//! JSON-RPC messages (batches included), pairs every `tools/call` request with its response by
//! JSON-RPC id, and appends to the session log, per answered call: the session header (once),
//! a `tool_call`, a `tool_result` with its ingestion tag, and an `envelope` sealed with the
//! attestor's key, then `fsync`s.
//!
//! The recording core ([`Recorder`]) is pure (bytes in, log lines out) so it is tested without
//! processes; the plumbing (spawn, pumps, signals, exit status) is in [`run`].

use super::envelope::{event_line, seal, Attestor, Observed};
use super::hash::arguments_hash;
use super::keys::compact;
use crate::model::event::{CacheInfo, IngestTag, ServerInfo, SessionHeader, SpanUnit};
use crate::model::{CallRequest, CallResponse, RpcId, Tier, Timestamp, FORMAT_VERSION};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
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
    fn index(self) -> usize {
        match self {
            Dir::ToServer => 0,
            Dir::ToClient => 1,
        }
    }

    fn sender(self) -> &'static str {
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

/// Where recorded lines go: a file (fsynced) in the proxy, memory in tests.
pub trait LogSink {
    /// Appends whole lines durably, all or nothing as far as the sink can manage.
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;
}

impl LogSink for Vec<u8> {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// The session log file: appended, `fsync`ed after every call, and cut back to its last good
/// length when a write fails, so a reader never sees half a record followed by whole ones.
pub struct LogFile {
    file: std::fs::File,
    good_len: u64,
}

impl LogFile {
    /// Opens (creating it with mode 0600) the log for appending.
    pub fn open(path: &Path) -> io::Result<LogFile> {
        let mut o = std::fs::OpenOptions::new();
        o.append(true).create(true).read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        let file = o.open(path)?;
        let good_len = file.metadata()?.len();
        Ok(LogFile { file, good_len })
    }

    /// Cuts the file back to `len` bytes (an incomplete last line left by a crash).
    pub fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.file.set_len(len)?;
        self.file.sync_data()?;
        self.good_len = len;
        Ok(())
    }

    /// The file's length after the last successful append.
    pub fn len(&self) -> u64 {
        self.good_len
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.good_len == 0
    }
}

impl LogSink for LogFile {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        let r = self
            .file
            .write_all(bytes)
            .and_then(|_| self.file.sync_data());
        match r {
            Ok(()) => {
                self.good_len += bytes.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Best effort: remove the partial record. A character device (/dev/full) or a
                // read-only remount refuses, which is fine: nothing more can be done.
                let _ = self.file.set_len(self.good_len);
                Err(e)
            }
        }
    }
}

/// A sink that refuses every write, for a log that could not be opened.
pub struct Refused(pub String);

impl LogSink for Refused {
    fn append(&mut self, _: &[u8]) -> io::Result<()> {
        Err(io::Error::other(self.0.clone()))
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

/// Counts reported when recording ends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Calls appended to the log (tool_call + tool_result + envelope).
    pub recorded: u64,
    /// Answered calls that could not be written.
    pub write_failures: u64,
    /// `tools/call` requests with no response when recording ended.
    pub unanswered: u64,
    /// Answered calls that could not be recorded (response not a JSON-RPC response object,
    /// request not a valid `tools/call`, ...). Forwarded all the same.
    pub unrecordable: u64,
    /// Messages over `max_message_bytes`, not examined.
    pub oversize: u64,
    /// Bytes the recorder never saw because it fell behind (see [`TAP_BUDGET_BYTES`]).
    pub lost_bytes: u64,
}

/// A request waiting for its response.
struct Pending {
    call_id: String,
    raw: Box<RawValue>,
    request: CallRequest,
    issued_at: Timestamp,
}

/// Splits one direction's byte stream into lines, across chunk boundaries.
#[derive(Default)]
struct Splitter {
    buf: Vec<u8>,
    /// Discarding up to the next newline (after an oversize line or a gap).
    skipping: bool,
}

/// The fields of a JSON-RPC message the recorder looks at; the rest is skipped.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct CallLine<'a> {
    event: &'static str,
    turn: u32,
    server: &'a str,
    issued_at: Timestamp,
    call_id: &'a str,
    request: &'a RawValue,
}

#[derive(Serialize)]
struct ResultLine<'a> {
    event: &'static str,
    turn: u32,
    tag: &'a IngestTag,
    response: &'a RawValue,
}

#[derive(Serialize)]
struct HeaderLine<'a> {
    event: &'static str,
    #[serde(flatten)]
    header: &'a SessionHeader,
}

/// The recording core: feed it the bytes that passed the proxy, in order per direction, and it
/// appends one `tool_call`, `tool_result` and `envelope` per answered `tools/call` to the sink.
pub struct Recorder<S: LogSink> {
    cfg: RecordConfig,
    clock: Clock,
    sink: S,
    pending: HashMap<RpcId, Pending>,
    header_written: bool,
    split: [Splitter; 2],
    stats: Stats,
    /// Reports for stderr (first of each kind printed by the proxy; tests read them).
    notes: Vec<String>,
    first_write_error: Option<String>,
}

impl<S: LogSink> Recorder<S> {
    /// A recorder writing to `sink`.
    pub fn new(cfg: RecordConfig, clock: Clock, sink: S) -> Recorder<S> {
        let header_written = !cfg.write_header;
        Recorder {
            cfg,
            clock,
            sink,
            pending: HashMap::new(),
            header_written,
            split: [Splitter::default(), Splitter::default()],
            stats: Stats::default(),
            notes: Vec::new(),
            first_write_error: None,
        }
    }

    /// The counts so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The sink (tests read what was written).
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Takes the notes (one sentence each) accumulated since the last call.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The first log write error, if any.
    pub fn first_write_error(&self) -> Option<&str> {
        self.first_write_error.as_deref()
    }

    /// Bytes that passed the proxy in direction `dir` at instant `at`.
    pub fn feed(&mut self, dir: Dir, at: Instant, bytes: &[u8]) {
        let mut sp = std::mem::take(&mut self.split[dir.index()]);
        let cap = self.cfg.max_message_bytes;
        let mut rest = bytes;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let part = &rest[..i];
            rest = &rest[i + 1..];
            if sp.skipping {
                sp.skipping = false;
                sp.buf.clear();
            } else if sp.buf.is_empty() {
                if part.len() > cap {
                    self.oversize(dir, part.len());
                } else {
                    self.line(dir, at, part);
                }
            } else if sp.buf.len() + part.len() > cap {
                self.oversize(dir, sp.buf.len() + part.len());
                sp.buf.clear();
            } else {
                sp.buf.extend_from_slice(part);
                self.line(dir, at, &sp.buf);
                sp.buf.clear();
            }
        }
        if !sp.skipping && !rest.is_empty() {
            if sp.buf.len() + rest.len() > cap {
                self.oversize(dir, sp.buf.len() + rest.len());
                sp.buf = Vec::new();
                sp.skipping = true;
            } else {
                sp.buf.extend_from_slice(rest);
            }
        }
        self.split[dir.index()] = sp;
    }

    /// Bytes of direction `dir` were not seen (the recorder fell behind): resynchronize at the
    /// next newline.
    pub fn gap(&mut self, dir: Dir, lost: u64) {
        let sp = &mut self.split[dir.index()];
        sp.buf = Vec::new();
        sp.skipping = true;
        self.stats.lost_bytes += lost;
        self.notes.push(format!(
            "the recorder fell behind and skipped {lost} bytes from {}; calls in them are not recorded",
            dir.sender()
        ));
    }

    /// Recording ends: counts requests still waiting for a response.
    pub fn finish(&mut self) -> Stats {
        self.stats.unanswered += self.pending.len() as u64;
        if !self.pending.is_empty() {
            let mut ids: Vec<&str> = self.pending.values().map(|p| p.call_id.as_str()).collect();
            ids.sort_unstable();
            ids.truncate(5);
            self.notes.push(format!(
                "{} tools/call request(s) had no response when the session ended and are not recorded ({}{})",
                self.pending.len(),
                ids.join(", "),
                if self.pending.len() > 5 { ", ..." } else { "" }
            ));
        }
        self.pending.clear();
        self.stats.clone()
    }

    fn oversize(&mut self, dir: Dir, len: usize) {
        self.stats.oversize += 1;
        self.notes.push(format!(
            "a message of {len}+ bytes from {} is over the {} byte recording cap (--max-line-bytes); \
             forwarded but not recorded",
            dir.sender(),
            self.cfg.max_message_bytes
        ));
    }

    fn line(&mut self, dir: Dir, at: Instant, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else {
            return; // not JSON; forwarded, nothing to record
        };
        let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
        if text.is_empty() {
            return;
        }
        if text.starts_with('[') {
            if let Ok(batch) = serde_json::from_str::<Vec<&RawValue>>(text) {
                for m in batch {
                    self.message(dir, at, m);
                }
            }
        } else if let Ok(m) = serde_json::from_str::<&RawValue>(text) {
            self.message(dir, at, m);
        }
    }

    fn message(&mut self, dir: Dir, at: Instant, raw: &RawValue) {
        let Ok(p) = serde_json::from_str::<Probe>(raw.get()) else {
            return; // not an object, or duplicate keys: not a message we can pair
        };
        let Some(id) =
            p.id.and_then(|i| serde_json::from_str::<Option<RpcId>>(i.get()).ok())
                .flatten()
        else {
            return; // a notification (or a null id): no response to pair
        };
        match (dir, p.method) {
            (Dir::ToServer, Some(m)) => {
                let is_call = serde_json::from_str::<std::borrow::Cow<str>>(m.get())
                    .is_ok_and(|m| m == "tools/call");
                if is_call {
                    self.request(id, raw, self.clock.at(at));
                }
            }
            (Dir::ToClient, None) => {
                if let Some(p) = self.pending.remove(&id) {
                    self.respond(p, raw, self.clock.at(at));
                }
            }
            // Requests from the server (sampling, roots, elicitation) and the client's
            // responses to them are forwarded and not recorded.
            _ => {}
        }
    }

    fn request(&mut self, id: RpcId, raw: &RawValue, at: Timestamp) {
        let request = match serde_json::from_str::<CallRequest>(raw.get()) {
            Ok(r) => r,
            Err(e) => {
                self.stats.unrecordable += 1;
                self.notes.push(format!(
                    "tools/call request {id} is not recordable ({e}); forwarded, not recorded"
                ));
                return;
            }
        };
        let call_id = self.new_call_id(&id);
        if let Some(old) = self.pending.insert(
            id.clone(),
            Pending {
                call_id,
                raw: raw.to_owned(),
                request,
                issued_at: at,
            },
        ) {
            self.stats.unanswered += 1;
            self.notes.push(format!(
                "the client reused JSON-RPC id {id} while call {} was still waiting; the earlier call is not recorded",
                old.call_id
            ));
        }
    }

    /// `server#id`, made unique in the log when the client reuses an id.
    fn new_call_id(&mut self, id: &RpcId) -> String {
        let base = format!("{}#{}", self.cfg.server, id.as_text());
        let mut call_id = base.clone();
        let mut n = 2u64;
        while self.cfg.used_call_ids.contains(&call_id) {
            call_id = format!("{base}#{n}");
            n += 1;
        }
        self.cfg.used_call_ids.insert(call_id.clone());
        call_id
    }

    fn respond(&mut self, p: Pending, raw: &RawValue, at: Timestamp) {
        match self.lines_for(&p, raw, at) {
            Ok(buf) => match self.sink.append(&buf) {
                Ok(()) => {
                    self.header_written = true;
                    self.stats.recorded += 1;
                }
                Err(e) => {
                    self.stats.write_failures += 1;
                    if self.first_write_error.is_none() {
                        self.first_write_error = Some(e.to_string());
                        self.notes.push(format!(
                            "cannot write call {} to the log ({e}); forwarding continues, later \
                             calls are retried",
                            p.call_id
                        ));
                    }
                }
            },
            Err(e) => {
                self.stats.unrecordable += 1;
                self.notes.push(format!(
                    "the response to call {} is not recordable ({e}); forwarded, not recorded",
                    p.call_id
                ));
            }
        }
    }

    /// The lines for one answered call (and the header the first time).
    fn lines_for(&self, p: &Pending, raw: &RawValue, at: Timestamp) -> Result<Vec<u8>, String> {
        let response: CallResponse =
            serde_json::from_str(raw.get()).map_err(|e| format!("not a JSON-RPC response: {e}"))?;
        let cfg = &self.cfg;
        let args = p.request.params.arguments.as_deref();
        let tool = p.request.params.name.as_str();
        let tag = IngestTag {
            call_id: p.call_id.clone(),
            server: cfg.server.clone(),
            tool: tool.to_owned(),
            arguments_hash: arguments_hash(args)?,
            fetched_at: at,
            ttl_seconds: Some(cfg.ttl_seconds),
            cache: CacheInfo::default(),
            returned_at: at,
        };
        let obs = Observed {
            session_id: &cfg.session_id,
            call_id: &p.call_id,
            server: &cfg.server,
            tool,
            arguments: args,
            called_at: p.issued_at,
            returned_at: at,
            response: &response,
        };
        let env = seal(&obs, &cfg.attestor)?;
        let mut buf = Vec::with_capacity(raw.get().len() + p.raw.get().len() + 2048);
        if !self.header_written {
            push_line(
                &mut buf,
                &HeaderLine {
                    event: "session",
                    header: &self.header(),
                },
            )?;
        }
        push_line(
            &mut buf,
            &CallLine {
                event: "tool_call",
                turn: RECORDED_TURN,
                server: &cfg.server,
                issued_at: p.issued_at,
                call_id: &p.call_id,
                request: &p.raw,
            },
        )?;
        push_line(
            &mut buf,
            &ResultLine {
                event: "tool_result",
                turn: RECORDED_TURN,
                tag: &tag,
                response: raw,
            },
        )?;
        buf.extend_from_slice(event_line(&p.call_id, &env).as_bytes());
        buf.push(b'\n');
        Ok(buf)
    }

    fn header(&self) -> SessionHeader {
        SessionHeader {
            version: FORMAT_VERSION,
            session_id: self.cfg.session_id.clone(),
            agent: None,
            model: None,
            started_at: self.clock.started(),
            servers: vec![ServerInfo {
                name: self.cfg.server.clone(),
                tier: self.cfg.tier,
                attestor_keys: vec![compact(&self.cfg.attestor.key.verifying_key())],
                server_keys: Vec::new(),
            }],
            render_policy: None,
            span_unit: SpanUnit::Char,
            require_envelopes: true,
            title: self.cfg.title.clone(),
        }
    }
}

/// Appends one event as a JSON line.
fn push_line<T: Serialize>(buf: &mut Vec<u8>, v: &T) -> Result<(), String> {
    serde_json::to_writer(&mut *buf, v).map_err(|e| format!("cannot serialize an event: {e}"))?;
    buf.push(b'\n');
    Ok(())
}

/// How a recording continues when the log already holds lines.
pub enum Existing {
    /// The log is empty or new: write a header.
    Fresh,
    /// The log holds an earlier recording of this server by this attestor: continue its session.
    Continue {
        /// The session id of the log's header.
        session_id: String,
        /// Call ids already used.
        used_call_ids: HashSet<String>,
        /// Length of the complete lines (an incomplete last line is cut).
        complete_len: u64,
    },
    /// The log belongs to something else: record nothing.
    Foreign(String),
}

/// Decides how to continue a non-empty log: only a log whose header lists `server` with
/// `attestor_key` among its `attestor_keys` (and the same session id when one is given) is
/// continued.
pub fn examine_existing(
    bytes: &[u8],
    server: &str,
    attestor_key: &str,
    session_id: Option<&str>,
) -> Existing {
    if bytes.is_empty() {
        return Existing::Fresh;
    }
    let complete_len = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let s = crate::ingest::load_bytes(
        "log",
        "log",
        &bytes[..complete_len],
        &crate::ingest::LoadOptions {
            max_line_bytes: usize::MAX,
        },
    );
    let Some(h) = &s.header else {
        return if complete_len == 0 {
            Existing::Fresh
        } else {
            Existing::Foreign("it has no session header".into())
        };
    };
    if let Some(want) = session_id {
        if want != h.session_id {
            return Existing::Foreign(format!("it holds session `{}`, not `{want}`", h.session_id));
        }
    }
    let ours = h
        .servers
        .iter()
        .any(|sv| sv.name == server && sv.attestor_keys.iter().any(|k| k == attestor_key));
    if !ours {
        return Existing::Foreign(format!(
            "its header (session `{}`) does not list server `{server}` with this attestor key",
            h.session_id
        ));
    }
    Existing::Continue {
        session_id: h.session_id.clone(),
        used_call_ids: s.calls.iter().map(|c| c.id.clone()).collect(),
        complete_len: complete_len as u64,
    }
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

#[cfg(unix)]
pub use proxy::run;

#[cfg(unix)]
mod proxy {
    use super::*;
    use std::io::Read;
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::sync::Arc;
    use std::time::Duration;

    enum Tap {
        Data(Dir, Instant, Vec<u8>),
        Gap(Dir, u64),
        Finish,
    }

    /// Copies of forwarded chunks, sent to the recorder without ever blocking.
    #[derive(Clone)]
    struct TapTx {
        tx: mpsc::Sender<Tap>,
        queued: Arc<AtomicUsize>,
    }

    impl TapTx {
        /// Sends a copy unless the recorder is too far behind; returns false when it was not sent.
        fn send(&self, dir: Dir, at: Instant, bytes: &[u8], lost: &mut u64) -> bool {
            let q = self.queued.load(Ordering::Relaxed);
            if q.saturating_add(bytes.len()) > TAP_BUDGET_BYTES {
                *lost += bytes.len() as u64;
                return false;
            }
            if *lost > 0 {
                let _ = self.tx.send(Tap::Gap(dir, *lost));
                *lost = 0;
            }
            self.queued.fetch_add(bytes.len(), Ordering::Relaxed);
            self.tx.send(Tap::Data(dir, at, bytes.to_vec())).is_ok()
        }
    }

    fn say(msg: &str) {
        eprintln!("provscope record: {msg}");
    }

    /// Copies `from` to `to` chunk by chunk and taps a copy of each chunk for the recorder.
    ///
    /// Client-to-server chunks are tapped *before* they are written, so a request is always
    /// queued for the recorder before the server can have seen it (and answered it: otherwise
    /// a fast response could reach the recorder first). Server-to-client chunks are tapped
    /// *after* they were written, so only what the client was given is recorded. Tapping never
    /// blocks (an unbounded channel, see [`TAP_BUDGET_BYTES`]).
    ///
    /// When `to` fails the pump keeps reading (and discards) so the writer on the other side
    /// never blocks; the tap stops, since those bytes are not delivered.
    fn pump(
        mut from: impl Read,
        mut to: Option<impl Write>,
        dir: Dir,
        tap: TapTx,
        done: Option<mpsc::Sender<()>>,
    ) {
        let mut buf = vec![0u8; 64 * 1024];
        let mut lost = 0u64;
        let tap_first = dir == Dir::ToServer;
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    say(&format!("reading from {} failed: {e}", dir.sender()));
                    break;
                }
            };
            let at = Instant::now();
            let Some(w) = to.as_mut() else { continue };
            if tap_first {
                tap.send(dir, at, &buf[..n], &mut lost);
            }
            if let Err(e) = w.write_all(&buf[..n]) {
                if e.kind() != io::ErrorKind::BrokenPipe {
                    say(&format!(
                        "writing to {} failed: {e}",
                        match dir {
                            Dir::ToServer => "the server",
                            Dir::ToClient => "the client",
                        }
                    ));
                }
                // Closes the server's stdin (or our stdout) now.
                to = None;
                continue;
            }
            if !tap_first {
                tap.send(dir, at, &buf[..n], &mut lost);
            }
        }
        drop(to);
        if lost > 0 {
            let _ = tap.tx.send(Tap::Gap(dir, lost));
        }
        if let Some(d) = done {
            let _ = d.send(());
        }
    }

    /// The recorder thread: opens the log, then records until told to finish.
    fn recorder(
        opts: RecorderSetup,
        clock: Clock,
        rx: mpsc::Receiver<Tap>,
        queued: Arc<AtomicUsize>,
    ) -> (Stats, Option<String>) {
        let mut unusable: Option<String> = None;
        let key = compact(&opts.attestor.key.verifying_key());
        let mut cfg = RecordConfig {
            session_id: opts
                .session_id
                .clone()
                .unwrap_or_else(|| new_session_id(clock.started())),
            server: opts.server.clone(),
            tier: opts.tier,
            ttl_seconds: opts.ttl_seconds,
            attestor: opts.attestor,
            max_message_bytes: opts.max_message_bytes,
            title: Some(format!("provscope record: {}", opts.server)),
            write_header: true,
            used_call_ids: HashSet::new(),
        };
        let shown = opts.log.display().to_string();
        let sink: Box<dyn LogSink> =
            match open_log(&opts.log, &opts.server, &key, opts.session_id.as_deref()) {
                Ok((f, Existing::Fresh)) => Box::new(f),
                Ok((
                    f,
                    Existing::Continue {
                        session_id,
                        used_call_ids,
                        ..
                    },
                )) => {
                    say(&format!(
                        "{shown}: continuing session `{session_id}` ({} calls already recorded)",
                        used_call_ids.len()
                    ));
                    cfg.session_id = session_id;
                    cfg.used_call_ids = used_call_ids;
                    cfg.write_header = false;
                    Box::new(f)
                }
                Ok((_, Existing::Foreign(why))) => {
                    let m = format!(
                        "{shown}: not recording into this log: {why}; use a new --log file"
                    );
                    say(&format!("{m}; forwarding continues"));
                    unusable = Some(m.clone());
                    Box::new(Refused(m))
                }
                Err(e) => {
                    let m = format!("{shown}: cannot open the log: {e}");
                    say(&format!("{m}; forwarding continues, nothing is recorded"));
                    unusable = Some(m.clone());
                    Box::new(Refused(m))
                }
            };
        let mut rec = Recorder::new(cfg, clock, sink);
        let mut shown_kinds: HashSet<String> = HashSet::new();
        let mut flush_notes = |rec: &mut Recorder<Box<dyn LogSink>>| {
            for n in rec.take_notes() {
                // One line per kind of note (the text before the first digit), so a flood of
                // similar problems does not drown the server's own stderr.
                let kind: String = n.chars().take_while(|c| !c.is_ascii_digit()).collect();
                if shown_kinds.insert(kind) {
                    say(&n);
                }
            }
        };
        for t in rx {
            match t {
                Tap::Data(dir, at, bytes) => {
                    rec.feed(dir, at, &bytes);
                    queued.fetch_sub(bytes.len(), Ordering::Relaxed);
                }
                Tap::Gap(dir, lost) => rec.gap(dir, lost),
                Tap::Finish => break,
            }
            flush_notes(&mut rec);
        }
        let stats = rec.finish();
        flush_notes(&mut rec);
        let err = unusable.or_else(|| rec.first_write_error().map(str::to_owned));
        (stats, err)
    }

    impl LogSink for Box<dyn LogSink> {
        fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
            (**self).append(bytes)
        }
    }

    struct RecorderSetup {
        attestor: Attestor,
        log: PathBuf,
        server: String,
        tier: Tier,
        session_id: Option<String>,
        ttl_seconds: u64,
        max_message_bytes: usize,
    }

    fn open_log(
        path: &Path,
        server: &str,
        key: &str,
        session_id: Option<&str>,
    ) -> io::Result<(LogFile, Existing)> {
        let mut f = LogFile::open(path)?;
        if f.is_empty() {
            return Ok((f, Existing::Fresh));
        }
        let bytes = std::fs::read(path)?;
        let ex = examine_existing(&bytes, server, key, session_id);
        match &ex {
            Existing::Continue { complete_len, .. } if *complete_len < f.len() => {
                say(&format!(
                    "{}: cutting an incomplete last line ({} bytes) left by an earlier crash",
                    path.display(),
                    f.len() - complete_len
                ));
                f.truncate(*complete_len)?;
            }
            _ => {}
        }
        Ok((f, ex))
    }

    fn exit_code(status: std::process::ExitStatus) -> (u8, String) {
        use std::os::unix::process::ExitStatusExt;
        if let Some(c) = status.code() {
            (
                u8::try_from(c & 0xff).unwrap_or(1),
                format!("the server exited with status {c}"),
            )
        } else if let Some(sig) = status.signal() {
            (
                u8::try_from((128 + sig) & 0xff).unwrap_or(1),
                format!("the server was killed by signal {sig}"),
            )
        } else {
            (1, format!("the server ended abnormally ({status})"))
        }
    }

    /// Runs the proxy until the server exits; returns the process exit status: the server's
    /// (128 + N when signal N killed it), else [`EXIT_LOG_FAILED`] when calls could not be
    /// written, else 0. 127/126 when the server cannot be started.
    pub fn run(o: ProxyOptions) -> u8 {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Some((program, args)) = o.command.split_first() else {
            say("no server command given (provscope record ... -- SERVER_CMD ARGS...)");
            return 2;
        };
        // Handlers first, so a signal that arrives while the server starts is forwarded.
        let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(s) => Some(s),
            Err(e) => {
                say(&format!(
                    "cannot install signal handlers ({e}); signals are not forwarded"
                ));
                None
            }
        };
        let clock = Clock::start();
        let mut child = match Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                say(&format!(
                    "cannot start `{}`: {e}",
                    program.to_string_lossy()
                ));
                return if e.kind() == io::ErrorKind::NotFound {
                    127
                } else {
                    126
                };
            }
        };
        let pid = rustix::process::Pid::from_child(&child);
        let exited = Arc::new(AtomicBool::new(false));
        let sig_handle = signals.as_ref().map(|s| s.handle());
        if let Some(mut s) = signals.take() {
            let exited = exited.clone();
            std::thread::spawn(move || {
                for sig in s.forever() {
                    if exited.load(Ordering::SeqCst) {
                        continue;
                    }
                    if let Some(sg) = rustix::process::Signal::from_named_raw(sig) {
                        let _ = rustix::process::kill_process(pid, sg);
                    }
                }
            });
        }

        let (tx, rx) = mpsc::channel::<Tap>();
        let queued = Arc::new(AtomicUsize::new(0));
        let tap = TapTx {
            tx: tx.clone(),
            queued: queued.clone(),
        };
        let setup = RecorderSetup {
            attestor: o.attestor,
            log: o.log.clone(),
            server: o.server.clone(),
            tier: o.tier,
            session_id: o.session_id.clone(),
            ttl_seconds: o.ttl_seconds,
            max_message_bytes: o.max_message_bytes,
        };
        let rec_queued = queued.clone();
        let recorder = std::thread::spawn(move || recorder(setup, clock, rx, rec_queued));

        // Unbuffered duplicates of our stdin and stdout: no std buffering, no global locks.
        let fd_file =
            |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().map(std::fs::File::from);
        use std::os::fd::AsFd;
        let (stdin, stdout) = match (fd_file(io::stdin().as_fd()), fd_file(io::stdout().as_fd())) {
            (Ok(i), Ok(o)) => (i, o),
            (Err(e), _) | (_, Err(e)) => {
                say(&format!("cannot use stdin/stdout: {e}"));
                let _ = child.kill();
                let _ = child.wait();
                return 2;
            }
        };
        let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
            say("the server's pipes are missing");
            let _ = child.kill();
            let _ = child.wait();
            return 2;
        };
        let tap_in = tap.clone();
        std::thread::spawn(move || pump(stdin, Some(child_in), Dir::ToServer, tap_in, None));
        let (done_tx, done_rx) = mpsc::channel();
        let tap_out = tap;
        std::thread::spawn(move || {
            pump(
                child_out,
                Some(stdout),
                Dir::ToClient,
                tap_out,
                Some(done_tx),
            )
        });

        let status = loop {
            match child.wait() {
                Ok(s) => break Some(s),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    say(&format!("cannot wait for the server: {e}"));
                    break None;
                }
            }
        };
        exited.store(true, Ordering::SeqCst);
        // Everything the server wrote before exiting is forwarded (and tapped) once its stdout
        // reaches end of file; a grandchild holding the pipe open must not keep us forever.
        if done_rx.recv_timeout(Duration::from_secs(5)).is_err() {
            say("the server's stdout is still open 5 s after it exited (a child process?); stopping");
        }
        let _ = tx.send(Tap::Finish);
        let (stats, write_error) = match recorder.join() {
            Ok(r) => r,
            Err(_) => {
                say("the recorder thread failed; the log may be incomplete");
                (
                    Stats {
                        write_failures: 1,
                        ..Stats::default()
                    },
                    None,
                )
            }
        };
        if let Some(h) = sig_handle {
            h.close();
        }
        let (code, how) = match status {
            Some(s) => exit_code(s),
            None => (1, "the server's status is unknown".to_owned()),
        };
        let mut summary = format!(
            "{how}; {} call(s) recorded in {}",
            stats.recorded,
            o.log.display()
        );
        for (n, what) in [
            (stats.unanswered, "unanswered"),
            (stats.unrecordable, "not recordable"),
            (stats.oversize, "over the size cap"),
        ] {
            if n > 0 {
                summary.push_str(&format!(", {n} {what}"));
            }
        }
        if stats.lost_bytes > 0 {
            summary.push_str(&format!(
                ", {} bytes skipped by a recorder that fell behind",
                stats.lost_bytes
            ));
        }
        if stats.write_failures > 0 || write_error.is_some() {
            summary.push_str(&format!(
                "; {} call(s) could NOT be written ({})",
                stats.write_failures,
                write_error.as_deref().unwrap_or("see above")
            ));
        }
        say(&summary);
        if code != 0 {
            code
        } else if stats.write_failures > 0 || write_error.is_some() {
            EXIT_LOG_FAILED
        } else {
            0
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A server that answers inside `write`: its response is tapped before `write` returns,
        /// the worst case for pairing a response with its request.
        struct InstantServer(TapTx);

        impl Write for InstantServer {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                let mut lost = 0;
                let resp = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n";
                self.0.send(Dir::ToClient, Instant::now(), resp, &mut lost);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }

        #[test]
        fn a_request_is_tapped_before_the_server_can_answer_it() {
            let (tx, rx) = mpsc::channel();
            let tap = TapTx {
                tx,
                queued: Arc::new(AtomicUsize::new(0)),
            };
            let req = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n";
            pump(
                &req[..],
                Some(InstantServer(tap.clone())),
                Dir::ToServer,
                tap,
                None,
            );
            let t0 = Instant::now();
            let mut cfg = super::super::tests::cfg("s");
            cfg.write_header = true;
            let mut r = Recorder::new(cfg, Clock::anchored(Timestamp(0), t0), Vec::new());
            for t in rx.try_iter() {
                if let Tap::Data(d, at, b) = t {
                    r.feed(d, at, &b);
                }
            }
            assert_eq!(r.stats().recorded, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{load_bytes, LoadOptions};

    pub(super) fn cfg(server: &str) -> RecordConfig {
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

    fn rec() -> (Recorder<Vec<u8>>, Instant) {
        let t0 = Instant::now();
        let clock = Clock::anchored(Timestamp::parse("2026-10-02T14:00:00Z").unwrap(), t0);
        (Recorder::new(cfg("everything"), clock, Vec::new()), t0)
    }

    fn ms(t0: Instant, n: u64) -> Instant {
        t0 + std::time::Duration::from_millis(n)
    }

    fn load(bytes: &[u8]) -> crate::model::Session {
        let s = load_bytes("rec", "rec", bytes, &LoadOptions::default());
        assert!(
            s.diagnostics.is_empty(),
            "{:?}\n{}",
            s.diagnostics,
            String::from_utf8_lossy(bytes)
        );
        s
    }

    fn envelope_findings(s: &crate::model::Session) -> Vec<String> {
        crate::check::check_session(s, &crate::check::Config::default())
            .findings
            .into_iter()
            .filter(|f| f.kind.name().starts_with("envelope") || f.kind.name() == "result_tampered")
            .map(|f| format!("{f:?}"))
            .collect()
    }

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
        assert_eq!(r.stats().recorded, 1);
        let s = load(r.sink());
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
        let line = String::from_utf8_lossy(r.sink())
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
        assert_eq!(r.stats().recorded, 2);
        let s = load(r.sink());
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["everything#7", "everything#a"]);
        assert!(s.result("everything#7").unwrap().response.error.is_some());
        assert_eq!(envelope_findings(&s), Vec::<String>::new());
    }

    #[test]
    fn garbage_oversize_and_reused_ids_never_panic() {
        let (mut r, t0) = rec();
        r.cfg.max_message_bytes = 200;
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
        assert_eq!(r.stats().oversize, 1);
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
        let s = load(r.sink());
        let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["everything#4", "everything#4#2"]);
    }

    #[test]
    fn gap_resynchronizes_at_the_next_newline() {
        let (mut r, t0) = rec();
        r.feed(
            Dir::ToServer,
            ms(t0, 1),
            b"{\"id\":1,\"method\":\"tools/call\",\"par",
        );
        r.gap(Dir::ToServer, 10);
        r.feed(
            Dir::ToServer,
            ms(t0, 1),
            b"ams\":{}}\n{\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n",
        );
        r.feed(
            Dir::ToClient,
            ms(t0, 2),
            b"{\"id\":2,\"result\":{\"content\":[]}}\n",
        );
        assert_eq!(r.stats().recorded, 1);
        assert_eq!(r.stats().lost_bytes, 10);
    }

    #[test]
    fn a_failed_write_is_retried_with_the_header() {
        struct Flaky(Vec<u8>, u32);
        impl LogSink for Flaky {
            fn append(&mut self, b: &[u8]) -> io::Result<()> {
                self.1 += 1;
                if self.1 == 1 {
                    return Err(io::Error::other("disk full"));
                }
                self.0.extend_from_slice(b);
                Ok(())
            }
        }
        let t0 = Instant::now();
        let mut r = Recorder::new(
            cfg("s"),
            Clock::anchored(Timestamp(0), t0),
            Flaky(Vec::new(), 0),
        );
        for id in [1, 2] {
            r.feed(
                Dir::ToServer,
                t0,
                format!(
                    "{{\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"t\"}}}}\n"
                )
                .as_bytes(),
            );
            r.feed(
                Dir::ToClient,
                t0,
                format!("{{\"id\":{id},\"result\":{{\"content\":[]}}}}\n").as_bytes(),
            );
        }
        assert_eq!(r.stats().write_failures, 1);
        assert_eq!(r.first_write_error(), Some("disk full"));
        let s = load(&r.sink().0);
        assert!(s.header.is_some());
        assert_eq!(s.calls.len(), 1);
    }

    #[test]
    fn continuing_an_existing_log() {
        let (mut r, t0) = rec();
        r.feed(
            Dir::ToServer,
            t0,
            b"{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n",
        );
        r.feed(
            Dir::ToClient,
            t0,
            b"{\"id\":1,\"result\":{\"content\":[]}}\n",
        );
        let mut log = r.sink().clone();
        log.extend_from_slice(b"{\"event\":\"tool_ca");
        let key = compact(&ed25519_dalek::SigningKey::from_bytes(&[7; 32]).verifying_key());
        let Existing::Continue {
            session_id,
            used_call_ids,
            complete_len,
        } = examine_existing(&log, "everything", &key, None)
        else {
            panic!("not continued");
        };
        assert_eq!(session_id, "sess-test");
        assert!(used_call_ids.contains("everything#1"));
        assert_eq!(complete_len as usize, r.sink().len());
        assert!(matches!(
            examine_existing(&log, "other", &key, None),
            Existing::Foreign(_)
        ));
        assert!(matches!(
            examine_existing(&log, "everything", &key, Some("x")),
            Existing::Foreign(_)
        ));
        assert!(matches!(
            examine_existing(b"hello\n", "everything", &key, None),
            Existing::Foreign(_)
        ));
        assert!(matches!(
            examine_existing(b"", "everything", &key, None),
            Existing::Fresh
        ));
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
