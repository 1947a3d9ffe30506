//! Does a span support a claim? A deterministic, explainable method (documented in
//! `docs/checks.md`):
//!
//! 1. Key tokens are extracted from the claim: every number (digits with thousands separators
//!    or decimals, or a number word such as "five"), with its unit when one is attached (currency
//!    symbol or code, `%`/percent, a duration unit such as "business days"), month names next to a
//!    number (as the month's number), and every quoted name.
//! 2. Each key token must appear in the span: a number with the same value and, when both carry
//!    one, the same unit ("$19" ~ "19 USD" ~ "USD 19.00"); a quoted name as a case- and
//!    whitespace-insensitive substring.
//! 3. The score is the share of key tokens found. A claim with no key tokens is scored by the
//!    share of its content words found in the span, against `support_threshold`.

use std::collections::HashSet;

/// A unit attached to a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// A currency, by ISO code.
    Currency(&'static str),
    /// Percent.
    Percent,
    /// A duration unit, singular (`day`, `hour`, ...).
    Time(&'static str),
}

impl Unit {
    /// Shows a value with this unit: `EUR 24`, `15%`, `5 day(s)`.
    pub fn show(&self, value: &str) -> String {
        match self {
            Unit::Currency(c) => format!("{c} {value}"),
            Unit::Percent => format!("{value}%"),
            Unit::Time(t) => format!("{value} {t}(s)"),
        }
    }
}

/// A key token of a claim or span.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// A number, scaled by 1000 and rounded, with an optional unit.
    Num {
        /// value * 1000
        milli: i64,
        /// attached unit
        unit: Option<Unit>,
        /// the text it came from
        shown: String,
    },
    /// A quoted name, normalized (lowercase, single spaces).
    Quoted(String),
}

impl Key {
    /// How the token looked in the claim.
    pub fn shown(&self) -> String {
        match self {
            Key::Num { shown, .. } => shown.clone(),
            Key::Quoted(q) => format!("\"{q}\""),
        }
    }
}

/// The tokens of one text, ready for matching.
#[derive(Clone, Debug, Default)]
pub struct TextIndex {
    /// Numbers with units.
    pub nums: Vec<(i64, Option<Unit>)>,
    /// Normalized text (lowercase, whitespace collapsed) for quoted-name search.
    pub norm: String,
    /// Stemmed content words.
    pub words: HashSet<String>,
}

impl TextIndex {
    /// Indexes a text.
    pub fn new(text: &str) -> Self {
        let toks = tokenize(text);
        let nums = extract_keys_from(&toks, text)
            .into_iter()
            .filter_map(|k| match k {
                Key::Num { milli, unit, .. } => Some((milli, unit)),
                Key::Quoted(_) => None,
            })
            .collect();
        TextIndex {
            nums,
            norm: normalize(text),
            words: content_words(&toks),
        }
    }

    fn has(&self, k: &Key) -> bool {
        match k {
            Key::Num { milli, unit, .. } => self.nums.iter().any(|(m, u)| {
                m == milli
                    && match (unit, u) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    }
            }),
            Key::Quoted(q) => self.norm.contains(q.as_str()),
        }
    }
}

/// The result of scoring a claim against a text.
#[derive(Clone, Debug, PartialEq)]
pub struct Support {
    /// Share of key tokens (or content words) found, in [0, 1].
    pub score: f64,
    /// Key tokens (or words) of the claim not found.
    pub missing: Vec<String>,
    /// Number of key tokens in the claim (0 means the word-overlap fallback was used).
    pub keys: usize,
}

impl Support {
    /// True when the text supports the claim under `threshold` (all key tokens found, or enough
    /// words when the claim has no key tokens).
    pub fn supported(&self, threshold: f64) -> bool {
        if self.keys > 0 {
            self.missing.is_empty()
        } else {
            self.score >= threshold
        }
    }
}

/// A claim prepared for scoring against many texts.
#[derive(Clone, Debug)]
pub struct ClaimKeys {
    /// Key tokens.
    pub keys: Vec<Key>,
    /// Content words (for the fallback).
    pub words: Vec<String>,
    /// The integer digits of each numeric key as written (a cheap pre-filter for rivals).
    pub digits: Vec<String>,
}

