//! Claim beside source: the claim, its verdicts and findings on the left (scrollable); on the
//! right the origin result (or any call of the turn, `[`/`]`) with its ingestion tag and
//! arguments, the cited span highlighted. Scroll offsets are state: `update` puts the source at
//! the span when a claim is selected ([`span_row`]).

use super::{clean, fit, pane, scrolled, wrap, Drawn};
use crate::check::{Evidence, Severity};
use crate::tui::action::{Hit, Pane, View};
use crate::tui::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

/// The claim and source panes of the claim and review views.
pub fn areas(area: Rect) -> (Rect, Rect) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)]).areas(area);
    (left, right)
}

/// The inner width and height of the source pane at the current terminal size.
pub fn source_inner(app: &App) -> (usize, usize) {
    let (_, right) = areas(super::body_of(app.size));
    (
        usize::from(right.width.saturating_sub(2)),
        usize::from(right.height.saturating_sub(2)),
    )
}

/// The scroll offset that puts the selected claim's cited span a third of the way down the
/// source pane (0 without a span).
pub fn span_row(app: &App) -> usize {
    let (w, h) = source_inner(app);
    let (lines, row) = super::source::lines(app, w.max(1));
    row.map_or(0, |r| r.saturating_sub(h / 3))
        .min(lines.len().saturating_sub(h))
}

/// Rows of the source and claim panes at the current size (for clamping scroll offsets).
pub fn pane_rows(app: &App, p: Pane) -> usize {
    let body = super::body_of(app.size);
    let (left, right) = areas(body);
    match p {
        Pane::Source => {
            let w = usize::from(right.width.saturating_sub(2)).max(1);
            let h = usize::from(right.height.saturating_sub(2));
            super::source::lines(app, w).0.len().saturating_sub(h)
        }
        Pane::Claim => {
            let w = usize::from(left.width.saturating_sub(2)).max(1);
            let h = usize::from(left.height.saturating_sub(2));
            claim_lines(app, w, None).len().saturating_sub(h)
        }
        _ => 0,
    }
}

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let (left, right) = areas(area);
    render_claim(f, left, app, None, d);
    super::source::render(f, right, app, d);
}

/// "claim k of N · flagged j of M" for the selected claim of the open session.
pub fn position_line(app: &App) -> Option<Line<'static>> {
    let l = app.current()?;
    let n = l.report.claims.len();
    let mut s = format!("claim {} of {n}", app.sel_claim + 1);
    let flagged = &l.flagged;
    if !flagged.is_empty() {
        match flagged.iter().position(|&x| x as usize == app.sel_claim) {
            Some(k) => s.push_str(&format!(" · flagged {} of {}", k + 1, flagged.len())),
            None => s.push_str(&format!(" · {} flagged", flagged.len())),
        }
    }
    if app.severity_order {
        s.push_str(" · n/N: errors first");
    }
    Some(Line::styled(s, app.theme.dimmed()))
}

