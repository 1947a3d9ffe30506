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

use memchr::memmem::Finder;
use rustc_hash::FxHasher;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::hash::Hasher;
use std::sync::OnceLock;

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
        /// the text it came from (claims only; empty for indexed texts)
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

/// The tokens of one text, ready for matching. Nothing is computed up front: numbers, content
/// words and the normalized text are each built on first use, in one pass over the bytes with no
/// allocation per token, so a text that a pre-filter rules out costs nothing. The text is
/// borrowed when it is one block of a result, owned when blocks had to be joined.
#[derive(Clone, Debug, Default)]
pub struct TextIndex<'a> {
    text: Cow<'a, str>,
    /// Numbers with units.
    nums: OnceCell<Vec<(i64, Option<Unit>)>>,
    /// Hashes of the stemmed, lowercased content words, sorted and deduplicated.
    words: OnceCell<Vec<u64>>,
    norm: OnceCell<String>,
}

impl<'a> TextIndex<'a> {
    /// Indexes a text it borrows.
    pub fn new(text: &'a str) -> Self {
        TextIndex::from_cow(Cow::Borrowed(text))
    }

    /// Indexes a text it takes ownership of.
    pub fn from_string(text: String) -> TextIndex<'static> {
        TextIndex::from_cow(Cow::Owned(text))
    }

    fn from_cow(text: Cow<'a, str>) -> Self {
        TextIndex {
            text,
            nums: OnceCell::new(),
            words: OnceCell::new(),
            norm: OnceCell::new(),
        }
    }

    /// Every number of the text with its unit, as `(value * 1000, unit)` (built on first use).
    pub fn nums(&self) -> &[(i64, Option<Unit>)] {
        self.nums.get_or_init(|| {
            numbers(&tokenize(&self.text), false)
                .into_iter()
                .map(|k| (k.0, k.1))
                .collect()
        })
    }

    /// Hashes of the text's content words, sorted and deduplicated (built on first use).
    pub(crate) fn words(&self) -> &[u64] {
        self.words.get_or_init(|| {
            let mut words: Vec<u64> = tokenize(&self.text)
                .iter()
                .filter_map(|t| match t {
                    Tok::Word(w) => content_word_hash(w),
                    _ => None,
                })
                .collect();
            words.sort_unstable();
            words.dedup();
            words
        })
    }

    /// The text lowercased with whitespace runs collapsed (built on first use).
    pub fn norm(&self) -> &str {
        self.norm.get_or_init(|| normalize(&self.text))
    }

    /// True when the text has this content word (by hash, see [`ClaimKeys::words`]).
    pub fn has_word(&self, hash: u64) -> bool {
        self.words().binary_search(&hash).is_ok()
    }

    fn has(&self, k: &Key) -> bool {
        match k {
            Key::Num { milli, unit, .. } => self.nums().iter().any(|(m, u)| {
                m == milli
                    && match (unit, u) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    }
            }),
            Key::Quoted(q) => self.norm().contains(q.as_str()),
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
#[derive(Clone, Debug, Default)]
pub struct ClaimKeys {
    /// Key tokens.
    pub keys: Vec<Key>,
    /// Content words (stemmed, lowercased) with their hashes, for the fallback and overlap.
    pub words: Vec<(String, u64)>,
    /// The integer digits of each numeric key as written (a cheap pre-filter for rivals).
    pub digits: Vec<String>,
}

impl ClaimKeys {
    /// Extracts the claim's key tokens and content words.
    pub fn new(claim: &str) -> Self {
        let toks = tokenize(claim);
        let mut keys: Vec<Key> = numbers(&toks, true)
            .into_iter()
            .map(|(milli, unit, shown)| Key::Num { milli, unit, shown })
            .collect();
        for q in quoted(claim) {
            keys.push(Key::Quoted(q));
        }
        let mut words: Vec<(String, u64)> = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Word(w) => content_word(w),
                _ => None,
            })
            .collect();
        words.sort();
        words.dedup();
        let mut digits: Vec<String> = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Num(_, shown) => shown.split(['.', ',']).next().map(str::to_owned),
                _ => None,
            })
            .collect();
        // Held for the whole check of a session: no spare capacity.
        keys.shrink_to_fit();
        words.shrink_to_fit();
        digits.shrink_to_fit();
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
        let found = self.words.iter().filter(|(_, h)| t.has_word(*h)).count();
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
            .filter(|(_, h)| !t.has_word(*h))
            .map(|(w, _)| w.clone())
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

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    /// A number: its value and the text it was written as.
    Num(f64, &'a str),
    /// A word, as written (any case).
    Word(&'a str),
    /// Any other non-space character.
    Sym(char),
}

/// Splits text into numbers, words and symbols in one pass over the bytes.
fn tokenize(s: &str) -> Vec<Tok<'_>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(s.len() / 6 + 4);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            let (tok, next) = number_at(s, i);
            out.push(tok);
            i = next;
        } else if c.is_ascii_alphabetic() {
            let start = i;
            i = word_end(s, i);
            out.push(Tok::Word(&s[start..i]));
        } else if c < 0x80 {
            if !c.is_ascii_whitespace() {
                out.push(Tok::Sym(c as char));
            }
            i += 1;
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            let len = ch.len_utf8();
            if is_cjk(ch) {
                out.push(Tok::Word(&s[i..i + len]));
                i += len;
            } else if ch.is_alphanumeric() {
                let start = i;
                i = word_end(s, i);
                out.push(Tok::Word(&s[start..i]));
            } else {
                if !ch.is_whitespace() {
                    out.push(Tok::Sym(ch));
                }
                i += len;
            }
        }
    }
    out
}

