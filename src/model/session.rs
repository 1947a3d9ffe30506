//! A loaded session: every valid event, indexed, plus the diagnostics for everything else.

use super::event::{ContextEntry, Fact, IngestTag, ServerInfo, SessionHeader, SpanUnit, Stamp};
use super::mcp::{CallRequest, CallResponse};
use super::{Diagnostic, Name, Tier, Timestamp};
use serde_json::value::RawValue;
// FxHash: the index is built for every loaded session, and SipHash dominated its cost.
use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::sync::Arc;

/// A record with a place in its source: a log line, and a JSON path when it was imported from
/// a document.
pub trait Located {
    /// The line (0 when the source is one document) and the JSON path, if any.
    fn location(&self) -> (u64, Option<&Name>);
}

macro_rules! located {
    ($($t:ty),*) => {$(
        impl Located for $t {
            fn location(&self) -> (u64, Option<&Name>) {
                (self.line, self.json_path.as_ref())
            }
        }
    )*};
}
located!(Turn, Call, ToolResult, Claim, Answer);

impl Located for Context {
    fn location(&self) -> (u64, Option<&Name>) {
        (self.line, None)
    }
}

/// A place for people: `LINE`, `PATH` or `LINE:PATH`; `0` when neither is known.
pub fn location(line: u64, json_path: Option<&str>) -> String {
    match (line, json_path) {
        (0, Some(p)) => p.to_owned(),
        (l, Some(p)) => format!("{l}:{p}"),
        (l, None) => l.to_string(),
    }
}

/// The list in a block of its length: its items are moved to a new list when it has spare
/// room. `shrink_to_fit` may leave the block as it is (mimalloc keeps a block in place when
/// it would shrink by less than half), and a loaded session keeps its small lists.
pub(crate) fn exact<T>(v: Vec<T>) -> Vec<T> {
    if v.capacity() == v.len() {
        return v;
    }
    let mut out = Vec::with_capacity(v.len());
    out.extend(v);
    out
}

/// The list without spare room: moved to a block of its length ([`exact`]) while it takes up
/// to 1 MiB, shrunk in place (`shrink_to_fit`) above that. A small block's spare room is
/// resident beside its neighbours (10,000 sessions of 10 calls kept their calls and results
/// in blocks of 16 records: 30 MB more); a large block's spare room is whole pages, which
/// the system backs only once written, and moving it would hold the list twice for a moment.
pub(crate) fn fit<T>(v: &mut Vec<T>) {
    if v.capacity().saturating_mul(std::mem::size_of::<T>()) <= 1 << 20 {
        *v = exact(std::mem::take(v));
    } else {
        v.shrink_to_fit();
    }
}

/// A turn of the conversation.
#[derive(Clone, Debug)]
pub struct Turn {
    /// Turn index (1-based, unique).
    pub index: u32,
    /// The user's message (shared by the turns that ask the same).
    pub user: Name,
    /// When it started.
    pub started_at: Option<Timestamp>,
    /// When it ended.
    pub ended_at: Option<Timestamp>,
    /// Line in the log.
    pub line: u64,
    /// JSON path of the record in an imported document (`$.output[3]`), when it came from one.
    pub json_path: Option<Name>,
}

/// A recorded `tools/call` request.
#[derive(Clone, Debug)]
pub struct Call {
    /// Session-unique call id.
    pub id: Name,
    /// Turn.
    pub turn: u32,
    /// Server name.
    pub server: Name,
    /// Issue time.
    pub issued_at: Timestamp,
    /// Fan-out group.
    pub fanout: Option<Name>,
    /// The request as sent.
    pub request: CallRequest,
    /// Line in the log.
    pub line: u64,
    /// JSON path of the record in an imported document (`$.output[3]`), when it came from one.
    pub json_path: Option<Name>,
    /// The session of the agent this call ran (a sub-agent or hand-off), when the log links one
    /// (boxed: most calls have none, and a session holds every call).
    pub sub_session: Option<Box<SubSession>>,
}

/// A link from a call to the session of the agent it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubSession {
    /// The sub-session's id (for Claude Code, `agent-<agentId>`).
    pub id: String,
    /// The file that holds it, when it was found next to this log.
    pub path: Option<String>,
}

/// How a session was read from a file that is not a provscope session log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportInfo {
    /// The importer's name (`claude-code`, `anthropic-messages`, `otlp-json`, ...).
    pub format: &'static str,
    /// What the source lacked and how it was filled in, one sentence each. Most are the same
    /// sentence for every session of a format: borrowed, not a copy per session.
    pub notes: Vec<Cow<'static, str>>,
}

impl Call {
    /// The tool name.
    pub fn tool(&self) -> &str {
        &self.request.params.name
    }
}

