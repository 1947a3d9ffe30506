//! The command line: argument definitions and dispatch. Commands live one per file.
//!
//! Exit codes, the same for every command: 0 ok, 1 findings at or above `--fail-on`,
//! 2 usage error or unreadable input.

mod cases;
mod classify;
mod db;
mod envelope;
mod gen;
mod import;
mod keygen;
mod otlp;
mod output;
mod receipt;
mod record;
mod summary;
mod verify;

use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

pub use output::Out;

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
With no command it opens the explorer on PATH... (files or directories of *.jsonl), or on the bundled samples; without a terminal it prints their summary.",
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
    /// Threads used to load several files (default: all cores).
    #[arg(long, short = 'j', global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// Session logs or directories to open in the explorer (none: the bundled samples).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The command; none opens the explorer.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open session logs (files or directories); no PATH opens the bundled samples.
    Open {
        /// Session logs or directories of `*.jsonl`.
        paths: Vec<PathBuf>,
    },
    /// Print per session: turns, calls, results, claims, envelopes, diagnostics.
    Summary {
        /// Session logs or directories of `*.jsonl`; none means the bundled samples.
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = summary::Format::Text)]
        format: summary::Format,
    },
    /// Check every claim's provenance; exit 1 when findings reach --fail-on.
    Verify(verify::VerifyArgs),
    /// Citation precision, wrong-source rate, quadrant distribution and finding counts.
    Metrics(verify::MetricsArgs),
    /// Write deterministic synthetic sessions (every failure mode mixed in at a known rate).
    Gen(gen::GenArgs),
    /// Print the arguments hash (SHA-256 of RFC 8785 canonical JSON) of a tool call's arguments.
    Hash {
        /// The arguments as JSON; read from stdin when absent.
        json: Option<String>,
    },
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
        what: cases::ExportWhat,
    },
    /// Run exported cases against newly recorded sessions; exit 1 on any failure.
    Check(cases::CheckArgs),
    /// The incident-review write-up of a session (Markdown, JSON or HTML).
    Report(cases::ReportArgs),
    /// Quadrant distribution per recorded run, and the hidden-failure alarm (exit 1).
    Trend(cases::TrendArgs),
    /// Check sessions and import their claims and findings into the case store (--db).
    /// With `--to provscope -o DIR`: write every session read from PATH... (any format
    /// provscope reads) as a provscope session log.
    Import(import::ImportCmd),
    /// Record what happened to a flagged shipped answer and write its regression case.
    Correct(cases::CorrectArgs),
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

/// Parses the command line and runs the command.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_INPUT } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    ExitCode::from(dispatch(cli))
}

fn dispatch(cli: Cli) -> u8 {
    let opts = crate::ingest::LoadOptions {
        max_line_bytes: cli.max_line_bytes,
    };
    let threads = cli
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut out = Out::stdout();
    let color = cli.color.enabled();
    let needs_config = !matches!(
        cli.command,
        Some(Command::Gen(_))
            | Some(Command::Hash { .. })
            | Some(Command::Completions { .. })
            | Some(Command::Keygen(_))
            | Some(Command::Envelope(_))
            | Some(Command::Receipt(_))
            | Some(Command::Trend(_))
            | Some(Command::Db(_))
    );
    let cfg = if needs_config {
        match crate::check::Config::discover(cli.config.as_deref()) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("provscope: invalid configuration: {e}");
                return EXIT_INPUT;
            }
        }
    } else {
        crate::check::Config::default()
    };
    match cli.command {
        Some(Command::Verify(a)) => {
            verify::run(&mut out, &a, &opts, &cfg, threads, color, cli.db.as_deref())
        }
        Some(Command::Export {
            what: cases::ExportWhat::Case(a),
        }) => cases::export_case(&mut out, &a, &opts, &cfg),
        Some(Command::Check(a)) => cases::check(&mut out, &a, &opts, &cfg, threads),
        Some(Command::Report(a)) => cases::report(&mut out, &a, &opts, &cfg, cli.db.as_deref()),
        Some(Command::Trend(a)) => cases::trend(&mut out, &a, cli.db.as_deref()),
        Some(Command::Import(a)) => match a.to {
            import::To::Provscope => import::to_native(&mut out, &a, &opts, threads),
            import::To::Store => cases::import(&mut out, &a.store, &opts, &cfg, cli.db.as_deref()),
        },
        Some(Command::Correct(a)) => cases::correct(&mut out, &a, &opts, &cfg, cli.db.as_deref()),
        Some(Command::Metrics(a)) => verify::metrics(&mut out, &a, &opts, &cfg, threads),
        None => explore(
            &mut out,
            cli.paths.clone(),
            &opts,
            &cfg,
            cli.db.clone(),
            color,
            threads,
        ),
        Some(Command::Open { paths }) => {
            explore(&mut out, paths, &opts, &cfg, cli.db.clone(), color, threads)
        }
        Some(Command::Summary { paths, format }) => {
            summary::run(&mut out, &paths, format, &opts, &cfg, threads)
        }
        Some(Command::Gen(args)) => gen::run(&mut out, &args),
        Some(Command::Hash { json }) => hash(&mut out, json),
        Some(Command::Classify(a)) => classify::run(&mut out, &a, &opts, &cfg, cli.db.as_deref()),
        Some(Command::Classifications(a)) => classify::list(&mut out, &a, &opts, cli.db.as_deref()),
        Some(Command::Db(c)) => db::run(&mut out, &c, cli.db.as_deref()),
        Some(Command::StoreTorture(a)) => classify::torture(&a, cli.db.as_deref()),
        Some(Command::Keygen(a)) => keygen::run(&mut out, &a),
        Some(Command::Envelope(c)) => envelope::run(&mut out, &c),
        Some(Command::Receipt(c)) => receipt::run(&mut out, &c),
        Some(Command::Record(a)) => record::run(a, cli.max_line_bytes),
        Some(Command::Completions { shell }) => {
            let mut cmd = Cli::command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "provscope", &mut buf);
            out.bytes(&buf);
            EXIT_OK
        }
    }
}

/// Opens the explorer when stdin and stdout are a terminal; otherwise prints the summary.
fn explore(
    out: &mut Out,
    paths: Vec<PathBuf>,
    opts: &crate::ingest::LoadOptions,
    cfg: &crate::check::Config,
    db: Option<PathBuf>,
    color: bool,
    threads: usize,
) -> u8 {
    use std::io::IsTerminal;
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        return summary::run(out, &paths, summary::Format::Text, opts, cfg, threads);
    }
    crate::tui::run(crate::tui::Options {
        paths,
        load: opts.clone(),
        config: cfg.clone(),
        db: db.unwrap_or_else(crate::store::Store::default_location),
        color,
    })
}

fn hash(out: &mut Out, json: Option<String>) -> u8 {
    let text = match json {
        Some(t) => t,
        None => {
            let mut s = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
                eprintln!("provscope: cannot read stdin: {e}");
                return EXIT_INPUT;
            }
            s
        }
    };
    let raw = match serde_json::value::RawValue::from_string(text.trim().to_owned()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("provscope: the arguments are not valid JSON: {e}");
            return EXIT_INPUT;
        }
    };
    match crate::attest::hash::arguments_hash(Some(&raw)) {
        Ok(h) => {
            out.line(&h);
            EXIT_OK
        }
        Err(e) => {
            eprintln!("provscope: {e}");
            EXIT_INPUT
        }
    }
}
