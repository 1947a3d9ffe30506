//! The help overlay, generated from the key table for the current view; it scrolls (`j`/`k`).

use super::{scrolled, wrap, Drawn};
use crate::tui::action::{Hit, Pane};
use crate::tui::app::App;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear};
use ratatui::Frame;

/// The help lines for the current view, wrapped at `w`.
pub fn lines(app: &App, w: usize) -> Vec<Line<'static>> {
    const KEYS_W: usize = 16;
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (keys, help) in app.keymap.help_rows(app.view) {
        let keys = Span::styled(format!("{keys:>14}  "), app.theme.accent());
        if w < KEYS_W + 12 {
            lines.push(Line::from(vec![keys, Span::raw(help)]));
            continue;
        }
        // A description longer than its column continues under itself, not under the keys.
        for (k, part) in wrap(vec![Line::raw(help)], w - KEYS_W)
            .into_iter()
            .enumerate()
        {
            let lead = if k == 0 {
                keys.clone()
            } else {
                Span::raw(" ".repeat(KEYS_W))
            };
            let mut spans = vec![lead];
            spans.extend(part.spans);
            lines.push(Line::from(spans));
        }
    }
    lines.push(Line::styled(
        "keys can be changed in provscope.toml [keys]; j/k scroll this help",
        app.theme.dimmed(),
    ));
    wrap(lines, w)
}

/// The overlay's area in the body.
pub fn area(body: Rect) -> Rect {
    let w = body.width.saturating_sub(4).min(100);
    let h = body.height;
    Rect::new(body.x + (body.width - w) / 2, body.y, w, h)
}

pub(super) fn render(f: &mut Frame, body: Rect, app: &App, d: &mut Drawn) {
    let r = area(body);
    f.render_widget(Clear, r);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" Help: {} ", app.view.title()));
    let inner = block.inner(r);
    f.render_widget(block, r);
    d.add(inner, Hit::Pane(Pane::Help));
    let ls = lines(app, usize::from(inner.width));
    scrolled(f, r, inner, ls, app.scroll.get(Pane::Help), app);
}
