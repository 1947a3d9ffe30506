//! Where a record of an imported document starts in its file, for the explorer's `o`: the JSON
//! path the record carries (`$.output[1].content[0]`) resolved against the file's bytes by a
//! small scanner that builds no values. JSON documents (the whole file, or one per line as OTLP
//! line files hold them) are walked once for every path wanted; VCR cassettes (block YAML) are
//! followed by indentation.

use rustc_hash::FxHashMap as HashMap;

/// A place in a file for an editor: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in characters.
    pub column: u64,
}

/// A resolved path: where its value starts, or, when the path goes on inside a string (a
/// cassette body recorded as a JSON string), where that string starts (`exact` false).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The place.
    pub at: Position,
    /// False when only a prefix of the path could be followed.
    pub exact: bool,
}

/// The places of `wanted` records in `bytes`, each given as records carry it: the line of its
/// document (0 when the file is one document) and its JSON path. Paths that do not resolve (the
/// file changed, or no such path) are left out; bad input never panics.
pub fn resolve<'p>(
    bytes: &[u8],
    wanted: impl IntoIterator<Item = (u64, &'p str)>,
) -> HashMap<(u64, &'p str), Resolved> {
    let mut by_line: HashMap<u64, Vec<&'p str>> = HashMap::default();
    for (line, path) in wanted {
        by_line.entry(line).or_default().push(path);
    }
    let mut out = HashMap::default();
    let mut lines: Vec<u64> = by_line.keys().copied().collect();
    lines.sort_unstable();
    for line in lines {
        let paths = &by_line[&line];
        let Some(start) = line_start(bytes, line) else {
            continue;
        };
        let doc = &bytes[start..];
        let first = doc
            .iter()
            .position(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
        let is_json = first.is_some_and(|i| matches!(doc[i], b'{' | b'['));
        let base = line.max(1);
        if is_json {
            let mut trie = Trie::default();
            for (i, p) in paths.iter().enumerate() {
                if let Some(steps) = steps(p) {
                    trie.insert(&steps, i);
                }
            }
            let mut found = Vec::new();
            // After a byte-order mark and blank space.
            let mut s = Scan {
                b: doc,
                i: first.unwrap_or(0),
            };
            if let Some(id) = trie.here {
                found.push((s.i, id));
            }
            // A truncated document keeps what was found before the cut.
            let _ = s.walk(&trie, &mut found);
            found.sort_unstable();
            for (off, at) in positions(doc, base, found.iter().map(|&(o, _)| o))
                .into_iter()
                .zip(&found)
            {
                out.insert(
                    (line, paths[at.1]),
                    Resolved {
                        at: off,
                        exact: true,
                    },
                );
            }
        } else if line == 0 {
            let text = String::from_utf8_lossy(doc);
            let y = Yaml::new(&text);
            for p in paths {
                if let Some(r) = steps(p).and_then(|st| y.find(&st)) {
                    out.insert((line, *p), r);
                }
            }
        }
    }
    out
}

/// The byte offset where 1-based `line` starts (0 for line 0: the whole file).
fn line_start(bytes: &[u8], line: u64) -> Option<usize> {
    if line <= 1 {
        return Some(0);
    }
    let n = usize::try_from(line - 2).ok()?;
    memchr::memchr_iter(b'\n', bytes).nth(n).map(|i| i + 1)
}

/// Lines and columns of sorted byte offsets into `doc`, whose first byte is on line `base`.
fn positions(doc: &[u8], base: u64, offsets: impl Iterator<Item = usize>) -> Vec<Position> {
    let (mut line, mut line_at, mut seen) = (base, 0usize, 0usize);
    offsets
        .map(|off| {
            for nl in memchr::memchr_iter(b'\n', &doc[seen..off]) {
                line += 1;
                line_at = seen + nl + 1;
            }
            seen = off;
            // Characters, not bytes: count the bytes that start a UTF-8 character.
            let chars = doc[line_at..off]
                .iter()
                .filter(|b| (**b & 0xC0) != 0x80)
                .count();
            Position {
                line,
                column: chars as u64 + 1,
            }
        })
        .collect()
}

/// One step of a JSON path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps of `$.a[1].b` (`$` optional); `None` when it is not such a path.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut rest = path.strip_prefix('$').unwrap_or(path);
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            out.push(Step::Key(&r[..end]));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            out.push(Step::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        } else {
            return None;
        }
    }
    Some(out)
}

