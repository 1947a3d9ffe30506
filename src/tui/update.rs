//! `update`: the only place the state changes. Every input is a [`Msg`]; `update` applies it
//! and says what the runtime must do ([`Effect`]: persist, search, copy, open an editor, quit).
//! Pure: no terminal, no I/O, so key sequences are tested directly.

use super::action::{Action, Hit, LoadMsg, Msg, Pane, Restored, View};
use super::app::{App, ClaimKey, CorrectionMark, Focus, HandRecord, Mark, SortKey, Target};
use super::diff::{Part, Side};
use super::input::{Edit, Input, InputKind};
use super::queue;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Something the runtime does after an update; its outcome comes back as a [`Msg`].
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Leave the explorer.
    Quit,
    /// Persist a classification or note.
    SaveMark(ClaimKey, Mark),
    /// Persist reviewed state.
    SaveReviewed(ClaimKey, bool),
    /// Persist where the review stands.
    SaveCursor(ClaimKey),
    /// Write a claim's regression case.
    ExportCase(ClaimKey),
    /// Start (or restart) the search of every loaded session.
    Search {
        /// The query.
        query: String,
        /// Its generation (a newer one cancels it).
        generation: u64,
    },
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Load the file of a sub-agent's session (path) and open the session with this id.
    LoadSession(String, String),
    /// Start (true) or stop (false) following the opened logs.
    Follow(bool),
    /// Open session `session`'s log at the record in `$EDITOR` or `$PAGER`.
    OpenExternal {
        /// Index into `App::sessions`.
        session: usize,
        /// 1-based line (0: the record is in a one-document file).
        line: u64,
        /// The record's JSON path in an imported document; the runtime resolves it to a line.
        json_path: Option<crate::model::Name>,
    },
    /// Compare sessions `a` (the baseline) with `b` (indexes into `App::sessions`); the outcome
    /// comes back as [`Msg::Diffed`].
    Diff {
        /// A's sessions.
        a: Vec<usize>,
        /// B's sessions.
        b: Vec<usize>,
    },
}

/// Rows in a page of the main list.
fn page(app: &App) -> usize {
    usize::from(app.size.1.saturating_sub(8)).max(1)
}

/// Moves an index within `0..len` by `delta`, clamped.
pub(crate) fn step(i: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (i as isize)
        .saturating_add(delta)
        .clamp(0, len as isize - 1) as usize
}

/// Applies one message.
pub fn update(app: &mut App, msg: impl Into<Msg>) -> Vec<Effect> {
    match msg.into() {
        Msg::Key(k) => key(app, k),
        Msg::Action(a) => action(app, a),
        Msg::Paste(text) => {
            if let Some(i) = app.input.as_mut() {
                if i.paste(&text) == Edit::Changed && i.kind == InputKind::Search {
                    return start_search(app);
                }
            }
            vec![]
        }
        Msg::Load(m) => load(app, m),
        Msg::Restored(r) => {
            restored(app, r);
            vec![]
        }
        Msg::Search(chunk) => {
            if chunk.generation == app.search_gen {
                if let Some(s) = app.search.as_mut() {
                    super::search::merge(&mut s.hits, chunk.hits);
                    s.running = !chunk.done;
                    s.selected = s.selected.min(s.hits.len().saturating_sub(1));
                }
            }
            vec![]
        }
        Msg::Done(r) => {
            app.status = match r {
                Ok(s) => s,
                Err(e) => e,
            };
            vec![]
        }
        Msg::SubSessions { sessions, id, path } => {
            for l in sessions {
                app.push_session(l);
            }
            if select_session(app, &id) {
                select_sub_target(app);
            } else {
                app.sub_target = None;
                app.status = format!(
                    "{} holds no session {}",
                    crate::text::one_line(&path),
                    crate::text::one_line(&id)
                );
            }
            vec![]
        }
        Msg::Classified(c, status) => {
            classified(app, &c);
            app.status = status;
            vec![]
        }
        Msg::Diffed(c) => {
            super::diff::diffed(app, *c);
            vec![]
        }
        Msg::CaseWritten(path) => {
            app.status = format!(
                "case written to {path} (run it with `provscope check {path} --against ...`; {} copies the path)",
                app.keymap.key_of("copy")
            );
            app.last_case = Some(path);
            vec![]
        }
    }
}

fn key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    if let Some(input) = app.input.as_mut() {
        let kind = input.kind;
        return match input.key(k) {
            Edit::Changed if kind == InputKind::Search => start_search(app),
            Edit::Changed | Edit::Moved => vec![],
            Edit::Cancel => {
                app.input = None;
                app.status = "cancelled".into();
                vec![]
            }
            e @ (Edit::Up | Edit::Down) => {
                let d = if e == Edit::Up { -1 } else { 1 };
                if let Some(s) = app.search.as_mut() {
                    s.selected = step(s.selected, d, s.hits.len());
                }
                vec![]
            }
            Edit::Submit => submit(app),
        };
    }
    if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
        return vec![Effect::Quit];
    }
    match app.keymap.lookup(&k, app.view) {
        Some(a) => action(app, a),
        None => vec![],
    }
}

