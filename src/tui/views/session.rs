//! Session: the turn timeline (damaged turns marked), the selected turn's calls (focusable: any
//! call opens beside the claim), its claims with badges, tier and quadrant, and the full
//! question and answer (wrapped, scrollable). A banner names the log's problems.

use super::{clean, fit, pane, scrolled, window, wrap, Drawn};
use crate::check::{EnvelopeStatus, Severity};
use crate::model::Tier;
use crate::tui::action::{Hit, Pane};
use crate::tui::app::{App, Focus, Loaded};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};
use ratatui::Frame;

/// The session view's panes.
pub struct Areas {
    /// Diagnostics banner (zero height when the log is whole).
    pub banner: Rect,
    /// Turns.
    pub turns: Rect,
    /// Calls of the turn.
    pub calls: Rect,
    /// Claims of the turn.
    pub claims: Rect,
    /// Question and answer.
    pub answer: Rect,
}

/// Lays out the session view in `area`.
pub fn areas(app: &App, area: Rect) -> Areas {
    let banner_h = app
        .current()
        .map_or(0, |l| banner_lines(l).len().min(4) as u16);
    let [banner, rest] = Layout::vertical([
        Constraint::Length(if banner_h > 0 { banner_h } else { 0 }),
        Constraint::Min(3),
    ])
    .areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(rest);
    let [turns, calls] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(left);
    let [claims, answer] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(right);
    Areas {
        banner,
        turns,
        calls,
        claims,
        answer,
    }
}

/// The banner of a damaged log: what is wrong, first problems first.
pub fn banner_lines(l: &Loaded) -> Vec<String> {
    let errors: Vec<_> = l.errors().collect();
    if errors.is_empty() {
        return Vec::new();
    }
    let head = if l.unknown_format() {
        format!(
            "⚠ {} is not a session log or any trace format provscope reads: nothing was loaded from it",
            clean(&l.session.source)
        )
    } else {
        format!(
            "⚠ {} line(s) of this log could not be read; turns marked ⚠ are incomplete. The rest is shown.",
            errors.len()
        )
    };
    let mut out = vec![head];
    for e in errors.iter().take(3) {
        out.push(format!("  {}", clean(&e.to_string())));
    }
    out
}

/// The envelope badge of a call.
fn envelope_badge(l: &Loaded, call_id: &str) -> &'static str {
    match l.report.envelope(call_id) {
        EnvelopeStatus::Verified => "env ✓",
        EnvelopeStatus::Partial => "env ~",
        EnvelopeStatus::Failed | EnvelopeStatus::Missing => "env ✗",
        EnvelopeStatus::None => "env –",
    }
}

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let Some(l) = app.current() else { return };
    let th = &app.theme;
    let a = areas(app, area);
    let banner = banner_lines(l);
    if !banner.is_empty() {
        let lines: Vec<Line> = banner
            .iter()
            .map(|b| {
                Line::styled(
                    fit(b, usize::from(a.banner.width)),
                    th.severity(Severity::Error),
                )
            })
            .collect();
        f.render_widget(Paragraph::new(lines), a.banner);
    }

    // Turns.
    // A large log opened in steps: the turns checked so far.
    let growing = app
        .cur
        .is_some_and(|c| app.growing.iter().any(|g| g.index == c));
    let block = pane(
        format!(
            " Turns ({}{}) ",
            l.session.turns.len(),
            if growing { " so far, more loading" } else { "" }
        ),
        app.focus == Focus::Turns,
        app,
    );
    let inner = block.inner(a.turns);
    f.render_widget(block, a.turns);
    d.add(inner, Hit::Pane(Pane::Turns));
    let h = usize::from(inner.height);
    let w = usize::from(inner.width);
    let n = l.session.turns.len();
    let start = window(app.sel_turn, n, h);
    let mut rows = Vec::with_capacity(h);
    for (k, (i, t)) in l
        .session
        .turns
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .enumerate()
    {
        let r = l.turn_claims.get(i).cloned().unwrap_or(0..0);
        let worst = r.clone().filter_map(|c| l.claim_worst(c)).min();
        let calls = l.session.calls_in_turn(t.index).count();
        let damaged = l.damaged_turns.contains(&i);
        let mark = if damaged {
            Span::styled("⚠ ", th.severity(Severity::Error))
        } else {
            match worst {
                Some(s) => Span::styled(
                    if s == Severity::Error { "✖ " } else { "▲ " },
                    th.severity(s),
                ),
                None => Span::raw("  "),
            }
        };
        let text = format!(
            "T{:<3} {} ({} calls, {} claims)",
            t.index,
            clean(&t.user),
            calls,
            r.len()
        );
        rows.push(Row::new(vec![Cell::from(Line::from(vec![
            mark,
            Span::raw(fit(&text, w.saturating_sub(2))),
        ]))]));
        d.add(
            Rect::new(inner.x, inner.y + k as u16, inner.width, 1),
            Hit::Turn(i),
        );
    }
    let mut state =
        TableState::default().with_selected((n > 0).then(|| app.sel_turn.saturating_sub(start)));
    f.render_stateful_widget(
        Table::new(rows, [Constraint::Fill(1)]).row_highlight_style(th.selected()),
        inner,
        &mut state,
    );

    render_calls(f, a.calls, app, l, d);
    render_claims(f, a.claims, app, l, d);
    render_answer(f, a.answer, app, l, d);
}

