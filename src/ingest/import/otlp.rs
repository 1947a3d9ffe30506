//! OTLP/JSON traces: one `ExportTraceServiceRequest` document (`{"resourceSpans":[...]}`), or
//! one per line as the OpenTelemetry Collector's file exporter writes them. Spans are read by
//! the GenAI and MCP semantic conventions (see `genai.rs`); one session per conversation
//! (`gen_ai.conversation.id`, else the trace), its traces in time order.

use super::build::Builder;
use super::genai::{self, Attrs, SpanRec};
use super::sniff::Head;
use super::util::time_nanos;
use super::Input;
use crate::ingest::lines::Line;
use crate::model::{DiagLevel, Diagnostic, Session};
use rustc_hash::FxHashMap as HashMap;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

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

/// Spans parsed typed in one pass; when any is malformed the list is re-read span by span so
/// that only the bad one is lost (and named).
#[derive(Deserialize)]
struct ScopeSpans<'a> {
    #[serde(default, borrow)]
    spans: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct OSpan {
    #[serde(rename = "traceId", default)]
    trace_id: String,
    #[serde(rename = "spanId", default)]
    span_id: String,
    #[serde(rename = "parentSpanId", default)]
    parent_span_id: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    kind: Option<Value>,
    #[serde(rename = "startTimeUnixNano", default)]
    start: Option<Value>,
    #[serde(rename = "endTimeUnixNano", default)]
    end: Option<Value>,
    #[serde(default)]
    attributes: Vec<KeyValue>,
    #[serde(default)]
    events: Vec<SpanEvent>,
    #[serde(default)]
    status: Option<Value>,
}

