//! Trust tiers from the provenance playbook.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A server's trust tier. `T0` (first-party) is the most trusted; `Unknown`
/// (unclassified) is treated like `T3`: denied by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Tier {
    /// First-party: servers you build and run.
    T0,
    /// Vetted external: paid or contracted APIs.
    T1,
    /// Community: public community servers; facts only, never authoritative.
    T2,
    /// Unknown: denied by default.
    T3,
    /// Not classified at all (no tier in the header or config).
    #[default]
    Unknown,
}

impl Tier {
    /// Numeric rank, 0 for T0 ... 3 for T3, 4 for Unknown (lower is more trusted).
    pub fn rank(self) -> u8 {
        match self {
            Tier::T0 => 0,
            Tier::T1 => 1,
            Tier::T2 => 2,
            Tier::T3 => 3,
            Tier::Unknown => 4,
        }
    }

    /// Parses `T0`..`T3` (any case, `t2` too) or `unknown`.
    pub fn parse(s: &str) -> Option<Tier> {
        match s.trim().to_ascii_lowercase().as_str() {
            "t0" | "0" => Some(Tier::T0),
            "t1" | "1" => Some(Tier::T1),
            "t2" | "2" => Some(Tier::T2),
            "t3" | "3" => Some(Tier::T3),
            "unknown" => Some(Tier::Unknown),
            _ => None,
        }
    }

    /// Short label: `T0`..`T3` or `T?`.
    pub fn label(self) -> &'static str {
        match self {
            Tier::T0 => "T0",
            Tier::T1 => "T1",
            Tier::T2 => "T2",
            Tier::T3 => "T3",
            Tier::Unknown => "T?",
        }
    }

    /// True when a claim requiring `require_tier_gte_N` (at least as trusted as TN) may cite this tier.
    pub fn satisfies(self, required: u8) -> bool {
        self != Tier::Unknown && self.rank() <= required
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tier::Unknown => "unknown",
            t => t.label(),
        })
    }
}

impl Serialize for Tier {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Tier {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Tier::parse(&s).ok_or_else(|| {
            de::Error::custom(format!("`{s}` is not a tier (T0, T1, T2, T3 or unknown)"))
        })
    }
}
