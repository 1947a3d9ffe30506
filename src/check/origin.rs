//! Per-stamp checks: does the origin resolve, agree with the record, cite a valid span that
//! supports the claim, from a fresh result of a trusted enough server?

use super::config::parse_policy;
use super::evidence::{self as ev, Disagreement, Evidence};
use super::finding::{Finding, Severity};
use super::support::{ClaimKeys, TextIndex};
use super::{Checker, Resolved};
use super::{CitedSpan, Freshness, Policy, PolicySource, TtlSource};
use crate::attest::hash::hash_matches;
use crate::model::span::resolve as resolve_span;
use crate::model::{human_duration, Claim, Tier, ToolResult};
use std::rc::Rc;

/// Resolves a claim's origin, span, freshness and render policy against the session; `keys`
/// are the claim's key tokens (`ClaimKeys::new` of its text).
pub(crate) fn resolve<'s>(ck: &Checker<'s>, c: &'s Claim, keys: Rc<ClaimKeys>) -> Resolved<'s> {
    let s = ck.s;
    let (call, result) = match &c.stamp.origin {
        Some(o) => (s.call(&o.tool_call_id), s.result(&o.tool_call_id)),
        None => (None, None),
    };
    let cited = match (result, &c.stamp.span) {
        (Some(r), Some(sp)) => r.block_text(sp.block).and_then(|t| {
            resolve_span(t, sp.start, sp.end, s.span_unit())
                .ok()
                .map(|range| CitedSpan {
                    call_id: r.tag.call_id.clone(),
                    block: sp.block,
                    range,
                })
        }),
        _ => None,
    };
    let span_text = match (result, &cited) {
        (Some(r), Some(cs)) => r.block_text(cs.block).and_then(|t| t.get(cs.range.clone())),
        _ => None,
    };
    let support = span_text.map(|t| keys.score(&TextIndex::new(t)));
    Resolved {
        claim: c,
        call,
        result,
        span_text,
        keys,
        support,
        cited,
        freshness: freshness(ck, c, result),
        policy: policy(ck, c),
    }
}

/// Freshness of the cited result when the claim's answer was generated: the TTL from the tag,
/// else the stamp, else the configured default.
fn freshness(ck: &Checker, c: &Claim, result: Option<&ToolResult>) -> Option<Freshness> {
    let o = c.stamp.origin.as_ref()?;
    let (fetched_at, served_at, cache_hit, ttl) = match result {
        Some(res) => (
            res.effective_fetched_at(),
            res.tag.fetched_at,
            res.tag.cache.hit,
            res.tag
                .ttl_seconds
                .map(|t| (t, TtlSource::Tag))
                .or(o.ttl_seconds.map(|t| (t, TtlSource::Stamp))),
        ),
        None => (
            o.fetched_at,
            o.fetched_at,
            false,
            o.ttl_seconds.map(|t| (t, TtlSource::Stamp)),
        ),
    };
    let (ttl_seconds, ttl_from) =
        ttl.unwrap_or((ck.cfg.default_ttl_seconds, TtlSource::ConfigDefault));
    let expires_at = fetched_at.plus_seconds(ttl_seconds);
    let generated = ck.s.answer(c.turn).map(|a| a.generated_at);
    Some(Freshness {
        fetched_at,
        served_at,
        cache_hit,
        ttl_seconds,
        ttl_from,
        expires_at,
        age_ms: generated.map(|g| g.millis_since(fetched_at)),
        stale: generated.is_some_and(|g| g > expires_at),
    })
}

/// The render policy of a claim: its stamp's, else the header's, else the configured default.
fn policy(ck: &Checker, c: &Claim) -> Policy {
    let (text, from) = match c.stamp.render.as_ref().and_then(|r| r.policy.clone()) {
        Some(p) => (p, PolicySource::Stamp),
        None => match ck
            .s
            .header
            .as_ref()
            .and_then(|h| h.render_policy.as_deref())
        {
            Some(p) => (p.into(), PolicySource::Header),
            None => (
                ck.cfg.default_policy.as_str().into(),
                PolicySource::ConfigDefault,
            ),
        },
    };
    Policy {
        required: parse_policy(&text),
        text,
        from,
    }
}

