//! OpenAI Responses (`openai-responses`): the calls of tools the app runs itself. A custom tool
//! (`custom_tool_call`), the computer (`computer_call`), a shell (`local_shell_call`,
//! `shell_call`) and apply_patch (`apply_patch_call`) are called in a response, and their outputs
//! (`<type>_output`) come back in the next request, as they do for `function_call`. Built from
//! OpenAI's API reference as a VCR cassette of two interactions.

use crate::importers::{call_rows, errors, provscope, summary_rows};
use provscope::ingest::{load_any_bytes, LoadOptions};
use provscope::model::Session;
use serde_json::{json, Value};

/// The model's tool calls: one of each tool the app runs, and a reasoning item (no call).
fn calls() -> Vec<Value> {
    vec![
        json!({"type": "reasoning", "id": "rs_1", "summary": []}),
        json!({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_patch",
               "name": "apply_patch",
               "input": "*** Begin Patch\n*** Update File: README.md\n@@\n-Old\n+New\n*** End Patch"}),
        // An output names a local shell call by its item `id` (`lsh_1`), not its `call_id`.
        json!({"type": "local_shell_call", "id": "lsh_1", "call_id": "call_ls",
               "action": {"type": "exec", "command": ["ls", "-la"]}, "status": "completed"}),
        json!({"type": "computer_call", "id": "cu_1", "call_id": "call_shot",
               "action": {"type": "screenshot"}, "pending_safety_checks": [],
               "status": "completed"}),
        json!({"type": "shell_call", "id": "sh_1", "call_id": "call_sh",
               "action": {"commands": ["cat VERSION"]}, "status": "completed"}),
        json!({"type": "apply_patch_call", "id": "apc_1", "call_id": "call_ap",
               "operation": {"type": "update_file", "path": "CHANGES.md", "diff": "+2.4.1"},
               "status": "completed"}),
    ]
}