/// The wanted paths of one document as a tree: a walk descends only where a path goes.
#[derive(Default)]
struct Trie {
    /// The wanted path ending here (an index into the caller's list).
    here: Option<usize>,
    keys: HashMap<String, Trie>,
    items: HashMap<usize, Trie>,
}

impl Trie {
    fn insert(&mut self, steps: &[Step<'_>], id: usize) {
        let mut t = self;
        for s in steps {
            t = match s {
                Step::Key(k) => t.keys.entry((*k).to_owned()).or_default(),
                Step::Index(i) => t.items.entry(*i).or_default(),
            };
        }
        t.here.get_or_insert(id);
    }

    fn leaf(&self) -> bool {
        self.keys.is_empty() && self.items.is_empty()
    }
}

/// A cursor over JSON bytes.
struct Scan<'b> {
    b: &'b [u8],
    i: usize,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Past the string starting at the cursor (on its `"`).
    fn string(&mut self) -> Option<()> {
        let mut j = self.i + 1;
        loop {
            let k = j + memchr::memchr2(b'"', b'\\', self.b.get(j..)?)?;
            if self.b[k] == b'\\' {
                j = k + 2;
            } else {
                self.i = k + 1;
                return Some(());
            }
        }
    }

    /// Past the value at the cursor, without recursion (any depth).
    fn skip(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while self.peek().is_some_and(|c| {
                    !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// Walks the value at the cursor, recording `(offset, id)` of every wanted path under `t`.
    /// Recursion only follows wanted paths, so its depth is theirs, never the document's.
    fn walk(&mut self, t: &Trie, found: &mut Vec<(usize, usize)>) -> Option<()> {
        match self.peek()? {
            b'{' if !t.keys.is_empty() => {
                self.i += 1;
                loop {
                    self.ws();
                    match self.peek()? {
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        b'"' => {}
                        _ => return None,
                    }
                    let k0 = self.i;
                    self.string()?;
                    let raw = &self.b[k0..self.i];
                    self.ws();
                    (self.peek()? == b':').then_some(())?;
                    self.i += 1;
                    self.ws();
                    match key(raw).as_deref().and_then(|k| t.keys.get(k)) {
                        Some(c) => self.member(c, found)?,
                        None => self.skip()?,
                    }
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' if !t.items.is_empty() => {
                self.i += 1;
                let mut n = 0usize;
                loop {
                    self.ws();
                    if self.peek()? == b']' {
                        self.i += 1;
                        return Some(());
                    }
                    match t.items.get(&n) {
                        Some(c) => self.member(c, found)?,
                        None => self.skip()?,
                    }
                    n += 1;
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            _ => self.skip(),
        }
    }

    fn member(&mut self, c: &Trie, found: &mut Vec<(usize, usize)>) -> Option<()> {
        if let Some(id) = c.here {
            found.push((self.i, id));
        }
        if c.leaf() {
            self.skip()
        } else {
            self.walk(c, found)
        }
    }
}

/// A member name as text: the bytes between the quotes, unescaped when needed.
fn key(raw: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let inner = raw.get(1..raw.len().checked_sub(1)?)?;
    if memchr::memchr(b'\\', inner).is_none() {
        std::str::from_utf8(inner).ok().map(Into::into)
    } else {
        serde_json::from_slice::<String>(raw).ok().map(Into::into)
    }
}

/// Block YAML as VCR cassettes are written (vcrpy, pydantic-ai): nodes found by indentation.
struct Yaml<'t> {
    /// Each line's indentation and text; `None` for blank and comment lines.
    lines: Vec<Option<(usize, &'t str)>>,
}

/// A node: its first line, the column its content starts at there, and whether it is a
/// sequence.
#[derive(Clone, Copy)]
struct Node {
    line: usize,
    col: usize,
}

impl<'t> Yaml<'t> {
    fn new(text: &'t str) -> Self {
        let lines = text
            .lines()
            .map(|l| {
                let t = l.trim_start_matches(' ');
                (!t.trim().is_empty() && !t.starts_with('#')).then(|| (l.len() - t.len(), l))
            })
            .collect();
        Yaml { lines }
    }

    /// The text of `line` from `col`, and its indentation.
    fn at(&self, line: usize, col: usize) -> Option<(usize, &'t str)> {
        let (indent, l) = (*self.lines.get(line)?)?;
        Some((indent, l.get(col.max(indent)..)?))
    }

    /// The lines of a node's block: its first line, then every deeper or equal line (`col`)
    /// until one starts left of it.
    fn block(&self, n: Node) -> impl Iterator<Item = (usize, usize, &'t str)> + '_ {
        let first = self.at(n.line, n.col).map(|(_, t)| (n.line, n.col, t));
        let rest = (n.line + 1..self.lines.len())
            .filter_map(|l| self.lines[l].map(|(i, t)| (l, i, &t[i..])))
            .take_while(move |(_, i, _)| *i >= n.col);
        first.into_iter().chain(rest)
    }

    fn find(&self, steps: &[Step<'_>]) -> Option<Resolved> {
        let mut n = Node {
            line: (0..self.lines.len()).find(|&l| self.lines[l].is_some())?,
            col: 0,
        };
        let mut at = Position { line: 1, column: 1 };
        for (k, s) in steps.iter().enumerate() {
            let found = match s {
                // A cassette's `body` is `parsed_body` (pydantic-ai), or `body` (vcrpy) holding
                // the JSON as a string, itself or under `string:`.
                Step::Key("body") => self.key(n, "parsed_body").or_else(|| {
                    let (pos, value) = self.key(n, "body")?;
                    Some(
                        value
                            .and_then(|v| self.key(v, "string"))
                            .unwrap_or((pos, value)),
                    )
                }),
                Step::Key(name) => self.key(n, name),
                Step::Index(i) => self.item(n, *i),
            };
            let (pos, next) = found?;
            at = pos;
            match next {
                Some(next) => n = next,
                // A scalar: the rest of the path is inside it (a body recorded as a string).
                None => {
                    return Some(Resolved {
                        at,
                        exact: k + 1 == steps.len(),
                    })
                }
            }
        }
        Some(Resolved { at, exact: true })
    }

    fn pos(line: usize, col: usize) -> Position {
        Position {
            line: line as u64 + 1,
            column: col as u64 + 1,
        }
    }

    /// The member `name` of the mapping `n`: where its key is, and its value's node when the
    /// value is a block (`None` for a scalar on the key's line).
    fn key(&self, n: Node, name: &str) -> Option<(Position, Option<Node>)> {
        for (l, col, t) in self.block(n) {
            if col != n.col || t.starts_with("- ") || t == "-" {
                continue;
            }
            let Some(rest) = t
                .strip_prefix(name)
                .or_else(|| t.strip_prefix(&format!("'{name}'")))
                .or_else(|| t.strip_prefix(&format!("\"{name}\"")))
                .and_then(|r| r.strip_prefix(':'))
            else {
                continue;
            };
            if !(rest.is_empty() || rest.starts_with(' ')) {
                continue;
            }
            let inline = rest.trim();
            if !inline.is_empty() && !inline.starts_with('#') {
                return Some((Self::pos(l, col), None));
            }
            // The value's block: the next line, deeper, or a sequence at the key's column.
            let next =
                (l + 1..self.lines.len()).find_map(|j| self.lines[j].map(|(i, t)| (j, i, &t[i..])));
            let value = next.and_then(|(j, i, t)| {
                (i > col || (i == col && (t.starts_with("- ") || t == "-")))
                    .then_some(Node { line: j, col: i })
            });
            return Some((Self::pos(l, col), value));
        }
        None
    }

    /// Item `index` of the sequence `n`: where its dash is, and its content's node.
    fn item(&self, n: Node, index: usize) -> Option<(Position, Option<Node>)> {
        let mut k = 0usize;
        for (l, col, t) in self.block(n) {
            if col != n.col {
                continue;
            }
            let Some(rest) = t
                .strip_prefix('-')
                .filter(|r| r.is_empty() || r.starts_with(' '))
            else {
                // A key at the sequence's column ends it.
                return None;
            };
            if k == index {
                let pad = rest.len() - rest.trim_start_matches(' ').len();
                let node = if rest.trim().is_empty() {
                    (l + 1..self.lines.len())
                        .find_map(|j| self.lines[j].map(|(i, _)| (j, i)))
                        .filter(|&(_, i)| i > col)
                        .map(|(j, i)| Node { line: j, col: i })
                } else {
                    Some(Node {
                        line: l,
                        col: col + 1 + pad,
                    })
                };
                return Some((Self::pos(l, col), node));
            }
            k += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(bytes: &str, line: u64, path: &str) -> Option<Resolved> {
        resolve(bytes.as_bytes(), [(line, path)])
            .get(&(line, path))
            .copied()
    }

    fn at(line: u64, column: u64) -> Option<Resolved> {
        Some(Resolved {
            at: Position { line, column },
            exact: true,
        })
    }

    #[test]
    fn json_paths_resolve_to_where_their_value_starts() {
        let doc = "{\n  \"id\": \"x\",\n  \"output\": [\n    {\"a\": [1, {\"b\": \"}\\\"]\"}]},\n    {\"content\": [ {\"t\": \"é\"}, {\"t\": 2} ]}\n  ]\n}\n";
        assert_eq!(one(doc, 0, "$.output[1]"), at(5, 5));
        assert_eq!(one(doc, 0, "$.output[1].content[1]"), at(5, 31));
        assert_eq!(one(doc, 0, "$.output[0].a[1].b"), at(4, 21));
        assert_eq!(one(doc, 0, "$"), at(1, 1));
        // Absent, malformed and out-of-range paths are left out.
        for p in ["$.output[2]", "$.nope", "$.output[x]", "$..a", "$.id.x"] {
            assert_eq!(one(doc, 0, p), None, "{p}");
        }
        // Many paths in one walk; characters, not bytes, for columns.
        let r = resolve(
            doc.as_bytes(),
            [
                (0, "$.output[1].content[1].t"),
                (0, "$.output[1].content[0].t"),
                (0, "$.id"),
            ],
        );
        assert_eq!(
            r[&(0, "$.output[1].content[1].t")].at,
            Position {
                line: 5,
                column: 37
            }
        );
        assert_eq!(
            r[&(0, "$.output[1].content[0].t")].at,
            Position {
                line: 5,
                column: 25
            }
        );
        assert_eq!(r[&(0, "$.id")].at, Position { line: 2, column: 9 });
    }

    #[test]
    fn line_files_resolve_within_their_line() {
        let doc = "{\"a\":[0]}\n{\"b\":{\"c\":[7,8]}}\n";
        assert_eq!(one(doc, 2, "$.b.c[1]"), at(2, 14));
        assert_eq!(one(doc, 1, "$.a[0]"), at(1, 7));
        assert_eq!(one(doc, 3, "$.a"), None);
        assert_eq!(one(doc, 9, "$.a"), None);
    }

    #[test]
    fn cassettes_resolve_by_indentation() {
        let y = "interactions:\n- request:\n    uri: https://x/\n    parsed_body:\n      messages:\n      - content: hi\n  response:\n    parsed_body:\n      content:\n      - type: text\n        text: a\n      - citations:\n        - type: x\n        text: b\n- request:\n    body:\n      string: '{\"a\": 1}'\n";
        assert_eq!(one(y, 0, "$.interactions[0].response"), at(7, 3));
        assert_eq!(
            one(y, 0, "$.interactions[0].response.body.content[1]"),
            at(12, 7)
        );
        assert_eq!(
            one(
                y,
                0,
                "$.interactions[0].response.body.content[1].citations[0]"
            ),
            at(13, 9)
        );
        assert_eq!(
            one(y, 0, "$.interactions[0].request.body.messages[0]"),
            at(6, 7)
        );
        // A body recorded as a string: the path goes on inside it, so it is not exact.
        assert_eq!(
            one(y, 0, "$.interactions[1].request.body.a"),
            Some(Resolved {
                at: Position {
                    line: 17,
                    column: 7
                },
                exact: false
            })
        );
        assert_eq!(one(y, 0, "$.interactions[2]"), None);
        assert_eq!(
            one(y, 0, "$.interactions[0].response.body.content[2]"),
            None
        );
    }

    #[test]
    fn bad_input_never_panics() {
        let doc = "{\"a\": [1, {\"b\": \"x\\";
        for cut in 0..doc.len() {
            let _ = resolve(
                &doc.as_bytes()[..cut],
                [(0, "$.a[1].b"), (1, "$.a"), (2, "$")],
            );
        }
        let _ = resolve(b"\xff\xfe- :\n  - \n-", [(0, "$.a[0]"), (0, "$[0].b")]);
        assert_eq!(one("]]]}}}", 0, "$.a"), None);
    }
}
