//! The explorer's loop and investigation features, driven through `update` with real keys:
//! scroll positions as state, clicks on the drawn layout, loading as messages, tables that keep
//! CJK and emoji in their cells, readable selection, `n`/`N`, shell-like inputs, search over
//! every session, every result readable, damaged logs, the filtered queue, grid and review,
//! sorting, copy and open, help scrolling, starting on a claim.

use crate::tui_util::{
    app, code, ctrl, draw, loaded, open_claim, run_effects, screen, text, typed,
};
use provscope::check::{Config, Kind, Quadrant};
use provscope::ingest::{load_bytes, LoadOptions};
use provscope::tui::action::{Action, Hit, LoadMsg, Msg, Pane, View};
use provscope::tui::app::{Focus, SortKey, Target};
use provscope::tui::update::{update, Effect};
use provscope::tui::{new_app, StartAt};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};

fn open_session(a: &mut provscope::tui::app::App, name: &str) {
    a.sel_session = a
        .order
        .iter()
        .position(|i| a.sessions[i].session.name == name)
        .unwrap();
    update(a, Action::Open);
}

#[test]
fn scroll_is_state_and_the_first_j_moves_on_from_the_span() {
    use crate::common::{Fx, FxClaim};
    let mut fx = Fx::baseline();
    let filler: String = (0..60).map(|i| format!("filler line {i}.\n")).collect();
    fx.calls[0].text = format!("{filler}Team seats cost $19 per user per month.\n{filler}");
    fx.claims = vec![FxClaim::new(
        "clm_deep",
        1,
        "Team seats cost $19 per user per month",
        "req_1",
        "Team seats cost $19 per user per month",
    )];
    let s = load_bytes(
        "deep",
        "deep.jsonl",
        fx.jsonl().as_bytes(),
        &LoadOptions::default(),
    );
    let mut a = new_app(&Config::default(), true).unwrap();
    update(&mut a, Msg::Load(LoadMsg::Sessions(loaded(vec![s]))));
    update(&mut a, Msg::Load(LoadMsg::Done));
    update(&mut a, Action::Resize(120, 30));
    assert_eq!(a.view, View::Session, "a single session opens");
    update(&mut a, Action::Right);
    update(&mut a, code(KeyCode::Enter));
    assert_eq!(a.view, View::Claim);
    let at_span = a.scroll.get(Pane::Source);
    assert!(at_span > 40, "the source starts at the span: {at_span}");
    let shown = screen(&mut a, 120, 30);
    assert!(shown.contains("Team seats cost $19"), "{shown}");
    update(&mut a, crate::tui_util::key('J'));
    assert_eq!(
        a.scroll.get(Pane::Source),
        at_span + 3,
        "J scrolls on from the span"
    );
    update(&mut a, crate::tui_util::key('K'));
    update(&mut a, crate::tui_util::key('K'));
    assert_eq!(a.scroll.get(Pane::Source), at_span - 3);
    let before = screen(&mut a, 120, 30);
    assert!(before.contains("filler line"), "{before}");
}

#[test]
fn clicks_land_on_what_the_last_frame_drew() {
    let mut a = app(true);
    let (_, drawn) = draw(&mut a, 100, 30);
    let (rect, hit) = drawn
        .regions
        .iter()
        .find(|(_, h)| *h == Hit::SessionRow(3))
        .copied()
        .unwrap();
    assert_eq!(drawn.hit(rect.x + 5, rect.y), Some(Hit::SessionRow(3)));
    update(&mut a, Action::Click(hit));
    assert_eq!(a.sel_session, 3);
    // In the session view a click on the second claim of the turn selects it.
    open_session(&mut a, "04-stale-cache");
    let (_, drawn) = draw(&mut a, 160, 45);
    let (rect, _) = drawn
        .regions
        .iter()
        .find(|(_, h)| matches!(h, Hit::Claim(1)))
        .copied()
        .unwrap();
    let hit = drawn.hit(rect.x + 2, rect.y + 1).unwrap();
    update(&mut a, Action::Click(hit));
    assert_eq!((a.focus, a.sel_claim), (Focus::Claims, 1));
    // The wheel over the question pane scrolls it, wherever the focus is.
    let (rect, _) = drawn
        .regions
        .iter()
        .find(|(_, h)| *h == Hit::Pane(Pane::Answer))
        .copied()
        .unwrap();
    let over = drawn.pane(rect.x + 1, rect.y + 1);
    assert_eq!(over, Some(Hit::Pane(Pane::Answer)));
}

