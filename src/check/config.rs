//! `provscope.toml`: tiers, TTLs, render policies, the support threshold and severities.
//! Every default is documented in `docs/configuration.md`.

use super::finding::{Kind, Severity};
use crate::model::{Tier, Timestamp};
use globset::{Glob, GlobMatcher};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One `[tiers]` entry: a server name or glob, its tier, and when its tier was last reviewed.
#[derive(Clone, Debug)]
pub struct TierRule {
    /// The pattern as written.
    pub pattern: String,
    /// The compiled pattern.
    pub glob: GlobMatcher,
    /// The tier it grants.
    pub tier: Tier,
    /// When the grant was last reviewed (`reviewed = 2026-07-01`), midnight UTC.
    pub reviewed: Option<Timestamp>,
    /// How often it must be reviewed, in seconds (`review_every = "90d"`).
    pub review_every: Option<u64>,
}

impl TierRule {
    /// When the next review is due, when the entry has a schedule.
    pub fn review_due(&self) -> Option<Timestamp> {
        Some(self.reviewed?.plus_seconds(self.review_every?))
    }
}

/// Which way a metric gate fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateBound {
    /// Fails when the metric is below the threshold (`--fail-under`).
    Under,
    /// Fails when the metric is above the threshold (`--fail-over`).
    Over,
}

/// Where a gate was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateSource {
    /// `[gates]` in provscope.toml.
    Config,
    /// `--fail-under` / `--fail-over` on the command line.
    Flag,
}

/// A threshold on one of the run's rates (the rollout plan's CI gate).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Gate {
    /// The rate, one of [`super::metrics::GATE_METRICS`].
    pub metric: String,
    /// Which way it fails.
    pub bound: GateBound,
    /// The threshold, in `[0, 1]`.
    pub threshold: f64,
    /// Where it was set.
    pub from: GateSource,
}

/// Why a gate, a review date or a review interval is invalid (in a flag or in the config).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// A gate flag without `=`.
    #[error("`{0}`: expected METRIC=VALUE, e.g. citation_precision=0.9")]
    GateSyntax(String),
    /// A metric that cannot be gated.
    #[error("`{name}` is not a gated metric ({known})")]
    UnknownMetric {
        /// The name given.
        name: String,
        /// The gated metrics, comma-separated.
        known: String,
    },
    /// A threshold outside `[0, 1]` or not a number.
    #[error("{0}: the threshold must be a number between 0 and 1")]
    Threshold(String),
    /// `reviewed` of another TOML type.
    #[error("`reviewed` must be a date such as 2026-07-01")]
    ReviewedType,
    /// `reviewed` that is not a date.
    #[error("`reviewed`: `{0}` is not a date such as 2026-07-01")]
    ReviewedDate(String),
    /// `review_every` that is not an interval.
    #[error("`review_every`: `{0}` is not an interval such as \"90d\", \"12w\" or \"36h\"")]
    Interval(String),
}

impl Gate {
    /// Parses `NAME=VALUE` as given to `--fail-under` / `--fail-over`.
    pub fn parse_flag(text: &str, bound: GateBound) -> Result<Gate, ValueError> {
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| ValueError::GateSyntax(text.to_owned()))?;
        let (metric, threshold) = gate_value(name.trim(), value.trim().parse::<f64>().ok())?;
        Ok(Gate {
            metric,
            bound,
            threshold,
            from: GateSource::Flag,
        })
    }
}

/// Checks a gate's metric name and threshold.
fn gate_value(name: &str, value: Option<f64>) -> Result<(String, f64), ValueError> {
    if !super::metrics::GATE_METRICS.contains(&name) {
        return Err(ValueError::UnknownMetric {
            name: name.to_owned(),
            known: super::metrics::GATE_METRICS.join(", "),
        });
    }
    match value {
        Some(v) if (0.0..=1.0).contains(&v) => Ok((name.to_owned(), v)),
        _ => Err(ValueError::Threshold(name.to_owned())),
    }
}

