//! The diff views: the session pairs of two runs, two sessions side by side (A left, B right,
//! turns and claims aligned as the diff model paired them, an unpaired claim against a blank,
//! changed fields marked in the gutter and coloured by direction: `!` worse, `+` better, `~`
//! changed), and one claim (or result) of both sessions beside its source. Every value from a
//! log is sanitized ([`clean`]) before it is drawn.

use super::{clean, fit, pane, scrolled, wrap, Drawn};
use crate::check::ClaimVerdict;
use crate::diff::{ClaimChange, Direction, Presence, SessionDiff, TurnDiff};
use crate::tui::action::{Hit, Pane};
use crate::tui::app::{App, Loaded};
use crate::tui::diff::{self as state, DiffRow, DiffState, OpenPair, Part, Side};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

/// The style of a change in a direction (bold and underlined without colour).
fn dir_style(app: &App, d: Direction) -> Style {
    let th = &app.theme;
    let s = match d {
        Direction::Worse => th.severity(crate::check::Severity::Error),
        Direction::Better => th.clean(),
        Direction::Neutral => th.severity(crate::check::Severity::Warning),
    };
    if th.color {
        s
    } else {
        s.add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
}

/// The gutter mark of a field: `!` worse, `+` better, `~` changed, blank unchanged.
fn mark(d: Option<Direction>) -> &'static str {
    match d {
        Some(Direction::Worse) => "! ",
        Some(Direction::Better) => "+ ",
        Some(Direction::Neutral) => "~ ",
        None => "  ",
    }
}

/// A label for a whole row's change.
fn label(d: Direction) -> &'static str {
    match d {
        Direction::Worse => "WORSE",
        Direction::Better => "BETTER",
        Direction::Neutral => "CHANGED",
    }
}

/// One gutter-marked line cut to `w` columns, styled by its change.
fn field(app: &App, d: Option<Direction>, text: String, w: usize) -> Line<'static> {
    let style = d.map_or(Style::default(), |d| dir_style(app, d));
    Line::from(vec![
        Span::styled(mark(d), style),
        Span::styled(fit(&text, w.saturating_sub(2)), style),
    ])
}

/// Which fields of a paired claim changed, each with its direction:
/// (text, origin, span, verdict line).
#[derive(Default)]
struct Fields {
    text: Option<Direction>,
    origin: Option<Direction>,
    span: Option<Direction>,
    verdict: Option<Direction>,
}

fn worst(a: Option<Direction>, b: Direction) -> Option<Direction> {
    Some(a.map_or(b, |a| a.max(b)))
}

fn fields(changes: &[ClaimChange]) -> Fields {
    let mut f = Fields::default();
    for c in changes {
        let d = c.direction();
        match c {
            ClaimChange::Text { .. } => f.text = worst(f.text, d),
            ClaimChange::Origin { .. } => f.origin = worst(f.origin, d),
            ClaimChange::Span { .. } => f.span = worst(f.span, d),
            ClaimChange::Support { .. }
            | ClaimChange::FindingAdded { .. }
            | ClaimChange::FindingResolved { .. }
            | ClaimChange::Verdict { .. } => f.verdict = worst(f.verdict, d),
        }
    }
    f
}