/// The loader sends sessions in the order their directory lists them, not sorted: the list
/// sorts them as they arrive, and a cursor on the first row stays on the first row.
#[test]
fn sessions_arriving_in_any_order_are_listed_sorted_from_the_top() {
    let mut a = new_app(&Config::default(), true).unwrap();
    let mut v = loaded(provscope::ingest::samples::load_all(&LoadOptions::default()));
    v.reverse();
    let mut names: Vec<String> = v.iter().map(|l| l.session.name.clone()).collect();
    names.sort();
    for l in v {
        update(&mut a, Msg::Load(LoadMsg::Sessions(vec![l])));
        assert_eq!(a.sel_session, 0);
    }
    update(&mut a, Msg::Load(LoadMsg::Done));
    let listed: Vec<String> = (0..a.order.len())
        .map(|i| a.sessions[a.order.get(i).unwrap()].session.name.clone())
        .collect();
    assert_eq!(listed, names);
    assert_eq!(
        a.selected_session()
            .map(|s| a.sessions[s].session.name.clone()),
        Some(names[0].clone())
    );
}

#[test]
fn sessions_arrive_as_messages_and_keys_answer_while_loading() {
    let mut a = new_app(&Config::default(), true).unwrap();
    update(&mut a, Msg::Load(LoadMsg::Total(10)));
    let s = screen(&mut a, 100, 20);
    assert!(s.contains("loading…") && s.contains("loading 0/10"), "{s}");
    let v = loaded(provscope::ingest::samples::load_all(&LoadOptions::default()));
    let mut v = v.into_iter();
    update(
        &mut a,
        Msg::Load(LoadMsg::Sessions(v.by_ref().take(3).collect())),
    );
    update(&mut a, code(KeyCode::Down));
    assert_eq!(a.sel_session, 1, "keys answer during loading");
    let selected = a.selected_session();
    update(&mut a, Msg::Load(LoadMsg::Sessions(v.collect())));
    assert_eq!(
        a.selected_session(),
        selected,
        "the selection stays on its session"
    );
    let s = screen(&mut a, 100, 20);
    assert!(s.contains("10 sessions (loading 10/10)"), "{s}");
    update(&mut a, Msg::Load(LoadMsg::Done));
    assert_eq!(a.loading, None);
    assert_eq!(a.view, View::Sessions, "several sessions: the list stays");
}

/// Every row of a bordered table has its borders where the frame put them.
fn borders_intact(buf: &Buffer, x0: u16, x1: u16, y0: u16, y1: u16) {
    for y in y0..y1 {
        assert_eq!(
            buf[(x0, y)].symbol(),
            "│",
            "left border at row {y}:\n{}",
            text(buf)
        );
        assert_eq!(
            buf[(x1, y)].symbol(),
            "│",
            "right border at row {y}:\n{}",
            text(buf)
        );
    }
}