#[derive(Deserialize)]
struct SpanEvent {
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

#[derive(Deserialize)]
struct KeyValue {
    key: String,
    #[serde(default)]
    value: AnyValue,
}

/// An OTLP `AnyValue`. Read leniently: a field of an unexpected type, or a bare JSON value where
/// an `AnyValue` object belongs, is kept as plain JSON rather than failing the span.
#[derive(Default)]
struct AnyValue {
    string: Option<Value>,
    int: Option<Value>,
    double: Option<Value>,
    boolean: Option<Value>,
    array: Option<ArrayValue>,
    kvlist: Option<KvList>,
    bytes: Option<Value>,
    /// A bare value (not an `AnyValue` object).
    plain: Option<Value>,
}

impl<'de> Deserialize<'de> for AnyValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
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
        fn plain(v: Value) -> AnyValue {
            AnyValue {
                plain: Some(v),
                ..AnyValue::default()
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = AnyValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an OTLP AnyValue")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<AnyValue, A::Error> {
                let mut v = AnyValue::default();
                while let Some(k) = m.next_key::<Field>()? {
                    match k {
                        Field::StringValue => v.string = Some(m.next_value()?),
                        Field::IntValue => v.int = Some(m.next_value()?),
                        Field::DoubleValue => v.double = Some(m.next_value()?),
                        Field::BoolValue => v.boolean = Some(m.next_value()?),
                        Field::ArrayValue => v.array = Some(m.next_value()?),
                        Field::KvlistValue => v.kvlist = Some(m.next_value()?),
                        Field::BytesValue => v.bytes = Some(m.next_value()?),
                        Field::Other => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(v)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut sq: A) -> Result<AnyValue, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = sq.next_element::<Value>()? {
                    out.push(x);
                }
                Ok(plain(Value::Array(out)))
            }
            fn visit_bool<E>(self, b: bool) -> Result<AnyValue, E> {
                Ok(plain(Value::Bool(b)))
            }
            fn visit_i64<E>(self, n: i64) -> Result<AnyValue, E> {
                Ok(plain(Value::from(n)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<AnyValue, E> {
                Ok(plain(Value::from(n)))
            }
            fn visit_f64<E>(self, n: f64) -> Result<AnyValue, E> {
                Ok(plain(Value::from(n)))
            }
            fn visit_str<E>(self, t: &str) -> Result<AnyValue, E> {
                Ok(plain(Value::String(t.to_owned())))
            }
            fn visit_string<E>(self, t: String) -> Result<AnyValue, E> {
                Ok(plain(Value::String(t)))
            }
            fn visit_unit<E>(self) -> Result<AnyValue, E> {
                Ok(AnyValue::default())
            }
            fn visit_none<E>(self) -> Result<AnyValue, E> {
                Ok(AnyValue::default())
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Default)]
struct ArrayValue {
    #[serde(default)]
    values: Vec<AnyValue>,
}

#[derive(Deserialize, Default)]
struct KvList {
    #[serde(default)]
    values: Vec<KeyValue>,
}

/// An OTLP `AnyValue` as plain JSON (strings moved, not copied).
fn any_value(v: AnyValue) -> Value {
    if let Some(p) = v.plain {
        return p;
    }
    if let Some(s) = v.string {
        return s;
    }
    if let Some(i) = v.int {
        return match i {
            Value::String(t) => t.parse::<i64>().map_or(Value::String(t), Value::from),
            other => other,
        };
    }
    if let Some(d) = v.double {
        return d;
    }
    if let Some(b) = v.boolean {
        return b;
    }
    if let Some(a) = v.array {
        return Value::Array(a.values.into_iter().map(any_value).collect());
    }
    if let Some(k) = v.kvlist {
        let mut m = Map::new();
        for kv in k.values {
            m.insert(kv.key, any_value(kv.value));
        }
        return Value::Object(m);
    }
    v.bytes.unwrap_or(Value::Null)
}

fn kind_name(v: &Option<Value>) -> String {
    match v {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(1) => "internal",
            Some(2) => "server",
            Some(3) => "client",
            Some(4) => "producer",
            Some(5) => "consumer",
            _ => "",
        }
        .to_owned(),
        Some(Value::String(s)) => s.trim_start_matches("SPAN_KIND_").to_ascii_lowercase(),
        _ => String::new(),
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
    spans: &mut Vec<SpanRec>,
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
                match serde_json::from_slice::<Export>(bytes) {
                    Ok(doc) => {
                        read += 1;
                        read_export(doc, line_no, spans, diag)
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
    let mut spans: Vec<SpanRec> = Vec::new();
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
            Ok(all) => match serde_json::from_slice::<Export>(&all) {
                Ok(doc) => {
                    read_export(doc, 0, &mut spans, &mut diag);
                    None
                }
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

fn finish(input: &Input, spans: Vec<SpanRec>, diags: Vec<Diagnostic>) -> Vec<Session> {
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
    let mut groups: Vec<(String, Vec<SpanRec>)> = Vec::new();
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
    for (key, mut group) in groups {
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

fn read_export(
    doc: Export,
    line: u64,
    out: &mut Vec<SpanRec>,
    diag: &mut impl FnMut(u64, u64, String, String),
) {
    for (ri, rs) in doc.resource_spans.iter().enumerate() {
        for (si, ss) in rs.scope_spans.iter().enumerate() {
            let path = |pi: usize| format!("resourceSpans[{ri}].scopeSpans[{si}].spans[{pi}]");
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
                let mut attrs = Attrs::default();
                // GenAI content may be recorded on events instead of the span.
                let events = sp.events.into_iter().flat_map(|e| e.attributes);
                for kv in sp.attributes.into_iter().chain(events) {
                    if Attrs::known(&kv.key).is_some() {
                        attrs.set(&kv.key, any_value(kv.value));
                    }
                }
                if let Some(v) = attrs.get_mut("gen_ai.input.messages") {
                    genai::compact_input(v);
                }
                if sp
                    .status
                    .as_ref()
                    .and_then(|s| s.get("code"))
                    .is_some_and(|c| c == 2 || c == "STATUS_CODE_ERROR")
                {
                    attrs.set("otel.status_code", Value::from("ERROR"));
                }
                out.push(SpanRec {
                    trace_id: sp.trace_id,
                    span_id: sp.span_id,
                    parent_id: sp.parent_span_id.filter(|p| !p.is_empty()),
                    name: sp.name,
                    kind: kind_name(&sp.kind),
                    start: sp.start.as_ref().and_then(time_nanos),
                    end: sp.end.as_ref().and_then(time_nanos),
                    attrs,
                    line,
                    path: if line == 0 { path(pi) } else { String::new() },
                    ..SpanRec::default()
                });
            }
        }
    }
}
