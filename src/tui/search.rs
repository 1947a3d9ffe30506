//! Search over every loaded session (claim ids, call ids, claim text, tools, servers, finding
//! kinds, result text), off the UI thread: results stream back in chunks as messages and a newer
//! query cancels an older one. Exact field matches rank first, then prefixes, then substrings,
//! then fuzzy subsequences (`fuzzy-matcher`); result text is matched as a substring only.

use super::app::{Loaded, SearchHit, Target};
use fuzzy_matcher::skim::SkimMatcherV2;
use fuzzy_matcher::FuzzyMatcher;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A chunk of results for query generation `generation`.
pub struct SearchChunk {
    /// Which query these answer.
    pub generation: u64,
    /// Hits in this chunk.
    pub hits: Vec<SearchHit>,
    /// True for the last chunk.
    pub done: bool,
}

/// Claims and calls scored per chunk before results are sent and the generation re-checked.
const CHUNK: usize = 20_000;
/// Most hits kept (best first).
pub const MAX_HITS: usize = 500;

/// The line shown for claim `i`: id · text · tool · server · call id · finding kinds.
pub fn claim_text(l: &Loaded, i: usize) -> String {
    let Some(c) = l.claim(i) else {
        return String::new();
    };
    let mut s = format!("{} · {}", c.claim_id, c.claim_text);
    if let Some(id) = c.call_id.as_deref() {
        match l.session.call(id) {
            Some(call) => {
                s.push_str(&format!(" · {} · {} · {}", call.tool(), call.server, id));
            }
            None => s.push_str(&format!(" · {id}")),
        }
    }
    let mut kinds: Vec<&str> = l.findings(i).map(|f| f.kind.name()).collect();
    kinds.dedup();
    if !kinds.is_empty() {
        s.push_str(" · ");
        s.push_str(&kinds.join(" "));
    }
    s
}

/// Rank of `query` (lowercase) against the fields of a target: 3 equal, 2 prefix, 1 substring.
fn field_rank<'a>(query: &str, fields: impl Iterator<Item = &'a str>) -> u8 {
    let mut best = 0;
    for f in fields {
        let f = f.to_lowercase();
        if f == query {
            return 3;
        }
        if f.starts_with(query) {
            best = best.max(2);
        } else if f.contains(query) {
            best = best.max(1);
        }
    }
    best
}

/// Character positions of the first case-insensitive occurrence of `q` in `text`.
fn substring_positions(text: &str, q: &str) -> Vec<usize> {
    let lower = text.to_lowercase();
    match lower.find(q) {
        // Lowercasing can change byte lengths; positions are counted in the lowered text.
        Some(b) if lower.len() == text.len() => {
            let start = text[..b].chars().count();
            (start..start + q.chars().count()).collect()
        }
        _ => Vec::new(),
    }
}

fn score_claim(m: &SkimMatcherV2, l: &Loaded, s: u32, i: usize, q: &str) -> Option<SearchHit> {
    let c = l.claim(i)?;
    let call = c.call_id.as_deref().and_then(|id| l.session.call(id));
    let kinds: Vec<&str> = l.findings(i).map(|f| f.kind.name()).collect();
    let fields = [
        Some(c.claim_id.as_str()),
        c.call_id.as_deref(),
        call.map(|x| x.tool()),
        call.map(|x| x.server.as_str()),
    ];
    let mut rank = field_rank(q, fields.into_iter().flatten().chain(kinds.iter().copied()));
    let text = claim_text(l, i);
    let lower_text = c.claim_text.to_lowercase();
    if rank == 0 && lower_text.contains(q) {
        rank = 1;
    }
    let (score, positions) = if rank > 0 {
        (0, substring_positions(&text, q))
    } else {
        let (sc, p) = m.fuzzy_indices(&text, q)?;
        (sc, p)
    };
    Some(SearchHit {
        session: s,
        target: Target::Claim(i as u32),
        rank,
        score,
        text,
        positions,
    })
}

