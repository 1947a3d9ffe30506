//! OTLP/JSON traces. No public OTLP export with GenAI spans exists, so the export requests are
//! built here from the attribute values of the OpenTelemetry semantic conventions' worked
//! examples (docs/gen-ai/mcp.md "Tool call" over stdio; docs/gen-ai/non-normative/
//! examples-llm-calls.md "Tool calls (functions)"; commit 953276ff, Apache-2.0).

use provscope::ingest::{load_any_bytes, load_file_sessions, LoadOptions};
use provscope::model::{DiagLevel, Session};
use serde_json::{json, Value};

fn attr(k: &str, v: Value) -> Value {
    let value = match v {
        Value::String(s) => json!({"stringValue": s}),
        Value::Number(n) => json!({"intValue": n.to_string()}),
        other => json!({"stringValue": other.to_string()}),
    };
    json!({"key": k, "value": value})
}

fn span(
    trace: &str,
    id: &str,
    parent: Option<&str>,
    name: &str,
    kind: u8,
    t: u64,
    attrs: Vec<Value>,
) -> Value {
    json!({
        "traceId": trace, "spanId": id, "parentSpanId": parent.unwrap_or(""), "name": name,
        "kind": kind, "startTimeUnixNano": (1_759_300_000_000_000_000u64 + t * 1_000_000_000).to_string(),
        "endTimeUnixNano": (1_759_300_000_500_000_000u64 + t * 1_000_000_000).to_string(),
        "attributes": attrs
    })
}

fn export(spans: Vec<Value>) -> Value {
    json!({"resourceSpans":[{"resource":{"attributes":[attr("service.name", json!("weather-agent"))]},
        "scopeSpans":[{"scope":{"name":"test"},"spans": spans}]}]})
}

fn mcp_tool_attrs(with_content: bool) -> Vec<Value> {
    let mut a = vec![
        attr("gen_ai.operation.name", json!("execute_tool")),
        attr("gen_ai.tool.name", json!("get-weather")),
        attr("jsonrpc.request.id", json!("3")),
        attr("mcp.method.name", json!("tools/call")),
        attr("mcp.session.id", json!("8267461134f24305af708e66b8eda71a")),
        attr("mcp.protocol.version", json!("2025-06-18")),
        attr("network.transport", json!("pipe")),
    ];
    if with_content {
        a.push(attr(
            "gen_ai.tool.call.arguments",
            json!("{\"location\": \"San Francisco?\", \"date\": \"2025-10-01\"}"),
        ));
        a.push(attr(
            "gen_ai.tool.call.result",
            json!("{\"temperature_range\": {\"high\": 75, \"low\": 60}}"),
        ));
    }
    a
}

/// The stdio tool-call example: agent span, two chat spans, the MCP client span and its server
/// span (the same call), with the chat content of the functions example.
pub fn stdio_example(trace: &str, conversation: Option<&str>, with_content: bool) -> Value {
    let mut agent = vec![
        attr("gen_ai.operation.name", json!("invoke_agent")),
        attr("gen_ai.agent.name", json!("weather-forecast-agent")),
    ];
    if let Some(c) = conversation {
        agent.push(attr("gen_ai.conversation.id", json!(c)));
    }
    let chat1 = vec![
        attr("gen_ai.operation.name", json!("chat")),
        attr("gen_ai.request.model", json!("gpt-4")),
        attr("gen_ai.input.messages", json!(json!([{"role":"user","parts":[{"type":"text","content":"Weather in San Francisco?"}]}]).to_string())),
        attr("gen_ai.output.messages", json!(json!([{"role":"assistant","parts":[{"type":"tool_call","id":"call_VSPygqKTWdrhaFErNvMV18Yl","name":"get-weather","arguments":{"location":"San Francisco?","date":"2025-10-01"}}],"finish_reason":"tool_call"}]).to_string())),
    ];
    let chat2 = vec![
        attr("gen_ai.operation.name", json!("chat")),
        attr("gen_ai.input.messages", json!(json!([
            {"role":"user","parts":[{"type":"text","content":"Weather in San Francisco?"}]},
            {"role":"assistant","parts":[{"type":"tool_call","id":"call_VSPygqKTWdrhaFErNvMV18Yl","name":"get-weather","arguments":{"location":"San Francisco?"}}]},
            {"role":"tool","parts":[{"type":"tool_call_response","id":"call_VSPygqKTWdrhaFErNvMV18Yl","response":"{\"temperature_range\": {\"high\": 75, \"low\": 60}}"}]}
        ]).to_string())),
        attr("gen_ai.output.messages", json!(json!([{"role":"assistant","parts":[{"type":"text","content":"Highs of 75°F and lows of 60°F in San Francisco on 2025-10-01."}],"finish_reason":"stop"}]).to_string())),
    ];
    export(vec![
        span(
            trace,
            "s1",
            None,
            "invoke_agent weather-forecast-agent",
            1,
            0,
            agent,
        ),
        span(trace, "s2", Some("s1"), "chat gpt-4", 3, 1, chat1),
        span(
            trace,
            "s3",
            Some("s1"),
            "tools/call get-weather",
            3,
            2,
            mcp_tool_attrs(with_content),
        ),
        span(
            trace,
            "s4",
            Some("s3"),
            "tools/call get-weather",
            2,
            2,
            mcp_tool_attrs(with_content),
        ),
        span(trace, "s5", Some("s1"), "chat gpt-4", 3, 3, chat2),
    ])
}

