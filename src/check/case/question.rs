//! Which recorded results answer the same question as a claim, and what each one says.
//!
//! A result answers the same question as a claim when, in the claim's turn or an earlier one,
//! it is the same tool called with the same arguments (on any server), or another server's
//! other tool whose result states the same quantity: a value in the unit of the claim's first
//! number with a unit (a currency, a percentage, a duration), or a status word when the claim
//! has no such number, in a sentence that shares at least half of the claim's content words (in
//! the claim's own turn, the whole result may share them instead). The same tool called with
//! other arguments asks another question (the UK policy is not a rival of the EU policy); the
//! same server's other tools answer other questions (a quote total is not a seat price); a later
//! result of the same call on the same server supersedes an earlier one. Values are read with
//! check's tokenizer (`support`), sentence by sentence.

use crate::check::support::{ClaimKeys, Key, TextIndex, Unit};
use crate::check::{ClaimVerdict, Evidence, Kind, SessionReport};
use crate::model::case::{Link, Stated};
use crate::model::{Call, Name, Session, ToolResult};
use std::ops::Range;

/// The least share of the claim's content words a sentence of another tool's result must share
/// to state the same quantity.
pub const RELATED: f64 = 0.5;

/// The quantity a claim states: a number in a unit, or a status.
#[derive(Clone, Debug, PartialEq)]
pub enum Quantity {
    /// A number with its unit (value * 1000).
    Num {
        /// The unit.
        unit: Unit,
        /// The claim's value * 1000.
        milli: i64,
    },
    /// Status words (`resolved`, `degraded`, ...).
    Status(Vec<&'static str>),
}

/// A competing source of a claim.
#[derive(Clone, Debug)]
pub struct Source<'s> {
    /// The call.
    pub call: &'s Call,
    /// Its result.
    pub result: &'s ToolResult,
    /// Why it competes.
    pub link: Link,
    /// What it says for the claim's quantity, when it could be read.
    pub stated: Option<Stated>,
    /// The sentence that says it (or the start of the result).
    pub value: String,
}

/// The code a unit is written with in cases: ISO currency code, `%`, or the duration unit.
pub fn unit_code(u: Unit) -> String {
    match u {
        Unit::Currency(c) => c.to_owned(),
        Unit::Percent => "%".to_owned(),
        Unit::Time(t) => t.to_owned(),
    }
}

fn trim_num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A number in a unit as a [`Stated`] value.
pub fn stated_num(milli: i64, unit: Unit) -> Stated {
    let n = milli as f64 / 1000.0;
    Stated {
        text: unit.show(&trim_num(n)),
        number: Some(n),
        unit: Some(unit_code(unit)),
        status: Vec::new(),
    }
}

/// Status words as a [`Stated`] value.
pub fn stated_status(words: &[&str]) -> Stated {
    Stated {
        text: words.join("/"),
        number: None,
        unit: None,
        status: words.iter().map(|w| (*w).to_owned()).collect(),
    }
}

/// The quantity a claim states: its first number with a unit, else its status words (those the
/// cited span also uses, when a span is given and shares any).
pub fn quantity(keys: &ClaimKeys, claim: &str, span: Option<&str>) -> Option<Quantity> {
    for k in &keys.keys {
        if let Key::Num {
            milli,
            unit: Some(u),
            ..
        } = k
        {
            return Some(Quantity::Num {
                unit: *u,
                milli: *milli,
            });
        }
    }
    let words = crate::check::parallel::status_words(claim);
    if words.is_empty() {
        return None;
    }
    let in_span: Vec<&'static str> = span
        .map(crate::check::parallel::status_words)
        .unwrap_or_default()
        .into_iter()
        .filter(|w| words.contains(w))
        .collect();
    Some(Quantity::Status(if in_span.is_empty() {
        words
    } else {
        in_span
    }))
}

/// The value of a claim for its quantity.
pub fn claim_value(q: &Quantity) -> Stated {
    match q {
        Quantity::Num { unit, milli } => stated_num(*milli, *unit),
        Quantity::Status(w) => stated_status(w),
    }
}

/// The byte ranges of a text's sentences: split at line breaks and at `.`, `;`, `!`, `?`
/// followed by white space (so `19.00` and `10:42` stay whole).
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = text.as_bytes();
    let push = |s: usize, e: usize, out: &mut Vec<Range<usize>>| {
        if text[s..e].trim().is_empty() {
            return;
        }
        out.push(s..e);
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            push(start, i, &mut out);
            start = i + 1;
        } else if matches!(c, b'.' | b';' | b'!' | b'?')
            && b.get(i + 1).is_some_and(|n| n.is_ascii_whitespace())
        {
            push(start, i + 1, &mut out);
            start = i + 1;
        }
        i += 1;
    }
    push(start, b.len(), &mut out);
    out
}

