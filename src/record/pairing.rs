//! Pairing every `tools/call` request with its response by JSON-RPC id, and naming calls.

use super::framing::{Probe, Splitter};
use super::writer::LogSink;
use super::{Clock, Dir, RecordConfig};
use crate::model::{CallRequest, RpcId, Timestamp};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::time::Instant;

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
pub(super) struct Pending {
    pub(super) call_id: String,
    pub(super) raw: Box<RawValue>,
    pub(super) request: CallRequest,
    pub(super) issued_at: Timestamp,
}

/// The recording core: feed it the bytes that passed the proxy, in order per direction, and it
/// appends one `tool_call`, `tool_result` and `envelope` per answered `tools/call` to the sink.
pub struct Recorder<S: LogSink> {
    pub(super) cfg: RecordConfig,
    pub(super) clock: Clock,
    pub(super) sink: S,
    pub(super) pending: HashMap<RpcId, Pending>,
    pub(super) header_written: bool,
    pub(super) split: [Splitter; 2],
    pub(super) stats: Stats,
    /// Reports for stderr (first of each kind printed by the proxy; tests read them).
    pub(super) notes: Vec<String>,
    pub(super) first_write_error: Option<String>,
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

    pub(super) fn message(&mut self, dir: Dir, at: Instant, raw: &RawValue) {
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
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;

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
}