/// The four lines of one side of a claim row.
fn claim_side(
    app: &App,
    l: &Loaded,
    i: usize,
    head: Option<(&'static str, Direction)>,
    f: &Fields,
    w: usize,
) -> Vec<Line<'static>> {
    let th = &app.theme;
    let Some(v) = l.claim(i) else {
        return vec![Line::raw("")];
    };
    let mut first = vec![Span::styled(
        mark(f.text),
        f.text.map_or(Style::default(), |d| dir_style(app, d)),
    )];
    let mut used = 2;
    if let Some((lab, d)) = head {
        first.push(Span::styled(format!("{lab} "), dir_style(app, d)));
        used += lab.len() + 1;
    }
    let id = clean(&v.claim_id);
    first.push(Span::styled(format!("{id} "), th.dimmed()));
    used += super::width(&id) + 1;
    first.push(Span::raw(fit(
        &format!("\"{}\"", clean(&v.claim_text)),
        w.saturating_sub(used),
    )));
    let origin = match l.claim_at(i).and_then(|c| c.stamp.origin.as_ref()) {
        Some(o) => format!(
            "{} {} · {} · {}",
            clean(&o.server),
            v.tier.map_or("", |t| t.tier.label()),
            clean(&o.tool),
            clean(&o.tool_call_id)
        ),
        None => "no origin (unsourced)".into(),
    };
    let span = match v.cited_text(&l.session) {
        Some(t) => format!("cites \"{}\"", clean(t)),
        None => "cites nothing that resolves".into(),
    };
    let badges: Vec<String> = l.findings(i).map(|x| th.badge(x.kind)).collect();
    let verdict = format!(
        "{} · source {} · fact {} · support {}{}",
        th.quadrant(v.quadrant),
        v.source_verdict.name(),
        v.fact_verdict.name(),
        v.support.map_or("n/a".into(), |s| format!("{s:.2}")),
        if badges.is_empty() {
            String::new()
        } else {
            format!(" · {}", badges.join(" "))
        }
    );
    vec![
        Line::from(first),
        field(app, f.origin, origin, w),
        field(app, f.span, span, w),
        field(app, f.verdict, verdict, w),
    ]
}

/// A side with nothing to show against the other.
fn blank(app: &App, what: &str) -> Vec<Line<'static>> {
    vec![Line::styled(format!("  — {what}"), app.theme.dimmed())]
}

/// The session of a side of the open pair.
fn side_loaded<'a>(ds: &'a DiffState, op: &OpenPair, side: Side) -> Option<&'a Loaded> {
    ds.loaded(op.session, side).map(|a| a.as_ref())
}

fn turn_text(app: &App, l: Option<&Loaded>, n: Option<u32>) -> Option<String> {
    let _ = app;
    let n = n?;
    let q = l?
        .session
        .turns
        .iter()
        .find(|t| t.index == n)
        .map_or(String::new(), |t| clean(&t.user));
    Some(format!("turn {n} · \"{q}\""))
}

fn hunk_side(app: &App, h: &crate::diff::words::Hunk, side: Side, w: usize) -> Line<'static> {
    let th = &app.theme;
    let (changed, d, open, close) = match side {
        Side::A => (&h.removed, Direction::Worse, "[-", "-]"),
        Side::B => (&h.added, Direction::Better, "{+", "+}"),
    };
    let mut spans = vec![Span::raw("  ")];
    let before = format!("… {} ", clean(&h.before));
    // The context before goes first when the changed words would not fit with it.
    let room = w.saturating_sub(2 + super::width(&before));
    if !h.before.is_empty() && super::width(&clean(changed)) + 4 <= room {
        spans.push(Span::styled(before, th.dimmed()));
    }
    if !changed.is_empty() {
        spans.push(Span::styled(
            format!("{open}{}{close}", clean(changed)),
            dir_style(app, d),
        ));
    }
    if !h.after.is_empty() {
        spans.push(Span::styled(format!(" {} …", clean(&h.after)), th.dimmed()));
    }
    // Cut to the pane.
    let line = Line::from(spans);
    let mut out = wrap(vec![line], w.max(1));
    out.truncate(1);
    out.pop().unwrap_or_default()
}

/// At most this many changed stretches of a result are shown in a row.
const MAX_HUNKS: usize = 6;

