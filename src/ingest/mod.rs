//! Reading input: finding session logs on disk, loading them, the embedded samples.

mod discover;
pub mod import;
mod lines;
mod loader;
pub mod locate;
pub mod samples;
pub mod tail;

pub use discover::{
    discover, discover_found, has_candidate_extension, load_paths, parallel_map, scanned, Found,
    Loaded,
};
pub use loader::{
    load_any_bytes, load_bytes, load_file, load_file_sessions, load_found, load_native_file,
    load_reader, session_name, LoadOptions, DEFAULT_MAX_LINE_BYTES,
};

/// A parser's message without its ` at line L column C` positions (serde_json adds one at the
/// end, YAML one per clause; the diagnostic carries its own position).
pub(crate) fn strip_pos(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(i) = rest.find(" at line ") {
        let after = &rest[i + " at line ".len()..];
        let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let line = digits(after);
        let tail = after[line..].strip_prefix(" column ").filter(|_| line > 0);
        match tail.map(|t| (t, digits(t))) {
            Some((t, col)) if col > 0 => {
                out.push_str(&rest[..i]);
                rest = &t[col..];
            }
            _ => {
                out.push_str(&rest[..i + 1]);
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::strip_pos;

    #[test]
    fn strip_pos_removes_every_position_and_keeps_other_text() {
        assert_eq!(
            strip_pos("EOF while parsing a list at line 1 column 31"),
            "EOF while parsing a list"
        );
        assert_eq!(
            strip_pos("could not find expected ':' at line 79 column 15, while scanning a simple key at line 78 column 1"),
            "could not find expected ':', while scanning a simple key"
        );
        assert_eq!(strip_pos("stop at line endings"), "stop at line endings");
        assert_eq!(strip_pos("at line 3 only"), "at line 3 only");
        assert_eq!(strip_pos("x at line 3 col"), "x at line 3 col");
    }
}
