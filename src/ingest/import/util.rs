//! Small helpers shared by the importers: JSON value access, times, content blocks.

use crate::model::{ContentBlock, Name, Timestamp};
use serde_json::value::RawValue;
use serde_json::Value;

/// The string at `key` of an object.
pub fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

/// The array at `key` of an object (empty when absent or not an array).
pub fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A JSON value as raw JSON.
pub fn raw(v: &Value) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(v).ok()
}

/// Tool arguments given as a JSON string (OpenAI, OTel) or as JSON: the raw arguments, or a
/// sentence saying why they cannot be used.
pub fn raw_args(v: &Value) -> Result<Box<RawValue>, String> {
    match v {
        Value::String(text) => match serde_json::from_str::<Box<RawValue>>(text) {
            Ok(r) => Ok(r),
            Err(e) => Err(format!("the arguments string is not JSON ({e})")),
        },
        other => raw(other).ok_or_else(|| "the arguments cannot be re-serialized".into()),
    }
}

/// A timestamp from RFC 3339 text.
pub fn time_str(t: &str) -> Option<Timestamp> {
    Timestamp::parse(t.trim()).ok()
}

/// A timestamp from Unix seconds.
pub fn time_secs(secs: f64) -> Option<Timestamp> {
    (secs.is_finite() && secs.abs() < 1e13).then_some(Timestamp((secs * 1000.0) as i64))
}

/// Content blocks from a tool result's content: a string, a block, or an array of blocks.
/// Blocks that are not MCP-shaped are kept as received (extra fields), without citable text.
pub fn blocks(v: &Value) -> Vec<ContentBlock> {
    match v {
        Value::Null => Vec::new(),
        Value::String(t) => vec![super::build::text_block(t.clone())],
        Value::Array(items) => items.iter().map(block).collect(),
        other => vec![block(other)],
    }
}

/// One content block from JSON: MCP blocks as they are; a bare string as text; anything else as
/// a block of its own `type` (or `json`) with every field kept.
pub fn block(v: &Value) -> ContentBlock {
    let Value::Object(o) = v else {
        if let Value::String(t) = v {
            return super::build::text_block(t.clone());
        }
        return ContentBlock {
            kind: "json".into(),
            extra: raw(v)
                .map(|r| (Name::from("value"), r))
                .into_iter()
                .collect(),
            ..ContentBlock::default()
        };
    };
    let mut b = ContentBlock {
        kind: o
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("json")
            .into(),
        ..ContentBlock::default()
    };
    for (k, x) in o {
        match (k.as_str(), x) {
            ("type", Value::String(_)) => {}
            ("text", Value::String(t)) => b.text = Some(t.as_str().into()),
            ("resource", Value::Object(_)) => match serde_json::from_value(x.clone()) {
                Ok(r) => b.resource = Some(Box::new(r)),
                Err(_) => b.extra.extend(raw(x).map(|r| (Name::from(k), r))),
            },
            _ => b.extra.extend(raw(x).map(|r| (Name::from(k), r))),
        }
    }
    b
}

/// A text output (a tool's `output` string, OTel `result`): text as it is, JSON as its text.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::String(t) => t.clone(),
        other => other.to_string(),
    }
}

/// `bytes` as text: checked by `simdutf8` (several times faster than `std` on the long
/// documents importers read), and by `std` again only when invalid, for the error's position.
pub fn utf8(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(t) => Ok(t),
        Err(_) => std::str::from_utf8(bytes),
    }
}