/// The claim pane's lines, wrapped at `w`.
pub fn claim_lines(app: &App, w: usize, header: Option<Line<'static>>) -> Vec<Line<'static>> {
    let th = &app.theme;
    let (Some(l), Some(c)) = (app.current(), app.current_claim()) else {
        return vec![Line::raw("no claim selected")];
    };
    let i = app.sel_claim;
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(h) = header {
        lines.push(h);
    }
    if app.view == View::Claim {
        lines.extend(position_line(app));
    }
    // Who made the stamp: the log's producer, or an importer from the API's citation.
    let stamp = l.claim_at(i).map(|x| &x.stamp);
    let made = match stamp {
        Some(s) if s.provenance() == crate::model::Provenance::Derived => {
            let kind = s.citation.as_ref().map_or("", |ci| ci.kind.as_str());
            format!("stamp derived from a {} citation", clean(kind))
        }
        _ => "stamp declared by the log".to_owned(),
    };
    // In an imported document the claim's place is its citation's JSON path.
    let place = match (l.claim_at(i).and_then(|x| x.json_path.as_deref()), c.line) {
        (Some(p), 0) => format!("at {}", clean(p)),
        (Some(p), n) => format!("line {n} at {}", clean(p)),
        (None, n) => format!("line {n}"),
    };
    lines.push(Line::styled(
        format!(
            "{} · turn {} · {place} · {made}",
            clean(&c.claim_id),
            c.turn,
        ),
        th.dimmed(),
    ));
    if let Some(ci) = stamp.and_then(|s| s.citation.as_ref()) {
        if let Some(u) = &ci.url {
            lines.push(Line::styled(format!("cites {}", clean(u)), th.dimmed()));
        }
        if let Some(t) = &ci.cited_text {
            lines.push(Line::styled(
                format!("cited text: {}", clean(t)),
                th.dimmed(),
            ));
        }
    }
    // Claim text, with tokens the span does not contain marked.
    let missing: Vec<String> = l
        .findings(i)
        .filter_map(|f| match &f.evidence {
            Evidence::SpanUnsupported(e) => Some(e.missing.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect();
    lines.push(mark_missing(
        &clean(&c.claim_text),
        &missing,
        th.severity(Severity::Error),
    ));
    if !missing.is_empty() {
        lines.push(Line::styled(
            format!("not in the span: {}", clean(&missing.join(", "))),
            th.severity(Severity::Error),
        ));
    }
    lines.push(Line::raw(""));
    let source = match c.source_verdict {
        crate::check::SourceVerdict::Right => Span::styled("source right", th.clean()),
        crate::check::SourceVerdict::Wrong => {
            Span::styled("source wrong", th.severity(Severity::Error))
        }
    };
    let fact = match c.fact_verdict {
        crate::check::FactVerdict::Right => "fact right",
        crate::check::FactVerdict::Wrong => "fact wrong",
        crate::check::FactVerdict::Unknown => "fact unknown",
    };
    let fact_src = c
        .fact_source
        .as_deref()
        .map(|s| format!(" ({})", clean(s)))
        .unwrap_or_default();
    lines.push(Line::from(vec![
        source,
        Span::raw(format!(" · {fact}{fact_src}")),
    ]));
    // A claim citing a sub-agent's answer rests on the sub-agent's own stamp.
    if let Some(sc) = &c.sub_claim {
        let verdict = match sc.source_verdict {
            crate::check::SourceVerdict::Right => "source right",
            crate::check::SourceVerdict::Wrong => "source wrong",
        };
        lines.push(Line::styled(
            format!(
                "rests on sub-agent stamp {} (turn {} of session {}): {verdict}",
                clean(&sc.claim_id),
                sc.turn,
                clean(&sc.session_id)
            ),
            th.dimmed(),
        ));
    }
    let mark = app.mark();
    match c.effective_quadrant(mark.and_then(|m| m.quadrant)) {
        Some(eq) => {
            let q = eq.quadrant;
            let by = if eq.by_hand { "classified" } else { "computed" };
            lines.push(Line::styled(
                format!("{} ({by}): {}", q.title(), q.verdict()),
                th.accent(),
            ));
            // A hand classification shows the owner and next action recorded with it.
            let recorded = mark
                .filter(|_| eq.by_hand)
                .and_then(|m| m.recorded.as_ref());
            match recorded {
                Some(h) => {
                    lines.push(Line::raw(format!(
                        "owner: {} · next: {}",
                        clean(&h.owner),
                        clean(&h.next_action)
                    )));
                    let who = if h.reviewer.is_empty() {
                        "someone".to_owned()
                    } else {
                        clean(&h.reviewer)
                    };
                    lines.push(Line::styled(
                        format!("classified by hand by {who} at {}", h.at),
                        th.dimmed(),
                    ));
                }
                None => lines.push(Line::raw(format!(
                    "owner: {} · next: {}",
                    q.owner(),
                    q.next_action()
                ))),
            }
        }
        None => lines.push(Line::styled(
            "quadrant: unknown until the fact axis is labelled or classified",
            th.dimmed(),
        )),
    }
    if let Some(m) = mark.filter(|m| !m.note.is_empty()) {
        let mut first = true;
        for part in crate::text::sanitize(&m.note, true).split('\n') {
            let head = if first { "note: " } else { "      " };
            first = false;
            lines.push(Line::raw(format!("{head}{part}")));
        }
    }
    // The incident record: what happened when the shipped answer was reported.
    for x in app.cur.map_or(&[][..], |s| app.corrections_of(s, i)) {
        let note = if x.note.is_empty() {
            String::new()
        } else {
            format!(": {}", clean(&x.note))
        };
        lines.push(Line::styled(
            format!("correction: {} at {}{note}", clean(&x.outcome), x.at),
            th.severity(Severity::Warning),
        ));
    }
    if app.cur.is_some_and(|s| app.is_reviewed(s, i)) {
        lines.push(Line::styled("✓ reviewed", th.clean()));
    }
    lines.push(Line::raw(""));
    let mut any = false;
    for fnd in l.findings(i) {
        any = true;
        lines.push(Line::from(vec![
            Span::styled(th.badge(fnd.kind), th.severity(fnd.severity)),
            Span::raw(format!(" {}: ", fnd.severity)),
            Span::raw(clean(&fnd.message)),
        ]));
        for (k, v) in fnd.evidence.rows() {
            lines.push(Line::styled(
                format!("    {k}: {}", fit(&clean(&v), 400)),
                th.dimmed(),
            ));
        }
    }
    if !any {
        lines.push(Line::styled(
            "no findings: the stamp resolves, the span supports it",
            th.clean(),
        ));
    }
    wrap(lines, w)
}

/// The claim pane; `header` adds a first line (the review view's "k of N").
pub(super) fn render_claim(
    f: &mut Frame,
    area: Rect,
    app: &App,
    header: Option<Line<'static>>,
    d: &mut Drawn,
) {
    let block = pane(" Claim ".into(), !app.source_focus, app);
    let inner = block.inner(area);
    f.render_widget(block, area);
    d.add(inner, Hit::Pane(Pane::Claim));
    let lines = claim_lines(app, usize::from(inner.width), header);
    scrolled(f, area, inner, lines, app.scroll.get(Pane::Claim), app);
}

/// The claim text with every occurrence of a missing token styled.
fn mark_missing(text: &str, missing: &[String], style: Style) -> Line<'static> {
    let mut marks: Vec<(usize, usize)> = Vec::new();
    for m in missing {
        let needle = m.trim_matches('"');
        if needle.is_empty() {
            continue;
        }
        let mut from = 0;
        while let Some(p) = text[from..].find(needle) {
            marks.push((from + p, from + p + needle.len()));
            from += p + needle.len();
        }
    }
    marks.sort();
    let mut spans = Vec::new();
    let mut at = 0;
    for (s, e) in marks {
        if s < at {
            continue;
        }
        spans.push(Span::raw(text[at..s].to_owned()));
        spans.push(Span::styled(
            text[s..e].to_owned(),
            style.add_modifier(ratatui::style::Modifier::UNDERLINED),
        ));
        at = e;
    }
    spans.push(Span::raw(text[at..].to_owned()));
    Line::from(spans)
}