fn start_search(app: &mut App) -> Vec<Effect> {
    let q = app.input.as_ref().map(Input::text).unwrap_or_default();
    app.search_gen += 1;
    app.search = Some(super::app::SearchResults {
        query: q.clone(),
        running: !q.trim().is_empty(),
        ..Default::default()
    });
    if q.trim().is_empty() {
        return vec![];
    }
    vec![Effect::Search {
        query: q.trim().to_owned(),
        generation: app.search_gen,
    }]
}

fn submit(app: &mut App) -> Vec<Effect> {
    let Some(input) = app.input.take() else {
        return vec![];
    };
    match input.kind {
        InputKind::Search => {
            let hit = app
                .search
                .as_ref()
                .and_then(|s| s.hits.get(s.selected))
                .cloned();
            match hit {
                Some(h) => open_target(app, h.session as usize, h.target),
                None => vec![],
            }
        }
        InputKind::Filter => {
            match super::filter::Filter::parse(&input.text()) {
                Ok(f) => {
                    app.filter = f;
                    queue::build(app);
                    let recorded = app
                        .review
                        .iter()
                        .filter_map(|&p| app.queue.items.get(p))
                        .filter(|&&(s, c)| !app.is_flagged(s as usize, c as usize))
                        .count();
                    app.status = format!(
                        "{} claim(s) match, {} flagged{}",
                        app.queue.items.len(),
                        app.review.len() - recorded,
                        if recorded > 0 {
                            format!(", {recorded} more corrected or classified by hand")
                        } else {
                            String::new()
                        }
                    );
                    if !matches!(app.view, View::Queue | View::Grid | View::Review) {
                        return goto(app, View::Queue);
                    }
                    if app.view == View::Review {
                        queue::start_review(app);
                    }
                }
                Err(e) => {
                    app.status = format!("filter: {e}");
                    app.input = Some(input);
                }
            }
            vec![]
        }
        InputKind::Note => {
            let note = input.text();
            queue::save_note(app, note)
        }
    }
}

/// Opens a search hit: a claim in the claim view, or a call beside a claim of its turn.
fn open_target(app: &mut App, s: usize, t: Target) -> Vec<Effect> {
    if s >= app.sessions.len() || app.dropped.contains(&s) {
        return vec![];
    }
    app.open_session(s);
    match t {
        Target::Claim(i) => app.select_claim(i as usize),
        Target::Call(k) => {
            let Some(l) = app.current() else {
                return vec![];
            };
            let Some(call) = l.session.calls.get(k as usize) else {
                return vec![];
            };
            let id = call.id.to_string();
            let turn = call.turn;
            let claim = l
                .report
                .claims
                .iter()
                .position(|c| c.call_id.as_deref() == Some(id.as_str()))
                .or_else(|| l.report.claims.iter().position(|c| c.turn == turn))
                .or((!l.report.claims.is_empty()).then_some(0));
            match claim {
                Some(i) => {
                    app.select_claim(i);
                    show_call(app, Some(id));
                }
                None => {
                    app.status = "this session has no claims to show the call beside".into();
                    return goto(app, View::Session);
                }
            }
        }
    }
    goto(app, View::Claim)
}

/// Shows `call` beside the selected claim (None: the cited one), scrolled to the top or span.
pub(crate) fn show_call(app: &mut App, call: Option<String>) {
    let cited = app.current_claim().and_then(|c| c.call_id.clone());
    app.shown_call = call.filter(|c| cited.as_deref() != Some(c.as_str()));
    let row = if app.shown_call.is_none() {
        super::views::claim::span_row(app)
    } else {
        0
    };
    app.scroll.set(Pane::Source, row);
}

fn load(app: &mut App, m: LoadMsg) -> Vec<Effect> {
    match m {
        LoadMsg::Total(n) => {
            let done = app.loading.map_or(0, |l| l.0);
            app.loading = Some((done, n));
        }
        LoadMsg::Sessions(v) => {
            let first = app.sessions.len();
            let n = v.len();
            for l in v {
                app.push_session(l);
            }
            let (done, total) = app.loading.unwrap_or((0, 0));
            app.loading = Some((done + n, total.max(done + n)));
            if app.queue.sessions > 0 || matches!(app.view, View::Queue | View::Grid | View::Review)
            {
                queue::append(app, first);
            }
        }
        LoadMsg::Step {
            source,
            loaded,
            checked,
            total,
            alone,
        } => return load_step(app, source, *loaded, (checked, total), alone),
        LoadMsg::Read { source, bytes } => {
            if let Some(g) = app.growing.iter_mut().find(|g| g.source == source) {
                g.read = bytes.max(g.checked).min(g.total);
                g.checking = None;
            }
        }
        LoadMsg::Checking {
            source,
            done,
            total,
        } => {
            if let Some(g) = app.growing.iter_mut().find(|g| g.source == source) {
                let pct = (done.min(total) as f64 * 100.0 / total.max(1) as f64).floor();
                g.checking = Some(pct as u8);
            }
        }
        LoadMsg::Problem(p) => app.problems.push(p),
        LoadMsg::Done => {
            app.loading = None;
            // `provscope diff A B --explore`: compare the two sides once both are loaded.
            if let Some((a, b)) = app.diff_start.take() {
                app.status = "comparing A with B…".into();
                return vec![Effect::Diff { a, b }];
            }
            // Following starts once everything is loaded (files changed meanwhile are read again).
            let mut effects = if app.follow.is_some() {
                vec![Effect::Follow(true)]
            } else {
                vec![]
            };
            app.growing.clear();
            if let Some(start) = app.start.take() {
                effects.extend(start_at(app, &start));
            } else if app.sessions.len() == 1 && app.view == View::Sessions && !app.opened_early {
                // A single session opens straight into the session view.
                effects.extend(action(app, Action::Open));
            }
            return effects;
        }
        LoadMsg::Following { files, mode } => {
            if let Some(f) = app.follow.as_mut() {
                f.files = files;
                f.mode = mode;
                app.status = format!(
                    "following {files} file(s) ({mode}); {} stops",
                    app.keymap.key_of("follow")
                );
            }
        }
        LoadMsg::NotFollowing(why) => {
            app.follow = None;
            app.status = why;
        }
        LoadMsg::Reloaded {
            source,
            sessions,
            note,
        } => return reloaded(app, &source, sessions, note),
    }
    vec![]
}

