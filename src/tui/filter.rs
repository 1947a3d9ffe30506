//! The filter of the review queue, the grid and the review walkthrough, written in the filter bar
//! (`f`) as words: `kind:stale,below_tier sev:error q:rw,none tier:t2 server:mirror
//! reviewed:no session:04 flagged:yes classified:yes correction:corrected`. Every loaded
//! session is filtered; each part narrows.

use super::app::{CorrectionMark, Loaded};
use crate::check::{Kind, Quadrant, Severity, QUADRANTS};
use crate::model::Tier;

/// What the queue, grid and review show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Finding kinds (any of); empty = every claim.
    pub kinds: Vec<Kind>,
    /// Worst finding at least this serious.
    pub severity: Option<Severity>,
    /// Effective quadrants (`None` in the list: no quadrant yet).
    pub quadrants: Vec<Option<Quadrant>>,
    /// Tiers of the cited server (any of).
    pub tiers: Vec<Tier>,
    /// Cited server contains this (case-insensitive).
    pub server: Option<String>,
    /// Reviewed or not.
    pub reviewed: Option<bool>,
    /// Session name or id contains this (case-insensitive).
    pub session: Option<String>,
    /// Only claims with a warning or an error.
    pub flagged: Option<bool>,
    /// Classified by hand or not.
    pub classified: Option<bool>,
    /// Corrections of the claim (`provscope correct`).
    pub correction: Option<CorrectionFilter>,
}

/// The `correction:` word.
#[derive(Clone, Debug, PartialEq)]
pub enum CorrectionFilter {
    /// `yes`: at least one correction.
    Any,
    /// `no`: none.
    None,
    /// `survived` or `corrected`: a correction with this outcome.
    Outcome(String),
}

/// What the engineer and the incident record say about a claim, for [`Filter::claim_matches`].
#[derive(Clone, Copy, Debug)]
pub struct ClaimMarks<'a> {
    /// Effective quadrant (a hand classification overrides the computed one).
    pub quadrant: Option<Quadrant>,
    /// Marked reviewed.
    pub reviewed: bool,
    /// Classified by hand.
    pub classified: bool,
    /// Its corrections.
    pub corrections: &'a [CorrectionMark],
}

/// The words the filter bar understands, for help and errors.
pub const SYNTAX: &str = "kind:K,.. sev:error|warning|info q:rr,rw,wr,ww,none tier:t0..t3,unknown server:TEXT reviewed:yes|no session:TEXT flagged:yes|no classified:yes|no correction:yes|no|survived|corrected";

fn yes_no(v: &str) -> Option<bool> {
    match v {
        "yes" | "y" | "true" | "1" => Some(true),
        "no" | "n" | "false" | "0" => Some(false),
        _ => None,
    }
}

/// A quadrant's short name: `rr`, `rw`, `wr`, `ww`.
pub fn quadrant_short(q: Quadrant) -> &'static str {
    match q {
        Quadrant::FactRightSourceRight => "rr",
        Quadrant::FactRightSourceWrong => "rw",
        Quadrant::FactWrongSourceRight => "wr",
        Quadrant::FactWrongSourceWrong => "ww",
    }
}

