//! Claude Managed Agents session events (`anthropic-managed-agents`): the two real recordings of
//! tests/inputs/anthropic-managed-agents/ (LangSmith's JS test harness, `[sdk_method, payload]`
//! lines), the same events in the other shapes a user saves them in (one a line, a page of the
//! event list, a bare array, the server-sent event stream), and events of every kind with bad
//! lines among them.

use crate::importers::{call_rows, diags, notes, provscope, summary_rows};
use provscope::ingest::{load_any_bytes, load_file_sessions, LoadOptions};
use provscope::model::Session;
use serde_json::{json, Value};
use std::path::PathBuf;

const FORMAT: &str = "anthropic-managed-agents";

fn dir() -> PathBuf {
    super::importers_shapes::inputs().join("anthropic-managed-agents")
}

fn load(name: &str) -> Session {
    let mut v = load_file_sessions(&dir().join(name), &LoadOptions::default());
    assert_eq!(v.len(), 1, "{name}");
    v.remove(0)
}

/// The events a recording's stream delivered (the payloads of its `events.stream` lines).
fn streamed_events(name: &str) -> Vec<Value> {
    std::fs::read_to_string(dir().join(name))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r[0].as_str().unwrap().ends_with("events.stream"))
        .map(|r| r[1].clone())
        .collect()
}

/// The MCP recording's events in the other shapes the importer reads: (file name, bytes).
pub fn shapes() -> Vec<(&'static str, Vec<u8>)> {
    let events = streamed_events("anthropic_managed_mcp_tools.jsonl");
    let lines: String = events.iter().map(|e| format!("{e}\n")).collect();
    let page = json!({"data": events, "next_page": null});
    let sse: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    vec![
        ("events.jsonl", lines.into_bytes()),
        (
            "page.json",
            serde_json::to_string_pretty(&page).unwrap().into_bytes(),
        ),
        ("array.json", Value::Array(events).to_string().into_bytes()),
        ("stream.sse", sse.into_bytes()),
    ]
}

#[test]
fn managed_agents_mcp_session_gives_its_call_result_and_answer() {
    let s = load("anthropic_managed_mcp_tools.jsonl");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", diags(&s));
    // The session object of `sessions.create` names the session, its agent and model.
    assert_eq!(s.id(), "sesn_01FYL2vWeckHzjuCjjpAudtE");
    let h = s.header.as_ref().unwrap();
    assert_eq!(h.model.as_deref(), Some("claude-opus-4-8"));
    assert_eq!(h.agent.as_deref(), Some("Exa assistant/1"));
    assert_eq!(h.title.as_deref(), Some("Quickstart session"));
    // One turn: the echoed user.message (the recorded `events.send` is not read twice).
    assert_eq!(s.turns.len(), 1);
    assert_eq!(
        s.turns[0].user,
        "How many stars does langchain-ai/langsmith-sdk have? Use MCP and Exa"
    );
    assert_eq!(s.turns[0].line, 5);
    // The MCP tool use: server = mcp_server_name, at its line, issued at processed_at.
    assert_eq!(s.calls.len(), 1);
    let c = &s.calls[0];
    assert_eq!(c.id, "sevt_01FH8SyMCJy9ABg2tCLTPTmB");
    assert_eq!((c.server.as_str(), c.tool()), ("exa", "web_search_exa"));
    assert_eq!(c.line, 8);
    assert_eq!(c.issued_at.to_string(), "2026-07-06T16:52:58.959Z");
    let args = c.request.params.arguments.as_deref().unwrap();
    let want: Value =
        json!({"numResults": 5, "query": "langchain-ai/langsmith-sdk GitHub repository stars"});
    assert_eq!(serde_json::from_str::<Value>(args.get()).unwrap(), want);
    // Its result (agent.mcp_tool_result, linked by mcp_tool_use_id), tagged with the call.
    let r = s.result("sevt_01FH8SyMCJy9ABg2tCLTPTmB").unwrap();
    assert_eq!(r.line, 16);
    assert!(!r.is_error());
    let tag = &r.tag;
    assert_eq!(
        (tag.server.as_str(), tag.tool.as_str()),
        ("exa", "web_search_exa")
    );
    let hash = provscope::attest::hash::arguments_hash(Some(args)).unwrap();
    assert_eq!(tag.arguments_hash, hash);
    assert_eq!(tag.fetched_at.to_string(), "2026-07-06T16:53:01.142Z");
    assert_eq!(tag.ttl_seconds, None, "no TTL is recorded");
    let text = r.block_text(0).unwrap();
    assert!(text.starts_with("Title: langchain-ai/langsmith-sdk - GitHub"));
    for snapshot in ["Stars: 917", "935 stars", "936 stars"] {
        assert!(text.contains(snapshot), "{snapshot}");
    }
    // The answer: agent.message's text, no stamps (the format has no citations).
    assert_eq!(s.answers.len(), 1);
    let a = &s.answers[0];
    assert_eq!(a.turn, s.turns[0].index);
    assert!(a.text.starts_with(
        "The **langchain-ai/langsmith-sdk** repository has approximately **936 stars**."
    ));
    assert!(a
        .text
        .contains("Slightly older snapshots showed 935 and 917 stars"));
    assert!(a.claims.is_empty());
    assert_eq!(a.line, 19);
    assert_eq!(a.generated_at.to_string(), "2026-07-06T16:53:07.234Z");
    let n = notes(&s);
    for want in [
        "default_ttl_seconds",
        "carry no citations",
        "2 recorded requests sending events skipped",
    ] {
        assert!(n.iter().any(|x| x.contains(want)), "{want}: {n:?}");
    }
}

