//! Building a `model::Session` from what an importer read: calls, results, answers, claims.
//!
//! Importers say what the source holds; the builder fills in what a session needs the same way
//! for every format, and says so in the session's import notes: tags come from the recorded call
//! (server, tool, arguments hash) and result (times), stamps' origins from the call they cite,
//! missing times from the nearest recorded time, missing TTLs from the configuration.

use crate::model::mcp::{CallParams, ResultRare, RpcError};
use crate::model::{
    Answer, Call, CallRequest, CallResponse, CallToolResult, CitationInfo, Claim, ContentBlock,
    DiagLevel, Diagnostic, ImportInfo, IngestTag, Name, Names, Origin, Provenance, Render, RpcId,
    ServerInfo, Session, SessionHeader, Span, SpanUnit, Stamp, SubSession, Timestamp, ToolResult,
    Turn, FORMAT_VERSION,
};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

/// Where a record is in its source: a line (0 in a one-document file) and a JSON path.
#[derive(Clone, Debug, Default)]
pub struct Loc {
    /// 1-based line; 0 when the source is one document.
    pub line: u64,
    /// JSON path (`$.output[3]`), when the importer knows it.
    pub path: Option<Name>,
}

impl Loc {
    /// A place given by its JSON path (`output[3]`, `.output[3]` or `$.output[3]`), on `line`.
    pub fn path(line: u64, path: &str) -> Self {
        Loc {
            line,
            path: Some(json_path(path)),
        }
    }
}

impl From<u64> for Loc {
    fn from(line: u64) -> Self {
        Loc { line, path: None }
    }
}

/// What a JSON path needs before it to be in its `$` form.
fn json_path_prefix(path: &str) -> &'static str {
    if path.starts_with('$') {
        ""
    } else if path.starts_with('.') || path.starts_with('[') || path.is_empty() {
        "$"
    } else {
        "$."
    }
}

/// A JSON path in its `$` form: `output[3]` and `.output[3]` become `$.output[3]`.
pub fn json_path(path: &str) -> Name {
    let prefix = json_path_prefix(path);
    // Joined on the stack, so the shared text is the one allocation (not a `String` first).
    let mut buf = [0u8; 192];
    let n = prefix.len() + path.len();
    if let Some(dst) = buf.get_mut(..n) {
        dst[..prefix.len()].copy_from_slice(prefix.as_bytes());
        dst[prefix.len()..].copy_from_slice(path.as_bytes());
        if let Ok(t) = std::str::from_utf8(dst) {
            return Name::from(t);
        }
    }
    Name::from(format!("{prefix}{path}"))
}

/// `{parent}.{key}[{i}]` written into `buf` (cleared first): the path of an element of a list
/// an importer walks, made in one reused buffer instead of a `format!` of its own.
pub fn elem_path<'b>(buf: &'b mut String, parent: &str, key: &str, i: usize) -> &'b str {
    buf.clear();
    buf.push_str(parent);
    buf.push('.');
    buf.push_str(key);
    buf.push('[');
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = i;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits.
    buf.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
    buf.push(']');
    buf
}

/// A tool call as an importer found it.
#[derive(Debug, Default)]
pub struct NewCall {
    /// Session-unique call id.
    pub id: String,
    /// The server (an MCP server name, or `claude-code`, `anthropic`, ... for built-in tools).
    pub server: String,
    /// The tool name.
    pub tool: String,
    /// The arguments as JSON; `None` when the source did not record them.
    pub arguments: Option<Box<RawValue>>,
    /// The JSON-RPC id, when the source has the real request (default: the call id).
    pub rpc_id: Option<RpcId>,
    /// When it was issued.
    pub at: Option<Timestamp>,
    /// Line in the source (0 when the source is one document).
    pub line: u64,
    /// JSON path of the call in its document, when known.
    pub json_path: Option<Name>,
    /// The agent session this call ran, if any.
    pub sub_session: Option<SubSession>,
}

/// A tool result as an importer found it.
#[derive(Debug, Default)]
pub struct NewResult {
    /// The call it answers.
    pub call_id: String,
    /// Content blocks.
    pub content: Vec<ContentBlock>,
    /// `structuredContent`, raw.
    pub structured: Option<Box<RawValue>>,
    /// The tool reported an error.
    pub is_error: bool,
    /// A protocol error instead of a result.
    pub error: Option<RpcError>,
    /// When it arrived.
    pub at: Option<Timestamp>,
    /// Line in the source.
    pub line: u64,
    /// JSON path of the result in its document, when known.
    pub json_path: Option<Name>,
    /// The JSON-RPC id of the response, when the source has the real one.
    pub rpc_id: Option<RpcId>,
}

/// A claim made from an API citation.
#[derive(Debug, Default)]
pub struct NewClaim {
    /// The answer text the citation covers: a range of the piece [`Builder::answer_piece_at`]
    /// returned (no copy of its own), or made through [`Builder::name`] (so the session holds it
    /// as it is, not copied again when it is built).
    pub text: Name,
    /// The call whose result it cites; `None` when the cited source is not in the file (a
    /// `Name`: the claims that cite one call share its id).
    pub call_id: Option<Name>,
    /// The cited span, in characters of the result block's citable text.
    pub span: Option<Span>,
    /// The citation as the API gave it.
    pub citation: CitationInfo,
    /// The citation marker as rendered in the answer, if the API marks where it is (a range of
    /// its piece, or made through [`Builder::name`]).
    pub marker: Option<Name>,
    /// JSON path of the citation in its document, when known.
    pub json_path: Option<Name>,
}

struct PendingCall {
    call: NewCall,
    turn: u32,
}

struct PendingResult {
    result: NewResult,
    turn: u32,
}

/// An answer's text as its pieces arrive. Most answers are one piece: that piece is made the
/// session's copy at once ([`Names::get`]), not copied into a buffer and then again into the
/// session; a second piece turns it into a buffer.
#[derive(Default)]
enum AnswerText {
    #[default]
    Empty,
    One(Name),
    /// The text of several pieces, and the pieces an importer asked for as names (with their
    /// byte offsets in the text), whose ranges [`Builder::finish`] moves into the whole text.
    Many {
        all: String,
        pieces: Vec<(Name, usize)>,
    },
}

impl AnswerText {
    /// Appends `text`, joined with `sep` when the answer already has text; the piece as a name
    /// when `named` (or when it starts the answer, which costs nothing more).
    fn push(&mut self, text: &str, sep: &str, names: &mut Names, named: bool) -> Option<Name> {
        if text.is_empty() {
            return None;
        }
        let name = |names: &mut Names| named.then(|| names.get(text));
        match self {
            AnswerText::Empty => {
                let n = names.get(text);
                *self = AnswerText::One(n.clone());
                Some(n)
            }
            AnswerText::One(first) => {
                let mut all = String::with_capacity(first.len() + sep.len() + text.len());
                all.push_str(first);
                all.push_str(sep);
                let at = all.len();
                all.push_str(text);
                let mut pieces = vec![(first.clone(), 0)];
                let n = name(names);
                pieces.extend(n.clone().map(|n| (n, at)));
                *self = AnswerText::Many { all, pieces };
                n
            }
            AnswerText::Many { all, pieces } => {
                all.push_str(sep);
                let at = all.len();
                all.push_str(text);
                let n = name(names);
                pieces.extend(n.clone().map(|n| (n, at)));
                n
            }
        }
    }

    /// The whole text, as the session's copy, and the named pieces in it.
    fn into_name(self, names: &mut Names) -> (Name, Vec<(Name, usize)>) {
        match self {
            AnswerText::Empty => (names.get(""), Vec::new()),
            AnswerText::One(n) => (n, Vec::new()),
            AnswerText::Many { all, pieces } => (names.get(&all), pieces),
        }
    }
}

/// The ids of an answer's claims, written one after another into `ids` (cleared first) with
/// the range of each in `ranges`, so that one copy holds them all: [`claim_id_with`] of the
/// claim's text, `.2`, `.3`... after it when an earlier claim of the answer has that id.
fn claim_ids(
    claims: &[NewClaim],
    norm: &mut String,
    ids: &mut String,
    ranges: &mut Vec<std::ops::Range<usize>>,
    seen: &mut HashMap<[u8; 14], u32>,
) {
    let bases = claims.iter().map(|c| claim_id_with(&c.text, norm));
    number_claim_ids(bases, claims.len(), ids, ranges, seen);
}

