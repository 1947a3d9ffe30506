//! `provscope trend`'s table as a terminal shows it: every column starts (left-aligned) or ends
//! (right-aligned) at the same display column on every row, whatever the run's origin label
//! holds (wide characters, combining marks, escape sequences, bidi controls, tabs).

use provscope::text::one_line;
use std::path::Path;
use std::process::{Command, Output};
use unicode_width::UnicodeWidthStr;

fn provscope(args: &[&str], origin: &str) -> Output {
    crate::proc::output_within(
        Command::new(env!("CARGO_BIN_EXE_provscope"))
            .args(args)
            .env("NO_COLOR", "1")
            .env("PROVSCOPE_RUN_ORIGIN", origin),
        crate::proc::LIMIT,
    )
}

/// The display column where byte `at` of `line` starts.
fn col(line: &str, at: usize) -> usize {
    UnicodeWidthStr::width(&line[..at])
}

/// The (start, end) byte offsets of the whitespace-separated words of `s`, offset by `base`.
fn words(s: &str, base: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(b)) => {
                out.push((base + b, base + i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(b) = start {
        out.push((base + b, base + s.len()));
    }
    out
}

#[test]
fn trend_columns_line_up_by_display_width_with_hostile_and_wide_origins() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let db = db.to_str().unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let one = |name: &str| samples.join(name).display().to_string();
    let all = samples.display().to_string();
    let runs: [(&str, String); 6] = [
        ("ci", one("04-stale-cache.jsonl")),
        ("日本語のジョブ", all.clone()),
        (
            "evil\u{1b}[31m\u{1b}]0;pwned\u{7}\u{202e}x",
            one("01-clean-baseline.jsonl"),
        ),
        ("e\u{301}te\u{301} job", one("06-parallel-conflict.jsonl")),
        ("tab\there", all.clone()),
        ("x", one("04-stale-cache.jsonl")),
    ];
    for (i, (origin, input)) in runs.iter().enumerate() {
        let now = format!("2026-11-0{}T10:00:00Z", i + 1);
        let o = provscope(
            &["verify", "--db", db, "--record-run", "--now", &now, input],
            origin,
        );
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = provscope(&["trend", "--db", db], "");
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        !text
            .chars()
            .any(|c| c != '\n' && provscope::text::is_unsafe(c)),
        "{text:?}"
    );
    let lines: Vec<&str> = text.lines().take(1 + runs.len()).collect();
    let header = lines[0];
    assert!(header.starts_with("RUN"), "{text}");
    let pos = |w: &str| header.find(w).unwrap_or_else(|| panic!("{w}: {header}"));
    let at_col = col(header, pos("AT"));
    let origin_col = col(header, pos("ORIGIN"));
    let ends: Vec<usize> = ["RR", "RW", "WR", "WW"]
        .iter()
        .map(|w| col(header, pos(w) + w.len()))
        .collect();
    let share_col = col(header, pos("HIDDEN-FAILURE"));
    let mut share_ends = Vec::new();
    let mut saw_na = false;
    for (line, (origin, _)) in lines[1..].iter().zip(&runs) {
        let shown = one_line(origin);
        // The origin is the text between the timestamp and the counts.
        let w = words(line, 0);
        assert_eq!(col(line, w[1].0), at_col, "AT column:\n{text}");
        let o_at = line[w[1].1..].find(&*shown).unwrap() + w[1].1;
        assert_eq!(col(line, o_at), origin_col, "ORIGIN column:\n{text}");
        let rest = words(&line[o_at + shown.len()..], o_at + shown.len());
        for (k, end) in ends.iter().enumerate() {
            assert_eq!(col(line, rest[k].1), *end, "count column {k}:\n{text}");
        }
        let share = rest[4];
        assert!(col(line, share.0) >= share_col, "share column:\n{text}");
        saw_na |= &line[share.0..share.1] == "n/a";
        share_ends.push(col(line, share.1));
    }
    assert!(saw_na, "a run with nothing failed: {text}");
    assert!(
        share_ends.iter().all(|e| *e == share_ends[0]),
        "share column {share_ends:?}:\n{text}"
    );
    // The wide label did widen the ORIGIN column past its heading.
    assert!(ends[0] - origin_col > "日本語のジョブ".width(), "{text}");
}
