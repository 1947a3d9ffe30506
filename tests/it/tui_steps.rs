//! A large session log opens in steps (issue 18 item 3): the loader sends the first turns
//! loaded and checked, then longer prefixes, then the whole file; the explorer lists and opens
//! the first step at once and replaces it in place (selection kept) as later steps arrive; the
//! last step's findings are those of a full check.

use crate::tui_util::screen;
use provscope::check::Config;
use provscope::gen::{write_session, GenSpec};
use provscope::ingest::{load_file, LoadOptions};
use provscope::pipeline::Pipeline;
use provscope::tui::action::{Action, LoadMsg, Msg, View};
use provscope::tui::app::{App, Focus, Loaded};
use provscope::tui::loader::{spawn_steps, Steps};
use provscope::tui::new_app;
use provscope::tui::update::update;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::time::Duration;

/// The generated shape: `turns` turns of 2 calls each, 25% faulty claims.
fn spec(turns: u32) -> GenSpec {
    GenSpec {
        turns,
        calls: 2,
        seed: 42,
        fault_rate: 0.25,
        result_bytes: 600,
        envelopes: false,
        sub_agents: false,
    }
}

/// One generated session of `turns` turns (2 calls each, 25% faulty claims) in `dir`.
fn generated(dir: &Path, turns: u32) -> PathBuf {
    let spec = spec(turns);
    let p = dir.join("long.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    write_session(&mut f, &spec, 0).unwrap();
    std::io::Write::flush(&mut f).unwrap();
    p
}

/// Every message the loader sends for `paths`, until `Done` (at most 60 s).
fn load_messages(paths: Vec<PathBuf>, steps: Steps) -> Vec<LoadMsg> {
    let (tx, rx) = channel();
    spawn_steps(
        paths,
        LoadOptions::default(),
        Config::default(),
        1,
        steps,
        move |m| tx.send(m).is_ok(),
    );
    let mut out = Vec::new();
    loop {
        let m = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the loader finishes within 60 s");
        let done = matches!(m, LoadMsg::Done);
        out.push(m);
        if done {
            return out;
        }
    }
}

const SMALL: Steps = Steps {
    min_file: 64 << 10,
    first: 16 << 10,
};

fn report_json(l: &Loaded) -> serde_json::Value {
    serde_json::to_value(&l.report).unwrap()
}

#[test]
fn a_long_log_arrives_in_growing_steps_and_ends_as_a_full_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated(dir.path(), 400);
    let size = std::fs::metadata(&path).unwrap().len();
    let msgs = load_messages(vec![path.clone()], SMALL);
    let steps: Vec<(&Loaded, u64, u64, bool)> = msgs
        .iter()
        .filter_map(|m| match m {
            LoadMsg::Step {
                loaded,
                checked,
                total,
                alone,
                ..
            } => Some((&**loaded, *checked, *total, *alone)),
            _ => None,
        })
        .collect();
    assert!(
        !msgs.iter().any(|m| matches!(m, LoadMsg::Sessions(_))),
        "a log opened in steps is never sent whole as well"
    );
    // 16 KiB, 64 KiB, ... while a sixteenth of the file at most, then the whole file.
    let expected = SMALL.cuts(size).len() + 1;
    assert!(expected >= 3, "{size} bytes give {expected} steps");
    assert_eq!(steps.len(), expected);
    let (last, checked, total, _) = *steps.last().unwrap();
    assert_eq!((checked, total), (size, size));
    let mut turns = 0;
    for w in steps.windows(2) {
        let ((a, ca, ta, alone), (b, cb, _, _)) = (w[0], w[1]);
        assert!(alone, "the only input opens with its first step");
        assert!(ca < ta && ca < cb, "{ca} of {ta}, then {cb}");
        // Whole turns, each step a prefix of the next: the same turns, calls and claims at the
        // same indexes (what the open session's selection points at).
        assert!(a.session.turns.len() > turns);
        turns = a.session.turns.len();
        assert!(b.session.turns.len() > a.session.turns.len());
        for (x, y) in a.session.turns.iter().zip(&b.session.turns) {
            assert_eq!((x.index, &x.user), (y.index, &y.user));
        }
        for (x, y) in a.session.calls.iter().zip(&b.session.calls) {
            assert_eq!(x.id, y.id);
        }
        assert!(a.report.claims.len() < b.report.claims.len());
        for (x, y) in a.report.claims.iter().zip(&b.report.claims) {
            assert_eq!((&x.claim_id, x.turn), (&y.claim_id, y.turn));
        }
        // A step's last turn is whole: its claims were stated (no turn cut in its middle).
        let t = a.session.turns.last().unwrap().index;
        assert!(a.session.answer(t).is_some(), "turn {t} has its answer");
    }
    // The last step is the whole file checked as any file is.
    let full = load_file(&path, &LoadOptions::default());
    let p = Pipeline::new(LoadOptions::default(), Config::default(), 1);
    let r = p.check(&full);
    assert_eq!(last.report.findings, r.findings);
    assert_eq!(report_json(last), serde_json::to_value(&r).unwrap());
    assert_eq!(last.session.turns.len(), 400);
    assert!(r.findings.len() > 50, "the generated faults are found");
}