/// [`claim_ids`] of the claims' base ids (`len` of them). Up to [`FEW`] claims, each id is
/// looked for among the answer's ids so far; past that, in `seen` (how many claims of the
/// answer had each base id so far): a base id (`clm_` and hex digits) has no `.`, so `base.n`
/// can only have been given to an earlier claim of the same base, and those were numbered
/// 2, 3, ... in turn: the first free number is that count plus one. An answer of thousands
/// of claims (a long conversation read as one turn) is numbered in linear time, not in a scan
/// of every earlier id per claim (and per number tried).
fn number_claim_ids(
    bases: impl Iterator<Item = ClaimIdText>,
    len: usize,
    ids: &mut String,
    ranges: &mut Vec<std::ops::Range<usize>>,
    seen: &mut HashMap<[u8; 14], u32>,
) {
    use std::fmt::Write as _;
    ids.clear();
    ranges.clear();
    if len > FEW {
        seen.clear();
        for base in bases {
            let n = seen.entry(base.0).or_insert(0);
            *n += 1;
            let start = ids.len();
            ids.push_str(base.as_str());
            if *n > 1 {
                let _ = write!(ids, ".{n}");
            }
            ranges.push(start..ids.len());
        }
        return;
    }
    for base in bases {
        let base = base.as_str();
        let taken = |ids: &str, id: &str| ranges.iter().any(|r| ids.get(r.clone()) == Some(id));
        let start = ids.len();
        if taken(ids, base) {
            let mut n = 2;
            let mut id = format!("{base}.{n}");
            while taken(ids, &id) {
                n += 1;
                id = format!("{base}.{n}");
            }
            ids.push_str(&id);
        } else {
            ids.push_str(base);
        }
        ranges.push(start..ids.len());
    }
}

/// `n` as the same range of `whole` when it is a range of one of `whole`'s `pieces` (a piece
/// and its offset in `whole`): the piece's copy is then no longer held.
fn rebase(n: &mut Name, whole: &Name, pieces: &Pieces) {
    for &i in pieces.sharing_copy_with(n) {
        let (p, at) = &pieces.pieces[i];
        if let Some(i) = n.offset_in(p) {
            if let Some(r) = whole.slice(at + i..at + i + n.len()) {
                *n = r;
            }
            return;
        }
    }
}

/// An answer's named pieces, and (past [`FEW`] of them) the places of the pieces of each copy
/// ([`Name::copy_addr`]): a claim is a range of a piece only when it shares that piece's copy,
/// so it is looked for among those pieces, not among all of an answer of thousands.
struct Pieces<'a> {
    pieces: &'a [(Name, usize)],
    /// Every place in `pieces`, in order (the pieces tried when there is no index).
    all: Vec<usize>,
    by_copy: HashMap<usize, Vec<usize>>,
}

impl<'a> Pieces<'a> {
    fn new(pieces: &'a [(Name, usize)]) -> Self {
        let mut by_copy: HashMap<usize, Vec<usize>> = HashMap::default();
        let all = if pieces.len() > FEW {
            for (i, (p, _)) in pieces.iter().enumerate() {
                by_copy.entry(p.copy_addr()).or_default().push(i);
            }
            Vec::new()
        } else {
            (0..pieces.len()).collect()
        };
        Pieces {
            pieces,
            all,
            by_copy,
        }
    }

    /// The places of the pieces `n` may be a range of, in order.
    fn sharing_copy_with(&self, n: &Name) -> &[usize] {
        if self.by_copy.is_empty() {
            &self.all
        } else {
            self.by_copy.get(&n.copy_addr()).map_or(&[], Vec::as_slice)
        }
    }
}

#[derive(Default)]
struct PendingAnswer {
    text: AnswerText,
    at: Option<Timestamp>,
    loc: Loc,
    claims: Vec<NewClaim>,
    /// The JSON paths given to [`Builder::claim_at`], in one text for the answer.
    paths: String,
    /// Each such claim's position in `claims` and its path's range in `paths`.
    path_ranges: Vec<(usize, std::ops::Range<usize>)>,
}

/// Up to this many calls (or results), an id is looked up in the list itself: most API
/// files record a few calls, and a set of their ids cost a table and a copy of each id.
const FEW: usize = 16;

/// The ids of a growing list of calls or results: looked up in the list itself while it holds
/// fewer than [`FEW`], in a set made (once) when it reaches that many.
#[derive(Default)]
struct Ids(HashSet<String>);

impl Ids {
    /// True when `id` is among `listed`, the ids of the list's `len` records.
    fn contains<'a>(
        &self,
        id: &str,
        len: usize,
        mut listed: impl Iterator<Item = &'a str>,
    ) -> bool {
        if len < FEW {
            listed.any(|l| l == id)
        } else {
            self.0.contains(id)
        }
    }

    /// Notes `id`, about to be pushed after `listed`, the ids of the list's `len` records.
    fn add<'a>(&mut self, id: &str, len: usize, listed: impl Iterator<Item = &'a str>) {
        match len + 1 {
            FEW => {
                let ids = listed.map(str::to_owned).chain([id.to_owned()]);
                self.0.extend(ids);
            }
            n if n > FEW => {
                self.0.insert(id.to_owned());
            }
            _ => {}
        }
    }
}

/// Collects what an importer reads and turns it into a session.
pub struct Builder {
    session: Session,
    session_id: Option<String>,
    agent: Option<String>,
    model: Option<String>,
    title: Option<String>,
    started_at: Option<Timestamp>,
    servers: Vec<String>,
    turns: Vec<(u32, String, Option<Timestamp>, Loc)>,
    turn: u32,
    calls: Vec<PendingCall>,
    /// The ids of `calls`.
    call_ids: Ids,
    results: Vec<PendingResult>,
    /// The call ids of `results`.
    result_ids: Ids,
    answers: Vec<(u32, PendingAnswer)>,
    notes: Vec<Cow<'static, str>>,
    /// The session's table of names: what `finish` makes its records' names through, and
    /// what an importer makes the names it hands over through ([`Builder::name`]).
    names: Names,
}

impl Builder {
    /// A builder for a session read by importer `format` from `source`.
    pub fn new(format: &'static str, name: String, source: Arc<str>) -> Self {
        Builder {
            session: Session {
                name,
                source,
                import: Some(ImportInfo {
                    format,
                    notes: Vec::new(),
                }),
                ..Session::default()
            },
            session_id: None,
            agent: None,
            model: None,
            title: None,
            started_at: None,
            servers: Vec::new(),
            turns: Vec::new(),
            turn: 0,
            calls: Vec::new(),
            call_ids: Ids::default(),
            results: Vec::new(),
            result_ids: Ids::default(),
            answers: Vec::new(),
            notes: Vec::new(),
            // Room for the names of a response (its claims' ids, texts and URLs) at once.
            names: Names::with_capacity(24, 24),
        }
    }

    /// Names an importer gives many records (its built-in servers and tools), as static texts
    /// ([`name_literal!`](crate::name_literal)): the records made of those texts hold copies
    /// of these, which cost no atomic count to copy or drop ([`Names::seed`]).
    pub fn known_names(&mut self, names: &[&Name]) {
        for n in names {
            self.names.seed(n);
        }
    }

    /// The session's shared copy of `text` (a name a record of the built session will hold).
    pub fn name(&mut self, text: &str) -> Name {
        self.names.get(text)
    }

    /// Sets the session id (default: the file name).
    pub fn session_id(&mut self, id: &str) {
        if self.session_id.is_none() && !id.trim().is_empty() {
            self.session_id = Some(id.to_owned());
        }
    }

    /// The session id set so far, if any.
    pub fn session_id_so_far(&self) -> Option<String> {
        self.session_id.clone()
    }

    /// A builder for another session of the same source, read by the same importer (a
    /// sub-agent's session cut out of a trace), named `name`.
    pub fn sibling(&self, name: String) -> Builder {
        let format = self.session.import.as_ref().map_or("", |i| i.format);
        Builder::new(format, name, self.session.source.clone())
    }

