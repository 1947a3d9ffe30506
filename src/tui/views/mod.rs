//! Pure render functions, one per view, plus the frame around them (header, footer, overlays).
//! Every string from a log passes through `crate::text` sanitizing before it is drawn. Lists
//! build only the rows that fit on screen.

mod claim;
mod drift;
mod grid;
mod help;
mod parallel;
mod review;
mod search;
mod session;
mod sessions;

use super::action::View;
use super::app::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Sanitized single-line text.
pub(crate) fn clean(s: &str) -> String {
    crate::text::one_line(s).into_owned()
}

/// Truncates to `w` display columns with an ellipsis.
pub(crate) fn fit(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(w.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The first row to show so that `selected` stays visible in a list of `len` rows of `height`.
pub(crate) fn window(selected: usize, len: usize, height: usize) -> usize {
    if len <= height || height == 0 {
        return 0;
    }
    selected.saturating_sub(height / 2).min(len - height)
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

/// Draws the whole screen.
pub fn render(f: &mut Frame, app: &App) {
    let (header, body, footer) = frame_layout(f.area());
    render_header(f, header, app);
    match app.view {
        View::Sessions => sessions::render(f, body, app),
        View::Session => session::render(f, body, app),
        View::Claim => claim::render(f, body, app),
        View::Drift => drift::render(f, body, app),
        View::Parallel => parallel::render(f, body, app),
        View::Grid => grid::render(f, body, app),
        View::Review => review::render(f, body, app),
    }
    render_footer(f, footer, app);
    if app.input.is_some() {
        search::render(f, body, app);
    }
    if app.help {
        help::render(f, body, app);
    }
}

fn render_header(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let mut spans = vec![
        Span::styled(" provscope ", th.accent()),
        Span::raw("│ "),
        Span::styled(app.view.title(), th.accent()),
    ];
    if app.view != View::Sessions {
        if let Some(l) = app.current() {
            spans.push(Span::raw(" │ "));
            spans.push(Span::raw(clean(&l.session.name)));
        }
    }
    if let Some((done, total)) = app.loading {
        spans.push(Span::raw(format!("  loading {done}/{total}")));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn render_footer(f: &mut Frame, area: Rect, app: &App) {
    let th = &app.theme;
    let km = &app.keymap;
    let [status, hints] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    let msg = if app.status.is_empty() {
        String::new()
    } else {
        format!(" {}", clean(&app.status))
    };
    f.render_widget(Paragraph::new(msg).style(th.dimmed()), status);
    let hint = |name: &str, what: &str| format!("{} {what}", km.key_of(name));
    let mut parts = vec![
        hint("help", "help"),
        hint("back", "back"),
        hint("search", "search"),
    ];
    match app.view {
        View::Sessions => parts.extend([hint("open", "open"), hint("sort", "sort")]),
        View::Session => parts.extend([
            hint("open", "open"),
            hint("claim", "claim"),
            hint("drift", "drift"),
            hint("parallel", "parallel"),
        ]),
        View::Claim | View::Review => parts.extend([
            hint("next", "next flagged"),
            format!(
                "{}-{} classify",
                km.key_of("classify_rr"),
                km.key_of("classify_ww")
            ),
            hint("note", "note"),
            hint("reviewed", "reviewed"),
        ]),
        View::Grid => parts.extend([
            format!(
                "{}-{} classify",
                km.key_of("classify_rr"),
                km.key_of("classify_ww")
            ),
            hint("note", "note"),
        ]),
        View::Drift | View::Parallel => parts.extend([hint("claim", "claim")]),
    }
    parts.extend([hint("grid", "grid"), hint("review", "review")]);
    f.render_widget(
        Paragraph::new(format!(" {}", parts.join("  "))).style(Style::default()),
        hints,
    );
}

/// What a mouse click landed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// A row of the sessions table (index into `order`).
    SessionRow(usize),
    /// A turn in the session view (index into `turns`).
    Turn(usize),
    /// A claim (index into `report.claims`).
    Claim(usize),
}

/// Maps a click to what is drawn there, with the same layout the views use.
pub fn hit_test(app: &App, col: u16, row: u16) -> Option<Hit> {
    let area = Rect::new(0, 0, app.size.0, app.size.1);
    let (_, body, _) = frame_layout(area);
    match app.view {
        View::Sessions => sessions::hit(app, body, col, row),
        View::Session => session::hit(app, body, col, row),
        _ => None,
    }
}
