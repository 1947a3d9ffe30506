//! The source pane: the cited result (or the call chosen with `[`/`]` or opened from the calls
//! pane), its ingestion tag, the call's arguments as formatted JSON, every content block with
//! the cited span highlighted. Lines are wrapped here, so scroll offsets are exact rows.

use super::{clean, fit, pane, scrolled, wrap, Drawn};
use crate::check::{ClaimVerdict, Severity};
use crate::model::{human_duration, Call, ToolResult};
use crate::tui::action::{Hit, Pane};
use crate::tui::app::{App, Loaded};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

/// The call the source pane shows: the one chosen by hand, else the claim's cited call.
pub fn shown_call_id(app: &App) -> Option<String> {
    if let Some(id) = &app.shown_call {
        return Some(id.clone());
    }
    app.current_claim()
        .and_then(|c| c.call_id.as_deref().map(str::to_owned))
}

/// The source pane's lines wrapped at `w`, and the row where the cited span starts.
pub fn lines(app: &App, w: usize) -> (Vec<Line<'static>>, Option<usize>) {
    let (Some(l), Some(c)) = (app.current(), app.current_claim()) else {
        return (vec![Line::raw("no claim selected")], None);
    };
    lines_for(app, l, Some(c), shown_call_id(app).as_deref(), w)
}

/// The lines of call `shown`'s result in session `l` beside claim `c` (its cited span
/// highlighted when it is the cited call), wrapped at `w`, and the row where the span starts.
/// Without a call: the claim is unsourced.
pub fn lines_for(
    app: &App,
    l: &Loaded,
    c: Option<&ClaimVerdict>,
    shown: Option<&str>,
    w: usize,
) -> (Vec<Line<'static>>, Option<usize>) {
    let th = &app.theme;
    let Some(call_id) = shown.map(str::to_owned) else {
        let t = vec![
            Line::styled("No source.", th.severity(Severity::Error)),
            Line::raw(
                "This claim has no origin: it is unsourced. Nothing in the session backs it.",
            ),
        ];
        return (wrap(t, w), None);
    };
    let call = l.session.call(&call_id);
    let Some(result) = l.session.result(&call_id) else {
        let mut t = vec![
            Line::styled(
                format!("`{}` was not recorded.", clean(&call_id)),
                th.severity(Severity::Error),
            ),
            Line::raw(if call.is_some() {
                "The call was issued but no result was recorded."
            } else {
                "The stamp cites a call with no recorded result: a dangling origin."
            }),
        ];
        if let Some(call) = call {
            t.extend(args_lines(app, call));
        }
        return (wrap(t, w), None);
    };
    let cited_here = c.is_some_and(|c| c.call_id.as_deref() == Some(call_id.as_str()));
    let mut out = Vec::new();
    if let Some(c) = c.filter(|_| !cited_here) {
        out.push(Line::styled(
            format!(
                "not the cited result: call {} of turn {}{}",
                clean(&call_id),
                result.turn,
                c.call_id
                    .as_deref()
                    .map(|x| format!(" (the claim cites {})", clean(x)))
                    .unwrap_or_else(|| " (the claim cites nothing)".into())
            ),
            th.severity(Severity::Warning),
        ));
    }
    out.extend(tag_lines(app, l, c, result, cited_here));
    if let Some(call) = call {
        out.extend(args_lines(app, call));
    }
    let mut out = wrap(out, w);
    let mut span_row = None;
    if let Some(r) = result.response.result.as_ref() {
        for (b, block) in r.content.iter().enumerate() {
            let title = match block.citable_text() {
                Some(_) => format!("── block {b} ({}) ", clean(&block.kind)),
                None => format!("── block {b} ({}, not citable) ", clean(&block.kind)),
            };
            out.push(Line::styled(title, th.dimmed()));
            let Some(text) = block.citable_text() else {
                continue;
            };
            let cited = c
                .and_then(|c| c.cited.as_ref())
                .filter(|s| cited_here && s.block as usize == b)
                .and_then(|s| {
                    Some((
                        text.get(..s.range.start)?,
                        text.get(s.range.clone())?,
                        text.get(s.range.end..)?,
                    ))
                });
            let (before, span, after) = cited.unwrap_or((text, "", ""));
            if cited.is_some() {
                let before_rows = wrap(styled_lines(&[(before, Style::default())]), w).len();
                span_row = Some(out.len() + before_rows.saturating_sub(1));
            }
            let segs = [
                (before, Style::default()),
                (span, th.span()),
                (after, Style::default()),
            ];
            out.extend(wrap(styled_lines(&segs), w));
        }
        if let Some(sc) = r.structured() {
            out.push(Line::styled("── structuredContent ", th.dimmed()));
            let pretty = serde_json::from_str::<serde_json::Value>(sc.get())
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| sc.get().to_owned());
            let ls: Vec<Line> = crate::text::sanitize(&pretty, true)
                .lines()
                .map(|x| Line::raw(x.to_owned()))
                .collect();
            out.extend(wrap(ls, w));
        }
    }
    if let Some(e) = &result.response.error {
        out.extend(wrap(
            vec![Line::styled(
                format!("JSON-RPC error {}: {}", e.code, clean(&e.message)),
                th.severity(Severity::Error),
            )],
            w,
        ));
    }
    (out, span_row)
}