/// A step of a large log: its first step is listed (and opened, when it is the only input);
/// later ones replace it in place, keeping every selection; the last is the whole file.
fn load_step(
    app: &mut App,
    source: String,
    l: super::app::Loaded,
    (checked, total): (u64, u64),
    alone: bool,
) -> Vec<Effect> {
    let last = checked >= total;
    let mut effects = vec![];
    match app.growing.iter().position(|g| g.source == source) {
        Some(k) => {
            let i = app.growing[k].index;
            app.replace_grown(i, l);
            if last {
                app.growing.remove(k);
            } else {
                let g = &mut app.growing[k];
                g.checked = checked;
                g.read = checked;
                g.total = total;
                g.checking = None;
            }
            if app.queue.sessions > 0 {
                let sel = app.queue.selected;
                queue::build(app);
                app.queue.selected = sel.min(app.queue.items.len().saturating_sub(1));
                app.review_pos = app.review_pos.min(app.review.len().saturating_sub(1));
            }
        }
        None => {
            let index = app.sessions.len();
            app.push_session(l);
            if !last {
                app.growing.push(super::app::Growing {
                    source,
                    index,
                    checked,
                    read: checked,
                    checking: None,
                    total,
                });
            }
            if app.queue.sessions > 0 || matches!(app.view, View::Queue | View::Grid | View::Review)
            {
                queue::append(app, index);
            }
            if alone && app.view == View::Sessions && app.start.is_none() && app.order.len() == 1 {
                app.opened_early = true;
                effects = action(app, Action::Open);
            }
        }
    }
    if last {
        let (done, total) = app.loading.unwrap_or((0, 0));
        app.loading = Some((done + 1, total.max(done + 1)));
    }
    effects
}

/// `F`: starts or stops following. Started while loading, it begins once loading is done.
fn toggle_follow(app: &mut App) -> Vec<Effect> {
    if app.follow.take().is_some() {
        app.status = format!(
            "stopped following ({} follows again)",
            app.keymap.key_of("follow")
        );
        return vec![Effect::Follow(false)];
    }
    app.follow = Some(super::app::FollowState::default());
    if app.loading.is_some() {
        app.status = "following once loading is done".into();
        return vec![];
    }
    app.status = "following the logs as they grow".into();
    vec![Effect::Follow(true)]
}

/// A followed file was read again: its sessions replace the ones loaded from it. The open
/// session stays open; a selection past its end is clamped, and a selection on the last turn
/// moves to the new last turn (as `tail -f` does). Search hits in the file's sessions are
/// dropped (their indexes may name another claim or a session no longer listed) and a search
/// under way is run again.
fn reloaded(
    app: &mut App,
    source: &str,
    sessions: Vec<super::app::Loaded>,
    note: Option<String>,
) -> Vec<Effect> {
    let Some(f) = app.follow.as_mut() else {
        // Stopped meanwhile.
        return vec![];
    };
    f.updates += 1;
    f.last = Some(
        std::path::Path::new(source)
            .file_name()
            .map_or_else(|| source.to_owned(), |n| n.to_string_lossy().into_owned()),
    );
    // The input problems of the file's last reading are superseded by this one (its own
    // damaged lines are the sessions' diagnostics, shown in the session view).
    app.problems.retain(|p| {
        !p.strip_prefix(source)
            .is_some_and(|rest| rest.starts_with(':'))
    });
    let cur = app.cur;
    let on_last_turn = app
        .current()
        .is_some_and(|l| app.sel_turn + 1 >= l.session.turns.len());
    let first = app.sessions.len();
    let touched = app.replace_source(source, sessions);
    let effects = research(app, &touched);
    app.status = note.unwrap_or_else(|| {
        let (turns, claims) = touched
            .iter()
            .map(|&i| &app.sessions[i])
            .fold((0, 0), |(t, c), l| {
                (t + l.session.turns.len(), c + l.report.claims.len())
            });
        format!("{source}: {turns} turn(s), {claims} claim(s)")
    });
    if let Some(c) = cur {
        if app.dropped.contains(&c) {
            app.cur = None;
            app.history.clear();
            app.return_to.clear();
            app.view = View::Sessions;
        } else if touched.contains(&c) {
            let Some(l) = app.current() else {
                return effects;
            };
            let turns = l.session.turns.len();
            let t = if on_last_turn && app.view == View::Session {
                turns.saturating_sub(1)
            } else {
                app.sel_turn.min(turns.saturating_sub(1))
            };
            let r = l.turn_claims.get(t).cloned().unwrap_or(0..0);
            let n = l.report.claims.len();
            let calls = l
                .session
                .turns
                .get(t)
                .map_or(0, |x| l.session.calls_in_turn(x.index).count());
            if t != app.sel_turn {
                app.sel_claim = r.start;
                app.sel_call = 0;
            }
            app.sel_turn = t;
            app.sel_claim = app.sel_claim.min(n.saturating_sub(1));
            app.sel_call = app.sel_call.min(calls.saturating_sub(1));
            clamp_scrolls(app);
        }
    } else if app.view == View::Sessions
        && app.order.len() == 1
        && first == 0
        && !app.sessions.is_empty()
    {
        // The first session of a log that did not exist yet: open it, as a single log opens.
        action(app, Action::Open);
    }
    if app.queue.sessions > 0 {
        let sel = app.queue.selected;
        queue::build(app);
        app.queue.selected = sel.min(app.queue.items.len().saturating_sub(1));
        app.review_pos = app.review_pos.min(app.review.len().saturating_sub(1));
    }
    effects
}

