//! The answer text against its stamps (`answer_mismatch`) and the tiers' rendering rules
//! (`tier_rendering`: T1 claims labelled, T2 claims attributed, as the answer text shows them).
//!
//! The answer text is cut into **passages**: each occurrence of a stamp's marker closes the
//! passage that leads up to it, which starts after the previous marker or at the start of the
//! marker's sentence, whichever is later. Markers written next to each other (`[1][2]`, `[1], [2]`)
//! share one passage. A claim is **stated** by a passage when no value of the claim is contradicted
//! there (a number the claim has is missing while the passage has another number in the same unit)
//! and the passage has every key token of the claim (numbers, dates, quoted names) or enough of its
//! words (`support_threshold`). Values are read with the same tokenizer as span support
//! (`support.rs`). The rules and their limits are in `docs/checks.md`.

use super::evidence::{self as ev, Evidence};
use super::finding::{Finding, Severity};
use super::support::{ClaimKeys, Key, TextIndex, Unit};
use super::{AnswerPassage, Checker, Resolved};
use crate::model::{Answer, Tier};
use std::ops::Range;
use std::rc::Rc;

/// Phrases that attribute a statement to its source in the answer text (T2 claims need one, or
/// the server's name, in their passage).
pub(crate) const ATTRIBUTIONS: [&str; 12] = [
    "according to",
    "reportedly",
    "community",
    "unverified",
    "might",
    "may be",
    "some users",
    "third-party",
    "third party",
    "unofficial",
    "reports that",
    "source:",
];

/// One passage: the answer text that a group of adjacent marker occurrences closes.
#[derive(Clone, Debug)]
struct Passage {
    /// Byte range in the answer text.
    range: Range<usize>,
    /// The distinct markers (indexes into `AnswerMap::markers`) written at its end.
    markers: Vec<usize>,
}

/// An answer's text cut at the markers of its stamps.
pub(crate) struct AnswerMap<'a> {
    text: &'a str,
    markers: Vec<&'a str>,
    passages: Vec<Passage>,
    index: Vec<TextIndex<'a>>,
    /// Whether each marker occurs (as itself, not inside a longer marker).
    shown: Vec<bool>,
    /// Marker -> its first index in the markers given.
    marker_at: rustc_hash::FxHashMap<&'a str, usize>,
    /// Per marker: the passages it closes, in text order.
    closes: Vec<Vec<usize>>,
    /// The answer's sentences, cut and indexed on the first claim without a marker.
    sentences: std::cell::OnceCell<Sentences<'a>>,
}

/// The distinct sentences of an answer (each kept at its first occurrence, in text order),
/// each indexed once, and where each content word and number occurs among them: a claim is
/// scored only against the sentences sharing a key token or a word with it.
struct Sentences<'a> {
    /// The first range of each distinct sentence text, in text order.
    ranges: Vec<Range<usize>>,
    /// Each distinct sentence's index.
    index: Vec<TextIndex<'a>>,
    /// Content word hash -> the sentences having it, in order.
    by_word: rustc_hash::FxHashMap<u64, Vec<u32>>,
    /// Number (value * 1000) -> the sentences having it (in any unit), in order.
    by_num: rustc_hash::FxHashMap<i64, Vec<u32>>,
}

impl<'a> Sentences<'a> {
    fn new(text: &'a str) -> Self {
        let mut at: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
        let mut out = Sentences {
            ranges: Vec::new(),
            index: Vec::new(),
            by_word: rustc_hash::FxHashMap::default(),
            by_num: rustc_hash::FxHashMap::default(),
        };
        // The text is read once to cut it, once to index each distinct sentence.
        crate::probe::steps(text.len());
        for r in sentences(text) {
            let s = &text[r.clone()];
            if at.contains_key(s) {
                continue;
            }
            let Ok(id) = u32::try_from(out.ranges.len()) else {
                break; // over 4 billion distinct sentences: not in any answer that fits
            };
            at.insert(s, id);
            let idx = TextIndex::new(s);
            crate::probe::steps(s.len());
            for &h in idx.words() {
                out.by_word.entry(h).or_default().push(id);
            }
            for &(m, _) in idx.nums() {
                let list = out.by_num.entry(m).or_default();
                if list.last() != Some(&id) {
                    list.push(id);
                }
            }
            out.ranges.push(r);
            out.index.push(idx);
        }
        out
    }

    /// Scores the claim against the given sentences (ascending), keeping the highest (key
    /// score, word score) above zero, the first of equals: `best` as found so far.
    fn score(
        &self,
        keys: &ClaimKeys,
        ids: &[u32],
        mut best: Option<(f64, f64, u32)>,
    ) -> Option<(f64, f64, u32)> {
        for &i in ids {
            crate::probe::steps(1);
            let (k, w) = sentence_score(keys, &self.index[i as usize]);
            if (k > 0.0 || w > 0.0)
                && best.as_ref().is_none_or(|(bk, bw, bi)| {
                    (k, w) > (*bk, *bw) || (k, w) == (*bk, *bw) && i < *bi
                })
            {
                best = Some((k, w, i));
            }
        }
        best
    }
}

/// A sentence's (key score, word score) for a claim: the share of its key tokens and of its
/// words found there, 0 for a claim with none.
fn sentence_score(keys: &ClaimKeys, idx: &TextIndex) -> (f64, f64) {
    let k = if keys.keys.is_empty() {
        0.0
    } else {
        keys.score(idx).score
    };
    let w = if keys.words.is_empty() {
        0.0
    } else {
        keys.word_score(idx)
    };
    (k, w)
}

fn ident(c: char) -> bool {
    c.is_alphanumeric()
}

