//! Grid: the fact-versus-source grid over the filtered claims of every loaded session (hand
//! classifications override the computed cell), each cell with its verdict, owner and next
//! action; the selected cell's first claims below (`Enter` opens them all in the queue).

use super::{clean, fit, Drawn};
use crate::check::{Severity, QUADRANTS};
use crate::tui::action::{Hit, Pane};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let th = &app.theme;
    let q = &app.queue;
    let [cells, unknown_a, list] = Layout::vertical([
        Constraint::Length(10),
        Constraint::Length(1),
        Constraint::Min(3),
    ])
    .areas(area);
    let [top, bot] = Layout::vertical([Constraint::Length(5), Constraint::Length(5)]).areas(cells);
    let [c0, c1] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
    let [c2, c3] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bot);
    for (k, (cell, quad)) in [c0, c1, c2, c3].into_iter().zip(QUADRANTS).enumerate() {
        let selected = app.grid_cell == k;
        let mut block = Block::default().borders(Borders::ALL).title(format!(
            "{} {} ",
            if selected { " ▶" } else { "" },
            quad.title()
        ));
        if selected {
            block = block.border_style(th.accent()).title_style(th.selected());
        }
        let n = q.by_cell[k].len();
        let body = vec![
            Line::styled(
                format!("{n} claim(s) · {}", quad.verdict()),
                if k == 1 && n > 0 {
                    th.severity(Severity::Error)
                } else {
                    ratatui::style::Style::default()
                },
            ),
            Line::styled(
                format!("{} → {}", quad.owner(), quad.next_action()),
                th.dimmed(),
            ),
        ];
        f.render_widget(
            Paragraph::new(body).block(block).wrap(Wrap { trim: true }),
            cell,
        );
        d.add(cell, Hit::GridCell(k));
    }
    let unknown = q.by_cell[4].len();
    f.render_widget(
        Paragraph::new(format!(
            " {} claim(s) in {} session(s) · {unknown} without a fact label or classification{}",
            q.items.len(),
            app.sessions.len(),
            if app.grid_cell == 4 { " ◀" } else { "" }
        ))
        .style(th.dimmed()),
        unknown_a,
    );
    d.add(unknown_a, Hit::GridCell(4));
    let cell_items = &q.by_cell[app.grid_cell.min(4)];
    let name = QUADRANTS
        .get(app.grid_cell)
        .map_or("no quadrant", |x| x.title());
    let block = Block::default().borders(Borders::ALL).title(format!(
        " {name}: {} claim(s) · {} opens them in the queue ",
        cell_items.len(),
        app.keymap.key_of("open")
    ));
    let inner = block.inner(list);
    f.render_widget(block, list);
    d.add(inner, Hit::Pane(Pane::Body));
    let h = usize::from(inner.height.saturating_sub(1));
    let w = usize::from(inner.width);
    // Session and claim ids give up room (22 columns down to 10) before the claim's text does;
    // the text gets what they, the turn, the quadrant and the four one-column gaps leave, so
    // its ellipsis shows instead of the table cutting it short.
    let id_w = (w.saturating_sub(5 + 24 + 4 + 24) / 2).clamp(10, 22);
    let text_w = w.saturating_sub(2 * id_w + 5 + 24 + 4);
    let mut rows = Vec::new();
    for &p in cell_items.iter().take(h) {
        let Some(&(s, c)) = q.items.get(p as usize) else {
            continue;
        };
        let (s, c) = (s as usize, c as usize);
        let l = &app.sessions[s];
        let cv = &l.report.claims[c];
        let yours = app
            .mark_of(s, c)
            .and_then(|m| m.quadrant)
            .map_or("--", |x| th.quadrant(Some(x)));
        let note = if app.mark_of(s, c).is_some_and(|m| !m.note.is_empty()) {
            "✎"
        } else {
            ""
        };
        rows.push(Row::new(vec![
            Cell::from(fit(&clean(&l.session.name), id_w)),
            Cell::from(format!("T{}", cv.turn)),
            Cell::from(fit(&clean(&cv.claim_id), id_w)),
            Cell::from(fit(&clean(&cv.claim_text), text_w)),
            Cell::from(format!(
                "computed {} · yours {yours} {note}",
                th.quadrant(cv.quadrant)
            )),
        ]));
    }
    f.render_widget(
        Table::new(
            rows,
            [
                Constraint::Length(id_w as u16),
                Constraint::Length(5),
                Constraint::Length(id_w as u16),
                Constraint::Fill(1),
                Constraint::Length(24),
            ],
        )
        .header(Row::new(vec!["SESSION", "TURN", "CLAIM", "TEXT", "QUADRANT"]).style(th.dimmed())),
        inner,
    );
}
