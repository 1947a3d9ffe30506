//! Text inputs (search, filter, notes) that behave like a shell line editor, on
//! `ratatui-textarea`: Left/Right, Home/End, Ctrl-A/E/B/F, Alt-B/F, Ctrl-W/U/K, Backspace,
//! Delete, Esc or Ctrl-C cancel the input (never the program); notes take several lines
//! (Ctrl-J or Alt-Enter), Enter submits.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui_textarea::{CursorMove, TextArea, WrapMode};

/// What the input is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// `/` search.
    Search,
    /// The note of the selected claim.
    Note,
    /// The filter bar.
    Filter,
}

/// A text input in progress.
#[derive(Clone, Debug)]
pub struct Input {
    /// What it is for.
    pub kind: InputKind,
    /// The editor.
    pub area: TextArea<'static>,
}

/// What a key did to an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The text changed.
    Changed,
    /// The cursor moved or nothing happened.
    Moved,
    /// Enter.
    Submit,
    /// Esc or Ctrl-C.
    Cancel,
    /// Up (single-line inputs: the list above).
    Up,
    /// Down.
    Down,
}

impl Input {
    /// A new input holding `text` (sanitized: stored notes are untrusted), cursor at the end.
    pub fn new(kind: InputKind, text: &str) -> Input {
        let clean = crate::text::sanitize(text, kind == InputKind::Note);
        let lines: Vec<String> = clean.split('\n').map(str::to_owned).collect();
        let mut area = TextArea::new(lines);
        area.set_cursor_line_style(Style::default());
        area.set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
        area.set_wrap_mode(WrapMode::WordOrGlyph);
        area.move_cursor(CursorMove::Bottom);
        area.move_cursor(CursorMove::End);
        Input { kind, area }
    }

    /// The text (lines joined by `\n`).
    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// True for inputs of several lines.
    pub fn multiline(&self) -> bool {
        self.kind == InputKind::Note
    }

    /// Inserts pasted text (sanitized; newlines kept in notes only).
    pub fn paste(&mut self, text: &str) -> Edit {
        let clean = crate::text::sanitize(text, self.multiline());
        if self.area.insert_str(clean) {
            Edit::Changed
        } else {
            Edit::Moved
        }
    }

    /// Applies a key.
    pub fn key(&mut self, k: KeyEvent) -> Edit {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        let a = &mut self.area;
        let changed = |b: bool| if b { Edit::Changed } else { Edit::Moved };
        match k.code {
            KeyCode::Esc => Edit::Cancel,
            KeyCode::Char('c') if ctrl => Edit::Cancel,
            KeyCode::Char('j') if ctrl && self.kind == InputKind::Note => {
                a.insert_newline();
                Edit::Changed
            }
            KeyCode::Enter if alt && self.kind == InputKind::Note => {
                a.insert_newline();
                Edit::Changed
            }
            KeyCode::Enter => Edit::Submit,
            KeyCode::Char('w') if ctrl => changed(a.delete_word()),
            KeyCode::Backspace if alt => changed(a.delete_word()),
            KeyCode::Char('u') if ctrl => changed(a.delete_line_by_head()),
            KeyCode::Char('k') if ctrl => changed(a.delete_line_by_end()),
            KeyCode::Char('a') if ctrl => {
                a.move_cursor(CursorMove::Head);
                Edit::Moved
            }
            KeyCode::Char('e') if ctrl => {
                a.move_cursor(CursorMove::End);
                Edit::Moved
            }
            KeyCode::Char('b') if ctrl => {
                a.move_cursor(CursorMove::Back);
                Edit::Moved
            }
            KeyCode::Char('f') if ctrl => {
                a.move_cursor(CursorMove::Forward);
                Edit::Moved
            }
            KeyCode::Char('b') if alt => {
                a.move_cursor(CursorMove::WordBack);
                Edit::Moved
            }
            KeyCode::Char('f') if alt => {
                a.move_cursor(CursorMove::WordForward);
                Edit::Moved
            }
            KeyCode::Char('h') if ctrl => changed(a.delete_char()),
            KeyCode::Char('d') if ctrl => changed(a.delete_next_char()),
            KeyCode::Char(_) if ctrl || alt => Edit::Moved,
            KeyCode::Char(c) => {
                a.insert_char(c);
                Edit::Changed
            }
            KeyCode::Backspace => changed(a.delete_char()),
            KeyCode::Delete => changed(a.delete_next_char()),
            KeyCode::Left => {
                a.move_cursor(if ctrl {
                    CursorMove::WordBack
                } else {
                    CursorMove::Back
                });
                Edit::Moved
            }
            KeyCode::Right => {
                a.move_cursor(if ctrl {
                    CursorMove::WordForward
                } else {
                    CursorMove::Forward
                });
                Edit::Moved
            }
            KeyCode::Home => {
                a.move_cursor(CursorMove::Head);
                Edit::Moved
            }
            KeyCode::End => {
                a.move_cursor(CursorMove::End);
                Edit::Moved
            }
            KeyCode::Up if self.kind == InputKind::Note => {
                a.move_cursor(CursorMove::Up);
                Edit::Moved
            }
            KeyCode::Down if self.kind == InputKind::Note => {
                a.move_cursor(CursorMove::Down);
                Edit::Moved
            }
            KeyCode::Up => Edit::Up,
            KeyCode::Down => Edit::Down,
            _ => Edit::Moved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }
    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }
    fn typed(i: &mut Input, s: &str) {
        for c in s.chars() {
            i.key(k(KeyCode::Char(c)));
        }
    }

    #[test]
    fn behaves_like_a_shell_line() {
        let mut i = Input::new(InputKind::Search, "");
        typed(&mut i, "stale price");
        assert_eq!(i.key(ctrl('w')), Edit::Changed);
        assert_eq!(i.text(), "stale ");
        i.key(ctrl('a'));
        typed(&mut i, "kind ");
        assert_eq!(i.text(), "kind stale ");
        i.key(ctrl('e'));
        i.key(k(KeyCode::Left));
        i.key(k(KeyCode::Backspace));
        assert_eq!(i.text(), "kind stal ");
        i.key(ctrl('u'));
        assert_eq!(i.text(), " ");
        assert_eq!(i.key(ctrl('c')), Edit::Cancel);
        assert_eq!(i.key(k(KeyCode::Esc)), Edit::Cancel);
        assert_eq!(i.key(k(KeyCode::Enter)), Edit::Submit);
        assert_eq!(i.key(k(KeyCode::Down)), Edit::Down);
    }

    #[test]
    fn notes_take_several_lines_and_stored_text_is_sanitized() {
        let i = Input::new(InputKind::Note, "old\u{1b}[31m note");
        assert!(!i.text().contains('\u{1b}'), "{}", i.text());
        let mut i = Input::new(InputKind::Note, "old note");
        i.key(ctrl('j'));
        typed(&mut i, "second");
        i.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT));
        typed(&mut i, "third");
        assert_eq!(i.text(), "old note\nsecond\nthird");
        assert_eq!(i.key(k(KeyCode::Enter)), Edit::Submit);
        let mut s = Input::new(InputKind::Search, "");
        s.paste("a\nb\u{7}");
        assert!(!s.text().contains(['\n', '\u{7}']), "{}", s.text());
    }
}
