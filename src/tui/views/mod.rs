//! Pure render functions, one per view, plus the frame around them (header, footer, overlays).
//! Every string from a log passes through `crate::text` sanitizing before it is drawn. Lists
//! build only the rows that fit on screen. [`render`] returns what it drew where ([`Drawn`]):
//! the mouse is mapped on that, never on a recomputed layout.

pub mod claim;
pub mod diff;
mod drift;
mod grid;
mod help;
mod input;
mod parallel;
mod queue;
mod review;
mod search;
pub mod session;
mod sessions;
mod source;

use super::action::{Hit, Pane, View};
use super::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// What a frame drew where: later entries lie on top of earlier ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    /// (area, what is there).
    pub regions: Vec<(Rect, Hit)>,
}

impl Drawn {
    /// Records an area.
    pub fn add(&mut self, r: Rect, h: Hit) {
        self.regions.push((r, h));
    }

    /// What is drawn at a position (the topmost region).
    pub fn hit(&self, col: u16, row: u16) -> Option<Hit> {
        self.regions
            .iter()
            .rev()
            .find(|(r, _)| col >= r.x && col < r.right() && row >= r.y && row < r.bottom())
            .map(|(_, h)| *h)
    }

    /// The pane under a position, for the wheel.
    pub fn pane(&self, col: u16, row: u16) -> Option<Hit> {
        self.regions
            .iter()
            .rev()
            .filter(|(_, h)| matches!(h, Hit::Pane(_)))
            .find(|(r, _)| col >= r.x && col < r.right() && row >= r.y && row < r.bottom())
            .map(|(_, h)| *h)
    }
}

/// Sanitized single-line text.
pub(crate) fn clean(s: &str) -> String {
    crate::text::one_line(s).into_owned()
}

/// Display width of a string.
pub(crate) fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Truncates to `w` display columns with an ellipsis (wide characters never straddle the edge).
pub(crate) fn fit(s: &str, w: usize) -> String {
    if width(s) <= w {
        return s.to_owned();
    }
    if w == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw > w - 1 {
            break;
        }
        used += cw;
        out.push(c);
    }
    out.push('…');
    out
}

/// Takes `over` columns from `widths`, one at a time from each in turn, never below `min`
/// (what is still over once every width is at `min` is left to the table).
pub(crate) fn shrink(widths: &mut [usize], min: usize, mut over: usize) {
    while over > 0 {
        let mut took = false;
        for w in widths.iter_mut() {
            if over > 0 && *w > min {
                *w -= 1;
                over -= 1;
                took = true;
            }
        }
        if !took {
            break;
        }
    }
}

/// The first row to show so that `selected` stays visible in a list of `len` rows of `height`.
pub(crate) fn window(selected: usize, len: usize, height: usize) -> usize {
    if len <= height || height == 0 {
        return 0;
    }
    selected.saturating_sub(height / 2).min(len - height)
}

/// Wraps styled lines at `w` display columns at word boundaries (a word wider than `w` is
/// broken by character), so that row counts, and so scroll offsets, are exact.
pub(crate) fn wrap(lines: Vec<Line<'static>>, w: usize) -> Vec<Line<'static>> {
    let w = w.max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.width() <= w {
            out.push(line);
            continue;
        }
        let lstyle = line.style;
        let cells: Vec<(char, Style)> = line
            .spans
            .iter()
            .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
            .collect();
        let mut rows: Vec<Vec<(char, Style)>> = vec![Vec::new()];
        let mut used = 0;
        let mut i = 0;
        while i < cells.len() {
            // The next word, with the spaces that follow it.
            let mut j = i;
            while j < cells.len() && cells[j].0 != ' ' {
                j += 1;
            }
            while j < cells.len() && cells[j].0 == ' ' {
                j += 1;
            }
            let word = &cells[i..j];
            let ww: usize = word
                .iter()
                .filter(|(c, _)| *c != ' ')
                .map(|(c, _)| c.width().unwrap_or(0))
                .sum();
            if used > 0 && used + ww > w {
                rows.push(Vec::new());
                used = 0;
            }
            for &(c, st) in word {
                let cw = c.width().unwrap_or(0);
                if used + cw > w {
                    if c == ' ' {
                        continue;
                    }
                    rows.push(Vec::new());
                    used = 0;
                }
                if let Some(r) = rows.last_mut() {
                    r.push((c, st));
                }
                used += cw;
            }
            i = j;
        }
        for r in rows {
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, st) in r {
                match spans.last_mut() {
                    Some(last) if last.style == st => last.content.to_mut().push(c),
                    _ => spans.push(Span::styled(c.to_string(), st)),
                }
            }
            out.push(Line::from(spans).style(lstyle));
        }
    }
    out
}

