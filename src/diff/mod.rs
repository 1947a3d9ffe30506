//! What changed between two checked sessions, or two runs of an eval: a typed [`SessionDiff`] /
//! [`RunDiff`] computed from what `check` published (claim verdicts, findings, metrics) and the
//! recorded calls and results. Pure: no reading, no printing (`export::diff` renders, `cli::diff`
//! loads).
//!
//! Pairing, in this order (`docs/diff.md`):
//! - sessions of two runs: by session id, then by first question; two sides of one session each
//!   are compared whatever their ids;
//! - turns: by question (the user's message, compared by its words), then by turn number;
//! - claims, within paired turns: by claim id, then by claim text (compared by its words);
//! - calls, within paired turns: by server, tool and arguments hash (RFC 8785), in order.
//!
//! Every change has a [`Direction`]: a claim that got worse is what `diff --fail-on worse` exits 1 on.

pub mod words;

use crate::check::{
    ClaimVerdict, FactVerdict, Finding, Kind, Metrics, Quadrant, SessionReport, Severity,
    SourceVerdict, QUADRANTS,
};
use crate::model::{Call, Claim, Session, Tier};
use crate::pipeline::Checked;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use words::WordDiff;

/// The schema name of the JSON document.
pub const SCHEMA: &str = "provscope.diff/1";

/// Whether a change made things better or worse. Ordered: a worse change outweighs a better
/// one, which outweighs a neutral one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Changed, neither better nor worse (a moved turn, a new call, a reworded claim).
    #[default]
    Neutral,
    /// Better: a finding resolved, a source or fact verdict went from wrong to right.
    Better,
    /// Worse: a finding added, a verdict went from right to wrong, a less trusted source.
    Worse,
}

impl Direction {
    /// `neutral`, `better` or `worse`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Neutral => "neutral",
            Direction::Better => "better",
            Direction::Worse => "worse",
        }
    }
}

/// A checked session as the diff reads it: [`Checked`] from the pipeline, or a session the
/// explorer holds.
pub trait CheckedSession {
    /// The session.
    fn session(&self) -> &Session;
    /// What `check` found in it.
    fn report(&self) -> &SessionReport;
}

impl CheckedSession for Checked {
    fn session(&self) -> &Session {
        &self.session
    }
    fn report(&self) -> &SessionReport {
        &self.report
    }
}

impl<T: CheckedSession + ?Sized> CheckedSession for std::sync::Arc<T> {
    fn session(&self) -> &Session {
        (**self).session()
    }
    fn report(&self) -> &SessionReport {
        (**self).report()
    }
}

/// Settings of a diff.
#[derive(Clone, Debug)]
pub struct Options {
    /// The support threshold of the check configuration (a support crossing it is better or
    /// worse; other support changes are neutral).
    pub support_threshold: f64,
    /// Unchanged words shown around each changed stretch of a result.
    pub context_words: usize,
    /// Also align every turn and claim, changed or not ([`SessionDiff::aligned`]), for a side by
    /// side view.
    pub align: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            support_threshold: crate::check::Config::default().support_threshold,
            context_words: 4,
            align: false,
        }
    }
}

/// One side's session.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionRef {
    /// Session id (the header's, else the file name).
    pub session_id: String,
    /// Display name.
    pub name: String,
    /// The log file.
    pub file: String,
    /// The first turn's question, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_question: Option<String>,
    /// Its position on its side: in A's sessions as given, in B's in the order they came.
    #[serde(skip)]
    pub index: usize,
}

impl SessionRef {
    fn of(c: &impl CheckedSession, index: usize) -> SessionRef {
        let r = c.report();
        SessionRef {
            session_id: r.session_id.clone(),
            name: r.name.clone(),
            file: r.file.clone(),
            first_question: first_question(c.session()).map(str::to_owned),
            index,
        }
    }
}

fn first_question(s: &Session) -> Option<&str> {
    s.turns.first().map(|t| t.user.as_str())
}

/// How two sessions were paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionPairing {
    /// The same session id.
    SessionId,
    /// The same first question.
    FirstQuestion,
    /// The only session left on each side (two files with one session each).
    OnlyOne,
}

/// How two claims were paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimPairing {
    /// The same claim id.
    ClaimId,
    /// The same claim text (by its words) in paired turns.
    Text,
}

/// A claim's origin as its stamp states it, with the effective tier of its server.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OriginRef {
    /// The cited call.
    pub call_id: String,
    /// Server.
    pub server: String,
    /// Tool.
    pub tool: String,
    /// Arguments hash as stamped.
    pub arguments_hash: String,
    /// The server's effective tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
}

/// A claim's span as stamped, with the text it resolves to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpanRef {
    /// Content block.
    pub block: u64,
    /// Start offset (the session's span unit).
    pub start: u64,
    /// End offset.
    pub end: u64,
    /// The cited text, when the span resolves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A finding as the diff shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FindingRef {
    /// Kind.
    pub kind: Kind,
    /// Severity.
    pub severity: Severity,
    /// Its sentence.
    pub message: String,
    /// The log line it points at, in its own side's file.
    pub line: u64,
}

impl FindingRef {
    /// Worse when added, better when resolved, for an error or a warning; else neutral (as the
    /// turn's and claim's directions count it).
    pub fn direction(&self, added: bool) -> Direction {
        match (self.severity <= Severity::Warning, added) {
            (false, _) => Direction::Neutral,
            (true, true) => Direction::Worse,
            (true, false) => Direction::Better,
        }
    }

    fn of(f: &Finding) -> FindingRef {
        FindingRef {
            kind: f.kind,
            severity: f.severity,
            message: f.message.clone(),
            line: f.line,
        }
    }
}

/// One change of a paired claim.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum ClaimChange {
    /// The claim's text changed (claims paired by id).
    Text {
        /// Before.
        a: String,
        /// After.
        b: String,
    },
    /// The origin changed: another server, tool, arguments or call, or an origin gained or lost.
    Origin {
        /// What differs: `origin` (gained or lost), `server`, `tool`, `arguments`, `call`, `tier`.
        fields: Vec<&'static str>,
        /// Before.
        a: Option<OriginRef>,
        /// After.
        b: Option<OriginRef>,
        /// Worse when the origin was lost or its server is less trusted.
        direction: Direction,
    },
    /// The cited span changed: other text, or it stopped (or started) resolving.
    Span {
        /// Before.
        a: Option<SpanRef>,
        /// After.
        b: Option<SpanRef>,
    },
    /// The support score changed.
    Support {
        /// Before.
        a: Option<f64>,
        /// After.
        b: Option<f64>,
        /// Worse when it fell below the support threshold, better when it rose to it.
        direction: Direction,
    },
    /// A finding the claim did not have.
    FindingAdded {
        /// The finding (line in B).
        finding: FindingRef,
        /// Worse for an error or a warning.
        direction: Direction,
    },
    /// A finding the claim no longer has.
    FindingResolved {
        /// The finding (line in A).
        finding: FindingRef,
        /// Better for an error or a warning.
        direction: Direction,
    },
    /// The source verdict, the fact verdict or the quadrant moved.
    Verdict {
        /// Source verdict before and after.
        source: [SourceVerdict; 2],
        /// Fact verdict before and after.
        fact: [FactVerdict; 2],
        /// Quadrant before and after.
        quadrant: [Option<Quadrant>; 2],
        /// Worse when an axis went from right to wrong.
        direction: Direction,
    },
}

