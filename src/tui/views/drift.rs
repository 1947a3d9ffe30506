//! Drift: the selected claim's binding history across turns (turn, call, value, in context),
//! with the turns where a citation_drift finding fired highlighted as re-binding points.

use super::{clean, fit};
use crate::check::{Kind, Severity};
use crate::tui::app::App;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let (Some(l), Some(c)) = (app.current(), app.current_claim()) else {
        return;
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" Binding history of {} ", clean(&c.claim_id)));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let w = usize::from(inner.width);
    let mut lines = vec![
        Line::raw(fit(&clean(&c.claim_text), w)),
        Line::raw(""),
        Line::styled(
            format!(
                "{:<6} {:<14} {:<22} {:<11} VALUE (cited span)",
                "TURN", "CLAIM", "CALL", "IN CONTEXT"
            ),
            th.dimmed(),
        ),
    ];
    // The statements `check` grouped (same claim id, or the same text up to case and
    // punctuation), with the drift findings each one got.
    let statements: Vec<usize> = match l.report.drift_group(c) {
        Some(g) => g.statements.clone(),
        None => vec![app.sel_claim],
    };
    let mut moves: Vec<(Severity, String)> = Vec::new();
    let mut shown = 0;
    for &idx in &statements {
        let Some(cv) = l.report.claims.get(idx) else {
            continue;
        };
        shown += 1;
        let call = cv.call_id.clone().unwrap_or_else(|| "(none)".into());
        let in_ctx = match (cv.call_id.as_ref(), cv.in_context) {
            (None, _) => "—",
            (Some(_), Some(true)) => "yes",
            (Some(_), Some(false)) => "NO",
            (Some(_), None) => "unknown",
        };
        let value = cv.cited_text(&l.session).unwrap_or("—");
        let text = format!(
            "{:<6} {:<14} {:<22} {:<11} {}",
            cv.turn,
            fit(&clean(&cv.claim_id), 14),
            fit(&clean(&call), 22),
            in_ctx,
            clean(value)
        );
        let drift = l
            .findings(idx)
            .filter(|f| f.kind == Kind::CitationDrift)
            .min_by_key(|f| f.severity);
        for f in l.findings(idx).filter(|f| f.kind == Kind::CitationDrift) {
            moves.push((f.severity, f.message.clone()));
        }
        let mut line = match drift {
            Some(f) => Line::from(vec![
                Span::styled(fit(&text, w.saturating_sub(2)), th.severity(f.severity)),
                Span::styled(" ⇄", th.severity(f.severity)),
            ]),
            None => Line::raw(fit(&text, w)),
        };
        if idx == app.sel_claim {
            line = line.style(th.selected());
        }
        lines.push(line);
    }
    if shown <= 1 {
        lines.push(Line::styled(
            "stated in one turn only: nothing to drift",
            th.dimmed(),
        ));
    }
    if !moves.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("re-binding points:", th.accent()));
        // Messages name their turn already.
        for (sev, msg) in &moves {
            lines.push(Line::styled(format!("  {}", clean(msg)), th.severity(*sev)));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
}
