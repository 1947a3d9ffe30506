//! Anthropic content blocks (Messages API, Claude Code, managed agents): tool calls, their
//! results and answer text, shared by the importers that read them.

use super::build::{link_block, Builder, NewCall, NewResult};
use super::lax::Any;
use super::util::{self, s};
use crate::model::{ContentBlock, DiagLevel, SubSession, Timestamp};
use serde_json::value::RawValue;
use serde_json::Value;

/// Which server ran a tool, by block type and name.
pub enum ToolHost<'a> {
    /// A client tool run by the application (`tool_use`).
    App,
    /// A tool run by Anthropic (`server_tool_use`: web search, web fetch, code execution).
    Anthropic,
    /// An MCP server (`mcp_tool_use.server_name`).
    Mcp(&'a str),
    /// Claude Code: built-in tools, and `mcp__<server>__<tool>` names.
    ClaudeCode,
}

/// The server and tool name of a tool call.
pub fn server_and_tool(host: &ToolHost, name: &str) -> (String, String) {
    match host {
        ToolHost::App => ("app".into(), name.into()),
        ToolHost::Anthropic => ("anthropic".into(), name.into()),
        ToolHost::Mcp(server) => ((*server).into(), name.into()),
        ToolHost::ClaudeCode => match mcp_name(name) {
            Some((server, tool)) => (server.into(), tool.into()),
            None => ("claude-code".into(), name.into()),
        },
    }
}

/// Splits Claude Code's `mcp__<server>__<tool>` into server and tool.
pub fn mcp_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// The JSON path of a block of a one-document file (`line` 0); a line of a transcript is
/// located by its line.
fn doc_path(line: u64, path: &str) -> Option<crate::model::Name> {
    (line == 0).then(|| super::build::json_path(path))
}

/// Records a `tool_use` / `server_tool_use` / `mcp_tool_use` block as a call.
pub fn call(
    b: &mut Builder,
    block: &Value,
    host: ToolHost,
    at: Option<Timestamp>,
    line: u64,
    path: &str,
    sub_session: Option<SubSession>,
) -> Option<String> {
    let fields = CallFields {
        id: s(block, "id"),
        name: s(block, "name").unwrap_or(""),
        server_name: s(block, "server_name"),
    };
    record_call(
        b,
        fields,
        || block.get("input").and_then(util::raw),
        host,
        (at, line, path),
        sub_session,
    )
}

/// What a call block names, read from a `Value` or from typed fields.
pub struct CallFields<'a> {
    /// `id`.
    pub id: Option<&'a str>,
    /// `name`.
    pub name: &'a str,
    /// `server_name` (`mcp_tool_use`).
    pub server_name: Option<&'a str>,
}

/// Records a call block from its fields; `arguments` (the `input` as raw JSON) is read only
/// when the call is new.
pub fn record_call(
    b: &mut Builder,
    block: CallFields,
    arguments: impl FnOnce() -> Option<Box<RawValue>>,
    host: ToolHost,
    (at, line, path): (Option<Timestamp>, u64, &str),
    sub_session: Option<SubSession>,
) -> Option<String> {
    let Some(id) = block.id else {
        b.diag(
            line,
            0,
            &format!("{path}.id"),
            DiagLevel::Error,
            "a tool call without an `id`; skipped".into(),
        );
        return None;
    };
    let host = match (&host, block.server_name) {
        (ToolHost::App, Some(server)) => ToolHost::Mcp(server),
        _ => host,
    };
    let (server, tool) = server_and_tool(&host, block.name);
    if b.has_call(id) {
        // Replayed history: the call is already recorded.
        return Some(id.to_owned());
    }
    b.call(NewCall {
        id: id.to_owned(),
        server,
        tool,
        arguments: arguments(),
        at,
        line,
        json_path: doc_path(line, path),
        sub_session,
        ..NewCall::default()
    });
    Some(id.to_owned())
}

/// Search results inside a tool result, in order: (first block index, block count).
pub type SearchSpans = Vec<(usize, usize)>;

