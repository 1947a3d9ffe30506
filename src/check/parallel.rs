//! Parallel call merges: calls issued together (one fan-out group, or overlapping in time) that
//! answer the same question with different values, where the answer hides the conflict or cites
//! the less trusted result.

use super::evidence::{self as ev, Evidence};
use super::finding::{Finding, Severity};
use super::support::{Key, TextIndex, Unit};
use super::{Checker, Fanout, Resolved};
use crate::model::{Call, Name, Timestamp};
use rustc_hash::FxHashMap;

/// Words that show the answer told the user the sources disagree.
const SURFACED: [&str; 9] = [
    "disagree",
    "conflict",
    "differ",
    "discrepan",
    "inconsistent",
    "do not match",
    "don't match",
    "mismatch",
    "another source",
];

/// True when an answer tells the user its sources disagree (case-insensitive phrase match).
pub fn surfaces_conflict(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    SURFACED.iter().any(|w| lower.contains(w))
}

/// Status words compared when a claim carries no numbers (incident triage).
const STATUS: [&str; 11] = [
    "operational",
    "resolved",
    "degraded",
    "outage",
    "investigating",
    "monitoring",
    "identified",
    "maintenance",
    "down",
    "healthy",
    "partial",
];

/// Turns with more calls than this get an index for sibling searches; smaller ones are
/// scanned (a bounded cost per claim).
const SMALL_TURN: usize = 32;

/// The calls issued together with `a`: same fan-out group, or overlapping in time in the same
/// turn, in log order.
fn siblings<'s>(
    ck: &Checker<'s>,
    big_turns: &mut FxHashMap<u32, TurnCalls<'s>>,
    a: &'s Call,
) -> Vec<&'s Call> {
    let n = ck.s.index.calls_by_turn.get(a.turn).len();
    if n > SMALL_TURN {
        return big_turns
            .entry(a.turn)
            .or_insert_with(|| TurnCalls::new(ck, a.turn))
            .siblings(a);
    }
    scan_siblings(ck, a)
}

/// [`siblings`] by scanning the turn's calls.
fn scan_siblings<'s>(ck: &Checker<'s>, a: &'s Call) -> Vec<&'s Call> {
    let window = |c: &Call| -> (Timestamp, Timestamp) {
        let end =
            ck.s.result(&c.id)
                .map_or(c.issued_at, |r| r.tag.returned_at);
        (c.issued_at, end.max(c.issued_at))
    };
    let (a0, a1) = window(a);
    ck.s.calls_in_turn(a.turn)
        .filter(|b| b.id != a.id)
        .filter(|b| {
            let same_group = a.fanout.is_some() && a.fanout == b.fanout;
            let (b0, b1) = window(b);
            same_group || (b0 < a1 && a0 < b1)
        })
        .collect()
}

/// The calls of one turn, indexed for finding a call's siblings without scanning the turn.
struct TurnCalls<'s> {
    /// In log order.
    calls: Vec<&'s Call>,
    /// Each call's window: issued, and returned (or issued when no result), same order.
    win: Vec<(i64, i64)>,
    /// Positions sorted by the window's start.
    by_start: Vec<usize>,
    /// The longest window of the turn, in milliseconds.
    longest: i64,
    /// Fan-out group -> positions, in log order.
    groups: FxHashMap<&'s str, Vec<usize>>,
    /// Call id -> position.
    pos: FxHashMap<&'s str, usize>,
}

