//! provscope: proves where every claim in an AI agent's answer came from.
//!
//! Data flows one way: [`ingest`] reads session logs into [`model`] types; `check` turns a
//! session into findings; the explorer and exporters render findings. [`attest`] owns hashing
//! and execution envelopes; [`record`] is the attesting proxy that writes sealed logs.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod attest;
pub mod check;
pub mod cli;
pub mod diff;
pub mod export;
pub mod gen;
pub mod ingest;
pub mod model;
pub mod pipeline;
mod probe;
pub mod record;
pub mod serve;
pub mod store;
pub mod text;
pub mod tui;
