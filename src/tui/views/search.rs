//! The `/` search box over every loaded session, with its results: session, turn, what matched
//! (matched characters highlighted), best rank first.

use super::{clean, fit, window, Drawn};
use crate::tui::action::Hit;
use crate::tui::app::{App, Target};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Clear, Row, Table, TableState};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let Some(input) = &app.input else { return };
    let th = &app.theme;
    let w = area.width.saturating_sub(4);
    let h = area.height.saturating_sub(2).min(24);
    let r = Rect::new(area.x + 2, area.y + 1, w, h);
    f.render_widget(Clear, r);
    let res = app.search.as_ref();
    let status = match res {
        Some(s) if s.running => format!(" {} match(es) so far… ", s.hits.len()),
        Some(s) if !s.hits.is_empty() => {
            format!(" {} of {} match(es) ", s.selected + 1, s.hits.len())
        }
        Some(s) => format!(" {} match(es) ", s.hits.len()),
        None => " type to search claim and call ids, claim text, tools, servers, results, finding kinds ".into(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(
            " Search {} session(s) (Enter opens, Esc cancels) ",
            app.sessions.len()
        ))
        .title_bottom(status);
    let inner = block.inner(r);
    f.render_widget(block, r);
    let [line, list] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let [slash, field] =
        Layout::horizontal([Constraint::Length(2), Constraint::Min(1)]).areas(line);
    f.render_widget(ratatui::widgets::Paragraph::new("/ "), slash);
    f.render_widget(&input.area, field);
    let Some(s) = res else { return };
    let rows_h = usize::from(list.height.saturating_sub(1));
    let start = window(s.selected, s.hits.len(), rows_h);
    let text_w = usize::from(list.width).saturating_sub(20 + 6 + 2);
    let mut rows = Vec::new();
    for (k, hit) in s.hits.iter().enumerate().skip(start).take(rows_h) {
        let Some(l) = app.sessions.get(hit.session as usize) else {
            continue;
        };
        let turn = match hit.target {
            Target::Claim(i) => l.claim(i as usize).map(|c| c.turn),
            Target::Call(i) => l.session.calls.get(i as usize).map(|c| c.turn),
        };
        let shown = fit(&clean(&hit.text), text_w);
        let spans: Vec<Span> = shown
            .chars()
            .enumerate()
            .map(|(ci, ch)| {
                if hit.positions.contains(&ci) {
                    Span::styled(ch.to_string(), th.matched())
                } else {
                    Span::raw(ch.to_string())
                }
            })
            .collect();
        rows.push(Row::new(vec![
            Cell::from(fit(&clean(&l.session.name), 20)),
            Cell::from(turn.map_or("—".into(), |t| format!("T{t}"))),
            Cell::from(Line::from(spans)),
        ]));
        d.add(
            Rect::new(list.x, list.y + 1 + (k - start) as u16, list.width, 1),
            Hit::SearchRow(k),
        );
    }
    let table = Table::new(
        rows,
        [
            Constraint::Length(20),
            Constraint::Length(6),
            Constraint::Fill(1),
        ],
    )
    .header(Row::new(vec!["SESSION", "TURN", "MATCH"]).style(th.dimmed()))
    .row_highlight_style(th.selected());
    let mut state = TableState::default()
        .with_selected((!s.hits.is_empty()).then(|| s.selected.saturating_sub(start)));
    f.render_stateful_widget(table, list, &mut state);
}