#[test]
fn managed_agents_custom_tool_is_a_call_of_the_app() {
    let s = load("anthropic_managed_custom_tools.jsonl");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", diags(&s));
    assert_eq!(s.id(), "sesn_014fc5Q6rWwrXD3vWBfPRUes");
    assert_eq!(
        s.header.as_ref().unwrap().model.as_deref(),
        Some("claude-sonnet-5")
    );
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.turns[0].user, "What's the weather in Prague?");
    // agent.custom_tool_use / user.custom_tool_result (custom_tool_use_id): server `app`.
    let rows = call_rows(&s);
    assert_eq!(
        rows,
        vec![(
            "sevt_018iPB2RYrthWNKugV6ehDxH".to_owned(),
            "get_weather".to_owned(),
            Some(r#"{"location":"Prague"}"#.to_owned()),
            Some("It's 23°C and sunny in Prague.".to_owned()),
        )]
    );
    assert_eq!(s.calls[0].server, "app");
    let r = s.result("sevt_018iPB2RYrthWNKugV6ehDxH").unwrap();
    assert_eq!(r.tag.server, "app");
    assert_eq!(r.tag.fetched_at.to_string(), "2026-07-06T14:16:37.307Z");
    assert_eq!(s.answers.len(), 1);
    assert_eq!(
        s.answers[0].text,
        "It's currently **23°C and sunny** in Prague — a nice, warm day overall!"
    );
    assert!(s.answers[0].claims.is_empty());
}

