//! `update`: applies an action to the state and says what the runtime must do (persist, search,
//! quit). Pure: no terminal, no I/O, so key sequences are tested directly.

use super::action::{Action, View};
use super::app::{App, ClaimKey, Input, Mark, SortKey};
use crate::check::Quadrant;

/// Something the runtime does after an update.
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
    /// Write the selected claim's regression case.
    ExportCase(ClaimKey),
    /// Start (or restart) the fuzzy search of the current session.
    Search(String),
    /// Load the file of a sub-agent's session and open the session with this id.
    LoadSession(String, String),
}

/// Rows in a page of the main list.
fn page(app: &App) -> usize {
    usize::from(app.size.1.saturating_sub(8)).max(1)
}

/// Moves an index within `0..len` by `delta`, clamped.
fn step(i: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (i as isize + delta).clamp(0, len as isize - 1) as usize
}

/// Applies `action`.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    if let Action::Resize(w, h) = action {
        app.size = (w, h);
        return vec![];
    }
    if let Action::Quit = action {
        return vec![Effect::Quit];
    }
    if app.input.is_some() {
        return update_input(app, action);
    }
    if app.help {
        if matches!(action, Action::Help | Action::Back) {
            app.help = false;
        }
        return vec![];
    }
    let p = page(app) as isize;
    match action {
        Action::Help => app.help = true,
        Action::Back => return back(app),
        Action::Search if app.current().is_some() => {
            app.input = Some(Input::Search(String::new()));
            app.search = None;
        }
        Action::Up => return move_by(app, -1),
        Action::Down => return move_by(app, 1),
        Action::PageUp => return move_by(app, -p),
        Action::PageDown => return move_by(app, p),
        Action::Top => return move_by(app, isize::MIN / 2),
        Action::Bottom => return move_by(app, isize::MAX / 2),
        Action::Wheel(d) => return move_by(app, d as isize),
        Action::Left if app.view == View::Session => app.focus_claims = false,
        Action::Right if app.view == View::Session => {
            let has = app.current().is_some_and(|l| {
                l.turn_claims
                    .get(app.sel_turn)
                    .is_some_and(|r| !r.is_empty())
            });
            app.focus_claims = has;
        }
        Action::Open => return open(app),
        Action::Goto(v) => return goto(app, v),
        Action::Next => return review_step(app, 1),
        Action::Prev => return review_step(app, -1),
        Action::Classify(q) => return classify(app, q),
        Action::Note => {
            if let Some(k) = app.claim_key() {
                let note = app
                    .marks
                    .get(&k)
                    .map(|m| m.note.clone())
                    .unwrap_or_default();
                app.input = Some(Input::Note(note));
            }
        }
        Action::ToggleReviewed => {
            if let Some(k) = app.claim_key() {
                let now = !app.reviewed.contains(&k);
                if now {
                    app.reviewed.insert(k.clone());
                } else {
                    app.reviewed.remove(&k);
                }
                return vec![Effect::SaveReviewed(k, now)];
            }
        }
        Action::Export => {
            if let Some(k) = app.claim_key() {
                return vec![Effect::ExportCase(k)];
            }
        }
        Action::SubSession if matches!(app.view, View::Session | View::Claim) => {
            return open_sub_session(app)
        }
        Action::Sort if app.view == View::Sessions => {
            app.sort = match app.sort {
                SortKey::Name => SortKey::Worst,
                SortKey::Worst => SortKey::Claims,
                SortKey::Claims => SortKey::Name,
            };
            app.resort();
        }
        Action::ScrollSource(d) => {
            let cur = if app.source_scroll == u16::MAX {
                0
            } else {
                app.source_scroll
            };
            app.source_scroll = (i32::from(cur) + d).clamp(0, i32::from(u16::MAX - 1)) as u16;
        }
        Action::Click(col, row) => return click(app, col, row),
        _ => {}
    }
    vec![]
}

