//! The explorer's loop: it blocks on one channel that the terminal-event thread, the loader and
//! the search threads send into, turns each input into a [`Msg`] for `update` (mouse events are
//! mapped on the layout the last frame drew), carries out the effects `update` asks for and
//! feeds their outcome back as messages. It never changes the state itself.

use super::action::{Action, LoadMsg, Msg, Restored};
use super::app::App;
use super::update::{update, Effect};
use super::views::{self, Drawn};
use super::{loader, new_app, search, terminal, Options, TuiError};
use crate::ingest::locate::Position;
use crate::store::{Classification, SessionRef, Store};
use ratatui::crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What arrives on the runtime's channel.
pub enum Incoming {
    /// A terminal event, or the failure to read one.
    Term(io::Result<Event>),
    /// A message from a background thread.
    App(Msg),
}

/// Reads what the store knows about a session.
pub fn restore_marks(store: &Store, session_id: &str) -> crate::store::Result<Restored> {
    Ok(Restored {
        session_id: session_id.to_owned(),
        marks: store.classifications(session_id)?,
        corrections: store.corrections(session_id)?,
        reviewed: store.reviewed(session_id)?,
        cursor: store.review_cursor(session_id)?,
    })
}

/// Carries out one store or file effect; returns the message that reports its outcome.
pub fn perform(app: &App, store: Option<&Store>, e: &Effect) -> Option<Msg> {
    match perform_inner(app, store, e) {
        Ok(m) => m,
        Err(err) => Some(Msg::Done(Err(format!("not saved: {err}")))),
    }
}

fn session_ref(app: &App, sid: &str) -> SessionRef {
    let path = app
        .by_id
        .get(sid)
        .and_then(|v| v.first())
        .map(|&i| app.sessions[i].session.source.to_string())
        .unwrap_or_default();
    SessionRef {
        session_id: sid.to_owned(),
        path,
        content_hash: None,
    }
}

fn perform_inner(app: &App, store: Option<&Store>, e: &Effect) -> Result<Option<Msg>, String> {
    let needs_store = || store.ok_or_else(|| "no case database".to_owned());
    let reviewer = std::env::var("USER").unwrap_or_else(|_| "explorer".into());
    let loaded = |sid: &str| {
        app.by_id
            .get(sid)
            .and_then(|v| v.first())
            .map(|&i| app.sessions[i].clone())
            .ok_or_else(|| format!("session {sid} is not loaded"))
    };
    match e {
        Effect::SaveMark((sid, claim, turn), mark) => {
            let l = loaded(sid)?;
            let computed = l
                .claim_index(claim, *turn)
                .and_then(|i| l.report.claims[i].quadrant);
            let Some(q) = mark.quadrant.or(computed) else {
                return Ok(Some(Msg::Done(Ok(
                    "classify the claim (1-4) before adding a note".into(),
                ))));
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
                .classify(&session_ref(app, sid), &c)
                .map_err(|e| e.to_string())?;
            let status = format!("saved to {}", store.path().display());
            Ok(Some(Msg::Classified(c, status)))
        }
        Effect::SaveReviewed((sid, claim, turn), on) => {
            needs_store()?
                .set_reviewed(sid, claim, *turn, *on)
                .map_err(|e| e.to_string())?;
            Ok(Some(Msg::Done(Ok(if *on {
                "marked reviewed".into()
            } else {
                "marked not reviewed".into()
            }))))
        }
        Effect::SaveCursor((sid, claim, turn)) => {
            needs_store()?
                .set_review_cursor(sid, claim, *turn)
                .map_err(|e| e.to_string())?;
            Ok(None)
        }
        Effect::ExportCase((sid, claim, turn)) => {
            let l = loaded(sid)?;
            let case = crate::export::case::export(&l.session, &l.report, claim, Some(*turn), &[])
                .map_err(|e| e.to_string())?;
            let file = crate::export::case::file_name(&l.session.name, claim, *turn);
            let body = serde_json::to_string_pretty(&case).map_err(|e| e.to_string())? + "\n";
            // Never through a symlink, never over an existing file.
            crate::export::write_new(std::path::Path::new(&file), body.as_bytes(), false)
                .map_err(|e| format!("cannot write {file}: {e}"))?;
            Ok(Some(Msg::CaseWritten(file)))
        }
        Effect::Search { .. }
        | Effect::Diff { .. }
        | Effect::Quit
        | Effect::Copy(_)
        | Effect::LoadSession(..)
        | Effect::Follow(_)
        | Effect::OpenExternal { .. } => Ok(None),
    }
}

/// The OSC 52 sequence that puts `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    format!(
        "\u{1b}]52;c;{}\u{7}",
        base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
    )
}

