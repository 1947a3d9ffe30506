//! OTLP/JSON traces: one `ExportTraceServiceRequest` document (`{"resourceSpans":[...]}`), or
//! one per line as the OpenTelemetry Collector's file exporter writes them. Spans are read by
//! the GenAI and MCP semantic conventions (see `genai.rs`); one session per conversation
//! (`gen_ai.conversation.id`, else the trace), its traces in time order.

// The spans of a file are kept boxed until it is read: a Collector file holds hundreds of
// thousands of 400-byte records, and growing one `Vec` of them copied them over and over (8% of
// an import, and its slack in memory).
#![allow(clippy::vec_box)]

use super::build::Builder;
use super::genai::{self, Attrs, SpanRec};
use super::sniff::Head;
use super::Input;
use crate::ingest::lines::Line;
use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Diagnostic, Session, Timestamp};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;

const NAME: &str = "otlp-json";

pub fn sniff(h: &Head) -> bool {
    h.has("resourceSpans")
}

#[derive(Deserialize)]
struct Export<'a> {
    #[serde(rename = "resourceSpans", default, borrow)]
    resource_spans: Vec<ResourceSpans<'a>>,
}

#[derive(Deserialize)]
struct ResourceSpans<'a> {
    #[serde(
        rename = "scopeSpans",
        alias = "instrumentationLibrarySpans",
        default,
        borrow
    )]
    scope_spans: Vec<ScopeSpans<'a>>,
}

/// A scope's spans kept as written, for the second reading of a request in which something is
/// malformed: the list is then read span by span so that only a bad span is lost (and named).
#[derive(Deserialize)]
struct ScopeSpans<'a> {
    #[serde(default, borrow)]
    spans: Option<&'a RawValue>,
}

/// An export request with its spans read in the same pass: the first reading, which succeeds
/// when nothing in the request is malformed (else [`Export`] reads it again).
#[derive(Deserialize)]
struct TypedExport<'a> {
    #[serde(rename = "resourceSpans", default, borrow)]
    resource_spans: Vec<TypedResourceSpans<'a>>,
}

#[derive(Deserialize)]
struct TypedResourceSpans<'a> {
    #[serde(
        rename = "scopeSpans",
        alias = "instrumentationLibrarySpans",
        default,
        borrow
    )]
    scope_spans: Vec<TypedScopeSpans<'a>>,
}

#[derive(Deserialize)]
struct TypedScopeSpans<'a> {
    /// `null` is not a list of spans: it fails this reading, as it fails [`read_export`]'s.
    #[serde(default, borrow, deserialize_with = "span_list")]
    spans: Option<Vec<OSpan<'a>>>,
}

fn span_list<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<OSpan<'a>>>, D::Error> {
    Vec::<OSpan>::deserialize(d).map(Some)
}

/// Reads one export request (a line, or the whole document) into `out`: in one pass when it
/// is well formed, else again with each malformed part named and skipped. The error is the
/// request's own (nothing read).
fn read_request(
    bytes: &[u8],
    line: u64,
    out: &mut Vec<Box<SpanRec>>,
    diag: &mut impl FnMut(u64, u64, String, String),
) -> Result<(), serde_json::Error> {
    // The text is checked as UTF-8 once, not string by string.
    let typed = std::str::from_utf8(bytes)
        .ok()
        .and_then(|t| serde_json::from_str::<TypedExport>(t).ok());
    if let Some(doc) = typed {
        for (ri, rs) in doc.resource_spans.into_iter().enumerate() {
            for (si, ss) in rs.scope_spans.into_iter().enumerate() {
                for (pi, sp) in ss.spans.into_iter().flatten().enumerate() {
                    out.push(span_rec(sp, line, || span_path(ri, si, pi)));
                }
            }
        }
        return Ok(());
    }
    let doc = serde_json::from_slice::<Export>(bytes)?;
    read_export(doc, line, out, diag);
    Ok(())
}

#[derive(Deserialize)]
struct OSpan<'a> {
    #[serde(rename = "traceId", default, borrow)]
    trace_id: Cow<'a, str>,
    #[serde(rename = "spanId", default, borrow)]
    span_id: Cow<'a, str>,
    #[serde(rename = "parentSpanId", default)]
    parent_span_id: Option<String>,
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    kind: Scalar<'a>,
    #[serde(rename = "startTimeUnixNano", default, borrow)]
    start: Scalar<'a>,
    #[serde(rename = "endTimeUnixNano", default, borrow)]
    end: Scalar<'a>,
    #[serde(default)]
    attributes: Attributes,
    #[serde(default)]
    events: Vec<SpanEvent>,
    #[serde(default)]
    status: Option<Value>,
}

#[derive(Deserialize)]
struct SpanEvent {
    #[serde(default)]
    attributes: Attributes,
}

/// A span's (or event's) `attributes`: every `KeyValue` read (so a malformed one fails the span
/// as before), only the ones the importer uses kept, as plain JSON.
#[derive(Default)]
struct Attributes(Attrs);

impl<'de> Deserialize<'de> for Attributes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Attributes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut sq: A) -> Result<Attributes, A::Error> {
                let mut attrs = Attrs::default();
                while let Some(kv) = sq.next_element::<KeyValue>()? {
                    if Attrs::known(&kv.key).is_some() {
                        attrs.set(&kv.key, any_value(kv.value));
                    }
                }
                Ok(Attributes(attrs))
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
struct KeyValue<'a> {
    #[serde(borrow)]
    key: Cow<'a, str>,
    #[serde(default, borrow)]
    value: AnyValue<'a>,
}