impl ClaimChange {
    /// Better, worse or neutral.
    pub fn direction(&self) -> Direction {
        match self {
            ClaimChange::Text { .. } | ClaimChange::Span { .. } => Direction::Neutral,
            ClaimChange::Origin { direction, .. }
            | ClaimChange::Support { direction, .. }
            | ClaimChange::FindingAdded { direction, .. }
            | ClaimChange::FindingResolved { direction, .. }
            | ClaimChange::Verdict { direction, .. } => *direction,
        }
    }
}

/// Whether a claim or turn is on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// On both sides.
    Paired,
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
}

/// A claim statement that changed, appeared or disappeared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClaimDiff {
    /// The claim id (B's; A's for a removed claim).
    pub claim_id: String,
    /// A's claim id, when paired by text under another id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id_a: Option<String>,
    /// The claim text (B's; A's for a removed claim).
    pub text: String,
    /// Paired, added or removed.
    pub presence: Presence,
    /// How it was paired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired_by: Option<ClaimPairing>,
    /// The answer's log line in A.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_a: Option<u64>,
    /// The answer's log line in B.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_b: Option<u64>,
    /// The worst direction of its changes; an added claim whose source is wrong is worse.
    pub direction: Direction,
    /// What changed (paired claims).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<ClaimChange>,
    /// The source verdict (added and removed claims).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_verdict: Option<SourceVerdict>,
    /// Its findings (added and removed claims).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<FindingRef>,
}

/// A recorded call, identified by what it asked.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallRef {
    /// Call id.
    pub call_id: String,
    /// Server.
    pub server: String,
    /// Tool.
    pub tool: String,
    /// SHA-256 of the RFC 8785 canonical arguments (or why they cannot be hashed).
    pub arguments_hash: String,
}

/// A result whose content changed for the same server, tool and arguments.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResultChange {
    /// The call in A.
    pub call_a: String,
    /// The call in B.
    pub call_b: String,
    /// Server.
    pub server: String,
    /// Tool.
    pub tool: String,
    /// Arguments hash.
    pub arguments_hash: String,
    /// Whether a result was recorded, before and after.
    pub recorded: [bool; 2],
    /// Whether the result was an error, before and after.
    pub error: [bool; 2],
    /// The word-level diff of the result's citable text.
    pub words: WordDiff,
}

/// A turn with changes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnDiff {
    /// Turn number in A.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_a: Option<u32>,
    /// Turn number in B.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_b: Option<u32>,
    /// The question (B's; A's for a removed turn).
    pub question: String,
    /// A's question, when paired by turn number with another question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_a: Option<String>,
    /// Paired, added or removed.
    pub presence: Presence,
    /// Paired under another turn number.
    pub moved: bool,
    /// The worst direction of its changes.
    pub direction: Direction,
    /// Claims that changed, appeared or disappeared.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<ClaimDiff>,
    /// Calls only in B.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls_added: Vec<CallRef>,
    /// Calls only in A.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls_removed: Vec<CallRef>,
    /// Paired calls whose result changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub results_changed: Vec<ResultChange>,
    /// Findings of the turn not about a claim (context, uncited injections, envelopes), new in B.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings_added: Vec<FindingRef>,
    /// Such findings gone in B.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings_resolved: Vec<FindingRef>,
}

/// How many of each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Sessions on both sides.
    pub sessions_paired: u64,
    /// Sessions only in B.
    pub sessions_added: u64,
    /// Sessions only in A.
    pub sessions_removed: u64,
    /// Claim statements on both sides.
    pub claims_paired: u64,
    /// Paired claims with no change.
    pub claims_unchanged: u64,
    /// Paired claims that got worse.
    pub claims_worse: u64,
    /// Paired claims that got better (and not worse).
    pub claims_better: u64,
    /// Paired claims that changed, neither better nor worse.
    pub claims_neutral: u64,
    /// Claims only in B.
    pub claims_added: u64,
    /// Of those, claims whose source is wrong.
    pub claims_added_worse: u64,
    /// Claims only in A.
    pub claims_removed: u64,
    /// Turns only in B.
    pub turns_added: u64,
    /// Turns only in A.
    pub turns_removed: u64,
    /// Turns paired under another number.
    pub turns_moved: u64,
    /// Calls only in B.
    pub calls_added: u64,
    /// Calls only in A.
    pub calls_removed: u64,
    /// Paired calls whose result changed.
    pub results_changed: u64,
    /// Findings not about a claim, new in B.
    pub findings_added: u64,
    /// Findings not about a claim, gone in B.
    pub findings_resolved: u64,
}

impl Counts {
    /// The counts as two sentences, the claims and then turns, calls, results and other
    /// findings; `provscope diff`'s text and Markdown and the explorer's diff view say them.
    pub fn sentences(&self) -> [String; 2] {
        [
            format!(
                "claims: {} worse, {} better, {} changed, {} unchanged, {} added ({} with a wrong source), {} removed",
                self.claims_worse,
                self.claims_better,
                self.claims_neutral,
                self.claims_unchanged,
                self.claims_added,
                self.claims_added_worse,
                self.claims_removed
            ),
            format!(
                "turns: {} added, {} removed, {} moved; calls: {} added, {} removed; results changed: {}; other findings: {} added, {} resolved",
                self.turns_added,
                self.turns_removed,
                self.turns_moved,
                self.calls_added,
                self.calls_removed,
                self.results_changed,
                self.findings_added,
                self.findings_resolved
            ),
        ]
    }

    fn add(&mut self, o: &Counts) {
        self.sessions_paired += o.sessions_paired;
        self.sessions_added += o.sessions_added;
        self.sessions_removed += o.sessions_removed;
        self.claims_paired += o.claims_paired;
        self.claims_unchanged += o.claims_unchanged;
        self.claims_worse += o.claims_worse;
        self.claims_better += o.claims_better;
        self.claims_neutral += o.claims_neutral;
        self.claims_added += o.claims_added;
        self.claims_added_worse += o.claims_added_worse;
        self.claims_removed += o.claims_removed;
        self.turns_added += o.turns_added;
        self.turns_removed += o.turns_removed;
        self.turns_moved += o.turns_moved;
        self.calls_added += o.calls_added;
        self.calls_removed += o.calls_removed;
        self.results_changed += o.results_changed;
        self.findings_added += o.findings_added;
        self.findings_resolved += o.findings_resolved;
    }

