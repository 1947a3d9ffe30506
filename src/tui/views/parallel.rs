//! Parallel: the fan-out group of the selected claim's origin call as a waterfall of issue and
//! return times, the differing answers side by side, which one was cited, and arrival order
//! against issue order.

use super::{clean, fit, Drawn};
use crate::check::Kind;
use crate::model::Call;
use crate::tui::action::{Hit, Pane};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let th = &app.theme;
    let (Some(l), Some(c)) = (app.current(), app.current_claim()) else {
        return;
    };
    let Some(cited) = c.call_id.as_deref().and_then(|id| l.session.call(id)) else {
        f.render_widget(
            Paragraph::new("This claim cites no recorded call: no fan-out to show.")
                .block(Block::default().borders(Borders::ALL).title(" Parallel ")),
            area,
        );
        return;
    };
    // The group `check` judged: the cited call and every call issued together with it.
    let fanout = l.report.fanout(c);
    let group: Vec<&Call> = match fanout {
        Some(g) => g
            .issue_order
            .iter()
            .filter_map(|id| l.session.call(id))
            .collect(),
        None => vec![cited],
    };
    let [top, bottom] = Layout::vertical([
        Constraint::Length(group.len().min(20) as u16 + 4),
        Constraint::Min(3),
    ])
    .areas(area);
    let title = match (&cited.fanout, fanout) {
        (Some(g), _) => format!(" Fan-out {} · turn {} ", clean(g), cited.turn),
        (None, Some(_)) => format!(
            " Calls overlapping `{}` in time · turn {} (no fan-out id recorded) ",
            clean(&cited.id),
            cited.turn
        ),
        (None, None) => format!(
            " `{}` was issued alone · turn {} ",
            clean(&cited.id),
            cited.turn
        ),
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(top);
    f.render_widget(block, top);
    let t0 = group
        .iter()
        .map(|x| x.issued_at)
        .min()
        .map_or(0, |t| t.millis());
    let ret = |x: &Call| {
        l.session
            .result(&x.id)
            .map_or(x.issued_at, |r| r.tag.returned_at)
            .millis()
    };
    // Clock skew happens: a call may be issued after its siblings returned, or "return" before it
    // was issued. The axis covers every instant, and each bar is at least one cell.
    let t1 = group
        .iter()
        .map(|x| ret(x).max(x.issued_at.millis()))
        .max()
        .unwrap_or(t0)
        .max(t0 + 1);
    let label_w = (usize::from(inner.width) * 2 / 5).clamp(34, 70);
    let bar_w = usize::from(inner.width)
        .saturating_sub(label_w + 22)
        .max(10);
    let mut rows = Vec::new();
    for x in &group {
        let (s, e) = (x.issued_at.millis() - t0, ret(x) - t0);
        let scale = |v: i64| ((v as f64 / (t1 - t0) as f64 * bar_w as f64) as usize).min(bar_w);
        let a = scale(s).min(bar_w - 1);
        let b = scale(e.max(s)).clamp(a + 1, bar_w);
        let bar = format!(
            "{}{}{}",
            " ".repeat(a),
            "█".repeat(b - a),
            " ".repeat(bar_w.saturating_sub(b))
        );
        let label = format!(
            "{} {}/{} {}",
            clean(&x.id),
            clean(&x.server),
            clean(x.tool()),
            l.report.tier(&x.server).tier.label()
        );
        let cited_mark = if x.id == cited.id { "◀ cited" } else { "" };
        let style = if x.id == cited.id {
            th.accent()
        } else {
            ratatui::style::Style::default()
        };
        rows.push(
            Row::new(vec![
                Cell::from(fit(&label, label_w)),
                Cell::from(bar),
                Cell::from(format!("{:>4}-{:<5} {cited_mark}", s, e)),
            ])
            .style(style),
        );
    }
    f.render_widget(
        Table::new(
            rows,
            [
                Constraint::Length(label_w as u16),
                Constraint::Length(bar_w as u16),
                Constraint::Fill(1),
            ],
        )
        .header(
            Row::new(vec!["CALL (server/tool, tier)", "issued ▕ returned", "ms"])
                .style(th.dimmed()),
        ),
        inner,
    );

    let block = Block::default().borders(Borders::ALL).title(" Answers ");
    let inner = block.inner(bottom);
    f.render_widget(block, bottom);
    d.add(inner, Hit::Pane(Pane::Body));
    let issue: Vec<String> = fanout.map_or_else(
        || vec![clean(&cited.id)],
        |g| g.issue_order.iter().map(|x| clean(x)).collect(),
    );
    let arrival: Vec<String> = fanout.map_or_else(
        || vec![clean(&cited.id)],
        |g| g.arrival_order.iter().map(|x| clean(x)).collect(),
    );
    let mut lines = vec![
        Line::raw(format!("issue order:   {}", issue.join(" → "))),
        Line::raw(format!("arrival order: {}", arrival.join(" → "))),
        Line::raw(""),
    ];
    let conflicts: Vec<_> = l
        .findings(app.sel_claim)
        .filter(|f| f.kind == Kind::ParallelConflict)
        .collect();
    if conflicts.is_empty() {
        lines.push(Line::styled(
            "no parallel conflict found for this claim",
            th.clean(),
        ));
    }
    for fnd in conflicts {
        let crate::check::Evidence::ParallelConflict(e) = &fnd.evidence else {
            continue;
        };
        let side = |v: &crate::check::evidence::ConflictSide| {
            format!(
                "{} {} [{}]: {}",
                clean(&v.call_id),
                clean(&v.server),
                v.tier,
                clean(&v.value)
            )
        };
        lines.push(Line::styled(clean(&fnd.message), th.severity(fnd.severity)));
        lines.push(Line::from(vec![
            Span::styled("cited  ", th.accent()),
            Span::raw(side(&e.cited)),
        ]));
        lines.push(Line::from(vec![
            Span::styled("other  ", th.dimmed()),
            Span::raw(side(&e.other)),
        ]));
        lines.push(Line::raw(format!(
            "conflict surfaced in the answer: {}",
            if e.surfaced { "yes" } else { "no" }
        )));
    }
    let lines = super::wrap(lines, usize::from(inner.width));
    super::scrolled(f, bottom, inner, lines, app.scroll.get(Pane::Body), app);
}
