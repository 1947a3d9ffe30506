//! `provscope report`: the incident-review write-up of one session: timeline, every flagged
//! claim with its evidence and span, the grid classification with owner and next action, notes,
//! envelope status. Markdown, JSON or self-contained HTML (everything from the log escaped).

use crate::check::{Kind, SessionReport};
use crate::model::Session;
use crate::store::Classification;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt::Write;

/// Everything a report shows, as one JSON value (the `json` format, and the source of the others).
pub fn document(s: &Session, r: &SessionReport, classes: &[Classification]) -> Value {
    let class: HashMap<(&str, u32), &Classification> = classes
        .iter()
        .map(|c| ((c.claim_id.as_str(), c.turn), c))
        .collect();
    let unit = s.span_unit();
    let turns: Vec<Value> = s
        .turns
        .iter()
        .map(|t| {
            let calls: Vec<Value> = s
                .calls_in_turn(t.index)
                .map(|c| {
                    let res = s.result(&c.id);
                    let env = if r.findings.iter().any(|f| {
                        matches!(
                            f.kind,
                            Kind::EnvelopeInvalid | Kind::ResultTampered | Kind::EnvelopeMissing
                        ) && f.call_ids.contains(&c.id)
                    }) {
                        "failed"
                    } else if s.envelopes_for(&c.id).next().is_some() {
                        "verified"
                    } else {
                        "none"
                    };
                    json!({
                        "call_id": c.id, "server": c.server, "tool": c.tool(),
                        "tier": r.tiers.get(&c.server).map(|t| t.to_string()),
                        "issued_at": c.issued_at.to_string(),
                        "returned_at": res.map(|x| x.tag.returned_at.to_string()),
                        "error": res.is_some_and(|x| x.is_error()),
                        "envelope": env,
                    })
                })
                .collect();
            json!({
                "turn": t.index, "user": t.user, "calls": calls,
                "answer": s.answer(t.index).map(|a| a.text.clone()),
            })
        })
        .collect();
    let flagged: Vec<Value> = r
        .claims
        .iter()
        .filter(|c| !c.findings.is_empty())
        .map(|c| {
            let span = s.claim_history(&c.claim_id).find(|x| x.turn == c.turn).and_then(|x| {
                let sp = x.stamp.span?;
                let res = s.result(&x.stamp.origin.as_ref()?.tool_call_id)?;
                let t = res.block_text(sp.block)?;
                crate::model::span::resolve(t, sp.start, sp.end, unit).ok().map(|rg| t[rg].to_owned())
            });
            let cl = class.get(&(c.claim_id.as_str(), c.turn));
            let q = cl.map(|x| x.quadrant).or(c.quadrant);
            json!({
                "claim_id": c.claim_id, "turn": c.turn, "claim_text": c.claim_text, "call_id": c.call_id,
                "source_verdict": c.source_verdict, "fact_verdict": c.fact_verdict,
                "quadrant": q, "classified_by_hand": cl.is_some(),
                "verdict": q.map(|q| q.verdict()), "owner": cl.map(|x| x.owner.clone()).or(q.map(|q| q.owner().to_owned())),
                "next_action": cl.map(|x| x.next_action.clone()).or(q.map(|q| q.next_action().to_owned())),
                "note": cl.map(|x| x.note.clone()).filter(|n| !n.is_empty()),
                "reviewer": cl.map(|x| x.reviewer.clone()),
                "span": span,
                "findings": r.findings_for(c).map(|f| json!({"kind": f.kind, "severity": f.severity, "message": f.message, "evidence": f.evidence})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let h = s.header.as_ref();
    json!({
        "format": "provscope.report/1",
        "session_id": r.session_id, "file": r.file,
        "title": h.and_then(|h| h.title.clone()), "agent": h.and_then(|h| h.agent.clone()), "model": h.and_then(|h| h.model.clone()),
        "started_at": h.map(|h| h.started_at.to_string()),
        "metrics": r.metrics,
        "timeline": turns,
        "flagged_claims": flagged,
        "session_findings": r.findings.iter().filter(|f| f.claim_id.is_none()).map(|f| json!({"kind": f.kind, "severity": f.severity, "message": f.message, "call_ids": f.call_ids})).collect::<Vec<_>>(),
    })
}

fn s_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Markdown write-up.
pub fn markdown(doc: &Value) -> String {
    // Log text is untrusted: strip control sequences and neutralize Markdown/HTML metacharacters.
    let md = |v: &Value| -> String {
        let t = crate::text::one_line(&s_of(v)).into_owned();
        t.replace('\\', "\\\\")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('`', "\\`")
            .replace('|', "\\|")
            .replace('*', "\\*")
            .replace('_', "\\_")
            .replace('[', "\\[")
    };
    let mut o = String::new();
    let title = if doc["title"].is_null() {
        md(&doc["session_id"])
    } else {
        md(&doc["title"])
    };
    let _ = writeln!(o, "# Incident review: {title}\n");
    let _ = writeln!(
        o,
        "- Session: {} ({})",
        md(&doc["session_id"]),
        md(&doc["file"])
    );
    let _ = writeln!(
        o,
        "- Agent: {} · model: {} · started {}",
        md(&doc["agent"]),
        md(&doc["model"]),
        md(&doc["started_at"])
    );
    let m = &doc["metrics"];
    let pct = |v: &Value| {
        v.as_f64()
            .map_or("n/a".into(), |x| format!("{:.0}%", x * 100.0))
    };
    let _ = writeln!(
        o,
        "- Claims: {} · citation precision {} · wrong-source rate {}\n",
        m["claims"],
        pct(&m["citation_precision"]),
        pct(&m["wrong_source_rate"])
    );
    let _ = writeln!(o, "## Timeline\n");
    for t in doc["timeline"].as_array().into_iter().flatten() {
        let _ = writeln!(
            o,
            "### Turn {}\n\n**User:** {}\n",
            t["turn"],
            md(&t["user"])
        );
        for c in t["calls"].as_array().into_iter().flatten() {
            let _ = writeln!(
                o,
                "- `{}` {}/{} [{}] returned {} · envelope {}{}",
                md(&c["call_id"]).replace("\\`", "'"),
                md(&c["server"]),
                md(&c["tool"]),
                md(&c["tier"]),
                md(&c["returned_at"]),
                md(&c["envelope"]),
                if c["error"].as_bool() == Some(true) {
                    " · error"
                } else {
                    ""
                }
            );
        }
        let _ = writeln!(o, "\n**Answer:** {}\n", md(&t["answer"]));
    }
    let _ = writeln!(o, "## Flagged claims\n");
    let flagged = doc["flagged_claims"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if flagged.is_empty() {
        let _ = writeln!(o, "None.\n");
    }
    for c in &flagged {
        let _ = writeln!(
            o,
            "### {} (turn {})\n\n> {}\n",
            md(&c["claim_id"]),
            c["turn"],
            md(&c["claim_text"])
        );
        let _ = writeln!(
            o,
            "- Source {} · fact {} · cites {}",
            md(&c["source_verdict"]),
            md(&c["fact_verdict"]),
            md(&c["call_id"])
        );
        if !c["quadrant"].is_null() {
            let by = if c["classified_by_hand"].as_bool() == Some(true) {
                format!("classified by {}", md(&c["reviewer"]))
            } else {
                "computed".into()
            };
            let _ = writeln!(
                o,
                "- Grid: **{}** ({by}): {} · owner: {} · next action: {}",
                md(&c["quadrant"]),
                md(&c["verdict"]),
                md(&c["owner"]),
                md(&c["next_action"])
            );
        }
        if !c["note"].is_null() {
            let _ = writeln!(o, "- Note: {}", md(&c["note"]));
        }
        if !c["span"].is_null() {
            let _ = writeln!(o, "- Cited span: “{}”", md(&c["span"]));
        }
        for f in c["findings"].as_array().into_iter().flatten() {
            let _ = writeln!(
                o,
                "- **{}** ({}): {}",
                md(&f["kind"]),
                md(&f["severity"]),
                md(&f["message"])
            );
            for (k, v) in f["evidence"].as_object().into_iter().flatten() {
                let _ = writeln!(o, "  - {}: {}", md(&Value::String(k.clone())), md(v));
            }
        }
        o.push('\n');
    }
    o
}

/// HTML-escapes untrusted text (after removing control sequences).
pub fn escape(s: &str) -> String {
    crate::export::xml_escape(&crate::text::sanitize(s, true))
}

/// Self-contained HTML write-up: inline CSS, no scripts, no external resources.
pub fn html(doc: &Value) -> String {
    let e = |v: &Value| escape(&s_of(v));
    let mut o = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
    let title = if doc["title"].is_null() {
        e(&doc["session_id"])
    } else {
        e(&doc["title"])
    };
    let _ = writeln!(o, "<title>Incident review: {title}</title>");
    o.push_str("<style>body{font:14px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}code,.span{font-family:ui-monospace,monospace}.error{color:#b00020}.warning{color:#8a6d00}.info{color:#225}.span{background:#fff3b0;padding:0 .2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}.ev{color:#555;font-size:90%}</style></head><body>\n");
    let _ = writeln!(o, "<h1>Incident review: {title}</h1>");
    let _ = writeln!(
        o,
        "<p>Session <code>{}</code> ({}) · agent {} · model {} · started {}</p>",
        e(&doc["session_id"]),
        e(&doc["file"]),
        e(&doc["agent"]),
        e(&doc["model"]),
        e(&doc["started_at"])
    );
    let m = &doc["metrics"];
    let pct = |v: &Value| {
        v.as_f64()
            .map_or("n/a".into(), |x| format!("{:.0}%", x * 100.0))
    };
    let _ = writeln!(
        o,
        "<p>{} claims · citation precision {} · wrong-source rate {}</p>",
        e(&m["claims"]),
        pct(&m["citation_precision"]),
        pct(&m["wrong_source_rate"])
    );
    o.push_str("<h2>Timeline</h2>\n");
    for t in doc["timeline"].as_array().into_iter().flatten() {
        let _ = writeln!(o, "<h3>Turn {}</h3><p><b>User:</b> {}</p><table><tr><th>call</th><th>server/tool</th><th>tier</th><th>returned</th><th>envelope</th></tr>", e(&t["turn"]), e(&t["user"]));
        for c in t["calls"].as_array().into_iter().flatten() {
            let _ = writeln!(
                o,
                "<tr><td><code>{}</code></td><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                e(&c["call_id"]),
                e(&c["server"]),
                e(&c["tool"]),
                e(&c["tier"]),
                e(&c["returned_at"]),
                e(&c["envelope"])
            );
        }
        let _ = writeln!(o, "</table><p><b>Answer:</b> {}</p>", e(&t["answer"]));
    }
    o.push_str("<h2>Flagged claims</h2>\n");
    for c in doc["flagged_claims"].as_array().into_iter().flatten() {
        let _ = writeln!(
            o,
            "<h3>{} (turn {})</h3><blockquote>{}</blockquote>",
            e(&c["claim_id"]),
            e(&c["turn"]),
            e(&c["claim_text"])
        );
        let _ = writeln!(
            o,
            "<p>source {} · fact {} · cites <code>{}</code></p>",
            e(&c["source_verdict"]),
            e(&c["fact_verdict"]),
            e(&c["call_id"])
        );
        if !c["quadrant"].is_null() {
            let _ = writeln!(
                o,
                "<p>Grid: <b>{}</b>: {} · owner: {} · next action: {}</p>",
                e(&c["quadrant"]),
                e(&c["verdict"]),
                e(&c["owner"]),
                e(&c["next_action"])
            );
        }
        if !c["note"].is_null() {
            let _ = writeln!(o, "<p>Note: {}</p>", e(&c["note"]));
        }
        if !c["span"].is_null() {
            let _ = writeln!(
                o,
                "<p>Cited span: <span class=\"span\">{}</span></p>",
                e(&c["span"])
            );
        }
        o.push_str("<ul>\n");
        for f in c["findings"].as_array().into_iter().flatten() {
            let sev = match f["severity"].as_str() {
                Some("error") => "error",
                Some("warning") => "warning",
                _ => "info",
            };
            let _ = write!(
                o,
                "<li class=\"{sev}\"><b>{}</b> ({}): {}<ul class=\"ev\">",
                e(&f["kind"]),
                e(&f["severity"]),
                e(&f["message"])
            );
            for (k, v) in f["evidence"].as_object().into_iter().flatten() {
                let _ = write!(o, "<li>{}: {}</li>", escape(k), e(v));
            }
            o.push_str("</ul></li>\n");
        }
        o.push_str("</ul>\n");
    }
    o.push_str("</body></html>\n");
    o
}
