//! Claim beside source: the claim, its verdicts and findings on the left; on the right the
//! origin result with its ingestion tag, scrolled to the cited span, the span highlighted.

use super::{clean, fit};
use crate::check::{ClaimVerdict, Evidence};
use crate::model::{human_duration, ToolResult};
use crate::tui::app::{App, Loaded};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

pub(super) fn render(f: &mut Frame, area: Rect, app: &App) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)]).areas(area);
    render_claim(f, left, app, None);
    render_source(f, right, app);
}

/// The claim pane; `header` adds a first line (the review view's "k of N").
pub(super) fn render_claim(f: &mut Frame, area: Rect, app: &App, header: Option<Line<'static>>) {
    let th = &app.theme;
    let block = Block::default().borders(Borders::ALL).title(" Claim ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    let (Some(l), Some(c)) = (app.current(), app.current_claim()) else {
        f.render_widget(Paragraph::new("no claim selected"), inner);
        return;
    };
    let i = app.sel_claim;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(h) = header {
        lines.push(h);
    }
    // Who made the stamp: the log's producer, or an importer from the API's citation.
    let stamp = l
        .session
        .answer(c.turn)
        .and_then(|a| a.claims.iter().find(|x| x.id() == c.claim_id))
        .map(|x| &x.stamp);
    let made = match stamp {
        Some(s) if s.provenance() == crate::model::Provenance::Derived => {
            let kind = s.citation.as_ref().map_or("", |ci| ci.kind.as_str());
            format!("stamp derived from a {} citation", clean(kind))
        }
        _ => "stamp declared by the log".to_owned(),
    };
    lines.push(Line::styled(
        format!(
            "{} · turn {} · line {} · {made}",
            clean(&c.claim_id),
            c.turn,
            c.line
        ),
        th.dimmed(),
    ));
    if let Some(ci) = stamp.and_then(|s| s.citation.as_ref()) {
        if let Some(u) = &ci.url {
            lines.push(Line::styled(
                format!("cites {}", fit(&clean(u), 200)),
                th.dimmed(),
            ));
        }
        if let Some(t) = &ci.cited_text {
            lines.push(Line::styled(
                format!("cited text: {}", fit(&clean(t), 200)),
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
        th.severity(crate::check::Severity::Error),
    ));
    if !missing.is_empty() {
        lines.push(Line::styled(
            format!("not in the span: {}", clean(&missing.join(", "))),
            th.severity(crate::check::Severity::Error),
        ));
    }
    lines.push(Line::raw(""));
    let source = match c.source_verdict {
        crate::check::SourceVerdict::Right => Span::styled("source right", th.clean()),
        crate::check::SourceVerdict::Wrong => {
            Span::styled("source wrong", th.severity(crate::check::Severity::Error))
        }
    };
    let fact = match c.fact_verdict {
        crate::check::FactVerdict::Right => "fact right".to_owned(),
        crate::check::FactVerdict::Wrong => "fact wrong".to_owned(),
        crate::check::FactVerdict::Unknown => "fact unknown".to_owned(),
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
    let key = app.claim_key();
    let mark = key.as_ref().and_then(|k| app.marks.get(k));
    match c.effective_quadrant(mark.and_then(|m| m.quadrant)) {
        Some(eq) => {
            let q = eq.quadrant;
            let by = if eq.by_hand { "classified" } else { "computed" };
            lines.push(Line::styled(
                format!("{} ({by}): {}", q.title(), q.verdict()),
                th.accent(),
            ));
            lines.push(Line::raw(format!(
                "owner: {} · next: {}",
                q.owner(),
                q.next_action()
            )));
        }
        None => lines.push(Line::styled(
            "quadrant: unknown until the fact axis is labelled or classified",
            th.dimmed(),
        )),
    }
    if let Some(m) = mark.filter(|m| !m.note.is_empty()) {
        lines.push(Line::raw(format!("note: {}", clean(&m.note))));
    }
    if key.as_ref().is_some_and(|k| app.reviewed.contains(k)) {
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
        for (k, v) in fnd.evidence.rows().into_iter().take(6) {
            lines.push(Line::styled(
                format!("    {k}: {}", fit(&clean(&v), 200)),
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
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
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

/// The source pane (also used by the review view).
pub(super) fn render_source_pub(f: &mut Frame, area: Rect, app: &App) {
    render_source(f, area, app)
}

fn render_source(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let block = Block::default().borders(Borders::ALL).title(" Source ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    let (Some(l), Some(c)) = (app.current(), app.current_claim()) else {
        return;
    };
    let Some(call_id) = c.call_id.as_deref() else {
        let t = Text::from(vec![
            Line::styled("No source.", th.severity(crate::check::Severity::Error)),
            Line::raw(
                "This claim has no origin: it is unsourced. Nothing in the session backs it.",
            ),
        ]);
        f.render_widget(Paragraph::new(t).wrap(Wrap { trim: false }), inner);
        return;
    };
    let Some(result) = l.session.result(call_id) else {
        let t = Text::from(vec![
            Line::styled(
                format!("`{}` was not recorded.", clean(call_id)),
                th.severity(crate::check::Severity::Error),
            ),
            Line::raw("The stamp cites a call with no recorded result: a dangling origin."),
        ]);
        f.render_widget(Paragraph::new(t).wrap(Wrap { trim: false }), inner);
        return;
    };
    let mut lines = tag_lines(app, l, c, result);
    let header_rows = lines.len();
    let width = usize::from(inner.width).max(1);
    let mut span_row: Option<usize> = None;
    let mut rows = header_rows;
    if let Some(r) = result.response.result.as_ref() {
        for (b, block) in r.content.iter().enumerate() {
            let title = match block.citable_text() {
                Some(_) => format!("── block {b} ({}) ", clean(&block.kind)),
                None => format!("── block {b} ({}, not citable) ", clean(&block.kind)),
            };
            lines.push(Line::styled(title, th.dimmed()));
            rows += 1;
            let Some(text) = block.citable_text() else {
                continue;
            };
            let cited = c
                .cited
                .as_ref()
                .filter(|s| s.block as usize == b)
                .and_then(|s| {
                    Some((
                        text.get(..s.range.start)?,
                        text.get(s.range.clone())?,
                        text.get(s.range.end..)?,
                    ))
                });
            let (before, span, after) = cited.unwrap_or((text, "", ""));
            if cited.is_some() {
                span_row = Some(
                    rows + wrapped_rows(&crate::text::sanitize(before, true), width)
                        .saturating_sub(1),
                );
            }
            let segs = [
                (before, Style::default()),
                (span, th.span()),
                (after, Style::default()),
            ];
            let styled = styled_lines(&segs);
            rows += styled
                .iter()
                .map(|l| (l.width() / width) + 1)
                .sum::<usize>();
            lines.extend(styled);
        }
        if let Some(sc) = &r.structured {
            lines.push(Line::styled("── structuredContent ", th.dimmed()));
            let pretty = serde_json::from_str::<serde_json::Value>(sc.get())
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| sc.get().to_owned());
            for l in crate::text::sanitize(&pretty, true).lines() {
                lines.push(Line::raw(l.to_owned()));
            }
        }
    }
    if let Some(e) = &result.response.error {
        lines.push(Line::styled(
            format!("JSON-RPC error {}: {}", e.code, clean(&e.message)),
            th.severity(crate::check::Severity::Error),
        ));
    }
    let scroll = if app.source_scroll == u16::MAX {
        // Scroll so the span starts a third of the way down.
        span_row.map_or(0, |r| r.saturating_sub(usize::from(inner.height) / 3)) as u16
    } else {
        app.source_scroll
    };
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        inner,
    );
}

fn tag_lines(app: &App, l: &Loaded, c: &ClaimVerdict, r: &ToolResult) -> Vec<Line<'static>> {
    let th = &app.theme;
    let t = &r.tag;
    let tier = l.report.tier(&t.server);
    let kv = |k: &str, v: String| {
        Line::from(vec![
            Span::styled(format!("{k:<9}"), th.dimmed()),
            Span::raw(v),
        ])
    };
    let mut out = vec![
        kv(
            "server",
            format!(
                "{} [{}, {}]",
                clean(&t.server),
                tier.tier.label(),
                tier.from.describe()
            ),
        ),
        kv(
            "tool",
            format!("{} · call {}", clean(&t.tool), clean(&t.call_id)),
        ),
        kv(
            "args",
            format!("sha256 {}", fit(&clean(&t.arguments_hash), 64)),
        ),
    ];
    if let Some(fr) = &c.freshness {
        let fetched = if fr.cache_hit {
            format!(
                "{} (cache hit; originally fetched {})",
                fr.served_at, fr.fetched_at
            )
        } else {
            fr.fetched_at.to_string()
        };
        out.push(kv(if fr.cache_hit { "served" } else { "fetched" }, fetched));
        let mut ttl = format!(
            "{} ({})",
            human_duration(fr.ttl_seconds as i64 * 1000),
            fr.ttl_from.describe()
        );
        if let Some(a) = fr.age_ms {
            ttl.push_str(&format!(" · age at answer {}", human_duration(a)));
        }
        out.push(Line::from(vec![
            Span::styled(format!("{:<9}", "ttl"), th.dimmed()),
            Span::raw(ttl),
            if fr.stale {
                Span::styled("  STALE", th.severity(crate::check::Severity::Error))
            } else {
                Span::raw("")
            },
        ]));
    }
    out.push(kv(
        "envelope",
        l.report.envelope(&t.call_id).describe().to_owned(),
    ));
    out
}

/// Splits styled segments into lines at newlines (sanitizing each segment).
fn styled_lines(segs: &[(&str, Style)]) -> Vec<Line<'static>> {
    let mut lines = vec![Line::default()];
    for (text, style) in segs {
        let clean = crate::text::sanitize(text, true);
        for (k, part) in clean.split('\n').enumerate() {
            if k > 0 {
                lines.push(Line::default());
            }
            if !part.is_empty() {
                if let Some(last) = lines.last_mut() {
                    last.spans.push(Span::styled(part.to_owned(), *style));
                }
            }
        }
    }
    lines
}

/// Rows a text takes when wrapped at `width` (approximate: character wrapping).
fn wrapped_rows(text: &str, width: usize) -> usize {
    text.split('\n')
        .map(|l| UnicodeWidthStr::width(l) / width + 1)
        .sum()
}