/// End of the word starting at `i`: ASCII letters and non-ASCII letters other than CJK.
fn word_end(s: &str, mut i: usize) -> usize {
    let b = s.as_bytes();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() {
            i += 1;
        } else if c >= 0x80 {
            let ch = s[i..].chars().next().unwrap_or(' ');
            if ch.is_alphanumeric() && !is_cjk(ch) {
                i += ch.len_utf8();
            } else {
                break;
            }
        } else {
            break;
        }
    }
    i
}

/// Reads a number at `i`: digits, thousands groups (`,ddd`, `'ddd`, thin spaces), decimals.
fn number_at(s: &str, start: usize) -> (Tok<'_>, usize) {
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let three_digits_at = |i: usize| {
        i + 3 <= b.len()
            && b[i..i + 3].iter().all(u8::is_ascii_digit)
            && !b.get(i + 3).is_some_and(u8::is_ascii_digit)
    };
    let mut value = 0f64;
    let mut i = start;
    let end = digits(i);
    for &d in &b[i..end] {
        value = value * 10.0 + f64::from(d - b'0');
    }
    i = end;
    loop {
        let sep = if matches!(b.get(i), Some(b',') | Some(b'\'')) {
            1
        } else if s[i..].starts_with('\u{202f}') || s[i..].starts_with('\u{2009}') {
            3
        } else {
            0
        };
        if sep == 0 || !three_digits_at(i + sep) {
            break;
        }
        for &d in &b[i + sep..i + sep + 3] {
            value = value * 10.0 + f64::from(d - b'0');
        }
        i += sep + 3;
    }
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        let end = digits(i + 1);
        let mut scale = 0.1;
        for &d in &b[i + 1..end] {
            value += f64::from(d - b'0') * scale;
            scale /= 10.0;
        }
        i = end;
    }
    (Tok::Num(value, &s[start..i]), i)
}

/// `w` lowercased into `buf` when it is ASCII and short (every keyword is); `None` otherwise.
fn lower<'b>(w: &str, buf: &'b mut [u8; 16]) -> Option<&'b str> {
    let n = w.len();
    if n > buf.len() || !w.is_ascii() {
        return None;
    }
    for (d, s) in buf.iter_mut().zip(w.bytes()) {
        *d = s.to_ascii_lowercase();
    }
    std::str::from_utf8(&buf[..n]).ok()
}

/// Applies `f` to the lowercased keyword form of a word token, if it has one.
fn kw<T>(t: Option<&Tok>, f: impl Fn(&str) -> Option<T>) -> Option<T> {
    let mut buf = [0u8; 16];
    match t {
        Some(Tok::Word(w)) => {
            if *w == "日" {
                return f("day");
            }
            lower(w, &mut buf).and_then(f)
        }
        _ => None,
    }
}

fn is_word(t: Option<&Tok>, word: &str) -> bool {
    kw(t, |w| (w == word).then_some(())).is_some()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff)
}

