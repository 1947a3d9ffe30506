//! Reading input: finding session logs on disk, loading them, the embedded samples.

mod discover;
pub mod import;
mod lines;
mod loader;
pub mod locate;
pub mod samples;
pub mod tail;

pub use discover::{discover, discover_found, load_paths, parallel_map, scanned, Found, Loaded};
pub use loader::{
    load_any_bytes, load_bytes, load_file, load_file_sessions, load_found, load_native_file,
    load_reader, session_name, LoadOptions, DEFAULT_MAX_LINE_BYTES,
};

/// A parser's message without its ` at line L column C` suffix (serde_json and YAML add one; the
/// diagnostic carries its own position).
pub(crate) fn strip_pos(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}
