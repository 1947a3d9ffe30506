//! Importers on real files (tests/formats/, see each SOURCES.md): the calls, results, answers
//! and stamps each format holds, and derived spans that resolve to exactly the cited text.

use provscope::ingest::{load_any_bytes, load_file_sessions, LoadOptions};
use provscope::model::span::resolve;
use provscope::model::{Claim, Provenance, RpcId, Session, SpanUnit};
use std::path::{Path, PathBuf};

/// `provscope ARGS...` run as a process, without colour.
pub fn provscope(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run provscope")
}

/// The rows of `provscope summary --format json PATH`, which must exit 0.
pub fn summary_rows(path: &str) -> Vec<serde_json::Value> {
    let o = provscope(&["summary", "--format", "json", path]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("summary's JSON")
}

pub fn formats() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats")
}

pub fn load(rel: &str) -> Vec<Session> {
    load_file_sessions(&formats().join(rel), &LoadOptions::default())
}

pub fn one(rel: &str) -> Session {
    let mut v = load(rel);
    assert_eq!(v.len(), 1, "{rel} holds one session");
    v.remove(0)
}

/// The text a claim's span cites in its origin's result.
pub fn cited(s: &Session, c: &Claim) -> String {
    let o = c.stamp.origin.as_ref().expect("origin");
    let sp = c.stamp.span.expect("span");
    let r = s.result(&o.tool_call_id).expect("result");
    let text = r.block_text(sp.block).expect("block text");
    let range = resolve(text, sp.start, sp.end, SpanUnit::Char).expect("span resolves");
    text[range].to_owned()
}

/// Each call as (id, tool, arguments, its result's first text block), for comparing two
/// readings of the same calls.
pub fn call_rows(s: &Session) -> Vec<(String, String, Option<String>, Option<String>)> {
    s.calls
        .iter()
        .map(|c| {
            let args = c
                .request
                .params
                .arguments
                .as_ref()
                .map(|a| a.get().to_owned());
            let result = s
                .result(&c.id)
                .and_then(|r| r.block_text(0))
                .map(str::to_owned);
            (c.id.to_string(), c.tool().to_owned(), args, result)
        })
        .collect()
}

/// The notes the importer gave a session.
pub fn notes(s: &Session) -> Vec<String> {
    s.import
        .as_ref()
        .map(|i| i.notes.iter().map(|n| n.to_string()).collect())
        .unwrap_or_default()
}

/// Every diagnostic of a session, as printed.
pub fn diags(s: &Session) -> Vec<String> {
    s.diagnostics.iter().map(|d| d.to_string()).collect()
}

/// The warnings of a session, as printed.
pub fn warnings(s: &Session) -> Vec<String> {
    s.diagnostics
        .iter()
        .filter(|d| d.level == provscope::model::DiagLevel::Warning)
        .map(|d| d.to_string())
        .collect()
}

pub fn errors(s: &Session) -> Vec<String> {
    s.diagnostics
        .iter()
        .filter(|d| d.level == provscope::model::DiagLevel::Error)
        .map(|d| d.to_string())
        .collect()
}

#[test]
fn anthropic_mcp_connector_response() {
    let s = one("anthropic-messages/anthropic-mcp.1.json");
    assert_eq!(s.format(), "anthropic-messages");
    assert!(errors(&s).is_empty(), "{:?}", s.diagnostics);
    assert_eq!((s.calls.len(), s.results.len(), s.claim_count()), (1, 1, 0));
    let c = s.call("mcptoolu_015oTj2fXVKLrDohFetJd5UL").unwrap();
    assert_eq!((c.server.as_str(), c.tool()), ("echo", "echo"));
    let r = s.result(&c.id).unwrap();
    assert_eq!(r.block_text(0), Some("Tool echo: hello world"));
    assert!(
        r.tag.arguments_hash.len() == 64,
        "the hash of {{\"message\":\"hello world\"}}"
    );
    assert!(s.answers[0]
        .text
        .starts_with("The echo tool responded back with"));
    let notes = &s.import.as_ref().unwrap().notes;
    assert!(notes.iter().any(|n| n.contains("no times")), "{notes:?}");
}

#[test]
fn anthropic_web_search_citations_resolve_to_the_result_that_carried_the_url() {
    let s = one("anthropic-messages/anthropic-web-search-tool.1.json");
    assert_eq!((s.calls.len(), s.results.len()), (2, 2));
    assert!(s
        .calls
        .iter()
        .all(|c| c.server == "anthropic" && c.tool() == "web_search"));
    assert_eq!(s.claim_count(), 3);
    let first = s.claims().next().unwrap();
    assert_eq!(first.stamp.provenance(), Provenance::Derived);
    let ci = first.stamp.citation.as_ref().unwrap();
    assert_eq!(ci.kind, "web_search_result_location");
    assert_eq!(
        ci.url.as_deref(),
        Some("https://acecomments.mu.nu/?post=411647")
    );
    assert!(first.stamp.claim_text.starts_with("Caroline Ellison"));
    let o = first.stamp.origin.as_ref().unwrap();
    assert_eq!(o.tool_call_id, "srvtoolu_01Qxbje4duKBes3Nj42MkZug");
    assert!(
        first.stamp.span.is_none(),
        "a URL-only citation has no span"
    );
    // The verdict: an info finding, not a broken stamp.
    let report = provscope::check::check_session(&s, &provscope::check::Config::default());
    assert!(!report
        .findings
        .iter()
        .any(|f| f.kind == provscope::check::Kind::SpanInvalid
            && f.severity == provscope::check::Severity::Error));
}

#[test]
fn anthropic_response_alone_keeps_document_citations_dangling() {
    let s = one("anthropic-messages/prism-text-document-citations-1.json");
    assert_eq!(s.claim_count(), 2);
    let ids: Vec<&str> = s
        .claims()
        .map(|c| c.stamp.origin.as_ref().unwrap().tool_call_id.as_str())
        .collect();
    assert_eq!(ids, vec!["document:0", "document:0"]);
    assert_eq!(
        s.diagnostics.len(),
        2,
        "one warning per citation: the document is in the request"
    );
    assert!(
        s.diagnostics[0].message.contains("in the request"),
        "{}",
        s.diagnostics[0]
    );
}

/// A cassette: the real Prism response, with the request that carried the document (its text is
/// the one the Prism test sends, "The grass is green. The sky is blue.").
fn cassette_with_document(response_file: &str, document: serde_json::Value) -> Vec<u8> {
    let resp: serde_json::Value =
        serde_json::from_slice(&std::fs::read(formats().join(response_file)).unwrap()).unwrap();
    let req = serde_json::json!({"model":"claude-3-5-sonnet-20241022","messages":[{"role":"user","content":[document,{"type":"text","text":"What color is the grass and sky?"}]}]});
    let y = format!(
        "interactions:\n- request:\n    uri: https://api.anthropic.com/v1/messages\n    body: '{}'\n  response:\n    headers:\n      date:\n      - Tue, 09 Jul 2025 13:27:25 GMT\n    body:\n      string: '{}'\nversion: 1\n",
        req.to_string().replace('\'', "''"),
        resp.to_string().replace('\'', "''")
    );
    y.into_bytes()
}

#[test]
fn char_location_spans_resolve_to_exactly_the_cited_text() {
    let doc = serde_json::json!({"type":"document","source":{"type":"text","media_type":"text/plain","data":"The grass is green. The sky is blue."},"title":"All aboout the grass and the sky","citations":{"enabled":true}});
    let bytes = cassette_with_document(
        "anthropic-messages/prism-text-document-citations-1.json",
        doc,
    );
    let s = load_any_bytes("c", "c.yaml", &bytes, &LoadOptions::default()).remove(0);
    assert_eq!(s.format(), "anthropic-messages");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.turns[0].user, "What color is the grass and sky?");
    let claims: Vec<&Claim> = s.claims().collect();
    assert_eq!(claims.len(), 2);
    for c in &claims {
        let want = c
            .stamp
            .citation
            .as_ref()
            .unwrap()
            .cited_text
            .clone()
            .unwrap();
        assert_eq!(cited(&s, c), want);
    }
    assert_eq!(claims[0].stamp.claim_text, "The grass is green");
    assert_eq!(cited(&s, claims[1]), "The sky is blue.");
    // Times come from the response's date header.
    assert_eq!(
        s.answers[0].generated_at.to_string(),
        "2025-07-09T13:27:25Z"
    );
    let report = provscope::check::check_session(&s, &provscope::check::Config::default());
    assert_eq!(
        report.metrics.supported, 2,
        "both spans support their claims"
    );
}

