//! Review walkthrough: the flagged claims of the filtered set across every loaded session, one
//! at a time ("k of N", reviewed count), the claim beside its source.

use super::Drawn;
use crate::tui::app::App;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::Frame;

/// The review's head line.
pub fn head(app: &App) -> Line<'static> {
    let th = &app.theme;
    let n = app.review.len();
    if n == 0 {
        let what = if app.filter.is_empty() {
            "no flagged claims in the loaded sessions".to_owned()
        } else {
            format!(
                "no flagged claims match the filter `{}`",
                super::clean(&app.filter.text())
            )
        };
        return Line::styled(what, th.clean());
    }
    let reviewed = app
        .review
        .iter()
        .filter_map(|&p| app.queue.items.get(p))
        .filter(|(s, c)| app.is_reviewed(*s as usize, *c as usize))
        .count();
    let sessions = app.current().map(|l| super::clean(&l.session.name));
    Line::styled(
        format!(
            "flagged claim {} of {n} · {reviewed} reviewed{}",
            app.review_pos + 1,
            sessions.map(|s| format!(" · {s}")).unwrap_or_default()
        ),
        th.accent(),
    )
}

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let (left, right) = super::claim::areas(area);
    super::claim::render_claim(f, left, app, Some(head(app)), d);
    super::source::render(f, right, app, d);
}