fn load_json(v: &Value) -> Vec<Session> {
    load_any_bytes(
        "trace",
        "trace.json",
        v.to_string().as_bytes(),
        &LoadOptions::default(),
    )
}

#[test]
fn client_and_server_spans_of_one_mcp_call_are_one_call() {
    let s = load_json(&stdio_example("t1", None, true)).remove(0);
    assert_eq!(s.format(), "otlp-json");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(
        s.calls.len(),
        1,
        "not the server span, not the chat history's tool_call"
    );
    let c = &s.calls[0];
    // The MCP span records no gen_ai.tool.call.id: it takes the id of the model's tool call of
    // the same tool, so the chat history and the span name one call.
    assert_eq!(c.id, "call_VSPygqKTWdrhaFErNvMV18Yl");
    assert_eq!(c.tool(), "get-weather");
    let args: Value =
        serde_json::from_str(c.request.params.arguments.as_ref().unwrap().get()).unwrap();
    assert_eq!(args["location"], "San Francisco?");
    assert!(s
        .result(&c.id)
        .unwrap()
        .block_text(0)
        .unwrap()
        .contains("\"high\": 75"));
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.turns[0].user, "Weather in San Francisco?");
    assert_eq!(
        s.answers[0].text,
        "Highs of 75°F and lows of 60°F in San Francisco on 2025-10-01."
    );
    assert_eq!(
        s.claim_count(),
        0,
        "no citations in GenAI messages: no stamps"
    );
    assert_eq!(
        s.header.as_ref().unwrap().agent.as_deref(),
        Some("weather-forecast-agent")
    );
}

#[test]
fn content_capture_off_gives_a_diagnostic_not_a_fake_hash() {
    let s = load_json(&stdio_example("t1", None, false)).remove(0);
    assert_eq!(s.calls.len(), 1);
    assert!(s.calls[0].request.params.arguments.is_none());
    assert_eq!(s.results[0].tag.arguments_hash, "");
    assert!(
        s.diagnostics
            .iter()
            .any(|d| d.level == DiagLevel::Warning
                && d.message.contains("without recorded arguments")),
        "{:?}",
        s.diagnostics
    );
}

#[test]
fn collector_file_export_one_request_per_line_grouped_by_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        stdio_example("aaaa", Some("conv-1"), true).to_string(),
        stdio_example("bbbb", Some("conv-1"), true).to_string(),
        stdio_example("cccc", Some("conv-2"), true).to_string(),
    ];
    let p = dir.path().join("traces.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let v = load_file_sessions(&p, &LoadOptions::default());
    assert_eq!(v.len(), 2, "one session per gen_ai.conversation.id");
    assert_eq!(v[0].id(), "conv-1");
    assert_eq!(v[0].name, "traces#conv-1");
    // Both traces of conv-1 repeat the same question and call id: one turn, one call.
    assert_eq!((v[0].turns.len(), v[0].calls.len()), (1, 1));
    assert_eq!(v[1].id(), "conv-2");
    assert_eq!(v[1].calls.len(), 1);
    assert_eq!(
        v.iter().map(|s| s.bytes).sum::<u64>(),
        std::fs::metadata(&p).unwrap().len()
    );
}

