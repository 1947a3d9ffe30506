//! `provscope serve`: a conflicting-source case replayed as live stdio MCP servers, so that an
//! agent under test meets the recorded conflict. One process serves one recorded server: it
//! lists the tools that server was called with (with their input schemas) and answers each call
//! with the recorded result; arguments that differ from every recording get the closest recorded
//! result and a note on stderr. Built on the official Rust MCP SDK (`rmcp`).

use crate::model::case::{Case, Competitor};
use serde_json::{json, Value};

/// One recorded call of a tool: its arguments and the result to answer with.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The call id in the case's source session.
    pub call_id: String,
    /// The recorded arguments (redacted where the case is).
    pub arguments: Value,
    /// The MCP `CallToolResult` to answer with.
    pub result: Value,
}

/// A tool of the replayed server.
#[derive(Clone, Debug)]
pub struct ReplayTool {
    /// Its name.
    pub name: String,
    /// Its input schema (the case's, merged over the tool's recordings).
    pub input_schema: Value,
    /// Its recordings, in the case's order.
    pub calls: Vec<Recorded>,
}

/// One recorded server of a case, ready to serve.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The recorded server name (the MCP `serverInfo.name`).
    pub server: String,
    /// The case it comes from.
    pub case_id: String,
    /// Its tools.
    pub tools: Vec<ReplayTool>,
}

/// How a call was answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The arguments are those of a recording.
    Exact {
        /// The recording's call id.
        call_id: String,
        /// The result.
        result: Value,
    },
    /// The closest recording answered (the note says which, and why).
    Closest {
        /// The recording's call id.
        call_id: String,
        /// The result.
        result: Value,
        /// For the server's log.
        note: String,
    },
}

/// The servers a case records, in the case's order.
pub fn servers(case: &Case) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &case.competing {
        if !out.contains(&c.server) {
            out.push(c.server.clone());
        }
    }
    out
}

fn result_of(c: &Competitor) -> Value {
    // A version-1 case kept only the value: answer with it as text.
    c.result
        .clone()
        .unwrap_or_else(|| json!({"content": [{"type": "text", "text": c.value}]}))
}