#[test]
fn content_block_location_cites_whole_blocks() {
    let doc = serde_json::json!({"type":"document","source":{"type":"content","content":[{"type":"text","text":"The grass is green."},{"type":"text","text":"The sky is blue."}]},"citations":{"enabled":true}});
    let bytes = cassette_with_document(
        "anthropic-messages/prism-custom-content-document-citations-1.json",
        doc,
    );
    let s = load_any_bytes("c", "c.yaml", &bytes, &LoadOptions::default()).remove(0);
    let claims: Vec<&Claim> = s.claims().collect();
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[1].stamp.span.unwrap().block, 1);
    assert_eq!(cited(&s, claims[0]), "The grass is green.");
    assert_eq!(cited(&s, claims[1]), "The sky is blue.");
}

#[test]
fn anthropic_cassettes_read_citations_from_responses_not_replayed_history() {
    let s = one("anthropic-messages/test_anthropic_web_search_tool.yaml");
    assert_eq!(s.turns.len(), 2);
    assert_eq!(s.calls.len(), 2);
    assert_eq!(s.claim_count(), 18);
    let per_turn: Vec<usize> = s.answers.iter().map(|a| a.claims.len()).collect();
    assert_eq!(per_turn.iter().sum::<usize>(), 18);
    assert!(
        per_turn.iter().all(|&n| n > 0),
        "each response's citations: {per_turn:?}"
    );
    assert!(
        s.claims().all(|c| c.stamp.origin.is_some()),
        "every cited URL was in a search result"
    );
    let m = one("anthropic-messages/test_anthropic_mcp_servers.yaml");
    assert_eq!((m.turns.len(), m.calls.len(), m.results.len()), (2, 2, 2));
    assert!(m.calls.iter().all(|c| c.server == "deepwiki"));
    assert_eq!(
        m.header.as_ref().unwrap().model.as_deref(),
        Some("claude-sonnet-4-0")
    );
}

#[test]
fn openai_url_citations_cover_the_rendered_link_and_cite_the_sentence_before() {
    let s = one("openai-responses/openai-web-search-tool.1.json");
    assert_eq!(s.format(), "openai-responses");
    assert_eq!((s.calls.len(), s.claim_count()), (3, 10));
    let c = s.claims().next().unwrap();
    let marker = c
        .stamp
        .render
        .as_ref()
        .and_then(|r| r.marker.clone())
        .unwrap();
    assert!(
        marker.starts_with("([theverge.com](https://www.theverge.com/podcast/838932"),
        "{marker}"
    );
    assert!(
        c.stamp
            .claim_text
            .ends_with("(discussion and analysis on The Vergecast)."),
        "{}",
        c.stamp.claim_text
    );
    assert!(s.answers[0]
        .text
        .contains(&format!("{} {marker}", c.stamp.claim_text)));
    assert!(
        s.claims().all(|c| c.stamp.origin.is_some()),
        "every cited URL is a search source"
    );
    assert_eq!(
        s.answers[0].generated_at.to_string(),
        "2025-12-05T19:20:01Z"
    );
}

#[test]
fn cited_sentences_markers_and_urls_are_held_as_ranges_of_their_answer() {
    // A session keeps one copy of an answer's text: its claims' sentences (and OpenAI's
    // rendered markers and URLs) are ranges of it, whatever piece of the answer they cite.
    for (rel, claims) in [
        ("openai-responses/openai-web-search-tool.1.json", 10),
        ("anthropic-messages/anthropic-web-search-tool.1.json", 3),
        ("anthropic-messages/prism-text-document-citations-1.json", 2),
        ("gemini-grounding/prism-search-grounding-1.json", 4),
        (
            "gemini-grounding/test_google_model_web_search_tool.yaml",
            11,
        ),
    ] {
        let s = one(rel);
        assert_eq!(s.claim_count(), claims, "{rel}");
        for a in &s.answers {
            for c in &a.claims {
                let st = &c.stamp;
                let at = st.claim_text.offset_in(&a.text);
                assert!(at.is_some(), "{rel}: {:?} is a copy", st.claim_text);
                let at = at.unwrap();
                assert_eq!(
                    &a.text[at..at + st.claim_text.len()],
                    st.claim_text.as_str()
                );
                if let Some(m) = st.render.as_ref().and_then(|r| r.marker.as_ref()) {
                    assert!(
                        m.offset_in(&a.text).is_some(),
                        "{rel}: marker {m} is a copy"
                    );
                    let url = st.citation.as_ref().and_then(|x| x.url.as_ref()).unwrap();
                    assert!(
                        url.offset_in(m).is_some(),
                        "{rel}: {url} is not the marker's"
                    );
                }
            }
        }
    }
}

#[test]
fn openai_citation_of_a_url_no_result_carried_is_unsourced_and_says_why() {
    let s = one("openai-responses/prism-web-search-citations-1.json");
    let c = s.claims().next().unwrap();
    assert!(c.stamp.origin.is_none());
    assert!(c
        .stamp
        .render
        .as_ref()
        .unwrap()
        .marker
        .as_deref()
        .unwrap()
        .starts_with("([metcheck.com]"));
    assert!(s
        .diagnostics
        .iter()
        .any(|d| d.message.contains("no recorded tool result carried")));
    let report = provscope::check::check_session(&s, &provscope::check::Config::default());
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind == provscope::check::Kind::Unsourced
                && f.severity == provscope::check::Severity::Error),
        "a citation it did not earn"
    );
}

#[test]
fn openai_file_search_and_mcp_calls() {
    let s = one("openai-responses/openai-file-search-tool.2.json");
    let c = s.claims().next().unwrap();
    assert_eq!(
        c.stamp.origin.as_ref().unwrap().tool_call_id,
        "fs_0365d26c32c64c650068cabb04aa388194b53c59de50a3951e"
    );
    assert_eq!(c.stamp.citation.as_ref().unwrap().kind, "file_citation");
    // A file_citation marks one point: the claim is the sentence that ends there.
    let claim = &c.stamp.claim_text;
    assert!(
        claim.starts_with("It does not generate new text"),
        "{claim}"
    );
    assert!(claim.ends_with("NLP tasks"), "{claim}");
    let m = one("openai-responses/openai-mcp-tool.1.json");
    let call = &m.calls[0];
    assert_eq!(
        (call.server.as_str(), call.tool()),
        ("dmcp", "web_search_exa")
    );
    let args: serde_json::Value =
        serde_json::from_str(call.request.params.arguments.as_ref().unwrap().get()).unwrap();
    assert_eq!(args["numResults"], 5);
    assert!(m
        .result(&call.id)
        .unwrap()
        .block_text(0)
        .unwrap()
        .contains("New York City Mayor Results 2025"));
    let k = one("openai-responses/test_openai_responses_model_file_search_tool_with_results.yaml");
    assert!(
        k.diagnostics.is_empty(),
        "uploads are not JSON bodies: {:?}",
        k.diagnostics
    );
    assert_eq!(k.turns[0].user, "What is the capital of France?");
    assert_eq!(
        k.claims().next().unwrap().stamp.claim_text,
        "The capital of France is Paris"
    );
}

#[test]
fn gemini_segments_are_utf8_bytes_of_the_answer_part() {
    let s = one("gemini-grounding/test_google_model_web_search_tool.yaml");
    assert_eq!(s.format(), "gemini");
    assert_eq!(s.turns.len(), 2);
    assert_eq!(s.turns[1].user, "how about Mexico City?");
    assert!(
        s.diagnostics.is_empty(),
        "every segment matched as UTF-8: {:?}",
        s.diagnostics
    );
    let first = s.claims().next().unwrap();
    assert!(first
        .stamp
        .claim_text
        .ends_with("temperatures hovering around 69°F."));
    assert_eq!(s.claim_count(), 11);
    let p = one("gemini-grounding/prism-search-grounding-1.json");
    assert_eq!(
        p.claims().next().unwrap().stamp.claim_text,
        "(GOOG:NSQ) was $167.62."
    );
    assert_eq!(
        p.claims()
            .next()
            .unwrap()
            .stamp
            .citation
            .as_ref()
            .unwrap()
            .url
            .as_deref()
            .map(|u| u.starts_with("https://vertexaisearch")),
        Some(true)
    );
}

#[test]
fn gemini_3_file_search_without_part_index_cites_the_retrieved_chunk() {
    let s = one("gemini-grounding/test_google_model_file_search_grounding_gemini_3_False.yaml");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let c = s.claims().next().unwrap();
    assert_eq!(c.stamp.claim_text, "The capital of France is **Paris**.");
    assert_eq!(c.stamp.origin.as_ref().unwrap().tool_call_id, "j425u3dm");
    assert_eq!(s.call("j425u3dm").unwrap().tool(), "file_search");
    assert_eq!(
        cited(&s, c),
        "Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris.\n"
    );
    let report = provscope::check::check_session(&s, &provscope::check::Config::default());
    assert_eq!(report.metrics.supported, 2);
}