#[test]
fn multilingual_sample_in_every_list_view() {
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let mut a = app(true);
        let (buf, _) = draw(&mut a, w, h);
        borders_intact(&buf, 0, w - 1, 2, h - 4);
        insta::assert_snapshot!(format!("multilingual_sessions_{w}x{h}"), text(&buf));
        open_session(&mut a, "10-multilingual");
        let (buf, _) = draw(&mut a, w, h);
        insta::assert_snapshot!(format!("multilingual_session_{w}x{h}"), text(&buf));
        update(&mut a, Action::Right);
        update(&mut a, Action::Goto(View::Drift));
        insta::assert_snapshot!(format!("multilingual_drift_{w}x{h}"), screen(&mut a, w, h));
        update(&mut a, Action::Goto(View::Parallel));
        insta::assert_snapshot!(
            format!("multilingual_parallel_{w}x{h}"),
            screen(&mut a, w, h)
        );
        a.filter = provscope::tui::filter::Filter::parse("session:multilingual").unwrap();
        update(&mut a, Action::Goto(View::Queue));
        let (buf, _) = draw(&mut a, w, h);
        borders_intact(&buf, 0, w - 1, 2, h - 4);
        let s = text(&buf);
        assert!(s.contains("Queue · 1 of 6"), "{s}");
        insta::assert_snapshot!(format!("multilingual_queue_{w}x{h}"), s);
        update(&mut a, Action::Goto(View::Grid));
        insta::assert_snapshot!(format!("multilingual_grid_{w}x{h}"), screen(&mut a, w, h));
        update(&mut a, Action::Search);
        let e = typed(&mut a, "料金");
        run_effects(&mut a, e);
        let s = screen(&mut a, w, h);
        assert!(s.contains("10-multilingual"), "{s}");
        insta::assert_snapshot!(format!("multilingual_search_{w}x{h}"), s);
    }
}

/// Relative luminance of a terminal colour (xterm defaults; Reset: light text on black).
fn lum(c: Color, fg: bool) -> f64 {
    let (r, g, b) = match c {
        Color::Reset => {
            if fg {
                (229, 229, 229)
            } else {
                (0, 0, 0)
            }
        }
        Color::Black => (0, 0, 0),
        Color::Red => (205, 0, 0),
        Color::Green => (0, 205, 0),
        Color::Yellow => (205, 205, 0),
        Color::Blue => (0, 0, 238),
        Color::Magenta => (205, 0, 205),
        Color::Cyan => (0, 205, 205),
        Color::Gray => (229, 229, 229),
        Color::DarkGray => (127, 127, 127),
        Color::LightRed => (255, 0, 0),
        Color::LightGreen => (0, 255, 0),
        Color::LightYellow => (255, 255, 0),
        Color::LightBlue => (92, 92, 255),
        Color::LightMagenta => (255, 0, 255),
        Color::LightCyan => (0, 255, 255),
        Color::White => (255, 255, 255),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(_) => (128, 128, 128),
    };
    let ch = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)
}

/// The lowest contrast ratio among the non-blank cells of row `y` between `x0..x1`.
fn row_contrast(buf: &Buffer, y: u16, x0: u16, x1: u16) -> f64 {
    let mut worst = f64::MAX;
    for x in x0..x1 {
        let c = &buf[(x, y)];
        if c.symbol().trim().is_empty() {
            continue;
        }
        let (mut fg, mut bg) = (lum(c.fg, true), lum(c.bg, false));
        if c.modifier.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        let (hi, lo) = if fg > bg { (fg, bg) } else { (bg, fg) };
        worst = worst.min((hi + 0.05) / (lo + 0.05));
    }
    worst
}

#[test]
fn selection_is_readable_in_every_theme_and_without_colour() {
    let themes: Vec<Option<&str>> = vec![
        None,
        Some("selection = \"#303030\"\nselection_fg = \"#ffd75f\""),
    ];
    for color in [true, false] {
        for t in &themes {
            let cfg = Config {
                colors: t.map(|t| toml::from_str(t).unwrap()),
                ..Config::default()
            };
            let mut a = new_app(&cfg, color).unwrap();
            let v = loaded(provscope::ingest::samples::load_all(&LoadOptions::default()));
            update(&mut a, Msg::Load(LoadMsg::Sessions(v)));
            // The grid row you just classified, in the queue (secondary text included).
            a.filter = provscope::tui::filter::Filter::parse("session:04-stale").unwrap();
            update(&mut a, Action::Goto(View::Queue));
            update(&mut a, Action::Down);
            update(&mut a, Action::Classify(Quadrant::FactRightSourceWrong));
            let (buf, drawn) = draw(&mut a, 160, 40);
            let (r, _) = drawn
                .regions
                .iter()
                .find(|(_, h)| *h == Hit::QueueRow(1))
                .copied()
                .unwrap();
            let row: String = (r.x..r.right()).map(|x| buf[(x, r.y)].symbol()).collect();
            assert!(
                row.contains("RW"),
                "the classification shows on the row: {row}"
            );
            let c = row_contrast(&buf, r.y, r.x, r.right());
            assert!(
                c >= 4.5,
                "selected row contrast {c:.2} (colour {color}, theme {t:?})"
            );
            // The sessions list's selected row, dim columns included.
            update(&mut a, Action::Goto(View::Sessions));
            let (buf, drawn) = draw(&mut a, 160, 40);
            let (r, _) = drawn
                .regions
                .iter()
                .find(|(_, h)| *h == Hit::SessionRow(a.sel_session))
                .copied()
                .unwrap();
            let c = row_contrast(&buf, r.y, r.x, r.right());
            assert!(
                c >= 4.5,
                "sessions row contrast {c:.2} (colour {color}, theme {t:?})"
            );
        }
    }
}

