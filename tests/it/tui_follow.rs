//! The explorer's follow mode without a terminal: `F` asks the runtime to follow, reloaded
//! sessions arrive as messages and replace the ones on screen (the open session stays open, a
//! selection on the last turn moves to the new last turn, a shorter file clamps the selection),
//! and the header's follow indicator (TestBackend snapshots at 80x24 and 200x60).

use crate::common::Fx;
use crate::tui_util::{key, loaded, run_effects, screen, typed};
use provscope::check::Config;
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::tui::action::{LoadMsg, Msg};
use provscope::tui::app::App;
use provscope::tui::new_app;
use provscope::tui::update::{update, Effect};

/// The first `n` lines of a fixture as the session loaded from `live.jsonl`.
fn session_of(lines: &[String], n: usize) -> provscope::model::Session {
    load_bytes(
        "live",
        "live.jsonl",
        lines[..n].concat().as_bytes(),
        &LoadOptions::default(),
    )
}

fn fixture() -> Vec<String> {
    let mut fx = Fx::baseline();
    fx.turns = 2;
    fx.calls[0].ttl = 1;
    fx.lines().iter().map(|v| v.to_string() + "\n").collect()
}

fn reload(app: &mut App, lines: &[String], n: usize, note: Option<&str>) {
    update(
        app,
        Msg::Load(LoadMsg::Reloaded {
            source: "live.jsonl".into(),
            sessions: loaded(vec![session_of(lines, n)]),
            note: note.map(str::to_owned),
        }),
    );
}

/// A follow started on a log holding its first `n` lines.
fn following(lines: &[String], n: usize) -> App {
    let mut app = new_app(&Config::default(), false).unwrap();
    update(
        &mut app,
        Msg::Load(LoadMsg::Sessions(loaded(vec![session_of(lines, n)]))),
    );
    update(&mut app, Msg::Load(LoadMsg::Done));
    assert_eq!(update(&mut app, key('F')), vec![Effect::Follow(true)]);
    update(
        &mut app,
        Msg::Load(LoadMsg::Following {
            files: 1,
            mode: "file notifications",
        }),
    );
    app
}

#[test]
fn reloaded_sessions_replace_the_open_one_and_the_selection_follows_the_last_turn() {
    let lines = fixture();
    let turn2 = lines
        .iter()
        .rposition(|l| l.contains("\"event\":\"turn\""))
        .unwrap();
    let mut app = following(&lines, 3);
    assert_eq!(app.cur, Some(0), "a single log opens");
    let s = screen(&mut app, 200, 60);
    assert!(s.contains("Turns (1)") && s.contains("Calls (1)"), "{s}");
    // Turn 1 complete: its claim with the stale finding.
    reload(&mut app, &lines, turn2, None);
    assert_eq!(app.sessions.len(), 1, "replaced in place, not added");
    assert_eq!(app.follow.as_ref().unwrap().updates, 1);
    let s = screen(&mut app, 200, 60);
    assert!(
        s.contains("Team seats cost") && s.contains("[stale]"),
        "{s}"
    );
    // Turn 2 arrives: the selection was on the last turn, so it moves to the new one.
    reload(&mut app, &lines, lines.len(), None);
    assert_eq!(app.sel_turn, 1);
    // Truncated to nothing: the selection is clamped, the note is the status.
    reload(
        &mut app,
        &lines,
        0,
        Some("live.jsonl: truncated; reloaded from the start"),
    );
    assert_eq!(app.sel_turn, 0);
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("truncated; reloaded from the start"), "{s}");
    // Rewritten: the first turn is selected again, its calls and answer shown.
    let clean: Vec<String> = Fx::baseline()
        .lines()
        .iter()
        .map(|v| v.to_string() + "\n")
        .collect();
    reload(&mut app, &clean, clean.len(), None);
    assert_eq!(app.sel_turn, 0);
    let s = screen(&mut app, 200, 60);
    assert!(s.contains("Calls (1)") && s.contains("answer:"), "{s}");
    // `F` stops: reloads still in flight are ignored.
    assert_eq!(update(&mut app, key('F')), vec![Effect::Follow(false)]);
    reload(&mut app, &lines, lines.len(), None);
    assert_eq!(app.sessions[0].session.turns.len(), 1);
}

