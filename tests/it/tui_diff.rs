//! The explorer's diff views: the aligned model they render, TestBackend snapshots (identical
//! sessions, a changed pair, reordered turns, the claim beside both sources) at 80x24 and
//! 200x60, the keys through `update`, and both entry points (`D` in the sessions list,
//! `provscope diff A B --explore`) with the real binary in tmux.

use crate::diff::{golden_pair, log, swapped_turns, two_turns};
use crate::tui_tmux::{quoted, Tmux};
use crate::tui_util::{code, draw, key, screen, text};
use provscope::check::{check_session, Config};
use provscope::diff::{self, AlignedClaim, Presence, SessionPairing};
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::tui::action::{Action, LoadMsg, Msg, View};
use provscope::tui::app::{App, Loaded};
use provscope::tui::diff::{compute, DiffRow, Side};
use provscope::tui::new_app;
use provscope::tui::update::{update, Effect};
use ratatui::crossterm::event::KeyCode;

fn loaded(name: &str, log: &str) -> Loaded {
    let s = load_bytes(
        name,
        &format!("{name}.jsonl"),
        log.as_bytes(),
        &LoadOptions::default(),
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let r = check_session(&s, &Config::default());
    Loaded::new(s, r)
}

/// Selects the session named `name` in the sessions list.
fn select(app: &mut App, name: &str) {
    app.sel_session = app
        .order
        .iter()
        .position(|i| app.sessions[i].session.name == name)
        .unwrap();
}

/// Runs the effects as the runtime does: a diff is computed and comes back as a message.
fn run_diffs(app: &mut App, effects: Vec<Effect>) -> usize {
    let mut n = 0;
    for e in effects {
        if let Effect::Diff { a, b } = e {
            let c = compute(&app.sessions, &a, &b, &diff::Options::default());
            update(app, Msg::Diffed(Box::new(c)));
            n += 1;
        }
    }
    n
}

/// Logs `a` and `b` loaded, then compared with the real keys: `D` on a, `D` on b.
fn diff_app(a: &str, b: &str, color: bool) -> App {
    let mut app = new_app(&Config::default(), color).unwrap();
    let v = vec![loaded("a", a), loaded("b", b)];
    update(&mut app, Msg::Load(LoadMsg::Sessions(v)));
    update(&mut app, Msg::Load(LoadMsg::Done));
    select(&mut app, "a");
    assert!(update(&mut app, key('D')).is_empty());
    assert_eq!(app.diff_mark, Some(0));
    assert!(app.status.contains("A is a;"), "{}", app.status);
    select(&mut app, "b");
    let effects = update(&mut app, key('D'));
    assert_eq!(
        effects,
        vec![Effect::Diff {
            a: vec![0],
            b: vec![1]
        }]
    );
    assert_eq!(run_diffs(&mut app, effects), 1);
    assert_eq!(app.view, View::Diff);
    app
}

fn golden_logs() -> (String, String) {
    let (a, b) = golden_pair();
    (log(&a, "s1"), log(&b, "s1"))
}

fn aligned(a: &str, b: &str) -> diff::SessionDiff {
    let (la, lb) = (loaded("a", a), loaded("b", b));
    let o = diff::Options {
        align: true,
        ..diff::Options::default()
    };
    diff::sessions(&la, &lb, SessionPairing::SessionId, &o)
}

#[test]
fn the_model_aligns_every_turn_and_claim_only_when_asked() {
    let same = log(&two_turns(), "s1");
    let d = aligned(&same, &same);
    assert!(d.turns.is_empty() && d.counts.is_empty());
    assert_eq!(
        d.aligned
            .iter()
            .map(|t| (t.a, t.b, t.diff))
            .collect::<Vec<_>>(),
        vec![(Some(1), Some(1), None), (Some(2), Some(2), None)]
    );
    assert!(d
        .aligned
        .iter()
        .flat_map(|t| &t.claims)
        .all(|c| c.a.is_some() && c.b.is_some() && c.diff.is_none()));
    // Reordered: B's order, each beside A's turn asking the same question.
    let d = aligned(&same, &swapped_turns());
    let turns: Vec<_> = d.aligned.iter().map(|t| (t.a, t.b)).collect();
    assert_eq!(turns, vec![(Some(2), Some(1)), (Some(1), Some(2))]);
    assert!(d.aligned.iter().all(|t| t.diff.is_some()));
    // A claim only in B stands against a blank, and points at its change.
    let (a, b) = golden_logs();
    let d = aligned(&a, &b);
    let t1 = &d.aligned[0];
    let lone: Vec<&AlignedClaim> = t1.claims.iter().filter(|c| c.a.is_none()).collect();
    assert_eq!(lone.len(), 1, "{t1:?}");
    let cd = &d.turns[t1.diff.unwrap()].claims[lone[0].diff.unwrap()];
    assert_eq!(
        (cd.claim_id.as_str(), cd.presence),
        ("clm_min", Presence::Added)
    );
    // The CLI does not ask, and pays nothing.
    let (la, lb) = (loaded("a", &a), loaded("b", &b));
    let plain = diff::sessions(&la, &lb, SessionPairing::SessionId, &Default::default());
    assert!(plain.aligned.is_empty());
    assert_eq!(plain.turns, d.turns);
}

#[test]
fn identical_sessions_say_no_changes() {
    let same = log(&two_turns(), "s1");
    let mut app = diff_app(&same, &same, true);
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("no changes"), "{s}");
    assert!(!s.contains("WORSE") && !s.contains("CHANGED"), "{s}");
    insta::assert_snapshot!("diff_identical_80x24", s);
    insta::assert_snapshot!("diff_identical_200x60", screen(&mut app, 200, 60));
    // No change to step to.
    update(&mut app, key('n'));
    assert_eq!(app.status, "no changes");
}