    /// True when nothing at all changed (paired and unchanged counts aside).
    pub fn is_empty(&self) -> bool {
        let mut c = self.clone();
        c.sessions_paired = 0;
        c.claims_paired = 0;
        c.claims_unchanged = 0;
        c == Counts::default()
    }
}

/// The metrics on both sides and how they moved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricsDelta {
    /// A's metrics.
    pub a: Metrics,
    /// B's metrics.
    pub b: Metrics,
    /// Change in citation precision (B - A), when both are defined.
    pub citation_precision: Option<f64>,
    /// Change in wrong-source rate (B - A), when both are defined.
    pub wrong_source_rate: Option<f64>,
    /// Change in claims per quadrant.
    pub quadrants: BTreeMap<Quadrant, i64>,
    /// Change in findings per severity.
    pub severities: BTreeMap<Severity, i64>,
}

impl MetricsDelta {
    /// The delta of two metrics.
    pub fn of(a: &Metrics, b: &Metrics) -> MetricsDelta {
        let d = |x: Option<f64>, y: Option<f64>| Some(y? - x?);
        let count = |m: &BTreeMap<Quadrant, u64>, q: &Quadrant| m.get(q).copied().unwrap_or(0);
        let sev = |m: &BTreeMap<Severity, u64>, s: &Severity| m.get(s).copied().unwrap_or(0);
        MetricsDelta {
            citation_precision: d(a.citation_precision, b.citation_precision),
            wrong_source_rate: d(a.wrong_source_rate, b.wrong_source_rate),
            quadrants: QUADRANTS
                .iter()
                .map(|q| {
                    (
                        *q,
                        count(&b.quadrants, q) as i64 - count(&a.quadrants, q) as i64,
                    )
                })
                .collect(),
            severities: [Severity::Error, Severity::Warning, Severity::Info]
                .iter()
                .map(|s| {
                    (
                        *s,
                        sev(&b.severities, s) as i64 - sev(&a.severities, s) as i64,
                    )
                })
                .collect(),
            a: a.clone(),
            b: b.clone(),
        }
    }
}

/// What changed between two sessions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionDiff {
    /// The session in A.
    pub a: SessionRef,
    /// The session in B.
    pub b: SessionRef,
    /// How the two were paired.
    pub paired_by: SessionPairing,
    /// The worst direction of every change.
    pub direction: Direction,
    /// How many of each.
    pub counts: Counts,
    /// Turns with changes, in B's turn order (removed turns after).
    pub turns: Vec<TurnDiff>,
    /// Findings of the session with no turn, new in B.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings_added: Vec<FindingRef>,
    /// Findings of the session with no turn, gone in B.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings_resolved: Vec<FindingRef>,
    /// The session's metrics on both sides.
    pub metrics: MetricsDelta,
    /// Every turn of both sides, aligned (only with [`Options::align`]).
    #[serde(skip)]
    pub aligned: Vec<AlignedTurn>,
}

/// A row of a side by side view: a turn of A beside its partner in B (either may be absent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlignedTurn {
    /// Turn number in A.
    pub a: Option<u32>,
    /// Turn number in B.
    pub b: Option<u32>,
    /// Its entry in [`SessionDiff::turns`], when it changed.
    pub diff: Option<usize>,
    /// Every claim of the turn on either side, aligned.
    pub claims: Vec<AlignedClaim>,
}

/// A claim of A beside its partner in B (either may be absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AlignedClaim {
    /// Index into A's `report.claims`.
    pub a: Option<usize>,
    /// Index into B's `report.claims`.
    pub b: Option<usize>,
    /// Its entry in the turn's [`TurnDiff::claims`], when it changed.
    pub diff: Option<usize>,
}

/// Orders two paired lists for a side by side view: B's items in order, each of A's unpaired
/// items (`a_only`, ascending) just before the first B item whose partner comes after it in A,
/// the rest at the end. Returns (A item, B item) rows.
fn side_by_side(pb: &[Option<usize>], a_only: &[usize]) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = Vec::with_capacity(pb.len() + a_only.len());
    let mut rest = a_only.iter().copied().peekable();
    for (j, partner) in pb.iter().enumerate() {
        if let Some(i) = *partner {
            while let Some(k) = rest.next_if(|&k| k < i) {
                out.push((Some(k), None));
            }
        }
        out.push((*partner, Some(j)));
    }
    out.extend(rest.map(|k| (Some(k), None)));
    out
}

/// What changed between two runs (two sets of sessions).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunDiff {
    /// `provscope.diff/1`.
    pub schema: &'static str,
    /// The worst direction of every change.
    pub direction: Direction,
    /// Totals over every session.
    pub counts: Counts,
    /// Metrics over every session of each side, and their change.
    pub metrics: MetricsDelta,
    /// Paired sessions with their changes, in B's order.
    pub sessions: Vec<SessionDiff>,
    /// Sessions only in B.
    pub sessions_added: Vec<SessionRef>,
    /// Sessions only in A.
    pub sessions_removed: Vec<SessionRef>,
}

/// Words of a text, lowercased, for pairing by text: case, punctuation and spacing do not count.
fn words_key(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Pairs `a` with `b` by equal keys, in order, each item at most once. Returns, for each `a`, its
/// partner in `b`.
fn pair_by<K: std::hash::Hash + Eq>(
    a: &[usize],
    b: &[usize],
    pa: &mut [Option<usize>],
    pb: &mut [Option<usize>],
    key_a: impl Fn(usize) -> Option<K>,
    key_b: impl Fn(usize) -> Option<K>,
) {
    let mut by: HashMap<K, VecDeque<usize>> = HashMap::default();
    for &j in b {
        if pb[j].is_none() {
            if let Some(k) = key_b(j) {
                by.entry(k).or_default().push_back(j);
            }
        }
    }
    for &i in a {
        if pa[i].is_some() {
            continue;
        }
        let Some(k) = key_a(i) else { continue };
        if let Some(j) = by.get_mut(&k).and_then(VecDeque::pop_front) {
            pa[i] = Some(j);
            pb[j] = Some(i);
        }
    }
}

/// A turn as the diff sees it.
struct TurnInfo<'s> {
    index: u32,
    question: &'s str,
}

