//! Ids and names a session repeats, held once: call ids (a call, its request, its result's tag
//! and response, the claims and contexts that cite it), server and tool names, claim ids,
//! `jsonrpc` and `method`, block types, render policies, results' texts and calls' arguments.

use super::event::{ContextEntry, Origin, Stamp};
use super::mcp::{CallRequest, ContentBlock, RpcId};
use super::{Call, Label, Session, ToolResult};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An id or a name: shared text, 16 bytes in each record that holds it. Records of one loaded
/// session hold one copy of each distinct text ([`Names`]); it reads, compares, hashes, prints
/// and serializes as the text itself. A name may be a range of another name's text
/// ([`Name::slice`]): an imported claim's sentence, marker and URL are ranges of its answer, so
/// they cost no copy of their own.
#[derive(Clone)]
pub struct Name(arcstr::Substr);

/// A [`Name`] of a text known when compiling (`name_literal!("2.0")`), usable in a `static`:
/// it is never counted, so its copies cost no atomic operation to make or drop (a block type
/// or key that every record of every session holds).
#[macro_export]
macro_rules! name_literal {
    ($text:literal) => {
        $crate::model::Name::from_literal(arcstr::literal_substr!($text))
    };
}

impl Name {
    /// What [`name_literal!`] makes: a name of a static text.
    #[doc(hidden)]
    pub const fn from_literal(text: arcstr::Substr) -> Name {
        Name(text)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name of the range `range` (in bytes) of this name's text, sharing its copy; `None`
    /// when the range is out of bounds or not on character boundaries.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Option<Name> {
        self.as_str().get(range.clone())?;
        Some(Name(self.0.substr(range)))
    }

    /// The name of `part`, a slice of this name's text (as `str::trim` or a search returns),
    /// sharing its copy; a copy of its own when `part` is not a slice of this text.
    pub fn slice_of(&self, part: &str) -> Name {
        match self.range_of(part) {
            Some(r) => Name(self.0.substr(r)),
            None => Name::from(part),
        }
    }

    /// Where `part` lies in this name's text, when it is a slice of it (by address, not by
    /// content).
    pub fn range_of(&self, part: &str) -> Option<std::ops::Range<usize>> {
        let (base, p) = (self.as_str().as_ptr() as usize, part.as_ptr() as usize);
        let start = p.checked_sub(base)?;
        let end = start.checked_add(part.len())?;
        (end <= self.len()).then_some(start..end)
    }

    /// Whether both names are the same range of the same copy (not only the same text).
    pub fn ptr_eq(a: &Name, b: &Name) -> bool {
        arcstr::Substr::shallow_eq(&a.0, &b.0)
    }

    /// The address of the copy this name is a range of: names with the same address share
    /// one copy ([`Name::offset_in`] can only hold between them).
    pub fn copy_addr(&self) -> usize {
        self.0.parent().as_ptr() as usize
    }

    /// Whether `self` is a range of `whole`'s copy (or `whole` itself), and where in `whole`'s
    /// text it starts.
    pub fn offset_in(&self, whole: &Name) -> Option<usize> {
        if !arcstr::ArcStr::ptr_eq(self.0.parent(), whole.0.parent()) {
            return None;
        }
        let (a, b) = (self.0.range(), whole.0.range());
        (a.start >= b.start && a.end <= b.end).then(|| a.start - b.start)
    }
}

impl PartialEq for Name {
    fn eq(&self, o: &Name) -> bool {
        self.as_str() == o.as_str()
    }
}

impl Eq for Name {}

