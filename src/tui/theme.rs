//! Colours and badges, from one table. With `NO_COLOR` set, nothing is coloured and badges are
//! text labels. `provscope.toml`'s `[colors]` overrides colours by role (`error = "red"`).

use crate::check::{Kind, Quadrant, Severity};
use ratatui::style::{Color, Modifier, Style};

/// The palette.
#[derive(Clone, Debug)]
pub struct Theme {
    /// False under NO_COLOR.
    pub color: bool,
    /// Error findings.
    pub error: Color,
    /// Warning findings.
    pub warning: Color,
    /// Info findings.
    pub info: Color,
    /// Success, clean.
    pub ok: Color,
    /// Selection background.
    pub selection: Color,
    /// Text on the selection.
    pub selection_fg: Color,
    /// Highlighted span background.
    pub span: Color,
    /// Dim text.
    pub dim: Color,
    /// Titles and accents.
    pub accent: Color,
}

impl Theme {
    /// The default palette; `color = false` for NO_COLOR.
    pub fn new(color: bool) -> Self {
        Theme {
            color,
            error: Color::Red,
            warning: Color::Yellow,
            info: Color::Blue,
            ok: Color::Green,
            selection: Color::Blue,
            selection_fg: Color::White,
            span: Color::Yellow,
            dim: Color::DarkGray,
            accent: Color::Cyan,
        }
    }

    /// Applies `[colors]` overrides.
    pub fn with_overrides(mut self, t: &toml::Table) -> Result<Theme, super::SettingsError> {
        for (role, v) in t {
            let bad = |problem: String| super::SettingsError {
                section: "colors",
                entry: role.clone(),
                problem,
            };
            let name = v
                .as_str()
                .ok_or_else(|| bad("expected a colour name".into()))?;
            let c: Color = name
                .parse()
                .map_err(|_| bad(format!("`{name}` is not a colour (red, #ff8800, 208, ...)")))?;
            match role.as_str() {
                "error" => self.error = c,
                "warning" => self.warning = c,
                "info" => self.info = c,
                "ok" => self.ok = c,
                "selection" => self.selection = c,
                "selection_fg" => self.selection_fg = c,
                "span" => self.span = c,
                "dim" => self.dim = c,
                "accent" => self.accent = c,
                _ => {
                    return Err(bad("unknown role (error, warning, info, ok, selection, \
                                    selection_fg, span, dim, accent)"
                        .into()))
                }
            }
        }
        Ok(self)
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    /// Style of a severity.
    pub fn severity(&self, s: Severity) -> Style {
        match s {
            Severity::Error => self.fg(self.error).add_modifier(Modifier::BOLD),
            Severity::Warning => self.fg(self.warning),
            Severity::Info => self.fg(self.info),
        }
    }

    /// Style for clean rows.
    pub fn clean(&self) -> Style {
        self.fg(self.ok)
    }

    /// Dim text.
    pub fn dimmed(&self) -> Style {
        if self.color {
            Style::default().fg(self.dim)
        } else {
            Style::default()
        }
    }

    /// Accent text (titles).
    pub fn accent(&self) -> Style {
        self.fg(self.accent).add_modifier(Modifier::BOLD)
    }

    /// The selected row: every cell of it takes this foreground and background, so secondary
    /// (dim) text stays readable on the selection.
    pub fn selected(&self) -> Style {
        if self.color {
            Style::default()
                .fg(self.selection_fg)
                .bg(self.selection)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    /// The status line.
    pub fn status(&self) -> Style {
        self.fg(self.accent)
    }

    /// The cited span in a source.
    pub fn span(&self) -> Style {
        if self.color {
            Style::default().bg(self.span).fg(Color::Black)
        } else {
            Style::default().add_modifier(Modifier::REVERSED | Modifier::UNDERLINED)
        }
    }

    /// Fuzzy-match characters.
    pub fn matched(&self) -> Style {
        self.fg(self.accent)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// A badge for a finding kind: a distinct symbol in colour, or a text label under NO_COLOR.
    pub fn badge(&self, k: Kind) -> String {
        if !self.color {
            return format!("[{}]", k.name());
        }
        let sym = match k {
            Kind::Unsourced => "∅",
            Kind::DanglingOrigin => "↯",
            Kind::OriginMismatch => "≠",
            Kind::SpanInvalid => "⌧",
            Kind::SpanUnsupported => "≁",
            Kind::AmbiguousSupport => "≈",
            Kind::Stale => "◷",
            Kind::BelowTier => "▼",
            Kind::CitationDrift => "⇄",
            Kind::ParallelConflict => "≷",
            Kind::FlattenedContext => "≡",
            Kind::InjectionSuspect => "☠",
            Kind::EnvelopeMissing => "✉",
            Kind::EnvelopeInvalid => "✗",
            Kind::ResultTampered => "⚑",
            Kind::EnvelopePartial => "◐",
            Kind::AnswerMismatch => "≟",
            Kind::TierRendering => "⚐",
            Kind::TierReviewOverdue => "⌛",
            Kind::UntrustedContext => "⚠",
            Kind::SubAgentSource => "↳",
        };
        format!("{sym} {}", short(k))
    }

    /// Quadrant label: short form.
    pub fn quadrant(&self, q: Option<Quadrant>) -> &'static str {
        match q {
            Some(Quadrant::FactRightSourceRight) => "RR",
            Some(Quadrant::FactRightSourceWrong) => "RW",
            Some(Quadrant::FactWrongSourceRight) => "WR",
            Some(Quadrant::FactWrongSourceWrong) => "WW",
            None => "--",
        }
    }
}

/// A short label for badges in colour mode.
fn short(k: Kind) -> &'static str {
    match k {
        Kind::Unsourced => "unsourced",
        Kind::DanglingOrigin => "dangling",
        Kind::OriginMismatch => "mismatch",
        Kind::SpanInvalid => "span",
        Kind::SpanUnsupported => "unsupported",
        Kind::AmbiguousSupport => "ambiguous",
        Kind::Stale => "stale",
        Kind::BelowTier => "tier",
        Kind::CitationDrift => "drift",
        Kind::ParallelConflict => "conflict",
        Kind::FlattenedContext => "flattened",
        Kind::InjectionSuspect => "injection",
        Kind::EnvelopeMissing => "no-envelope",
        Kind::EnvelopeInvalid => "bad-envelope",
        Kind::ResultTampered => "tampered",
        Kind::EnvelopePartial => "partial-envelope",
        Kind::AnswerMismatch => "answer",
        Kind::TierRendering => "label",
        Kind::TierReviewOverdue => "review",
        Kind::UntrustedContext => "context",
        Kind::SubAgentSource => "sub-agent",
    }
}
