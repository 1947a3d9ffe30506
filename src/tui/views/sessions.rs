//! Sessions: one row per session with turns, claims, worst finding, quadrant counts and review
//! progress, in a `Table` whose columns are measured in display width.

use super::{clean, fit, window, Drawn};
use crate::check::{Quadrant, Severity};
use crate::tui::action::{Hit, Pane};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};
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

const NUM: [(&str, u16); 9] = [
    ("TURNS", 5),
    ("CLAIMS", 6),
    ("WORST", 9),
    ("RR", 4),
    ("RW", 4),
    ("WR", 4),
    ("WW", 4),
    ("REVIEWED", 8),
    ("", 0),
];

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let th = &app.theme;
    let (list, probs) = areas(app, area);
    let dir = if app.sort_reverse { "↑" } else { "↓" };
    // Sessions a followed file no longer holds are dropped, not counted.
    let shown = app.sessions.len().saturating_sub(app.dropped.len());
    let title = match app.loading {
        Some((done, t)) => format!(
            " {shown} sessions (loading {done}/{t}) · sorted by {} {dir} ",
            app.sort.name()
        ),
        None => format!(" {shown} sessions · sorted by {} {dir} ", app.sort.name()),
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(list);
    f.render_widget(block, list);
    d.add(inner, Hit::Pane(Pane::Body));
    let height = usize::from(inner.height.saturating_sub(1));
    if app.sessions.is_empty() {
        let msg = if app.loading.is_some() {
            "loading…"
        } else {
            "no sessions"
        };
        let below = Rect::new(
            inner.x,
            inner.y + 1,
            inner.width,
            inner.height.saturating_sub(1),
        );
        f.render_widget(Paragraph::new(msg), below);
    }
    // Which importer read each file, when the terminal is wide enough for it: as wide as the
    // longest importer name listed (`anthropic-managed-agents`), at least 18.
    let widest = app.sessions.iter().map(|l| l.session.format().len()).max();
    let fmt_w: u16 = match widest {
        _ if inner.width < 100 => 0,
        Some(w) => u16::try_from(w).unwrap_or(18).clamp(18, 32),
        None => 18,
    };
    let fixed: u16 = NUM.iter().map(|(_, w)| w + 1).sum::<u16>() + fmt_w + u16::from(fmt_w > 0);
    let name_w = inner.width.saturating_sub(fixed).max(10);
    let mut widths = vec![Constraint::Length(name_w)];
    let mut heads = vec!["SESSION"];
    if fmt_w > 0 {
        widths.push(Constraint::Length(fmt_w));
        heads.push("FORMAT");
    }
    widths.extend(NUM[..8].iter().map(|(_, w)| Constraint::Length(*w)));
    heads.extend(NUM[..8].iter().map(|(h, _)| *h));
    let header = Row::new(heads.into_iter().map(Cell::from).collect::<Vec<_>>()).style(th.dimmed());
    let n = app.order.len();
    let start = window(app.sel_session, n, height);
    let mut rows = Vec::with_capacity(height);
    for (k, i) in app.order.iter_from(start).take(height).enumerate() {
        let l = &app.sessions[i];
        let (worst, style) = match l.worst {
            Some(Severity::Error) => ("error", th.severity(Severity::Error)),
            Some(Severity::Warning) => ("warning", th.severity(Severity::Warning)),
            Some(Severity::Info) => ("info", th.severity(Severity::Info)),
            // No finding in what loaded, but lines of the log were skipped: not clean.
            None if l.unknown_format() => ("not a log", th.severity(Severity::Error)),
            None if l.session.has_errors() => ("log error", th.severity(Severity::Error)),
            None => ("clean", th.clean()),
        };
        let q = |x| l.quadrant_count(x).to_string();
        let st = &app.states[i];
        let reviewed = if l.flagged.is_empty() {
            "—".to_owned()
        } else {
            let done = l.flagged.iter().filter(|c| st.reviewed.contains(c)).count();
            format!("{done}/{}", l.flagged.len())
        };
        let name = fit(&clean(&l.session.name), usize::from(name_w));
        let mut cells = vec![Cell::from(name)];
        if fmt_w > 0 {
            cells.push(Cell::from(fit(l.session.format(), usize::from(fmt_w))));
        }
        rows.push(
            Row::new(
                cells
                    .into_iter()
                    .chain([
                        Cell::from(Line::from(l.session.turns.len().to_string()).right_aligned()),
                        Cell::from(Line::from(l.report.claims.len().to_string()).right_aligned()),
                        Cell::from(worst),
                        Cell::from(Line::from(q(Quadrant::FactRightSourceRight)).right_aligned()),
                        Cell::from(Line::from(q(Quadrant::FactRightSourceWrong)).right_aligned()),
                        Cell::from(Line::from(q(Quadrant::FactWrongSourceRight)).right_aligned()),
                        Cell::from(Line::from(q(Quadrant::FactWrongSourceWrong)).right_aligned()),
                        Cell::from(Line::from(reviewed).right_aligned()),
                    ])
                    .collect::<Vec<_>>(),
            )
            .style(style),
        );
        let y = inner.y + 1 + k as u16;
        d.add(
            Rect::new(inner.x, y, inner.width, 1),
            Hit::SessionRow(start + k),
        );
    }
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(1)
        .row_highlight_style(th.selected());
    let mut state =
        TableState::default().with_selected((n > 0).then(|| app.sel_session.saturating_sub(start)));
    f.render_stateful_widget(table, inner, &mut state);
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
            .map(|p| {
                Line::styled(
                    fit(&clean(p), usize::from(inner.width)),
                    th.severity(Severity::Error),
                )
            })
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }
}
