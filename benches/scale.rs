//! Linear at any shape (issue 18): the same tool calls in one long session and spread over
//! 10,000 sessions, at 100k, 400k and 1M calls, through the `provscope` binary: time per call
//! and peak RSS of `verify --format json -j1` and `summary -j1`, and the explorer's time to its
//! session view (the first session loaded and checked by its background loader) with its
//! memory per call. Then envelopes: the rate of envelope checking inside `verify -j1` against
//! the attest bench's batch-256 loop, in the same run.
//!
//! Run: `cargo bench --bench scale` (`-- --calls 100000,400000` for other sizes; `-- --keep` to
//! keep the generated inputs under `target/bench-data/scale/`, several GB at 1M calls;
//! `-- --no-explorer` to skip the explorer columns; `-- --only envelopes` for the envelope rows
//! alone, `SCALE_ENVELOPE_CHILDREN=N` for the child processes per shape (5) and
//! `SCALE_ENVELOPE_ROUNDS=N` for each child's rounds (7); `-- --explorer-only` for the
//! explorer alone, large logs opened in steps against whole files in the same run;
//! `SCALE_BIN=path` measures another
//! `provscope` binary's verify and summary on the same inputs, e.g. a copy of the release
//! binary, since the shared target directory's binary may be rebuilt by someone else meanwhile).
//! Each measurement runs in a child process; peak RSS is its `VmHWM`, read while it runs.
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use provscope::attest::dsse::{self, Envelope, SigCheck};
use provscope::check::{check_sessions, Config};
use provscope::gen::{write_session, GenSpec};
use provscope::ingest::{load_file, LoadOptions};
use provscope::pipeline::Groups;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BIN: &str = env!("CARGO_BIN_EXE_provscope");
/// Calls per turn in every shape.
const PER_TURN: u32 = 2;
const SESSIONS: u64 = 10_000;

fn vmhwm_kb(pid: Option<u32>) -> u64 {
    match pid {
        Some(p) => common::vmhwm_kb_in(&format!("/proc/{p}/status")),
        None => common::vmhwm_kb(),
    }
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// `sessions` sessions of `calls / sessions` calls each, `PER_TURN` calls per turn.
fn generate(dir: &Path, calls: u64, sessions: u64, envelopes: bool) {
    let done = dir.join(".done");
    if done.exists() {
        return;
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let spec = GenSpec {
        turns: u32::try_from(calls / sessions / PER_TURN as u64).unwrap(),
        calls: PER_TURN,
        seed: 42,
        fault_rate: 0.25,
        result_bytes: 600,
        envelopes,
        sub_agents: false,
    };
    for i in 0..sessions {
        let p = dir.join(format!("gen-{i:06}.jsonl"));
        let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&p).unwrap());
        write_session(&mut w, &spec, i).unwrap();
        w.flush().unwrap();
    }
    std::fs::write(done, b"").unwrap();
}