#[test]
fn claude_code_transcript_links_its_sub_agent() {
    let root = "claude-code/projects/-Users-pete-tmp-claude-code-sessions";
    let s = one(&format!(
        "{root}/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl"
    ));
    assert_eq!(s.format(), "claude-code");
    assert!(errors(&s).is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.calls.len(), 7);
    let tools: Vec<&str> = s.calls.iter().map(|c| c.tool()).collect();
    assert_eq!(tools.iter().filter(|t| **t == "Task").count(), 5);
    assert!(s.calls.iter().all(|c| c.server == "claude-code"));
    assert_eq!(
        s.claim_count(),
        0,
        "transcripts have no citations: nothing is invented"
    );
    let task = s.call("toolu_011472X3mPpLSX8BmtHebyH4").unwrap();
    let sub = task.sub_session.as_ref().unwrap();
    assert_eq!(sub.id, "0ccf1a04-1b4c-43b6-8aa5-79e41db43a68:agent-a5bdbc1");
    assert!(sub
        .path
        .as_deref()
        .unwrap()
        .ends_with("subagents/agent-a5bdbc1.jsonl"));
    let agent = load_file_sessions(
        Path::new(sub.path.as_deref().unwrap()),
        &LoadOptions::default(),
    )
    .remove(0);
    assert_eq!(agent.id(), sub.id, "the link names the sub-session");
    assert_eq!(agent.calls[0].tool(), "WebSearch");
    assert!(agent.answers[0].text.contains("Thai Yellow Curry"));
    assert_eq!(
        s.turns[0].started_at.unwrap().to_string(),
        "2026-01-22T19:38:12.032Z"
    );
    let old = one(&format!(
        "{root}/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl"
    ));
    let link = old.calls[0].sub_session.as_ref().unwrap();
    assert_eq!(
        (link.id.ends_with(":agent-a2018e5"), link.path.is_none()),
        (true, true)
    );
}

#[test]
fn claude_code_stream_json_names_mcp_servers() {
    let s = one("claude-code/stream-json/sample-turns.json");
    assert_eq!(s.calls.len(), 3);
    let mcp = s.call("tool_call_3").unwrap();
    assert_eq!(
        (mcp.server.as_str(), mcp.tool()),
        ("github", "add_pull_request_review_comment")
    );
    assert_eq!(
        s.result("tool_call_3").unwrap().block_text(0),
        Some("Successfully posted review comment to PR #123")
    );
    assert!(s.answers[0]
        .text
        .contains("debug print statement has been removed"));
}

#[test]
fn claude_desktop_log_pairs_exact_calls_across_server_restarts() {
    let s = one("claude-desktop-log/mcp-server-weather.log");
    assert_eq!(s.format(), "claude-desktop-log");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, vec!["9", "20", "9@3"]);
    assert_eq!(
        s.calls[0].request.id,
        RpcId::Num("9".into()),
        "the request as sent"
    );
    assert!(s
        .result("9")
        .unwrap()
        .block_text(0)
        .unwrap()
        .starts_with("Current Weather in Bogor"));
    assert!(s
        .result("9@3")
        .unwrap()
        .block_text(0)
        .unwrap()
        .starts_with("Current Weather in Jakarta"));
    assert_eq!(
        s.result("9").unwrap().tag.returned_at.to_string(),
        "2025-06-30T06:12:22.354Z"
    );
    assert!(s.answers.is_empty(), "the log has no answers");
    let notes = &s.import.as_ref().unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("server output")),
        "{notes:?}"
    );
}

#[test]
fn langfuse_exports_count_tool_observations_once() {
    let s = one("langfuse-trace-export/claude-agent-2025-12-22.trace.json");
    assert_eq!(s.format(), "langfuse");
    let ids: Vec<&str> = s.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        vec![
            "toolu_01TKoqQLvY2UWuC49qnD48y7",
            "toolu_01NtVat4vJLFfVd5TqdLHcA7"
        ]
    );
    assert_eq!(
        (s.calls[0].server.as_str(), s.calls[0].tool()),
        ("weather", "get_weather")
    );
    assert_eq!(
        s.result(ids[0]).unwrap().block_text(0),
        Some("Weather in Berlin: Cloudy, 59°F")
    );
    assert_eq!(
        s.turns[0].user,
        "What's the weather like in Berlin and New York?"
    );
    assert!(s
        .answers
        .iter()
        .any(|a| a.text.contains("Great! Here's the current weather")));
    let p = one("langfuse-trace-export/pydantic-ai-tools-2025-12-04.trace.json");
    assert_eq!(
        p.calls.len(),
        3,
        "tool spans, not the repeated history or the output tool"
    );
    assert!(p.calls.iter().all(|c| c.id.starts_with("call_")));
    let o = one("langfuse-trace-export/openai-agents-2025-09-30.trace.json");
    assert_eq!(o.calls.len(), 1);
    assert_eq!(
        o.result(&o.calls[0].id).unwrap().block_text(0),
        Some("The weather in Tokyo is sunny.")
    );
}

/// A Langfuse trace download in which the planner runs the researcher as a tool (the OpenAI
/// Agents SDK's `Agent.as_tool`: a TOOL observation holding the AGENT observation of the agent
/// it ran), and a summarizer tool that calls a model of its own (a GENERATION right under the
/// TOOL), observations in no particular order.
pub fn langfuse_sub_agent_trace() -> serde_json::Value {
    let o = |id: &str,
             parent: Option<&str>,
             kind: &str,
             name: &str,
             t: u32,
             input: serde_json::Value,
             output: serde_json::Value| {
        serde_json::json!({"id": id, "traceId": "tr-1", "parentObservationId": parent, "type": kind,
            "name": name, "startTime": format!("2025-09-30T10:00:{t:02}.000Z"),
            "endTime": format!("2025-09-30T10:00:{t:02}.500Z"), "input": input, "output": output})
    };
    let null = serde_json::Value::Null;
    let call = |id: &str, name: &str, args: &str| {
        serde_json::json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": args}}]})
    };
    let user = |t: &str| serde_json::json!([{"role": "user", "content": t}]);
    let said = |t: &str| serde_json::json!({"role": "assistant", "content": t});
    serde_json::json!({
        "trace": {"id": "tr-1", "name": "Planner run", "input": "Plan a day in Paris"},
        "observations": [
            o("r2", Some("r0"), "TOOL", "get_weather", 5, serde_json::json!({"city": "Paris"}), serde_json::json!("sunny, 24C")),
            o("r1", Some("r0"), "GENERATION", "response", 4, user("Research the weather in Paris"), call("call_w", "get_weather", "{\"city\": \"Paris\"}")),
            o("r3", Some("r0"), "GENERATION", "response", 6, serde_json::json!([{"role": "user", "content": "Research the weather in Paris"}, {"role": "tool", "tool_call_id": "call_w", "content": "sunny, 24C"}]), said("Paris will be sunny, 24°C.")),
            o("r0", Some("t1"), "AGENT", "Researcher", 3, null.clone(), null.clone()),
            o("t1", Some("a0"), "TOOL", "research_agent", 2, serde_json::json!({"topic": "Paris weather"}), serde_json::json!("Paris will be sunny, 24°C.")),
            o("g1", Some("a0"), "GENERATION", "response", 1, user("Plan a day in Paris"), call("call_r", "research_agent", "{\"topic\": \"Paris weather\"}")),
            o("g2", Some("a0"), "GENERATION", "response", 7, user("Plan a day in Paris"), call("call_s", "summarize", "{\"text\": \"Louvre\"}")),
            o("t2", Some("a0"), "TOOL", "summarize", 8, serde_json::json!({"text": "Louvre"}), serde_json::json!("A museum.")),
            o("m1", Some("t2"), "GENERATION", "summarize-model", 8, user("Summarize: Louvre"), said("A museum.")),
            o("g3", Some("a0"), "GENERATION", "response", 9, user("Plan a day in Paris"), said("Visit the Louvre, a museum; it will be sunny.")),
            o("a0", None, "AGENT", "Planner", 0, null.clone(), null.clone()),
        ]
    })
}