/// Every turn of a session: the recorded turns, and any turn number used by a call, result or
/// answer without a `turn` event (with no question).
fn turns(s: &Session) -> Vec<TurnInfo<'_>> {
    let mut out: Vec<TurnInfo> = s
        .turns
        .iter()
        .map(|t| TurnInfo {
            index: t.index,
            question: &t.user,
        })
        .collect();
    let mut seen: rustc_hash::FxHashSet<u32> = out.iter().map(|t| t.index).collect();
    let extra = s
        .calls
        .iter()
        .map(|c| c.turn)
        .chain(s.results.iter().map(|r| r.turn))
        .chain(s.answers.iter().map(|a| a.turn));
    for t in extra {
        if seen.insert(t) {
            out.push(TurnInfo {
                index: t,
                question: "",
            });
        }
    }
    out.sort_by_key(|t| t.index);
    out
}

/// One side of a session pair, with what the diff looks up.
struct Side<'s> {
    s: &'s Session,
    r: &'s SessionReport,
    /// turn -> indexes into the report's claims.
    claims_by_turn: HashMap<u32, Vec<usize>>,
    /// turn -> findings with no claim.
    findings_by_turn: HashMap<Option<u32>, Vec<&'s Finding>>,
}

impl<'s> Side<'s> {
    fn new(c: &'s impl CheckedSession) -> Side<'s> {
        let (session, report) = (c.session(), c.report());
        let mut claims_by_turn: HashMap<u32, Vec<usize>> = HashMap::default();
        for (i, v) in report.claims.iter().enumerate() {
            claims_by_turn.entry(v.turn).or_default().push(i);
        }
        let mut findings_by_turn: HashMap<Option<u32>, Vec<&Finding>> = HashMap::default();
        for f in report.findings.iter().filter(|f| f.claim_id.is_none()) {
            findings_by_turn.entry(f.turn).or_default().push(f);
        }
        Side {
            s: session,
            r: report,
            claims_by_turn,
            findings_by_turn,
        }
    }

    fn claim(&self, v: &ClaimVerdict) -> Option<&'s Claim> {
        self.s.answer(v.turn)?.claims.get(v.position)
    }

    fn claims_in(&self, turn: u32) -> &[usize] {
        self.claims_by_turn.get(&turn).map_or(&[], Vec::as_slice)
    }
}

/// Arguments hashes, computed once per distinct arguments text.
#[derive(Default)]
struct Hashes<'s> {
    cache: HashMap<&'s str, String>,
}

impl<'s> Hashes<'s> {
    fn of(&mut self, c: &'s Call) -> String {
        let raw = c.request.params.arguments.as_deref();
        self.cache
            .entry(raw.map_or("", |r| r.get()))
            .or_insert_with(|| match crate::attest::hash::arguments_hash(raw) {
                Ok(h) => h,
                Err(e) => format!("unhashable: {e}"),
            })
            .clone()
    }
}

fn call_ref(c: &Call, hash: String) -> CallRef {
    CallRef {
        call_id: c.id.to_string(),
        server: c.server.to_string(),
        tool: c.tool().to_owned(),
        arguments_hash: hash,
    }
}

/// A result's citable text, all blocks joined by newlines (borrowed when there is one block:
/// most results are compared and found equal, with nothing copied).
fn result_text<'s>(s: &'s Session, call_id: &str) -> Option<(Cow<'s, str>, bool)> {
    let r = s.result(call_id)?;
    let mut texts = r.texts().map(|(_, t)| t);
    let text = match (texts.next(), texts.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(one), None) => Cow::Borrowed(one),
        (Some(first), Some(second)) => {
            let mut all = vec![first, second];
            all.extend(texts);
            Cow::Owned(all.join("\n"))
        }
    };
    Some((text, r.is_error()))
}

/// Pairs findings by kind and severity: (added in b, resolved from a).
fn finding_changes<'f>(
    a: &[&'f Finding],
    b: &[&'f Finding],
) -> (Vec<&'f Finding>, Vec<&'f Finding>) {
    let mut used = vec![false; a.len()];
    let mut added = Vec::new();
    for f in b {
        match (0..a.len()).find(|&i| !used[i] && a[i].kind == f.kind && a[i].severity == f.severity)
        {
            Some(i) => used[i] = true,
            None => added.push(*f),
        }
    }
    let resolved = a
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(f, _)| *f)
        .collect();
    (added, resolved)
}

fn finding_direction(f: &Finding, bad: Direction) -> Direction {
    if f.severity <= Severity::Warning {
        bad
    } else {
        Direction::Neutral
    }
}

fn same_hash(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        let s = s.trim().to_ascii_lowercase();
        s.strip_prefix("sha256:").map(str::to_owned).unwrap_or(s)
    };
    let (a, b) = (norm(a), norm(b));
    a == b || (a.len() >= 6 && b.starts_with(&a)) || (b.len() >= 6 && a.starts_with(&b))
}

/// Worse when an axis went from right to wrong; better when one went from wrong to right and
/// none got worse.
fn verdict_direction(src: [SourceVerdict; 2], fact: [FactVerdict; 2]) -> Direction {
    use FactVerdict as F;
    use SourceVerdict as S;
    let worse =
        (src[0] == S::Right && src[1] == S::Wrong) || (fact[0] == F::Right && fact[1] == F::Wrong);
    let better =
        (src[0] == S::Wrong && src[1] == S::Right) || (fact[0] == F::Wrong && fact[1] == F::Right);
    if worse {
        Direction::Worse
    } else if better {
        Direction::Better
    } else {
        Direction::Neutral
    }
}

/// The calls of a paired turn: added, removed, and the pairs with B's arguments hash.
type CallPairs<'s> = (
    Vec<CallRef>,
    Vec<CallRef>,
    Vec<(&'s Call, &'s Call, String)>,
);

/// Computes the diff of one pair of sessions.
struct Pair<'s> {
    a: Side<'s>,
    b: Side<'s>,
    o: &'s Options,
    hashes_a: Hashes<'s>,
    hashes_b: Hashes<'s>,
    /// A's call id -> B's call id, for paired calls.
    calls: HashMap<&'s str, &'s str>,
    counts: Counts,
}

impl<'s> Pair<'s> {
    fn origin_ref(side: &Side<'s>, v: &ClaimVerdict, c: &Claim) -> Option<OriginRef> {
        let _ = side;
        let o = c.stamp.origin.as_ref()?;
        Some(OriginRef {
            call_id: o.tool_call_id.to_string(),
            server: o.server.to_string(),
            tool: o.tool.to_string(),
            arguments_hash: o.arguments_hash.to_string(),
            tier: v.tier.map(|t| t.tier),
        })
    }

    fn span_ref(side: &Side<'s>, v: &ClaimVerdict, c: &Claim) -> Option<SpanRef> {
        let sp = c.stamp.span.as_ref()?;
        Some(SpanRef {
            block: sp.block,
            start: sp.start,
            end: sp.end,
            text: v.cited_text(side.s).map(str::to_owned),
        })
    }