/// The file to open for session `s`: its log, or a copy of a bundled sample.
fn file_for(app: &App, s: usize) -> Result<std::path::PathBuf, String> {
    let l = &app.sessions[s];
    let src = l.session.source.to_string();
    if let Some(name) = src.strip_prefix("<samples>/") {
        let text = crate::ingest::samples::files()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| format!("{src} is not a bundled sample"))?;
        let dir = std::env::temp_dir().join(format!("provscope-samples-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| e.to_string())?;
        return Ok(p);
    }
    Ok(std::path::PathBuf::from(src))
}

/// The editor command: `$EDITOR`, else `$PAGER`, else `less`, split on whitespace.
fn editor() -> Vec<String> {
    for var in ["EDITOR", "VISUAL", "PAGER"] {
        if let Ok(v) = std::env::var(var) {
            let parts: Vec<String> = v.split_whitespace().map(str::to_owned).collect();
            if !parts.is_empty() {
                return parts;
            }
        }
    }
    vec!["less".into()]
}

fn map_event(ev: Event, drawn: &Drawn) -> Option<Msg> {
    match ev {
        Event::Key(k) if k.kind == KeyEventKind::Press || k.kind == KeyEventKind::Repeat => {
            Some(Msg::Key(k))
        }
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => Some(Action::Wheel(drawn.pane(m.column, m.row), -3).into()),
            MouseEventKind::ScrollDown => {
                Some(Action::Wheel(drawn.pane(m.column, m.row), 3).into())
            }
            MouseEventKind::Down(MouseButton::Left) => {
                drawn.hit(m.column, m.row).map(|h| Action::Click(h).into())
            }
            _ => None,
        },
        Event::Resize(w, h) => Some(Action::Resize(w, h).into()),
        Event::Paste(s) => Some(Msg::Paste(s)),
        _ => None,
    }
}

/// A running follower; dropping it stops it.
struct Follower(Sender<crate::ingest::tail::Wake>);

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.0.send(crate::ingest::tail::Wake::Stop);
    }
}

/// Starts following the opened logs (files changed since `since` are read again at once).
fn start_follow(
    opts: &Options,
    tx: &Sender<Incoming>,
    since: std::time::SystemTime,
) -> Result<Follower, String> {
    if opts.paths.is_empty() {
        return Err("the bundled samples do not grow: open logs to follow them".into());
    }
    let (wake, rx) = crate::ingest::tail::channel();
    let tx = tx.clone();
    loader::follow(
        opts.paths.clone(),
        opts.load.clone(),
        opts.config.clone(),
        since,
        (wake.clone(), rx),
        move |m| tx.send(Incoming::App(Msg::Load(m))).is_ok(),
    );
    Ok(Follower(wake))
}

