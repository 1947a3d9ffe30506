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
use crate::model::{DiagLevel, Diagnostic, Session, Timestamp};
use rustc_hash::FxHashMap as HashMap;
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
}

/// Reads one export request per line. With `probe`, stops at a first line that is not one
/// (nothing recorded for it) so the caller can try the file as one document.
fn read_lines(
    input: &Input,
    probe: bool,
    spans: &mut Vec<Box<SpanRec>>,
    diag: &mut impl FnMut(u64, u64, String, String),
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
                    Ok(()) => read += 1,
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
    // Boxed: a Collector file holds hundreds of thousands, all kept until it is read.
    let mut spans: Vec<Box<SpanRec>> = Vec::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut diag = |line: u64, column: u64, path: String, msg: String| {
        diags.push(Diagnostic {
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
        })
    };
    // One export request per line (the Collector's file exporter), or one document.
    if let Pass::NotLines = read_lines(input, true, &mut spans, &mut diag) {
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
            let read = match read_lines(input, false, &mut spans, &mut line_diag) {
                Pass::Lines(n) => n,
                Pass::NotLines => 0,
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
                    format!("not an OTLP/JSON export ({e}); nothing read"),
                );
            }
        }
    }
    finish(input, spans, diags)
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
        let mut group: Vec<SpanRec> = group.into_iter().map(|sp| *sp).collect();
        let name = if n == 1 {
            input.name.clone()
        } else {
            format!("{}#{}", input.name, short(&key))
        };
        let mut b = Builder::new(NAME, name, input.source.clone());
        b.session_id(&key);
        b.agent(
            group
                .iter()
                .find_map(|s| s.attrs.get("gen_ai.agent.name").and_then(Value::as_str))
                .unwrap_or("otel"),
        );
        if let Some(m) = group
            .iter()
            .find_map(|s| s.attrs.get("gen_ai.request.model").and_then(Value::as_str))
        {
            b.model(m);
        }
        genai::build(&mut b, &mut group);
        out.push(b.finish());
    }
    if out.is_empty() {
        let mut b = Builder::new(NAME, input.name.clone(), input.source.clone());
        b.note("no spans in this trace export");
        out.push(b.finish());
    }
    out[0].diagnostics.extend(diags);
    out
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
