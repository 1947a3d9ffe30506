//! Text inputs drawn over the body: the note editor (several lines), the filter bar and the
//! search box with its results.

use super::Drawn;
use crate::tui::app::App;
use crate::tui::input::InputKind;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let Some(input) = &app.input else { return };
    let th = &app.theme;
    let w = area.width.saturating_sub(4);
    match input.kind {
        InputKind::Note => {
            let h = 8.min(area.height);
            let r = Rect::new(area.x + 2, area.y + area.height.saturating_sub(h) / 2, w, h);
            f.render_widget(Clear, r);
            let block = Block::default()
                .borders(Borders::ALL)
                .title(" Note (Enter saves, Ctrl-J new line, Esc or Ctrl-C cancels) ");
            let inner = block.inner(r);
            f.render_widget(block, r);
            f.render_widget(&input.area, inner);
        }
        InputKind::Filter => {
            let r = Rect::new(area.x + 2, area.y + 1, w, 4.min(area.height));
            f.render_widget(Clear, r);
            let block = Block::default()
                .borders(Borders::ALL)
                .title(" Filter (Enter applies, Esc cancels) ");
            let inner = block.inner(r);
            f.render_widget(block, r);
            let [line, hint] = ratatui::layout::Layout::vertical([
                ratatui::layout::Constraint::Length(1),
                ratatui::layout::Constraint::Length(1),
            ])
            .areas(inner);
            f.render_widget(&input.area, line);
            f.render_widget(
                Paragraph::new(Line::styled(
                    super::fit(crate::tui::filter::SYNTAX, usize::from(hint.width)),
                    th.dimmed(),
                )),
                hint,
            );
        }
        InputKind::Search => super::search::render(f, area, app, d),
    }
}