impl<'s> TurnCalls<'s> {
    fn new(ck: &Checker<'s>, turn: u32) -> Self {
        let calls: Vec<&'s Call> = ck.s.calls_in_turn(turn).collect();
        let win: Vec<(i64, i64)> = calls
            .iter()
            .map(|c| {
                let end =
                    ck.s.result(&c.id)
                        .map_or(c.issued_at, |r| r.tag.returned_at);
                (c.issued_at.millis(), end.max(c.issued_at).millis())
            })
            .collect();
        let mut by_start: Vec<usize> = (0..calls.len()).collect();
        by_start.sort_by_key(|&i| win[i].0);
        let longest = win.iter().map(|(a, b)| b - a).max().unwrap_or(0);
        let mut groups: FxHashMap<&'s str, Vec<usize>> = FxHashMap::default();
        let mut pos = FxHashMap::default();
        for (i, c) in calls.iter().enumerate() {
            if let Some(g) = &c.fanout {
                groups.entry(g.as_str()).or_default().push(i);
            }
            pos.entry(c.id.as_str()).or_insert(i);
        }
        TurnCalls {
            calls,
            win,
            by_start,
            longest,
            groups,
            pos,
        }
    }

    /// The calls issued together with `a`: same fan-out group, or overlapping in time, in log
    /// order. Only the group and the calls that start within the turn's longest window before
    /// `a` ends are looked at (a binary search finds them).
    fn siblings(&self, a: &Call) -> Vec<&'s Call> {
        crate::probe::steps(1);
        let Some(&p) = self.pos.get(a.id.as_str()) else {
            return Vec::new();
        };
        let (a0, a1) = self.win[p];
        let mut out: Vec<usize> = a
            .fanout
            .as_deref()
            .and_then(|g| self.groups.get(g))
            .map_or_else(Vec::new, |g| {
                g.iter().copied().filter(|&i| i != p).collect()
            });
        // An overlapping call starts before `a` ends and ends after `a` starts, so it starts
        // after a0 - longest.
        let lo = self
            .by_start
            .partition_point(|&i| self.win[i].0 < a0.saturating_sub(self.longest));
        let hi = self.by_start.partition_point(|&i| self.win[i].0 < a1);
        for &i in self.by_start.get(lo..hi).unwrap_or(&[]) {
            crate::probe::steps(1);
            let (b0, b1) = self.win[i];
            if i != p && b0 < a1 && a0 < b1 {
                out.push(i);
            }
        }
        crate::probe::steps(out.len());
        out.sort_unstable();
        out.dedup();
        out.into_iter().map(|i| self.calls[i]).collect()
    }
}

/// The status words a text names, in `STATUS` order (whole words, case-insensitive).
pub(crate) fn status_words(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    let mut found = [false; STATUS.len()];
    for t in lower.split(|c: char| !c.is_alphanumeric()) {
        if let Some(i) = STATUS.iter().position(|w| *w == t) {
            found[i] = true;
        }
    }
    STATUS
        .iter()
        .zip(found)
        .filter_map(|(w, f)| f.then_some(*w))
        .collect()
}

/// The value of `other` that answers the same question as the claim's key `k`, when it differs.
fn differing_value(k: &Key, other: &TextIndex) -> Option<f64> {
    let Key::Num {
        milli,
        unit: Some(u),
        ..
    } = k
    else {
        return None;
    };
    if other.nums().iter().any(|(m, _)| m == milli) {
        return None;
    }
    other
        .nums()
        .iter()
        .find(|(_, ou)| ou.as_ref() == Some(u))
        .map(|(m, _)| *m as f64 / 1000.0)
}

/// The published fan-out of `a` and its siblings: issue and arrival order.
fn fanout(ck: &Checker, a: &Call, sibs: &[&Call]) -> Fanout {
    let mut group: Vec<&Call> = Vec::with_capacity(sibs.len() + 1);
    group.push(a);
    group.extend_from_slice(sibs);
    let mut issue: Vec<(Timestamp, &Name)> = group.iter().map(|c| (c.issued_at, &c.id)).collect();
    issue.sort();
    let mut arrival: Vec<(bool, Timestamp, &Name)> = group
        .iter()
        .map(|c| match ck.s.result(&c.id) {
            Some(r) => (false, r.tag.returned_at, &c.id),
            None => (true, c.issued_at, &c.id),
        })
        .collect();
    arrival.sort();
    Fanout {
        call_id: a.id.clone(),
        fanout: a.fanout.clone(),
        turn: a.turn,
        issue_order: issue.into_iter().map(|x| x.1.clone()).collect(),
        arrival_order: arrival.into_iter().map(|x| x.2.clone()).collect(),
    }
}