#[test]
fn n_follows_the_claim_on_screen_in_turn_order_and_wraps_with_a_status() {
    let mut a = app(true);
    open_session(&mut a, "03-citation-drift");
    let flagged: Vec<usize> = a
        .current()
        .unwrap()
        .flagged
        .iter()
        .map(|&x| x as usize)
        .collect();
    assert!(flagged.len() >= 3, "{flagged:?}");
    // From the last claim of the session, `n` wraps to the first flagged one and says so.
    let last = a.current().unwrap().report.claims.len() - 1;
    a.select_claim(last);
    update(&mut a, Action::Goto(View::Claim));
    update(&mut a, crate::tui_util::key('n'));
    assert_eq!(a.sel_claim, flagged[0]);
    assert!(a.status.contains("wrapped to the first"), "{}", a.status);
    // From a flagged claim in a later turn, `n` goes to the next one after it, not to turn 1.
    a.select_claim(flagged[1]);
    update(&mut a, crate::tui_util::key('n'));
    assert_eq!(a.sel_claim, flagged[2]);
    assert!(
        a.status
            .contains(&format!("flagged 3 of {}", flagged.len())),
        "{}",
        a.status
    );
    update(&mut a, crate::tui_util::key('N'));
    assert_eq!(a.sel_claim, flagged[1]);
    // From a clean claim, `n` is the next flagged claim after it on screen.
    let clean = (0..last)
        .find(|i| !flagged.contains(i) && *i > flagged[0])
        .unwrap();
    a.select_claim(clean);
    update(&mut a, crate::tui_util::key('n'));
    assert_eq!(
        a.sel_claim,
        *flagged.iter().find(|&&f| f > clean).unwrap_or(&flagged[0])
    );
    let s = screen(&mut a, 120, 40);
    assert!(
        s.contains("flagged") && s.contains(&format!("of {}", flagged.len())),
        "{s}"
    );
    // `t`: errors first.
    update(&mut a, crate::tui_util::key('t'));
    assert!(a.severity_order);
    a.select_claim(clean);
    update(&mut a, crate::tui_util::key('n'));
    let l = a.current().unwrap();
    assert_eq!(
        l.claim_worst(a.sel_claim),
        Some(provscope::check::Severity::Error)
    );
}

