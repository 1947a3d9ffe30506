//! No panic in any view for any loadable log: random sessions (hand-built JSON lines with
//! broken lines, wrong spans, dangling stamps, CJK, emoji and control characters, or
//! `provscope::gen` sessions) go through `update` with random messages (keys, actions, clicks on
//! what was drawn, resizes down to 1x1, pastes, sessions arriving, restored marks, search
//! results), and every view is rendered on a TestBackend.
//!
//! Cases: `PROVSCOPE_TUI_FUZZ_CASES` (default 1000). docs/fuzzing.md records runs.

use crate::tui_util::{draw, loaded, run_effects};
use proptest::prelude::*;
use provscope::check::{Config, QUADRANTS};
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::tui::action::{Action, LoadMsg, Msg, Pane, Restored, View};
use provscope::tui::new_app;
use provscope::tui::update::update;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

const TEXTS: &[&str] = &[
    "Team seats cost $19 per user per month.",
    "料金は月額 ¥2,800 です。返金は14日以内。",
    "Zoë Müller · Société Générale 🚀👩‍👩‍👧 €19",
    "\u{1b}]0;pwned\u{7}\u{1b}[31mred\u{202e}rtl\ttab\r\nline",
    "",
    "a very long sentence that keeps going and going past any terminal width, with numbers 12 34.5% and 5 business days, repeated: a very long sentence that keeps going and going",
    "\u{0}\u{7f}\u{9b}31m",
    "ｆｕｌｌｗｉｄｔｈ　ｓｐａｃｅ ＡＢＣ",
];

fn pick<'a>(r: &mut ChaCha8Rng, xs: &[&'a str]) -> &'a str {
    xs[r.random_range(0..xs.len())]
}