/// Runs the parallel-conflict check; returns every cited call's fan-out (with the indexes of
/// the claims citing it), which the report publishes.
pub(crate) fn check<'s>(
    ck: &mut Checker<'s>,
    resolved: &[Resolved<'s>],
) -> Vec<(Vec<usize>, Fanout)> {
    let mut fanouts: Vec<(Vec<usize>, Fanout)> = Vec::new();
    let mut fanout_of: FxHashMap<&str, usize> = FxHashMap::default();
    let mut big_turns: FxHashMap<u32, TurnCalls<'s>> = FxHashMap::default();
    for (ri, r) in resolved.iter().enumerate() {
        let Some(a) = r.call else { continue };
        let sibs = siblings(ck, &mut big_turns, a);
        if sibs.is_empty() {
            continue;
        }
        match fanout_of.get(a.id.as_str()) {
            Some(&g) => fanouts[g].0.push(ri),
            None => {
                fanout_of.insert(a.id.as_str(), fanouts.len());
                fanouts.push((vec![ri], fanout(ck, a, &sibs)));
            }
        }
        let (Some(ares), Some(span)) = (r.result, r.span_text) else {
            continue;
        };
        if !ck.in_scope(r.claim.turn) {
            continue;
        }
        let span_status = status_words(span);
        let claim_status: Vec<&str> = status_words(&r.claim.stamp.claim_text)
            .into_iter()
            .filter(|w| span_status.contains(w))
            .collect();
        let units: Vec<Unit> = r
            .keys
            .keys
            .iter()
            .filter_map(|k| match k {
                Key::Num { unit, .. } => *unit,
                Key::Quoted(_) => None,
            })
            .collect();
        if units.is_empty() && claim_status.is_empty() {
            continue; // nothing a sibling could state differently
        }
        let answer_text = ck.s.answer(r.claim.turn).map_or("", |x| x.text.as_str());
        let mut lower = Vec::new();
        for b in sibs {
            let Some(bres) = ck.s.result(&b.id) else {
                continue;
            };
            if bres.is_error() {
                continue;
            }
            // Cheap pre-filter on the sibling's ASCII-lowercased text (its index is built only if
            // this passes): a sibling can only disagree on a value it states.
            lower.clear();
            for (_, t) in bres.texts() {
                lower.extend_from_slice(t.as_bytes());
                lower.push(b'\n');
            }
            lower.make_ascii_lowercase();
            let states_value = units.iter().any(|u| u.may_be_stated_in(&lower))
                || (!claim_status.is_empty() && STATUS.iter().any(|w| has(&lower, w)));
            if !states_value {
                continue;
            }
            let same_question = a.tool() == b.tool()
                || a.request.params.arguments.as_ref().map(|x| x.get())
                    == b.request.params.arguments.as_ref().map(|x| x.get());
            let bidx = ck.result_index(bres);
            let related = same_question || {
                let overlap = r
                    .keys
                    .words
                    .iter()
                    .filter(|(_, h)| bidx.has_word(*h))
                    .count();
                !r.keys.words.is_empty() && overlap * 2 >= r.keys.words.len()
            };
            if !related {
                continue;
            }
            // Values: the first numeric key of the claim that the sibling answers differently.
            let mut conflict: Option<(String, String)> = None;
            for k in &r.keys.keys {
                if let Some(v) = differing_value(k, bidx) {
                    let shown_b = match k {
                        Key::Num { unit: Some(u), .. } => u.show(&trim_num(v)),
                        _ => trim_num(v),
                    };
                    conflict = Some((k.shown(), shown_b));
                    break;
                }
            }
            if conflict.is_none() && !claim_status.is_empty() {
                let bs = status_words(bidx.norm());
                if !bs.is_empty() && !claim_status.iter().any(|w| bs.contains(w)) {
                    conflict = Some((claim_status.join("/"), bs.join("/")));
                }
            }
            let Some((va, vb)) = conflict else { continue };
            let ta = ck.tier(a.server.as_str());
            let tb = ck.tier(b.server.as_str());
            let surfaced = surfaces_conflict(answer_text);
            let cites_lower = ta.rank() > tb.rank();
            if surfaced && !cites_lower {
                continue;
            }
            let (sev, msg) = if cites_lower {
                (
                    Severity::Error,
                    format!(
                        "cites `{}` ({}, {va}) over `{}` ({}, {vb}), issued together: the less trusted source won",
                        a.server, ta.label(), b.server, tb.label()
                    ),
                )
            } else {
                (
                    Severity::Warning,
                    format!(
                        "`{}` ({}) said {vb} in the same fan-out; the answer does not surface the conflict",
                        b.server, tb.label()
                    ),
                )
            };
            let mut ids = [(a.issued_at, a.id.as_str()), (b.issued_at, b.id.as_str())];
            ids.sort();
            let issue: Vec<String> = ids.iter().map(|x| x.1.to_owned()).collect();
            let mut arr = [
                (ares.tag.returned_at, a.id.as_str()),
                (bres.tag.returned_at, b.id.as_str()),
            ];
            arr.sort();
            let arrival: Vec<String> = arr.iter().map(|x| x.1.to_owned()).collect();
            let side = |c: &Call, tier, value: String, returned_at| ev::ConflictSide {
                call_id: c.id.to_string(),
                server: c.server.to_string(),
                tool: c.tool().to_owned(),
                tier,
                value,
                issued_at: c.issued_at,
                returned_at,
            };
            let e = ev::ParallelConflict {
                cited: side(a, ta, va, ares.tag.returned_at),
                other: side(b, tb, vb, bres.tag.returned_at),
                issue_order: issue,
                arrival_order: arrival,
                surfaced,
                fanout: a.fanout.as_deref().map(str::to_owned),
            };
            ck.emit(
                Finding::new(Evidence::ParallelConflict(Box::new(e)), sev, msg)
                    .claim(r.claim)
                    .call(&a.id)
                    .call(&b.id),
            );
        }
    }
    fanouts
}

