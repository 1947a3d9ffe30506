//! Ids and names a session repeats, held once: call ids (a call, its request, its result's tag
//! and response, the claims and contexts that cite it), server and tool names, claim ids,
//! `jsonrpc` and `method`, block types, render policies.

use super::event::{ContextEntry, Origin, Stamp};
use super::mcp::{CallRequest, RpcId};
use super::{Call, Label, Session, ToolResult};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An id or a name: shared text, 16 bytes in each record that holds it. Records of one loaded
/// session hold one copy of each distinct text ([`Names`]); it reads, compares, hashes, prints
/// and serializes as the text itself.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(Arc<str>);

impl Name {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Name {
    fn default() -> Self {
        Name(Arc::from(""))
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
        Name(Arc::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(Arc::from(s))
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Self {
        Name(Arc::from(s.as_str()))
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.0.to_string()
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, o: &str) -> bool {
        *self.0 == *o
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, o: &&str) -> bool {
        *self.0 == **o
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, o: &String) -> bool {
        *self.0 == **o
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, o: &Name) -> bool {
        *self == *o.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, o: &Name) -> bool {
        **self == *o.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, o: &Name) -> bool {
        **self == *o.0
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Borrowed when the text has no escapes: one allocation, of the exact size.
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(Name(Arc::from(&*s)))
    }
}

/// One copy of each distinct text: a loader interns every [`Name`] of a session as it reads
/// it, so the records that repeat a text share it. Dropped once the session is loaded.
#[derive(Default)]
pub struct Names(rustc_hash::FxHashSet<Arc<str>>);

impl Names {
    /// Makes `n` the shared copy of its text (it becomes the shared copy if it is the first).
    pub fn intern(&mut self, n: &mut Name) {
        match self.0.get(&*n.0) {
            Some(a) => {
                if !Arc::ptr_eq(a, &n.0) {
                    n.0 = a.clone();
                }
            }
            None => {
                self.0.insert(n.0.clone());
            }
        }
    }

    /// The shared copy of `text`, made on first use: a builder that makes its names through
    /// this allocates each distinct text once, instead of a copy per record interned later.
    pub fn get(&mut self, text: &str) -> Name {
        match self.0.get(text) {
            Some(a) => Name(a.clone()),
            None => {
                let a: Arc<str> = Arc::from(text);
                self.0.insert(a.clone());
                Name(a)
            }
        }
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
    /// types.
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
            self.intern(&mut b.kind);
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

    /// Interns every name of a session's records (for sessions built whole, by the importers).
    pub fn session(&mut self, s: &mut Session) {
        s.calls.iter_mut().for_each(|c| self.call(c));
        s.results.iter_mut().for_each(|r| self.result(r));
        for a in &mut s.answers {
            a.claims.iter_mut().for_each(|c| self.stamp(&mut c.stamp));
        }
        s.contexts
            .iter_mut()
            .for_each(|c| self.context(&mut c.results));
        s.labels.iter_mut().for_each(|l| self.label(l));
        s.envelopes
            .iter_mut()
            .for_each(|e| self.intern(&mut e.call_id));
    }

    /// Number of distinct texts.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no text was interned.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_names_share_one_copy_and_read_as_their_text() {
        let mut names = Names::default();
        let (mut a, mut b): (Name, Name) = ("call_1".into(), String::from("call_1").into());
        assert!(!Arc::ptr_eq(&a.0, &b.0));
        names.intern(&mut a);
        names.intern(&mut b);
        assert!(Arc::ptr_eq(&a.0, &b.0));
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
        assert!(Arc::ptr_eq(&d.0, &b.0));
        let (e, f) = (names.get("tools/call"), names.get("tools/call"));
        assert!(Arc::ptr_eq(&e.0, &f.0));
        assert_eq!(names.len(), 2);
    }
}
