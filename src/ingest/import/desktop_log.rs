//! Claude Desktop's per-server MCP log (`~/Library/Logs/Claude/mcp-server-<name>.log`,
//! `%APPDATA%\Claude\logs\` on Windows): `<ISO time> [<server>] [<level>] Message from
//! client|server: {json-rpc}` lines, mixed with the server's own stderr. It holds the exact
//! `tools/call` requests and responses, and no user messages or answers. The app's `mcp.log`
//! holds the messages of every server, `<ISO time> [<level>] [<server>] ...`: one session per
//! server, each read as its own log would be.

use super::build::{Builder, NewCall, NewResult};
use super::sniff::Head;
use super::util::time_str;
use super::Input;
use crate::ingest::lines::Line;
use crate::ingest::strip_pos;
use crate::model::{CallToolResult, DiagLevel, RpcId, Session};
use rustc_hash::FxHashMap as HashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

const NAME: &str = "claude-desktop-log";

/// The levels Claude Desktop logs at (electron-log's), which `mcp.log` writes before the server.
const LEVELS: &[&str] = &["error", "warn", "info", "verbose", "debug", "silly"];

/// `<time> [<server>] [<level>] <message>` (a server's log), or `<time> [<level>] [<server>]
/// <message>` (`mcp.log`): time, server, level and message, or `None` for a line of server
/// output. A first bracket that is a level, before one that is not, is the level.
pub fn parse_prefix(line: &str) -> Option<(&str, &str, &str, &str)> {
    let (time, rest) = line.split_once(' ')?;
    if time.len() < 20
        || !time.as_bytes()[0].is_ascii_digit()
        || time.as_bytes().get(10) != Some(&b'T')
    {
        return None;
    }
    let rest = rest.strip_prefix('[')?;
    let (first, rest) = split_after_bracket(rest, b" [")?;
    let (second, msg) = split_after_bracket(rest, b" ")?;
    let alphabetic = |t: &str| t.bytes().all(|c| c.is_ascii_alphabetic());
    let level = |t: &str| LEVELS.contains(&t);
    // The server first unless only the first bracket is a level.
    let server_first = !level(first) || level(second);
    if server_first && alphabetic(second) {
        Some((time, first, second, msg))
    } else if level(first) {
        Some((time, second, first, msg))
    } else {
        None
    }
}

/// `s.split_once("]" + then)`, found from one `]` to the next (every line of a log goes
/// through here; a string pattern builds a searcher per call).
fn split_after_bracket<'a>(s: &'a str, then: &[u8]) -> Option<(&'a str, &'a str)> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(p) = memchr::memchr(b']', &b[from..]) {
        let at = from + p;
        if b[at + 1..].starts_with(then) {
            // `]` and `then` are ASCII: both cuts are at character boundaries.
            return Some((&s[..at], &s[at + 1 + then.len()..]));
        }
        from = at + 1;
    }
    None
}

pub fn sniff(h: &Head) -> bool {
    h.text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(40)
        .any(|l| parse_prefix(l).is_some())
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default)]
    method: Option<String>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<crate::model::mcp::RpcError>,
}

#[derive(Deserialize)]
struct Params<'a> {
    name: String,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

/// What is read of one server's messages: its session, its connections (a server restart
/// starts a new one), and its requests waiting for their response.
struct ServerLog {
    b: Builder,
    /// The server's name, once a line gave it.
    server: Option<String>,
    /// Whether a message named the session.
    named: bool,
    connection: u32,
    turn_of_connection: u32,
    /// (connection, JSON-RPC id text) -> call id
    pending: HashMap<(u32, String), String>,
    noise: u64,
    truncated: u64,
}

impl ServerLog {
    fn new(input: &Input) -> Self {
        ServerLog {
            b: Builder::new(NAME, input.name.clone(), input.source.clone()),
            server: None,
            named: false,
            connection: 0,
            turn_of_connection: 0,
            pending: HashMap::default(),
            noise: 0,
            truncated: 0,
        }
    }
}

