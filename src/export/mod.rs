//! Rendering check results for people and machines: text, JSON, JUnit XML and SARIF 2.1.0.

pub mod case;
pub mod diff;
pub mod json;
pub mod junit;
pub mod metrics;
pub mod otlp;
pub mod report;
pub mod sarif;
pub mod stream;
pub mod text;
pub mod trend;

/// Writes a new file at `path`: never through a symlink planted there, and never over an
/// existing file unless `force` (then the file is replaced by a rename, which replaces a symlink
/// itself rather than its target).
pub fn write_new(path: &std::path::Path, bytes: &[u8], force: bool) -> std::io::Result<()> {
    use std::io::Write;
    let create = |p: &std::path::Path| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p)
    };
    if !force {
        return match create(path) {
            Ok(mut f) => f.write_all(bytes).and_then(|()| f.sync_all()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(std::io::Error::new(
                e.kind(),
                "it already exists (pass --force to replace it)",
            )),
            Err(e) => Err(e),
        };
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Escapes text for XML attribute and element content, dropping characters XML 1.0 forbids.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xFFFE | 0xFFFF) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_escape_handles_markup_and_controls() {
        assert_eq!(
            super::xml_escape("<a href=\"x\">&'\u{1b}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\\u{1b}"
        );
    }
}
