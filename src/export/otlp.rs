//! Findings as OpenTelemetry traces (OTLP): one trace per checked session, a root span for the
//! session and one child span per checked claim statement, its findings as span events.
//!
//! The wire types are the OpenTelemetry project's (`opentelemetry-proto`): the same request is
//! written as OTLP/JSON (`verify --otlp FILE`) or sent as OTLP/HTTP, JSON or protobuf
//! (`verify --otlp-endpoint URL`). Attributes follow the GenAI and MCP semantic conventions
//! where they apply (`gen_ai.tool.call.id`, `gen_ai.tool.name`, `mcp.method.name`,
//! `jsonrpc.request.id`, `gen_ai.conversation.id`); the rest are in the `provscope.*`
//! namespace documented in `docs/team.md`.
//!
//! Seam: when a session came from OTel (its `execute_tool` spans' trace and span ids recorded
//! on the model), findings could become span events on those original spans instead;
//! [`original_span`] is where that mapping goes. Until the model carries the ids, every claim
//! gets a span of its own in a trace of provscope's.

use crate::check::{ClaimVerdict, Metrics, SessionReport};
use crate::model::{Session, Severity, Timestamp};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{
    any_value, AnyValue, ArrayValue, InstrumentationScope, KeyValue,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{
    span, status, ResourceSpans, ScopeSpans, Span, Status,
};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// What the exporter needs of a session's calls: tool, server, JSON-RPC id and method.
#[derive(Clone, Debug, Default)]
pub struct CallInfo {
    /// The tool name (`params.name`).
    pub tool: String,
    /// The MCP server.
    pub server: String,
    /// The JSON-RPC request id, as text.
    pub request_id: String,
    /// The JSON-RPC method (`tools/call`).
    pub method: String,
}

/// Call details of one session, by call id.
pub type CallIndex = HashMap<String, CallInfo>;

/// The call details of `s` that the spans carry.
pub fn call_index(s: &Session) -> CallIndex {
    let mut idx: CallIndex = s
        .calls
        .iter()
        .map(|c| {
            (
                c.id.to_string(),
                CallInfo {
                    tool: c.tool().to_owned(),
                    server: c.server.to_string(),
                    request_id: c.request.id.as_text().to_owned(),
                    method: c.request.method.to_string(),
                },
            )
        })
        .collect();
    // A result without its request still names its tool and server.
    for r in &s.results {
        idx.entry(r.tag.call_id.to_string())
            .or_insert_with(|| CallInfo {
                tool: r.tag.tool.to_string(),
                server: r.tag.server.to_string(),
                request_id: r.response.id.as_text().to_owned(),
                method: "tools/call".into(),
            });
    }
    idx
}

/// The original `execute_tool` span of a claim's call, when the session came from OTel and
/// the model records it: `(trace_id, span_id)`. Not recorded yet, so always `None` (see the
/// module documentation).
pub fn original_span(_s: &SessionReport, _c: &ClaimVerdict) -> Option<(Vec<u8>, Vec<u8>)> {
    None
}

fn kv(key: &str, v: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(v) }),
        ..KeyValue::default()
    }
}

fn s(key: &str, v: &str) -> KeyValue {
    kv(key, any_value::Value::StringValue(v.to_owned()))
}

fn i(key: &str, v: i64) -> KeyValue {
    kv(key, any_value::Value::IntValue(v))
}

fn f(key: &str, v: f64) -> KeyValue {
    kv(key, any_value::Value::DoubleValue(v))
}

fn strings(key: &str, vs: &[&str]) -> KeyValue {
    kv(
        key,
        any_value::Value::ArrayValue(ArrayValue {
            values: vs
                .iter()
                .map(|v| AnyValue {
                    value: Some(any_value::Value::StringValue((*v).to_owned())),
                })
                .collect(),
        }),
    )
}

/// `n` bytes of SHA-256 over the parts: deterministic ids (the same input and `--now` give the
/// same trace), never all zero.
fn id(n: usize, parts: &[&str]) -> Vec<u8> {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    let mut out = h.finalize()[..n].to_vec();
    if out.iter().all(|b| *b == 0) {
        out[n - 1] = 1;
    }
    out
}

fn nanos(t: Timestamp) -> u64 {
    u64::try_from(t.millis())
        .unwrap_or(0)
        .saturating_mul(1_000_000)
}

fn metric_attrs(m: &Metrics, out: &mut Vec<KeyValue>) {
    out.push(i("provscope.claims", m.claims as i64));
    if let Some(p) = m.citation_precision {
        out.push(f("provscope.citation_precision", p));
    }
    if let Some(w) = m.wrong_source_rate {
        out.push(f("provscope.wrong_source_rate", w));
    }
    for (q, n) in &m.quadrants {
        out.push(i(&format!("provscope.quadrant.{}", q.name()), *n as i64));
    }
}

fn severity_name(s: Severity) -> &'static str {
    s.name()
}

