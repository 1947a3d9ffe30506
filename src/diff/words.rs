//! A word-level value diff of two texts: the changed stretches with a few words of context, as
//! `git diff --word-diff` shows them. Myers' algorithm (the `similar` crate, on words interned
//! as numbers) with a deadline, so two large, very different results never stall a run: past
//! the deadline the rest is reported as one replaced stretch.

use serde::Serialize;
use std::time::{Duration, Instant};

/// One changed stretch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// Up to the context's number of unchanged words before the change.
    pub before: String,
    /// The words of the first text (empty for a pure insertion).
    pub removed: String,
    /// The words of the second text (empty for a pure deletion).
    pub added: String,
    /// Up to the context's number of unchanged words after the change.
    pub after: String,
}

/// The word diff of two texts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WordDiff {
    /// Words only in the first text.
    pub words_removed: usize,
    /// Words only in the second text.
    pub words_added: usize,
    /// The changed stretches, in text order.
    pub hunks: Vec<Hunk>,
}

/// How long one diff may search for the shortest edit script.
const DEADLINE: Duration = Duration::from_millis(250);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    Equal,
    Delete,
    Insert,
}

fn is_space(t: &str) -> bool {
    t.chars().all(char::is_whitespace)
}

/// `s` as words and whitespace runs (`similar`'s word tokens: each maximal run of characters
/// that are all whitespace or all not).
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(s.len() / 4);
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut space: Option<bool> = None;
    let mut i = 0;
    while i < bytes.len() {
        let (ws, len) = match bytes[i] {
            b if b.is_ascii() => (b.is_ascii_whitespace() || b == 0x0b, 1),
            _ => match s[i..].chars().next() {
                Some(c) => (c.is_whitespace(), c.len_utf8()),
                None => break,
            },
        };
        if space.is_some_and(|sp| sp != ws) {
            out.push(&s[start..i]);
            start = i;
        }
        space = Some(ws);
        i += len;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The word diff of `a` and `b` with `context` unchanged words around each change.
pub fn diff(a: &str, b: &str, context: usize) -> WordDiff {
    if a == b {
        return WordDiff::default();
    }
    let (ta, tb) = (tokens(a), tokens(b));
    // Each distinct token becomes a number (one FxHash lookup per token); Myers then compares
    // numbers.
    fn intern<'t>(ids: &mut rustc_hash::FxHashMap<&'t str, u32>, toks: &[&'t str]) -> Vec<u32> {
        toks.iter()
            .map(|t| {
                let next = ids.len() as u32;
                *ids.entry(t).or_insert(next)
            })
            .collect()
    }
    let mut ids = rustc_hash::FxHashMap::default();
    let ia = intern(&mut ids, &ta);
    let ib = intern(&mut ids, &tb);
    let ops = similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        &ia,
        &ib,
        Some(Instant::now() + DEADLINE),
    );
    let mut toks: Vec<(Tag, &str)> = Vec::with_capacity(ta.len().max(tb.len()));
    for op in &ops {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => toks.extend(ta[old].iter().map(|t| (Tag::Equal, *t))),
            similar::DiffTag::Delete => toks.extend(ta[old].iter().map(|t| (Tag::Delete, *t))),
            similar::DiffTag::Insert => toks.extend(tb[new].iter().map(|t| (Tag::Insert, *t))),
            similar::DiffTag::Replace => {
                toks.extend(ta[old].iter().map(|t| (Tag::Delete, *t)));
                toks.extend(tb[new].iter().map(|t| (Tag::Insert, *t)));
            }
        }
    }
    let mut out = WordDiff::default();
    for (tag, t) in &toks {
        if !is_space(t) {
            match tag {
                Tag::Delete => out.words_removed += 1,
                Tag::Insert => out.words_added += 1,
                Tag::Equal => {}
            }
        }
    }
    let n = toks.len();
    let mut i = 0;
    let mut prev_end = 0;
    while i < n {
        if toks[i].0 == Tag::Equal {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        loop {
            while end < n && toks[end].0 != Tag::Equal {
                end += 1;
            }
            // Unchanged whitespace between two changes belongs to one stretch.
            let mut k = end;
            while k < n && toks[k].0 == Tag::Equal && is_space(toks[k].1) {
                k += 1;
            }
            if k > end && k < n && toks[k].0 != Tag::Equal {
                end = k;
                continue;
            }
            break;
        }
        let side = |skip: Tag| -> String {
            toks[start..end]
                .iter()
                .filter(|(t, _)| *t != skip)
                .map(|(_, s)| *s)
                .collect::<String>()
                .trim()
                .to_owned()
        };
        let mut before: Vec<&str> = Vec::new();
        let mut words = 0;
        let mut j = start;
        while j > prev_end && words < context {
            j -= 1;
            if !is_space(toks[j].1) {
                words += 1;
            }
            before.push(toks[j].1);
        }
        before.reverse();
        let mut after = String::new();
        let mut words = 0;
        let mut j = end;
        while j < n && toks[j].0 == Tag::Equal && words < context {
            if !is_space(toks[j].1) {
                words += 1;
            }
            after.push_str(toks[j].1);
            j += 1;
        }
        let (removed, added) = (side(Tag::Insert), side(Tag::Delete));
        // A change of whitespace alone is no changed word.
        if !(removed.is_empty() && added.is_empty()) {
            out.hunks.push(Hunk {
                before: before.concat().trim().to_owned(),
                removed,
                added,
                after: after.trim().to_owned(),
            });
        }
        prev_end = end;
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_word_changed_with_context() {
        let d = diff(
            "Team plan: seats cost $19 per user per month.",
            "Team plan: seats cost $25 per user per month.",
            2,
        );
        assert_eq!((d.words_removed, d.words_added), (1, 1));
        assert_eq!(
            d.hunks,
            vec![Hunk {
                before: "seats cost".into(),
                removed: "$19".into(),
                added: "$25".into(),
                after: "per user".into(),
            }]
        );
    }

    #[test]
    fn adjacent_changes_are_one_stretch_and_far_ones_two() {
        let d = diff("a b c d e f g h i j", "a X Y d e f g h i Z", 1);
        assert_eq!(d.hunks.len(), 2, "{:?}", d.hunks);
        assert_eq!(d.hunks[0].removed, "b c");
        assert_eq!(d.hunks[0].added, "X Y");
        assert_eq!(d.hunks[0].before, "a");
        assert_eq!(d.hunks[0].after, "d");
        assert_eq!(d.hunks[1].removed, "j");
        assert_eq!(d.hunks[1].added, "Z");
        assert_eq!(d.hunks[1].after, "");
    }

    /// The same tokens, and so the same edit script, as `similar`'s own word diff.
    #[test]
    fn tokens_and_changes_match_similar_word_diff() {
        let texts = [
            "",
            " ",
            "a",
            "  lead and trail  ",
            "tab\tvt\u{b}ff\u{c}cr\r\nnbsp\u{a0}em\u{2003}nel\u{85}end",
            "héllo wörld — ünïcode\u{3000}ideographic space",
            "price: $19 per seat, 12 seats; total $228\n\nnext line",
            "price: $25 per seat, 12 seats; total $300\n next line",
        ];
        for a in texts {
            let theirs: Vec<&str> = similar::TextDiff::from_words(a, a)
                .iter_all_changes()
                .map(|c| c.value())
                .collect();
            assert_eq!(tokens(a), theirs, "{a:?}");
            for b in texts {
                let d = similar::TextDiff::configure()
                    .algorithm(similar::Algorithm::Myers)
                    .diff_words(a, b);
                let mut removed = 0;
                let mut added = 0;
                for c in d.iter_all_changes() {
                    if !is_space(c.value()) {
                        match c.tag() {
                            similar::ChangeTag::Delete => removed += 1,
                            similar::ChangeTag::Insert => added += 1,
                            similar::ChangeTag::Equal => {}
                        }
                    }
                }
                let ours = diff(a, b, 2);
                assert_eq!((ours.words_removed, ours.words_added), (removed, added));
            }
        }
    }

    #[test]
    fn identical_texts_and_pure_insertions() {
        assert_eq!(diff("same", "same", 3), WordDiff::default());
        let d = diff("price", "price changed", 3);
        assert_eq!(d.hunks.len(), 1);
        assert_eq!(d.hunks[0].removed, "");
        assert_eq!(d.hunks[0].added, "changed");
        assert_eq!(d.words_added, 1);
        // Whitespace alone is not a changed word.
        let d = diff("a  b", "a b", 3);
        assert_eq!((d.words_removed, d.words_added), (0, 0));
        assert!(d.hunks.is_empty());
    }
}