/// After a reload replaced the `touched` sessions (and maybe dropped others): drops the search
/// hits in them and runs the search again (a newer generation; hits already kept are merged
/// once).
fn research(app: &mut App, touched: &[usize]) -> Vec<Effect> {
    let Some(s) = app.search.as_mut() else {
        return vec![];
    };
    let stale = |i: u32| touched.contains(&(i as usize)) || app.dropped.contains(&(i as usize));
    s.hits.retain(|h| !stale(h.session));
    s.selected = s.selected.min(s.hits.len().saturating_sub(1));
    let query = s.query.trim().to_owned();
    if query.is_empty() {
        return vec![];
    }
    s.running = true;
    app.search_gen += 1;
    vec![Effect::Search {
        query,
        generation: app.search_gen,
    }]
}

/// Opens the claim `open --claim ID [--turn N]` asked for, in the first session stating it.
fn start_at(app: &mut App, start: &super::StartAt) -> Vec<Effect> {
    let found = app.order.iter().find_map(|s| {
        let l = &app.sessions[s];
        let i =
            l.report.claims.iter().position(|c| {
                c.claim_id == start.claim && start.turn.is_none_or(|t| t == c.turn)
            })?;
        Some((s, i))
    });
    match found {
        Some((s, i)) => {
            app.sel_session = app.order.position(s).unwrap_or(0);
            app.open_session(s);
            app.history.push(View::Sessions);
            app.view = View::Session;
            app.focus = Focus::Claims;
            app.select_claim(i);
            goto(app, View::Claim)
        }
        None => {
            app.status = format!(
                "claim {}{} is not in the loaded sessions",
                start.claim,
                start
                    .turn
                    .map(|t| format!(" (turn {t})"))
                    .unwrap_or_default()
            );
            if app.sessions.len() == 1 && app.view == View::Sessions {
                return action(app, Action::Open);
            }
            vec![]
        }
    }
}

fn restored(app: &mut App, r: Restored) {
    let Some(idxs) = app.by_id.get(&r.session_id).cloned() else {
        return;
    };
    for s in idxs {
        let l = app.sessions[s].clone();
        let st = &mut app.states[s];
        // The store's list is complete: a session restored again (a longer step of a large
        // log) does not count a correction twice.
        st.corrections.clear();
        for c in &r.marks {
            if let Some(i) = l.claim_index(&c.claim_id, c.turn) {
                st.marks.insert(i as u32, mark_of(c));
            }
        }
        for c in &r.corrections {
            if let Some(i) = l.claim_index(&c.claim_id, c.turn) {
                st.corrections
                    .entry(i as u32)
                    .or_default()
                    .push(CorrectionMark {
                        outcome: c.outcome.clone(),
                        note: c.note.clone(),
                        at: c.at,
                    });
            }
        }
        for (claim, turn) in &r.reviewed {
            if let Some(i) = l.claim_index(claim, *turn) {
                st.reviewed.insert(i as u32);
            }
        }
        if let Some((claim, turn)) = &r.cursor {
            st.cursor = l.claim_index(claim, *turn).map(|i| i as u32);
        }
    }
    // Classified and corrected claims join the walkthrough (and may match the filter now).
    if (!r.marks.is_empty() || !r.corrections.is_empty()) && app.queue.sessions > 0 {
        queue::refresh(app);
    }
}

fn mark_of(c: &crate::store::Classification) -> Mark {
    Mark {
        quadrant: Some(c.quadrant),
        note: c.note.clone(),
        recorded: Some(HandRecord {
            owner: c.owner.clone(),
            next_action: c.next_action.clone(),
            reviewer: c.reviewer.clone(),
            at: c.at,
        }),
    }
}