/// Runs the explorer until the user quits. The terminal is restored before any error returns.
pub fn run(mut opts: Options) -> Result<(), TuiError> {
    let diff_input = opts.diff.take();
    let diff_options = match &diff_input {
        Some(d) => d.options.clone(),
        None => crate::diff::Options {
            support_threshold: opts.config.support_threshold,
            ..crate::diff::Options::default()
        },
    };
    let mut app = new_app(&opts.config, opts.color)?;
    app.start = opts.start.clone();
    if opts.follow {
        app.follow = Some(super::app::FollowState::default());
    }
    // Files changed after this may have been loaded before they were complete: following reads
    // them again when it starts (a margin for coarse file-system clocks).
    let since = std::time::SystemTime::now()
        .checked_sub(Duration::from_secs(2))
        .unwrap_or(std::time::UNIX_EPOCH);
    let mut follower: Option<Follower> = None;
    // Reads never create or change the database; the first classification opens it for writing.
    let store = match Store::open_deferred(&opts.db) {
        Ok(s) => Some(s),
        Err(e) => {
            app.status =
                format!("case database unavailable, classifications will not be saved: {e}");
            None
        }
    };
    let mut tui = terminal::Tui::enter().map_err(TuiError::Terminal)?;
    let (tx, rx) = channel::<Incoming>();
    tui.forward_events(tx.clone(), Incoming::Term);
    if let Some(d) = diff_input {
        // Both sides are loaded: they arrive as a load does, then the diff is computed.
        let (na, nb) = (d.a.len(), d.b.len());
        app.diff_start = Some(((0..na).collect(), (na..na + nb).collect()));
        for m in [
            LoadMsg::Total(na + nb),
            LoadMsg::Sessions(d.a),
            LoadMsg::Sessions(d.b),
            LoadMsg::Done,
        ] {
            let _ = tx.send(Incoming::App(Msg::Load(m)));
        }
    } else {
        let tx = tx.clone();
        loader::spawn(
            opts.paths.clone(),
            opts.load.clone(),
            opts.config.clone(),
            opts.threads,
            move |m| tx.send(Incoming::App(Msg::Load(m))).is_ok(),
        );
    }
    if let Ok(size) = tui.terminal.size() {
        update(&mut app, Action::Resize(size.width, size.height));
    }
    let search_gen = Arc::new(AtomicU64::new(0));
    let mut drawn = Drawn::default();
    let mut places = super::places::Places::default();
    loop {
        if let Err(e) = tui.terminal.draw(|f| drawn = views::render(f, &app)) {
            drop(tui);
            return Err(TuiError::Draw(e));
        }
        // Block for the next input, then take whatever else is waiting for up to one frame.
        let Ok(first) = rx.recv() else { return Ok(()) };
        let deadline = Instant::now() + Duration::from_millis(16);
        let mut next = Some(first);
        while let Some(inc) = next.take() {
            let msg = match inc {
                Incoming::Term(Ok(ev)) => map_event(ev, &drawn),
                Incoming::Term(Err(e)) => {
                    drop(tui);
                    return Err(TuiError::Input(e));
                }
                Incoming::App(m) => Some(m),
            };
            if let Some(msg) = msg {
                let before = app.sessions.len();
                let loaded = matches!(msg, Msg::Load(LoadMsg::Sessions(_)));
                // A reloaded session's marks are read again from the store.
                let reloaded: Vec<String> = match &msg {
                    Msg::Load(LoadMsg::Reloaded { sessions, .. }) => sessions
                        .iter()
                        .map(|l| l.report.session_id.clone())
                        .collect(),
                    // A step of a large log holds claims the last one did not.
                    Msg::Load(LoadMsg::Step { loaded, .. }) => {
                        vec![loaded.report.session_id.clone()]
                    }
                    _ => Vec::new(),
                };
                let effects = update(&mut app, msg);
                if loaded || !reloaded.is_empty() {
                    if let Some(st) = &store {
                        let ids: Vec<String> = if loaded {
                            (before..app.sessions.len())
                                .map(|s| app.sessions[s].report.session_id.clone())
                                .collect()
                        } else {
                            reloaded
                        };
                        for sid in ids {
                            let m = match restore_marks(st, &sid) {
                                Ok(r) => Msg::Restored(r),
                                Err(e) => Msg::Done(Err(format!("case database: {e}"))),
                            };
                            update(&mut app, m);
                        }
                    }
                }
                for effect in effects {
                    if let Effect::Follow(on) = effect {
                        // The old follower (if any) stops as it is dropped.
                        drop(follower.take());
                        if on {
                            match start_follow(&opts, &tx, since) {
                                Ok(f) => {
                                    follower.replace(f);
                                }
                                Err(why) => {
                                    update(&mut app, Msg::Load(LoadMsg::NotFollowing(why)));
                                }
                            }
                        }
                        continue;
                    }
                    if let Effect::Diff { a, b } = &effect {
                        // Computed away from the loop; the keys keep answering meanwhile.
                        let (sessions, a, b) = (app.sessions.clone(), a.clone(), b.clone());
                        let (o, tx) = (diff_options.clone(), tx.clone());
                        std::thread::spawn(move || {
                            let c = super::diff::compute(&sessions, &a, &b, &o);
                            let _ = tx.send(Incoming::App(Msg::Diffed(Box::new(c))));
                        });
                        continue;
                    }
                    if let Leave::Quit = carry_out(
                        &mut app,
                        &mut tui,
                        (store.as_ref(), &opts, &mut places),
                        &tx,
                        &search_gen,
                        effect,
                    ) {
                        drop(tui);
                        return Ok(());
                    }
                }
            }
            if Instant::now() < deadline {
                next = rx.try_recv().ok();
            }
        }
    }
}