/// Checked configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Tier overrides by server name or glob, most specific first (config beats the session
    /// header).
    pub tiers: Vec<TierRule>,
    /// Metric gates from `[gates]`.
    pub gates: Vec<Gate>,
    /// TTL for results whose tag and stamp carry none.
    pub default_ttl_seconds: u64,
    /// Render policy for stamps with none, when the session header sets none either.
    pub default_policy: String,
    /// Minimum word-overlap score for claims without numbers, dates or quoted names.
    pub support_threshold: f64,
    /// Severity overrides per kind.
    pub severity: BTreeMap<Kind, Severity>,
    /// Kinds switched off.
    pub disabled: Vec<Kind>,
    /// Require an execution envelope for every call, whatever the session header says.
    pub require_envelopes: bool,
    /// ArkForge receipt issuer keys pinned here (besides the session header's `receipt_keys`).
    pub receipt_keys: Vec<crate::attest::keys::PublicKey>,
    /// How far sub-agent session links are followed.
    pub sub_sessions: SubSessionPolicy,
    /// Where it came from, for messages.
    pub source: Option<PathBuf>,
    /// The explorer's `[keys]` overrides.
    pub keys: Option<toml::Table>,
    /// The explorer's `[colors]` overrides.
    pub colors: Option<toml::Table>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            tiers: Vec::new(),
            gates: Vec::new(),
            default_ttl_seconds: 3600,
            default_policy: "require_tier_gte_1".into(),
            support_threshold: 0.6,
            severity: BTreeMap::new(),
            disabled: Vec::new(),
            require_envelopes: false,
            receipt_keys: Vec::new(),
            sub_sessions: SubSessionPolicy::default(),
            source: None,
            keys: None,
            colors: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    /// `"name" = "T0"`, or `"name" = { tier = "T1", reviewed = 2026-07-01, review_every = "90d" }`.
    #[serde(default)]
    tiers: BTreeMap<String, toml::Value>,
    #[serde(default)]
    gates: Option<RawGates>,
    default_ttl_seconds: Option<u64>,
    default_policy: Option<String>,
    support_threshold: Option<f64>,
    #[serde(default)]
    severity: BTreeMap<String, String>,
    #[serde(default)]
    disable: Vec<String>,
    require_envelopes: Option<bool>,
    #[serde(default)]
    receipt_keys: Vec<String>,
    #[serde(default)]
    sub_sessions: Option<RawSubSessions>,
    /// The explorer's key and colour overrides (validated by the explorer).
    #[serde(default)]
    keys: Option<toml::Table>,
    #[serde(default)]
    colors: Option<toml::Table>,
}

/// `[sub_sessions]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSubSessions {
    max_depth: Option<u32>,
    allow_outside: Option<bool>,
}

/// How `verify` follows links from a call to the session log of the sub-agent it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubSessionPolicy {
    /// How many levels of sub-agents are followed (0: none).
    pub max_depth: u32,
    /// Follow links that lead outside the referring log's directory (absolute paths, `..`,
    /// symlinks out): the user's consent, `--follow-outside` or `allow_outside = true`.
    pub allow_outside: bool,
}

impl Default for SubSessionPolicy {
    fn default() -> Self {
        SubSessionPolicy {
            max_depth: 3,
            allow_outside: false,
        }
    }
}

/// `[gates]`: `fail_under = { citation_precision = 0.9 }`, `fail_over = { ... }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGates {
    #[serde(default)]
    fail_under: BTreeMap<String, toml::Value>,
    #[serde(default)]
    fail_over: BTreeMap<String, toml::Value>,
}

/// A configuration problem, located at the line (and column, when known) that causes it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{line}{}: {message}", path.as_ref().map(|p| format!("{}:", p.display())).unwrap_or_default(), column.map(|c| format!(":{c}")).unwrap_or_default())]
pub struct ConfigError {
    /// The file, once known.
    pub path: Option<PathBuf>,
    /// 1-based line (0: the whole file).
    pub line: usize,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// One sentence, naming the field.
    pub message: String,
}