/// A bordered pane; focused panes get the accent border.
pub(crate) fn pane<'a>(title: String, focused: bool, app: &App) -> Block<'a> {
    let b = Block::default().borders(Borders::ALL).title(title);
    if focused {
        b.border_style(app.theme.accent())
    } else {
        b
    }
}

/// Draws pre-wrapped lines in `inner` from row `scroll` (clamped), with a "k-l of n" marker in
/// the bottom border when they do not fit. Returns the offset used.
pub(crate) fn scrolled(
    f: &mut Frame,
    outer: Rect,
    inner: Rect,
    lines: Vec<Line<'static>>,
    scroll: usize,
    app: &App,
) -> usize {
    let h = usize::from(inner.height);
    let n = lines.len();
    let max = n.saturating_sub(h);
    let off = scroll.min(max);
    let shown: Vec<Line> = lines.into_iter().skip(off).take(h).collect();
    f.render_widget(Paragraph::new(shown), inner);
    if n > h && outer.height > 0 && outer.width > 12 {
        let label = format!(" {}-{} of {} ", off + 1, (off + h).min(n), n);
        let w = width(&label) as u16;
        let x = outer.right().saturating_sub(w + 1);
        f.render_widget(
            Paragraph::new(label).style(app.theme.dimmed()),
            Rect::new(x.max(outer.x), outer.bottom() - 1, w.min(outer.width), 1),
        );
    }
    off
}

/// Header, body, footer areas.
pub(crate) fn frame_layout(area: Rect) -> (Rect, Rect, Rect) {
    let [h, b, f] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(2),
    ])
    .areas(area);
    (h, b, f)
}

/// The body area for a terminal size.
pub(crate) fn body_of(size: (u16, u16)) -> Rect {
    frame_layout(Rect::new(0, 0, size.0, size.1)).1
}

/// Draws the whole screen; returns what it drew where.
pub fn render(f: &mut Frame, app: &App) -> Drawn {
    let mut d = Drawn::default();
    let (header, body, footer) = frame_layout(f.area());
    render_header(f, header, app);
    match app.view {
        View::Sessions => sessions::render(f, body, app, &mut d),
        View::Session => session::render(f, body, app, &mut d),
        View::Claim => claim::render(f, body, app, &mut d),
        View::Drift => drift::render(f, body, app, &mut d),
        View::Parallel => parallel::render(f, body, app, &mut d),
        View::Grid => grid::render(f, body, app, &mut d),
        View::Queue => queue::render(f, body, app, &mut d),
        View::Review => review::render(f, body, app, &mut d),
        View::DiffPairs => diff::render_pairs(f, body, app, &mut d),
        View::Diff => diff::render(f, body, app, &mut d),
        View::DiffClaim => diff::render_claim(f, body, app, &mut d),
    }
    render_footer(f, footer, app);
    if app.input.is_some() {
        input::render(f, body, app, &mut d);
    }
    if app.help {
        help::render(f, body, app, &mut d);
    }
    d
}

