//! The MCP JSON-RPC shapes provscope records: `tools/call` requests and their results.
//!
//! Results are parsed losslessly: known fields are typed, every other field is kept as raw
//! JSON, so the result can be re-serialized and hashed exactly as it was received.

use super::Name;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;

/// A JSON-RPC id: a string or a number. Its canonical text (`"req_1"` -> `req_1`, `7` -> `7`)
/// is the call id used throughout provscope unless the log sets one explicitly.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RpcId {
    /// A string id.
    Str(Name),
    /// A numeric id, kept as its JSON text.
    Num(Name),
}

impl RpcId {
    /// The id as text, the form used as a call id.
    pub fn as_text(&self) -> &str {
        match self {
            RpcId::Str(s) | RpcId::Num(s) => s,
        }
    }
}

impl Serialize for RpcId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RpcId::Str(v) => s.serialize_str(v),
            RpcId::Num(v) => match v.parse::<i64>() {
                Ok(n) => s.serialize_i64(n),
                Err(_) => match v.parse::<u64>() {
                    Ok(n) => s.serialize_u64(n),
                    Err(_) => s.serialize_f64(v.parse::<f64>().unwrap_or(0.0)),
                },
            },
        }
    }
}

impl<'de> Deserialize<'de> for RpcId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RpcId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON-RPC id (string or number)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RpcId, E> {
                Ok(RpcId::Str(v.into()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RpcId, E> {
                Ok(RpcId::Num(v.to_string().into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RpcId, E> {
                Ok(RpcId::Num(v.to_string().into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RpcId, E> {
                if v.fract() == 0.0 && v.abs() < 9.0e15 {
                    Ok(RpcId::Num((v as i64).to_string().into()))
                } else {
                    Ok(RpcId::Num(v.to_string().into()))
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl fmt::Display for RpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_text())
    }
}

/// A JSON-RPC `tools/call` request as sent by the client.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct CallRequest {
    /// Always `"2.0"`.
    #[serde(default)]
    pub jsonrpc: Option<Name>,
    /// The request id that pairs the call with its response.
    pub id: RpcId,
    /// `tools/call`.
    pub method: Name,
    /// The call's parameters.
    pub params: CallParams,
}

/// `params` of a `tools/call` request.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct CallParams {
    /// The tool name.
    pub name: Name,
    /// The tool arguments (any JSON; usually an object). Absent means `{}`. Shared: the calls
    /// of a loaded session that send the same arguments hold one copy of them ([`super::Names`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<std::sync::Arc<RawValue>>,
    /// Request metadata (progress token and the like), kept as received.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<RawValue>>,
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// The error message (untrusted text).
    pub message: String,
    /// Optional error data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Box<RawValue>>,
}

/// The JSON-RPC response to a `tools/call`, as received: a `result` or an `error`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct CallResponse {
    /// Always `"2.0"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jsonrpc: Option<Name>,
    /// The id of the request this answers.
    pub id: RpcId,
    /// The tool result, when the call did not fail at the protocol level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    /// The protocol error, when it did (boxed: most results have none, and a session holds
    /// every result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<RpcError>>,
}

/// A `CallToolResult` (MCP 2025-11-25 and 2026-07-28 shapes), parsed losslessly.
#[derive(Clone, Debug, Default)]
pub struct CallToolResult {
    /// Unstructured content blocks.
    pub content: Vec<ContentBlock>,
    /// `isError`.
    pub is_error: Option<bool>,
    /// `structuredContent`, `resultType` and unknown fields, when the result has any (boxed:
    /// most results have none, and a session holds every result; 40 bytes instead of 96).
    pub rare: Option<Box<ResultRare>>,
}

/// The fields of a [`CallToolResult`] most results lack.
#[derive(Clone, Debug, Default)]
pub struct ResultRare {
    /// `structuredContent`, kept as raw JSON.
    pub structured: Option<Box<RawValue>>,
    /// `resultType` (2026-07-28).
    pub result_type: Option<String>,
    /// Every other field, raw, in the order received.
    pub extra: Vec<(Name, Box<RawValue>)>,
}

impl CallToolResult {
    /// `structuredContent`, raw.
    pub fn structured(&self) -> Option<&RawValue> {
        self.rare.as_ref()?.structured.as_deref()
    }

    /// `resultType`.
    pub fn result_type(&self) -> Option<&str> {
        self.rare.as_ref()?.result_type.as_deref()
    }

    /// Every field other than the typed ones, raw, in the order received.
    pub fn extra(&self) -> &[(Name, Box<RawValue>)] {
        self.rare.as_ref().map_or(&[], |r| &r.extra)
    }

    /// The rare fields, made present.
    pub fn rare_mut(&mut self) -> &mut ResultRare {
        self.rare.get_or_insert_with(Box::default)
    }
}

/// One content block: `text`, `image`, `audio`, `resource_link` or `resource`, parsed losslessly.
#[derive(Clone, Debug, Default)]
pub struct ContentBlock {
    /// The block type.
    pub kind: Name,
    /// `text` of a text block (a [`Name`]: results that return the same text share one copy
    /// of it in a loaded session, as a tool polled or served from a cache does).
    pub text: Option<Name>,
    /// `resource` of an embedded resource block; its `text` is citable (boxed: most blocks are
    /// text blocks).
    pub resource: Option<Box<EmbeddedResource>>,
    /// Every other field (`data`, `mimeType`, `uri`, `annotations`, `_meta`, ...), raw.
    pub extra: Vec<(Name, Box<RawValue>)>,
}

/// The `resource` object of an embedded resource block.
#[derive(Clone, Debug, Default)]
pub struct EmbeddedResource {
    /// The resource URI.
    pub uri: Option<String>,
    /// Text contents, when the resource is text.
    pub text: Option<String>,
    /// Every other field (`mimeType`, `blob`, ...), raw.
    pub extra: Vec<(Name, Box<RawValue>)>,
}

impl ContentBlock {
    /// The citable text of this block: a text block's `text`, or an embedded text resource's `text`.
    pub fn citable_text(&self) -> Option<&str> {
        self.text
            .as_deref()
            .or_else(|| self.resource.as_ref().and_then(|r| r.text.as_deref()))
    }

    /// A raw extra field by name.
    pub fn extra_field(&self, name: &str) -> Option<&RawValue> {
        self.extra
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| &**v)
    }
}

fn ser_extra<M: SerializeMap>(m: &mut M, extra: &[(Name, Box<RawValue>)]) -> Result<(), M::Error> {
    for (k, v) in extra {
        m.serialize_entry(k, v)?;
    }
    Ok(())
}

impl Serialize for CallToolResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("content", &self.content)?;
        if let Some(v) = self.structured() {
            m.serialize_entry("structuredContent", v)?;
        }
        if let Some(v) = &self.is_error {
            m.serialize_entry("isError", v)?;
        }
        if let Some(v) = self.result_type() {
            m.serialize_entry("resultType", v)?;
        }
        ser_extra(&mut m, self.extra())?;
        m.end()
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", &self.kind)?;
        if let Some(v) = &self.text {
            m.serialize_entry("text", v)?;
        }
        if let Some(v) = &self.resource {
            m.serialize_entry("resource", v)?;
        }
        ser_extra(&mut m, &self.extra)?;
        m.end()
    }
}

impl Serialize for EmbeddedResource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(v) = &self.uri {
            m.serialize_entry("uri", v)?;
        }
        if let Some(v) = &self.text {
            m.serialize_entry("text", v)?;
        }
        ser_extra(&mut m, &self.extra)?;
        m.end()
    }
}