/// What one sentence states for a quantity: the claim's own value when the sentence has it,
/// else its first value in the quantity's unit (or its status words).
fn stated_in_sentence(idx: &TextIndex, sentence: &str, q: &Quantity) -> Option<Stated> {
    match q {
        Quantity::Num { unit, milli } => {
            let nums = idx.nums();
            if nums.iter().any(|(m, u)| m == milli && *u == Some(*unit)) {
                return Some(stated_num(*milli, *unit));
            }
            nums.iter()
                .find(|(_, u)| *u == Some(*unit))
                .map(|(m, _)| stated_num(*m, *unit))
        }
        Quantity::Status(_) => {
            let w = crate::check::parallel::status_words(sentence);
            (!w.is_empty()).then(|| stated_status(&w))
        }
    }
}

/// The sentence of `text` that best states the quantity: the one sharing most of the claim's
/// content words among those stating a value in its unit (ties: the first stating the claim's
/// own value). Returns the value, the sentence and its share of the claim's words.
pub fn best_statement(text: &str, keys: &ClaimKeys, q: &Quantity) -> Option<(Stated, String, f64)> {
    let want = claim_value(q);
    let mut best: Option<(Stated, String, f64, bool)> = None;
    for r in sentences(text) {
        let s = text[r].trim();
        let idx = TextIndex::new(s);
        let Some(st) = stated_in_sentence(&idx, s, q) else {
            continue;
        };
        let score = keys.word_score(&idx);
        let own = st.same_as(&want);
        let better = match &best {
            None => true,
            Some((_, _, bs, bown)) => score > *bs || (score == *bs && own && !bown),
        };
        if better {
            best = Some((st, s.to_owned(), score, own));
        }
    }
    best.map(|(st, s, score, _)| (st, s, score))
}

/// A result's whole citable text (blocks joined by line breaks).
pub fn result_text(r: &ToolResult) -> String {
    let mut out = String::new();
    for (_, t) in r.texts() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(t);
    }
    out
}

fn same_arguments(a: &Call, b: &Call) -> bool {
    let h = |c: &Call| crate::attest::hash::arguments_hash(c.request.params.arguments.as_deref());
    match (h(a), h(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => {
            a.request.params.arguments.as_ref().map(|x| x.get())
                == b.request.params.arguments.as_ref().map(|x| x.get())
        }
    }
}

/// The start of a text, for showing a result that states no readable value.
fn head(text: &str) -> String {
    text.chars().take(300).collect()
}

/// Every recorded result that answers the same question as the claim statement `v`, the cited
/// one first, in log order after it. Empty when the claim has no recorded origin.
pub fn competing<'s>(s: &'s Session, r: &SessionReport, v: &ClaimVerdict) -> Vec<Source<'s>> {
    let Some(cited_id) = v.call_id.as_deref() else {
        return Vec::new();
    };
    let (Some(call), Some(res)) = (s.call(cited_id), s.result(cited_id)) else {
        return Vec::new();
    };
    let keys = ClaimKeys::new(&v.claim_text);
    let span = v.cited_text(s);
    let q = quantity(&keys, &v.claim_text, span);
    let read = |text: &str| q.as_ref().and_then(|q| best_statement(text, &keys, q));
    // The cited source's value: what its span says, else the best sentence of the result.
    let cited_text = result_text(res);
    let (stated, value) = match span.and_then(&read).or_else(|| read(&cited_text)) {
        Some((st, sentence, _)) => (Some(st), sentence),
        None => (None, span.map_or_else(|| head(&cited_text), str::to_owned)),
    };
    let mut out = vec![Source {
        call,
        result: res,
        link: Link::Cited,
        stated,
        value,
    }];
    // Results a finding of this statement names as competing with the cited one.
    let mut named: Vec<&str> = Vec::new();
    for f in r.findings_for(v) {
        match (&f.kind, &f.evidence) {
            (Kind::ParallelConflict, Evidence::ParallelConflict(p)) => {
                named.push(p.other.call_id.as_str())
            }
            (Kind::AmbiguousSupport, _) => named.extend(f.call_ids.iter().map(Name::as_str)),
            _ => {}
        }
    }
    let whole = |text: &str| keys.word_score(&TextIndex::new(text));
    for x in &s.results {
        if x.turn > v.turn || x.call_id() == cited_id || x.is_error() {
            continue;
        }
        let Some(xc) = s.call(x.call_id()) else {
            continue;
        };
        let same_call = xc.tool() == call.tool() && same_arguments(xc, call);
        if same_call && xc.server == call.server && x.line < res.line {
            continue; // superseded by the cited result
        }
        let text = result_text(x);
        let link = if same_call {
            Some((Link::SameCall, read(&text)))
        } else if xc.tool() != call.tool() && xc.server != call.server {
            match read(&text) {
                Some(found)
                    if !keys.words.is_empty()
                        && (found.2 >= RELATED
                            || (x.turn == v.turn && whole(&text) >= RELATED)) =>
                {
                    Some((Link::SameQuantity, Some(found)))
                }
                found if named.contains(&x.call_id()) => Some((Link::Finding, found)),
                _ => None,
            }
        } else if named.contains(&x.call_id()) {
            Some((Link::Finding, read(&text)))
        } else {
            None
        };
        let Some((link, found)) = link else { continue };
        let (stated, value) = match found {
            Some((st, sentence, _)) => (Some(st), sentence),
            None => (None, head(&text)),
        };
        // A later result of the same call on the same server supersedes an earlier one (the
        // cited result is always kept).
        if let Some(i) = out.iter().skip(1).position(|o| {
            o.call.server == xc.server && o.call.tool() == xc.tool() && same_arguments(o.call, xc)
        }) {
            out.remove(i + 1);
        }
        out.push(Source {
            call: xc,
            result: x,
            link,
            stated,
            value,
        });
    }
    out
}