fn score_call(l: &Loaded, s: u32, k: usize, q: &str) -> Option<SearchHit> {
    let call = l.session.calls.get(k)?;
    let r = l.session.result(&call.id)?;
    for (_, t) in r.texts() {
        let lower = t.to_lowercase();
        if let Some(b) = lower.find(q) {
            // A window of the result text around the match.
            let from = lower[..b]
                .char_indices()
                .rev()
                .nth(30)
                .map_or(0, |(x, _)| x);
            let snippet: String = crate::text::one_line(lower.get(from..).unwrap_or(""))
                .chars()
                .take(120)
                .collect();
            let head = format!("{} · {} · {} · result: ", call.id, call.tool(), call.server);
            let text = format!("{head}{snippet}");
            let positions = substring_positions(&text, q);
            return Some(SearchHit {
                session: s,
                target: Target::Call(k as u32),
                rank: 1,
                score: 0,
                text,
                positions,
            });
        }
    }
    None
}

/// Searches `sessions` for `query`, except the `dropped` ones (left their file on a reload:
/// `App::dropped`); stops early when `current` moves past `generation`. `send` gets each chunk;
/// it returns false when nobody listens any more.
pub fn run(
    sessions: &[Arc<Loaded>],
    dropped: &HashSet<usize>,
    query: &str,
    generation: u64,
    current: &AtomicU64,
    send: &mut dyn FnMut(SearchChunk) -> bool,
) {
    let m = SkimMatcherV2::default();
    let q = query.to_lowercase();
    let mut hits = Vec::new();
    let mut scored = 0;
    for (s, l) in sessions.iter().enumerate() {
        if dropped.contains(&s) {
            continue;
        }
        let mut ids_hit = std::collections::HashSet::new();
        for i in 0..l.report.claims.len() {
            if let Some(h) = score_claim(&m, l, s as u32, i, &q) {
                if h.rank >= 2 {
                    if let Some(id) = l.report.claims[i].call_id.as_deref() {
                        ids_hit.insert(id.to_owned());
                    }
                }
                hits.push(h);
            }
            scored += 1;
            if scored % CHUNK == 0 {
                if current.load(Ordering::Relaxed) != generation {
                    return;
                }
                if !send(SearchChunk {
                    generation,
                    hits: std::mem::take(&mut hits),
                    done: false,
                }) {
                    return;
                }
            }
        }
        for k in 0..l.session.calls.len() {
            let call = &l.session.calls[k];
            // A call whose id, tool or server matches exactly is found as a call too.
            let rank = field_rank(
                &q,
                [call.id.as_str(), call.tool(), call.server.as_str()].into_iter(),
            );
            if rank >= 2 && !ids_hit.contains(call.id.as_str()) {
                let text = format!("{} · {} · {}", call.id, call.tool(), call.server);
                hits.push(SearchHit {
                    session: s as u32,
                    target: Target::Call(k as u32),
                    rank,
                    score: 0,
                    positions: substring_positions(&text, &q),
                    text,
                });
            } else if let Some(h) = score_call(l, s as u32, k, &q) {
                hits.push(h);
            }
            scored += 1;
        }
    }
    let _ = current.load(Ordering::Relaxed) == generation
        && send(SearchChunk {
            generation,
            hits,
            done: true,
        });
}

/// Merges a chunk into the kept hits: best rank, then best score first, at most [`MAX_HITS`].
/// A hit already kept is kept once (a search restarted after a reload finds it again).
pub fn merge(hits: &mut Vec<SearchHit>, more: Vec<SearchHit>) {
    hits.extend(more);
    hits.sort_by(|a, b| {
        b.rank
            .cmp(&a.rank)
            .then(b.score.cmp(&a.score))
            .then(a.session.cmp(&b.session))
            .then(a.target.cmp(&b.target))
    });
    hits.dedup_by(|a, b| {
        (a.session, a.target, a.rank, a.score) == (b.session, b.target, b.rank, b.score)
    });
    hits.truncate(MAX_HITS);
}
