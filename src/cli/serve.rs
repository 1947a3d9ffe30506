//! `provscope serve CASE.json`: the case's recorded servers as live stdio MCP servers.

use super::{CliError, CmdResult, Ctx, Exit};
use crate::export;
use crate::serve::{self, Replay};
use std::path::PathBuf;

/// Arguments of `serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The case (`provscope.case/2`; `provscope.case/1` is read too).
    pub case: PathBuf,
    /// The recorded server to serve (required when the case records several).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// Print the `mcpServers` entries a client needs (one per recorded server) instead of serving.
    #[arg(long)]
    pub client_config: bool,
    /// With --client-config: put `provscope record --key KEY` in front of each server.
    #[arg(long, value_name = "KEY", requires = "client_config")]
    pub record_key: Option<PathBuf>,
    /// With --record-key: the directory of the recorded logs (one `NAME.jsonl` per server).
    #[arg(long, value_name = "DIR", requires = "record_key")]
    pub record_dir: Option<PathBuf>,
    /// With --record-key: the session id every proxy records under (default: a new
    /// `rec-<UTC time>-<random>` id), so the servers' logs are one session.
    #[arg(long, value_name = "ID", requires = "record_key")]
    pub record_session_id: Option<String>,
}

fn absolute(p: &std::path::Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// Runs `serve`.
pub fn run(ctx: &mut Ctx, a: &ServeArgs) -> CmdResult {
    let case = export::case::read(&a.case)?;
    let names = serve::servers(&case);
    if a.client_config {
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "provscope".into());
        let key = a.record_key.as_deref().map(absolute);
        let dir = a
            .record_dir
            .as_deref()
            .map(absolute)
            .unwrap_or_else(|| absolute(std::path::Path::new(".")));
        let session_id = a
            .record_session_id
            .clone()
            .unwrap_or_else(|| crate::record::new_session_id(crate::model::Timestamp::now()));
        let cfg = serve::client_config(
            &case,
            &exe,
            &absolute(&a.case),
            key.as_deref().map(|key| serve::RecordWith {
                key,
                dir: dir.as_str(),
                session_id: &session_id,
            }),
        );
        serde_json::to_writer_pretty(&mut ctx.out, &cfg).map_err(|e| CliError::stdout(e.into()))?;
        ctx.out.line("");
        return Ok(Exit::Ok);
    }
    let server = match (&a.server, names.as_slice()) {
        (Some(s), _) => s.clone(),
        (None, [one]) => one.clone(),
        (None, _) => {
            return Err(CliError::Usage(format!(
                "{} records {} servers ({}): pick one with --server NAME (--client-config prints an entry for each)",
                a.case.display(),
                names.len(),
                names.join(", ")
            )))
        }
    };
    let replay = Replay::of(&case, &server).map_err(|e| CliError::Usage(e.to_string()))?;
    ctx.note(&format!(
        "serving {} ({} tool(s)) from case {} on stdio",
        replay.server,
        replay.tools.len(),
        replay.case_id
    ));
    serve::run_stdio(replay, Box::new(std::io::stderr()))
        .map_err(|e| CliError::Input(e.to_string()))?;
    Ok(Exit::Ok)
}