    /// The session's name (its id when none is set).
    pub fn session_name(&self) -> &str {
        &self.session.name
    }

    /// The agent set so far, if any.
    pub fn agent_so_far(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// Links a recorded call to the session of the agent it ran.
    pub fn link_sub_session(&mut self, call_id: &str, sub: SubSession) {
        if let Some(c) = self.calls.iter_mut().rev().find(|c| c.call.id == call_id) {
            c.call.sub_session = Some(sub);
        }
    }

    /// Sets the agent (first value wins).
    pub fn agent(&mut self, agent: &str) {
        if self.agent.is_none() && !agent.is_empty() {
            self.agent = Some(agent.to_owned());
        }
    }

    /// Sets the model (first value wins).
    pub fn model(&mut self, model: &str) {
        if self.model.is_none() && !model.is_empty() {
            self.model = Some(model.to_owned());
        }
    }

    /// Sets the title shown in listings (first value wins).
    pub fn title(&mut self, title: &str) {
        if self.title.is_none() && !title.trim().is_empty() {
            self.title = Some(title.to_owned());
        }
    }

    /// Records a time seen in the source (the session starts at the earliest).
    pub fn saw_time(&mut self, t: Timestamp) {
        self.started_at = Some(self.started_at.map_or(t, |s| s.min(t)));
    }

    /// Adds a note about what the source lacked (a sentence written in the importer is kept
    /// borrowed: every session of a file format would otherwise hold its own copy).
    pub fn note(&mut self, note: impl Into<Cow<'static, str>>) {
        let n = note.into();
        if !self.notes.contains(&n) {
            self.notes.push(n);
        }
    }

    /// Adds a diagnostic; a non-empty path is written as a JSON path (`$.output[3].id`).
    pub fn diag(&mut self, line: u64, column: u64, path: &str, level: DiagLevel, message: String) {
        self.session.diagnostics.push(Diagnostic {
            file: self.session.source.clone(),
            line,
            column,
            path: if path.is_empty() {
                String::new()
            } else {
                json_path(path).to_string()
            },
            level,
            message,
        });
    }

    /// The number of diagnostics so far.
    pub fn diag_count(&self) -> usize {
        self.session.diagnostics.len()
    }

    /// Starts a new turn with the user's message; returns its index.
    pub fn turn(&mut self, user: &str, at: Option<Timestamp>, loc: impl Into<Loc>) -> u32 {
        if let Some(t) = at {
            self.saw_time(t);
        }
        self.turn += 1;
        self.turns
            .push((self.turn, user.to_owned(), at, loc.into()));
        self.turn
    }

    /// The current turn, starting one with no user message when none was started.
    pub fn current_turn(&mut self, at: Option<Timestamp>, loc: impl Into<Loc>) -> u32 {
        if self.turn == 0 {
            self.note("the source has no user message before the first call or answer: turn 1 has an empty user message");
            self.turn(String::new().as_str(), at, loc);
        }
        self.turn
    }

    /// True when a call with this id was recorded.
    pub fn has_call(&self, id: &str) -> bool {
        let listed = self.calls.iter().map(|c| c.call.id.as_str());
        self.call_ids.contains(id, self.calls.len(), listed)
    }

    /// Records a call in the current turn. A second call with the same id is skipped with an error.
    pub fn call(&mut self, c: NewCall) -> bool {
        if let Some(t) = c.at {
            self.saw_time(t);
        }
        let turn = self.current_turn(
            c.at,
            Loc {
                line: c.line,
                path: c.json_path.clone(),
            },
        );
        if self.has_call(&c.id) {
            self.diag(
                c.line,
                0,
                "",
                DiagLevel::Error,
                format!(
                    "duplicate call id `{}`; this call is skipped (the first one is kept)",
                    c.id
                ),
            );
            return false;
        }
        if !self.servers.contains(&c.server) {
            self.servers.push(c.server.clone());
        }
        let listed = self.calls.iter().map(|p| p.call.id.as_str());
        self.call_ids.add(&c.id, self.calls.len(), listed);
        self.calls.push(PendingCall { call: c, turn });
        true
    }

    /// Records a result in the current turn.
    pub fn result(&mut self, r: NewResult) {
        if let Some(t) = r.at {
            self.saw_time(t);
        }
        let turn = self.current_turn(
            r.at,
            Loc {
                line: r.line,
                path: r.json_path.clone(),
            },
        );
        let listed = self.results.iter().map(|p| p.result.call_id.as_str());
        self.result_ids.add(&r.call_id, self.results.len(), listed);
        self.results.push(PendingResult { result: r, turn });
    }

    /// The citable text of block `block` of the result of `call_id`.
    pub fn result_block_text(&self, call_id: &str, block: usize) -> Option<&str> {
        self.results
            .iter()
            .find(|r| r.result.call_id == call_id)?
            .result
            .content
            .get(block)?
            .citable_text()
    }

    /// The call id of the most recent result whose content passes `pred`.
    pub fn find_result(&self, pred: impl Fn(&[ContentBlock]) -> bool) -> Option<Name> {
        self.results
            .iter()
            .rev()
            .find(|r| pred(&r.result.content))
            .map(|r| Name::from(r.result.call_id.as_str()))
    }

    /// True when a result for this call was recorded.
    pub fn has_result(&self, call_id: &str) -> bool {
        let listed = self.results.iter().map(|r| r.result.call_id.as_str());
        self.result_ids
            .contains(call_id, self.results.len(), listed)
    }

    /// The current turn's answer, started (at `loc`, made only then) when it has none.
    fn answer_mut(
        &mut self,
        at: Option<Timestamp>,
        loc: impl FnOnce() -> Loc,
    ) -> &mut PendingAnswer {
        // No turn yet: the answer starts turn 1 (and no answer has a turn 0).
        let new = self.turn == 0 || self.answers.last().is_none_or(|(t, _)| *t != self.turn);
        if new {
            let loc = loc();
            let turn = self.current_turn(at, loc.clone());
            self.answers.push((
                turn,
                PendingAnswer {
                    loc,
                    ..PendingAnswer::default()
                },
            ));
        }
        let last = self.answers.len() - 1;
        &mut self.answers[last].1
    }

    /// Appends answer text to the current turn (pieces are joined with `sep` when the answer
    /// already has text).
    pub fn answer_text(
        &mut self,
        text: &str,
        sep: &str,
        at: Option<Timestamp>,
        loc: impl Into<Loc>,
    ) {
        self.answer_piece(text, sep, at, || loc.into(), false);
    }

    /// [`Builder::answer_text`] of a piece at JSON path `path` of a one-document file: the path
    /// is made only when the piece starts the answer (an answer keeps the place of its first
    /// piece, and a response may hold many).
    pub fn answer_text_at(&mut self, text: &str, sep: &str, at: Option<Timestamp>, path: &str) {
        self.answer_piece(text, sep, at, || Loc::path(0, path), false);
    }

    /// [`Builder::answer_text_at`] that returns the piece as a name (empty for an empty piece):
    /// claims made of its ranges ([`Name::slice`], [`Name::slice_of`]) become ranges of the
    /// whole answer when it is built, with no copy of their own.
    pub fn answer_piece_at(
        &mut self,
        text: &str,
        sep: &str,
        at: Option<Timestamp>,
        path: &str,
    ) -> Name {
        self.answer_piece(text, sep, at, || Loc::path(0, path), true)
            .unwrap_or_default()
    }

    /// [`Builder::answer_piece_at`] at a place of a line file (its line and JSON path).
    pub fn answer_piece_in(
        &mut self,
        text: &str,
        sep: &str,
        at: Option<Timestamp>,
        loc: Loc,
    ) -> Name {
        self.answer_piece(text, sep, at, || loc, true)
            .unwrap_or_default()
    }

    fn answer_piece(
        &mut self,
        text: &str,
        sep: &str,
        at: Option<Timestamp>,
        loc: impl FnOnce() -> Loc,
        named: bool,
    ) -> Option<Name> {
        if let Some(t) = at {
            self.saw_time(t);
        }
        self.answer_mut(at, loc);
        let (_, a) = self.answers.last_mut()?;
        let n = a.text.push(text, sep, &mut self.names, named);
        if at.is_some() {
            a.at = at;
        }
        n
    }

    /// Adds a claim to the current turn's answer (`loc` places the answer if it has no text yet).
    pub fn claim(&mut self, c: NewClaim, at: Option<Timestamp>, loc: impl Into<Loc>) {
        self.answer_mut(at, || loc.into()).claims.push(c);
    }

    /// [`Builder::claim`] of a citation at JSON path `path` of a one-document file (it is the
    /// claim's path, and the answer's if the answer has no text yet): the paths of an answer's
    /// claims are held in one text, each claim's a range of it.
    pub fn claim_at(&mut self, c: NewClaim, at: Option<Timestamp>, path: &str) {
        let a = self.answer_mut(at, || Loc::path(0, path));
        let start = a.paths.len();
        a.paths.push_str(json_path_prefix(path));
        a.paths.push_str(path);
        a.path_ranges.push((a.claims.len(), start..a.paths.len()));
        a.claims.push(c);
    }

    /// Builds the session.
    pub fn finish(mut self) -> Session {
        let fill = TimeFill::new(
            self.calls
                .iter()
                .map(|c| c.call.at)
                .chain(self.results.iter().map(|r| r.result.at))
                .chain(self.answers.iter().map(|(_, a)| a.at))
                .chain(self.turns.iter().map(|t| t.2)),
        );
        let mut filled = 0usize;
        let mut time = |t: Option<Timestamp>, prev: &mut Option<Timestamp>| match t {
            Some(t) => {
                *prev = Some(t);
                t
            }
            None => {
                filled += 1;
                prev.unwrap_or(fill.first)
            }
        };
        let s = &mut self.session;
        // Every name of the records made here is made through one table, so each distinct
        // text is allocated once (not once per record and then interned).
        let mut names = std::mem::take(&mut self.names);
        // Room for the names made below (a few per record), so the table is not grown and
        // rehashed (each text hashed again) as it fills.
        let n_claims: usize = self.answers.iter().map(|(_, a)| a.claims.len()).sum();
        names.reserve(
            self.turns.len()
                + 3 * self.calls.len()
                + 2 * self.results.len()
                + 3 * n_claims
                + self.answers.len()
                + 4,
        );
        // Each list sized exactly: a first `push` reserves four records, and doubling leaves up
        // to half unused (a response of three calls would hold room for four).
        s.turns.reserve_exact(self.turns.len());
        s.calls.reserve_exact(self.calls.len());
        s.results.reserve_exact(self.results.len());
        s.answers.reserve_exact(self.answers.len());
        let header_time = self.started_at.unwrap_or(fill.first);
        s.header = Some(SessionHeader {
            version: FORMAT_VERSION,
            session_id: self.session_id.clone().unwrap_or_else(|| s.name.clone()),
            agent: self.agent.take(),
            model: self.model.take(),
            started_at: header_time,
            // Moved: the builder has no further use of the names.
            servers: std::mem::take(&mut self.servers)
                .into_iter()
                .map(|name| ServerInfo {
                    name,
                    tier: crate::model::Tier::Unknown,
                    attestor_keys: Vec::new(),
                    server_keys: Vec::new(),
                })
                .collect(),
            render_policy: None,
            span_unit: SpanUnit::Char,
            require_envelopes: false,
            receipt_keys: Vec::new(),
            title: self.title.take(),
        });
        let mut prev = None;
        for (index, user, at, loc) in self.turns.drain(..) {
            let started_at = at.or(prev);
            if at.is_some() {
                prev = at;
            }
            s.turns.push(Turn {
                index,
                user: names.get(&user),
                started_at,
                ended_at: None,
                line: loc.line,
                json_path: loc.path,
            });
        }
        // `jsonrpc` and `method`, the same in every record: the shared copies of all sessions,
        // held by this table (not a copy made per session).
        let jsonrpc = names.shared(&JSONRPC);
        let tools_call = names.shared(&TOOLS_CALL);
        // Calls and their request.
        let mut prev = None;
        let mut no_args = 0usize;
        // Per call id: when it was issued, its server, tool and arguments hash, its request id.
        let mut call_time: HashMap<Name, (Timestamp, Name, Name, Name, RpcId)> =
            HashMap::with_capacity_and_hasher(self.calls.len(), Default::default());
        // The canonical JSON of each call's arguments, written into one buffer for all.
        let mut canonical = Vec::new();
        for PendingCall { call: c, turn } in self.calls.drain(..) {
            let issued_at = time(c.at, &mut prev);
            let hash = match &c.arguments {
                Some(a) => crate::attest::hash::arguments_hash_with(Some(a), &mut canonical).ok(),
                None => {
                    no_args += 1;
                    None
                }
            };
            let hash = hash.as_ref().map_or("", crate::attest::hash::Hex::as_str);
            let (server, tool) = (names.get(&c.server), names.get(&c.tool));
            // Call ids are unique in a session: the records that repeat one share this copy
            // through `call_time` (no table lookup).
            let id = Name::from(c.id);
            let rpc_id = match c.rpc_id {
                Some(RpcId::Str(n)) => RpcId::Str(names.get(&n)),
                Some(RpcId::Num(n)) => RpcId::Num(names.get(&n)),
                None => RpcId::Str(id.clone()),
            };
            call_time.insert(
                id.clone(),
                (
                    issued_at,
                    server.clone(),
                    tool.clone(),
                    names.get(hash),
                    rpc_id.clone(),
                ),
            );
            s.calls.push(Call {
                id,
                turn,
                server,
                issued_at,
                fanout: None,
                request: CallRequest {
                    jsonrpc: Some(jsonrpc.clone()),
                    id: rpc_id,
                    method: tools_call.clone(),
                    params: CallParams {
                        name: tool,
                        arguments: c.arguments.map(|a| {
                            let mut a = Arc::from(a);
                            names.arguments(&mut a);
                            a
                        }),
                        meta: None,
                    },
                },
                line: c.line,
                json_path: c.json_path,
                sub_session: c.sub_session.map(Box::new),
            });
        }
        if no_args > 0 {
            let msg = format!(
                "{no_args} call{} without recorded arguments (content capture off?): no arguments hash, so stamps citing {} cannot be matched on arguments",
                if no_args == 1 { "" } else { "s" },
                if no_args == 1 { "it" } else { "them" }
            );
            s.diagnostics.push(Diagnostic {
                file: s.source.clone(),
                line: 0,
                column: 0,
                path: String::new(),
                level: DiagLevel::Warning,
                message: msg,
            });
        }
        // Results with their tag.
        let mut prev = None;
        let mut fetched: HashMap<String, Timestamp> =
            HashMap::with_capacity_and_hasher(self.results.len(), Default::default());
        for PendingResult { result: r, turn } in self.results.drain(..) {
            let at = time(r.at, &mut prev);
            let call = call_time.get_key_value(r.call_id.as_str());
            let (call_id, server, tool, hash) = match call {
                Some((id, (_, server, tool, hash, _))) => {
                    (id.clone(), server.clone(), tool.clone(), hash.clone())
                }
                None => {
                    let none = names.get("");
                    (names.get(&r.call_id), none.clone(), none.clone(), none)
                }
            };
            let id = match r.rpc_id {
                Some(RpcId::Str(n)) => RpcId::Str(names.get(&n)),
                Some(RpcId::Num(n)) => RpcId::Num(names.get(&n)),
                None => call
                    .map(|(_, c)| c.4.clone())
                    .unwrap_or_else(|| RpcId::Str(call_id.clone())),
            };
            fetched.insert(r.call_id, at);
            let mut content = r.content;
            content.shrink_to_fit();
            for b in &mut content {
                names.block(b);
            }
            let result = match r.error {
                Some(_) => None,
                None => Some(CallToolResult {
                    content,
                    is_error: r.is_error.then_some(true),
                    rare: r.structured.map(|structured| {
                        Box::new(ResultRare {
                            structured: Some(structured),
                            ..ResultRare::default()
                        })
                    }),
                }),
            };
            s.results.push(ToolResult {
                turn,
                tag: IngestTag {
                    call_id,
                    server,
                    tool,
                    arguments_hash: hash,
                    fetched_at: at,
                    ttl_seconds: None,
                    cache: Default::default(),
                    returned_at: at,
                },
                response: CallResponse {
                    jsonrpc: Some(jsonrpc.clone()),
                    id,
                    result,
                    error: r.error.map(Box::new),
                },
                line: r.line,
                json_path: r.json_path,
            });
        }
        if !s.results.is_empty() {
            self.notes.push(
                "the source records no TTLs: results are judged with default_ttl_seconds from the configuration".into(),
            );
        }
        // Answers and derived stamps.
        let mut prev = None;
        // The normalized text of each claim, in one buffer for all.
        let mut norm = String::new();
        // An answer's claim ids, and where each is in them.
        let (mut ids, mut id_ranges) = (String::new(), Vec::<std::ops::Range<usize>>::new());
        // How many claims of an answer had each base id so far (answers of many claims).
        let mut seen_ids = HashMap::default();
        for (turn, mut a) in self.answers.drain(..) {
            let generated_at = time(a.at, &mut prev);
            let (text, pieces) = a.text.into_name(&mut names);
            claim_ids(
                &a.claims,
                &mut norm,
                &mut ids,
                &mut id_ranges,
                &mut seen_ids,
            );
            let all_ids = if ids.is_empty() {
                Name::default()
            } else {
                Name::from(ids.as_str())
            };
            if !a.paths.is_empty() {
                let all_paths = Name::from(a.paths.as_str());
                for (k, r) in a.path_ranges {
                    if let Some(c) = a.claims.get_mut(k) {
                        c.json_path = all_paths.slice(r);
                    }
                }
            }
            let pieces = Pieces::new(&pieces);
            let mut claims: Vec<Claim> = Vec::with_capacity(a.claims.len());
            for (mut c, id_range) in a.claims.into_iter().zip(id_ranges.drain(..)) {
                if !pieces.pieces.is_empty() {
                    rebase(&mut c.text, &text, &pieces);
                    if let Some(m) = &mut c.marker {
                        rebase(m, &text, &pieces);
                    }
                    if let Some(u) = &mut c.citation.url {
                        rebase(u, &text, &pieces);
                    }
                }
                // A citation of a source not in the file keeps its id: a dangling origin.
                let origin =
                    c.call_id
                        .as_ref()
                        .map(|id| match call_time.get_key_value(id.as_str()) {
                            Some((call_id, (issued, server, tool, hash, _))) => Origin {
                                tool_call_id: call_id.clone(),
                                server: server.clone(),
                                tool: tool.clone(),
                                arguments_hash: hash.clone(),
                                fetched_at: fetched.get(id.as_str()).copied().unwrap_or(*issued),
                                ttl_seconds: None,
                            },
                            None => Origin {
                                tool_call_id: names.get(id),
                                server: names.get(""),
                                tool: names.get(""),
                                arguments_hash: names.get(""),
                                fetched_at: generated_at,
                                ttl_seconds: None,
                            },
                        });
                let mut citation = c.citation;
                names.intern(&mut citation.kind);
                // A URL that is a range of the answer has no copy of its own to share.
                if let Some(u) = citation
                    .url
                    .as_mut()
                    .filter(|u| u.offset_in(&text).is_none())
                {
                    names.intern(u);
                }
                let claim_id = all_ids.slice(id_range).unwrap_or_default();
                claims.push(Claim {
                    stamp: Stamp {
                        claim_id,
                        // Made through this table by the importer, or a range of the answer.
                        claim_text: c.text,
                        origin,
                        span: c.span,
                        render: Some(Render {
                            marker: c.marker,
                            policy: None,
                        }),
                        provenance: Some(Provenance::Derived),
                        citation: Some(Box::new(citation)),
                    },
                    turn,
                    position: claims.len(),
                    line: a.loc.line,
                    json_path: c.json_path.or_else(|| a.loc.path.clone()),
                });
            }
            s.answers.push(Answer {
                turn,
                generated_at,
                text,
                claims,
                line: a.loc.line,
                json_path: a.loc.path,
            });
        }
        if filled > 0 {
            self.notes.push(if fill.any {
                format!("the source records no time for {filled} event{}: each is dated like the event before it", if filled == 1 { "" } else { "s" }).into()
            } else {
                "the source records no times: every event is dated 1970-01-01T00:00:00Z, so ages and staleness are not meaningful".into()
            });
        }
        if let Some(i) = s.import.as_mut() {
            i.notes = std::mem::take(&mut self.notes);
        }
        // The records made above hold their names from `names`; what else a session may hold.
        s.contexts
            .iter_mut()
            .for_each(|c| names.context(&mut c.results));
        s.labels.iter_mut().for_each(|l| names.label(l));
        s.envelopes
            .iter_mut()
            .for_each(|e| names.intern(&mut e.call_id));
        index(s);
        s.diagnostics.sort_by_key(|d| (d.line, d.column));
        self.session
    }
}

/// The first recorded time, for events that have none.
struct TimeFill {
    first: Timestamp,
    any: bool,
}

impl TimeFill {
    fn new(times: impl Iterator<Item = Option<Timestamp>>) -> Self {
        let first = times.flatten().min();
        TimeFill {
            first: first.unwrap_or(Timestamp(0)),
            any: first.is_some(),
        }
    }
}

/// A claim id derived from the claim text, so the same sentence restated in another turn is the
/// same claim (which is how citation drift is traced).
pub fn claim_id(text: &str) -> String {
    claim_id_with(text, &mut String::new()).as_str().to_owned()
}

/// A claim id: `clm_` and ten hex digits, held without an allocation.
#[derive(Clone, Copy)]
pub struct ClaimIdText([u8; 14]);

impl ClaimIdText {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        // Always ASCII: `clm_` and hex digits.
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

/// [`claim_id`] with the normalized text written into `norm` (cleared first), so a session's
/// claims reuse one buffer instead of allocating one each, and the id returned by value.
pub fn claim_id_with(text: &str, norm: &mut String) -> ClaimIdText {
    use sha2::{Digest, Sha256};
    norm.clear();
    if !normalize_words_fast(text, norm) {
        norm.clear();
        normalize_words(text, norm);
    }
    let h = Sha256::digest(norm.as_bytes());
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = *b"clm_0000000000";
    for (i, b) in h[..5].iter().enumerate() {
        id[4 + 2 * i] = HEX[usize::from(b >> 4)];
        id[5 + 2 * i] = HEX[usize::from(b & 15)];
    }
    ClaimIdText(id)
}

/// The claim text normalized for its id, `text.split_whitespace().collect::<Vec<_>>().join(" ")
/// .to_lowercase()`, the quick way when it can be: words split at ASCII whitespace and copied
/// whole (the whole text at once when it is single-spaced already), ASCII lowercased in place.
/// False, with `norm` to be cleared, when a character outside ASCII is whitespace or has a
/// lowercase of its own (then [`normalize_words`] does it).
fn normalize_words_fast(text: &str, norm: &mut String) -> bool {
    let bytes = text.as_bytes();
    norm.reserve(bytes.len());
    // `\t \n \x0b \x0c \r`: what `split_whitespace` splits at in ASCII, with the space. A
    // fold, not `any`, so the scan is done a vector at a time.
    let controls = bytes
        .iter()
        .fold(false, |any, &b| any | (b.wrapping_sub(0x09) < 5));
    let single_spaced = !controls
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
        && DOUBLE_SPACE.find(bytes).is_none();
    if single_spaced {
        norm.push_str(text);
    } else {
        let gap = |b: u8| b == b' ' || b.wrapping_sub(0x09) < 5;
        let mut i = 0;
        while i < bytes.len() {
            while i < bytes.len() && gap(bytes[i]) {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && !gap(bytes[i]) {
                i += 1;
            }
            if start < i {
                if !norm.is_empty() {
                    norm.push(' ');
                }
                // ASCII gaps: every index here is a character boundary.
                norm.push_str(&text[start..i]);
            }
        }
    }
    norm.make_ascii_lowercase();
    // Characters outside ASCII (most are punctuation: quotes, dashes) must be left as they are.
    let mut rest = norm.as_str();
    while let Some(i) = first_non_ascii(rest.as_bytes()) {
        let Some(c) = rest[i..].chars().next() else {
            break;
        };
        if !kept_as_is(c) {
            return false;
        }
        rest = &rest[i + c.len_utf8()..];
    }
    true
}

/// Where the first byte outside ASCII is, eight bytes at a time (a claim is mostly ASCII, and
/// a byte at a time this scan was half of [`normalize_words_fast`]).
fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let high = u64::from_le_bytes(word) & HIGH;
        if high != 0 {
            // Little-endian: the lowest set bit is the first byte's.
            return Some(at + (high.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter().position(|b| !b.is_ascii()).map(|i| at + i)
}

/// The searcher for two spaces, made once (not for each claim).
static DOUBLE_SPACE: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(b"  "));

/// Whether normalization leaves a character outside ASCII as it is: not whitespace, and its
/// own lowercase.
fn kept_as_is(c: char) -> bool {
    let u = u32::from(c);
    if (0x2000..=0x206f).contains(&u) {
        // General Punctuation has no letters; its whitespace is 2000-200A, 2028, 2029, 202F
        // and 205F.
        return !(u <= 0x200a || matches!(u, 0x2028 | 0x2029 | 0x202f | 0x205f));
    }
    let mut lower = c.to_lowercase();
    !c.is_whitespace() && lower.next() == Some(c) && lower.next().is_none()
}

/// [`normalize_words_fast`] for any text.
fn normalize_words(text: &str, norm: &mut String) {
    // `str::to_lowercase` lowercases each character on its own but for the Greek capital
    // sigma (final or not): without one, a single pass into one buffer gives the same bytes.
    if !text.contains('\u{3a3}') {
        // One pass: runs of ASCII letters are copied whole and lowercased in place, other
        // characters are looked at one by one (`char::is_whitespace` is what `split_whitespace`
        // splits at; a gap becomes one space between words).
        let gap = |b: u8| matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ');
        let bytes = text.as_bytes();
        norm.reserve(bytes.len());
        let mut space = false;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii() && gap(b) {
                space = !norm.is_empty();
                i += 1;
                continue;
            }
            if b.is_ascii() {
                if std::mem::take(&mut space) {
                    norm.push(' ');
                }
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii() && !gap(bytes[i]) {
                    i += 1;
                }
                // Copied whole, then lowercased in place (not pushed a character at a time).
                let from = norm.len();
                norm.push_str(&text[start..i]);
                norm[from..].make_ascii_lowercase();
            } else {
                // `i` is a character boundary: every step above moves by whole characters.
                let Some(c) = text[i..].chars().next() else {
                    break;
                };
                i += c.len_utf8();
                if c.is_whitespace() {
                    space = !norm.is_empty();
                } else {
                    if std::mem::take(&mut space) {
                        norm.push(' ');
                    }
                    norm.extend(c.to_lowercase());
                }
            }
        }
    } else {
        let joined: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        norm.push_str(&joined.to_lowercase());
    }
}

/// Fills the session's lookups, as the native loader does.
fn index(s: &mut Session) {
    s.turns.sort_by_key(|t| t.index);
    s.answers.sort_by_key(|a| a.turn);
    let idx = &mut s.index;
    for (i, t) in s.turns.iter().enumerate() {
        idx.turn.insert(t.index, i);
    }
    // Calls: the last of an id wins; results: the first.
    for (i, c) in s.calls.iter().enumerate() {
        idx.call.insert_last(&c.id, i, |j| s.calls[j].id.as_str());
    }
    idx.calls_by_turn = crate::model::TurnGroups::build(s.calls.iter().map(|c| c.turn));
    for (i, r) in s.results.iter().enumerate() {
        idx.result
            .insert_first(r.call_id(), i, |j| s.results[j].call_id());
    }
    idx.results_by_turn = crate::model::TurnGroups::build(s.results.iter().map(|r| r.turn));
    for (i, a) in s.answers.iter().enumerate() {
        idx.answer.insert(a.turn, i);
    }
    if let Some(h) = &s.header {
        for (i, sv) in h.servers.iter().enumerate() {
            idx.server.insert(sv.name.clone(), i);
        }
    }
    idx.index_labels_and_contexts(&s.labels, &s.contexts);
}

/// The `jsonrpc` of every recorded call and result, a static text (each session's table then
/// shares it).
static JSONRPC: Name = crate::name_literal!("2.0");
/// The `method` of every recorded call, a static text.
static TOOLS_CALL: Name = crate::name_literal!("tools/call");
/// The type of a text block, a static text (each session's table then shares it).
static TEXT: Name = crate::name_literal!("text");
/// The type of a link block, a static text.
static RESOURCE_LINK: Name = crate::name_literal!("resource_link");

/// A text content block.
pub fn text_block(text: String) -> ContentBlock {
    ContentBlock {
        kind: TEXT.clone(),
        text: Some(text.into()),
        ..ContentBlock::default()
    }
}

/// `text` as a raw JSON string, as `serde_json::value::to_raw_value` writes it, in one
/// allocation of its exact size when it needs no escape (a URL, a title): `to_raw_value` writes
/// into a 128-byte buffer and then shrinks it.
pub fn raw_string(text: &str) -> Option<Box<RawValue>> {
    // No quote or backslash (found with `memchr`); a control character fails the check of
    // `RawValue::from_string`, and the string is then escaped by `to_raw_value`.
    if memchr::memchr2(b'"', b'\\', text.as_bytes()).is_none() {
        let mut json = String::with_capacity(text.len() + 2);
        json.push('"');
        json.push_str(text);
        json.push('"');
        if let Ok(r) = RawValue::from_string(json) {
            return Some(r);
        }
    }
    serde_json::value::to_raw_value(text).ok()
}

/// The `uri` key of every link block of every session, a static text (not a copy per block).
static URI: Name = crate::name_literal!("uri");

/// A `resource_link` content block for a URL given as a raw JSON string as written in the
/// source (copied as it is: the source's parse checked it).
pub fn link_block_raw(url: &RawValue) -> ContentBlock {
    ContentBlock {
        kind: RESOURCE_LINK.clone(),
        extra: vec![(URI.clone(), url.to_owned())],
        ..ContentBlock::default()
    }
}

/// A `resource_link` content block for a URL (no citable text: a citation of it has no span).
pub fn link_block(url: &str, title: Option<&str>) -> ContentBlock {
    // The key of a title, a static text shared by every link of every session.
    static NAME: Name = crate::name_literal!("name");
    // Sized exactly: a session may hold thousands of links, and a first `push` reserves four.
    let mut extra = Vec::with_capacity(1 + usize::from(title.is_some()));
    if let Some(v) = raw_string(url) {
        extra.push((URI.clone(), v));
    }
    if let Some(v) = title.and_then(raw_string) {
        extra.push((NAME.clone(), v));
    }
    ContentBlock {
        kind: RESOURCE_LINK.clone(),
        extra,
        ..ContentBlock::default()
    }
}

/// The `uri` of a `resource_link` block, if it is one.
pub fn block_uri(b: &ContentBlock) -> Option<String> {
    let raw = b.extra_field("uri")?;
    serde_json::from_str::<String>(raw.get()).ok()
}

/// Whether the `uri` of block `b` is `url` ([`block_uri`] equal to it), compared in place when
/// the URI is written without escapes (an answer's citations look a URL up in every block).
pub fn block_uri_is(b: &ContentBlock, url: &str) -> bool {
    let Some(raw) = b.extra_field("uri") else {
        return false;
    };
    let text = raw.get();
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => inner == url,
        _ => serde_json::from_str::<String>(text).is_ok_and(|u| u == url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_ids_of_ascii_and_other_text_normalize_alike() {
        use sha2::{Digest, Sha256};
        let slow = |t: &str| {
            let norm: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
            let h = Sha256::digest(norm.to_lowercase().as_bytes());
            format!("clm_{}", hex::encode(&h[..5]))
        };
        for t in [
            "",
            "  The SKY\tis\u{b}Blue. ",
            "Fog\n\nthen SUN",
            "ΣΑΣ é  Ü",
            "a\u{3000}B",
            " \u{a0}\u{c9}l\u{2003}\u{c9}T\u{c9}\u{85}x ",
            "\u{130}stanbul \u{1e9e}TRASSE\u{3000}\u{3000}",
            "MIXED case ASCII words, and Ünïcode ones, IN one TEXT\n",
        ] {
            assert_eq!(claim_id(t), slow(t), "{t:?}");
        }
        assert_eq!(claim_id("The sky  is blue."), claim_id("the SKY is blue."));
    }

    proptest::proptest! {
        /// Any ASCII text (every control character among it) or any text: the id of the text
        /// normalized by `split_whitespace` and `to_lowercase`.
        #[test]
        fn claim_ids_equal_the_plain_normalization(
            t in proptest::prop_oneof![
                "[\\x00-\\x7f]{0,40}",
                "\\PC{0,20}",
                "[ \\t\\x0bA-Z\u{3a3}\u{85}\u{a0}]{0,12}",
                "[ \\t\\x0b\\x0cAb-z\u{85}\u{a0}\u{2003}\u{3000}\u{c9}\u{e9}\u{130}\u{1e9e}]{0,24}",
                // Single-spaced text with punctuation outside ASCII (copied whole), near
                // General Punctuation's whitespace and letters with a lowercase of their own.
                "[aZ \u{2014}\u{2019}\u{201c}\u{2026}\u{2028}\u{202f}\u{205f}\u{200a}\u{2070}\u{1ffc}\u{1c5}]{0,24}",
            ],
        ) {
            use sha2::{Digest, Sha256};
            let norm: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
            let h = Sha256::digest(norm.to_lowercase().as_bytes());
            proptest::prop_assert_eq!(claim_id(&t), format!("clm_{}", hex::encode(&h[..5])));
        }
    }

    proptest::proptest! {
        /// The word-at-a-time scan finds the byte a bytewise scan finds, at any place of a
        /// word or of the tail.
        #[test]
        fn first_non_ascii_is_the_bytewise_scan(
            t in proptest::collection::vec(
                proptest::prop_oneof![8 => 0u8..0x80, 1 => 0x80u8..=0xff],
                0..40,
            ),
        ) {
            proptest::prop_assert_eq!(
                first_non_ascii(&t),
                t.iter().position(|b| !b.is_ascii())
            );
        }
    }

    proptest::proptest! {
        /// Claim ids numbered through the count per base id (answers of more than `FEW`
        /// claims) are those the scan of the answer's earlier ids gives.
        #[test]
        fn claim_ids_numbered_by_count_equal_the_scan(
            picks in proptest::collection::vec(0usize..6, 0..80),
        ) {
            let texts = ["a", "b", "The sky is blue.", "the SKY  is blue.", "c", "fog"];
            let bases = || picks.iter().map(|&i| claim_id(texts[i]));
            let mut seen = HashMap::default();
            let (mut ids, mut ranges) = (String::new(), Vec::new());
            number_claim_ids(
                bases().map(|b| ClaimIdText(b.as_bytes().try_into().unwrap())),
                usize::MAX,
                &mut ids,
                &mut ranges,
                &mut seen,
            );
            let counted: Vec<String> = ranges.iter().map(|r| ids[r.clone()].to_owned()).collect();
            // The rule itself: the base id, else the first `base.n` (n = 2, 3, ...) not given
            // to an earlier claim of the answer.
            let mut naive: Vec<String> = Vec::new();
            for b in bases() {
                let mut id = b.clone();
                let mut n = 2;
                while naive.contains(&id) {
                    id = format!("{b}.{n}");
                    n += 1;
                }
                naive.push(id);
            }
            proptest::prop_assert_eq!(&counted, &naive);
            // And the scan (answers of up to `FEW` claims) gives them too.
            number_claim_ids(
                bases().map(|b| ClaimIdText(b.as_bytes().try_into().unwrap())),
                0,
                &mut ids,
                &mut ranges,
                &mut seen,
            );
            let scanned: Vec<String> = ranges.iter().map(|r| ids[r.clone()].to_owned()).collect();
            proptest::prop_assert_eq!(&scanned, &naive);
        }
    }

    proptest::proptest! {
        /// A claim is rebased onto the same piece (the first of its copy that holds it) whether
        /// the pieces are tried in turn or looked up by copy, for answers of few and of many
        /// pieces, pieces sharing a copy (the same text interned) or not.
        #[test]
        fn rebased_through_the_index_of_copies_as_by_trying_each_piece(
            copies in proptest::collection::vec("[a-c]{1,6}", 1..6),
            picks in proptest::collection::vec((0usize..8, 0usize..4, 0usize..4), 0..40),
        ) {
            let copies: Vec<Name> = copies.iter().map(|t| Name::from(t.as_str())).collect();
            // The pieces: names of the copies (or ranges of them), a few foreign copies too.
            let mut pieces: Vec<(Name, usize)> = Vec::new();
            let mut whole = String::new();
            for &(c, from, len) in &picks {
                let p = match copies.get(c) {
                    Some(n) => {
                        let from = from.min(n.len());
                        n.slice(from..(from + len).min(n.len())).unwrap()
                    }
                    None => Name::from("zz"),
                };
                whole.push_str("\n\n");
                pieces.push((p.clone(), whole.len()));
                whole.push_str(&p);
            }
            let whole = Name::from(whole.as_str());
            let tried = |n: &Name| {
                let mut n = n.clone();
                for (p, at) in &pieces {
                    if let Some(i) = n.offset_in(p) {
                        if let Some(r) = whole.slice(at + i..at + i + n.len()) {
                            n = r;
                        }
                        break;
                    }
                }
                n
            };
            let few = Pieces::new(&pieces);
            let mut by_copy = Pieces::new(&pieces);
            if by_copy.by_copy.is_empty() {
                by_copy.all.clear();
                for (i, (p, _)) in pieces.iter().enumerate() {
                    by_copy.by_copy.entry(p.copy_addr()).or_default().push(i);
                }
            }
            // Claims: ranges of each copy, and a text of no copy.
            let mut claims: Vec<Name> = vec![Name::from("a")];
            for n in &copies {
                for from in 0..n.len() {
                    claims.push(n.slice(from..n.len()).unwrap());
                    claims.push(n.slice(from..from + 1).unwrap());
                }
            }
            for c in &claims {
                let want = tried(c);
                for p in [&few, &by_copy] {
                    let mut n = c.clone();
                    rebase(&mut n, &whole, p);
                    proptest::prop_assert_eq!(n.as_str(), want.as_str());
                    proptest::prop_assert!(Name::ptr_eq(&n, &want));
                }
            }
        }
    }

    #[test]
    fn calls_and_results_are_found_before_and_after_their_ids_are_indexed() {
        let mut b = Builder::new("test", "t".into(), Arc::from("t.json"));
        for i in 0..3 * FEW {
            let id = format!("call_{i}");
            assert!(!b.has_call(&id) && !b.has_result(&id), "{i}");
            assert!(b.call(NewCall {
                id: id.clone(),
                server: "s".into(),
                tool: "t".into(),
                ..NewCall::default()
            }));
            b.result(NewResult {
                call_id: id.clone(),
                ..NewResult::default()
            });
            // Every id recorded so far is found, whether the lists are searched or indexed.
            for j in 0..=i {
                let id = format!("call_{j}");
                assert!(b.has_call(&id) && b.has_result(&id), "{j} after {i}");
            }
            // A repeated id is refused on either side of the switch to the index.
            let again = NewCall {
                id: format!("call_{}", i / 2),
                ..NewCall::default()
            };
            assert!(!b.call(again), "{i}");
        }
    }

    #[test]
    fn element_paths_read_as_formatted() {
        let mut buf = String::from("left over");
        for (parent, key, i) in [
            ("", "output", 0),
            ("$.a", "content", 7),
            ("x", "k", usize::MAX),
        ] {
            let want = format!("{parent}.{key}[{i}]");
            assert_eq!(elem_path(&mut buf, parent, key, i), want);
        }
        for i in [9, 10, 99, 100, 12345] {
            assert_eq!(elem_path(&mut buf, "p", "q", i), format!("p.q[{i}]"));
        }
    }

    #[test]
    fn a_blocks_uri_is_compared_as_its_decoded_text() {
        let uris = [
            r#""https://a.example/""#,
            r#""https://a.example/\u00e9""#,
            r#""https://a.example/é""#,
            r#""a\"b""#,
            r#""""#,
            "7",
            "null",
        ];
        for raw in uris {
            let b = ContentBlock {
                extra: vec![("uri".into(), RawValue::from_string(raw.into()).unwrap())],
                ..ContentBlock::default()
            };
            for url in ["https://a.example/", "https://a.example/é", "a\"b", "", "7"] {
                assert_eq!(
                    block_uri_is(&b, url),
                    block_uri(&b).as_deref() == Some(url),
                    "{raw} {url}"
                );
            }
        }
        assert!(!block_uri_is(&text_block("x".into()), "x"));
    }

    #[test]
    fn a_session_holds_its_repeated_names_and_notes_once() {
        let same = |a: &Name, b: &Name| a.as_str().as_ptr() == b.as_str().as_ptr();
        let mut b = Builder::new("test", "t".into(), Arc::from("t.json"));
        b.note("a note every session of the format has");
        b.call(NewCall {
            id: "ws".into(),
            server: "openai".into(),
            tool: "web_search".into(),
            ..NewCall::default()
        });
        b.result(NewResult {
            call_id: "ws".into(),
            content: vec![
                link_block("https://a.example/", Some("A")),
                link_block("https://b.example/", None),
            ],
            ..NewResult::default()
        });
        b.answer_text("A says so. B too.", "", None, 0);
        for text in ["A says so.", "B too."] {
            let citation = CitationInfo {
                kind: b.name("url_citation"),
                url: Some(b.name("https://a.example/")),
                cited_text: None,
            };
            b.claim(
                NewClaim {
                    text: text.into(),
                    call_id: Some("ws".into()),
                    citation,
                    ..NewClaim::default()
                },
                None,
                0,
            );
        }
        let s = b.finish();
        let notes = &s.import.as_ref().unwrap().notes;
        assert!(notes
            .iter()
            .all(|n| matches!(n, std::borrow::Cow::Borrowed(_))));
        let blocks = &s.results[0].response.result.as_ref().unwrap().content;
        assert!(same(&blocks[0].extra[0].0, &blocks[1].extra[0].0));
        assert_eq!(
            blocks[0].extra_field("uri").unwrap().get(),
            "\"https://a.example/\""
        );
        let cites: Vec<&CitationInfo> = s
            .claims()
            .map(|c| c.stamp.citation.as_deref().unwrap())
            .collect();
        assert_eq!(cites.len(), 2);
        assert!(same(&cites[0].kind, &cites[1].kind));
        assert!(same(
            cites[0].url.as_ref().unwrap(),
            cites[1].url.as_ref().unwrap()
        ));
    }

    #[test]
    fn an_answers_claims_hold_ranges_of_its_text_and_share_their_ids_and_paths() {
        let mut b = Builder::new("test", "t".into(), Arc::from("t.json"));
        b.turn("q?", None, 1);
        b.answer_text_at("Intro.", "", None, "output[0].content[0]");
        let piece =
            "Seats cost €19 ([a](https://a.example/)). Seats cost €19 ([b](https://b.example/)).";
        let p = b.answer_piece_at(piece, "\n\n", None, "output[1].content[0]");
        assert_eq!(p, piece);
        let second = piece.rfind("Seats").unwrap();
        let sentence = "Seats cost €19 ";
        for (i, (marker, url)) in [
            ("([a](https://a.example/))", "https://a.example/"),
            ("([b](https://b.example/))", "https://b.example/"),
        ]
        .into_iter()
        .enumerate()
        {
            let at = piece.find(marker).unwrap();
            let m = p.slice(at..at + marker.len()).unwrap();
            let u = m
                .slice(2 + marker[2..].find(url).unwrap()..marker.len() - 2)
                .unwrap();
            assert_eq!(u, url);
            let from = if i == 1 { second } else { 0 };
            let path = format!("output[1].content[0].annotations[{i}]");
            let kind = b.name("url_citation");
            b.claim_at(
                NewClaim {
                    text: p.slice_of(&p[from..from + sentence.len()]),
                    citation: CitationInfo {
                        kind,
                        url: Some(u),
                        cited_text: None,
                    },
                    marker: Some(m),
                    ..NewClaim::default()
                },
                None,
                &path,
            );
        }
        let s = b.finish();
        let a = &s.answers[0];
        assert_eq!(a.text, format!("Intro.\n\n{piece}"));
        let claims: Vec<&Claim> = s.claims().collect();
        assert_eq!(claims.len(), 2);
        for (i, c) in claims.iter().enumerate() {
            let st = &c.stamp;
            assert_eq!(st.claim_text, sentence);
            // Ranges of the whole answer (the piece's own copy is no longer held).
            let start = "Intro.\n\n".len() + if i == 1 { second } else { 0 };
            assert_eq!(st.claim_text.offset_in(&a.text), Some(start));
            let m = st.render.as_ref().unwrap().marker.as_ref().unwrap();
            assert_eq!(
                &a.text[m.offset_in(&a.text).unwrap()..][..m.len()],
                m.as_str()
            );
            let u = st.citation.as_ref().unwrap().url.as_ref().unwrap();
            assert!(u.offset_in(&a.text).is_some() && u.starts_with("https://"));
            assert_eq!(
                c.json_path.as_deref(),
                Some(format!("$.output[1].content[0].annotations[{i}]").as_str())
            );
        }
        // The same sentence twice: the second is `.2`; both ids and both paths lie side by side
        // in one copy each.
        let (x, y) = (&claims[0].stamp.claim_id, &claims[1].stamp.claim_id);
        assert_eq!(y.as_str(), format!("{x}.2"));
        assert_eq!(x.as_ptr() as usize + x.len(), y.as_ptr() as usize);
        let (p0, p1) = (
            claims[0].json_path.as_ref().unwrap(),
            claims[1].json_path.as_ref().unwrap(),
        );
        assert_eq!(p0.as_ptr() as usize + p0.len(), p1.as_ptr() as usize);
        assert_eq!(a.json_path.as_deref(), Some("$.output[0].content[0]"));
    }

    #[test]
    fn a_built_session_is_indexed_and_its_stamps_agree_with_the_record() {
        let mut b = Builder::new("test", "t".into(), Arc::from("t.json"));
        b.turn("q?", None, 1);
        let args = serde_json::value::to_raw_value(&serde_json::json!({"q": 1})).unwrap();
        assert!(b.call(NewCall {
            id: "c1".into(),
            server: "srv".into(),
            tool: "t".into(),
            arguments: Some(args),
            ..NewCall::default()
        }));
        assert!(!b.call(NewCall {
            id: "c1".into(),
            ..NewCall::default()
        }));
        b.result(NewResult {
            call_id: "c1".into(),
            content: vec![text_block("Seats cost €19.".into())],
            ..NewResult::default()
        });
        b.answer_text("They cost €19.", "", None, 3);
        b.claim(
            NewClaim {
                text: "They cost €19.".into(),
                call_id: Some("c1".into()),
                span: Some(Span {
                    block: 0,
                    start: 11,
                    end: 14,
                }),
                citation: CitationInfo::default(),
                marker: None,
                json_path: Some(json_path(".output[0]")),
            },
            None,
            3,
        );
        let s = b.finish();
        assert_eq!((s.calls.len(), s.results.len(), s.claim_count()), (1, 1, 1));
        let c = s.claims().next().unwrap();
        let o = c.stamp.origin.as_ref().unwrap();
        assert_eq!(o.arguments_hash, s.results[0].tag.arguments_hash);
        assert_eq!(c.stamp.provenance(), Provenance::Derived);
        assert!(s.call("c1").is_some() && s.result("c1").is_some());
        assert!(s.has_errors(), "the duplicate call is an error");
        let notes = &s.import.as_ref().unwrap().notes;
        assert!(notes.iter().any(|n| n.contains("no times")), "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("TTL")), "{notes:?}");
    }
}
