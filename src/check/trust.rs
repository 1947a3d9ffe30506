//! Trust beyond citations: results of untrusted servers that reached the model's context
//! (`untrusted_context`), tier grants whose scheduled review is overdue (`tier_review_overdue`),
//! and the TTLs that had to be defaulted (a diagnostic once per server).

use super::config::parse_policy;
use super::evidence::{self as ev, Evidence};
use super::finding::{Finding, Severity};
use super::{Checker, Resolved, TierSource, TtlSource};
use crate::model::{DiagLevel, Diagnostic, Tier};
use rustc_hash::FxHashMap as HashMap;

pub(crate) fn check<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) {
    untrusted_context(ck, resolved);
    review_overdue(ck, resolved);
}

/// Every turn with its calls in context: the recorded context, or else the turn's results.
fn contexts<'s>(ck: &Checker<'s>) -> Vec<(u32, u64, Vec<&'s str>)> {
    let s = ck.s;
    let mut turns: Vec<u32> = s.turns.iter().map(|t| t.index).collect();
    turns.extend(s.answers.iter().map(|a| a.turn));
    turns.extend(s.contexts.iter().map(|c| c.turn));
    turns.sort_unstable();
    turns.dedup();
    turns
        .into_iter()
        .map(|t| match s.context(t) {
            Some(ctx) => (
                t,
                ctx.line,
                ctx.results.iter().map(|e| e.call_id.as_str()).collect(),
            ),
            None => (t, 0, s.results_in_turn(t).map(|r| r.call_id()).collect()),
        })
        .collect()
}

/// `untrusted_context`: a recorded result from a server whose tier is below the session's
/// render policy (the header's, else `default_policy`), or that is declared nowhere, was in the
/// context of a turn, cited or not. Once per call, at the first turn it was in context.
fn untrusted_context<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) {
    let header_policy =
        ck.s.header
            .as_ref()
            .and_then(|h| h.render_policy.as_deref());
    let (policy, required) = match header_policy.and_then(|p| parse_policy(p).map(|n| (p, n))) {
        Some((p, n)) => (p.to_owned(), Some(n)),
        None => (
            ck.cfg.default_policy.clone(),
            parse_policy(&ck.cfg.default_policy),
        ),
    };
    let mut seen: HashMap<&'s str, usize> = HashMap::default();
    // (call, first turn, line, turns)
    let mut found: Vec<(&'s str, u32, u64, Vec<u32>)> = Vec::new();
    for (turn, line, calls) in contexts(ck) {
        for call in calls {
            if let Some(&i) = seen.get(call) {
                found[i].3.push(turn);
                continue;
            }
            seen.insert(call, found.len());
            found.push((call, turn, line, vec![turn]));
        }
    }
    // The claims citing each call, in claim order, indexed once (sessions have many calls).
    let mut citing: HashMap<&'s str, Vec<String>> = HashMap::default();
    let mut seen_pairs: rustc_hash::FxHashSet<(&str, &str)> = Default::default();
    for r in resolved {
        if let Some(o) = &r.claim.stamp.origin {
            if seen_pairs.insert((o.tool_call_id.as_str(), r.claim.id())) {
                citing
                    .entry(o.tool_call_id.as_str())
                    .or_default()
                    .push(r.claim.id().to_owned());
            }
        }
    }
    for (call, turn, line, turns) in found {
        let Some(res) = ck.s.result(call) else {
            continue; // only what reached the model: a recorded result
        };
        let server =
            ck.s.call(call)
                .map_or(res.tag.server.as_str(), |c| c.server.as_str());
        let t = ck.effective_tier(server);
        let denied = matches!(t.tier, Tier::T3 | Tier::Unknown);
        let below = required.is_some_and(|n| !t.tier.satisfies(n));
        let undeclared = t.from == TierSource::Undeclared;
        if !(denied || below || undeclared) {
            continue;
        }
        let cited_by: Vec<String> = citing.get(call).cloned().unwrap_or_default();
        // The playbook lets a declared T2 result enter context as background: informational.
        let severity = if denied || undeclared {
            Severity::Warning
        } else {
            Severity::Info
        };
        let why = if undeclared {
            "declared nowhere: not in the session header or provscope.toml".to_owned()
        } else if denied {
            format!("{}: denied by default", t.tier.label())
        } else {
            format!("{}, below the render policy `{policy}`", t.tier.label())
        };
        let cited = if cited_by.is_empty() {
            "; no claim cites it".to_owned()
        } else {
            String::new()
        };
        let e = ev::UntrustedContext {
            server: server.to_owned(),
            tier: t.tier,
            tier_from: t.from,
            policy: policy.clone(),
            turns,
            cited_by,
        };
        let f = Finding::new(
                Evidence::UntrustedContext(Box::new(e)),
                severity,
                format!(
                    "the result of `{call}` from `{server}` ({why}) was in the model's context at turn {turn}{cited}: source trust must gate what reaches context"
                ),
            )
        .call(call)
        .turn(turn);
        // A context without a line (an imported session has none) points at the result.
        ck.emit(if line == 0 { f.at(res) } else { f.line(line) });
    }
}

/// `tier_review_overdue`: the `[tiers]` entry that grants the cited server its tier has a
/// review schedule, and the claim's answer was generated after the review was due.
fn review_overdue<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) {
    if ck.cfg.tiers.iter().all(|r| r.review_every.is_none()) {
        return;
    }
    for r in resolved {
        let Some(o) = &r.claim.stamp.origin else {
            continue;
        };
        if !ck.in_scope(r.claim.turn) {
            continue;
        }
        let server = r.call.map_or(o.server.as_str(), |c| c.server.as_str());
        let Some(rule) = ck.cfg.tier_rule(server) else {
            continue;
        };
        let (Some(due), Some(reviewed), Some(every)) =
            (rule.review_due(), rule.reviewed, rule.review_every)
        else {
            continue;
        };
        let Some(a) = ck.s.answer(r.claim.turn) else {
            continue;
        };
        if a.generated_at <= due {
            continue;
        }
        let e = ev::TierReviewOverdue {
            server: server.to_owned(),
            pattern: rule.pattern.clone(),
            tier: rule.tier,
            reviewed,
            review_every_seconds: every,
            due,
            generated_at: a.generated_at,
        };
        let days = a.generated_at.millis_since(due) / 86_400_000;
        let msg = format!(
            "`{server}` holds {} from provscope.toml (`{}`), last reviewed {}; its review was due {} and is {days} day(s) overdue at answer time",
            rule.tier.label(),
            rule.pattern,
            date(reviewed),
            date(due),
        );
        ck.emit(
            Finding::new(
                Evidence::TierReviewOverdue(Box::new(e)),
                Severity::Warning,
                msg,
            )
            .claim(r.claim)
            .call(&o.tool_call_id),
        );
    }
}

