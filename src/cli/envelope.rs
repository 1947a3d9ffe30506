//! `provscope envelope verify|inspect|seal`: standalone DSSE execution envelopes.

use super::{CliError, CmdResult, Ctx, Exit, Out};
use crate::attest::dsse::{self, Envelope, SigCheck, MAX_PAYLOAD_BYTES};
use crate::attest::envelope::{self as exec, Attestor, Observed};
use crate::attest::keys;
use crate::model::{CallResponse, CallToolResult};
use crate::text::{one_line, sanitize};
use std::io::Read;
use std::path::{Path, PathBuf};

// Everything these commands print for a person about an envelope comes from the envelope (or
// from a log) and is untrusted: each value is escaped with `text::one_line` (or `sanitize`,
// keeping the pretty-printer's own newlines) where it is formatted, so a forged payload cannot
// draw a line of its own, set the terminal title or write the clipboard. The event line `seal`
// prints is machine output from the serializer, never escaped.

/// `provscope envelope ...`.
#[derive(clap::Subcommand, Debug)]
pub enum EnvelopeCmd {
    /// Verify a DSSE envelope's signatures with a public key (exit 0 valid, 1 invalid, 2 unreadable).
    Verify {
        /// The envelope: a DSSE JSON object, or an `envelope` event line of a session log.
        file: PathBuf,
        /// The attestor's public key: a PEM file (NAME.pub) or `ed25519:<base64>`. Repeatable:
        /// every signature must verify under one of them.
        #[arg(long = "pub", value_name = "KEY", required = true)]
        keys: Vec<String>,
    },
    /// Show what an envelope states, without verifying it (exit 0 well formed, 1 not, 2 unreadable).
    Inspect {
        /// The envelope: a DSSE JSON object, or an `envelope` event line of a session log.
        file: PathBuf,
    },
    /// Seal one recorded call and print its `envelope` event line (for producers and samples).
    #[command(hide = true)]
    Seal(SealArgs),
}

/// Arguments of the hidden `provscope envelope seal`.
#[derive(clap::Args, Debug)]
pub struct SealArgs {
    /// The attestor's private key (PKCS#8 PEM, from `provscope keygen`).
    #[arg(long, value_name = "K.key")]
    pub key: PathBuf,
    /// The session log holding the call and its result.
    #[arg(long, value_name = "LOG")]
    pub session: PathBuf,
    /// The call id to seal.
    #[arg(long = "call", value_name = "ID")]
    pub call_id: String,
    /// Seal this `result` object (a CallToolResult JSON file) instead of the recorded one.
    #[arg(long, value_name = "FILE")]
    pub result: Option<PathBuf>,
    /// The attestor name stated in the envelope.
    #[arg(long, default_value = "provscope")]
    pub attestor_id: String,
}

/// Runs `envelope ...`.
pub fn run(ctx: &mut Ctx, cmd: &EnvelopeCmd) -> CmdResult {
    match cmd {
        EnvelopeCmd::Verify { file, keys } => verify(&mut ctx.out, file, keys),
        EnvelopeCmd::Inspect { file } => inspect(&mut ctx.out, file),
        EnvelopeCmd::Seal(a) => seal(ctx, a),
    }
}

/// An envelope file's content: too large, not JSON, or the envelope object.
enum FileRead {
    Unreadable(String),
    Invalid(String),
    Json(serde_json::Value),
}

/// The largest envelope file read (the payload limit in base64, plus room).
const MAX_FILE_BYTES: u64 = (MAX_PAYLOAD_BYTES as u64) / 3 * 4 + (1 << 20);