/// The lines of a row on each side (of equal length), at `w` columns per side.
fn row_lines(
    app: &App,
    ds: &DiffState,
    d: &SessionDiff,
    op: &OpenPair,
    row: DiffRow,
    w: usize,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let th = &app.theme;
    let la = side_loaded(ds, op, Side::A);
    let lb = side_loaded(ds, op, Side::B);
    let (mut a, mut b) = match row {
        DiffRow::Turn(ti) => {
            let Some(t) = d.aligned.get(ti) else {
                return (vec![], vec![]);
            };
            let td: Option<&TurnDiff> = t.diff.and_then(|x| d.turns.get(x));
            let moved = td.is_some_and(|t| t.moved || t.question_a.is_some());
            let style = th.accent();
            let side = |l: Option<&Loaded>, n: Option<u32>, lab: &str| match turn_text(app, l, n) {
                Some(s) => {
                    let m = if moved {
                        Some(Direction::Neutral)
                    } else {
                        None
                    };
                    let mut line = field(app, m, format!("{lab}{s}"), w);
                    line.style = style;
                    vec![line]
                }
                None => blank(app, "no such turn"),
            };
            let (la_lab, lb_lab) = match td {
                Some(t) if t.presence == Presence::Added => ("", "ADDED "),
                Some(t) if t.presence == Presence::Removed => ("REMOVED ", ""),
                Some(t) if t.moved => ("", "MOVED "),
                // Paired by turn number, asking something else.
                Some(t) if t.question_a.is_some() => ("", "CHANGED "),
                _ => ("", ""),
            };
            (side(la, t.a, la_lab), side(lb, t.b, lb_lab))
        }
        DiffRow::Claim(ti, k) => {
            let Some(c) = d.aligned.get(ti).and_then(|t| t.claims.get(k)) else {
                return (vec![], vec![]);
            };
            let cd = d
                .aligned
                .get(ti)
                .and_then(|t| d.turns.get(t.diff?))
                .and_then(|t| t.claims.get(c.diff?));
            let f = cd.map(|x| fields(&x.changes)).unwrap_or_default();
            let head = cd.map(|x| match x.presence {
                Presence::Added => ("ADDED", x.direction),
                Presence::Removed => ("REMOVED", Direction::Neutral),
                Presence::Paired => (label(x.direction), x.direction),
            });
            let (ha, hb) = match cd.map(|x| x.presence) {
                Some(Presence::Removed) => (head, None),
                _ => (None, head),
            };
            let a = match (la, c.a) {
                (Some(l), Some(i)) => claim_side(app, l, i, ha, &f, w),
                _ => blank(app, "not in A"),
            };
            let b = match (lb, c.b) {
                (Some(l), Some(i)) => claim_side(app, l, i, hb, &f, w),
                _ => blank(app, "not in B"),
            };
            (a, b)
        }
        DiffRow::CallRemoved(t, k) => {
            let c = d.turns.get(t).and_then(|t| t.calls_removed.get(k));
            let text = c.map_or(String::new(), |c| {
                format!(
                    "call removed: {} · {} · {}",
                    clean(&c.server),
                    clean(&c.tool),
                    clean(&c.call_id)
                )
            });
            (
                vec![field(app, Some(Direction::Neutral), text, w)],
                blank(app, "not in B"),
            )
        }
        DiffRow::CallAdded(t, k) => {
            let c = d.turns.get(t).and_then(|t| t.calls_added.get(k));
            let text = c.map_or(String::new(), |c| {
                format!(
                    "call added: {} · {} · {}",
                    clean(&c.server),
                    clean(&c.tool),
                    clean(&c.call_id)
                )
            });
            (
                blank(app, "not in A"),
                vec![field(app, Some(Direction::Neutral), text, w)],
            )
        }
        DiffRow::Result(t, k) => {
            let Some(r) = d.turns.get(t).and_then(|t| t.results_changed.get(k)) else {
                return (vec![], vec![]);
            };
            let head = |call: &str, recorded: bool, error: bool, words: String| {
                let mut s = format!(
                    "result {} · {} · {}",
                    clean(&r.server),
                    clean(&r.tool),
                    clean(call)
                );
                if !recorded {
                    s.push_str(" · not recorded");
                } else if error {
                    s.push_str(" · error");
                }
                s.push_str(&words);
                field(app, Some(Direction::Neutral), s, w)
            };
            let mut a = vec![head(
                &r.call_a,
                r.recorded[0],
                r.error[0],
                format!(" · {} word(s) removed", r.words.words_removed),
            )];
            let mut b = vec![head(
                &r.call_b,
                r.recorded[1],
                r.error[1],
                format!(" · {} word(s) added", r.words.words_added),
            )];
            for h in r.words.hunks.iter().take(MAX_HUNKS) {
                a.push(hunk_side(app, h, Side::A, w));
                b.push(hunk_side(app, h, Side::B, w));
            }
            if r.words.hunks.len() > MAX_HUNKS {
                let more = format!("  … {} more change(s)", r.words.hunks.len() - MAX_HUNKS);
                a.push(Line::styled(more.clone(), th.dimmed()));
                b.push(Line::styled(more, th.dimmed()));
            }
            (a, b)
        }
        DiffRow::FindingResolved(t, k) | DiffRow::FindingAdded(t, k) => {
            let added = matches!(row, DiffRow::FindingAdded(..));
            let Some(fr) = state::finding(d, t, k, added) else {
                return (vec![], vec![]);
            };
            let text = format!(
                "finding {}: {} {} (line {}): {}",
                if added { "added" } else { "resolved" },
                fr.kind,
                fr.severity,
                fr.line,
                clean(&fr.message)
            );
            let line = vec![field(app, Some(fr.direction(added)), text, w)];
            if added {
                (blank(app, "not in A"), line)
            } else {
                (line, blank(app, "not in B"))
            }
        }
    };
    let n = a.len().max(b.len());
    a.resize(n, Line::raw(""));
    b.resize(n, Line::raw(""));
    (a, b)
}