/// Any JSON value; strings borrowed from the document when they have no escapes.
enum Json<'a> {
    Str(Cow<'a, str>),
    Other(Value),
}

impl Json<'_> {
    fn into_value(self) -> Value {
        match self {
            Json::Str(t) => Value::String(t.into_owned()),
            Json::Other(v) => v,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_borrowed_str<E>(self, t: &'de str) -> Result<Json<'de>, E> {
                Ok(Json::Str(Cow::Borrowed(t)))
            }
            fn visit_str<E>(self, t: &str) -> Result<Json<'de>, E> {
                Ok(Json::Str(Cow::Owned(t.to_owned())))
            }
            fn visit_string<E>(self, t: String) -> Result<Json<'de>, E> {
                Ok(Json::Str(Cow::Owned(t)))
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
                Ok(Json::Other(Value::Bool(b)))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
                Ok(Json::Other(Value::from(n)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
                Ok(Json::Other(Value::from(n)))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Json<'de>, E> {
                Ok(Json::Other(Value::from(n)))
            }
            fn visit_unit<E>(self) -> Result<Json<'de>, E> {
                Ok(Json::Other(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, sq: A) -> Result<Json<'de>, A::Error> {
                Value::deserialize(SeqAccessDeserializer::new(sq)).map(Json::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Json<'de>, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(m)).map(Json::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// An OTLP `AnyValue`: the field that gives its value (when an object sets several, the first
/// of string, int, double, bool, array, kvlist, bytes; the last of duplicates). Read leniently:
/// a field of an unexpected type, or a bare JSON value where an `AnyValue` object belongs, is
/// kept as plain JSON rather than failing the span.
#[derive(Default)]
enum AnyValue<'a> {
    /// A bare value (not an `AnyValue` object).
    Plain(Json<'a>),
    String(Json<'a>),
    Int(Json<'a>),
    Double(Json<'a>),
    Bool(Json<'a>),
    Array(ArrayValue<'a>),
    Kvlist(KvList<'a>),
    Bytes(Json<'a>),
    #[default]
    Null,
}

impl AnyValue<'_> {
    /// Which field wins when an object sets several (lower first).
    fn rank(&self) -> u8 {
        match self {
            AnyValue::Plain(_) => 0,
            AnyValue::String(_) => 1,
            AnyValue::Int(_) => 2,
            AnyValue::Double(_) => 3,
            AnyValue::Bool(_) => 4,
            AnyValue::Array(_) => 5,
            AnyValue::Kvlist(_) => 6,
            AnyValue::Bytes(_) => 7,
            AnyValue::Null => 8,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for AnyValue<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "camelCase")]
        enum Field {
            StringValue,
            IntValue,
            DoubleValue,
            BoolValue,
            ArrayValue,
            KvlistValue,
            BytesValue,
            #[serde(other)]
            Other,
        }
        impl<'de> Visitor<'de> for V {
            type Value = AnyValue<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an OTLP AnyValue")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<AnyValue<'de>, A::Error> {
                let mut v = AnyValue::Null;
                while let Some(k) = m.next_key::<Field>()? {
                    let x = match k {
                        Field::StringValue => AnyValue::String(m.next_value()?),
                        Field::IntValue => AnyValue::Int(m.next_value()?),
                        Field::DoubleValue => AnyValue::Double(m.next_value()?),
                        Field::BoolValue => AnyValue::Bool(m.next_value()?),
                        Field::ArrayValue => AnyValue::Array(m.next_value()?),
                        Field::KvlistValue => AnyValue::Kvlist(m.next_value()?),
                        Field::BytesValue => AnyValue::Bytes(m.next_value()?),
                        Field::Other => {
                            m.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if x.rank() <= v.rank() {
                        v = x;
                    }
                }
                Ok(v)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut sq: A) -> Result<AnyValue<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = sq.next_element::<Value>()? {
                    out.push(x);
                }
                Ok(AnyValue::Plain(Json::Other(Value::Array(out))))
            }
            fn visit_bool<E>(self, b: bool) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Plain(Json::Other(Value::Bool(b))))
            }
            fn visit_i64<E>(self, n: i64) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Plain(Json::Other(Value::from(n))))
            }
            fn visit_u64<E>(self, n: u64) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Plain(Json::Other(Value::from(n))))
            }
            fn visit_f64<E>(self, n: f64) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Plain(Json::Other(Value::from(n))))
            }
            fn visit_borrowed_str<E>(self, t: &'de str) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Plain(Json::Str(Cow::Borrowed(t))))
            }
            fn visit_str<E>(self, t: &str) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Plain(Json::Str(Cow::Owned(t.to_owned()))))
            }
            fn visit_string<E>(self, t: String) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Plain(Json::Str(Cow::Owned(t))))
            }
            fn visit_unit<E>(self) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Null)
            }
            fn visit_none<E>(self) -> Result<AnyValue<'de>, E> {
                Ok(AnyValue::Null)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Default)]
struct ArrayValue<'a> {
    #[serde(default, borrow)]
    values: Vec<AnyValue<'a>>,
}

#[derive(Deserialize, Default)]
struct KvList<'a> {
    #[serde(default, borrow)]
    values: Vec<KeyValue<'a>>,
}