#[test]
fn a_changed_pair_side_by_side() {
    let (a, b) = golden_logs();
    let mut app = diff_app(&a, &b, true);
    let s = screen(&mut app, 200, 60);
    for want in [
        "WORSE",
        "clm_min",
        "not in A",
        "{+Minimum 3 seats.+}",
        "call added: community-prices",
        "finding added: flattened_context",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
    insta::assert_snapshot!("diff_changed_200x60", s);
    insta::assert_snapshot!("diff_changed_80x24", screen(&mut app, 80, 24));
    // A followed log reloaded meanwhile does not change what the diff compared.
    app.follow = Some(Default::default());
    let same = log(&two_turns(), "s1");
    update(
        &mut app,
        Msg::Load(LoadMsg::Reloaded {
            source: "b.jsonl".into(),
            sessions: vec![loaded("b", &same)],
            note: None,
        }),
    );
    assert!(!app.sessions[1]
        .report
        .claims
        .iter()
        .any(|c| c.claim_id == "clm_min"));
    assert_eq!(app.view, View::Diff);
    // Everything but the header (the follow indicator) and the status line (the reloaded file).
    let body = |s: &str| s.lines().skip(1).take(57).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&screen(&mut app, 200, 60)), body(&s));
}

#[test]
fn reordered_turns_are_aligned_by_question() {
    let mut app = diff_app(&log(&two_turns(), "s1"), &swapped_turns(), true);
    let s = screen(&mut app, 200, 60);
    assert!(s.contains("turns: 0 added, 0 removed, 2 moved"), "{s}");
    assert!(s.contains("MOVED turn 1 · \"question 2\""), "{s}");
    assert!(s.contains("turn 2 · \"question 2\""), "{s}");
    insta::assert_snapshot!("diff_reordered_200x60", s);
    insta::assert_snapshot!("diff_reordered_80x24", screen(&mut app, 80, 24));
}

