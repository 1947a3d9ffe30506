//! Streamed model responses saved as received: server-sent events (`text/event-stream`, what
//! `curl -N`, an SDK's raw stream or a cassette of a streamed call holds). The events are read
//! as the HTML standard's event stream parsing says, and each API's events are put back
//! together into the whole responses they stream, which are then read as response files are.

use crate::ingest::strip_pos;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One event of a stream whose data is JSON.
#[derive(Clone, Debug)]
pub struct Event {
    /// 1-based line of the event's first field.
    pub line: u64,
    /// The `event:` field, if any.
    pub name: Option<String>,
    /// The `data:` lines, joined by newlines and read as JSON.
    pub data: Value,
}

impl Event {
    /// The event's type: its data's `type`, else its `event:` name.
    fn kind(&self) -> &str {
        self.data
            .get("type")
            .and_then(Value::as_str)
            .or(self.name.as_deref())
            .unwrap_or("")
    }
}

/// A problem found reading a stream, at a 1-based line (0 when it concerns the whole stream).
#[derive(Debug, PartialEq, Eq)]
pub struct Problem {
    /// Line of the event concerned.
    pub line: u64,
    /// One sentence.
    pub message: String,
}

impl Problem {
    /// The problem as said of a recorded body (a cassette's), whose lines are not the file's.
    pub fn in_body(&self) -> String {
        format!("line {} of the streamed body: {}", self.line, self.message)
    }
}

fn problem(line: u64, message: impl Into<String>) -> Problem {
    Problem {
        line,
        message: message.into(),
    }
}

/// The whole responses a stream makes, each with the line of its first event, and what was
/// wrong on the way.
#[derive(Debug, Default)]
pub struct Assembled {
    /// The responses, in stream order.
    pub responses: Vec<(u64, Value)>,
    /// Problems, in stream order.
    pub problems: Vec<Problem>,
}

/// Where an assembler puts what it makes, as soon as it has it: each response once it is
/// complete (a stream of many responses never holds them all), and each problem.
pub trait Out {
    /// A whole response, with the line of its first event.
    fn response(&mut self, line: u64, response: Value);
    /// What was wrong on the way.
    fn problem(&mut self, problem: Problem);
}

impl Out for Assembled {
    fn response(&mut self, line: u64, response: Value) {
        self.responses.push((line, response));
    }

    fn problem(&mut self, problem: Problem) {
        self.problems.push(problem);
    }
}

/// Whether `text` (a file, or a recorded body) is an event stream: its first line that is not
/// blank is an `event:`, `data:`, `id:` or `retry:` field, or a `:` comment followed later by a
/// `data:` field.
pub fn starts_as_sse(text: &str) -> bool {
    // The first line's start is the text's: no search for its end (a JSON document's one line
    // may be the whole file).
    let t = text.trim_start_matches('\u{feff}').trim_start();
    ["event:", "data:", "id:", "retry:"]
        .iter()
        .any(|f| t.starts_with(f))
        || (t.starts_with(':') && t.lines().any(|l| l.starts_with("data:")))
}

/// The data of the first event of a stream's head that has data, when it looks like a JSON
/// object (for detection: its keys tell which API streamed it).
pub fn first_data(text: &str) -> Option<&str> {
    let t = text.trim_start_matches('\u{feff}');
    t.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d).trim_end_matches('\r'))
        .find(|d| d.trim_start().starts_with('{'))
}

/// The events of a stream, in order, with the problems found. An event is dispatched at a
/// blank line, and also at the end of the text (a file saved without its last blank line
/// keeps its last event). `data:` lines are joined with newlines; a `:` line is a comment;
/// `id:`, `retry:` and unknown fields are ignored; an event without data is not one. Data that
/// is `[DONE]` (OpenAI's end marker) is no event; other data that is not JSON is a problem.
pub fn events(text: &str) -> (Vec<Event>, Vec<Problem>) {
    let mut it = Events::new(text);
    let out = it.by_ref().collect();
    (out, it.problems)
}