#[test]
fn langfuse_tool_observations_that_ran_an_agent_link_to_its_session() {
    let v = load_any_bytes(
        "planner",
        "planner.trace.json",
        langfuse_sub_agent_trace().to_string().as_bytes(),
        &LoadOptions::default(),
    );
    let ids: Vec<&str> = v.iter().map(|s| s.id()).collect();
    assert_eq!(ids, vec!["tr-1", "tr-1/call_r", "tr-1/call_s"]);
    assert!(v.iter().all(|s| s.format() == "langfuse"));
    let p = &v[0];
    let calls: Vec<&str> = p.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(calls, vec!["call_r", "call_s"], "not the sub-agents' calls");
    let links: Vec<Option<&str>> = p
        .calls
        .iter()
        .map(|c| c.sub_session.as_ref().map(|l| l.id.as_str()))
        .collect();
    assert_eq!(links, vec![Some("tr-1/call_r"), Some("tr-1/call_s")]);
    let answers: Vec<&str> = p.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(
        answers,
        vec!["Visit the Louvre, a museum; it will be sunny."]
    );
    assert_eq!(p.turns.len(), 1);
    // The researcher: its own call, result, turn and answer; named after its AGENT observation.
    let r = &v[1];
    let calls: Vec<&str> = r.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(calls, vec!["call_w"]);
    assert_eq!(
        r.result("call_w").unwrap().block_text(0),
        Some("sunny, 24C")
    );
    let answers: Vec<&str> = r.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(answers, vec!["Paris will be sunny, 24°C."]);
    assert_eq!(r.turns[0].user, "Research the weather in Paris");
    assert_eq!(
        r.header.as_ref().unwrap().agent.as_deref(),
        Some("Researcher")
    );
    // The summarizer's model call: no calls, its answer.
    let m = &v[2];
    assert!(m.calls.is_empty());
    assert_eq!(m.answers.len(), 1);
    assert_eq!(m.answers[0].text, "A museum.");
    assert_eq!(m.turns[0].user, "Summarize: Louvre");
}

#[test]
fn summary_and_verify_show_a_trace_sub_agent_as_its_own_session() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("planner.trace.json");
    std::fs::write(&p, langfuse_sub_agent_trace().to_string()).unwrap();
    let path = p.to_str().unwrap();
    let rows = summary_rows(path);
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["session"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        vec![
            "planner.trace",
            "planner.trace/call_r",
            "planner.trace/call_s"
        ],
        "{rows:?}"
    );
    let calls: Vec<u64> = rows.iter().map(|r| r["calls"].as_u64().unwrap()).collect();
    assert_eq!(calls, vec![2, 1, 0]);
    let o = provscope(&["verify", "--format", "json", path]);
    assert!(
        o.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("\"tr-1/call_r\""), "{out}");
    assert!(out.contains("\"tr-1/call_s\""), "{out}");
}

#[test]
fn import_to_provscope_links_a_trace_sub_agent_to_the_log_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("planner.trace.json");
    std::fs::write(&p, langfuse_sub_agent_trace().to_string()).unwrap();
    let out = dir.path().join("native");
    let o = provscope(&[
        "import",
        "--to",
        "provscope",
        p.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        o.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    // Every link of every written log names a log written beside it, whose session is the one
    // linked.
    let mut links = 0;
    for f in &files {
        let text = std::fs::read_to_string(out.join(f)).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let Some(link) = v.get("sub_session") else {
                continue;
            };
            links += 1;
            let target = link["path"].as_str().unwrap_or_else(|| panic!("{link}"));
            assert!(files.iter().any(|x| x == target), "{target} in {files:?}");
            let head: serde_json::Value = serde_json::from_str(
                std::fs::read_to_string(out.join(target))
                    .unwrap()
                    .lines()
                    .next()
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(head["session_id"], link["session_id"], "{link}");
        }
    }
    assert_eq!(links, 2);
    // The parent's log alone leads to its sub-agent's: the link is followed from its path.
    let parent = provscope::ingest::load_file_sessions(
        &out.join("planner.trace.jsonl"),
        &provscope::ingest::LoadOptions::default(),
    );
    let sub = parent[0]
        .calls
        .iter()
        .find_map(|c| c.sub_session.as_deref())
        .unwrap();
    assert_eq!(sub.id, "tr-1/call_r");
    assert_eq!(sub.path.as_deref(), Some("planner.trace_call_r.jsonl"));
}

/// A cassette of one exchange: `req` sent, `resp` received.
fn cassette(req: &serde_json::Value, resp: &serde_json::Value) -> Vec<u8> {
    format!(
        "interactions:\n- request:\n    uri: https://api.anthropic.com/v1/messages\n    body: '{}'\n  response:\n    headers:\n      date:\n      - Tue, 09 Jul 2025 13:27:25 GMT\n    body:\n      string: '{}'\nversion: 1\n",
        req.to_string().replace('\'', "''"),
        resp.to_string().replace('\'', "''")
    )
    .into_bytes()
}

#[test]
fn search_result_location_counts_search_results_across_the_request() {
    // The shapes of Anthropic's search-results documentation: search_result blocks at the top
    // level of a user message and inside tool results; search_result_index counts all of them in
    // request order, start/end_block_index are block ranges (end exclusive) inside one result.
    let sr = |src: &str, title: &str, texts: &[&str]| {
        serde_json::json!({"type":"search_result","source":src,"title":title,
            "content": texts.iter().map(|t| serde_json::json!({"type":"text","text":t})).collect::<Vec<_>>(),
            "citations":{"enabled":true}})
    };
    let req = serde_json::json!({"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[
        {"role":"user","content":[sr("https://kb.example/0","Warranty",&["Two years, parts only."]),{"type":"text","text":"How do I reset the router?"}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"kb_search","input":{"q":"reset"}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":[sr("https://kb.example/1","Intro",&["Welcome to the manual."])]}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"toolu_B","name":"kb_search","input":{"q":"reset button"}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":[
            sr("https://kb.example/2","Setup",&["Unpack the box.","Plug it in."]),
            sr("https://kb.example/3","Reset",&["Überblick: ein Reset löscht alle Daten.","Hold the reset button for 10 seconds."])]}]}
    ]});
    let resp = serde_json::json!({"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn",
    "content":[
        {"type":"text","text":"Hold the button for ten seconds.","citations":[{"type":"search_result_location","search_result_index":3,"start_block_index":1,"end_block_index":2,"source":"https://kb.example/3","title":"Reset","cited_text":"Hold the reset button for 10 seconds."}]},
        {"type":"text","text":" The warranty covers parts for two years.","citations":[{"type":"search_result_location","search_result_index":0,"start_block_index":0,"end_block_index":1,"source":"https://kb.example/0","title":"Warranty","cited_text":"Two years, parts only."}]}
    ]});
    let s = load_any_bytes(
        "c",
        "c.yaml",
        &cassette(&req, &resp),
        &LoadOptions::default(),
    )
    .remove(0);
    assert_eq!(s.format(), "anthropic-messages");
    assert!(errors(&s).is_empty(), "{:?}", s.diagnostics);
    let claims: Vec<&Claim> = s.claims().collect();
    assert_eq!(claims.len(), 2);
    let o = claims[0].stamp.origin.as_ref().unwrap();
    assert_eq!(
        o.tool_call_id, "toolu_B",
        "result 3 is the second one toolu_B returned"
    );
    assert_eq!(
        claims[0].stamp.span.unwrap().block,
        3,
        "blocks of toolu_B's result: 2 + 2"
    );
    assert_eq!(
        cited(&s, claims[0]),
        "Hold the reset button for 10 seconds."
    );
    assert_eq!(claims[0].stamp.provenance(), Provenance::Derived);
    assert_eq!(
        claims[0].stamp.citation.as_ref().unwrap().kind,
        "search_result_location"
    );
    // Index 0 is the search result the user sent, not a tool's.
    let o = claims[1].stamp.origin.as_ref().unwrap();
    assert!(
        o.tool_call_id.starts_with("search_result:"),
        "{}",
        o.tool_call_id
    );
    assert_eq!(cited(&s, claims[1]), "Two years, parts only.");
    let report = provscope::check::check_session(&s, &provscope::check::Config::default());
    assert!(!report
        .findings
        .iter()
        .any(|f| f.kind == provscope::check::Kind::SpanInvalid));
    // An index past the request's search results is said, not guessed.
    let mut bad = resp.clone();
    bad["content"][0]["citations"][0]["search_result_index"] = 4.into();
    let s = load_any_bytes(
        "c",
        "c.yaml",
        &cassette(&req, &bad),
        &LoadOptions::default(),
    )
    .remove(0);
    assert!(s.diagnostics.iter().any(|d| d
        .message
        .contains("search result 4 is not in this file's requests")));
}

