//! `provscope receipt verify FILE [--pub ed25519:...]`: ArkForge proof-spec 2.1.0 receipts.

use super::{CliError, CmdResult, Ctx, Exit};
use crate::attest::keys;
use crate::attest::receipt::{self, Options, SignedBy, Status};
use crate::text::one_line;
use std::io::Write;
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
        /// Without --pub, accept a receipt signed only by the key it embeds (exit 0). Such a
        /// signature is not proof of origin: whoever edits the receipt can replace the key.
        #[arg(long)]
        trust_embedded_key: bool,
    },
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not JSON ({e})", path.display()))
}

/// Runs `receipt ...`.
pub fn run(ctx: &mut Ctx, cmd: &ReceiptCmd) -> CmdResult {
    let ReceiptCmd::Verify {
        file,
        keys: key_args,
        request,
        response,
        trust_embedded_key,
    } = cmd;
    let mut pinned = Vec::new();
    for k in key_args {
        pinned.push(keys::load_public(k).map_err(|e| CliError::key_arg("--pub", e))?);
    }
    let mut bodies = Vec::new();
    for p in [
        file,
        request.as_ref().unwrap_or(file),
        response.as_ref().unwrap_or(file),
    ] {
        bodies.push(read_json(p).map_err(CliError::Input)?);
    }
    let opts = Options {
        pinned: &pinned,
        request: request.as_ref().map(|_| &bodies[1]),
        response: response.as_ref().map(|_| &bodies[2]),
    };
    let report = receipt::verify(&bodies[0], &opts);
    // Everything below but the step names comes from the receipt or mentions its values:
    // escaped for the terminal where it is formatted (`text::one_line`).
    let file_name = file.display().to_string();
    let name = one_line(&file_name);
    for w in &report.warnings {
        ctx.warn(&format!("{name}: {}", one_line(w)));
    }
    let mut out = ctx.human();
    let _ = writeln!(
        out,
        "{name}: ArkForge receipt {}, spec_version {}",
        one_line(report.proof_id.as_deref().unwrap_or("(no proof_id)")),
        one_line(report.spec_version.as_deref().unwrap_or("absent"))
    );
    for s in &report.steps {
        let st = match s.status {
            Status::Ok => "ok",
            Status::Failed => "FAILED",
            Status::Skipped => "skipped",
        };
        let _ = writeln!(out, "  {:<14} {st:<7} {}", s.name, one_line(&s.detail));
    }
    match (report.valid(), report.signed_by) {
        (true, SignedBy::PinnedKey) => {
            let _ = writeln!(out, "{name}: valid");
            Ok(Exit::Ok)
        }
        (true, _) if *trust_embedded_key => {
            let _ = writeln!(
                out,
                "{name}: valid as trusted with --trust-embedded-key (signed by its own embedded \
                 key: not proof of origin)"
            );
            Ok(Exit::Ok)
        }
        (true, _) => {
            let _ = writeln!(
                out,
                "{name}: signed by its own embedded key: not proof of origin (pin the issuer's \
                 key with --pub, or accept it with --trust-embedded-key)"
            );
            Ok(Exit::Findings)
        }
        (false, _) => {
            let _ = writeln!(out, "{name}: invalid");
            Ok(Exit::Findings)
        }
    }
}