/// Whether the occurrence `r` of marker `m` in `text` stands alone: a marker beginning (ending)
/// with a letter or digit must not continue a word (`1` is not found inside `2026`).
fn stands_alone(text: &str, m: &str, r: &Range<usize>) -> bool {
    let first_alnum = m.chars().next().is_some_and(ident);
    let last_alnum = m.chars().next_back().is_some_and(ident);
    let before = text[..r.start].chars().next_back();
    let after = text[r.end..].chars().next();
    !(first_alnum && before.is_some_and(ident) || last_alnum && after.is_some_and(ident))
}

/// Up to this many distinct markers, [`occurrences`] searches the text once per marker:
/// building an Aho-Corasick automaton costs far more than a few passes over an answer (it was
/// over half of the checks' instructions on answers citing two or three results).
const FEW_MARKERS: usize = 8;

/// The occurrences of every marker in `text` that stand alone, as (range, marker index), in
/// no particular order: one pass per marker for up to [`FEW_MARKERS`], else one pass over the
/// text whatever the number of markers (Aho-Corasick). Each marker's own occurrences do not
/// overlap one another, the leftmost first (as `str::match_indices` finds them); markers
/// listed twice or blank are skipped after their first.
fn occurrences<'a>(
    text: &str,
    markers: &[&'a str],
    marker_at: &mut rustc_hash::FxHashMap<&'a str, usize>,
) -> Vec<(Range<usize>, usize)> {
    let mut pats: Vec<&str> = Vec::new();
    let mut of_pat: Vec<usize> = Vec::new();
    for (k, &m) in markers.iter().enumerate() {
        if marker_at.contains_key(m) {
            continue;
        }
        marker_at.insert(m, k);
        if !m.trim().is_empty() {
            pats.push(m);
            of_pat.push(k);
        }
    }
    if pats.is_empty() {
        return Vec::new();
    }
    if pats.len() <= FEW_MARKERS {
        let mut out = Vec::new();
        for (p, pat) in pats.iter().enumerate() {
            for (start, _) in text.match_indices(pat) {
                crate::probe::steps(1);
                let r = start..start + pat.len();
                if stands_alone(text, pat, &r) {
                    out.push((r, of_pat[p]));
                }
            }
            crate::probe::steps(text.len());
        }
        return out;
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new(&pats) else {
        return Vec::new();
    };
    // Matches come by end position; a marker's matches all have its length, so they come in
    // start order too: each one that starts before the last kept one of its marker ends is
    // one `match_indices` skips.
    let mut last_end = vec![0usize; pats.len()];
    let mut out = Vec::new();
    for mat in ac.find_overlapping_iter(text) {
        crate::probe::steps(1);
        let p = mat.pattern().as_usize();
        let r = mat.start()..mat.end();
        if r.start < last_end[p] {
            continue;
        }
        last_end[p] = r.end;
        if stands_alone(text, pats[p], &r) {
            out.push((r, of_pat[p]));
        }
    }
    // The text is read once.
    crate::probe::steps(text.len());
    out
}

const CLOSERS: &[char] = &[
    '"', '\'', '”', '’', '»', ')', '）', '」', '』', ']', '.', '!', '?', '。', '！', '？', ':',
    ';', ',', '、', '，',
];
const OPENERS: &[char] = &[
    '"', '\'', '“', '‘', '«', '(', '（', '「', '『', ':', ';', ',', '-', '—',
];

/// Whether `c`, ending at byte `at`, ends a sentence: `。！？` or a line break, or `.`, `!`, `?`
/// followed (before `end`) by whitespace and then a character that is not a lowercase letter.
fn is_boundary(text: &str, c: char, at: usize, end: usize) -> bool {
    match c {
        '。' | '！' | '？' | '\n' => true,
        '.' | '!' | '?' => {
            let rest = &text[at..end];
            let t = rest.trim_start();
            t.len() < rest.len() && t.chars().next().is_some_and(|n| !n.is_lowercase())
        }
        _ => false,
    }
}

/// Where the sentence that contains byte `end` starts, not before `floor`.
fn sentence_start(text: &str, floor: usize, end: usize) -> usize {
    let mut start = floor;
    for (i, c) in text[floor..end].char_indices() {
        let at = floor + i + c.len_utf8();
        if is_boundary(text, c, at, end) {
            start = at;
        }
    }
    start
}

/// The sentences of a text, trimmed, as byte ranges.
fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let at = i + c.len_utf8();
        if is_boundary(text, c, at, text.len()) {
            out.push(trim(text, start..at));
            start = at;
        }
    }
    out.push(trim(text, start..text.len()));
    out.retain(|r| !r.is_empty());
    out
}

/// Trims a range of `text` of surrounding spaces and punctuation.
fn trim(text: &str, mut r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let t = s.trim_end_matches(|c: char| c.is_whitespace() || CLOSERS.contains(&c));
    r.end = r.start + t.len();
    let t2 = t.trim_start_matches(|c: char| c.is_whitespace() || OPENERS.contains(&c));
    r.start += t.len() - t2.len();
    r
}