fn date(t: crate::model::Timestamp) -> String {
    let s = t.to_string();
    s.get(..10).map_or(s.clone(), str::to_owned)
}

/// One diagnostic per server whose cited results carry no TTL (neither the ingestion tag nor
/// the stamp), naming the default that was applied. Imported sessions already say so in their
/// import notes.
pub(crate) fn ttl_diagnostics(ck: &Checker, resolved: &[Resolved]) -> Vec<Diagnostic> {
    if ck.s.import.is_some() {
        return Vec::new();
    }
    // server -> (first line, results), in order of first appearance; found through `at`.
    let mut by_server: Vec<(&str, u64, rustc_hash::FxHashSet<&str>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::default();
    for r in resolved {
        let (Some(o), Some(fr)) = (&r.claim.stamp.origin, &r.freshness) else {
            continue;
        };
        if fr.ttl_from != TtlSource::ConfigDefault {
            continue;
        }
        let server = r
            .result
            .map(|res| res.tag.server.as_str())
            .or(r.call.map(|c| c.server.as_str()))
            .unwrap_or(o.server.as_str());
        let line = r.result.map_or(r.claim.line, |res| res.line);
        let call = o.tool_call_id.as_str();
        crate::probe::steps(1);
        match at.get(server).and_then(|&i| by_server.get_mut(i)) {
            Some((_, l, calls)) => {
                *l = (*l).min(line);
                calls.insert(call);
            }
            None => {
                at.insert(server, by_server.len());
                by_server.push((server, line, std::iter::once(call).collect()));
            }
        }
    }
    by_server
        .into_iter()
        .map(|(server, line, calls)| Diagnostic {
            file: ck.s.source.clone(),
            line,
            column: 0,
            path: "tool_result.tag.ttl_seconds".into(),
            level: DiagLevel::Warning,
            message: format!(
                "server `{server}` gives no TTL for {} cited result(s) (neither the ingestion tag nor the stamp has `ttl_seconds`): the default of {} s (`default_ttl_seconds`) was applied",
                calls.len(),
                ck.cfg.default_ttl_seconds
            ),
        })
        .collect()
}

/// For an imported session (no format but provscope's own records tiers): one diagnostic naming
/// the servers whose tier is declared nowhere, which the playbook denies by default (every claim
/// citing them is a `below_tier` error, every result of theirs in context `untrusted_context`),
/// and the `[tiers]` lines of `provscope.toml` that declare them.
pub(crate) fn undeclared_tiers(ck: &Checker, findings: &[Finding]) -> Option<Diagnostic> {
    ck.s.import.as_ref()?;
    let mut servers: Vec<&str> = Vec::new();
    let (mut claims, mut results) = (0usize, 0usize);
    for f in findings {
        let server = match &f.evidence {
            Evidence::BelowTier(e) if e.tier == Tier::Unknown => {
                claims += 1;
                &e.server
            }
            Evidence::UntrustedContext(e) if e.tier == Tier::Unknown => {
                results += 1;
                &e.server
            }
            _ => continue,
        };
        // A dangling origin names no server: nothing to declare.
        if !server.is_empty() && !servers.contains(&server.as_str()) {
            servers.push(server);
        }
    }
    if servers.is_empty() {
        return None;
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let what = match (claims, results) {
        (0, r) => plural(
            r,
            "result in context comes from",
            "results in context come from",
        ),
        (c, 0) => plural(c, "claim cites", "claims cite"),
        (c, r) => format!(
            "{} and {}",
            plural(c, "claim cites", "claims cite"),
            plural(
                r,
                "result in context comes from",
                "results in context come from"
            )
        ),
    };
    let names: Vec<String> = servers.iter().map(|s| format!("`{s}`")).collect();
    // TOML strings, quoted and escaped by the serializer: a server name is untrusted text.
    let lines: Vec<String> = servers
        .iter()
        .map(|s| format!("{} = \"T1\"", toml::Value::String((*s).to_owned())))
        .collect();
    Some(Diagnostic {
        file: ck.s.source.clone(),
        line: 0,
        column: 0,
        path: String::new(),
        level: DiagLevel::Warning,
        message: format!(
            "{what} {} whose tier is declared nowhere ({}): the playbook denies an unclassified server by default, so these findings say nothing about the sources until you grant each server the tier you trust it with (T0 most trusted to T3; the default policy requires T1) under [tiers] in provscope.toml: {}",
            if servers.len() == 1 { "a server" } else { "servers" },
            names.join(", "),
            lines.join(", "),
        ),
    })
}
