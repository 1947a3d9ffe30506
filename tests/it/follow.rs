//! `verify --follow` as a process: a log grows in steps (a half-written line, a truncation);
//! each finding is printed once when its line is complete; SIGINT ends with the summary.

use crate::common::Fx;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn append(path: &std::path::Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.flush().unwrap();
}

/// Lines from `rx` until one contains `want` (or 20 s pass): every line seen.
fn until(rx: &mpsc::Receiver<String>, want: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            let hit = l.contains(want);
            seen.push(l);
            if hit {
                return seen;
            }
        }
    }
    panic!("no line with {want:?} in 20 s; saw {seen:?}");
}

/// Lines arriving within `d`.
fn quiet(rx: &mpsc::Receiver<String>, d: Duration) -> Vec<String> {
    let end = Instant::now() + d;
    let mut seen = Vec::new();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        if let Ok(l) = rx.recv_timeout(left) {
            seen.push(l);
        }
    }
    seen
}

/// Sends SIGINT to a follow, which ends with its summary: the lines up to the summary's count.
fn interrupt(child: &std::process::Child, rx: &mpsc::Receiver<String>) -> Vec<String> {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    until(rx, "claims:")
}

/// An OpenAI response (pretty-printed, no final newline) and where a slow writer may have
/// stopped: after a complete line in its middle.
fn half_written_response() -> (&'static str, usize) {
    (
        RESPONSE,
        RESPONSE[..RESPONSE.len() / 2].rfind('\n').unwrap() + 1,
    )
}

/// A pretty-printed OpenAI response with one unsourced claim and no final newline.
const RESPONSE: &str =
    include_str!("../formats/openai-responses/prism-web-search-citations-1.json");

/// The end of a follow of the OpenAI response of `half_written_response`, once it is whole: its
/// unsourced claim is reported, then SIGINT's summary counts it, and nothing says `malformed`.
fn reads_the_response_whole(
    mut child: std::process::Child,
    rx: &mpsc::Receiver<String>,
    kill: Guard,
) {
    let seen = until(rx, "unsourced turn 1 claim clm_a9f5511ded");
    assert!(
        seen.iter().all(|l| !l.contains("malformed")),
        "the document was read before it was whole: {seen:?}"
    );
    std::thread::sleep(Duration::from_millis(300));
    let seen = interrupt(&child, rx);
    assert!(
        seen.iter().any(|l| l.contains("1 claims: 1 errors")),
        "{seen:?}"
    );
    assert!(seen.iter().all(|l| !l.contains("malformed")), "{seen:?}");
    drop(kill);
    let _ = child.wait();
}

/// `provscope verify --follow PATHS...` with its stdout and stderr lines sent to one channel
/// (prefixed `out: ` and `err: `), and a guard that kills it if the test fails first.
fn spawn_follow(
    paths: &[&std::path::Path],
) -> (std::process::Child, mpsc::Receiver<String>, Guard) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(["verify", "--follow"])
        .args(paths)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let kill = scopeguard(child.id());
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    let tx2 = tx.clone();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx2.send(format!("out: {l}"));
        }
    });
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(format!("err: {l}"));
        }
    });
    (child, rx, kill)
}

#[test]
fn follow_prints_findings_as_lines_complete_and_ends_on_sigint_with_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("live.jsonl");
    // A stale result: the claim's finding appears with the answer line.
    let mut fx = Fx::baseline();
    fx.calls[0].ttl = 1;
    let lines: Vec<String> = fx.lines().iter().map(|v| v.to_string() + "\n").collect();
    let answer = lines
        .iter()
        .position(|l| l.contains("\"event\":\"answer\""))
        .unwrap();
    std::fs::write(&log, lines[..2].concat()).unwrap();
    let (mut child, rx, kill) = spawn_follow(&[&log]);
    until(&rx, "following 1 file");
    // The call, the result, the context, then half of the answer: nothing to report yet, and
    // the half line is no error.
    append(&log, &lines[2..answer].concat());
    let half = lines[answer].len() / 2;
    append(&log, &lines[answer][..half]);
    let early = quiet(&rx, Duration::from_millis(1200));
    assert!(
        early.iter().all(|l| !l.contains("error")),
        "a half-written line was reported: {early:?}"
    );
    // The rest of the line: the stale claim shows up once.
    append(&log, &lines[answer][half..]);
    let seen = until(&rx, "stale");
    let stale = seen.iter().find(|l| l.contains("stale")).unwrap();
    assert!(
        stale.contains("live.jsonl:6: error stale turn 1 claim clm_price"),
        "{stale}"
    );
    append(&log, &lines[answer + 1..].concat());
    let more = quiet(&rx, Duration::from_millis(800));
    assert!(
        more.iter().all(|l| !l.contains("stale")),
        "printed twice: {more:?}"
    );
    // Truncated and rewritten clean: noted, reloaded, the finding resolved.
    let clean: String = Fx::baseline().jsonl();
    std::fs::write(&log, &clean[..20]).unwrap();
    until(&rx, "truncated");
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&log, &clean).unwrap();
    let seen = until(&rx, "resolved:");
    assert!(
        seen.iter()
            .any(|l| l.contains("resolved: ") && l.contains("stale")),
        "{seen:?}"
    );
    // Rotated to a shorter file (renamed away, created again): said as a rotation, not a
    // truncation, and read from its start.
    std::fs::rename(&log, dir.path().join("live.jsonl.1")).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&log, &clean[..clean.len() / 2]).unwrap();
    let seen = until(&rx, "rotated");
    let note = seen.iter().find(|l| l.contains("rotated")).unwrap();
    assert!(
        note.starts_with("err: ")
            && note.contains(
                "live.jsonl: rotated (another file at its path); reloading it from the start"
            ),
        "{note}"
    );
    assert!(seen.iter().all(|l| !l.contains("truncated")), "{seen:?}");
    std::fs::write(&log, &clean).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // SIGINT: the summary, and exit 0 (nothing left at the threshold).
    let seen = interrupt(&child, &rx);
    assert!(
        seen.iter().any(|l| l.contains("1 claims: 0 errors")),
        "{seen:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "no exit after SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Exited and reaped: its pid may be reused, so the guard must not signal it.
    std::mem::forget(kill);
    assert_eq!(status.code(), Some(0));
}

