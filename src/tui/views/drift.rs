//! Drift: the selected claim's binding history across turns (turn, call, value, in context),
//! with the turns where a citation_drift finding fired highlighted as re-binding points.

use super::{clean, fit};
use crate::check::{Kind, Severity};
use crate::model::span::resolve;
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
    // Drift findings name the turns where the binding moved.
    let drift_turns: Vec<(u32, Severity, String)> = l
        .report
        .findings
        .iter()
        .filter(|f| {
            f.kind == Kind::CitationDrift
                && (f.claim_id.as_deref() == Some(&c.claim_id) || history_mentions(f, &c.claim_id))
        })
        .filter_map(|f| f.turn.map(|t| (t, f.severity, f.message.clone())))
        .collect();
    let unit = l.session.span_unit();
    let mut shown = 0;
    for (idx, cv) in l.report.claims.iter().enumerate() {
        if cv.claim_id != c.claim_id
            && !drift_turns
                .iter()
                .any(|(t, _, _)| *t == cv.turn && same_text(&cv.claim_text, &c.claim_text))
        {
            continue;
        }
        shown += 1;
        let call = cv.call_id.clone().unwrap_or_else(|| "(none)".into());
        let in_ctx = match cv
            .call_id
            .as_deref()
            .and_then(|id| l.session.in_context(cv.turn, id))
        {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "unknown",
        };
        let value = l
            .claim_at(idx)
            .and_then(|cl| {
                let sp = cl.stamp.span?;
                let r = l.session.result(cv.call_id.as_deref()?)?;
                let t = r.block_text(sp.block)?;
                resolve(t, sp.start, sp.end, unit)
                    .ok()
                    .map(|rg| t[rg].to_owned())
            })
            .unwrap_or_else(|| "—".into());
        let text = format!(
            "{:<6} {:<14} {:<22} {:<11} {}",
            cv.turn,
            fit(&clean(&cv.claim_id), 14),
            fit(&clean(&call), 22),
            in_ctx,
            clean(&value)
        );
        let moved = drift_turns.iter().find(|(t, _, _)| *t == cv.turn);
        let mut line = match moved {
            Some((_, sev, _)) => Line::from(vec![
                Span::styled(fit(&text, w.saturating_sub(2)), th.severity(*sev)),
                Span::styled(" ⇄", th.severity(*sev)),
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
    if !drift_turns.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("re-binding points:", th.accent()));
        // Messages name their turn already.
        for (_, sev, msg) in &drift_turns {
            lines.push(Line::styled(format!("  {}", clean(msg)), th.severity(*sev)));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
}

fn same_text(a: &str, b: &str) -> bool {
    crate::check::support::normalize(a) == crate::check::support::normalize(b)
}

fn history_mentions(f: &crate::check::Finding, claim_id: &str) -> bool {
    match &f.evidence {
        crate::check::Evidence::CitationDrift(d) => {
            d.history.iter().any(|e| e.claim_id == claim_id)
        }
        _ => false,
    }
}
