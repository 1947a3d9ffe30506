//! `provscope hash`: the arguments hash a session log's tag carries.

use super::{CliError, CmdResult, Ctx, Exit};

/// Arguments of `provscope hash`.
#[derive(clap::Args, Debug)]
pub struct HashArgs {
    /// The arguments as JSON; read from stdin when absent.
    pub json: Option<String>,
}

/// Prints the lowercase hex SHA-256 of the RFC 8785 canonical form of the arguments.
pub fn run(ctx: &mut Ctx, a: &HashArgs) -> CmdResult {
    let text = match &a.json {
        Some(t) => t.clone(),
        None => {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| CliError::Input(format!("cannot read stdin: {e}")))?;
            s
        }
    };
    let raw = serde_json::value::RawValue::from_string(text.trim().to_owned())
        .map_err(|e| CliError::Usage(format!("the arguments are not valid JSON: {e}")))?;
    let h = crate::attest::hash::arguments_hash(Some(&raw))
        .map_err(|e| CliError::Usage(e.to_string()))?;
    ctx.out.line(&h);
    Ok(Exit::Ok)
}
