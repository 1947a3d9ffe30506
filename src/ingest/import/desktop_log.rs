//! Claude Desktop's per-server MCP log (`~/Library/Logs/Claude/mcp-server-<name>.log`,
//! `%APPDATA%\Claude\logs\` on Windows): `<ISO time> [<server>] [<level>] Message from
//! client|server: {json-rpc}` lines, mixed with the server's own stderr. It holds the exact
//! `tools/call` requests and responses, and no user messages or answers.

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

/// `<time> [<server>] [<level>] <message>`, or `None` for a line of server output.
pub fn parse_prefix(line: &str) -> Option<(&str, &str, &str, &str)> {
    let (time, rest) = line.split_once(' ')?;
    if time.len() < 20
        || !time.as_bytes()[0].is_ascii_digit()
        || time.as_bytes().get(10) != Some(&b'T')
    {
        return None;
    }
    let rest = rest.strip_prefix('[')?;
    let (server, rest) = split_after_bracket(rest, b" [")?;
    let (level, msg) = split_after_bracket(rest, b" ")?;
    if !level.bytes().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    Some((time, server, level, msg))
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

pub fn import(input: &Input) -> Vec<Session> {
    let mut b = Builder::new(NAME, input.name.clone(), input.source.clone());
    let mut connection = 0u32;
    let mut turn_of_connection = 0u32;
    // (connection, JSON-RPC id text) -> call id
    let mut pending: HashMap<(u32, String), String> = HashMap::default();
    let mut noise = 0u64;
    let mut truncated = 0u64;
    let mut named = false;
    let mut lines = match input.lines() {
        Ok(l) => l,
        Err(e) => {
            b.diag(
                0,
                0,
                "",
                DiagLevel::Error,
                format!("cannot read the file: {e}"),
            );
            return vec![b.finish()];
        }
    };
    loop {
        let (line_no, bytes) = match lines.next_line() {
            Ok(Some(Line::Text { line_no, bytes, .. })) => (line_no, bytes),
            Ok(Some(Line::TooLong { line_no, bytes })) => {
                b.diag(line_no, 1, "", DiagLevel::Error, format!("line is {bytes} bytes, over the {} byte cap; skipped (raise --max-line-bytes to load it)", input.opts.max_line_bytes));
                continue;
            }
            Ok(None) => break,
            Err(e) => {
                b.diag(0, 0, "", DiagLevel::Error, format!("read error: {e}"));
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
                noise += 1;
            }
            continue;
        };
        let at = time_str(time);
        if msg.starts_with("Initializing server") {
            connection += 1;
            continue;
        }
        let (from_client, json) = if let Some(j) = msg.strip_prefix("Message from client: ") {
            (true, j)
        } else if let Some(j) = msg.strip_prefix("Message from server: ") {
            (false, j)
        } else {
            continue;
        };
        if !named {
            // The first message names the session (the builder keeps the first id given).
            b.session_id(&format!("claude-desktop:{server}"));
            b.agent("claude-desktop");
            named = true;
        }
        // The JSON-RPC message, then optionally ` { metadata: ... }`.
        let mut stream = serde_json::Deserializer::from_str(json).into_iter::<Message>();
        let m = match stream.next() {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                if json.contains(" chars truncated]...") {
                    truncated += 1;
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
        let conn = connection.max(1);
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
            if turn_of_connection != conn {
                b.turn("", at, line_no);
                turn_of_connection = conn;
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
                pending.insert((conn, id_text), call_id);
            }
        } else if let Some(id_text) = id_text {
            let Some(call_id) = pending.remove(&(conn, id_text)) else {
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
    let open: Vec<String> = pending.into_values().collect();
    if !open.is_empty() {
        b.note(format!("{} tools/call request{} got no response in the log (the server exited or the log ends)", open.len(), if open.len() == 1 { "" } else { "s" }));
    }
    if truncated > 0 {
        b.note(format!("Claude Desktop shortened {truncated} long message{} in the log (\"...[N chars truncated]...\"); they are skipped", if truncated == 1 { "" } else { "s" }));
    }
    if noise > 0 {
        b.note(format!(
            "{noise} line{} of server output (stderr) between the messages skipped",
            if noise == 1 { "" } else { "s" }
        ));
    }
    b.note("the log holds the exact tools/call traffic of one server, and no user messages or answers: one turn per server start, with an empty user message");
    vec![b.finish()]
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
