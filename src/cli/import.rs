//! `provscope import`: check sessions and write their claims and findings into the case store,
//! or (`--to provscope -o DIR`) write every session read from PATH... (any format provscope
//! reads) as a provscope session log.

use super::{CliError, CmdResult, Ctx, Exit, Settings};
use crate::check::SessionReport;
use crate::ingest::import::native;
use crate::pipeline::Pipeline;
use crate::store::{SessionRef, Store};
use std::io::Write;
use std::path::PathBuf;

/// Where `import` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    /// Check the sessions and import claims and findings into the case store (--db).
    Store,
    /// Write each session as a provscope session log into --output DIR.
    Provscope,
}

/// Arguments of `import`.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Session logs, traces or directories to check and import.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// What to import into.
    #[arg(long, value_enum, default_value_t = To::Store)]
    pub to: To,
    /// The directory for `--to provscope` (created if missing).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// Sessions are committed in batches: one transaction (one fsync) per batch.
const BATCH: usize = 1024;

/// Runs `import`.
pub fn run(ctx: &mut Ctx, st: &Settings, a: &ImportArgs) -> CmdResult {
    match a.to {
        To::Store => to_store(ctx, st, a),
        To::Provscope => to_native(ctx, st, a),
    }
}

/// `import --to provscope -o DIR`: one `.jsonl` per session (never over an existing file);
/// diagnostics on stderr.
fn to_native(ctx: &mut Ctx, st: &Settings, a: &ImportArgs) -> CmdResult {
    let Some(dir) = &a.output else {
        return Err(CliError::Usage(
            "import --to provscope needs --output DIR".into(),
        ));
    };
    std::fs::create_dir_all(dir).map_err(|e| CliError::write(dir, e))?;
    let inputs = st.pipeline.discover(&a.paths);
    ctx.diags(&inputs.errors);
    let mut bad = inputs.has_errors();
    let mut out = NativeOut {
        dir,
        used: std::collections::HashSet::new(),
        written: 0,
        group: Vec::new(),
    };
    let mut failed = None;
    st.pipeline.run(&inputs, |c| {
        let s = c.session;
        ctx.diags(&s.diagnostics);
        bad |= s.has_errors();
        if s.header.is_none() && s.calls.is_empty() && s.answers.is_empty() {
            return true;
        }
        // The sessions of one file are written together, so that a link between two of them
        // (a sub-agent cut out of a trace) can name the other's log.
        if out.group.first().is_some_and(|g| g.source != s.source) {
            if let Err(e) = out.flush(ctx) {
                failed = Some(e);
                return false;
            }
        }
        out.group.push(s);
        true
    });
    if failed.is_none() {
        failed = out.flush(ctx).err();
    }
    let written = out.written;
    if let Some(e) = failed {
        return Err(e);
    }
    writeln!(
        ctx.human(),
        "wrote {written} session logs to {}",
        dir.display()
    )
    .map_err(CliError::stdout)?;
    Ok(if bad { Exit::InputErrors } else { Exit::Ok })
}

/// Where `import --to provscope` writes: the log names given so far, and the sessions of the
/// file being read.
struct NativeOut<'a> {
    dir: &'a std::path::Path,
    used: std::collections::HashSet<String>,
    written: usize,
    group: Vec<crate::model::Session>,
}

impl NativeOut<'_> {
    /// Writes the held sessions of one file, each into a log of its own (never over an existing
    /// file). A call's link to a sub-agent session of the same file, which names no log, names
    /// the log that session is written to, so that `verify` follows it there.
    fn flush(&mut self, ctx: &mut Ctx) -> Result<(), CliError> {
        let mut group = std::mem::take(&mut self.group);
        let names: Vec<String> = group
            .iter()
            .map(|s| {
                let base = native::file_name(s);
                let mut name = base.clone();
                let mut n = 1;
                while !self.used.insert(name.clone()) {
                    n += 1;
                    name = format!("{}-{n}.jsonl", base.trim_end_matches(".jsonl"));
                }
                name
            })
            .collect();
        let by_id: std::collections::HashMap<String, String> = group
            .iter()
            .zip(&names)
            .map(|(s, n)| (s.id().to_owned(), n.clone()))
            .collect();
        for s in &mut group {
            for c in &mut s.calls {
                if let Some(link) = c.sub_session.as_deref_mut() {
                    if link.path.is_none() {
                        link.path = by_id.get(&link.id).cloned();
                    }
                }
            }
        }
        for (s, name) in group.iter().zip(&names) {
            let path = self.dir.join(name);
            let mut body = Vec::new();
            native::write_session(s, &mut body)
                .and_then(|()| crate::export::write_new(&path, &body, true))
                .map_err(|e| CliError::write(&path, e))?;
            self.written += 1;
            let _ = writeln!(
                ctx.human(),
                "{}  {}  ->  {}",
                s.format(),
                s.source,
                path.display()
            );
        }
        Ok(())
    }
}

/// `import` into the case store.
fn to_store(ctx: &mut Ctx, st: &Settings, a: &ImportArgs) -> CmdResult {
    let store = Store::open(&st.db_path())?;
    // The content hash is part of a session's identity in the store: hashed while loading.
    let mut pipeline: Pipeline = st.pipeline.clone();
    pipeline.load.hash_content = true;
    let inputs = pipeline.discover(&a.paths);
    ctx.diags(&inputs.errors);
    let t = std::time::Instant::now();
    let (mut rows, mut sessions) = (0usize, 0usize);
    let mut bad = inputs.has_errors();
    let mut batch: Vec<(SessionRef, SessionReport)> = Vec::with_capacity(BATCH);
    let mut failed: Option<CliError> = None;
    let mut flush = |batch: &mut Vec<(SessionRef, SessionReport)>| -> Result<(), CliError> {
        let n = store.import_reports(batch.iter().map(|(a, b)| (a, b)))?;
        rows += n;
        sessions += batch.len();
        batch.clear();
        Ok(())
    };
    pipeline.run(&inputs, |c| {
        ctx.diags(&c.session.diagnostics);
        bad |= c.session.has_errors();
        let path = std::path::absolute(&*c.session.source).map_or_else(
            |_| c.session.source.to_string(),
            |p| p.display().to_string(),
        );
        let sref = SessionRef {
            session_id: c.report.session_id.clone(),
            path,
            content_hash: c.session.content_hash.map(|h| format!("sha256:{h}")),
        };
        batch.push((sref, c.report));
        if batch.len() == BATCH {
            if let Err(e) = flush(&mut batch) {
                failed = Some(e);
                return false;
            }
        }
        true
    });
    if let Some(e) = failed {
        return Err(e);
    }
    flush(&mut batch)?;
    let secs = t.elapsed().as_secs_f64().max(1e-9);
    writeln!(
        ctx.human(),
        "imported {sessions} sessions, {rows} rows into {} ({:.0} rows/s including loading and checking)",
        store.path().display(),
        rows as f64 / secs
    )
    .map_err(CliError::stdout)?;
    Ok(if bad { Exit::InputErrors } else { Exit::Ok })
}
