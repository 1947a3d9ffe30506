//! The explorer: a ratatui TUI in the Elm style. `app` is the state, `action` the messages,
//! `update` the only place state changes, `views` pure render functions, `keymap` the key table,
//! `terminal` the one owner of the terminal. It renders findings; it never computes provenance.

pub mod action;
pub mod app;
pub mod keymap;
pub mod search;
mod terminal;
pub mod theme;
pub mod update;
pub mod views;

use crate::check::Config;
use crate::ingest::LoadOptions;
use crate::store::{Classification, SessionRef, Store};
use action::{Action, View};
use app::{App, Loaded, Mark, SearchResults};
use ratatui::crossterm::event::{
    self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::Duration;
use update::{update, Effect};

/// What the explorer opens.
pub struct Options {
    /// Logs or directories; empty means the bundled samples.
    pub paths: Vec<PathBuf>,
    /// Loader settings.
    pub load: LoadOptions,
    /// Check configuration (also carries `[keys]` and `[colors]`).
    pub config: Config,
    /// The case database.
    pub db: PathBuf,
    /// Colour allowed (false under NO_COLOR).
    pub color: bool,
}

/// Builds the app state from configuration (keys and colours).
pub fn new_app(cfg: &Config, color: bool) -> Result<App, String> {
    let keymap = match &cfg.keys {
        Some(t) => keymap::Keymap::with_overrides(t)?,
        None => keymap::Keymap::default(),
    };
    let theme = match &cfg.colors {
        Some(t) => theme::Theme::new(color).with_overrides(t)?,
        None => theme::Theme::new(color),
    };
    Ok(App::new(keymap, theme))
}

/// Messages from the background loader.
pub enum LoadMsg {
    /// How many sessions will come.
    Total(usize),
    /// One loaded and checked session.
    Session(Box<Loaded>),
    /// A problem with an input, for the sessions view.
    Problem(String),
}

/// Loads and checks sessions on a background thread through the pipeline (the same one every
/// command uses), streaming them to the UI in input order.
pub fn spawn_loader(paths: Vec<PathBuf>, opts: LoadOptions, cfg: Config) -> Receiver<LoadMsg> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let pipeline = crate::pipeline::Pipeline::new(opts, cfg, 0);
        let inputs = pipeline.discover(&paths);
        for e in &inputs.errors {
            let _ = tx.send(LoadMsg::Problem(e.to_string()));
        }
        let _ = tx.send(LoadMsg::Total(inputs.len()));
        pipeline.run(&inputs, |c| {
            for d in c
                .session
                .diagnostics
                .iter()
                .filter(|d| d.level == crate::model::DiagLevel::Error)
                .take(3)
            {
                let _ = tx.send(LoadMsg::Problem(d.to_string()));
            }
            tx.send(LoadMsg::Session(Box::new(Loaded::new(c.session, c.report))))
                .is_ok()
        });
    });
    rx
}

/// Loads what the store knows about a session into the app.
pub fn restore_marks(app: &mut App, store: &Store, session_id: &str) -> crate::store::Result<()> {
    for c in store.classifications(session_id)? {
        app.marks.insert(
            (c.session_id.clone(), c.claim_id.clone(), c.turn),
            Mark {
                quadrant: Some(c.quadrant),
                note: c.note.clone(),
            },
        );
    }
    for (claim, turn) in store.reviewed(session_id)? {
        app.reviewed.insert((session_id.to_owned(), claim, turn));
    }
    if let Some(cur) = store.review_cursor(session_id)? {
        app.cursors.insert(session_id.to_owned(), cur);
    }
    Ok(())
}