/// Sessions the explorer loads together hold one copy of the texts they repeat (a tool's
/// result, the same question), and are checked as when each is loaded alone.
#[test]
fn sessions_loaded_together_share_the_texts_they_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(30);
    for i in 0..2 {
        let mut f = std::fs::File::create(dir.path().join(format!("s{i}.jsonl"))).unwrap();
        write_session(&mut f, &spec, i).unwrap();
    }
    let whole = Steps {
        min_file: u64::MAX,
        first: 16 << 10,
    };
    let msgs = load_messages(vec![dir.path().to_path_buf()], whole);
    let loaded: Vec<&Loaded> = msgs
        .iter()
        .filter_map(|m| match m {
            LoadMsg::Sessions(v) => Some(v.iter()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(loaded.len(), 2);
    fn texts(l: &Loaded) -> Vec<&str> {
        l.session
            .results
            .iter()
            .filter_map(|r| r.block_text(0))
            .collect()
    }
    let (a, b) = (texts(loaded[0]), texts(loaded[1]));
    let mut shared = 0;
    for x in &a {
        if let Some(y) = b.iter().find(|y| *y == x) {
            assert_eq!(x.as_ptr(), y.as_ptr(), "one copy of {x:?}");
            shared += 1;
        }
    }
    assert!(shared > 0, "the generated sessions repeat results");
    let p = Pipeline::new(LoadOptions::default(), Config::default(), 1);
    for l in loaded {
        let alone = load_file(Path::new(&*l.session.source), &LoadOptions::default());
        let own: Vec<&str> = alone
            .results
            .iter()
            .filter_map(|r| r.block_text(0))
            .collect();
        assert_eq!(texts(l), own);
        assert_eq!(
            report_json(l),
            serde_json::to_value(p.check(&alone)).unwrap()
        );
    }
}

#[test]
fn small_logs_and_directories_load_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated(dir.path(), 400);
    let size = std::fs::metadata(&path).unwrap().len();
    let whole = Steps {
        min_file: size + 1,
        first: 16 << 10,
    };
    let msgs = load_messages(vec![path], whole);
    assert!(!msgs.iter().any(|m| matches!(m, LoadMsg::Step { .. })));
    assert!(msgs
        .iter()
        .any(|m| matches!(m, LoadMsg::Sessions(v) if v.len() == 1)));
    // In a directory a long log opens in steps too, but is not the only input.
    let msgs = load_messages(vec![dir.path().to_path_buf()], SMALL);
    let alone: Vec<bool> = msgs
        .iter()
        .filter_map(|m| match m {
            LoadMsg::Step { alone, .. } => Some(*alone),
            _ => None,
        })
        .collect();
    assert!(alone.len() >= 3 && alone.iter().all(|a| !a), "{alone:?}");
}

/// The explorer fed the steps as the runtime feeds them.
fn app_with_steps(msgs: Vec<LoadMsg>) -> (App, Vec<LoadMsg>) {
    let mut app = new_app(&Config::default(), false).unwrap();
    update(&mut app, Action::Resize(120, 30));
    let mut rest = msgs.into_iter();
    for m in rest.by_ref() {
        let first_step = matches!(m, LoadMsg::Step { .. });
        update(&mut app, Msg::Load(m));
        if first_step {
            break;
        }
    }
    (app, rest.collect())
}

#[test]
fn the_session_view_opens_with_the_first_step_and_keeps_its_selection() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated(dir.path(), 400);
    let msgs = load_messages(vec![path], SMALL);
    let (mut app, rest) = app_with_steps(msgs);
    // The first turns are listed and open at once, while the rest loads.
    assert_eq!(app.view, View::Session);
    assert_eq!(app.sessions.len(), 1);
    assert_eq!(app.growing.len(), 1);
    let first_turns = app.current().unwrap().session.turns.len();
    assert!(first_turns < 400);
    // Select turn 3's claims and keep them selected while later steps arrive.
    update(&mut app, Action::Down);
    update(&mut app, Action::Down);
    update(&mut app, Action::Right);
    app.focus = Focus::Claims;
    let (turn, claim) = (app.sel_turn, app.sel_claim);
    let key = app.claim_key().unwrap();
    assert_eq!(turn, 2);
    let mut steps = 0;
    for m in rest {
        let is_step = matches!(m, LoadMsg::Step { .. });
        update(&mut app, Msg::Load(m));
        if is_step {
            steps += 1;
            assert_eq!(app.view, View::Session);
            assert_eq!((app.sel_turn, app.sel_claim), (turn, claim));
            assert_eq!(app.claim_key().unwrap(), key);
            assert_eq!(app.sessions.len(), 1);
        }
    }
    // After the first: a longer prefix (at most a sixteenth of the file), then the whole file.
    assert!(steps >= 2, "{steps}");
    assert!(app.growing.is_empty() && app.loading.is_none());
    assert_eq!(app.current().unwrap().session.turns.len(), 400);
    assert_eq!(app.view, View::Session, "Done does not open it again");
    assert_eq!(app.history, vec![View::Sessions]);
}

