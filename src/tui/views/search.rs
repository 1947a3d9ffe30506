//! The `/` search and note inputs, drawn over the body; matched characters highlighted.

use super::{clean, fit};
use crate::tui::app::{App, Input};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    match &app.input {
        Some(Input::Note(text)) => {
            let w = area.width.saturating_sub(4);
            let r = Rect::new(
                area.x + 2,
                area.y + area.height.saturating_sub(4) / 2,
                w,
                3.min(area.height),
            );
            f.render_widget(Clear, r);
            let block = Block::default()
                .borders(Borders::ALL)
                .title(" Note (Enter saves, Esc cancels) ");
            f.render_widget(Paragraph::new(format!("{}▏", clean(text))).block(block), r);
        }
        Some(Input::Search(q)) => {
            let w = area.width.saturating_sub(4);
            let h = area.height.saturating_sub(2).min(18);
            let r = Rect::new(area.x + 2, area.y + 1, w, h);
            f.render_widget(Clear, r);
            let res = app.search.as_ref();
            let status = match res {
                Some(s) if s.running => format!(" {} match(es) so far… ", s.hits.len()),
                Some(s) => format!(" {} match(es) ", s.hits.len()),
                None => " type to search claims, tools, servers, call ids ".into(),
            };
            let block = Block::default()
                .borders(Borders::ALL)
                .title(format!(" / {} ", clean(q)))
                .title_bottom(status);
            let inner = block.inner(r);
            f.render_widget(block, r);
            let Some(l) = app.current() else { return };
            let mut lines = Vec::new();
            if let Some(s) = res {
                let rows = usize::from(inner.height);
                let start = s.selected.saturating_sub(rows.saturating_sub(1));
                for (k, (i, _, pos)) in s.hits.iter().enumerate().skip(start).take(rows) {
                    let hay = super::super::search::haystack(l, *i);
                    let shown = fit(&clean(&hay), usize::from(inner.width));
                    let spans: Vec<Span> = shown
                        .chars()
                        .enumerate()
                        .map(|(ci, ch)| {
                            if pos.contains(&ci) {
                                Span::styled(ch.to_string(), th.matched())
                            } else {
                                Span::raw(ch.to_string())
                            }
                        })
                        .collect();
                    let mut line = Line::from(spans);
                    if k == s.selected {
                        line = line.style(th.selected());
                    }
                    lines.push(line);
                }
            }
            f.render_widget(Paragraph::new(lines), inner);
        }
        None => {}
    }
}
