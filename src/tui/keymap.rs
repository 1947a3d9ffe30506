//! Keys are data: one table maps keys to actions, per view or everywhere. The help overlay and
//! the footer hints are generated from this table, and `provscope.toml`'s `[keys]` section
//! overrides it (`quit = ["q", "ctrl-c"]`).

use super::action::{Action, View};
use crate::check::Quadrant;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key: a code and whether Ctrl/Alt are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySpec {
    code: KeyCode,
    ctrl: bool,
    alt: bool,
}

impl KeySpec {
    /// Parses `q`, `G`, `?`, `Esc`, `Enter`, `Up`, `PageDown`, `Home`, `Tab`, `ctrl-c`, `alt-x`.
    pub fn parse(s: &str) -> Result<KeySpec, String> {
        let mut ctrl = false;
        let mut alt = false;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            if lower.starts_with("ctrl-") && rest.len() > 5 {
                ctrl = true;
                rest = &rest[5..];
            } else if lower.starts_with("alt-") && rest.len() > 4 {
                alt = true;
                rest = &rest[4..];
            } else {
                break;
            }
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "esc" | "escape" => KeyCode::Esc,
            "enter" | "return" => KeyCode::Enter,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" | "pgup" => KeyCode::PageUp,
            "pagedown" | "pgdn" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "space" => KeyCode::Char(' '),
            "backspace" => KeyCode::Backspace,
            _ => {
                let mut cs = rest.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => KeyCode::Char(c),
                    _ => {
                        return Err(format!(
                            "`{s}` is not a key (examples: q, G, ?, Esc, Enter, PageDown, ctrl-c)"
                        ))
                    }
                }
            }
        };
        Ok(KeySpec { code, ctrl, alt })
    }

    fn matches(&self, k: &KeyEvent) -> bool {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        // Shifted letters arrive as uppercase chars and compare as typed.
        let code = k.code;
        code == self.code && ctrl == self.ctrl && alt == self.alt
    }

    /// How the key is shown in help.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Esc => "Esc".to_owned(),
            KeyCode::Enter => "Enter".to_owned(),
            KeyCode::Up => "↑".to_owned(),
            KeyCode::Down => "↓".to_owned(),
            KeyCode::Left => "←".to_owned(),
            KeyCode::Right => "→".to_owned(),
            KeyCode::PageUp => "PgUp".to_owned(),
            KeyCode::PageDown => "PgDn".to_owned(),
            KeyCode::Home => "Home".to_owned(),
            KeyCode::End => "End".to_owned(),
            KeyCode::Tab => "Tab".to_owned(),
            KeyCode::BackTab => "S-Tab".to_owned(),
            KeyCode::Backspace => "Bksp".to_owned(),
            KeyCode::Char(' ') => "Space".to_owned(),
            KeyCode::Char(c) => c.to_string(),
            _ => "?".to_owned(),
        };
        match (self.ctrl, self.alt) {
            (true, _) => format!("C-{base}"),
            (_, true) => format!("M-{base}"),
            _ => base,
        }
    }
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Binding {
    /// Stable name used in `provscope.toml`.
    pub name: &'static str,
    /// Keys that trigger it.
    pub keys: Vec<KeySpec>,
    /// What it does.
    pub action: Action,
    /// Help text.
    pub help: &'static str,
    /// Views where it applies; empty means everywhere.
    pub views: Vec<View>,
}

/// The key table.
#[derive(Clone, Debug)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

fn b(
    name: &'static str,
    keys: &[&str],
    action: Action,
    help: &'static str,
    views: &[View],
) -> Binding {
    Binding {
        name,
        keys: keys.iter().filter_map(|k| KeySpec::parse(k).ok()).collect(),
        action,
        help,
        views: views.to_vec(),
    }
}

