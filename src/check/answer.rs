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
    /// the highest key-token score, then word score; `None` when nothing matches at all.
    fn best_sentence(&self, keys: &ClaimKeys) -> Option<Range<usize>> {
        let mut best: Option<(f64, f64, Range<usize>)> = None;
        for r in sentences(self.text) {
            let idx = TextIndex::new(&self.text[r.clone()]);
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
    for (n, r) in rs.iter().enumerate() {
        let c = r.claim;
        let server = c.stamp.origin.as_ref().map(|o| {
            r.call
                .map_or(o.server.as_str(), |call| call.server.as_str())
        });
        let tier = server.map(|s| (s, ck.effective_tier(s)));
        let marker = marker_of(r);
        let passages = marker.map_or(&[][..], |m| map.passages_of(m));
        // Readings of every passage of its marker.
        let readings: Vec<(usize, Reading)> = passages
            .iter()
            .map(|&p| (p, read(&r.keys, &map.index[p], threshold)))
            .collect();
        let stated_at = readings
            .iter()
            .find(|(_, rd)| *rd == Reading::Stated)
            .map(|(p, _)| *p);
        // Every passage of its marker that states it is backed (a claim may be restated at a
        // second occurrence of its marker; the first one is not the only one it earns).
        for (p, rd) in &readings {
            if *rd == Reading::Stated {
                backed[*p] = true;
            }
        }
        // The passage shown for the claim: where it is stated, else the best reading, else (no
        // marker) the sentence that states it best.
        let shown_range = match (stated_at, readings.first()) {
            (Some(p), _) => Some(map.passages[p].range.clone()),
            (None, Some((p, _))) => Some(map.passages[*p].range.clone()),
            (None, None) => map.best_sentence(&r.keys),
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
        let Some(&first) = passages.first() else {
            continue; // shown, yet closing no passage: nothing to read it against
        };
        // Not stated anywhere its marker is: contradicted somewhere, or not stated.
        let contradiction = readings.iter().find_map(|(p, rd)| match rd {
            Reading::Contradicted(lacks, said) => Some((*p, lacks.clone(), said.clone())),
            _ => None,
        });
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
                let (p, missing) = readings
                    .iter()
                    .find_map(|(p, rd)| match rd {
                        Reading::NotStated(miss) => Some((*p, miss.clone())),
                        _ => None,
                    })
                    .unwrap_or((first, Vec::new()));
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