impl ClaimKeys {
    /// Extracts the claim's key tokens and content words.
    pub fn new(claim: &str) -> Self {
        let toks = tokenize(claim);
        let mut keys = extract_keys_from(&toks, claim);
        for q in quoted(claim) {
            keys.push(Key::Quoted(q));
        }
        let mut words: Vec<String> = content_words(&toks).into_iter().collect();
        words.sort();
        let digits = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Num(_, shown) => shown.split(['.', ',']).next().map(str::to_owned),
                _ => None,
            })
            .collect();
        ClaimKeys {
            keys,
            words,
            digits,
        }
    }

    /// Share of the claim's content words found in the text (1.0 when it has none).
    pub fn word_score(&self, t: &TextIndex) -> f64 {
        if self.words.is_empty() {
            return 1.0;
        }
        let found = self.words.iter().filter(|w| t.words.contains(*w)).count();
        found as f64 / self.words.len() as f64
    }

    /// Scores the claim against an indexed text.
    pub fn score(&self, t: &TextIndex) -> Support {
        if !self.keys.is_empty() {
            let missing: Vec<String> = self
                .keys
                .iter()
                .filter(|k| !t.has(k))
                .map(Key::shown)
                .collect();
            let found = self.keys.len() - missing.len();
            return Support {
                score: found as f64 / self.keys.len() as f64,
                missing,
                keys: self.keys.len(),
            };
        }
        if self.words.is_empty() {
            return Support {
                score: 1.0,
                missing: vec![],
                keys: 0,
            };
        }
        let missing: Vec<String> = self
            .words
            .iter()
            .filter(|w| !t.words.contains(*w))
            .cloned()
            .collect();
        Support {
            score: (self.words.len() - missing.len()) as f64 / self.words.len() as f64,
            missing,
            keys: 0,
        }
    }
}

/// Scores `claim` against `text` in one call.
pub fn support(claim: &str, text: &str) -> Support {
    ClaimKeys::new(claim).score(&TextIndex::new(text))
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64, String),
    Word(String),
    Sym(char),
}

fn tokenize(s: &str) -> Vec<Tok> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_ascii_digit() {
            let start = i;
            let mut int = String::new();
            while i < cs.len() && cs[i].is_ascii_digit() {
                int.push(cs[i]);
                i += 1;
            }
            // Thousands separators: ",ddd" (or a thin/narrow space) repeated.
            while i + 3 < cs.len() + 1
                && i < cs.len()
                && matches!(cs[i], ',' | '\u{202f}' | '\u{2009}' | '\'')
                && cs
                    .get(i + 1..i + 4)
                    .is_some_and(|d| d.iter().all(|c| c.is_ascii_digit()))
                && !cs.get(i + 4).is_some_and(|c| c.is_ascii_digit())
            {
                int.extend(&cs[i + 1..i + 4]);
                i += 4;
            }
            let mut frac = String::new();
            if i + 1 < cs.len() && cs[i] == '.' && cs[i + 1].is_ascii_digit() {
                i += 1;
                while i < cs.len() && cs[i].is_ascii_digit() {
                    frac.push(cs[i]);
                    i += 1;
                }
            }
            let text = format!("{int}.{}", if frac.is_empty() { "0" } else { &frac });
            let shown: String = cs[start..i].iter().collect();
            out.push(Tok::Num(text.parse().unwrap_or(0.0), shown));
        } else if c.is_alphabetic() {
            if is_cjk(c) {
                out.push(Tok::Word(c.to_string()));
                i += 1;
                continue;
            }
            let mut w = String::new();
            while i < cs.len()
                && (cs[i].is_alphanumeric() && !is_cjk(cs[i]) && !cs[i].is_ascii_digit())
            {
                w.extend(cs[i].to_lowercase());
                i += 1;
            }
            out.push(Tok::Word(w));
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Sym(c));
            }
            i += 1;
        }
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff)
}

