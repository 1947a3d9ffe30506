//! The `provscope` binary: everything lives in the library; this only hands over the exit code
//! and sets up the allocator.

/// mimalloc: loading a session makes millions of small allocations (see docs/benchmarks.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    provscope::cli::run_with(return_freed_memory_sooner)
}

/// For the explorer, which holds what it loads for as long as it runs: memory freed while
/// loading (the checks' working set, the step of a large log the next one replaces) goes back
/// to the system after 10 ms instead of mimalloc's default of 1 s, so it is no longer resident
/// while the next records are allocated beside it. Peak RSS loading one generated log of 100k
/// calls (180 MB) whole, 1.92 -> 1.68 KB per call, at the same time (docs/benchmarks.md,
/// "Linear at any shape", 2026-12-03). `verify` and `summary` keep the default: the quicker
/// purge cost them 3-5% of their time on such a log.
fn return_freed_memory_sooner() {
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    /// `mi_option_purge_delay` in mimalloc.h (v2 and v3), in milliseconds.
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    // SAFETY: `mi_option_set` stores an option's value (any value is valid for the purge
    // delay); the mimalloc linked here for `ALLOC` defines it.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 10) }
}