fn render_header(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let mut spans = vec![
        Span::styled(" provscope ", th.accent()),
        Span::raw("│ "),
        Span::styled(app.view.title(), th.accent()),
    ];
    if !matches!(
        app.view,
        View::Sessions | View::Queue | View::Grid | View::DiffPairs | View::Diff | View::DiffClaim
    ) {
        if let Some(l) = app.current() {
            spans.push(Span::raw(" │ "));
            spans.push(Span::raw(clean(&l.session.name)));
        }
    }
    if matches!(app.view, View::Queue | View::Grid | View::Review) && !app.filter.is_empty() {
        spans.push(Span::raw(" │ filter: "));
        spans.push(Span::styled(clean(&app.filter.text()), th.accent()));
    }
    if let Some((done, total)) = app.loading {
        spans.push(Span::raw(format!("  loading {done}/{total}")));
    }
    for g in &app.growing {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(growing_text(app, g), th.dimmed()));
    }
    if let Some(fl) = &app.follow {
        spans.push(Span::raw("  "));
        if fl.mode.is_empty() {
            spans.push(Span::styled("◌ follow: starting", th.dimmed()));
        } else {
            spans.push(Span::styled("● following", th.clean()));
            let mut what = format!(" {} file(s)", fl.files);
            if fl.mode != "file notifications" {
                what.push_str(&format!(" ({})", fl.mode));
            }
            what.push_str(&format!(" · {} update(s)", fl.updates));
            if let Some(last) = &fl.last {
                what.push_str(&format!(" · last {}", clean(last)));
            }
            spans.push(Span::raw(what));
        }
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// A large log opened in steps: how much of it is checked, and how far the next step has read
/// or, once read, how far its checks are.
fn growing_text(app: &App, g: &crate::tui::app::Growing) -> String {
    let name = app
        .sessions
        .get(g.index)
        .map_or_else(String::new, |l| clean(&l.session.name));
    // MB, or KB for a log under 10 MB.
    let (unit, div) = if g.total >= 10_000_000 {
        ("MB", 1e6)
    } else {
        ("KB", 1e3)
    };
    let pct = |b: u64| (b as f64 * 100.0 / g.total.max(1) as f64).min(100.0);
    let next = match g.checking {
        Some(c) => format!("checking up to {:.0}%: {c}% done", pct(g.read)),
        None => format!("reading {:.0}%", pct(g.read)),
    };
    format!(
        "◌ {name}: {:.0}% checked ({:.0}/{:.0} {unit}), {next}",
        pct(g.checked),
        g.checked as f64 / div,
        g.total as f64 / div,
    )
}

fn render_footer(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let km = &app.keymap;
    let [status, hints] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    let msg = if app.status.is_empty() {
        String::new()
    } else {
        // A message longer than the line ends in an ellipsis rather than being cut mid-word.
        fit(
            &format!(" {}", clean(&app.status)),
            usize::from(status.width),
        )
    };
    f.render_widget(Paragraph::new(msg).style(th.status()), status);
    let hint = |name: &str, what: &str| format!("{} {what}", km.key_of(name));
    let classify = format!(
        "{}-{} classify",
        km.key_of("classify_rr"),
        km.key_of("classify_ww")
    );
    let mut parts = vec![hint("help", "help"), hint("back", "back")];
    match app.view {
        View::Sessions => parts.extend([
            hint("open", "open"),
            hint("diff", "diff"),
            hint("sort", "sort"),
            hint("sort_reverse", "reverse"),
            hint("search", "search"),
            hint("filter", "filter"),
        ]),
        View::Session => parts.extend([
            hint("focus", "pane"),
            hint("open", "open"),
            hint("claim", "claim"),
            hint("drift", "drift"),
            hint("parallel", "parallel"),
            hint("follow", "follow"),
            hint("open_log", "$EDITOR"),
        ]),
        View::Claim | View::Review => parts.extend([
            hint("next", "next flagged"),
            classify,
            hint("note", "note"),
            hint("reviewed", "reviewed"),
            format!("{}{} calls", km.key_of("prev_call"), km.key_of("next_call")),
            hint("copy", "copy"),
        ]),
        View::Grid => parts.extend([hint("open", "claims of the cell"), hint("filter", "filter")]),
        View::Queue => parts.extend([
            hint("open", "open"),
            classify,
            hint("reviewed", "reviewed"),
            hint("filter", "filter"),
        ]),
        View::Drift | View::Parallel => parts.extend([hint("claim", "claim")]),
        View::DiffPairs => parts.extend([hint("open", "side by side"), hint("copy", "copy")]),
        View::Diff | View::DiffClaim => parts.extend([
            hint("next_change", "next change"),
            hint("prev_change", "prev"),
            hint("focus", "A/B"),
            hint("open", "beside both sources"),
            hint("copy", "copy"),
            hint("open_log", "$EDITOR"),
        ]),
    }
    parts.extend([
        hint("grid", "grid"),
        hint("queue", "queue"),
        hint("review", "review"),
    ]);
    f.render_widget(
        Paragraph::new(fit(
            &format!(" {}", parts.join("  ")),
            usize::from(area.width),
        ))
        .style(Style::default()),
        hints,
    );
}

/// The pane a scroll key moves in the current view.
pub fn scroll_pane(app: &App) -> Pane {
    use super::app::Focus;
    match app.view {
        View::Session => match app.focus {
            Focus::Turns => Pane::Answer,
            Focus::Calls => Pane::Calls,
            Focus::Claims => Pane::Answer,
            Focus::Answer => Pane::Answer,
        },
        View::Claim | View::Review => {
            if app.source_focus {
                Pane::Source
            } else {
                Pane::Claim
            }
        }
        View::DiffClaim => {
            use super::diff::{Part, Side};
            match app.diff.as_ref().and_then(|d| d.open.as_ref()) {
                Some(op) => match (op.side, op.part) {
                    (Side::A, Part::Claim) => Pane::DiffClaimA,
                    (Side::A, Part::Source) => Pane::DiffA,
                    (Side::B, Part::Claim) => Pane::DiffClaimB,
                    (Side::B, Part::Source) => Pane::DiffB,
                },
                None => Pane::DiffB,
            }
        }
        _ => Pane::Body,
    }
}

pub use source::shown_call_id;

/// The largest scroll offset of a pane at the current terminal size.
pub fn max_scroll(app: &App, p: Pane) -> usize {
    let body = body_of(app.size);
    match p {
        Pane::Source | Pane::Claim => claim::pane_rows(app, p),
        Pane::Answer => {
            let Some(l) = app.current() else { return 0 };
            let a = session::areas(app, body);
            let w = usize::from(a.answer.width.saturating_sub(2)).max(1);
            let h = usize::from(a.answer.height.saturating_sub(2));
            session::answer_lines(app, l, w).len().saturating_sub(h)
        }
        Pane::Help => {
            let r = help::area(body);
            let w = usize::from(r.width.saturating_sub(2)).max(1);
            let h = usize::from(r.height.saturating_sub(2));
            help::lines(app, w).len().saturating_sub(h)
        }
        // The drift and parallel bodies clamp when drawn.
        Pane::Body => 200,
        Pane::DiffA | Pane::DiffB => diff::source_rows(app, p),
        Pane::DiffClaimA | Pane::DiffClaimB => diff::claim_rows(app, p),
        Pane::Turns | Pane::Calls | Pane::Claims => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::shrink;

    #[test]
    fn shrink_takes_evenly_and_stops_at_the_minimum() {
        let mut w = [20, 20, 18];
        shrink(&mut w, 8, 7);
        assert_eq!(w, [17, 18, 16]);
        let mut w = [20, 20, 18];
        shrink(&mut w, 8, 1000);
        assert_eq!(w, [8, 8, 8]);
        let mut w = [20, 9, 18];
        shrink(&mut w, 8, 0);
        assert_eq!(w, [20, 9, 18]);
    }
}
