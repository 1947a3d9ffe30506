//! Import throughput per format: generated inputs of 20 and 200 MB (copies of the real files in
//! tests/formats/ with ids made unique), loaded with `ingest::load_paths` on one thread (every
//! session kept, as the explorer holds them), against a typed serde_json parse of the same bytes
//! in the same run. Peak RSS of the load is reported against the input size.
//!
//! `cargo bench --bench import [-- --sizes 20,200 --formats claude-code,otlp-json]`

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
];

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/formats")
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

/// An OTLP export request line (the semconv stdio tool-call example), trace `t`.
fn otlp_line(t: u64) -> String {
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
                attr("gen_ai.conversation.id", &format!("conv-{}", t / 20)),
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
    pub struct Rpc<'a> {
        pub method: Option<String>,
        #[serde(borrow)]
        pub id: Option<&'a RawValue>,
        pub params: Option<serde_json::Value>,
        pub result: Option<serde_json::Value>,
    }
}

/// The baseline: every file parsed into the typed mirror of its format.
fn parse_only(format: &str, dir: &Path) -> usize {
    let mut n = 0;
    for f in files(dir) {
        let bytes = std::fs::read(&f).unwrap();
        n += match format {
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
    let items = match mode {
        "parse" => parse_only(format, dir),
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/import");
    println!("| format | input | typed parse MB/s | import MB/s | import/parse | import / native load | peak RSS / input | calls |");
    println!("|---|---|---|---|---|---|---|---|");
    for mb in sizes {
        let mut native: Option<f64> = None;
        for format in &formats {
            let dir = root.join(format!("{format}-{mb}mb"));
            generate(format, &dir, mb);
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
