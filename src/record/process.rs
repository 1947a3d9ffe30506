//! The proxy's plumbing (Unix): spawning the server, the forwarding pumps and their taps, the
//! recorder thread, signal forwarding and the exit status.

use super::framing::{LineBuffer, Piece};
use super::pairing::{relay_line, Event, Pairing};
use super::writer::{examine_existing, Existing, LogFile, LogSink, Refused};
use super::{new_session_id, Clock, Dir, ProxyOptions, RecordConfig, Recorder, Stats};
use super::{EXIT_LOG_FAILED, TAP_BUDGET_BYTES};
use crate::attest::envelope::Attestor;
use crate::attest::keys::compact;
use crate::model::Tier;
use std::collections::HashSet;
use std::io::Read;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use std::time::Instant;

enum Tap {
    /// An event of a message that passed the proxy, and its size (for the budget).
    Event(Event, usize),
    /// A message over the recording cap.
    Oversize(Dir, usize),
    /// Events of this many bytes were dropped (the recorder fell behind).
    Gap(Dir, u64),
    Finish,
}

/// Events for the recorder, sent without ever blocking.
#[derive(Clone)]
struct TapTx {
    tx: mpsc::Sender<Tap>,
    queued: Arc<AtomicUsize>,
}

impl TapTx {
    /// Sends an event unless the recorder is too far behind; returns false when it was not sent.
    fn send(&self, dir: Dir, ev: Event, lost: &mut u64) -> bool {
        let size = match &ev {
            Event::Request { raw, .. } | Event::Response { raw, .. } => raw.get().len(),
            Event::Aliased { .. } => 64,
        };
        let q = self.queued.load(Ordering::Relaxed);
        if q.saturating_add(size) > TAP_BUDGET_BYTES {
            *lost += size as u64;
            return false;
        }
        if *lost > 0 {
            let _ = self.tx.send(Tap::Gap(dir, *lost));
            *lost = 0;
        }
        self.queued.fetch_add(size, Ordering::Relaxed);
        self.tx.send(Tap::Event(ev, size)).is_ok()
    }
}

/// A line on stderr. Notes quote client-chosen ids, server output and paths: escaped here, where
/// they are formatted for a person (`text::one_line`).
fn say(msg: &str) {
    eprintln!("provscope record: {}", crate::text::one_line(msg));
}

/// The id bookkeeping both pumps share (held only to relay one line, never during I/O).
type SharedPairing = Arc<Mutex<Pairing>>;

/// Copies `from` to `to`, line by line: each complete line is relayed (`relay_line`: forwarded
/// unchanged, or with a reused id replaced) and its events are sent to the recorder.
///
/// Client-to-server events are sent *before* the chunk's lines are written, so a request is
/// always registered and queued for the recorder before the server can have seen it.
/// Server-to-client events are sent *after* they were written, so only what the client was
/// given is recorded. Sending never blocks (an unbounded channel, see [`TAP_BUDGET_BYTES`]).
///
/// When `to` fails the pump keeps reading (and discards) so the writer on the other side
/// never blocks; events stop, since those bytes are not delivered.
fn pump(
    mut from: impl Read,
    mut to: Option<impl Write>,
    dir: Dir,
    tap: TapTx,
    pairing: SharedPairing,
    cap: usize,
    done: Option<mpsc::Sender<()>>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut lines = LineBuffer::new(cap);
    let mut lost = 0u64;
    let mut out: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut events: Vec<Event> = Vec::new();
    let mut oversize: Vec<usize> = Vec::new();
    let write = |to: &mut Option<_>, bytes: &[u8]| {
        let Some(w): &mut Option<_> = to else {
            return;
        };
        if bytes.is_empty() {
            return;
        }
        if let Err(e) = Write::write_all(w, bytes) {
            if e.kind() != io::ErrorKind::BrokenPipe {
                say(&format!(
                    "writing to {} failed: {e}",
                    match dir {
                        Dir::ToServer => "the server",
                        Dir::ToClient => "the client",
                    }
                ));
            }
            // Closes the server's stdin (or our stdout) now.
            *to = None;
        }
    };
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                say(&format!("reading from {} failed: {e}", dir.sender()));
                break;
            }
        };
        if to.is_none() {
            continue;
        }
        let at = Instant::now();
        out.clear();
        lines.push(&buf[..n], |piece| match piece {
            Piece::Line(l) => {
                let mut p = pairing.lock().unwrap_or_else(|e| e.into_inner());
                let (fwd, evs) = relay_line(&mut p, dir, at, l);
                drop(p);
                out.extend_from_slice(&fwd);
                events.extend(evs);
            }
            Piece::Raw(r) => out.extend_from_slice(r),
            Piece::Oversize(len) => oversize.push(len),
        });
        for len in oversize.drain(..) {
            let _ = tap.tx.send(Tap::Oversize(dir, len));
        }
        if dir == Dir::ToServer {
            for e in events.drain(..) {
                tap.send(dir, e, &mut lost);
            }
            write(&mut to, &out);
        } else {
            write(&mut to, &out);
            if to.is_some() {
                for e in events.drain(..) {
                    tap.send(dir, e, &mut lost);
                }
            }
            events.clear();
        }
    }
    // A last line without its newline is forwarded as it is (not recorded).
    out.clear();
    lines.finish(|piece| {
        if let Piece::Raw(r) | Piece::Line(r) = piece {
            out.extend_from_slice(r);
        }
    });
    write(&mut to, &out);
    drop(to);
    if lost > 0 {
        let _ = tap.tx.send(Tap::Gap(dir, lost));
    }
    if let Some(d) = done {
        let _ = d.send(());
    }
}