fn number_word(w: &str) -> Option<f64> {
    const SMALL: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    if let Some(i) = SMALL.iter().position(|s| *s == w) {
        return Some(i as f64);
    }
    let tens = [
        ("thirty", 30.0),
        ("forty", 40.0),
        ("fifty", 50.0),
        ("sixty", 60.0),
        ("seventy", 70.0),
        ("eighty", 80.0),
        ("ninety", 90.0),
        ("hundred", 100.0),
        ("dozen", 12.0),
    ];
    tens.iter().find(|(s, _)| *s == w).map(|(_, v)| *v)
}

fn month(w: &str) -> Option<f64> {
    const M: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    M.iter()
        .position(|m| *m == w || (w.len() == 3 && m.starts_with(w) && w != "may"))
        .map(|i| (i + 1) as f64)
}

fn currency_sym(c: char) -> Option<&'static str> {
    match c {
        '$' => Some("USD"),
        '€' => Some("EUR"),
        '£' => Some("GBP"),
        '¥' | '￥' | '円' => Some("JPY"),
        '₹' => Some("INR"),
        '₩' => Some("KRW"),
        _ => None,
    }
}

fn currency_word(w: &str) -> Option<&'static str> {
    match w {
        "usd" | "dollar" | "dollars" => Some("USD"),
        "eur" | "euro" | "euros" => Some("EUR"),
        "gbp" | "pound" | "pounds" => Some("GBP"),
        "jpy" | "yen" => Some("JPY"),
        "chf" => Some("CHF"),
        "inr" | "rupees" => Some("INR"),
        _ => None,
    }
}

fn time_unit(w: &str) -> Option<&'static str> {
    let w = w.strip_suffix('s').unwrap_or(w);
    Some(match w {
        "second" | "sec" => "second",
        "minute" | "min" => "minute",
        "hour" | "hr" | "h" => "hour",
        "day" => "day",
        "week" | "wk" => "week",
        "month" => "month",
        "year" | "yr" => "year",
        "日" => "day",
        _ => return None,
    })
}

fn extract_keys_from(toks: &[Tok], _src: &str) -> Vec<Key> {
    let mut keys = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let (value, shown) = match t {
            Tok::Num(v, s) => (*v, s.clone()),
            Tok::Word(w) => match number_word(w) {
                Some(v) => (v, w.clone()),
                None => match month(w) {
                    Some(m) if near_number(toks, i) => (m, w.clone()),
                    _ => continue,
                },
            },
            Tok::Sym(_) => continue,
        };
        let mut unit = None;
        let mut shown = shown;
        // Prefix: currency symbol or code right before.
        if i > 0 {
            match &toks[i - 1] {
                Tok::Sym(c) => {
                    if let Some(cur) = currency_sym(*c) {
                        unit = Some(Unit::Currency(cur));
                        shown = format!("{c}{shown}");
                    }
                }
                Tok::Word(w) => {
                    if let Some(cur) = currency_word(w) {
                        if w.len() == 3 {
                            unit = Some(Unit::Currency(cur));
                            shown = format!("{} {shown}", w.to_uppercase());
                        }
                    }
                }
                _ => {}
            }
        }
        if unit.is_none() {
            // Suffix: %, percent, currency, or a duration unit (skipping business/calendar/working).
            let mut j = i + 1;
            while let Some(Tok::Word(w)) = toks.get(j) {
                if matches!(
                    w.as_str(),
                    "business" | "calendar" | "working" | "full" | "more"
                ) {
                    j += 1;
                } else {
                    break;
                }
            }
            match toks.get(i + 1) {
                Some(Tok::Sym('%')) => {
                    unit = Some(Unit::Percent);
                    shown.push('%');
                }
                Some(Tok::Sym(c)) if currency_sym(*c).is_some() => {
                    unit = currency_sym(*c).map(Unit::Currency);
                    shown.push(*c);
                }
                Some(Tok::Word(w))
                    if w == "percent"
                        || w == "per"
                            && matches!(toks.get(i + 2), Some(Tok::Word(x)) if x == "cent") =>
                {
                    unit = Some(Unit::Percent);
                    shown.push('%');
                }
                Some(Tok::Word(w)) if currency_word(w).is_some() => {
                    unit = currency_word(w).map(Unit::Currency);
                    shown = format!("{shown} {w}");
                }
                _ => {
                    if let Some(Tok::Word(w)) = toks.get(j) {
                        if let Some(u) = time_unit(w) {
                            unit = Some(Unit::Time(u));
                            shown = format!("{shown} {w}");
                        }
                    }
                }
            }
        }
        keys.push(Key::Num {
            milli: (value * 1000.0).round() as i64,
            unit,
            shown,
        });
    }
    keys
}

