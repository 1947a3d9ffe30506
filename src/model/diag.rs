//! Diagnostics: problems found while reading input, each pinned to `file:line:column`.

use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// How bad a diagnostic is. Errors make commands exit 2; warnings do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiagLevel {
    /// Something was skipped or could not be understood.
    Error,
    /// Loaded, but suspicious (a result before its call, an unknown event kind, ...).
    Warning,
}

/// One problem in an input file.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    /// The file (or `<embedded>/name` for bundled samples).
    pub file: Arc<str>,
    /// 1-based line; 0 when the problem concerns the whole file.
    pub line: u64,
    /// 1-based column in characters; 0 when unknown.
    pub column: u64,
    /// JSON path of the field concerned (`tool_result.tag.fetched_at`), or empty.
    pub path: String,
    /// Error or warning.
    pub level: DiagLevel,
    /// One plain sentence.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        let level = match self.level {
            DiagLevel::Error => "error",
            DiagLevel::Warning => "warning",
        };
        write!(f, ": {level}: ")?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}