#[test]
fn keys_step_through_changes_switch_sides_and_open_both_sources() {
    let (a, b) = golden_logs();
    let mut app = diff_app(&a, &b, false);
    let row = |app: &App| provscope::tui::diff::selected_row(app).unwrap();
    let op = |app: &App| app.diff.as_ref().unwrap().open.clone().unwrap();
    // It opens on the first change; n steps through the changes and wraps.
    let first = op(&app).selected;
    let n_changes = op(&app)
        .rows
        .iter()
        .filter(|&&r| {
            provscope::tui::diff::change(&app.diff.as_ref().unwrap().run.sessions[0], r).is_some()
        })
        .count();
    assert!(n_changes >= 5, "{n_changes}");
    update(&mut app, key('n'));
    assert_eq!(app.status, format!("change 2 of {n_changes}"));
    assert!(op(&app).selected > first);
    update(&mut app, key('N'));
    assert_eq!(op(&app).selected, first);
    update(&mut app, key('N'));
    assert_eq!(
        app.status,
        format!("change {n_changes} of {n_changes} (wrapped)")
    );
    update(&mut app, key('n'));
    assert_eq!(op(&app).selected, first);
    // j/k move one row; g to the top (the first turn).
    update(&mut app, key('g'));
    assert_eq!(row(&app), DiffRow::Turn(0));
    update(&mut app, key('j'));
    assert!(matches!(row(&app), DiffRow::Claim(0, 0)));
    update(&mut app, key('k'));
    assert_eq!(row(&app), DiffRow::Turn(0));
    // Enter on a turn says what it opens.
    update(&mut app, code(KeyCode::Enter));
    assert_eq!(app.view, View::Diff);
    assert!(app.status.contains("Enter opens a claim"), "{}", app.status);
    // Tab switches the side in focus (B first), h/l choose one.
    assert_eq!(op(&app).side, Side::B);
    update(&mut app, code(KeyCode::Tab));
    assert_eq!(op(&app).side, Side::A);
    update(&mut app, key('l'));
    assert_eq!(op(&app).side, Side::B);
    // The worse claim (the price, now with a stale result) opens beside both sources.
    update(&mut app, key('g'));
    while !matches!(row(&app), DiffRow::Claim(..))
        || provscope::tui::diff::change(&app.diff.as_ref().unwrap().run.sessions[0], row(&app))
            != Some(diff::Direction::Worse)
    {
        update(&mut app, key('n'));
    }
    let effects = update(&mut app, key('y'));
    let Effect::Copy(id) = &effects[0] else {
        panic!("{effects:?}")
    };
    update(&mut app, code(KeyCode::Enter));
    assert_eq!(app.view, View::DiffClaim);
    let s = screen(&mut app, 200, 60);
    assert!(
        s.contains("A · source · req_") && s.contains("B · source · req_"),
        "{s}"
    );
    assert!(s.contains(&format!("{id} · turn")), "{id}: {s}");
    assert!(s.contains("Changes"), "{s}");
    insta::assert_snapshot!("diff_claim_200x60", s);
    insta::assert_snapshot!("diff_claim_80x24", screen(&mut app, 80, 24));
    // J scrolls the focused source; o opens B's log at the claim's line.
    let before = app.scroll.get(provscope::tui::action::Pane::DiffB);
    update(&mut app, key('K'));
    update(&mut app, key('J'));
    assert!(app.scroll.get(provscope::tui::action::Pane::DiffB) >= before.min(3));
    let effects = update(&mut app, key('o'));
    assert!(
        matches!(effects[..], [Effect::OpenExternal { session: 1, .. }]),
        "{effects:?}"
    );
    // j in the claim view goes to the next claim or result, never a turn.
    update(&mut app, key('j'));
    assert!(matches!(
        row(&app),
        DiffRow::Claim(..) | DiffRow::Result(..)
    ));
    // Esc back to the side by side view, then to the sessions list, then quit.
    update(&mut app, code(KeyCode::Esc));
    assert_eq!(app.view, View::Diff);
    update(&mut app, code(KeyCode::Esc));
    assert_eq!(app.view, View::Sessions);
    assert_eq!(update(&mut app, code(KeyCode::Esc)), vec![Effect::Quit]);
}

