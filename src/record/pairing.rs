//! Pairing requests with responses by JSON-RPC id, exactly, even when a client reuses an id
//! that is still in flight.
//!
//! Responses carry only the id of their request. When a client sends a request whose id is
//! already waiting for a response, a response with that id could answer either, so the proxy
//! gives the later request an id of its own on the way to the server (an alias, a string
//! `provscope-record:<n>` no request in flight uses) and gives the response back to the client
//! with the client's id. Every id the server sees in flight is unique, so every response pairs
//! with exactly one request. Only such a request and its response are rewritten (the id's bytes
//! and nothing else); every other byte is forwarded unchanged.
//!
//! Each request is given a token, carried with its [`Event`]s to the recorder, which pairs by
//! token: the pairing does not depend on the order in which the two forwarding threads' copies
//! reach it.

use super::framing::messages;
use super::Dir;
use crate::model::RpcId;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Instant;

/// The prefix of the ids the proxy gives a request that reuses an id in flight.
pub const ALIAS_PREFIX: &str = "provscope-record:";

/// A request waiting for its response, under the id the server was given.
#[derive(Debug)]
struct InFlight {
    token: u64,
    /// The id as the client wrote it, when the server was given an alias instead.
    client_id: Option<String>,
}

/// The ids in flight between client and server (client-to-server requests only; the server's
/// own requests and their answers use the other id space and are never touched).
#[derive(Debug, Default)]
pub struct Pairing {
    in_flight: HashMap<RpcId, InFlight>,
    next_token: u64,
    next_alias: u64,
}

/// What the recorder needs from one message.
#[derive(Debug)]
pub enum Event {
    /// A `tools/call` request, as the client sent it.
    Request {
        /// Pairs it with its response.
        token: u64,
        /// The id the client gave it.
        id: RpcId,
        /// The request as sent by the client.
        raw: Box<RawValue>,
        /// When it passed the proxy.
        at: Instant,
    },
    /// A response to a client request, as given to the client (with the client's id).
    Response {
        /// The token of its request.
        token: u64,
        /// The response as delivered.
        raw: Box<RawValue>,
        /// When it passed the proxy.
        at: Instant,
    },
    /// A request reused an id in flight; the server was given `alias` instead.
    Aliased {
        /// The reused id.
        id: RpcId,
        /// The id the server was given.
        alias: String,
    },
}

impl Pairing {
    /// A request with `id` (its text as written: `raw_id`) goes to the server: its token, and
    /// the alias (JSON text) the server must be given instead when `id` is in flight.
    pub fn request(&mut self, id: RpcId, raw_id: &str) -> (u64, Option<String>) {
        let token = self.next_token;
        self.next_token += 1;
        if let std::collections::hash_map::Entry::Vacant(v) = self.in_flight.entry(id) {
            v.insert(InFlight {
                token,
                client_id: None,
            });
            return (token, None);
        }
        let alias = loop {
            let a = format!("{ALIAS_PREFIX}{}", self.next_alias);
            self.next_alias += 1;
            if !self.in_flight.contains_key(&RpcId::Str(a.as_str().into())) {
                break a;
            }
        };
        self.in_flight.insert(
            RpcId::Str(alias.as_str().into()),
            InFlight {
                token,
                client_id: Some(raw_id.to_owned()),
            },
        );
        let text = serde_json::Value::String(alias).to_string();
        (token, Some(text))
    }

    /// A response with `id` comes from the server: the token of its request and, when the
    /// request was aliased, the client's id (JSON text) to give the response back with.
    /// `None` when no request with that id is in flight.
    pub fn response(&mut self, id: &RpcId) -> Option<(u64, Option<String>)> {
        self.in_flight.remove(id).map(|f| (f.token, f.client_id))
    }

    /// Requests still waiting for a response.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }
}

/// Byte ranges of a line to replace, with their replacement.
type Splices = Vec<(usize, usize, String)>;

/// Where `part` (a subslice of `whole`) starts in `whole`.
fn offset(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

fn apply(text: &str, splices: &[(usize, usize, String)]) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    let mut at = 0;
    for (start, end, with) in splices {
        out.push_str(&text[at..*start]);
        out.push_str(with);
        at = *end;
    }
    out.push_str(&text[at..]);
    out
}

