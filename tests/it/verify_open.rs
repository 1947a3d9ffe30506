//! `verify`'s text output names, for each finding about a claim, the command that opens the
//! explorer on it: `provscope open FILE --claim ID [--turn N]`. The file name and the claim id
//! come from outside (the disk, the log): they are made safe for a terminal and quoted for a
//! shell, so the copied command is one literal word per value and runs nothing else; machine
//! formats do not carry it.

use std::path::Path;
use std::process::{Command, Output};

/// A file name and a claim id a shell would act on if they were pasted unquoted.
const HOSTILE_FILE: &str = "it's $(touch pwned-file) `touch pwned-tick`; \"q\" 日本.jsonl";
const HOSTILE_ID: &str = "clm_'$(touch pwned-id)' \"q\";日本";

fn verify(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .arg("verify")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Sample 04 with its second stale claim renamed to `id`.
fn stale_log_with_claim(id: &str) -> String {
    let src = include_str!("../../sample-sessions/04-stale-cache.jsonl");
    let json = serde_json::to_string(id).unwrap();
    let log = src.replace(
        "\"clm_seat_price_monthly\"",
        &json, // with its quotes, JSON-escaped
    );
    assert_eq!(log.matches(&json).count(), 2, "the claim and its label");
    log
}

/// The printed `provscope open` commands, in order.
fn open_commands(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("provscope open "))
        .map(str::to_owned)
        .collect()
}

/// The words a POSIX shell makes of `cmd` (its first word replaced by printf, so nothing runs
/// but the printing), run in `dir`.
fn shell_words(dir: &Path, cmd: &str) -> Vec<String> {
    let rest = cmd.strip_prefix("provscope ").unwrap();
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\0' {rest}"))
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .split_terminator('\0')
        .map(str::to_owned)
        .collect()
}

#[test]
fn each_claim_finding_prints_the_command_that_opens_it() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("s.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions/04-stale-cache.jsonl"),
        &log,
    )
    .unwrap();
    let o = verify(dir.path(), &["s.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    // Right under its finding.
    assert!(
        text.contains(
            "error stale claim clm_seat_price: cached result was 5h 32m old at answer time, past its 15m 00s TTL by 5h 17m  s.jsonl:6\n      provscope open s.jsonl --claim clm_seat_price --turn 1\n"
        ),
        "{text}"
    );
    assert_eq!(
        open_commands(&o.stdout),
        [
            "provscope open s.jsonl --claim clm_seat_price --turn 1",
            "provscope open s.jsonl --claim clm_seat_price_monthly --turn 1",
            "provscope open s.jsonl --claim clm_seat_price --turn 3",
        ]
    );
    // Machine formats are what their serializers write, without it.
    for f in ["json", "junit", "sarif"] {
        let o = verify(dir.path(), &["s.jsonl", "--format", f]);
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains("provscope open"),
            "{f}"
        );
    }
    // The bundled samples are no file: no command to open one.
    let o = verify(dir.path(), &[]);
    assert!(open_commands(&o.stdout).is_empty());
    assert!(String::from_utf8_lossy(&o.stdout).contains("error stale claim"));
}

#[test]
fn a_hostile_file_name_and_claim_id_are_quoted_as_one_word_each() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(HOSTILE_FILE),
        stale_log_with_claim(HOSTILE_ID),
    )
    .unwrap();
    let o = verify(dir.path(), &[HOSTILE_FILE]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let cmds = open_commands(&o.stdout);
    assert_eq!(cmds.len(), 3, "{}", String::from_utf8_lossy(&o.stdout));
    let hostile = cmds.iter().find(|c| c.contains("pwned-id")).unwrap();
    assert_eq!(
        shell_words(dir.path(), hostile),
        ["open", HOSTILE_FILE, "--claim", HOSTILE_ID, "--turn", "1"]
    );
    for c in &cmds {
        assert_eq!(shell_words(dir.path(), c)[1], HOSTILE_FILE);
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [HOSTILE_FILE], "the shell ran nothing");

    // Control characters and bidi controls never reach the terminal, not even in the command;
    // the quoted word is the escaped text (a command that names no such file, and runs nothing).
    let evil_file = "evil\u{1b}]0;pwned\u{7}\u{202e}.jsonl";
    let evil_id = "clm\u{1b}[2J\u{9b}x";
    std::fs::write(dir.path().join(evil_file), stale_log_with_claim(evil_id)).unwrap();
    let o = verify(dir.path(), &[evil_file]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        !text
            .chars()
            .any(|c| c != '\n' && provscope::text::is_unsafe(c)),
        "{text:?}"
    );
    let cmd = open_commands(&o.stdout)
        .into_iter()
        .find(|c| c.contains("clm^["))
        .unwrap();
    assert_eq!(
        shell_words(dir.path(), &cmd),
        [
            "open",
            "evil^[]0;pwned^G\\u{202e}.jsonl",
            "--claim",
            "clm^[[2J\\u{009b}x",
            "--turn",
            "1"
        ]
    );
}

#[test]
fn an_option_like_file_name_or_claim_id_stays_a_value() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("-v.jsonl"), stale_log_with_claim("-x")).unwrap();
    let o = verify(dir.path(), &["--", "-v.jsonl"]);
    let cmds = open_commands(&o.stdout);
    assert!(
        cmds.contains(&"provscope open ./-v.jsonl --claim=-x --turn 1".to_owned()),
        "{cmds:?}"
    );
}

/// The printed command, run as printed by a shell in a real terminal, opens the explorer on
/// that claim of that file.
#[test]
fn the_printed_command_opens_the_explorer_on_that_claim() {
    if !crate::peers::tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(HOSTILE_FILE),
        stale_log_with_claim(HOSTILE_ID),
    )
    .unwrap();
    let o = verify(dir.path(), &[HOSTILE_FILE]);
    let cmd = open_commands(&o.stdout)
        .into_iter()
        .find(|c| c.contains("pwned-id"))
        .unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_provscope")).parent().unwrap();
    let q = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    let script = dir.path().join("run.sh");
    std::fs::write(
        &script,
        format!(
            "cd {}\nPATH={}:\"$PATH\"\nexport PROVSCOPE_DB={}\n{cmd}\necho EXIT=$?\nsleep 60\n",
            q(dir.path()),
            q(bin),
            q(&dir.path().join("cases.sqlite")),
        ),
    )
    .unwrap();
    let tmux = crate::tui_tmux::Tmux::new("provscope-open");
    tmux.start("open", &format!("sh {}", q(&script)));
    let s = tmux.wait_for("Claim beside source");
    assert!(
        s.contains("$(touch pwned-id)")
            && s.contains("STALE")
            && s.contains("age at answer 5h 32m"),
        "{s}"
    );
    tmux.quit();
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("pwned") && n != HOSTILE_FILE)
        .collect();
    assert!(names.is_empty(), "{names:?}");
}
