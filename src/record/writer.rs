//! Writing recorded calls: the [`Recorder`] (paired events in, log lines out), the log sinks (an
//! fsynced file, memory), the lines of one answered call (header, `tool_call`, `tool_result`,
//! `envelope`), and continuing an existing log.

use super::pairing::Event;
use super::{Clock, Dir, RecordConfig, RECORDED_TURN};
use crate::attest::envelope::{event_line, seal, Observed};
use crate::attest::hash::{arguments_hash, scan_json};
use crate::attest::keys::compact;
use crate::model::event::{CacheInfo, IngestTag, ServerInfo, SessionHeader, SpanUnit};
use crate::model::{CallRequest, RpcId};
use crate::model::{CallResponse, Timestamp, FORMAT_VERSION};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;
use std::time::Instant;

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
    /// Requests that reused an id in flight and were given an alias (see `pairing`).
    pub aliased: u64,
    /// Bytes the recorder never saw because it fell behind (see [`super::TAP_BUDGET_BYTES`]).
    pub lost_bytes: u64,
}

/// A path in a call and the number found there, as written.
type PathAndNumber = (String, String);

/// A `tools/call` request waiting for its response.
struct Pending {
    call_id: String,
    raw: Box<RawValue>,
    request: CallRequest,
    issued_at: Timestamp,
}

/// The recording core: give it the [`Event`]s of the traffic (from `pairing::relay_line`) and
/// it appends one `tool_call`, `tool_result` and `envelope` per answered `tools/call` to the
/// sink. Requests and responses pair by token, whatever order their events arrive in.
pub struct Recorder<S: LogSink> {
    cfg: RecordConfig,
    clock: Clock,
    sink: S,
    pending: HashMap<u64, Pending>,
    header_written: bool,
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

    /// One event of the traffic.
    pub fn event(&mut self, e: Event) {
        match e {
            Event::Request { token, id, raw, at } => self.request(token, &id, raw, at),
            Event::Response { token, raw, at } => {
                if let Some(p) = self.pending.remove(&token) {
                    let at = self.clock.at(at);
                    self.respond(p, &raw, at);
                }
            }
            Event::Aliased { id, alias } => {
                self.stats.aliased += 1;
                self.notes.push(format!(
                    "the client reused JSON-RPC id {} while a request with that id was still \
                     waiting; the server was given id {alias} for the later one and its response \
                     goes back to the client with id {}, so each call is recorded with its own \
                     result",
                    id.as_text(),
                    id.as_text()
                ));
            }
        }
    }

    /// A message of `len`+ bytes from `dir` was over the recording cap.
    pub fn oversize(&mut self, dir: Dir, len: usize) {
        self.stats.oversize += 1;
        self.notes.push(format!(
            "a message of {len}+ bytes from {} is over the {} byte recording cap \
             (--max-line-bytes); forwarded but not recorded",
            dir.sender(),
            self.cfg.max_message_bytes
        ));
    }