/// The span events and worst severity of findings `idx` of report `r`.
fn events(r: &SessionReport, idx: &[usize], at: u64) -> (Vec<span::Event>, Option<Severity>) {
    let mut worst: Option<Severity> = None;
    let evs = idx
        .iter()
        .filter_map(|&k| r.findings.get(k))
        .map(|x| {
            if worst.is_none_or(|w| x.severity < w) {
                worst = Some(x.severity);
            }
            let mut attributes = vec![
                s("provscope.finding.kind", x.kind.name()),
                s("provscope.finding.severity", severity_name(x.severity)),
                s("provscope.finding.message", &x.message),
                i("provscope.finding.line", x.line as i64),
            ];
            if let Some(p) = &x.json_path {
                attributes.push(s("provscope.finding.json_path", p));
            }
            if !x.call_ids.is_empty() {
                let ids: Vec<&str> = x.call_ids.iter().map(|id| id.as_str()).collect();
                attributes.push(strings("provscope.finding.call_ids", &ids));
            }
            span::Event {
                time_unix_nano: at,
                name: format!("provscope.finding.{}", x.kind.name()),
                attributes,
                dropped_attributes_count: 0,
            }
        })
        .collect();
    (evs, worst)
}

fn status_for(worst: Option<Severity>, first_message: Option<&str>) -> Option<Status> {
    match worst {
        Some(Severity::Error) => Some(Status {
            message: first_message.unwrap_or("").to_owned(),
            code: status::StatusCode::Error as i32,
        }),
        _ => None,
    }
}

/// The OTLP trace request for checked sessions: `reports[k]` with the call details `calls[k]`
/// (an empty index when unknown), checked at `now`.
pub fn request(
    reports: &[SessionReport],
    calls: &[CallIndex],
    now: Timestamp,
) -> ExportTraceServiceRequest {
    let at = nanos(now);
    let stamp = now.to_string();
    let empty = CallIndex::new();
    let mut spans = Vec::new();
    for (k, r) in reports.iter().enumerate() {
        let calls = calls.get(k).unwrap_or(&empty);
        let trace_id = id(16, &["trace", &r.session_id, &r.file, &stamp]);
        let root_id = id(8, &["session", &r.session_id, &r.file, &stamp]);
        let mut attributes = vec![
            s("gen_ai.conversation.id", &r.session_id),
            s("provscope.session.id", &r.session_id),
            s("provscope.session.file", &r.file),
        ];
        metric_attrs(&r.metrics, &mut attributes);
        // Findings that concern no claim are events of the session's span.
        let claimed: std::collections::HashSet<usize> = r
            .claims
            .iter()
            .flat_map(|c| c.findings.iter().copied())
            .collect();
        let loose: Vec<usize> = (0..r.findings.len())
            .filter(|i| !claimed.contains(i))
            .collect();
        let (evs, worst) = events(r, &loose, at);
        spans.push(Span {
            trace_id: trace_id.clone(),
            span_id: root_id.clone(),
            name: format!("provscope verify {}", r.session_id),
            kind: span::SpanKind::Internal as i32,
            start_time_unix_nano: at,
            end_time_unix_nano: at,
            attributes,
            events: evs,
            status: status_for(
                worst,
                loose
                    .first()
                    .and_then(|&i| r.findings.get(i))
                    .map(|x| x.message.as_str()),
            ),
            ..Span::default()
        });
        for c in &r.claims {
            let mut attributes = vec![
                s("provscope.claim.id", &c.claim_id),
                i("provscope.claim.turn", i64::from(c.turn)),
                s("provscope.claim.text", &c.claim_text),
                s("provscope.source_verdict", c.source_verdict.name()),
                s("provscope.fact_verdict", c.fact_verdict.name()),
            ];
            if let Some(q) = c.quadrant {
                attributes.push(s("provscope.quadrant", q.name()));
            }
            if let Some(sup) = c.support {
                attributes.push(f("provscope.support", sup));
            }
            if let Some(t) = &c.tier {
                attributes.push(s("provscope.tier", &t.tier.to_string()));
            }
            if let Some(call) = &c.call_id {
                attributes.push(s("gen_ai.tool.call.id", call));
                if let Some(info) = calls.get(call.as_str()) {
                    attributes.push(s("gen_ai.tool.name", &info.tool));
                    attributes.push(s("mcp.method.name", &info.method));
                    attributes.push(s("jsonrpc.request.id", &info.request_id));
                    attributes.push(s("provscope.server", &info.server));
                }
            }
            let (evs, worst) = events(r, &c.findings, at);
            let kinds: Vec<&str> = c
                .findings
                .iter()
                .filter_map(|&k| r.findings.get(k))
                .map(|x| x.kind.name())
                .collect();
            if !kinds.is_empty() {
                attributes.push(strings("provscope.finding.kinds", &kinds));
            }
            if let Some(w) = worst {
                attributes.push(s("provscope.severity", severity_name(w)));
            }
            let first = c
                .findings
                .first()
                .and_then(|&k| r.findings.get(k))
                .map(|x| x.message.as_str());
            spans.push(Span {
                trace_id: trace_id.clone(),
                span_id: id(
                    8,
                    &[
                        "claim",
                        &r.session_id,
                        &r.file,
                        &stamp,
                        &c.claim_id,
                        &c.turn.to_string(),
                        &c.position.to_string(),
                    ],
                ),
                parent_span_id: root_id.clone(),
                name: format!("provscope.claim {}", c.claim_id),
                kind: span::SpanKind::Internal as i32,
                start_time_unix_nano: at,
                end_time_unix_nano: at,
                attributes,
                events: evs,
                status: status_for(worst, first),
                ..Span::default()
            });
        }
    }
    let version = env!("CARGO_PKG_VERSION");
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![
                    s("service.name", "provscope"),
                    s("service.version", version),
                    s("provscope.checked_at", &stamp),
                ],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "provscope".into(),
                    version: version.into(),
                    ..InstrumentationScope::default()
                }),
                spans,
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    }
}

