//! Langfuse trace exports ("Download JSON": `{"trace": {...}, "observations": [...]}`, or
//! `{"observations": [...], "scores": [...]}` from the newer trace view), a trace of the
//! public API (`GET /api/public/traces/{id}`: the trace's fields and its `observations`), and
//! the public API's lists (`{"data": [...], "meta": {...}}` of `GET /api/public/traces` or
//! `GET /api/public/observations`), one session per trace.
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
        // A trace of the public API, judged from its own fields, which come first: its
        // `observations` follow its `input` and `output`, which may run past the head.
        || (h.has("id")
            && h.has("timestamp")
            && h.has("public")
            && (h.has("bookmarked") || h.has("projectId")))
        // A list of the public API (`{"data": [...], "meta": {...}}`) of traces (each with its
        // `htmlPath` and `observations`) or of observations (each with its `traceId`).
        || (h.has("data")
            && (h.text.contains("\"htmlPath\"")
                || h.text.contains("\"observations\"")
                || (h.text.contains("\"traceId\"") && h.text.contains("\"startTime\""))))
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
    /// The items of a list of the public API (`GET /api/public/traces`,
    /// `GET /api/public/observations`) and its page.
    #[serde(default, borrow)]
    data: Raw<'a>,
    #[serde(default, borrow)]
    meta: Raw<'a>,
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
    let new = || Builder::new(NAME, input.name.clone(), input.source.clone());
    let doc: Export = match serde_json::from_slice(input.body()) {
        Ok(d) => d,
        Err(e) => {
            let mut b = new();
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
    if doc.trace.is_none() && doc.observations.is_empty() {
        if let Some(Ok(items)) = doc
            .data
            .non_null()
            .map(|d| serde_json::from_str::<Vec<&RawValue>>(d.get()))
        {
            return list(input, &items, &doc.meta);
        }
    }
    let mut b = new();
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
    let observations: Vec<(&RawValue, String)> = doc
        .observations
        .iter()
        .enumerate()
        .map(|(i, raw)| (*raw, format!("observations[{i}]")))
        .collect();
    let (ids_only, subs) = read_trace(&mut b, &trace, input_path, &observations);
    if ids_only > 0 {
        b.diag(
            0,
            0,
            "observations",
            DiagLevel::Warning,
            ids_only_message(ids_only, 1),
        );
    }
    let mut out = vec![b.finish()];
    out.extend(subs);
    out
}

/// A trace's input as JSON: written as a string of JSON, or (as the Vercel AI SDK's traces
/// hold it) as a string of a JSON string of JSON.
fn unstring_twice(v: Value) -> Value {
    match v {
        Value::String(ref t) if t.starts_with('"') => match serde_json::from_str::<Value>(t) {
            Ok(inner @ Value::String(_)) => unstring_owned(inner),
            _ => v,
        },
        other => unstring_owned(other),
    }
}

/// The sentence for observations given by their ids only.
fn ids_only_message(ids: usize, traces: usize) -> String {
    let s = if traces == 1 { "" } else { "s" };
    format!("the file lists observation ids only ({ids} ids, of {traces} trace{s}), as `GET /api/public/traces` returns them, not the observations: fetch each trace with `GET /api/public/traces/{{id}}`, or its observations with `GET /api/public/observations?traceId=...`, to read its calls and answers")
}

lax_object! {
    /// An item of a list of the public API: a trace (`GET /api/public/traces`) or an
    /// observation (`GET /api/public/observations`, which names its trace).
    struct ListItem<'a> {
        id: Str<'a> = "id",
        name: Str<'a> = "name",
        timestamp: Str<'a> = "timestamp",
        input: Raw<'a> = "input",
        trace_id: Str<'a> = "traceId",
        observations: Option<Vec<&'a RawValue>> = "observations",
    }
}