    fn claim_changes(
        &self,
        va: &ClaimVerdict,
        ca: &Claim,
        vb: &ClaimVerdict,
        cb: &Claim,
    ) -> Vec<ClaimChange> {
        let mut out = Vec::new();
        if ca.stamp.claim_text.trim() != cb.stamp.claim_text.trim() {
            out.push(ClaimChange::Text {
                a: ca.stamp.claim_text.to_string(),
                b: cb.stamp.claim_text.to_string(),
            });
        }
        let (oa, ob) = (
            Self::origin_ref(&self.a, va, ca),
            Self::origin_ref(&self.b, vb, cb),
        );
        match (&oa, &ob) {
            (None, None) => {}
            (Some(_), None) | (None, Some(_)) => {
                let direction = if ob.is_none() {
                    Direction::Worse
                } else {
                    Direction::Better
                };
                out.push(ClaimChange::Origin {
                    fields: vec!["origin"],
                    a: oa.clone(),
                    b: ob.clone(),
                    direction,
                });
            }
            (Some(x), Some(y)) => {
                let mut fields = Vec::new();
                if x.server != y.server {
                    fields.push("server");
                }
                if x.tool != y.tool {
                    fields.push("tool");
                }
                if !same_hash(&x.arguments_hash, &y.arguments_hash) {
                    fields.push("arguments");
                }
                let counterpart = self.calls.get(x.call_id.as_str()).copied();
                let other_call = match counterpart {
                    Some(c) => c != y.call_id,
                    None => x.call_id != y.call_id,
                };
                if other_call {
                    fields.push("call");
                }
                if x.tier != y.tier {
                    fields.push("tier");
                }
                if !fields.is_empty() {
                    let rank = |t: Option<Tier>| t.unwrap_or(Tier::Unknown).rank();
                    let direction = match rank(y.tier).cmp(&rank(x.tier)) {
                        std::cmp::Ordering::Greater => Direction::Worse,
                        std::cmp::Ordering::Less => Direction::Better,
                        std::cmp::Ordering::Equal => Direction::Neutral,
                    };
                    out.push(ClaimChange::Origin {
                        fields,
                        a: oa.clone(),
                        b: ob.clone(),
                        direction,
                    });
                }
            }
        }
        let (sa, sb) = (
            Self::span_ref(&self.a, va, ca),
            Self::span_ref(&self.b, vb, cb),
        );
        let span_changed = match (&sa, &sb) {
            (None, None) => false,
            (Some(x), Some(y)) => match (&x.text, &y.text) {
                (None, None) => (x.block, x.start, x.end) != (y.block, y.start, y.end),
                (tx, ty) => tx != ty,
            },
            _ => true,
        };
        if span_changed {
            out.push(ClaimChange::Span { a: sa, b: sb });
        }
        let changed = match (va.support, vb.support) {
            (Some(x), Some(y)) => (x - y).abs() >= 0.005,
            (None, None) => false,
            _ => true,
        };
        if changed {
            let t = self.o.support_threshold;
            let ok = |s: Option<f64>| s.is_some_and(|s| s >= t);
            let direction = match (ok(va.support), ok(vb.support)) {
                (true, false) => Direction::Worse,
                (false, true) => Direction::Better,
                _ => Direction::Neutral,
            };
            out.push(ClaimChange::Support {
                a: va.support,
                b: vb.support,
                direction,
            });
        }
        let fa: Vec<&Finding> = self.a.r.findings_for(va).collect();
        let fb: Vec<&Finding> = self.b.r.findings_for(vb).collect();
        let (added, resolved) = finding_changes(&fa, &fb);
        for f in added {
            out.push(ClaimChange::FindingAdded {
                finding: FindingRef::of(f),
                direction: finding_direction(f, Direction::Worse),
            });
        }
        for f in resolved {
            out.push(ClaimChange::FindingResolved {
                finding: FindingRef::of(f),
                direction: finding_direction(f, Direction::Better),
            });
        }
        let src = [va.source_verdict, vb.source_verdict];
        let fact = [va.fact_verdict, vb.fact_verdict];
        if src[0] != src[1] || fact[0] != fact[1] || va.quadrant != vb.quadrant {
            out.push(ClaimChange::Verdict {
                source: src,
                fact,
                quadrant: [va.quadrant, vb.quadrant],
                direction: verdict_direction(src, fact),
            });
        }
        out
    }

    fn lone_claim(side: &Side<'s>, v: &ClaimVerdict, presence: Presence) -> ClaimDiff {
        let findings: Vec<FindingRef> = side.r.findings_for(v).map(FindingRef::of).collect();
        let direction = if presence == Presence::Added && v.source_verdict == SourceVerdict::Wrong {
            Direction::Worse
        } else {
            Direction::Neutral
        };
        ClaimDiff {
            claim_id: v.claim_id.to_string(),
            claim_id_a: None,
            text: v.claim_text.to_string(),
            presence,
            paired_by: None,
            line_a: (presence == Presence::Removed).then_some(v.line),
            line_b: (presence == Presence::Added).then_some(v.line),
            direction,
            changes: Vec::new(),
            source_verdict: Some(v.source_verdict),
            findings,
        }
    }

