//! `provscope keygen --out NAME [--force]`: a new Ed25519 key pair for sealing envelopes.

use super::{CliError, CmdResult, Ctx, Exit};
use crate::attest::keys;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `provscope keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// Writes NAME.key (private, PKCS#8 PEM, mode 0600) and NAME.pub (public, SPKI PEM).
    #[arg(long, value_name = "NAME")]
    pub out: PathBuf,
    /// Replace existing NAME.key and NAME.pub.
    #[arg(long)]
    pub force: bool,
}

fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s: OsString = base.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// Creates a new file (never follows or reuses an existing one) with the given Unix mode.
fn create_new(path: &Path, mode: u32) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    o.open(path)
}

fn write_file(path: &Path, mode: u32, text: &str) -> Result<(), CliError> {
    let mut f = create_new(path, mode)
        .map_err(|e| CliError::Export(format!("{}: cannot create: {e}", path.display())))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .map_err(|e| CliError::Export(format!("{}: cannot write: {e}", path.display())))
}

/// Runs `keygen`.
pub fn run(ctx: &mut Ctx, a: &KeygenArgs) -> CmdResult {
    let key_path = with_ext(&a.out, ".key");
    let pub_path = with_ext(&a.out, ".pub");
    for p in [&key_path, &pub_path] {
        // symlink_metadata: a dangling symlink also counts as "exists".
        if std::fs::symlink_metadata(p).is_ok() {
            if !a.force {
                return Err(CliError::Usage(format!(
                    "{} already exists; not overwriting it (use --force to replace the key pair)",
                    p.display()
                )));
            }
            std::fs::remove_file(p).map_err(|e| CliError::write(p, e))?;
        }
    }
    let key = keys::generate()?;
    let vk = key.verifying_key();
    write_file(&key_path, 0o600, &keys::private_pem(&key)?)?;
    write_file(&pub_path, 0o644, &keys::public_pem(&vk)?)?;
    let mut out = ctx.human();
    let _ = writeln!(
        out,
        "wrote {} (private key, mode 0600: keep it secret) and {}",
        key_path.display(),
        pub_path.display()
    );
    let _ = writeln!(out, "public key: {}", keys::compact(&vk));
    let _ = writeln!(out, "keyid: {}", keys::keyid(&vk));
    let _ = writeln!(
        out,
        "trust it in a session header: \"attestor_keys\": [\"{}\"]",
        keys::compact(&vk)
    );
    Ok(Exit::Ok)
}