impl PartialOrd for Name {
    fn partial_cmp(&self, o: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Name {
    fn cmp(&self, o: &Name) -> std::cmp::Ordering {
        self.as_str().cmp(o.as_str())
    }
}

impl std::hash::Hash for Name {
    /// As its text: a table of names is looked up by `&str` ([`Borrow`]).
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl Default for Name {
    /// The empty name: shares no allocation (a record made with `..Default::default()` and
    /// then given its own names allocated nothing for its defaults).
    fn default() -> Self {
        Name(arcstr::Substr::new())
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(arcstr::Substr::full(arcstr::ArcStr::from(s)))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name::from(s.as_str())
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Self {
        Name::from(s.as_str())
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.as_str().to_owned()
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, o: &str) -> bool {
        self.as_str() == o
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, o: &&str) -> bool {
        self.as_str() == *o
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, o: &String) -> bool {
        self.as_str() == o.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, o: &Name) -> bool {
        self == o.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, o: &Name) -> bool {
        *self == o.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, o: &Name) -> bool {
        self.as_str() == o.as_str()
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Borrowed when the text has no escapes: one allocation, of the exact size.
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(Name::from(&*s))
    }
}

/// One copy of each distinct text: a loader interns every [`Name`] of a session (and every
/// call's arguments) as it reads it, so the records that repeat a text share it. Dropped once
/// the session is loaded.
#[derive(Default)]
pub struct Names {
    /// Texts shorter than [`LONG`] bytes: ids and names, most of them distinct (a call id each).
    texts: rustc_hash::FxHashSet<Name>,
    /// Longer texts (results', answers', claims'), which a session repeats: a table of their
    /// own stays small and cached, where in one table with a long session's million ids each
    /// lookup of a repeated text missed the caches.
    long: rustc_hash::FxHashSet<Name>,
    /// Arguments, hashed by their JSON text.
    arguments: hashbrown::HashTable<Arc<RawValue>>,
}

/// Texts of this many bytes or more are looked up in their own table.
const LONG: usize = 48;

fn hash_text(s: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(s)
}

impl Names {
    /// Makes `n` the shared copy of its text (it becomes the shared copy if it is the first).
    /// A static name ([`name_literal!`]) is left as it is: it has no copy to share, and its text
    /// is not hashed (the type and key of every link block).
    pub fn intern(&mut self, n: &mut Name) {
        if arcstr::ArcStr::is_static(n.0.parent()) {
            return;
        }
        let table = self.table(n);
        match table.get(n.as_str()) {
            Some(a) => {
                if !Name::ptr_eq(a, n) {
                    *n = a.clone();
                }
            }
            None => {
                table.insert(n.clone());
            }
        }
    }

    /// Makes `n` the shared copy of its text unless the table holds the text already, a static
    /// name ([`name_literal!`]) too: the names [`Names::get`] then makes of that text are
    /// copies of the static one, which cost no atomic count to copy or drop (an importer's
    /// server and tool names, which every call, result and citation of a session holds).
    pub fn seed(&mut self, n: &Name) {
        let table = self.table(n);
        if !table.contains(n.as_str()) {
            table.insert(n.clone());
        }
    }

    /// The table a text is held in.
    fn table(&mut self, text: &str) -> &mut rustc_hash::FxHashSet<Name> {
        if text.len() >= LONG {
            &mut self.long
        } else {
            &mut self.texts
        }
    }

    /// Makes `a` the shared copy of arguments with its exact JSON text.
    pub fn arguments(&mut self, a: &mut Arc<RawValue>) {
        let h = hash_text(a.get());
        match self.arguments.find(h, |x| x.get() == a.get()) {
            Some(x) => {
                if !Arc::ptr_eq(x, a) {
                    *a = x.clone();
                }
            }
            None => {
                self.arguments
                    .insert_unique(h, a.clone(), |x| hash_text(x.get()));
            }
        }
    }

    /// The shared copy of `text`, made on first use: a builder that makes its names through
    /// this allocates each distinct text once, instead of a copy per record interned later.
    pub fn get(&mut self, text: &str) -> Name {
        let table = self.table(text);
        match table.get(text) {
            Some(a) => a.clone(),
            None => {
                let a = Name::from(text);
                table.insert(a.clone());
                a
            }
        }
    }

    /// The table's copy of a name made once for every session (a `static`): `n` itself unless
    /// the table already holds its text.
    pub fn shared(&mut self, n: &Name) -> Name {
        let mut n = n.clone();
        self.intern(&mut n);
        n
    }

    /// [`Names::intern`] for an optional name.
    pub fn intern_opt(&mut self, n: &mut Option<Name>) {
        if let Some(n) = n {
            self.intern(n);
        }
    }

    /// Interns every name of a request.
    pub fn request(&mut self, r: &mut CallRequest) {
        self.intern_opt(&mut r.jsonrpc);
        self.rpc_id(&mut r.id);
        self.intern(&mut r.method);
        self.intern(&mut r.params.name);
        if let Some(a) = &mut r.params.arguments {
            self.arguments(a);
        }
    }

    fn rpc_id(&mut self, id: &mut RpcId) {
        match id {
            RpcId::Str(n) | RpcId::Num(n) => self.intern(n),
        }
    }

    /// Interns every name of a call.
    pub fn call(&mut self, c: &mut Call) {
        self.intern(&mut c.id);
        self.intern(&mut c.server);
        self.intern_opt(&mut c.fanout);
        self.request(&mut c.request);
    }

    /// Interns every name of a result: its tag, its response's `jsonrpc` and id, its blocks'
    /// types and texts.
    pub fn result(&mut self, r: &mut ToolResult) {
        let t = &mut r.tag;
        self.intern(&mut t.call_id);
        self.intern(&mut t.server);
        self.intern(&mut t.tool);
        self.intern(&mut t.arguments_hash);
        self.intern_opt(&mut r.response.jsonrpc);
        self.rpc_id(&mut r.response.id);
        for b in r
            .response
            .result
            .iter_mut()
            .flat_map(|x| x.content.iter_mut())
        {
            self.block(b);
        }
    }

    /// Interns the names of a content block: its type, its text and its other fields' keys
    /// (every link of a session holds a `uri`).
    pub fn block(&mut self, b: &mut ContentBlock) {
        self.intern(&mut b.kind);
        self.intern_opt(&mut b.text);
        for (k, _) in &mut b.extra {
            self.intern(k);
        }
    }

    /// Interns every name of a stamp.
    pub fn stamp(&mut self, s: &mut Stamp) {
        self.intern(&mut s.claim_id);
        self.intern(&mut s.claim_text);
        if let Some(o) = &mut s.origin {
            self.origin(o);
        }
        if let Some(r) = &mut s.render {
            self.intern_opt(&mut r.marker);
            self.intern_opt(&mut r.policy);
        }
    }

    fn origin(&mut self, o: &mut Origin) {
        self.intern(&mut o.tool_call_id);
        self.intern(&mut o.server);
        self.intern(&mut o.tool);
        self.intern(&mut o.arguments_hash);
    }

    /// Interns every name of a context's entries.
    pub fn context(&mut self, entries: &mut [ContextEntry]) {
        for e in entries {
            self.intern(&mut e.call_id);
            self.intern_opt(&mut e.marker);
        }
    }

    /// Interns every name of a label.
    pub fn label(&mut self, l: &mut Label) {
        self.intern(&mut l.claim_id);
        self.intern_opt(&mut l.source);
    }

    /// Interns the long texts of a session: results' texts, calls' arguments, users' messages,
    /// answers and claims' texts. One `Names` used so across the sessions one loader holds
    /// (the explorer's) makes the sessions that repeat a text share one copy of it; ids and
    /// short names are left to each session's own interning (a set of every call id of every
    /// session would cost more than it saves).
    pub fn long_texts(&mut self, s: &mut Session) {
        for t in &mut s.turns {
            self.intern(&mut t.user);
        }
        for c in &mut s.calls {
            if let Some(a) = &mut c.request.params.arguments {
                self.arguments(a);
            }
        }
        for r in &mut s.results {
            for b in r
                .response
                .result
                .iter_mut()
                .flat_map(|x| x.content.iter_mut())
            {
                self.intern_opt(&mut b.text);
            }
        }
        for a in &mut s.answers {
            self.intern(&mut a.text);
            for c in &mut a.claims {
                self.intern(&mut c.stamp.claim_text);
            }
        }
    }

    /// Interns the names sessions repeat among themselves: servers', tools' and methods' names,
    /// `jsonrpc`, arguments hashes, content blocks' types and keys, markers, render policies,
    /// citation kinds and label sources (in calls, results, stamps, contexts and labels). Used
    /// as [`Names::long_texts`] is, across the sessions one loader holds: every session of an
    /// agent names the same servers and tools, and a session of 10 calls held its own copy of
    /// each (about 0.5 KB). Ids (calls', claims', fan-outs', JSON-RPC's) are left to each
    /// session: they are mostly distinct, and a table of them would cost more than it saves.
    pub fn repeated_names(&mut self, s: &mut Session) {
        for c in &mut s.calls {
            self.intern(&mut c.server);
            let r = &mut c.request;
            self.intern_opt(&mut r.jsonrpc);
            self.intern(&mut r.method);
            self.intern(&mut r.params.name);
        }
        for r in &mut s.results {
            let t = &mut r.tag;
            self.intern(&mut t.server);
            self.intern(&mut t.tool);
            self.intern(&mut t.arguments_hash);
            self.intern_opt(&mut r.response.jsonrpc);
            for b in r
                .response
                .result
                .iter_mut()
                .flat_map(|x| x.content.iter_mut())
            {
                self.intern(&mut b.kind);
                for (k, _) in &mut b.extra {
                    self.intern(k);
                }
            }
        }
        for a in &mut s.answers {
            for c in &mut a.claims {
                let st = &mut c.stamp;
                if let Some(o) = &mut st.origin {
                    self.intern(&mut o.server);
                    self.intern(&mut o.tool);
                    self.intern(&mut o.arguments_hash);
                }
                if let Some(r) = &mut st.render {
                    self.intern_opt(&mut r.marker);
                    self.intern_opt(&mut r.policy);
                }
                if let Some(ci) = &mut st.citation {
                    self.intern(&mut ci.kind);
                }
            }
        }
        for c in &mut s.contexts {
            for e in &mut c.results {
                self.intern_opt(&mut e.marker);
            }
        }
        for l in &mut s.labels {
            self.intern_opt(&mut l.source);
        }
    }

    /// A table with room for `short` ids and names and `long` longer texts from the start (an
    /// imported session makes most of its names while it is read, before its size is known:
    /// grown from empty, each table was made three or four times over).
    pub fn with_capacity(short: usize, long: usize) -> Self {
        Names {
            texts: rustc_hash::FxHashSet::with_capacity_and_hasher(short, Default::default()),
            long: rustc_hash::FxHashSet::with_capacity_and_hasher(long, Default::default()),
            arguments: hashbrown::HashTable::new(),
        }
    }

    /// Makes room for `n` more texts, so a table filled with a known number of names is not
    /// grown (and every text in it hashed again) on the way.
    pub fn reserve(&mut self, n: usize) {
        self.texts.reserve(n);
    }

    /// Number of distinct texts (arguments not counted).
    pub fn len(&self) -> usize {
        self.texts.len() + self.long.len()
    }

    /// Whether no text was interned.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty() && self.long.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_static_names_are_what_get_returns_and_a_held_text_is_kept() {
        static OPENAI: Name = crate::name_literal!("openai");
        let mut names = Names::default();
        let earlier = names.get("web_search");
        static WEB_SEARCH: Name = crate::name_literal!("web_search");
        names.seed(&OPENAI);
        names.seed(&WEB_SEARCH);
        let n = names.get("openai");
        assert!(Name::ptr_eq(&n, &OPENAI));
        assert!(arcstr::ArcStr::is_static(n.0.parent()));
        // A text the table held before it was seeded keeps its copy.
        assert!(Name::ptr_eq(&names.get("web_search"), &earlier));
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn interned_names_share_one_copy_and_read_as_their_text() {
        let mut names = Names::default();
        let (mut a, mut b): (Name, Name) = ("call_1".into(), String::from("call_1").into());
        assert!(!Name::ptr_eq(&a, &b));
        names.intern(&mut a);
        names.intern(&mut b);
        assert!(Name::ptr_eq(&a, &b));
        assert_eq!(names.len(), 1);
        assert_eq!(a, "call_1");
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"call_1\"");
        let c: Name = serde_json::from_str("\"a\\u00e9\"").unwrap();
        assert_eq!(c.as_str(), "aé");
        assert!(serde_json::from_str::<Name>("7").is_err());
        let set: std::collections::HashSet<Name> = [a].into_iter().collect();
        assert!(set.contains("call_1"));
        // A name made by `get` is the shared copy, whether it came first or not.
        let d = names.get("call_1");
        assert!(Name::ptr_eq(&d, &b));
        let (e, f) = (names.get("tools/call"), names.get("tools/call"));
        assert!(Name::ptr_eq(&e, &f));
        assert_eq!(names.len(), 2);
        // Long texts are held in a table of their own, shared the same way.
        let long = "x".repeat(LONG);
        let mut g = Name::from(long.as_str());
        let mut h = Name::from(long.as_str());
        names.intern(&mut g);
        names.intern(&mut h);
        assert!(Name::ptr_eq(&g, &h) && Name::ptr_eq(&names.get(&long), &g));
        assert!(!Name::ptr_eq(&names.get(&long[1..]), &g));
        assert_eq!(names.len(), 4);
    }

    #[test]
    fn a_slice_of_a_name_shares_its_copy_and_reads_as_its_text() {
        let whole = Name::from("Seats cost €19. Tables cost €40.");
        let seats = whole.slice(0..17).unwrap();
        assert_eq!(seats, "Seats cost €19.");
        assert_eq!(seats.offset_in(&whole), Some(0));
        let tables = whole.slice_of(whole[18..].trim());
        assert_eq!(tables, "Tables cost €40.");
        assert_eq!(tables.offset_in(&whole), Some(18));
        // A range of a range is a range of the whole; the whole is not a range of a part.
        let cost = tables.slice(7..11).unwrap();
        assert_eq!((cost.as_str(), cost.offset_in(&whole)), ("cost", Some(25)));
        assert_eq!(cost.offset_in(&tables), Some(7));
        assert_eq!(whole.offset_in(&tables), None);
        // Equal text, another copy: equal and hashed alike, but not a range of it.
        let copy = Name::from("Seats cost €19.");
        assert_eq!(copy, seats);
        assert_eq!(copy.offset_in(&whole), None);
        assert!(!Name::ptr_eq(&copy, &seats));
        let set: std::collections::HashSet<Name> = [seats.clone()].into_iter().collect();
        assert!(set.contains("Seats cost €19.") && set.contains(&copy));
        // Out of bounds or inside a character: no name; text from elsewhere: its own copy.
        assert!(whole.slice(0..100).is_none() && whole.slice(0..12).is_none());
        let elsewhere = String::from("cost");
        let own = whole.slice_of(&elsewhere);
        assert_eq!((own.as_str(), own.offset_in(&whole)), ("cost", None));
        assert_eq!(
            serde_json::to_string(&tables).unwrap(),
            "\"Tables cost €40.\""
        );
        assert!(seats < tables && Name::default().is_empty());
    }

    #[test]
    fn equal_arguments_and_result_texts_share_one_copy() {
        let log = concat!(
            r#"{"event":"session","version":1,"session_id":"s","started_at":"2026-10-02T09:00:00Z"}"#,
            "\n",
            r#"{"event":"turn","turn":1,"user":"q"}"#,
            "\n",
            r#"{"event":"tool_call","turn":1,"server":"a","issued_at":"2026-10-02T09:00:01Z","request":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"q":1}}}}"#,
            "\n",
            r#"{"event":"tool_call","turn":1,"server":"a","issued_at":"2026-10-02T09:00:01Z","request":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"q":1}}}}"#,
            "\n",
            r#"{"event":"tool_call","turn":1,"server":"a","issued_at":"2026-10-02T09:00:01Z","request":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"q": 1}}}}"#,
            "\n",
            r#"{"event":"tool_result","turn":1,"tag":{"call_id":"1","server":"a","tool":"t","arguments_hash":"00","fetched_at":"2026-10-02T09:00:02Z","returned_at":"2026-10-02T09:00:02Z"},"response":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"€19 a seat"}]}}}"#,
            "\n",
            r#"{"event":"tool_result","turn":1,"tag":{"call_id":"2","server":"a","tool":"t","arguments_hash":"00","fetched_at":"2026-10-02T09:00:02Z","returned_at":"2026-10-02T09:00:02Z"},"response":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"\u20ac19 a seat"}]}}}"#,
            "\n",
        );
        let s = crate::ingest::load_bytes("s", "s", log.as_bytes(), &Default::default());
        let args: Vec<&Arc<RawValue>> = s
            .calls
            .iter()
            .map(|c| c.request.params.arguments.as_ref().unwrap())
            .collect();
        assert_eq!(args.len(), 3);
        assert!(Arc::ptr_eq(args[0], args[1]));
        // Shared by their exact text only: what a hash or the source view shows is unchanged.
        assert!(!Arc::ptr_eq(args[0], args[2]));
        assert_eq!(args[2].get(), r#"{"q": 1}"#);
        // Texts are shared by their value (the second was written with an escape).
        let texts: Vec<&Name> = s
            .results
            .iter()
            .map(|r| {
                r.response.result.as_ref().unwrap().content[0]
                    .text
                    .as_ref()
                    .unwrap()
            })
            .collect();
        assert_eq!(texts.len(), 2);
        assert!(Name::ptr_eq(texts[0], texts[1]));
        assert_eq!(texts[1].as_str(), "€19 a seat");
    }

    /// The names `repeated_names` shares: those of calls, results, stamps, contexts and labels.
    fn repeated(s: &Session) -> Vec<&Name> {
        let mut v: Vec<&Name> = Vec::new();
        for c in &s.calls {
            let r = &c.request;
            v.extend([&c.server, &r.method, &r.params.name]);
            v.extend(&r.jsonrpc);
        }
        for r in &s.results {
            v.extend([&r.tag.server, &r.tag.tool, &r.tag.arguments_hash]);
            v.extend(&r.response.jsonrpc);
            for b in r.response.result.iter().flat_map(|x| &x.content) {
                v.push(&b.kind);
                v.extend(b.extra.iter().map(|(k, _)| k));
            }
        }
        for c in s.answers.iter().flat_map(|a| &a.claims) {
            if let Some(o) = &c.stamp.origin {
                v.extend([&o.server, &o.tool, &o.arguments_hash]);
            }
            if let Some(r) = &c.stamp.render {
                v.extend(r.marker.iter().chain(&r.policy));
            }
        }
        v.extend(
            s.contexts
                .iter()
                .flat_map(|c| &c.results)
                .flat_map(|e| &e.marker),
        );
        v.extend(s.labels.iter().flat_map(|l| &l.source));
        v
    }

    #[test]
    fn sessions_interned_together_share_their_repeated_names_but_not_their_ids() {
        let spec = crate::gen::GenSpec {
            turns: 6,
            calls: 2,
            seed: 7,
            fault_rate: 0.5,
            result_bytes: 80,
            envelopes: false,
            sub_agents: false,
        };
        let load = |i| {
            let mut log = Vec::new();
            crate::gen::write_session(&mut log, &spec, i).unwrap();
            crate::ingest::load_bytes("s", "s", &log, &Default::default())
        };
        let (mut a, mut b) = (load(0), load(1));
        let before: Vec<String> = repeated(&b).iter().map(|n| n.to_string()).collect();
        let mut names = Names::default();
        names.repeated_names(&mut a);
        names.repeated_names(&mut b);
        // Every text is the same, and held once across both sessions.
        let (ra, rb) = (repeated(&a), repeated(&b));
        assert!(ra.len() > 50 && rb.len() > 50, "{} {}", ra.len(), rb.len());
        assert_eq!(rb.iter().map(|n| n.to_string()).collect::<Vec<_>>(), before);
        let mut copies: std::collections::HashMap<&str, &Name> = Default::default();
        for n in ra.iter().chain(&rb) {
            let first = copies.entry(n.as_str()).or_insert(n);
            assert!(Name::ptr_eq(first, n), "two copies of `{n}`");
        }
        for must in ["tools/call", "2.0", "text", "eval:synthetic"] {
            assert!(copies.contains_key(must), "{must}");
        }
        // Ids stay each session's own.
        assert_eq!(a.calls[0].id, b.calls[0].id);
        assert!(!Name::ptr_eq(&a.calls[0].id, &b.calls[0].id));
        assert!(!Name::ptr_eq(
            &a.answers[0].claims[0].stamp.claim_id,
            &b.answers[0].claims[0].stamp.claim_id
        ));
    }
}