/// An OTLP `AnyValue` as plain JSON.
fn any_value(v: AnyValue) -> Value {
    match v {
        AnyValue::Plain(x)
        | AnyValue::String(x)
        | AnyValue::Double(x)
        | AnyValue::Bool(x)
        | AnyValue::Bytes(x) => x.into_value(),
        AnyValue::Int(Json::Str(t)) => t
            .parse::<i64>()
            .map_or_else(|_| Value::String(t.into_owned()), Value::from),
        AnyValue::Int(Json::Other(v)) => v,
        AnyValue::Array(a) => Value::Array(a.values.into_iter().map(any_value).collect()),
        AnyValue::Kvlist(k) => {
            let mut m = Map::new();
            for kv in k.values {
                m.insert(kv.key.into_owned(), any_value(kv.value));
            }
            Value::Object(m)
        }
        AnyValue::Null => Value::Null,
    }
}

/// A span's kind, `client`, `server`, ... from its number or its `SPAN_KIND_*` name.
fn kind_name(v: &Scalar) -> String {
    match v {
        Scalar::U(n) => match n {
            1 => "internal",
            2 => "server",
            3 => "client",
            4 => "producer",
            5 => "consumer",
            _ => "",
        }
        .to_owned(),
        Scalar::Str(s) => s.trim_start_matches("SPAN_KIND_").to_ascii_lowercase(),
        _ => String::new(),
    }
}

/// A time in Unix nanoseconds written as a decimal string or an integer.
fn nanos(v: &Scalar) -> Option<Timestamp> {
    let n: i128 = match v {
        Scalar::Str(t) => t.trim().parse().ok()?,
        Scalar::U(n) => i64::try_from(*n).ok()?.into(),
        Scalar::I(n) => (*n).into(),
        _ => return None,
    };
    if n <= 0 {
        return None;
    }
    i64::try_from(n / 1_000_000).ok().map(Timestamp)
}

