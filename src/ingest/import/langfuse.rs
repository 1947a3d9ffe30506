//! Langfuse trace exports ("Download JSON": `{"trace": {...}, "observations": [...]}`).
//! Observations keep the source span's attributes in `metadata.attributes`, so they are read
//! like OTLP spans (see `genai.rs`); `TOOL` observations are tool calls.

use super::build::Builder;
use super::genai::{self, unstring, Attrs, SpanRec};
use super::sniff::Head;
use super::util::{s, time_str};
use super::Input;
use crate::model::{DiagLevel, Session};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

const NAME: &str = "langfuse";

pub fn sniff(h: &Head) -> bool {
    h.has("trace") && (h.has("observations") || h.text.contains("\"projectId\""))
}

#[derive(Deserialize)]
struct Export<'a> {
    #[serde(default)]
    trace: Value,
    #[serde(default, borrow)]
    observations: Vec<&'a RawValue>,
}

pub fn import(input: &Input) -> Vec<Session> {
    let mut b = Builder::new(NAME, input.name.clone(), input.source.clone());
    let doc: Export = match serde_json::from_slice(input.bytes) {
        Ok(d) => d,
        Err(e) => {
            b.diag(
                e.line() as u64,
                e.column() as u64,
                "",
                DiagLevel::Error,
                format!("not a Langfuse trace export ({e}); nothing read"),
            );
            return vec![b.finish()];
        }
    };
    let trace = &doc.trace;
    if let Some(id) = s(trace, "id") {
        b.session_id(id);
    }
    if let Some(n) = s(trace, "name") {
        b.title(n);
    }
    b.agent("langfuse");
    let trace_id = s(trace, "id").unwrap_or("").to_owned();
    let mut spans = Vec::with_capacity(doc.observations.len());
    for (i, raw) in doc.observations.iter().enumerate() {
        let path = format!("observations[{i}]");
        let o: Value = match serde_json::from_str(raw.get()) {
            Ok(v) => v,
            Err(e) => {
                b.diag(
                    0,
                    0,
                    &path,
                    DiagLevel::Error,
                    format!("not an observation ({e}); skipped"),
                );
                continue;
            }
        };
        let Some(id) = s(&o, "id") else {
            b.diag(
                0,
                0,
                &format!("{path}.id"),
                DiagLevel::Error,
                "an observation without an `id`; skipped".into(),
            );
            continue;
        };
        let meta = o.get("metadata").map(unstring).unwrap_or(Value::Null);
        let mut attrs = Attrs::default();
        for (k, v) in meta
            .get("attributes")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            attrs.set(k, v.clone());
        }
        spans.push(SpanRec {
            trace_id: s(&o, "traceId").unwrap_or(&trace_id).to_owned(),
            span_id: id.to_owned(),
            parent_id: s(&o, "parentObservationId").map(str::to_owned),
            name: s(&o, "name").unwrap_or("").to_owned(),
            start: s(&o, "startTime").and_then(time_str),
            end: s(&o, "endTime").and_then(time_str),
            attrs,
            obs_type: s(&o, "type").map(str::to_owned),
            input: o.get("input").filter(|v| !v.is_null()).map(unstring),
            output: o.get("output").filter(|v| !v.is_null()).map(unstring),
            path,
            ..SpanRec::default()
        });
        if let Some(m) = s(&o, "model") {
            b.model(m);
        }
    }
    let start = s(trace, "timestamp").and_then(time_str);
    // The trace's own input is the user's message when no model span recorded it.
    let user = trace.get("input").map(unstring).and_then(|v| match v {
        Value::String(t) => Some(t),
        Value::Object(ref o) => o
            .get("prompt")
            .or_else(|| o.get("input"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    });
    let has_chat_user = spans.iter().any(|sp| sp.is_chat() && sp.input.is_some());
    if !has_chat_user {
        if let Some(u) = &user {
            b.turn(u, start, super::build::Loc::path(0, "trace.input"));
        }
    }
    genai::build(&mut b, &mut spans);
    vec![b.finish()]
}