/// Opens the session of the agent a call of the selected turn ran; pressed again, the next one.
fn open_sub_session(app: &mut App) -> Vec<Effect> {
    let Some(l) = app.current() else {
        return vec![];
    };
    let turn = l.session.turns.get(app.sel_turn).map(|t| t.index);
    let links: Vec<crate::model::SubSession> = l
        .session
        .calls
        .iter()
        .filter(|c| Some(c.turn) == turn)
        .filter_map(|c| c.sub_session.clone())
        .collect();
    if links.is_empty() {
        app.status = "no call of this turn ran another agent".into();
        return vec![];
    }
    let link = links[app.sub_cursor % links.len()].clone();
    app.sub_cursor += 1;
    if select_session(app, &link.id) {
        return vec![];
    }
    match link.path {
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

/// Opens the loaded session with this id in the session view; false when none is loaded.
pub fn select_session(app: &mut App, id: &str) -> bool {
    let Some(pos) = app
        .order
        .iter()
        .position(|&i| app.sessions[i].report.session_id == id)
    else {
        return false;
    };
    app.return_to
        .push((app.history.len(), app.sel_session, app.sel_turn));
    app.history.push(app.view);
    app.sel_session = pos;
    app.view = View::Session;
    app.sel_turn = 0;
    app.focus_claims = false;
    app.sel_claim = app
        .current()
        .and_then(|l| l.turn_claims.first().map(|r| r.start))
        .unwrap_or(0);
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
                    app.sel_session = session;
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

fn goto(app: &mut App, v: View) -> Vec<Effect> {
    if app.view == v || (v != View::Sessions && app.current().is_none()) {
        return vec![];
    }
    app.history.push(app.view);
    app.view = v;
    if v == View::Review {
        app.build_review();
        // Resume where the last review of this session stopped.
        let resume = app.claim_key().and_then(|_| {
            let l = app.current()?;
            let (claim, turn) = app.cursors.get(&l.report.session_id)?;
            app.review.iter().position(|&i| {
                l.report.claims[i].claim_id == *claim && l.report.claims[i].turn == *turn
            })
        });
        app.review_pos = resume.unwrap_or(0);
        if let Some(&i) = app.review.get(app.review_pos) {
            app.select_claim(i);
        }
    }
    if v == View::Claim {
        app.source_scroll = u16::MAX;
    }
    vec![]
}

fn open(app: &mut App) -> Vec<Effect> {
    match app.view {
        View::Sessions => {
            if app.current().is_some() {
                app.history.push(View::Sessions);
                app.view = View::Session;
                app.sel_turn = 0;
                app.focus_claims = false;
                let first = app
                    .current()
                    .and_then(|l| l.turn_claims.first().map(|r| r.start))
                    .unwrap_or(0);
                app.sel_claim = first;
            }
        }
        View::Session => {
            if app.focus_claims {
                return goto(app, View::Claim);
            }
            app.focus_claims = app.current().is_some_and(|l| {
                l.turn_claims
                    .get(app.sel_turn)
                    .is_some_and(|r| !r.is_empty())
            });
        }
        View::Grid | View::Drift | View::Parallel | View::Review => return goto(app, View::Claim),
        View::Claim => {}
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
            if app.focus_claims {
                let r = l.turn_claims.get(app.sel_turn).cloned().unwrap_or(0..0);
                if !r.is_empty() {
                    let pos = app.sel_claim.saturating_sub(r.start);
                    app.sel_claim = r.start + step(pos, d, r.len());
                }
            } else {
                let n = l.turn_claims.len();
                let t = step(app.sel_turn, d, n);
                let start = l.turn_claims.get(t).map_or(0, |r| r.start);
                app.sel_turn = t;
                app.sel_claim = start;
            }
        }
        View::Review => {
            return review_step(app, d.signum() * d.abs().min(app.review.len() as isize))
        }
        View::Claim | View::Drift | View::Parallel | View::Grid => {
            let n = app.current().map_or(0, |l| l.report.claims.len());
            let i = step(app.sel_claim, d, n);
            app.select_claim(i);
        }
    }
    vec![]
}

fn review_step(app: &mut App, d: isize) -> Vec<Effect> {
    if app.view != View::Review && app.view != View::Claim {
        return vec![];
    }
    if app.review.is_empty() {
        app.build_review();
    }
    if app.review.is_empty() {
        app.status = "no flagged claims in this session".into();
        return vec![];
    }
    app.review_pos = step(app.review_pos, d, app.review.len());
    let i = app.review[app.review_pos];
    app.select_claim(i);
    app.claim_key()
        .map(|k| vec![Effect::SaveCursor(k)])
        .unwrap_or_default()
}

fn classify(app: &mut App, q: Quadrant) -> Vec<Effect> {
    let Some(k) = app.claim_key() else {
        return vec![];
    };
    let mark = app.marks.entry(k.clone()).or_insert(Mark {
        quadrant: None,
        note: String::new(),
    });
    mark.quadrant = Some(q);
    let m = mark.clone();
    app.status = format!(
        "{} {} turn {}: {}",
        "classified",
        k.1,
        k.2,
        q.title().to_lowercase()
    );
    vec![Effect::SaveMark(k, m)]
}

fn update_input(app: &mut App, action: Action) -> Vec<Effect> {
    let Some(input) = app.input.as_mut() else {
        return vec![];
    };
    match (input, action) {
        (Input::Search(q), Action::Char(c)) => {
            q.push(c);
            return vec![Effect::Search(q.clone())];
        }
        (Input::Search(q), Action::Backspace) => {
            q.pop();
            return vec![Effect::Search(q.clone())];
        }
        (Input::Search(_), Action::Up) => {
            if let Some(s) = app.search.as_mut() {
                s.selected = s.selected.saturating_sub(1);
            }
        }
        (Input::Search(_), Action::Down) => {
            if let Some(s) = app.search.as_mut() {
                s.selected = (s.selected + 1).min(s.hits.len().saturating_sub(1));
            }
        }
        (Input::Search(_), Action::Submit) => {
            app.input = None;
            let hit = app
                .search
                .as_ref()
                .and_then(|s| s.hits.get(s.selected))
                .map(|h| h.0);
            if let Some(i) = hit {
                app.select_claim(i);
                return goto(app, View::Claim);
            }
        }
        (Input::Note(n), Action::Char(c)) => n.push(c),
        (Input::Note(n), Action::Backspace) => {
            n.pop();
        }
        (Input::Note(n), Action::Submit) => {
            let note = std::mem::take(n);
            app.input = None;
            if let Some(k) = app.claim_key() {
                let mark = app.marks.entry(k.clone()).or_insert(Mark {
                    quadrant: None,
                    note: String::new(),
                });
                mark.note = note;
                let m = mark.clone();
                app.status = format!("note saved on {} turn {}", k.1, k.2);
                return vec![Effect::SaveMark(k, m)];
            }
        }
        (_, Action::Cancel) | (_, Action::Back) => app.input = None,
        _ => {}
    }
    vec![]
}

fn click(app: &mut App, col: u16, row: u16) -> Vec<Effect> {
    match super::views::hit_test(app, col, row) {
        Some(super::views::Hit::SessionRow(i)) => {
            app.sel_session = i.min(app.order.len().saturating_sub(1))
        }
        Some(super::views::Hit::Turn(i)) => {
            app.focus_claims = false;
            let d = i as isize - app.sel_turn as isize;
            return move_by(app, d);
        }
        Some(super::views::Hit::Claim(i)) => {
            app.focus_claims = true;
            app.select_claim(i);
        }
        None => {}
    }
    vec![]
}