/// Whether the explorer goes on after an effect.
enum Leave {
    Stay,
    Quit,
}

/// Carries out an effect; [`Leave::Quit`] to leave.
fn carry_out(
    app: &mut App,
    tui: &mut terminal::Tui,
    (store, opts, places): (Option<&Store>, &Options, &mut super::places::Places),
    tx: &Sender<Incoming>,
    search_gen: &Arc<AtomicU64>,
    effect: Effect,
) -> Leave {
    let outcome = match &effect {
        Effect::Quit => return Leave::Quit,
        Effect::Search { query, generation } => {
            search_gen.store(*generation, Ordering::Relaxed);
            let sessions = app.sessions.clone();
            let dropped = app.dropped.clone();
            let (q, g, cur, tx) = (query.clone(), *generation, search_gen.clone(), tx.clone());
            std::thread::spawn(move || {
                search::run(&sessions, &dropped, &q, g, &cur, &mut |chunk| {
                    tx.send(Incoming::App(Msg::Search(chunk))).is_ok()
                })
            });
            None
        }
        Effect::LoadSession(path, id) => {
            // Checked like every session: its own sub-agent links are followed too.
            let p = crate::pipeline::Pipeline::new(opts.load.clone(), opts.config.clone(), 1);
            let sessions =
                crate::ingest::load_file_sessions(std::path::Path::new(path), &opts.load)
                    .into_iter()
                    .map(|s| {
                        let r = p.check(&s);
                        super::app::Loaded::new(s, r)
                    })
                    .collect();
            Some(Msg::SubSessions {
                sessions,
                id: id.clone(),
                path: path.clone(),
            })
        }
        Effect::Copy(text) => Some(Msg::Done(
            tui.write_raw(osc52(text).as_bytes())
                .map(|_| app.status.clone())
                .map_err(|e| format!("cannot write to the terminal: {e}")),
        )),
        Effect::OpenExternal {
            session,
            line,
            json_path,
        } => {
            let r = file_for(app, *session).and_then(|path| {
                let cmd = editor();
                // An imported record: its JSON path resolved in the file, else line 1 and why.
                let (at, column, note) = match json_path {
                    None => (
                        Position {
                            line: *line,
                            column: 1,
                        },
                        false,
                        None,
                    ),
                    Some(p) => match places.find(app, *session, &path, *line, p) {
                        Ok(r) if r.exact => (r.at, true, None),
                        Ok(r) => (
                            r.at,
                            true,
                            Some("the path goes on inside a recorded string".to_owned()),
                        ),
                        Err(why) => (
                            Position { line: 1, column: 1 },
                            false,
                            Some(format!("{why}: opened at line 1")),
                        ),
                    },
                };
                let args = super::places::editor_args(&cmd[0], at, column, &path);
                let shown = crate::text::one_line(&format!("{} {}", cmd.join(" "), args.join(" ")))
                    .into_owned();
                let status = tui
                    .suspended(|| {
                        std::process::Command::new(&cmd[0])
                            .args(&cmd[1..])
                            .args(&args)
                            .status()
                    })
                    .map_err(|e| format!("cannot take the terminal back: {e}"))?;
                let note = note.map_or_else(String::new, |n| format!("; {n}"));
                match status {
                    Ok(s) if s.success() => Ok(format!("back from `{shown}`{note}")),
                    Ok(s) => Ok(format!("`{shown}` exited with {s}{note}")),
                    Err(e) => Err(format!("cannot run `{}`: {e}", cmd[0])),
                }
            });
            Some(Msg::Done(r))
        }
        _ => perform(app, store, &effect),
    };
    if let Some(m) = outcome {
        update(app, m);
    }
    Leave::Stay
}
