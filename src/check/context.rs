//! Context checks: what else was in context (ambiguous support), how it got there (flattened,
//! without per-call markers), and whether untrusted results try to steer the agent (injection).

use super::evidence::{self as ev, Evidence};
use super::finding::{Finding, Severity};
use super::{Checker, Resolved};
use crate::model::{Tier, ToolResult};
use std::collections::HashSet;

pub(crate) fn check<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) {
    ambiguous_support(ck, resolved);
    flattened_context(ck, resolved);
    injection_suspect(ck, resolved);
}

/// The call ids in context at a turn: the recorded context, or else the turn's results.
fn context_calls<'s>(ck: &Checker<'s>, turn: u32) -> Vec<&'s str> {
    match ck.s.context(turn) {
        Some(ctx) => ctx.results.iter().map(|e| e.call_id.as_str()).collect(),
        None => ck.s.results_in_turn(turn).map(|r| r.call_id()).collect(),
    }
}

fn ambiguous_support<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) {
    // The calls in context at the current turn, listed once per turn (claims come in turn
    // order), not once per claim.
    let mut in_context: Option<(u32, Vec<&'s str>)> = None;
    for r in resolved {
        let (Some(sup), Some(res)) = (&r.support, r.result) else {
            continue;
        };
        if !ck.in_scope(r.claim.turn) {
            continue;
        }
        if sup.keys == 0 || sup.score == 0.0 {
            continue; // only claims with concrete values can be told apart reliably
        }
        let cited = res.call_id();
        // "As well or better": the rival's whole text carries every value the span does and at
        // least as many of the claim's words as the cited result's whole text.
        let mut cited_words = None;
        let mut rivals = Vec::new();
        let turn = r.claim.turn;
        if in_context.as_ref().is_none_or(|(t, _)| *t != turn) {
            in_context = Some((turn, context_calls(ck, turn)));
        }
        let others = in_context.as_ref().map_or(&[][..], |(_, c)| c.as_slice());
        for &other_id in others {
            crate::probe::steps(1);
            if other_id == cited {
                continue;
            }
            let Some(other) = ck.s.result(other_id) else {
                continue;
            };
            // Cheap pre-filter: a rival must at least contain the digits of every number.
            if !r
                .keys
                .digits
                .iter()
                .all(|d| other.texts().any(|(_, t)| t.contains(d.as_str())))
            {
                continue;
            }
            let osup = r.keys.score(ck.result_index(other));
            if osup.score < sup.score {
                continue;
            }
            let cited_words =
                *cited_words.get_or_insert_with(|| r.keys.word_score(ck.result_index(res)));
            if r.keys.word_score(ck.result_index(other)) >= cited_words {
                rivals.push((other_id, other.tag.server.clone(), osup.score));
            }
        }
        if rivals.is_empty() {
            continue;
        }
        let names: Vec<String> = rivals
            .iter()
            .map(|(id, srv, _)| format!("`{id}` ({srv})"))
            .collect();
        let e = ev::AmbiguousSupport {
            cited_support: sup.score,
            rivals: rivals
                .iter()
                .map(|(id, srv, s)| ev::Rival {
                    call_id: (*id).to_owned(),
                    server: srv.to_string(),
                    support: *s,
                })
                .collect(),
        };
        let mut f = Finding::new(
            Evidence::AmbiguousSupport(e),
            Severity::Warning,
            format!(
                "also supported as well or better by {} in context: the binding to `{cited}` cannot be told apart",
                names.join(", ")
            ),
        )
        .claim(r.claim)
        .call(cited);
        for (id, _, _) in &rivals {
            f = f.call(*id);
        }
        ck.emit(f);
    }
}

/// The calls that entered a context without a per-call marker.
fn unmarked_calls(ctx: &crate::model::Context) -> Vec<&crate::model::Name> {
    ctx.results
        .iter()
        .inspect(|_| crate::probe::steps(1))
        .filter(|e| e.marker.is_none())
        .map(|e| &e.call_id)
        .collect()
}

fn flattened_context<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) {
    let mut reported_turns = HashSet::new();
    for r in resolved {
        let Some(o) = &r.claim.stamp.origin else {
            continue;
        };
        if !ck.in_scope(r.claim.turn) {
            continue;
        }
        let Some(ctx) = ck.s.context(r.claim.turn) else {
            continue;
        };
        let Some(entry) = ck.s.context_entry(r.claim.turn, &o.tool_call_id) else {
            continue;
        };
        if entry.marker.is_some() {
            continue;
        }
        let flat = unmarked_calls(ctx);
        reported_turns.insert(r.claim.turn);
        ck.emit(
            Finding::new(
                Evidence::FlattenedContext(ev::FlattenedContext {
                    unmarked_calls: flat.iter().map(|c| c.to_string()).collect(),
                }),
                Severity::Warning,
                format!(
                    "`{}` entered context without a per-call marker: this binding is reconstruction, not verification",
                    o.tool_call_id
                ),
            )
            .claim(r.claim)
            .call(&o.tool_call_id),
        );
    }
    for ctx in &ck.s.contexts {
        if reported_turns.contains(&ctx.turn) || !ck.in_scope(ctx.turn) {
            continue;
        }
        let flat = unmarked_calls(ctx);
        if flat.is_empty() {
            continue;
        }
        let mut f = Finding::new(
            Evidence::FlattenedContext(ev::FlattenedContext {
                unmarked_calls: flat.iter().map(|c| c.to_string()).collect(),
            }),
            Severity::Info,
            format!(
                "{} result(s) entered context without per-call markers",
                flat.len()
            ),
        )
        .turn(ctx.turn)
        .line(ctx.line);
        f = f.calls(flat);
        ck.emit(f);
    }
}