/// Rows a row takes (without drawing it).
fn row_height(d: &SessionDiff, row: DiffRow) -> usize {
    match row {
        DiffRow::Claim(ti, k) => {
            let both_blank = d
                .aligned
                .get(ti)
                .and_then(|t| t.claims.get(k))
                .is_none_or(|c| c.a.is_none() && c.b.is_none());
            if both_blank {
                1
            } else {
                4
            }
        }
        DiffRow::Result(t, k) => d
            .turns
            .get(t)
            .and_then(|t| t.results_changed.get(k))
            .map_or(1, |r| {
                1 + r.words.hunks.len().min(MAX_HUNKS)
                    + usize::from(r.words.hunks.len() > MAX_HUNKS)
            }),
        _ => 1,
    }
}

/// The first row to draw so that the selected row is on screen (about a third of the way down
/// when the list is longer than the pane).
fn first_row(d: &SessionDiff, rows: &[DiffRow], selected: usize, h: usize) -> usize {
    let heights: Vec<usize> = rows.iter().map(|&r| row_height(d, r)).collect();
    let total: usize = heights.iter().sum();
    if total <= h {
        return 0;
    }
    let mut start = selected.min(rows.len().saturating_sub(1));
    let mut used = heights.get(start).copied().unwrap_or(1);
    while start > 0 && used + heights[start - 1] <= h / 3 {
        start -= 1;
        used += heights[start];
    }
    // Fill the pane when the end of the list is near.
    let below: usize = heights[start..].iter().sum();
    let mut room = h.saturating_sub(below);
    while start > 0 && heights[start - 1] <= room {
        start -= 1;
        room -= heights[start];
    }
    start
}

/// The summary above the side by side panes: sessions, direction and counts.
fn summary(app: &App, d: &SessionDiff) -> Vec<Line<'static>> {
    let c = &d.counts;
    let pairing = match d.paired_by {
        crate::diff::SessionPairing::SessionId => "session id",
        crate::diff::SessionPairing::FirstQuestion => "first question",
        crate::diff::SessionPairing::OnlyOne => "being the only one on each side",
    };
    let head = Line::from(vec![
        Span::styled("A ", app.theme.accent()),
        Span::raw(format!("{} ({})", clean(&d.a.name), clean(&d.a.file))),
        Span::styled("  B ", app.theme.accent()),
        Span::raw(format!(
            "{} ({}) · paired by {pairing}",
            clean(&d.b.name),
            clean(&d.b.file)
        )),
    ]);
    let verdict = if c.is_empty() {
        Span::styled("no changes", app.theme.clean())
    } else {
        Span::styled(
            match d.direction {
                Direction::Worse => "WORSE",
                Direction::Better => "BETTER",
                Direction::Neutral => "CHANGED, neither better nor worse",
            },
            dir_style(app, d.direction),
        )
    };
    let [claims, rest] = c.sentences();
    let claims = format!(" · {claims} · {rest}");
    vec![head, Line::from(vec![verdict, Span::raw(claims)])]
}