pub fn import(input: &Input) -> Vec<Session> {
    // One log per server (a server's own log holds one); the lines of server output are the
    // last named server's.
    let mut logs = vec![ServerLog::new(input)];
    let mut current = 0;
    let mut lines = match input.lines() {
        Ok(l) => l,
        Err(e) => {
            logs[0].b.diag(
                0,
                0,
                "",
                DiagLevel::Error,
                format!("cannot read the file: {e}"),
            );
            return vec![logs.swap_remove(0).b.finish()];
        }
    };
    loop {
        let (line_no, bytes) = match lines.next_line() {
            Ok(Some(Line::Text { line_no, bytes, .. })) => (line_no, bytes),
            Ok(Some(Line::TooLong { line_no, bytes })) => {
                logs[current].b.diag(line_no, 1, "", DiagLevel::Error, format!("line is {bytes} bytes, over the {} byte cap; skipped (raise --max-line-bytes to load it)", input.opts.max_line_bytes));
                continue;
            }
            Ok(None) => break,
            Err(e) => {
                logs[current]
                    .b
                    .diag(0, 0, "", DiagLevel::Error, format!("read error: {e}"));
                break;
            }
        };
        // Valid lines are borrowed (`from_utf8` checks ASCII a word at a time; the lossy
        // decoder goes byte by byte), invalid ones replaced lossily.
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        let Some((time, server, _level, msg)) = parse_prefix(&text) else {
            if !text.trim().is_empty() {
                logs[current].noise += 1;
            }
            continue;
        };
        current = match logs
            .iter()
            .position(|l| l.server.as_deref() == Some(server))
        {
            Some(i) => i,
            None if logs[0].server.is_none() => {
                logs[0].server = Some(server.to_owned());
                0
            }
            None => {
                let mut l = ServerLog::new(input);
                l.server = Some(server.to_owned());
                logs.push(l);
                logs.len() - 1
            }
        };
        let log = &mut logs[current];
        let b = &mut log.b;
        let at = time_str(time);
        if msg.starts_with("Initializing server") {
            log.connection += 1;
            continue;
        }
        let (from_client, json) = if let Some(j) = msg.strip_prefix("Message from client: ") {
            (true, j)
        } else if let Some(j) = msg.strip_prefix("Message from server: ") {
            (false, j)
        } else {
            continue;
        };
        if !log.named {
            // The first message names the session (the builder keeps the first id given).
            b.session_id(&format!("claude-desktop:{server}"));
            b.agent("claude-desktop");
            log.named = true;
        }
        // The JSON-RPC message, then optionally ` { metadata: ... }`.
        let mut stream = serde_json::Deserializer::from_str(json).into_iter::<Message>();
        let m = match stream.next() {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                if json.contains(" chars truncated]...") {
                    log.truncated += 1;
                } else {
                    let col = (text.len() - json.len()) as u64 + e.column() as u64;
                    b.diag(
                        line_no,
                        col,
                        "",
                        DiagLevel::Warning,
                        format!(
                            "the logged message is not JSON-RPC ({}); skipped",
                            strip_pos(&e.to_string())
                        ),
                    );
                }
                continue;
            }
            None => continue,
        };
        let conn = log.connection.max(1);
        let id_text = m.id.map(|r| r.get().trim_matches('"').to_owned());
        if from_client {
            if m.method.as_deref() != Some("tools/call") {
                continue;
            }
            let (Some(id_raw), Some(id_text)) = (m.id, id_text) else {
                continue;
            };
            let params: Option<Params> = m.params.and_then(|p| serde_json::from_str(p.get()).ok());
            let Some(params) = params else {
                b.diag(
                    line_no,
                    1,
                    "params.name",
                    DiagLevel::Warning,
                    "a tools/call without `params.name`; skipped".into(),
                );
                continue;
            };
            if log.turn_of_connection != conn {
                b.turn("", at, line_no);
                log.turn_of_connection = conn;
            }
            let call_id = if conn == 1 {
                id_text.clone()
            } else {
                format!("{id_text}@{conn}")
            };
            let rpc_id: Option<RpcId> = serde_json::from_str(id_raw.get()).ok();
            let ok = b.call(NewCall {
                id: call_id.clone(),
                server: server.to_owned(),
                tool: params.name,
                arguments: Some(params.arguments.map_or_else(empty_args, RawValue::to_owned)),
                rpc_id,
                at,
                line: line_no,
                ..NewCall::default()
            });
            if ok {
                log.pending.insert((conn, id_text), call_id);
            }
        } else if let Some(id_text) = id_text {
            let Some(call_id) = log.pending.remove(&(conn, id_text)) else {
                continue;
            };
            let rpc_id: Option<RpcId> = m.id.and_then(|r| serde_json::from_str(r.get()).ok());
            let mut r = NewResult {
                call_id,
                at,
                line: line_no,
                rpc_id,
                ..NewResult::default()
            };
            if let Some(e) = m.error {
                r.error = Some(e);
            } else if let Some(res) = m.result {
                match serde_json::from_str::<CallToolResult>(res.get()) {
                    Ok(ctr) => {
                        r.content = ctr.content;
                        r.structured = ctr.rare.and_then(|x| x.structured);
                        r.is_error = ctr.is_error == Some(true);
                    }
                    Err(e) => b.diag(
                        line_no,
                        1,
                        "result",
                        DiagLevel::Warning,
                        format!(
                            "the result is not a CallToolResult ({}); kept without content",
                            strip_pos(&e.to_string())
                        ),
                    ),
                }
            }
            b.result(r);
        }
    }
    let several = logs.len() > 1;
    logs.into_iter()
        .map(|mut log| {
            let b = &mut log.b;
            let open = log.pending.len();
            if open > 0 {
                b.note(format!("{open} tools/call request{} got no response in the log (the server exited or the log ends)", if open == 1 { "" } else { "s" }));
            }
            let truncated = log.truncated;
            if truncated > 0 {
                b.note(format!("Claude Desktop shortened {truncated} long message{} in the log (\"...[N chars truncated]...\"); they are skipped", if truncated == 1 { "" } else { "s" }));
            }
            let noise = log.noise;
            if noise > 0 {
                b.note(format!(
                    "{noise} line{} of server output (stderr) between the messages skipped",
                    if noise == 1 { "" } else { "s" }
                ));
            }
            if several {
                b.note("the log holds the messages of several servers (Claude Desktop's mcp.log): one session per server");
            }
            b.note("the log holds the exact tools/call traffic of one server, and no user messages or answers: one turn per server start, with an empty user message");
            let mut s = log.b.finish();
            // The sessions of one file are told apart by their server.
            if let (true, Some(server)) = (several, &log.server) {
                s.name = format!("{}#{server}", s.name);
            }
            s
        })
        .collect()
}

