//! Parallel: the fan-out group of the selected claim's origin call as a waterfall of issue and
//! return times, the differing answers side by side, which one was cited, and arrival order
//! against issue order.

use super::session::tier_of;
use super::{clean, fit};
use crate::check::Kind;
use crate::model::Call;
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
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
    // The group as recorded: the same fan-out id, or else the calls of the same turn.
    let group: Vec<&Call> = l
        .session
        .calls_in_turn(cited.turn)
        .filter(|x| cited.fanout.is_none() || x.fanout == cited.fanout)
        .collect();
    let [top, bottom] = Layout::vertical([
        Constraint::Length(group.len().min(20) as u16 + 4),
        Constraint::Min(3),
    ])
    .areas(area);
    let title = match &cited.fanout {
        Some(g) => format!(" Fan-out {} · turn {} ", clean(g), cited.turn),
        None => format!(" Calls of turn {} (no fan-out group recorded) ", cited.turn),
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
    let t1 = group.iter().map(|x| ret(x)).max().unwrap_or(t0).max(t0 + 1);
    let label_w = (usize::from(inner.width) * 2 / 5).clamp(34, 70);
    let bar_w = usize::from(inner.width)
        .saturating_sub(label_w + 22)
        .max(10);
    let mut lines = vec![Line::styled(
        format!(
            "{:<label_w$} {:<bar_w$} {}",
            "CALL (server/tool, tier)", "issued ▕ returned", "ms"
        ),
        th.dimmed(),
    )];
    let mut by_arrival: Vec<&Call> = group.clone();
    by_arrival.sort_by_key(|x| ret(x));
    for x in &group {
        let (s, e) = (x.issued_at.millis() - t0, ret(x) - t0);
        let scale = |v: i64| (v as f64 / (t1 - t0) as f64 * bar_w as f64) as usize;
        let (a, b) = (
            scale(s).min(bar_w),
            scale(e).clamp(scale(s) + 1, bar_w.max(1)),
        );
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
            tier_of(l, &x.server).label()
        );
        let cited_mark = if x.id == cited.id { "◀ cited" } else { "" };
        let style = if x.id == cited.id {
            th.accent()
        } else {
            ratatui::style::Style::default()
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:<label_w$} ", fit(&label, label_w)), style),
            Span::styled(bar, style),
            Span::raw(format!(" {:>4}-{:<5} {cited_mark}", s, e)),
        ]));
    }
    f.render_widget(Paragraph::new(lines), inner);

    let block = Block::default().borders(Borders::ALL).title(" Answers ");
    let inner = block.inner(bottom);
    f.render_widget(block, bottom);
    let issue: Vec<String> = group.iter().map(|x| clean(&x.id)).collect();
    let arrival: Vec<String> = by_arrival.iter().map(|x| clean(&x.id)).collect();
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
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