/// Whether `lower` (a text, ASCII-lowercased) contains `word` (lowercase).
fn has(lower: &[u8], word: &str) -> bool {
    memchr::memmem::find(lower, word.as_bytes()).is_some()
}

fn trim_num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Config;
    use crate::gen::{write_session, GenSpec};
    use crate::ingest::{load_bytes, LoadOptions};

    #[test]
    fn indexed_siblings_are_the_scanned_ones() {
        let spec = GenSpec {
            turns: 4,
            calls: 80,
            result_bytes: 50,
            ..GenSpec::default()
        };
        let mut bytes = Vec::new();
        write_session(&mut bytes, &spec, 0).unwrap();
        let mut s = load_bytes("w", "w.jsonl", &bytes, &LoadOptions::default());
        // Mixed shapes: some calls in no group (time overlap alone decides), some in other
        // groups, some issued late and long.
        for (i, c) in s.calls.iter_mut().enumerate() {
            match i % 5 {
                0 | 1 => c.fanout = None,
                2 => c.fanout = Some(format!("g{}", i % 3).into()),
                3 => c.issued_at = Timestamp(c.issued_at.millis() + (i as i64 % 7) * 200),
                _ => {}
            }
        }
        let cfg = Config::default();
        let ck = Checker::new(&s, &cfg);
        let mut big = FxHashMap::default();
        let mut nonempty = 0;
        for a in &s.calls {
            let ids = |v: Vec<&Call>| v.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
            let want = ids(scan_siblings(&ck, a));
            let got = ids(big
                .entry(a.turn)
                .or_insert_with(|| TurnCalls::new(&ck, a.turn))
                .siblings(a));
            assert_eq!(got, want, "{}", a.id);
            nonempty += usize::from(!want.is_empty() && want.len() < 79);
        }
        assert!(nonempty > 10, "{nonempty}");
    }
}