    /// Events of direction `dir` were not seen (the recorder fell behind).
    pub fn gap(&mut self, dir: Dir, lost: u64) {
        self.stats.lost_bytes += lost;
        self.notes.push(format!(
            "the recorder fell behind and skipped {lost} bytes from {}; calls in them are not \
             recorded",
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
                "{} tools/call request(s) had no response when the session ended and are not \
                 recorded ({}{})",
                self.pending.len(),
                ids.join(", "),
                if self.pending.len() > 5 { ", ..." } else { "" }
            ));
        }
        self.pending.clear();
        self.stats.clone()
    }

    fn request(&mut self, token: u64, id: &RpcId, raw: Box<RawValue>, at: Instant) {
        let request = match serde_json::from_str::<CallRequest>(raw.get()) {
            Ok(r) => r,
            Err(e) => {
                self.stats.unrecordable += 1;
                self.notes.push(format!(
                    "tools/call request {} is not recordable ({e}); forwarded, not recorded",
                    id.as_text()
                ));
                return;
            }
        };
        let call_id = self.new_call_id(id);
        let issued_at = self.clock.at(at);
        self.pending.insert(
            token,
            Pending {
                call_id,
                raw,
                request,
                issued_at,
            },
        );
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
            Ok((buf, inexact)) => match self.sink.append(&buf) {
                Ok(()) => {
                    self.header_written = true;
                    self.stats.recorded += 1;
                    if let Some((path, n)) = inexact {
                        self.notes.push(format!(
                            "call {} holds a number RFC 8785 canonical JSON cannot represent \
                             exactly ({path} = {n}); recorded, but its envelope cannot vouch for \
                             that exact value",
                            p.call_id
                        ));
                    }
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
    /// With them, the first number (path, as written) RFC 8785 cannot represent exactly, if any.
    fn lines_for(
        &self,
        p: &Pending,
        raw: &RawValue,
        at: Timestamp,
    ) -> Result<(Vec<u8>, Option<PathAndNumber>), Unrecordable> {
        let mut inexact = None;
        for (what, text) in [("request", p.raw.get()), ("response", raw.get())] {
            let scan = scan_json(text);
            if inexact.is_none() {
                inexact = scan
                    .inexact
                    .into_iter()
                    .next()
                    .map(|(path, n)| (format!("{what}.{path}"), n));
            }
            if let Some((path, key)) = scan.duplicate_key {
                let at = if path.is_empty() {
                    "top level".into()
                } else {
                    path
                };
                return Err(Unrecordable::DuplicateKey { what, key, at });
            }
        }
        let response: CallResponse =
            serde_json::from_str(raw.get()).map_err(Unrecordable::NotAResponse)?;
        let cfg = &self.cfg;
        let args = p.request.params.arguments.as_deref();
        let tool = p.request.params.name.as_str();
        let tag = IngestTag {
            call_id: p.call_id.as_str().into(),
            server: cfg.server.as_str().into(),
            tool: tool.into(),
            arguments_hash: arguments_hash(args)?.into(),
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
            returned_at: tag.returned_at,
            fetched_at: tag.fetched_at,
            ttl_seconds: tag.ttl_seconds,
            cache: &tag.cache,
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
        Ok((buf, inexact))
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
            receipt_keys: Vec::new(),
            title: self.cfg.title.clone(),
        }
    }
}

/// Why an answered call cannot be recorded (it is still forwarded).
#[derive(Debug, thiserror::Error)]
pub enum Unrecordable {
    /// A duplicate key: a hash would see only one of its values.
    #[error(
        "the {what} has the key `{key}` twice in one object ({at}): a hash would see only one of \
         its values"
    )]
    DuplicateKey {
        /// `request` or `response`.
        what: &'static str,
        /// The key.
        key: String,
        /// Where (a JSON path, or `top level`).
        at: String,
    },
    /// The response is not a JSON-RPC response.
    #[error("not a JSON-RPC response: {0}")]
    NotAResponse(serde_json::Error),
    /// An event could not be serialized.
    #[error("cannot serialize an event: {0}")]
    Serialize(serde_json::Error),
    /// The arguments or result have no canonical form to hash or seal.
    #[error(transparent)]
    Hash(#[from] crate::attest::hash::HashError),
    /// The envelope could not be sealed.
    #[error(transparent)]
    Seal(#[from] crate::attest::envelope::StatementError),
}

/// Appends one event as a JSON line.
fn push_line<T: Serialize>(buf: &mut Vec<u8>, v: &T) -> Result<(), Unrecordable> {
    serde_json::to_writer(&mut *buf, v).map_err(Unrecordable::Serialize)?;
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
            ..crate::ingest::LoadOptions::default()
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
        used_call_ids: s.calls.iter().map(|c| c.id.to_string()).collect(),
        complete_len: complete_len as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;
    use super::*;

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
        let mut r = Core::new(
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
        let r = r.recorder();
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
        let mut log = r.recorder().sink().clone();
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
        assert_eq!(complete_len as usize, r.recorder().sink().len());
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
}