#[test]
fn managed_agents_events_in_every_shape_give_the_same_calls() {
    let harness = load("anthropic_managed_mcp_tools.jsonl");
    let want = call_rows(&harness);
    assert_eq!(want.len(), 1);
    let texts = |s: &Session| {
        (
            s.turns
                .iter()
                .map(|t| t.user.to_string())
                .collect::<Vec<_>>(),
            s.answers
                .iter()
                .map(|a| a.text.to_string())
                .collect::<Vec<_>>(),
        )
    };
    for (name, bytes) in shapes() {
        let v = load_any_bytes("x", name, &bytes, &LoadOptions::default());
        assert_eq!(v.len(), 1, "{name}");
        let s = &v[0];
        assert_eq!(s.format(), FORMAT, "{name}");
        assert!(s.diagnostics.is_empty(), "{name}: {:?}", diags(s));
        assert_eq!(call_rows(s), want, "{name}");
        assert_eq!(texts(s), texts(&harness), "{name}");
        assert_eq!(
            s.results[0].tag.arguments_hash, harness.results[0].tag.arguments_hash,
            "{name}"
        );
        // Places: a line of a line format, the JSON path of a document.
        let c = &s.calls[0];
        match name {
            "page.json" => assert_eq!(c.json_path.as_deref(), Some("$.data[5]")),
            // One line: the line (its diagnostics name the path in it).
            "array.json" => assert_eq!(c.line, 1),
            "events.jsonl" => assert_eq!(c.line, 6),
            _ => assert!(c.line > 0, "{name}"),
        }
    }
    // Detected by content, whatever the name.
    for (_, bytes) in shapes() {
        let d = provscope::ingest::import::detect(&bytes);
        assert!(
            matches!(d, provscope::ingest::import::Detected::Import(i) if i.name == FORMAT),
            "{d:?}"
        );
    }
}

/// Events of every kind the importer reads, with bad records among them, one a line.
fn mixed_lines() -> Vec<String> {
    let ev = |v: Value| v.to_string();
    vec![
        // 1: the session.
        ev(
            json!({"type": "session", "id": "sesn_A", "title": "t", "agent": {"type": "agent", "name": "ops", "version": 3, "model": "claude-x"}}),
        ),
        // 2
        ev(
            json!({"type": "user.message", "id": "sevt_1", "processed_at": "2026-07-06T10:00:00Z", "content": [{"type": "text", "text": "Check the disk"}]}),
        ),
        // 3: a built-in tool (bash), and its result.
        ev(
            json!({"type": "agent.tool_use", "id": "sevt_2", "name": "bash", "input": {"command": "df -h"}, "processed_at": "2026-07-06T10:00:01Z"}),
        ),
        // 4
        ev(
            json!({"type": "agent.tool_result", "id": "sevt_3", "tool_use_id": "sevt_2", "content": [{"type": "text", "text": "/dev/sda1 91%"}], "is_error": false, "processed_at": "2026-07-06T10:00:02Z"}),
        ),
        // 5: not JSON.
        "{\"type\": \"agent.message\", oops".into(),
        // 6: an MCP tool use without its server, then denied.
        ev(
            json!({"type": "agent.mcp_tool_use", "id": "sevt_4", "name": "page", "input": {}, "processed_at": "2026-07-06T10:00:03Z"}),
        ),
        // 7
        ev(
            json!({"type": "user.tool_confirmation", "id": "sevt_5", "tool_use_id": "sevt_4", "result": "deny", "deny_message": "no"}),
        ),
        // 8: a sub-agent thread's tool use cross-posted on the primary stream.
        ev(
            json!({"type": "agent.mcp_tool_use", "id": "sevt_6", "mcp_server_name": "pager", "name": "ack", "input": {"id": 7}, "session_thread_id": "sthr_B"}),
        ),
        // 9: a result without its call's id.
        ev(
            json!({"type": "agent.mcp_tool_result", "id": "sevt_7", "content": [{"type": "text", "text": "ok"}]}),
        ),
        // 10: the session's error.
        ev(
            json!({"type": "session.error", "id": "sevt_8", "error": {"type": "mcp_connection_failed_error", "message": "pager unreachable"}}),
        ),
        // 11, 12: a new kind of event, twice (told once).
        ev(json!({"type": "agent.hologram", "id": "sevt_9"})),
        ev(json!({"type": "agent.hologram", "id": "sevt_10"})),
        // 13: the tool result repeated (the same event id).
        ev(
            json!({"type": "agent.tool_result", "id": "sevt_3", "tool_use_id": "sevt_2", "content": [{"type": "text", "text": "other"}]}),
        ),
        // 14, 15: two messages of the agent: one answer.
        ev(
            json!({"type": "agent.message", "id": "sevt_11", "content": [{"type": "text", "text": "The disk is "}, {"type": "text", "text": "91% full."}], "processed_at": "2026-07-06T10:00:05Z"}),
        ),
        ev(
            json!({"type": "agent.message", "id": "sevt_12", "content": [{"type": "text", "text": "Paging was denied."}]}),
        ),
        // 16: neither an event nor a page.
        ev(json!({"hello": 1})),
        // 17: a second session's object: its events make a session of their own.
        ev(json!({"type": "session", "id": "sesn_B"})),
        // 18
        ev(
            json!({"type": "user.message", "id": "sevt_20", "content": [{"type": "text", "text": "again"}]}),
        ),
        // 19, 20: a built-in tool whose result a self-hosted environment's worker sent.
        ev(
            json!({"type": "agent.tool_use", "id": "sevt_21", "name": "read", "input": {"path": "/etc/hosts"}}),
        ),
        ev(
            json!({"type": "user.tool_result", "id": "sevt_22", "tool_use_id": "sevt_21", "content": [{"type": "text", "text": "127.0.0.1 localhost"}], "is_error": true}),
        ),
        // 21: the file ends in the middle of a record.
        "{\"type\": \"agent.message\", \"content\": [".into(),
    ]
}