#[test]
fn beside_both_sources_each_claim_scrolls_and_c_opens_the_focused_claim() {
    use provscope::tui::action::Pane;
    use provscope::tui::diff::Part;
    let (a, b) = golden_logs();
    let mut app = diff_app(&a, &b, false);
    let op = |app: &App| app.diff.as_ref().unwrap().open.clone().unwrap();
    // Before any session was opened, c on a turn row says why it does nothing.
    update(&mut app, key('g'));
    update(&mut app, key('c'));
    assert_eq!(app.view, View::Diff);
    assert!(
        app.status.contains("no claim on the focused side"),
        "{}",
        app.status
    );
    // On a row with a claim on both sides, open it beside both sources, at 80x24, where a
    // claim and its findings do not fit their pane.
    while !matches!(
        provscope::tui::diff::claims_of(&app, provscope::tui::diff::selected_row(&app).unwrap()),
        Some((Some(_), Some(_)))
    ) {
        update(&mut app, key('n'));
    }
    update(&mut app, code(KeyCode::Enter));
    assert_eq!(app.view, View::DiffClaim);
    screen(&mut app, 80, 24);
    assert!(provscope::tui::views::max_scroll(&app, Pane::DiffClaimA) > 0);
    // Tab steps B's source -> A's claim -> A's source -> B's claim -> B's source.
    assert_eq!((op(&app).side, op(&app).part), (Side::B, Part::Source));
    let mut seen = vec![];
    for _ in 0..4 {
        update(&mut app, code(KeyCode::Tab));
        seen.push((op(&app).side, op(&app).part));
    }
    assert_eq!(
        seen,
        [
            (Side::A, Part::Claim),
            (Side::A, Part::Source),
            (Side::B, Part::Claim),
            (Side::B, Part::Source)
        ]
    );
    // J scrolls the focused claim, not the source; the pane says which lines it shows.
    update(&mut app, code(KeyCode::Tab));
    let top = screen(&mut app, 80, 24);
    let source = app.scroll.get(Pane::DiffA);
    update(&mut app, key('J'));
    assert!(app.scroll.get(Pane::DiffClaimA) > 0);
    assert_eq!(app.scroll.get(Pane::DiffA), source);
    let scrolled = screen(&mut app, 80, 24);
    assert_ne!(top, scrolled);
    assert!(
        scrolled.contains(&format!(" {}-", app.scroll.get(Pane::DiffClaimA) + 1)),
        "{scrolled}"
    );
    // Another claim starts at the top of its pane again.
    let here = op(&app).selected;
    let (there, back) = if update(&mut app, key('j')).is_empty() && op(&app).selected != here {
        ('j', 'k')
    } else {
        update(&mut app, key('k'));
        ('k', 'j')
    };
    assert_ne!(op(&app).selected, here, "{there}");
    assert_eq!(app.scroll.get(Pane::DiffClaimA), 0);
    update(&mut app, key(back));
    assert_eq!(op(&app).selected, here);
    // c opens the focused side's claim in the claim view; Esc comes back.
    let (ca, _) =
        provscope::tui::diff::claims_of(&app, provscope::tui::diff::selected_row(&app).unwrap())
            .unwrap();
    let want = ca.unwrap().claim_id.clone();
    update(&mut app, key('c'));
    assert_eq!(app.view, View::Claim);
    assert_eq!(app.sessions[app.cur.unwrap()].session.name, "a");
    assert_eq!(app.current_claim().unwrap().claim_id, want);
    update(&mut app, code(KeyCode::Esc));
    assert_eq!(app.view, View::DiffClaim);
    // Side by side, c on a row without a claim on the focused side says so and stays.
    update(&mut app, code(KeyCode::Esc));
    assert_eq!(app.view, View::Diff);
    update(&mut app, key('g'));
    update(&mut app, key('c'));
    assert_eq!(app.view, View::Diff);
    assert!(
        app.status.contains("no claim on the focused side"),
        "{}",
        app.status
    );
    update(&mut app, key('j'));
    update(&mut app, key('l'));
    let (_, cb) =
        provscope::tui::diff::claims_of(&app, provscope::tui::diff::selected_row(&app).unwrap())
            .unwrap();
    let want = cb.unwrap().claim_id.clone();
    update(&mut app, key('c'));
    assert_eq!(app.view, View::Claim);
    assert_eq!(app.sessions[app.cur.unwrap()].session.name, "b");
    assert_eq!(app.current_claim().unwrap().claim_id, want);
}