#[test]
fn inputs_edit_like_a_shell_and_ctrl_c_cancels_only_the_input() {
    let mut a = app(true);
    open_claim(&mut a, "04-stale-cache", "clm_seat_price");
    update(&mut a, Action::Goto(View::Claim));
    update(&mut a, crate::tui_util::key('i'));
    typed(&mut a, "first draft");
    update(&mut a, ctrl('w'));
    typed(&mut a, "line");
    update(&mut a, ctrl('j'));
    typed(&mut a, "mirror stale");
    update(&mut a, code(KeyCode::Left));
    update(&mut a, code(KeyCode::Left));
    update(&mut a, code(KeyCode::Backspace));
    let note = a.input.as_ref().unwrap().text();
    assert_eq!(note, "first line\nmirror stle");
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("Note (Enter saves"), "{s}");
    insta::assert_snapshot!("note_editor_80x24", s);
    insta::assert_snapshot!("note_editor_200x60", screen(&mut a, 200, 60));
    // Ctrl-C cancels the note, never the program.
    let e = update(&mut a, ctrl('c'));
    assert!(e.is_empty(), "{e:?}");
    assert!(a.input.is_none() && a.status == "cancelled");
    assert!(a.mark().is_none(), "a cancelled note is not saved");
    // Ctrl-U and Ctrl-A/E in the search box; Enter submits a multi-line note.
    update(&mut a, crate::tui_util::key('/'));
    typed(&mut a, "stale price");
    update(&mut a, ctrl('a'));
    update(&mut a, ctrl('e'));
    update(&mut a, ctrl('u'));
    assert_eq!(a.input.as_ref().unwrap().text(), "");
    update(&mut a, code(KeyCode::Esc));
    assert!(a.input.is_none());
    update(&mut a, crate::tui_util::key('i'));
    typed(&mut a, "two");
    update(&mut a, ctrl('j'));
    typed(&mut a, "lines");
    let e = update(&mut a, code(KeyCode::Enter));
    assert!(
        matches!(&e[..], [Effect::SaveMark(_, m)] if m.note == "two\nlines"),
        "{e:?}"
    );
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("note: two") && s.contains("      lines"), "{s}");
}

#[test]
fn search_covers_every_session_and_ranks_exact_ids_first() {
    let mut a = app(true);
    update(&mut a, crate::tui_util::key('/'));
    let e = typed(&mut a, "clm_seat_price");
    run_effects(&mut a, e);
    let res = a.search.as_ref().unwrap();
    let first = &res.hits[0];
    assert_eq!(first.rank, 3, "{:?}", res.hits);
    let l = &a.sessions[first.session as usize];
    assert_eq!(l.session.name, "04-stale-cache");
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("04-stale-cache") && s.contains("T1"), "{s}");
    insta::assert_snapshot!("search_results_200x60", s);
    insta::assert_snapshot!("search_results_80x24", screen(&mut a, 80, 24));
    // `/stale`: claims with a stale finding come before fuzzy matches.
    update(&mut a, ctrl('u'));
    let e = typed(&mut a, "stale");
    run_effects(&mut a, e);
    let res = a.search.as_ref().unwrap();
    let Target::Claim(c) = res.hits[0].target else {
        panic!("{:?}", res.hits[0])
    };
    let l = &a.sessions[res.hits[0].session as usize];
    assert!(l.findings(c as usize).any(|f| f.kind == Kind::Stale));
    assert!(res.hits.iter().take_while(|h| h.rank > 0).count() >= 3);
    // Call ids and result text are found too; a call opens beside a claim of its turn.
    update(&mut a, ctrl('u'));
    let e = typed(&mut a, "incidents#7");
    run_effects(&mut a, e);
    update(&mut a, code(KeyCode::Enter));
    assert_eq!(a.view, View::Claim);
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("incidents#7"), "{s}");
}

#[test]
fn every_result_is_readable_from_the_calls_pane() {
    let mut a = app(true);
    open_session(&mut a, "06-parallel-conflict");
    update(&mut a, Action::FocusNext);
    assert_eq!(a.focus, Focus::Calls);
    // incidents#7 is the first call of turn 1; no claim cites it.
    let y = update(&mut a, crate::tui_util::key('y'));
    assert_eq!(y, vec![Effect::Copy("incidents#7".into())]);
    update(&mut a, code(KeyCode::Enter));
    assert_eq!(a.view, View::Claim);
    assert_eq!(a.shown_call.as_deref(), Some("incidents#7"));
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("not the cited result: call incidents#7"), "{s}");
    assert!(
        s.contains("arguments:") && s.contains("\"incident_id\": \"INC-4471\""),
        "{s}"
    );
    insta::assert_snapshot!("uncited_call_200x60", s);
    // `]` shows the turn's next call: the cited status page.
    update(&mut a, crate::tui_util::key(']'));
    assert_eq!(a.shown_call, None, "back on the cited call");
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("call 2 of 3"), "{s}");
    update(&mut a, crate::tui_util::key(']'));
    assert_eq!(a.shown_call.as_deref(), Some("oncall#3"));
}