impl Default for Keymap {
    fn default() -> Self {
        use View::*;
        let claimish = [Claim, Queue, Review];
        let not_sessions = [
            Session, Claim, Drift, Parallel, Grid, Queue, Review, DiffClaim,
        ];
        let diffs = [Diff, DiffClaim];
        Keymap {
            bindings: vec![
                b("up", &["k", "Up"], Action::Up, "move up", &[]),
                b("down", &["j", "Down"], Action::Down, "move down", &[]),
                b(
                    "left",
                    &["h", "Left"],
                    Action::Left,
                    "focus the pane to the left (grid: the cell to the left)",
                    &[Session, Claim, Review, Grid, Diff, DiffClaim],
                ),
                b(
                    "right",
                    &["l", "Right"],
                    Action::Right,
                    "focus the pane to the right (grid: the cell to the right)",
                    &[Session, Claim, Review, Grid, Diff, DiffClaim],
                ),
                b(
                    "focus",
                    &["Tab"],
                    Action::FocusNext,
                    "focus the next pane (diff: the next side, claim or source)",
                    &[Session, Claim, Review, Grid, Diff, DiffClaim],
                ),
                b(
                    "page_up",
                    &["PageUp", "ctrl-u"],
                    Action::PageUp,
                    "page up",
                    &[],
                ),
                b(
                    "page_down",
                    &["PageDown", "ctrl-d"],
                    Action::PageDown,
                    "page down",
                    &[],
                ),
                b("top", &["g", "Home"], Action::Top, "first row", &[]),
                b("bottom", &["G", "End"], Action::Bottom, "last row", &[]),
                b(
                    "open",
                    &["Enter"],
                    Action::Open,
                    "open the selection (a call: beside the claim; a grid cell: its claims)",
                    &[],
                ),
                b(
                    "back",
                    &["Esc", "q"],
                    Action::Back,
                    "back; quit from the first view",
                    &[],
                ),
                b("quit", &["ctrl-c", "Q"], Action::Quit, "quit", &[]),
                b("help", &["?"], Action::Help, "this help", &[]),
                b(
                    "search",
                    &["/"],
                    Action::Search,
                    "search every loaded session: claim and call ids, claim text, tools, servers, results, finding kinds",
                    &[],
                ),
                b(
                    "filter",
                    &["f"],
                    Action::Filter,
                    "filter the queue, grid and review (kind, severity, quadrant, tier, server, reviewed, classified, correction)",
                    &[],
                ),
                b(
                    "sessions",
                    &["S"],
                    Action::Goto(Sessions),
                    "sessions view",
                    &[],
                ),
                b(
                    "claim",
                    &["c"],
                    Action::Goto(Claim),
                    "claim beside its source (diff: the focused side's claim)",
                    &[Session, Drift, Parallel, Grid, Queue, Review, Diff, DiffClaim],
                ),
                b(
                    "drift",
                    &["d"],
                    Action::Goto(Drift),
                    "drift: the claim's binding across turns",
                    &[Session, Claim, Parallel, Grid, Queue, Review],
                ),
                b(
                    "parallel",
                    &["p"],
                    Action::Goto(Parallel),
                    "parallel: the claim's fan-out group",
                    &[Session, Claim, Drift, Grid, Queue, Review],
                ),
                b(
                    "grid",
                    &["x"],
                    Action::Goto(Grid),
                    "the fact-versus-source grid of the filtered claims",
                    &[],
                ),
                b(
                    "queue",
                    &["w"],
                    Action::Goto(Queue),
                    "the queue: filtered claims of every loaded session",
                    &[],
                ),
                b(
                    "review",
                    &["r"],
                    Action::Goto(Review),
                    "review walkthrough of the filtered flagged, corrected and hand-classified claims",
                    &[],
                ),
                b(
                    "next_change",
                    &["n"],
                    Action::Next,
                    "next change (wraps)",
                    &diffs,
                ),
                b(
                    "prev_change",
                    &["N", "b"],
                    Action::Prev,
                    "previous change (wraps)",
                    &diffs,
                ),
                b(
                    "next",
                    &["n"],
                    Action::Next,
                    "next flagged claim (wraps)",
                    &[Review, Claim, Queue],
                ),
                b(
                    "prev",
                    &["N", "b"],
                    Action::Prev,
                    "previous flagged claim (wraps)",
                    &[Review, Claim, Queue],
                ),
                b(
                    "order",
                    &["t"],
                    Action::ToggleOrder,
                    "n/N order: turn order or errors first",
                    &[Claim],
                ),
                b(
                    "classify_rr",
                    &["1"],
                    Action::Classify(Quadrant::FactRightSourceRight),
                    "classify: fact right, source right",
                    &claimish,
                ),
                b(
                    "classify_rw",
                    &["2"],
                    Action::Classify(Quadrant::FactRightSourceWrong),
                    "classify: fact right, source wrong",
                    &claimish,
                ),
                b(
                    "classify_wr",
                    &["3"],
                    Action::Classify(Quadrant::FactWrongSourceRight),
                    "classify: fact wrong, source right",
                    &claimish,
                ),
                b(
                    "classify_ww",
                    &["4"],
                    Action::Classify(Quadrant::FactWrongSourceWrong),
                    "classify: fact wrong, source wrong",
                    &claimish,
                ),
                b(
                    "note",
                    &["i"],
                    Action::Note,
                    "write a note on the claim (Ctrl-J: new line)",
                    &claimish,
                ),
                b(
                    "reviewed",
                    &["m"],
                    Action::ToggleReviewed,
                    "mark reviewed / not reviewed",
                    &claimish,
                ),
                b(
                    "export",
                    &["e"],
                    Action::Export,
                    "export the claim as a regression case",
                    &claimish,
                ),
                b(
                    "copy",
                    &["y"],
                    Action::Copy,
                    "copy the focused item (claim id, span, call id, case path, file) via OSC 52",
                    &[],
                ),
                b(
                    "open_log",
                    &["o"],
                    Action::OpenExternal,
                    "open the log at this line in $EDITOR (or $PAGER)",
                    &[],
                ),
                b(
                    "prev_call",
                    &["["],
                    Action::CycleCall(-1),
                    "show the turn's previous call beside the claim",
                    &[Claim, Review],
                ),
                b(
                    "next_call",
                    &["]"],
                    Action::CycleCall(1),
                    "show the turn's next call beside the claim",
                    &[Claim, Review],
                ),
                b(
                    "sub_session",
                    &["a"],
                    Action::SubSession,
                    "open the sub-agent session a call of this turn ran (again: the next one)",
                    &[Session, Claim],
                ),
                b(
                    "follow",
                    &["F"],
                    Action::Follow,
                    "follow the logs as they grow (again: stop)",
                    &[],
                ),
                b(
                    "diff",
                    &["D"],
                    Action::DiffMark,
                    "diff: mark this session as A; on another session, compare A with it side by side",
                    &[Sessions],
                ),
                b(
                    "sort",
                    &["s"],
                    Action::Sort,
                    "sort sessions by the next column",
                    &[Sessions],
                ),
                b(
                    "sort_reverse",
                    &["-"],
                    Action::SortReverse,
                    "reverse the sort",
                    &[Sessions],
                ),
                b(
                    "scroll_down",
                    &["J", "ctrl-e"],
                    Action::Scroll(3),
                    "scroll the focused pane (the source) down",
                    &not_sessions,
                ),
                b(
                    "scroll_up",
                    &["K", "ctrl-y"],
                    Action::Scroll(-3),
                    "scroll the focused pane (the source) up",
                    &not_sessions,
                ),
            ],
        }
    }
}

