//! Progress of the check running on this thread, for a caller that shows it while a large
//! session is checked (the explorer's loader): the checks report `(done, total)` as their
//! stages advance, each stage (resolving the claims, the per-claim origin checks, context,
//! answer, trust, drift, parallel, envelopes, sub-agents, the report) worth the same share.

use std::cell::RefCell;

type Sink = Box<dyn FnMut(u64, u64)>;

thread_local! {
    static SINK: RefCell<Option<Sink>> = const { RefCell::new(None) };
}

/// The stages a check reports.
pub(crate) const STAGES: u64 = 10;

/// Runs `f` with `sink` told `(done, total)` as the checks `f` runs on this thread advance.
pub fn watch<R>(sink: impl FnMut(u64, u64) + 'static, f: impl FnOnce() -> R) -> R {
    let before = SINK.with(|s| s.replace(Some(Box::new(sink))));
    let r = f();
    SINK.with(|s| *s.borrow_mut() = before);
    r
}

/// Whether anyone watches (the checks skip counting otherwise).
pub(crate) fn watched() -> bool {
    SINK.with(|s| s.try_borrow().is_ok_and(|g| g.is_some()))
}

/// Tells the watcher, if any, that `done` of `total` units are done.
pub(crate) fn report(done: u64, total: u64) {
    SINK.with(|s| {
        if let Ok(mut g) = s.try_borrow_mut() {
            if let Some(f) = g.as_mut() {
                f(done.min(total), total);
            }
        }
    });
}

/// Progress through the stages of one check of `claims` claims: each stage is `claims` units
/// (at least 1), and a stage over the claims reports every [`EVERY`] of them.
pub(crate) struct Stages {
    per: u64,
    stage: u64,
    on: bool,
}

/// Claims between two reports inside a stage.
const EVERY: usize = 4096;

impl Stages {
    pub(crate) fn new(claims: usize) -> Self {
        let s = Stages {
            per: (claims as u64).max(1),
            stage: 0,
            on: watched(),
        };
        if s.on {
            report(0, s.per * STAGES);
        }
        s
    }

    /// Inside the current stage: `i` claims done.
    pub(crate) fn claim(&self, i: usize) {
        if self.on && i.is_multiple_of(EVERY) && i > 0 {
            report(self.stage * self.per + i as u64, self.per * STAGES);
        }
    }

    /// The current stage is done.
    pub(crate) fn next(&mut self) {
        self.stage += 1;
        if self.on {
            report(self.stage * self.per, self.per * STAGES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn a_watched_check_reports_every_stage_in_order_and_ends_done() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = crate::ingest::load_bytes(
            "t",
            "t.jsonl",
            include_bytes!("../../sample-sessions/01-clean-baseline.jsonl"),
            &crate::ingest::LoadOptions::default(),
        );
        let log = seen.clone();
        let r = watch(
            move |d, t| log.lock().unwrap().push((d, t)),
            || super::super::check_session(&s, &super::super::Config::default()),
        );
        assert!(!r.claims.is_empty());
        let seen = seen.lock().unwrap();
        assert_eq!(seen.first().map(|p| p.0), Some(0));
        let total = seen[0].1;
        assert_eq!(seen.last(), Some(&(total, total)));
        assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0 && w[1].1 == total));
        assert_eq!(seen.len() as u64, STAGES + 1);
        // Nobody watches afterwards.
        assert!(!watched());
    }
}
