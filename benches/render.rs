//! Explorer frame times (TestBackend 200x60) of the session and claim views at 1k, 100k and 1M
//! claims, against an empty frame measured in the same run; fuzzy search time to first results
//! and to completion over the same claims; time to first frame and to the first session on a
//! directory. Run: `cargo bench --bench render` (`-- --sizes 1000,100000` to choose;
//! `-- --dir PATH` for the first-frame measurement, default target/bench-data/gen-200mb).
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use provscope::check::{check_session, Config};
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::tui::action::{Action, View};
use provscope::tui::app::Loaded;
use provscope::tui::update::update;
use provscope::tui::{new_app, search, views};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::io::Write;
use std::time::{Duration, Instant};

/// The same allocator as the `provscope` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A session with `claims` claims, ten per turn, each turn with one call and result.
fn session_bytes(claims: usize) -> Vec<u8> {
    let mut w = Vec::with_capacity(claims * 330);
    let _ = writeln!(
        w,
        r#"{{"event":"session","version":1,"session_id":"bench","started_at":"2026-10-02T09:00:00Z","servers":[{{"name":"pricing.internal","tier":"T0"}}]}}"#
    );
    let turns = claims.div_ceil(10);
    let text = "Team plan: seats cost $19 per user per month. Refunds within 5 business days.";
    let hash = provscope::attest::hash::canonical_sha256(&serde_json::json!({"plan":"team"}))
        .unwrap_or_default();
    for t in 1..=turns {
        let id = format!("c{t}");
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
            r#"{{"event":"tool_result","turn":{t},"tag":{{"call_id":"{id}","server":"pricing.internal","tool":"get_plan_price","arguments_hash":"{hash}","fetched_at":"2026-10-02T09:00:02Z","ttl_seconds":3600,"returned_at":"2026-10-02T09:00:02Z"}},"response":{{"jsonrpc":"2.0","id":"{id}","result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}}}"#
        );
        let _ = writeln!(
            w,
            r#"{{"event":"context","turn":{t},"results":[{{"call_id":"{id}","marker":"[1]"}}]}}"#
        );
        let n = (claims - (t - 1) * 10).min(10);
        let cl: Vec<String> = (0..n)
            .map(|k| format!(r#"{{"claim_id":"clm_{t}_{k}","claim_text":"Team seats cost $19 per user per month ({t}-{k})","origin":{{"tool_call_id":"{id}","server":"pricing.internal","tool":"get_plan_price","arguments_hash":"{hash}","fetched_at":"2026-10-02T09:00:02Z","ttl_seconds":3600}},"span":{{"block":0,"start":11,"end":44}},"render":{{"marker":"[1]","policy":"require_tier_gte_1"}}}}"#))
            .collect();
        let _ = writeln!(
            w,
            r#"{{"event":"answer","turn":{t},"generated_at":"2026-10-02T09:00:05Z","text":"Seats cost $19.","claims":[{}]}}"#,
            cl.join(",")
        );
    }
    w
}

fn frame_time(
    term: &mut Terminal<TestBackend>,
    app: &provscope::tui::app::App,
    iters: u32,
) -> Duration {
    let t = Instant::now();
    for _ in 0..iters {
        term.draw(|f| views::render(f, app)).unwrap();
    }
    t.elapsed() / iters
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<usize> = args
        .iter()
        .position(|a| a == "--sizes")
        .map(|i| {
            args[i + 1]
                .split(',')
                .filter_map(|s| s.parse().ok())
                .collect()
        })
        .unwrap_or_else(|| vec![1_000, 100_000, 1_000_000]);
    let cfg = Config::default();
    let mut term = Terminal::new(TestBackend::new(200, 60)).unwrap();
    // Baseline: the frame with nothing loaded.
    let mut empty = new_app(&cfg, true).unwrap();
    update(&mut empty, Action::Resize(200, 60));
    let base = frame_time(&mut term, &empty, 2000);
    println!("empty frame (baseline): {:.3} ms", base.as_secs_f64() * 1e3);
    println!("| claims | load+check s | session view ms | x baseline | claim view ms | x baseline | search first results ms | search done ms |");
    println!("|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let bytes = session_bytes(n);
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
        app.push_session(Loaded::new(s, r));
        update(&mut app, Action::Resize(200, 60));
        update(&mut app, Action::Open);
        // Middle of the session, claims focused.
        let mid = app.current().map_or(0, |l| l.report.claims.len() / 2);
        app.select_claim(mid);
        app.focus_claims = true;
        let sv = frame_time(&mut term, &app, 300);
        update(&mut app, Action::Goto(View::Claim));
        let cv = frame_time(&mut term, &app, 300);
        // Search: time to the first chunk and to the end.
        let (tx, rx) = std::sync::mpsc::channel();
        let gen = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(1));
        let l = app.sessions[0].clone();
        let t = Instant::now();
        search::spawn(l, "seat 19 (7)".into(), 1, gen, tx);
        let mut first = None;
        while let Ok(c) = rx.recv() {
            first.get_or_insert(t.elapsed());
            if c.done {
                break;
            }
        }
        let done = t.elapsed();
        println!(
            "| {n} | {load:.2} | {:.3} | {:.1}x | {:.3} | {:.1}x | {:.1} | {:.1} |",
            sv.as_secs_f64() * 1e3,
            sv.as_secs_f64() / base.as_secs_f64(),
            cv.as_secs_f64() * 1e3,
            cv.as_secs_f64() / base.as_secs_f64(),
            first.unwrap_or_default().as_secs_f64() * 1e3,
            done.as_secs_f64() * 1e3
        );
    }
    // Time to first frame and to the first session on a directory.
    let dir = args
        .iter()
        .position(|a| a == "--dir")
        .map(|i| std::path::PathBuf::from(&args[i + 1]))
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/gen-200mb")
        });
    if dir.is_dir() {
        let t = Instant::now();
        let rx =
            provscope::tui::spawn_loader(vec![dir.clone()], LoadOptions::default(), cfg.clone());
        let mut app = new_app(&cfg, true).unwrap();
        update(&mut app, Action::Resize(200, 60));
        term.draw(|f| views::render(f, &app)).unwrap();
        let first_frame = t.elapsed();
        let mut first_session = None;
        while let Ok(m) = rx.recv() {
            if let provscope::tui::LoadMsg::Session(_) = m {
                first_session = Some(t.elapsed());
                break;
            }
        }
        println!(
            "{}: first frame {:.1} ms, first session listed {:.1} ms",
            dir.display(),
            first_frame.as_secs_f64() * 1e3,
            first_session.unwrap_or_default().as_secs_f64() * 1e3
        );
    }
}