#[test]
fn chat_history_only_traces_count_calls_once_and_trim_ids() {
    // No tool spans: the output's tool_call is the call, its response comes from the next chat
    // span's input history (written with `result`, as older semconv examples did, and an id
    // with a leading space).
    let chat1 = vec![
        attr("gen_ai.operation.name", json!("chat")),
        attr("gen_ai.input.messages", json!(json!([{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]).to_string())),
        attr("gen_ai.output.messages", json!(json!([{"role":"assistant","parts":[{"type":"tool_call","id":" call_VSPygqKTWdrhaFErNvMV18Yl","name":"get_weather","arguments":{"location":"Paris"}}]}]).to_string())),
    ];
    let history = json!([
        {"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},
        {"role":"assistant","parts":[{"type":"tool_call","id":"call_VSPygqKTWdrhaFErNvMV18Yl","name":"get_weather","arguments":{"location":"Paris"}}]},
        {"role":"tool","parts":[{"type":"tool_call_response","id":" call_VSPygqKTWdrhaFErNvMV18Yl","result":"rainy, 57°F"}]}
    ]);
    let chat2 = vec![
        attr("gen_ai.operation.name", json!("chat")),
        attr("gen_ai.input.messages", json!(history.to_string())),
        attr("gen_ai.output.messages", json!(json!([{"role":"assistant","parts":[{"type":"text","content":"The weather in Paris is currently rainy with a temperature of 57°F."}]}]).to_string())),
    ];
    let doc = export(vec![
        span("t9", "c1", None, "chat gpt-4", 3, 0, chat1),
        span("t9", "c2", None, "chat gpt-4", 3, 2, chat2),
    ]);
    let s = load_json(&doc).remove(0);
    assert_eq!(s.calls.len(), 1);
    assert_eq!(s.calls[0].id, "call_VSPygqKTWdrhaFErNvMV18Yl");
    assert_eq!(
        s.result("call_VSPygqKTWdrhaFErNvMV18Yl")
            .unwrap()
            .block_text(0),
        Some("rainy, 57°F")
    );
    assert_eq!(
        s.turns.len(),
        1,
        "the repeated user message is not a new turn"
    );
}

#[test]
fn a_malformed_span_costs_only_itself() {
    let mut doc = stdio_example("t1", None, true);
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1] = json!({"spanId": 7, "attributes": "x"});
    let s = load_json(&doc).remove(0);
    assert_eq!(s.calls.len(), 1);
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.level == DiagLevel::Error)
        .expect("an error for the bad span");
    assert_eq!(d.path, "$.resourceSpans[0].scopeSpans[0].spans[1]");
}

#[test]
fn a_damaged_first_line_of_a_collector_file_costs_only_itself() {
    // Read from disk: the first request is cut off in the middle, so the file is neither one
    // document nor a clean first line. 2 good lines: the file is read whole with its detection
    // head; 40: it is over the 64 KiB head and streamed.
    for good in [2usize, 40] {
        let dir = tempfile::tempdir().unwrap();
        let first = stdio_example("aaaa", Some("conv-x"), true).to_string();
        let mut lines = vec![first[..first.len() / 2].to_owned()];
        for i in 0..good {
            let (t, c) = (format!("t{i:03}"), format!("conv-{i}"));
            lines.push(stdio_example(&t, Some(&c), true).to_string());
        }
        let p = dir.path().join("traces.jsonl");
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        let len = std::fs::metadata(&p).unwrap().len();
        assert_eq!(len > 64 * 1024, good == 40, "{len} bytes");
        let v = load_file_sessions(&p, &LoadOptions::default());
        assert_eq!(v.len(), good);
        assert!(v.iter().all(|s| s.format() == "otlp-json"));
        assert_eq!(v.iter().map(|s| s.calls.len()).sum::<usize>(), good);
        let errors: Vec<_> = v
            .iter()
            .flat_map(|s| &s.diagnostics)
            .filter(|d| d.level == DiagLevel::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].line, 1);
        assert!(
            errors[0].message.contains("not an OTLP export request"),
            "{}",
            errors[0].message
        );
    }
}

#[test]
fn a_pretty_printed_document_on_disk_loads_and_a_broken_one_is_named() {
    // One trace (read whole with the detection head), and 30 traces in one document (streamed:
    // tried as lines, then read as one document).
    for traces in [1usize, 30] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("trace.json");
        let mut doc = stdio_example("t0", Some("conv-0"), true);
        for i in 1..traces {
            let more = stdio_example(&format!("t{i}"), Some(&format!("conv-{i}")), true);
            let spans = more["resourceSpans"][0]["scopeSpans"][0]["spans"].clone();
            doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
                .as_array_mut()
                .unwrap()
                .extend(spans.as_array().unwrap().iter().cloned());
        }
        let text = serde_json::to_string_pretty(&doc).unwrap();
        assert_eq!(text.len() > 64 * 1024, traces == 30, "{} bytes", text.len());
        std::fs::write(&p, &text).unwrap();
        let v = load_file_sessions(&p, &LoadOptions::default());
        assert_eq!(v.len(), traces);
        assert_eq!(v.iter().map(|s| s.calls.len()).sum::<usize>(), traces);
        assert!(v
            .iter()
            .flat_map(|s| &s.diagnostics)
            .all(|d| d.level != DiagLevel::Error));
        // Cut inside the document: one error with the line and column where it broke.
        std::fs::write(&p, &text[..text.len() * 2 / 3]).unwrap();
        let v = load_file_sessions(&p, &LoadOptions::default());
        let errors: Vec<_> = v
            .iter()
            .flat_map(|s| &s.diagnostics)
            .filter(|d| d.level == DiagLevel::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].line > 1, "{:?}", errors[0]);
        assert!(
            errors[0].message.contains("not an OTLP/JSON export"),
            "{}",
            errors[0].message
        );
    }
}

#[test]
fn bare_attribute_values_are_read_as_plain_json() {
    // Some emitters write `"value": "..."` instead of an AnyValue object: kept, not fatal.
    let mut doc = stdio_example("t1", None, true);
    for sp in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array_mut()
        .unwrap()
    {
        for a in sp["attributes"].as_array_mut().unwrap() {
            if let Some(s) = a["value"]["stringValue"].as_str() {
                a["value"] = json!(s);
            }
        }
    }
    let s = load_json(&doc).remove(0);
    assert!(
        s.diagnostics.iter().all(|d| d.level != DiagLevel::Error),
        "{:?}",
        s.diagnostics
    );
    assert_eq!(s.calls.len(), 1);
    assert_eq!(s.calls[0].request.params.name, "get-weather");
}