fn empty_args() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| Box::<RawValue>::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_noise() {
        let l = "2025-06-30T06:12:22.229Z [weather] [info] Message from client: {\"a\":1} { metadata: undefined }";
        let (t, s, lv, m) = parse_prefix(l).unwrap();
        assert_eq!((t, s, lv), ("2025-06-30T06:12:22.229Z", "weather", "info"));
        assert!(m.starts_with("Message from client"));
        assert!(parse_prefix("Getting forecast for: Bogor").is_none());
        // mcp.log: the level first.
        let l = "2025-07-30T21:16:29.756Z [info] [sequential-thinking] Message from client: {}";
        let (_, s, lv, m) = parse_prefix(l).unwrap();
        assert_eq!(
            (s, lv, m),
            ("sequential-thinking", "info", "Message from client: {}")
        );
        let l = "2025-07-30T21:16:29.756Z [error] [memory] Server disconnected";
        assert_eq!(
            parse_prefix(l).map(|p| (p.1, p.2)),
            Some(("memory", "error"))
        );
        // A server named like a level, in a server's own log.
        let l = "2025-07-30T21:16:29.756Z [debug] [info] Initializing server...";
        assert_eq!(parse_prefix(l).map(|p| (p.1, p.2)), Some(("debug", "info")));
        assert!(parse_prefix("2025-07-30T21:16:29.756Z [a-b] [c-d] x").is_none());
        assert!(parse_prefix("[07/20/25 19:42:07] INFO     Processing").is_none());
    }

    #[test]
    fn brackets_split_as_split_once_does() {
        let texts = [
            "a] [b] c",
            "a]] [b",
            "a] b] [c",
            "]",
            "] [",
            "a]",
            "a] ",
            "x]y] [z]  w",
            "é] [ü] ö",
            "",
        ];
        for t in texts {
            assert_eq!(split_after_bracket(t, b" ["), t.split_once("] ["), "{t:?}");
            assert_eq!(split_after_bracket(t, b" "), t.split_once("] "), "{t:?}");
        }
        let l = "2025-06-30T06:12:22.229Z [we]ather] [info] Message from client: {}";
        assert_eq!(
            parse_prefix(l).map(|p| (p.1, p.2)),
            Some(("we]ather", "info"))
        );
    }
}