#[test]
fn the_header_shows_how_far_a_growing_log_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated(dir.path(), 400);
    let msgs = load_messages(vec![path.clone()], SMALL);
    let (mut app, rest) = app_with_steps(msgs);
    let g = app.growing[0].clone();
    assert!(g.checked < g.total);
    // A step being read (the next message of the loader, whatever its timing).
    update(
        &mut app,
        Msg::Load(LoadMsg::Read {
            source: path.display().to_string(),
            bytes: g.total / 2,
        }),
    );
    let s = screen(&mut app, 120, 12);
    let header = s.lines().next().unwrap();
    let pct = g.checked * 100 / g.total;
    assert!(
        header.contains(&format!("long: {pct}% checked")) && header.contains("reading 50%"),
        "{header}"
    );
    insta::assert_snapshot!("growing_header_120x12", s);
    // Once read, the step is checked: the header says how far.
    let source = path.display().to_string();
    update(
        &mut app,
        Msg::Load(LoadMsg::Checking {
            source: source.clone(),
            done: 4,
            total: 10,
        }),
    );
    let s = screen(&mut app, 120, 12);
    let header = s.lines().next().unwrap();
    assert!(
        header.contains(&format!("long: {pct}% checked"))
            && header.contains("checking up to 50%: 40% done")
            && !header.contains("reading"),
        "{header}"
    );
    insta::assert_snapshot!("growing_header_checking_120x12", s);
    // A checking message for another file changes nothing; the next read shows reading again.
    update(
        &mut app,
        Msg::Load(LoadMsg::Checking {
            source: "other.jsonl".into(),
            done: 9,
            total: 10,
        }),
    );
    assert_eq!(app.growing[0].checking, Some(40));
    update(
        &mut app,
        Msg::Load(LoadMsg::Read {
            source,
            bytes: g.total * 3 / 4,
        }),
    );
    let s = screen(&mut app, 120, 12);
    assert!(s.lines().next().unwrap().contains("reading 75%"), "{s}");
    for m in rest {
        update(&mut app, Msg::Load(m));
    }
    let s = screen(&mut app, 120, 12);
    assert!(!s.lines().next().unwrap().contains("checked"), "{s}");
}

#[test]
fn the_loader_tells_how_far_each_step_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated(dir.path(), 400);
    let source = path.display().to_string();
    let msgs = load_messages(vec![path], SMALL);
    // Each step's check is told when it starts (then at most every 200 ms), before the step.
    let mut checking_since_step = 0;
    let mut steps = 0;
    for m in &msgs {
        match m {
            LoadMsg::Checking {
                source: s,
                done,
                total,
            } => {
                assert_eq!(s, &source);
                assert!(done <= total && *total > 0, "{done}/{total}");
                if checking_since_step == 0 {
                    assert_eq!(*done, 0, "the first word of a step's check is its start");
                }
                checking_since_step += 1;
            }
            LoadMsg::Step { .. } => {
                assert!(checking_since_step >= 1, "step {steps} was not told");
                checking_since_step = 0;
                steps += 1;
            }
            _ => {}
        }
    }
    assert!(steps >= 3, "{steps}");
}

#[test]
fn a_step_is_said_read_in_full_before_its_checks_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated(dir.path(), 400);
    let msgs = load_messages(vec![path], SMALL);
    // The last word on reading before a step's checks is the step's whole size, so the header
    // says "checking up to 100%" for the last step (the whole file), not what a tick last saw.
    let (mut read, mut at_check, mut steps) = (None, None, 0);
    for m in &msgs {
        match m {
            LoadMsg::Read { bytes, .. } => read = Some(*bytes),
            LoadMsg::Checking { .. } if at_check.is_none() => at_check = Some(read),
            LoadMsg::Step { checked, .. } => {
                assert_eq!(at_check, Some(Some(*checked)), "step {steps}");
                (read, at_check) = (None, None);
                steps += 1;
            }
            _ => {}
        }
    }
    assert!(steps >= 3, "{steps}");
    // On screen: the explorer fed the messages up to the first word of the last step's checks.
    let last = msgs
        .iter()
        .rposition(|m| matches!(m, LoadMsg::Step { .. }))
        .unwrap();
    let before = msgs[..last]
        .iter()
        .rposition(|m| matches!(m, LoadMsg::Step { .. }))
        .unwrap();
    let upto = before
        + msgs[before..]
            .iter()
            .position(|m| matches!(m, LoadMsg::Checking { .. }))
            .unwrap();
    let mut app = new_app(&Config::default(), false).unwrap();
    update(&mut app, Action::Resize(120, 30));
    for m in msgs.into_iter().take(upto + 1) {
        update(&mut app, Msg::Load(m));
    }
    let s = screen(&mut app, 120, 12);
    let header = s.lines().next().unwrap();
    assert!(header.contains("checking up to 100%: 0% done"), "{header}");
}
