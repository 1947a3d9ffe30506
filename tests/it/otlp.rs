//! `verify --otlp FILE` (OTLP/JSON, validated against the OTLP protobuf schema by the official
//! Python classes) and `verify --otlp-endpoint URL` (OTLP/HTTP, received by a local test
//! receiver and compared field by field).

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AV;
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn provscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_HEADERS")
        .output()
        .unwrap()
}

const NOW: &str = "2026-10-02T15:00:00Z";

fn attr<'a>(sp: &'a Span, key: &str) -> Option<&'a AV> {
    sp.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn attr_str(sp: &Span, key: &str) -> Option<String> {
    match attr(sp, key)? {
        AV::StringValue(s) => Some(s.clone()),
        other => panic!("{key} is not a string: {other:?}"),
    }
}

/// Every span of the request against `verify --format json` of the same input: one root span
/// per session, one child span per claim statement with its verdicts and findings.
fn check_against_verify_json(req: &ExportTraceServiceRequest, verify: &Value) {
    let spans: Vec<&Span> = req
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .collect();
    let sessions = verify["sessions"].as_array().unwrap();
    let claims: usize = sessions
        .iter()
        .map(|s| s["claims"].as_array().unwrap().len())
        .sum();
    assert_eq!(spans.len(), sessions.len() + claims);
    let mut at = 0;
    for s in sessions {
        let root_span = spans[at];
        at += 1;
        assert!(root_span.parent_span_id.is_empty());
        assert_eq!(root_span.trace_id.len(), 16);
        assert_eq!(root_span.span_id.len(), 8);
        assert_eq!(
            attr_str(root_span, "gen_ai.conversation.id").as_deref(),
            s["session_id"].as_str()
        );
        for c in s["claims"].as_array().unwrap() {
            let sp = spans[at];
            at += 1;
            assert_eq!(sp.trace_id, root_span.trace_id);
            assert_eq!(sp.parent_span_id, root_span.span_id);
            assert_eq!(
                attr_str(sp, "provscope.claim.id").as_deref(),
                c["claim_id"].as_str()
            );
            assert_eq!(
                attr(sp, "provscope.claim.turn"),
                Some(&AV::IntValue(c["turn"].as_i64().unwrap()))
            );
            assert_eq!(
                attr_str(sp, "provscope.quadrant").as_deref(),
                c["quadrant"].as_str()
            );
            assert_eq!(
                attr_str(sp, "provscope.source_verdict").as_deref(),
                c["source_verdict"].as_str()
            );
            assert_eq!(
                attr_str(sp, "gen_ai.tool.call.id").as_deref(),
                c["call_id"].as_str()
            );
            let kinds: Vec<&str> = c["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["kind"].as_str().unwrap())
                .collect();
            let events: Vec<String> = sp
                .events
                .iter()
                .map(|e| e.name.trim_start_matches("provscope.finding.").to_owned())
                .collect();
            assert_eq!(events, kinds, "{}", c["claim_id"]);
            let error = c["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["severity"] == "error");
            assert_eq!(sp.status.as_ref().map(|s| s.code), error.then_some(2));
        }
    }
}

fn verify_json() -> Value {
    let o = provscope(&[
        "verify",
        "--format",
        "json",
        "--now",
        NOW,
        "sample-sessions",
    ]);
    serde_json::from_slice(&o.stdout).unwrap()
}

fn otlp_file(dir: &Path) -> (std::path::PathBuf, String) {
    let file = dir.join("trace.json");
    let o = provscope(&[
        "verify",
        "--now",
        NOW,
        "--otlp",
        file.to_str().unwrap(),
        "sample-sessions",
    ]);
    assert_ne!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    (file, text)
}

#[test]
fn otlp_json_validates_against_the_otlp_protobuf_schema() {
    if !crate::peers::interop() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (file, text) = otlp_file(dir.path());
    let o = Command::new("python3")
        .arg(root().join("tests/interop/validate_otlp.py"))
        .arg(&file)
        .env("PROVSCOPE_PYDEPS", root().join(".cache/pydeps"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "OTLP/JSON rejected by the protobuf schema: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // What Python parsed is what was meant, field by field.
    let parsed: Value = serde_json::from_slice(&o.stdout).unwrap();
    let ours: ExportTraceServiceRequest = serde_json::from_str(&text).unwrap();
    let spans: Vec<&Span> = ours.resource_spans[0].scope_spans[0].spans.iter().collect();
    let py = parsed["spans"].as_array().unwrap();
    assert_eq!(py.len(), spans.len());
    for (p, s) in py.iter().zip(&spans) {
        assert_eq!(p["name"], s.name.as_str());
        assert_eq!(p["kind"], 1, "SPAN_KIND_INTERNAL");
        assert_eq!(p["start"].as_u64(), Some(s.start_time_unix_nano));
        assert_eq!(p["resource"]["service.name"], "provscope");
        assert_eq!(p["events"].as_array().unwrap().len(), s.events.len());
        for kv in &s.attributes {
            let v = &p["attributes"][kv.key.as_str()];
            match kv.value.as_ref().and_then(|v| v.value.as_ref()).unwrap() {
                AV::StringValue(x) => assert_eq!(v, x.as_str(), "{}", kv.key),
                AV::IntValue(x) => assert_eq!(v.as_i64(), Some(*x), "{}", kv.key),
                AV::DoubleValue(x) => assert_eq!(v.as_f64(), Some(*x), "{}", kv.key),
                AV::ArrayValue(a) => assert_eq!(v.as_array().unwrap().len(), a.values.len()),
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    // The GenAI / MCP attributes of a known claim (04-stale-cache, turn 1).
    let monthly = py
        .iter()
        .find(|s| s["attributes"]["provscope.claim.id"] == "clm_seat_price_monthly")
        .unwrap();
    let a = &monthly["attributes"];
    assert_eq!(a["gen_ai.tool.call.id"], "req_401");
    assert_eq!(a["gen_ai.tool.name"], "get_plan_price");
    assert_eq!(a["mcp.method.name"], "tools/call");
    assert_eq!(a["jsonrpc.request.id"], "req_401");
    assert_eq!(a["provscope.tier"], "T0");
    assert_eq!(monthly["status"], 2, "STATUS_CODE_ERROR");
    assert_eq!(
        monthly["events"][0]["attributes"]["provscope.finding.kind"],
        "stale"
    );
    check_against_verify_json(&ours, &verify_json());
}

struct Received {
    request_line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// A one-request OTLP/HTTP receiver on a loopback port: answers 200 and hands the request over.
fn receiver() -> (u16, std::thread::JoinHandle<Received>) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        let (stream, _) = l.accept().unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        let mut r = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        r.read_line(&mut request_line).unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (k, v) = line.split_once(':').unwrap();
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .map(|(_, v)| v.parse().unwrap())
            .expect("a Content-Length");
        let mut body = vec![0; len];
        r.read_exact(&mut body).unwrap();
        let mut w = stream;
        w.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .unwrap();
        Received {
            request_line: request_line.trim_end().to_owned(),
            headers,
            body,
        }
    });
    (port, h)
}

#[test]
fn otlp_http_protobuf_and_json_are_received_field_by_field() {
    use prost::Message;
    let dir = tempfile::tempdir().unwrap();
    let (_, text) = otlp_file(dir.path());
    let expected: ExportTraceServiceRequest = serde_json::from_str(&text).unwrap();
    for protocol in ["http/protobuf", "http/json"] {
        let (port, h) = receiver();
        let endpoint = format!("http://127.0.0.1:{port}");
        let o = provscope(&[
            "verify",
            "--now",
            NOW,
            "--otlp-endpoint",
            &endpoint,
            "--otlp-protocol",
            protocol,
            "--otlp-header",
            "x-api-key=s3cret",
            "sample-sessions",
        ]);
        assert_ne!(
            o.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got = h.join().unwrap();
        assert_eq!(got.request_line, "POST /v1/traces HTTP/1.1");
        let header = |k: &str| {
            got.headers
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(header("x-api-key"), Some("s3cret"));
        let req = if protocol == "http/protobuf" {
            assert_eq!(header("content-type"), Some("application/x-protobuf"));
            ExportTraceServiceRequest::decode(&got.body[..]).unwrap()
        } else {
            assert_eq!(header("content-type"), Some("application/json"));
            serde_json::from_slice(&got.body).unwrap()
        };
        // Every field equals the OTLP/JSON file's request: ids, names, times, attributes,
        // events, statuses.
        assert_eq!(req, expected, "{protocol}");
        check_against_verify_json(&req, &verify_json());
    }
}

#[test]
fn an_unreachable_collector_fails_loudly_without_credentials() {
    let o = provscope(&[
        "verify",
        "--otlp-endpoint",
        "http://user:pw@127.0.0.1:1/otlp?token=abc",
        "sample-sessions/04-stale-cache.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("collector at http://127.0.0.1:1/otlp/v1/traces"),
        "{e}"
    );
    assert!(!e.contains("pw@") && !e.contains("abc"), "{e}");
}