/// The summary and the two panes of the side by side view.
fn areas(app: &App, area: Rect, d: &SessionDiff) -> (Rect, Rect, Rect, Vec<Line<'static>>) {
    let lines = wrap(summary(app, d), usize::from(area.width).max(1));
    let h = (lines.len() as u16).min(4).min(area.height / 3);
    let [top, body] = Layout::vertical([Constraint::Length(h), Constraint::Min(3)]).areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
    (top, left, right, lines)
}

/// The side by side view.
pub(super) fn render(f: &mut Frame, area: Rect, app: &App, dr: &mut Drawn) {
    let Some((ds, d, op)) = state::open_pair(app) else {
        f.render_widget(Paragraph::new("no diff open"), area);
        return;
    };
    let th = &app.theme;
    let (top, left, right, lines) = areas(app, area, d);
    f.render_widget(Paragraph::new(lines), top);
    let changes = op
        .rows
        .iter()
        .filter(|&&r| state::change(d, r).is_some())
        .count();
    let title_a = format!(" A · {} ", clean(&d.a.name));
    let title_b = format!(
        " B · {} · row {} of {} · {} change(s) ",
        clean(&d.b.name),
        (op.selected + 1).min(op.rows.len()),
        op.rows.len(),
        changes
    );
    let ba = pane(title_a, op.side == Side::A, app);
    let bb = pane(title_b, op.side == Side::B, app);
    let (ia, ib) = (ba.inner(left), bb.inner(right));
    f.render_widget(ba, left);
    f.render_widget(bb, right);
    dr.add(ia, Hit::Pane(Pane::Body));
    dr.add(ib, Hit::Pane(Pane::Body));
    let h = usize::from(ia.height);
    let w = usize::from(ia.width.min(ib.width));
    let start = first_row(d, &op.rows, op.selected, h);
    let (mut la, mut lb) = (Vec::new(), Vec::new());
    for (k, &row) in op.rows.iter().enumerate().skip(start) {
        if la.len() >= h {
            break;
        }
        let (mut a, mut b) = row_lines(app, ds, d, op, row, w);
        if k == op.selected {
            for l in a.iter_mut().chain(b.iter_mut()) {
                l.style = l.style.patch(th.selected());
            }
        }
        let y = la.len();
        let rows = (a.len().min(h - y)) as u16;
        for r in [ia, ib] {
            dr.add(
                Rect::new(r.x, r.y + y as u16, r.width, rows),
                Hit::DiffRow(k),
            );
        }
        la.append(&mut a);
        lb.append(&mut b);
    }
    la.truncate(h);
    lb.truncate(h);
    f.render_widget(Paragraph::new(la), ia);
    f.render_widget(Paragraph::new(lb), ib);
}