    /// The claims of a paired turn that changed, appeared or disappeared; with
    /// [`Options::align`] also every claim of the turn aligned.
    fn claims(&mut self, ta: u32, tb: u32) -> (Vec<ClaimDiff>, Vec<AlignedClaim>) {
        let ia = self.a.claims_in(ta).to_vec();
        let ib = self.b.claims_in(tb).to_vec();
        let na = self.a.r.claims.len();
        let nb = self.b.r.claims.len();
        let mut pa = vec![None; na];
        let mut pb = vec![None; nb];
        let (ra, rb) = (self.a.r, self.b.r);
        pair_by(
            &ia,
            &ib,
            &mut pa,
            &mut pb,
            |i| Some(ra.claims[i].claim_id.as_str()),
            |j| Some(rb.claims[j].claim_id.as_str()),
        );
        let mut by_text = vec![false; na];
        let before: Vec<bool> = ia.iter().map(|&i| pa[i].is_some()).collect();
        pair_by(
            &ia,
            &ib,
            &mut pa,
            &mut pb,
            |i| Some(words_key(&ra.claims[i].claim_text)),
            |j| Some(words_key(&rb.claims[j].claim_text)),
        );
        for (k, &i) in ia.iter().enumerate() {
            if !before[k] && pa[i].is_some() {
                by_text[i] = true;
            }
        }
        let mut out = Vec::new();
        let mut diff_b = vec![None; ib.len()];
        let mut diff_a = vec![None; ia.len()];
        for (k, &j) in ib.iter().enumerate() {
            let vb = &rb.claims[j];
            match pb[j] {
                None => {
                    diff_b[k] = Some(out.len());
                    self.counts.claims_added += 1;
                    let d = Self::lone_claim(&self.b, vb, Presence::Added);
                    if d.direction == Direction::Worse {
                        self.counts.claims_added_worse += 1;
                    }
                    out.push(d);
                }
                Some(i) => {
                    self.counts.claims_paired += 1;
                    let va = &ra.claims[i];
                    let (Some(ca), Some(cb)) = (self.a.claim(va), self.b.claim(vb)) else {
                        self.counts.claims_unchanged += 1;
                        continue;
                    };
                    let changes = self.claim_changes(va, ca, vb, cb);
                    if changes.is_empty() {
                        self.counts.claims_unchanged += 1;
                        continue;
                    }
                    let direction = changes
                        .iter()
                        .map(ClaimChange::direction)
                        .max()
                        .unwrap_or_default();
                    match direction {
                        Direction::Worse => self.counts.claims_worse += 1,
                        Direction::Better => self.counts.claims_better += 1,
                        Direction::Neutral => self.counts.claims_neutral += 1,
                    }
                    diff_b[k] = Some(out.len());
                    out.push(ClaimDiff {
                        claim_id: vb.claim_id.to_string(),
                        claim_id_a: (va.claim_id != vb.claim_id).then(|| va.claim_id.to_string()),
                        text: vb.claim_text.to_string(),
                        presence: Presence::Paired,
                        paired_by: Some(if by_text[i] {
                            ClaimPairing::Text
                        } else {
                            ClaimPairing::ClaimId
                        }),
                        line_a: Some(va.line),
                        line_b: Some(vb.line),
                        direction,
                        changes,
                        source_verdict: None,
                        findings: Vec::new(),
                    });
                }
            }
        }
        for (k, &i) in ia.iter().enumerate() {
            if pa[i].is_none() {
                self.counts.claims_removed += 1;
                diff_a[k] = Some(out.len());
                out.push(Self::lone_claim(&self.a, &ra.claims[i], Presence::Removed));
            }
        }
        if !self.o.align {
            return (out, Vec::new());
        }
        // Positions within the turn, for the side by side order.
        let pos_a: HashMap<usize, usize> = ia.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let partner: Vec<Option<usize>> = ib
            .iter()
            .map(|&j| pb[j].and_then(|i| pos_a.get(&i).copied()))
            .collect();
        let a_only: Vec<usize> = (0..ia.len()).filter(|&k| pa[ia[k]].is_none()).collect();
        let aligned = side_by_side(&partner, &a_only)
            .into_iter()
            .map(|(ka, kb)| AlignedClaim {
                a: ka.map(|k| ia[k]),
                b: kb.map(|k| ib[k]),
                diff: match kb {
                    Some(k) => diff_b[k],
                    None => ka.and_then(|k| diff_a[k]),
                },
            })
            .collect();
        (out, aligned)
    }

    /// Pairs the calls of a paired turn; records the pairing for origin comparisons.
    fn pair_calls(&mut self, ta: u32, tb: u32) -> CallPairs<'s> {
        let (sa, sb) = (self.a.s, self.b.s);
        let ca: Vec<&Call> = sa.calls_in_turn(ta).collect();
        let cb: Vec<&Call> = sb.calls_in_turn(tb).collect();
        let ka: Vec<(String, &str, &str)> = ca
            .iter()
            .map(|c| (self.hashes_a.of(c), c.server.as_str(), c.tool()))
            .collect();
        let kb: Vec<(String, &str, &str)> = cb
            .iter()
            .map(|c| (self.hashes_b.of(c), c.server.as_str(), c.tool()))
            .collect();
        let mut pa = vec![None; ca.len()];
        let mut pb = vec![None; cb.len()];
        let ia: Vec<usize> = (0..ca.len()).collect();
        let ib: Vec<usize> = (0..cb.len()).collect();
        pair_by(
            &ia,
            &ib,
            &mut pa,
            &mut pb,
            |i| Some(&ka[i]),
            |j| Some(&kb[j]),
        );
        let mut added = Vec::new();
        let mut removed = Vec::new();
        let mut paired = Vec::new();
        for (j, c) in cb.iter().enumerate() {
            match pb[j] {
                None => added.push(call_ref(c, kb[j].0.clone())),
                Some(i) => {
                    self.calls.insert(ca[i].id.as_str(), c.id.as_str());
                    paired.push((ca[i], *c, kb[j].0.clone()));
                }
            }
        }
        for (i, c) in ca.iter().enumerate() {
            if pa[i].is_none() {
                removed.push(call_ref(c, ka[i].0.clone()));
            }
        }
        (added, removed, paired)
    }

    fn results(&self, paired: &[(&'s Call, &'s Call, String)]) -> Vec<ResultChange> {
        let mut out = Vec::new();
        for (ca, cb, hash) in paired {
            let ra = result_text(self.a.s, &ca.id);
            let rb = result_text(self.b.s, &cb.id);
            if ra == rb {
                continue;
            }
            let (ta, ea) = ra.as_ref().map_or(("", false), |(t, e)| (t.as_ref(), *e));
            let (tb, eb) = rb.as_ref().map_or(("", false), |(t, e)| (t.as_ref(), *e));
            out.push(ResultChange {
                call_a: ca.id.to_string(),
                call_b: cb.id.to_string(),
                server: cb.server.to_string(),
                tool: cb.tool().to_owned(),
                arguments_hash: hash.clone(),
                recorded: [ra.is_some(), rb.is_some()],
                error: [ea, eb],
                words: words::diff(ta, tb, self.o.context_words),
            });
        }
        out
    }

    fn turn_findings(
        &mut self,
        ta: Option<u32>,
        tb: Option<u32>,
    ) -> (Vec<FindingRef>, Vec<FindingRef>, Direction) {
        let none: Vec<&Finding> = Vec::new();
        let fa = self.a.findings_by_turn.get(&ta).unwrap_or(&none);
        let fb = self.b.findings_by_turn.get(&tb).unwrap_or(&none);
        let (added, resolved) = finding_changes(fa, fb);
        let direction = added
            .iter()
            .map(|f| finding_direction(f, Direction::Worse))
            .chain(
                resolved
                    .iter()
                    .map(|f| finding_direction(f, Direction::Better)),
            )
            .max()
            .unwrap_or_default();
        self.counts.findings_added += added.len() as u64;
        self.counts.findings_resolved += resolved.len() as u64;
        (
            added.into_iter().map(FindingRef::of).collect(),
            resolved.into_iter().map(FindingRef::of).collect(),
            direction,
        )
    }
}