impl<'a> AnswerMap<'a> {
    /// Cuts `text` at the given markers (blank markers are ignored).
    pub(crate) fn new(text: &'a str, markers: Vec<&'a str>) -> Self {
        let mut marker_at = rustc_hash::FxHashMap::default();
        let mut occ = occurrences(text, &markers, &mut marker_at);
        let mut shown = vec![false; markers.len()];
        // Longer markers first at the same position, then drop overlaps ("[1]" in "[1a]").
        occ.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
        let mut kept: Vec<(Range<usize>, usize)> = Vec::new();
        for o in occ {
            if kept.last().is_none_or(|(last, _)| o.0.start >= last.end) {
                kept.push(o);
            }
        }
        // A marker is shown where one of its occurrences survives: one found only inside a
        // longer marker (`[1` in `[12]`) is not shown, and closes no passage.
        for (_, k) in &kept {
            shown[*k] = true;
        }
        let mut passages: Vec<Passage> = Vec::new();
        let mut closes: Vec<Vec<usize>> = vec![Vec::new(); markers.len()];
        let mut prev_end = 0;
        for (r, k) in kept {
            crate::probe::steps(1);
            let gap = &text[prev_end..r.start];
            let adjacent = !passages.is_empty()
                && gap
                    .chars()
                    .all(|c| c.is_whitespace() || matches!(c, ',' | ';' | '、' | '，'));
            if adjacent {
                let last = passages.len() - 1;
                // Each marker once per passage: the last passage it closes is this one.
                if closes[k].last() != Some(&last) {
                    closes[k].push(last);
                    passages[last].markers.push(k);
                }
            } else {
                let end = trim(text, prev_end..r.start).end;
                let start = sentence_start(text, prev_end, end.max(prev_end));
                let range = trim(text, start..end.max(start));
                closes[k].push(passages.len());
                passages.push(Passage {
                    range,
                    markers: vec![k],
                });
            }
            prev_end = r.end;
        }
        let index = passages
            .iter()
            .map(|p| TextIndex::new(&text[p.range.clone()]))
            .collect();
        AnswerMap {
            text,
            markers,
            passages,
            index,
            shown,
            marker_at,
            closes,
            sentences: std::cell::OnceCell::new(),
        }
    }

    fn marker_index(&self, m: &str) -> Option<usize> {
        crate::probe::steps(1);
        self.marker_at.get(m).copied()
    }

    /// Whether the marker appears in the text.
    pub(crate) fn shows(&self, m: &str) -> bool {
        self.marker_index(m).is_some_and(|k| self.shown[k])
    }

    /// The passages closed by marker `m`, as indexes, in text order.
    fn passages_of(&self, m: &str) -> &[usize] {
        self.marker_index(m)
            .and_then(|k| self.closes.get(k))
            .map_or(&[][..], Vec::as_slice)
    }

