//! `provscope import`: into the case store (the default, see `cases.rs`), or `--to provscope
//! -o DIR` to write every session read from PATH... (any format) as a provscope session log.

use super::{Out, EXIT_INPUT, EXIT_OK};
use crate::ingest::{self, import::native, LoadOptions};
use crate::text::one_line;
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
pub struct ImportCmd {
    /// The sessions to import.
    #[command(flatten)]
    pub store: super::cases::ImportArgs,
    /// What to import into.
    #[arg(long, value_enum, default_value_t = To::Store)]
    pub to: To,
    /// The directory for `--to provscope` (created if missing).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// `import --to provscope -o DIR`: one `.jsonl` per session; diagnostics on stderr.
pub fn to_native(out: &mut Out, a: &ImportCmd, opts: &LoadOptions, threads: usize) -> u8 {
    let Some(dir) = &a.output else {
        eprintln!("provscope: import --to provscope needs --output DIR");
        return EXIT_INPUT;
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("provscope: cannot create {}: {e}", dir.display());
        return EXIT_INPUT;
    }
    let loaded = ingest::load_paths(&a.store.paths, opts, threads);
    for d in loaded.diagnostics() {
        eprintln!("{}", one_line(&d.to_string()));
    }
    let mut used = std::collections::HashSet::new();
    let mut written = 0;
    for s in &loaded.sessions {
        if s.header.is_none() && s.calls.is_empty() && s.answers.is_empty() {
            continue;
        }
        let mut name = native::file_name(s);
        let mut n = 1;
        while !used.insert(name.clone()) {
            n += 1;
            name = format!(
                "{}-{n}.jsonl",
                native::file_name(s).trim_end_matches(".jsonl")
            );
        }
        let path = dir.join(&name);
        let res = std::fs::File::create(&path).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            native::write_session(s, &mut w)?;
            std::io::Write::flush(&mut w)
        });
        match res {
            Ok(()) => {
                written += 1;
                out.line(&format!(
                    "{}  {}  ->  {}",
                    s.format(),
                    one_line(&s.source),
                    one_line(&path.display().to_string())
                ));
            }
            Err(e) => {
                eprintln!("provscope: cannot write {}: {e}", path.display());
                return EXIT_INPUT;
            }
        }
    }
    out.line(&format!(
        "wrote {written} session logs to {}",
        one_line(&dir.display().to_string())
    ));
    if loaded.has_errors() {
        EXIT_INPUT
    } else {
        EXIT_OK
    }
}