/// A recorded tool result with its ingestion tag.
#[derive(Clone, Debug)]
pub struct ToolResult {
    /// Turn.
    pub turn: u32,
    /// Ingestion tag.
    pub tag: IngestTag,
    /// The response as received.
    pub response: CallResponse,
    /// Line in the log.
    pub line: u64,
    /// JSON path of the record in an imported document (`$.output[3]`), when it came from one.
    pub json_path: Option<Name>,
}

impl ToolResult {
    /// The call id this result answers.
    pub fn call_id(&self) -> &str {
        &self.tag.call_id
    }

    /// The citable text of content block `block`, if the block exists and has text.
    pub fn block_text(&self, block: u64) -> Option<&str> {
        let r = self.response.result.as_ref()?;
        r.content.get(usize::try_from(block).ok()?)?.citable_text()
    }

    /// Number of content blocks.
    pub fn block_count(&self) -> usize {
        self.response.result.as_ref().map_or(0, |r| r.content.len())
    }

    /// Every citable text of the result, with its block index.
    pub fn texts(&self) -> impl Iterator<Item = (usize, &str)> {
        self.response
            .result
            .iter()
            .flat_map(|r| r.content.iter().enumerate())
            .filter_map(|(i, b)| b.citable_text().map(|t| (i, t)))
    }

    /// The instant the data was really fetched: the original fetch for cache hits.
    pub fn effective_fetched_at(&self) -> Timestamp {
        if self.tag.cache.hit {
            self.tag
                .cache
                .original_fetched_at
                .unwrap_or(self.tag.fetched_at)
        } else {
            self.tag.fetched_at
        }
    }

    /// True for protocol errors and `isError` results.
    pub fn is_error(&self) -> bool {
        self.response.error.is_some()
            || self.response.result.as_ref().and_then(|r| r.is_error) == Some(true)
    }
}

/// What was in context when a turn's answer was generated.
#[derive(Clone, Debug)]
pub struct Context {
    /// Turn.
    pub turn: u32,
    /// Entries in context order.
    pub results: Vec<ContextEntry>,
    /// Line in the log.
    pub line: u64,
}

/// A claim of an answer, with its stamp.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The stamp as recorded.
    pub stamp: Stamp,
    /// The turn of the answer.
    pub turn: u32,
    /// Position in the answer's claim list.
    pub position: usize,
    /// Line of the answer in the log.
    pub line: u64,
    /// JSON path of the record in an imported document (`$.output[3]`), when it came from one.
    pub json_path: Option<Name>,
}

impl Claim {
    /// The claim id.
    pub fn id(&self) -> &str {
        &self.stamp.claim_id
    }
}

/// A turn's answer.
#[derive(Clone, Debug)]
pub struct Answer {
    /// Turn.
    pub turn: u32,
    /// Generation time.
    pub generated_at: Timestamp,
    /// Answer text (shared by the answers that say the same).
    pub text: Name,
    /// Its claims.
    pub claims: Vec<Claim>,
    /// Line in the log.
    pub line: u64,
    /// JSON path of the record in an imported document (`$.output[3]`), when it came from one.
    pub json_path: Option<Name>,
}

/// What an `envelope` event carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EnvelopeForm {
    /// A DSSE execution envelope (`envelope`).
    #[default]
    Dsse,
    /// An ArkForge Trust Layer receipt (`receipt`).
    ArkforgeReceipt,
}

/// An execution envelope (or receipt), raw, for the call it attests.
#[derive(Clone, Debug)]
pub struct EnvelopeRecord {
    /// The attested call.
    pub call_id: Name,
    /// The DSSE envelope JSON, or the receipt JSON (see `form`).
    pub raw: Box<RawValue>,
    /// Line in the log.
    pub line: u64,
    /// Which of the two `raw` is.
    pub form: EnvelopeForm,
}

/// A fact-axis label.
#[derive(Clone, Debug)]
pub struct Label {
    /// Claim id.
    pub claim_id: Name,
    /// Turn, or every turn.
    pub turn: Option<u32>,
    /// Right or wrong.
    pub fact: Fact,
    /// Who or what labelled it.
    pub source: Option<Name>,
    /// Line in the log.
    pub line: u64,
}

/// Records by their id: positions in a table hashed by the id each record holds, so an id is
/// not stored a second time as a key (4 bytes a record instead of a copy of its id).
#[derive(Default)]
pub struct IdIndex {
    table: hashbrown::HashTable<u32>,
    /// Whether an id was given to more than one record, or a record could not be indexed:
    /// then only the table says which record an id names.
    inexact: bool,
    /// The position the last [`IdIndex::get_near`] found. The checks look ids up in log
    /// order, so the next one is usually a few records on: in a long session the table is
    /// larger than the caches, and each of its lookups missed them.
    last: std::sync::atomic::AtomicU32,
}

impl Clone for IdIndex {
    fn clone(&self) -> Self {
        IdIndex {
            table: self.table.clone(),
            inexact: self.inexact,
            last: std::sync::atomic::AtomicU32::new(
                self.last.load(std::sync::atomic::Ordering::Relaxed),
            ),
        }
    }
}