/// Runs the per-stamp checks.
pub(crate) fn check_claim<'s>(ck: &mut Checker<'s>, r: &Resolved<'s>) {
    let c = r.claim;
    let Some(o) = &c.stamp.origin else {
        unsourced(ck, c);
        return;
    };
    if r.result.is_none() {
        // Nothing to cite: no call at all, or a call whose result was never recorded.
        let (message, evidence) = match r.call {
            None => (
                format!(
                    "cites call `{}`, which is not in the session",
                    o.tool_call_id
                ),
                ev::DanglingOrigin {
                    tool_call_id: o.tool_call_id.to_string(),
                    recorded_calls: Some(ck.s.calls.len()),
                    reason: None,
                },
            ),
            Some(_) => (
                format!(
                    "cites call `{}`, which has no recorded result",
                    o.tool_call_id
                ),
                ev::DanglingOrigin {
                    tool_call_id: o.tool_call_id.to_string(),
                    recorded_calls: None,
                    reason: Some("call has no result".into()),
                },
            ),
        };
        let f = Finding::new(Evidence::DanglingOrigin(evidence), Severity::Error, message)
            .claim(c)
            .call(&o.tool_call_id);
        ck.emit(f);
        if r.call.is_none() {
            // The stamp's own server is the only one to judge; a stamp that names none (an
            // imported citation of a document sent in the request) has no tier to judge.
            if !o.server.is_empty() {
                below_tier(ck, r, &o.server);
            }
            return;
        }
    }
    origin_mismatch(ck, r);
    span_checks(ck, r);
    stale(ck, r);
    let server = r
        .call
        .map_or(o.server.as_str(), |call| call.server.as_str());
    below_tier(ck, r, server);
}

fn unsourced(ck: &mut Checker, c: &Claim) {
    let marker = c
        .stamp
        .render
        .as_ref()
        .and_then(|r| r.marker.as_deref())
        .filter(|m| !m.trim().is_empty());
    let f = match marker {
        Some(m) => Finding::new(
            Evidence::Unsourced(ev::Unsourced {
                marker: Some(m.to_owned()),
            }),
            Severity::Error,
            format!(
                "rendered with citation marker {m} but has no origin: a citation it did not earn"
            ),
        ),
        None => Finding::new(
            Evidence::Unsourced(ev::Unsourced { marker: None }),
            Severity::Warning,
            "has no origin: the claim is unsourced",
        ),
    };
    ck.emit(f.claim(c));
}

fn origin_mismatch<'s>(ck: &mut Checker<'s>, r: &Resolved<'s>) {
    let c = r.claim;
    let Some(o) = &c.stamp.origin else { return };
    let mut d = ev::OriginMismatch::default();
    let text = |stamp: &str, recorded: &str| {
        (stamp != recorded).then(|| Disagreement {
            stamp: stamp.to_owned(),
            recorded: recorded.to_owned(),
        })
    };
    if let Some(call) = r.call {
        d.server = text(&o.server, &call.server);
        d.tool = text(&o.tool, call.tool());
        if let Ok(h) = ck.args_hash(call) {
            if !hash_matches(&o.arguments_hash, h) {
                d.arguments_hash = text(&o.arguments_hash, h);
            }
        }
    } else if let Some(res) = r.result {
        d.server = text(&o.server, &res.tag.server);
        d.tool = text(&o.tool, &res.tag.tool);
        if !hash_matches(&o.arguments_hash, &res.tag.arguments_hash) {
            d.arguments_hash = text(&o.arguments_hash, &res.tag.arguments_hash);
        }
    }
    if let Some(res) = r.result {
        if o.fetched_at != res.tag.fetched_at {
            d.fetched_at = Some(Disagreement {
                stamp: o.fetched_at,
                recorded: res.tag.fetched_at,
            });
        }
        if let (Some(a), Some(b)) = (o.ttl_seconds, res.tag.ttl_seconds) {
            if a != b {
                d.ttl_seconds = Some(Disagreement {
                    stamp: a,
                    recorded: b,
                });
            }
        }
    }
    let fields = d.fields();
    if fields.is_empty() {
        return;
    }
    let msg = format!(
        "stamp disagrees with recorded call `{}` on {}: misattribution",
        o.tool_call_id,
        fields.join(", ")
    );
    ck.emit(
        Finding::new(Evidence::OriginMismatch(Box::new(d)), Severity::Error, msg)
            .claim(c)
            .call(&o.tool_call_id),
    );
}