/// A cassette of several exchanges: (uri, request body, response body).
fn cassette_of(exchanges: &[(&str, Option<serde_json::Value>, serde_json::Value)]) -> Vec<u8> {
    let mut y = String::from("interactions:\n");
    for (uri, req, resp) in exchanges {
        y.push_str(&format!("- request:\n    uri: {uri}\n"));
        if let Some(req) = req {
            y.push_str(&format!(
                "    body: '{}'\n",
                req.to_string().replace('\'', "''")
            ));
        }
        y.push_str(&format!(
            "  response:\n    headers:\n      date:\n      - Tue, 09 Jul 2025 13:27:25 GMT\n    body:\n      string: '{}'\n",
            resp.to_string().replace('\'', "''")
        ));
    }
    y.push_str("version: 1\n");
    y.into_bytes()
}

#[test]
fn cassettes_read_only_their_apis_generation_endpoint() {
    // Token counts carry the messages of a request; a stored response fetched again repeats it.
    // Neither is a turn of the conversation.
    let count = serde_json::json!({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Count these tokens"}]});
    let req = serde_json::json!({"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]});
    let msg = serde_json::json!({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
        "content":[{"type":"text","text":"Hi there."}],"stop_reason":"end_turn"});
    let bytes = cassette_of(&[
        (
            "https://api.anthropic.com/v1/messages/count_tokens",
            Some(count),
            serde_json::json!({"input_tokens": 12}),
        ),
        (
            "https://api.anthropic.com/v1/messages?beta=true",
            Some(req),
            msg,
        ),
    ]);
    let s = load_any_bytes("a", "a.yaml", &bytes, &LoadOptions::default()).remove(0);
    assert_eq!(s.format(), "anthropic-messages");
    assert_eq!(s.turns.len(), 1, "{:?}", s.turns);
    assert_eq!(s.turns[0].user, "Hello");
    assert_eq!(s.answers.len(), 1);

    let resp = serde_json::json!({"id":"resp_1","object":"response","created_at":1751980000,"model":"gpt-4.1","status":"completed","error":null,
        "output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"lookup","arguments":"{\"q\":\"seats\"}","status":"completed"}]});
    let bytes = cassette_of(&[
        (
            "https://api.openai.com/v1/responses",
            Some(serde_json::json!({"model":"gpt-4.1","input":"Price of seats?"})),
            resp.clone(),
        ),
        ("https://api.openai.com/v1/responses/resp_1", None, resp),
    ]);
    let s = load_any_bytes("o", "o.yaml", &bytes, &LoadOptions::default()).remove(0);
    assert_eq!(s.format(), "openai-responses");
    assert_eq!(s.calls.len(), 1, "the fetched copy adds no call");
    assert!(
        s.diagnostics.iter().all(|d| !d.message.contains("call_1")),
        "{:?}",
        s.diagnostics
    );
}

#[test]
fn an_openai_string_input_replayed_as_a_message_is_one_turn() {
    // The OpenAI SDK's history pattern: the first request's `input` is a string, the next one
    // sends it again as `input[0]`, then the answer, then the new message.
    let resp = |id: &str, text: &str| {
        serde_json::json!({"id":id,"object":"response","created_at":1751120168,"model":"gpt-4.1-nano","status":"completed","error":null,
            "output":[{"type":"message","id":format!("msg_{id}"),"role":"assistant","status":"completed",
                "content":[{"type":"output_text","text":text,"annotations":[]}]}]})
    };
    let first = "Come up with an adjective in English.";
    let bytes = cassette_of(&[
        (
            "https://api.openai.com/v1/responses",
            Some(serde_json::json!({"model":"gpt-4.1-nano","input":first})),
            resp("resp_1", "Luminous"),
        ),
        (
            "https://api.openai.com/v1/responses",
            Some(serde_json::json!({"model":"gpt-4.1-nano","input":[
                {"role":"user","content":first},
                {"role":"assistant","content":[{"type":"output_text","text":"Luminous"}]},
                {"role":"user","content":"Why that word?"}]})),
            resp("resp_2", "It evokes light."),
        ),
    ]);
    let s = load_any_bytes("o", "o.yaml", &bytes, &LoadOptions::default()).remove(0);
    let users: Vec<&str> = s.turns.iter().map(|t| t.user.as_str()).collect();
    assert_eq!(users, [first, "Why that word?"]);
    let answers: Vec<&str> = s.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(answers, ["Luminous", "It evokes light."]);
}

/// A Gemini answer streamed without `alt=sse`: a JSON array of chunks, the text split across
/// them and the grounding metadata in the last.
fn streamed_chunks(doc: &serde_json::Value, pieces: usize) -> serde_json::Value {
    let cand = &doc["candidates"][0];
    let text = cand["content"]["parts"][0]["text"].as_str().unwrap();
    let cuts: Vec<usize> = (0..=pieces)
        .map(|k| {
            let mut at = text.len() * k / pieces;
            while !text.is_char_boundary(at) {
                at += 1;
            }
            at
        })
        .collect();
    let chunks: Vec<serde_json::Value> = cuts
        .windows(2)
        .enumerate()
        .map(|(k, w)| {
            let mut c = serde_json::json!({
                "content": {"role": "model", "parts": [{"text": &text[w[0]..w[1]]}]},
                "index": 0
            });
            let mut chunk =
                serde_json::json!({"responseId": "r-1", "modelVersion": doc["modelVersion"]});
            if k + 1 == pieces {
                c["finishReason"] = cand["finishReason"].clone();
                c["groundingMetadata"] = cand["groundingMetadata"].clone();
                chunk["usageMetadata"] = doc["usageMetadata"].clone();
            }
            chunk["candidates"] = serde_json::json!([c]);
            chunk
        })
        .collect();
    serde_json::Value::Array(chunks)
}

#[test]
fn gemini_streamed_chunks_join_into_the_response_they_make() {
    let rel = "gemini-grounding/prism-search-grounding-1.json";
    let whole = one(rel);
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(formats().join(rel)).unwrap()).unwrap();
    let bytes = serde_json::to_vec_pretty(&streamed_chunks(&doc, 3)).unwrap();
    let s = load_any_bytes("g", "g.json", &bytes, &LoadOptions::default()).remove(0);
    assert_eq!(s.format(), "gemini");
    assert!(errors(&s).is_empty(), "{:?}", s.diagnostics);
    assert_eq!(
        s.answers[0].text, whole.answers[0].text,
        "the pieces joined"
    );
    assert_eq!(
        (s.calls.len(), s.results.len(), s.claim_count()),
        (whole.calls.len(), whole.results.len(), whole.claim_count())
    );
    assert!(s.claim_count() > 0);
    for (a, b) in s.claims().zip(whole.claims()) {
        assert_eq!(a.stamp.claim_id, b.stamp.claim_id);
        assert_eq!(a.stamp.claim_text, b.stamp.claim_text);
        assert_eq!(a.stamp.span, b.stamp.span);
        let origin = |c: &Claim| c.stamp.origin.as_ref().map(|o| o.tool_call_id.to_string());
        assert_eq!(origin(a), origin(b));
    }
    let notes = &s.import.as_ref().unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("streamed chunks")),
        "{notes:?}"
    );
}

#[test]
fn a_json_array_of_responses_is_read_response_by_response() {
    for rel in [
        "openai-responses/openai-web-search-tool.1.json",
        "anthropic-messages/anthropic-web-search-tool.1.json",
    ] {
        let whole = one(rel);
        let text = std::fs::read_to_string(formats().join(rel)).unwrap();
        let bytes = format!("[{text}]");
        let s = load_any_bytes("a", "a.json", bytes.as_bytes(), &LoadOptions::default()).remove(0);
        assert_eq!(s.format(), whole.format(), "{rel}");
        assert!(errors(&s).is_empty(), "{rel}: {:?}", s.diagnostics);
        assert_eq!(
            (s.calls.len(), s.results.len(), s.claim_count()),
            (whole.calls.len(), whole.results.len(), whole.claim_count()),
            "{rel}"
        );
        assert!(!s.calls.is_empty() && s.claim_count() > 0, "{rel}");
        assert!(
            s.calls[0]
                .json_path
                .as_deref()
                .unwrap()
                .starts_with("$[0]."),
            "{rel}: {:?}",
            s.calls[0].json_path
        );
        let notes = &s.import.as_ref().unwrap().notes;
        assert!(
            notes.iter().any(|n| n.contains("JSON array of responses")),
            "{rel}: {notes:?}"
        );
    }
    // Two responses of one conversation, in order: the second's calls follow the first's.
    let rel = "openai-responses/openai-mcp-tool.1.json";
    let text = std::fs::read_to_string(formats().join(rel)).unwrap();
    let second = text.replace("\"id\": \"", "\"id\": \"b_");
    let bytes = format!("[{text},{second}]");
    let first = one(rel);
    let s = load_any_bytes("a", "a.json", bytes.as_bytes(), &LoadOptions::default()).remove(0);
    assert_eq!(s.calls.len(), 2 * first.calls.len(), "{:?}", s.diagnostics);
    assert!(s.calls[first.calls.len()]
        .json_path
        .as_deref()
        .unwrap()
        .starts_with("$[1]."));
}

