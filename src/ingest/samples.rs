//! The bundled sample sessions, embedded at build time from `sample-sessions/` so an installed
//! binary opens them from any folder.

use super::loader::{load_bytes, LoadOptions};
use crate::model::Session;

include!(concat!(env!("OUT_DIR"), "/samples.rs"));

/// `(file name, contents)` of every bundled sample, sorted by name.
pub fn files() -> &'static [(&'static str, &'static str)] {
    SAMPLES
}

/// Loads bundled sample `i` (in [`files`] order).
pub fn load(i: usize, opts: &LoadOptions) -> Option<Session> {
    let (name, text) = SAMPLES.get(i)?;
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    Some(load_bytes(
        stem,
        &format!("<samples>/{name}"),
        text.as_bytes(),
        opts,
    ))
}

/// Loads every bundled sample.
pub fn load_all(opts: &LoadOptions) -> Vec<Session> {
    (0..SAMPLES.len()).filter_map(|i| load(i, opts)).collect()
}
