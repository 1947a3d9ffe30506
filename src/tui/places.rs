//! Where `o` opens an imported document: the record's JSON path resolved to a line and column
//! of the file (by [`crate::ingest::locate`]), once per file for every record the explorer
//! holds from it, kept until the file changes; and the editor's arguments for that place.

use super::app::App;
use crate::ingest::locate::{self, Position, Resolved};
use crate::model::{Located, Name, Session};
use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The resolved places of the files `o` has opened.
#[derive(Default)]
pub struct Places(HashMap<PathBuf, FilePlaces>);

/// One file's places, with the size and time they were resolved against.
struct FilePlaces {
    stamp: (u64, Option<SystemTime>),
    at: HashMap<(u64, Name), Resolved>,
}

/// Every (line, JSON path) a session's records carry.
fn paths(s: &Session) -> impl Iterator<Item = (u64, &Name)> {
    s.turns
        .iter()
        .map(Located::location)
        .chain(s.calls.iter().map(Located::location))
        .chain(s.results.iter().map(Located::location))
        .chain(s.answers.iter().map(Located::location))
        .chain(
            s.answers
                .iter()
                .flat_map(|a| a.claims.iter().map(Located::location)),
        )
        .filter_map(|(l, p)| p.map(|p| (l, p)))
}

impl Places {
    /// Where the record at (`line`, `path`) of session `s` starts in `file`. `Err` says why it
    /// cannot be found (the file changed since it was loaded, or cannot be read).
    pub fn find(
        &mut self,
        app: &App,
        s: usize,
        file: &Path,
        line: u64,
        path: &Name,
    ) -> Result<Resolved, String> {
        let shown = crate::text::one_line(&file.display().to_string()).into_owned();
        let meta = std::fs::metadata(file).map_err(|e| format!("cannot read {shown}: {e}"))?;
        let stamp = (meta.len(), meta.modified().ok());
        let source = app.sessions.get(s).map(|l| l.session.source.clone());
        let mine: Vec<&Session> = app
            .sessions
            .iter()
            .map(|l| &l.session)
            .filter(|x| Some(&x.source) == source.as_ref())
            .collect();
        // The file's bytes count on its first session (importers), or on each line log.
        let loaded: u64 = mine.iter().map(|x| x.bytes).sum();
        if loaded != stamp.0 {
            return Err(format!("{shown} changed since it was loaded"));
        }
        let fresh = self.0.get(file).is_some_and(|f| f.stamp == stamp);
        if !fresh {
            let bytes = std::fs::read(file).map_err(|e| format!("cannot read {shown}: {e}"))?;
            let wanted: Vec<(u64, Name)> = mine
                .iter()
                .flat_map(|x| paths(x))
                .map(|(l, p)| (l, p.clone()))
                .collect();
            let at = locate::resolve(&bytes, wanted.iter().map(|(l, p)| (*l, &**p)))
                .into_iter()
                .map(|((l, p), r)| ((l, Name::from(p)), r))
                .collect();
            self.0.insert(file.to_path_buf(), FilePlaces { stamp, at });
        }
        self.0
            .get(file)
            .and_then(|f| f.at.get(&(line, path.clone())))
            .copied()
            .ok_or_else(|| {
                format!(
                    "{} is not in {shown} any more (changed since it was loaded?)",
                    crate::text::one_line(path)
                )
            })
    }
}

/// The editor's arguments to open `file` at `at`: `+LINE` for any editor, with the column for
/// those known to take one (vi and Vim, Neovim, Emacs, nano, Kakoune, micro).
pub fn editor_args(program: &str, at: Position, with_column: bool, file: &Path) -> Vec<String> {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    let (l, c) = (at.line.max(1), at.column.max(1));
    let place = if !with_column {
        format!("+{l}")
    } else {
        match name {
            "vim" | "nvim" | "gvim" | "mvim" | "vi" | "view" => format!("+call cursor({l}, {c})"),
            "emacs" | "emacsclient" | "kak" | "micro" => format!("+{l}:{c}"),
            "nano" => format!("+{l},{c}"),
            _ => format!("+{l}"),
        }
    };
    vec![place, file.display().to_string()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editors_get_the_column_when_they_take_one() {
        let at = Position {
            line: 12,
            column: 7,
        };
        let f = Path::new("/tmp/r.json");
        let args = |p, col| editor_args(p, at, col, f);
        assert_eq!(args("vim", true), ["+call cursor(12, 7)", "/tmp/r.json"]);
        assert_eq!(args("/usr/bin/nvim", true)[0], "+call cursor(12, 7)");
        assert_eq!(args("emacsclient", true)[0], "+12:7");
        assert_eq!(args("nano", true)[0], "+12,7");
        assert_eq!(args("less", true)[0], "+12");
        assert_eq!(args("vim", false)[0], "+12");
    }
}