/// Kills the process if the test fails before it ends.
struct Guard(u32);
impl Drop for Guard {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", &self.0.to_string()])
            .status();
    }
}
fn scopeguard(pid: u32) -> Guard {
    Guard(pid)
}

/// `verify --follow DIR`: a log created in the directory (or a subdirectory) after following
/// started is followed too, found by its content; other files are not.
#[test]
fn follow_picks_up_logs_created_later_in_a_followed_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("first.jsonl"), Fx::baseline().jsonl()).unwrap();
    let (mut child, rx, kill) = spawn_follow(&[dir.path()]);
    until(&rx, "following 1 file");
    std::fs::write(dir.path().join("notes.txt"), "stale stale\n").unwrap();
    std::fs::create_dir(dir.path().join("later")).unwrap();
    let log = dir.path().join("later").join("second.jsonl");
    let mut fx = Fx::baseline();
    fx.calls[0].ttl = 1;
    std::fs::write(&log, fx.jsonl()).unwrap();
    let seen = until(&rx, "stale");
    let stale = seen.iter().find(|l| l.contains("stale")).unwrap();
    assert!(
        stale.contains("second.jsonl:") && stale.contains("error stale turn 1 claim clm_price"),
        "{stale}"
    );
    assert!(seen.iter().all(|l| !l.contains("notes.txt")), "{seen:?}");
    drop(kill);
    let _ = child.wait();
}

/// `verify --follow` on a JSON document saved without a final newline (an OpenAI response as
/// `curl -o` writes it): the whole document is read, not reported as malformed for its missing
/// last line.
#[test]
fn follow_reads_a_json_document_without_a_final_newline() {
    let dir = tempfile::tempdir().unwrap();
    let doc = RESPONSE;
    assert!(
        !doc.ends_with('\n'),
        "the fixture is the case: no final newline"
    );
    let path = dir.path().join("response.json");
    std::fs::write(&path, doc).unwrap();
    let (child, rx, kill) = spawn_follow(&[&path]);
    reads_the_response_whole(child, &rx, kill);
}

/// `verify --follow` while a pretty-printed JSON document is being written: its first lines are
/// not checked as a damaged log (no `malformed` diagnostic, no finding) until it is whole, and
/// then it is read whole.
#[test]
fn follow_waits_for_a_json_document_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, cut) = half_written_response();
    let path = dir.path().join("response.json");
    std::fs::write(&path, &doc[..cut]).unwrap();
    let (child, rx, kill) = spawn_follow(&[&path]);
    until(&rx, "following 1 file");
    let early = quiet(&rx, Duration::from_millis(1500));
    assert!(
        early
            .iter()
            .all(|l| !l.contains("malformed") && !l.contains("error")),
        "half a document was checked: {early:?}"
    );
    append(&path, &doc[cut..]);
    reads_the_response_whole(child, &rx, kill);
}

/// The same half document when the follow ends before it is whole: nothing of it was checked,
/// so the summary holds no claim and no diagnostic about it.
#[test]
fn follow_ended_while_a_document_is_written_reports_nothing_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, cut) = half_written_response();
    let path = dir.path().join("response.json");
    std::fs::write(&path, &doc[..cut]).unwrap();
    let (mut child, rx, kill) = spawn_follow(&[&path]);
    until(&rx, "following 1 file");
    std::thread::sleep(Duration::from_millis(500));
    let seen = interrupt(&child, &rx);
    let rest = quiet(&rx, Duration::from_millis(500));
    assert!(
        seen.iter().any(|l| l.contains("0 claims: 0 errors")),
        "{seen:?}"
    );
    assert!(
        seen.iter().chain(&rest).all(|l| !l.contains("malformed")),
        "{seen:?} {rest:?}"
    );
    drop(kill);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{seen:?} {rest:?}");
}
