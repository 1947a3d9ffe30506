//! The finding type every check produces.

use super::evidence::Evidence;
use crate::model::Name;
pub use crate::model::{Kind, Severity, ALL_KINDS};
use serde::Serialize;

/// One finding: a kind, how bad, what it concerns, one sentence, and the values that prove it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Finding {
    /// The kind.
    pub kind: Kind,
    /// The severity (after configuration overrides).
    pub severity: Severity,
    /// The claim concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<Name>,
    /// The calls concerned (the session's ids, shared).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub call_ids: Vec<Name>,
    /// The turn concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// One line a person understands.
    pub message: String,
    /// The values that prove it (typed per kind).
    pub evidence: Evidence,
    /// The log line it points at (the answer's, or the result's).
    pub line: u64,
    /// The JSON path it points at in an imported document (`$.output[3].content[0]`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_path: Option<crate::model::Name>,
}

/// A call id a finding names: a session's [`Name`] (shared) or any text (copied).
pub trait CallId {
    /// The id's text.
    fn text(&self) -> &str;
    /// The id as a `Name`.
    fn into_name(self) -> Name;
}

impl CallId for &Name {
    fn text(&self) -> &str {
        self.as_str()
    }
    fn into_name(self) -> Name {
        self.clone()
    }
}

impl CallId for &str {
    fn text(&self) -> &str {
        self
    }
    fn into_name(self) -> Name {
        Name::from(self)
    }
}

impl Finding {
    /// A finding of the kind its evidence belongs to.
    pub fn new(evidence: Evidence, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            kind: evidence.kind(),
            severity,
            claim_id: None,
            call_ids: Vec::new(),
            turn: None,
            message: message.into(),
            evidence,
            line: 0,
            json_path: None,
        }
    }

    /// Sets the claim, its turn and line.
    pub fn claim(mut self, c: &crate::model::Claim) -> Self {
        self.claim_id = Some(c.stamp.claim_id.clone());
        self.turn = Some(c.turn);
        self.line = c.line;
        self.json_path = c.json_path.clone();
        self
    }

    /// Adds a call id: a session's `Name` is shared, other text copied.
    pub fn call(mut self, id: impl CallId) -> Self {
        if !self.call_ids.iter().any(|c| *c == *id.text()) {
            // Room for one more only: a finding names one or two calls, and an allocator may
            // keep a block that a later shrink halves at most.
            self.call_ids.reserve_exact(1);
            self.call_ids.push(id.into_name());
        }
        self
    }

    /// Adds call ids, in order, skipping repeats (in O(1) each, for a finding naming many).
    pub fn calls<'a>(mut self, ids: impl IntoIterator<Item = &'a Name>) -> Self {
        let mut seen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        let mut add = Vec::new();
        for id in ids {
            crate::probe::steps(1);
            if seen.insert(id.as_str()) && !self.call_ids.iter().any(|c| c == id) {
                add.push(id.clone());
            }
        }
        self.call_ids.reserve_exact(add.len());
        self.call_ids.extend(add);
        self
    }

    /// Drops spare capacity (a session's report holds every finding while it is shown). The
    /// message is copied into a block of its length: `format!` sizes its buffer by estimate,
    /// and an allocator may keep a block in place when it is shrunk by less than half.
    pub(crate) fn shrink(&mut self) {
        self.call_ids = crate::model::exact(std::mem::take(&mut self.call_ids));
        if self.message.capacity() > self.message.len() {
            self.message = self.message.as_str().to_owned();
        }
    }

    /// Sets the turn.
    pub fn turn(mut self, t: u32) -> Self {
        self.turn = Some(t);
        self
    }

    /// Sets the log line.
    pub fn line(mut self, l: u64) -> Self {
        self.line = l;
        self
    }

    /// Points at a record: its log line and, for an imported document, its JSON path.
    pub fn at(mut self, r: &impl crate::model::Located) -> Self {
        let (line, path) = r.location();
        self.line = line;
        self.json_path = path.cloned();
        self
    }

    /// Where it points, for people: `LINE`, `PATH` or `LINE:PATH` (`0` when neither is known).
    pub fn location(&self) -> String {
        crate::model::location(self.line, self.json_path.as_deref())
    }
}