impl ConfigError {
    /// A problem at `line`.
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        ConfigError {
            path: None,
            line,
            column: None,
            message: message.into(),
        }
    }
}

/// The file name looked for in the current directory.
pub const CONFIG_FILE: &str = "provscope.toml";

impl Config {
    /// Loads `--config PATH`, or `./provscope.toml` if it exists, or the defaults.
    pub fn discover(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        match explicit {
            Some(p) => Config::load(p),
            None => {
                let p = Path::new(CONFIG_FILE);
                if p.is_file() {
                    Config::load(p)
                } else {
                    Ok(Config::default())
                }
            }
        }
    }

    /// Loads and validates a config file; errors name the file and line.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: Some(path.to_owned()),
            line: 0,
            column: None,
            message: format!("cannot read: {e}"),
        })?;
        let mut c = Config::parse(&text).map_err(|e| ConfigError {
            path: Some(path.to_owned()),
            ..e
        })?;
        c.source = Some(path.to_owned());
        Ok(c)
    }

    /// Parses config text; errors name the line (and column when known).
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            ConfigError {
                column: Some(col),
                ..ConfigError::at(line, e.message().to_owned())
            }
        })?;
        // The line where a key (bare or quoted) is set, or where a quoted value is written.
        let at = |needle: &str| -> usize {
            text.lines()
                .position(|l| {
                    let t = l.trim_start();
                    let key = t.strip_prefix('"').unwrap_or(t);
                    let sets_key = key.strip_prefix(needle).is_some_and(|rest| {
                        rest.trim_start_matches('"').trim_start().starts_with('=')
                    });
                    sets_key || t.contains(&format!("\"{needle}\"")) || assigns(t, needle)
                })
                .map_or(1, |i| i + 1)
        };
        let mut c = Config::default();
        for (pat, value) in raw.tiers {
            let bad = |msg: String| ConfigError::at(at(&pat), format!("tiers.\"{pat}\": {msg}"));
            let (tier_text, reviewed, every) = match &value {
                toml::Value::String(t) => (t.clone(), None, None),
                toml::Value::Table(t) => {
                    if let Some(k) = t
                        .keys()
                        .find(|k| !["tier", "reviewed", "review_every"].contains(&k.as_str()))
                    {
                        return Err(bad(format!(
                            "unknown key `{k}` (expected tier, reviewed, review_every)"
                        )));
                    }
                    let tier = match t.get("tier") {
                        Some(toml::Value::String(s)) => s.clone(),
                        _ => return Err(bad("`tier` (a string such as \"T1\") is required".into())),
                    };
                    let reviewed = match t.get("reviewed") {
                        None => None,
                        Some(v) => Some(review_date(v).map_err(|e| bad(e.to_string()))?),
                    };
                    let every = match t.get("review_every") {
                        None => None,
                        Some(toml::Value::String(d)) => {
                            Some(parse_interval(d).map_err(|e| bad(e.to_string()))?)
                        }
                        Some(_) => {
                            return Err(bad("`review_every` must be a string such as \"90d\"".into()))
                        }
                    };
                    if every.is_some() && reviewed.is_none() {
                        return Err(bad(
                            "`review_every` needs `reviewed` (the date of the last review)".into(),
                        ));
                    }
                    (tier, reviewed, every)
                }
                _ => {
                    return Err(bad(
                        "expected a tier (\"T1\") or a table { tier = \"T1\", reviewed = 2026-07-01, review_every = \"90d\" }".into(),
                    ))
                }
            };
            let t = Tier::parse(&tier_text)
                .ok_or_else(|| bad(format!("`{tier_text}` is not a tier (T0..T3 or unknown)")))?;
            let g = Glob::new(&pat)
                .map_err(|e| bad(format!("bad glob: {e}")))?
                .compile_matcher();
            c.tiers.push(TierRule {
                pattern: pat,
                glob: g,
                tier: t,
                reviewed,
                review_every: every,
            });
        }
        // The most specific pattern wins: exact names, then globs with more literal characters
        // (a catch-all "*" comes last wherever it is written); ties in byte order of the pattern.
        c.tiers.sort_by(|a, b| {
            pattern_rank(&a.pattern)
                .cmp(&pattern_rank(&b.pattern))
                .then_with(|| a.pattern.cmp(&b.pattern))
        });
        if let Some(g) = raw.gates {
            for (bound, table, key) in [
                (GateBound::Under, g.fail_under, "fail_under"),
                (GateBound::Over, g.fail_over, "fail_over"),
            ] {
                for (name, v) in table {
                    let value = match v {
                        toml::Value::Float(f) => Some(f),
                        toml::Value::Integer(i) => Some(i as f64),
                        _ => None,
                    };
                    let (metric, threshold) = gate_value(&name, value)
                        .map_err(|e| ConfigError::at(at(&name), format!("gates.{key}: {e}")))?;
                    c.gates.push(Gate {
                        metric,
                        bound,
                        threshold,
                        from: GateSource::Config,
                    });
                }
            }
        }
        if let Some(t) = raw.default_ttl_seconds {
            c.default_ttl_seconds = t;
        }
        if let Some(p) = raw.default_policy {
            if parse_policy(&p).is_none() {
                return Err(ConfigError::at(
                    at("default_policy"),
                    format!("default_policy: `{p}` is not a policy (require_tier_gte_0..3)"),
                ));
            }
            c.default_policy = p;
        }
        if let Some(s) = raw.support_threshold {
            if !(0.0..=1.0).contains(&s) {
                return Err(ConfigError::at(
                    at("support_threshold"),
                    "support_threshold must be between 0 and 1",
                ));
            }
            c.support_threshold = s;
        }
        for (k, v) in raw.severity {
            let kind = Kind::parse(&k).ok_or_else(|| {
                ConfigError::at(at(&k), format!("severity.{k}: unknown finding kind"))
            })?;
            let sev = Severity::parse(&v).ok_or_else(|| {
                ConfigError::at(
                    at(&k),
                    format!("severity.{k}: `{v}` is not error, warning or info"),
                )
            })?;
            c.severity.insert(kind, sev);
        }
        for k in raw.disable {
            let kind = Kind::parse(&k).ok_or_else(|| {
                ConfigError::at(at(&k), format!("disable: unknown finding kind `{k}`"))
            })?;
            c.disabled.push(kind);
        }
        if let Some(r) = raw.require_envelopes {
            c.require_envelopes = r;
        }
        if let Some(sp) = raw.sub_sessions {
            if let Some(d) = sp.max_depth {
                if d > 16 {
                    return Err(ConfigError::at(
                        at("max_depth"),
                        "sub_sessions.max_depth must be between 0 and 16",
                    ));
                }
                c.sub_sessions.max_depth = d;
            }
            if let Some(a) = sp.allow_outside {
                c.sub_sessions.allow_outside = a;
            }
        }
        for (i, k) in raw.receipt_keys.iter().enumerate() {
            let key = crate::attest::keys::parse_public(k).map_err(|e| {
                ConfigError::at(at("receipt_keys"), format!("receipt_keys[{i}]: {e}"))
            })?;
            c.receipt_keys.push(key);
        }
        c.keys = raw.keys;
        c.colors = raw.colors;
        Ok(c)
    }

    /// The configured tier of a server, if the config names it.
    pub fn tier_override(&self, server: &str) -> Option<Tier> {
        self.tier_rule(server).map(|r| r.tier)
    }

    /// The `[tiers]` entry that decides a server's tier, if any.
    pub fn tier_rule(&self, server: &str) -> Option<&TierRule> {
        self.tiers.iter().find(|r| r.glob.is_match(server))
    }

    /// The gates to apply: `[gates]`, with each flag replacing the config's gate on the same
    /// metric in the same direction.
    pub fn gates_with(&self, flags: &[Gate]) -> Vec<Gate> {
        let mut out: Vec<Gate> = self
            .gates
            .iter()
            .filter(|g| {
                !flags
                    .iter()
                    .any(|f| f.metric == g.metric && f.bound == g.bound)
            })
            .cloned()
            .collect();
        out.extend(flags.iter().cloned());
        out
    }

    /// Applies severity overrides.
    pub fn severity_of(&self, kind: Kind, default: Severity) -> Severity {
        self.severity.get(&kind).copied().unwrap_or(default)
    }

    /// True when the kind is switched on.
    pub fn enabled(&self, kind: Kind) -> bool {
        !self.disabled.contains(&kind)
    }
}