/// The diff of two checked sessions, paired as `paired_by` says.
pub fn sessions<C: CheckedSession>(
    a: &C,
    b: &C,
    paired_by: SessionPairing,
    o: &Options,
) -> SessionDiff {
    let mut p = Pair {
        a: Side::new(a),
        b: Side::new(b),
        o,
        hashes_a: Hashes::default(),
        hashes_b: Hashes::default(),
        calls: HashMap::default(),
        counts: Counts {
            sessions_paired: 1,
            ..Counts::default()
        },
    };
    let (tas, tbs) = (turns(a.session()), turns(b.session()));
    let mut pa = vec![None; tas.len()];
    let mut pb = vec![None; tbs.len()];
    let ia: Vec<usize> = (0..tas.len()).collect();
    let ib: Vec<usize> = (0..tbs.len()).collect();
    pair_by(
        &ia,
        &ib,
        &mut pa,
        &mut pb,
        |i| Some(words_key(tas[i].question)),
        |j| Some(words_key(tbs[j].question)),
    );
    pair_by(
        &ia,
        &ib,
        &mut pa,
        &mut pb,
        |i| Some(tas[i].index),
        |j| Some(tbs[j].index),
    );
    // Calls first, over every paired turn: a claim may cite a call of an earlier turn.
    let mut calls: Vec<CallPairs<'_>> = Vec::new();
    for (j, tb) in tbs.iter().enumerate() {
        if let Some(i) = pb[j] {
            calls.push(p.pair_calls(tas[i].index, tb.index));
        }
    }
    let mut out = Vec::new();
    let mut calls = calls.into_iter();
    // With `align`: per turn of B (then of A), its entry in `out` and its aligned claims.
    let mut rows_b: Vec<(Option<usize>, Vec<AlignedClaim>)> = Vec::new();
    let mut rows_a: Vec<(Option<usize>, Vec<AlignedClaim>)> = vec![(None, Vec::new()); tas.len()];
    for (j, tb) in tbs.iter().enumerate() {
        let mut aligned = Vec::new();
        let mut t = match pb[j] {
            Some(i) => {
                let ta = &tas[i];
                let (added, removed, paired) = calls.next().unwrap_or_default();
                let results = p.results(&paired);
                let (claims, ac) = p.claims(ta.index, tb.index);
                aligned = ac;
                let (fa, fr, fdir) = p.turn_findings(Some(ta.index), Some(tb.index));
                let moved = ta.index != tb.index;
                p.counts.turns_moved += u64::from(moved);
                p.counts.calls_added += added.len() as u64;
                p.counts.calls_removed += removed.len() as u64;
                p.counts.results_changed += results.len() as u64;
                TurnDiff {
                    turn_a: Some(ta.index),
                    turn_b: Some(tb.index),
                    question: tb.question.to_owned(),
                    question_a: (words_key(ta.question) != words_key(tb.question))
                        .then(|| ta.question.to_owned()),
                    presence: Presence::Paired,
                    moved,
                    direction: fdir,
                    claims,
                    calls_added: added,
                    calls_removed: removed,
                    results_changed: results,
                    findings_added: fa,
                    findings_resolved: fr,
                }
            }
            None => {
                if o.align {
                    aligned = lone_claims(&p.b, tb, Presence::Added);
                }
                lone_turn(&mut p, tb, Presence::Added)
            }
        };
        t.direction = t
            .claims
            .iter()
            .map(|c| c.direction)
            .fold(t.direction, Direction::max);
        let changed = t.moved
            || t.presence != Presence::Paired
            || t.question_a.is_some()
            || !t.claims.is_empty()
            || !t.calls_added.is_empty()
            || !t.calls_removed.is_empty()
            || !t.results_changed.is_empty()
            || !t.findings_added.is_empty()
            || !t.findings_resolved.is_empty();
        let at = changed.then_some(out.len());
        if changed {
            out.push(t);
        }
        if o.align {
            rows_b.push((at, aligned));
        }
    }
    for (i, ta) in tas.iter().enumerate() {
        if pa[i].is_none() {
            if o.align {
                rows_a[i] = (Some(out.len()), lone_claims(&p.a, ta, Presence::Removed));
            }
            let mut t = lone_turn(&mut p, ta, Presence::Removed);
            t.direction = t
                .claims
                .iter()
                .map(|c| c.direction)
                .fold(t.direction, Direction::max);
            out.push(t);
        }
    }
    let aligned = if o.align {
        let a_only: Vec<usize> = (0..tas.len()).filter(|&i| pa[i].is_none()).collect();
        let mut rows_b = rows_b.into_iter();
        side_by_side(&pb, &a_only)
            .into_iter()
            .map(|(i, j)| {
                let (diff, claims) = match j {
                    Some(_) => rows_b.next().unwrap_or_default(),
                    None => i
                        .and_then(|i| rows_a.get_mut(i))
                        .map(std::mem::take)
                        .unwrap_or_default(),
                };
                AlignedTurn {
                    a: i.map(|i| tas[i].index),
                    b: j.map(|j| tbs[j].index),
                    diff,
                    claims,
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let (findings_added, findings_resolved, sdir) = p.turn_findings(None, None);
    let direction = out.iter().map(|t| t.direction).fold(sdir, Direction::max);
    SessionDiff {
        a: SessionRef::of(a, 0),
        b: SessionRef::of(b, 0),
        paired_by,
        direction,
        counts: p.counts,
        turns: out,
        findings_added,
        findings_resolved,
        metrics: MetricsDelta::of(&a.report().metrics, &b.report().metrics),
        aligned,
    }
}

/// The claims of a turn on one side only, aligned with nothing (each is its own change).
fn lone_claims(side: &Side<'_>, t: &TurnInfo<'_>, presence: Presence) -> Vec<AlignedClaim> {
    side.claims_in(t.index)
        .iter()
        .enumerate()
        .map(|(k, &i)| AlignedClaim {
            a: (presence == Presence::Removed).then_some(i),
            b: (presence == Presence::Added).then_some(i),
            diff: Some(k),
        })
        .collect()
}

/// A turn on one side only: every claim, call and finding of it added or removed.
fn lone_turn(p: &mut Pair<'_>, t: &TurnInfo<'_>, presence: Presence) -> TurnDiff {
    let side = if presence == Presence::Added {
        &p.b
    } else {
        &p.a
    };
    let hashes = if presence == Presence::Added {
        &mut p.hashes_b
    } else {
        &mut p.hashes_a
    };
    let calls: Vec<CallRef> = side
        .s
        .calls_in_turn(t.index)
        .map(|c| call_ref(c, hashes.of(c)))
        .collect();
    let claims: Vec<ClaimDiff> = side
        .claims_in(t.index)
        .iter()
        .map(|&i| Pair::lone_claim(side, &side.r.claims[i], presence))
        .collect();
    let findings: Vec<FindingRef> = side
        .findings_by_turn
        .get(&Some(t.index))
        .into_iter()
        .flatten()
        .map(|f| FindingRef::of(f))
        .collect();
    let c = &mut p.counts;
    let n = claims.len() as u64;
    if presence == Presence::Added {
        c.turns_added += 1;
        c.claims_added += n;
        c.claims_added_worse += claims
            .iter()
            .filter(|d| d.direction == Direction::Worse)
            .count() as u64;
        c.calls_added += calls.len() as u64;
        c.findings_added += findings.len() as u64;
    } else {
        c.turns_removed += 1;
        c.claims_removed += n;
        c.calls_removed += calls.len() as u64;
        c.findings_resolved += findings.len() as u64;
    }
    let (calls_added, calls_removed, findings_added, findings_resolved) =
        if presence == Presence::Added {
            (calls, Vec::new(), findings, Vec::new())
        } else {
            (Vec::new(), calls, Vec::new(), findings)
        };
    TurnDiff {
        turn_a: (presence == Presence::Removed).then_some(t.index),
        turn_b: (presence == Presence::Added).then_some(t.index),
        question: t.question.to_owned(),
        question_a: None,
        presence,
        moved: false,
        direction: Direction::Neutral,
        claims,
        calls_added,
        calls_removed,
        results_changed: Vec::new(),
        findings_added,
        findings_resolved,
    }
}

/// Builds the diff of two runs: every session of A first ([`RunBuilder::new`]), then B's one at
/// a time ([`RunBuilder::push`]); a B session with A's session id is compared at once and both
/// are dropped, so only unpaired sessions wait for [`RunBuilder::finish`].
pub struct RunBuilder<C: CheckedSession = Checked> {
    o: Options,
    a: Vec<Option<C>>,
    by_id: HashMap<String, VecDeque<usize>>,
    waiting: Vec<(usize, C)>,
    total_a: usize,
    pushed: usize,
    done: Vec<(usize, SessionDiff)>,
    metrics_a: Metrics,
    metrics_b: Metrics,
}

impl<C: CheckedSession> RunBuilder<C> {
    /// A builder over A's sessions.
    pub fn new(a: Vec<C>, o: Options) -> RunBuilder<C> {
        let mut by_id: HashMap<String, VecDeque<usize>> = HashMap::default();
        let mut metrics_a = Metrics::default();
        for (i, c) in a.iter().enumerate() {
            by_id
                .entry(c.report().session_id.clone())
                .or_default()
                .push_back(i);
            metrics_a.add(&c.report().metrics);
        }
        let a_len = a.len();
        RunBuilder {
            o,
            a: a.into_iter().map(Some).collect(),
            by_id,
            waiting: Vec::new(),
            total_a: a_len,
            pushed: 0,
            done: Vec::new(),
            metrics_a,
            metrics_b: Metrics::default(),
        }
    }

    /// Adds one of B's sessions.
    pub fn push(&mut self, b: C) {
        let pos = self.pushed;
        self.pushed += 1;
        self.metrics_b.add(&b.report().metrics);
        let hit = self
            .by_id
            .get_mut(&b.report().session_id)
            .and_then(VecDeque::pop_front);
        match hit.and_then(|i| Some((i, self.a.get_mut(i)?.take()?))) {
            Some((i, a)) => {
                let d = indexed(sessions(&a, &b, SessionPairing::SessionId, &self.o), i, pos);
                self.done.push((pos, d));
            }
            None => self.waiting.push((pos, b)),
        }
    }

    /// Pairs what is left by first question, then the last one on each side, and totals.
    pub fn finish(mut self) -> RunDiff {
        let mut by_q: HashMap<String, VecDeque<usize>> = HashMap::default();
        for (i, a) in self.a.iter().enumerate() {
            if let Some(a) = a {
                if let Some(q) = first_question(a.session()) {
                    by_q.entry(words_key(q)).or_default().push_back(i);
                }
            }
        }
        let mut left = Vec::new();
        for (pos, b) in std::mem::take(&mut self.waiting) {
            let hit = first_question(b.session())
                .and_then(|q| by_q.get_mut(&words_key(q)))
                .and_then(VecDeque::pop_front);
            match hit.and_then(|i| Some((i, self.a.get_mut(i)?.take()?))) {
                Some((i, a)) => {
                    let d = sessions(&a, &b, SessionPairing::FirstQuestion, &self.o);
                    self.done.push((pos, indexed(d, i, pos)));
                }
                None => left.push((pos, b)),
            }
        }
        let mut rest_a: Vec<(usize, C)> = self
            .a
            .into_iter()
            .enumerate()
            .filter_map(|(i, a)| Some((i, a?)))
            .collect();
        // Two sides of one session each (`diff a.jsonl b.jsonl`) are compared whatever their ids.
        if self.total_a == 1 && self.pushed == 1 && rest_a.len() == 1 && left.len() == 1 {
            if let (Some((i, a)), Some((pos, b))) = (rest_a.pop(), left.pop()) {
                let d = sessions(&a, &b, SessionPairing::OnlyOne, &self.o);
                self.done.push((pos, indexed(d, i, pos)));
            }
        }
        self.done.sort_by_key(|(pos, _)| *pos);
        let mut counts = Counts::default();
        let mut direction = Direction::Neutral;
        for (_, d) in &self.done {
            counts.add(&d.counts);
            direction = direction.max(d.direction);
        }
        let sessions_added: Vec<SessionRef> = left
            .iter()
            .map(|(pos, b)| SessionRef::of(b, *pos))
            .collect();
        let sessions_removed: Vec<SessionRef> =
            rest_a.iter().map(|(i, a)| SessionRef::of(a, *i)).collect();
        counts.sessions_added = sessions_added.len() as u64;
        counts.sessions_removed = sessions_removed.len() as u64;
        // A whole session added counts its claims as added.
        for (_, b) in &left {
            counts.claims_added += b.report().claims.len() as u64;
            let worse = b
                .report()
                .claims
                .iter()
                .filter(|v| v.source_verdict == SourceVerdict::Wrong)
                .count() as u64;
            counts.claims_added_worse += worse;
            if worse > 0 {
                direction = Direction::Worse;
            }
        }
        for (_, a) in &rest_a {
            counts.claims_removed += a.report().claims.len() as u64;
        }
        RunDiff {
            schema: SCHEMA,
            direction,
            counts,
            metrics: MetricsDelta::of(&self.metrics_a, &self.metrics_b),
            sessions: self.done.into_iter().map(|(_, d)| d).collect(),
            sessions_added,
            sessions_removed,
        }
    }
}

/// A session diff with the positions of its two sessions on their sides.
fn indexed(mut d: SessionDiff, a: usize, b: usize) -> SessionDiff {
    d.a.index = a;
    d.b.index = b;
    d
}

/// The diff of two runs given whole.
pub fn runs<C: CheckedSession>(a: Vec<C>, b: Vec<C>, o: Options) -> RunDiff {
    let mut r = RunBuilder::new(a, o);
    for c in b {
        r.push(c);
    }
    r.finish()
}