/// The events of a stream one at a time, as [`events`] reads them, so that an assembler can
/// fold each into the response it builds and drop it (a stream of many events never holds
/// them all). The problems found so far are in `problems`, in stream order.
pub struct Events<'t> {
    lines: std::iter::Enumerate<Lines<'t>>,
    ev: Pending<'t>,
    ended: bool,
    /// What was wrong with the events read so far.
    pub problems: Vec<Problem>,
}

impl<'t> Events<'t> {
    /// The events of `text` (a byte order mark at its start is skipped).
    pub fn new(text: &'t str) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Events {
            lines: Lines { rest: text }.enumerate(),
            ev: Pending::default(),
            ended: false,
            problems: Vec::new(),
        }
    }
}

impl Iterator for Events<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        loop {
            let Some((i, line)) = self.lines.next() else {
                if std::mem::replace(&mut self.ended, true) {
                    return None;
                }
                // The end of the text ends the last event.
                return self.ev.dispatch(&mut self.problems);
            };
            if line.is_empty() {
                match self.ev.dispatch(&mut self.problems) {
                    Some(e) => return Some(e),
                    None => continue,
                }
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line, ""),
            };
            let ev = &mut self.ev;
            if ev.start == 0 {
                ev.start = i as u64 + 1;
            }
            match field {
                "event" => ev.name = Some(value),
                "data" => match &mut ev.data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => ev.data = Some(value.to_owned()),
                },
                _ => {}
            }
        }
    }
}

/// The lines of a text, ending at CRLF, LF or CR (as an event stream's lines do).
struct Lines<'t> {
    rest: &'t str,
}

impl<'t> Iterator for Lines<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self.rest.find(['\r', '\n']).unwrap_or(self.rest.len());
        let line = &self.rest[..end];
        let after = &self.rest[end..];
        self.rest = match after.strip_prefix("\r\n") {
            Some(r) => r,
            // A CR or LF: one byte.
            None => after.get(1..).unwrap_or(""),
        };
        Some(line)
    }
}

/// The event being read: its name, its `data:` lines joined (`None` before the first), and the
/// line of its first field (0 before it).
#[derive(Default)]
struct Pending<'t> {
    name: Option<&'t str>,
    data: Option<String>,
    start: u64,
}

impl Pending<'_> {
    /// Ends the event and starts the next: an [`Event`] when its data is JSON, a problem when it
    /// is not, nothing without data or for `[DONE]`.
    fn dispatch(&mut self, problems: &mut Vec<Problem>) -> Option<Event> {
        let Pending { name, data, start } = std::mem::take(self);
        let data = data.filter(|d| d.trim() != "[DONE]")?;
        match serde_json::from_str::<Value>(&data) {
            Ok(v) => Some(Event {
                line: start,
                name: name.map(str::to_owned),
                data: v,
            }),
            Err(e) => {
                problems.push(problem(
                    start,
                    format!(
                        "the data of this event is not JSON ({}); the event is skipped",
                        strip_pos(&e.to_string())
                    ),
                ));
                None
            }
        }
    }
}

