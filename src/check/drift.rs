//! Citation drift: the same claim (same claim id, or the same normalized text) across turns
//! re-binds to a different call, to a call not in context at that turn, or to nothing.

use super::evidence::{self as ev, Evidence};
use super::finding::{Finding, Severity};
use super::support::normalize;
use super::{Checker, Resolved};
use crate::model::Name;
use rustc_hash::FxHashMap as HashMap;

fn claim_key(text: &str) -> String {
    normalize(&text.replace(
        |c: char| c.is_ascii_punctuation() && c != '$' && c != '%',
        " ",
    ))
}

/// Runs the drift check; returns the groups of statements stated in several turns (indexes into
/// `resolved`, in turn order), which the report publishes.
pub(crate) fn check<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>]) -> Vec<Vec<usize>> {
    // Group statements: by claim id, and by normalized text so renamed restatements join too.
    let mut by_id: HashMap<&str, usize> = HashMap::default();
    let mut by_text: HashMap<String, usize> = HashMap::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, r) in resolved.iter().enumerate() {
        let id = r.claim.stamp.claim_id.as_str();
        let text = claim_key(&r.claim.stamp.claim_text);
        let g = match by_id.get(id).or_else(|| by_text.get(&text)) {
            Some(&g) => g,
            None => {
                groups.push(Vec::new());
                groups.len() - 1
            }
        };
        groups[g].push(i);
        by_id.entry(id).or_insert(g);
        by_text.entry(text).or_insert(g);
    }
    drop((by_id, by_text));
    let mut published = Vec::new();
    for mut g in groups {
        g.sort_by_key(|&i| (resolved[i].claim.turn, resolved[i].claim.position));
        let drifts = drifts(ck, resolved, &g);
        if !drifts.is_empty() {
            emit(ck, resolved, &g, drifts);
        }
        if g.len() > 1 {
            published.push(crate::model::exact(g));
        }
    }
    published
}

/// A statement that drifts: its position in its group, how bad, why, and the bindings before
/// and at it.
struct Drift<'s> {
    k: usize,
    severity: Severity,
    message: String,
    prev: Option<&'s Name>,
    binding: Option<&'s Name>,
}

/// The statements of one group (indexes into `resolved`, in turn order) that drift.
fn drifts<'s>(ck: &Checker<'s>, resolved: &[Resolved<'s>], g: &[usize]) -> Vec<Drift<'s>> {
    let mut out = Vec::new();
    let mut prev: Option<&'s Name> = None;
    for (k, &i) in g.iter().enumerate() {
        let r = &resolved[i];
        let binding = r.claim.stamp.origin.as_ref().map(|o| &o.tool_call_id);
        let finding = match (k, prev, binding) {
            (_, _, Some(b))
                if answered(ck, b) && ck.s.in_context(r.claim.turn, b) == Some(false) =>
            {
                let from = ck.s.result(b).map(|res| res.turn);
                let when = match from {
                    Some(t) if t < r.claim.turn => format!(" (fetched in turn {t})"),
                    _ => String::new(),
                };
                Some((
                    Severity::Error,
                    format!(
                        "cites `{b}`{when}, which was not in context at turn {}: restated from memory",
                        r.claim.turn
                    ),
                ))
            }
            (0, _, _) => None,
            (_, Some(p), None) => Some((
                Severity::Error,
                format!(
                    "restated in turn {} with no source; earlier it cited `{p}`",
                    r.claim.turn
                ),
            )),
            (_, Some(p), Some(b)) if p != b => Some((
                Severity::Warning,
                format!("re-bound from `{p}` to `{b}` in turn {}", r.claim.turn),
            )),
            _ => None,
        };
        if let Some((severity, message)) = finding {
            out.push(Drift {
                k,
                severity,
                message,
                prev,
                binding,
            });
        }
        if binding.is_some() {
            prev = binding;
        }
    }
    out
}

/// Emits the findings of one group's drifting statements. The evidence of statement `k` shows
/// the first statement, up to [`HISTORY_WINDOW`] before `k`, and `k` itself (bounded when a
/// claim is restated in thousands of turns); the entries are built once for the group, for the
/// statements some window shows, and the windows share them.
fn emit<'s>(ck: &mut Checker<'s>, resolved: &[Resolved<'s>], g: &[usize], drifts: Vec<Drift<'s>>) {
    let from_of = |k: usize| k.saturating_sub(HISTORY_WINDOW);
    // Positions in `g` some window shows, ascending (the windows' starts and ends ascend).
    let mut shown: Vec<usize> = Vec::new();
    for d in &drifts {
        let from = from_of(d.k);
        if shown.is_empty() && from > 0 {
            shown.push(0);
        }
        let next = shown.last().map_or(0, |&l| l + 1).max(from);
        shown.extend(next..=d.k);
    }
    // A claim restated in many turns usually cites the same text each time: held once.
    let mut values: HashMap<&str, Name> = HashMap::default();
    let statements: std::sync::Arc<[ev::DriftEntry]> = shown
        .iter()
        .map(|&p| {
            let r = &resolved[g[p]];
            let call = r.claim.stamp.origin.as_ref().map(|o| &o.tool_call_id);
            ev::DriftEntry {
                turn: r.claim.turn,
                claim_id: r.claim.stamp.claim_id.clone(),
                call_id: call.cloned(),
                in_context: call.map(|c| ck.s.in_context(r.claim.turn, c)),
                value: r
                    .span_text
                    .map(|t| values.entry(t).or_insert_with(|| Name::from(t)).clone()),
            }
        })
        .collect();
    let at = |p: usize| shown.binary_search(&p).unwrap_or(0);
    for d in drifts {
        let from = from_of(d.k);
        let e = ev::CitationDrift {
            history: ev::DriftHistory::new(statements.clone(), from > 0, at(from)..at(d.k) + 1),
            history_length: g.len(),
        };
        let r = &resolved[g[d.k]];
        let mut f = Finding::new(Evidence::CitationDrift(e), d.severity, d.message).claim(r.claim);
        if let Some(p) = d.prev {
            f = f.call(p);
        }
        if let Some(b) = d.binding {
            f = f.call(b);
        }
        ck.emit(f);
    }
}

/// How many earlier statements a drift finding's evidence carries.
const HISTORY_WINDOW: usize = 8;

/// Whether the call's result was recorded. A call that never returned is a dangling origin
/// (`dangling_origin` reports it): it was never fetched, so it cannot have left the context, and
/// drift does not report the same cause a second time.
fn answered(ck: &Checker, call: &str) -> bool {
    ck.s.result(call).is_some()
}