/// How a `[tiers]` pattern sorts: exact names first, then globs by how many literal characters
/// they have, most first (every character but `* ? [ ] { } , !` counts as literal).
fn pattern_rank(p: &str) -> (bool, std::cmp::Reverse<usize>) {
    const META: [char; 8] = ['*', '?', '[', ']', '{', '}', ',', '!'];
    let is_glob = p.contains(['*', '?', '[', '{']);
    let literal = p.chars().filter(|c| !META.contains(c)).count();
    (is_glob, std::cmp::Reverse(literal))
}

/// `require_tier_gte_N` -> N (0..=3).
pub fn parse_policy(p: &str) -> Option<u8> {
    let n: u8 = p.trim().strip_prefix("require_tier_gte_")?.parse().ok()?;
    (n <= 3).then_some(n)
}

/// Whether `line` assigns `key` somewhere (an inline table: `fail_under = { key = 0.9 }`).
fn assigns(line: &str, key: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    line.match_indices(key).any(|(i, _)| {
        let before_ok = line[..i].chars().next_back().is_none_or(|c| !ident(c));
        let rest = line[i + key.len()..].trim_start();
        before_ok && rest.starts_with('=')
    })
}

/// `reviewed`: a TOML date (`2026-07-01`), or a string holding a date or an RFC 3339 time.
fn review_date(v: &toml::Value) -> Result<Timestamp, ValueError> {
    let text = match v {
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::String(s) => s.clone(),
        _ => return Err(ValueError::ReviewedType),
    };
    let full = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else {
        text.clone()
    };
    Timestamp::parse(&full).map_err(|_| ValueError::ReviewedDate(text))
}