/// A field read from any JSON value (`null`, a float, an array or an object is `Other`).
#[derive(Default)]
enum Scalar<'a> {
    Str(Cow<'a, str>),
    U(u64),
    I(i64),
    #[default]
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_borrowed_str<E>(self, t: &'de str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Borrowed(t)))
            }
            fn visit_str<E>(self, t: &str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(t.to_owned())))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::U(n))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Scalar<'de>, E> {
                Ok(if n >= 0 {
                    Scalar::U(n as u64)
                } else {
                    Scalar::I(n)
                })
            }
            fn visit_f64<E>(self, _: f64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other)
            }
            fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other)
            }
            // Nested values are read as `Value` reads them (the same errors), then dropped.
            fn visit_seq<A: SeqAccess<'de>>(self, sq: A) -> Result<Scalar<'de>, A::Error> {
                Value::deserialize(SeqAccessDeserializer::new(sq)).map(|_| Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Scalar<'de>, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(m)).map(|_| Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// How the line pass ended.
enum Pass {
    /// Every line read as one export request (bad lines named and skipped); how many were.
    Lines(usize),
    /// The first non-blank line is not an export request: the file may be one document.
    NotLines,
    /// The line hook stopped the pass (the streamed reading found the file is not as its first
    /// pass saw it).
    Stopped,
}

/// Reads one export request per line. With `probe`, stops at a first line that is not one
/// (nothing recorded for it) so the caller can try the file as one document. `after` sees the
/// spans collected so far after each line read as a request; it stops the pass by returning
/// false.
fn read_lines(
    input: &Input,
    probe: bool,
    spans: &mut Vec<Box<SpanRec>>,
    diag: &mut impl FnMut(u64, u64, String, String),
    after: &mut impl FnMut(u64, &mut Vec<Box<SpanRec>>) -> bool,
) -> Pass {
    let mut lines = match input.lines() {
        Ok(l) => l,
        Err(e) => {
            diag(0, 0, String::new(), format!("cannot read the file: {e}"));
            return Pass::Lines(0);
        }
    };
    let mut first = true;
    let mut read = 0usize;
    loop {
        match lines.next_line() {
            Ok(Some(Line::Text { line_no, bytes, ended })) => {
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match read_request(bytes, line_no, spans, diag) {
                    Ok(()) => {
                        read += 1;
                        if !after(line_no, spans) {
                            return Pass::Stopped;
                        }
                    }
                    Err(_) if first && probe => return Pass::NotLines,
                    Err(e) => {
                        let msg = if !ended && e.is_eof() {
                            "truncated line: the file ends in the middle of an export request; line skipped".to_owned()
                        } else {
                            format!("not an OTLP export request ({e}); line skipped")
                        };
                        diag(line_no, e.column() as u64, String::new(), msg)
                    }
                }
                first = false;
            }
            Ok(Some(Line::TooLong { .. })) if first && probe => return Pass::NotLines,
            Ok(Some(Line::TooLong { line_no, bytes })) => diag(line_no, 1, String::new(), format!("line is {bytes} bytes, over the {} byte cap; skipped (raise --max-line-bytes to load it)", input.opts.max_line_bytes)),
            Ok(None) => return Pass::Lines(read),
            Err(e) => {
                diag(0, 0, String::new(), format!("read error: {e}"));
                return Pass::Lines(read);
            }
        }
    }
}

pub fn import(input: &Input) -> Vec<Session> {
    // A file of export requests, one per line, whose traces and conversations a first pass
    // located: each conversation's session is built as soon as its last line is read, so only
    // the spans of open conversations are kept. Anything the first pass did not foresee sends
    // the file to the reading that keeps every span until the end (the same sessions).
    if let Some(plan) = Plan::scan(input) {
        if let Some(out) = import_streamed(input, plan) {
            return out;
        }
    }
    import_whole(input)
}

/// An error of `input` at `line`:`column`, and at the JSON path `path` (`output[3]` or
/// `.output[3]`, written in its `$` form; empty when the position says all).
fn error_at(input: &Input, line: u64, column: u64, path: String, msg: String) -> Diagnostic {
    Diagnostic {
        file: input.source.clone(),
        line,
        column,
        path: if path.is_empty() {
            path
        } else {
            super::build::json_path(&path).to_string()
        },
        level: DiagLevel::Error,
        message: msg,
    }
}

/// Reads every span of the file, then builds the sessions.
fn import_whole(input: &Input) -> Vec<Session> {
    // Boxed: a Collector file holds hundreds of thousands, all kept until it is read.
    let mut spans: Vec<Box<SpanRec>> = Vec::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut diag = |line: u64, column: u64, path: String, msg: String| {
        diags.push(error_at(input, line, column, path, msg))
    };
    // One export request per line (the Collector's file exporter), or one document.
    if let Pass::NotLines = read_lines(input, true, &mut spans, &mut diag, &mut |_, _| true) {
        let doc_error = match input.all() {
            Ok(all) => match read_request(&all, 0, &mut spans, &mut diag) {
                Ok(()) => None,
                Err(e) => Some((e.line() as u64, e.column() as u64, e.to_string())),
            },
            Err(e) => Some((0, 0, format!("cannot read the file: {e}"))),
        };
        if let Some((line, column, e)) = doc_error {
            // Neither one document nor a clean first line: read every line that is an export
            // request (a damaged first line loses only itself); when none is, one error.
            let mut line_diags = Vec::new();
            let mut line_diag =
                |l: u64, c: u64, p: String, m: String| line_diags.push((l, c, p, m));
            let read = match read_lines(input, false, &mut spans, &mut line_diag, &mut |_, _| true)
            {
                Pass::Lines(n) => n,
                Pass::NotLines | Pass::Stopped => 0,
            };
            if read > 0 {
                for (l, c, p, m) in line_diags {
                    diag(l, c, p, m);
                }
            } else {
                diag(
                    line,
                    column,
                    String::new(),
                    format!(
                        "not an OTLP/JSON export ({}); nothing read",
                        strip_pos(&e.to_string())
                    ),
                );
            }
        }
    }
    finish(input, spans, diags)
}

/// Where each trace id and conversation id of a file of export requests is last mentioned,
/// found by a quick scan of the lines (no JSON parsing): `"traceId"` values, and the string
/// value after each `gen_ai.conversation.id`. What it finds may be more than the spans hold
/// (a mention inside another value only delays a session); the streamed reading checks that it
/// is never less.
struct Plan {
    /// Trace or conversation id -> the last line that mentions it.
    last: HashMap<String, u64>,
    /// Ids in order of their last line (the streamed reading walks it as lines are read).
    ends: Vec<(u64, String)>,
}

impl Plan {
    fn scan(input: &Input) -> Option<Plan> {
        let mut lines = input.lines().ok()?;
        let trace = memchr::memmem::Finder::new(b"\"traceId\"");
        let conv = memchr::memmem::Finder::new(b"gen_ai.conversation.id");
        let value = memchr::memmem::Finder::new(b"\"stringValue\"");
        let mut last: HashMap<String, u64> = HashMap::default();
        fn note(last: &mut HashMap<String, u64>, id: Cow<'_, str>, line: u64) {
            match last.get_mut(&*id) {
                Some(l) => *l = line,
                None => {
                    last.insert(id.into_owned(), line);
                }
            }
        }
        loop {
            match lines.next_line() {
                Ok(Some(Line::Text { line_no, bytes, .. })) => {
                    for at in trace.find_iter(bytes) {
                        if let Some(id) = string_value_at(bytes, at + b"\"traceId\"".len()) {
                            note(&mut last, id, line_no);
                        }
                    }
                    for at in conv.find_iter(bytes) {
                        let from = at + b"gen_ai.conversation.id".len();
                        let Some(v) = value.find(&bytes[from..]) else {
                            continue;
                        };
                        let after = from + v + b"\"stringValue\"".len();
                        if let Some(id) = string_value_at(bytes, after) {
                            note(&mut last, id, line_no);
                        }
                    }
                }
                Ok(Some(Line::TooLong { .. })) => {}
                Ok(None) => break,
                Err(_) => return None,
            }
        }
        let mut ends: Vec<(u64, String)> = last.iter().map(|(k, &l)| (l, k.clone())).collect();
        ends.sort_unstable();
        Some(Plan { last, ends })
    }

    /// The last line that mentions `id` (0 when none does).
    fn last(&self, id: &str) -> u64 {
        self.last.get(id).copied().unwrap_or(0)
    }
}

/// The JSON string that follows `at` after optional blanks, a colon and optional blanks (the
/// value of the key that ends at `at`), decoded as `serde_json` decodes it.
fn string_value_at(b: &[u8], at: usize) -> Option<Cow<'_, str>> {
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let mut i = at;
    while b.get(i).is_some_and(blank) {
        i += 1;
    }
    if b.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    while b.get(i).is_some_and(blank) {
        i += 1;
    }
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let start = i;
    i += 1;
    let mut escaped = false;
    loop {
        let p = memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        i += p;
        if b[i] == b'"' {
            break;
        }
        escaped = true;
        i += 2;
    }
    let quoted = b.get(start..=i)?;
    if escaped {
        serde_json::from_slice::<String>(quoted)
            .ok()
            .map(Cow::Owned)
    } else {
        std::str::from_utf8(&quoted[1..quoted.len() - 1])
            .ok()
            .map(Cow::Borrowed)
    }
}

/// One conversation while the file is streamed.
struct Group {
    key: String,
    /// Its spans with their place in the file.
    spans: Vec<(u64, Box<SpanRec>)>,
    /// The first place in the file of one of its spans (sessions come in this order).
    first: u64,
    /// Its traces that later lines still mention.
    open: usize,
    /// Built (no later line can add to it): its session and its sub-agents'.
    built: Option<Vec<Session>>,
}

/// What the streamed reading keeps: the plan, the conversations, and the spans of traces whose
/// conversation is not known yet.
struct Stream<'p> {
    plan: &'p Plan,
    /// Next index into `plan.ends`.
    next_end: usize,
    seq: u64,
    groups: Vec<Group>,
    group_of: HashMap<String, usize>,
    /// Trace -> its group, once known (its first span with a conversation id, or its last line).
    trace_group: HashMap<String, usize>,
    /// Spans of traces whose group is not known yet.
    pending: HashMap<String, Vec<(u64, Box<SpanRec>)>>,
    /// Traces in a group that later lines still mention.
    opened: HashSet<String>,
}