/// Merges object schemas: properties of every recording.
fn merge_schema(into: &mut Value, other: &Value) {
    let (Some(a), Some(b)) = (
        into.get_mut("properties").and_then(Value::as_object_mut),
        other.get("properties").and_then(Value::as_object),
    ) else {
        return;
    };
    for (k, v) in b {
        a.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

/// A server the case did not record.
#[derive(Debug, thiserror::Error)]
#[error("case {case_id} records no server `{server}` (it records: {})", recorded.join(", "))]
pub struct UnknownServer {
    /// The case.
    pub case_id: String,
    /// The server asked for.
    pub server: String,
    /// The servers the case records.
    pub recorded: Vec<String>,
}

impl Replay {
    /// The replay of `server` in `case`; `Err` names the servers the case has.
    pub fn of(case: &Case, server: &str) -> Result<Replay, UnknownServer> {
        let mut tools: Vec<ReplayTool> = Vec::new();
        for c in case.competing.iter().filter(|c| c.server == server) {
            let schema = c
                .input_schema
                .clone()
                .unwrap_or_else(|| crate::export::case::infer_schema(&c.arguments));
            let rec = Recorded {
                call_id: c.call_id.clone(),
                arguments: c.arguments.clone(),
                result: result_of(c),
            };
            match tools.iter_mut().find(|t| t.name == c.tool) {
                Some(t) => {
                    merge_schema(&mut t.input_schema, &schema);
                    t.calls.push(rec);
                }
                None => tools.push(ReplayTool {
                    name: c.tool.clone(),
                    input_schema: schema,
                    calls: vec![rec],
                }),
            }
        }
        if tools.is_empty() {
            return Err(UnknownServer {
                case_id: case.case_id.clone(),
                server: server.to_owned(),
                recorded: servers(case),
            });
        }
        Ok(Replay {
            server: server.to_owned(),
            case_id: case.case_id.clone(),
            tools,
        })
    }

    /// The answer to a call of `tool` with `args`; `None` for a tool the server does not have.
    pub fn answer(&self, tool: &str, args: &Value) -> Option<Answer> {
        let t = self.tools.iter().find(|t| t.name == tool)?;
        let args = match args {
            Value::Null => json!({}),
            a => a.clone(),
        };
        let same = |a: &Value, b: &Value| {
            a == b || (a.as_object().is_some_and(|m| m.is_empty()) && b.is_null())
        };
        if let Some(r) = t.calls.iter().find(|r| same(&args, &r.arguments)) {
            return Some(Answer::Exact {
                call_id: r.call_id.clone(),
                result: r.result.clone(),
            });
        }
        // Closest: the most argument values in common, then the fewest differing keys.
        let score = |r: &Recorded| -> (usize, std::cmp::Reverse<usize>) {
            let (Some(a), Some(b)) = (args.as_object(), r.arguments.as_object()) else {
                return (0, std::cmp::Reverse(usize::MAX));
            };
            let common = a.iter().filter(|(k, v)| b.get(*k) == Some(*v)).count();
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            (common, std::cmp::Reverse(keys.len() - common))
        };
        let mut best = &t.calls[0];
        for r in &t.calls[1..] {
            if score(r) > score(best) {
                best = r;
            }
        }
        Some(Answer::Closest {
            call_id: best.call_id.clone(),
            result: best.result.clone(),
            note: format!(
                "{tool}: arguments {} differ from every recorded call; answered with the closest recording, `{}` (arguments {})",
                args, best.call_id, best.arguments
            ),
        })
    }
}

/// `provscope record` in front of every server of a client configuration.
#[derive(Clone, Copy, Debug)]
pub struct RecordWith<'a> {
    /// The attestor's private key.
    pub key: &'a str,
    /// The directory of the logs (one `NAME.jsonl` per server).
    pub dir: &'a str,
    /// The session id every proxy records under, so the logs merge into one session whose
    /// envelopes all verify.
    pub session_id: &'a str,
}

/// The `mcpServers` entries a client needs to start every server of a case: `provscope serve
/// CASE --server NAME` each, with `provscope record --key KEY --log DIR/NAME.jsonl
/// --server-name NAME --tier TIER --session-id ID --` in front when `record` is given.
pub fn client_config(
    case: &Case,
    exe: &str,
    case_path: &str,
    record: Option<RecordWith<'_>>,
) -> Value {
    let mut entries = serde_json::Map::new();
    for name in servers(case) {
        let tier = case
            .competing
            .iter()
            .find(|c| c.server == name)
            .map(|c| c.tier.to_string())
            .unwrap_or_default();
        let mut args: Vec<String> = Vec::new();
        if let Some(rw) = record {
            let log = std::path::Path::new(rw.dir).join(format!(
                "{}.jsonl",
                crate::export::case::safe_component(&name)
            ));
            args.extend([
                "record".into(),
                "--key".into(),
                rw.key.into(),
                "--log".into(),
                log.display().to_string(),
                "--server-name".into(),
                name.clone(),
                "--tier".into(),
                tier,
                "--session-id".into(),
                rw.session_id.into(),
                "--".into(),
                exe.into(),
            ]);
        }
        args.extend([
            "serve".into(),
            case_path.into(),
            "--server".into(),
            name.clone(),
        ]);
        entries.insert(
            name.clone(),
            json!({"type": "stdio", "command": exe, "args": args}),
        );
    }
    json!({"mcpServers": entries})
}

mod mcp;
pub use mcp::{run_stdio, ServeError};

#[cfg(test)]
mod tests {
    use super::*;

    fn replay() -> Replay {
        let rec = |id: &str, args: Value, text: &str| Recorded {
            call_id: id.into(),
            arguments: args,
            result: json!({"content": [{"type": "text", "text": text}]}),
        };
        Replay {
            server: "pricing.internal".into(),
            case_id: "c".into(),
            tools: vec![ReplayTool {
                name: "get_plan_price".into(),
                input_schema: json!({"type": "object"}),
                calls: vec![
                    rec("a", json!({"plan": "team", "currency": "USD"}), "team USD"),
                    rec("b", json!({"plan": "pro", "currency": "EUR"}), "pro EUR"),
                ],
            }],
        }
    }

    #[test]
    fn exact_arguments_get_their_recording_and_others_the_closest_with_a_note() {
        let r = replay();
        match r.answer("get_plan_price", &json!({"currency": "EUR", "plan": "pro"})) {
            Some(Answer::Exact { call_id, .. }) => assert_eq!(call_id, "b"),
            other => panic!("{other:?}"),
        }
        match r.answer(
            "get_plan_price",
            &json!({"plan": "team", "currency": "GBP"}),
        ) {
            Some(Answer::Closest { call_id, note, .. }) => {
                assert_eq!(call_id, "a");
                assert!(note.contains("GBP") && note.contains("`a`"), "{note}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.answer("no_such_tool", &json!({})), None);
    }
}