fn number_word(w: &str) -> Option<f64> {
    Some(match w {
        "zero" => 0.0,
        "one" => 1.0,
        "two" => 2.0,
        "three" => 3.0,
        "four" => 4.0,
        "five" => 5.0,
        "six" => 6.0,
        "seven" => 7.0,
        "eight" => 8.0,
        "nine" => 9.0,
        "ten" => 10.0,
        "eleven" => 11.0,
        "twelve" | "dozen" => 12.0,
        "thirteen" => 13.0,
        "fourteen" => 14.0,
        "fifteen" => 15.0,
        "sixteen" => 16.0,
        "seventeen" => 17.0,
        "eighteen" => 18.0,
        "nineteen" => 19.0,
        "twenty" => 20.0,
        "thirty" => 30.0,
        "forty" => 40.0,
        "fifty" => 50.0,
        "sixty" => 60.0,
        "seventy" => 70.0,
        "eighty" => 80.0,
        "ninety" => 90.0,
        "hundred" => 100.0,
        _ => return None,
    })
}

/// A month name or its three-letter abbreviation ("may" only in full) as its number.
fn month(w: &str) -> Option<f64> {
    Some(match w {
        "january" | "jan" => 1.0,
        "february" | "feb" => 2.0,
        "march" | "mar" => 3.0,
        "april" | "apr" => 4.0,
        "may" => 5.0,
        "june" | "jun" => 6.0,
        "july" | "jul" => 7.0,
        "august" | "aug" => 8.0,
        "september" | "sep" => 9.0,
        "october" | "oct" => 10.0,
        "november" | "nov" => 11.0,
        "december" | "dec" => 12.0,
        _ => return None,
    })
}

/// Currency symbols and the ISO code each stands for.
const CURRENCY_SYMBOLS: [(char, &str); 8] = [
    ('$', "USD"),
    ('€', "EUR"),
    ('£', "GBP"),
    ('¥', "JPY"),
    ('￥', "JPY"),
    ('円', "JPY"),
    ('₹', "INR"),
    ('₩', "KRW"),
];

/// Currency words and codes (lowercase) and the ISO code each stands for.
const CURRENCY_WORDS: [(&str, &str); 15] = [
    ("usd", "USD"),
    ("dollar", "USD"),
    ("dollars", "USD"),
    ("eur", "EUR"),
    ("euro", "EUR"),
    ("euros", "EUR"),
    ("gbp", "GBP"),
    ("pound", "GBP"),
    ("pounds", "GBP"),
    ("jpy", "JPY"),
    ("yen", "JPY"),
    ("chf", "CHF"),
    ("inr", "INR"),
    ("rupees", "INR"),
    ("krw", "KRW"),
];

/// Duration words (lowercase, singular: a plural `s` is stripped before the lookup) and their
/// unit. `日` reads as a day.
const TIME_WORDS: [(&str, &str); 14] = [
    ("second", "second"),
    ("sec", "second"),
    ("minute", "minute"),
    ("min", "minute"),
    ("hour", "hour"),
    ("hr", "hour"),
    ("h", "hour"),
    ("day", "day"),
    ("日", "day"),
    ("week", "week"),
    ("wk", "week"),
    ("month", "month"),
    ("year", "year"),
    ("yr", "year"),
];

/// The lowercase fragments of a percentage: `%`, and `cent` of `percent` / `per cent`.
const PERCENT_FRAGMENTS: [&str; 2] = ["%", "cent"];

fn currency_sym(c: char) -> Option<&'static str> {
    CURRENCY_SYMBOLS
        .iter()
        .find(|(sym, _)| *sym == c)
        .map(|(_, code)| *code)
}

fn currency_word(w: &str) -> Option<&'static str> {
    CURRENCY_WORDS
        .iter()
        .find(|(word, _)| *word == w)
        .map(|(_, code)| *code)
}

fn time_unit(w: &str) -> Option<&'static str> {
    let w = w.strip_suffix('s').unwrap_or(w);
    TIME_WORDS
        .iter()
        .find(|(word, _)| *word == w)
        .map(|(_, unit)| *unit)
}

