//! Langfuse trace exports ("Download JSON": `{"trace": {...}, "observations": [...]}`, or
//! `{"observations": [...], "scores": [...]}` from the newer trace view), and a trace of the
//! public API (`GET /api/public/traces/{id}`: the trace's fields and its `observations`).
//! Observations keep the source span's attributes in `metadata.attributes`, so they are read
//! like OTLP spans (see `genai.rs`); `TOOL` observations are tool calls.

use super::build::Builder;
use super::genai::{self, unstring_owned, Attrs, SpanRec};
use super::lax::{lax_object, Raw, Str};
use super::sniff::Head;
use super::util::time_str;
use super::Input;
use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Session};
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

const NAME: &str = "langfuse";

pub fn sniff(h: &Head) -> bool {
    (h.has("trace") && (h.has("observations") || h.text.contains("\"projectId\"")))
        || (h.has("observations") && h.text.contains("\"traceId\""))
}

#[derive(Deserialize)]
struct Export<'a> {
    #[serde(default, borrow)]
    trace: Option<Trace<'a>>,
    #[serde(default, borrow)]
    observations: Vec<&'a RawValue>,
    /// The trace's own fields, in a trace of the public API (which has no `trace` object).
    #[serde(default, borrow)]
    id: Str<'a>,
    #[serde(default, borrow)]
    name: Str<'a>,
    #[serde(default, borrow)]
    timestamp: Str<'a>,
    #[serde(default, borrow)]
    input: Raw<'a>,
}

lax_object! {
    /// The trace fields read (its copies of the observations and scores are skipped unread).
    struct Trace<'a> {
        id: Str<'a> = "id",
        name: Str<'a> = "name",
        timestamp: Str<'a> = "timestamp",
        input: Raw<'a> = "input",
    }
}

lax_object! {
    /// The observation fields read; `input` and `output` are `None` when absent or `null`.
    struct Observation<'a> {
        id: Str<'a> = "id",
        trace_id: Str<'a> = "traceId",
        parent: Str<'a> = "parentObservationId",
        name: Str<'a> = "name",
        start: Str<'a> = "startTime",
        end: Str<'a> = "endTime",
        kind: Str<'a> = "type",
        model: Str<'a> = "model",
        trace_name: Str<'a> = "traceName",
        input: Option<Value> = "input",
        output: Option<Value> = "output",
        metadata: Metadata = "metadata",
    }
}

/// An observation's `metadata.attributes` (the source span's attributes), from the object or
/// from JSON text holding it.
#[derive(Default)]
struct Metadata(Attrs);

lax_object! {
    struct MetadataObject<'a> {
        attributes: Attrs = "attributes",
    }
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Metadata;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Metadata, A::Error> {
                let mut m = MetadataObject::default();
                while let Some(super::lax::Key(k)) = map.next_key()? {
                    super::lax::Fields::field(&mut m, &k, &mut map)?;
                }
                Ok(Metadata(m.attributes))
            }
            fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<Metadata, E> {
                // JSON written as a string, as `unstring` reads it.
                if t.trim_start().starts_with(['{', '[']) {
                    if let Ok(m) = serde_json::from_str::<MetadataObject>(t) {
                        return Ok(Metadata(m.attributes));
                    }
                }
                Ok(Metadata::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Metadata, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Metadata::default())
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Metadata, E> {
                Ok(Metadata::default())
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Metadata, E> {
                Ok(Metadata::default())
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Metadata, E> {
                Ok(Metadata::default())
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Metadata, E> {
                Ok(Metadata::default())
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Metadata, E> {
                Ok(Metadata::default())
            }
        }
        d.deserialize_any(V)
    }
}

pub fn import(input: &Input) -> Vec<Session> {
    let mut b = Builder::new(NAME, input.name.clone(), input.source.clone());
    let doc: Export = match serde_json::from_slice(input.body()) {
        Ok(d) => d,
        Err(e) => {
            b.diag(
                e.line() as u64,
                e.column() as u64,
                "",
                DiagLevel::Error,
                format!(
                    "not a Langfuse trace export ({}); nothing read",
                    strip_pos(&e.to_string())
                ),
            );
            return vec![b.finish()];
        }
    };
    // The trace: its object, or the document's own fields (a trace of the public API).
    let (trace, input_path) = match doc.trace {
        Some(t) => (t, "trace.input"),
        None => {
            let t = Trace {
                id: doc.id,
                name: doc.name,
                timestamp: doc.timestamp,
                input: doc.input,
                ..Trace::default()
            };
            (t, "input")
        }
    };
    if let Some(id) = trace.id.get() {
        b.session_id(id);
    }
    if let Some(n) = trace.name.get() {
        b.title(n);
    }
    b.agent("langfuse");
    let trace_id = trace.id.get().unwrap_or("");
    let mut spans = Vec::with_capacity(doc.observations.len());
    for (i, raw) in doc.observations.iter().enumerate() {
        let path = format!("observations[{i}]");
        let o: Observation = match serde_json::from_str(raw.get()) {
            Ok(v) => v,
            Err(e) => {
                b.diag(
                    0,
                    0,
                    &path,
                    DiagLevel::Error,
                    format!(
                        "not an observation ({}); skipped",
                        strip_pos(&e.to_string())
                    ),
                );
                continue;
            }
        };
        let Some(id) = o.id.get() else {
            b.diag(
                0,
                0,
                &format!("{path}.id"),
                DiagLevel::Error,
                "an observation without an `id`; skipped".into(),
            );
            continue;
        };
        spans.push(SpanRec {
            trace_id: o.trace_id.get().unwrap_or(trace_id).to_owned(),
            span_id: id.to_owned(),
            parent_id: o.parent.get().map(str::to_owned),
            name: o.name.get().unwrap_or("").to_owned(),
            start: o.start.get().and_then(time_str),
            end: o.end.get().and_then(time_str),
            attrs: o.metadata.0,
            obs_type: o.kind.get().map(str::to_owned),
            input: o.input.map(unstring_owned),
            output: o.output.map(unstring_owned),
            path,
            ..SpanRec::default()
        });
        if let Some(m) = o.model.get() {
            b.model(m);
        }
        // Without the trace (the newer download), its observations name it.
        if trace_id.is_empty() {
            if let Some(t) = o.trace_id.get() {
                b.session_id(t);
            }
            if let Some(n) = o.trace_name.get() {
                b.title(n);
            }
        }
    }
    let start = trace.timestamp.get().and_then(time_str);
    // The trace's own input is the user's message when no model span recorded it.
    let user = trace
        .input
        .value()
        .map(unstring_owned)
        .and_then(|v| match v {
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
            b.turn(u, start, super::build::Loc::path(0, input_path));
        }
    }
    genai::build(&mut b, &mut spans);
    vec![b.finish()]
}