/// The session pairs of two runs compared.
pub(super) fn render_pairs(f: &mut Frame, area: Rect, app: &App, dr: &mut Drawn) {
    let th = &app.theme;
    let Some(ds) = app.diff.as_ref() else {
        f.render_widget(Paragraph::new("no diff"), area);
        return;
    };
    let run = &ds.run;
    let c = &run.counts;
    let m = &run.metrics;
    let pct = |v: Option<f64>| v.map_or("n/a".into(), |v| format!("{:.1}%", v * 100.0));
    let pts = |v: Option<f64>| v.map_or("n/a".into(), |v| format!("{:+.1} pts", v * 100.0));
    let verdict = if c.is_empty() {
        Span::styled("no changes", th.clean())
    } else {
        Span::styled(label(run.direction), dir_style(app, run.direction))
    };
    let head = wrap(
        vec![
            Line::from(vec![
                verdict,
                Span::raw(format!(
                    " · {} session(s) paired, {} only in B, {} only in A · claims: {} worse, {} better, {} changed, {} unchanged, {} added, {} removed",
                    c.sessions_paired,
                    c.sessions_added,
                    c.sessions_removed,
                    c.claims_worse,
                    c.claims_better,
                    c.claims_neutral,
                    c.claims_unchanged,
                    c.claims_added,
                    c.claims_removed
                )),
            ]),
            Line::raw(format!(
                "citation precision {} -> {} ({}) · wrong-source rate {} -> {} ({})",
                pct(m.a.citation_precision),
                pct(m.b.citation_precision),
                pts(m.citation_precision),
                pct(m.a.wrong_source_rate),
                pct(m.b.wrong_source_rate),
                pts(m.wrong_source_rate)
            )),
        ],
        usize::from(area.width).max(1),
    );
    let hh = (head.len() as u16).min(area.height / 3);
    let [top, body] = Layout::vertical([Constraint::Length(hh), Constraint::Min(3)]).areas(area);
    f.render_widget(Paragraph::new(head), top);
    let block = Block::default().borders(Borders::ALL).title(format!(
        " {} pair(s) · {} of {} ",
        run.sessions.len(),
        (ds.pair + 1).min(ds.pair_rows()),
        ds.pair_rows()
    ));
    let inner = block.inner(body);
    f.render_widget(block, body);
    dr.add(inner, Hit::Pane(Pane::Body));
    let w = usize::from(inner.width);
    let h = usize::from(inner.height);
    let n = ds.pair_rows();
    let start = super::window(ds.pair, n, h);
    let mut lines = Vec::new();
    for k in start..(start + h).min(n) {
        let (lab, style, text) = if let Some(s) = run.sessions.get(k) {
            let sc = &s.counts;
            let (lab, style) = if sc.is_empty() {
                ("SAME", th.clean())
            } else {
                (label(s.direction), dir_style(app, s.direction))
            };
            (
                lab,
                style,
                format!(
                    "{} -> {} · {} worse, {} better, {} changed, {} unchanged, {} added, {} removed",
                    clean(&s.a.name),
                    clean(&s.b.name),
                    sc.claims_worse,
                    sc.claims_better,
                    sc.claims_neutral,
                    sc.claims_unchanged,
                    sc.claims_added,
                    sc.claims_removed
                ),
            )
        } else if let Some(s) = run.sessions_added.get(k - run.sessions.len()) {
            (
                "ONLY B",
                th.dimmed(),
                format!("{} ({})", clean(&s.name), clean(&s.file)),
            )
        } else {
            let j = k - run.sessions.len() - run.sessions_added.len();
            let Some(s) = run.sessions_removed.get(j) else {
                continue;
            };
            (
                "ONLY A",
                th.dimmed(),
                format!("{} ({})", clean(&s.name), clean(&s.file)),
            )
        };
        let mut line = Line::from(vec![
            Span::styled(format!("{lab:<8}"), style),
            Span::raw(fit(&text, w.saturating_sub(8))),
        ]);
        if k == ds.pair {
            line.style = th.selected();
        }
        dr.add(
            Rect::new(inner.x, inner.y + (k - start) as u16, inner.width, 1),
            Hit::PairRow(k),
        );
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The panes of the claim view: (changes, claim A, claim B, source A, source B).
fn claim_areas(app: &App, area: Rect) -> (Rect, Rect, Rect, Rect, Rect) {
    let n = change_lines(app).len() as u16;
    let ch = (n + 2).min(area.height / 4).max(3);
    let [changes, rest] =
        Layout::vertical([Constraint::Length(ch), Constraint::Min(4)]).areas(area);
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(rest);
    let halves = |r: Rect| -> (Rect, Rect) {
        let [l, rr] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(r);
        (l, rr)
    };
    let (ca, cb) = halves(top);
    let (sa, sb) = halves(bottom);
    (changes, ca, cb, sa, sb)
}

/// What one side of the claim view shows: its session, claim and the call beside it.
fn claim_side_of(
    app: &App,
    side: Side,
) -> Option<(&Loaded, Option<&ClaimVerdict>, Option<String>)> {
    let (ds, d, op) = state::open_pair(app)?;
    let row = op.rows.get(op.selected).copied()?;
    let l = side_loaded(ds, op, side)?;
    match row {
        DiffRow::Claim(..) => {
            let (ca, cb) = state::claims_of(app, row)?;
            let c = if side == Side::A { ca } else { cb };
            c.map(|c| (l, Some(c), c.call_id.as_deref().map(str::to_owned)))
        }
        DiffRow::Result(t, k) => {
            let r = d.turns.get(t)?.results_changed.get(k)?;
            let call = if side == Side::A {
                &r.call_a
            } else {
                &r.call_b
            };
            Some((l, None, Some(call.clone())))
        }
        _ => None,
    }
}

/// Source lines of a side at `w` columns, and the row of the cited span.
fn source_lines(app: &App, side: Side, w: usize) -> (Vec<Line<'static>>, Option<usize>) {
    match claim_side_of(app, side) {
        Some((l, c, call)) => super::source::lines_for(app, l, c, call.as_deref(), w),
        None => (
            blank(
                app,
                if side == Side::A {
                    "not in A"
                } else {
                    "not in B"
                },
            ),
            None,
        ),
    }
}

fn source_inner(app: &App, side: Side) -> (usize, usize) {
    let (_, _, _, sa, sb) = claim_areas(app, super::body_of(app.size));
    let r = if side == Side::A { sa } else { sb };
    (
        usize::from(r.width.saturating_sub(2)).max(1),
        usize::from(r.height.saturating_sub(2)),
    )
}

/// The scroll offsets that put each side's cited span a third of the way down its pane.
pub fn span_rows(app: &App) -> (usize, usize) {
    let at = |side| {
        let (w, h) = source_inner(app, side);
        let (lines, row) = source_lines(app, side, w);
        row.map_or(0, |r| r.saturating_sub(h / 3))
            .min(lines.len().saturating_sub(h))
    };
    (at(Side::A), at(Side::B))
}

/// The largest scroll offset of a source pane of the claim view.
pub fn source_rows(app: &App, p: Pane) -> usize {
    let side = if p == Pane::DiffA { Side::A } else { Side::B };
    let (w, h) = source_inner(app, side);
    source_lines(app, side, w).0.len().saturating_sub(h)
}

/// The largest scroll offset of a claim pane of the claim view.
pub fn claim_rows(app: &App, p: Pane) -> usize {
    let side = if p == Pane::DiffClaimA {
        Side::A
    } else {
        Side::B
    };
    let (_, ca, cb, _, _) = claim_areas(app, super::body_of(app.size));
    let r = if side == Side::A { ca } else { cb };
    let w = usize::from(r.width.saturating_sub(2)).max(1);
    let h = usize::from(r.height.saturating_sub(2));
    claim_detail(app, side, w).len().saturating_sub(h)
}

/// A claim's details on one side of the claim view, wrapped at `w`.
fn claim_detail(app: &App, side: Side, w: usize) -> Vec<Line<'static>> {
    let th = &app.theme;
    let Some((l, c, call)) = claim_side_of(app, side) else {
        return blank(
            app,
            if side == Side::A {
                "not in A"
            } else {
                "not in B"
            },
        );
    };
    let Some(c) = c else {
        return wrap(
            vec![Line::raw(format!(
                "the result of {}",
                call.as_deref().map_or(String::new(), clean)
            ))],
            w,
        );
    };
    let mut out = vec![
        Line::styled(
            format!("{} · turn {} · line {}", clean(&c.claim_id), c.turn, c.line),
            th.dimmed(),
        ),
        Line::raw(format!("\"{}\"", clean(&c.claim_text))),
        Line::raw(format!(
            "{} · source {} · fact {} · support {}",
            th.quadrant(c.quadrant),
            c.source_verdict.name(),
            c.fact_verdict.name(),
            c.support.map_or("n/a".into(), |s| format!("{s:.2}"))
        )),
    ];
    if let Some(i) = l.report.claims.iter().position(|x| std::ptr::eq(x, c)) {
        for fnd in l.findings(i) {
            out.push(Line::styled(
                format!("{} {}", th.badge(fnd.kind), clean(&fnd.message)),
                th.severity(fnd.severity),
            ));
        }
    }
    wrap(out, w)
}

/// The changes of the selected claim (or result), as the diff model states them.
fn change_lines(app: &App) -> Vec<Line<'static>> {
    let Some((_, d, op)) = state::open_pair(app) else {
        return vec![];
    };
    let Some(row) = op.rows.get(op.selected).copied() else {
        return vec![];
    };
    match row {
        DiffRow::Claim(ti, k) => {
            let cd = d.aligned.get(ti).and_then(|t| {
                let c = t.claims.get(k)?;
                d.turns.get(t.diff?)?.claims.get(c.diff?)
            });
            match cd {
                None => vec![Line::styled("unchanged", app.theme.clean())],
                Some(cd) if cd.presence != Presence::Paired => vec![Line::styled(
                    if cd.presence == Presence::Added {
                        "only in B"
                    } else {
                        "only in A"
                    },
                    dir_style(app, cd.direction),
                )],
                Some(cd) => cd
                    .changes
                    .iter()
                    .map(|ch| {
                        let d = ch.direction();
                        Line::from(vec![
                            Span::styled(mark(Some(d)), dir_style(app, d)),
                            Span::raw(clean(&crate::export::diff::change_text(ch))),
                        ])
                    })
                    .collect(),
            }
        }
        DiffRow::Result(t, k) => d
            .turns
            .get(t)
            .and_then(|t| t.results_changed.get(k))
            .map(|r| {
                vec![Line::raw(format!(
                    "result changed: {} word(s) removed, {} added",
                    r.words.words_removed, r.words.words_added
                ))]
            })
            .unwrap_or_default(),
        _ => vec![],
    }
}