impl std::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IdIndex({} ids)", self.table.len())
    }
}

fn hash_id(id: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(id)
}

/// How many records after the last one found [`IdIndex::get_near`] compares before it looks
/// in the table.
const NEAR: usize = 4;

impl IdIndex {
    /// The position of the record with id `id`; `id_at` gives the id of the record at a
    /// position.
    pub fn get<'a>(&self, id: &str, id_at: impl Fn(usize) -> &'a str) -> Option<usize> {
        self.table
            .find(hash_id(id), |&p| id_at(p as usize) == id)
            .map(|&p| p as usize)
    }

    /// [`IdIndex::get`] for records `0..len`, every one of them indexed: the few records
    /// after the last one found are compared first. When every record has its own id, the
    /// record with this id is the one the table holds, so a match there is the answer (a
    /// constant number of comparisons); otherwise, or when none matches, the table is asked.
    pub fn get_near<'a>(
        &self,
        id: &str,
        len: usize,
        id_at: impl Fn(usize) -> &'a str,
    ) -> Option<usize> {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.inexact && self.table.len() == len {
            let from = self.last.load(Relaxed) as usize;
            for p in from..len.min(from + NEAR) {
                crate::probe::steps(1);
                if id_at(p) == id {
                    if p != from {
                        self.last.store(p as u32, Relaxed);
                    }
                    return Some(p);
                }
            }
        }
        let p = self.get(id, id_at)?;
        // `p` fits: the table holds u32 positions.
        self.last.store(p as u32, Relaxed);
        Some(p)
    }

    /// Indexes the record at position `at` under `id`, unless a record has that id already
    /// (the first is kept); whether it was indexed. `id_at` must cover `at`.
    pub fn insert_first<'a>(
        &mut self,
        id: &str,
        at: usize,
        id_at: impl Fn(usize) -> &'a str,
    ) -> bool {
        let h = hash_id(id);
        if self.table.find(h, |&p| id_at(p as usize) == id).is_some() {
            self.inexact = true;
            return false;
        }
        let Ok(at) = u32::try_from(at) else {
            self.inexact = true;
            return false;
        };
        self.table
            .insert_unique(h, at, |&p| hash_id(id_at(p as usize)));
        true
    }

    /// Indexes the record at position `at` under `id`, replacing a record with that id (the
    /// last is kept). `id_at` must cover `at`.
    pub fn insert_last<'a>(&mut self, id: &str, at: usize, id_at: impl Fn(usize) -> &'a str) {
        let Ok(at) = u32::try_from(at) else {
            self.inexact = true;
            return;
        };
        let h = hash_id(id);
        match self.table.find_mut(h, |&p| id_at(p as usize) == id) {
            Some(p) => {
                self.inexact = true;
                *p = at;
            }
            None => {
                self.table
                    .insert_unique(h, at, |&p| hash_id(id_at(p as usize)));
            }
        }
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether no id is indexed.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// Turn number -> position, for the turns of one session. Turn numbers are almost always dense
/// (1, 2, 3, ...): those are held in a list indexed by the number, so that the checks, which go
/// through a session turn by turn, read neighbouring slots instead of a hash table's scattered
/// ones (in a session of 500,000 turns the table outgrew the caches and each lookup missed).
/// A number far beyond the ones seen so far (more than twice as many slots as turns, plus
/// 1,024) goes to a hash map instead, so a stray `turn: 4000000000` costs one entry, not 16 GB.
#[derive(Clone, Debug, Default)]
pub struct TurnIndex {
    /// Position + 1 by turn number; 0: none.
    dense: Vec<u32>,
    /// Turns outside `dense` (or positions that do not fit it).
    sparse: HashMap<u32, usize>,
    len: usize,
}

impl TurnIndex {
    /// The position of a turn.
    pub fn get(&self, turn: u32) -> Option<usize> {
        match self.dense.get(turn as usize) {
            Some(&p) if p != 0 => Some(p as usize - 1),
            _ if self.sparse.is_empty() => None,
            _ => self.sparse.get(&turn).copied(),
        }
    }

    /// Whether a turn has a position.
    pub fn contains(&self, turn: u32) -> bool {
        self.get(turn).is_some()
    }

    /// Sets a turn's position (replacing any earlier one).
    pub fn insert(&mut self, turn: u32, at: usize) {
        let t = turn as usize;
        let slot = u32::try_from(at).ok().and_then(|a| a.checked_add(1));
        if let Some(slot) = slot {
            if t >= self.dense.len() && t <= 2 * self.len + 1024 {
                self.dense.resize(t + 1, 0);
            }
            if let Some(d) = self.dense.get_mut(t) {
                let was = std::mem::replace(d, slot);
                let replaced = was != 0 || self.sparse.remove(&turn).is_some();
                if !replaced {
                    self.len += 1;
                }
                return;
            }
        }
        // A number beyond the list, or a position past u32::MAX - 1.
        if let Some(d) = self.dense.get_mut(t) {
            if std::mem::take(d) != 0 {
                self.len -= 1;
            }
        }
        if self.sparse.insert(turn, at).is_none() {
            self.len += 1;
        }
    }

    /// Sets a turn's position unless it has one; whether it had none (a set of turns, as
    /// `HashSet::insert`).
    pub fn insert_new(&mut self, turn: u32, at: usize) -> bool {
        if self.contains(turn) {
            return false;
        }
        self.insert(turn, at);
        true
    }

    /// Number of turns indexed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no turn is indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Drops spare capacity (the list grows by doubling while a session loads).
    pub fn shrink_to_fit(&mut self) {
        self.dense = exact(std::mem::take(&mut self.dense));
        self.sparse.shrink_to_fit();
    }
}

impl FromIterator<(u32, usize)> for TurnIndex {
    fn from_iter<I: IntoIterator<Item = (u32, usize)>>(it: I) -> Self {
        let mut t = TurnIndex::default();
        for (turn, at) in it {
            t.insert(turn, at);
        }
        t.shrink_to_fit();
        t
    }
}

/// Records grouped by turn, in log order within each turn: one list of positions ordered by
/// turn, and each turn's range of it (instead of a list per turn).
#[derive(Clone, Debug, Default)]
pub struct TurnGroups {
    order: Vec<u32>,
    /// turn -> index into `ranges`.
    turns: TurnIndex,
    /// (start, length) in `order`, one per turn in the order turns are first seen.
    ranges: Vec<(u32, u32)>,
}

impl TurnGroups {
    /// Groups records by their turns, given in position order (linear: each turn's records are
    /// counted, then placed).
    pub fn build(turns: impl Iterator<Item = u32> + Clone) -> Self {
        let mut index = TurnIndex::default();
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        let mut n = 0usize;
        for t in turns.clone() {
            match index.get(t) {
                Some(k) => ranges[k].1 += 1,
                None => {
                    index.insert(t, ranges.len());
                    ranges.push((0, 1));
                }
            }
            n += 1;
        }
        // Each turn's start; its length counts up again as its positions are placed.
        let mut start = 0u32;
        for r in &mut ranges {
            let len = r.1;
            *r = (start, 0);
            start = start.saturating_add(len);
        }
        let mut order = vec![0u32; n];
        for (p, t) in turns.enumerate() {
            if let (Some(r), Ok(p)) = (
                index.get(t).and_then(|k| ranges.get_mut(k)),
                u32::try_from(p),
            ) {
                if let Some(slot) = order.get_mut(r.0.saturating_add(r.1) as usize) {
                    *slot = p;
                }
                r.1 += 1;
            }
        }
        index.shrink_to_fit();
        TurnGroups {
            order,
            turns: index,
            ranges: exact(ranges),
        }
    }

    /// The positions of a turn's records, in log order.
    pub fn get(&self, turn: u32) -> &[u32] {
        self.turns
            .get(turn)
            .and_then(|k| self.ranges.get(k))
            .and_then(|&(s, l)| self.order.get(s as usize..s.saturating_add(l) as usize))
            .unwrap_or_default()
    }
}

/// Lookups built once at load time.
#[derive(Clone, Debug, Default)]
pub struct SessionIndex {
    /// call id -> index into `calls`.
    pub call: IdIndex,
    /// call id -> index into `results` (the first result of each call).
    pub result: IdIndex,
    /// call id -> indexes into `envelopes`.
    pub envelope: HashMap<Name, Vec<usize>>,
    /// turn -> index into `answers`.
    pub answer: TurnIndex,
    /// turn -> index into `contexts`.
    pub context: TurnIndex,
    /// turn -> index into `turns`.
    pub turn: TurnIndex,
    /// server name -> index into the header's `servers`.
    pub server: HashMap<String, usize>,
    /// turn -> indexes into `calls`, in log order.
    pub calls_by_turn: TurnGroups,
    /// turn -> indexes into `results`, in log order.
    pub results_by_turn: TurnGroups,
    /// claim id -> the labels that can apply to it (see [`Session::label_for`]).
    pub label: HashMap<Name, ClaimLabels>,
    /// The turn labels of every claim id, one list: (turn, index into `labels`), grouped by
    /// claim id (each [`ClaimLabels`] names its range), sorted by turn, the first of each turn.
    pub label_turns: Vec<(u32, u32)>,
    /// Per context (same order as `contexts`): positions of its entries sorted by call id,
    /// equal ids in context order, for lookups by call id in O(log n).
    pub context_entries: Vec<Box<[u32]>>,
}

/// The labels of one claim id, indexes into `labels` (16 bytes: a long session labels many
/// claim ids, most of them in one turn).
#[derive(Clone, Copy, Debug, Default)]
pub struct ClaimLabels {
    /// The last session-wide label (no turn).
    pub general: Option<u32>,
    /// Where its turn labels start in [`SessionIndex::label_turns`].
    pub start: u32,
    /// How many turn labels it has there.
    pub len: u32,
}

impl SessionIndex {
    /// Builds the lookups over labels and contexts (the loader and the importers call this once
    /// the session is complete).
    pub fn index_labels_and_contexts(&mut self, labels: &[Label], contexts: &[Context]) {
        // The turn lists are complete by now (they grew by doubling while the session loaded).
        self.turn.shrink_to_fit();
        self.answer.shrink_to_fit();
        self.context.shrink_to_fit();
        self.label.clear();
        // (claim id's group, turn, label), for the turn labels; `start` holds the group while
        // the list is built. A label past u32::MAX positions cannot be indexed and is skipped.
        let mut turns: Vec<(u32, u32, u32)> = Vec::new();
        let mut groups = 0u32;
        for (i, l) in labels.iter().enumerate() {
            let Ok(i) = u32::try_from(i) else { break };
            let e = self.label.entry(l.claim_id.clone()).or_insert_with(|| {
                groups = groups.saturating_add(1);
                ClaimLabels {
                    general: None,
                    start: groups - 1,
                    len: 0,
                }
            });
            match l.turn {
                None => e.general = Some(i),
                Some(t) => turns.push((e.start, t, i)),
            }
        }
        // The first label of a turn stays first (labels ascend within a turn), and dedup keeps it.
        turns.sort_unstable();
        turns.dedup_by_key(|&mut (g, t, _)| (g, t));
        // Each group's range in the list.
        let mut ranges: Vec<(u32, u32)> = vec![(0, 0); groups as usize];
        for (k, &(g, _, _)) in turns.iter().enumerate() {
            if let (Some(r), Ok(k)) = (ranges.get_mut(g as usize), u32::try_from(k)) {
                if r.1 == 0 {
                    r.0 = k;
                }
                r.1 += 1;
            }
        }
        for e in self.label.values_mut() {
            let (start, len) = ranges.get(e.start as usize).copied().unwrap_or_default();
            e.start = start;
            e.len = len;
        }
        let mut label_turns = Vec::with_capacity(turns.len());
        label_turns.extend(turns.into_iter().map(|(_, t, i)| (t, i)));
        self.label_turns = label_turns;
        self.context_entries = contexts
            .iter()
            .map(|c| {
                let mut pos: Vec<u32> = (0..c.results.len())
                    .filter_map(|i| u32::try_from(i).ok())
                    .collect();
                pos.sort_by(|&a, &b| {
                    c.results[a as usize]
                        .call_id
                        .cmp(&c.results[b as usize].call_id)
                });
                pos.into_boxed_slice()
            })
            .collect();
    }
}

/// A loaded session.
#[derive(Clone, Debug, Default)]
pub struct Session {
    /// Display name (file stem).
    pub name: String,
    /// The file it came from.
    pub source: Arc<str>,
    /// Bytes read.
    pub bytes: u64,
    /// Lowercase hex SHA-256 of the input, when the loader was asked for it.
    pub content_hash: Option<String>,
    /// The header, if a valid one was found.
    pub header: Option<SessionHeader>,
    /// Turns in turn order.
    pub turns: Vec<Turn>,
    /// Calls in log order.
    pub calls: Vec<Call>,
    /// Results in log order.
    pub results: Vec<ToolResult>,
    /// Contexts in log order.
    pub contexts: Vec<Context>,
    /// Answers in turn order.
    pub answers: Vec<Answer>,
    /// Envelopes in log order.
    pub envelopes: Vec<EnvelopeRecord>,
    /// Labels in log order.
    pub labels: Vec<Label>,
    /// Every problem found while loading.
    pub diagnostics: Vec<Diagnostic>,
    /// Lookups.
    pub index: SessionIndex,
    /// Which importer read the file; `None` for a provscope session log.
    pub import: Option<ImportInfo>,
}

impl Session {
    /// The name of the format the session was read from: `provscope` or an importer's name.
    pub fn format(&self) -> &'static str {
        self.import.as_ref().map_or("provscope", |i| i.format)
    }

    /// The session id from the header, or the file name.
    pub fn id(&self) -> &str {
        self.header.as_ref().map_or(&self.name, |h| &h.session_id)
    }

    /// The call with this id.
    pub fn call(&self, id: &str) -> Option<&Call> {
        crate::probe::steps(1);
        self.call_position(id).map(|i| &self.calls[i])
    }

    /// The position in `calls` of the call with this id.
    pub fn call_position(&self, id: &str) -> Option<usize> {
        self.index
            .call
            .get_near(id, self.calls.len(), |i| self.calls[i].id.as_str())
    }

    /// The result of the call with this id.
    pub fn result(&self, call_id: &str) -> Option<&ToolResult> {
        crate::probe::steps(1);
        self.result_position(call_id).map(|i| &self.results[i])
    }

    /// The position in `results` of the (first) result of the call with this id.
    pub fn result_position(&self, call_id: &str) -> Option<usize> {
        self.index
            .result
            .get_near(call_id, self.results.len(), |i| self.results[i].call_id())
    }

    /// The envelopes attesting this call.
    pub fn envelopes_for(&self, call_id: &str) -> impl Iterator<Item = &EnvelopeRecord> {
        crate::probe::steps(1);
        self.index
            .envelope
            .get(call_id)
            .into_iter()
            .flatten()
            .map(|&i| &self.envelopes[i])
    }

    /// The calls of a turn, in log order.
    pub fn calls_in_turn(&self, turn: u32) -> impl Iterator<Item = &Call> {
        self.index
            .calls_by_turn
            .get(turn)
            .iter()
            .map(|&i| &self.calls[i as usize])
            .inspect(|_| crate::probe::steps(1))
    }

    /// The results of a turn, in log order.
    pub fn results_in_turn(&self, turn: u32) -> impl Iterator<Item = &ToolResult> {
        self.index
            .results_by_turn
            .get(turn)
            .iter()
            .map(|&i| &self.results[i as usize])
            .inspect(|_| crate::probe::steps(1))
    }

    /// The answer of a turn.
    pub fn answer(&self, turn: u32) -> Option<&Answer> {
        crate::probe::steps(1);
        self.index.answer.get(turn).map(|i| &self.answers[i])
    }

    /// The context recorded for a turn's answer.
    pub fn context(&self, turn: u32) -> Option<&Context> {
        crate::probe::steps(1);
        self.index.context.get(turn).map(|i| &self.contexts[i])
    }

    /// Whether `call_id` was in context when the turn's answer was generated; `None` when no
    /// context was recorded for the turn.
    pub fn in_context(&self, turn: u32, call_id: &str) -> Option<bool> {
        let i = self.index.context.get(turn)?;
        Some(self.context_entry_at(i, call_id).is_some())
    }

    /// The first entry for `call_id` in the context recorded for a turn's answer; `None` when
    /// no context was recorded for the turn or the call was not in it.
    pub fn context_entry(&self, turn: u32, call_id: &str) -> Option<&ContextEntry> {
        let i = self.index.context.get(turn)?;
        self.context_entry_at(i, call_id)
    }

    /// The first entry for `call_id` in context `i`: a binary search over its sorted positions.
    fn context_entry_at(&self, i: usize, call_id: &str) -> Option<&ContextEntry> {
        crate::probe::steps(1);
        let ctx = self.contexts.get(i)?;
        let sorted = self.index.context_entries.get(i)?;
        let id = |p: u32| {
            ctx.results
                .get(p as usize)
                .map_or("", |e| e.call_id.as_str())
        };
        let k = sorted.partition_point(|&p| {
            crate::probe::steps(1);
            id(p) < call_id
        });
        let p = *sorted.get(k)?;
        (id(p) == call_id).then(|| &ctx.results[p as usize])
    }

    /// The turn with this index.
    pub fn turn(&self, index: u32) -> Option<&Turn> {
        crate::probe::steps(1);
        self.index.turn.get(index).map(|i| &self.turns[i])
    }

    /// Every claim, in turn order.
    pub fn claims(&self) -> impl Iterator<Item = &Claim> {
        self.answers
            .iter()
            .flat_map(|a| a.claims.iter())
            .inspect(|_| crate::probe::steps(1))
    }

    /// Number of claims.
    pub fn claim_count(&self) -> usize {
        self.answers.iter().map(|a| a.claims.len()).sum()
    }

    /// Every statement of a claim id across turns, in turn order: a scan of the claims (one
    /// command asks this once; a table of every claim id cost each loaded session a list per
    /// claim).
    pub fn claim_history<'a>(&'a self, claim_id: &'a str) -> impl Iterator<Item = &'a Claim> {
        self.claims().filter(move |c| c.id() == claim_id)
    }

    /// The header's description of a server.
    pub fn server(&self, name: &str) -> Option<&ServerInfo> {
        crate::probe::steps(1);
        let h = self.header.as_ref()?;
        self.index.server.get(name).map(|&i| &h.servers[i])
    }

    /// The server's tier as declared in the header (`Unknown` when undeclared).
    pub fn declared_tier(&self, name: &str) -> Tier {
        self.server(name).map_or(Tier::Unknown, |s| s.tier)
    }

    /// How span offsets are counted.
    pub fn span_unit(&self) -> SpanUnit {
        self.header.as_ref().map_or(SpanUnit::Char, |h| h.span_unit)
    }

    /// Labels that apply to a claim stated at `turn`: turn-specific labels win over session-wide ones.
    /// The first label for that turn, else the last session-wide one; O(log n) in the claim's
    /// labels through the index.
    pub fn label_for(&self, claim_id: &str, turn: u32) -> Option<&Label> {
        crate::probe::steps(1);
        let e = self.index.label.get(claim_id)?;
        let by_turn = self
            .index
            .label_turns
            .get(e.start as usize..e.start.saturating_add(e.len) as usize)
            .unwrap_or_default();
        let k = by_turn.partition_point(|&(t, _)| {
            crate::probe::steps(1);
            t < turn
        });
        let i = match by_turn.get(k) {
            Some(&(t, i)) if t == turn => i,
            _ => e.general?,
        };
        self.labels.get(i as usize)
    }

    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.level == super::DiagLevel::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session holds one of each per call, result, turn or answer: a change of size is a
    /// change of the explorer's memory per call (issue 18).
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn records_a_session_holds_keep_their_size() {
        use std::mem::size_of;
        assert_eq!(size_of::<ToolResult>(), 240);
        assert_eq!(size_of::<Call>(), 200);
        assert_eq!(size_of::<Turn>(), 80);
        assert_eq!(size_of::<Answer>(), 80);
    }

    #[test]
    fn turn_groups_keep_log_order_within_each_turn() {
        let g = TurnGroups::build([1u32, 2, 1, 3, 2, 1].into_iter());
        assert_eq!(g.get(1), [0, 2, 5]);
        assert_eq!(g.get(2), [1, 4]);
        assert_eq!(g.get(3), [3]);
        assert!(g.get(9).is_empty());
        assert!(TurnGroups::build(std::iter::empty()).get(1).is_empty());
    }

    #[test]
    fn id_index_finds_by_the_ids_records_hold() {
        let ids = ["a", "b", "a", "c"];
        let at = |i: usize| ids[i];
        let (mut first, mut last) = (IdIndex::default(), IdIndex::default());
        for (i, id) in ids.iter().enumerate() {
            first.insert_first(id, i, at);
            last.insert_last(id, i, at);
        }
        assert_eq!((first.get("a", at), last.get("a", at)), (Some(0), Some(2)));
        assert_eq!((first.get("c", at), first.get("zz", at)), (Some(3), None));
        assert_eq!((first.len(), last.len()), (3, 3));
        assert!(!first.insert_first("b", 1, at));
    }

    #[test]
    fn id_index_near_lookups_agree_with_the_table() {
        // Unique ids: the records after the last one found are compared first.
        let ids: Vec<String> = (0..50).map(|i| format!("call-{i}")).collect();
        let at = |i: usize| ids[i].as_str();
        let mut idx = IdIndex::default();
        for (i, id) in ids.iter().enumerate() {
            assert!(idx.insert_first(id, i, at));
        }
        for probe in [0, 1, 2, 7, 3, 49, 48, 0, 25, 26, 30, 29] {
            assert_eq!(idx.get_near(&ids[probe], ids.len(), at), Some(probe));
        }
        assert_eq!(idx.get_near("call-50", ids.len(), at), None);
        // A repeated id: the first record keeps it, also when a later one is nearer.
        let ids = ["a", "b", "c", "b", "d"];
        let at = |i: usize| ids[i];
        let mut first = IdIndex::default();
        let mut last = IdIndex::default();
        for (i, id) in ids.iter().enumerate() {
            first.insert_first(id, i, at);
            last.insert_last(id, i, at);
        }
        assert_eq!(first.get_near("c", ids.len(), at), Some(2));
        assert_eq!(first.get_near("b", ids.len(), at), Some(1));
        assert_eq!(last.get_near("a", ids.len(), at), Some(0));
        assert_eq!(last.get_near("b", ids.len(), at), Some(3));
        assert_eq!(last.get_near("b", ids.len(), at), Some(3));
        // Records the table does not hold are never found by comparison.
        let mut partial = IdIndex::default();
        partial.insert_first("a", 0, |_| "a");
        assert_eq!(partial.get_near("b", 2, |i| ["a", "b"][i]), None);
    }

    #[test]
    fn turn_index_holds_dense_sparse_and_replaced_turns() {
        let mut t = TurnIndex::default();
        assert!(t.is_empty() && t.get(0).is_none());
        for turn in 1..=100u32 {
            t.insert(turn, turn as usize * 10);
        }
        // Far beyond the turns seen: a map entry, not four billion slots.
        t.insert(4_000_000_000, 7);
        t.insert(u32::MAX, 8);
        assert!(t.dense.len() <= 2 * 1024);
        assert_eq!(
            (t.get(1), t.get(100), t.get(0), t.get(101)),
            (Some(10), Some(1000), None, None)
        );
        assert_eq!((t.get(4_000_000_000), t.get(u32::MAX)), (Some(7), Some(8)));
        assert_eq!(t.len(), 102);
        // Replacing keeps the count; a sparse turn the list grows over moves into it.
        t.insert(50, 1);
        t.insert(4_000_000_000, 9);
        assert_eq!(
            (t.get(50), t.get(4_000_000_000), t.len()),
            (Some(1), Some(9), 102)
        );
        let mut u = TurnIndex::default();
        u.insert(3000, 1);
        for turn in 0..2000 {
            u.insert(turn, 2);
        }
        assert_eq!(u.get(3000), Some(1));
        u.insert(3000, 3);
        assert_eq!((u.get(3000), u.len()), (Some(3), 2001));
        assert!(u.sparse.is_empty());
        // A position past u32::MAX - 1 is kept too.
        u.insert(5, usize::MAX);
        assert_eq!((u.get(5), u.len()), (Some(usize::MAX), 2001));
        u.insert(5, 4);
        assert_eq!((u.get(5), u.len()), (Some(4), 2001));
        assert!(u.insert_new(2500, 0) && !u.insert_new(2500, 1) && !u.insert_new(5, 1));
        assert_eq!(u.get(2500), Some(0));
        u.shrink_to_fit();
        let v: TurnIndex = [(2u32, 0usize), (1, 1), (2, 2)].into_iter().collect();
        assert_eq!((v.get(2), v.get(1), v.len()), (Some(2), Some(1), 2));
    }

    fn label(claim: &str, turn: Option<u32>, fact: Fact, line: u64) -> Label {
        Label {
            claim_id: claim.into(),
            turn,
            fact,
            source: None,
            line,
        }
    }

    #[test]
    fn label_for_prefers_the_first_label_of_the_turn_then_the_last_session_wide_one() {
        let mut s = Session {
            labels: vec![
                label("a", None, Fact::Right, 1),
                label("a", Some(3), Fact::Wrong, 2),
                label("b", Some(3), Fact::Right, 3),
                label("a", Some(3), Fact::Right, 4),
                label("a", None, Fact::Wrong, 5),
                label("a", Some(1), Fact::Right, 6),
            ],
            ..Session::default()
        };
        s.index.index_labels_and_contexts(&s.labels, &s.contexts);
        let line = |c: &str, t: u32| s.label_for(c, t).map(|l| l.line);
        assert_eq!(line("a", 3), Some(2));
        assert_eq!(line("a", 1), Some(6));
        assert_eq!(line("a", 2), Some(5));
        assert_eq!(line("b", 3), Some(3));
        assert_eq!(line("b", 2), None);
        assert_eq!(line("c", 3), None);
    }

    #[test]
    fn each_claim_id_finds_its_own_turn_labels_among_many() {
        // Claim ids labelled in interleaved order: each keeps its own range of the one list.
        let mut labels = Vec::new();
        for t in (1..=50u32).rev() {
            for c in ["x", "y", "z"] {
                if t % 3 != 0 || c != "y" {
                    labels.push(label(c, Some(t), Fact::Right, u64::from(t) * 10));
                }
            }
        }
        labels.push(label("y", None, Fact::Wrong, 999));
        let mut s = Session {
            labels,
            ..Session::default()
        };
        s.index.index_labels_and_contexts(&s.labels, &s.contexts);
        assert_eq!(s.index.label_turns.len(), 50 + 34 + 50);
        for t in 1..=50u32 {
            let line = |c: &str| s.label_for(c, t).map(|l| l.line);
            assert_eq!(line("x"), Some(u64::from(t) * 10));
            assert_eq!(line("z"), Some(u64::from(t) * 10));
            let y = if t % 3 == 0 { 999 } else { u64::from(t) * 10 };
            assert_eq!(line("y"), Some(y), "turn {t}");
        }
        assert!(s.label_for("x", 51).is_none());
    }

    #[test]
    fn context_lookups_find_the_first_entry_of_a_call() {
        let entry = |id: &str, marker: Option<&str>| ContextEntry {
            call_id: id.into(),
            marker: marker.map(Name::from),
        };
        let mut s = Session {
            contexts: vec![Context {
                turn: 2,
                results: vec![
                    entry("c9", Some("[1]")),
                    entry("c1", None),
                    entry("c5", Some("[2]")),
                    entry("c1", Some("[3]")),
                ],
                line: 7,
            }],
            ..Session::default()
        };
        s.index.context.insert(2, 0);
        s.index.index_labels_and_contexts(&s.labels, &s.contexts);
        assert_eq!(s.in_context(2, "c5"), Some(true));
        assert_eq!(s.in_context(2, "c2"), Some(false));
        assert_eq!(s.in_context(1, "c5"), None);
        assert_eq!(
            s.context_entry(2, "c1").map(|e| e.marker.is_none()),
            Some(true)
        );
        assert_eq!(
            s.context_entry(2, "c9").and_then(|e| e.marker.as_deref()),
            Some("[1]")
        );
        assert!(s.context_entry(2, "c0").is_none());
    }
}