/// The recorder thread: opens the log, then records until told to finish.
fn recorder(
    opts: RecorderSetup,
    clock: Clock,
    rx: mpsc::Receiver<Tap>,
    queued: Arc<AtomicUsize>,
) -> (Stats, Option<String>) {
    let mut unusable: Option<String> = None;
    let key = compact(&opts.attestor.key.verifying_key());
    let mut cfg = RecordConfig {
        session_id: opts
            .session_id
            .clone()
            .unwrap_or_else(|| new_session_id(clock.started())),
        server: opts.server.clone(),
        tier: opts.tier,
        ttl_seconds: opts.ttl_seconds,
        attestor: opts.attestor,
        max_message_bytes: opts.max_message_bytes,
        title: Some(format!("provscope record: {}", opts.server)),
        write_header: true,
        used_call_ids: HashSet::new(),
    };
    let shown = opts.log.display().to_string();
    let sink: Box<dyn LogSink> =
        match open_log(&opts.log, &opts.server, &key, opts.session_id.as_deref()) {
            Ok((f, Existing::Fresh)) => Box::new(f),
            Ok((
                f,
                Existing::Continue {
                    session_id,
                    used_call_ids,
                    ..
                },
            )) => {
                say(&format!(
                    "{shown}: continuing session `{session_id}` ({} calls already recorded)",
                    used_call_ids.len()
                ));
                cfg.session_id = session_id;
                cfg.used_call_ids = used_call_ids;
                cfg.write_header = false;
                Box::new(f)
            }
            Ok((_, Existing::Foreign(why))) => {
                let m =
                    format!("{shown}: not recording into this log: {why}; use a new --log file");
                say(&format!("{m}; forwarding continues"));
                unusable = Some(m.clone());
                Box::new(Refused(m))
            }
            Err(e) => {
                let m = format!("{shown}: cannot open the log: {e}");
                say(&format!("{m}; forwarding continues, nothing is recorded"));
                unusable = Some(m.clone());
                Box::new(Refused(m))
            }
        };
    let mut rec = Recorder::new(cfg, clock, sink);
    let mut shown_kinds: HashSet<String> = HashSet::new();
    let mut flush_notes = |rec: &mut Recorder<Box<dyn LogSink>>| {
        for n in rec.take_notes() {
            // One line per kind of note (the text before the first digit), so a flood of
            // similar problems does not drown the server's own stderr.
            let kind: String = n.chars().take_while(|c| !c.is_ascii_digit()).collect();
            if shown_kinds.insert(kind) {
                say(&n);
            }
        }
    };
    for t in rx {
        match t {
            Tap::Event(ev, size) => {
                rec.event(ev);
                queued.fetch_sub(size, Ordering::Relaxed);
            }
            Tap::Oversize(dir, len) => rec.oversize(dir, len),
            Tap::Gap(dir, lost) => rec.gap(dir, lost),
            Tap::Finish => break,
        }
        flush_notes(&mut rec);
    }
    let stats = rec.finish();
    flush_notes(&mut rec);
    let err = unusable.or_else(|| rec.first_write_error().map(str::to_owned));
    (stats, err)
}

