//! The HTML report as a reader sees it: rendered by headless Chromium (Debian's `chromium`),
//! printed to PDF and read back as text with `pdftotext` (poppler-utils), so the assertions are
//! on what the browser laid out, not on the markup. The reviewer, the readable quadrant names
//! and the reviewed status must be there, for one session and for a directory (a report set).

use provscope::store::Store;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const STALE_ID: &str = "sess_2026-10-06_1d8c33f0";
const REVIEWER: &str = "Ana López";

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions")
}

fn provscope(args: &[&str]) {
    let o = crate::proc::output_within(
        Command::new(env!("CARGO_BIN_EXE_provscope"))
            .args(args)
            .env("NO_COLOR", "1"),
        crate::proc::LIMIT,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The text of `html` as Chromium renders it: printed to PDF, then extracted, whitespace
/// collapsed (lines wrap where the page width says).
fn rendered_text(dir: &Path, html: &Path) -> String {
    let pdf = html.with_extension("pdf");
    let profile = dir.join(format!(
        "chromium-profile-{}",
        html.file_stem().unwrap().to_string_lossy()
    ));
    let o = crate::proc::output_within(
        Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-pdf-header-footer",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--print-to-pdf={}", pdf.display()))
            .arg(format!("file://{}", html.display()))
            .env("HOME", dir),
        Duration::from_secs(120),
    );
    assert!(
        o.status.success() && pdf.exists(),
        "chromium: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = crate::proc::output_within(
        Command::new("pdftotext").arg(&pdf).arg("-"),
        crate::proc::LIMIT,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_html_report_shows_reviewer_quadrants_and_review_status_in_a_browser() {
    if !crate::peers::browser() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let dbs = db.to_str().unwrap();
    let stale = samples().join("04-stale-cache.jsonl");
    let stale = stale.to_str().unwrap();
    // Turn 3's statement classified by hand; turn 1's marked reviewed (`m` in the explorer).
    provscope(&[
        "classify",
        "--db",
        dbs,
        stale,
        "clm_seat_price",
        "--turn",
        "3",
        "--quadrant",
        "ww",
        "--reviewer",
        REVIEWER,
    ]);
    Store::open(&db)
        .unwrap()
        .set_reviewed(STALE_ID, "clm_seat_price", 1, true)
        .unwrap();

    let one = dir.path().join("one.html");
    provscope(&[
        "report",
        "--db",
        dbs,
        stale,
        "--format",
        "html",
        "-o",
        one.to_str().unwrap(),
    ]);
    let text = rendered_text(dir.path(), &one);
    for shown in [
        "Incident review: Renewal quote from a stale pricing cache",
        // Turn 1: computed, marked reviewed.
        "clm_seat_price (turn 1)",
        "Grid: Fact right, source wrong (computed, reviewed): Hidden failure",
        // The monthly price: computed, not reviewed.
        "Grid: Fact wrong, source wrong (computed, not reviewed): Garbage in",
        // Turn 3: by hand, by whom.
        "clm_seat_price (turn 3)",
        &format!("Grid: Fact wrong, source wrong (classified by hand by {REVIEWER}, not reviewed)"),
    ] {
        assert!(
            text.contains(shown),
            "{shown:?} is not on the page:\n{text}"
        );
    }
    for id in [
        "fact_right_source_wrong",
        "fact_wrong_source_wrong",
        "rw",
        "ww",
    ] {
        assert!(
            !text.split(' ').any(|w| w == id),
            "snake_case quadrant id {id:?} on the page:\n{text}"
        );
    }

    let set = dir.path().join("set.html");
    provscope(&[
        "report",
        "--db",
        dbs,
        samples().to_str().unwrap(),
        "--format",
        "html",
        "-o",
        set.to_str().unwrap(),
    ]);
    let text = rendered_text(dir.path(), &set);
    for shown in [
        "Incident review: 10 sessions",
        "Executive summary",
        "Grid summary",
        "Fact right, source right",
        "Fact right, source wrong",
        "Fact wrong, source right",
        "Fact wrong, source wrong",
        "Not placed",
        "Renewal quote from a stale pricing cache",
        "Grid: Fact right, source wrong (computed, reviewed): Hidden failure",
        &format!("Grid: Fact wrong, source wrong (classified by hand by {REVIEWER}, not reviewed)"),
    ] {
        assert!(
            text.contains(shown),
            "{shown:?} is not on the page:\n{text}"
        );
    }
    // Each session's row in the sessions table: 04 has one of its flagged claims reviewed.
    assert!(text.contains(" 1/3 "), "the reviewed column:\n{text}");
    assert!(
        !text.contains("fact_right_source_wrong") && !text.contains("fact_wrong_source_wrong"),
        "{text}"
    );
}