/// OpenLLMetry (traceloop/openllmetry) writes a chat span's messages one attribute a value,
/// by index (`gen_ai.prompt.0.role`, `gen_ai.completion.0.tool_calls.0.arguments`), and a
/// tool span as `traceloop.span.kind: tool` with `traceloop.entity.input`/`output` (its
/// decorator's `{"args": [], "kwargs": {...}}`). Built from the attribute names of
/// opentelemetry-semantic-conventions-ai (Apache-2.0); the values are made up.
#[test]
fn openllmetry_indexed_messages_and_tool_spans_are_read() {
    let chat1 = vec![
        attr("llm.request.type", json!("chat")),
        attr("gen_ai.system", json!("openai")),
        attr("gen_ai.prompt.0.role", json!("user")),
        attr("gen_ai.prompt.0.content", json!("Weather in Paris?")),
        attr("gen_ai.completion.0.role", json!("assistant")),
        attr("gen_ai.completion.0.finish_reason", json!("tool_calls")),
        attr("gen_ai.completion.0.tool_calls.0.id", json!("call_1")),
        attr(
            "gen_ai.completion.0.tool_calls.0.name",
            json!("get_weather"),
        ),
        attr(
            "gen_ai.completion.0.tool_calls.0.arguments",
            json!("{\"location\": \"Paris\"}"),
        ),
    ];
    let tool = vec![
        attr("traceloop.span.kind", json!("tool")),
        attr("traceloop.entity.name", json!("get_weather")),
        attr(
            "traceloop.entity.input",
            json!("{\"args\": [], \"kwargs\": {\"location\": \"Paris\"}}"),
        ),
        attr("traceloop.entity.output", json!("rainy, 57°F")),
    ];
    let chat2 = vec![
        attr("llm.request.type", json!("chat")),
        attr("gen_ai.prompt.0.role", json!("user")),
        attr("gen_ai.prompt.0.content", json!("Weather in Paris?")),
        attr("gen_ai.prompt.1.role", json!("assistant")),
        attr("gen_ai.prompt.1.tool_calls.0.id", json!("call_1")),
        attr("gen_ai.prompt.1.tool_calls.0.name", json!("get_weather")),
        attr("gen_ai.prompt.2.role", json!("tool")),
        attr("gen_ai.prompt.2.tool_call_id", json!("call_1")),
        attr("gen_ai.prompt.2.content", json!("rainy, 57°F")),
        attr("gen_ai.completion.0.role", json!("assistant")),
        attr(
            "gen_ai.completion.0.content",
            json!("It is rainy in Paris, 57°F."),
        ),
    ];
    let doc = export(vec![
        span(
            "t20",
            "w1",
            None,
            "weather.workflow",
            1,
            0,
            vec![attr("traceloop.span.kind", json!("workflow"))],
        ),
        span("t20", "c1", Some("w1"), "openai.chat", 3, 1, chat1),
        span("t20", "k1", Some("w1"), "get_weather.tool", 1, 2, tool),
        span("t20", "c2", Some("w1"), "openai.chat", 3, 3, chat2),
    ]);
    let s = load_json(&doc).remove(0);
    assert_eq!(s.calls.len(), 1, "{:?}", s.calls);
    let call = &s.calls[0];
    assert_eq!(call.id, "call_1");
    assert_eq!(call.request.params.name, "get_weather");
    let tag = &s.results[0].tag;
    // The hash of the keyword arguments, as the model requested them.
    assert_eq!(
        tag.arguments_hash,
        provscope::attest::hash::arguments_hash(Some(
            &serde_json::value::to_raw_value(&json!({"location": "Paris"})).unwrap()
        ))
        .unwrap()
    );
    assert_eq!(
        s.result("call_1").unwrap().block_text(0),
        Some("rainy, 57°F")
    );
    assert_eq!(s.turns.len(), 1);
    assert_eq!(
        s.answer(s.turns[0].index).map(|a| a.text.as_str()),
        Some("It is rainy in Paris, 57°F.")
    );
}

