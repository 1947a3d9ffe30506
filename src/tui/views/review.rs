//! Review walkthrough: every flagged claim in severity then turn order, "k of N", reviewed
//! marks and notes; the claim beside its source below.

use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let n = app.review.len();
    let reviewed = app.current().map_or(0, |l| {
        app.review
            .iter()
            .filter(|&&i| {
                app.reviewed.contains(&(
                    l.report.session_id.clone(),
                    l.report.claims[i].claim_id.clone(),
                    l.report.claims[i].turn,
                ))
            })
            .count()
    });
    let head = if n == 0 {
        Line::styled("no flagged claims in this session", th.clean())
    } else {
        Line::styled(
            format!(
                "flagged claim {} of {n} · {reviewed} reviewed",
                app.review_pos + 1
            ),
            th.accent(),
        )
    };
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)]).areas(area);
    super::claim::render_claim(f, left, app, Some(head));
    super::claim::render_source_pub(f, right, app);
}