impl Stream<'_> {
    fn group(&mut self, key: &str, first: u64) -> usize {
        match self.group_of.get(key) {
            Some(&g) => {
                let gr = &mut self.groups[g];
                gr.first = gr.first.min(first);
                g
            }
            None => {
                self.group_of.insert(key.to_owned(), self.groups.len());
                self.groups.push(Group {
                    key: key.to_owned(),
                    spans: Vec::new(),
                    first,
                    open: 0,
                    built: None,
                });
                self.groups.len() - 1
            }
        }
    }

    /// Puts trace `trace` (seen on line `line`) in the group `key`, with its waiting spans.
    /// False when that group was already built (the plan missed something).
    fn join(&mut self, trace: &str, key: &str, line: u64) -> bool {
        let waiting = self.pending.remove(trace).unwrap_or_default();
        let first = waiting.first().map_or(u64::MAX, |(q, _)| *q);
        let g = self.group(key, first);
        if self.groups[g].built.is_some() {
            return false;
        }
        self.groups[g].spans.extend(waiting);
        if self.plan.last(trace) > line {
            self.groups[g].open += 1;
            self.opened.insert(trace.to_owned());
        }
        self.trace_group.insert(trace.to_owned(), g);
        true
    }

    /// Takes the spans of line `line`; false when the file is not as the plan saw it.
    fn line(&mut self, input: &Input, line: u64, spans: &mut Vec<Box<SpanRec>>) -> bool {
        for sp in spans.drain(..) {
            let seq = self.seq;
            self.seq += 1;
            if self.plan.last(&sp.trace_id) < line {
                return false;
            }
            let conv = sp
                .attrs
                .get("gen_ai.conversation.id")
                .and_then(Value::as_str);
            if let Some(c) = conv {
                if self.plan.last(c) < line {
                    return false;
                }
            }
            let g = match self.trace_group.get(&sp.trace_id) {
                Some(&g) => g,
                None => match conv {
                    Some(c) => {
                        let (trace, c) = (sp.trace_id.clone(), c.to_owned());
                        if !self.join(&trace, &c, line) {
                            return false;
                        }
                        self.trace_group[&trace]
                    }
                    None => {
                        self.pending
                            .entry(sp.trace_id.clone())
                            .or_default()
                            .push((seq, sp));
                        continue;
                    }
                },
            };
            let gr = &mut self.groups[g];
            if gr.built.is_some() {
                return false;
            }
            gr.first = gr.first.min(seq);
            gr.spans.push((seq, sp));
        }
        // Ids last mentioned by now: their traces are complete, and so may be their groups.
        let plan = self.plan;
        let mut check = Vec::new();
        while let Some((l, id)) = plan.ends.get(self.next_end) {
            if *l > line {
                break;
            }
            self.next_end += 1;
            if self.opened.remove(id.as_str()) {
                let g = self.trace_group[id.as_str()];
                self.groups[g].open -= 1;
                check.push(g);
            } else if self.pending.contains_key(id.as_str()) {
                // A trace without a conversation id: a session of its own.
                if !self.join(id, id, line) {
                    return false;
                }
                check.push(self.trace_group[id.as_str()]);
            }
            if let Some(&g) = self.group_of.get(id.as_str()) {
                check.push(g);
            }
        }
        for g in check {
            let gr = &mut self.groups[g];
            if gr.built.is_none() && gr.open == 0 && self.plan.last(&gr.key) <= line {
                let spans = std::mem::take(&mut gr.spans);
                let name = format!("{}#{}", input.name, short(&gr.key));
                gr.built = Some(build_group(input, name, &gr.key, spans));
            }
        }
        true
    }
}