fn read_envelope_json(path: &Path) -> FileRead {
    let f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return FileRead::Unreadable(format!("{}: cannot open: {e}", path.display())),
    };
    let mut buf = Vec::new();
    if let Err(e) = f.take(MAX_FILE_BYTES + 1).read_to_end(&mut buf) {
        return FileRead::Unreadable(format!("{}: cannot read: {e}", path.display()));
    }
    if buf.len() as u64 > MAX_FILE_BYTES {
        return FileRead::Invalid(format!(
            "over {} MiB; an envelope's payload is at most {} MiB",
            MAX_FILE_BYTES >> 20,
            MAX_PAYLOAD_BYTES >> 20
        ));
    }
    let v: serde_json::Value = match serde_json::from_slice(&buf) {
        Ok(v) => v,
        Err(e) if e.is_eof() => {
            return FileRead::Unreadable(format!("{}: truncated JSON ({e})", path.display()))
        }
        Err(e) => return FileRead::Unreadable(format!("{}: not JSON ({e})", path.display())),
    };
    // An `envelope` event line of a session log carries the envelope in `envelope`.
    let v = match v {
        serde_json::Value::Object(mut m)
            if m.get("event").and_then(|e| e.as_str()) == Some("envelope") =>
        {
            m.remove("envelope").unwrap_or(serde_json::Value::Null)
        }
        v => v,
    };
    FileRead::Json(v)
}

fn load(path: &Path) -> Result<Result<Envelope, String>, CliError> {
    match read_envelope_json(path) {
        FileRead::Unreadable(e) => Err(CliError::Input(e)),
        FileRead::Invalid(e) => Ok(Err(e)),
        FileRead::Json(v) => Ok(Envelope::from_value(&v).map_err(|e| e.to_string())),
    }
}

fn verify(out: &mut Out, file: &Path, key_args: &[String]) -> CmdResult {
    let mut trusted = Vec::new();
    for k in key_args {
        trusted.push(keys::load_public(k).map_err(|e| CliError::key_arg("--pub", e))?);
    }
    let shown = file.display().to_string();
    let name = one_line(&shown);
    let env = match load(file) {
        Err(e) => return Err(e),
        Ok(Err(e)) => {
            out.line(&format!("{name}: invalid: {}", one_line(&e)));
            return Ok(Exit::Findings);
        }
        Ok(Ok(env)) => env,
    };
    let st = match exec::open(&env) {
        Ok(st) => st,
        Err(e) => {
            out.line(&format!("{name}: invalid: {}", one_line(&e.to_string())));
            return Ok(Exit::Findings);
        }
    };
    let pae = env.pae();
    let mut lines = Vec::new();
    for (j, s) in env.signatures.iter().enumerate() {
        let by = trusted.iter().find(|k| {
            dsse::verify_one(&SigCheck {
                msg: &pae,
                sig: &s.sig,
                key: k,
            })
        });
        match by {
            Some(k) => lines.push(format!(
                "  signature {j}: verified with {} (keyid {})",
                keys::compact(k),
                keys::keyid(k)
            )),
            None => {
                out.line(&format!(
                    "{name}: invalid: signature {j} does not verify under the given key(s) \
                     (payload or signature altered, or signed by another key)"
                ));
                return Ok(Exit::Findings);
            }
        }
    }
    let p = &st.predicate;
    out.line(&format!("{name}: valid"));
    for l in lines {
        out.line(&l);
    }
    out.line(&format!(
        "  call {} ({} {}) in session {}, called {}, returned {}",
        one_line(&p.call_id),
        one_line(&p.server),
        one_line(&p.tool),
        one_line(&p.session_id),
        one_line(&p.called_at),
        one_line(&p.returned_at)
    ));
    if let (Some(f), Some(ttl), Some(c)) = (&p.fetched_at, p.ttl_seconds, &p.cache) {
        out.line(&format!(
            "  fetched {}, ttl {}, cache {}",
            one_line(f),
            ttl.map_or_else(|| "none".to_owned(), |t| format!("{t}s")),
            match (&c.hit, &c.original_fetched_at) {
                (true, Some(o)) => format!("hit (originally fetched {})", one_line(o)),
                (true, None) => "hit".to_owned(),
                (false, _) => "miss".to_owned(),
            }
        ));
    } else {
        out.line("  freshness not attested (predicate v1)");
    }
    out.line(&format!("  call_hash {}", one_line(&p.call_hash)));
    out.line(&format!("  result_hash {}", one_line(&p.result_hash)));
    out.line(&format!(
        "  attestor {} ({})",
        one_line(&p.attestor.id),
        one_line(&p.attestor.key)
    ));
    out.line("  (the hashes are checked against a recording by `provscope verify SESSION`)");
    Ok(Exit::Ok)
}

