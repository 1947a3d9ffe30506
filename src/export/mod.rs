//! Rendering check results for people and machines: text, JSON, JUnit XML and SARIF 2.1.0.

pub mod case;
pub mod json;
pub mod junit;
pub mod otlp;
pub mod report;
pub mod sarif;
pub mod text;

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
