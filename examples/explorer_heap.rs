//! The explorer's background loader on one path under the system allocator, so `heaptrack`
//! (which sees malloc, not mimalloc) can say what the explorer holds per call:
//!
//! ```sh
//! provscope gen --turns 5000 --calls 2 --seed 42 ... > /tmp/one.jsonl
//! heaptrack target/release/examples/explorer_heap /tmp/one.jsonl
//! ```
//!
//! Holds every session as the explorer does (each in its own `Arc`, as `App::push_session`;
//! a step replaces the last step of its file) and prints the sessions, calls and peak RSS
//! (`VmHWM`) at the end. `--whole` loads every file whole instead of large logs in steps.
// A measurement harness stops on a failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use provscope::check::Config;
use provscope::ingest::LoadOptions;
use provscope::tui::action::LoadMsg;
use provscope::tui::loader::{spawn_steps, Steps};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--sizes") {
        sizes();
        return;
    }
    let whole = args.iter().any(|a| a == "--whole");
    let path = PathBuf::from(
        args.iter()
            .find(|a| !a.starts_with("--"))
            .expect("usage: explorer_heap [--whole] PATH"),
    );
    let steps = if whole {
        Steps {
            min_file: u64::MAX,
            ..Steps::default()
        }
    } else {
        Steps::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    spawn_steps(
        vec![path],
        LoadOptions::default(),
        Config::default(),
        1,
        steps,
        move |m| tx.send(m).is_ok(),
    );
    let mut held = Vec::new();
    let mut growing = std::collections::HashMap::new();
    while let Ok(m) = rx.recv() {
        match m {
            LoadMsg::Sessions(v) => held.extend(v.into_iter().map(std::sync::Arc::new)),
            LoadMsg::Step { source, loaded, .. } => match growing.get(&source) {
                Some(&k) => held[k] = std::sync::Arc::new(*loaded),
                None => {
                    growing.insert(source, held.len());
                    held.push(std::sync::Arc::new(*loaded));
                }
            },
            LoadMsg::Done => break,
            _ => {}
        }
    }
    let calls: usize = held.iter().map(|l| l.session.calls.len()).sum();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .unwrap_or("VmHWM: ?");
    println!("sessions {} calls {calls} {hwm}", held.len());
}

/// The size of each record a session and its report hold one of per call, claim or finding.
fn sizes() {
    use provscope::check::{ClaimVerdict, Finding};
    use provscope::model::*;
    use std::mem::size_of;
    macro_rules! show {
        ($($t:ty),*) => {$(println!("{:>5} {}", size_of::<$t>(), stringify!($t));)*};
    }
    show!(
        Call,
        ToolResult,
        Claim,
        Stamp,
        Origin,
        Render,
        Span,
        Answer,
        Turn,
        Context,
        ContextEntry,
        Label,
        CallRequest,
        CallResponse,
        CallToolResult,
        ContentBlock,
        IngestTag,
        CacheInfo,
        RpcId,
        Finding,
        ClaimVerdict,
        provscope::tui::app::Loaded,
        Session,
        SessionIndex,
        SessionHeader,
        provscope::check::SessionReport,
        provscope::check::Metrics,
        IdIndex,
        TurnIndex,
        TurnGroups,
        EnvelopeRecord,
        Diagnostic
    );
}
