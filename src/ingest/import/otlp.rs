//! OTLP/JSON traces: one `ExportTraceServiceRequest` document (`{"resourceSpans":[...]}`), or
//! one per line as the OpenTelemetry Collector's file exporter writes them. Spans are read by
//! the GenAI and MCP semantic conventions (see `genai.rs`); one session per conversation
//! (`gen_ai.conversation.id`, else the trace), its traces in time order.

use super::build::Builder;
use super::genai::{self, SpanRec};
use super::sniff::Head;
use super::util::time_nanos;
use super::Input;
use crate::ingest::lines::{CappedLines, Line};
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

#[derive(Deserialize)]
struct ScopeSpans<'a> {
    #[serde(default, borrow)]
    spans: Vec<&'a RawValue>,
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
    value: Value,
}

/// An OTLP `AnyValue` as plain JSON.
fn any_value(v: &Value) -> Value {
    let Some(o) = v.as_object() else {
        return v.clone();
    };
    if let Some(s) = o.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = o.get("intValue") {
        return match i {
            Value::String(t) => t.parse::<i64>().map_or_else(|_| i.clone(), Value::from),
            other => other.clone(),
        };
    }
    if let Some(d) = o.get("doubleValue").or_else(|| o.get("boolValue")) {
        return d.clone();
    }
    if let Some(a) = o.get("arrayValue") {
        let vals = a
            .get("values")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        return Value::Array(vals.iter().map(any_value).collect());
    }
    if let Some(k) = o.get("kvlistValue") {
        let mut m = Map::new();
        for kv in k
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(key) = kv.get("key").and_then(Value::as_str) {
                m.insert(
                    key.to_owned(),
                    any_value(kv.get("value").unwrap_or(&Value::Null)),
                );
            }
        }
        return Value::Object(m);
    }
    if let Some(b) = o.get("bytesValue") {
        return b.clone();
    }
    Value::Null
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

pub fn import(input: &Input) -> Vec<Session> {
    let mut spans: Vec<SpanRec> = Vec::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut diag = |line: u64, column: u64, path: String, msg: String| {
        diags.push(Diagnostic {
            file: input.source.clone(),
            line,
            column,
            path,
            level: DiagLevel::Error,
            message: msg,
        })
    };
    // One document, or one export request per line.
    let trimmed = input
        .bytes
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(0);
    let one_doc = serde_json::from_slice::<Export>(&input.bytes[trimmed..]).ok();
    match one_doc {
        Some(doc) => read_export(doc, 0, &mut spans, &mut diag),
        None => {
            let mut lines = CappedLines::new(input.bytes, input.opts.max_line_bytes);
            loop {
                match lines.next_line() {
                    Ok(Some(Line::Text { line_no, bytes, ended })) => {
                        if bytes.iter().all(u8::is_ascii_whitespace) {
                            continue;
                        }
                        match serde_json::from_slice::<Export>(bytes) {
                            Ok(doc) => read_export(doc, line_no, &mut spans, &mut diag),
                            Err(e) => {
                                let msg = if !ended && e.is_eof() {
                                    "truncated line: the file ends in the middle of an export request; line skipped".to_owned()
                                } else {
                                    format!("not an OTLP export request ({e}); line skipped")
                                };
                                diag(line_no, e.column() as u64, String::new(), msg)
                            }
                        }
                    }
                    Ok(Some(Line::TooLong { line_no, bytes })) => diag(line_no, 1, String::new(), format!("line is {bytes} bytes, over the {} byte cap; skipped (raise --max-line-bytes to load it)", input.opts.max_line_bytes)),
                    Ok(None) => break,
                    Err(e) => {
                        diag(0, 0, String::new(), format!("read error: {e}"));
                        break;
                    }
                }
            }
        }
    }
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
    let mut groups: Vec<(String, Vec<SpanRec>)> = Vec::new();
    for sp in spans {
        let key = conv_of_trace
            .get(&sp.trace_id)
            .cloned()
            .unwrap_or_else(|| sp.trace_id.clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(sp),
            None => groups.push((key, vec![sp])),
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
            for (pi, raw) in ss.spans.iter().enumerate() {
                let path = format!("resourceSpans[{ri}].scopeSpans[{si}].spans[{pi}]");
                let sp: OSpan = match serde_json::from_str(raw.get()) {
                    Ok(s) => s,
                    Err(e) => {
                        diag(line, 0, path, format!("not an OTLP span ({e}); skipped"));
                        continue;
                    }
                };
                let mut attrs: HashMap<String, Value> = HashMap::default();
                for kv in &sp.attributes {
                    attrs.insert(kv.key.trim().to_owned(), any_value(&kv.value));
                }
                // GenAI content may be recorded on events instead of the span.
                for ev in &sp.events {
                    for kv in &ev.attributes {
                        attrs
                            .entry(kv.key.trim().to_owned())
                            .or_insert_with(|| any_value(&kv.value));
                    }
                }
                if sp
                    .status
                    .as_ref()
                    .and_then(|s| s.get("code"))
                    .is_some_and(|c| c == 2 || c == "STATUS_CODE_ERROR")
                {
                    attrs.insert("otel.status_code".into(), Value::from("ERROR"));
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
                    path,
                    ..SpanRec::default()
                });
            }
        }
    }
}
