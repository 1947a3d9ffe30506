//! Grid: the fact-versus-source grid with counts (classifications by hand override the computed
//! cell), and the claims to classify with the playbook's verdict, owner and next action.

use super::{clean, fit, window};
use crate::check::{Quadrant, QUADRANTS};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let Some(l) = app.current() else { return };
    let [cells, list, detail] = Layout::vertical([
        Constraint::Length(10),
        Constraint::Min(4),
        Constraint::Length(5),
    ])
    .areas(area);
    let sid = &l.report.session_id;
    let effective = |i: usize| -> Option<Quadrant> {
        let c = &l.report.claims[i];
        let by_hand = app
            .marks
            .get(&(sid.clone(), c.claim_id.clone(), c.turn))
            .and_then(|m| m.quadrant);
        c.effective_quadrant(by_hand).map(|q| q.quadrant)
    };
    let mut counts = [0usize; 4];
    let mut unknown = 0;
    for i in 0..l.report.claims.len() {
        match effective(i) {
            Some(q) => counts[QUADRANTS.iter().position(|x| *x == q).unwrap_or(0)] += 1,
            None => unknown += 1,
        }
    }
    let [top, bot] = Layout::vertical([Constraint::Length(5), Constraint::Length(5)]).areas(cells);
    let [c0, c1] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
    let [c2, c3] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bot);
    let sel_q = app.current_claim().and_then(|_| effective(app.sel_claim));
    for (k, (cell, q)) in [c0, c1, c2, c3].into_iter().zip(QUADRANTS).enumerate() {
        let mut block = Block::default()
            .borders(Borders::ALL)
            .title(format!(" {} ", q.title()));
        if sel_q == Some(q) {
            block = block.border_style(th.accent());
        }
        let body = vec![
            Line::styled(
                format!("{} claim(s) · {}", counts[k], q.verdict()),
                if k == 1 && counts[k] > 0 {
                    th.severity(crate::check::Severity::Error)
                } else {
                    ratatui::style::Style::default()
                },
            ),
            Line::styled(format!("{} → {}", q.owner(), q.next_action()), th.dimmed()),
        ];
        f.render_widget(
            Paragraph::new(body).block(block).wrap(Wrap { trim: true }),
            cell,
        );
    }
    let block = Block::default().borders(Borders::ALL).title(format!(
        " Claims ({} without a fact label or classification) ",
        unknown
    ));
    let inner = block.inner(list);
    f.render_widget(block, list);
    let h = usize::from(inner.height);
    let w = usize::from(inner.width);
    let n = l.report.claims.len();
    let start = window(app.sel_claim, n, h);
    let mut lines = Vec::with_capacity(h);
    for i in start..(start + h).min(n) {
        let c = &l.report.claims[i];
        let mark = app.marks.get(&(sid.clone(), c.claim_id.clone(), c.turn));
        let by_hand = mark
            .and_then(|m| m.quadrant)
            .map_or("--".to_owned(), |q| th.quadrant(Some(q)).to_owned());
        let note = if mark.is_some_and(|m| !m.note.is_empty()) {
            "✎"
        } else {
            " "
        };
        let text = format!("T{:<3} {:<24} ", c.turn, fit(&clean(&c.claim_id), 24));
        let tail = format!(
            " computed {} · yours {} {}",
            th.quadrant(c.quadrant),
            by_hand,
            note
        );
        let body_w = w.saturating_sub(text.chars().count() + tail.chars().count());
        let mut line = Line::from(vec![
            Span::raw(text),
            Span::raw(format!("{:<body_w$}", fit(&clean(&c.claim_text), body_w))),
            Span::styled(tail, th.dimmed()),
        ]);
        if i == app.sel_claim {
            line = line.style(th.selected());
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
    let block = Block::default().borders(Borders::ALL).title(" Selected ");
    let inner = block.inner(detail);
    f.render_widget(block, detail);
    let mut lines = Vec::new();
    if let Some(q) = sel_q {
        lines.push(Line::styled(
            format!("{}: {}", q.title(), q.verdict()),
            th.accent(),
        ));
        lines.push(Line::raw(format!(
            "owner: {} · next action: {}",
            q.owner(),
            q.next_action()
        )));
    } else {
        lines.push(Line::raw("no fact label: press 1-4 to classify by hand"));
    }
    if let Some(m) = app
        .claim_key()
        .and_then(|k| app.marks.get(&k))
        .filter(|m| !m.note.is_empty())
    {
        lines.push(Line::raw(format!("note: {}", clean(&m.note))));
    }
    f.render_widget(Paragraph::new(lines), inner);
}