/// Content blocks of a tool result's `content`; `search_result` blocks are flattened into their
/// text blocks, and web search results become `resource_link` blocks with their URL.
pub fn result_blocks(content: &Value) -> (Vec<ContentBlock>, SearchSpans) {
    let mut out = Vec::new();
    let mut search = Vec::new();
    let items: Vec<&Value> = match content {
        Value::Array(a) => a.iter().collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    };
    for item in items {
        match s(item, "type") {
            Some("search_result") => {
                let first = out.len();
                out.extend(util::arr(item, "content").iter().map(util::block));
                search.push((first, out.len() - first));
            }
            Some("web_search_result") => {
                out.push(link_block(s(item, "url").unwrap_or(""), s(item, "title")));
            }
            _ => out.push(util::block(item)),
        }
    }
    (out, search)
}

/// Records a `tool_result` / `*_tool_result` block as the result of its call.
pub fn result(
    b: &mut Builder,
    block: &Value,
    at: Option<Timestamp>,
    line: u64,
    path: &str,
) -> Option<(String, SearchSpans)> {
    let content = block.get("content").unwrap_or(&Value::Null);
    // A server tool's error result is an object with an `error_code`.
    let error_code = content.get("error_code").and_then(Value::as_str).is_some();
    let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true) || error_code;
    record_result(
        b,
        s(block, "tool_use_id"),
        || result_blocks(content),
        is_error,
        (at, line, path),
    )
}

/// Records a result block from its `tool_use_id`, its content blocks and whether it is an
/// error.
pub fn record_result(
    b: &mut Builder,
    id: Option<&str>,
    content: impl FnOnce() -> (Vec<ContentBlock>, SearchSpans),
    is_error: bool,
    (at, line, path): (Option<Timestamp>, u64, &str),
) -> Option<(String, SearchSpans)> {
    let Some(id) = id else {
        b.diag(
            line,
            0,
            &format!("{path}.tool_use_id"),
            DiagLevel::Error,
            "a tool result without a `tool_use_id`; skipped".into(),
        );
        return None;
    };
    let (blocks, search) = content();
    if b.has_result(id) {
        return Some((id.to_owned(), search));
    }
    if !b.has_call(id) {
        b.diag(
            line,
            0,
            path,
            DiagLevel::Warning,
            format!("result for call `{id}`, but no such call was recorded"),
        );
    }
    b.result(NewResult {
        call_id: id.to_owned(),
        content: blocks,
        is_error,
        at,
        line,
        json_path: doc_path(line, path),
        ..NewResult::default()
    });
    Some((id.to_owned(), search))
}

/// [`result_blocks`] of a result's `content` read as [`Any`] (`None`: absent).
pub fn result_blocks_any(content: Option<&Any>) -> (Vec<ContentBlock>, SearchSpans) {
    let mut out = Vec::new();
    let mut search = Vec::new();
    let items: &[Any] = match content {
        Some(Any::Array(a)) => a,
        None | Some(Any::Other(Value::Null)) => &[],
        Some(other) => std::slice::from_ref(other),
    };
    for item in items {
        match item.str("type").as_deref() {
            Some("search_result") => {
                let first = out.len();
                let content = item
                    .get("content")
                    .and_then(|r| serde_json::from_str(r.get()).ok());
                if let Some(Value::Array(blocks)) = content {
                    out.extend(blocks.iter().map(util::block));
                }
                search.push((first, out.len() - first));
            }
            Some("web_search_result") => {
                let url = item.str("url");
                out.push(link_block(
                    url.as_deref().unwrap_or(""),
                    item.str("title").as_deref(),
                ));
            }
            _ => out.push(util::block(&item.to_value())),
        }
    }
    (out, search)
}

/// True for the block types that carry a tool's result.
pub fn is_result_type(t: &str) -> bool {
    t == "tool_result" || t.ends_with("_tool_result")
}

/// True for the block types that call a tool.
pub fn is_call_type(t: &str) -> bool {
    matches!(t, "tool_use" | "server_tool_use" | "mcp_tool_use")
}

/// The host of a call block by its type.
pub fn host_of(t: &str) -> ToolHost<'static> {
    match t {
        "server_tool_use" => ToolHost::Anthropic,
        _ => ToolHost::App,
    }
}