impl Unit {
    /// Whether `lower` (a text, ASCII-lowercased) may state a value in this unit: a superset
    /// test over raw text, false means the tokenizer would certainly find no number in this
    /// unit there. It looks for every spelling the tables above give the unit (a plural or
    /// uppercase spelling contains one), so the two cannot drift apart.
    pub fn may_be_stated_in(&self, lower: &[u8]) -> bool {
        static FINDERS: OnceLock<Vec<(Unit, Vec<Finder<'static>>)>> = OnceLock::new();
        let finders = FINDERS.get_or_init(|| {
            let mut spellings: Vec<(Unit, String)> = Vec::new();
            for (w, code) in CURRENCY_WORDS {
                spellings.push((Unit::Currency(code), w.to_owned()));
            }
            for (c, code) in CURRENCY_SYMBOLS {
                spellings.push((Unit::Currency(code), c.to_string()));
            }
            for (w, unit) in TIME_WORDS {
                spellings.push((Unit::Time(unit), w.to_owned()));
            }
            for w in PERCENT_FRAGMENTS {
                spellings.push((Unit::Percent, w.to_owned()));
            }
            let mut units: Vec<(Unit, Vec<Finder<'static>>)> = Vec::new();
            for (u, w) in &spellings {
                // A spelling that contains another of the same unit adds nothing ("dollars").
                let redundant = spellings
                    .iter()
                    .any(|(v, x)| v == u && x != w && w.contains(x.as_str()));
                if redundant {
                    continue;
                }
                let finder = Finder::new(w.as_bytes()).into_owned();
                match units.iter_mut().find(|(v, _)| v == u) {
                    Some((_, fs)) => fs.push(finder),
                    None => units.push((*u, vec![finder])),
                }
            }
            units
        });
        finders
            .iter()
            .find(|(u, _)| u == self)
            .is_none_or(|(_, fs)| fs.iter().any(|f| f.find(lower).is_some()))
    }
}

/// Every number with its unit: `(value * 1000, unit, shown)`; `shown` is built only when asked.
fn numbers(toks: &[Tok], want_shown: bool) -> Vec<(i64, Option<Unit>, String)> {
    let mut keys = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let value = match t {
            Tok::Num(v, _) => *v,
            Tok::Word(w) => {
                // Number words and month names are 3 to 9 ASCII letters: skip the rest cheaply.
                if !(3..=9).contains(&w.len()) {
                    continue;
                }
                let mut buf = [0u8; 16];
                let Some(l) = lower(w, &mut buf) else {
                    continue;
                };
                match number_word(l) {
                    Some(v) => v,
                    None => match month(l) {
                        Some(m) if near_number(toks, i) => m,
                        _ => continue,
                    },
                }
            }
            Tok::Sym(_) => continue,
        };
        let text = match t {
            Tok::Num(_, s) | Tok::Word(s) => *s,
            Tok::Sym(_) => "",
        };
        let mut unit = None;
        let mut prefix = String::new();
        let mut suffix = String::new();
        // Prefix: currency symbol or three-letter code right before.
        if i > 0 {
            match &toks[i - 1] {
                Tok::Sym(c) => {
                    if let Some(cur) = currency_sym(*c) {
                        unit = Some(Unit::Currency(cur));
                        if want_shown {
                            prefix = c.to_string();
                        }
                    }
                }
                Tok::Word(w) if w.len() == 3 => {
                    if let Some(cur) = kw(toks.get(i - 1), currency_word) {
                        unit = Some(Unit::Currency(cur));
                        if want_shown {
                            prefix = format!("{} ", w.to_uppercase());
                        }
                    }
                }
                _ => {}
            }
        }
        if unit.is_none() {
            // Suffix: %, percent, currency, or a duration unit (skipping business/calendar/...).
            let mut j = i + 1;
            while kw(toks.get(j), |w| {
                matches!(w, "business" | "calendar" | "working" | "full" | "more").then_some(())
            })
            .is_some()
            {
                j += 1;
            }
            let next = toks.get(i + 1);
            match next {
                Some(Tok::Sym('%')) => {
                    unit = Some(Unit::Percent);
                    suffix = "%".into();
                }
                Some(Tok::Sym(c)) if currency_sym(*c).is_some() => {
                    unit = currency_sym(*c).map(Unit::Currency);
                    suffix = c.to_string();
                }
                _ if is_word(next, "percent")
                    || (is_word(next, "per") && is_word(toks.get(i + 2), "cent")) =>
                {
                    unit = Some(Unit::Percent);
                    suffix = "%".into();
                }
                Some(Tok::Word(w)) if kw(next, currency_word).is_some() => {
                    unit = kw(next, currency_word).map(Unit::Currency);
                    suffix = format!(" {}", w.to_lowercase());
                }
                _ => {
                    if let Some(u) = kw(toks.get(j), time_unit) {
                        unit = Some(Unit::Time(u));
                        if let Some(Tok::Word(w)) = toks.get(j) {
                            suffix = format!(" {}", w.to_lowercase());
                        }
                    }
                }
            }
        }
        let shown = if want_shown {
            let body = match t {
                Tok::Word(w) => w.to_lowercase(),
                _ => text.to_owned(),
            };
            format!("{prefix}{body}{suffix}")
        } else {
            String::new()
        };
        keys.push(((value * 1000.0).round() as i64, unit, shown));
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
    let ascii = s.is_ascii();
    for (open, close) in [('"', '"'), ('“', '”'), ('«', '»'), ('「', '」')] {
        if ascii && !open.is_ascii() {
            continue;
        }
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
        if w.is_ascii() {
            let start = out.len();
            out.push_str(w);
            out[start..].make_ascii_lowercase();
        } else {
            out.extend(w.chars().flat_map(char::to_lowercase));
        }
    }
    out
}

fn is_stop(w: &str) -> bool {
    matches!(
        w,
        "that"
            | "this"
            | "with"
            | "from"
            | "have"
            | "will"
            | "your"
            | "they"
            | "their"
            | "there"
            | "what"
            | "when"
            | "which"
            | "were"
            | "been"
            | "into"
            | "than"
            | "then"
            | "them"
            | "also"
            | "only"
            | "about"
            | "after"
            | "before"
            | "under"
            | "over"
            | "more"
            | "most"
            | "some"
            | "such"
            | "each"
            | "other"
            | "these"
            | "those"
            | "would"
            | "could"
            | "should"
            | "does"
            | "must"
            | "very"
    )
}

/// The stemmed, lowercased content word of a token, handed to `f`; `None` for short words,
/// stop words and punctuation. A CJK character is a word of its own. Allocates only for
/// non-ASCII or very long words.
fn with_content_word<T>(w: &str, f: impl FnOnce(&str) -> T) -> Option<T> {
    let first = w.chars().next()?;
    if is_cjk(first) {
        return Some(f(w));
    }
    if w.len() < 4 || (!w.is_ascii() && w.chars().count() < 4) {
        return None;
    }
    let mut buf = [0u8; 16];
    let owned;
    let l = match lower(w, &mut buf) {
        Some(l) => l,
        None => {
            owned = w.to_lowercase();
            owned.as_str()
        }
    };
    if is_stop(l) {
        return None;
    }
    Some(f(stem(l)))
}

fn word_hash(w: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(w.as_bytes());
    h.finish()
}

/// The content word of a token with its hash (claims, which report missing words by name).
fn content_word(w: &str) -> Option<(String, u64)> {
    with_content_word(w, |c| (c.to_owned(), word_hash(c)))
}

/// Only the hash (indexed texts).
fn content_word_hash(w: &str) -> Option<u64> {
    with_content_word(w, word_hash)
}

fn stem(w: &str) -> &str {
    for suf in ["ing", "ed", "es", "s"] {
        if w.len() > suf.len() + 3 {
            if let Some(s) = w.strip_suffix(suf) {
                return s;
            }
        }
    }
    w
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
    fn the_unit_prefilter_admits_every_spelling_the_tokenizer_reads() {
        let mut spellings: Vec<String> = Vec::new();
        for (w, _) in CURRENCY_WORDS.iter().chain(TIME_WORDS.iter()) {
            spellings.extend([w.to_string(), format!("{w}s"), w.to_uppercase()]);
        }
        spellings.extend(CURRENCY_SYMBOLS.iter().map(|(c, _)| c.to_string()));
        spellings.extend(["%", "percent", "PER CENT", "per\ncent"].map(String::from));
        let mut units = 0;
        for sp in &spellings {
            for text in [
                format!("within 12 {sp} at most"),
                format!("only {sp}12 today"),
            ] {
                for (_, unit, _) in numbers(&tokenize(&text), false) {
                    let Some(u) = unit else { continue };
                    units += 1;
                    let lower = text.to_ascii_lowercase();
                    assert!(u.may_be_stated_in(lower.as_bytes()), "{u:?} in {text:?}");
                }
            }
        }
        assert!(
            units >= spellings.len(),
            "every spelling reads as a unit somewhere"
        );
        assert!(!Unit::Time("hour").may_be_stated_in(b"costs 12 days"));
        assert!(!Unit::Currency("EUR").may_be_stated_in(b"costs $12"));
    }

    #[test]
    fn normalize_lowercases_and_collapses_whitespace() {
        assert_eq!(normalize("  Growth\tPLUS \n plan "), "growth plus plan");
        assert_eq!(normalize("ÉTÉ  Straße İx"), "été straße i\u{307}x");
        assert_eq!(normalize(""), "");
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
