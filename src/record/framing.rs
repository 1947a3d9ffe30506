//! Splitting each direction's byte stream into newline-delimited JSON-RPC messages (batches
//! included), across chunk boundaries, with a cap on what is examined.

use super::pairing::Recorder;
use super::writer::LogSink;
use super::Dir;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::time::Instant;

/// Splits one direction's byte stream into lines, across chunk boundaries.
#[derive(Default)]
pub(super) struct Splitter {
    pub(super) buf: Vec<u8>,
    /// Discarding up to the next newline (after an oversize line or a gap).
    pub(super) skipping: bool,
}

/// The fields of a JSON-RPC message the recorder looks at; the rest is skipped.
#[derive(Deserialize)]
pub(super) struct Probe<'a> {
    #[serde(borrow, default)]
    pub(super) method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) id: Option<&'a RawValue>,
}

impl<S: LogSink> Recorder<S> {
    /// Bytes that passed the proxy in direction `dir` at instant `at`.
    pub fn feed(&mut self, dir: Dir, at: Instant, bytes: &[u8]) {
        let mut sp = std::mem::take(&mut self.split[dir.index()]);
        let cap = self.cfg.max_message_bytes;
        let mut rest = bytes;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let part = &rest[..i];
            rest = &rest[i + 1..];
            if sp.skipping {
                sp.skipping = false;
                sp.buf.clear();
            } else if sp.buf.is_empty() {
                if part.len() > cap {
                    self.oversize(dir, part.len());
                } else {
                    self.line(dir, at, part);
                }
            } else if sp.buf.len() + part.len() > cap {
                self.oversize(dir, sp.buf.len() + part.len());
                sp.buf.clear();
            } else {
                sp.buf.extend_from_slice(part);
                self.line(dir, at, &sp.buf);
                sp.buf.clear();
            }
        }
        if !sp.skipping && !rest.is_empty() {
            if sp.buf.len() + rest.len() > cap {
                self.oversize(dir, sp.buf.len() + rest.len());
                sp.buf = Vec::new();
                sp.skipping = true;
            } else {
                sp.buf.extend_from_slice(rest);
            }
        }
        self.split[dir.index()] = sp;
    }

    /// Bytes of direction `dir` were not seen (the recorder fell behind): resynchronize at the
    /// next newline.
    pub fn gap(&mut self, dir: Dir, lost: u64) {
        let sp = &mut self.split[dir.index()];
        sp.buf = Vec::new();
        sp.skipping = true;
        self.stats.lost_bytes += lost;
        self.notes.push(format!(
            "the recorder fell behind and skipped {lost} bytes from {}; calls in them are not recorded",
            dir.sender()
        ));
    }

    pub(super) fn oversize(&mut self, dir: Dir, len: usize) {
        self.stats.oversize += 1;
        self.notes.push(format!(
            "a message of {len}+ bytes from {} is over the {} byte recording cap (--max-line-bytes); \
             forwarded but not recorded",
            dir.sender(),
            self.cfg.max_message_bytes
        ));
    }

    pub(super) fn line(&mut self, dir: Dir, at: Instant, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else {
            return; // not JSON; forwarded, nothing to record
        };
        let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
        if text.is_empty() {
            return;
        }
        if text.starts_with('[') {
            if let Ok(batch) = serde_json::from_str::<Vec<&RawValue>>(text) {
                for m in batch {
                    self.message(dir, at, m);
                }
            }
        } else if let Ok(m) = serde_json::from_str::<&RawValue>(text) {
            self.message(dir, at, m);
        }
    }
}