#[test]
fn managed_agents_bad_lines_are_named_and_the_rest_is_read() {
    let text = mixed_lines().join("\n");
    let v = load_any_bytes("m", "m.jsonl", text.as_bytes(), &LoadOptions::default());
    assert_eq!(v.len(), 2, "two session objects");
    let (s, b) = (&v[0], &v[1]);
    assert_eq!((s.id(), b.id()), ("sesn_A", "sesn_B"));
    // Told apart by name.
    assert_eq!((s.name.as_str(), b.name.as_str()), ("m#sesn_A", "m#sesn_B"));
    let h = s.header.as_ref().unwrap();
    assert_eq!(
        (h.agent.as_deref(), h.model.as_deref()),
        (Some("ops/3"), Some("claude-x"))
    );
    let servers: Vec<(&str, &str)> = s
        .calls
        .iter()
        .map(|c| (c.id.as_str(), c.server.as_str()))
        .collect();
    assert_eq!(
        servers,
        [
            ("sevt_2", "anthropic"),
            ("sevt_4", "mcp"),
            ("sevt_6", "pager")
        ]
    );
    // The built-in tool's result, read once.
    assert_eq!(
        s.result("sevt_2").unwrap().block_text(0),
        Some("/dev/sda1 91%")
    );
    assert_eq!(s.results.len(), 1);
    // Text blocks of a message are joined; messages of a turn are separated by a blank line.
    assert_eq!(s.answers.len(), 1);
    assert_eq!(
        s.answers[0].text,
        "The disk is 91% full.\n\nPaging was denied."
    );
    let d = diags(s);
    let want = [
        "m.jsonl:5:",
        "m.jsonl:6:1: warning: $.mcp_server_name: an MCP tool use without `mcp_server_name`: its server is `mcp`",
        "m.jsonl:9:1: error: $.mcp_tool_use_id: a tool result without `mcp_tool_use_id`; skipped",
        "m.jsonl:10:1: warning: $.error: the session reported an error: mcp_connection_failed_error: \"pager unreachable\"",
        "m.jsonl:11:1: warning: $.type: unknown record type `agent.hologram`; skipped, with the later records of this type",
        "m.jsonl:16:1: error: $.type: neither an event (no `type`) nor a list of events (`data`); skipped",
    ];
    assert_eq!(d.len(), want.len(), "{d:#?}");
    for (d, w) in d.iter().zip(want) {
        assert!(d.starts_with(w), "{d}\n{w}");
    }
    assert!(d[0].contains("error: malformed JSON: "), "{}", d[0]);
    let n = notes(s);
    for want in [
        "1 tool use denied by the user",
        "tool uses of sub-agent threads (sthr_B)",
        "1 repeated event",
    ] {
        assert!(n.iter().any(|x| x.contains(want)), "{want}: {n:?}");
    }
    // The second session: its turn, and the truncated last line.
    assert_eq!(b.turns.len(), 1);
    assert_eq!(b.turns[0].user, "again");
    assert_eq!(b.calls[0].server, "anthropic");
    let r = b.result("sevt_21").unwrap();
    assert!(r.is_error());
    assert_eq!(r.block_text(0), Some("127.0.0.1 localhost"));
    let d = diags(b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].starts_with("m.jsonl:21:") && d[0].contains("truncated line"),
        "{}",
        d[0]
    );
}