/// Carries out one effect against the store; returns a status line.
pub fn apply_effect(
    app: &mut App,
    store: Option<&Store>,
    e: &Effect,
) -> Result<Option<String>, String> {
    let needs_store = || store.ok_or_else(|| "no case database".to_owned());
    let session_ref = |sid: &str| {
        let path = app
            .sessions
            .iter()
            .find(|l| l.report.session_id == sid)
            .map(|l| l.session.source.to_string())
            .unwrap_or_default();
        SessionRef {
            session_id: sid.to_owned(),
            path,
            content_hash: None,
        }
    };
    let reviewer = std::env::var("USER").unwrap_or_else(|_| "explorer".into());
    match e {
        Effect::SaveMark((sid, claim, turn), mark) => {
            let computed = app
                .sessions
                .iter()
                .find(|l| &l.report.session_id == sid)
                .and_then(|l| {
                    l.report
                        .claims
                        .iter()
                        .find(|c| &c.claim_id == claim && c.turn == *turn)
                })
                .and_then(|c| c.quadrant);
            let Some(q) = mark.quadrant.or(computed) else {
                return Ok(Some("classify the claim (1-4) before adding a note".into()));
            };
            let c = Classification::new(
                sid,
                claim,
                *turn,
                q,
                &mark.note,
                &reviewer,
                crate::model::Timestamp::now(),
            );
            let store = needs_store()?;
            store
                .classify(&session_ref(sid), &c)
                .map_err(|e| e.to_string())?;
            Ok(Some(format!("saved to {}", store.path().display())))
        }
        Effect::SaveReviewed((sid, claim, turn), on) => {
            needs_store()?
                .set_reviewed(sid, claim, *turn, *on)
                .map_err(|e| e.to_string())?;
            Ok(Some(if *on {
                "marked reviewed".into()
            } else {
                "marked not reviewed".into()
            }))
        }
        Effect::SaveCursor((sid, claim, turn)) => {
            needs_store()?
                .set_review_cursor(sid, claim, *turn)
                .map_err(|e| e.to_string())?;
            app.cursors.insert(sid.clone(), (claim.clone(), *turn));
            Ok(None)
        }
        Effect::ExportCase((sid, claim, turn)) => {
            let l = app
                .sessions
                .iter()
                .find(|l| &l.report.session_id == sid)
                .ok_or_else(|| format!("session {sid} is not loaded"))?;
            let case = crate::export::case::export(&l.session, &l.report, claim, Some(*turn), &[])
                .map_err(|e| e.to_string())?;
            let file = crate::export::case::file_name(&l.session.name, claim, *turn);
            let body = serde_json::to_string_pretty(&case).map_err(|e| e.to_string())? + "\n";
            crate::export::write_new(std::path::Path::new(&file), body.as_bytes(), false)
                .map_err(|e| format!("cannot write {file}: {e}"))?;
            Ok(Some(format!(
                "case written to {file} (run it with `provscope check {file} --against ...`)"
            )))
        }
        Effect::Search(_) | Effect::Quit | Effect::LoadSession(..) => Ok(None),
    }
}

/// Maps a terminal event to an action.
pub fn action_for(app: &App, ev: Event) -> Option<Action> {
    match ev {
        Event::Key(k) if k.kind == KeyEventKind::Press || k.kind == KeyEventKind::Repeat => {
            key_action(app, k)
        }
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => Some(Action::Wheel(-3)),
            MouseEventKind::ScrollDown => Some(Action::Wheel(3)),
            MouseEventKind::Down(_) => Some(Action::Click(m.column, m.row)),
            _ => None,
        },
        Event::Resize(w, h) => Some(Action::Resize(w, h)),
        _ => None,
    }
}

fn key_action(app: &App, k: KeyEvent) -> Option<Action> {
    if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    if app.input.is_some() {
        return match k.code {
            KeyCode::Char(c) => Some(Action::Char(c)),
            KeyCode::Backspace => Some(Action::Backspace),
            KeyCode::Enter => Some(Action::Submit),
            KeyCode::Esc => Some(Action::Cancel),
            KeyCode::Up => Some(Action::Up),
            KeyCode::Down => Some(Action::Down),
            _ => None,
        };
    }
    app.keymap.lookup(&k, app.view)
}