/// A list of the public API (`{"data": [...], "meta": {...}}`): one session per trace, each read
/// as a trace file is. Trace items hold their observations (objects, or only their ids);
/// observation items are grouped by their `traceId`, in the order first seen. What concerns the
/// file is told once, with its first session.
fn list(input: &Input, items: &[&RawValue], meta: &Raw) -> Vec<Session> {
    let new = || Builder::new(NAME, input.name.clone(), input.source.clone());
    let mut file = new();
    // Each trace's session, with the sessions of the sub-agents its tool calls ran.
    let mut out: Vec<(Session, Vec<Session>)> = Vec::new();
    // Observation items by trace id, in the order first seen.
    let mut groups: Vec<(String, Vec<(&RawValue, String)>)> = Vec::new();
    // Each group's place in `groups`, by trace id (a page of many traces is not scanned per
    // observation).
    let mut group_of: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
    let (mut ids_only, mut traces_ids_only) = (0, 0);
    for (i, raw) in items.iter().enumerate() {
        let path = format!("data[{i}]");
        let item: ListItem = match serde_json::from_str(raw.get()) {
            Ok(v) => v,
            Err(e) => {
                let msg = format!(
                    "not a trace or observation ({}); skipped",
                    strip_pos(&e.to_string())
                );
                file.diag(0, 0, &path, DiagLevel::Error, msg);
                continue;
            }
        };
        match (&item.observations, item.trace_id.get()) {
            (None, Some(t)) => {
                let at = match group_of.get(t) {
                    Some(&at) => at,
                    None => {
                        group_of.insert(t.to_owned(), groups.len());
                        groups.push((t.to_owned(), Vec::new()));
                        groups.len() - 1
                    }
                };
                groups[at].1.push((*raw, path));
            }
            (obs, _) if item.id.get().is_some() => {
                let trace = Trace {
                    id: item.id,
                    name: item.name,
                    timestamp: item.timestamp,
                    input: item.input,
                    ..Trace::default()
                };
                let observations: Vec<(&RawValue, String)> = obs
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(|(j, r)| (*r, format!("{path}.observations[{j}]")))
                    .collect();
                let mut b = new();
                let (ids, subs) =
                    read_trace(&mut b, &trace, &format!("{path}.input"), &observations);
                if ids > 0 {
                    ids_only += ids;
                    traces_ids_only += 1;
                }
                out.push((b.finish(), subs));
            }
            _ => file.diag(
                0,
                0,
                &path,
                DiagLevel::Error,
                "an item that is neither a trace (with an `id`) nor an observation (with a `traceId`); skipped".into(),
            ),
        }
    }
    for (trace_id, observations) in &groups {
        let mut b = new();
        b.session_id(trace_id);
        let (_, subs) = read_trace(&mut b, &Trace::default(), "", observations);
        out.push((b.finish(), subs));
    }
    if ids_only > 0 {
        file.diag(
            0,
            0,
            "data",
            DiagLevel::Warning,
            ids_only_message(ids_only, traces_ids_only),
        );
    }
    if items.is_empty() {
        file.diag(
            0,
            0,
            "data",
            DiagLevel::Error,
            "an empty list: no trace to read".into(),
        );
    }
    // A page of a longer list says so.
    if let Some(m) = meta.value() {
        let n = |k: &str| m.get(k).and_then(Value::as_u64);
        if let (Some(page), Some(pages)) = (n("page"), n("totalPages")) {
            if pages > 1 {
                file.note(format!("the file is page {page} of {pages} of a list of the public API: the other pages are not in it"));
            }
        }
    }
    // The sessions of one file are told apart by their trace (as OTLP's conversations are); a
    // sub-agent's session keeps its part after its trace's name.
    if out.len() > 1 {
        for (s, subs) in &mut out {
            let id = s.id();
            let short = id.get(..12).unwrap_or(id);
            let name = format!("{}#{short}", input.name);
            for sub in subs.iter_mut() {
                if let Some(rest) = sub.name.strip_prefix(s.name.as_str()) {
                    sub.name = format!("{name}{rest}");
                }
            }
            s.name = name;
        }
    }
    let mut out: Vec<Session> = out
        .into_iter()
        .flat_map(|(s, subs)| std::iter::once(s).chain(subs))
        .collect();
    let f = file.finish();
    match out.first_mut() {
        Some(first) => {
            first.diagnostics.splice(0..0, f.diagnostics);
            if let (Some(i), Some(fi)) = (first.import.as_mut(), f.import) {
                for n in fi.notes {
                    if !i.notes.contains(&n) {
                        i.notes.push(n);
                    }
                }
            }
        }
        None => out.push(f),
    }
    out
}

/// Reads one trace into `b`: its fields (`input` at `input_path`, none when it is empty) and
/// its observations, each at its path. Returns how many observations were only ids (strings),
/// which are skipped, and the sessions of the sub-agents its tool calls ran
/// ([`genai::build`]).
fn read_trace(
    b: &mut Builder,
    trace: &Trace,
    input_path: &str,
    observations: &[(&RawValue, String)],
) -> (usize, Vec<Session>) {
    if let Some(id) = trace.id.get() {
        b.session_id(id);
    }
    if let Some(n) = trace.name.get() {
        b.title(n);
    }
    b.agent("langfuse");
    let trace_id = trace.id.get().unwrap_or("");
    let mut spans = Vec::with_capacity(observations.len());
    let mut ids_only = 0;
    for (raw, path) in observations {
        if raw.get().starts_with('"') {
            ids_only += 1;
            continue;
        }
        let path = path.clone();
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
        .map(unstring_twice)
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
    let subs = genai::build(b, spans);
    (ids_only, subs)
}