/// Runs a command with stdout discarded: wall time and peak RSS (polled every 5 ms; the high
/// water mark only grows, so a late poll loses at most the last 5 ms of growth).
fn measure(mut cmd: Command) -> (f64, u64) {
    let t = Instant::now();
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0;
    loop {
        peak = peak.max(vmhwm_kb(Some(pid)));
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.code().is_some_and(|c| c <= 1), "{cmd:?}: {status}");
            return (t.elapsed().as_secs_f64(), peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn best(runs: usize, f: impl Fn() -> (f64, u64)) -> (f64, u64) {
    (0..runs)
        .map(|_| f())
        .fold((f64::MAX, 0), |(t, m), (t2, m2)| (t.min(t2), m.max(m2)))
}

/// The binary measured: this build's, or `$SCALE_BIN` (an earlier build, for before/after).
fn provscope(args: &[&str], dir: &Path) -> Command {
    let bin = std::env::var_os("SCALE_BIN").unwrap_or_else(|| BIN.into());
    let mut c = Command::new(bin);
    c.args(args).arg(dir);
    c
}

/// Child: the explorer's loader on `dir` (one thread, as `-j1`; `whole`: every file loaded
/// whole, as before large logs opened in steps); prints the time to the session view (the
/// first session, or the first step of a large one, loaded and checked), the time until every
/// session is whole and checked, and then the peak RSS holding them all (a step replaces the
/// last step of its file, and each is held in its own `Arc`, as the explorer's
/// `App::push_session` holds it: a list of the sessions themselves would add its spare capacity).
/// The allocator is set up as the `provscope` binary sets it up before the explorer opens
/// ([`explorer_allocator`]).
fn explorer_child(dir: &Path, whole: bool) {
    use provscope::tui::action::LoadMsg;
    use provscope::tui::loader::{spawn_steps, Steps};
    explorer_allocator();
    let t = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    let steps = if whole {
        Steps {
            min_file: u64::MAX,
            ..Steps::default()
        }
    } else {
        Steps::default()
    };
    spawn_steps(
        vec![dir.to_path_buf()],
        LoadOptions::default(),
        Config::default(),
        1,
        steps,
        move |m| tx.send(m).is_ok(),
    );
    let mut first = None;
    let mut held = Vec::new();
    let mut growing = std::collections::HashMap::new();
    let mut step_count = 0;
    while let Ok(m) = rx.recv() {
        match m {
            LoadMsg::Sessions(v) => {
                first.get_or_insert(t.elapsed().as_secs_f64());
                held.extend(v.into_iter().map(std::sync::Arc::new));
            }
            LoadMsg::Step { source, loaded, .. } => {
                first.get_or_insert(t.elapsed().as_secs_f64());
                step_count += 1;
                match growing.get(&source) {
                    Some(&k) => held[k] = std::sync::Arc::new(*loaded),
                    None => {
                        growing.insert(source, held.len());
                        held.push(std::sync::Arc::new(*loaded));
                    }
                }
            }
            LoadMsg::Done => break,
            _ => {}
        }
    }
    let all = t.elapsed().as_secs_f64();
    if std::env::var_os("SCALE_PAGES").is_some() {
        page_census();
    }
    println!(
        "{{\"first\":{},\"all\":{all},\"vmhwm_kb\":{},\"sessions\":{},\"steps\":{step_count}}}",
        first.unwrap_or_default(),
        vmhwm_kb(None),
        held.len()
    );
}

/// mimalloc's pages by block size (`SCALE_PAGES=1`, to stderr): how many pages, the bytes they
/// reserve and the bytes their live blocks use, so the gap between peak RSS and what is held
/// can be put on the size classes that leave their pages part empty.
fn page_census() {
    #[repr(C)]
    struct Area {
        blocks: *mut std::ffi::c_void,
        reserved: usize,
        committed: usize,
        used: usize,
        block_size: usize,
        full_block_size: usize,
        reserved1: *mut std::ffi::c_void,
    }
    type Visit = extern "C" fn(
        *const std::ffi::c_void,
        *const Area,
        *mut std::ffi::c_void,
        usize,
        *mut std::ffi::c_void,
    ) -> bool;
    extern "C" {
        fn mi_heap_visit_blocks(
            heap: *mut std::ffi::c_void,
            visit_blocks: bool,
            visitor: Visit,
            arg: *mut std::ffi::c_void,
        ) -> bool;
        fn mi_collect(force: bool);
    }
    /// Per block size: pages, bytes reserved, bytes committed, blocks in use.
    type Census = std::collections::BTreeMap<usize, (usize, usize, usize, usize)>;
    extern "C" fn visit(
        _heap: *const std::ffi::c_void,
        area: *const Area,
        _block: *mut std::ffi::c_void,
        _size: usize,
        arg: *mut std::ffi::c_void,
    ) -> bool {
        // SAFETY: mimalloc passes a valid area for the duration of the call, and `arg` is the
        // `Census` handed to `mi_heap_visit_blocks` below.
        let (a, census) = unsafe { (&*area, &mut *arg.cast::<Census>()) };
        let e = census.entry(a.block_size).or_default();
        e.0 += 1;
        e.1 += a.reserved;
        e.2 += a.committed;
        e.3 += a.used;
        true
    }
    let mut census = Census::new();
    // SAFETY: the visitor only reads the areas; nothing else allocates while it runs (the
    // loader has finished), and `census` outlives the call.
    unsafe {
        mi_collect(true);
        mi_heap_visit_blocks(
            std::ptr::null_mut(),
            false,
            visit,
            (&mut census as *mut Census).cast(),
        );
    }
    let (mut pages, mut committed, mut used) = (0, 0, 0);
    eprintln!("block_size pages committed_kb used_kb use%");
    for (size, (p, _r, c, u)) in &census {
        let u = u * size;
        pages += p;
        committed += c;
        used += u;
        eprintln!(
            "{size} {p} {} {} {:.0}",
            c / 1024,
            u / 1024,
            100.0 * u as f64 / (*c).max(1) as f64
        );
    }
    eprintln!(
        "all {pages} {} {} {:.0}",
        committed / 1024,
        used / 1024,
        100.0 * used as f64 / committed.max(1) as f64
    );
}

/// What `provscope`'s `main` does before the explorer opens (`return_freed_memory_sooner`):
/// mimalloc's purge delay 10 ms instead of 1 s.
fn explorer_allocator() {
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    /// `mi_option_purge_delay` in mimalloc.h (v2 and v3), in milliseconds.
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    // SAFETY: `mi_option_set` stores an option's value; the mimalloc linked here for `ALLOC`
    // defines it.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 10) }
}

/// The time this thread spent on a CPU (`/proc/thread-self/schedstat`, nanoseconds), or wall
/// time where that file is missing: on a machine shared with other builds, the time a
/// measurement waited for a core is not part of its cost.
struct CpuClock {
    wall: Instant,
    cpu: Option<u64>,
}

impl CpuClock {
    fn now_ns() -> Option<u64> {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    }

    fn start() -> Self {
        CpuClock {
            wall: Instant::now(),
            cpu: Self::now_ns(),
        }
    }

    /// Seconds since `start`.
    fn elapsed(&self) -> f64 {
        match (self.cpu, Self::now_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e9,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

fn child_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Child: envelope checking inside the checks on the sealed sessions of `dir`, grouped as
/// `verify -j1` groups them (`pipeline::Groups`, `check_sessions`): the checks with and without
/// the envelopes on the same loaded sessions; the difference is what the envelopes cost.
/// Against it, the attest bench's loop (parse, PAE, `verify_all` per 256) over the same
/// envelopes. Times are this thread's CPU time ([`CpuClock`]).
fn envelopes_child(dir: &Path) {
    let cfg = Config::default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let sealed: Vec<_> = files
        .iter()
        .map(|f| load_file(f, &LoadOptions::default()))
        .collect();
    let mut bare = sealed.clone();
    for s in &mut bare {
        s.envelopes.clear();
        s.index.envelope.clear();
        if let Some(h) = &mut s.header {
            h.require_envelopes = false;
        }
    }
    let n: usize = sealed.iter().map(|s| s.envelopes.len()).sum();
    // The groups of `verify -j1` (`pipeline::Groups`), as ranges of sessions.
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    {
        let (mut groups, mut ready, mut at) = (Groups::default(), Vec::new(), 0);
        let mut take = |g: Vec<&provscope::model::Session>| {
            if !g.is_empty() {
                spans.push(at..at + g.len());
                at += g.len();
            }
        };
        for s in &sealed {
            groups.push(s, &mut ready);
            ready.drain(..).for_each(&mut take);
        }
        take(groups.finish());
    }
    // The checks of one group: with its envelopes, the group checked together as `verify -j1`
    // checks it; without, each session alone (a session without envelopes is a group of its
    // own).
    let check = |set: &[provscope::model::Session], together: bool| {
        let t = CpuClock::start();
        let pairs: Vec<_> = set.iter().map(|s| (s, &[][..])).collect();
        let f: usize = if together {
            check_sessions(&pairs, &cfg)
                .iter()
                .map(|r| r.findings.len())
                .sum()
        } else {
            pairs
                .chunks(1)
                .flat_map(|p| check_sessions(p, &cfg))
                .map(|r| r.findings.len())
                .sum()
        };
        std::hint::black_box(f);
        t.elapsed()
    };
    // The attest bench's batch-256 loop over the same envelopes.
    let lines: Vec<&str> = sealed
        .iter()
        .flat_map(|s| s.envelopes.iter().map(|e| e.raw.get()))
        .collect();
    let key = sealed
        .iter()
        .find_map(|s| {
            let k = s.header.as_ref()?.servers.first()?.attestor_keys.first()?;
            provscope::attest::keys::parse_public(k).ok()
        })
        .unwrap();
    let batch = |chunks: &[&[&str]]| {
        let t = CpuClock::start();
        let mut ok = 0;
        for chunk in chunks {
            let envs: Vec<Envelope> = chunk.iter().map(|l| Envelope::parse(l).unwrap()).collect();
            let paes: Vec<Vec<u8>> = envs.iter().map(|e| e.pae()).collect();
            let checks: Vec<SigCheck> = envs
                .iter()
                .zip(&paes)
                .map(|(e, p)| SigCheck {
                    msg: p,
                    sig: &e.signatures[0].sig,
                    key: &key,
                })
                .collect();
            ok += dsse::verify_all(&checks).iter().filter(|b| **b).count();
        }
        std::hint::black_box(ok);
        t.elapsed()
    };
    let chunks: Vec<&[&str]> = lines.chunks(256).collect();
    // The three measurements interleaved group by group, their order rotating, `rounds` rounds:
    // a group's envelope cost is its checks with envelopes minus without, set against the
    // batch-256 chunks that start among its envelopes. A round's ratio is the sum over its
    // groups; the figure is the median over rounds. A busy moment on this shared machine then
    // touches the three measurements of one group alike, and spoils one round at most (the
    // difference of two bests from different passes over all sessions swung by 20 points).
    let rounds: usize = std::env::var("SCALE_ENVELOPE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let (mut with, mut without, mut batch256, mut ratio) = (vec![], vec![], vec![], vec![]);
    for r in 0..rounds.max(1) {
        let (mut w, mut wo, mut b) = (0.0, 0.0, 0.0);
        let mut first = 0usize; // the first envelope of the group
        for (gi, span) in spans.iter().enumerate() {
            let count: usize = sealed[span.clone()].iter().map(|s| s.envelopes.len()).sum();
            let mine = first.div_ceil(256)..(first + count).div_ceil(256);
            first += count;
            for k in 0..3 {
                match (r + gi + k) % 3 {
                    0 => w += check(&sealed[span.clone()], true),
                    1 => wo += check(&bare[span.clone()], false),
                    _ => b += batch(&chunks[mine.clone()]),
                }
            }
        }
        with.push(w);
        without.push(wo);
        batch256.push(b);
        ratio.push(b / (w - wo));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let quartiles = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 4], v[(3 * v.len()) / 4])
    };
    let ratios = serde_json::to_string(&ratio).unwrap();
    let (q1, q3) = quartiles(&mut ratio);
    println!(
        "{{\"envelopes\":{n},\"rounds\":{},\"check_with\":{},\"check_without\":{},\"batch256\":{},\"ratio\":{},\"ratio_q1\":{q1},\"ratio_q3\":{q3},\"ratios\":{ratios}}}",
        ratio.len(),
        median(&mut with),
        median(&mut without),
        median(&mut batch256),
        median(&mut ratio),
    );
}

/// The explorer alone (`--explorer-only`): large logs opened in steps against every file
/// loaded whole (the explorer before steps), in the same run.
fn explorer_table(sizes: &[u64], root: &Path, keep: bool) {
    println!("| shape | calls | input MB | session view s | all checked s | steps | KB/call | whole file: session view s | whole file: KB/call | session view, whole / steps |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &calls in sizes {
        for (shape, sessions) in [("one session", 1), ("10,000 sessions", SESSIONS)] {
            let dir = root.join(format!(
                "{}-{calls}",
                if sessions == 1 { "one" } else { "many" }
            ));
            generate(&dir, calls, sessions, false);
            let d = dir.to_str().unwrap();
            let ex = child_json(&["--child", "explorer", d]);
            let first = ex["first"].as_f64().unwrap();
            let kb = |v: &serde_json::Value| v["vmhwm_kb"].as_u64().unwrap() as f64 / calls as f64;
            let whole = if sessions == 1 {
                let w = child_json(&["--child", "explorer-whole", d]);
                let wf = w["first"].as_f64().unwrap();
                format!("{wf:.2} | {:.2} | {:.0}x", kb(&w), wf / first)
            } else {
                "- | - | -".to_owned()
            };
            println!(
                "| {shape} | {calls} | {:.0} | {first:.2} | {:.2} | {} | {:.2} | {whole} |",
                dir_bytes(&dir) as f64 / 1e6,
                ex["all"].as_f64().unwrap(),
                ex["steps"],
                kb(&ex),
            );
            if !keep {
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let dir = Path::new(&args[i + 2]);
        match args[i + 1].as_str() {
            "explorer" => explorer_child(dir, false),
            "explorer-whole" => explorer_child(dir, true),
            "envelopes" => envelopes_child(dir),
            m => panic!("unknown child {m}"),
        }
        return;
    }
    let sizes: Vec<u64> = args
        .iter()
        .position(|a| a == "--calls")
        .map(|i| args[i + 1].split(',').map(|s| s.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![100_000, 400_000, 1_000_000]);
    // `--only envelopes` skips the size rows.
    let only_envelopes = args
        .iter()
        .position(|a| a == "--only")
        .is_some_and(|i| args.get(i + 1).is_some_and(|v| v == "envelopes"));
    let sizes = if only_envelopes { Vec::new() } else { sizes };
    let keep = args.iter().any(|a| a == "--keep");
    let no_explorer = args.iter().any(|a| a == "--no-explorer");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/scale");
    if args.iter().any(|a| a == "--explorer-only") {
        explorer_table(&sizes, &root, keep);
        return;
    }
    println!("| shape | calls | input MB | verify -j1 µs/call | verify peak RSS MB | summary -j1 µs/call | summary peak RSS MB | explorer: session view s | explorer KB/call |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut per_call: Vec<(String, u64, f64, f64)> = Vec::new();
    let mut rss: Vec<(u64, u64, u64)> = Vec::new();
    for &calls in &sizes {
        for (shape, sessions) in [("one session", 1), ("10,000 sessions", SESSIONS)] {
            let dir = root.join(format!(
                "{}-{calls}",
                if sessions == 1 { "one" } else { "many" }
            ));
            generate(&dir, calls, sessions, false);
            let bytes = dir_bytes(&dir);
            let runs = if calls >= 400_000 { 1 } else { 2 };
            let (vt, vm) = best(runs, || {
                measure(provscope(
                    &[
                        "verify",
                        "--format",
                        "json",
                        "-j1",
                        "--now",
                        "2026-11-01T00:00:00Z",
                    ],
                    &dir,
                ))
            });
            let (st, sm) = best(runs, || measure(provscope(&["summary", "-j1"], &dir)));
            let explorer = if no_explorer {
                "| - | - |".to_owned()
            } else {
                let ex = child_json(&["--child", "explorer", dir.to_str().unwrap()]);
                format!(
                    "| {:.2} | {:.2} |",
                    ex["first"].as_f64().unwrap(),
                    ex["vmhwm_kb"].as_u64().unwrap() as f64 / calls as f64
                )
            };
            println!(
                "| {shape} | {calls} | {:.0} | {:.2} | {:.0} | {:.2} | {:.0} {explorer}",
                bytes as f64 / 1e6,
                vt / calls as f64 * 1e6,
                vm as f64 / 1024.0,
                st / calls as f64 * 1e6,
                sm as f64 / 1024.0,
            );
            per_call.push((
                shape.to_owned(),
                calls,
                vt / calls as f64,
                st / calls as f64,
            ));
            if sessions > 1 {
                rss.push((bytes, vm, calls / sessions));
            }
            if !keep {
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
    }
    if let (Some(&lo), Some(&hi)) = (sizes.first(), sizes.last()) {
        for shape in ["one session", "10,000 sessions"] {
            let at = |n| per_call.iter().find(|p| p.0 == shape && p.1 == n).unwrap();
            let (a, b) = (at(lo), at(hi));
            println!(
                "{shape}: time per call at {hi} / at {lo}: verify {:.2}x, summary {:.2}x (goal <= 1.3x)",
                b.2 / a.2,
                b.3 / a.3
            );
        }
        if let (Some(a), Some(b)) = (rss.first(), rss.last()) {
            println!(
                "verify peak RSS, 10,000 sessions: {:.0} MB at {:.0} MB of input ({} calls each), {:.0} MB at {:.0} MB ({} calls each): {:.2}x (goal <= 1.2x)",
                a.1 as f64 / 1024.0,
                a.0 as f64 / 1e6,
                a.2,
                b.1 as f64 / 1024.0,
                b.0 as f64 / 1e6,
                b.2,
                b.1 as f64 / a.1 as f64
            );
            // The same session size in a tenth of the sessions: what grows with the number of
            // sessions alone (verify holds a few sessions at a time, so their size counts).
            let dir = root.join("rss-tenth");
            generate(&dir, hi / 10, SESSIONS / 10, false);
            let (_, vm) = measure(provscope(
                &[
                    "verify",
                    "--format",
                    "json",
                    "-j1",
                    "--now",
                    "2026-11-01T00:00:00Z",
                ],
                &dir,
            ));
            println!(
                "verify peak RSS, {} calls per session: {:.0} MB for {} sessions ({:.0} MB of input), {:.0} MB for {SESSIONS} ({:.0} MB): {:.2}x (goal <= 1.2x)",
                b.2,
                vm as f64 / 1024.0,
                SESSIONS / 10,
                dir_bytes(&dir) as f64 / 1e6,
                b.1 as f64 / 1024.0,
                b.0 as f64 / 1e6,
                b.1 as f64 / vm as f64
            );
            if !keep {
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
    }
    envelope_rows(&root, keep);
}

/// Envelopes: 20,000 sealed calls in 100 sessions of 200 and in 1,000 sessions of 20, each
/// shape's envelope child run `SCALE_ENVELOPE_CHILDREN` times (5), the shapes alternating.
/// The figure is the median of every round of every child, with its quartiles and the range of
/// the children's own medians. One child's rounds agree within a few points, children do not:
/// four children of the same code on 1,000 sessions of 20 gave medians of 79, 84, 87 and 90%
/// with quartiles 1-3 points wide (and single 15-round runs 80-95%), so what moved the figure
/// was the process or the minute it ran in, which the rounds of one child cannot average out.
/// Each child is the same measurement as before (the same baseline, in the same child).
fn envelope_rows(root: &Path, keep: bool) {
    let children: usize = std::env::var("SCALE_ENVELOPE_CHILDREN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    let shapes = [100u64, 1_000];
    let dirs: Vec<PathBuf> = shapes
        .iter()
        .map(|&sessions| {
            let dir = root.join(format!("sealed-{sessions}"));
            generate(&dir, 20_000, sessions, true);
            dir
        })
        .collect();
    // Per shape: every round's ratio, each child's median ratio and its JSON.
    let mut rounds: Vec<Vec<f64>> = vec![Vec::new(); shapes.len()];
    let mut medians: Vec<Vec<f64>> = vec![Vec::new(); shapes.len()];
    let mut last: Vec<serde_json::Value> = vec![serde_json::Value::Null; shapes.len()];
    for c in 0..children {
        for k in 0..shapes.len() {
            let k = (k + c) % shapes.len();
            let e = child_json(&["--child", "envelopes", dirs[k].to_str().unwrap()]);
            rounds[k].extend(
                e["ratios"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_f64().unwrap()),
            );
            medians[k].push(e["ratio"].as_f64().unwrap());
            last[k] = e;
        }
    }
    for (k, &sessions) in shapes.iter().enumerate() {
        let dir = &dirs[k];
        let e = &last[k];
        let n = e["envelopes"].as_f64().unwrap();
        let f = |key: &str| e[key].as_f64().unwrap();
        let (vt, _) = best(2, || {
            measure(provscope(
                &[
                    "verify",
                    "--format",
                    "json",
                    "-j1",
                    "--now",
                    "2026-11-01T00:00:00Z",
                ],
                dir,
            ))
        });
        let all = &mut rounds[k];
        all.sort_by(f64::total_cmp);
        let at = |q: usize| all[(q * all.len() / 4).min(all.len() - 1)] * 100.0;
        let m = &mut medians[k];
        m.sort_by(f64::total_cmp);
        println!(
            "envelopes, {sessions} sessions of {}: {n} in verify -j1 {:.0} ms; last child, medians of {} rounds: checks {:.0} ms with envelopes, {:.0} ms without, inside the checks {:.0}/s, attest batch-256 loop {:.0}/s; ratio over {} rounds of {children} children: median {:.0}% (quartiles {:.0}-{:.0}%), children's medians {:.0}-{:.0}% (goal >= 80%)",
            20_000 / sessions,
            vt * 1e3,
            e["rounds"],
            f("check_with") * 1e3,
            f("check_without") * 1e3,
            n / (f("check_with") - f("check_without")),
            n / f("batch256"),
            all.len(),
            at(2),
            at(1),
            at(3),
            m[0] * 100.0,
            m[m.len() - 1] * 100.0,
        );
        if !keep {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
}
