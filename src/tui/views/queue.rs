//! Queue: the filtered claims of every loaded session, one row each (session, turn, claim,
//! worst finding, kinds, quadrant, tier, server, reviewed), "k of N" in the title.

use super::{clean, fit, shrink, window, Drawn};
use crate::tui::action::{Hit, Pane};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let th = &app.theme;
    let q = &app.queue;
    let n = q.items.len();
    let title = if n == 0 {
        " Queue: no claims match ".to_owned()
    } else {
        format!(" Queue · {} of {n} ", q.selected + 1)
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    d.add(inner, Hit::Pane(Pane::Body));
    if n == 0 {
        let hint = format!(
            "no claim of the {} loaded session(s) matches the filter; {} changes it",
            app.sessions.len(),
            app.keymap.key_of("filter")
        );
        f.render_widget(Paragraph::new(hint).style(th.dimmed()), inner);
        return;
    }
    let h = usize::from(inner.height.saturating_sub(1));
    let w = usize::from(inner.width);
    let start = window(q.selected, n, h);
    // Session, claim and server give up room together (down to 8 columns each) when the pane is
    // narrower than the table, so every column keeps its ellipsis instead of being cut short.
    let mut ids = [20, 20, 18];
    let fixed = |ids: &[usize; 3]| ids.iter().sum::<usize>() + 5 + 8 + 4 + 4 + 9 + 8;
    let over = (fixed(&ids) + 8).saturating_sub(w);
    shrink(&mut ids, 8, over);
    let [session_w, claim_w, server_w] = ids;
    let kinds_w = w.saturating_sub(fixed(&ids)).clamp(8, 60);
    let mut rows = Vec::with_capacity(h);
    for (k, &(s, c)) in q.items.iter().enumerate().skip(start).take(h) {
        let (s, c) = (s as usize, c as usize);
        let l = &app.sessions[s];
        let cv = &l.report.claims[c];
        let worst = l.claim_worst(c);
        let mut kinds: Vec<Span> = Vec::new();
        let mut seen = Vec::new();
        for fnd in l.findings(c) {
            if !seen.contains(&fnd.kind) {
                seen.push(fnd.kind);
                kinds.push(Span::styled(
                    format!("{} ", th.badge(fnd.kind)),
                    th.severity(fnd.severity),
                ));
            }
        }
        let server = cv
            .call_id
            .as_deref()
            .and_then(|id| l.session.call(id))
            .map(|x| clean(&x.server))
            .unwrap_or_else(|| "—".into());
        let quad = th.quadrant(app.quadrant_of(s, c).map(|x| x.quadrant));
        let reviewed = if app.is_reviewed(s, c) { "✓" } else { "" };
        let sev = worst.map_or("clean", |x| x.name());
        let style = worst.map_or(th.clean(), |x| th.severity(x));
        let kinds_line: String = kinds.iter().map(|s| s.content.as_ref()).collect();
        rows.push(Row::new(vec![
            Cell::from(fit(&clean(&l.session.name), session_w)),
            Cell::from(format!("T{}", cv.turn)),
            Cell::from(fit(&clean(&cv.claim_id), claim_w)),
            Cell::from(Line::styled(sev, style)),
            Cell::from(Line::styled(fit(&kinds_line, kinds_w), style)),
            Cell::from(quad),
            Cell::from(cv.tier.map_or("--", |t| t.tier.label())),
            Cell::from(fit(&server, server_w)),
            Cell::from(reviewed),
        ]));
        d.add(
            Rect::new(inner.x, inner.y + 1 + (k - start) as u16, inner.width, 1),
            Hit::QueueRow(k),
        );
    }
    let widths = [
        Constraint::Length(session_w as u16),
        Constraint::Length(5),
        Constraint::Length(claim_w as u16),
        Constraint::Length(8),
        Constraint::Length(kinds_w as u16),
        Constraint::Length(4),
        Constraint::Length(4),
        Constraint::Length(server_w as u16),
        Constraint::Length(9),
    ];
    let table = Table::new(rows, widths)
        .header(
            Row::new(vec![
                "SESSION", "TURN", "CLAIM", "WORST", "FINDINGS", "Q", "TIER", "SERVER", "REVIEWED",
            ])
            .style(th.dimmed()),
        )
        .row_highlight_style(th.selected());
    let mut state = TableState::default().with_selected(Some(q.selected - start));
    f.render_stateful_widget(table, inner, &mut state);
}
