//! VCR cassettes (vcrpy, pydantic-ai, go-vcr style YAML): recorded HTTP interactions, each a
//! request and its response. The model-API importers read the JSON bodies of the interactions
//! with their API's host.

use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Timestamp};
use serde_json::Value;

/// One recorded request and response with a JSON body.
pub struct Interaction {
    /// Index in the cassette's `interactions`.
    pub index: usize,
    /// The request URI.
    pub uri: String,
    /// The request body, when it is JSON.
    pub request: Option<Value>,
    /// The response body, when it is JSON.
    pub response: Option<Value>,
    /// The response body's events, when it is a stream of server-sent events (a streamed
    /// call), which the API's importer puts together into the response.
    pub stream: Option<Vec<super::sse::Event>>,
    /// The response's `date` header, if recorded.
    pub date: Option<Timestamp>,
}

/// A problem found reading the cassette (diagnostic material).
pub struct Problem {
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// The path of the field concerned.
    pub path: String,
    /// Error or warning.
    pub level: DiagLevel,
    /// One sentence.
    pub message: String,
}

/// Reads the interactions whose URI contains one of `hosts`.
pub fn read(text: &str, hosts: &[&str]) -> (Vec<Interaction>, Vec<Problem>) {
    let mut problems = Vec::new();
    let doc: Value = match serde_yaml_ng::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let (line, column) = e
                .location()
                .map_or((0, 0), |l| (l.line() as u64, l.column() as u64));
            problems.push(Problem {
                line,
                column,
                path: String::new(),
                level: DiagLevel::Error,
                message: format!(
                    "the cassette is not valid YAML: {}",
                    strip_pos(&e.to_string())
                ),
            });
            return (Vec::new(), problems);
        }
    };
    let Some(list) = doc.get("interactions").and_then(Value::as_array) else {
        problems.push(Problem {
            line: 1,
            column: 1,
            path: "interactions".into(),
            level: DiagLevel::Error,
            message: "a cassette needs an `interactions` list".into(),
        });
        return (Vec::new(), problems);
    };
    let mut out = Vec::new();
    for (index, it) in list.iter().enumerate() {
        let uri = it
            .pointer("/request/uri")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !hosts.iter().any(|h| uri.contains(h)) {
            continue;
        }
        let path = format!("interactions[{index}]");
        let request = body(it.get("request"), &format!("{path}.request"), &mut problems);
        let response = body(
            it.get("response"),
            &format!("{path}.response"),
            &mut problems,
        );
        let stream = match response {
            Some(_) => None,
            None => stream(
                it.get("response"),
                &format!("{path}.response"),
                &mut problems,
            ),
        };
        let date = it
            .pointer("/response/headers/date/0")
            .or_else(|| it.pointer("/response/headers/Date/0"))
            .and_then(Value::as_str)
            .and_then(http_date);
        out.push(Interaction {
            index,
            uri: uri.to_owned(),
            request,
            response,
            stream,
            date,
        });
    }
    (out, problems)
}

/// The text of a recorded body: `body` as a string or `{string: ...}` (vcrpy).
fn body_text(part: &Value) -> Option<&str> {
    match part.get("body")? {
        Value::String(s) => Some(s.as_str()),
        Value::Object(o) => o.get("string").and_then(Value::as_str),
        _ => None,
    }
}

/// The events of a recorded body that is a stream of server-sent events (a streamed call),
/// with what is wrong in them as warnings naming the body's line.
fn stream(
    part: Option<&Value>,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<Vec<super::sse::Event>> {
    let text = body_text(part?)?;
    if !super::sse::starts_as_sse(text) {
        return None;
    }
    let (events, found) = super::sse::events(text);
    problems.extend(found.into_iter().map(|p| Problem {
        line: 0,
        column: 0,
        path: format!("{path}.body"),
        level: DiagLevel::Warning,
        message: p.in_body(),
    }));
    Some(events)
}

/// The JSON body of a recorded request or response: `parsed_body` (pydantic-ai), or `body`
/// as a JSON string or `{string: ...}` (vcrpy).
fn body(part: Option<&Value>, path: &str, problems: &mut Vec<Problem>) -> Option<Value> {
    let part = part?;
    if let Some(v) = part.get("parsed_body") {
        return (!v.is_null()).then(|| v.clone());
    }
    let text = body_text(part)?;
    let t = text.trim_start();
    // Uploads and other non-JSON bodies are not errors; a body that starts like JSON and does
    // not parse is.
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    match serde_json::from_str(text) {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(Problem {
                line: 0,
                column: 0,
                path: format!("{path}.body"),
                level: DiagLevel::Warning,
                message: format!("the body is not JSON ({e}); skipped"),
            });
            None
        }
    }
}

/// An HTTP `date` header (RFC 2822 / IMF-fixdate).
fn http_date(s: &str) -> Option<Timestamp> {
    use time::format_description::well_known::Rfc2822;
    let t = time::OffsetDateTime::parse(s.trim(), &Rfc2822).ok()?;
    i64::try_from(t.unix_timestamp_nanos().div_euclid(1_000_000))
        .ok()
        .map(Timestamp)
}

/// Routes a cassette head to an API: true when one of `hosts` appears in a `uri:` line.
pub fn mentions(head: &str, hosts: &[&str]) -> bool {
    head.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("uri:") && hosts.iter().any(|h| t.contains(h))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_parsed_and_string_bodies() {
        let y = "interactions:\n- request:\n    uri: https://api.x.com/v1\n    body: '{\"a\":1}'\n  response:\n    headers:\n      date:\n      - Tue, 09 Jul 2025 13:27:25 GMT\n    body:\n      string: '{\"b\":2}'\n- request:\n    uri: https://other/\n  response: {}\nversion: 1\n";
        let (its, problems) = read(y, &["api.x.com"]);
        assert!(problems.is_empty());
        assert_eq!(its.len(), 1);
        assert_eq!(its[0].request.as_ref().unwrap()["a"], 1);
        assert_eq!(its[0].response.as_ref().unwrap()["b"], 2);
        assert!(its[0].date.is_some());
        let (its, problems) = read("interactions: [\n", &["x"]);
        assert!(its.is_empty() && problems[0].line > 0);
    }
}
