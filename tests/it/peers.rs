//! Software nobody here wrote that some tests need: the interop peers (python3 with the pinned
//! PyPI packages, Node.js with the pinned npm packages, installed into `.cache/` by
//! `tests/interop/install.sh`), terminal tools (tmux) and headless Chromium with pdftotext (the
//! HTML report as rendered). When one is missing a test says so loudly on the terminal (not in
//! captured output) and is skipped, unless `PROVSCOPE_REQUIRE_INTEROP=1` (which `.ci/run` sets):
//! then it fails.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn required() -> bool {
    std::env::var("PROVSCOPE_REQUIRE_INTEROP").as_deref() == Ok("1")
}

/// Says why a test cannot run: a failure under `PROVSCOPE_REQUIRE_INTEROP=1`, else a loud skip.
pub fn missing(what: &str) -> bool {
    let msg = format!("SKIPPED: {what} (set PROVSCOPE_REQUIRE_INTEROP=1 to make this a failure)");
    if required() {
        panic!("{what}; PROVSCOPE_REQUIRE_INTEROP=1 makes this a failure");
    }
    // Straight to the terminal: the test harness captures only print!/eprint!.
    let _ = writeln!(std::io::stderr(), "\n*** {msg}");
    false
}

/// True when `cmd --version` runs.
pub fn has(cmd: &str) -> bool {
    Command::new(cmd)
        .arg(match cmd {
            "tmux" => "-V",
            "pdftotext" => "-v",
            _ => "--version",
        })
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A terminal tool (`tmux`): present, or a loud skip.
pub fn tool(cmd: &str) -> bool {
    has(cmd) || missing(&format!("`{cmd}` is not installed"))
}

/// Headless Chromium (Debian's `chromium`) to render HTML and `pdftotext` (poppler-utils) to
/// read back what it laid out: present, or a loud skip.
pub fn browser() -> bool {
    tool("chromium") && tool("pdftotext")
}

/// The pinned interop peers, installed once per test run: present, or a loud skip.
pub fn interop() -> bool {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    let r = READY.get_or_init(|| {
        for cmd in ["python3", "npm", "node"] {
            if !has(cmd) {
                return Err(format!(
                    "`{cmd}` is not installed: the interop peers cannot run"
                ));
            }
        }
        match Command::new("bash")
            .arg(root().join("tests/interop/install.sh"))
            .status()
        {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(format!(
                "tests/interop/install.sh failed ({s}): it downloads the pinned PyPI and npm peers"
            )),
            Err(e) => Err(format!("cannot run tests/interop/install.sh: {e}")),
        }
    });
    match r {
        Ok(()) => true,
        Err(why) => missing(why),
    }
}