#[test]
fn a_file_with_fewer_sessions_drops_the_rest_from_the_list_and_queue() {
    let lines = fixture();
    let mut app = new_app(&Config::default(), false).unwrap();
    let two = vec![session_of(&lines, lines.len()), session_of(&lines, 3)];
    update(&mut app, Msg::Load(LoadMsg::Sessions(loaded(two))));
    update(&mut app, Msg::Load(LoadMsg::Done));
    update(&mut app, key('F'));
    update(&mut app, key('w'));
    assert_eq!(app.queue.items.len(), 1);
    reload(&mut app, &lines, 3, None);
    assert_eq!(app.order.len(), 1, "the second session left the list");
    assert!(app.dropped.contains(&1));
    assert!(app.queue.items.is_empty(), "its claims left the queue");
    let s = screen(&mut app, 80, 24);
    assert!(!s.contains("[stale]"), "{s}");
}

/// Sessions a reload dropped are never listed by search: hits found before the reload leave at
/// once, the search under way runs again, and a new search skips them (issue 16 item 4).
#[test]
fn search_never_lists_sessions_dropped_by_a_reload() {
    let lines = fixture();
    let mut app = new_app(&Config::default(), false).unwrap();
    let two = vec![
        session_of(&lines, lines.len()),
        session_of(&lines, lines.len()),
    ];
    update(&mut app, Msg::Load(LoadMsg::Sessions(loaded(two))));
    update(&mut app, Msg::Load(LoadMsg::Done));
    update(&mut app, key('F'));
    update(&mut app, key('/'));
    let effects = typed(&mut app, "team seats");
    run_effects(&mut app, effects);
    let sessions_hit = |app: &App| {
        let mut v: Vec<u32> = app
            .search
            .as_ref()
            .unwrap()
            .hits
            .iter()
            .map(|h| h.session)
            .collect();
        v.dedup();
        v.sort_unstable();
        v.dedup();
        v
    };
    assert_eq!(
        sessions_hit(&app),
        vec![0, 1],
        "both sessions state the claim"
    );
    let hits_before = app.search.as_ref().unwrap().hits.len();
    // The file now holds one session: the second leaves the list and the search.
    let effects = update(
        &mut app,
        Msg::Load(LoadMsg::Reloaded {
            source: "live.jsonl".into(),
            sessions: loaded(vec![session_of(&lines, lines.len())]),
            note: None,
        }),
    );
    assert!(app.dropped.contains(&1));
    assert!(sessions_hit(&app).is_empty(), "stale hits leave at once");
    assert!(
        matches!(effects.as_slice(), [Effect::Search { query, .. }] if query == "team seats"),
        "{effects:?}"
    );
    run_effects(&mut app, effects);
    assert_eq!(sessions_hit(&app), vec![0]);
    assert_eq!(app.search.as_ref().unwrap().hits.len() * 2, hits_before);
    let s = screen(&mut app, 120, 30);
    assert!(s.contains("Team seats cost"), "{s}");
    // A new query skips the dropped session too.
    let effects = typed(&mut app, " cost");
    run_effects(&mut app, effects);
    assert_eq!(sessions_hit(&app), vec![0]);
}

#[test]
fn follow_is_refused_on_the_bundled_samples_and_waits_for_loading() {
    let mut app = new_app(&Config::default(), false).unwrap();
    update(&mut app, Msg::Load(LoadMsg::Total(3)));
    app.loading = Some((0, 3));
    assert!(update(&mut app, key('F')).is_empty(), "starts once loaded");
    assert!(app.follow.is_some());
    assert_eq!(
        update(&mut app, Msg::Load(LoadMsg::Done)),
        vec![Effect::Follow(true)]
    );
    update(
        &mut app,
        Msg::Load(LoadMsg::NotFollowing(
            "the bundled samples do not grow".into(),
        )),
    );
    assert!(app.follow.is_none());
    let s = screen(&mut app, 80, 24);
    assert!(
        s.contains("the bundled samples do not grow") && !s.contains("following"),
        "{s}"
    );
}

#[test]
fn follow_indicator_snapshots() {
    let lines = fixture();
    let mut app = following(&lines, 3);
    insta::assert_snapshot!("follow_starting_80x24", {
        let mut a = new_app(&Config::default(), false).unwrap();
        update(&mut a, key('F'));
        screen(&mut a, 80, 24)
    });
    reload(&mut app, &lines, lines.len(), None);
    insta::assert_snapshot!("follow_80x24", screen(&mut app, 80, 24));
    insta::assert_snapshot!("follow_200x60", screen(&mut app, 200, 60));
}