#[test]
fn d_on_the_marked_session_unmarks_it_and_help_lists_the_keys() {
    let same = log(&two_turns(), "s1");
    let mut app = new_app(&Config::default(), false).unwrap();
    update(
        &mut app,
        Msg::Load(LoadMsg::Sessions(vec![
            loaded("a", &same),
            loaded("b", &same),
        ])),
    );
    update(&mut app, Msg::Load(LoadMsg::Done));
    update(&mut app, key('D'));
    assert!(app.diff_mark.is_some());
    assert!(update(&mut app, key('D')).is_empty());
    assert_eq!(app.diff_mark, None);
    assert!(app.status.contains("no longer A"), "{}", app.status);
    // D does nothing outside the sessions list.
    update(&mut app, code(KeyCode::Enter));
    assert!(update(&mut app, key('D')).is_empty());
    assert_eq!(app.diff_mark, None);
    // The help overlay of the diff views lists their keys.
    let mut app = diff_app(&same, &same, false);
    update(&mut app, Action::Help);
    let s = screen(&mut app, 200, 60);
    for want in [
        "next change",
        "previous change",
        "the next side, claim or source",
        "the focused side's claim",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
}

#[test]
fn two_runs_list_their_pairs_and_enter_opens_one() {
    let (a, b) = golden_logs();
    let same = log(&two_turns(), "s2");
    let only_a = log(&two_turns(), "s3").replace("question 1", "a question only A asks");
    let mut app = new_app(&Config::default(), false).unwrap();
    let sessions = vec![
        loaded("a1", &a),
        loaded("a2", &same),
        loaded("a3", &only_a),
        loaded("b1", &b),
        loaded("b2", &same),
    ];
    app.diff_start = Some((vec![0, 1, 2], vec![3, 4]));
    update(&mut app, Msg::Load(LoadMsg::Sessions(sessions)));
    let effects = update(&mut app, Msg::Load(LoadMsg::Done));
    assert_eq!(
        effects,
        vec![Effect::Diff {
            a: vec![0, 1, 2],
            b: vec![3, 4]
        }]
    );
    run_diffs(&mut app, effects);
    assert_eq!(app.view, View::DiffPairs);
    let s = screen(&mut app, 200, 60);
    for want in [
        "WORSE",
        "a1 -> b1",
        "SAME",
        "a2 -> b2",
        "ONLY A",
        "a3",
        "citation precision",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
    insta::assert_snapshot!("diff_pairs_80x24", screen(&mut app, 80, 24));
    // Enter on the first pair opens it side by side; Esc comes back to the list.
    update(&mut app, code(KeyCode::Enter));
    assert_eq!(app.view, View::Diff);
    assert!(screen(&mut app, 200, 60).contains("clm_min"));
    update(&mut app, code(KeyCode::Esc));
    assert_eq!(app.view, View::DiffPairs);
    // A session only in A has nothing to open.
    update(&mut app, key('G'));
    update(&mut app, code(KeyCode::Enter));
    assert_eq!(app.view, View::DiffPairs);
    assert!(app.status.contains("only in A"), "{}", app.status);
    // y copies both files of a pair.
    update(&mut app, key('g'));
    let effects = update(&mut app, key('y'));
    assert_eq!(effects, vec![Effect::Copy("a1.jsonl b1.jsonl".into())]);
}

#[test]
fn log_text_is_escaped_in_the_diff_views() {
    let payload = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}x";
    let (a, _) = golden_pair();
    let mut b = two_turns();
    b.calls[0].text = format!("Team plan: seats cost $19 per user per month. {payload}");
    b.claim("clm_price").text = format!("Team seats cost $19 per user per month {payload}");
    let mut app = diff_app(&log(&a, "s1"), &log(&b, "s1"), true);
    for _ in 0..3 {
        let (buf, _) = draw(&mut app, 200, 60);
        let s = text(&buf);
        assert!(
            !s.contains('\u{1b}') && !s.contains('\u{7}') && !s.contains('\u{202e}'),
            "{s}"
        );
        assert!(s.contains("^[") || s.contains("\\u{202e}"), "{s}");
        update(&mut app, code(KeyCode::Enter));
        update(&mut app, key('n'));
    }
}

#[test]
fn both_entry_points_with_real_keys_in_a_real_terminal() {
    if !crate::peers::tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = golden_logs();
    std::fs::write(dir.path().join("a.jsonl"), &a).unwrap();
    std::fs::write(dir.path().join("b.jsonl"), &b).unwrap();
    let bin = env!("CARGO_BIN_EXE_provscope");
    let db = dir.path().join("cases.sqlite");
    let tmux = Tmux::new("provscope-diff");
    // 1. The sessions list: D on a, D on b.
    let cmd = format!(
        "cd {} && NO_COLOR=1 {bin} --db {} a.jsonl b.jsonl; echo EXIT=$?; sleep 60",
        quoted(dir.path()),
        quoted(&db)
    );
    tmux.start("list", &cmd);
    tmux.wait_for("2 sessions");
    tmux.keys(&["g", "D"]);
    tmux.wait_for("diff: A is ");
    tmux.keys(&["j", "D"]);
    let s = tmux.wait_for("row ");
    assert!(s.contains("WORSE") && s.contains("clm_min"), "{s}");
    tmux.keys(&["n"]);
    tmux.wait_for("change 2 of");
    tmux.keys(&["g", "j", "Enter"]);
    let s = tmux.wait_for("claim beside both sources");
    assert!(s.contains("A · source") && s.contains("B · source"), "{s}");
    // Tab focuses A's claim; c opens it in the claim view, Esc comes back.
    tmux.keys(&["Tab", "c"]);
    let s = tmux.wait_for("Claim beside source");
    assert!(s.contains("clm_"), "{s}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("claim beside both sources");
    tmux.keys(&["Escape", "Escape"]);
    tmux.wait_for("sorted by");
    tmux.quit();
    // 2. `provscope diff A B --explore`, and two directories: the list of pairs.
    let cmd = format!(
        "cd {} && NO_COLOR=1 {bin} --db {} diff a.jsonl b.jsonl --explore; echo EXIT=$?; sleep 60",
        quoted(dir.path()),
        quoted(&db)
    );
    tmux.start("cli", &cmd);
    let s = tmux.wait_for("row ");
    assert!(
        s.contains("WORSE") && s.contains("paired by session id"),
        "{s}"
    );
    tmux.keys(&["Tab", "Enter"]);
    tmux.wait_for("claim beside both sources");
    tmux.quit();
    for (d, f, text) in [("ra", "s.jsonl", &a), ("rb", "s.jsonl", &b)] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
        std::fs::write(dir.path().join(d).join(f), text).unwrap();
    }
    std::fs::write(
        dir.path().join("rb/extra.jsonl"),
        log(&two_turns(), "s9").replace("question 1", "only in B"),
    )
    .unwrap();
    let cmd = format!(
        "cd {} && NO_COLOR=1 {bin} --db {} diff ra rb --explore; echo EXIT=$?; sleep 60",
        quoted(dir.path()),
        quoted(&db)
    );
    tmux.start("runs", &cmd);
    let s = tmux.wait_for("pair(s)");
    assert!(
        s.contains("ONLY B") && s.contains("citation precision"),
        "{s}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("row ");
    tmux.keys(&["Escape"]);
    tmux.wait_for("pair(s)");
    tmux.quit();
    // Without a terminal, --explore is refused and the printed diff is still the default.
    let out = std::process::Command::new(bin)
        .args(["diff", "a.jsonl", "b.jsonl", "--explore"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a terminal"));
}
