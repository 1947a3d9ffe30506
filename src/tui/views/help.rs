//! The help overlay, generated from the key table for the current view.

use crate::tui::app::App;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let rows = app.keymap.help_rows(app.view);
    let w = area.width.saturating_sub(4).min(78);
    let h = (rows.len() as u16 + 3).min(area.height);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    let mut lines: Vec<Line> = rows
        .into_iter()
        .map(|(keys, help)| {
            Line::from(vec![
                Span::styled(format!("{keys:>16}  "), app.theme.accent()),
                Span::raw(help),
            ])
        })
        .collect();
    lines.push(Line::styled(
        "keys can be changed in provscope.toml [keys]",
        app.theme.dimmed(),
    ));
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" Help: {} ", app.view.title()));
    f.render_widget(Paragraph::new(lines).block(block), r);
}