fn finish(input: &Input, spans: Vec<Box<SpanRec>>, diags: Vec<Diagnostic>) -> Vec<Session> {
    // One session per conversation.
    let mut conv_of_trace: HashMap<String, String> = HashMap::default();
    for sp in &spans {
        if let Some(c) = sp
            .attrs
            .get("gen_ai.conversation.id")
            .and_then(Value::as_str)
        {
            conv_of_trace
                .entry(sp.trace_id.clone())
                .or_insert_with(|| c.to_owned());
        }
    }
    // Groups in order of first appearance, found by key (a Collector file holds thousands).
    let mut groups: Vec<(String, Vec<Box<SpanRec>>)> = Vec::new();
    let mut group_of: HashMap<String, usize> = HashMap::default();
    for sp in spans {
        let key = conv_of_trace.get(&sp.trace_id).unwrap_or(&sp.trace_id);
        match group_of.get(key) {
            Some(&g) => groups[g].1.push(sp),
            None => {
                let key = key.clone();
                group_of.insert(key.clone(), groups.len());
                groups.push((key, vec![sp]));
            }
        }
    }
    let n = groups.len();
    let mut out = Vec::new();
    for (key, group) in groups {
        let name = if n == 1 {
            input.name.clone()
        } else {
            format!("{}#{}", input.name, short(&key))
        };
        out.extend(build_group(
            input,
            name,
            &key,
            group.into_iter().enumerate().map(|(i, sp)| (i as u64, sp)),
        ));
    }
    finish_sessions(input, out, diags)
}

/// The sessions of a file: a note when it has none, and the file's own diagnostics on the
/// first.
fn finish_sessions(input: &Input, mut out: Vec<Session>, diags: Vec<Diagnostic>) -> Vec<Session> {
    if out.is_empty() {
        let mut b = Builder::new(NAME, input.name.clone(), input.source.clone());
        b.note("no spans in this trace export");
        out.push(b.finish());
    }
    out[0].diagnostics.extend(diags);
    out
}

/// The session of one conversation, from its spans in file order, followed by the sessions of
/// the sub-agents its tool calls ran ([`genai::build`]).
fn build_group(
    input: &Input,
    name: String,
    key: &str,
    spans: impl IntoIterator<Item = (u64, Box<SpanRec>)>,
) -> Vec<Session> {
    let mut spans: Vec<(u64, Box<SpanRec>)> = spans.into_iter().collect();
    // Spans of a trace that waited for its conversation join it out of file order.
    spans.sort_by_key(|(seq, _)| *seq);
    let group: Vec<SpanRec> = spans.into_iter().map(|(_, sp)| *sp).collect();
    let mut b = Builder::new(NAME, name, input.source.clone());
    b.session_id(key);
    // Read before the build takes the spans; set after it, which names the conversation's own
    // agent and model first when it cut sub-agents out (the first value wins).
    let agent = group
        .iter()
        .find_map(|s| s.attrs.get("gen_ai.agent.name").and_then(Value::as_str))
        .unwrap_or("otel")
        .to_owned();
    let model = group
        .iter()
        .find_map(|s| s.attrs.get("gen_ai.request.model").and_then(Value::as_str))
        .map(str::to_owned);
    let subs = genai::build(&mut b, group);
    b.agent(&agent);
    if let Some(m) = model {
        b.model(&m);
    }
    let mut out = Vec::with_capacity(1 + subs.len());
    out.push(b.finish());
    out.extend(subs);
    out
}

/// Reads a file of export requests as a stream (see [`import`]); `None` when it must be read
/// whole: its first line is no export request, or a span was not where the plan saw it.
fn import_streamed(input: &Input, plan: Plan) -> Option<Vec<Session>> {
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut diag = |line: u64, column: u64, path: String, msg: String| {
        diags.push(error_at(input, line, column, path, msg))
    };
    let mut st = Stream {
        plan: &plan,
        next_end: 0,
        seq: 0,
        groups: Vec::new(),
        group_of: HashMap::default(),
        trace_group: HashMap::default(),
        pending: HashMap::default(),
        opened: HashSet::default(),
    };
    let mut spans: Vec<Box<SpanRec>> = Vec::new();
    match read_lines(input, true, &mut spans, &mut diag, &mut |line, spans| {
        st.line(input, line, spans)
    }) {
        Pass::Lines(_) => {}
        Pass::NotLines | Pass::Stopped => return None,
    }
    // Every line is read: what is still waiting is complete.
    if !st.pending.is_empty() {
        let mut waiting: Vec<(u64, String)> = st
            .pending
            .iter()
            .map(|(t, v)| (v.first().map_or(0, |(q, _)| *q), t.clone()))
            .collect();
        waiting.sort_unstable();
        for (_, t) in waiting {
            if !st.join(&t, &t, u64::MAX) {
                return None;
            }
        }
    }
    let n = st.groups.len();
    let mut groups = st.groups;
    groups.sort_by_key(|g| g.first);
    let out = groups
        .into_iter()
        .flat_map(|g| {
            let name = if n == 1 {
                input.name.clone()
            } else {
                format!("{}#{}", input.name, short(&g.key))
            };
            match g.built {
                // Built while streaming under its name among several.
                Some(mut built) => {
                    if n == 1 {
                        rename(&mut built, &name, &g.key);
                    }
                    built
                }
                None => build_group(input, name, &g.key, g.spans),
            }
        })
        .collect();
    Some(finish_sessions(input, out, diags))
}