fn span_checks(ck: &mut Checker, r: &Resolved) {
    let c = r.claim;
    let Some(res) = r.result else { return };
    let call_id = &res.tag.call_id;
    let Some(sp) = c.stamp.span else {
        // An API citation that names only a URL (or a PDF page) resolves to the result that
        // carried it, with nothing finer to cite: reported, but not as a broken stamp.
        if c.stamp.provenance() == crate::model::Provenance::Derived {
            let what = c
                .stamp
                .citation
                .as_ref()
                .and_then(|ci| ci.url.as_deref())
                .unwrap_or("the source");
            ck.emit(
                Finding::new(
                    Evidence::SpanInvalid(Box::default()),
                    Severity::Info,
                    format!("the API citation names only {what}: the result that carried it is the origin, with no span to check"),
                )
                .claim(c)
                .call(call_id),
            );
            return;
        }
        ck.emit(
            Finding::new(
                Evidence::SpanInvalid(Box::default()),
                Severity::Error,
                "has an origin but no span: nothing is cited",
            )
            .claim(c)
            .call(call_id),
        );
        return;
    };
    let unit = ck.s.span_unit();
    let text = match res.block_text(sp.block) {
        Some(t) => t,
        None => {
            let n = res.block_count();
            let msg = if (sp.block as usize) < n {
                format!(
                    "span cites block {} of `{call_id}`, which has no text",
                    sp.block
                )
            } else {
                format!(
                    "span cites block {} but `{call_id}` has {n} block(s)",
                    sp.block
                )
            };
            let e = ev::SpanInvalid {
                block: Some(sp.block),
                blocks: Some(n),
                ..ev::SpanInvalid::default()
            };
            ck.emit(
                Finding::new(Evidence::SpanInvalid(Box::new(e)), Severity::Error, msg)
                    .claim(c)
                    .call(call_id),
            );
            return;
        }
    };
    if let Err(e) = resolve_span(text, sp.start, sp.end, unit) {
        let evidence = ev::SpanInvalid {
            block: Some(sp.block),
            blocks: None,
            start: Some(sp.start),
            end: Some(sp.end),
            block_length: Some(crate::model::span::text_len(text, unit)),
            unit: Some(format!("{unit:?}").to_lowercase()),
        };
        ck.emit(
            Finding::new(
                Evidence::SpanInvalid(Box::new(evidence)),
                Severity::Error,
                format!("span [{}, {}) is invalid: {e}", sp.start, sp.end),
            )
            .claim(c)
            .call(call_id),
        );
        return;
    }
    if let (Some(sup), Some(span)) = (&r.support, r.span_text) {
        if !sup.supported(ck.cfg.support_threshold) {
            let msg = if sup.keys > 0 {
                format!("cited span does not contain {}", sup.missing.join(", "))
            } else {
                format!(
                    "cited span shares too few words with the claim (support {:.2})",
                    sup.score
                )
            };
            let e = ev::SpanUnsupported {
                support: (sup.score * 100.0).round() / 100.0,
                missing: sup.missing.clone(),
                span_text: span.to_owned(),
            };
            ck.emit(
                Finding::new(Evidence::SpanUnsupported(e), Severity::Warning, msg)
                    .claim(c)
                    .call(call_id),
            );
        }
    }
}

fn stale(ck: &mut Checker, r: &Resolved) {
    let c = r.claim;
    let (Some(o), Some(fr)) = (&c.stamp.origin, &r.freshness) else {
        return;
    };
    let Some(answer) = ck.s.answer(c.turn) else {
        return;
    };
    if !fr.stale {
        return;
    }
    let age = answer.generated_at.millis_since(fr.fetched_at);
    let over = answer.generated_at.millis_since(fr.expires_at);
    let what = if fr.cache_hit {
        "cached result"
    } else {
        "result"
    };
    let e = ev::Stale {
        fetched_at: fr.fetched_at,
        ttl_seconds: fr.ttl_seconds,
        expired_at: fr.expires_at,
        generated_at: answer.generated_at,
        age_seconds: age / 1000,
        over_by_seconds: over / 1000,
        cache_hit: fr.cache_hit,
    };
    let f = Finding::new(
        Evidence::Stale(e),
        Severity::Error,
        format!(
            "{what} was {} old at answer time, past its {} TTL by {}",
            human_duration(age),
            human_duration(fr.ttl_seconds as i64 * 1000),
            human_duration(over)
        ),
    )
    .claim(c)
    .call(&o.tool_call_id);
    ck.emit(f);
}

/// Whether the tier passes the claim's render policy (when it does not, `below_tier` reports
/// it, and the rendering rules of `tier_rendering` are not judged on top).
pub(crate) fn tier_allowed(r: &Resolved, tier: Tier) -> bool {
    if matches!(tier, Tier::Unknown | Tier::T3) {
        return false;
    }
    match r.policy.required {
        Some(n) => tier.satisfies(n),
        None => r.policy.from != PolicySource::Stamp,
    }
}

fn below_tier<'s>(ck: &mut Checker<'s>, r: &Resolved<'s>, server: &'s str) {
    let c = r.claim;
    let tier = ck.tier(server);
    let policy = r.policy.text.clone();
    let required = r.policy.required;
    let no_call = crate::model::Name::default();
    let call_id = c
        .stamp
        .origin
        .as_ref()
        .map_or(&no_call, |o| &o.tool_call_id);
    let base = |msg: String| {
        let e = ev::BelowTier {
            server: server.to_owned(),
            tier,
            policy: policy.to_string(),
        };
        Finding::new(Evidence::BelowTier(e), Severity::Error, msg)
            .claim(c)
            .call(call_id)
    };
    if matches!(tier, Tier::Unknown | Tier::T3) {
        let why = if tier == Tier::Unknown {
            "is unclassified"
        } else {
            "is T3"
        };
        ck.emit(base(format!(
            "origin server `{server}` {why}: denied by default"
        )));
        return;
    }
    match required {
        Some(n) if !tier.satisfies(n) => {
            ck.emit(base(format!(
                "origin server `{server}` is {} but the policy `{policy}` requires T{n} or better",
                tier.label()
            )));
        }
        None if r.policy.from == PolicySource::Stamp => {
            ck.emit(base(format!(
                "unknown render policy `{policy}`: cannot judge the tier, treated as a failure"
            )));
        }
        _ => {}
    }
}