/// A classification the runtime saved: the mark shows who decided and when, if it still holds
/// the quadrant that was saved.
fn classified(app: &mut App, c: &crate::store::Classification) {
    for s in app.by_id.get(&c.session_id).cloned().unwrap_or_default() {
        let Some(i) = app.sessions[s].claim_index(&c.claim_id, c.turn) else {
            continue;
        };
        if let Some(m) = app.states[s].marks.get_mut(&(i as u32)) {
            if m.quadrant.is_none_or(|q| q == c.quadrant) {
                let saved = mark_of(c);
                if m.quadrant.is_none() {
                    // A note saved under the computed quadrant is a classification in the
                    // store; so it is here.
                    m.quadrant = saved.quadrant;
                }
                m.recorded = saved.recorded;
            }
        }
    }
    if app.queue.sessions > 0 {
        queue::recount(app);
        queue::rebuild_review(app);
    }
}

/// Applies an action.
pub fn action(app: &mut App, a: Action) -> Vec<Effect> {
    if !matches!(a, Action::Copy | Action::Resize(..) | Action::Wheel(..)) {
        app.last_case = None;
    }
    match a {
        Action::Resize(w, h) => {
            app.size = (w, h);
            clamp_scrolls(app);
            return vec![];
        }
        Action::Quit => return vec![Effect::Quit],
        _ => {}
    }
    if app.help {
        let p = page(app) as i32;
        match a {
            Action::Help | Action::Back => app.help = false,
            Action::Up | Action::Scroll(-3) => scroll(app, Pane::Help, -1),
            Action::Down | Action::Scroll(3) => scroll(app, Pane::Help, 1),
            Action::PageUp => scroll(app, Pane::Help, -p),
            Action::PageDown => scroll(app, Pane::Help, p),
            Action::Top => app.scroll.set(Pane::Help, 0),
            Action::Bottom => scroll(app, Pane::Help, i32::MAX / 2),
            Action::Wheel(_, d) => scroll(app, Pane::Help, d),
            _ => {}
        }
        return vec![];
    }
    let p = page(app) as isize;
    match a {
        Action::Help => {
            app.help = true;
            app.scroll.set(Pane::Help, 0);
        }
        Action::Back => return back(app),
        Action::Search => {
            app.input = Some(Input::new(InputKind::Search, ""));
            app.search = None;
        }
        Action::Filter => {
            app.input = Some(Input::new(InputKind::Filter, &app.filter.text()));
        }
        Action::Up => return move_by(app, -1),
        Action::Down => return move_by(app, 1),
        Action::PageUp => return move_by(app, -p),
        Action::PageDown => return move_by(app, p),
        Action::Top => return move_by(app, isize::MIN / 2),
        Action::Bottom => return move_by(app, isize::MAX / 2),
        Action::Wheel(hit, d) => return wheel(app, hit, d),
        Action::Left => focus(app, -1),
        Action::Right => focus(app, 1),
        Action::FocusNext => focus(app, 2),
        Action::Open => return open(app),
        Action::Goto(v) => return goto(app, v),
        Action::Next | Action::Prev if matches!(app.view, View::Diff | View::DiffClaim) => {
            return super::diff::next_change(app, if a == Action::Next { 1 } else { -1 })
        }
        Action::Next => return queue::next_flagged(app, 1),
        Action::Prev => return queue::next_flagged(app, -1),
        Action::DiffMark if app.view == View::Sessions => return super::diff::mark(app),
        Action::ToggleOrder => {
            app.severity_order = !app.severity_order;
            app.status = if app.severity_order {
                "n/N: errors first, then warnings, each in turn order".into()
            } else {
                "n/N: turn order".into()
            };
        }
        Action::Classify(q) => return queue::classify(app, q),
        Action::Note if queue::target_claim(app) => {
            let note = app.mark().map(|m| m.note.clone()).unwrap_or_default();
            app.input = Some(Input::new(InputKind::Note, &note));
        }
        Action::ToggleReviewed => return queue::toggle_reviewed(app),
        Action::Export if queue::target_claim(app) => {
            if let Some(k) = app.claim_key() {
                return vec![Effect::ExportCase(k)];
            }
        }
        Action::SubSession if matches!(app.view, View::Session | View::Claim) => {
            return open_sub_session(app)
        }
        Action::Sort if app.view == View::Sessions => {
            let i = SortKey::ALL
                .iter()
                .position(|k| *k == app.sort)
                .unwrap_or(0);
            app.sort = SortKey::ALL[(i + 1) % SortKey::ALL.len()];
            app.resort();
        }
        Action::SortReverse if app.view == View::Sessions => {
            app.sort_reverse = !app.sort_reverse;
            app.resort();
        }
        Action::Scroll(d) => {
            let p = super::views::scroll_pane(app);
            scroll(app, p, d);
        }
        Action::CycleCall(d) => cycle_call(app, d),
        Action::Copy => return queue::copy(app),
        Action::OpenExternal => return queue::open_external(app),
        Action::Click(hit) => return click(app, hit),
        Action::Follow => return toggle_follow(app),
        _ => {}
    }
    vec![]
}

/// Scrolls a pane by `d` rows, clamped to its content.
pub(crate) fn scroll(app: &mut App, p: Pane, d: i32) {
    let max = super::views::max_scroll(app, p);
    let cur = app.scroll.get(p).min(max) as i64;
    let v = (cur + i64::from(d)).clamp(0, max as i64) as usize;
    app.scroll.set(p, v);
}