impl Keymap {
    /// The default table with `[keys]` overrides: `name = ["key", ...]` replaces that binding's keys.
    pub fn with_overrides(overrides: &toml::Table) -> Result<Keymap, super::SettingsError> {
        let mut km = Keymap::default();
        for (name, v) in overrides {
            let bad = |problem: String| super::SettingsError {
                section: "keys",
                entry: name.clone(),
                problem,
            };
            let Some(binding) = km.bindings.iter_mut().find(|b| b.name == name) else {
                let names: Vec<&str> = Keymap::default().bindings.iter().map(|b| b.name).collect();
                return Err(bad(format!(
                    "unknown action (one of: {})",
                    names.join(", ")
                )));
            };
            let list: Vec<&str> = match v {
                toml::Value::String(s) => vec![s.as_str()],
                toml::Value::Array(a) => a.iter().filter_map(|x| x.as_str()).collect(),
                _ => return Err(bad("expected a key or a list of keys".into())),
            };
            binding.keys = list
                .iter()
                .map(|k| KeySpec::parse(k))
                .collect::<Result<_, _>>()
                .map_err(bad)?;
        }
        Ok(km)
    }

    /// The action for a key in a view, if any.
    pub fn lookup(&self, key: &KeyEvent, view: View) -> Option<Action> {
        self.bindings
            .iter()
            .filter(|b| b.views.is_empty() || b.views.contains(&view))
            .find(|b| b.keys.iter().any(|k| k.matches(key)))
            .map(|b| b.action.clone())
    }