pub(super) fn render(f: &mut Frame, area: Rect, app: &App, d: &mut Drawn) {
    let title = match shown_call_id(app) {
        Some(id) => {
            let l = app.current();
            let calls: Vec<&Call> = l
                .and_then(|l| l.session.call(&id).map(|c| (l, c.turn)))
                .map(|(l, t)| l.session.calls_in_turn(t).collect())
                .unwrap_or_default();
            match calls.iter().position(|c| c.id == id) {
                Some(k) => format!(
                    " Source · {} · call {} of {} ",
                    clean(&id),
                    k + 1,
                    calls.len()
                ),
                None => format!(" Source · {} ", clean(&id)),
            }
        }
        None => " Source ".into(),
    };
    let block = pane(title, app.source_focus, app);
    let inner = block.inner(area);
    f.render_widget(block, area);
    d.add(inner, Hit::Pane(Pane::Source));
    let (ls, _) = lines(app, usize::from(inner.width));
    scrolled(f, area, inner, ls, app.scroll.get(Pane::Source), app);
}

fn args_lines(app: &App, call: &Call) -> Vec<Line<'static>> {
    let th = &app.theme;
    let mut out = vec![Line::styled("arguments:", th.dimmed())];
    match call.request.params.arguments.as_deref() {
        Some(raw) => {
            let pretty = serde_json::from_str::<serde_json::Value>(raw.get())
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| raw.get().to_owned());
            for l in crate::text::sanitize(&pretty, true).lines() {
                out.push(Line::raw(format!("  {l}")));
            }
        }
        None => out.push(Line::raw("  (none)")),
    }
    out
}

fn tag_lines(
    app: &App,
    l: &Loaded,
    c: Option<&ClaimVerdict>,
    r: &ToolResult,
    cited_here: bool,
) -> Vec<Line<'static>> {
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
                "{} [{}, {}{}]",
                clean(&t.server),
                tier.tier.label(),
                tier.from.describe(),
                tier.review_due.map_or_else(String::new, |d| {
                    let d = d.to_string();
                    format!(", review due {}", d.get(..10).unwrap_or(&d))
                })
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
    match c.and_then(|c| c.freshness.as_ref()).filter(|_| cited_here) {
        Some(fr) => {
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
                    Span::styled("  STALE", th.severity(Severity::Error))
                } else {
                    Span::raw("")
                },
            ]));
        }
        None => out.push(kv("fetched", t.fetched_at.to_string())),
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
