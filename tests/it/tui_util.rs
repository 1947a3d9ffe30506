//! Helpers of the explorer tests: the samples loaded into an app, a screen rendered on a
//! TestBackend (text, buffer and what was drawn where), keys, and effects run as the runtime
//! runs them (search on this thread, results back through `update`).

use provscope::check::{check_session, Config};
use provscope::ingest::{samples, LoadOptions};
use provscope::tui::action::{Action, LoadMsg, Msg};
use provscope::tui::app::{App, Focus, Loaded};
use provscope::tui::update::{update, Effect};
use provscope::tui::views::{self, Drawn};
use provscope::tui::{new_app, search};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

/// Loaded and checked sessions, as the loader sends them.
pub fn loaded(sessions: Vec<provscope::model::Session>) -> Vec<Loaded> {
    sessions
        .into_iter()
        .map(|s| {
            let r = check_session(&s, &Config::default());
            Loaded::new(s, r)
        })
        .collect()
}

/// An explorer holding every bundled sample, loaded through `update` as the runtime does.
pub fn app(color: bool) -> App {
    let mut app = new_app(&Config::default(), color).unwrap();
    let v = loaded(samples::load_all(&LoadOptions::default()));
    update(&mut app, Msg::Load(LoadMsg::Sessions(v)));
    update(&mut app, Msg::Load(LoadMsg::Done));
    app
}

/// Renders at `w`x`h`: the buffer and what was drawn where.
pub fn draw(app: &mut App, w: u16, h: u16) -> (Buffer, Drawn) {
    update(app, Action::Resize(w, h));
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut d = Drawn::default();
    t.draw(|f| d = views::render(f, app)).unwrap();
    (t.backend().buffer().clone(), d)
}

/// The buffer as text, one line per row, trailing blanks trimmed.
pub fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..buf.area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = buf[(x, y)].symbol();
            skip = unicode_width::UnicodeWidthStr::width(sym).saturating_sub(1);
            line.push_str(sym);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The screen at `w`x`h` as text.
pub fn screen(app: &mut App, w: u16, h: u16) -> String {
    text(&draw(app, w, h).0)
}

/// Opens session `name` and selects claim `claim_id` in the first turn that states it.
pub fn open_claim(app: &mut App, name: &str, claim_id: &str) {
    let pos = app
        .order
        .iter()
        .position(|i| app.sessions[i].session.name == name)
        .unwrap();
    app.sel_session = pos;
    update(app, Action::Open);
    let i = app
        .current()
        .unwrap()
        .report
        .claims
        .iter()
        .position(|c| c.claim_id == claim_id)
        .unwrap();
    app.select_claim(i);
    app.focus = Focus::Claims;
}

/// A typed character.
pub fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

/// A key without modifiers.
pub fn code(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Ctrl + a letter.
pub fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// Types a string.
pub fn typed(app: &mut App, s: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for c in s.chars() {
        out.extend(update(app, key(c)));
    }
    out
}

/// Runs search effects as the runtime does (the search on this thread, each chunk back through
/// `update`); other effects are returned.
pub fn run_effects(app: &mut App, effects: Vec<Effect>) -> Vec<Effect> {
    let mut rest = Vec::new();
    for e in effects {
        match e {
            Effect::Search { query, generation } => {
                let sessions = app.sessions.clone();
                let cur = std::sync::atomic::AtomicU64::new(generation);
                let mut chunks = Vec::new();
                search::run(
                    &sessions,
                    &app.dropped.clone(),
                    &query,
                    generation,
                    &cur,
                    &mut |c| {
                        chunks.push(c);
                        true
                    },
                );
                for c in chunks {
                    update(app, Msg::Search(c));
                }
            }
            other => rest.push(other),
        }
    }
    rest
}