#[test]
fn damaged_and_unknown_logs_say_so_where_they_are_shown() {
    let mut text = String::new();
    for (k, l) in provscope::ingest::samples::files()
        .iter()
        .find(|(n, _)| n.starts_with("04"))
        .unwrap()
        .1
        .lines()
        .enumerate()
    {
        text.push_str(if k == 8 {
            "{\"event\":\"tool_call\",\"tu"
        } else {
            l
        });
        text.push('\n');
    }
    let s = load_bytes(
        "broken",
        "broken.jsonl",
        text.as_bytes(),
        &LoadOptions::default(),
    );
    let mut a = new_app(&Config::default(), true).unwrap();
    update(&mut a, Msg::Load(LoadMsg::Sessions(loaded(vec![s]))));
    update(&mut a, Msg::Load(LoadMsg::Done));
    assert_eq!(a.view, View::Session);
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("line(s) of this log could not be read"), "{s}");
    assert!(s.contains("broken.jsonl:9"), "{s}");
    assert!(s.contains("⚠ T"), "the damaged turn is marked: {s}");
    insta::assert_snapshot!("damaged_banner_200x60", s);
    insta::assert_snapshot!("damaged_banner_80x24", screen(&mut a, 80, 24));
    // A file in no known format.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.jsonl");
    std::fs::write(&p, "hello, this is not a log\n").unwrap();
    let s = provscope::ingest::load_file(&p, &LoadOptions::default());
    let mut a = new_app(&Config::default(), true).unwrap();
    update(&mut a, Msg::Load(LoadMsg::Sessions(loaded(vec![s]))));
    update(&mut a, Msg::Load(LoadMsg::Done));
    let s = screen(&mut a, 200, 30);
    assert!(
        s.contains("is not a session log or any trace format"),
        "{s}"
    );
}

#[test]
fn a_filtered_review_over_every_session() {
    let mut a = app(true);
    update(&mut a, crate::tui_util::key('f'));
    typed(&mut a, "kind:stale,below_tier reviewed:no");
    insta::assert_snapshot!("filter_bar_80x24", screen(&mut a, 80, 24));
    insta::assert_snapshot!("filter_bar_200x60", screen(&mut a, 200, 60));
    update(&mut a, code(KeyCode::Enter));
    assert_eq!(a.view, View::Queue);
    let sessions: std::collections::BTreeSet<u32> = a.queue.items.iter().map(|x| x.0).collect();
    assert!(sessions.len() >= 2, "several sessions in one queue");
    for &(s, c) in &a.queue.items {
        let mask = a.sessions[s as usize]
            .findings(c as usize)
            .map(|f| f.kind)
            .collect::<Vec<_>>();
        assert!(
            mask.contains(&Kind::Stale) || mask.contains(&Kind::BelowTier),
            "{mask:?}"
        );
    }
    let s = screen(&mut a, 200, 60);
    assert!(
        s.contains(&format!("Queue · 1 of {}", a.queue.items.len())),
        "{s}"
    );
    insta::assert_snapshot!("queue_200x60", s);
    insta::assert_snapshot!("queue_80x24", screen(&mut a, 80, 24));
    // The grid of the filtered set; a cell opens its claims.
    update(&mut a, crate::tui_util::key('x'));
    let s = screen(&mut a, 200, 60);
    assert!(
        s.contains(&format!(
            "{} claim(s) in 10 session(s)",
            a.queue.items.len()
        )),
        "{s}"
    );
    insta::assert_snapshot!("grid_filtered_200x60", s);
    update(&mut a, crate::tui_util::key('l'));
    assert_eq!(a.grid_cell, 1);
    let rw = a.queue.by_cell[1].len();
    update(&mut a, code(KeyCode::Enter));
    assert_eq!(a.view, View::Queue);
    assert_eq!(a.queue.items.len(), rw);
    assert_eq!(
        a.filter.quadrants,
        vec![Some(Quadrant::FactRightSourceWrong)]
    );
    // The review walks the filtered flagged claims across sessions: k of N, wraps.
    update(&mut a, crate::tui_util::key('r'));
    assert_eq!(a.view, View::Review);
    let n = a.review.len();
    assert!(n >= 2);
    let s = screen(&mut a, 200, 60);
    assert!(s.contains(&format!("flagged claim 1 of {n}")), "{s}");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..n {
        seen.insert(a.cur.unwrap());
        let e = update(&mut a, crate::tui_util::key('m'));
        assert!(matches!(&e[..], [Effect::SaveReviewed(_, true)]), "{e:?}");
        update(&mut a, crate::tui_util::key('n'));
    }
    assert!(seen.len() >= 2, "the review crossed sessions");
    assert!(a.status.contains("back to the first"), "{}", a.status);
    let s = screen(&mut a, 200, 60);
    assert!(s.contains(&format!("{n} reviewed")), "{s}");
    // Review progress per session in the sessions list.
    update(&mut a, crate::tui_util::key('S'));
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("REVIEWED") && s.contains("1/3"), "{s}");
}

