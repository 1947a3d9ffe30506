//! provscope integration tests: one binary, one module per area (see each module's doc).

// Test helpers fail a test by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod attest_common;
mod attest_interop;
mod attest_values;
mod backends;
mod bad_input;
mod case_semantics;
mod case_serve;
mod cases;
mod checks;
mod cli;
mod common;
mod diff;
mod envelope_cli;
mod envelope_vectors;
mod envelopes;
mod follow;
mod follow_incremental;
mod fuzz;
mod fuzz_attest;
mod golden;
mod hardening;
mod hostile;
mod importers;
mod importers_chat;
mod importers_locations;
mod importers_managed;
mod importers_otlp;
mod importers_robust;
mod importers_shapes;
mod importers_sse;
mod otlp;
mod peers;
mod playbook;
mod proc;
mod receipts;
mod record;
mod record_interop;
mod report_browser;
mod report_schemas;
mod report_set;
mod scale;
mod store_cli;
mod store_reliability;
mod trend;
mod tui;
mod tui_diff;
mod tui_follow;
mod tui_fuzz;
mod tui_nav;
mod tui_steps;
mod tui_tmux;
mod tui_util;
mod verify_open;
