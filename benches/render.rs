//! Explorer speed, every figure against an empty frame measured in the same run (TestBackend
//! 200x60): frame times of the session, claim, grid and queue views at 1k, 100k and 1M claims;
//! the filter (queue and grid rebuilt) and search over the same claims; the sessions list with
//! 100,000 sessions (inserted one by one, as loading does); the time to the first listed
//! session on a directory of 100,000 files, against listing and sorting that directory. Run:
//! `cargo bench --bench render`
//! (`-- --sizes 1000,100000` to choose; `-- --files N` for the directory, default 100000).
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use provscope::check::{check_session, Config};
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::tui::action::{Action, LoadMsg, Msg, View};
use provscope::tui::app::{App, Loaded};
use provscope::tui::update::{update, Effect};
use provscope::tui::{loader, new_app, search, views};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use std::io::Write;
use std::time::{Duration, Instant};

/// The same allocator as the `provscope` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A session with `claims` claims, ten per turn, each turn with one call and result; every
/// seventh claim cites a stale result (a finding to filter on).
fn session_bytes(id: &str, claims: usize) -> Vec<u8> {
    let mut w = Vec::with_capacity(claims * 330);
    let _ = writeln!(
        w,
        r#"{{"event":"session","version":1,"session_id":"{id}","started_at":"2026-10-02T09:00:00Z","servers":[{{"name":"pricing.internal","tier":"T0"}}]}}"#
    );
    let turns = claims.div_ceil(10);
    let text = "Team plan: seats cost $19 per user per month. Refunds within 5 business days.";
    let hash = provscope::attest::hash::canonical_sha256(&serde_json::json!({"plan":"team"}))
        .unwrap_or_default();
    for t in 1..=turns {
        let id = format!("c{t}");
        let ttl = if t % 7 == 0 { 1 } else { 3600 };
        let _ = writeln!(
            w,
            r#"{{"event":"turn","turn":{t},"user":"How much is a Team seat? ({t})"}}"#
        );
        let _ = writeln!(
            w,
            r#"{{"event":"tool_call","turn":{t},"server":"pricing.internal","issued_at":"2026-10-02T09:00:01Z","request":{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"get_plan_price","arguments":{{"plan":"team"}}}}}}}}"#
        );
        let _ = writeln!(
            w,
            r#"{{"event":"tool_result","turn":{t},"tag":{{"call_id":"{id}","server":"pricing.internal","tool":"get_plan_price","arguments_hash":"{hash}","fetched_at":"2026-10-02T09:00:02Z","ttl_seconds":{ttl},"returned_at":"2026-10-02T09:00:02Z"}},"response":{{"jsonrpc":"2.0","id":"{id}","result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}}}"#
        );
        let _ = writeln!(
            w,
            r#"{{"event":"context","turn":{t},"results":[{{"call_id":"{id}","marker":"[1]"}}]}}"#
        );
        let n = (claims - (t - 1) * 10).min(10);
        let cl: Vec<String> = (0..n)
            .map(|k| format!(r#"{{"claim_id":"clm_{t}_{k}","claim_text":"Team seats cost $19 per user per month ({t}-{k})","origin":{{"tool_call_id":"{id}","server":"pricing.internal","tool":"get_plan_price","arguments_hash":"{hash}","fetched_at":"2026-10-02T09:00:02Z"}},"span":{{"block":0,"start":11,"end":44}},"render":{{"marker":"[1]","policy":"require_tier_gte_1"}}}}"#))
            .collect();
        let _ = writeln!(
            w,
            r#"{{"event":"answer","turn":{t},"generated_at":"2026-10-02T09:00:05Z","text":"Seats cost $19.","claims":[{}]}}"#,
            cl.join(",")
        );
    }
    w
}

fn frame_time(term: &mut Terminal<TestBackend>, app: &App, iters: u32) -> Duration {
    let t = Instant::now();
    for _ in 0..iters {
        term.draw(|f| {
            views::render(f, app);
        })
        .unwrap();
    }
    t.elapsed() / iters
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn key(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Applies a filter through the filter bar, as a user types it; returns the time of the Enter.
fn filter(app: &mut App, text: &str) -> Duration {
    update(app, Action::Filter);
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    for c in text.chars() {
        update(app, key(KeyCode::Char(c)));
    }
    let t = Instant::now();
    update(app, key(KeyCode::Enter));
    t.elapsed()
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<usize> = arg(&args, "--sizes")
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 100_000, 1_000_000]);
    let files: usize = arg(&args, "--files")
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let cfg = Config::default();
    let mut term = Terminal::new(TestBackend::new(200, 60)).unwrap();
    // Baseline: the frame with nothing loaded.
    let mut empty = new_app(&cfg, true).unwrap();
    update(&mut empty, Action::Resize(200, 60));
    let base = frame_time(&mut term, &empty, 2000);
    println!("empty frame (baseline): {:.3} ms", ms(base));
    let x = |d: Duration| d.as_secs_f64() / base.as_secs_f64();
    println!("| claims | load+check s | session view ms | x | claim view ms | x | grid ms | x | queue ms | x | filter kind:stale ms | matches | search first ms | search done ms |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let bytes = session_bytes("bench", n);
        let t = Instant::now();
        let opts = LoadOptions {
            max_line_bytes: 1 << 30,
            ..LoadOptions::default()
        };
        let s = load_bytes("bench", "bench.jsonl", &bytes, &opts);
        let r = check_session(&s, &cfg);
        let load = t.elapsed().as_secs_f64();
        drop(bytes);
        let mut app = new_app(&cfg, true).unwrap();
        update(
            &mut app,
            Msg::Load(LoadMsg::Sessions(vec![Loaded::new(s, r)])),
        );
        update(&mut app, Msg::Load(LoadMsg::Done));
        update(&mut app, Action::Resize(200, 60));
        // Middle of the session, claims focused.
        let mid = app.current().map_or(0, |l| l.report.claims.len() / 2);
        app.select_claim(mid);
        update(&mut app, Action::Right);
        let sv = frame_time(&mut term, &app, 300);
        update(&mut app, Action::Goto(View::Claim));
        let cv = frame_time(&mut term, &app, 300);
        let fl = filter(&mut app, "kind:stale");
        let matches = app.queue.items.len();
        filter(&mut app, "");
        update(&mut app, Action::Goto(View::Grid));
        let gv = frame_time(&mut term, &app, 300);
        update(&mut app, Action::Goto(View::Queue));
        update(&mut app, Action::PageDown);
        let qv = frame_time(&mut term, &app, 300);
        // Search: time to the first chunk and to the end.
        let sessions = app.sessions.clone();
        let gen = std::sync::atomic::AtomicU64::new(1);
        let t = Instant::now();
        let mut first = None;
        search::run(
            &sessions,
            &Default::default(),
            "seat 19 (7)",
            1,
            &gen,
            &mut |_| {
                first.get_or_insert(t.elapsed());
                true
            },
        );
        let done = t.elapsed();
        println!(
            "| {n} | {load:.2} | {:.3} | {:.1}x | {:.3} | {:.1}x | {:.3} | {:.1}x | {:.3} | {:.1}x | {:.1} | {matches} | {:.1} | {:.1} |",
            ms(sv),
            x(sv),
            ms(cv),
            x(cv),
            ms(gv),
            x(gv),
            ms(qv),
            x(qv),
            ms(fl),
            ms(first.unwrap_or_default()),
            ms(done)
        );
    }
    sessions_list(&mut term, &cfg, base);
    first_session(&cfg, files);
}

/// 100,000 sessions inserted one by one (as loading does), then the list's frame time.
fn sessions_list(term: &mut Terminal<TestBackend>, cfg: &Config, base: Duration) {
    const N: usize = 100_000;
    let bytes = session_bytes("one", 20);
    let s = load_bytes("one", "one.jsonl", &bytes, &LoadOptions::default());
    let r = check_session(&s, cfg);
    let mut batch = Vec::with_capacity(N);
    for i in 0..N {
        let mut s = s.clone();
        // Names in a scrambled order, so every insertion lands somewhere in the middle.
        s.name = format!("session-{:06}", (i * 7919) % N);
        batch.push(Loaded::new(s, r.clone()));
    }
    let mut app = new_app(cfg, true).unwrap();
    update(&mut app, Action::Resize(200, 60));
    let t = Instant::now();
    for l in batch {
        update(&mut app, Msg::Load(LoadMsg::Sessions(vec![l])));
    }
    let insert = t.elapsed();
    update(&mut app, Action::Bottom);
    update(&mut app, Action::PageUp);
    let fv = frame_time(term, &app, 300);
    let t = Instant::now();
    update(&mut app, Action::Sort);
    let sort = t.elapsed();
    println!(
        "sessions list, {N} sessions: inserted one by one in {:.1} ms ({:.2} µs each); frame {:.3} ms ({:.1}x the empty frame); re-sort by a new column {:.1} ms",
        ms(insert),
        insert.as_secs_f64() * 1e6 / N as f64,
        ms(fv),
        fv.as_secs_f64() / base.as_secs_f64(),
        ms(sort)
    );
}

/// Time from the loader's start to the first session it sends, on a directory of `n` files,
/// against a baseline measured in the same run: listing the directory and sorting its names
/// (what any loader that starts in name order must do first). The first repetition loads
/// everything (time to the last session, longest update); the others stop at the first session.
/// Minimum and median of the repetitions (a shared machine's load shows in the median).
fn first_session(cfg: &Config, n: usize) {
    const REPS: usize = 7;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/bench-data/files-{n}"));
    if !dir.join(format!("{:06}.jsonl", n - 1)).exists() {
        std::fs::create_dir_all(&dir).unwrap();
        let bytes = session_bytes("small", 4);
        for i in 0..n {
            std::fs::write(dir.join(format!("{i:06}.jsonl")), &bytes).unwrap();
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |x| x.get());
    let mut listings = Vec::new();
    let mut firsts = Vec::new();
    let mut all = Duration::ZERO;
    let mut longest_update = Duration::ZERO;
    let mut listed = 0;
    for rep in 0..REPS {
        let t = Instant::now();
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        names.sort_unstable();
        listings.push(t.elapsed());
        drop(names);
        let (tx, rx) = std::sync::mpsc::channel();
        let t = Instant::now();
        loader::spawn(
            vec![dir.clone()],
            LoadOptions::default(),
            cfg.clone(),
            threads,
            move |m| tx.send(m).is_ok(),
        );
        let mut app = new_app(cfg, true).unwrap();
        let mut first = None;
        while let Ok(m) = rx.recv() {
            let is_sessions = matches!(m, LoadMsg::Sessions(_));
            let done = matches!(m, LoadMsg::Done);
            let u = Instant::now();
            let effects: Vec<Effect> = update(&mut app, Msg::Load(m));
            if rep == 0 {
                longest_update = longest_update.max(u.elapsed());
            }
            drop(effects);
            if is_sessions && first.is_none() {
                first = Some(t.elapsed());
                if rep > 0 {
                    break;
                }
            }
            if done {
                break;
            }
        }
        if rep == 0 {
            all = t.elapsed();
            listed = app.sessions.len();
        }
        firsts.push(first.unwrap_or_default());
        // The stopped loader's threads wind down before the next repetition.
        drop(rx);
        std::thread::sleep(Duration::from_millis(300));
    }
    let stats = |v: &mut Vec<Duration>| {
        v.sort();
        (v[0], v[v.len() / 2])
    };
    let (l_min, l_med) = stats(&mut listings);
    let (f_min, f_med) = stats(&mut firsts);
    println!(
        "{} ({n} files), {REPS} runs: listing and sorting the directory (baseline) min {:.1} / median {:.1} ms; first session listed min {:.1} / median {:.1} ms ({:.2}x / {:.2}x the baseline); all {listed} listed after {:.0} ms; longest update while loading {:.2} ms",
        dir.display(),
        ms(l_min),
        ms(l_med),
        ms(f_min),
        ms(f_med),
        f_min.as_secs_f64() / l_min.as_secs_f64(),
        f_med.as_secs_f64() / l_med.as_secs_f64(),
        ms(all),
        ms(longest_update)
    );
}
