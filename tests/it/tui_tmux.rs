//! The explorer in a real terminal: tmux runs the binary on a sample, keys are sent with
//! `send-keys`, the screen is read with `capture-pane`. Classify the stale claim, quit, reopen,
//! and the classification is still there (and readable by the CLI).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The shell-quoted form of a path for the command tmux runs.
pub(crate) fn quoted(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "'\\''"))
}

/// Writes an executable fake `$EDITOR` at `path`: it saves its arguments, one a line, to
/// `args_file`, prints `FAKE-EDITOR-RAN` and returns after a second, so a test can check what
/// the explorer handed it and that the explorer's screen came back.
fn fake_editor(path: &Path, args_file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > {}\necho FAKE-EDITOR-RAN\nsleep 1\n",
            quoted(args_file)
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A tmux server of its own (killed on drop) running one session at a time.
pub(crate) struct Tmux {
    socket: String,
    session: std::cell::RefCell<String>,
}

impl Tmux {
    /// A server on its own socket, `name` plus this process's id.
    pub(crate) fn new(name: &str) -> Tmux {
        Tmux {
            socket: format!("{name}-{}", std::process::id()),
            session: std::cell::RefCell::new(String::new()),
        }
    }

    pub(crate) fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux must be installed (CI installs it)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Starts `cmd` in a new tmux session (one server; a new session per run avoids restarting
    /// the server, which races on some machines).
    pub(crate) fn start(&self, name: &str, cmd: &str) {
        *self.session.borrow_mut() = name.to_owned();
        self.run(&[
            "new-session",
            "-d",
            "-x",
            "160",
            "-y",
            "45",
            "-s",
            name,
            cmd,
        ]);
    }

    pub(crate) fn target(&self) -> String {
        self.session.borrow().clone()
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", &self.target(), k]);
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub(crate) fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", &self.target()])
    }

    /// Quits the explorer with `Q` and waits for the shell to print its exit status 0 (the
    /// commands these tests start end with `echo EXIT=$?`).
    pub(crate) fn quit(&self) {
        self.keys(&["Q"]);
        self.wait_for("EXIT=0");
    }

    /// Waits until the screen contains `text`.
    pub(crate) fn wait_for(&self, text: &str) -> String {
        let t0 = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(15),
                "timed out waiting for {text:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

#[test]
fn classify_the_stale_claim_in_a_real_terminal_and_find_it_after_restart() {
    if !crate::peers::tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/04-stale-cache.jsonl");
    let cmd = format!(
        "{} --db {} {}; echo EXIT=$?; sleep 60",
        env!("CARGO_BIN_EXE_provscope"),
        db.display(),
        sample.display()
    );
    let tmux = Tmux::new("provscope-test");
    tmux.start("first", &cmd);
    // A single session opens straight into the session view.
    tmux.wait_for("Turns (3)");
    tmux.keys(&["Enter", "Enter"]);
    let s = tmux.wait_for("Claim beside source");
    assert!(
        s.contains("clm_seat_price") && s.contains("STALE") && s.contains("age at answer 5h 32m"),
        "{s}"
    );
    tmux.keys(&["2"]);
    let s = tmux.wait_for("saved to");
    assert!(s.contains("Fact right, source wrong (classified)"), "{s}");
    tmux.keys(&["Q"]);
    let s = tmux.wait_for("EXIT=0");
    assert!(
        !s.contains("Claim beside source"),
        "the terminal was restored: {s}"
    );

    tmux.start("second", &cmd);
    tmux.run(&["kill-session", "-t", "first"]);
    tmux.wait_for("Turns (3)");
    tmux.keys(&["Enter", "Enter"]);
    let s = tmux.wait_for("Claim beside source");
    assert!(
        s.contains("(classified)"),
        "classification survived the restart: {s}"
    );
    tmux.quit();

    let out = Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(["classifications", "--db"])
        .arg(&db)
        .arg(&sample)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("clm_seat_price") && text.contains("fact_right_source_wrong"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_format_in_one_directory_opens_in_a_real_terminal() {
    if !crate::peers::tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    // The real files of every format, and an OTLP export built from the semconv example.
    let formats = dir.path().join("formats");
    std::fs::create_dir_all(&formats).unwrap();
    super::importers_robust::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats"),
        &formats,
    );
    super::importers_robust::write_otlp(&formats);
    let cmd = format!(
        "{} --db {} {}; echo EXIT=$?; sleep 60",
        env!("CARGO_BIN_EXE_provscope"),
        db.display(),
        formats.display()
    );
    let tmux = Tmux::new("provscope-formats");
    tmux.start("formats", &cmd);
    let s = tmux.wait_for(" 29 sessions ");
    for f in [
        "anthropic-messages",
        "claude-code",
        "claude-desktop-log",
        "gemini",
        "langfuse",
        "langsmith",
        "openai-responses",
        "otlp-json",
    ] {
        assert!(s.contains(f), "{f} in the FORMAT column: {s}");
    }
    // Open the selected imported session: its turns, calls and answer render.
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("Turns (");
    assert!(
        s.contains("Calls") && s.contains("Question and answer"),
        "{s}"
    );
    tmux.quit();
}

/// `o` on a claim of an imported API response (one JSON document) opens `$EDITOR` at the line and
/// column where the claim's citation starts, and at the cited result from the source pane; after
/// the file changes it opens line 1 and says why.
#[test]
fn o_opens_an_imported_document_where_the_record_starts() {
    if !crate::peers::tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let rel = "openai-responses/openai-web-search-tool.1.json";
    let file = dir.path().join("response.json");
    std::fs::copy(super::importers::formats().join(rel), &file).unwrap();
    // A fake editor named like one that takes `+LINE:COLUMN`; it records its arguments.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let args_file = dir.path().join("editor-args");
    let editor = bin.join("emacsclient");
    fake_editor(&editor, &args_file);
    let cmd = format!(
        "EDITOR={} {} --db {} {}; echo EXIT=$?; sleep 60",
        quoted(&editor),
        env!("CARGO_BIN_EXE_provscope"),
        quoted(&db),
        quoted(&file)
    );
    let tmux = Tmux::new("provscope-open-imported");
    tmux.start("imported", &cmd);
    tmux.wait_for("Turns (");
    tmux.keys(&["Enter", "Enter"]);
    tmux.wait_for("Claim beside source");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    // Presses `o`, waits for the explorer to come back, returns the editor's arguments.
    let open = |tmux: &Tmux| -> (usize, Option<usize>, String) {
        let _ = std::fs::remove_file(&args_file);
        tmux.keys(&["o"]);
        // The editor ran (its arguments are written) and the explorer redrew itself.
        let t0 = Instant::now();
        let s = loop {
            let s = tmux.screen();
            if args_file.exists() && s.contains("back from `") && !s.contains("FAKE-EDITOR-RAN") {
                break s;
            }
            assert!(t0.elapsed() < Duration::from_secs(15), "{s}");
            std::thread::sleep(Duration::from_millis(100));
        };
        let args = std::fs::read_to_string(&args_file).unwrap();
        let args: Vec<&str> = args.lines().collect();
        assert_eq!(args.len(), 2, "{args:?}");
        assert_eq!(args[1], file.display().to_string());
        let at = args[0].strip_prefix('+').unwrap();
        match at.split_once(':') {
            Some((l, c)) => (l.parse().unwrap(), Some(c.parse().unwrap()), s),
            None => (at.parse().unwrap(), None, s),
        }
    };
    // The JSON value that starts at a 1-based line and column (in characters) of the file.
    let value_at = |line: usize, column: usize| -> serde_json::Value {
        let l = text.lines().nth(line - 1).unwrap();
        let from: usize = text
            .lines()
            .take(line - 1)
            .map(|l| l.len() + 1)
            .sum::<usize>()
            + l.char_indices().nth(column - 1).unwrap().0;
        serde_json::Deserializer::from_str(&text[from..])
            .into_iter::<serde_json::Value>()
            .next()
            .unwrap()
            .unwrap()
    };
    // The source pane is focused: the cited web search call.
    let (l, c, _) = open(&tmux);
    assert!(l > 1, "not line 1");
    let result = value_at(l, c.unwrap());
    assert_eq!(result["type"], "web_search_call", "{result}");
    assert!(doc["output"].as_array().unwrap().contains(&result));
    // `h`: the claim, at its url_citation annotation.
    tmux.keys(&["h"]);
    let (l, c, s) = open(&tmux);
    let cited = value_at(l, c.unwrap());
    assert_eq!(cited["type"], "url_citation", "{cited}");
    assert_eq!(
        cited, doc["output"][7]["content"][0]["annotations"][0],
        "{s}"
    );
    // The file changes under the explorer: line 1, and the status says why.
    std::fs::write(&file, text.replace("\n", "\n\n")).unwrap();
    let (l, c, s) = open(&tmux);
    assert_eq!((l, c), (1, None));
    assert!(
        s.contains("changed since it was loaded: opened at line 1"),
        "{s}"
    );
    tmux.quit();
}

/// `e` on a claim in a real terminal writes its case next to where the explorer runs, the status
/// line names the file, and `provscope check` runs that file: the stale claim of sample 04 fails
/// its own case as recorded.
#[test]
fn e_exports_the_claim_as_a_case_that_check_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/04-stale-cache.jsonl");
    let cmd = format!(
        "cd {} && {} --db {} {}; echo EXIT=$?; sleep 60",
        dir.path().display(),
        env!("CARGO_BIN_EXE_provscope"),
        db.display(),
        sample.display()
    );
    let tmux = Tmux::new("provscope-export");
    tmux.start("export", &cmd);
    tmux.wait_for("Turns (3)");
    tmux.keys(&["Enter", "Enter"]);
    let s = tmux.wait_for("Claim beside source");
    assert!(s.contains("clm_seat_price"), "{s}");
    tmux.keys(&["e"]);
    let s = tmux.wait_for("case written to");
    tmux.quit();
    let cases: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".case.json"))
        .collect();
    assert_eq!(cases.len(), 1, "one case written: {cases:?}");
    let case = &cases[0];
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.contains("clm_seat_price"), "{name}");
    assert!(s.contains(&name), "the status line names the file: {s}");
    let o = super::proc::output(
        Command::new(env!("CARGO_BIN_EXE_provscope"))
            .arg("check")
            .arg(case)
            .arg("--against")
            .arg(&sample)
            .env("NO_COLOR", "1"),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("FAIL ")
            && out.contains("clm_seat_price in ")
            && out.contains("04-stale-cache.jsonl turn"),
        "{out}"
    );
}

#[test]
fn a_filtered_review_over_several_sessions_then_copy_and_open_with_real_keys() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    // A fake $EDITOR: it records its arguments and returns, so `o` can be checked end to end.
    let args_file = dir.path().join("editor-args");
    let editor = dir.path().join("fake-editor");
    fake_editor(&editor, &args_file);
    let cmd = format!(
        "EDITOR={} {} --db {} {}; echo EXIT=$?; sleep 60",
        quoted(&editor),
        env!("CARGO_BIN_EXE_provscope"),
        quoted(&db),
        quoted(&samples)
    );
    let tmux = Tmux::new("provscope-review");
    tmux.start("review", &cmd);
    // OSC 52 from the application becomes a tmux paste buffer.
    tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
    tmux.wait_for(" 10 sessions ");

    // The filter bar, typed as a user types it; Enter shows the queue over every session.
    tmux.keys(&["f"]);
    tmux.run(&[
        "send-keys",
        "-t",
        "review",
        "-l",
        "kind:stale,below_tier reviewed:no",
    ]);
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("Queue · 1 of 6");
    assert!(
        s.contains("filter: kind:stale,below_tier reviewed:no")
            && s.contains("04-stale-cache")
            && s.contains("05-untrusted-inject"),
        "one queue over several sessions: {s}"
    );
    // The grid of the filtered set.
    tmux.keys(&["x"]);
    tmux.wait_for("6 claim(s) in 10 session(s)");
    // The review walks the filtered flagged claims across sessions, marking each reviewed.
    tmux.keys(&["r"]);
    let s = tmux.wait_for("flagged claim 1 of ");
    let n: usize = s
        .split("flagged claim 1 of ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("k of N: {s}"));
    assert!(n >= 2, "{s}");
    let mut sessions = std::collections::BTreeSet::new();
    for k in 1..=n {
        let s = tmux.wait_for(&format!("flagged claim {k} of {n}"));
        for name in ["04-stale-cache", "05-untrusted-injection"] {
            if s.contains(&format!("Review │ {name}")) {
                sessions.insert(name);
            }
        }
        tmux.keys(&["m"]);
        tmux.wait_for(&format!("{k} reviewed"));
        tmux.keys(&["n"]);
    }
    assert_eq!(sessions.len(), 2, "the review crossed sessions");
    let s = tmux.wait_for("back to the first");
    assert!(s.contains(&format!("flagged claim 1 of {n}")), "{s}");

    // `y` copies the focused item through OSC 52, read back from tmux's buffer: the review opens
    // with the source focused (the cited span), `h` focuses the claim (its id).
    let buffer = |before: &str| -> String {
        let t0 = Instant::now();
        loop {
            let b = tmux.run(&["show-buffer"]);
            if (!b.is_empty() && b != before) || t0.elapsed() > Duration::from_secs(10) {
                return b;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    tmux.keys(&["y"]);
    let s = tmux.wait_for("(OSC 52)");
    let span = buffer("");
    assert!(
        !span.is_empty() && s.contains(&format!("copied {}", &span[..span.len().min(40)])),
        "{span:?}: {s}"
    );
    tmux.keys(&["h", "y"]);
    let copied = buffer(&span);
    assert!(copied.starts_with("clm_"), "a claim id: {copied:?}");
    let s = tmux.wait_for(&format!("copied {copied} (OSC 52)"));
    assert!(s.contains(&copied), "{s}");

    // `o`: $EDITOR +LINE FILE, and the explorer takes the terminal back afterwards.
    tmux.keys(&["o"]);
    let s = tmux.wait_for("back from `");
    assert!(
        s.contains("flagged claim 1 of") && !s.contains("FAKE-EDITOR-RAN"),
        "the explorer redrew itself: {s}"
    );
    let args = std::fs::read_to_string(&args_file).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args.len(), 2, "{args:?}");
    let line: usize = args[0].strip_prefix('+').unwrap().parse().unwrap();
    let log = std::fs::read_to_string(args[1]).unwrap();
    assert!(
        args[1].starts_with(&samples.display().to_string()),
        "{args:?}"
    );
    let at = log.lines().nth(line - 1).unwrap();
    assert!(
        at.contains(&format!("\"{copied}\"")),
        "line {line} of {} states {copied}: {at}",
        args[1]
    );

    // Review progress per session in the sessions list, kept across a restart.
    tmux.keys(&["S"]);
    let s = tmux.wait_for("REVIEWED");
    let progress = |s: &str, name: &str| -> String {
        s.lines()
            .find(|l| l.contains(name))
            .and_then(|l| l.split_whitespace().rev().find(|w| w.contains('/')))
            .unwrap_or_default()
            .to_owned()
    };
    let before = (
        progress(&s, "04-stale-cache"),
        progress(&s, "05-untrusted-injection"),
    );
    assert!(
        !before.0.starts_with("0/") && !before.1.starts_with("0/"),
        "{before:?}: {s}"
    );
    tmux.quit();
    tmux.start("again", &cmd);
    tmux.run(&["kill-session", "-t", "review"]);
    let s = tmux.wait_for(" 10 sessions ");
    let s = if progress(&s, "04-stale-cache") == before.0 {
        s
    } else {
        // Review marks are restored as a message after the list appears.
        std::thread::sleep(Duration::from_secs(1));
        tmux.screen()
    };
    assert_eq!(
        (
            progress(&s, "04-stale-cache"),
            progress(&s, "05-untrusted-injection")
        ),
        before,
        "{s}"
    );
    tmux.quit();
}

#[test]
fn a_bad_keys_entry_stops_the_explorer_with_one_error_and_exit_2() {
    if !crate::peers::tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("provscope.toml");
    std::fs::write(&cfg, "[keys]\nfly = \"x\"\n").unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/04-stale-cache.jsonl");
    let cmd = format!(
        "{} --config {} --db {} {} 2>&1; echo EXIT=$?; sleep 60",
        env!("CARGO_BIN_EXE_provscope"),
        cfg.display(),
        dir.path().join("cases.sqlite").display(),
        sample.display()
    );
    let tmux = Tmux::new("provscope-test-keys");
    tmux.start("bad-keys", &cmd);
    let s = tmux.wait_for("EXIT=");
    assert!(s.contains("EXIT=2"), "{s}");
    assert!(
        s.contains("provscope: invalid configuration: keys.fly: unknown action"),
        "{s}"
    );
    assert_eq!(s.matches("keys.fly").count(), 1, "printed once: {s}");
}

/// The incident procedure end to end: `provscope correct` (a process) records a correction of a
/// claim no check flagged; the explorer, opened on the same log and database in a real
/// terminal, walks through it on `r` and shows the correction; the filter bar narrows to it.
#[test]
fn a_correction_recorded_by_the_cli_shows_in_the_review_walkthrough() {
    if !crate::peers::tool("tmux") {
        return;
    }
    for db in crate::backends::backends("tmux_walkthrough_correction") {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("01-clean-baseline.jsonl");
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/01-clean-baseline.jsonl"),
            &log,
        )
        .unwrap();
        let o = super::proc::output(
            Command::new(env!("CARGO_BIN_EXE_provscope"))
                .arg("correct")
                .arg(&log)
                .args(["--claim", "clm_refund_amount", "--outcome", "corrected"])
                .args(["--note", "user reported the amount on the statement"])
                .arg("--db")
                .arg(db.arg())
                .arg("-o")
                .arg(dir.path().join("refund.case.json"))
                .env("NO_COLOR", "1"),
        );
        assert!(
            o.status.success(),
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let cmd = format!(
            "{} --db {} {}; echo EXIT=$?; sleep 60",
            env!("CARGO_BIN_EXE_provscope"),
            quoted(&db.path()),
            quoted(&log)
        );
        let tmux = Tmux::new(&format!("provscope-correct-{}", db.name()));
        tmux.start("correct", &cmd);
        tmux.wait_for("Turns (");
        // No check flags anything in this log; the correction puts the claim in the walkthrough.
        tmux.keys(&["r"]);
        let s = tmux.wait_for("claim 1 of 1 to review");
        assert!(
            s.contains("(0 flagged, 1 corrected or classified by")
                && s.contains("clm_refund_amount · turn 2")
                && s.contains("correction: corrected at ")
                && s.contains("user reported")
                && s.contains("the amount on the statement"),
            "{} {s}",
            db.name()
        );
        // The filter bar narrows the queue to corrected claims.
        tmux.keys(&["f"]);
        tmux.run(&["send-keys", "-t", "correct", "-l", "correction:corrected"]);
        tmux.keys(&["Enter"]);
        let s =
            tmux.wait_for("1 claim(s) match, 0 flagged, 1 more corrected or classified by hand");
        assert!(s.contains("clm_refund_amount"), "{s}");
        tmux.quit();
    }
}

/// `provscope --follow LOG` in a real terminal while the log grows in steps: each step shows up
/// on screen (a call, its result, a claim once its answer line is complete, a new turn), a
/// half-written line is never shown as damaged, and a truncated and rewritten log is reloaded.
/// `F` stops and starts following.
#[test]
fn follow_shows_each_appended_step_half_lines_and_truncation_in_a_real_terminal() {
    if !crate::peers::tool("tmux") {
        return;
    }
    use crate::common::Fx;
    use std::io::Write;
    let append = |p: &Path, s: &str| {
        let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
        f.write_all(s.as_bytes()).unwrap();
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let log = dir.path().join("live.jsonl");
    // A stale result: the claim's finding appears with the answer line.
    let mut fx = Fx::baseline();
    fx.calls[0].ttl = 1;
    let lines: Vec<String> = fx.lines().iter().map(|v| v.to_string() + "\n").collect();
    let at = |what: &str| lines.iter().position(|l| l.contains(what)).unwrap();
    let (call, result, answer) = (
        at("\"event\":\"tool_call\""),
        at("\"event\":\"tool_result\""),
        at("\"event\":\"answer\""),
    );
    std::fs::write(&log, lines[..call].concat()).unwrap();
    let cmd = format!(
        "{} --db {} --follow {}; echo EXIT=$?; sleep 60",
        env!("CARGO_BIN_EXE_provscope"),
        db.display(),
        log.display()
    );
    let tmux = Tmux::new("provscope-follow");
    tmux.start("follow", &cmd);
    let s = tmux.wait_for("● following 1 file(s)");
    assert!(s.contains("Turns (1)") && s.contains("Calls (0)"), "{s}");
    // The call, then its result.
    append(&log, &lines[call]);
    let s = tmux.wait_for("Calls (1)");
    assert!(s.contains("req_1") && s.contains("no result"), "{s}");
    append(&log, &lines[result..answer].concat());
    tmux.wait_for("1 block(s)");
    // Half of the answer line: nothing new, and no damaged line.
    let half = lines[answer].len() / 2;
    append(&log, &lines[answer][..half]);
    std::thread::sleep(Duration::from_millis(1200));
    let s = tmux.screen();
    assert!(
        s.contains("Claims (0)") && !s.contains("could not be read") && !s.contains('⚠'),
        "a half-written line was shown: {s}"
    );
    // The rest of it: the claim, with its stale finding.
    append(&log, &lines[answer][half..]);
    append(&log, &lines[answer + 1..].concat());
    let s = tmux.wait_for("Claims · 1 of 1");
    assert!(
        s.contains("Team seats cost") && s.contains("◷ stale"),
        "{s}"
    );
    // A new turn: listed, and the selection follows it (it was on the last turn).
    append(
        &log,
        "{\"event\":\"turn\",\"turn\":2,\"user\":\"question two\"}\n",
    );
    let s = tmux.wait_for("Turns (2)");
    assert!(
        s.contains("question two") && s.contains("Claims (0)"),
        "{s}"
    );
    // Truncated, then rewritten clean: reloaded from the start, the finding gone.
    let clean = Fx::baseline().jsonl();
    std::fs::write(&log, &clean[..20]).unwrap();
    let s = tmux.wait_for("truncated; reloaded from the start");
    assert!(s.contains("Turns (0)"), "{s}");
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&log, &clean).unwrap();
    tmux.wait_for("Turns (1)");
    tmux.wait_for("req_1");
    tmux.keys(&["Tab"]);
    let s = tmux.wait_for("no findings");
    assert!(!s.contains("◷ stale"), "{s}");
    // F stops following: a change is no longer shown; F again follows (and reads it).
    tmux.keys(&["F"]);
    let s = tmux.wait_for("stopped following");
    assert!(!s.contains("● following"), "{s}");
    append(
        &log,
        "{\"event\":\"turn\",\"turn\":2,\"user\":\"question again\"}\n",
    );
    std::thread::sleep(Duration::from_millis(800));
    assert!(tmux.screen().contains("Turns (1)"));
    tmux.keys(&["F"]);
    tmux.wait_for("Turns (2)");
    tmux.quit();
}

/// Follow mode on a JSON document saved without a final newline (an API response written in
/// two steps): while half of it is written it waits (never shown as damaged); once the document
/// is whole, its session is shown, with no damaged line left.
#[test]
fn follow_reads_a_json_document_saved_without_a_final_newline_in_a_real_terminal() {
    if !crate::peers::tool("tmux") {
        return;
    }
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let file = dir.path().join("response.json");
    let rel = "openai-responses/openai-web-search-tool.1.json";
    let text = std::fs::read_to_string(super::importers::formats().join(rel)).unwrap();
    let text = text.trim_end();
    let half = text.len() / 2;
    std::fs::write(&file, &text[..half]).unwrap();
    let cmd = format!(
        "{} --db {} --follow {}; echo EXIT=$?; sleep 60",
        env!("CARGO_BIN_EXE_provscope"),
        quoted(&db),
        quoted(&file)
    );
    let tmux = Tmux::new("provscope-follow-json");
    tmux.start("follow-json", &cmd);
    tmux.wait_for("● following 1 file(s)");
    // Half a document is being written: it waits whole, never shown as damaged.
    let s = tmux.wait_for("a JSON document being written");
    assert!(
        !s.contains("could not be read") && !s.contains("malformed"),
        "{s}"
    );
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    f.write_all(&text.as_bytes()[half..]).unwrap();
    drop(f);
    // Whole now: one session, no problem left from the half read first.
    let s = tmux.wait_for("1 turn(s), 10 claim(s)");
    assert!(
        s.contains(" 1 sessions ") && !s.contains("malformed") && !s.contains("input problem"),
        "{s}"
    );
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("Claims · 1 of 10");
    assert!(
        s.contains("Turns (1)") && !s.contains("could not be read"),
        "{s}"
    );
    tmux.quit();
}

/// `provscope record` (the attesting stdio proxy) writes a log while the explorer follows it in
/// a real terminal: the official Python MCP SDK client calls the real
/// `@modelcontextprotocol/server-everything` (npm, pinned) through `record`; the log does not
/// exist when the explorer starts, it is picked up when `record` creates it, and the calls and
/// results appear as they are recorded (several reloads while the client runs), each with its
/// envelope verified.
#[test]
fn follow_shows_a_log_that_record_is_writing() {
    if !crate::peers::tool("tmux") || !crate::peers::interop() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_provscope");
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let keygen = std::process::Command::new(bin)
        .args(["keygen", "--out", &p("attestor")])
        .output()
        .unwrap();
    assert!(keygen.status.success());
    let log = p("session.jsonl");
    let tmux = Tmux::new("provscope-follow-record");
    tmux.start(
        "follow",
        &format!(
            "{bin} --db {} --follow {log}; echo EXIT=$?; sleep 60",
            p("cases.sqlite")
        ),
    );
    tmux.wait_for("● following 1 file(s)");
    let js = root
        .join(".cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string();
    let client = std::process::Command::new("python3")
        .arg(root.join("tests/interop/mcp_client.py"))
        .args(["everything", "--", bin, "record", "--key"])
        .arg(p("attestor.key"))
        .args([
            "--log",
            &log,
            "--server-name",
            "everything",
            "--tier",
            "T2",
            "--",
        ])
        .args(["node", &js, "stdio"])
        .env("PROVSCOPE_PYDEPS", root.join(".cache/pydeps"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        client.status.success(),
        "{}",
        String::from_utf8_lossy(&client.stderr)
    );
    let calls = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"event\":\"tool_call\""))
        .count();
    assert_eq!(calls, 7, "the scenario's calls were recorded");
    // Every call and result on screen, from a log that grew while it was followed.
    let s = tmux.wait_for(&format!("Calls ({calls})"));
    let updates: u32 = s
        .split(" update(s)")
        .next()
        .and_then(|h| h.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no update count in the header: {s}"));
    assert!(updates >= 2, "read once at the end, not followed: {s}");
    assert!(s.contains("session.jsonl"), "{s}");
    tmux.quit();
}

/// `a` on the turn of a call that ran another agent opens that agent's session: in a trace
/// (the sub-agent cut out of the same file) and in the native logs `import --to provscope`
/// writes of it, opened alone (the link names the sub-agent's log).
#[test]
fn a_opens_the_sub_agent_session_of_a_trace_and_of_its_native_logs() {
    if !crate::peers::tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let trace = dir.path().join("trip.json");
    let doc = super::importers_otlp::sub_agent_trace("t-sub");
    std::fs::write(&trace, doc.to_string()).unwrap();
    let bin = env!("CARGO_BIN_EXE_provscope");
    let tmux = Tmux::new("provscope-sub");
    tmux.start(
        "trace",
        &format!(
            "{bin} --db {} {}; echo EXIT=$?; sleep 60",
            quoted(&db),
            quoted(&trace)
        ),
    );
    let s = tmux.wait_for("2 sessions");
    assert!(s.contains("trip/call_research"), "{s}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Plan a day in Paris");
    tmux.keys(&["a"]);
    let s = tmux.wait_for("Research the weather in Paris");
    assert!(s.contains("Session │ trip/call_research"), "{s}");
    assert!(s.contains("call_w"), "the sub-agent's own call: {s}");
    tmux.quit();

    let native = dir.path().join("native");
    let o = std::process::Command::new(bin)
        .args(["import", "--to", "provscope", "-o"])
        .arg(&native)
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The parent's log alone: a single session opens straight into the session view.
    tmux.start(
        "native",
        &format!(
            "{bin} --db {} {}; echo EXIT=$?; sleep 60",
            quoted(&db),
            quoted(&native.join("trip.jsonl"))
        ),
    );
    tmux.wait_for("Plan a day in Paris");
    tmux.keys(&["a"]);
    let s = tmux.wait_for("Research the weather in Paris");
    assert!(s.contains("call_w"), "{s}");
    tmux.quit();
}