fn clamp_scrolls(app: &mut App) {
    for p in [
        Pane::Source,
        Pane::Claim,
        Pane::Answer,
        Pane::Help,
        Pane::Body,
        Pane::DiffA,
        Pane::DiffB,
        Pane::DiffClaimA,
        Pane::DiffClaimB,
    ] {
        scroll(app, p, 0);
    }
}

fn wheel(app: &mut App, hit: Option<Hit>, d: i32) -> Vec<Effect> {
    match hit {
        Some(Hit::Pane(
            p @ (Pane::Source
            | Pane::Claim
            | Pane::Answer
            | Pane::Help
            | Pane::DiffA
            | Pane::DiffB
            | Pane::DiffClaimA
            | Pane::DiffClaimB),
        )) => {
            scroll(app, p, d);
            vec![]
        }
        Some(Hit::Pane(Pane::Body)) if matches!(app.view, View::Drift | View::Parallel) => {
            scroll(app, Pane::Body, d);
            vec![]
        }
        Some(Hit::Pane(Pane::Turns)) => {
            app.focus = Focus::Turns;
            move_by(app, d as isize)
        }
        Some(Hit::Pane(Pane::Calls)) => {
            app.focus = Focus::Calls;
            move_by(app, d as isize)
        }
        Some(Hit::Pane(Pane::Claims)) => {
            app.focus = Focus::Claims;
            move_by(app, d as isize)
        }
        _ => move_by(app, d as isize),
    }
}

fn focus(app: &mut App, dir: i32) {
    match app.view {
        View::Session => {
            let has_claims = app.current().is_some_and(|l| {
                l.turn_claims
                    .get(app.sel_turn)
                    .is_some_and(|r| !r.is_empty())
            });
            app.focus = match (app.focus, dir) {
                (Focus::Turns, -1) => Focus::Turns,
                (Focus::Calls, -1) => Focus::Turns,
                (Focus::Claims, -1) => Focus::Calls,
                (Focus::Answer, -1) => Focus::Claims,
                (Focus::Turns, 1) if has_claims => Focus::Claims,
                (Focus::Turns, 1) => Focus::Calls,
                (Focus::Calls, 1) if has_claims => Focus::Claims,
                (Focus::Calls, 1) => Focus::Answer,
                (Focus::Claims, 1) => Focus::Answer,
                (Focus::Answer, 1) => Focus::Answer,
                (Focus::Turns, _) => Focus::Calls,
                (Focus::Calls, _) if has_claims => Focus::Claims,
                (Focus::Calls, _) => Focus::Answer,
                (Focus::Claims, _) => Focus::Answer,
                (Focus::Answer, _) => Focus::Turns,
            };
            if app.focus == Focus::Claims {
                let r = app
                    .current()
                    .and_then(|l| l.turn_claims.get(app.sel_turn).cloned())
                    .unwrap_or(0..0);
                if !r.contains(&app.sel_claim) {
                    app.sel_claim = r.start;
                }
            }
        }
        View::Claim | View::Review => {
            app.source_focus = match dir {
                -1 => false,
                1 => true,
                _ => !app.source_focus,
            }
        }
        View::Diff | View::DiffClaim => super::diff::focus(app, dir),
        View::Grid => {
            let c = app.grid_cell;
            app.grid_cell = match (c, dir) {
                (4, _) => 4,
                (1, -1) => 0,
                (3, -1) => 2,
                (0, 1) => 1,
                (2, 1) => 3,
                (x, 2) => (x + 1) % 5,
                (x, _) => x,
            };
        }
        _ => {}
    }
}

/// Opens the session of the agent a call of the selected turn ran; pressed again, the next one.
fn open_sub_session(app: &mut App) -> Vec<Effect> {
    let Some(l) = app.current() else {
        return vec![];
    };
    // A relative path in a provscope log leads beside that log, as `verify` resolves it
    // (importers give paths already resolved).
    let base = std::path::Path::new(&*l.session.source)
        .parent()
        .filter(|_| l.session.import.is_none())
        .map(std::path::Path::to_path_buf);
    // In the claim view, a claim citing a call that ran another agent opens that agent's
    // session at the stamp the claim rests on.
    let cited = (app.view == View::Claim)
        .then(|| app.current_claim())
        .flatten()
        .and_then(|c| {
            let call = l.session.call(c.call_id.as_deref()?)?;
            let link = call.sub_session.as_deref().cloned()?;
            Some((
                link,
                c.sub_claim.as_ref().map(|s| (s.claim_id.clone(), s.turn)),
            ))
        });
    let turn = l.session.turns.get(app.sel_turn).map(|t| t.index);
    let links: Vec<crate::model::SubSession> = l
        .session
        .calls
        .iter()
        .filter(|c| Some(c.turn) == turn)
        .filter_map(|c| c.sub_session.as_deref().cloned())
        .collect();
    let (link, target) = match cited {
        Some(x) => x,
        None => {
            if links.is_empty() {
                app.status = "no call of this turn ran another agent".into();
                return vec![];
            }
            let link = links[app.sub_cursor % links.len()].clone();
            app.sub_cursor += 1;
            (link, None)
        }
    };
    let path = link.path.as_ref().map(|p| {
        let given = std::path::Path::new(p);
        match &base {
            Some(dir) if given.is_relative() => dir.join(given).display().to_string(),
            _ => p.clone(),
        }
    });
    app.sub_target = target;
    if select_session(app, &link.id) {
        select_sub_target(app);
        return vec![];
    }
    match path {
        Some(p) => vec![Effect::LoadSession(p, link.id)],
        None => {
            app.status = format!(
                "the sub-agent session {} is not in a file next to this log",
                crate::text::one_line(&link.id)
            );
            vec![]
        }
    }
}