    fn passage_text(&self, i: usize) -> &'a str {
        &self.text[self.passages[i].range.clone()]
    }

    /// The sentence of the answer that states the claim best (for claims without a marker):
    /// the highest key-token score, then word score, the first of equals; `None` when nothing
    /// matches at all.
    ///
    /// Only the sentences that have one of the claim's key tokens or words are scored: any
    /// other scores (0, 0) and cannot be chosen. A sentence with a key token found (key score
    /// above 0) beats every sentence without one, so the sentences sharing only words with the
    /// claim are scored only when none has a key token. A repeated sentence scores as its first
    /// occurrence and comes after it, so only the first is scored.
    fn best_sentence(&self, keys: &ClaimKeys) -> Option<Range<usize>> {
        let s = self.sentences.get_or_init(|| Sentences::new(self.text));
        let mut ids: Vec<u32> = Vec::new();
        for k in &keys.keys {
            match k {
                Key::Num { milli, .. } => {
                    if let Some(list) = s.by_num.get(milli) {
                        crate::probe::steps(list.len());
                        ids.extend_from_slice(list);
                    }
                }
                Key::Quoted(q) => {
                    // A quoted name is a substring of the normalized sentence, not a word:
                    // every sentence is searched for it.
                    for (i, idx) in s.index.iter().enumerate() {
                        crate::probe::steps(1);
                        if idx.norm().contains(q.as_str()) {
                            ids.push(i as u32);
                        }
                    }
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let best = s.score(keys, &ids, None);
        let best = match best {
            Some((k, ..)) if k > 0.0 => best,
            // No sentence has a key token: the best shares the most words.
            _ => {
                let mut ids: Vec<u32> = Vec::new();
                for (_, h) in &keys.words {
                    if let Some(list) = s.by_word.get(h) {
                        crate::probe::steps(list.len());
                        ids.extend_from_slice(list);
                    }
                }
                ids.sort_unstable();
                ids.dedup();
                s.score(keys, &ids, best)
            }
        };
        best.map(|(_, _, i)| s.ranges[i as usize].clone())
    }
}

/// How a passage reads a claim.
#[derive(Clone, Debug, PartialEq)]
enum Reading {
    /// States it.
    Stated,
    /// States another value where the claim has one: (claim values missing, passage values).
    Contradicted(Vec<String>, Vec<String>),
    /// Does not state it (with the claim tokens or words it lacks).
    NotStated(Vec<String>),
}

/// Shows a number as it would be written: `5`, `2.1`, with its unit.
fn show(milli: i64, unit: Option<Unit>) -> String {
    let v = if milli % 1000 == 0 {
        (milli / 1000).to_string()
    } else {
        let s = format!("{:.3}", milli as f64 / 1000.0);
        s.trim_end_matches('0').to_owned()
    };
    match unit {
        Some(u) => u.show(&v),
        None => v,
    }
}

fn same_unit(a: Option<Unit>, b: Option<Unit>) -> bool {
    a == b
}

/// Reads one claim in one passage.
fn read(keys: &ClaimKeys, p: &TextIndex, threshold: f64) -> Reading {
    let claim_nums: Vec<(i64, Option<Unit>)> = keys
        .keys
        .iter()
        .filter_map(|k| match k {
            Key::Num { milli, unit, .. } => Some((*milli, *unit)),
            Key::Quoted(_) => None,
        })
        .collect();
    let sup = keys.score(p);
    let in_claim = |(m, u): (i64, Option<Unit>)| {
        claim_nums.iter().any(|(cm, cu)| {
            *cm == m
                && match (cu, u) {
                    (Some(a), Some(b)) => *a == b,
                    _ => true,
                }
        })
    };
    // A claim number the passage lacks, while the passage has another number in that unit.
    let missing: Vec<(i64, Option<Unit>)> = keys
        .keys
        .iter()
        .filter_map(|k| match k {
            Key::Num { milli, unit, shown } if sup.missing.contains(shown) => Some((*milli, *unit)),
            _ => None,
        })
        .collect();
    let extra: Vec<(i64, Option<Unit>)> =
        p.nums().iter().copied().filter(|n| !in_claim(*n)).collect();
    let conflicting: Vec<&(i64, Option<Unit>)> = extra
        .iter()
        .filter(|(_, u)| missing.iter().any(|(_, mu)| same_unit(*mu, *u)))
        .collect();
    if !conflicting.is_empty() {
        let said: Vec<String> = conflicting.iter().map(|(m, u)| show(*m, *u)).collect();
        let lacks: Vec<String> = missing
            .iter()
            .filter(|(_, mu)| conflicting.iter().any(|(_, u)| same_unit(*mu, *u)))
            .map(|(m, u)| show(*m, *u))
            .collect();
        return Reading::Contradicted(lacks, said);
    }
    let all_keys = sup.keys > 0 && sup.missing.is_empty();
    if all_keys || sup.keys == 0 && sup.score >= threshold || keys.word_score(p) >= threshold {
        return Reading::Stated;
    }
    Reading::NotStated(sup.missing)
}

/// Runs the answer checks; returns, per statement (same order as `resolved`), what the answer
/// text shows of it, for the explorer.
pub(crate) fn check<'s>(
    ck: &mut Checker<'s>,
    resolved: &[Resolved<'s>],
) -> Vec<Option<AnswerPassage>> {
    let mut out: Vec<Option<AnswerPassage>> = vec![None; resolved.len()];
    let mut i = 0;
    while i < resolved.len() {
        let turn = resolved[i].claim.turn;
        let mut j = i;
        while j < resolved.len() && resolved[j].claim.turn == turn {
            j += 1;
        }
        if let Some(a) = ck.s.answer(turn).filter(|_| ck.in_scope(turn)) {
            one_answer(ck, a, &resolved[i..j], &mut out[i..j]);
        }
        i = j;
    }
    out
}

/// What the passages of a claim's marker read of it: the first passage that states it, the
/// first passage, the first that contradicts it (with the claim's values it lacks and the
/// values it says) and the first that does not state it (with what it lacks).
#[derive(Debug, Default, PartialEq)]
struct Readings {
    stated_at: Option<usize>,
    first: Option<usize>,
    contradicted: Option<(usize, Vec<String>, Vec<String>)>,
    not_stated: Option<(usize, Vec<String>)>,
}

impl Readings {
    /// Reads the claim in each of the given passages (in text order) and marks every passage
    /// that states it as `backed` (a claim may be restated at a second occurrence of its marker;
    /// the first one is not the only one it earns).
    fn new(
        keys: &ClaimKeys,
        map: &AnswerMap,
        passages: &[usize],
        threshold: f64,
        backed: &mut [bool],
    ) -> Self {
        let mut out = Readings {
            first: passages.first().copied(),
            ..Readings::default()
        };
        for &p in passages {
            crate::probe::steps(1);
            match read(keys, &map.index[p], threshold) {
                Reading::Stated => {
                    backed[p] = true;
                    out.stated_at.get_or_insert(p);
                }
                Reading::Contradicted(lacks, said) => {
                    out.contradicted.get_or_insert((p, lacks, said));
                }
                Reading::NotStated(miss) => {
                    out.not_stated.get_or_insert((p, miss));
                }
            }
        }
        out
    }
}

/// A claim's keys (by address) and a marker.
type KeysAndMarker<'m> = (*const ClaimKeys, &'m str);

/// What one answer's passages read of its claims, once per claim text and marker: claims
/// restated in the same words share their keys (one `Rc`), and an answer of many responses
/// repeats both its claims and its markers (each claim would otherwise read every passage of its
/// marker: claims x passages). Each entry holds its keys, so their address stays theirs.
#[derive(Default)]
struct Memo<'m> {
    /// (claim keys, marker) -> the readings of the marker's passages.
    read_of: rustc_hash::FxHashMap<KeysAndMarker<'m>, (Rc<ClaimKeys>, Rc<Readings>)>,
    /// Claim keys -> the sentence that states the claim best.
    best_of: rustc_hash::FxHashMap<*const ClaimKeys, (Rc<ClaimKeys>, Option<Range<usize>>)>,
}

impl<'m> Memo<'m> {
    /// The readings of the passages of marker `m` for the claim, read (and the passages that
    /// state it marked `backed`) on the first claim of these keys and this marker.
    fn readings(
        &mut self,
        keys: &Rc<ClaimKeys>,
        m: &'m str,
        map: &AnswerMap,
        threshold: f64,
        backed: &mut [bool],
    ) -> Rc<Readings> {
        crate::probe::steps(1);
        let (_, rd) = self
            .read_of
            .entry((Rc::as_ptr(keys), m))
            .or_insert_with(|| {
                let rd = Readings::new(keys, map, map.passages_of(m), threshold, backed);
                (keys.clone(), Rc::new(rd))
            });
        rd.clone()
    }

    /// [`AnswerMap::best_sentence`], found on the first claim of these keys.
    fn best_sentence(&mut self, keys: &Rc<ClaimKeys>, map: &AnswerMap) -> Option<Range<usize>> {
        crate::probe::steps(1);
        let (_, best) = self
            .best_of
            .entry(Rc::as_ptr(keys))
            .or_insert_with(|| (keys.clone(), map.best_sentence(keys)));
        best.clone()
    }
}