fn inspect(out: &mut Out, file: &Path) -> CmdResult {
    let shown = file.display().to_string();
    let name = one_line(&shown);
    let env = match load(file) {
        Err(e) => return Err(e),
        Ok(Err(e)) => {
            out.line(&format!("{name}: not a valid envelope: {}", one_line(&e)));
            return Ok(Exit::Findings);
        }
        Ok(Ok(env)) => env,
    };
    out.line(&format!("payloadType: {}", one_line(&env.payload_type)));
    out.line(&format!(
        "signatures: {} (not verified; use `provscope envelope verify FILE --pub KEY`)",
        env.signatures.len()
    ));
    for (j, s) in env.signatures.iter().enumerate() {
        out.line(&format!(
            "  [{j}] keyid {}",
            one_line(s.keyid.as_deref().unwrap_or("(none)"))
        ));
    }
    out.line(&format!("payload ({} bytes):", env.payload.len()));
    match serde_json::from_slice::<serde_json::Value>(&env.payload) {
        // JSON escapes C0 controls in strings, not C1 or bidi controls: escaped all the same.
        Ok(v) => out.line(&sanitize(
            &serde_json::to_string_pretty(&v).unwrap_or_default(),
            true,
        )),
        Err(_) => {
            let text = String::from_utf8_lossy(&env.payload);
            let shown: String = text.chars().take(2000).collect();
            // Its lines are data: each is marked, so none can pass for a verdict line.
            for l in sanitize(&shown, true).lines() {
                out.line(&format!("  | {l}"));
            }
        }
    }
    match exec::open(&env) {
        Ok(_) => Ok(Exit::Ok),
        Err(e) => {
            out.line(&format!(
                "{name}: not a valid execution envelope: {}",
                one_line(&e.to_string())
            ));
            Ok(Exit::Findings)
        }
    }
}

fn seal(ctx: &mut Ctx, a: &SealArgs) -> CmdResult {
    let key = keys::load_private(&a.key)?;
    let s = crate::ingest::load_file(&a.session, &crate::ingest::LoadOptions::default());
    if s.has_errors() {
        ctx.diags(&s.diagnostics);
        return Err(CliError::Input(format!(
            "{}: the session has errors; not sealing",
            a.session.display()
        )));
    }
    let mut obs = match Observed::from_session(&s, &a.call_id) {
        Ok(o) => o,
        Err(e) => {
            return Err(CliError::Input(format!("{}: {e}", a.session.display())));
        }
    };
    let replaced: CallResponse;
    if let Some(path) = &a.result {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                return Err(CliError::Input(format!(
                    "{}: cannot read: {e}",
                    path.display()
                )));
            }
        };
        let result: CallToolResult = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(e) => {
                return Err(CliError::Input(format!(
                    "{}: not a CallToolResult object: {e}",
                    path.display()
                )));
            }
        };
        replaced = CallResponse {
            jsonrpc: obs.response.jsonrpc.clone(),
            id: obs.response.id.clone(),
            result: Some(result),
            error: None,
        };
        obs.response = &replaced;
    }
    let attestor = Attestor {
        id: a.attestor_id.clone(),
        key,
    };
    match exec::seal(&obs, &attestor) {
        Ok(env) => {
            ctx.out.line(&exec::event_line(obs.call_id, &env));
            Ok(Exit::Ok)
        }
        Err(e) => Err(CliError::Input(format!(
            "cannot seal {}: {e}",
            one_line(&a.call_id)
        ))),
    }
}
