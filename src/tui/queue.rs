//! The review queue over every loaded session and what acts on "the claim in front of you":
//! building the filtered queue and its grid cells, the walkthrough, `n`/`N` with wrap,
//! classification, notes, reviewed marks, `y` and `o`. Called from `update` only.

use super::action::View;
use super::app::{App, Focus, Mark};
use super::filter::ClaimMarks;
use super::update::Effect;
use crate::check::{Quadrant, Severity, QUADRANTS};

fn cell_of(q: Option<Quadrant>) -> usize {
    q.and_then(|q| QUADRANTS.iter().position(|x| *x == q))
        .unwrap_or(4)
}

/// Builds the queue from every loaded session in list order.
pub fn build(app: &mut App) {
    app.queue.items.clear();
    app.review.clear();
    app.queue.by_cell = Default::default();
    app.queue.selected = 0;
    app.queue.sessions = 0;
    let order: Vec<usize> = app.order.iter().collect();
    for s in order {
        push_session(app, s);
    }
    app.queue.sessions = app.sessions.len();
    rebuild_review(app);
}

/// Adds sessions loaded since the queue was built (indexes `first..`), at its end.
pub fn append(app: &mut App, first: usize) {
    for s in first..app.sessions.len() {
        push_session(app, s);
    }
    app.queue.sessions = app.sessions.len();
    rebuild_review(app);
}

fn push_session(app: &mut App, s: usize) {
    let l = app.sessions[s].clone();
    if !app.filter.session_matches(&l) {
        return;
    }
    for c in 0..l.report.claims.len() {
        let q = app.quadrant_of(s, c).map(|x| x.quadrant);
        let marks = ClaimMarks {
            quadrant: q,
            reviewed: app.is_reviewed(s, c),
            classified: app.is_classified(s, c),
            corrections: app.corrections_of(s, c),
        };
        if app.filter.claim_matches(&l, c, marks) {
            let pos = app.queue.items.len() as u32;
            app.queue.items.push((s as u32, c as u32));
            app.queue.by_cell[cell_of(q)].push(pos);
        }
    }
}

/// Recounts the grid cells (after classifications were restored).
pub fn recount(app: &mut App) {
    let mut by_cell: [Vec<u32>; 5] = Default::default();
    for (p, &(s, c)) in app.queue.items.iter().enumerate() {
        let q = app.quadrant_of(s as usize, c as usize).map(|x| x.quadrant);
        by_cell[cell_of(q)].push(p as u32);
    }
    app.queue.by_cell = by_cell;
}

/// Rebuilds the queue after records arrived from the case store (classifications,
/// corrections), keeping the selected row and the walkthrough on the claims they were on.
pub fn refresh(app: &mut App) {
    let selected = app.queue.items.get(app.queue.selected).copied();
    let reviewing = current_review_item(app);
    let (pos, row) = (app.review_pos, app.queue.selected);
    build(app);
    app.queue.selected = selected
        .and_then(|x| app.queue.items.iter().position(|&y| y == x))
        .unwrap_or(row.min(app.queue.items.len().saturating_sub(1)));
    app.review_pos = reviewing
        .and_then(|x| {
            app.review
                .iter()
                .position(|&p| app.queue.items.get(p) == Some(&x))
        })
        .unwrap_or(pos.min(app.review.len().saturating_sub(1)));
}

fn current_review_item(app: &App) -> Option<(u32, u32)> {
    app.review
        .get(app.review_pos)
        .and_then(|&p| app.queue.items.get(p).copied())
}

/// The walkthrough: the queue's flagged claims and those on the incident record (corrected or
/// classified by hand), in queue order; stays on the claim it was on.
pub fn rebuild_review(app: &mut App) {
    let was = current_review_item(app);
    app.review = app
        .queue
        .items
        .iter()
        .enumerate()
        .filter(|(_, &(s, c))| app.to_review(s as usize, c as usize))
        .map(|(p, _)| p)
        .collect();
    app.review_pos = was
        .and_then(|x| {
            app.review
                .iter()
                .position(|&p| app.queue.items.get(p) == Some(&x))
        })
        .unwrap_or(app.review_pos)
        .min(app.review.len().saturating_sub(1));
}