/// A random session log: mostly well-formed events with random values, some broken lines.
fn session_bytes(r: &mut ChaCha8Rng) -> Vec<u8> {
    if r.random_bool(0.15) {
        let spec = provscope::gen::GenSpec {
            turns: r.random_range(1..5),
            calls: r.random_range(1..4),
            seed: r.random(),
            fault_rate: r.random_range(0.0..1.0),
            result_bytes: r.random_range(10..400),
            envelopes: r.random_bool(0.3),
            sub_agents: false,
        };
        let mut out = Vec::new();
        let _ = provscope::gen::write_session(&mut out, &spec, r.random_range(0..5));
        return out;
    }
    let mut lines: Vec<String> = Vec::new();
    if r.random_bool(0.9) {
        lines.push(
            json!({"event":"session","version":1,"session_id":format!("s{}", r.random_range(0..4)),
                "started_at":"2026-10-02T09:00:00Z","title": pick(r, TEXTS),
                "servers":[{"name":"a","tier":"T0"},{"name":"b","tier":"T2"}]})
            .to_string(),
        );
    }
    let turns = r.random_range(0..5);
    let calls = ["c1", "c2", "c3", "nope"];
    for t in 1..=turns {
        lines.push(json!({"event":"turn","turn":t,"user":pick(r, TEXTS)}).to_string());
        for k in 0..r.random_range(0..3) {
            let id = format!("c{}", (t * 3 + k) % 4);
            let server = if r.random_bool(0.5) { "a" } else { "b" };
            lines.push(json!({"event":"tool_call","turn":t,"server":server,"issued_at":format!("2026-10-02T09:00:0{}Z", r.random_range(0..10)),
                "fanout": if r.random_bool(0.3) { Some("f1") } else { None },
                "request":{"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"get","arguments":{"q":pick(r, TEXTS)}}}}).to_string());
            if r.random_bool(0.8) {
                let blocks: Vec<serde_json::Value> = (0..r.random_range(0..3))
                    .map(|_| json!({"type":"text","text":pick(r, TEXTS)}))
                    .collect();
                lines.push(json!({"event":"tool_result","turn":t,"tag":{"call_id":id,"server":server,"tool":"get","arguments_hash":"00","fetched_at":"2026-10-02T09:00:02Z","ttl_seconds":r.random_range(0..5000),"returned_at":"2026-10-02T09:00:03Z"},
                    "response":{"jsonrpc":"2.0","id":id,"result":{"content":blocks}}}).to_string());
            }
        }
        if r.random_bool(0.5) {
            lines.push(json!({"event":"context","turn":t,"results":[{"call_id":calls[r.random_range(0..4)],"marker":"[1]"}]}).to_string());
        }
        let claims: Vec<serde_json::Value> = (0..r.random_range(0..4))
            .map(|k| {
                let mut c = json!({"claim_id":format!("clm_{}", k % 3),"claim_text":pick(r, TEXTS)});
                if r.random_bool(0.8) {
                    c["origin"] = json!({"tool_call_id":calls[r.random_range(0..4)],"server":"a","tool":"get","arguments_hash":"00","fetched_at":"2026-10-02T09:00:02Z"});
                    c["span"] = json!({"block":r.random_range(0..3),"start":r.random_range(0..60),"end":r.random_range(0..80)});
                }
                c
            })
            .collect();
        lines.push(json!({"event":"answer","turn":t,"generated_at":"2026-10-02T10:00:05Z","text":pick(r, TEXTS),"claims":claims}).to_string());
        if r.random_bool(0.2) {
            lines.push(json!({"event":"label","claim_id":"clm_0","fact": if r.random_bool(0.5) {"right"} else {"wrong"}}).to_string());
        }
        if r.random_bool(0.15) {
            lines.push("{\"event\":\"turn\",\"tu".into());
        }
        if r.random_bool(0.05) {
            lines.push(pick(r, TEXTS).to_owned());
        }
    }
    let mut out = lines.join("\n").into_bytes();
    out.push(b'\n');
    out
}

const VIEWS: [View; 8] = [
    View::Sessions,
    View::Session,
    View::Claim,
    View::Drift,
    View::Parallel,
    View::Grid,
    View::Queue,
    View::Review,
];

fn random_key(r: &mut ChaCha8Rng) -> KeyEvent {
    const KEYS: &[char] = &[
        'j', 'k', 'h', 'l', 'g', 'G', 'n', 'N', 'b', 't', 'c', 'd', 'p', 'x', 'w', 'r', 'f', '/',
        '?', 'S', 's', '-', '1', '2', '3', '4', 'i', 'm', 'e', 'y', 'o', '[', ']', 'J', 'K', 'q',
        'a', '料', ' ',
    ];
    let code = match r.random_range(0..10) {
        0 => KeyCode::Enter,
        1 => KeyCode::Esc,
        2 => KeyCode::Tab,
        3 => KeyCode::Backspace,
        4 => [KeyCode::Up, KeyCode::Down, KeyCode::Left, KeyCode::Right][r.random_range(0..4)],
        5 => [
            KeyCode::PageUp,
            KeyCode::PageDown,
            KeyCode::Home,
            KeyCode::End,
        ][r.random_range(0..4)],
        _ => KeyCode::Char(KEYS[r.random_range(0..KEYS.len())]),
    };
    let m = match r.random_range(0..8) {
        0 => KeyModifiers::CONTROL,
        1 => KeyModifiers::ALT,
        _ => KeyModifiers::NONE,
    };
    // Ctrl-C outside an input quits: keep the run going.
    if m == KeyModifiers::CONTROL && code == KeyCode::Char('c') {
        return KeyEvent::new(KeyCode::Char('w'), m);
    }
    KeyEvent::new(code, m)
}

fn one_case(seed: u64) {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let mut app = new_app(&Config::default(), r.random_bool(0.7)).unwrap();
    let n = r.random_range(1..4);
    let mut pending = Vec::new();
    for k in 0..n {
        let bytes = session_bytes(&mut r);
        let s = load_bytes(
            &format!("s{k}"),
            &format!("s{k}.jsonl"),
            &bytes,
            &LoadOptions::default(),
        );
        pending.push(s);
    }
    let first: Vec<_> = pending
        .drain(..pending.len().min(r.random_range(1..=n)))
        .collect();
    update(&mut app, Msg::Load(LoadMsg::Total(n)));
    update(&mut app, Msg::Load(LoadMsg::Sessions(loaded(first))));
    let (mut w, mut h) = (r.random_range(1..180u16), r.random_range(1..60u16));
    let (_, mut drawn) = draw(&mut app, w, h);
    for step in 0..r.random_range(5..60) {
        let msg: Msg = match r.random_range(0..20) {
            0..=8 => Msg::Key(random_key(&mut r)),
            9 => Action::Goto(VIEWS[r.random_range(0..VIEWS.len())]).into(),
            10 => {
                let (x, y) = (r.random_range(0..w.max(1)), r.random_range(0..h.max(1)));
                match drawn.hit(x, y) {
                    Some(hit) => Action::Click(hit).into(),
                    None => Action::Wheel(drawn.pane(x, y), r.random_range(-5..6)).into(),
                }
            }
            11 => {
                w = r.random_range(1..180);
                h = r.random_range(1..60);
                Action::Resize(w, h).into()
            }
            12 => Msg::Paste(pick(&mut r, TEXTS).to_owned()),
            13 if !pending.is_empty() => {
                Msg::Load(LoadMsg::Sessions(loaded(vec![pending.remove(0)])))
            }
            14 => {
                let s = app
                    .sessions
                    .get(r.random_range(0..app.sessions.len().max(1)));
                Msg::Restored(Restored {
                    session_id: s.map(|l| l.report.session_id.clone()).unwrap_or_default(),
                    marks: vec![provscope::store::Classification::new(
                        &s.map(|l| l.report.session_id.clone()).unwrap_or_default(),
                        &format!("clm_{}", r.random_range(0..3)),
                        r.random_range(0..6),
                        QUADRANTS[r.random_range(0..4)],
                        pick(&mut r, TEXTS),
                        pick(&mut r, TEXTS),
                        provscope::model::Timestamp(r.random_range(0..i64::MAX)),
                    )],
                    corrections: vec![provscope::store::Correction {
                        session_id: String::new(),
                        claim_id: format!("clm_{}", r.random_range(0..3)),
                        turn: r.random_range(0..6),
                        outcome: pick(&mut r, TEXTS).to_owned(),
                        note: pick(&mut r, TEXTS).to_owned(),
                        at: provscope::model::Timestamp(r.random_range(i64::MIN..i64::MAX)),
                    }],
                    reviewed: vec![(
                        format!("clm_{}", r.random_range(0..3)),
                        r.random_range(0..6),
                    )],
                    cursor: Some(("clm_1".into(), 1)),
                })
            }
            15 => Action::Scroll(r.random_range(-50..50)).into(),
            16 => Msg::Load(LoadMsg::Done),
            17 => Msg::Done(Err(pick(&mut r, TEXTS).to_owned())),
            18 => Action::Wheel(Some(provscope::tui::action::Hit::Pane(Pane::Source)), 3).into(),
            _ => Msg::CaseWritten(pick(&mut r, TEXTS).to_owned()),
        };
        let effects = update(&mut app, msg);
        run_effects(&mut app, effects);
        if step % 12 == 0 {
            drawn = draw(&mut app, w, h).1;
        }
    }
    for v in VIEWS {
        update(&mut app, Action::Goto(v));
        draw(&mut app, w, h);
    }
    update(&mut app, Action::Help);
    draw(&mut app, w, h);
}

fn cases() -> u32 {
    std::env::var("PROVSCOPE_TUI_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn no_view_panics_on_any_loadable_log(seed in any::<u64>()) {
        one_case(seed);
    }
}