#[test]
fn managed_agents_documents_that_break_are_one_error() {
    let (_, page) = shapes().into_iter().find(|s| s.0 == "page.json").unwrap();
    let cut = &page[..page.len() / 2];
    let v = load_any_bytes("p", "p.json", cut, &LoadOptions::default());
    assert_eq!(v.len(), 1);
    let d = diags(&v[0]);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].contains("error: not a Claude Managed Agents event list (EOF while parsing"),
        "{}",
        d[0]
    );
    assert!(v[0].calls.is_empty());
    // A page's item that is no event is named by its path; the others are read.
    let mut doc: Value = serde_json::from_slice(&page).unwrap();
    doc["data"].as_array_mut().unwrap().insert(1, json!(42));
    doc["next_page"] = json!("page_2");
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let v = load_any_bytes("p", "p.json", text.as_bytes(), &LoadOptions::default());
    let d = diags(&v[0]);
    assert_eq!(
        d,
        ["p.json: error: $.data[1]: not an event (a JSON object) or a list of events; skipped"]
    );
    assert_eq!(v[0].calls.len(), 1);
    assert_eq!(v[0].calls[0].json_path.as_deref(), Some("$.data[6]"));
    assert!(notes(&v[0]).iter().any(|n| n.contains("`next_page`")));
}

#[test]
fn summary_and_verify_name_the_importer_and_its_places() {
    let d = dir();
    let d = d.to_str().unwrap();
    let rows = summary_rows(d);
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["format"], FORMAT, "{r}");
        assert_eq!(
            (&r["turns"], &r["calls"], &r["results"], &r["claims"]),
            (&json!(1), &json!(1), &json!(1), &json!(0)),
            "{r}"
        );
        assert_eq!(r["errors"], 0, "{r}");
    }
    let o = provscope(&["summary", d]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches(FORMAT).count(), 2, "{out}");
    // The MCP result in context comes from `exa`, whose tier is declared nowhere: a warning at
    // the result's line, and the line to add to provscope.toml.
    let o = provscope(&["verify", d]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        out.contains("anthropic_managed_mcp_tools.jsonl:16"),
        "{out}"
    );
    assert!(err.contains("\"exa\" = \"T1\""), "{err}");
}

#[test]
fn the_sessions_list_shows_the_importer_name_whole() {
    use provscope::tui::action::{LoadMsg, Msg};
    use provscope::tui::update::update;
    let mut app = super::tui_util::app(false);
    let v = vec![
        load("anthropic_managed_mcp_tools.jsonl"),
        load("anthropic_managed_custom_tools.jsonl"),
    ];
    update(
        &mut app,
        Msg::Load(LoadMsg::Sessions(super::tui_util::loaded(v))),
    );
    let s = super::tui_util::screen(&mut app, 160, 30);
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains("anthropic_managed"))
        .collect();
    assert_eq!(rows.len(), 2, "{s}");
    for r in rows {
        assert!(r.contains(" anthropic-managed-agents "), "{r}");
    }
    // The other importers' names are not cut either.
    assert!(s.contains(" provscope "), "{s}");
}