/// Phrases that address the agent rather than inform it.
const INSTRUCTIONS: [&str; 16] = [
    "ignore previous instructions",
    "ignore all previous",
    "ignore prior instructions",
    "ignore the above",
    "disregard previous",
    "disregard all prior",
    "disregard your instructions",
    "forget your instructions",
    "new instructions:",
    "system prompt",
    "you must tell the user",
    "tell the user that",
    "do not tell the user",
    "do not mention",
    "you are now",
    "as the assistant, you",
];

/// What in a result's text looks like an attempt to steer the agent or forge provenance.
pub(crate) fn injection_signals(r: &ToolResult) -> Vec<String> {
    let mut out = Vec::new();
    for (block, text) in r.texts() {
        let lower = text.to_lowercase();
        for p in INSTRUCTIONS {
            if lower.contains(p) {
                out.push(format!("block {block}: instruction \"{p}\""));
            }
        }
        if let Some(m) = citation_marker(text) {
            out.push(format!("block {block}: in-band citation marker {m}"));
        }
        for key in ["\"claim_id\"", "\"tool_call_id\"", "\"arguments_hash\""] {
            if text.contains(key) {
                out.push(format!("block {block}: stamp-like JSON ({key})"));
                break;
            }
        }
    }
    out
}

/// Finds a `[n]` citation marker (1-3 digits) in text.
fn citation_marker(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let mut j = i + 1;
            while j < b.len() && j - i <= 3 && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < b.len() && b[j] == b']' {
                return Some(&text[i..=j]);
            }
        }
        i += 1;
    }
    None
}

fn injection_suspect<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) {
    let mut suspects: Vec<(&'s str, Vec<String>, Tier)> = Vec::new();
    for r in &ck.s.results {
        let tier = ck.tier(r.tag.server.as_str());
        if !matches!(tier, Tier::T2 | Tier::T3 | Tier::Unknown) {
            continue;
        }
        let signals = injection_signals(r);
        if !signals.is_empty() {
            suspects.push((r.call_id(), signals, tier));
        }
    }
    // call id -> its first suspect.
    let mut suspect_of: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for (i, (id, _, _)) in suspects.iter().enumerate() {
        suspect_of.entry(*id).or_insert(i);
    }
    let mut claimed = HashSet::new();
    for r in resolved {
        let Some(o) = &r.claim.stamp.origin else {
            continue;
        };
        crate::probe::steps(1);
        let Some((id, signals, tier)) = suspect_of
            .get(o.tool_call_id.as_str())
            .map(|&i| &suspects[i])
        else {
            continue;
        };
        claimed.insert(*id);
        ck.emit(
            Finding::new(
                Evidence::InjectionSuspect(ev::InjectionSuspect {
                    tier: *tier,
                    signals: signals.clone(),
                }),
                Severity::Error,
                format!("backed only by `{id}`, an untrusted ({}) result that tries to instruct the agent", tier.label()),
            )
            .claim(r.claim)
            .call(*id),
        );
    }
    for (id, signals, tier) in suspects {
        if claimed.contains(id) {
            continue;
        }
        let Some(res) = ck.s.result(id) else { continue };
        ck.emit(
            Finding::new(
                Evidence::InjectionSuspect(ev::InjectionSuspect { tier, signals }),
                Severity::Warning,
                format!(
                    "untrusted ({}) result `{id}` contains text aimed at the agent",
                    tier.label()
                ),
            )
            .call(id)
            .turn(res.turn)
            .at(res),
        );
    }
}
