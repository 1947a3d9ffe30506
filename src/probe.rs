//! A deterministic count of the work done by lookups, for tests that prove a lookup does not
//! scan (the count of a session twice as long must be about twice as large). Compiled to
//! nothing outside tests.

#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static DETECTIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static OPENS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static BATCHES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Records one batch verification of signatures.
#[inline(always)]
pub(crate) fn batch() {
    #[cfg(test)]
    BATCHES.with(|s| s.set(s.get() + 1));
}

/// The batch verifications made on this thread so far.
#[cfg(test)]
pub(crate) fn batches() -> u64 {
    BATCHES.with(|s| s.get())
}

/// Records `n` elements visited (compared, hashed or probed) by a lookup.
#[inline(always)]
pub(crate) fn steps(n: usize) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n as u64));
    #[cfg(not(test))]
    let _ = n;
}

/// Records one format detection (the head of a file judged by content).
#[inline(always)]
pub(crate) fn detection() {
    #[cfg(test)]
    DETECTIONS.with(|s| s.set(s.get() + 1));
}

/// Records one file opened to be judged or loaded.
#[inline(always)]
pub(crate) fn open() {
    #[cfg(test)]
    OPENS.with(|s| s.set(s.get() + 1));
}

/// The files opened to be judged or loaded on this thread so far.
#[cfg(test)]
pub(crate) fn opens() -> u64 {
    OPENS.with(|s| s.get())
}

/// The format detections made on this thread so far.
#[cfg(test)]
pub(crate) fn detections() -> u64 {
    DETECTIONS.with(|s| s.get())
}

/// The steps recorded on this thread so far.
#[cfg(test)]
pub(crate) fn count() -> u64 {
    STEPS.with(|s| s.get())
}
