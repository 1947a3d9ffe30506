//! Import throughput per format: generated inputs of 20 and 200 MB (copies of the real files in
//! tests/formats/ with ids made unique), loaded with `ingest::load_paths` on one thread (every
//! session kept, as the explorer holds them), against a typed serde_json parse of the same bytes
//! in the same run. Peak RSS of the load is reported against the input size.
//!
//! `--one-file` puts each format's input in ONE file of many records instead (a transcript of one
//! session, a JSON array of one conversation's responses, one trace of many observations, runs
//! one a line of one thread, ...; see [`generate_one`]): an importer slower than linear in the
//! size of one file shows up there as an MB/s that collapses from 20 to 200 MB.
//!
//! `cargo bench --bench import [-- --sizes 20,200 --formats claude-code,otlp-json] [--one-file]`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::vmhwm_kb;
use provscope::ingest::{load_paths, LoadOptions};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `provscope` is the native format (the `provscope gen` sessions of `benches/load.rs`): the
/// importers' throughput is also given as a ratio against the native loader in the same run.
const FORMATS: &[&str] = &[
    "provscope",
    "claude-code",
    "anthropic-messages",
    "openai-responses",
    "gemini",
    "otlp-json",
    "langfuse",
    "claude-desktop-log",
    "langsmith",
    "openai-chat",
    "anthropic-managed-agents",
];

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/formats")
            .join(rel),
    )
    .unwrap()
}

/// A real sample under tests/inputs/.
fn input(rel: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/inputs")
            .join(rel),
    )
    .unwrap()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn dir_bytes(dir: &Path) -> u64 {
    files(dir).iter().map(|f| f.metadata().unwrap().len()).sum()
}

/// An OTLP export request line (the semconv stdio tool-call example), trace `t`, of the
/// conversation `conv-{t / 20}`.
fn otlp_line(t: u64) -> String {
    otlp_line_of(t, t / 20)
}

/// [`otlp_line`] of trace `t` in conversation `conv-{conv}`.
fn otlp_line_of(t: u64, conv: u64) -> String {
    let attr = |k: &str, v: &str| {
        format!(
            r#"{{"key":"{k}","value":{{"stringValue":{}}}}}"#,
            serde_json::to_string(v).unwrap()
        )
    };
    let span = |id: &str, parent: &str, name: &str, kind: u8, attrs: Vec<String>| {
        format!(
            r#"{{"traceId":"{t:032x}","spanId":"{id}","parentSpanId":"{parent}","name":"{name}","kind":{kind},"startTimeUnixNano":"1759300000000000000","endTimeUnixNano":"1759300000500000000","attributes":[{}]}}"#,
            attrs.join(",")
        )
    };
    let input = serde_json::json!([{"role":"user","parts":[{"type":"text","content":format!("Weather in San Francisco, question {t}?")}]}]).to_string();
    let output = serde_json::json!([{"role":"assistant","parts":[{"type":"text","content":"Highs of 75°F and lows of 60°F in San Francisco on 2025-10-01, with fog in the morning and sun in the afternoon."}]}]).to_string();
    let tool = vec![
        attr("gen_ai.operation.name", "execute_tool"),
        attr("gen_ai.tool.name", "get-weather"),
        attr("gen_ai.tool.call.id", &format!("call_{t}")),
        attr("jsonrpc.request.id", "3"),
        attr("mcp.method.name", "tools/call"),
        attr("mcp.session.id", "8267461134f24305af708e66b8eda71a"),
        attr(
            "gen_ai.tool.call.arguments",
            r#"{"location": "San Francisco?", "date": "2025-10-01"}"#,
        ),
        attr(
            "gen_ai.tool.call.result",
            r#"{"temperature_range": {"high": 75, "low": 60}, "conditions": "fog then sun", "source": "weather.gov"}"#,
        ),
    ];
    let spans = [
        span(
            "a1",
            "",
            "invoke_agent weather",
            1,
            vec![
                attr("gen_ai.operation.name", "invoke_agent"),
                attr("gen_ai.conversation.id", &format!("conv-{conv}")),
            ],
        ),
        span(
            "a2",
            "a1",
            "chat gpt-4",
            3,
            vec![
                attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.input.messages", &input),
            ],
        ),
        span("a3", "a1", "tools/call get-weather", 3, tool.clone()),
        span("a4", "a3", "tools/call get-weather", 2, tool),
        span(
            "a5",
            "a1",
            "chat gpt-4",
            3,
            vec![
                attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.input.messages", &input),
                attr("gen_ai.output.messages", &output),
            ],
        ),
    ];
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[]}},"scopeSpans":[{{"scope":{{"name":"bench"}},"spans":[{}]}}]}}]}}"#,
        spans.join(",")
    )
}