impl LogSink for Box<dyn LogSink> {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        (**self).append(bytes)
    }
}

struct RecorderSetup {
    attestor: Attestor,
    log: PathBuf,
    server: String,
    tier: Tier,
    session_id: Option<String>,
    ttl_seconds: u64,
    max_message_bytes: usize,
}

fn open_log(
    path: &Path,
    server: &str,
    key: &str,
    session_id: Option<&str>,
) -> io::Result<(LogFile, Existing)> {
    let mut f = LogFile::open(path)?;
    if f.is_empty() {
        return Ok((f, Existing::Fresh));
    }
    let bytes = std::fs::read(path)?;
    let ex = examine_existing(&bytes, server, key, session_id);
    match &ex {
        Existing::Continue { complete_len, .. } if *complete_len < f.len() => {
            say(&format!(
                "{}: cutting an incomplete last line ({} bytes) left by an earlier crash",
                path.display(),
                f.len() - complete_len
            ));
            f.truncate(*complete_len)?;
        }
        _ => {}
    }
    Ok((f, ex))
}

fn exit_code(status: std::process::ExitStatus) -> (u8, String) {
    use std::os::unix::process::ExitStatusExt;
    if let Some(c) = status.code() {
        (
            u8::try_from(c & 0xff).unwrap_or(1),
            format!("the server exited with status {c}"),
        )
    } else if let Some(sig) = status.signal() {
        (
            u8::try_from((128 + sig) & 0xff).unwrap_or(1),
            format!("the server was killed by signal {sig}"),
        )
    } else {
        (1, format!("the server ended abnormally ({status})"))
    }
}