/// `name` as the one of `names` it equals (a static name that outlives the event it was read
/// from), if any.
fn one_of(names: &[&'static str], name: &str) -> Option<&'static str> {
    names.iter().copied().find(|n| *n == name)
}

/// An `error` event: a problem naming the API's message.
fn error_event(ev: &Event) -> Problem {
    let msg = ev
        .data
        .pointer("/error/message")
        .or_else(|| ev.data.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("no message");
    problem(ev.line, format!("the stream carries an error event: {msg}"))
}

/// The Anthropic messages a Messages API stream makes: `message_start` holds the message
/// without content; `content_block_start` adds the block at `index`; `content_block_delta`
/// adds to it (`text_delta` text, `input_json_delta` pieces of a tool's input read as JSON at
/// `content_block_stop`, `citations_delta` a citation, `thinking_delta`, `signature_delta`);
/// `message_delta` sets the message's `stop_reason` and usage; `message_stop` ends it. A stream
/// cut before `message_stop` gives the message as far as it came, with a problem saying so.
pub fn anthropic(events: impl IntoIterator<Item = Event>, out: &mut impl Out) {
    struct Open {
        line: u64,
        message: Map<String, Value>,
        blocks: BTreeMap<u64, Value>,
        json: BTreeMap<u64, (u64, String)>,
    }
    fn close(o: Open, out: &mut impl Out) {
        let Open {
            line,
            mut message,
            mut blocks,
            json,
        } = o;
        for (index, (at, text)) in json {
            if text.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(&text) {
                Ok(v) => {
                    if let Some(Value::Object(b)) = blocks.get_mut(&index) {
                        b.insert("input".into(), v);
                    }
                }
                Err(e) => out.problem(problem(
                    at,
                    format!(
                        "the streamed input of content block {index} is not JSON ({}); the block keeps the input it started with",
                        strip_pos(&e.to_string())
                    ),
                )),
            }
        }
        message.insert(
            "content".into(),
            Value::Array(blocks.into_values().collect()),
        );
        out.response(line, Value::Object(message));
    }
    let mut open: Option<Open> = None;
    for mut ev in events {
        // The kind as a static name: each event's data is taken apart below.
        let Some(kind) = one_of(
            &[
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
                "error",
            ],
            ev.kind(),
        ) else {
            continue;
        };
        match kind {
            "message_start" => {
                if let Some(o) = open.take() {
                    out.problem(problem(ev.line, "a message starts before the previous one's message_stop: the previous message is read as far as it came"));
                    close(o, out);
                }
                match ev.data.get_mut("message").and_then(Value::as_object_mut) {
                    Some(m) => {
                        let mut blocks = BTreeMap::new();
                        // A message may start with content already (taken out: the content
                        // is set again, in its place, when the message closes).
                        if let Some(Value::Array(c)) = m.get_mut("content").map(Value::take) {
                            blocks.extend((0u64..).zip(c));
                        }
                        open = Some(Open {
                            line: ev.line,
                            message: std::mem::take(m),
                            blocks,
                            json: BTreeMap::new(),
                        });
                    }
                    None => out.problem(problem(
                        ev.line,
                        "a message_start without a `message` object; skipped",
                    )),
                }
            }
            "content_block_start" | "content_block_delta" | "content_block_stop" => {
                let Some(o) = open.as_mut() else {
                    out.problem(problem(
                        ev.line,
                        format!("a {kind} event outside a message (no message_start before it); skipped"),
                    ));
                    continue;
                };
                let Some(index) = ev.data.get("index").and_then(Value::as_u64) else {
                    out.problem(problem(
                        ev.line,
                        format!("a {kind} event without a numeric `index`; skipped"),
                    ));
                    continue;
                };
                match kind {
                    "content_block_start" => {
                        let block = ev.data.get_mut("content_block").map(Value::take);
                        o.blocks.insert(index, block.unwrap_or(Value::Null));
                    }
                    "content_block_delta" => {
                        let mut delta = ev.data.get_mut("delta").map(Value::take);
                        let dkind = delta
                            .as_ref()
                            .and_then(|d| d.get("type"))
                            .and_then(Value::as_str)
                            .and_then(|t| {
                                one_of(
                                    &[
                                        "input_json_delta",
                                        "text_delta",
                                        "thinking_delta",
                                        "signature_delta",
                                        "citations_delta",
                                    ],
                                    t,
                                )
                            })
                            .unwrap_or("");
                        if dkind == "input_json_delta" {
                            let piece = delta
                                .as_ref()
                                .and_then(|d| d.get("partial_json"))
                                .and_then(Value::as_str)
                                .unwrap_or("");
                            o.json
                                .entry(index)
                                .or_insert_with(|| (ev.line, String::new()))
                                .1
                                .push_str(piece);
                            continue;
                        }
                        let Some(Value::Object(block)) = o.blocks.get_mut(&index) else {
                            out.problem(problem(
                                ev.line,
                                format!("a delta of content block {index}, which did not start; skipped"),
                            ));
                            continue;
                        };
                        let mut field =
                            |f: &str| delta.as_mut().and_then(|d| d.get_mut(f)).map(Value::take);
                        match dkind {
                            "text_delta" => append(block, "text", field("text")),
                            "thinking_delta" => append(block, "thinking", field("thinking")),
                            "signature_delta" => {
                                if let Some(v) = field("signature") {
                                    block.insert("signature".into(), v);
                                }
                            }
                            "citations_delta" => {
                                if let Some(c) = field("citation") {
                                    let list = block
                                        .entry("citations")
                                        .or_insert_with(|| Value::Array(Vec::new()));
                                    if !list.is_array() {
                                        *list = Value::Array(Vec::new());
                                    }
                                    if let Value::Array(l) = list {
                                        l.push(c);
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                let Some(o) = open.as_mut() else { continue };
                if let Some(Value::Object(d)) = ev.data.get_mut("delta").map(Value::take) {
                    for (k, v) in d {
                        o.message.insert(k, v);
                    }
                }
                if let Some(Value::Object(u)) = ev.data.get_mut("usage").map(Value::take) {
                    let usage = o
                        .message
                        .entry("usage")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(into) = usage {
                        for (k, v) in u {
                            into.insert(k, v);
                        }
                    } else {
                        *usage = Value::Object(u);
                    }
                }
            }
            "message_stop" => match open.take() {
                Some(o) => close(o, out),
                None => out.problem(problem(
                    ev.line,
                    "a message_stop without a message_start before it; skipped",
                )),
            },
            "error" => out.problem(error_event(&ev)),
            _ => {}
        }
    }
    if let Some(o) = open.take() {
        out.problem(problem(
            o.line,
            "the stream ends before this message's message_stop: the message is read as far as it came",
        ));
        close(o, out);
    }
}

/// Appends a streamed piece of text to `block[key]`.
fn append(block: &mut Map<String, Value>, key: &str, piece: Option<Value>) {
    let Some(Value::String(piece)) = piece else {
        return;
    };
    match block.get_mut(key) {
        Some(Value::String(t)) => t.push_str(&piece),
        _ => {
            block.insert(key.into(), Value::String(piece));
        }
    }
}

/// The OpenAI responses a Responses API stream makes: the `response` of each
/// `response.completed`, `response.incomplete` or `response.failed` event, which holds the whole
/// output. A stream cut before it gives the response of its last `response.created` or
/// `response.in_progress` event with the output items finished so far
/// (`response.output_item.done`; an item only started, with the content parts finished so far),
/// with a problem saying so.
pub fn openai(events: impl IntoIterator<Item = Event>, out: &mut impl Out) {
    struct Open {
        line: u64,
        response: Value,
        items: BTreeMap<u64, Value>,
        done: BTreeSet<u64>,
    }
    let mut open: Option<Open> = None;
    fn cut(o: Open, out: &mut impl Out) {
        let Open {
            line,
            mut response,
            items,
            done,
        } = o;
        let unfinished = items.keys().filter(|k| !done.contains(k)).count();
        out.problem(problem(
            line,
            format!(
                "the stream ends before response.completed: the response is read from the {} output item{} finished{}",
                done.len(),
                if done.len() == 1 { "" } else { "s" },
                if unfinished > 0 {
                    format!(" and {unfinished} started (with the content parts finished)")
                } else {
                    String::new()
                }
            ),
        ));
        if let Value::Object(r) = &mut response {
            r.insert("output".into(), Value::Array(items.into_values().collect()));
        }
        out.response(line, response);
    }
    for mut ev in events {
        // The kind as a static name: each event's data is taken apart below.
        let Some(kind) = one_of(
            &[
                "response.created",
                "response.queued",
                "response.in_progress",
                "response.output_item.added",
                "response.output_item.done",
                "response.content_part.done",
                "response.completed",
                "response.incomplete",
                "response.failed",
                "error",
            ],
            ev.kind(),
        ) else {
            continue;
        };
        let index = ev.data.get("output_index").and_then(Value::as_u64);
        match kind {
            "response.created" | "response.queued" | "response.in_progress" => {
                let Some(r) = ev
                    .data
                    .get_mut("response")
                    .filter(|r| r.is_object())
                    .map(Value::take)
                else {
                    continue;
                };
                let same = open.as_ref().is_some_and(|o| {
                    o.response.get("id").is_some() && o.response.get("id") == r.get("id")
                });
                if same {
                    if let Some(o) = open.as_mut() {
                        o.response = r;
                    }
                } else {
                    if let Some(o) = open.take() {
                        cut(o, out);
                    }
                    open = Some(Open {
                        line: ev.line,
                        response: r,
                        items: BTreeMap::new(),
                        done: BTreeSet::new(),
                    });
                }
            }
            "response.output_item.added" | "response.output_item.done" => {
                let item = ev.data.get_mut("item").map(Value::take);
                let (Some(o), Some(i), Some(item)) = (open.as_mut(), index, item) else {
                    continue;
                };
                if kind.ends_with(".done") {
                    o.items.insert(i, item);
                    o.done.insert(i);
                } else if !o.done.contains(&i) {
                    o.items.insert(i, item);
                }
            }
            "response.content_part.done" => {
                let (Some(o), Some(i)) = (open.as_mut(), index) else {
                    continue;
                };
                let ci = ev.data.get("content_index").and_then(Value::as_u64);
                let (Some(ci), Some(part)) = (ci, ev.data.get_mut("part").map(Value::take)) else {
                    continue;
                };
                if o.done.contains(&i) {
                    continue;
                }
                if let Some(Value::Object(item)) = o.items.get_mut(&i) {
                    let content = item
                        .entry("content")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(parts) = content {
                        let ci = usize::try_from(ci).unwrap_or(usize::MAX);
                        if ci < parts.len() {
                            parts[ci] = part;
                        } else if ci == parts.len() {
                            parts.push(part);
                        }
                    }
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let start = open.take().map_or(ev.line, |o| o.line);
                match ev
                    .data
                    .get_mut("response")
                    .filter(|r| r.is_object())
                    .map(Value::take)
                {
                    Some(r) => out.response(start, r),
                    None => out.problem(problem(
                        ev.line,
                        format!("a {kind} event without a `response` object; skipped"),
                    )),
                }
            }
            "error" => out.problem(error_event(&ev)),
            _ => {}
        }
    }
    if let Some(o) = open.take() {
        cut(o, out);
    }
}

/// The Gemini responses a `streamGenerateContent?alt=sse` stream makes: each event's data is a
/// chunk, joined as a JSON array of chunks is ([`super::stream::join_gemini_chunks`]).
pub fn gemini(events: impl IntoIterator<Item = Event>, out: &mut impl Out) {
    let (lines, chunks): (Vec<u64>, Vec<Value>) =
        events.into_iter().map(|e| (e.line, e.data)).unzip();
    for (range, v) in super::stream::join_gemini_chunks(&chunks) {
        out.response(lines.get(range.start).copied().unwrap_or(0), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assembled(f: impl FnOnce(&mut Assembled)) -> Assembled {
        let mut out = Assembled::default();
        f(&mut out);
        out
    }

    /// What an assembler pulled and gave, in order: `event LINE` as each event is read from
    /// the stream, `response LINE` as each response is given out.
    fn order(
        text: &str,
        assemble: impl FnOnce(&mut dyn Iterator<Item = Event>, &mut Log),
    ) -> Vec<String> {
        let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let pulled = log.clone();
        let mut events = Events::new(text)
            .inspect(move |e| pulled.borrow_mut().push(format!("event {}", e.line)));
        assemble(&mut events, &mut Log(log.clone()));
        let v = log.borrow().clone();
        v
    }

    struct Log(std::rc::Rc<std::cell::RefCell<Vec<String>>>);

    impl Out for Log {
        fn response(&mut self, line: u64, _: Value) {
            self.0.borrow_mut().push(format!("response {line}"));
        }
        fn problem(&mut self, _: Problem) {}
    }

    /// Each response is given out as soon as it is complete, before the next one's events are
    /// read: a stream of many responses holds neither all its events nor all its responses.
    #[test]
    fn responses_are_given_out_before_the_next_events_are_read() {
        let message = |id: &str| {
            vec![
                (
                    "message_start",
                    json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant", "content": []}}),
                ),
                (
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ),
                (
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
                ),
                (
                    "content_block_stop",
                    json!({"type": "content_block_stop", "index": 0}),
                ),
                ("message_stop", json!({"type": "message_stop"})),
            ]
        };
        let text = sse(&[message("m1"), message("m2")].concat());
        // Five events of three lines each: the second message starts at line 16.
        let got = order(&text, |e, out| anthropic(e, out));
        let at = |s: &str| {
            got.iter()
                .position(|x| x == s)
                .unwrap_or_else(|| panic!("{s} in {got:?}"))
        };
        assert!(at("response 1") < at("event 16"), "{got:?}");
        assert!(at("response 16") > at("event 28"), "{got:?}");

        let response = |id: &str| {
            vec![
                (
                    "response.created",
                    json!({"type": "response.created", "response": {"id": id, "output": []}}),
                ),
                (
                    "response.completed",
                    json!({"type": "response.completed", "response": {"id": id, "output": []}}),
                ),
            ]
        };
        let text = sse(&[response("r1"), response("r2")].concat());
        let got = order(&text, |e, out| openai(e, out));
        let at = |s: &str| {
            got.iter()
                .position(|x| x == s)
                .unwrap_or_else(|| panic!("{s} in {got:?}"))
        };
        assert!(at("response 1") < at("event 7"), "{got:?}");
    }

    #[test]
    fn events_follow_the_event_stream_rules() {
        let text = "\u{feff}: comment\r\nevent: a\r\ndata: {\"x\":\r\ndata: 1}\r\nid: 7\r\n\r\ndata:{\"y\":2}\rdata: [DONE]\n\nevent: b\ndata: nope\n\ndata: [DONE]\n\ndata: {\"z\":3}";
        let (evs, problems) = events(text);
        assert_eq!(evs.len(), 2, "{evs:?}");
        assert_eq!(evs[0].name.as_deref(), Some("a"));
        assert_eq!(evs[0].data, json!({"x": 1}));
        assert_eq!(evs[0].line, 2);
        // A CR alone ends a line; two data fields of one event are joined, so `{"y":2}` then
        // `[DONE]` is one event whose data is not JSON.
        assert_eq!(evs[1].data, json!({"z": 3}));
        assert_eq!(evs[1].line, 15);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].line, 7);
        assert_eq!(problems[1].line, 10);
        assert!(problems[1].message.contains("not JSON"));
        assert!(starts_as_sse(text));
        assert!(starts_as_sse("\n\nevent: message_start\n"));
        assert!(!starts_as_sse("{\"data\": 1}"));
        assert!(!starts_as_sse(": just a comment\n"));
        assert_eq!(
            first_data("event: a\ndata: [DONE]\ndata: {\"t\":1}\n"),
            Some("{\"t\":1}")
        );
    }

    fn sse(events: &[(&str, Value)]) -> String {
        events
            .iter()
            .map(|(n, d)| format!("event: {n}\ndata: {d}\n\n"))
            .collect()
    }

    #[test]
    fn anthropic_events_make_the_message() {
        let text = sse(&[
            (
                "message_start",
                json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}),
            ),
            ("ping", json!({"type":"ping"})),
            (
                "content_block_start",
                json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            ),
            (
                "content_block_delta",
                json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Seats cost "}}),
            ),
            (
                "content_block_delta",
                json!({"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"$19","document_index":0,"start_char_index":4,"end_char_index":7}}}),
            ),
            (
                "content_block_delta",
                json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"$19."}}),
            ),
            (
                "content_block_stop",
                json!({"type":"content_block_stop","index":0}),
            ),
            (
                "content_block_start",
                json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"price","input":{}}}),
            ),
            (
                "content_block_delta",
                json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"plan\": "}}),
            ),
            (
                "content_block_delta",
                json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"team\"}"}}),
            ),
            (
                "content_block_stop",
                json!({"type":"content_block_stop","index":1}),
            ),
            (
                "message_delta",
                json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}),
            ),
            ("message_stop", json!({"type":"message_stop"})),
        ]);
        let (evs, problems) = events(&text);
        assert!(problems.is_empty());
        let a = assembled(|o| anthropic(evs, o));
        assert!(a.problems.is_empty(), "{:?}", a.problems);
        assert_eq!(a.responses.len(), 1);
        assert_eq!(a.responses[0].0, 1);
        assert_eq!(
            a.responses[0].1,
            json!({"id":"msg_1","type":"message","role":"assistant","model":"m","content":[
                {"type":"text","text":"Seats cost $19.","citations":[{"type":"char_location","cited_text":"$19","document_index":0,"start_char_index":4,"end_char_index":7}]},
                {"type":"tool_use","id":"toolu_1","name":"price","input":{"plan":"team"}}
            ],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":9}})
        );
    }

    #[test]
    fn a_cut_anthropic_stream_keeps_what_came() {
        let text = sse(&[
            (
                "message_start",
                json!({"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}),
            ),
            (
                "content_block_start",
                json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}),
            ),
            (
                "content_block_delta",
                json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 1"}}),
            ),
            (
                "content_block_delta",
                json!({"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}),
            ),
        ]);
        let (evs, _) = events(&text);
        let a = assembled(|o| anthropic(evs, o));
        assert_eq!(a.responses.len(), 1);
        assert_eq!(a.responses[0].1["content"][0]["input"], json!({}));
        let msgs: Vec<_> = a
            .problems
            .iter()
            .map(|p| (p.line, p.message.as_str()))
            .collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs.iter().any(|(l, m)| *l == 10 && m.contains("block 3")));
        assert!(msgs
            .iter()
            .any(|(l, m)| *l == 1 && m.contains("ends before")));
        assert!(msgs.iter().any(|(l, m)| *l == 7 && m.contains("not JSON")));
        // Events outside a message are named, never a panic.
        let (evs, _) = events(&sse(&[(
            "content_block_stop",
            json!({"type":"content_block_stop","index":0}),
        )]));
        assert_eq!(assembled(|o| anthropic(evs, o)).problems.len(), 1);
    }

    #[test]
    fn openai_events_make_the_response() {
        let done = json!({"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}]});
        let text = sse(&[
            (
                "response.created",
                json!({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}),
            ),
            (
                "response.output_text.delta",
                json!({"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"Hi"}),
            ),
            (
                "response.completed",
                json!({"type":"response.completed","sequence_number":9,"response":done}),
            ),
        ]);
        let (evs, _) = events(&text);
        let a = assembled(|o| openai(evs, o));
        assert!(a.problems.is_empty());
        assert_eq!(a.responses, vec![(1, done)]);
        // Cut before the end: the finished items, and the started one with its finished parts.
        let text = sse(&[
            (
                "response.created",
                json!({"type":"response.created","response":{"id":"r","object":"response","output":[]}}),
            ),
            (
                "response.output_item.added",
                json!({"type":"response.output_item.added","output_index":0,"item":{"type":"web_search_call","id":"ws","status":"in_progress"}}),
            ),
            (
                "response.output_item.done",
                json!({"type":"response.output_item.done","output_index":0,"item":{"type":"web_search_call","id":"ws","status":"completed"}}),
            ),
            (
                "response.output_item.added",
                json!({"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"m","role":"assistant","content":[]}}),
            ),
            (
                "response.content_part.done",
                json!({"type":"response.content_part.done","output_index":1,"content_index":0,"part":{"type":"output_text","text":"Part","annotations":[]}}),
            ),
        ]);
        let (evs, _) = events(&text);
        let a = assembled(|o| openai(evs, o));
        assert_eq!(a.responses.len(), 1);
        assert_eq!(
            a.responses[0].1["output"],
            json!([{"type":"web_search_call","id":"ws","status":"completed"},{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"Part","annotations":[]}]}])
        );
        assert_eq!(a.problems.len(), 1);
        assert!(a.problems[0]
            .message
            .contains("1 output item finished and 1 started"));
    }

    proptest::proptest! {
        /// Any text: reading events and assembling them never panics, and every event's line is
        /// a line of the text.
        #[test]
        fn any_text_reads_without_panic(text in "(event: [a-z_.]{0,12}\n|data: [{}\\[\\]\":a-z0-9, ]{0,20}\r?\n|: x\n|\n|\r|index|type){0,30}") {
            let (evs, problems) = events(&text);
            let n = text.split(['\n', '\r']).count() as u64 + 1;
            for e in &evs {
                proptest::prop_assert!(e.line >= 1 && e.line <= n);
            }
            for p in &problems {
                proptest::prop_assert!(p.line <= n);
            }
            let _ = assembled(|o| anthropic(evs.clone(), o));
            let _ = assembled(|o| openai(evs.clone(), o));
            let _ = assembled(|o| gemini(evs, o));
        }
    }
}