impl Filter {
    /// Parses the filter bar's text.
    pub fn parse(text: &str) -> Result<Filter, String> {
        let mut f = Filter::default();
        for word in text.split_whitespace() {
            let Some((k, v)) = word.split_once(':') else {
                return Err(format!("`{word}`: expected NAME:VALUE ({SYNTAX})"));
            };
            let v = v.to_ascii_lowercase();
            let bad = || format!("`{word}`: {SYNTAX}");
            match k.to_ascii_lowercase().as_str() {
                "kind" | "k" => {
                    for x in v.split(',').filter(|x| !x.is_empty()) {
                        f.kinds.push(Kind::parse(x).ok_or_else(|| {
                            format!(
                                "`{x}` is not a finding kind (one of: {})",
                                crate::check::ALL_KINDS
                                    .iter()
                                    .map(|k| k.name())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        })?);
                    }
                }
                "sev" | "severity" => f.severity = Some(Severity::parse(&v).ok_or_else(bad)?),
                "q" | "quadrant" => {
                    for x in v.split(',').filter(|x| !x.is_empty()) {
                        let q = match x {
                            "none" | "unknown" | "--" => None,
                            _ => Some(
                                QUADRANTS
                                    .iter()
                                    .copied()
                                    .find(|q| quadrant_short(*q) == x || q.name() == x)
                                    .ok_or_else(bad)?,
                            ),
                        };
                        f.quadrants.push(q);
                    }
                }
                "tier" | "t" => {
                    for x in v.split(',').filter(|x| !x.is_empty()) {
                        f.tiers.push(Tier::parse(x).ok_or_else(bad)?);
                    }
                }
                "server" | "s" => f.server = Some(v),
                "reviewed" | "r" => f.reviewed = Some(yes_no(&v).ok_or_else(bad)?),
                "session" => f.session = Some(v),
                "flagged" => f.flagged = Some(yes_no(&v).ok_or_else(bad)?),
                "classified" | "hand" => f.classified = Some(yes_no(&v).ok_or_else(bad)?),
                "correction" | "corrected" => {
                    f.correction = Some(match v.as_str() {
                        "survived" | "corrected" => CorrectionFilter::Outcome(v.clone()),
                        _ => match yes_no(&v).ok_or_else(bad)? {
                            true => CorrectionFilter::Any,
                            false => CorrectionFilter::None,
                        },
                    })
                }
                _ => return Err(bad()),
            }
        }
        Ok(f)
    }

    /// The filter as the bar shows it (parses back to the same filter).
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        if !self.kinds.is_empty() {
            let k: Vec<&str> = self.kinds.iter().map(|k| k.name()).collect();
            out.push(format!("kind:{}", k.join(",")));
        }
        if let Some(s) = self.severity {
            out.push(format!("sev:{}", s.name()));
        }
        if !self.quadrants.is_empty() {
            let q: Vec<&str> = self
                .quadrants
                .iter()
                .map(|q| q.map_or("none", quadrant_short))
                .collect();
            out.push(format!("q:{}", q.join(",")));
        }
        if !self.tiers.is_empty() {
            let t: Vec<String> = self
                .tiers
                .iter()
                .map(|t| t.label().replace("T?", "unknown").to_ascii_lowercase())
                .collect();
            out.push(format!("tier:{}", t.join(",")));
        }
        if let Some(s) = &self.server {
            out.push(format!("server:{s}"));
        }
        if let Some(r) = self.reviewed {
            out.push(format!("reviewed:{}", if r { "yes" } else { "no" }));
        }
        if let Some(s) = &self.session {
            out.push(format!("session:{s}"));
        }
        if let Some(x) = self.flagged {
            out.push(format!("flagged:{}", if x { "yes" } else { "no" }));
        }
        if let Some(x) = self.classified {
            out.push(format!("classified:{}", if x { "yes" } else { "no" }));
        }
        if let Some(c) = &self.correction {
            out.push(format!(
                "correction:{}",
                match c {
                    CorrectionFilter::Any => "yes",
                    CorrectionFilter::None => "no",
                    CorrectionFilter::Outcome(o) => o.as_str(),
                }
            ));
        }
        out.join(" ")
    }

    /// True when the filter keeps everything.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// Whether the filter may keep claims of this session at all.
    pub fn session_matches(&self, l: &Loaded) -> bool {
        self.session.as_ref().is_none_or(|s| {
            l.session.name.to_lowercase().contains(s)
                || l.report.session_id.to_lowercase().contains(s)
        })
    }

    /// Whether the filter reads what the engineer recorded (quadrants, reviewed marks, hand
    /// classifications, corrections): then the queue is rebuilt when those records arrive.
    pub fn reads_records(&self) -> bool {
        !self.quadrants.is_empty()
            || self.reviewed.is_some()
            || self.classified.is_some()
            || self.correction.is_some()
    }

