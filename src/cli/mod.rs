//! The command line: argument definitions, options resolved once ([`Settings`]), dispatch,
//! and the one place that prints errors ([`run`]). Commands live one per file and return a
//! [`CmdResult`]; they write through [`Ctx`]: machine formats to stdout as serialized,
//! everything for people through the sanitizing boundary.
//!
//! Exit codes, the same for every command: 0 ok, 1 findings at or above `--fail-on`,
//! 2 usage error, unreadable input or a failed write (a closed pipe on stdout is 0).

mod check;
mod classify;
mod correct;
mod db;
mod diff;
mod envelope;
mod error;
mod explore;
mod export_case;
mod follow;
mod gen;
mod hash;
mod import;
mod keygen;
mod metrics;
mod otlp;
mod output;
mod receipt;
mod record;
mod report;
mod serve;
mod summary;
mod trend;
mod verify;

use clap::{CommandFactory, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use error::{CliError, CmdResult, Exit};
pub use output::{Ctx, Out};

/// Exit code: nothing to report.
pub const EXIT_OK: u8 = 0;
/// Exit code: findings reached the failure threshold.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code: usage error or unreadable input.
pub const EXIT_INPUT: u8 = 2;

/// Proves where every claim in an AI agent's answer came from.
#[derive(Parser, Debug)]
#[command(
    name = "provscope",
    version,
    about,
    long_about = "provscope loads recorded MCP agent sessions (tool calls, tagged results, answers with \
provenance stamps, signed execution envelopes) and shows where every claim came from.\n\n\
With no command it opens the explorer on PATH... (session logs, or the transcripts and traces agents and tracing \
tools write: files or directories, the format read from each file's content), or on the bundled samples; without \
a terminal it prints their summary.",
    after_help = "Exit codes: 0 ok, 1 findings at or above --fail-on, 2 usage error or unreadable input."
)]
pub struct Cli {
    /// Skip (with a diagnostic) any log line longer than this many bytes.
    #[arg(long, global = true, default_value_t = crate::ingest::DEFAULT_MAX_LINE_BYTES, value_name = "BYTES")]
    pub max_line_bytes: usize,
    /// The case database (default: under the platform data directory).
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Configuration file (default: ./provscope.toml when present).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// When to colour output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Follow links to sub-agent session logs even outside the referring log's directory
    /// (absolute paths, `..`, symlinks out); without it such links are reported, not followed.
    #[arg(long, global = true)]
    pub follow_outside: bool,
    /// Threads used to load several files (default: all cores).
    #[arg(long, short = 'j', global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// Session logs, traces or directories to open in the explorer (none: the bundled samples).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Follow the opened logs as they grow (in the explorer `F` toggles it): new turns, calls,
    /// results, answers and envelopes appear as they are appended.
    #[arg(long)]
    pub follow: bool,
    /// The command; none opens the explorer.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open session logs (files or directories); no PATH opens the bundled samples.
    Open {
        /// Session logs, traces or directories.
        paths: Vec<PathBuf>,
        /// Start on this claim (the first session and turn that state it).
        #[arg(long, value_name = "ID")]
        claim: Option<String>,
        /// With --claim: the turn that states it.
        #[arg(long, value_name = "N", requires = "claim")]
        turn: Option<u32>,
        /// Follow the logs as they grow (in the explorer `F` toggles it).
        #[arg(long)]
        follow: bool,
    },
    /// Print per session: turns, calls, results, claims, envelopes, diagnostics.
    Summary(summary::SummaryArgs),
    /// Check every claim's provenance; exit 1 when findings reach --fail-on.
    Verify(verify::VerifyArgs),
    /// What changed between two sessions, or two runs (directories): per claim, per turn and in
    /// the metrics; exit 1 when a claim got worse (--fail-on).
    Diff(diff::DiffArgs),
    /// Citation precision, wrong-source rate, quadrant distribution and finding counts.
    Metrics(metrics::MetricsArgs),
    /// Write deterministic synthetic sessions (every failure mode mixed in at a known rate).
    Gen(gen::GenArgs),
    /// Print the arguments hash (SHA-256 of RFC 8785 canonical JSON) of a tool call's arguments.
    Hash(hash::HashArgs),
    /// Write a new Ed25519 key pair for sealing envelopes: NAME.key (PKCS#8 PEM, mode 0600) and NAME.pub.
    Keygen(keygen::KeygenArgs),
    /// Standalone DSSE execution envelopes: verify with a public key, or inspect.
    #[command(subcommand)]
    Envelope(envelope::EnvelopeCmd),
    /// ArkForge "Agent Action Receipt" proofs (proof-spec 2.1.0).
    #[command(subcommand)]
    Receipt(receipt::ReceiptCmd),
    /// Record a live MCP session: an attesting stdio proxy in front of SERVER_CMD that appends
    /// every answered tools/call, with a sealed envelope, to a session log.
    Record(record::RecordArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Export a case (`export case SESSION --claim ID`): a conflicting-source regression test.
    Export {
        /// What to export.
        #[command(subcommand)]
        what: export_case::ExportWhat,
    },
    /// Run exported cases against newly recorded sessions; exit 1 on any failure.
    Check(check::CheckArgs),
    /// Serve a case's recorded servers as live stdio MCP servers (one per --server NAME), so an
    /// agent under test meets the conflict; --client-config prints the mcpServers entries.
    Serve(serve::ServeArgs),
    /// The incident-review write-up of a session (Markdown, JSON or HTML).
    Report(report::ReportArgs),
    /// Quadrant distribution per recorded run, and the hidden-failure alarm (exit 1).
    Trend(trend::TrendArgs),
    /// Check sessions and import their claims and findings into the case store (--db).
    /// With `--to provscope -o DIR`: write every session read from PATH... (any format
    /// provscope reads) as a provscope session log.
    Import(import::ImportArgs),
    /// Record what happened to a flagged shipped answer and write its regression case.
    Correct(correct::CorrectArgs),
    /// Put a claim in the fact-versus-source grid; kept in the case store (--db).
    Classify(classify::ClassifyArgs),
    /// List a session's classifications from the case store (--db).
    Classifications(classify::ClassificationsArgs),
    /// The case store's schema: `migrate` applies pending migrations, `status` shows them.
    #[command(subcommand)]
    Db(db::DbCmd),
    /// Test-only: classify in a loop, printing each committed index (crash tests).
    #[command(name = "__store-torture", hide = true)]
    StoreTorture(classify::TortureArgs),
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    fn enabled(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Options resolved once from the command line, the environment and `provscope.toml`;
/// nothing downstream reads flags or the environment again.
pub struct Settings {
    /// Loading, checking and threads.
    pub pipeline: crate::pipeline::Pipeline,
    /// `--db`, when given.
    pub db: Option<PathBuf>,
    /// Colour on stdout.
    pub color: bool,
}

impl Settings {
    /// The case store: `--db`, else `$PROVSCOPE_DB`, else the default under the platform data
    /// directory (a path, or a `postgres://` URL).
    pub fn db_path(&self) -> PathBuf {
        self.db
            .clone()
            .unwrap_or_else(crate::store::Store::default_location)
    }

    /// `--db` as given.
    pub fn db(&self) -> Option<&Path> {
        self.db.as_deref()
    }

    /// The check configuration.
    pub fn config(&self) -> &crate::check::Config {
        &self.pipeline.config
    }

    /// The loader settings.
    pub fn load(&self) -> &crate::ingest::LoadOptions {
        &self.pipeline.load
    }
}

/// Parses the command line, runs the command, and is the one place that prints its error and
/// turns the result into the exit code.
pub fn run() -> ExitCode {
    run_with(|| {})
}

/// [`run`], calling `explorer_opens` once before the explorer's screen opens: the binary sets
/// up its allocator there for a process that holds what it loads for as long as it runs.
pub fn run_with(explorer_opens: fn()) -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let mut ctx = match &cli.command {
        // `serve` speaks MCP on stdout from another thread: it must not be locked here.
        Some(Command::Serve(a)) if !a.client_config => Ctx::new(
            Out::new(Box::new(std::io::sink())),
            Box::new(std::io::stderr()),
            false,
        ),
        _ => Ctx::stdio(cli.color.enabled()),
    };
    ctx.explorer_opens = explorer_opens;
    let result = dispatch(cli, &mut ctx);
    ExitCode::from(finish(&mut ctx, result))
}

/// Maps a command's result and stdout's state to the exit code, printing any error.
pub fn finish(ctx: &mut Ctx, result: CmdResult) -> u8 {
    use std::io::Write;
    let written = ctx.out.finish();
    match (result, written) {
        (Err(e), _) if e.is_closed_pipe() => 0,
        (Err(e), _) => {
            let _ = writeln!(ctx.err, "provscope: {e}");
            2
        }
        (Ok(_), Err(e)) => {
            let _ = writeln!(ctx.err, "provscope: {}", CliError::stdout(e));
            2
        }
        (Ok(_), Ok(true)) => 0,
        (Ok(exit), Ok(false)) => exit.code(),
    }
}

fn dispatch(cli: Cli, ctx: &mut Ctx) -> CmdResult {
    let load = crate::ingest::LoadOptions {
        max_line_bytes: cli.max_line_bytes,
        // `verify --record-run` identifies its inputs by content, hashed while they are read.
        hash_content: matches!(&cli.command, Some(Command::Verify(v)) if v.record_run),
    };
    let needs_config = !matches!(
        cli.command,
        Some(Command::Gen(_))
            | Some(Command::Hash(_))
            | Some(Command::Completions { .. })
            | Some(Command::Keygen(_))
            | Some(Command::Envelope(_))
            | Some(Command::Receipt(_))
            | Some(Command::Trend(_))
            | Some(Command::Serve(_))
            | Some(Command::Db(_))
    );
    let mut config = if needs_config {
        crate::check::Config::discover(cli.config.as_deref())?
    } else {
        crate::check::Config::default()
    };
    config.sub_sessions.allow_outside |= cli.follow_outside;
    let st = Settings {
        pipeline: crate::pipeline::Pipeline::new(load, config, cli.threads.unwrap_or(0)),
        db: cli.db.clone(),
        color: ctx.color,
    };
    match cli.command {
        None => explore::run(ctx, &st, cli.paths.clone(), None, cli.follow),
        Some(Command::Open {
            paths,
            claim,
            turn,
            follow,
        }) => explore::run(
            ctx,
            &st,
            paths,
            claim.map(|claim| crate::tui::StartAt { claim, turn }),
            follow || cli.follow,
        ),
        Some(Command::Verify(a)) => verify::run(ctx, &st, &a),
        Some(Command::Diff(a)) => diff::run(ctx, &st, &a),
        Some(Command::Metrics(a)) => metrics::run(ctx, &st, &a),
        Some(Command::Summary(a)) => summary::run(ctx, &st, &a),
        Some(Command::Export {
            what: export_case::ExportWhat::Case(a),
        }) => export_case::run(ctx, &st, &a),
        Some(Command::Check(a)) => check::run(ctx, &st, &a),
        Some(Command::Serve(a)) => serve::run(ctx, &a),
        Some(Command::Report(a)) => report::run(ctx, &st, &a),
        Some(Command::Trend(a)) => trend::run(ctx, &st, &a),
        Some(Command::Import(a)) => import::run(ctx, &st, &a),
        Some(Command::Correct(a)) => correct::run(ctx, &st, &a),
        Some(Command::Gen(a)) => gen::run(ctx, &a),
        Some(Command::Hash(a)) => hash::run(ctx, &a),
        Some(Command::Completions { shell }) => {
            let mut cmd = Cli::command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "provscope", &mut buf);
            ctx.out.bytes(&buf);
            Ok(Exit::Ok)
        }
        Some(Command::Classify(a)) => classify::run(ctx, &a, st.load(), st.config(), st.db()),
        Some(Command::Classifications(a)) => classify::list(ctx, &a, st.load(), st.db()),
        Some(Command::Db(c)) => db::run(ctx, &c, st.db()),
        Some(Command::StoreTorture(a)) => classify::torture(&a, st.db()),
        Some(Command::Keygen(a)) => keygen::run(ctx, &a),
        Some(Command::Envelope(c)) => envelope::run(ctx, &c),
        Some(Command::Receipt(c)) => receipt::run(ctx, &c),
        Some(Command::Record(a)) => record::run(a, cli.max_line_bytes),
    }
}

/// Loads and checks one log a command works on. The pipeline's rule decides: an unreadable
/// log stops the command; a damaged one is used with its diagnostics printed.
fn load_one(
    ctx: &mut Ctx,
    st: &Settings,
    path: &Path,
) -> Result<crate::pipeline::Checked, CliError> {
    let s = crate::ingest::load_file(path, st.load());
    ctx.diags(&s.diagnostics);
    if crate::pipeline::Readability::of(&s) == crate::pipeline::Readability::Unreadable {
        return Err(CliError::Input(format!(
            "{}: cannot be used (see the diagnostics above)",
            path.display()
        )));
    }
    let report = st.pipeline.check(&s);
    Ok(crate::pipeline::Checked { session: s, report })
}

/// Writes `body` to `path` (never through a symlink, never over a file unless `force`), or to
/// stdout when `path` is `None`.
fn write_or_print(ctx: &mut Ctx, path: Option<&Path>, body: &str, force: bool) -> CmdResult {
    match path {
        Some(p) => crate::export::write_new(p, body.as_bytes(), force)
            .map_err(|e| CliError::write(p, e))?,
        None => ctx.out.str(body),
    }
    Ok(Exit::Ok)
}