    /// Every binding that applies in a view, for the help overlay: (keys, help).
    /// The view's own keys come first.
    pub fn help_rows(&self, view: View) -> Vec<(String, &'static str)> {
        let mut rows: Vec<&Binding> = self
            .bindings
            .iter()
            .filter(|b| b.views.is_empty() || b.views.contains(&view))
            .collect();
        rows.sort_by_key(|b| b.views.is_empty());
        rows.into_iter()
            .map(|b| {
                let keys: Vec<String> = b.keys.iter().map(KeySpec::label).collect();
                (keys.join(" "), b.help)
            })
            .collect()
    }

    /// Every binding: (name, keys as shown, help, views; empty = everywhere).
    pub fn rows(&self) -> Vec<(&'static str, String, &'static str, Vec<View>)> {
        self.bindings
            .iter()
            .map(|b| {
                let keys: Vec<String> = b.keys.iter().map(KeySpec::label).collect();
                (b.name, keys.join(" "), b.help, b.views.clone())
            })
            .collect()
    }

    /// The first key of a named binding, for footer hints.
    pub fn key_of(&self, name: &str) -> String {
        self.bindings
            .iter()
            .find(|b| b.name == name)
            .and_then(|b| b.keys.first())
            .map(KeySpec::label)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn defaults_and_views() {
        let km = Keymap::default();
        assert_eq!(
            km.lookup(&key(KeyCode::Char('j')), View::Sessions),
            Some(Action::Down)
        );
        assert_eq!(
            km.lookup(&key(KeyCode::Char('n')), View::Review),
            Some(Action::Next)
        );
        assert_eq!(km.lookup(&key(KeyCode::Char('n')), View::Sessions), None);
        assert_eq!(
            km.lookup(
                &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
                View::Grid
            ),
            Some(Action::Quit)
        );
    }

    #[test]
    fn overrides_replace_keys_and_reject_garbage() {
        let t: toml::Table = toml::from_str("down = [\"s\", \"Down\"]\nquit = \"ctrl-q\"").unwrap();
        let km = Keymap::with_overrides(&t).unwrap();
        assert_eq!(
            km.lookup(&key(KeyCode::Char('s')), View::Claim),
            Some(Action::Down)
        );
        assert_eq!(km.lookup(&key(KeyCode::Char('j')), View::Claim), None);
        let bad: toml::Table = toml::from_str("fly = \"x\"").unwrap();
        let e = Keymap::with_overrides(&bad).unwrap_err();
        assert_eq!((e.section, e.entry.as_str()), ("keys", "fly"));
        assert!(e.to_string().starts_with("keys.fly: unknown action"), "{e}");
        let bad: toml::Table = toml::from_str("down = \"Hyper-x\"").unwrap();
        assert!(Keymap::with_overrides(&bad).is_err());
    }
}