fn near_number(toks: &[Tok], i: usize) -> bool {
    let is_num = |t: Option<&Tok>| matches!(t, Some(Tok::Num(..)));
    is_num(toks.get(i + 1))
        || (i > 0 && is_num(toks.get(i - 1)))
        || (matches!(toks.get(i + 1), Some(Tok::Sym(_))) && is_num(toks.get(i + 2)))
}

fn quoted(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('"', '"'), ('“', '”'), ('«', '»'), ('「', '」')] {
        let mut rest = s;
        while let Some(a) = rest.find(open) {
            let after = &rest[a + open.len_utf8()..];
            match after.find(close) {
                Some(b) => {
                    let q = normalize(&after[..b]);
                    if !q.is_empty() {
                        out.push(q);
                    }
                    rest = &after[b + close.len_utf8()..];
                }
                None => break,
            }
        }
    }
    out
}

/// Lowercase with whitespace runs collapsed to one space.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
    out
}

const STOP: [&str; 40] = [
    "that", "this", "with", "from", "have", "will", "your", "they", "their", "there", "what",
    "when", "which", "were", "been", "into", "than", "then", "them", "also", "only", "about",
    "after", "before", "under", "over", "more", "most", "some", "such", "each", "other", "these",
    "those", "would", "could", "should", "does", "must", "very",
];

fn stem(w: &str) -> String {
    for suf in ["ing", "ed", "es", "s"] {
        if w.len() > suf.len() + 3 {
            if let Some(s) = w.strip_suffix(suf) {
                return s.to_owned();
            }
        }
    }
    w.to_owned()
}

fn content_words(toks: &[Tok]) -> HashSet<String> {
    toks.iter()
        .filter_map(|t| match t {
            Tok::Word(w) if w.chars().next().is_some_and(is_cjk) => Some(w.clone()),
            Tok::Word(w) if w.chars().count() >= 4 && !STOP.contains(&w.as_str()) => Some(stem(w)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn currency_forms_are_equivalent() {
        for span in [
            "Seats are 19 USD per user",
            "USD 19.00 per seat",
            "seats cost $19",
            "$19.00/seat",
        ] {
            assert!(
                support("Seats cost $19 per user", span).supported(0.6),
                "{span}"
            );
        }
        let s = support("Seats cost $19 per user", "Seats cost $190 per user");
        assert!(!s.supported(0.6));
        assert_eq!(s.missing, vec!["$19"]);
        assert!(!support("Seats cost €19", "Seats cost $19").supported(0.6));
    }

    #[test]
    fn number_words_and_durations() {
        assert!(
            support("Refunds take 5 business days", "within five business days").supported(0.6)
        );
        assert!(!support("Refunds take 5 business days", "within 5 weeks").supported(0.6));
        assert!(!support("Refunds take 30 days", "within 14 days").supported(0.6));
    }

    #[test]
    fn thousands_percent_dates_and_quotes() {
        assert!(support(
            "Enterprise is $1,299 a year",
            "Enterprise: USD 1299.00 annually"
        )
        .supported(0.6));
        assert!(support("a 15% discount", "discount of 15 percent").supported(0.6));
        assert!(support("renews on October 2, 2026", "Renewal date: 2026-10-02").supported(0.6));
        assert!(support("the \"Growth Plus\" plan", "Plan name: growth   plus").supported(0.6));
        assert!(!support("the \"Growth Plus\" plan", "Plan name: Growth").supported(0.6));
        assert!(support("税込 ¥2,980 です", "価格は税込 ¥2,980").supported(0.6));
    }

    #[test]
    fn word_overlap_fallback() {
        let s = support(
            "The incident is resolved",
            "Status: resolved. The incident was closed.",
        );
        assert_eq!(s.keys, 0);
        assert!(s.supported(0.6));
        assert!(
            !support("The database migration failed", "All systems operational").supported(0.6)
        );
    }
}
