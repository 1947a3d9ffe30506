//! Follow mode speed (issue 16): with a 200 MB session directory loaded in the explorer and
//! followed, one log grows line by line; each line appended is timed to the screen updated: the
//! follower thread is woken by the OS notification, reads the complete lines, loads and checks
//! the file's sessions (incrementally), sends them, and the app applies them and draws a
//! 200x60 TestBackend frame (the explorer's own update and render path, `loader::follow` as the
//! runtime starts it). Against, in the same run: the same appends checked whole (the check
//! before `check::incremental`), and an empty frame. Then the process's CPU time while the
//! follow is idle for 10 s. Run:
//! `cargo bench --bench follow` (`-- --mb 20` for a smaller directory, `-- --idle 5` seconds).
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dir_bytes, generate, load_spec};
use provscope::check::incremental::check_since;
use provscope::check::{check_session, Config};
use provscope::gen::{write_session, GenSpec};
use provscope::ingest::{load_any_bytes, LoadOptions};
use provscope::tui::action::{LoadMsg, Msg};
use provscope::tui::update::update;
use provscope::tui::{loader, new_app, views};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The same allocator as the `provscope` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// User + system CPU time of this process (Linux `/proc/self/stat`, clock ticks of 10 ms).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    // Fields 14 and 15 of the whole line: utime, stime (the 12th and 13th after the name).
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .map_or(default, |i| args[i + 1].parse().unwrap())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mb = arg(&args, "--mb", 200);
    let idle = arg(&args, "--idle", 10);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let dir = root.join(format!("gen-{mb}mb"));
    generate(&dir, mb);
    let live_dir = root.join("follow-live");
    let _ = std::fs::remove_dir_all(&live_dir);
    std::fs::create_dir_all(&live_dir).unwrap();
    let live = live_dir.join("live.jsonl");
    let mut session = Vec::new();
    let spec = GenSpec {
        seed: 7,
        ..load_spec(0.25)
    };
    write_session(&mut session, &spec, 1).unwrap();
    let text = String::from_utf8(session).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    std::fs::write(&live, lines[..2].concat()).unwrap();

    // The explorer with the directory and the live log loaded, as the runtime loads them.
    let cfg = Config::default();
    let opts = LoadOptions::default();
    let mut app = new_app(&cfg, false).unwrap();
    let mut term = Terminal::new(TestBackend::new(200, 60)).unwrap();
    let paths: Vec<PathBuf> = vec![dir.clone(), live.clone()];
    let (tx, rx) = channel::<LoadMsg>();
    let t = Instant::now();
    {
        let tx = tx.clone();
        loader::spawn(paths.clone(), opts.clone(), cfg.clone(), 2, move |m| {
            tx.send(m).is_ok()
        });
    }
    loop {
        let m = rx.recv().unwrap();
        let done = matches!(m, LoadMsg::Done);
        update(&mut app, Msg::Load(m));
        if done {
            break;
        }
    }
    let loaded = t.elapsed();
    let bytes = dir_bytes(&dir) + dir_bytes(&live_dir);
    let sessions = app.sessions.len();
    println!(
        "loaded {sessions} sessions, {:.0} MB, in {:.1} s",
        bytes as f64 / 1e6,
        loaded.as_secs_f64()
    );
    // Following both, as `F` starts it.
    app.follow = Some(Default::default());
    let since = std::time::SystemTime::now();
    let (wake, wake_rx) = provscope::ingest::tail::channel();
    let t = Instant::now();
    {
        let tx = tx.clone();
        loader::follow(
            paths,
            opts.clone(),
            cfg.clone(),
            since,
            (wake.clone(), wake_rx),
            move |m| tx.send(m).is_ok(),
        );
    }
    let until_following = |rx: &Receiver<LoadMsg>, app: &mut provscope::tui::app::App| loop {
        let m = rx.recv().unwrap();
        let f = matches!(m, LoadMsg::Following { .. });
        update(app, Msg::Load(m));
        if f {
            break;
        }
    };
    until_following(&rx, &mut app);
    println!(
        "following {} file(s) after {:.2} s",
        app.follow.as_ref().map_or(0, |f| f.files),
        t.elapsed().as_secs_f64()
    );
    // An empty frame, the baseline of a frame.
    let mut empty = Terminal::new(TestBackend::new(200, 60)).unwrap();
    let t = Instant::now();
    for _ in 0..200 {
        empty.draw(|_| {}).unwrap();
    }
    let empty_ms = t.elapsed().as_secs_f64() * 1000.0 / 200.0;

    // Each line appended, to the frame showing it.
    let mut append_to_frame = Vec::new();
    for line in &lines[2..] {
        let t0 = Instant::now();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&live)
            .unwrap();
        f.write_all(line.as_bytes()).unwrap();
        drop(f);
        loop {
            let m = rx.recv_timeout(Duration::from_secs(30)).unwrap();
            let reloaded = matches!(m, LoadMsg::Reloaded { .. });
            update(&mut app, Msg::Load(m));
            if reloaded {
                break;
            }
        }
        term.draw(|f| {
            views::render(f, &app);
        })
        .unwrap();
        append_to_frame.push(t0.elapsed());
    }
    let live_turns = app
        .sessions
        .iter()
        .find(|l| *l.session.source == *live.display().to_string())
        .map_or(0, |l| l.session.turns.len());
    assert_eq!(live_turns, 40, "every turn of the live log reached the app");

    // The same appends' checks, incremental against whole, in this run.
    let (mut inc, mut whole) = (Duration::ZERO, Duration::ZERO);
    let mut memo = None;
    for n in 3..=lines.len() {
        let s = load_any_bytes("live", "live.jsonl", lines[..n].concat().as_bytes(), &opts)
            .pop()
            .unwrap();
        let t = Instant::now();
        let (_, m, _) = check_since(&s, &cfg, &[], memo.as_ref());
        inc += t.elapsed();
        memo = Some(m);
        let t = Instant::now();
        std::hint::black_box(check_session(&s, &cfg));
        whole += t.elapsed();
    }

    // Idle: the follower waits for notifications.
    let c0 = cpu_time();
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(idle));
    let idle_cpu = (cpu_time() - c0).as_secs_f64() / t0.elapsed().as_secs_f64() * 100.0;
    let _ = wake.send(provscope::ingest::tail::Wake::Stop);

    let n = append_to_frame.len();
    let mut v = append_to_frame;
    println!();
    println!("| directory | appends | append->frame p50 ms | p99 ms | max ms | empty frame ms | checks of the {n} appends: incremental ms | whole ms | incremental/whole | idle CPU over {idle} s |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {:.0} MB, {sessions} sessions | {n} | {:.2} | {:.2} | {:.2} | {:.3} | {:.1} | {:.1} | {:.2}x | {:.2}% |",
        bytes as f64 / 1e6,
        pct(&mut v, 0.5),
        pct(&mut v, 0.99),
        pct(&mut v, 1.0),
        empty_ms,
        inc.as_secs_f64() * 1000.0,
        whole.as_secs_f64() * 1000.0,
        inc.as_secs_f64() / whole.as_secs_f64(),
        idle_cpu
    );
}