fn marker_of<'s>(r: &Resolved<'s>) -> Option<&'s str> {
    r.claim
        .stamp
        .render
        .as_ref()
        .and_then(|x| x.marker.as_deref())
        .filter(|m| !m.trim().is_empty())
}

fn one_answer<'s>(
    ck: &mut Checker<'s>,
    a: &'s Answer,
    rs: &[Resolved<'s>],
    out: &mut [Option<AnswerPassage>],
) {
    let mut markers: Vec<&str> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for r in rs {
        if let Some(m) = marker_of(r) {
            if seen.insert(m) {
                markers.push(m);
            }
        }
    }
    let map = AnswerMap::new(&a.text, markers);
    let threshold = ck.cfg.support_threshold;
    // Which passages a claim-level finding already explains.
    let mut explained = vec![false; map.passages.len()];
    // Which passages some claim of their markers states.
    let mut backed = vec![false; map.passages.len()];
    let mut tier_flagged = vec![false; rs.len()];
    let mut memo = Memo::default();
    for (n, r) in rs.iter().enumerate() {
        let c = r.claim;
        let server = c.stamp.origin.as_ref().map(|o| {
            r.call
                .map_or(o.server.as_str(), |call| call.server.as_str())
        });
        let tier = server.map(|s| (s, ck.effective_tier(s)));
        let marker = marker_of(r);
        let readings = match marker {
            Some(m) => memo.readings(&r.keys, m, &map, threshold, &mut backed),
            None => Rc::new(Readings::default()),
        };
        let stated_at = readings.stated_at;
        // The passage shown for the claim: where it is stated, else the best reading, else (no
        // marker) the sentence that states it best.
        let shown_range = match (stated_at, readings.first) {
            (Some(p), _) => Some(map.passages[p].range.clone()),
            (None, Some(p)) => Some(map.passages[p].range.clone()),
            (None, None) => memo.best_sentence(&r.keys, &map),
        };
        out[n] = Some(AnswerPassage {
            marker_shown: marker.map(|m| map.shows(m)),
            range: shown_range.clone(),
            stated: stated_at.is_some(),
        });
        // Tier rendering (only where the tier itself passes the policy: below_tier covers the rest).
        if let Some((server, t)) = tier {
            if super::origin::tier_allowed(r, t.tier) {
                let near = shown_range.as_ref().map(|rg| &a.text[rg.clone()]);
                if let Some(f) = tier_rendering(r, server, t.tier, marker, &map, near) {
                    tier_flagged[n] = true;
                    ck.emit(f.claim(c));
                }
            }
        }
        let Some(m) = marker else { continue };
        if !map.shows(m) {
            if !tier_flagged[n] {
                let e = ev::AnswerMismatch {
                    reason: ev::AnswerReason::MarkerAbsent,
                    marker: Some(m.to_owned()),
                    passage: None,
                    claim_values: Vec::new(),
                    answer_values: Vec::new(),
                    claims: Vec::new(),
                };
                ck.emit(
                    Finding::new(
                        Evidence::AnswerMismatch(Box::new(e)),
                        Severity::Warning,
                        format!("its marker {m} does not appear in the answer text: the user never saw this citation"),
                    )
                    .claim(c)
                    .call_of(r),
                );
            }
            continue;
        }
        if stated_at.is_some() {
            continue;
        }
        let Some(first) = readings.first else {
            continue; // shown, yet closing no passage: nothing to read it against
        };
        // Not stated anywhere its marker is: contradicted somewhere, or not stated.
        let contradiction = readings.contradicted.clone();
        let (p, sev, reason, claim_values, answer_values, msg) = match contradiction {
            Some((p, lacks, said)) => (
                p,
                Severity::Error,
                ev::AnswerReason::Contradicted,
                lacks.clone(),
                said.clone(),
                format!(
                    "the answer text at {m} says {} where the stamp says {}",
                    said.join(", "),
                    lacks.join(", ")
                ),
            ),
            None => {
                let (p, missing) = readings.not_stated.clone().unwrap_or((first, Vec::new()));
                (
                    p,
                    Severity::Warning,
                    ev::AnswerReason::NotStated,
                    missing.clone(),
                    Vec::new(),
                    if missing.is_empty() {
                        format!("the answer text at {m} does not state this claim")
                    } else {
                        format!(
                            "the answer text at {m} does not state this claim (it lacks {})",
                            missing.join(", ")
                        )
                    },
                )
            }
        };
        explained[p] = true;
        let e = ev::AnswerMismatch {
            reason,
            marker: Some(m.to_owned()),
            passage: Some(map.passage_text(p).to_owned()),
            claim_values,
            answer_values,
            claims: Vec::new(),
        };
        ck.emit(
            Finding::new(Evidence::AnswerMismatch(Box::new(e)), sev, msg)
                .claim(c)
                .call_of(r),
        );
    }
    // Passages that none of their markers' stamps state: the answer says something its stamps
    // do not.
    let mut by_marker: rustc_hash::FxHashMap<&str, Vec<usize>> = rustc_hash::FxHashMap::default();
    for (n, r) in rs.iter().enumerate() {
        if let Some(m) = marker_of(r) {
            by_marker.entry(m).or_default().push(n);
        }
    }
    for (p, passage) in map.passages.iter().enumerate() {
        if backed[p] || explained[p] {
            continue;
        }
        let text = map.passage_text(p);
        let idx = &map.index[p];
        if idx.nums().is_empty() && ClaimKeys::new(text).words.is_empty() {
            continue; // nothing said
        }
        let ms: Vec<&str> = passage.markers.iter().map(|&k| map.markers[k]).collect();
        // The claims citing its markers, in claim order, through the index by marker.
        let mut at: Vec<usize> = ms
            .iter()
            .filter_map(|m| by_marker.get(m))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        let citing: Vec<&Resolved> = at.iter().map(|&n| &rs[n]).collect();
        // A stamp of these markers whose values this passage contradicts, although the stamp
        // is stated at another occurrence of its marker: the passage is its misstatement (a
        // claim-level error, so the claim's source verdict shows it), not anonymous text.
        // Only a passage that reads as a restatement (enough of the claim's words) counts.
        let contradicted = citing
            .iter()
            .filter(|r| r.keys.word_score(idx) >= threshold)
            .find_map(|r| match read(&r.keys, idx, threshold) {
                Reading::Contradicted(lacks, said) => Some((*r, lacks, said)),
                _ => None,
            });
        if let Some((r, lacks, said)) = contradicted {
            let m = ms.join(" ");
            let msg = format!(
                "the answer text at {m} says {} where the stamp says {} (the stamp is stated elsewhere, this passage misstates it)",
                said.join(", "),
                lacks.join(", ")
            );
            let e = ev::AnswerMismatch {
                reason: ev::AnswerReason::Contradicted,
                marker: Some(m),
                passage: Some(text.to_owned()),
                claim_values: lacks,
                answer_values: said,
                claims: Vec::new(),
            };
            ck.emit(
                Finding::new(Evidence::AnswerMismatch(Box::new(e)), Severity::Error, msg)
                    .claim(r.claim)
                    .call_of(r),
            );
            continue;
        }
        let values: Vec<String> = idx.nums().iter().map(|(m, u)| show(*m, *u)).collect();
        let e = ev::AnswerMismatch {
            reason: ev::AnswerReason::Unstamped,
            marker: Some(ms.join(" ")),
            passage: Some(text.to_owned()),
            claim_values: Vec::new(),
            answer_values: values.clone(),
            claims: citing.iter().map(|r| r.claim.id().to_owned()).collect(),
        };
        let what = if values.is_empty() {
            String::new()
        } else {
            format!(" ({})", values.join(", "))
        };
        let mut f = Finding::new(
            Evidence::AnswerMismatch(Box::new(e)),
            Severity::Error,
            format!(
                "the answer says something at {} that none of its stamps state{what}: a citation it did not earn",
                ms.join(" ")
            ),
        )
        .turn(a.turn)
        .at(a);
        for r in citing {
            if let Some(o) = &r.claim.stamp.origin {
                f = f.call(&o.tool_call_id);
            }
        }
        ck.emit(f);
    }
}