/// Once a sub-agent's session is open: selects the stamp the citing claim rests on, in the claim
/// view (one Back still returns to the session that opened it).
pub fn select_sub_target(app: &mut App) {
    let Some((claim, turn)) = app.sub_target.take() else {
        return;
    };
    let Some(i) = app.current().and_then(|l| {
        l.report
            .claims
            .iter()
            .position(|c| c.claim_id == claim && c.turn == turn)
    }) else {
        return;
    };
    app.select_claim(i);
    app.focus = Focus::Claims;
    app.view = View::Claim;
}

/// Opens the loaded session with this id in the session view; false when none is loaded.
pub fn select_session(app: &mut App, id: &str) -> bool {
    let Some(s) = app
        .order
        .iter()
        .find(|&i| app.sessions[i].report.session_id == id)
    else {
        return false;
    };
    app.return_to
        .push((app.history.len(), app.cur.unwrap_or(0), app.sel_turn));
    app.history.push(app.view);
    app.sel_session = app.order.position(s).unwrap_or(0);
    app.open_session(s);
    app.view = View::Session;
    app.focus = Focus::Turns;
    true
}

fn back(app: &mut App) -> Vec<Effect> {
    match app.history.pop() {
        Some(v) => {
            app.view = v;
            // Back from a sub-agent's session: to the session and turn that opened it.
            if let Some(&(len, session, turn)) = app.return_to.last() {
                if len == app.history.len() {
                    app.return_to.pop();
                    app.open_session(session);
                    app.sel_turn = turn;
                    app.sel_claim = app
                        .current()
                        .and_then(|l| l.turn_claims.get(turn).map(|r| r.start))
                        .unwrap_or(0);
                }
            }
            vec![]
        }
        None if app.view != View::Sessions && app.sessions.len() > 1 => {
            app.view = View::Sessions;
            vec![]
        }
        None => vec![Effect::Quit],
    }
}

/// Switches to view `v`.
pub fn goto(app: &mut App, v: View) -> Vec<Effect> {
    if app.view == v {
        return vec![];
    }
    let needs_claim = matches!(
        v,
        View::Claim | View::Drift | View::Parallel | View::Session
    );
    if matches!(v, View::Claim | View::Drift | View::Parallel)
        && matches!(app.view, View::Diff | View::DiffClaim)
        && !queue::target_claim(app)
    {
        app.status = "no claim on the focused side here (h/l switch sides)".into();
        return vec![];
    }
    if needs_claim && app.current().is_none() && !queue::target_claim(app) {
        if v == View::Session {
            return open(app);
        }
        app.status = "open a session first".into();
        return vec![];
    }
    if matches!(v, View::Claim | View::Drift | View::Parallel) {
        queue::target_claim(app);
    }
    app.history.push(app.view);
    app.view = v;
    match v {
        View::Queue | View::Grid
            if app.queue.sessions != app.sessions.len() || app.queue.items.is_empty() =>
        {
            queue::build(app);
        }
        View::Review => {
            queue::build(app);
            queue::start_review(app);
        }
        View::Claim => {
            app.source_focus = true;
            // The source opens at the span (or at the top of a call shown by hand).
            show_call(app, app.shown_call.clone());
        }
        _ => {}
    }
    vec![]
}

fn open(app: &mut App) -> Vec<Effect> {
    match app.view {
        View::Sessions => {
            if let Some(s) = app.selected_session() {
                app.open_session(s);
                app.history.push(View::Sessions);
                app.view = View::Session;
                app.focus = Focus::Turns;
            }
        }
        View::Session => match app.focus {
            Focus::Turns => focus(app, 1),
            Focus::Claims => return goto(app, View::Claim),
            Focus::Calls => {
                let call = app.current().and_then(|l| {
                    let t = l.session.turns.get(app.sel_turn)?;
                    l.session.calls_in_turn(t.index).nth(app.sel_call).map(|c| {
                        let k = l.session.call_position(&c.id).unwrap_or(0);
                        (app.cur.unwrap_or(0), k)
                    })
                });
                if let Some((s, k)) = call {
                    return open_target(app, s, Target::Call(k as u32));
                }
            }
            Focus::Answer => {}
        },
        View::Grid => {
            let cell = app.grid_cell;
            app.filter.quadrants = vec![crate::check::QUADRANTS.get(cell).copied()];
            queue::build(app);
            app.history.push(View::Grid);
            app.view = View::Queue;
        }
        View::Queue => {
            if queue::target_claim(app) {
                return goto(app, View::Claim);
            }
        }
        View::Drift | View::Parallel | View::Review => return goto(app, View::Claim),
        View::Claim => {}
        View::DiffPairs | View::Diff | View::DiffClaim => return super::diff::open(app),
    }
    vec![]
}

