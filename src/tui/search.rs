//! Fuzzy search over a session's claims (claim text, tool, server, call id) with
//! `fuzzy-matcher`, off the UI thread: results stream back in chunks and a newer query cancels
//! an older one, so typing never waits for a million claims.

use super::app::Loaded;
use fuzzy_matcher::skim::SkimMatcherV2;
use fuzzy_matcher::FuzzyMatcher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

/// A chunk of results for query generation `generation`.
pub struct SearchChunk {
    /// Which query these answer.
    pub generation: u64,
    /// (claim index, score, matched char positions)
    pub hits: Vec<(usize, i64, Vec<usize>)>,
    /// True for the last chunk.
    pub done: bool,
}

/// The text searched for claim `i`: claim text · tool · server · call id.
pub fn haystack(l: &Loaded, i: usize) -> String {
    let Some(c) = l.claim(i) else {
        return String::new();
    };
    match c.call_id.as_deref() {
        Some(id) => match l.session.call(id) {
            Some(call) => format!(
                "{} · {} · {} · {}",
                c.claim_text,
                call.tool(),
                call.server,
                id
            ),
            None => format!("{} · {}", c.claim_text, id),
        },
        None => c.claim_text.clone(),
    }
}

/// Claims scored per chunk before results are sent and the generation re-checked.
const CHUNK: usize = 20_000;
/// Most hits kept (best first).
pub const MAX_HITS: usize = 500;

/// Searches `l` for `query`; stops early when `current` moves past `generation`.
pub fn run(
    l: &Loaded,
    query: &str,
    generation: u64,
    current: &AtomicU64,
    tx: &Sender<SearchChunk>,
) {
    let matcher = SkimMatcherV2::default();
    let n = l.report.claims.len();
    let mut start = 0;
    loop {
        if current.load(Ordering::Relaxed) != generation {
            return;
        }
        let end = (start + CHUNK).min(n);
        let hits: Vec<_> = (start..end)
            .filter_map(|i| {
                matcher
                    .fuzzy_indices(&haystack(l, i), query)
                    .map(|(s, p)| (i, s, p))
            })
            .collect();
        let done = end >= n;
        if tx
            .send(SearchChunk {
                generation,
                hits,
                done,
            })
            .is_err()
            || done
        {
            return;
        }
        start = end;
    }
}

/// Starts a search thread.
pub fn spawn(
    l: Arc<Loaded>,
    query: String,
    generation: u64,
    current: Arc<AtomicU64>,
    tx: Sender<SearchChunk>,
) {
    std::thread::spawn(move || run(&l, &query, generation, &current, &tx));
}

/// Merges a chunk into the kept hits: best score first, at most [`MAX_HITS`].
pub fn merge(hits: &mut Vec<(usize, i64, Vec<usize>)>, more: Vec<(usize, i64, Vec<usize>)>) {
    hits.extend(more);
    hits.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(MAX_HITS);
}
