//! Citation drift: the same claim (same claim id, or the same normalized text) across turns
//! re-binds to a different call, to a call not in context at that turn, or to nothing.

use super::evidence::{self as ev, Evidence};
use super::finding::{Finding, Severity};
use super::support::normalize;
use super::{Checker, Resolved};
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
    let mut group_of: HashMap<String, usize> = HashMap::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, r) in resolved.iter().enumerate() {
        let id_key = format!("id:{}", r.claim.stamp.claim_id);
        let text_key = format!("text:{}", claim_key(&r.claim.stamp.claim_text));
        let g = match (group_of.get(&id_key), group_of.get(&text_key)) {
            (Some(&g), _) | (None, Some(&g)) => g,
            (None, None) => {
                groups.push(Vec::new());
                groups.len() - 1
            }
        };
        groups[g].push(i);
        group_of.entry(id_key).or_insert(g);
        group_of.entry(text_key).or_insert(g);
    }
    let mut published = Vec::new();
    for mut g in groups {
        g.sort_by_key(|&i| (resolved[i].claim.turn, resolved[i].claim.position));
        let stmts: Vec<&Resolved> = g.iter().map(|&i| &resolved[i]).collect();
        // Evidence rows are built only for statements that produce a finding.
        let entry = |r: &Resolved| {
            let call = r
                .claim
                .stamp
                .origin
                .as_ref()
                .map(|o| o.tool_call_id.as_str());
            ev::DriftEntry {
                turn: r.claim.turn,
                claim_id: r.claim.stamp.claim_id.clone(),
                call_id: call.map(str::to_owned),
                in_context: call.map(|c| ck.s.in_context(r.claim.turn, c)),
                value: r.span_text.map(str::to_owned),
            }
        };
        let mut prev: Option<&str> = None;
        for (k, r) in stmts.iter().enumerate() {
            let binding = r
                .claim
                .stamp
                .origin
                .as_ref()
                .map(|o| o.tool_call_id.as_str());
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
            if let Some((sev, msg)) = finding {
                let e = ev::CitationDrift {
                    history: history_window(&stmts, k, entry),
                    history_length: stmts.len(),
                };
                let mut f = Finding::new(Evidence::CitationDrift(e), sev, msg).claim(r.claim);
                if let Some(p) = prev {
                    f = f.call(p);
                }
                if let Some(b) = binding {
                    f = f.call(b);
                }
                ck.emit(f);
            }
            if binding.is_some() {
                prev = binding;
            }
        }
        if g.len() > 1 {
            published.push(g);
        }
    }
    published
}

/// The statements evidence shows for statement `k`: the first, up to the last
/// [`HISTORY_WINDOW`] before it, and `k` itself, so evidence stays bounded when a claim is
/// restated in thousands of turns. Built only when a finding fires.
fn history_window<'r, 's: 'r>(
    stmts: &[&'r Resolved<'s>],
    k: usize,
    entry: impl Fn(&Resolved) -> ev::DriftEntry,
) -> Vec<ev::DriftEntry> {
    let from = k.saturating_sub(HISTORY_WINDOW);
    let mut out = Vec::with_capacity(HISTORY_WINDOW + 2);
    if from > 0 {
        out.push(entry(stmts[0]));
    }
    out.extend(
        stmts[from..=k.min(stmts.len() - 1)]
            .iter()
            .map(|r| entry(r)),
    );
    out
}

/// How many earlier statements a drift finding's evidence carries.
const HISTORY_WINDOW: usize = 8;

/// Whether the call's result was recorded. A call that never returned is a dangling origin
/// (`dangling_origin` reports it): it was never fetched, so it cannot have left the context, and
/// drift does not report the same cause a second time.
fn answered(ck: &Checker, call: &str) -> bool {
    ck.s.result(call).is_some()
}