#[test]
fn sessions_sort_by_any_column_both_ways() {
    let mut a = app(true);
    let rw = |a: &provscope::tui::app::App| -> Vec<u64> {
        a.order
            .iter()
            .map(|i| a.sessions[i].quadrant_count(Quadrant::FactRightSourceWrong))
            .collect()
    };
    while a.sort != SortKey::Quadrant(Quadrant::FactRightSourceWrong) {
        update(&mut a, crate::tui_util::key('s'));
    }
    let v = rw(&a);
    assert!(v.windows(2).all(|w| w[0] >= w[1]), "{v:?}");
    let s = screen(&mut a, 120, 20);
    assert!(s.contains("sorted by RW ↓"), "{s}");
    update(&mut a, crate::tui_util::key('-'));
    let v = rw(&a);
    assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
    assert!(screen(&mut a, 120, 20).contains("sorted by RW ↑"));
    for _ in 0..SortKey::ALL.len() {
        update(&mut a, crate::tui_util::key('s'));
    }
    assert_eq!(a.sort, SortKey::Quadrant(Quadrant::FactRightSourceWrong));
}

#[test]
fn copy_and_open_name_the_focused_item() {
    let mut a = app(true);
    open_claim(&mut a, "04-stale-cache", "clm_seat_price");
    update(&mut a, Action::Goto(View::Claim));
    let e = update(&mut a, crate::tui_util::key('y'));
    assert_eq!(
        e,
        vec![Effect::Copy(
            "Seats cost $19 per user per month on annual billing".into()
        )],
        "the source pane copies the span"
    );
    update(&mut a, crate::tui_util::key('h'));
    let e = update(&mut a, crate::tui_util::key('y'));
    assert_eq!(e, vec![Effect::Copy("clm_seat_price".into())]);
    let e = update(&mut a, crate::tui_util::key('o'));
    let line = a.current_claim().unwrap().line;
    assert_eq!(
        e,
        vec![Effect::OpenExternal {
            session: a.cur.unwrap(),
            line,
            json_path: None
        }]
    );
    assert!(provscope::tui::runtime::osc52("clm").starts_with("\u{1b}]52;c;Y2xt"));
}

#[test]
fn help_scrolls_and_panes_show_the_whole_question() {
    let mut a = app(true);
    open_claim(&mut a, "04-stale-cache", "clm_seat_price");
    update(&mut a, Action::Goto(View::Claim));
    update(&mut a, crate::tui_util::key('?'));
    let top = screen(&mut a, 80, 24);
    assert!(
        top.contains("Help: Claim beside source") && top.contains(" of "),
        "{top}"
    );
    for _ in 0..40 {
        update(&mut a, crate::tui_util::key('j'));
    }
    let bottom = screen(&mut a, 80, 24);
    assert_ne!(top, bottom);
    assert!(bottom.contains("keys can be changed"), "{bottom}");
    update(&mut a, code(KeyCode::Esc));
    assert!(!a.help);
    // The session title and the whole question, wrapped.
    let mut a = app(true);
    open_session(&mut a, "10-multilingual");
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("title: Société Générale"), "{s}");
    assert!(s.contains("l'offre Entreprise est-il traité ?"), "{s}");
}