/// Starts the walkthrough: where the open session's last review stopped, else at the first
/// unreviewed flagged claim.
pub fn start_review(app: &mut App) {
    let cursor = app
        .cur
        .and_then(|s| app.states.get(s).and_then(|st| st.cursor).map(|c| (s, c)));
    let items = &app.queue.items;
    let resume =
        cursor.and_then(|(s, c)| app.review.iter().position(|&p| items[p] == (s as u32, c)));
    let first_open = app.review.iter().position(|&p| {
        let (s, c) = items[p];
        !app.is_reviewed(s as usize, c as usize)
    });
    app.review_pos = resume.or(first_open).unwrap_or(0);
    select_review(app);
}

fn select_review(app: &mut App) {
    let Some(&p) = app.review.get(app.review_pos) else {
        return;
    };
    app.queue.selected = p;
    let (s, c) = app.queue.items[p];
    select(app, s as usize, c as usize);
}

/// Opens session `s` and selects its claim `c`.
pub fn select(app: &mut App, s: usize, c: usize) {
    app.open_session(s);
    app.select_claim(c);
    app.source_focus = true;
}

/// Steps the walkthrough by `d`, wrapping at the ends with a status message.
pub fn review_step(app: &mut App, d: isize) -> Vec<Effect> {
    let n = app.review.len();
    if n == 0 {
        app.status = "no flagged, corrected or hand-classified claims match the filter".into();
        return vec![];
    }
    let next = app.review_pos as isize + d;
    app.review_pos = if next >= n as isize {
        app.status = format!("past the last claim to review: back to the first (1 of {n})");
        0
    } else if next < 0 {
        app.status = format!("before the first claim to review: on to the last ({n} of {n})");
        n - 1
    } else {
        app.status.clear();
        next as usize
    };
    select_review(app);
    app.claim_key()
        .map(|k| vec![Effect::SaveCursor(k)])
        .unwrap_or_default()
}

/// `n`/`N`: the next or previous flagged claim after the one shown.
pub fn next_flagged(app: &mut App, d: isize) -> Vec<Effect> {
    match app.view {
        View::Review => review_step(app, d),
        View::Queue => {
            let n = app.queue.items.len();
            let flagged = |p: usize| {
                let (s, c) = app.queue.items[p];
                matches!(
                    app.sessions[s as usize].claim_worst(c as usize),
                    Some(Severity::Error | Severity::Warning)
                )
            };
            let start = app.queue.selected;
            for k in 1..=n {
                let p = (start as isize + d * k as isize).rem_euclid(n.max(1) as isize) as usize;
                if flagged(p) {
                    let wrapped = (d > 0 && p <= start) || (d < 0 && p >= start);
                    app.queue.selected = p;
                    app.status = if wrapped {
                        "wrapped around the queue".into()
                    } else {
                        String::new()
                    };
                    return vec![];
                }
            }
            app.status = "no flagged claims in the queue".into();
            vec![]
        }
        _ => next_in_session(app, d),
    }
}

fn next_in_session(app: &mut App, d: isize) -> Vec<Effect> {
    let Some(l) = app.current() else {
        return vec![];
    };
    let mut list: Vec<usize> = l.flagged.iter().map(|&x| x as usize).collect();
    if list.is_empty() {
        app.status = "no flagged claims in this session".into();
        return vec![];
    }
    let n = list.len();
    let cur = app.sel_claim;
    if app.severity_order {
        list.sort_by_key(|&i| (l.claim_worst(i), i));
    }
    let pos = list.iter().position(|&i| i == cur);
    let (target, wrapped) = match (pos, app.severity_order) {
        (Some(p), _) => {
            let q = p as isize + d;
            if q >= n as isize {
                (list[0], true)
            } else if q < 0 {
                (list[n - 1], true)
            } else {
                (list[q as usize], false)
            }
        }
        // Turn order from a claim that is not flagged: the next one after it on screen.
        (None, false) if d > 0 => match list.iter().find(|&&i| i > cur) {
            Some(&i) => (i, false),
            None => (list[0], true),
        },
        (None, false) => match list.iter().rev().find(|&&i| i < cur) {
            Some(&i) => (i, false),
            None => (list[n - 1], true),
        },
        (None, true) if d > 0 => (list[0], false),
        (None, true) => (list[n - 1], false),
    };
    let k = list.iter().position(|&i| i == target).unwrap_or(0) + 1;
    let turn = l.report.claims[target].turn;
    app.status = match (wrapped, d > 0) {
        (true, true) => format!(
            "past the last flagged claim: wrapped to the first (flagged {k} of {n}, turn {turn})"
        ),
        (true, false) => format!(
            "before the first flagged claim: wrapped to the last (flagged {k} of {n}, turn {turn})"
        ),
        _ => format!("flagged {k} of {n} · turn {turn}"),
    };
    app.select_claim(target);
    vec![]
}

