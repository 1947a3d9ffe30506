//! Sessions: one row per session with turns, claims, worst finding and quadrant counts.

use super::{clean, fit, window};
use crate::check::{Quadrant, Severity};
use crate::tui::app::{App, SortKey};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

fn areas(app: &App, area: Rect) -> (Rect, Rect) {
    let problems = app.problems.len().min(6) as u16;
    let [list, probs] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(if problems > 0 { problems + 2 } else { 0 }),
    ])
    .areas(area);
    (list, probs)
}

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let (list, probs) = areas(app, area);
    let sort = match app.sort {
        SortKey::Name => "name",
        SortKey::Worst => "worst finding",
        SortKey::Claims => "claims",
    };
    let title = match app.loading {
        Some((d, t)) => format!(
            " {} sessions (loading {d}/{t}) · sorted by {sort} ",
            app.sessions.len()
        ),
        None => format!(" {} sessions · sorted by {sort} ", app.sessions.len()),
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(list);
    f.render_widget(block, list);
    let w = usize::from(inner.width);
    // Which importer read each file, when the terminal is wide enough for it.
    let fmt_w = if w >= 100 { 19 } else { 0 };
    let name_w = w.saturating_sub(46 + fmt_w).max(10);
    let fmt_col = |f: &str| {
        if fmt_w == 0 {
            String::new()
        } else {
            format!(" {:<18}", fit(f, 18))
        }
    };
    let mut lines = vec![Line::styled(
        format!(
            "{:<name_w$}{} {:>5} {:>6}  {:<9} {:>4} {:>4} {:>4} {:>4}",
            "SESSION",
            fmt_col("FORMAT"),
            "TURNS",
            "CLAIMS",
            "WORST",
            "RR",
            "RW",
            "WR",
            "WW"
        ),
        th.dimmed(),
    )];
    let height = usize::from(inner.height.saturating_sub(1));
    if app.sessions.is_empty() {
        let msg = if app.loading.is_some() {
            "loading…"
        } else {
            "no sessions"
        };
        lines.push(Line::raw(msg));
    }
    let start = window(app.sel_session, app.order.len(), height);
    for (row, &i) in app.order.iter().enumerate().skip(start).take(height) {
        let l = &app.sessions[i];
        let (worst, style) = match l.worst {
            Some(Severity::Error) => ("error", th.severity(Severity::Error)),
            Some(Severity::Warning) => ("warning", th.severity(Severity::Warning)),
            Some(Severity::Info) => ("info", th.severity(Severity::Info)),
            // No finding in what loaded, but lines of the log were skipped: not clean.
            None if l.session.has_errors() => ("log error", th.severity(Severity::Error)),
            None => ("clean", th.clean()),
        };
        let q = |x| l.quadrant_count(x);
        let text = format!(
            "{:<name_w$}{} {:>5} {:>6}  {:<9} {:>4} {:>4} {:>4} {:>4}",
            fit(&clean(&l.session.name), name_w),
            fmt_col(l.session.format()),
            l.session.turns.len(),
            l.report.claims.len(),
            worst,
            q(Quadrant::FactRightSourceRight),
            q(Quadrant::FactRightSourceWrong),
            q(Quadrant::FactWrongSourceRight),
            q(Quadrant::FactWrongSourceWrong),
        );
        let mut line = Line::from(vec![Span::styled(text, style)]);
        if row == app.sel_session {
            line = line.style(th.selected());
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
    if !app.problems.is_empty() {
        let block = Block::default()
            .borders(Borders::ALL)
            .title(format!(" {} input problem(s) ", app.problems.len()));
        let inner = block.inner(probs);
        f.render_widget(block, probs);
        let lines: Vec<Line> = app
            .problems
            .iter()
            .take(usize::from(inner.height))
            .map(|p| Line::styled(clean(p), th.severity(Severity::Error)))
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }
}

pub(super) fn hit(app: &App, area: Rect, col: u16, row: u16) -> Option<super::Hit> {
    let (list, _) = areas(app, area);
    let first = list.y + 2; // border + header row
    if col <= list.x
        || col >= list.right().saturating_sub(1)
        || row < first
        || row >= list.bottom().saturating_sub(1)
    {
        return None;
    }
    let height = usize::from(list.height.saturating_sub(3));
    let start = window(app.sel_session, app.order.len(), height);
    let i = start + usize::from(row - first);
    (i < app.order.len()).then_some(super::Hit::SessionRow(i))
}