/// OpenInference (Arize Phoenix's instrumentations) writes messages as
/// `llm.output_messages.0.message.tool_calls.0.tool_call.function.name` and parts as
/// `message.contents.0.message_content.text`; a TOOL span carries `tool.name`, `input.value`,
/// `output.value`. Attribute names as in the Langfuse exports of tests/formats/ (google-adk,
/// openai-agents); the values are made up.
#[test]
fn openinference_indexed_messages_are_read() {
    let oi = |k: &str| attr("openinference.span.kind", json!(k));
    let llm1 = vec![
        oi("LLM"),
        attr("llm.input_messages.0.message.role", json!("user")),
        attr(
            "llm.input_messages.0.message.content",
            json!("Weather in Oslo?"),
        ),
        attr("llm.output_messages.0.message.role", json!("assistant")),
        attr(
            "llm.output_messages.0.message.tool_calls.0.tool_call.id",
            json!("call_7"),
        ),
        attr(
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
            json!("get_weather"),
        ),
        attr(
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments",
            json!("{\"city\": \"Oslo\"}"),
        ),
    ];
    let tool = vec![
        oi("TOOL"),
        attr("tool.name", json!("get_weather")),
        attr("input.value", json!("{\"city\": \"Oslo\"}")),
        attr("output.value", json!("snow, -3°C")),
    ];
    let llm2 = vec![
        oi("LLM"),
        attr("llm.input_messages.0.message.role", json!("user")),
        attr(
            "llm.input_messages.0.message.content",
            json!("Weather in Oslo?"),
        ),
        attr("llm.output_messages.0.message.role", json!("assistant")),
        attr(
            "llm.output_messages.0.message.contents.0.message_content.type",
            json!("text"),
        ),
        attr(
            "llm.output_messages.0.message.contents.0.message_content.text",
            json!("Snow in Oslo, -3°C."),
        ),
    ];
    let doc = export(vec![
        span("t21", "l1", None, "ChatCompletion", 3, 0, llm1),
        span("t21", "k1", None, "get_weather", 1, 1, tool),
        span("t21", "l2", None, "ChatCompletion", 3, 2, llm2),
    ]);
    let s = load_json(&doc).remove(0);
    assert_eq!(s.calls.len(), 1, "{:?}", s.calls);
    assert_eq!(s.calls[0].id, "call_7");
    assert_eq!(
        s.result("call_7").unwrap().block_text(0),
        Some("snow, -3°C")
    );
    assert_eq!(
        s.answer(s.turns[0].index).map(|a| a.text.as_str()),
        Some("Snow in Oslo, -3°C.")
    );
}

/// Indexed keys of hostile shapes (an index past `u32`, hundreds of parts, empty parts, a value
/// where an object was) cost only themselves.
#[test]
fn hostile_indexed_keys_cost_only_themselves() {
    let deep = format!("gen_ai.completion.0{}", ".a".repeat(500));
    let chat = vec![
        attr("gen_ai.prompt.0.role", json!("user")),
        attr("gen_ai.prompt.0.content", json!("Hi?")),
        attr(
            "gen_ai.completion.99999999999999999999.content",
            json!("lost"),
        ),
        attr(&deep, json!("deep")),
        attr("gen_ai.completion.0..content", json!("empty part")),
        attr("gen_ai.completion.0.content", json!("Hello.")),
        attr("gen_ai.completion.0.content.x", json!("under a string")),
        attr("gen_ai.completion.0.role", json!("assistant")),
    ];
    let doc = export(vec![span("t22", "c1", None, "openai.chat", 3, 0, chat)]);
    let s = load_json(&doc).remove(0);
    assert_eq!(
        s.answer(s.turns[0].index).map(|a| a.text.as_str()),
        Some("Hello.")
    );
}

/// Indexed messages recorded on a span's events (instrumentations that log content as events)
/// count as the span's own, merged with those on the span.
#[test]
fn indexed_messages_on_span_events_are_the_spans() {
    let mut chat = span(
        "t23",
        "c1",
        None,
        "openai.chat",
        3,
        0,
        vec![
            attr("gen_ai.prompt.0.role", json!("user")),
            attr("gen_ai.prompt.0.content", json!("Hi?")),
        ],
    );
    chat["events"] = json!([{
        "name": "gen_ai.content.completion",
        "timeUnixNano": "1759300000400000000",
        "attributes": [
            attr("gen_ai.completion.0.role", json!("assistant")),
            attr("gen_ai.completion.0.content", json!("Hello from an event.")),
        ]
    }]);
    let s = load_json(&export(vec![chat])).remove(0);
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.turns[0].user, "Hi?");
    assert_eq!(
        s.answer(s.turns[0].index).map(|a| a.text.as_str()),
        Some("Hello from an event.")
    );
}

/// A chat span (GenAI semconv messages): `input` ends with the user's message when `user` is
/// given; the output holds `text` or one `tool_call`.
fn chat(user: Option<&str>, text: Option<&str>, tool_call: Option<(&str, &str)>) -> Vec<Value> {
    let mut a = vec![
        attr("gen_ai.operation.name", json!("chat")),
        attr("gen_ai.request.model", json!("gpt-4o")),
    ];
    if let Some(u) = user {
        a.push(attr(
            "gen_ai.input.messages",
            json!(json!([{"role":"user","parts":[{"type":"text","content":u}]}]).to_string()),
        ));
    }
    let mut parts = Vec::new();
    if let Some(t) = text {
        parts.push(json!({"type":"text","content":t}));
    }
    if let Some((id, name)) = tool_call {
        parts.push(json!({"type":"tool_call","id":id,"name":name,"arguments":{}}));
    }
    a.push(attr(
        "gen_ai.output.messages",
        json!(json!([{"role":"assistant","parts":parts}]).to_string()),
    ));
    a
}