/// OTLP/JSON of the request (what `--otlp FILE` writes).
pub fn to_json(req: &ExportTraceServiceRequest) -> String {
    serde_json::to_string(req).unwrap_or_else(|_| "{}".into())
}

/// OTLP protobuf bytes of the request.
pub fn to_protobuf(req: &ExportTraceServiceRequest) -> Vec<u8> {
    use prost::Message;
    req.encode_to_vec()
}

/// The OTLP/HTTP body encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `application/x-protobuf`.
    Protobuf,
    /// `application/json`.
    Json,
}

/// The traces URL for an endpoint: as given when it ends in `/v1/traces`, else with that path
/// appended (as `OTEL_EXPORTER_OTLP_ENDPOINT` is read).
pub fn traces_url(endpoint: &str) -> String {
    let (base, query) = match endpoint.find('?') {
        Some(i) => (&endpoint[..i], &endpoint[i..]),
        None => (endpoint, ""),
    };
    let e = base.trim_end_matches('/');
    if e.ends_with("/v1/traces") {
        format!("{e}{query}")
    } else {
        format!("{e}/v1/traces{query}")
    }
}

/// The endpoint as it may be printed: user info and query string removed.
pub fn shown_endpoint(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    match no_query.split_once("://") {
        Some((scheme, rest)) => {
            let (auth, path) = match rest.find('/') {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            let host = auth.rsplit('@').next().unwrap_or(auth);
            format!("{scheme}://{host}{path}")
        }
        None => no_query.to_owned(),
    }
}

/// Why a collector did not take the request (the endpoint is shown without credentials).
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The collector answered with an error status (after one retry for 429 and 5xx).
    #[error("the collector at {endpoint} answered HTTP {status}")]
    Status {
        /// The endpoint, without user info or query.
        endpoint: String,
        /// The HTTP status.
        status: u16,
    },
    /// The request did not reach the collector.
    #[error("cannot send to the collector at {endpoint}: {detail}")]
    Transport {
        /// The endpoint, without user info or query.
        endpoint: String,
        /// The client's words.
        detail: String,
    },
}

/// Sends the request to an OTLP/HTTP collector. `headers` are extra request headers (for
/// example an API key). A 5xx or 429 answer is tried once more after a second.
pub fn send(
    req: &ExportTraceServiceRequest,
    endpoint: &str,
    protocol: Protocol,
    headers: &[(String, String)],
) -> Result<(), SendError> {
    let url = traces_url(endpoint);
    let shown = shown_endpoint(&url);
    let (body, ctype) = match protocol {
        Protocol::Protobuf => (to_protobuf(req), "application/x-protobuf"),
        Protocol::Json => (to_json(req).into_bytes(), "application/json"),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(15)))
        .http_status_as_error(false)
        .build()
        .into();
    let mut last = None;
    for attempt in 0..2 {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        let mut r = agent.post(&url).header("Content-Type", ctype);
        for (k, v) in headers {
            r = r.header(k.as_str(), v.as_str());
        }
        match r.send(&body[..]) {
            Ok(resp) => {
                let code = resp.status().as_u16();
                if (200..300).contains(&code) {
                    return Ok(());
                }
                last = Some(SendError::Status {
                    endpoint: shown.clone(),
                    status: code,
                });
                if !(code == 429 || code >= 500) {
                    break;
                }
            }
            Err(e) => {
                last = Some(SendError::Transport {
                    endpoint: shown.clone(),
                    detail: e.to_string(),
                });
            }
        }
    }
    Err(last.unwrap_or(SendError::Transport {
        endpoint: shown,
        detail: "not sent".into(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://c:4318/v1/traces"),
            "http://c:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://c/otlp/?k=v"),
            "http://c/otlp/v1/traces?k=v"
        );
        assert_eq!(
            shown_endpoint("https://user:key@collector.example/v1/traces?token=x"),
            "https://collector.example/v1/traces"
        );
    }

    #[test]
    fn ids_are_deterministic_and_sized() {
        assert_eq!(id(16, &["a", "b"]), id(16, &["a", "b"]));
        assert_ne!(id(16, &["a", "b"]), id(16, &["ab", ""]));
        assert_eq!(id(8, &["x"]).len(), 8);
    }
}
