//! `provscope receipt verify FILE [--pub ed25519:...]`: ArkForge proof-spec 2.1.0 receipts.

use super::{Out, EXIT_FINDINGS, EXIT_INPUT, EXIT_OK};
use crate::attest::keys;
use crate::attest::receipt::{self, Options, Status};
use std::path::{Path, PathBuf};

/// `provscope receipt ...`.
#[derive(clap::Subcommand, Debug)]
pub enum ReceiptCmd {
    /// Verify an ArkForge "Agent Action Receipt" proof (exit 0 valid, 1 invalid, 2 unreadable).
    Verify {
        /// The proof JSON.
        file: PathBuf,
        /// The issuer's public key, pinned from a trusted source: `ed25519:<base64url>` or a PEM
        /// file. Repeatable. Without it only the key embedded in the receipt is available.
        #[arg(long = "pub", value_name = "KEY")]
        keys: Vec<String>,
        /// The request body (JSON), to recompute `hashes.request`.
        #[arg(long, value_name = "FILE")]
        request: Option<PathBuf>,
        /// The response body (JSON), to recompute `hashes.response`.
        #[arg(long, value_name = "FILE")]
        response: Option<PathBuf>,
    },
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not JSON ({e})", path.display()))
}

/// Runs `receipt ...`.
pub fn run(out: &mut Out, cmd: &ReceiptCmd) -> u8 {
    let ReceiptCmd::Verify {
        file,
        keys: key_args,
        request,
        response,
    } = cmd;
    let mut pinned = Vec::new();
    for k in key_args {
        match keys::load_public(k) {
            Ok(k) => pinned.push(k),
            Err(e) => {
                eprintln!("provscope: {e}");
                return EXIT_INPUT;
            }
        }
    }
    let mut bodies = Vec::new();
    for p in [
        file,
        request.as_ref().unwrap_or(file),
        response.as_ref().unwrap_or(file),
    ] {
        match read_json(p) {
            Ok(v) => bodies.push(v),
            Err(e) => {
                eprintln!("provscope: {e}");
                return EXIT_INPUT;
            }
        }
    }
    let opts = Options {
        pinned: &pinned,
        request: request.as_ref().map(|_| &bodies[1]),
        response: response.as_ref().map(|_| &bodies[2]),
    };
    let report = receipt::verify(&bodies[0], &opts);
    let name = file.display();
    out.line(&format!(
        "{name}: ArkForge receipt {}, spec_version {}",
        report.proof_id.as_deref().unwrap_or("(no proof_id)"),
        report.spec_version.as_deref().unwrap_or("absent")
    ));
    for s in &report.steps {
        let st = match s.status {
            Status::Ok => "ok",
            Status::Failed => "FAILED",
            Status::Skipped => "skipped",
        };
        out.line(&format!("  {:<14} {st:<7} {}", s.name, s.detail));
    }
    for w in &report.warnings {
        eprintln!("provscope: warning: {name}: {w}");
    }
    if report.valid() {
        out.line(&format!("{name}: valid"));
        EXIT_OK
    } else {
        out.line(&format!("{name}: invalid"));
        EXIT_FINDINGS
    }
}