fn render_calls(f: &mut Frame, area: Rect, app: &App, l: &Loaded, d: &mut Drawn) {
    let th = &app.theme;
    let turn = l.session.turns.get(app.sel_turn);
    let calls: Vec<_> = turn
        .map(|t| l.session.calls_in_turn(t.index).collect())
        .unwrap_or_default();
    let block = pane(
        format!(" Calls ({}) ", calls.len()),
        app.focus == Focus::Calls,
        app,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    d.add(inner, Hit::Pane(Pane::Calls));
    let h = usize::from(inner.height);
    let w = usize::from(inner.width);
    let start = window(app.sel_call, calls.len(), h);
    let mut rows = Vec::new();
    for (k, c) in calls.iter().enumerate().skip(start).take(h) {
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
        rows.push(Row::new(vec![Cell::from(fit(&text, w))]).style(style));
        d.add(
            Rect::new(inner.x, inner.y + (k - start) as u16, inner.width, 1),
            Hit::Call(k),
        );
    }
    if calls.is_empty() {
        f.render_widget(
            Paragraph::new("no calls in this turn").style(th.dimmed()),
            inner,
        );
    }
    let sel = (app.focus == Focus::Calls && !calls.is_empty())
        .then(|| app.sel_call.saturating_sub(start));
    let mut state = TableState::default().with_selected(sel);
    f.render_stateful_widget(
        Table::new(rows, [Constraint::Fill(1)]).row_highlight_style(th.selected()),
        inner,
        &mut state,
    );
}

fn render_claims(f: &mut Frame, area: Rect, app: &App, l: &Loaded, d: &mut Drawn) {
    let th = &app.theme;
    let r = l.turn_claims.get(app.sel_turn).cloned().unwrap_or(0..0);
    let pos = app.sel_claim.saturating_sub(r.start);
    let title = if r.is_empty() {
        " Claims (0) ".to_owned()
    } else {
        format!(" Claims · {} of {} ", (pos + 1).min(r.len()), r.len())
    };
    let block = pane(title, app.focus == Focus::Claims, app);
    let inner = block.inner(area);
    f.render_widget(block, area);
    d.add(inner, Hit::Pane(Pane::Claims));
    let h = usize::from(inner.height) / 2;
    let w = usize::from(inner.width);
    let start = window(pos, r.len(), h.max(1));
    let mut rows = Vec::new();
    for (k, i) in r.clone().skip(start).take(h.max(1)).enumerate() {
        let c = &l.report.claims[i];
        let tier = c.tier.map_or("--", |t| t.tier.label());
        let quad = th.quadrant(
            app.cur
                .and_then(|s| app.quadrant_of(s, i))
                .map(|q| q.quadrant),
        );
        let worst = l.claim_worst(i);
        let head_style = worst.map_or(th.clean(), |s| th.severity(s));
        let tail = format!("  {tier} {quad}");
        let head = Line::from(vec![
            Span::styled(
                format!("{} ", if worst.is_some() { "●" } else { "○" }),
                head_style,
            ),
            Span::raw(fit(
                &clean(&c.claim_text),
                w.saturating_sub(2 + super::width(&tail)),
            )),
            Span::styled(tail, th.dimmed()),
        ]);
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
        rows.push(Row::new(vec![Cell::from(vec![head, Line::from(badges)])]).height(2));
        d.add(
            Rect::new(inner.x, inner.y + 2 * k as u16, inner.width, 2),
            Hit::Claim(i),
        );
    }
    let sel = (app.focus == Focus::Claims && !r.is_empty()).then(|| pos.saturating_sub(start));
    let mut state = TableState::default().with_selected(sel);
    f.render_stateful_widget(
        Table::new(rows, [Constraint::Fill(1)]).row_highlight_style(th.selected()),
        inner,
        &mut state,
    );
}

/// The lines of the question-and-answer pane (title, the full question, the answer), wrapped.
pub fn answer_lines(app: &App, l: &Loaded, w: usize) -> Vec<Line<'static>> {
    let th = &app.theme;
    let mut lines = Vec::new();
    if let Some(t) = l.session.header.as_ref().and_then(|h| h.title.as_deref()) {
        lines.push(Line::from(vec![
            Span::styled("title: ", th.dimmed()),
            Span::styled(clean(t), th.accent()),
        ]));
    }
    if let Some(t) = l.session.turns.get(app.sel_turn) {
        lines.push(Line::styled(format!("T{} user:", t.index), th.dimmed()));
        for part in crate::text::sanitize(&t.user, true).split('\n') {
            lines.push(Line::raw(part.to_owned()));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled("answer:", th.dimmed()));
        match l.session.answer(t.index) {
            Some(a) => {
                for part in crate::text::sanitize(&a.text, true).split('\n') {
                    lines.push(Line::raw(part.to_owned()));
                }
            }
            None => lines.push(Line::styled("(no answer recorded)", th.dimmed())),
        }
    }
    wrap(lines, w)
}

fn render_answer(f: &mut Frame, area: Rect, app: &App, l: &Loaded, d: &mut Drawn) {
    let block = pane(
        " Question and answer ".into(),
        app.focus == Focus::Answer,
        app,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    d.add(inner, Hit::Pane(Pane::Answer));
    let lines = answer_lines(app, l, usize::from(inner.width));
    scrolled(f, area, inner, lines, app.scroll.get(Pane::Answer), app);
}