fn move_by(app: &mut App, d: isize) -> Vec<Effect> {
    match app.view {
        View::Sessions => app.sel_session = step(app.sel_session, d, app.order.len()),
        View::Session => {
            let Some(l) = app.current() else {
                return vec![];
            };
            match app.focus {
                Focus::Claims => {
                    let r = l.turn_claims.get(app.sel_turn).cloned().unwrap_or(0..0);
                    if !r.is_empty() {
                        let pos = app.sel_claim.saturating_sub(r.start);
                        let i = r.start + step(pos, d, r.len());
                        app.select_claim(i);
                    }
                }
                Focus::Calls => {
                    let n = l
                        .session
                        .turns
                        .get(app.sel_turn)
                        .map_or(0, |t| l.session.calls_in_turn(t.index).count());
                    app.sel_call = step(app.sel_call, d, n);
                }
                Focus::Answer => scroll(app, Pane::Answer, d as i32),
                Focus::Turns => {
                    let n = l.turn_claims.len();
                    let t = step(app.sel_turn, d, n);
                    let start = l.turn_claims.get(t).map_or(0, |r| r.start);
                    app.sel_turn = t;
                    app.sel_claim = start;
                    app.sel_call = 0;
                    app.scroll.set(Pane::Answer, 0);
                }
            }
        }
        View::Review => {
            return queue::review_step(app, d.signum() * d.abs().min(app.review.len() as isize))
        }
        View::Queue => {
            app.queue.selected = step(app.queue.selected, d, app.queue.items.len());
        }
        View::Grid => {
            app.grid_cell = match (app.grid_cell, d.signum()) {
                (0, 1) => 2,
                (1, 1) => 3,
                (2, 1) | (3, 1) => 4,
                (2, -1) => 0,
                (3, -1) => 1,
                (4, -1) => 2,
                (x, _) => x,
            };
        }
        View::Claim | View::Drift | View::Parallel => {
            let n = app.current().map_or(0, |l| l.report.claims.len());
            let i = step(app.sel_claim, d, n);
            app.select_claim(i);
            app.scroll.set(Pane::Body, 0);
        }
        View::DiffPairs | View::Diff | View::DiffClaim => super::diff::move_by(app, d),
    }
    vec![]
}

fn cycle_call(app: &mut App, d: i32) {
    let Some(l) = app.current() else { return };
    let Some(c) = app.current_claim() else { return };
    let calls: Vec<String> = l
        .session
        .calls_in_turn(c.turn)
        .map(|x| x.id.to_string())
        .collect();
    if calls.is_empty() {
        app.status = format!("turn {} has no calls", c.turn);
        return;
    }
    let shown = super::views::shown_call_id(app);
    let cur = shown.and_then(|s| calls.iter().position(|x| *x == s));
    let n = calls.len() as i32;
    let next = match cur {
        Some(k) => (k as i32 + d).rem_euclid(n) as usize,
        None if d > 0 => 0,
        None => (n - 1) as usize,
    };
    let id = calls[next].clone();
    app.status = format!("call {} of {} in turn {}", next + 1, calls.len(), c.turn);
    show_call(app, Some(id));
    app.source_focus = true;
}

fn click(app: &mut App, hit: Hit) -> Vec<Effect> {
    match hit {
        Hit::SessionRow(i) => {
            if app.view == View::Sessions {
                app.sel_session = i.min(app.order.len().saturating_sub(1));
            }
        }
        Hit::Turn(i) => {
            app.focus = Focus::Turns;
            let d = i as isize - app.sel_turn as isize;
            return move_by(app, d);
        }
        Hit::Call(k) => {
            app.focus = Focus::Calls;
            app.sel_call = k;
        }
        Hit::Claim(i) => {
            app.focus = Focus::Claims;
            app.select_claim(i);
        }
        Hit::QueueRow(k) => app.queue.selected = k.min(app.queue.items.len().saturating_sub(1)),
        Hit::GridCell(k) => app.grid_cell = k.min(4),
        Hit::SearchRow(k) => {
            if let Some(s) = app.search.as_mut() {
                s.selected = k.min(s.hits.len().saturating_sub(1));
            }
        }
        Hit::DiffRow(k) => {
            if let Some(op) = app.diff.as_mut().and_then(|ds| ds.open.as_mut()) {
                op.selected = k.min(op.rows.len().saturating_sub(1));
            }
        }
        Hit::PairRow(k) => {
            if let Some(ds) = app.diff.as_mut() {
                ds.pair = k.min(ds.pair_rows().saturating_sub(1));
            }
        }
        Hit::Pane(p) => match p {
            Pane::Turns => app.focus = Focus::Turns,
            Pane::Calls => app.focus = Focus::Calls,
            Pane::Claims => app.focus = Focus::Claims,
            Pane::Answer => app.focus = Focus::Answer,
            Pane::Source => app.source_focus = true,
            Pane::Claim => app.source_focus = false,
            Pane::DiffA => super::diff::focus_pane(app, Side::A, Part::Source),
            Pane::DiffB => super::diff::focus_pane(app, Side::B, Part::Source),
            Pane::DiffClaimA => super::diff::focus_pane(app, Side::A, Part::Claim),
            Pane::DiffClaimB => super::diff::focus_pane(app, Side::B, Part::Claim),
            Pane::Help | Pane::Body => {}
        },
    }
    vec![]
}