/// One claim (or result) of both sessions, each beside its source.
pub(super) fn render_claim(f: &mut Frame, area: Rect, app: &App, dr: &mut Drawn) {
    let Some((_, d, op)) = state::open_pair(app) else {
        f.render_widget(Paragraph::new("no diff open"), area);
        return;
    };
    let changes = change_lines(app);
    let (top, ca, cb, sa, sb) = claim_areas(app, area);
    let block = Block::default().borders(Borders::ALL).title(" Changes ");
    let inner = block.inner(top);
    f.render_widget(block, top);
    let w = usize::from(inner.width).max(1);
    let changes: Vec<Line> = changes
        .into_iter()
        .map(|l| {
            let mut out = wrap(vec![l], w);
            out.truncate(1);
            out.pop().unwrap_or_default()
        })
        .collect();
    f.render_widget(Paragraph::new(changes), inner);
    for (side, c, s, cp, p, name) in [
        (Side::A, ca, sa, Pane::DiffClaimA, Pane::DiffA, &d.a.name),
        (Side::B, cb, sb, Pane::DiffClaimB, Pane::DiffB, &d.b.name),
    ] {
        let letter = if side == Side::A { "A" } else { "B" };
        let focused = |part| op.side == side && op.part == part;
        let block = pane(
            format!(" {letter} · {} ", clean(name)),
            focused(Part::Claim),
            app,
        );
        let inner = block.inner(c);
        f.render_widget(block, c);
        dr.add(inner, Hit::Pane(cp));
        let lines = claim_detail(app, side, usize::from(inner.width).max(1));
        scrolled(f, c, inner, lines, app.scroll.get(cp), app);
        let title = match claim_side_of(app, side).and_then(|x| x.2) {
            Some(id) => format!(" {letter} · source · {} ", clean(&id)),
            None => format!(" {letter} · source "),
        };
        let block = pane(title, focused(Part::Source), app);
        let inner = block.inner(s);
        f.render_widget(block, s);
        dr.add(inner, Hit::Pane(p));
        let (lines, _) = source_lines(app, side, usize::from(inner.width).max(1));
        scrolled(f, s, inner, lines, app.scroll.get(p), app);
    }
}
