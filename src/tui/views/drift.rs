//! Drift: the selected claim's binding history across turns (turn, call, value, in context),
//! with the turns where a citation_drift finding fired highlighted as re-binding points.

use super::{clean, fit, Drawn};
use crate::check::{Kind, Severity};
use crate::tui::action::{Hit, Pane};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let th = &app.theme;
    let (Some(l), Some(c)) = (app.current(), app.current_claim()) else {
        return;
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" Binding history of {} ", clean(&c.claim_id)));
    let inner = block.inner(area);
    f.render_widget(block, area);
    d.add(inner, Hit::Pane(Pane::Body));
    let w = usize::from(inner.width);
    // The statements `check` grouped (same claim id, or the same text up to case and
    // punctuation), with the drift findings each one got.
    let statements: Vec<usize> = match l.report.drift_group(c) {
        Some(g) => g.statements.clone(),
        None => vec![app.sel_claim],
    };
    let mut moves: Vec<(Severity, String)> = Vec::new();
    let mut rows = Vec::new();
    let mut selected = None;
    for &idx in &statements {
        let Some(cv) = l.report.claims.get(idx) else {
            continue;
        };
        let call = cv.call_id.clone().unwrap_or_else(|| "(none)".into());
        let in_ctx = match (cv.call_id.as_ref(), cv.in_context) {
            (None, _) => "—",
            (Some(_), Some(true)) => "yes",
            (Some(_), Some(false)) => "NO",
            (Some(_), None) => "unknown",
        };
        let value = cv.cited_text(&l.session).unwrap_or("—");
        let drift = l
            .findings(idx)
            .filter(|f| f.kind == Kind::CitationDrift)
            .min_by_key(|f| f.severity);
        for f in l.findings(idx).filter(|f| f.kind == Kind::CitationDrift) {
            moves.push((f.severity, f.message.clone()));
        }
        let style = drift.map_or(ratatui::style::Style::default(), |f| {
            th.severity(f.severity)
        });
        let value_w = w.saturating_sub(6 + 14 + 22 + 11 + 4 + 3);
        if idx == app.sel_claim {
            selected = Some(rows.len());
        }
        rows.push(
            Row::new(vec![
                Cell::from(cv.turn.to_string()),
                Cell::from(fit(&clean(&cv.claim_id), 14)),
                Cell::from(fit(&clean(&call), 22)),
                Cell::from(in_ctx),
                Cell::from(format!(
                    "{}{}",
                    fit(&clean(value), value_w),
                    if drift.is_some() { " ⇄" } else { "" }
                )),
            ])
            .style(style),
        );
    }
    let shown = rows.len();
    let [text_a, table_a, rest] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(shown.min(40) as u16 + 1),
        Constraint::Min(0),
    ])
    .areas(inner);
    f.render_widget(Paragraph::new(fit(&clean(&c.claim_text), w)), text_a);
    let table = Table::new(
        rows,
        [
            Constraint::Length(6),
            Constraint::Length(14),
            Constraint::Length(22),
            Constraint::Length(11),
            Constraint::Fill(1),
        ],
    )
    .header(
        Row::new(vec![
            "TURN",
            "CLAIM",
            "CALL",
            "IN CONTEXT",
            "VALUE (cited span)",
        ])
        .style(th.dimmed()),
    )
    .row_highlight_style(th.selected());
    let mut state = TableState::default().with_selected(selected);
    f.render_stateful_widget(table, table_a, &mut state);
    let mut lines = Vec::new();
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
    let lines = super::wrap(lines, usize::from(rest.width));
    super::scrolled(f, rest, rest, lines, app.scroll.get(Pane::Body), app);
}