#[test]
fn open_with_claim_starts_on_that_claim() {
    let mut a = new_app(&Config::default(), true).unwrap();
    a.start = Some(StartAt {
        claim: "clm_team_price".into(),
        turn: Some(3),
    });
    let v = loaded(provscope::ingest::samples::load_all(&LoadOptions::default()));
    update(&mut a, Msg::Load(LoadMsg::Sessions(v)));
    update(&mut a, Msg::Load(LoadMsg::Done));
    assert_eq!(a.view, View::Claim);
    let c = a.current_claim().unwrap();
    assert_eq!((c.claim_id.as_str(), c.turn), ("clm_team_price", 3));
    assert_eq!(a.current().unwrap().session.name, "03-citation-drift");
    let mut b = new_app(&Config::default(), true).unwrap();
    b.start = Some(StartAt {
        claim: "clm_nowhere".into(),
        turn: None,
    });
    let v = loaded(provscope::ingest::samples::load_all(&LoadOptions::default()));
    update(&mut b, Msg::Load(LoadMsg::Sessions(v)));
    update(&mut b, Msg::Load(LoadMsg::Done));
    assert!(
        b.status
            .contains("clm_nowhere is not in the loaded sessions"),
        "{}",
        b.status
    );
}

/// The key table in docs/explorer.md, as the keymap has it.
fn key_table() -> String {
    let km = provscope::tui::keymap::Keymap::default();
    let mut out = String::from("| name | keys | what | views |\n|---|---|---|---|\n");
    for (name, keys, help, views) in km.rows() {
        let views = if views.is_empty() {
            "all".to_owned()
        } else {
            views
                .iter()
                .map(|v| v.title())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let keys = keys.replace('|', "\\|");
        out.push_str(&format!("| `{name}` | {keys} | {help} | {views} |\n"));
    }
    out
}

#[test]
fn the_documented_key_table_is_the_keymap() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/explorer.md"),
    )
    .unwrap();
    let table = key_table();
    assert!(
        doc.contains(&table),
        "docs/explorer.md's key table differs from the keymap; it should read:\n{table}"
    );
}

#[test]
fn a_on_a_trace_call_that_ran_an_agent_opens_the_agents_session_from_the_same_file() {
    // An OTLP trace whose tool call ran another agent: both sessions come from one file; `a`
    // on the turn of the call selects the sub-agent's, Back returns to the parent.
    let bytes = crate::importers_otlp::sub_agent_trace("t-tui").to_string();
    let sessions = provscope::ingest::load_any_bytes(
        "trace",
        "trace.json",
        bytes.as_bytes(),
        &LoadOptions::default(),
    );
    let mut a = new_app(&Config::default(), false).unwrap();
    update(&mut a, Msg::Load(LoadMsg::Sessions(loaded(sessions))));
    update(&mut a, Msg::Load(LoadMsg::Done));
    open_session(&mut a, "trace");
    assert_eq!(a.current().unwrap().session.id(), "t-tui");
    let turn = a.current().unwrap().session.calls[0].turn;
    a.sel_turn = a
        .current()
        .unwrap()
        .session
        .turns
        .iter()
        .position(|t| t.index == turn)
        .unwrap();
    let before = screen(&mut a, 120, 40);
    assert!(before.contains("Plan a day in Paris"), "{before}");
    let effects = update(&mut a, crate::tui_util::key('a'));
    assert!(effects.is_empty(), "no file to load: {effects:?}");
    assert_eq!(a.view, View::Session);
    assert_eq!(
        a.current().unwrap().session.id(),
        "t-tui/call_research",
        "status: {}",
        a.status
    );
    let after = screen(&mut a, 120, 40);
    assert!(after.contains("Research the weather in Paris"), "{after}");
    update(&mut a, Action::Back);
    assert_eq!(a.current().unwrap().session.id(), "t-tui");
}