/// The part of an answer next to a claim: the sentence that shares most of the claim's content
/// words (ties: the first stating the claim's value), with the sentences on either side.
pub fn window<'a>(answer: &'a str, claim: &str) -> &'a str {
    let keys = ClaimKeys::new(claim);
    let ss = sentences(answer);
    if ss.len() <= 3 {
        return answer;
    }
    let mut best = (0usize, -1.0f64);
    for (i, r) in ss.iter().enumerate() {
        let idx = TextIndex::new(&answer[r.clone()]);
        let score = keys.score(&idx).score + keys.word_score(&idx);
        if score > best.1 {
            best = (i, score);
        }
    }
    let a = best.0.saturating_sub(1);
    let b = (best.0 + 1).min(ss.len() - 1);
    &answer[ss[a].start..ss[b].end]
}

/// True when `text` states `value` (same number in the same unit, or one of its status words).
pub fn states(text: &str, value: &Stated) -> bool {
    match value.number {
        Some(n) => {
            let milli = (n * 1000.0).round() as i64;
            TextIndex::new(text).nums().iter().any(|(m, u)| {
                *m == milli
                    && match (&value.unit, u) {
                        (Some(code), Some(u)) => *code == unit_code(*u),
                        _ => true,
                    }
            })
        }
        None => {
            let w = crate::check::parallel::status_words(text);
            value.status.iter().any(|s| w.contains(&s.as_str()))
        }
    }
}

/// What a claim text states in the unit (or as a status) of `like`, when it states anything.
pub fn stated_like(claim: &str, like: &Stated) -> Option<Stated> {
    match &like.unit {
        Some(code) => ClaimKeys::new(claim).keys.iter().find_map(|k| match k {
            Key::Num {
                milli,
                unit: Some(u),
                ..
            } if unit_code(*u) == *code => Some(stated_num(*milli, *u)),
            _ => None,
        }),
        None if !like.status.is_empty() => {
            let w = crate::check::parallel::status_words(claim);
            (!w.is_empty()).then(|| stated_status(&w))
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_keep_decimals_and_times_whole() {
        let t = "Seats cost $19.00 per user. Resolved at 10:42 UTC; next\nline";
        let ss: Vec<&str> = sentences(t).into_iter().map(|r| t[r].trim()).collect();
        assert_eq!(
            ss,
            vec![
                "Seats cost $19.00 per user.",
                "Resolved at 10:42 UTC;",
                "next",
                "line"
            ]
        );
    }

    #[test]
    fn best_statement_picks_the_sentence_about_the_claim() {
        let claim = "SEPA refunds can take up to 10 business days to arrive";
        let keys = ClaimKeys::new(claim);
        let q = quantity(&keys, claim, None).unwrap();
        let text = "Business plan refunds are processed within 5 business days of approval.\nSEPA refunds arrive within 8 business days of approval.";
        let (st, sentence, score) = best_statement(text, &keys, &q).unwrap();
        assert_eq!(st.number, Some(8.0));
        assert!(sentence.starts_with("SEPA"), "{sentence}");
        assert!(score >= RELATED, "{score}");
    }

    #[test]
    fn states_compares_number_and_unit() {
        let v = stated_num(19_000, Unit::Currency("USD"));
        assert!(states("It is 19 USD.", &v));
        assert!(!states("It is 19 EUR.", &v));
        assert!(!states("It is $20.", &v));
    }
}