/// An `execute_tool` span of call `id`.
fn tool(id: &str, name: &str, args: &str, result: &str) -> Vec<Value> {
    vec![
        attr("gen_ai.operation.name", json!("execute_tool")),
        attr("gen_ai.tool.name", json!(name)),
        attr("gen_ai.tool.call.id", json!(id)),
        attr("gen_ai.tool.call.arguments", json!(args)),
        attr("gen_ai.tool.call.result", json!(result)),
    ]
}

/// An `invoke_agent` span of agent `name`.
fn agent(name: &str) -> Vec<Value> {
    vec![
        attr("gen_ai.operation.name", json!("invoke_agent")),
        attr("gen_ai.agent.name", json!(name)),
    ]
}

/// An agent that runs another agent as a tool (the GenAI agent-span conventions: the
/// `execute_tool` span of the call holds the `invoke_agent` span of the agent it ran), children
/// first, as a batch span processor exports them. The travel planner's call `call_research`
/// runs the researcher, whose own call `call_w` gets the weather; the researcher's answer is the
/// call's result.
pub fn sub_agent_spans(trace: &str) -> Vec<Value> {
    vec![
        span(
            trace,
            "s3",
            Some("s0"),
            "chat gpt-4o",
            3,
            5,
            chat(None, Some("Paris will be sunny, 24°C."), None),
        ),
        span(
            trace,
            "s2",
            Some("s0"),
            "execute_tool get_weather",
            1,
            4,
            tool(
                "call_w",
                "get_weather",
                "{\"city\": \"Paris\"}",
                "sunny, 24C",
            ),
        ),
        span(
            trace,
            "s1",
            Some("s0"),
            "chat gpt-4o",
            3,
            3,
            chat(
                Some("Research the weather in Paris"),
                None,
                Some(("call_w", "get_weather")),
            ),
        ),
        span(
            trace,
            "s0",
            Some("p2"),
            "invoke_agent researcher",
            1,
            3,
            agent("researcher"),
        ),
        span(
            trace,
            "p2",
            Some("p0"),
            "execute_tool research_agent",
            1,
            2,
            tool(
                "call_research",
                "research_agent",
                "{\"topic\": \"Paris weather\"}",
                "Paris will be sunny, 24°C.",
            ),
        ),
        span(
            trace,
            "p1",
            Some("p0"),
            "chat gpt-4o",
            3,
            1,
            chat(
                Some("Plan a day in Paris"),
                None,
                Some(("call_research", "research_agent")),
            ),
        ),
        span(
            trace,
            "p3",
            Some("p0"),
            "chat gpt-4o",
            3,
            6,
            chat(
                None,
                Some("Visit the Louvre in the morning: it will be sunny."),
                None,
            ),
        ),
        span(
            trace,
            "p0",
            None,
            "invoke_agent travel-planner",
            1,
            0,
            agent("travel-planner"),
        ),
    ]
}

/// [`sub_agent_spans`] as one OTLP/JSON document.
pub fn sub_agent_trace(trace: &str) -> Value {
    export(sub_agent_spans(trace))
}

/// Asserts the sessions of [`sub_agent_spans`] of trace `t`: the planner's, then the
/// researcher's, linked from the call that ran it and holding only its own records.
pub fn assert_sub_agent_sessions(v: &[Session], t: &str) {
    let ids: Vec<&str> = v.iter().map(|s| s.id()).collect();
    let sub_id = format!("{t}/call_research");
    assert_eq!(ids, vec![t, sub_id.as_str()]);
    let (parent, sub) = (&v[0], &v[1]);
    let calls: Vec<&str> = parent.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        calls,
        vec!["call_research"],
        "the sub-agent's call is not the parent's"
    );
    let link = parent.calls[0].sub_session.as_deref().expect("a link");
    assert_eq!(
        (link.id.as_str(), link.path.as_deref()),
        (sub_id.as_str(), None)
    );
    assert_eq!(parent.results.len(), 1);
    let answers: Vec<&str> = parent.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(
        answers,
        vec!["Visit the Louvre in the morning: it will be sunny."]
    );
    assert_eq!(parent.turns.len(), 1);
    assert_eq!(parent.turns[0].user, "Plan a day in Paris");
    assert_eq!(
        parent.header.as_ref().unwrap().agent.as_deref(),
        Some("travel-planner")
    );
    let calls: Vec<&str> = sub.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(calls, vec!["call_w"]);
    assert!(sub.calls[0].sub_session.is_none());
    assert_eq!(
        sub.result("call_w").unwrap().block_text(0),
        Some("sunny, 24C")
    );
    let answers: Vec<&str> = sub.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(answers, vec!["Paris will be sunny, 24°C."]);
    assert_eq!(sub.turns.len(), 1);
    assert_eq!(sub.turns[0].user, "Research the weather in Paris");
    assert_eq!(
        sub.header.as_ref().unwrap().agent.as_deref(),
        Some("researcher")
    );
    assert_eq!(sub.format(), parent.format());
    assert_eq!(sub.source, parent.source, "the same file");
}