/// Gives a conversation's sessions built under a provisional name their final one: the
/// conversation's session is `name`, its sub-agents' keep their part after it (the session id
/// is the name when the conversation's key is blank, as `Builder::session_id` decides, and so
/// begins the sub-agents' ids).
fn rename(built: &mut [Session], name: &str, key: &str) {
    let Some(old) = built.first().map(|s| s.name.clone()) else {
        return;
    };
    for s in built.iter_mut() {
        let new = match s.name.strip_prefix(old.as_str()) {
            Some(rest) => format!("{name}{rest}"),
            None => continue,
        };
        if key.trim().is_empty() {
            let fix = |id: &mut String| {
                if let Some(rest) = id.strip_prefix(old.as_str()) {
                    *id = format!("{name}{rest}");
                }
            };
            if let Some(h) = s.header.as_mut() {
                fix(&mut h.session_id);
            }
            for c in &mut s.calls {
                if let Some(l) = c.sub_session.as_mut() {
                    fix(&mut l.id);
                }
            }
        }
        s.name = new;
    }
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

fn span_path(ri: usize, si: usize, pi: usize) -> String {
    format!("resourceSpans[{ri}].scopeSpans[{si}].spans[{pi}]")
}

fn read_export(
    doc: Export,
    line: u64,
    out: &mut Vec<Box<SpanRec>>,
    diag: &mut impl FnMut(u64, u64, String, String),
) {
    for (ri, rs) in doc.resource_spans.iter().enumerate() {
        for (si, ss) in rs.scope_spans.iter().enumerate() {
            let path = |pi: usize| span_path(ri, si, pi);
            let Some(list) = ss.spans else { continue };
            let all: Vec<Result<OSpan, serde_json::Error>> =
                match serde_json::from_str::<Vec<OSpan>>(list.get()) {
                    Ok(v) => v.into_iter().map(Ok).collect(),
                    Err(_) => match serde_json::from_str::<Vec<&RawValue>>(list.get()) {
                        Ok(raws) => raws
                            .into_iter()
                            .map(|r| serde_json::from_str::<OSpan>(r.get()))
                            .collect(),
                        Err(e) => {
                            diag(
                                line,
                                0,
                                format!("resourceSpans[{ri}].scopeSpans[{si}].spans"),
                                format!("not a list of spans ({e}); skipped"),
                            );
                            continue;
                        }
                    },
                };
            for (pi, sp) in all.into_iter().enumerate() {
                let sp = match sp {
                    Ok(s) => s,
                    Err(e) => {
                        diag(
                            line,
                            0,
                            path(pi),
                            format!("not an OTLP span ({e}); skipped"),
                        );
                        continue;
                    }
                };
                out.push(span_rec(sp, line, || path(pi)));
            }
        }
    }
}

/// A span as the importer keeps it (`path` names it in a document, `line` 0).
fn span_rec(sp: OSpan, line: u64, path: impl Fn() -> String) -> Box<SpanRec> {
    let mut attrs = sp.attributes.0;
    // GenAI content may be recorded on events instead of the span.
    for e in sp.events {
        attrs.merge(e.attributes.0);
    }
    if sp
        .status
        .as_ref()
        .and_then(|s| s.get("code"))
        .is_some_and(|c| c == 2 || c == "STATUS_CODE_ERROR")
    {
        attrs.set("otel.status_code", Value::from("ERROR"));
    }
    let mut rec = Box::new(SpanRec {
        trace_id: sp.trace_id.into_owned(),
        span_id: sp.span_id.into_owned(),
        parent_id: sp.parent_span_id.filter(|p| !p.is_empty()),
        name: sp.name.into_owned(),
        kind: kind_name(&sp.kind),
        start: nanos(&sp.start),
        end: nanos(&sp.end),
        attrs,
        line,
        path: if line == 0 { path() } else { String::new() },
        ..SpanRec::default()
    });
    // Spans are kept until the file is read: keep their messages read and compact, and
    // their attributes without spare room.
    rec.read_messages(true);
    rec.attrs.shrink_to_fit();
    rec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::loader::LoadOptions;

    fn input<'a>(bytes: &'a [u8], opts: &'a LoadOptions) -> Input<'a> {
        Input {
            name: "t".into(),
            source: "t.jsonl".into(),
            path: None,
            bytes,
            text: None,
            rest: None,
            opts,
            detection_keys: Default::default(),
        }
    }

    fn attr(k: &str, v: &str) -> String {
        format!(
            r#"{{"key":"{k}","value":{{"stringValue":{}}}}}"#,
            serde_json::to_string(v).unwrap()
        )
    }

    fn span(trace: &str, id: &str, parent: &str, t: u64, attrs: &[String]) -> String {
        format!(
            r#"{{"traceId":"{trace}","spanId":"{id}","parentSpanId":"{parent}","name":"s{id}","kind":3,"startTimeUnixNano":"{t}000","endTimeUnixNano":"{t}500","attributes":[{}]}}"#,
            attrs.join(",")
        )
    }

    fn line(spans: &[String]) -> String {
        format!(
            r#"{{"resourceSpans":[{{"resource":{{}},"scopeSpans":[{{"spans":[{}]}}]}}]}}"#,
            spans.join(",")
        )
    }

    /// A tool span and a chat span answering after it, in trace `trace`.
    fn turn(trace: &str, conv: Option<&str>, t: u64) -> Vec<String> {
        let mut root = vec![attr("gen_ai.operation.name", "invoke_agent")];
        if let Some(c) = conv {
            root.push(attr("gen_ai.conversation.id", c));
        }
        let out = format!(
            r#"[{{"role":"assistant","parts":[{{"type":"text","content":"answer {t}"}}]}}]"#
        );
        let inp =
            format!(r#"[{{"role":"user","parts":[{{"type":"text","content":"question {t}"}}]}}]"#);
        vec![
            span(trace, "r", "", t, &root),
            span(
                trace,
                "c",
                "r",
                t + 1,
                &[
                    attr("gen_ai.operation.name", "execute_tool"),
                    attr("gen_ai.tool.name", "get"),
                    attr("gen_ai.tool.call.id", &format!("call_{trace}_{t}")),
                    attr("gen_ai.tool.call.arguments", "{\"q\": 1}"),
                    attr("gen_ai.tool.call.result", "sunny"),
                ],
            ),
            span(
                trace,
                "a",
                "r",
                t + 2,
                &[
                    attr("gen_ai.operation.name", "chat"),
                    attr("gen_ai.input.messages", &inp),
                    attr("gen_ai.output.messages", &out),
                ],
            ),
        ]
    }

    fn both(text: &str) -> (Option<String>, String) {
        let opts = LoadOptions::default();
        let inp = input(text.as_bytes(), &opts);
        let streamed = Plan::scan(&inp)
            .and_then(|p| import_streamed(&inp, p))
            .map(|s| format!("{s:#?}"));
        (streamed, format!("{:#?}", import_whole(&inp)))
    }

    #[test]
    fn streamed_sessions_are_the_sessions_read_whole() {
        let t = |tr: &str, c: Option<&str>, at: u64| turn(tr, c, at);
        let cases: Vec<(&str, Vec<String>, bool)> = vec![
            // Interleaved conversations, each trace on one line.
            (
                "interleaved",
                vec![
                    line(&t("t1", Some("A"), 10)),
                    line(&t("t2", Some("B"), 20)),
                    line(&t("t3", Some("A"), 30)),
                    line(&t("t4", None, 40)),
                    line(&t("t5", Some("B"), 50)),
                ],
                true,
            ),
            // A trace split over lines, its conversation id on its last line only; a trace
            // without one that comes back later; a blank line and a broken line between.
            (
                "split",
                vec![
                    line(&t("t1", None, 10)[1..]),
                    line(&t("t2", None, 20)),
                    String::new(),
                    "{not json".into(),
                    line(&t("t1", Some("A"), 30)[..1]),
                    line(&t("t3", Some("A"), 40)),
                    line(&t("t2", None, 50)[..1]),
                ],
                true,
            ),
            // A conversation id that is also a trace id; a trace id mentioned inside another
            // value (only delays a session).
            (
                "shared key",
                vec![
                    line(&t("t1", Some("t2"), 10)),
                    line(&t("t2", None, 20)),
                    // A span link names trace t1 on this line: t1's session waits for it.
                    line(&[r#"{"traceId":"t9","spanId":"x","name":"n","links":[{"traceId":"t1","spanId":"r"}],"attributes":[]}"#.to_owned()]),
                    line(&t("t3", Some("t2"), 30)),
                ],
                true,
            ),
            // One conversation: the file's name, not name#key.
            (
                "one",
                vec![line(&t("t1", Some("A"), 10)), line(&t("t2", Some("A"), 20))],
                true,
            ),
            // A blank trace id and a blank conversation id.
            (
                "blank",
                vec![line(&t("", Some(" "), 10)), line(&t("t2", None, 20))],
                true,
            ),
        ];
        for (name, lines, streams) in cases {
            let text = lines.join("\n") + "\n";
            let (streamed, whole) = both(&text);
            assert_eq!(streamed.is_some(), streams, "{name}");
            if let Some(s) = streamed {
                assert_eq!(s, whole, "{name}");
            }
        }
        // The value before the key: the first pass does not see the conversation, so the file
        // is read whole.
        let odd = r#"{"value":{"stringValue":"A"},"key":"gen_ai.conversation.id"}"#;
        let l1 = line(&[span("t1", "r", "", 1, &[odd.to_owned()])]);
        let l2 = line(&t("t1", None, 10));
        let text = format!("{l2}\n{l1}\n{l2}\n");
        let (streamed, _) = both(&text);
        assert!(streamed.is_none());
        // And `import` gives the whole reading's sessions.
        let opts = LoadOptions::default();
        let inp = input(text.as_bytes(), &opts);
        assert_eq!(
            format!("{:#?}", import(&inp)),
            format!("{:#?}", import_whole(&inp))
        );
    }

    #[test]
    fn ids_after_keys_are_read_as_json_strings() {
        let v = |s: &str| string_value_at(s.as_bytes(), 0).map(|c| c.into_owned());
        assert_eq!(v(r#" : "abc""#).as_deref(), Some("abc"));
        assert_eq!(v(r#":"a\"b\u0063""#).as_deref(), Some("a\"bc"));
        assert_eq!(v(r#":"a\\""#).as_deref(), Some("a\\"));
        assert_eq!(v(r#": 12"#), None);
        assert_eq!(v(r#""abc""#), None);
        assert_eq!(v(r#":"cut"#), None);
        assert_eq!(v(r#":"cut\"#), None);
        assert_eq!(v(""), None);
    }
}