/// Rejects a key seen twice in one object, as a clear error rather than last-one-wins.
fn dup<E: de::Error>(seen: bool, key: &'static str) -> Result<(), E> {
    if seen {
        Err(E::duplicate_field(key))
    } else {
        Ok(())
    }
}

impl<'de> Deserialize<'de> for CallToolResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CallToolResult;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a CallToolResult object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<CallToolResult, A::Error> {
                let mut r = CallToolResult::default();
                let mut seen_content = false;
                while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "content" => {
                            dup(seen_content, "content")?;
                            seen_content = true;
                            // A kept session holds every result: no spare block capacity.
                            r.content = super::session::exact(a.next_value()?);
                        }
                        "structuredContent" => {
                            dup(r.structured().is_some(), "structuredContent")?;
                            r.rare_mut().structured = Some(a.next_value()?);
                        }
                        "isError" => {
                            dup(r.is_error.is_some(), "isError")?;
                            r.is_error = a.next_value()?;
                        }
                        "resultType" => {
                            dup(r.result_type().is_some(), "resultType")?;
                            let t: Option<String> = a.next_value()?;
                            // `"resultType": null` is absent, as before the field was boxed.
                            if t.is_some() {
                                r.rare_mut().result_type = t;
                            }
                        }
                        _ => {
                            let v = a.next_value()?;
                            r.rare_mut().extra.push((Name::from(&*k), v));
                        }
                    }
                }
                if let Some(rare) = &mut r.rare {
                    rare.extra = super::session::exact(std::mem::take(&mut rare.extra));
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentBlock;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content block object with a `type`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<ContentBlock, A::Error> {
                let mut b = ContentBlock::default();
                let mut kind: Option<Name> = None;
                while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "type" => {
                            dup(kind.is_some(), "type")?;
                            kind = Some(a.next_value()?);
                        }
                        "text" => {
                            dup(b.text.is_some(), "text")?;
                            b.text = Some(a.next_value()?);
                        }
                        "resource" => {
                            dup(b.resource.is_some(), "resource")?;
                            b.resource = Some(a.next_value()?);
                        }
                        _ => b.extra.push((Name::from(&*k), a.next_value()?)),
                    }
                }
                b.kind = kind.ok_or_else(|| de::Error::missing_field("type"))?;
                Ok(b)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for EmbeddedResource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EmbeddedResource;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an embedded resource object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<EmbeddedResource, A::Error> {
                let mut r = EmbeddedResource::default();
                while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "uri" => {
                            dup(r.uri.is_some(), "uri")?;
                            r.uri = Some(a.next_value()?);
                        }
                        "text" => {
                            dup(r.text.is_some(), "text")?;
                            r.text = Some(a.next_value()?);
                        }
                        _ => r.extra.push((Name::from(&*k), a.next_value()?)),
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_round_trips_losslessly() {
        let src = r#"{"content":[{"type":"text","text":"€19 per seat","annotations":{"audience":["user"]}},{"type":"resource","resource":{"uri":"file:///p.md","mimeType":"text/markdown","text":"Refunds: 5 business days"}},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"price":19},"isError":false,"resultType":"complete","_meta":{"x":1}}"#;
        let r: CallToolResult = serde_json::from_str(src).unwrap();
        assert_eq!(r.content.len(), 3);
        assert_eq!(r.content[0].citable_text(), Some("€19 per seat"));
        assert_eq!(
            r.content[1].citable_text(),
            Some("Refunds: 5 business days")
        );
        assert_eq!(r.content[2].citable_text(), None);
        let back: serde_json::Value = serde_json::to_value(&r).unwrap();
        let orig: serde_json::Value = serde_json::from_str(src).unwrap();
        assert_eq!(back, orig);
    }

    #[test]
    fn rare_result_fields_are_boxed_only_when_present() {
        let plain: CallToolResult =
            serde_json::from_str(r#"{"content":[{"type":"text","text":"a"}],"isError":false}"#)
                .unwrap();
        assert!(plain.rare.is_none());
        assert!(plain.structured().is_none());
        assert!(plain.extra().is_empty());
        // `"resultType": null` reads as absent and is not written back, as before.
        let n: CallToolResult =
            serde_json::from_str(r#"{"content":[],"resultType":null}"#).unwrap();
        assert!(n.rare.is_none());
        assert_eq!(serde_json::to_string(&n).unwrap(), r#"{"content":[]}"#);
        let rare: CallToolResult =
            serde_json::from_str(r#"{"content":[],"resultType":"complete","_meta":{"x":1},"z":2}"#)
                .unwrap();
        assert_eq!(rare.result_type(), Some("complete"));
        let keys: Vec<&str> = rare.extra().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["_meta", "z"]);
        assert_eq!(rare.rare.as_ref().unwrap().extra.capacity(), 2);
        assert!(serde_json::from_str::<CallToolResult>(
            r#"{"content":[],"structuredContent":1,"structuredContent":2}"#
        )
        .is_err());
    }

    /// A session holds one of each per result: a change of size is a change of the explorer's
    /// memory per call (issue 18).
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn result_records_keep_their_size() {
        use std::mem::size_of;
        assert_eq!(size_of::<CallToolResult>(), 40);
        assert_eq!(size_of::<ContentBlock>(), 64);
        assert_eq!(size_of::<CallResponse>(), 88);
    }

    #[test]
    fn ids_keep_their_text() {
        let a: RpcId = serde_json::from_str("7").unwrap();
        let b: RpcId = serde_json::from_str("\"req_7\"").unwrap();
        assert_eq!(a.as_text(), "7");
        assert_eq!(b.as_text(), "req_7");
        assert!(serde_json::from_str::<RpcId>("null").is_err());
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let e = serde_json::from_str::<ContentBlock>(r#"{"type":"text","text":"a","text":"b"}"#);
        assert!(e.is_err());
    }
}
