//! Session: the turn timeline on the left (user message, calls with server/tool/tier, results,
//! envelope status), the selected turn's claims with badges, tier and quadrant on the right.

use super::{clean, fit, window};
use crate::check::{EnvelopeStatus, Severity};
use crate::model::Tier;
use crate::tui::app::{App, Loaded};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

struct Areas {
    turns: Rect,
    detail: Rect,
    claims: Rect,
    answer: Rect,
}

fn areas(area: Rect) -> Areas {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(area);
    let [turns, detail] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(left);
    let [claims, answer] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(right);
    Areas {
        turns,
        detail,
        claims,
        answer,
    }
}

/// The envelope badge of a call: `✓` verified, `✗` failed or missing, `–` none.
fn envelope_badge(l: &Loaded, call_id: &str) -> &'static str {
    match l.report.envelope(call_id) {
        EnvelopeStatus::Verified => "env ✓",
        EnvelopeStatus::Partial => "env ~",
        EnvelopeStatus::Failed | EnvelopeStatus::Missing => "env ✗",
        EnvelopeStatus::None => "env –",
    }
}

fn pane<'a>(title: String, focused: bool, app: &App) -> Block<'a> {
    let b = Block::default().borders(Borders::ALL).title(title);
    if focused {
        b.border_style(app.theme.accent())
    } else {
        b
    }
}

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let Some(l) = app.current() else { return };
    let th = &app.theme;
    let a = areas(area);

    // Turns.
    let block = pane(
        format!(" Turns ({}) ", l.session.turns.len()),
        !app.focus_claims,
        app,
    );
    let inner = block.inner(a.turns);
    f.render_widget(block, a.turns);
    let h = usize::from(inner.height);
    let w = usize::from(inner.width);
    let start = window(app.sel_turn, l.session.turns.len(), h);
    let mut lines = Vec::with_capacity(h);
    for (i, t) in l.session.turns.iter().enumerate().skip(start).take(h) {
        let r = l.turn_claims.get(i).cloned().unwrap_or(0..0);
        let worst = r.clone().filter_map(|c| l.claim_worst(c)).min();
        let calls = l.session.calls_in_turn(t.index).count();
        let mark = match worst {
            Some(s) => Span::styled(
                if s == Severity::Error { "✖ " } else { "▲ " },
                th.severity(s),
            ),
            None => Span::raw("  "),
        };
        let text = format!(
            "T{:<3} {} ({} calls, {} claims)",
            t.index,
            clean(&t.user),
            calls,
            r.len()
        );
        let mut line = Line::from(vec![mark, Span::raw(fit(&text, w.saturating_sub(2)))]);
        if i == app.sel_turn {
            line = line.style(th.selected());
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);

    // Detail of the selected turn: calls and results.
    let turn = l.session.turns.get(app.sel_turn);
    let block = Block::default().borders(Borders::ALL).title(" Calls ");
    let inner = block.inner(a.detail);
    f.render_widget(block, a.detail);
    let mut lines = Vec::new();
    if let Some(t) = turn {
        lines.push(Line::from(vec![
            Span::styled("user: ", th.dimmed()),
            Span::raw(fit(
                &clean(&t.user),
                usize::from(inner.width).saturating_sub(6),
            )),
        ]));
        for c in l
            .session
            .calls
            .iter()
            .filter(|c| c.turn == t.index)
            .take(usize::from(inner.height))
        {
            let tier = l.report.tier(&c.server).tier;
            let result = match l.session.result(&c.id) {
                Some(r) if r.is_error() => "error".to_owned(),
                Some(r) => format!("{} block(s)", r.block_count()),
                None => "no result".to_owned(),
            };
            let fan = c
                .fanout
                .as_deref()
                .map(|g| format!(" ⑂{}", clean(g)))
                .unwrap_or_default();
            // A call that ran another agent: `a` opens its session.
            let fan = match &c.sub_session {
                Some(_) => format!("{fan} · ↳ agent (a)"),
                None => fan,
            };
            let text = format!(
                "→ {} {}/{} [{}] {} · {}{}",
                clean(&c.id),
                clean(&c.server),
                clean(c.tool()),
                tier.label(),
                result,
                envelope_badge(l, &c.id),
                fan
            );
            let style = if matches!(tier, Tier::T2 | Tier::T3 | Tier::Unknown) {
                th.severity(Severity::Warning)
            } else {
                Style::default()
            };
            lines.push(Line::styled(fit(&text, usize::from(inner.width)), style));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);

    // Claims of the selected turn.
    let r = l.turn_claims.get(app.sel_turn).cloned().unwrap_or(0..0);
    let block = pane(format!(" Claims ({}) ", r.len()), app.focus_claims, app);
    let inner = block.inner(a.claims);
    f.render_widget(block, a.claims);
    let h = usize::from(inner.height);
    let w = usize::from(inner.width);
    let sel = app.sel_claim.saturating_sub(r.start);
    let start = window(sel, r.len(), h / 2);
    let mut lines = Vec::new();
    for i in r.clone().skip(start).take(h.div_ceil(2)) {
        let c = &l.report.claims[i];
        let tier = c.tier.map_or("--", |t| t.tier.label());
        let quad = th.quadrant(c.quadrant);
        let worst = l.claim_worst(i);
        let head_style = worst.map_or(th.clean(), |s| th.severity(s));
        let mut head = Line::from(vec![
            Span::styled(
                format!("{} ", if worst.is_some() { "●" } else { "○" }),
                head_style,
            ),
            Span::raw(fit(&clean(&c.claim_text), w.saturating_sub(12))),
            Span::styled(format!("  {tier} {quad}"), th.dimmed()),
        ]);
        if i == app.sel_claim && app.focus_claims {
            head = head.style(th.selected());
        }
        lines.push(head);
        let mut badges = vec![Span::raw("   ")];
        let mut seen = Vec::new();
        for fnd in l.findings(i) {
            if !seen.contains(&fnd.kind) {
                seen.push(fnd.kind);
                badges.push(Span::styled(th.badge(fnd.kind), th.severity(fnd.severity)));
                badges.push(Span::raw(" "));
            }
        }
        if seen.is_empty() {
            badges.push(Span::styled("no findings", th.clean()));
        }
        lines.push(Line::from(badges));
    }
    f.render_widget(Paragraph::new(lines), inner);

    // The answer.
    let block = Block::default().borders(Borders::ALL).title(" Answer ");
    let inner = block.inner(a.answer);
    f.render_widget(block, a.answer);
    let text = turn
        .and_then(|t| l.session.answer(t.index))
        .map(|x| crate::text::sanitize(&x.text, true).into_owned())
        .unwrap_or_else(|| "(no answer recorded)".into());
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
}

pub(super) fn hit(app: &App, area: Rect, col: u16, row: u16) -> Option<super::Hit> {
    let l = app.current()?;
    let a = areas(area);
    let inside = |r: Rect| {
        col > r.x
            && col < r.right().saturating_sub(1)
            && row > r.y
            && row < r.bottom().saturating_sub(1)
    };
    if inside(a.turns) {
        let h = usize::from(a.turns.height.saturating_sub(2));
        let start = window(app.sel_turn, l.session.turns.len(), h);
        let i = start + usize::from(row - a.turns.y - 1);
        return (i < l.session.turns.len()).then_some(super::Hit::Turn(i));
    }
    if inside(a.claims) {
        let r = l.turn_claims.get(app.sel_turn).cloned().unwrap_or(0..0);
        let h = usize::from(a.claims.height.saturating_sub(2));
        let start = window(app.sel_claim.saturating_sub(r.start), r.len(), h / 2);
        let i = r.start + start + usize::from(row - a.claims.y - 1) / 2;
        return (i < r.end).then_some(super::Hit::Claim(i));
    }
    None
}