#[test]
fn a_tool_call_that_ran_an_agent_links_to_the_agents_own_session() {
    let v = load_json(&export(sub_agent_spans("t-sub")));
    assert_sub_agent_sessions(&v, "t-sub");
    assert!(v
        .iter()
        .all(|s| s.diagnostics.iter().all(|d| d.level != DiagLevel::Error)));
    assert_eq!(v[1].name, "trace/call_research");
}

#[test]
fn a_sub_agent_split_across_lines_and_out_of_order_is_still_cut_out() {
    // The Collector writes what each batch held: the sub-agent's spans on one line, the
    // parent's on a later one, and another conversation between them.
    let dir = tempfile::tempdir().unwrap();
    let spans = sub_agent_spans("t-lines");
    let lines = [
        export(spans[..4].to_vec()).to_string(),
        stdio_example("other", None, true).to_string(),
        export(spans[4..].to_vec()).to_string(),
    ];
    let p = dir.path().join("traces.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let v = load_file_sessions(&p, &LoadOptions::default());
    let ids: Vec<&str> = v.iter().map(|s| s.id()).collect();
    assert_eq!(ids, vec!["t-lines", "t-lines/call_research", "other"]);
    assert_sub_agent_sessions(&v[..2], "t-lines");
    assert_eq!(v[1].name, "traces#t-lines/call_research");
    assert_eq!(v[2].calls.len(), 1, "the other conversation as before");
    // One conversation over two lines: its sessions take the file's name.
    let p = dir.path().join("one.jsonl");
    std::fs::write(&p, format!("{}\n{}\n", lines[0], lines[2])).unwrap();
    let v = load_file_sessions(&p, &LoadOptions::default());
    assert_sub_agent_sessions(&v, "t-lines");
    let names: Vec<&str> = v.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["one", "one/call_research"]);
}

#[test]
fn nested_sub_agents_each_get_their_session() {
    let t = "t-nest";
    let mut spans = sub_agent_spans(t);
    // The researcher's weather tool is itself an agent, which calls a forecast API.
    spans.push(span(
        t,
        "n0",
        Some("s2"),
        "invoke_agent forecaster",
        1,
        4,
        agent("forecaster"),
    ));
    spans.push(span(
        t,
        "n1",
        Some("n0"),
        "chat gpt-4o",
        3,
        4,
        chat(
            Some("Forecast Paris"),
            Some("sunny"),
            Some(("call_api", "forecast_api")),
        ),
    ));
    spans.push(span(
        t,
        "n2",
        Some("n0"),
        "execute_tool forecast_api",
        1,
        4,
        tool("call_api", "forecast_api", "{}", "{\"sky\": \"clear\"}"),
    ));
    let v = load_json(&export(spans));
    let ids: Vec<&str> = v.iter().map(|s| s.id()).collect();
    assert_eq!(
        ids,
        vec![t, "t-nest/call_research", "t-nest/call_research/call_w"]
    );
    assert_eq!(v[0].calls.len(), 1);
    assert_eq!(v[1].calls.len(), 1);
    assert_eq!(
        v[1].calls[0].sub_session.as_ref().map(|l| l.id.as_str()),
        Some("t-nest/call_research/call_w")
    );
    let calls: Vec<&str> = v[2].calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(calls, vec!["call_api"]);
    assert_eq!(v[2].answers[0].text, "sunny");
    assert_eq!(
        v[2].header.as_ref().unwrap().agent.as_deref(),
        Some("forecaster")
    );
}

#[test]
fn an_mcp_server_span_under_a_tool_call_is_still_the_same_call_not_an_agent() {
    // The stdio example's client and server spans: no agent below the call, nothing cut out.
    let v = load_json(&stdio_example("t1", None, true));
    assert_eq!(v.len(), 1);
    assert!(v[0].calls[0].sub_session.is_none());
}

