//! Review walkthrough: the flagged claims of the filtered set across every loaded session, and
//! those on the incident record (corrected with `provscope correct` or classified by hand) even
//! when no check flagged them, one at a time ("k of N", reviewed count), the claim beside its
//! source; the claim pane shows the corrections and the hand classification.

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
            "no flagged, corrected or hand-classified claims in the loaded sessions".to_owned()
        } else {
            format!(
                "no flagged, corrected or hand-classified claims match the filter `{}`",
                super::clean(&app.filter.text())
            )
        };
        return Line::styled(what, th.clean());
    }
    let items = || {
        app.review
            .iter()
            .filter_map(|&p| app.queue.items.get(p))
            .map(|&(s, c)| (s as usize, c as usize))
    };
    let reviewed = items().filter(|&(s, c)| app.is_reviewed(s, c)).count();
    // Claims that are here only because of the incident record, not because a check flagged them.
    let recorded = items().filter(|&(s, c)| !app.is_flagged(s, c)).count();
    let sessions = app.current().map(|l| super::clean(&l.session.name));
    let what = if recorded == 0 {
        format!("flagged claim {} of {n}", app.review_pos + 1)
    } else {
        format!(
            "claim {} of {n} to review ({} flagged, {recorded} corrected or classified by hand)",
            app.review_pos + 1,
            n - recorded
        )
    };
    Line::styled(
        format!(
            "{what} · {reviewed} reviewed{}",
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