/// Runs the proxy until the server exits; returns the process exit status: the server's
/// (128 + N when signal N killed it), else [`EXIT_LOG_FAILED`] when calls could not be
/// written, else 0. 127/126 when the server cannot be started.
pub fn run(o: ProxyOptions) -> u8 {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Some((program, args)) = o.command.split_first() else {
        say("no server command given (provscope record ... -- SERVER_CMD ARGS...)");
        return 2;
    };
    // Handlers first, so a signal that arrives while the server starts is forwarded.
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(s) => Some(s),
        Err(e) => {
            say(&format!(
                "cannot install signal handlers ({e}); signals are not forwarded"
            ));
            None
        }
    };
    let clock = Clock::start();
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            say(&format!(
                "cannot start `{}`: {e}",
                program.to_string_lossy()
            ));
            return if e.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
        }
    };
    let pid = rustix::process::Pid::from_child(&child);
    let exited = Arc::new(AtomicBool::new(false));
    let sig_handle = signals.as_ref().map(|s| s.handle());
    if let Some(mut s) = signals.take() {
        let exited = exited.clone();
        std::thread::spawn(move || {
            for sig in s.forever() {
                if exited.load(Ordering::SeqCst) {
                    continue;
                }
                if let Some(sg) = rustix::process::Signal::from_named_raw(sig) {
                    let _ = rustix::process::kill_process(pid, sg);
                }
            }
        });
    }

    let (tx, rx) = mpsc::channel::<Tap>();
    let queued = Arc::new(AtomicUsize::new(0));
    let tap = TapTx {
        tx: tx.clone(),
        queued: queued.clone(),
    };
    let setup = RecorderSetup {
        attestor: o.attestor,
        log: o.log.clone(),
        server: o.server.clone(),
        tier: o.tier,
        session_id: o.session_id.clone(),
        ttl_seconds: o.ttl_seconds,
        max_message_bytes: o.max_message_bytes,
    };
    let rec_queued = queued.clone();
    let recorder = std::thread::spawn(move || recorder(setup, clock, rx, rec_queued));

    // Unbuffered duplicates of our stdin and stdout: no std buffering, no global locks.
    let fd_file =
        |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().map(std::fs::File::from);
    use std::os::fd::AsFd;
    let (stdin, stdout) = match (fd_file(io::stdin().as_fd()), fd_file(io::stdout().as_fd())) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => {
            say(&format!("cannot use stdin/stdout: {e}"));
            let _ = child.kill();
            let _ = child.wait();
            return 2;
        }
    };
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        say("the server's pipes are missing");
        let _ = child.kill();
        let _ = child.wait();
        return 2;
    };
    let pairing: SharedPairing = Arc::default();
    let cap = o.max_message_bytes;
    let tap_in = tap.clone();
    let pairing_in = pairing.clone();
    std::thread::spawn(move || {
        pump(
            stdin,
            Some(child_in),
            Dir::ToServer,
            tap_in,
            pairing_in,
            cap,
            None,
        )
    });
    let (done_tx, done_rx) = mpsc::channel();
    let tap_out = tap;
    std::thread::spawn(move || {
        pump(
            child_out,
            Some(stdout),
            Dir::ToClient,
            tap_out,
            pairing,
            cap,
            Some(done_tx),
        )
    });

    let status = loop {
        match child.wait() {
            Ok(s) => break Some(s),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                say(&format!("cannot wait for the server: {e}"));
                break None;
            }
        }
    };
    exited.store(true, Ordering::SeqCst);
    // Everything the server wrote before exiting is forwarded (and tapped) once its stdout
    // reaches end of file; a grandchild holding the pipe open must not keep us forever.
    if done_rx.recv_timeout(Duration::from_secs(5)).is_err() {
        say("the server's stdout is still open 5 s after it exited (a child process?); stopping");
    }
    let _ = tx.send(Tap::Finish);
    let (stats, write_error) = match recorder.join() {
        Ok(r) => r,
        Err(_) => {
            say("the recorder thread failed; the log may be incomplete");
            (
                Stats {
                    write_failures: 1,
                    ..Stats::default()
                },
                None,
            )
        }
    };
    if let Some(h) = sig_handle {
        h.close();
    }
    let (code, how) = match status {
        Some(s) => exit_code(s),
        None => (1, "the server's status is unknown".to_owned()),
    };
    let mut summary = format!(
        "{how}; {} call(s) recorded in {}",
        stats.recorded,
        o.log.display()
    );
    for (n, what) in [
        (stats.unanswered, "unanswered"),
        (stats.unrecordable, "not recordable"),
        (stats.oversize, "over the size cap"),
    ] {
        if n > 0 {
            summary.push_str(&format!(", {n} {what}"));
        }
    }
    if stats.lost_bytes > 0 {
        summary.push_str(&format!(
            ", {} bytes skipped by a recorder that fell behind",
            stats.lost_bytes
        ));
    }
    if stats.write_failures > 0 || write_error.is_some() {
        summary.push_str(&format!(
            "; {} call(s) could NOT be written ({})",
            stats.write_failures,
            write_error.as_deref().unwrap_or("see above")
        ));
    }
    say(&summary);
    if code != 0 {
        code
    } else if stats.write_failures > 0 || write_error.is_some() {
        EXIT_LOG_FAILED
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that answers inside `write`: its response is relayed and sent to the recorder
    /// before `write` returns, the worst case for pairing a response with its request.
    struct InstantServer(TapTx, SharedPairing);

    impl Write for InstantServer {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let mut lost = 0;
            let resp = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n";
            let mut p = self.1.lock().unwrap();
            let (_, events) = relay_line(&mut p, Dir::ToClient, Instant::now(), resp);
            for e in events {
                self.0.send(Dir::ToClient, e, &mut lost);
            }
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_request_is_registered_before_the_server_can_answer_it() {
        let (tx, rx) = mpsc::channel();
        let tap = TapTx {
            tx,
            queued: Arc::new(AtomicUsize::new(0)),
        };
        let pairing = SharedPairing::default();
        let req = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n";
        pump(
            &req[..],
            Some(InstantServer(tap.clone(), pairing.clone())),
            Dir::ToServer,
            tap,
            pairing,
            1 << 20,
            None,
        );
        let t0 = Instant::now();
        let mut r = Recorder::new(
            crate::record::test_support::cfg("s"),
            Clock::anchored(crate::model::Timestamp(0), t0),
            Vec::new(),
        );
        for t in rx.try_iter() {
            if let Tap::Event(e, _) = t {
                r.event(e);
            }
        }
        assert_eq!(r.stats().recorded, 1);
    }
}
