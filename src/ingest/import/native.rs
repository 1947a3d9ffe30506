//! Writing a loaded session as a provscope session log (the loader's inverse), for
//! `provscope import --to provscope`: imported sessions become files anyone can keep or edit.

use crate::model::{Session, Timestamp};
use serde::Serialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::io::Write;

/// The optional `imported_from` field of the header: which importer read the original file.
#[derive(Serialize)]
struct ImportedFrom<'a> {
    format: &'a str,
    file: &'a str,
    notes: &'a [Cow<'static, str>],
}

fn ts(t: Timestamp) -> String {
    t.to_string()
}

/// Writes `s` as JSON Lines: header, then per turn its turn event, calls, results, context and
/// answer; then envelopes and labels. Machine output from serializers only.
pub fn write_session<W: Write>(s: &Session, w: &mut W) -> std::io::Result<()> {
    let mut line = |v: Value| -> std::io::Result<()> {
        serde_json::to_writer(&mut *w, &v)?;
        w.write_all(b"\n")
    };
    if let Some(h) = &s.header {
        let mut v = json!({"event": "session"});
        if let (Some(obj), Ok(Value::Object(hv))) = (v.as_object_mut(), serde_json::to_value(h)) {
            obj.extend(hv);
            if let Some(i) = &s.import {
                obj.insert(
                    "imported_from".into(),
                    serde_json::to_value(ImportedFrom {
                        format: i.format,
                        file: &s.source,
                        notes: &i.notes,
                    })?,
                );
            }
        }
        line(v)?;
    }
    let mut turns: Vec<u32> = s.turns.iter().map(|t| t.index).collect();
    for c in &s.calls {
        turns.push(c.turn);
    }
    for a in &s.answers {
        turns.push(a.turn);
    }
    turns.sort_unstable();
    turns.dedup();
    for t in turns {
        if let Some(turn) = s.turn(t) {
            let mut v = json!({"event": "turn", "turn": t, "user": turn.user});
            if let Some(at) = turn.started_at {
                v["started_at"] = ts(at).into();
            }
            if let Some(at) = turn.ended_at {
                v["ended_at"] = ts(at).into();
            }
            line(v)?;
        }
        for c in s.calls_in_turn(t) {
            let mut v = json!({"event": "tool_call", "turn": t, "server": c.server, "issued_at": ts(c.issued_at)});
            if let Some(f) = &c.fanout {
                v["fanout"] = f.as_str().into();
            }
            v["call_id"] = c.id.as_str().into();
            v["request"] = serde_json::to_value(&c.request)?;
            line(v)?;
        }
        for r in s.results_in_turn(t) {
            let mut v =
                json!({"event": "tool_result", "turn": t, "tag": r.tag, "response": r.response});
            if let Some(sub) = s.call(r.call_id()).and_then(|c| c.sub_session.as_deref()) {
                let mut link = json!({"session_id": sub.id});
                if let Some(p) = &sub.path {
                    link["path"] = p.clone().into();
                }
                v["sub_session"] = link;
            }
            line(v)?;
        }
        if let Some(c) = s.context(t) {
            line(json!({"event": "context", "turn": t, "results": c.results}))?;
        }
        if let Some(a) = s.answer(t) {
            let claims: Vec<&crate::model::Stamp> = a.claims.iter().map(|c| &c.stamp).collect();
            line(
                json!({"event": "answer", "turn": t, "generated_at": ts(a.generated_at), "text": a.text, "claims": claims}),
            )?;
        }
    }
    for e in &s.envelopes {
        let env: Value = serde_json::from_str(e.raw.get())?;
        let key = match e.form {
            crate::model::EnvelopeForm::Dsse => "envelope",
            crate::model::EnvelopeForm::ArkforgeReceipt => "receipt",
        };
        line(json!({"event": "envelope", "call_id": e.call_id, key: env}))?;
    }
    for l in &s.labels {
        let mut v = json!({"event": "label", "claim_id": l.claim_id, "fact": l.fact});
        if let Some(t) = l.turn {
            v["turn"] = t.into();
        }
        if let Some(src) = &l.source {
            v["source"] = src.as_str().into();
        }
        line(v)?;
    }
    Ok(())
}

/// A file name for a session: its name with anything but letters, digits, `-`, `_` and `.`
/// replaced by `_`, and `.jsonl` appended.
pub fn file_name(s: &Session) -> String {
    let base: String = s
        .name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = base.trim_start_matches('.');
    format!("{}.jsonl", if base.is_empty() { "session" } else { base })
}