/// `review_every`: a whole number of days, weeks or hours: `90d`, `12w`, `36h`.
pub fn parse_interval(text: &str) -> Result<u64, ValueError> {
    let t = text.trim();
    let bad = || ValueError::Interval(text.to_owned());
    let unit = match t.chars().last() {
        Some('d') => 86_400,
        Some('w') => 7 * 86_400,
        Some('h') => 3_600,
        _ => return Err(bad()),
    };
    let n: u64 = t[..t.len() - 1].parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(bad());
    }
    n.checked_mul(unit).ok_or_else(bad)
}

fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let b = byte.min(text.len());
    let before = &text[..b];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_config() {
        let c = Config::parse(
            r#"
default_ttl_seconds = 900
default_policy = "require_tier_gte_0"
support_threshold = 0.5
disable = ["ambiguous_support"]
[tiers]
"pricing.internal" = "T0"
"*.vendor.com" = "T1"
[severity]
span_unsupported = "error"
"#,
        )
        .unwrap();
        assert_eq!(c.default_ttl_seconds, 900);
        assert_eq!(c.tier_override("billing.vendor.com"), Some(Tier::T1));
        assert_eq!(c.tier_override("pricing.internal"), Some(Tier::T0));
        assert_eq!(c.tier_override("other"), None);
        assert_eq!(
            c.severity_of(Kind::SpanUnsupported, Severity::Warning),
            Severity::Error
        );
        assert!(!c.enabled(Kind::AmbiguousSupport));
    }

    #[test]
    fn the_most_specific_tier_pattern_wins() {
        let c = Config::parse(
            r#"
[tiers]
"*" = "T3"
"*.com" = "T2"
"*.vendor.com" = "T1"
"community-*" = "T2"
"billing.vendor.com" = "T0"
"#,
        )
        .unwrap();
        assert_eq!(c.tier_override("billing.vendor.com"), Some(Tier::T0));
        assert_eq!(c.tier_override("status.vendor.com"), Some(Tier::T1));
        assert_eq!(c.tier_override("example.com"), Some(Tier::T2));
        assert_eq!(c.tier_override("community-pricing-mcp"), Some(Tier::T2));
        assert_eq!(c.tier_override("anything-else"), Some(Tier::T3));
    }

    #[test]
    fn tier_entries_carry_review_metadata_and_plain_entries_still_work() {
        let c = Config::parse(
            r#"
[tiers]
"pricing.internal" = "T0"
"status.vendor.com" = { tier = "T1", reviewed = 2026-07-01, review_every = "90d" }
"community-*" = { tier = "T2", reviewed = "2026-09-01" }
"#,
        )
        .unwrap();
        let r = c.tier_rule("status.vendor.com").unwrap();
        assert_eq!(r.tier, Tier::T1);
        assert_eq!(
            r.review_due(),
            Some(Timestamp::parse("2026-09-29T00:00:00Z").unwrap())
        );
        assert_eq!(c.tier_rule("community-x").unwrap().review_due(), None);
        assert_eq!(c.tier_override("pricing.internal"), Some(Tier::T0));
        for (bad, want) in [
            (
                "\"x\" = { tier = \"T1\", review_every = \"90d\" }",
                "needs `reviewed`",
            ),
            (
                "\"x\" = { tier = \"T1\", reviewed = 2026-07-01, review_every = \"3 months\" }",
                "not an interval",
            ),
            (
                "\"x\" = { tier = \"T1\", reviewed = \"July\" }",
                "not a date",
            ),
            ("\"x\" = { reviewed = 2026-07-01 }", "`tier`"),
            (
                "\"x\" = { tier = \"T1\", owner = \"ana\" }",
                "unknown key `owner`",
            ),
            ("\"x\" = 1", "expected a tier"),
        ] {
            let e = Config::parse(&format!("[tiers]\n{bad}\n")).unwrap_err();
            assert_eq!(e.line, 2, "{e}");
            assert!(e.message.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn gates_from_config_and_flags() {
        let c = Config::parse(
            "[gates]\nfail_under = { citation_precision = 0.9 }\nfail_over = { wrong_source_rate = 0.05 }\n",
        )
        .unwrap();
        assert_eq!(c.gates.len(), 2);
        let flag = Gate::parse_flag("citation_precision=0.8", GateBound::Under).unwrap();
        let all = c.gates_with(&[flag]);
        assert_eq!(all.len(), 2);
        assert!(all
            .iter()
            .any(|g| g.metric == "citation_precision" && g.threshold == 0.8));
        let e = Config::parse("[gates]\nfail_under = { precision = 0.9 }\n").unwrap_err();
        assert!(e.message.contains("not a gated metric"), "{e}");
        assert_eq!(e.line, 2, "{e}");
        let e = Config::parse("[gates]\nfail_over = { wrong_source_rate = 5 }\n").unwrap_err();
        assert!(e.message.contains("between 0 and 1"), "{e}");
        assert!(Gate::parse_flag("citation_precision", GateBound::Under).is_err());
        assert!(Gate::parse_flag("citation_precision=high", GateBound::Under).is_err());
    }

    #[test]
    fn errors_name_the_line() {
        let e = Config::parse("default_ttl_seconds = 5\n[tiers]\n\"x\" = \"T9\"\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(e.to_string().starts_with("3: tiers.\"x\""), "{e}");
        let e = Config::parse("default_ttl_seconds = \"soon\"\n").unwrap_err();
        assert!(e.to_string().starts_with("1:"), "{e}");
        let e = Config::parse("colour = 1\n").unwrap_err();
        assert!(e.message.contains("unknown field"), "{e}");
        let e = Config::parse("[severity]\nstale = \"fatal\"\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }
}
