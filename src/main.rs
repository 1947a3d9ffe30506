//! The `provscope` binary: everything lives in the library; this only hands over the exit code.

/// mimalloc: loading a session makes millions of small allocations (see docs/benchmarks.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    provscope::cli::run()
}