/// Runs the explorer until the user quits. Returns the exit code.
pub fn run(opts: Options) -> u8 {
    let mut app = match new_app(&opts.config, opts.color) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("provscope: invalid configuration: {e}");
            return 2;
        }
    };
    // Reads never create or change the database; the first classification opens it for writing.
    let store = match Store::open_deferred(&opts.db) {
        Ok(s) => Some(s),
        Err(e) => {
            app.status =
                format!("case database unavailable, classifications will not be saved: {e}");
            None
        }
    };
    let loader = spawn_loader(opts.paths.clone(), opts.load.clone(), opts.config.clone());
    let mut tui = match terminal::Tui::enter() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("provscope: cannot open the terminal: {e} (use `provscope summary` or `provscope verify` without a terminal)");
            return 2;
        }
    };
    if let Ok(size) = tui.terminal.size() {
        app.size = (size.width, size.height);
    }
    let (search_tx, search_rx) = channel();
    let search_gen = Arc::new(AtomicU64::new(0));
    let mut loading_total = 0usize;
    let mut loader = Some(loader);
    loop {
        // Background results.
        if let Some(rx) = &loader {
            let mut finished = false;
            loop {
                match rx.try_recv() {
                    Ok(LoadMsg::Total(n)) => {
                        loading_total = n;
                        app.loading = Some((0, n));
                    }
                    Ok(LoadMsg::Session(l)) => {
                        let sid = l.report.session_id.clone();
                        app.push_session(*l);
                        app.loading = Some((app.sessions.len(), loading_total));
                        if let Some(st) = &store {
                            if let Err(e) = restore_marks(&mut app, st, &sid) {
                                app.status = format!("case database: {e}");
                            }
                        }
                    }
                    Ok(LoadMsg::Problem(p)) => app.problems.push(p),
                    Err(std::sync::mpsc::TryRecvError::Empty) => break,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        finished = true;
                        break;
                    }
                }
            }
            if finished {
                app.loading = None;
                loader = None;
                // A single session opens straight into the session view.
                if app.sessions.len() == 1 && app.view == View::Sessions {
                    update(&mut app, Action::Open);
                }
            }
        }
        while let Ok(chunk) = search_rx.try_recv() {
            let chunk: search::SearchChunk = chunk;
            if chunk.generation != search_gen.load(Ordering::Relaxed) {
                continue;
            }
            if let Some(s) = app.search.as_mut() {
                search::merge(&mut s.hits, chunk.hits);
                s.running = !chunk.done;
            }
        }
        if let Err(e) = tui.terminal.draw(|f| views::render(f, &app)) {
            drop(tui);
            eprintln!("provscope: cannot draw: {e}");
            return 2;
        }
        let ready = match event::poll(Duration::from_millis(if loader.is_some() {
            30
        } else {
            100
        })) {
            Ok(r) => r,
            Err(e) => {
                drop(tui);
                eprintln!("provscope: terminal input failed: {e}");
                return 2;
            }
        };
        if !ready {
            continue;
        }
        let ev = match event::read() {
            Ok(ev) => ev,
            Err(e) => {
                drop(tui);
                eprintln!("provscope: terminal input failed: {e}");
                return 2;
            }
        };
        let Some(action) = action_for(&app, ev) else {
            continue;
        };
        for effect in update(&mut app, action) {
            match &effect {
                Effect::Quit => {
                    drop(tui);
                    return 0;
                }
                Effect::Search(q) => {
                    let gen = search_gen.fetch_add(1, Ordering::Relaxed) + 1;
                    app.search = Some(SearchResults {
                        query: q.clone(),
                        running: !q.is_empty(),
                        ..SearchResults::default()
                    });
                    if !q.is_empty() {
                        if let Some(&i) = app.order.get(app.sel_session) {
                            search::spawn(
                                app.sessions[i].clone(),
                                q.clone(),
                                gen,
                                search_gen.clone(),
                                search_tx.clone(),
                            );
                        }
                    }
                }
                Effect::LoadSession(path, id) => {
                    // Checked like every session: its own sub-agent links are followed too.
                    let p =
                        crate::pipeline::Pipeline::new(opts.load.clone(), opts.config.clone(), 1);
                    for s in
                        crate::ingest::load_file_sessions(std::path::Path::new(path), &opts.load)
                    {
                        let r = p.check(&s);
                        app.push_session(Loaded::new(s, r));
                    }
                    if !update::select_session(&mut app, id) {
                        app.status = format!(
                            "{} holds no session {}",
                            crate::text::one_line(path),
                            crate::text::one_line(id)
                        );
                    }
                }
                _ => match apply_effect(&mut app, store.as_ref(), &effect) {
                    Ok(Some(msg)) => app.status = msg,
                    Ok(None) => {}
                    Err(e) => app.status = format!("not saved: {e}"),
                },
            }
        }
    }
}
