//! Hostile environments for the CLI, as processes: destinations that fail, inputs that never
//! end, files planted where a case is written, sizes at the edges of what `gen` accepts. Every
//! process runs under a deadline: a hang is a failure, never a stuck suite.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-sessions")
        .join(name)
}

/// Runs provscope with `stdout` as given, killing it after `limit`.
fn run_with(args: &[&str], cwd: &Path, stdout: Stdio, limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("PROVSCOPE_DB")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(_status) = child.try_wait().unwrap() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let _ = child.wait();
            panic!("provscope {args:?} did not finish within {limit:?}; stderr: {err}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run(args: &[&str], cwd: &Path) -> Output {
    run_with(args, cwd, Stdio::piped(), Duration::from_secs(60))
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
#[cfg(target_os = "linux")]
fn write_errors_other_than_a_closed_pipe_exit_2_naming_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let samples = sample("").display().to_string();
    for args in [
        vec!["verify", samples.as_str(), "--format", "json"],
        vec!["verify", samples.as_str()],
        vec!["summary", samples.as_str()],
        vec!["metrics", samples.as_str()],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = run_with(&args, dir.path(), full.into(), Duration::from_secs(60));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(
            err(&o).contains("cannot write stdout"),
            "{args:?}: {}",
            err(&o)
        );
    }
}

#[test]
#[cfg(unix)]
fn devices_and_fifos_never_hang() {
    let dir = tempfile::tempdir().unwrap();
    // A device named directly is read once with a cap; binary input stops at the first NUL.
    let o = run(&["verify", "/dev/zero"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("/dev/zero"), "{}", err(&o));
    // A FIFO named like a log in a scanned directory is skipped with a warning; the real log
    // beside it is verified.
    let scan = dir.path().join("scan");
    std::fs::create_dir(&scan).unwrap();
    std::fs::copy(sample("01-clean-baseline.jsonl"), scan.join("a.jsonl")).unwrap();
    let fifo = scan.join("pipe.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let o = run(
        &["verify", scan.to_str().unwrap(), "--format", "json"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("pipe.jsonl"), "{}", err(&o));
    assert!(err(&o).contains("not a regular file"), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sessions"].as_array().unwrap().len(), 1, "{v}");
}

#[test]
fn gen_works_at_every_edge_it_accepts_and_refuses_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    let out = out.to_str().unwrap();
    // The smallest shapes, with every fault (a parallel conflict needs two calls: still fine).
    for (turns, calls, fault) in [("1", "1", "1"), ("1", "1", "0"), ("3", "2", "1")] {
        let o = run(
            &[
                "gen",
                "--sessions",
                "3",
                "--turns",
                turns,
                "--calls",
                calls,
                "--fault-rate",
                fault,
                "--envelopes",
                "-o",
                out,
            ],
            dir.path(),
        );
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        let v = run(&["verify", out, "--format", "json"], dir.path());
        assert_ne!(v.status.code(), Some(2), "{}", err(&v));
    }
    // Sub-agent links (every fourth turn) to logs that are not there: followed, reported.
    let subs = dir.path().join("subs").to_str().unwrap().to_owned();
    let o = run(
        &[
            "gen",
            "--sessions",
            "1",
            "--turns",
            "8",
            "--sub-agents",
            "-o",
            &subs,
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v = run(&["verify", &subs, "--format", "json"], dir.path());
    assert_ne!(v.status.code(), Some(2), "{}", err(&v));
    let doc: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert!(
        doc["metrics"]["kinds"]["sub_agent_source"].as_u64() >= Some(2),
        "{}",
        doc["metrics"]["kinds"]
    );
    for bad in [
        vec!["--calls", "0"],
        vec!["--turns", "0"],
        vec!["--sessions", "10000001"],
        vec!["--result-bytes", "99999999999"],
        vec!["--fault-rate", "1.5"],
        vec!["--fault-rate", "NaN"],
    ] {
        let mut args = vec!["gen", "-o", out];
        args.extend(bad.iter());
        let o = run(&args, dir.path());
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", err(&o));
        assert!(!err(&o).contains("panicked"), "{bad:?}: {}", err(&o));
        assert!(!err(&o).is_empty(), "{bad:?}: no message");
    }
}

#[test]
#[cfg(unix)]
fn case_files_never_follow_a_symlink_or_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let log = sample("04-stale-cache.jsonl");
    let log = log.to_str().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let target = dir.path().join("c.case.json");
    std::os::unix::fs::symlink(&victim, &target).unwrap();
    let t = target.to_str().unwrap();
    let db = dir.path().join("s.sqlite");
    let db = db.to_str().unwrap();
    let correct = |extra: &[&str]| {
        let mut args = vec![
            "correct",
            log,
            "--claim",
            "clm_seat_price",
            "--outcome",
            "survived",
            "--db",
            db,
        ];
        args.extend(extra);
        run(&args, dir.path())
    };
    let export = |extra: &[&str]| {
        let mut args = vec!["export", "case", log, "--claim", "clm_seat_price"];
        args.extend(extra);
        run(&args, dir.path())
    };
    // A planted symlink: refused, its target untouched.
    for o in [correct(&["-o", t]), export(&["-o", t])] {
        assert_eq!(o.status.code(), Some(2), "{}", err(&o));
        assert!(err(&o).contains("c.case.json"), "{}", err(&o));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    }
    // --force replaces the link itself, never what it points at.
    let o = export(&["-o", t, "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(!std::fs::symlink_metadata(&target)
        .unwrap()
        .file_type()
        .is_symlink());
    let first = std::fs::read_to_string(&target).unwrap();
    assert!(first.contains("clm_seat_price"));
    // An existing file: refused without --force, and left as it was.
    std::fs::write(&target, "mine").unwrap();
    let o = correct(&["-o", t]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("--force"), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
    // The default name, in the working directory, also refuses to overwrite.
    let o = correct(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = correct(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
}

#[test]
fn different_claims_never_share_a_case_file_name() {
    use provscope::export::case::file_name;
    let ids = [
        "a/b", "a_b", "a%2Fb", "a.b", "a b", "A/B", "a\u{1b}b", "ab", "a%b",
    ];
    let mut names: Vec<String> = ids.iter().map(|i| file_name("s", i, 1)).collect();
    for n in &names {
        assert!(
            n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.%".contains(&b)),
            "{n}"
        );
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), ids.len(), "{names:?}");
    // Nor do sessions whose names differ only where a separator would hide it.
    assert_ne!(file_name("a.b", "c", 1), file_name("a", "b.c", 1));
}
