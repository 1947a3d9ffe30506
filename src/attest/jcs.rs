//! RFC 8785 (JCS) canonical JSON written directly, byte for byte what `serde_jcs` writes, for
//! the values envelope verification hashes: JSON values, a call's arguments and a delivered
//! result. `serde_jcs` buffers every member of every object separately and parses each key back
//! into a JSON value to sort it (most of its time); here members are sorted by their keys'
//! UTF-16 code units before anything is written, and strings are escaped once, straight into
//! the output. Numbers are written as `serde_jcs` writes them: as the nearest double in
//! ECMAScript form (`ryu-js`, the formatter `serde_jcs` itself uses). Property tests check the
//! output equals `serde_jcs` for any value and any result.

use super::hash::HashError;
use crate::model::mcp::RpcError;
use crate::model::{CallResponse, CallToolResult, ContentBlock, Name};
use serde_json::value::RawValue;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// Appends the canonical JSON of a string: serde_json's compact escaping, which is RFC 8785's
/// (`"` and `\`, `\b \t \n \f \r`, other controls as lowercase `\u00xx`, nothing else). Runs of
/// characters that need no escape are found eight bytes at a time and copied whole (a result's
/// text is hundreds of bytes with few or no escapes).
pub fn write_str(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(i) = next_escape(bytes, start) {
        out.extend_from_slice(&bytes[start..i]);
        write_escape(bytes[i], out);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Whether a JSON string must escape this byte: a control character, `"` or `\`.
fn must_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The position of the first byte at or after `from` that must be escaped.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Whether any byte of `w` is zero (exact for the word as a whole, not for which byte).
    let zero_byte = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS != 0;
    let mut i = from;
    let mut words = bytes.get(from..)?.chunks_exact(8);
    for chunk in words.by_ref() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        let w = u64::from_ne_bytes(b);
        // A byte below 0x20: subtracting 0x20 borrows into its high bit, which was clear.
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0;
        if control
            || zero_byte(w ^ (ONES * u64::from(b'"')))
            || zero_byte(w ^ (ONES * u64::from(b'\\')))
        {
            break;
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| must_escape(b))
        .map(|k| i + k)
}

/// Appends the escape of one byte that [`must_escape`].
fn write_escape(b: u8, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x09 => out.extend_from_slice(b"\\t"),
        0x0a => out.extend_from_slice(b"\\n"),
        0x0c => out.extend_from_slice(b"\\f"),
        0x0d => out.extend_from_slice(b"\\r"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
    }
}

/// Appends the canonical form of a number: its nearest double in ECMAScript form.
fn write_f64(f: f64, out: &mut Vec<u8>) -> Result<(), HashError> {
    if !f.is_finite() {
        return Err(HashError::Number(format!(
            "{f} has no RFC 8785 form (not a finite number)"
        )));
    }
    out.extend_from_slice(ryu_js::Buffer::new().format_finite(f).as_bytes());
    Ok(())
}

fn write_number(n: &Number, out: &mut Vec<u8>) -> Result<(), HashError> {
    // Every serde_json number (no arbitrary precision) has an f64 value, as serde_jcs takes it.
    write_f64(n.as_f64().unwrap_or(f64::NAN), out)
}

/// RFC 8785 member order: keys compared by their UTF-16 code units.
fn utf16_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Appends the canonical JSON of a parsed value.
pub fn write_value(v: &Value, out: &mut Vec<u8>) -> Result<(), HashError> {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => write_number(n, out)?,
        Value::String(s) => write_str(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(map) => {
            // A parsed object has distinct keys.
            let mut members: Vec<(&str, &Value)> =
                map.iter().map(|(k, v)| (k.as_str(), v)).collect();
            members.sort_unstable_by(|a, b| utf16_cmp(a.0, b.0));
            out.push(b'{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(k, out);
                out.push(b':');
                write_value(v, out)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

/// Appends the canonical JSON of a raw JSON object whose members are all scalars already in
/// their canonical form (a string without an escape, `true`, `false`, `null`, a non-negative
/// integer of at most 15 digits) or lists of such scalars, with distinct keys: the members are
/// sorted as they are written, without a `Value` of them (the arguments of most tool calls). Returns false, and
/// writes nothing, for any other text; [`write_raw`] then gives the same bytes through a
/// `Value`.
pub fn write_flat_raw(raw: &RawValue, out: &mut Vec<u8>) -> bool {
    use serde::de::Deserializer as _;
    let text = raw.get();
    if !text.starts_with('{') {
        return false;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let Ok(Some(mut members)) = de.deserialize_map(FlatMembers) else {
        return false;
    };
    members.sort_unstable_by(|a, b| utf16_cmp(&a.0, &b.0));
    if members.windows(2).any(|w| w[0].0 == w[1].0) {
        // Duplicate keys: the parser's rule (the last value) is left to `write_raw`.
        return false;
    }
    out.reserve(text.len());
    out.push(b'{');
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(k, out);
        out.push(b':');
        match v {
            FlatValue::Scalar(v) => out.extend_from_slice(v.get().as_bytes()),
            FlatValue::List(items) => {
                out.push(b'[');
                for (j, item) in items.iter().enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(item.get().as_bytes());
                }
                out.push(b']');
            }
        }
    }
    out.push(b'}');
    true
}

/// A member's value in a flat object: a scalar, or a list of scalars (a search's queries),
/// each [`canonical_as_written`].
enum FlatValue<'de> {
    Scalar(&'de RawValue),
    List(Vec<&'de RawValue>),
}

/// True when a scalar's JSON text is its RFC 8785 form: a string without escapes (a valid JSON
/// string holds no raw control character), a literal, or an integer a double holds exactly
/// and ECMAScript writes in its digits (no sign: `-0` is written `0`).
fn canonical_as_written(text: &str) -> bool {
    match text.as_bytes() {
        [b'"', ..] => !text.contains('\\'),
        digits @ [b'0'..=b'9', ..] => digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit),
        _ => matches!(text, "true" | "false" | "null"),
    }
}

/// The members of a flat object (`None` when a value is not [`canonical_as_written`]).
struct FlatMembers;

type Flat<'de> = Vec<(std::borrow::Cow<'de, str>, FlatValue<'de>)>;

impl<'de> serde::de::Visitor<'de> for FlatMembers {
    type Value = Option<Flat<'de>>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let v = map.next_value::<&'de RawValue>()?;
            if canonical_as_written(v.get()) {
                out.push((k, FlatValue::Scalar(v)));
                continue;
            }
            if !v.get().starts_with('[') {
                return Ok(None);
            }
            let Ok(items) = serde_json::from_str::<Vec<&'de RawValue>>(v.get()) else {
                return Ok(None);
            };
            if !items.iter().all(|x| canonical_as_written(x.get())) {
                return Ok(None);
            }
            out.push((k, FlatValue::List(items)));
        }
        Ok(Some(out))
    }
}

/// Appends the canonical JSON of a raw JSON text (parsed first; duplicate keys keep the last
/// value, as when `serde_jcs` meets a raw value).
pub fn write_raw(raw: &RawValue, out: &mut Vec<u8>) -> Result<(), HashError> {
    let v: Value = serde_json::from_str(raw.get()).map_err(HashError::Canonicalize)?;
    write_value(&v, out)
}

/// A member of one of the typed objects of a result, before it is written.
enum Part<'a> {
    Str(&'a str),
    Bool(bool),
    Int(i64),
    Raw(&'a RawValue),
    Blocks(&'a [ContentBlock]),
    Resource(&'a crate::model::mcp::EmbeddedResource),
    Result(&'a CallToolResult),
    Error(&'a RpcError),
}

/// Writes an object from its members in the order the type serializes them: sorted stably by
/// key, and of equal keys only the last (as a map that is inserted into keeps it).
fn write_object(mut members: Vec<(&str, Part)>, out: &mut Vec<u8>) -> Result<(), HashError> {
    members.sort_by(|a, b| utf16_cmp(a.0, b.0));
    out.push(b'{');
    let mut first = true;
    let mut it = members.into_iter().peekable();
    while let Some((k, part)) = it.next() {
        if it.peek().is_some_and(|(next, _)| *next == k) {
            continue; // a later member has this key
        }
        if !first {
            out.push(b',');
        }
        first = false;
        write_str(k, out);
        out.push(b':');
        write_part(part, out)?;
    }
    out.push(b'}');
    Ok(())
}

fn extras<'a>(members: &mut Vec<(&'a str, Part<'a>)>, extra: &'a [(Name, Box<RawValue>)]) {
    members.extend(extra.iter().map(|(k, v)| (k.as_str(), Part::Raw(v))));
}

fn write_part(part: Part, out: &mut Vec<u8>) -> Result<(), HashError> {
    match part {
        Part::Str(s) => write_str(s, out),
        Part::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        // serde_jcs writes every integer as the double nearest to it.
        #[allow(clippy::cast_precision_loss)]
        Part::Int(n) => write_f64(n as f64, out)?,
        Part::Raw(raw) => write_raw(raw, out)?,
        Part::Blocks(blocks) => {
            out.push(b'[');
            for (i, b) in blocks.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let mut m = Vec::with_capacity(3 + b.extra.len());
                m.push(("type", Part::Str(&b.kind)));
                if let Some(t) = &b.text {
                    m.push(("text", Part::Str(t)));
                }
                if let Some(r) = &b.resource {
                    m.push(("resource", Part::Resource(r)));
                }
                extras(&mut m, &b.extra);
                write_object(m, out)?;
            }
            out.push(b']');
        }
        Part::Resource(r) => {
            let mut m = Vec::with_capacity(2 + r.extra.len());
            if let Some(u) = &r.uri {
                m.push(("uri", Part::Str(u)));
            }
            if let Some(t) = &r.text {
                m.push(("text", Part::Str(t)));
            }
            extras(&mut m, &r.extra);
            write_object(m, out)?;
        }
        Part::Result(r) => {
            let mut m = Vec::with_capacity(4 + r.extra().len());
            m.push(("content", Part::Blocks(&r.content)));
            if let Some(v) = r.structured() {
                m.push(("structuredContent", Part::Raw(v)));
            }
            if let Some(v) = r.is_error {
                m.push(("isError", Part::Bool(v)));
            }
            if let Some(v) = r.result_type() {
                m.push(("resultType", Part::Str(v)));
            }
            extras(&mut m, r.extra());
            write_object(m, out)?;
        }
        Part::Error(e) => {
            let mut m = Vec::with_capacity(3);
            m.push(("code", Part::Int(e.code)));
            m.push(("message", Part::Str(&e.message)));
            if let Some(d) = &e.data {
                m.push(("data", Part::Raw(d)));
            }
            write_object(m, out)?;
        }
    }
    Ok(())
}

/// Appends the canonical JSON of what a client received, as the result hash covers it: the
/// `result` object; `{"error": E}` for a JSON-RPC error; `{"error": E, "result": R}` when both
/// were sent; `null` when neither was (`envelope::result_hash`).
pub fn write_delivered(r: &CallResponse, out: &mut Vec<u8>) -> Result<(), HashError> {
    match (&r.result, &r.error) {
        (Some(res), None) => write_part(Part::Result(res), out),
        (None, Some(e)) => write_object(vec![("error", Part::Error(e))], out),
        (Some(res), Some(e)) => write_object(
            vec![("error", Part::Error(e)), ("result", Part::Result(res))],
            out,
        ),
        (None, None) => {
            out.extend_from_slice(b"null");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn jcs(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write_value(v, &mut out).unwrap();
        out
    }

    #[test]
    fn known_values() {
        let v: Value = serde_json::from_str(
            r#"{"b":[1e2,-0.0,1.5e-7,1e21,9007199254740993,"\u0000\u001f\u007f"],"a":{"z":null,"y":true},"\u20ac":1,"\ud83d\ude00":2,"\ue000":3}"#,
        )
        .unwrap();
        let text = String::from_utf8(jcs(&v)).unwrap();
        assert_eq!(
            text,
            "{\"a\":{\"y\":true,\"z\":null},\"b\":[100,0,1.5e-7,1e+21,9007199254740992,\"\\u0000\\u001f\u{7f}\"],\"\u{20ac}\":1,\"\u{1F600}\":2,\"\u{E000}\":3}"
        );
        assert_eq!(text.as_bytes(), serde_jcs::to_vec(&v).unwrap());
    }

    /// Every byte that needs an escape, at every position of an eight-byte word and across
    /// words, written as serde_json writes it.
    #[test]
    fn strings_escape_as_serde_json_at_every_position() {
        let specials: Vec<char> = (0u8..0x20)
            .map(char::from)
            .chain(['"', '\\', '\u{7f}', '/', '\u{e9}', '\u{20ac}'])
            .collect();
        for len in 0..20 {
            for at in 0..len.max(1) {
                for &c in &specials {
                    let s: String = (0..len).map(|i| if i == at { c } else { 'a' }).collect();
                    let mut out = Vec::new();
                    write_str(&s, &mut out);
                    assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{s:?}");
                }
            }
        }
    }

    /// Any JSON value: strings with controls, quotes, non-BMP characters and characters just
    /// above the surrogates (where UTF-16 and UTF-8 order differ), any finite number.
    fn value() -> impl Strategy<Value = Value> {
        let text = prop_oneof![
            "\\PC{0,8}",
            "[\\x00-\\x7f]{0,8}",
            "[a-c\u{e000}\u{ffff}\u{10000}\u{1F600}\"\\\\]{0,4}",
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            text.clone().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec((text.clone(), inner), 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// The value the result hash is defined on, serialized through `serde_jcs` (the reference).
    #[derive(serde::Serialize)]
    #[serde(untagged)]
    enum Delivered<'a> {
        Result(&'a CallToolResult),
        Error {
            error: &'a RpcError,
        },
        Both {
            error: &'a RpcError,
            result: &'a CallToolResult,
        },
        Nothing(()),
    }

    impl Delivered<'_> {
        fn of(r: &CallResponse) -> Delivered<'_> {
            match (&r.result, &r.error) {
                (Some(res), None) => Delivered::Result(res),
                (None, Some(error)) => Delivered::Error { error },
                (Some(result), Some(error)) => Delivered::Both { error, result },
                (None, None) => Delivered::Nothing(()),
            }
        }
    }

    proptest! {
        /// Any string of any length, with escapes anywhere: serde_json's escaping.
        #[test]
        fn strings_equal_serde_json(s in "(\\PC|[\\x00-\\x1f\"\\\\]){0,80}") {
            let mut out = Vec::new();
            write_str(&s, &mut out);
            prop_assert_eq!(out, serde_json::to_vec(&s).unwrap());
        }

        #[test]
        fn equals_serde_jcs_for_any_value(v in value()) {
            prop_assert_eq!(jcs(&v), serde_jcs::to_vec(&v).unwrap());
        }

        /// Any object, flat or not, written with any spacing and escapes (`\u` escapes of
        /// plain letters among them) and duplicate keys: the flat path writes what the parser's
        /// path writes, or nothing.
        #[test]
        fn flat_objects_equal_the_parsed_path(
            members in proptest::collection::vec(
                (
                    "[a-c\u{e000}\u{1F600}\"]{0,3}",
                    prop_oneof![
                        Just("null".to_owned()),
                        Just("true".to_owned()),
                        Just("-0".to_owned()),
                        Just("1.50".to_owned()),
                        Just("1e2".to_owned()),
                        Just("[1]".to_owned()),
                        Just("[ \"q\" , 2,null ]".to_owned()),
                        Just("[]".to_owned()),
                        Just("[\"\\u0061\"]".to_owned()),
                        Just("[[1]]".to_owned()),
                        Just("{\"a\":1}".to_owned()),
                        Just("\"\\u0061\"".to_owned()),
                        "[0-9]{1,17}".prop_filter("JSON", |d| d == "0" || !d.starts_with('0')),
                        "\\PC{0,8}".prop_map(|t| serde_json::to_string(&t).unwrap()),
                    ],
                    any::<bool>(),
                ),
                0..6,
            ),
        ) {
            let text = format!(
                "{{{}}}",
                members
                    .iter()
                    .map(|(k, v, spaced)| {
                        let k = serde_json::to_string(k).unwrap();
                        if *spaced { format!(" {k} : {v} ") } else { format!("{k}:{v}") }
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let raw: Box<RawValue> = serde_json::from_str(&text).unwrap();
            let mut slow = Vec::new();
            write_raw(&raw, &mut slow).unwrap();
            let mut fast = Vec::new();
            if write_flat_raw(&raw, &mut fast) {
                prop_assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(slow).unwrap());
            } else {
                prop_assert!(fast.is_empty());
            }
        }

        /// Any delivered response, parsed from JSON text (so extra fields, duplicated ones
        /// among them, take the parser's path): the same bytes as `serde_jcs` of the value
        /// the result hash is defined on.
        #[test]
        fn delivered_equals_serde_jcs(
            text in "\\PC{0,12}",
            kind in "text|image|resource|[a-z\u{e000}\u{1F600}]{1,3}",
            extra_key in "[a-z_\u{e000}\u{1F600}]{1,3}".prop_filter("not a known key", |k| k != "uri"),
            extra in value(),
            structured in proptest::option::of(value()),
            is_error in proptest::option::of(any::<bool>()),
            code in any::<i64>(),
            shape in 0u8..4,
            dup_extra in any::<bool>(),
        ) {
            let mut block = serde_json::Map::new();
            block.insert("type".into(), Value::String(kind));
            block.insert("text".into(), Value::String(text.clone()));
            block.insert(
                "resource".into(),
                serde_json::json!({"uri": "file:///a", "text": text, extra_key.clone(): extra}),
            );
            block.insert(extra_key.clone(), extra.clone());
            let mut result = serde_json::Map::new();
            result.insert("content".into(), Value::Array(vec![Value::Object(block)]));
            if let Some(s) = structured {
                result.insert("structuredContent".into(), s);
            }
            if let Some(e) = is_error {
                result.insert("isError".into(), Value::Bool(e));
            }
            let mut result_text = Value::Object(result).to_string();
            if dup_extra {
                // The same unknown key twice: the parser keeps both, the hash the last one.
                result_text.insert_str(1, &format!("{}:1,{}:2,", Value::String(extra_key.clone()), Value::String(extra_key)));
            }
            let error = serde_json::json!({"code": code, "message": text, "data": extra});
            let response = match shape {
                0 => format!(r#"{{"id":1,"result":{result_text}}}"#),
                1 => format!(r#"{{"id":1,"error":{error}}}"#),
                2 => format!(r#"{{"id":1,"result":{result_text},"error":{error}}}"#),
                _ => r#"{"id":1}"#.to_owned(),
            };
            let r: CallResponse = serde_json::from_str(&response).unwrap();
            let mut mine = Vec::new();
            write_delivered(&r, &mut mine).unwrap();
            let reference = serde_jcs::to_vec(&Delivered::of(&r)).unwrap();
            prop_assert_eq!(String::from_utf8_lossy(&mine), String::from_utf8_lossy(&reference));
        }
    }
}