#[test]
fn broken_parent_chains_split_nothing_and_never_panic() {
    let t = "t-bad";
    // A dangling parent: the research call's parent is not in the file; the call and its
    // sub-agent are still found below it.
    let mut dangling = sub_agent_spans(t);
    dangling.pop();
    let v = load_json(&export(dangling));
    assert_eq!(v.len(), 2);
    assert_eq!(v[1].id(), "t-bad/call_research");
    assert_eq!(v[0].calls.len(), 1);
    // A cycle: the agent's parent is the call and the call's parent the agent.
    let cyclic = vec![
        span(t, "a", Some("b"), "invoke_agent x", 1, 0, agent("x")),
        span(
            t,
            "b",
            Some("a"),
            "execute_tool x",
            1,
            1,
            tool("call_x", "x", "{}", "ok"),
        ),
        span(
            t,
            "c",
            Some("a"),
            "chat gpt-4o",
            3,
            2,
            chat(Some("hi"), Some("hello"), None),
        ),
        span(
            t,
            "d",
            Some("d"),
            "execute_tool self",
            1,
            3,
            tool("call_self", "self", "{}", "ok"),
        ),
        span(
            t,
            "e",
            Some("e"),
            "chat gpt-4o",
            3,
            4,
            chat(None, Some("again"), None),
        ),
    ];
    let v = load_json(&export(cyclic));
    assert_eq!(v.len(), 1, "a cycle cuts nothing out");
    let total: usize = v.iter().map(|s| s.answers.len()).sum();
    assert!(total >= 1);
    // Two tool spans of one call id, each running an agent: two sessions, distinct ids, the
    // call linking the first.
    let twice = vec![
        span(
            t,
            "x1",
            None,
            "execute_tool ask",
            1,
            0,
            tool("call_dup", "ask", "{}", "one"),
        ),
        span(
            t,
            "x2",
            Some("x1"),
            "chat gpt-4o",
            3,
            0,
            chat(Some("first"), Some("one"), None),
        ),
        span(
            t,
            "y1",
            None,
            "execute_tool ask",
            1,
            1,
            tool("call_dup", "ask", "{}", "two"),
        ),
        span(
            t,
            "y2",
            Some("y1"),
            "chat gpt-4o",
            3,
            1,
            chat(Some("second"), Some("two"), None),
        ),
    ];
    let v = load_json(&export(twice));
    let ids: Vec<&str> = v.iter().map(|s| s.id()).collect();
    assert_eq!(ids, vec![t, "t-bad/call_dup", "t-bad/call_dup#2"]);
    assert_eq!(v[0].calls.len(), 1);
    assert_eq!(
        v[0].calls[0].sub_session.as_ref().map(|l| l.id.as_str()),
        Some("t-bad/call_dup")
    );
    assert_eq!(v[2].answers[0].text, "two");
    // A tool span whose agent span has nothing below it: nothing to open, no split.
    let empty = vec![
        span(
            t,
            "p",
            None,
            "execute_tool helper",
            1,
            0,
            tool("call_h", "helper", "{}", "done"),
        ),
        span(
            t,
            "q",
            Some("p"),
            "invoke_agent helper",
            1,
            0,
            agent("helper"),
        ),
    ];
    let v = load_json(&export(empty));
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].calls.len(), 1);
    assert!(v[0].calls[0].sub_session.is_none());
}

#[test]
fn mutated_parent_ids_and_orders_never_panic_and_links_resolve() {
    // A small deterministic generator (xorshift): parent ids replaced by other ids, themselves,
    // blanks or strangers; spans dropped, duplicated and shuffled; lines split anywhere.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let t = "t-mut";
    let mut base = sub_agent_spans(t);
    base.push(span(
        t,
        "n0",
        Some("s2"),
        "invoke_agent forecaster",
        1,
        4,
        agent("forecaster"),
    ));
    base.push(span(
        t,
        "n1",
        Some("n0"),
        "chat gpt-4o",
        3,
        4,
        chat(Some("Forecast"), Some("sunny"), None),
    ));
    let ids: Vec<String> = base
        .iter()
        .map(|s| s["spanId"].as_str().unwrap().to_owned())
        .collect();
    for _ in 0..300 {
        let mut spans = base.clone();
        for _ in 0..1 + next(4) {
            let i = next(spans.len());
            let p = match next(4) {
                0 => ids[next(ids.len())].clone(),
                1 => spans[i]["spanId"].as_str().unwrap().to_owned(),
                2 => String::new(),
                _ => "stranger".into(),
            };
            spans[i]["parentSpanId"] = json!(p);
        }
        match next(3) {
            0 => {
                let i = next(spans.len());
                spans.remove(i);
            }
            1 => {
                let i = next(spans.len());
                let dup = spans[i].clone();
                spans.push(dup);
            }
            _ => {}
        }
        for i in (1..spans.len()).rev() {
            spans.swap(i, next(i + 1));
        }
        let cut = next(spans.len() + 1);
        let text = format!(
            "{}\n{}\n",
            export(spans[..cut].to_vec()),
            export(spans[cut..].to_vec())
        );
        let v = load_any_bytes(
            "trace",
            "trace.jsonl",
            text.as_bytes(),
            &LoadOptions::default(),
        );
        let all: Vec<&str> = v.iter().map(|s| s.id()).collect();
        for s in &v {
            for c in &s.calls {
                if let Some(l) = &c.sub_session {
                    assert!(
                        all.contains(&l.id.as_str()),
                        "{} links {} of {all:?}",
                        c.id,
                        l.id
                    );
                }
            }
        }
        // Session ids are distinct; each sub-agent session is a tool call's.
        let mut distinct = all.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), all.len(), "{all:?}");
        assert!(v.len() <= 3, "{all:?}");
    }
}