/// Makes the claim the view is about the selected claim (the queue's row); false when none.
pub fn target_claim(app: &mut App) -> bool {
    if matches!(app.view, View::Queue | View::Grid) {
        let item = if app.view == View::Queue {
            app.queue.items.get(app.queue.selected).copied()
        } else {
            app.queue.by_cell[app.grid_cell.min(4)]
                .first()
                .and_then(|&p| app.queue.items.get(p as usize).copied())
        };
        if let Some((s, c)) = item {
            if app.cur != Some(s as usize) || app.sel_claim != c as usize {
                select(app, s as usize, c as usize);
            }
            return true;
        }
        return false;
    }
    if matches!(app.view, View::Diff | View::DiffClaim) {
        let Some((s, c)) = super::diff::focused_claim(app) else {
            return false;
        };
        select(app, s, c);
        return true;
    }
    app.current_claim().is_some()
}

/// Assigns the claim in front of the user to a quadrant.
pub fn classify(app: &mut App, q: Quadrant) -> Vec<Effect> {
    if !target_claim(app) {
        return vec![];
    }
    let (Some(s), Some(k)) = (app.cur, app.claim_key()) else {
        return vec![];
    };
    let c = app.sel_claim;
    let before = app.quadrant_of(s, c).map(|x| x.quadrant);
    let mark = app.states[s].marks.entry(c as u32).or_default();
    if mark.quadrant != Some(q) {
        // Who decided and when come back from the case store once it is saved.
        mark.recorded = None;
    }
    mark.quadrant = Some(q);
    let m = mark.clone();
    move_cell(app, s, c, before, Some(q));
    // A claim classified by hand is on the incident record: the walkthrough includes it.
    rebuild_review(app);
    app.status = format!(
        "classified {} turn {}: {}",
        k.1,
        k.2,
        q.title().to_lowercase()
    );
    vec![Effect::SaveMark(k, m)]
}

fn move_cell(app: &mut App, s: usize, c: usize, from: Option<Quadrant>, to: Option<Quadrant>) {
    if from == to {
        return;
    }
    let Some(p) = app
        .queue
        .items
        .iter()
        .position(|&x| x == (s as u32, c as u32))
    else {
        return;
    };
    let p = p as u32;
    let from = &mut app.queue.by_cell[cell_of(from)];
    if let Ok(i) = from.binary_search(&p) {
        from.remove(i);
    }
    let to = &mut app.queue.by_cell[cell_of(to)];
    if let Err(i) = to.binary_search(&p) {
        to.insert(i, p);
    }
}

/// Saves the note typed for the claim in front of the user.
pub fn save_note(app: &mut App, note: String) -> Vec<Effect> {
    let (Some(s), Some(k)) = (app.cur, app.claim_key()) else {
        return vec![];
    };
    let c = app.sel_claim;
    let mark: &mut Mark = app.states[s].marks.entry(c as u32).or_default();
    mark.note = note;
    let m = mark.clone();
    app.status = format!("note saved on {} turn {}", k.1, k.2);
    vec![Effect::SaveMark(k, m)]
}

/// Toggles "reviewed" on the claim in front of the user.
pub fn toggle_reviewed(app: &mut App) -> Vec<Effect> {
    if !target_claim(app) {
        return vec![];
    }
    let (Some(s), Some(k)) = (app.cur, app.claim_key()) else {
        return vec![];
    };
    let c = app.sel_claim as u32;
    let st = &mut app.states[s];
    let now = !st.reviewed.contains(&c);
    if now {
        st.reviewed.insert(c);
    } else {
        st.reviewed.remove(&c);
    }
    vec![Effect::SaveReviewed(k, now)]
}