/// The outputs the app sends back in the next request, one per call.
fn outputs() -> Vec<Value> {
    vec![
        json!({"type": "custom_tool_call_output", "call_id": "call_patch",
               "output": "Success. Updated the following files:\nM README.md"}),
        json!({"type": "local_shell_call_output", "id": "lsh_1",
               "output": "{\"output\":\"README.md\\nVERSION\\n\"}"}),
        json!({"type": "computer_call_output", "call_id": "call_shot",
               "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}}),
        json!({"type": "shell_call_output", "call_id": "call_sh",
               "output": [{"stdout": "2.4.1\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]}),
        json!({"type": "apply_patch_call_output", "call_id": "call_ap", "status": "completed",
               "output": [{"type": "input_text", "text": "Done."}]}),
        // A reference to an earlier item: no call of its own.
        json!({"type": "item_reference", "id": "msg_0"}),
    ]
}

fn interaction(request: Value, response: Value) -> Value {
    json!({
        "request": {"body": request.to_string(), "headers": {}, "method": "POST",
                    "uri": "https://api.openai.com/v1/responses"},
        "response": {"body": {"string": response.to_string()}, "headers": {},
                     "status": {"code": 200, "message": "OK"}},
    })
}

/// The cassette: the question, the response calling the tools; the request replaying them with
/// their outputs, the response answering.
fn cassette() -> String {
    cassette_with(outputs())
}

/// [`cassette`] with these outputs in the second request.
fn cassette_with(outputs: Vec<Value>) -> String {
    let question = "Update the README and tell me the version.";
    let first = json!({"object": "response", "id": "resp_1", "created_at": 1764800000,
                       "model": "gpt-5", "output": calls()});
    let mut input = vec![json!({"role": "user", "content": question})];
    input.extend(calls());
    input.extend(outputs);
    let second = json!({"object": "response", "id": "resp_2", "created_at": 1764800010,
        "model": "gpt-5", "output": [{"type": "message", "id": "msg_2", "role": "assistant",
        "content": [{"type": "output_text", "text": "README updated; the version is 2.4.1.",
                     "annotations": []}]}]});
    let doc = json!({"interactions": [
        interaction(json!({"model": "gpt-5", "input": question}), first),
        interaction(json!({"model": "gpt-5", "input": input}), second),
    ], "version": 1});
    serde_yaml_ng::to_string(&doc).unwrap()
}

fn load(yaml: &str) -> Session {
    let mut v = load_any_bytes(
        "tools.yaml",
        "tools.yaml",
        yaml.as_bytes(),
        &LoadOptions::default(),
    );
    assert_eq!(v.len(), 1);
    v.remove(0)
}

#[test]
fn the_tools_the_app_runs_are_calls_with_the_outputs_of_the_next_request() {
    let s = load(&cassette());
    assert_eq!(s.format(), "openai-responses");
    assert!(errors(&s).is_empty(), "{:?}", errors(&s));
    assert_eq!(s.turns.len(), 1);
    let rows = call_rows(&s);
    let row = |id: &str| rows.iter().find(|r| r.0 == id).cloned().unwrap();
    assert_eq!(rows.len(), 5, "{rows:?}");
    // A custom tool's input is free text: its arguments are that text, as a JSON string.
    assert_eq!(
        row("call_patch"),
        (
            "call_patch".into(),
            "apply_patch".into(),
            Some(
                r#""*** Begin Patch\n*** Update File: README.md\n@@\n-Old\n+New\n*** End Patch""#
                    .into()
            ),
            Some("Success. Updated the following files:\nM README.md".into()),
        )
    );
    // The output named by the call's item id is the result of its call id.
    assert_eq!(
        row("call_ls"),
        (
            "call_ls".into(),
            "local_shell".into(),
            Some(r#"{"type":"exec","command":["ls","-la"]}"#.into()),
            Some(r#"{"output":"README.md\nVERSION\n"}"#.into()),
        )
    );
    assert_eq!(row("call_shot").1, "computer");
    assert_eq!(
        row("call_shot").2.as_deref(),
        Some(r#"{"type":"screenshot"}"#)
    );
    assert_eq!(row("call_sh").1, "shell");
    assert_eq!(row("call_ap").1, "apply_patch");
    assert_eq!(
        row("call_ap").2.as_deref(),
        Some(r#"{"type":"update_file","path":"CHANGES.md","diff":"+2.4.1"}"#)
    );
    assert_eq!(row("call_ap").3.as_deref(), Some("Done."));
    assert!(s.calls.iter().all(|c| c.server.as_str() == "app"));
    // Every call has its result: the screenshot as a block of its own type, the shell's
    // outcome as a block of its fields.
    assert_eq!(s.results.len(), 5);
    let shot = s.result("call_shot").unwrap();
    let block = &shot.response.result.as_ref().unwrap().content[0];
    assert_eq!(block.kind.as_str(), "computer_screenshot");
    assert!(block.extra_field("image_url").is_some());
    let sh = s.result("call_sh").unwrap();
    let block = &sh.response.result.as_ref().unwrap().content[0];
    assert_eq!(
        block.extra_field("stdout").map(|r| r.get()),
        Some(r#""2.4.1\n""#)
    );
    // The results came back in the second request, at its path.
    assert_eq!(
        sh.json_path.as_deref(),
        Some("$.interactions[1].request.body.input[10]")
    );
    assert_eq!(s.answers.len(), 1);
    assert_eq!(
        s.answers[0].text.as_str(),
        "README updated; the version is 2.4.1."
    );
}

#[test]
fn a_response_alone_holds_the_calls_without_results_and_no_reference_is_a_call() {
    let response = json!({"object": "response", "id": "resp_1", "created_at": 1764800000,
                          "model": "gpt-5", "output": calls()});
    let s = load(&response.to_string());
    assert_eq!(s.calls.len(), 5);
    assert!(s.results.is_empty());
    assert!(s.calls.iter().all(|c| !c.tool().is_empty()));
}

#[test]
fn an_output_without_a_call_id_is_an_error_at_its_path() {
    // Its own item id is no call's id: only a local shell call's output names its call by `id`.
    let mut outs = outputs();
    let out = outs[3].as_object_mut().unwrap();
    out.remove("call_id");
    out.insert("id".into(), json!("sho_1"));
    let s = load(&cassette_with(outs));
    let errs = errors(&s);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("interactions[1].request.body.input[10].call_id")
            && errs[0].contains("a shell_call_output without `call_id`; skipped"),
        "{errs:?}"
    );
    // The other outputs still load.
    assert_eq!(s.results.len(), 4);
    assert!(s.result("call_sh").is_none() && s.result("sho_1").is_none());
}

#[test]
fn summary_counts_the_app_run_calls_and_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.yaml");
    std::fs::write(&path, cassette()).unwrap();
    let rows = summary_rows(path.to_str().unwrap());
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["format"], "openai-responses");
    assert_eq!(rows[0]["calls"], 5);
    assert_eq!(rows[0]["results"], 5);
    assert_eq!(rows[0]["errors"], 0);
    let o = provscope(&["verify", path.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("call_ls"), "{out}");
}