/// Adds the claim's cited call, if any.
trait CallOf {
    fn call_of(self, r: &Resolved) -> Self;
}

impl CallOf for Finding {
    fn call_of(self, r: &Resolved) -> Finding {
        match &r.claim.stamp.origin {
            Some(o) => self.call(&o.tool_call_id),
            None => self,
        }
    }
}

/// `tier_rendering`: a T1 claim must show its marker or a label naming its server where the
/// answer states it; a T2 claim must be attributed there (an attribution phrase or the server's
/// name).
fn tier_rendering(
    r: &Resolved,
    server: &str,
    tier: Tier,
    marker: Option<&str>,
    map: &AnswerMap,
    near: Option<&str>,
) -> Option<Finding> {
    let lower_near = near.map(str::to_lowercase).unwrap_or_default();
    let names_server = !server.is_empty() && lower_near.contains(&server.to_lowercase());
    let (rule, msg) = match tier {
        Tier::T1 => {
            let marker_shown = marker.is_some_and(|m| map.shows(m));
            if marker_shown || names_server {
                return None;
            }
            let why = match marker {
                Some(m) => format!("its marker {m} does not appear in the answer text"),
                None => "it has no marker".to_owned(),
            };
            (
                ev::TierRule::T1Label,
                format!(
                    "a T1 (vetted external) result from `{server}` backs this claim, but {why} and the answer does not name the source: T1 claims must be stamped and labelled"
                ),
            )
        }
        Tier::T2 => {
            let attributed = names_server || ATTRIBUTIONS.iter().any(|h| lower_near.contains(h));
            if attributed {
                return None;
            }
            (
                ev::TierRule::T2Attribution,
                format!(
                    "a T2 (community) result from `{server}` backs this claim, but the answer states it without attribution: T2 may only back attributed facts"
                ),
            )
        }
        _ => return None,
    };
    let e = ev::TierRendering {
        rule,
        server: server.to_owned(),
        tier,
        marker: marker.map(str::to_owned),
        passage: near.map(str::to_owned),
    };
    let mut f = Finding::new(Evidence::TierRendering(Box::new(e)), Severity::Error, msg);
    if let Some(o) = &r.claim.stamp.origin {
        f = f.call(&o.tool_call_id);
    }
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passages(text: &str, markers: &[&str]) -> Vec<String> {
        let m = AnswerMap::new(text, markers.to_vec());
        (0..m.passages.len())
            .map(|i| m.passage_text(i).to_owned())
            .collect()
    }

    #[test]
    fn passages_end_at_markers_and_start_at_their_sentence() {
        assert_eq!(
            passages(
                "Yes. The order belongs to Zoë [2] and was approved on 2026-10-01 [2]. Done.",
                &["[2]"]
            ),
            ["The order belongs to Zoë", "and was approved on 2026-10-01"]
        );
        assert_eq!(
            passages(
                "For the email: \"Seats cost $19 per user.\" [1] Next.",
                &["[1]"]
            ),
            ["For the email: \"Seats cost $19 per user"]
        );
        assert_eq!(
            passages("Café Łódź Sp. z o.o. with 731 [3].", &["[3]"]),
            ["Café Łódź Sp. z o.o. with 731"]
        );
        assert_eq!(
            passages("Prices rose. Seats cost $19 [1][2].", &["[1]", "[2]"]),
            ["Seats cost $19"]
        );
        assert_eq!(
            passages("税込 ¥2,980 です [2]。年額 ¥29,760 [2]。", &["[2]"]).len(),
            2
        );
        // A marker found only inside another (`1]` in `[1]`) is not shown and closes no passage
        // (it used to count as shown with no passage, and the not-stated path indexed an empty
        // list).
        let m = AnswerMap::new("Seats cost $19 [1].", vec!["[1]", "1]"]);
        assert!(!m.shows("1]") && m.shows("[1]"));
        assert!(m.passages_of("1]").is_empty());
        // A marker made of digits is not found inside a number.
        assert!(passages("In 2026 prices rose.", &["2", "0", "6", "202"]).is_empty());
    }

    /// An answer of `n` sentences, each closed by its own marker, then one passage closed by
    /// all `n` markers written next to each other; and its markers.
    fn wide(n: usize) -> (String, Vec<String>) {
        let mut text = String::new();
        let markers: Vec<String> = (1..=n).map(|k| format!("[{k}]")).collect();
        for (k, m) in markers.iter().enumerate() {
            text.push_str(&format!("Plan {k} costs ${k} per seat {m}. "));
        }
        text.push_str("Every plan is billed monthly ");
        text.push_str(&markers.concat());
        text.push('.');
        (text, markers)
    }

    /// Steps counted cutting a wide answer and looking up every marker's passages.
    fn wide_cost(n: usize) -> u64 {
        let (text, markers) = wide(n);
        let refs: Vec<&str> = markers.iter().map(String::as_str).collect();
        let before = crate::probe::count();
        let map = AnswerMap::new(&text, refs.clone());
        for (k, m) in refs.iter().enumerate() {
            assert!(map.shows(m));
            // Its own sentence, then the shared passage.
            assert_eq!(map.passages_of(m), [k, n]);
        }
        assert_eq!(map.passages.len(), n + 1);
        assert_eq!(map.passages[n].markers.len(), n);
        crate::probe::count() - before
    }

    proptest::proptest! {
        /// Searched marker by marker (a few markers) or by one automaton (many), the same
        /// occurrences: the same markers plus enough that never occur take the automaton.
        #[test]
        fn few_markers_are_found_as_the_automaton_finds_them(
            text in "[ a1\\[\\]\\.é2]{0,60}",
            markers in proptest::collection::vec("[a1\\[\\]é2 ]{0,4}", 1..=FEW_MARKERS),
        ) {
            let few: Vec<&str> = markers.iter().map(String::as_str).collect();
            let absent: Vec<String> = (0..=FEW_MARKERS).map(|i| format!("<never {i}>")).collect();
            let many: Vec<&str> = few.iter().copied().chain(absent.iter().map(String::as_str)).collect();
            let sorted = |mut v: Vec<(Range<usize>, usize)>| {
                v.sort_by_key(|(r, k)| (r.start, r.end, *k));
                v
            };
            let a = sorted(occurrences(&text, &few, &mut Default::default()));
            let b = sorted(occurrences(&text, &many, &mut Default::default()));
            proptest::prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn a_wide_answer_costs_linear_work() {
        let (a, b) = (wide_cost(300), wide_cost(1200));
        assert!(
            b as f64 / a as f64 <= 4.4,
            "300 markers: {a} steps, 1200: {b} ({:.2}x)",
            b as f64 / a as f64
        );
        // What a search of the whole text per marker (as `match_indices` did) and a scan of
        // every passage per marker would count: the same check catches it.
        let scan = |n: usize| {
            let (text, markers) = wide(n);
            (markers.len() * (text.len() + n + 1)) as u64
        };
        assert!(scan(1200) as f64 / scan(300) as f64 > 8.0);
    }

    /// The sentence that states a claim best as found before the sentence index: every sentence
    /// of the answer indexed and scored in turn, the first of the highest (key score, word
    /// score) kept.
    fn best_sentence_scan(text: &str, keys: &ClaimKeys) -> Option<Range<usize>> {
        let mut best: Option<(f64, f64, Range<usize>)> = None;
        for r in sentences(text) {
            let idx = TextIndex::new(&text[r.clone()]);
            let k = if keys.keys.is_empty() {
                0.0
            } else {
                keys.score(&idx).score
            };
            let w = if keys.words.is_empty() {
                0.0
            } else {
                keys.word_score(&idx)
            };
            if (k > 0.0 || w > 0.0) && best.as_ref().is_none_or(|(bk, bw, _)| (k, w) > (*bk, *bw)) {
                best = Some((k, w, r));
            }
        }
        best.map(|(_, _, r)| r)
    }

    /// Words, numbers in several units, quoted names and sentence ends the answers and claims
    /// of the property below are made of.
    const PIECES: [&str; 30] = [
        "Plan",
        "plans",
        "costs",
        "cost",
        "seat",
        "$19",
        "19",
        "19 USD",
        "€19",
        "5",
        "five",
        "days",
        "5 business days",
        "2026-10-01",
        "October 1, 2026",
        "\"Pro plan\"",
        "pro plan",
        "Pro",
        "20%",
        "20",
        "the",
        "refunds",
        "Refund",
        "Zoë",
        ".",
        "!",
        "? ",
        "\n",
        "。",
        ", ",
    ];

    proptest::proptest! {
        /// The indexed search finds the sentence the scan of every sentence finds, repeated
        /// sentences and ties included.
        #[test]
        fn best_sentence_is_the_first_best_of_a_scan(
            text in proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..40),
            copies in 1..3usize,
            tail in proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..10),
            claims in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..7),
                1..6,
            ),
        ) {
            let text = format!("{}{}", format!("{} ", text.join(" ")).repeat(copies), tail.join(" "));
            let map = AnswerMap::new(&text, Vec::new());
            for c in claims {
                let c = c.join(" ");
                let keys = ClaimKeys::new(&c);
                proptest::prop_assert_eq!(
                    map.best_sentence(&keys),
                    best_sentence_scan(&text, &keys),
                    "claim {:?} in {:?}",
                    c,
                    text
                );
            }
        }
    }

    #[test]
    fn best_sentence_keeps_the_scans_rules() {
        let text = "Seats cost $19. Plans cost $19 per seat. Seats cost $19. Refunds take 5 days.";
        let map = AnswerMap::new(text, Vec::new());
        let best = |claim: &str| map.best_sentence(&ClaimKeys::new(claim)).map(|r| &text[r]);
        // The highest key score, then word score; the first of equals.
        assert_eq!(
            best("Plans cost $19 per seat"),
            Some("Plans cost $19 per seat")
        );
        assert_eq!(best("Seats cost $19"), Some("Seats cost $19"));
        assert_eq!(
            best("Refunds take 5 business days"),
            Some("Refunds take 5 days")
        );
        // A number found beats more words shared.
        assert_eq!(best("Seats cost 5"), Some("Refunds take 5 days"));
        // Nothing shared.
        assert_eq!(best("Shipping is free"), None);
        for claim in [
            "Plans cost $19 per seat",
            "Seats cost 5",
            "seats",
            "Shipping is free",
        ] {
            assert_eq!(
                map.best_sentence(&ClaimKeys::new(claim)),
                best_sentence_scan(text, &ClaimKeys::new(claim))
            );
        }
    }

    /// `n` copies of one sentence, then `n` sentences of a plan at its own price, and one claim
    /// per plan: the steps counted finding each claim's best sentence.
    fn best_cost(n: usize) -> u64 {
        let plan = |k: usize| format!("Plan {k} costs ${} per seat", 100_000 + k);
        let mut text = "Every plan is billed per seat monthly. ".repeat(n);
        for k in 0..n {
            text.push_str(&plan(k));
            text.push_str(". ");
        }
        let map = AnswerMap::new(&text, Vec::new());
        let before = crate::probe::count();
        for k in 0..n {
            let r = map.best_sentence(&ClaimKeys::new(&plan(k)));
            assert_eq!(r.map(|r| &text[r]), Some(plan(k).as_str()));
        }
        crate::probe::count() - before
    }

    #[test]
    fn best_sentences_cost_linear_work() {
        let (a, b) = (best_cost(300), best_cost(1200));
        assert!(
            b as f64 / a as f64 <= 4.4,
            "300 claims: {a} steps, 1200: {b} ({:.2}x)",
            b as f64 / a as f64
        );
    }

    /// `n` copies of one response's text as one answer (two sentences closed by `[1]`, one
    /// without a marker), and its three claims restated in each copy (one `Rc` of keys per
    /// claim text, as the checks share them): the steps counted reading every claim, through
    /// one memo for the answer (`shared`) or a memo per claim (each reading every passage of
    /// its marker, as before the memo).
    fn repeated_cost(n: usize, shared: bool) -> u64 {
        let text = "Seats cost $19 per user [1]. Refunds take 5 business days [1]. Support is open on weekdays.\n"
            .repeat(n);
        let map = AnswerMap::new(&text, vec!["[1]"]);
        let keys = [
            "Seats cost $19 per user",
            "Refunds take 5 business days",
            "Support is open on weekdays",
        ]
        .map(|c| Rc::new(ClaimKeys::new(c)));
        let mut backed = vec![false; map.passages.len()];
        let before = crate::probe::count();
        let mut memo = Memo::default();
        for _ in 0..n {
            for (i, k) in keys.iter().enumerate() {
                if !shared {
                    memo = Memo::default();
                }
                if i < 2 {
                    let rd = memo.readings(k, "[1]", &map, 0.6, &mut backed);
                    assert_eq!((rd.stated_at, rd.first), (Some(i), Some(0)));
                } else {
                    let r = memo.best_sentence(k, &map);
                    assert_eq!(r.map(|r| &text[r]), Some("Support is open on weekdays"));
                }
            }
        }
        assert!(backed.iter().all(|b| *b), "every passage states a claim");
        crate::probe::count() - before
    }

    #[test]
    fn repeated_claims_cost_linear_work() {
        let (a, b) = (repeated_cost(300, true), repeated_cost(1200, true));
        assert!(
            b as f64 / a as f64 <= 4.4,
            "300 copies: {a} steps, 1200: {b} ({:.2}x)",
            b as f64 / a as f64
        );
        // Without the memo every claim reads every passage of its marker: the same check
        // catches it.
        let (a, b) = (repeated_cost(100, false), repeated_cost(400, false));
        assert!(b as f64 / a as f64 > 8.0, "{a} -> {b}");
    }

    #[test]
    fn readings() {
        let r = |claim: &str, p: &str| read(&ClaimKeys::new(claim), &TextIndex::new(p), 0.6);
        assert_eq!(
            r(
                "Refunds take 5 business days",
                "Refunds take 5 business days"
            ),
            Reading::Stated
        );
        assert!(matches!(
            r(
                "Premium refunds process within 5 business days",
                "Premium refunds are processed within 60 business days"
            ),
            Reading::Contradicted(..)
        ));
        assert_eq!(
            r(
                "Order A-10482 belongs to Zoë Lindqvist",
                "The order belongs to Zoë Lindqvist"
            ),
            Reading::Stated,
            "a more specific claim is not contradicted"
        );
        assert!(matches!(
            r("approved on 2026-10-01", "approved on 2026-10-03"),
            Reading::Contradicted(..)
        ));
        assert!(matches!(
            r("Shipping is free for members", "Returns cost a fee"),
            Reading::NotStated(_)
        ));
    }
}