#[test]
fn a_bad_array_of_responses_says_where_and_why() {
    let doc = "{\"object\": \"response\", \"created_at\": 1, \"output\": []}";
    // Detected as OpenAI from the element's keys, then read as an array.
    for (text, line) in [(format!("[{doc}"), 1), (format!("[{doc},\n 7,]"), 2)] {
        let s = load_any_bytes("b", "b.json", text.as_bytes(), &LoadOptions::default());
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].format(), "openai-responses", "{text:?}");
        let d = &s[0].diagnostics;
        assert!(
            d.iter()
                .any(|d| d.message.contains("malformed JSON") && d.line == line),
            "{text:?}: {d:?}"
        );
    }
}

/// A session as `summary --format json` counts it: format, turns, calls, results, warnings.
type Counts = (String, u64, u64, u64, u64);

/// `summary --format json -j1` of `path`, as a process: the counts of each session, and what
/// it printed on stderr.
fn summary_counts(path: &Path) -> (Vec<Counts>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(["summary", "--format", "json", "-j1"])
        .arg(path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = |s: &serde_json::Value, k: &str| s[k].as_u64().unwrap_or(u64::MAX);
    let rows = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let format = s["format"].as_str().unwrap_or_default().to_owned();
            let counts = ["turns", "calls", "results", "warnings"].map(|k| n(s, k));
            (format, counts[0], counts[1], counts[2], counts[3])
        })
        .collect();
    (rows, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn claude_code_metadata_records_of_newer_versions() {
    // Newer versions write session metadata records: the permission mode (often the first
    // line), titles (`/rename` writes `custom-title` and `agent-name`; `ai-title`), the last
    // prompt, linked pull requests, hook output (`attachment`). stream-json with
    // `--include-partial-messages` writes a `stream_event` line per delta, and `rate_limit_event`.
    // Such files are transcripts, read as without those records, with the rename as the title.
    let dir = tempfile::tempdir().unwrap();
    let rel = "claude-code/projects/-Users-pete-tmp-claude-code-sessions/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl";
    let sid = "4b2030ed-5563-49ea-b703-6a002f2d3cc8";
    let meta = |kind: &str, fields: &str| {
        format!("{{\"type\":\"{kind}\",{fields}\"sessionId\":\"{sid}\"}}\n")
    };
    let transcript = [
        meta("permission-mode", r#""permissionMode":"default","#),
        std::fs::read_to_string(formats().join(rel)).unwrap(),
        meta("ai-title", r#""aiTitle":"Popular Thai curry colors","#),
        meta("custom-title", r#""customTitle":"thai curry","#),
        meta("agent-name", r#""agentName":"thai curry","#),
        meta("ai-title", r#""aiTitle":"Thai curry search","#),
        meta("last-prompt", r#""lastPrompt":"spawn a subagent","#),
        meta(
            "pr-link",
            r#""prNumber":1,"prUrl":"https://github.com/o/r/pull/1","#,
        ),
        meta(
            "attachment",
            r#""attachment":{"type":"hook_success"},"uuid":"u1","#,
        ),
        meta("mode", r#""mode":"normal","#),
    ]
    .concat();
    let stream: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(formats().join("claude-code/stream-json/sample-turns.json"))
            .unwrap(),
    )
    .unwrap();
    let lines = |with_events: bool| {
        let mut out = String::new();
        for (i, r) in stream.iter().enumerate() {
            if with_events && r["type"] == "assistant" {
                for delta in ["message_start", "content_block_delta", "message_stop"] {
                    let e = serde_json::json!({"type": "stream_event", "event": {"type": delta},
                        "session_id": "sample-session-id", "parent_tool_use_id": null});
                    out += &format!("{e}\n");
                }
            }
            out += &format!("{r}\n");
            if with_events && i == 0 {
                out += "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed\"},\"session_id\":\"sample-session-id\"}\n";
            }
        }
        out
    };
    let files = [
        (
            "plain.jsonl",
            std::fs::read_to_string(formats().join(rel)).unwrap(),
        ),
        ("newer.jsonl", transcript.clone()),
        ("stream.jsonl", lines(false)),
        ("partial.jsonl", lines(true)),
    ];
    for (name, text) in &files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let read = |name: &str| summary_counts(&dir.path().join(name));
    for (plain, with_records) in [
        ("plain.jsonl", "newer.jsonl"),
        ("stream.jsonl", "partial.jsonl"),
    ] {
        let (want, _) = read(plain);
        let (got, stderr) = read(with_records);
        assert_eq!(want[0].0, "claude-code");
        assert_eq!(want[0].4, 0, "{plain}");
        assert_eq!(got, want, "{with_records}: {stderr}");
    }
    let s = load_file_sessions(&dir.path().join("newer.jsonl"), &LoadOptions::default()).remove(0);
    let title = s.header.as_ref().and_then(|h| h.title.as_deref());
    assert_eq!(
        title,
        Some("thai curry"),
        "the rename wins over the AI's titles"
    );

    // A record type no version wrote before: one warning, at its first line, not one per line.
    let future = transcript + &meta("session-goal", r#""goal":"x","#).repeat(3);
    std::fs::write(dir.path().join("future.jsonl"), &future).unwrap();
    let (got, stderr) = read("future.jsonl");
    assert_eq!(got[0].4, 1, "{stderr}");
    let first = future
        .lines()
        .position(|l| l.contains("session-goal"))
        .unwrap()
        + 1;
    assert!(
        stderr.contains(&format!(
            "future.jsonl:{first}:1: warning: $.type: unknown record type `session-goal`"
        )),
        "{stderr}"
    );
}

#[test]
fn langfuse_newer_downloads_and_api_traces_read_as_the_export() {
    // Langfuse's newer trace view downloads `{observations, scores}` (no `trace` object; each
    // observation names its trace and `traceName`, input and output as JSON text), and the
    // public API's trace (`GET /api/public/traces/{id}`) is the trace's fields with its
    // `observations`. Both hold what the `{trace, observations}` export holds.
    let dir = tempfile::tempdir().unwrap();
    let calls = |s: &Session| -> Vec<(String, String, Option<String>)> {
        s.calls
            .iter()
            .map(|c| {
                let r = s.result(&c.id).and_then(|r| r.block_text(0));
                (c.id.to_string(), c.tool().to_owned(), r.map(str::to_owned))
            })
            .collect()
    };
    let users =
        |s: &Session| -> Vec<String> { s.turns.iter().map(|t| t.user.to_string()).collect() };
    let answers =
        |s: &Session| -> Vec<String> { s.answers.iter().map(|a| a.text.to_string()).collect() };
    let title = |s: &Session| s.header.as_ref().and_then(|h| h.title.clone());
    let mut read = 0;
    for e in std::fs::read_dir(formats().join("langfuse-trace-export")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let export: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let trace = export["trace"].clone();
        let mut observations = export["observations"].as_array().unwrap().clone();
        for o in &mut observations {
            o["traceName"] = trace["name"].clone();
            for k in ["input", "output"] {
                if !o[k].is_null() && !o[k].is_string() {
                    o[k] = o[k].to_string().into();
                }
            }
        }
        let newer = serde_json::json!({"observations": observations, "scores": []});
        let mut api = trace.clone();
        api["observations"] = export["observations"].clone();
        api.as_object_mut().unwrap().remove("projectId");
        let want = one(&format!(
            "langfuse-trace-export/{}",
            p.file_name().unwrap().to_string_lossy()
        ));
        for (name, doc) in [("newer.json", newer), ("api.json", api)] {
            let f = dir.path().join(name);
            std::fs::write(&f, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
            let got = load_file_sessions(&f, &LoadOptions::default());
            assert_eq!(got.len(), 1, "{name} of {}", p.display());
            assert_eq!(got[0].format(), "langfuse", "{name} of {}", p.display());
            assert!(errors(&got[0]).is_empty(), "{:?}", got[0].diagnostics);
            let (got, at) = (&got[0], format!("{name} of {}", p.display()));
            assert_eq!((got.id(), title(got)), (want.id(), title(&want)), "{at}");
            assert_eq!(calls(got), calls(&want), "{at}");
            assert_eq!(answers(got), answers(&want), "{at}");
            assert!(!got.calls.is_empty() || !got.answers.is_empty(), "{at}");
            // The trace's own input (a user message when no model call recorded one) is not
            // in the newer download.
            if name == "api.json" {
                assert_eq!(users(got), users(&want), "{at}");
            }
        }
        read += 1;
    }
    assert!(read >= 6);
}

/// A Gemini response as the google-genai Python SDK writes it (`to_json_dict()`,
/// `model_dump_json()`: pydantic field names): every key in snake_case but those inside
/// `args` and `response`, which are the caller's own JSON.
fn python_sdk_keys(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let mut key = String::new();
                    for c in k.chars() {
                        if c.is_ascii_uppercase() {
                            key.push('_');
                        }
                        key.push(c.to_ascii_lowercase());
                    }
                    let v = match k.as_str() {
                        "args" | "response" => v.clone(),
                        _ => python_sdk_keys(v),
                    };
                    (key, v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(python_sdk_keys).collect()),
        other => other.clone(),
    }
}

#[test]
fn gemini_responses_the_python_sdk_wrote_read_as_the_api_wrote_them() {
    let rel = "gemini-grounding/prism-search-grounding-1.json";
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(formats().join(rel)).unwrap()).unwrap();
    let tools = serde_json::json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Let me check."},
        {"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"cityName": "Paris"}}},
        {"executableCode": {"language": "PYTHON", "code": "print(1 + 1)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n"}}
    ]}, "finishReason": "STOP"}], "modelVersion": "gemini-2.5-flash", "responseId": "r-2"});
    let sessions = |v: &serde_json::Value| {
        let bytes = serde_json::to_vec_pretty(v).unwrap();
        load_any_bytes("g", "g.json", &bytes, &LoadOptions::default()).remove(0)
    };
    for api in [doc.clone(), streamed_chunks(&doc, 3), tools] {
        let sdk = python_sdk_keys(&api);
        assert_ne!(sdk, api);
        let (want, got) = (sessions(&api), sessions(&sdk));
        assert_eq!(got.format(), "gemini");
        assert!(errors(&got).is_empty(), "{:?}", got.diagnostics);
        assert!(!want.calls.is_empty());
        assert_eq!(call_rows(&got), call_rows(&want));
        let answers = |s: &Session| {
            s.answers
                .iter()
                .map(|a| a.text.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(answers(&got), answers(&want));
        let model = |s: &Session| s.header.as_ref().and_then(|h| h.model.clone());
        assert_eq!(model(&got), model(&want));
        assert_eq!(got.claim_count(), want.claim_count());
        for (a, b) in got.claims().zip(want.claims()) {
            assert_eq!(a.stamp.claim_text, b.stamp.claim_text);
            assert_eq!(a.stamp.span, b.stamp.span);
            let origin = |c: &Claim| c.stamp.origin.as_ref().map(|o| o.tool_call_id.to_string());
            assert_eq!(origin(a), origin(b));
            // The path names the keys as the file spells them.
            let path = |c: &Claim| c.json_path.as_deref().unwrap_or_default().to_owned();
            assert_eq!(
                path(a),
                path(b)
                    .replace("groundingMetadata", "grounding_metadata")
                    .replace("groundingSupports", "grounding_supports")
            );
            assert!(
                path(a).contains(".grounding_metadata.grounding_supports["),
                "{}",
                path(a)
            );
        }
    }
}

#[test]
fn claude_desktop_mcp_log_of_several_servers_gives_a_session_per_server() {
    // The app's mcp.log holds every server's messages, `<time> [<level>] [<server>] ...`. Built
    // from the real weather log: its lines with the level first, as themselves, and interleaved
    // (a message with its continuation lines at a time) with the same traffic of a second
    // server, `forecast`, whose JSON-RPC ids are the same numbers.
    let log = std::fs::read_to_string(formats().join("claude-desktop-log/mcp-server-weather.log"))
        .unwrap();
    let mut groups: Vec<Vec<&str>> = Vec::new();
    for line in log.lines() {
        match (line.split_once(" [weather] ["), groups.last_mut()) {
            (None, Some(g)) => g.push(line),
            _ => groups.push(vec![line]),
        }
    }
    let as_mcp_log = |g: &[&str], server: &str| -> String {
        g.iter()
            .map(|l| match l.split_once(" [weather] [") {
                Some((time, rest)) => {
                    let (level, msg) = rest.split_once("] ").unwrap();
                    format!("{time} [{level}] [{server}] {msg}\n")
                }
                None => format!("{l}\n"),
            })
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    let one_server: String = groups.iter().map(|g| as_mcp_log(g, "weather")).collect();
    let two: String = groups
        .iter()
        .map(|g| as_mcp_log(g, "weather") + &as_mcp_log(g, "forecast"))
        .collect();
    std::fs::write(dir.path().join("one.log"), one_server).unwrap();
    std::fs::write(dir.path().join("mcp.log"), two).unwrap();
    let want = one("claude-desktop-log/mcp-server-weather.log");
    assert!(want.calls.len() >= 3);
    let got = load_file_sessions(&dir.path().join("one.log"), &LoadOptions::default());
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].id(), want.id());
    assert_eq!(call_rows(&got[0]), call_rows(&want));
    assert_eq!(notes(&got[0]), notes(&want));
    let got = load_file_sessions(&dir.path().join("mcp.log"), &LoadOptions::default());
    let ids: Vec<&str> = got.iter().map(|s| s.id()).collect();
    assert_eq!(ids, ["claude-desktop:weather", "claude-desktop:forecast"]);
    // Told apart by name too (summary's and the sessions list's first column); a log of one
    // server keeps the file's name.
    let names: Vec<&str> = got.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["mcp#weather", "mcp#forecast"]);
    assert_eq!(
        load_file_sessions(&dir.path().join("one.log"), &LoadOptions::default())[0].name,
        "one"
    );
    for (s, server) in got.iter().zip(["weather", "forecast"]) {
        assert_eq!(s.format(), "claude-desktop-log");
        assert!(s.calls.iter().all(|c| c.server == server), "{server}");
        assert_eq!(call_rows(s), call_rows(&want), "{server}");
        assert_eq!(s.turns.len(), want.turns.len(), "{server}");
        let mut n = notes(s);
        assert!(n.iter().any(|x| x.contains("several servers")));
        n.retain(|x| !x.contains("several servers"));
        assert_eq!(n, notes(&want), "{server}");
    }
}

#[test]
fn claude_code_compaction_summary_is_no_user_turn() {
    // A compaction (`/compact`, or automatic when the context fills) writes a
    // `compact_boundary` system record and the summary as a user message marked
    // `isCompactSummary`; the agent then goes on with the same request.
    let rel = "claude-code/projects/-Users-pete-tmp-claude-code-sessions/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl";
    let sid = "4b2030ed-5563-49ea-b703-6a002f2d3cc8";
    let want = one(rel);
    let extra = [
        serde_json::json!({"type": "system", "subtype": "compact_boundary", "sessionId": sid,
            "content": "Conversation compacted", "timestamp": "2026-01-21T20:55:00.000Z",
            "compactMetadata": {"trigger": "auto", "preTokens": 160000}}),
        serde_json::json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
            "sessionId": sid, "timestamp": "2026-01-21T20:55:00.100Z",
            "message": {"role": "user", "content": "This session is being continued from a previous conversation that ran out of context. Summary: the user asked for the most popular Thai curry."}}),
        serde_json::json!({"type": "assistant", "sessionId": sid, "timestamp": "2026-01-21T20:55:02.000Z",
            "message": {"id": "msg_after_compact", "role": "assistant", "model": "claude-opus-4-5-20251101",
                "content": [{"type": "text", "text": "Green curry is the most popular."}]}}),
    ];
    let mut text = std::fs::read_to_string(formats().join(rel)).unwrap();
    for r in &extra {
        text += &format!("{r}\n");
    }
    let s = load_any_bytes("c", "c.jsonl", text.as_bytes(), &LoadOptions::default()).remove(0);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let users = |s: &Session| {
        s.turns
            .iter()
            .map(|t| t.user.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(users(&s), users(&want), "the summary is no turn");
    let last = s.answers.last().unwrap();
    assert_eq!(last.turn, want.answers.last().unwrap().turn);
    assert!(last.text.ends_with("Green curry is the most popular."));
}

#[test]
fn anthropic_response_the_python_sdk_wrote_with_a_long_content() {
    // The Python SDK's `Message.to_json()` writes its fields in the model's order: `id`,
    // `container`, `content`, `model`, `role`, ..., `type`. With web search results the content
    // is often longer than the 64 KiB head detection reads, which then holds no `type` or
    // `role`: the message id before `content` says what the file is.
    let rel = "anthropic-messages/anthropic-web-search-tool.1.json";
    let api: serde_json::Value =
        serde_json::from_slice(&std::fs::read(formats().join(rel)).unwrap()).unwrap();
    let order = [
        "id",
        "container",
        "content",
        "model",
        "role",
        "stop_reason",
        "stop_sequence",
        "type",
        "usage",
    ];
    let mut sdk = serde_json::Map::new();
    for k in order {
        if let Some(v) = api.get(k) {
            sdk.insert(k.to_owned(), v.clone());
        }
    }
    for (k, v) in api.as_object().unwrap() {
        sdk.entry(k.clone()).or_insert_with(|| v.clone());
    }
    // Encrypted contents as long as real ones (a few KiB each).
    for b in sdk["content"].as_array_mut().unwrap() {
        for r in b["content"].as_array_mut().into_iter().flatten() {
            if let Some(e) = r.get("encrypted_content").and_then(|e| e.as_str()) {
                r["encrypted_content"] = e.repeat(40).into();
            }
        }
    }
    let text = serde_json::to_string_pretty(&sdk).unwrap();
    assert!(text.find("\"role\"").unwrap() > 64 * 1024);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("message.json");
    std::fs::write(&f, &text).unwrap();
    let want = one(rel);
    let got = load_file_sessions(&f, &LoadOptions::default());
    assert_eq!(got.len(), 1);
    let got = &got[0];
    assert_eq!(got.format(), "anthropic-messages");
    assert!(errors(got).is_empty(), "{:?}", got.diagnostics);
    let ids = |s: &Session| s.calls.iter().map(|c| c.id.to_string()).collect::<Vec<_>>();
    assert_eq!(ids(got), ids(&want));
    assert_eq!(got.claim_count(), want.claim_count());
    assert!(want.claim_count() > 0);
    for (a, b) in got.claims().zip(want.claims()) {
        assert_eq!(a.stamp.claim_text, b.stamp.claim_text);
        let origin = |c: &Claim| c.stamp.origin.as_ref().map(|o| o.tool_call_id.to_string());
        assert_eq!(origin(a), origin(b));
    }
    // The API's order reads as before; an OpenAI thread message (also `msg_`) is no Anthropic
    // message.
    std::fs::write(&f, serde_json::to_string_pretty(&api).unwrap()).unwrap();
    assert_eq!(
        load_file_sessions(&f, &LoadOptions::default())[0].format(),
        "anthropic-messages"
    );
    let thread = r#"{"id": "msg_abc123", "object": "thread.message", "created_at": 1698983503, "thread_id": "thread_abc123", "role": "assistant", "content": [{"type": "text", "text": {"value": "Hi", "annotations": []}}]}"#;
    std::fs::write(&f, thread).unwrap();
    assert_ne!(
        load_file_sessions(&f, &LoadOptions::default())[0].format(),
        "anthropic-messages"
    );
}

/// `verify`'s reports say which importer read a file and who made each stamp: the JSON's
/// session `format` and claim `provenance`, SARIF results' and JUnit suites' `format`, and the
/// text heading of an imported session; and a claim finding's stamp: SARIF's `stamp`, a line of
/// the JUnit failure and `(derived stamp)` in the text, for a derived stamp only.
#[test]
fn verify_reports_name_the_importer_and_each_stamps_provenance() {
    let gemini = formats().join("gemini-grounding/test_google_model_web_search_tool.yaml");
    let native = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/04-stale-cache.jsonl");
    let (gemini, native) = (gemini.to_str().unwrap(), native.to_str().unwrap());
    let o = provscope(&[
        "verify",
        "--format",
        "json",
        "--fail-on",
        "never",
        gemini,
        native,
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    let provenances = |s: &serde_json::Value| -> Vec<String> {
        s["claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["provenance"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(sessions[0]["format"], "gemini");
    let derived = provenances(&sessions[0]);
    assert_eq!(derived.len(), 11);
    assert!(derived.iter().all(|p| p == "derived"), "{derived:?}");
    assert_eq!(sessions[1]["format"], "provscope");
    let declared = provenances(&sessions[1]);
    assert!(!declared.is_empty());
    assert!(declared.iter().all(|p| p == "declared"), "{declared:?}");
    // Keys in the documented order: `format` after `file` and before `metrics`.
    let text = String::from_utf8_lossy(&o.stdout);
    let first = &text[text.find("\"sessions\"").unwrap()..];
    let at = |k: &str| first.find(&format!("\"{k}\"")).unwrap();
    assert!(at("file") < at("format") && at("format") < at("metrics"));

    // SARIF: each result's properties name the importer.
    let o = provscope(&[
        "verify",
        "--format",
        "sarif",
        "--fail-on",
        "never",
        gemini,
        native,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let format_of = |file: &str| -> Vec<&str> {
        results
            .iter()
            .filter(|r| {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .ends_with(file)
            })
            .map(|r| r["properties"]["format"].as_str().unwrap())
            .collect()
    };
    let g = format_of("test_google_model_web_search_tool.yaml");
    assert!(!g.is_empty() && g.iter().all(|f| *f == "gemini"), "{g:?}");
    // ... and a claim finding's properties its stamp's provenance (null for a session finding).
    let stamps = |file: &str| -> Vec<(bool, serde_json::Value)> {
        results
            .iter()
            .filter(|r| {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .ends_with(file)
            })
            .map(|r| {
                let p = &r["properties"];
                (p["claim_id"].is_string(), p["stamp"].clone())
            })
            .collect()
    };
    for (file, want) in [
        ("test_google_model_web_search_tool.yaml", "derived"),
        ("04-stale-cache.jsonl", "declared"),
    ] {
        let s = stamps(file);
        assert!(s.iter().any(|(claim, _)| *claim), "{file}: {s:?}");
        for (claim, stamp) in &s {
            if *claim {
                assert_eq!(stamp, want, "{file}");
            } else {
                assert!(stamp.is_null(), "{file}");
            }
        }
    }
    let n = format_of("04-stale-cache.jsonl");
    assert!(
        !n.is_empty() && n.iter().all(|f| *f == "provscope"),
        "{n:?}"
    );

    // JUnit: each session's suite names its importer in its properties, before its cases.
    let o = provscope(&[
        "verify",
        "--format",
        "junit",
        "--fail-on",
        "never",
        gemini,
        native,
    ]);
    let xml = String::from_utf8_lossy(&o.stdout);
    for (suite, format) in [
        ("test_google_model_web_search_tool", "gemini"),
        ("04-stale-cache", "provscope"),
    ] {
        let at = xml.find(&format!("<testsuite name=\"{suite}\"")).unwrap();
        let rest = &xml[at..];
        let property = format!(
            "<properties>\n      <property name=\"format\" value=\"{format}\"/>\n    </properties>"
        );
        let p = rest.find(&property).unwrap_or_else(|| panic!("{xml}"));
        assert!(p < rest.find("<testcase").unwrap(), "{xml}");
    }
    // A failing case's body says when its stamp was derived (declared, the default, is not
    // marked).
    let o = provscope(&[
        "verify",
        "--format",
        "junit",
        "--fail-on",
        "warning",
        gemini,
        native,
    ]);
    let xml = String::from_utf8_lossy(&o.stdout);
    let suite = |name: &str| -> String {
        let at = xml.find(&format!("<testsuite name=\"{name}\"")).unwrap();
        let rest = &xml[at..];
        rest[..rest.find("</testsuite>").unwrap()].to_owned()
    };
    // (The body is XML: the apostrophe is escaped.)
    let derived_line = "stamp derived from the model API&apos;s citation";
    let g = suite("test_google_model_web_search_tool");
    let failures = g.matches("<failure ").count();
    assert!(failures > 0, "{g}");
    assert_eq!(g.matches(derived_line).count(), failures, "{g}");
    let n = suite("04-stale-cache");
    assert!(n.contains("<failure ") && !n.contains(derived_line), "{n}");

    let o = provscope(&["verify", "--fail-on", "never", gemini, native]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .any(|l| l.starts_with("test_google_model_web_search_tool  (gemini)  11 claims")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("04-stale-cache  6 claims")),
        "{out}"
    );
    // A claim finding's line marks a derived stamp, not a declared one.
    let (g, n) = out.split_at(out.find("04-stale-cache  6 claims").unwrap());
    assert!(g.contains(" (derived stamp): "), "{out}");
    assert!(
        g.lines()
            .filter(|l| l.contains(" claim "))
            .all(|l| l.contains(" (derived stamp): ")),
        "{out}"
    );
    assert!(
        n.contains(" claim ") && !n.contains("derived stamp"),
        "{out}"
    );
}
