//! RFC 3339 timestamps, stored as milliseconds since the Unix epoch.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Why a text is not a timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    /// Not RFC 3339.
    #[error("`{text}` is not an RFC 3339 timestamp ({detail})")]
    NotRfc3339 {
        /// The text.
        text: String,
        /// The parser's words.
        detail: String,
    },
    /// RFC 3339, but beyond what milliseconds in an `i64` hold.
    #[error("`{0}` is out of range")]
    OutOfRange(String),
}

/// An instant parsed from an RFC 3339 string (`2026-10-02T14:03:11Z`), kept as
/// milliseconds since the Unix epoch so comparisons and arithmetic are exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Parses an RFC 3339 timestamp; sub-millisecond digits are truncated.
    pub fn parse(s: &str) -> Result<Self, TimestampError> {
        match Self::parse_utc_fast(s) {
            Some(t) => Ok(t),
            None => Self::parse_rfc3339(s),
        }
    }

    /// The general RFC 3339 parser (any offset, any case, leap seconds).
    fn parse_rfc3339(s: &str) -> Result<Self, TimestampError> {
        let dt = OffsetDateTime::parse(s, &Rfc3339).map_err(|e| TimestampError::NotRfc3339 {
            text: s.to_owned(),
            detail: e.to_string(),
        })?;
        let ms = dt.unix_timestamp_nanos().div_euclid(1_000_000);
        i64::try_from(ms)
            .map(Timestamp)
            .map_err(|_| TimestampError::OutOfRange(s.to_owned()))
    }

    /// The form nearly every producer writes, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, read without the
    /// general RFC 3339 parser (a log holds several timestamps per event). The calendar checks
    /// and arithmetic are still the `time` crate's. Anything else (offsets, lowercase `t`/`z`,
    /// leap seconds, malformed text) returns `None` and takes the general parser.
    fn parse_utc_fast(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
            return None;
        }
        if b[16] != b':' || b[b.len() - 1] != b'Z' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<u32> {
            b[r].iter().try_fold(0u32, |acc, &c| {
                c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
            })
        };
        let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
        let millis = match &b[19..b.len() - 1] {
            [] => 0,
            [b'.', frac @ ..] if !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) => {
                let mut ms = 0;
                for i in 0..3 {
                    ms = ms * 10 + frac.get(i).map_or(0, |&c| u32::from(c - b'0'));
                }
                ms
            }
            _ => return None,
        };
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        let month = time::Month::try_from(u8::try_from(month).ok()?).ok()?;
        let date = time::Date::from_calendar_date(
            i32::try_from(year).ok()?,
            month,
            u8::try_from(day).ok()?,
        )
        .ok()?;
        // Julian day 2440588 is 1970-01-01.
        let days = i64::from(date.to_julian_day()) - 2_440_588;
        let secs = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
        Some(Timestamp(secs * 1000 + i64::from(millis)))
    }

    /// Milliseconds since the Unix epoch.
    pub fn millis(self) -> i64 {
        self.0
    }

    /// This instant plus `secs` seconds (saturating).
    pub fn plus_seconds(self, secs: u64) -> Self {
        let add = i64::try_from(secs).unwrap_or(i64::MAX).saturating_mul(1000);
        Timestamp(self.0.saturating_add(add))
    }

    /// Signed difference `self - earlier` in milliseconds.
    pub fn millis_since(self, earlier: Timestamp) -> i64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The current wall-clock time.
    pub fn now() -> Self {
        let ms = OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000;
        Timestamp(ms as i64)
    }
}

impl fmt::Display for Timestamp {
    /// Formats as RFC 3339 in UTC, with milliseconds only when they are not zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nanos = i128::from(self.0) * 1_000_000;
        match OffsetDateTime::from_unix_timestamp_nanos(nanos) {
            Ok(dt) => {
                let (y, mo, d) = (dt.year(), dt.month() as u8, dt.day());
                let (h, mi, s) = (dt.hour(), dt.minute(), dt.second());
                write!(f, "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}")?;
                let ms = dt.millisecond();
                if ms != 0 {
                    write!(f, ".{ms:03}")?;
                }
                f.write_str("Z")
            }
            Err(_) => write!(f, "@{}ms", self.0),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Timestamp, E> {
                Timestamp::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

/// Formats a duration in milliseconds the way people read ages: `2h 03m`, `45s`, `3d 4h`.
pub fn human_duration(ms: i64) -> String {
    let neg = ms < 0;
    let s = ms.unsigned_abs() / 1000;
    let body = if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else if s < 86_400 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else {
        format!("{}d {}h", s / 86_400, (s % 86_400) / 3600)
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_round_trip() {
        let t = Timestamp::parse("2026-10-02T14:03:11Z").unwrap();
        assert_eq!(t.to_string(), "2026-10-02T14:03:11Z");
        let u = Timestamp::parse("2026-10-02T16:03:11.250+02:00").unwrap();
        assert_eq!(u.millis_since(t), 250);
        assert_eq!(u.to_string(), "2026-10-02T14:03:11.250Z");
    }

    #[test]
    fn rejects_garbage() {
        assert!(Timestamp::parse("yesterday").is_err());
        assert!(Timestamp::parse("2026-13-02T14:03:11Z").is_err());
    }

    /// The general parser alone, for comparison with the fast path.
    fn parse_general(s: &str) -> Option<i64> {
        Timestamp::parse_rfc3339(s).ok().map(|t| t.0)
    }

    #[test]
    fn fast_path_falls_back_on_everything_else() {
        for s in [
            "2026-10-02T14:03:11+02:00",
            "2026-10-02t14:03:11z",
            "2026-10-02T14:03:11.Z",
            "2026-02-30T14:03:11Z",
            "2026-10-02T24:03:11Z",
            "2026-10-02T14:03:11",
            "2026-1x-02T14:03:11Z",
        ] {
            assert_eq!(Timestamp::parse_utc_fast(s), None, "{s}");
            assert_eq!(
                Timestamp::parse(s).ok().map(|t| t.0),
                parse_general(s),
                "{s}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_path_agrees_with_the_general_parser(
            y in 0u32..10000, mo in 0u32..14, d in 0u32..33, h in 0u32..26, mi in 0u32..61,
            sec in 0u32..61, frac in proptest::option::of("[0-9]{1,9}"),
        ) {
            let f = frac.map(|f| format!(".{f}")).unwrap_or_default();
            let s = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}{f}Z");
            let general = parse_general(&s);
            let fast = Timestamp::parse_utc_fast(&s).map(|t| t.0);
            if fast.is_some() {
                proptest::prop_assert_eq!(fast, general, "{}", s);
            }
            proptest::prop_assert_eq!(Timestamp::parse(&s).ok().map(|t| t.0), general, "{}", s);
        }
    }

    #[test]
    fn human_durations() {
        assert_eq!(human_duration(45_000), "45s");
        assert_eq!(human_duration(3_723_000), "1h 02m");
        assert_eq!(human_duration(-61_000), "-1m 01s");
    }
}