/// One complete line (with its newline) going in direction `dir` at `at`: the bytes to forward
/// (the line itself, or with ids rewritten) and the events for the recorder.
pub fn relay_line<'l>(
    pairing: &mut Pairing,
    dir: Dir,
    at: Instant,
    line: &'l [u8],
) -> (Cow<'l, [u8]>, Vec<Event>) {
    let mut events = Vec::new();
    let msgs = messages(line);
    if msgs.is_empty() {
        return (Cow::Borrowed(line), events);
    }
    // `messages` borrows from the line's text: offsets are taken against it.
    let Ok(text) = std::str::from_utf8(line) else {
        return (Cow::Borrowed(line), events);
    };
    let mut splices: Splices = Vec::new();
    for m in msgs {
        let Some(raw_id) = m.id else { continue };
        let Ok(id) = serde_json::from_str::<RpcId>(raw_id.get()) else {
            continue; // an id that is not a string or number: nothing to pair
        };
        let (Some(id_at), Some(msg_at)) = (offset(text, raw_id.get()), offset(text, m.raw.get()))
        else {
            continue;
        };
        let id_range = (id_at, id_at + raw_id.get().len());
        match (dir, &m.method) {
            (Dir::ToServer, Some(method)) => {
                let (token, alias) = pairing.request(id.clone(), raw_id.get());
                if let Some(a) = &alias {
                    splices.push((id_range.0, id_range.1, a.clone()));
                    events.push(Event::Aliased {
                        id: id.clone(),
                        alias: a.clone(),
                    });
                }
                if method == "tools/call" {
                    events.push(Event::Request {
                        token,
                        id,
                        raw: m.raw.to_owned(),
                        at,
                    });
                }
            }
            (Dir::ToClient, None) => {
                let Some((token, client_id)) = pairing.response(&id) else {
                    continue; // answers nothing in flight: forwarded, not paired
                };
                let raw = match client_id {
                    None => m.raw.to_owned(),
                    Some(cid) => {
                        let rel = (id_range.0 - msg_at, id_range.1 - msg_at);
                        let delivered = apply(m.raw.get(), &[(rel.0, rel.1, cid.clone())]);
                        splices.push((id_range.0, id_range.1, cid));
                        match RawValue::from_string(delivered) {
                            Ok(r) => r,
                            Err(_) => continue,
                        }
                    }
                };
                events.push(Event::Response { token, raw, at });
            }
            // The server's own requests, and the client's answers to them.
            _ => {}
        }
    }
    if splices.is_empty() {
        (Cow::Borrowed(line), events)
    } else {
        (Cow::Owned(apply(text, &splices).into_bytes()), events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relay(p: &mut Pairing, dir: Dir, line: &str) -> (String, Vec<Event>) {
        let (out, ev) = relay_line(p, dir, Instant::now(), line.as_bytes());
        (String::from_utf8(out.into_owned()).unwrap(), ev)
    }

    #[test]
    fn a_reused_id_in_flight_gets_an_alias_and_its_response_the_client_id_back() {
        let mut p = Pairing::default();
        let a = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a"}}"#;
        let b = r#"{"jsonrpc":"2.0", "id" : 7 ,"method":"tools/call","params":{"name":"b"}}"#;
        let (out, _) = relay(&mut p, Dir::ToServer, &format!("{a}\n"));
        assert_eq!(out, format!("{a}\n"));
        let (out, ev) = relay(&mut p, Dir::ToServer, &format!("{b}\n"));
        assert_eq!(out, b.replace(" 7 ", " \"provscope-record:0\" ") + "\n");
        assert!(
            matches!(&ev[0], Event::Aliased { alias, .. } if alias == "\"provscope-record:0\"")
        );
        let Event::Request { raw, .. } = &ev[1] else {
            panic!("{ev:?}")
        };
        assert_eq!(
            raw.get(),
            b,
            "the request is recorded as the client sent it"
        );
        // The server answers the second first.
        let (out, ev) = relay(
            &mut p,
            Dir::ToClient,
            "{\"id\":\"provscope-record:0\",\"result\":{\"content\":[]}}\r\n",
        );
        assert_eq!(out, "{\"id\":7,\"result\":{\"content\":[]}}\r\n");
        let Event::Response { token, raw, .. } = &ev[0] else {
            panic!()
        };
        assert_eq!(
            (*token, raw.get()),
            (1, "{\"id\":7,\"result\":{\"content\":[]}}")
        );
        let (out, ev) = relay(&mut p, Dir::ToClient, "{\"id\":7,\"result\":{}}\n");
        assert_eq!(out, "{\"id\":7,\"result\":{}}\n");
        assert!(matches!(ev[0], Event::Response { token: 0, .. }));
        assert_eq!(p.in_flight(), 0);
    }

    #[test]
    fn batches_notifications_and_the_servers_own_requests() {
        let mut p = Pairing::default();
        relay(
            &mut p,
            Dir::ToServer,
            "{\"id\":\"x\",\"method\":\"ping\"}\n",
        );
        let (out, ev) = relay(
            &mut p,
            Dir::ToServer,
            "[{\"id\":\"x\",\"method\":\"tools/call\"},{\"method\":\"n\"},{\"id\":\"x\",\"result\":{}}]\n",
        );
        // The second "x" in the batch is a response to a server request: untouched.
        assert_eq!(
            out,
            "[{\"id\":\"provscope-record:0\",\"method\":\"tools/call\"},{\"method\":\"n\"},{\"id\":\"x\",\"result\":{}}]\n"
        );
        assert_eq!(ev.len(), 2);
        // A server request with a colliding id does not answer anything.
        let (out, ev) = relay(
            &mut p,
            Dir::ToClient,
            "{\"id\":\"x\",\"method\":\"roots/list\"}\n",
        );
        assert_eq!(out, "{\"id\":\"x\",\"method\":\"roots/list\"}\n");
        assert!(ev.is_empty());
        assert_eq!(p.in_flight(), 2);
    }

    #[test]
    fn an_alias_never_collides_with_a_client_id() {
        let mut p = Pairing::default();
        for line in [
            "{\"id\":\"provscope-record:0\",\"method\":\"m\"}\n",
            "{\"id\":\"provscope-record:0\",\"method\":\"m\"}\n",
        ] {
            relay(&mut p, Dir::ToServer, line);
        }
        let (out, _) = relay(
            &mut p,
            Dir::ToServer,
            "{\"id\":\"provscope-record:0\",\"method\":\"m\"}\n",
        );
        assert_eq!(out, "{\"id\":\"provscope-record:2\",\"method\":\"m\"}\n");
        assert_eq!(p.in_flight(), 3);
    }
}