    /// Whether claim `i` of `l` passes, given what is recorded about it.
    pub fn claim_matches(&self, l: &Loaded, i: usize, m: ClaimMarks<'_>) -> bool {
        let (quadrant, reviewed) = (m.quadrant, m.reviewed);
        if self.classified.is_some_and(|x| x != m.classified) {
            return false;
        }
        let corrected = match &self.correction {
            None => true,
            Some(CorrectionFilter::Any) => !m.corrections.is_empty(),
            Some(CorrectionFilter::None) => m.corrections.is_empty(),
            Some(CorrectionFilter::Outcome(o)) => m.corrections.iter().any(|c| c.outcome == *o),
        };
        if !corrected {
            return false;
        }
        let worst = l.claim_worst(i);
        if let Some(min) = self.severity {
            if worst.is_none_or(|w| w > min) {
                return false;
            }
        }
        if let Some(flag) = self.flagged {
            if worst.is_some_and(|w| w != Severity::Info) != flag {
                return false;
            }
        }
        if !self.kinds.is_empty() {
            let mask = l.kind_mask(i);
            if !self.kinds.iter().any(|k| mask & kind_bit(*k) != 0) {
                return false;
            }
        }
        if !self.quadrants.is_empty() && !self.quadrants.contains(&quadrant) {
            return false;
        }
        if let Some(r) = self.reviewed {
            if r != reviewed {
                return false;
            }
        }
        if !self.tiers.is_empty() || self.server.is_some() {
            let Some(c) = l.claim(i) else { return false };
            if !self.tiers.is_empty() && !c.tier.is_some_and(|t| self.tiers.contains(&t.tier)) {
                return false;
            }
            if let Some(s) = &self.server {
                let server = c
                    .call_id
                    .as_deref()
                    .and_then(|id| l.session.call(id))
                    .map(|call| call.server.to_lowercase());
                if !server.is_some_and(|x| x.contains(s.as_str())) {
                    return false;
                }
            }
        }
        true
    }
}

/// The bit of a finding kind in [`Loaded::kind_mask`].
pub fn kind_bit(k: Kind) -> u32 {
    let i = crate::check::ALL_KINDS
        .iter()
        .position(|x| *x == k)
        .unwrap_or(31);
    1 << i.min(31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_back() {
        let f = Filter::parse(
            "kind:stale,below_tier sev:error q:rw,none tier:t2 server:Mirror reviewed:no session:04 flagged:yes classified:no correction:Survived",
        )
        .unwrap();
        assert_eq!(f.classified, Some(false));
        assert_eq!(
            f.correction,
            Some(CorrectionFilter::Outcome("survived".into()))
        );
        assert_eq!(f.kinds, vec![Kind::Stale, Kind::BelowTier]);
        assert_eq!(f.severity, Some(Severity::Error));
        assert_eq!(
            f.quadrants,
            vec![Some(Quadrant::FactRightSourceWrong), None]
        );
        assert_eq!(f.tiers, vec![Tier::T2]);
        assert_eq!(f.server.as_deref(), Some("mirror"));
        assert_eq!(f.reviewed, Some(false));
        assert_eq!(Filter::parse(&f.text()).unwrap(), f);
        assert!(Filter::parse("kind:nope")
            .unwrap_err()
            .contains("not a finding kind"));
        assert!(Filter::parse("stale").is_err());
        assert!(Filter::parse("correction:maybe").is_err());
        assert!(Filter::parse("classified:perhaps").is_err());
        let yes = Filter::parse("correction:yes hand:yes").unwrap();
        assert_eq!(yes.correction, Some(CorrectionFilter::Any));
        assert_eq!(yes.text(), "classified:yes correction:yes");
        assert_eq!(
            Filter::parse("corrected:no").unwrap().correction,
            Some(CorrectionFilter::None)
        );
        assert!(Filter::parse("").unwrap().is_empty());
    }
}