/// `y`: the focused item's text.
pub fn copy(app: &mut App) -> Vec<Effect> {
    let text = copy_text(app);
    match text {
        Some(t) if !t.is_empty() => {
            app.status = format!(
                "copied {} (OSC 52)",
                super::views::fit(&crate::text::one_line(&t), 60)
            );
            vec![Effect::Copy(t)]
        }
        _ => {
            app.status = "nothing to copy here".into();
            vec![]
        }
    }
}

fn copy_text(app: &mut App) -> Option<String> {
    if let Some(p) = app.last_case.take() {
        return Some(p);
    }
    match app.view {
        View::Sessions => {
            let s = app.selected_session()?;
            Some(app.sessions[s].session.source.to_string())
        }
        View::DiffPairs | View::Diff | View::DiffClaim => super::diff::copy_text(app),
        View::Session => {
            let l = app.current()?;
            let t = l.session.turns.get(app.sel_turn)?;
            match app.focus {
                Focus::Turns => Some(t.user.to_string()),
                Focus::Calls => l
                    .session
                    .calls_in_turn(t.index)
                    .nth(app.sel_call)
                    .map(|c| c.id.to_string()),
                Focus::Claims => app.current_claim().map(|c| c.claim_id.to_string()),
                Focus::Answer => l.session.answer(t.index).map(|a| a.text.to_string()),
            }
        }
        View::Claim | View::Review if app.source_focus => {
            let l = app.current()?;
            let c = app.current_claim()?;
            match &app.shown_call {
                Some(id) => Some(id.clone()),
                None => c
                    .cited_text(&l.session)
                    .map(str::to_owned)
                    .or_else(|| c.call_id.as_deref().map(str::to_owned)),
            }
        }
        View::Queue | View::Grid => {
            target_claim(app);
            app.current_claim().map(|c| c.claim_id.to_string())
        }
        _ => app.current_claim().map(|c| c.claim_id.to_string()),
    }
}

/// `o`: the session and place (line, and JSON path in an imported document) of the event in
/// front of the user.
pub fn open_external(app: &mut App) -> Vec<Effect> {
    use crate::model::Located;
    let place = |(line, path): (u64, Option<&crate::model::Name>)| (line, path.cloned());
    let claim = |c: &crate::check::ClaimVerdict| (c.line, c.json_path.clone());
    let target = match app.view {
        View::Sessions => app.selected_session().map(|s| (s, 1, None)),
        View::DiffPairs | View::Diff | View::DiffClaim => super::diff::open_external(app),
        View::Queue | View::Grid => {
            if target_claim(app) {
                app.cur
                    .zip(app.current_claim().map(claim))
                    .map(|(s, (l, p))| (s, l, p))
            } else {
                None
            }
        }
        View::Session => app.cur.and_then(|s| {
            let l = app.current()?;
            let t = l.session.turns.get(app.sel_turn)?;
            let (line, path) = match app.focus {
                Focus::Turns => place(t.location()),
                Focus::Calls => place(
                    l.session
                        .calls_in_turn(t.index)
                        .nth(app.sel_call)?
                        .location(),
                ),
                Focus::Claims => claim(app.current_claim()?),
                Focus::Answer => place(
                    l.session
                        .answer(t.index)
                        .map_or(t.location(), |a| a.location()),
                ),
            };
            Some((s, line, path))
        }),
        _ => app.cur.and_then(|s| {
            let l = app.current()?;
            let c = app.current_claim()?;
            let (line, path) = if app.source_focus {
                super::views::shown_call_id(app)
                    .and_then(|id| l.session.result(&id).map(|r| place(r.location())))
                    .unwrap_or_else(|| claim(c))
            } else {
                claim(c)
            };
            Some((s, line, path))
        }),
    };
    match target {
        // A native record has its line; an imported one its path (and, in a line file, line).
        Some((session, line, json_path)) => vec![Effect::OpenExternal {
            session,
            line: if json_path.is_some() {
                line
            } else {
                line.max(1)
            },
            json_path,
        }],
        None => {
            app.status = "nothing to open here".into();
            vec![]
        }
    }
}
