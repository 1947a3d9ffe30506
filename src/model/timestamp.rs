//! RFC 3339 timestamps, stored as milliseconds since the Unix epoch.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// An instant parsed from an RFC 3339 string (`2026-10-02T14:03:11Z`), kept as
/// milliseconds since the Unix epoch so comparisons and arithmetic are exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Parses an RFC 3339 timestamp; sub-millisecond digits are truncated.
    pub fn parse(s: &str) -> Result<Self, String> {
        let dt = OffsetDateTime::parse(s, &Rfc3339)
            .map_err(|e| format!("`{s}` is not an RFC 3339 timestamp ({e})"))?;
        let ms = dt.unix_timestamp_nanos().div_euclid(1_000_000);
        i64::try_from(ms)
            .map(Timestamp)
            .map_err(|_| format!("`{s}` is out of range"))
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

    #[test]
    fn human_durations() {
        assert_eq!(human_duration(45_000), "45s");
        assert_eq!(human_duration(3_723_000), "1h 02m");
        assert_eq!(human_duration(-61_000), "-1m 01s");
    }
}
