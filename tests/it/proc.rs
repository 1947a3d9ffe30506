//! Running a process from a test with a hard time limit: standard input closed (so a server
//! reading it sees end of file and exits), standard output and error collected, and on timeout
//! the whole process group killed (a client's servers with it) and the test failed with what was
//! printed so far. Nothing a test starts can hold the build lock for ever.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The default limit for one process of a test.
pub const LIMIT: Duration = Duration::from_secs(60);

/// Runs `cmd` to completion within `limit`; panics (after killing its process group) when it
/// takes longer.
pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let pid = child.id();
    let drain = |r: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            let _ = tx.send(buf);
        });
        rx
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|x| Box::new(x) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|x| Box::new(x) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let left = || limit.saturating_sub(start.elapsed());
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if !left().is_zero() => std::thread::sleep(Duration::from_millis(20)),
            // Still running: its group is certainly ours to kill.
            Ok(None) | Err(_) => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    // A process the child left behind can keep the pipes open: when they are not closed soon
    // after it exits, the group still has members (so its id is still ours) and is killed.
    let grace = Duration::from_secs(5);
    let collect = |rx: &std::sync::mpsc::Receiver<Vec<u8>>| match rx.recv_timeout(grace) {
        Ok(b) => b,
        Err(_) => {
            kill_group(pid);
            rx.recv_timeout(grace).unwrap_or_default()
        }
    };
    let stdout = collect(&out);
    let stderr = collect(&err);
    let Some(status) = status else {
        panic!(
            "{shown} did not finish within {} s: killed\nstdout:\n{}\nstderr:\n{}",
            limit.as_secs(),
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        );
    };
    Output {
        status,
        stdout,
        stderr,
    }
}

/// Runs `cmd` within [`LIMIT`].
pub fn output(cmd: &mut Command) -> Output {
    output_within(cmd, LIMIT)
}

fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