/// Writes `mb` MB of `format` into `dir`.
fn generate(format: &str, dir: &Path, mb: u64) {
    if dir.exists() && dir_bytes(dir) >= mb * 1_000_000 {
        return;
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let target = mb * 1_000_000;
    let mut total = 0u64;
    let mut k = 0u64;
    // Formats with one document per file: copies of a real file.
    let doc = match format {
        "anthropic-messages" => Some((
            "json",
            fixture("anthropic-messages/anthropic-web-search-tool.1.json"),
        )),
        "openai-responses" => Some((
            "json",
            fixture("openai-responses/openai-web-search-tool.1.json"),
        )),
        "gemini" => Some((
            "json",
            fixture("gemini-grounding/prism-search-grounding-1.json"),
        )),
        "langfuse" => Some((
            "json",
            fixture("langfuse-trace-export/claude-agent-2025-12-22.trace.json"),
        )),
        "langsmith" => Some(("json", input("langsmith/agent-list-runs.json"))),
        "openai-chat" => Some(("jsonl", input("openai-chat/proxy-log.jsonl"))),
        "anthropic-managed-agents" => Some((
            "jsonl",
            input("anthropic-managed-agents/anthropic_managed_mcp_tools.jsonl"),
        )),
        _ => None,
    };
    if let Some((ext, text)) = doc {
        while total < target {
            let p = dir.join(format!("f-{k:06}.{ext}"));
            std::fs::write(&p, &text).unwrap();
            total += text.len() as u64;
            k += 1;
        }
        return;
    }
    match format {
        "provscope" => {
            let spec = provscope::gen::GenSpec {
                turns: 40,
                calls: 4,
                seed: 42,
                fault_rate: 0.25,
                result_bytes: 900,
                envelopes: false,
                sub_agents: false,
            };
            while total < target {
                let p = dir.join(format!("gen-{k:06}.jsonl"));
                let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
                provscope::gen::write_session(&mut w, &spec, k).unwrap();
                w.flush().unwrap();
                drop(w);
                total += p.metadata().unwrap().len();
                k += 1;
            }
        }
        "claude-code" => {
            let base = fixture("claude-code/projects/-Users-pete-tmp-claude-code-sessions/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl");
            while total < target {
                let p = dir.join(format!("s-{k:05}.jsonl"));
                let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
                for j in 0..25 {
                    let t = base.replace("toolu_", &format!("toolu_{j}_"));
                    w.write_all(t.as_bytes()).unwrap();
                    total += t.len() as u64;
                }
                k += 1;
            }
        }
        "otlp-json" => {
            let p = dir.join("traces.jsonl");
            let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
            while total < target {
                let l = otlp_line(k);
                w.write_all(l.as_bytes()).unwrap();
                w.write_all(b"\n").unwrap();
                total += l.len() as u64 + 1;
                k += 1;
            }
        }
        "claude-desktop-log" => {
            let base = fixture("claude-desktop-log/mcp-server-weather.log");
            let p = dir.join("mcp-server-weather.log");
            let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
            while total < target {
                w.write_all(base.as_bytes()).unwrap();
                total += base.len() as u64;
            }
        }
        other => panic!("unknown format {other}"),
    }
}

/// `text` with the ids that start with each of `prefixes` made those of copy `j`
/// (`toolu_` -> `toolu_{j}_`).
fn ids_of_copy(text: &str, j: u64, prefixes: &[&str]) -> String {
    let mut t = text.to_owned();
    for p in prefixes {
        t = t.replace(p, &format!("{p}{j}_"));
    }
    t
}

/// The LangSmith run lines of one thread (tests/inputs/langsmith/thread-runs.jsonl), their run
/// ids (UUIDs ending in 11 zeros and a digit) and the model's tool call ids made those of copy
/// `j`.
fn langsmith_copy(base: &str, j: u64) -> String {
    ids_of_copy(
        &base.replace("-00000000000", &format!("-{j:011x}")),
        j,
        &["call_"],
    )
}

/// Writes ONE file of `mb` MB of `format` into `dir`: many records of one session (or one
/// conversation), each a copy of a real sample's with unique ids.
fn generate_one(format: &str, dir: &Path, mb: u64) {
    if dir.exists() && dir_bytes(dir) >= mb * 1_000_000 {
        return;
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let target = mb * 1_000_000;
    let ext = match format {
        "anthropic-messages" | "openai-responses" | "gemini" | "langfuse" => "json",
        "claude-desktop-log" => "log",
        _ => "jsonl",
    };
    let p = dir.join(format!("one.{ext}"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    let mut total = 0u64;
    let mut put = |w: &mut std::io::BufWriter<std::fs::File>, t: &str| {
        w.write_all(t.as_bytes()).unwrap();
        total += t.len() as u64;
        total
    };
    // A JSON array of one conversation's responses, each a copy with its ids made unique.
    let mut array = |w: &mut std::io::BufWriter<std::fs::File>, base: String, ids: &[&str]| {
        put(w, "[");
        let mut j = 0;
        while put(w, &ids_of_copy(&base, j, ids)) < target {
            put(w, ",\n");
            j += 1;
        }
        put(w, "]\n");
    };
    match format {
        "provscope" => {
            // One session of as many turns as the size asks (a 40-turn session measured first).
            let mut spec = common::load_spec(0.25);
            let mut probe = Vec::new();
            provscope::gen::write_session(&mut probe, &spec, 0).unwrap();
            spec.turns = u32::try_from(target * 40 / probe.len() as u64 + 1).unwrap();
            provscope::gen::write_session(&mut w, &spec, 0).unwrap();
        }
        "claude-code" => {
            let base = fixture("claude-code/projects/-Users-pete-tmp-claude-code-sessions/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl");
            let ids = ["toolu_", "\"uuid\":\"", "\"parentUuid\":\"", "msg_"];
            let mut j = 0;
            while put(&mut w, &ids_of_copy(&base, j, &ids)) < target {
                j += 1;
            }
        }
        "anthropic-messages" => array(
            &mut w,
            fixture("anthropic-messages/anthropic-web-search-tool.1.json"),
            &["toolu_", "msg_"],
        ),
        "openai-responses" => array(
            &mut w,
            fixture("openai-responses/openai-web-search-tool.1.json"),
            &["\"ws_", "\"msg_", "\"resp_", "\"rs_"],
        ),
        "gemini" => array(
            &mut w,
            fixture("gemini-grounding/prism-search-grounding-1.json"),
            &[],
        ),
        "langfuse" => {
            // One trace of many observations.
            let base: serde_json::Value = serde_json::from_str(&fixture(
                "langfuse-trace-export/claude-agent-2025-12-22.trace.json",
            ))
            .unwrap();
            let obs = base["observations"].as_array().unwrap();
            let per_copy = serde_json::to_string(obs).unwrap().len() as u64;
            let mut all = Vec::new();
            for j in 0..target / per_copy + 1 {
                for o in obs {
                    // The model's tool call ids too (a call id repeated in one trace is
                    // skipped as a duplicate).
                    let text = serde_json::to_string(o).unwrap();
                    let mut o: serde_json::Value =
                        serde_json::from_str(&ids_of_copy(&text, j, &["toolu_", "call_"])).unwrap();
                    for k in ["id", "parentObservationId"] {
                        if let Some(id) = o[k].as_str() {
                            o[k] = format!("{id}-{j}").into();
                        }
                    }
                    all.push(o);
                }
            }
            let mut doc = base.clone();
            doc["observations"] = all.into();
            put(&mut w, &serde_json::to_string(&doc).unwrap());
        }
        "otlp-json" => {
            // One conversation of many traces, one export request a line.
            let mut t = 0;
            while put(&mut w, &(otlp_line_of(t, 0) + "\n")) < target {
                t += 1;
            }
        }
        "claude-desktop-log" => {
            let base = fixture("claude-desktop-log/mcp-server-weather.log");
            while put(&mut w, &base) < target {}
        }
        "langsmith" => {
            // Runs one a line, of one thread (`thread-42`): one session of many traces.
            let base = input("langsmith/thread-runs.jsonl");
            let mut j = 0;
            while put(&mut w, &langsmith_copy(&base, j)) < target {
                j += 1;
            }
        }
        "openai-chat" => {
            let base = input("openai-chat/proxy-log.jsonl");
            let mut j = 0;
            while put(&mut w, &ids_of_copy(&base, j, &["call_", "chatcmpl-"])) < target {
                j += 1;
            }
        }
        "anthropic-managed-agents" => {
            // The recorded calls of one session: its events, each copy's with unique ids.
            let base = input("anthropic-managed-agents/anthropic_managed_mcp_tools.jsonl");
            let (create, events) = base.split_once('\n').unwrap();
            put(&mut w, &format!("{create}\n"));
            let mut j = 0;
            while put(&mut w, &ids_of_copy(events, j, &["sevt_", "toolu_"])) < target {
                j += 1;
            }
        }
        other => panic!("unknown format {other}"),
    }
    w.flush().unwrap();
}

// Typed mirrors of each format, for the baseline: the same bytes parsed into structs.
mod typed {
    use super::*;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Block {
        #[serde(rename = "type")]
        pub kind: String,
        pub text: Option<String>,
        pub id: Option<String>,
        pub name: Option<String>,
        pub input: Option<serde_json::Value>,
        pub content: Option<serde_json::Value>,
        pub tool_use_id: Option<String>,
        pub citations: Option<Vec<serde_json::Value>>,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    pub enum Content {
        Text(String),
        Blocks(Vec<Block>),
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Msg {
        pub role: Option<String>,
        pub model: Option<String>,
        pub id: Option<String>,
        pub content: Option<Content>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct CcLine {
        #[serde(rename = "type")]
        pub kind: Option<String>,
        pub uuid: Option<String>,
        #[serde(rename = "sessionId")]
        pub session_id: Option<String>,
        pub timestamp: Option<String>,
        pub message: Option<Msg>,
        #[serde(rename = "toolUseResult")]
        pub tool_use_result: Option<serde_json::Value>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct AnthropicResp {
        pub id: String,
        pub model: String,
        pub content: Vec<Block>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct OpenAiResp {
        pub id: String,
        pub created_at: f64,
        pub output: Vec<serde_json::Value>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct GeminiResp {
        pub candidates: Vec<serde_json::Value>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Langfuse {
        pub trace: serde_json::Value,
        pub observations: Vec<serde_json::Value>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Kv {
        pub key: String,
        pub value: serde_json::Value,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct OSpan {
        #[serde(rename = "traceId")]
        pub trace_id: String,
        #[serde(rename = "spanId")]
        pub span_id: String,
        pub name: String,
        pub attributes: Vec<Kv>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Scope {
        pub spans: Vec<OSpan>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Res {
        #[serde(rename = "scopeSpans")]
        pub scope_spans: Vec<Scope>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Export {
        #[serde(rename = "resourceSpans")]
        pub resource_spans: Vec<Res>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct LsRun {
        pub id: String,
        pub name: String,
        pub run_type: String,
        pub start_time: Option<String>,
        pub end_time: Option<String>,
        pub inputs: Option<serde_json::Value>,
        pub outputs: Option<serde_json::Value>,
        pub error: Option<serde_json::Value>,
        pub extra: Option<serde_json::Value>,
        pub parent_run_id: Option<String>,
        pub trace_id: Option<String>,
        pub dotted_order: Option<String>,
        pub child_runs: Option<Vec<LsRun>>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct ChatMsg {
        pub role: String,
        pub content: Option<serde_json::Value>,
        pub tool_calls: Option<Vec<serde_json::Value>>,
        pub tool_call_id: Option<String>,
        pub annotations: Option<Vec<serde_json::Value>>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct ChatRequest {
        pub model: String,
        pub messages: Vec<ChatMsg>,
        pub tools: Option<Vec<serde_json::Value>>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct ChatChoice {
        pub index: u32,
        pub message: ChatMsg,
        pub finish_reason: Option<String>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct ChatResponse {
        pub id: String,
        pub model: String,
        pub created: u64,
        pub choices: Vec<ChatChoice>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct ChatRecord {
        pub timestamp: Option<String>,
        pub request: ChatRequest,
        pub response: ChatResponse,
    }
    /// An event of the sessions API (or another payload of a recorded SDK call).
    #[derive(Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    pub enum MaPayload {
        Event {
            id: String,
            #[serde(rename = "type")]
            kind: String,
            processed_at: Option<String>,
            content: Option<Vec<Block>>,
            name: Option<String>,
            input: Option<serde_json::Value>,
            mcp_tool_use_id: Option<String>,
            is_error: Option<bool>,
        },
        Other(serde_json::Value),
    }
    /// A recorded SDK call, `[method, payload]`.
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct MaLine(pub String, pub MaPayload);
    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Rpc<'a> {
        pub method: Option<String>,
        #[serde(borrow)]
        pub id: Option<&'a RawValue>,
        pub params: Option<serde_json::Value>,
        pub result: Option<serde_json::Value>,
    }
}

/// The typed records of JSON lines, one of each non-blank line that parses.
fn typed_lines<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> usize {
    bytes
        .split(|&c| c == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .filter(|l| serde_json::from_slice::<T>(l).is_ok())
        .count()
}

/// The typed elements of a JSON array (0 when it does not parse).
fn typed_array<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> usize {
    serde_json::from_slice::<Vec<T>>(bytes).map_or(0, |v| v.len())
}

/// The baseline: every file parsed into the typed mirror of its format (`one`: the
/// [`generate_one`] shape of it).
fn parse_only(format: &str, dir: &Path, one: bool) -> usize {
    let mut n = 0;
    for f in files(dir) {
        let bytes = std::fs::read(&f).unwrap();
        n += match format {
            "anthropic-messages" if one => typed_array::<typed::AnthropicResp>(&bytes),
            "openai-responses" if one => typed_array::<typed::OpenAiResp>(&bytes),
            "gemini" if one => typed_array::<typed::GeminiResp>(&bytes),
            "langsmith" if one => typed_lines::<typed::LsRun>(&bytes),
            "langsmith" => typed_array::<typed::LsRun>(&bytes),
            "openai-chat" => typed_lines::<typed::ChatRecord>(&bytes),
            "anthropic-managed-agents" => typed_lines::<typed::MaLine>(&bytes),
            // As benches/load.rs: each line into the typed events, each stamp parsed.
            "provscope" => bytes
                .split(|&c| c == b'\n')
                .filter_map(|l| serde_json::from_slice::<provscope::model::Event>(l).ok())
                .map(|ev| match &ev {
                    provscope::model::Event::Answer(a) => {
                        1 + a
                            .claims
                            .iter()
                            .filter(|c| {
                                serde_json::from_str::<provscope::model::Stamp>(c.get()).is_ok()
                            })
                            .count()
                    }
                    _ => 1,
                })
                .sum(),
            "claude-code" => bytes
                .split(|&c| c == b'\n')
                .filter(|l| !l.is_empty())
                .filter(|l| serde_json::from_slice::<typed::CcLine>(l).is_ok())
                .count(),
            "anthropic-messages" => {
                serde_json::from_slice::<typed::AnthropicResp>(&bytes).is_ok() as usize
            }
            "openai-responses" => {
                serde_json::from_slice::<typed::OpenAiResp>(&bytes).is_ok() as usize
            }
            "gemini" => serde_json::from_slice::<typed::GeminiResp>(&bytes).is_ok() as usize,
            "langfuse" => serde_json::from_slice::<typed::Langfuse>(&bytes).is_ok() as usize,
            "otlp-json" => bytes
                .split(|&c| c == b'\n')
                .filter(|l| !l.is_empty())
                .filter(|l| serde_json::from_slice::<typed::Export>(l).is_ok())
                .count(),
            "claude-desktop-log" => bytes
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| {
                    let i = l.find(": {")?;
                    let mut it =
                        serde_json::Deserializer::from_str(&l[i + 2..]).into_iter::<typed::Rpc>();
                    it.next()?.ok().map(|_| 1)
                })
                .count(),
            other => panic!("unknown format {other}"),
        };
    }
    n
}

fn child(mode: &str, format: &str, dir: &Path) {
    let t = Instant::now();
    // A one-file directory holds `one.*` (see `generate_one`).
    let one = files(dir)
        .first()
        .is_some_and(|f| f.file_stem().is_some_and(|s| s == "one"));
    let items = match mode {
        "parse" => parse_only(format, dir, one),
        "import" => {
            let l = load_paths(&[dir.to_path_buf()], &LoadOptions::default(), 1);
            assert!(l.sessions.iter().all(|s| s.format() == format), "{format}");
            l.sessions.iter().map(|s| s.calls.len()).sum()
        }
        _ => panic!("unknown mode {mode}"),
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{{\"secs\":{secs},\"items\":{items},\"vmhwm_kb\":{}}}",
        vmhwm_kb()
    );
}

fn run_child(mode: &str, format: &str, dir: &Path, runs: usize) -> serde_json::Value {
    let args = [
        Path::new("--child"),
        Path::new(mode),
        Path::new(format),
        dir,
    ];
    common::best_child(args, runs)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], &args[i + 2], Path::new(&args[i + 3]));
        return;
    }
    let list = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args[i + 1].clone())
    };
    let sizes: Vec<u64> = list("--sizes").map_or_else(
        || vec![20, 200],
        |s| s.split(',').map(|x| x.parse().unwrap()).collect(),
    );
    let formats: Vec<String> = list("--formats").map_or_else(
        || FORMATS.iter().map(|s| s.to_string()).collect(),
        |s| s.split(',').map(str::to_owned).collect(),
    );
    let one = args.iter().any(|a| a == "--one-file");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/import");
    if one {
        println!("One file of many records per format (`--one-file`):\n");
    }
    println!("| format | input | typed parse MB/s | import MB/s | import/parse | import / native load | peak RSS / input | calls |");
    println!("|---|---|---|---|---|---|---|---|");
    for mb in sizes {
        let mut native: Option<f64> = None;
        for format in &formats {
            let dir = if one {
                let dir = root.join(format!("{format}-one-{mb}mb"));
                generate_one(format, &dir, mb);
                dir
            } else {
                let dir = root.join(format!("{format}-{mb}mb"));
                generate(format, &dir, mb);
                dir
            };
            let bytes = dir_bytes(&dir) as f64;
            let runs = if mb >= 100 { 2 } else { 3 };
            let p = run_child("parse", format, &dir, runs);
            let l = run_child("import", format, &dir, runs);
            let secs = |x: &serde_json::Value| x["secs"].as_f64().unwrap();
            let mbs = |x: &serde_json::Value| bytes / 1e6 / secs(x);
            if format == "provscope" {
                native = Some(mbs(&l));
            }
            println!(
                "| {format} | {:.0} MB | {:.0} | {:.0} | {:.0}% | {} | {:.2}x | {} |",
                bytes / 1e6,
                mbs(&p),
                mbs(&l),
                100.0 * mbs(&l) / mbs(&p),
                native.map_or("-".to_owned(), |n| format!("{:.0}%", 100.0 * mbs(&l) / n)),
                l["vmhwm_kb"].as_f64().unwrap() * 1024.0 / bytes,
                l["items"]
            );
        }
    }
}
