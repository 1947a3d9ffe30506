//! Importers on shapes of real files they once read wrong (issue 12): the inputs are in
//! tests/inputs/ (edited copies of real files, or built from the formats' documentation; see its
//! SOURCES.md) or generated here.

use provscope::ingest::{load_file_sessions, LoadOptions};
use provscope::model::{DiagLevel, Session};
use std::path::{Path, PathBuf};

/// The folder of edited and built inputs.
pub fn inputs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs")
}

fn load(rel: &str) -> Vec<Session> {
    load_file_sessions(&inputs().join(rel), &LoadOptions::default())
}

fn warnings(s: &Session) -> Vec<String> {
    s.diagnostics
        .iter()
        .filter(|d| d.level == DiagLevel::Warning)
        .map(|d| d.to_string())
        .collect()
}

fn notes(s: &Session) -> Vec<String> {
    s.import
        .as_ref()
        .map(|i| i.notes.iter().map(|n| n.to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn claude_code_synthetic_messages_are_no_answer_of_the_model() {
    // The real transcript 4b2030ed with a resume ("Continue from where you left off." and
    // Claude Code's "No response requested.") and a second question whose API call failed
    // (Claude Code writes the error as an assistant message of model `<synthetic>`).
    let mut v = load("claude-code/synthetic-messages.jsonl");
    assert_eq!(v.len(), 1);
    let s = v.remove(0);
    assert_eq!(s.format(), "claude-code");
    let users: Vec<String> = s.turns.iter().map(|t| t.user.to_string()).collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1], "and which one is the mildest?");
    // Only the model's answer to the first question; the second turn has none.
    assert_eq!(s.answers.len(), 1, "{:?}", s.answers);
    let a = &s.answers[0];
    assert_eq!(a.turn, s.turns[0].index);
    assert!(a.text.ends_with("due to milder spice levels"), "{}", a.text);
    for not in ["No response requested.", "API Error", "Overloaded"] {
        assert!(!a.text.contains(not), "{not} in {}", a.text);
    }
    // The API error is a warning at its line, saying who wrote it.
    let w = warnings(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("synthetic-messages.jsonl:16:1: warning: $.message.content[0].text: an API error (HTTP 529) written by Claude Code, not by the model: \"API Error: 529"),
        "{}",
        w[0]
    );
    assert!(s.diagnostics.iter().all(|d| d.level != DiagLevel::Error));
    assert!(
        notes(&s)
            .iter()
            .any(|n| n.contains("No response requested.")),
        "{:?}",
        notes(&s)
    );
    // The model is the one that answered, never `<synthetic>`.
    let h = s.header.as_ref().unwrap();
    assert_eq!(h.model.as_deref(), Some("claude-opus-4-5-20251101"));
}
