//! Envelope verification speed and `provscope record` overhead. Run: `cargo bench --bench attest`
//! (options: `--envelopes N` (default 100000), `--messages N` (default 10000), `--only verify` or
//! `--only record`). Prints markdown tables; `docs/benchmarks.md` explains the method.
//!
//! 1. Verification: N DSSE execution envelopes sealed by `attest::envelope::seal` (one attestor
//!    key, as in a recording), verified on one thread: each on its own (`verify_strict`) and in
//!    batches (ed25519-dalek `verify_batch`, as `provscope verify` does), both "full" (parse the
//!    envelope JSON, decode base64, build the PAE, verify) and "signature only" (pre-parsed).
//!    Baseline in the same run: `benches/attest_baseline.py`, a Python loop doing the same with
//!    `cryptography` (OpenSSL Ed25519; pinned in tests/interop/requirements.txt).
//! 2. Recorder overhead: request/response round trips, one at a time, through a plain pipe to a
//!    server (`cat`, or `sed` answering each request as a `tools/call` result), through a
//!    minimal relay (this binary with `--relay`: two copying threads, the floor for any stdio
//!    proxy) and through `provscope record -- <same server>`; added latency = minus plain, per
//!    percentile. Blocks of 100 messages rotate between the pipelines so noise hits all alike.
// A benchmark harness stops on the first failed setup step, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use provscope::attest::dsse::{self, Envelope, SigCheck};
use provscope::attest::envelope::{seal, Attestor, Observed};
use provscope::model::{CallResponse, Timestamp};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The same allocator as the `provscope` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn data_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/attest");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best_secs = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        let s = t.elapsed().as_secs_f64();
        if s < best_secs {
            best_secs = s;
        }
        out = Some(r);
    }
    (best_secs, out.unwrap())
}

/// Seals `n` envelopes of varied calls; returns their JSON and the attestor key.
fn make_envelopes(n: usize) -> (Vec<String>, ed25519_dalek::SigningKey) {
    let key = ed25519_dalek::SigningKey::from_bytes(&[42; 32]);
    let cache = provscope::model::event::CacheInfo::default();
    let att = Attestor {
        id: "bench".into(),
        key: key.clone(),
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let args = serde_json::value::RawValue::from_string(format!(
            r#"{{"plan":"team","seats":{},"currency":"EUR"}}"#,
            i % 97
        ))
        .unwrap();
        let resp: CallResponse = serde_json::from_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"Team plan: seats cost €{} per user per month, billed annually."}}],"structuredContent":{{"price":{}}}}}}}"#,
            i % 50,
            i % 50
        ))
        .unwrap();
        let call_id = format!("pricing#{i}");
        let obs = Observed {
            session_id: "bench-session",
            call_id: &call_id,
            server: "pricing",
            tool: "get_plan_price",
            arguments: Some(&args),
            called_at: Timestamp(1_790_000_000_000 + i as i64),
            returned_at: Timestamp(1_790_000_000_250 + i as i64),
            fetched_at: Timestamp(1_790_000_000_250 + i as i64),
            ttl_seconds: Some(3600),
            cache: &cache,
            response: &resp,
        };
        out.push(seal(&obs, &att).unwrap().to_json());
    }
    (out, key)
}

fn verify_single_full(lines: &[String], vk: &ed25519_dalek::VerifyingKey) -> usize {
    lines
        .iter()
        .filter(|l| {
            let e = Envelope::parse(l).unwrap();
            let pae = e.pae();
            dsse::verify_one(&SigCheck {
                msg: &pae,
                sig: &e.signatures[0].sig,
                key: vk,
            })
        })
        .count()
}

fn verify_batch_full(lines: &[String], vk: &ed25519_dalek::VerifyingKey, batch: usize) -> usize {
    let mut ok = 0;
    for chunk in lines.chunks(batch) {
        let envs: Vec<Envelope> = chunk.iter().map(|l| Envelope::parse(l).unwrap()).collect();
        let paes: Vec<Vec<u8>> = envs.iter().map(|e| e.pae()).collect();
        let checks: Vec<SigCheck> = envs
            .iter()
            .zip(&paes)
            .map(|(e, p)| SigCheck {
                msg: p,
                sig: &e.signatures[0].sig,
                key: vk,
            })
            .collect();
        ok += dsse::verify_all(&checks).iter().filter(|b| **b).count();
    }
    ok
}

fn python_verify(path: &Path, pubkey_hex: &str) -> Option<(f64, f64)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("benches/attest_baseline.py"))
        .arg(path)
        .arg(pubkey_hex)
        .env("PROVSCOPE_PYDEPS", root.join(".cache/pydeps"))
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "python baseline skipped: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some((v["full_secs"].as_f64()?, v["sig_secs"].as_f64()?))
}

fn bench_verify(n: usize) {
    eprintln!("sealing {n} envelopes...");
    let (lines, key) = make_envelopes(n);
    let vk = key.verifying_key();
    let path = data_dir().join("envelopes.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    eprintln!("verifying ({:.1} MB)...", bytes as f64 / 1e6);

    // pre-parsed, for the signature-only rows
    let envs: Vec<Envelope> = lines.iter().map(|l| Envelope::parse(l).unwrap()).collect();
    let paes: Vec<Vec<u8>> = envs.iter().map(|e| e.pae()).collect();
    let checks: Vec<SigCheck> = envs
        .iter()
        .zip(&paes)
        .map(|(e, p)| SigCheck {
            msg: p,
            sig: &e.signatures[0].sig,
            key: &vk,
        })
        .collect();

    let rate = |secs: f64| n as f64 / secs;
    let mut rows: Vec<(String, f64)> = Vec::new();
    let (s, ok) = best(3, || verify_single_full(&lines, &vk));
    assert_eq!(ok, n);
    rows.push(("single, full".into(), s));
    for b in [64, 256, 1024, 4096] {
        let (s, ok) = best(3, || verify_batch_full(&lines, &vk, b));
        assert_eq!(ok, n);
        rows.push((format!("batch of {b}, full"), s));
    }
    let (s, ok) = best(3, || checks.iter().filter(|c| dsse::verify_one(c)).count());
    assert_eq!(ok, n);
    rows.push(("single, signature only".into(), s));
    for b in [64, 256, 1024, 4096] {
        let (s, ok) = best(3, || {
            checks
                .chunks(b)
                .map(|c| dsse::verify_all(c).iter().filter(|x| **x).count())
                .sum::<usize>()
        });
        assert_eq!(ok, n);
        rows.push((format!("batch of {b}, signature only"), s));
    }
    let py = python_verify(&path, &hex::encode(vk.as_bytes()));
    let single_full = rows[0].1;
    println!("\n### Envelope verification, {n} envelopes, one thread\n");
    println!("| verifier | envelopes/s | vs Rust single (full) | vs Python (same kind) |");
    println!("|---|---|---|---|");
    for (name, s) in &rows {
        let py_same = py.map(|(full, sig)| if name.contains("full") { full } else { sig });
        println!(
            "| Rust {name} | {:.0} | {:.2}x | {} |",
            rate(*s),
            single_full / s,
            py_same.map_or("n/a".into(), |p| format!("{:.1}x", p / s))
        );
    }
    if let Some((full, sig)) = py {
        println!(
            "| Python `cryptography`, full | {:.0} | {:.2}x | 1.0x |",
            rate(full),
            single_full / full
        );
        println!(
            "| Python `cryptography`, signature only | {:.0} | {:.2}x | 1.0x |",
            rate(sig),
            single_full / sig
        );
    }
}

/// One request/response pipeline: a child process with a line-oriented ping-pong.
struct Pipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    rtts: Vec<Duration>,
    line: String,
}

impl Pipe {
    fn spawn(cmd: &[String], stderr: Stdio) -> Pipe {
        let mut child = Command::new(&cmd[0])
            .args(&cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Pipe {
            child,
            stdin,
            stdout,
            rtts: Vec::new(),
            line: String::new(),
        }
    }

    fn round_trips(&mut self, from: usize, count: usize, keep: bool) {
        for i in from..from + count {
            let msg = message(i);
            let t = Instant::now();
            self.stdin.write_all(msg.as_bytes()).unwrap();
            self.line.clear();
            self.stdout.read_line(&mut self.line).unwrap();
            let rtt = t.elapsed();
            assert!(self.line.contains(&format!("\"id\":{i},")), "{}", self.line);
            if keep {
                self.rtts.push(rtt);
            }
        }
    }

    fn finish(self) -> Vec<Duration> {
        drop(self.stdin);
        let mut child = self.child;
        let _ = child.wait();
        self.rtts
    }
}

fn message(i: usize) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"get_plan_price\",\"arguments\":{{\"plan\":\"team\",\"currency\":\"EUR\",\"seats\":{},\"note\":\"benchmark message padded to a typical small request size, about two hundred and fifty bytes\"}}}}}}\n",
        i % 50
    )
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort_unstable();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1e6
}

/// `--relay CMD...`: the forwarding floor. Spawns CMD and copies bytes both ways with two
/// threads and a 64 KiB buffer, exactly like `provscope record`'s pumps but with no tap, no
/// recorder and no signal handling: what any stdio proxy costs on this machine.
fn relay(cmd: &[String]) -> ! {
    use std::io::Read;
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_child = child.stdin.take().unwrap();
    let mut from_child = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = stdin.read(&mut buf) {
            if n == 0 || to_child.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
    let mut out = std::io::stdout().lock();
    let mut buf = vec![0u8; 64 * 1024];
    while let Ok(n) = from_child.read(&mut buf) {
        if n == 0 || out.write_all(&buf[..n]).and_then(|_| out.flush()).is_err() {
            break;
        }
    }
    let code = child.wait().map_or(1, |s| s.code().unwrap_or(1));
    std::process::exit(code)
}

fn bench_record(messages: usize) {
    let dir = data_dir();
    let key = dir.join("attestor");
    let _ = std::fs::remove_file(dir.join("attestor.key"));
    let _ = std::fs::remove_file(dir.join("attestor.pub"));
    let bin = env!("CARGO_BIN_EXE_provscope");
    let st = Command::new(bin)
        .args(["keygen", "--out"])
        .arg(&key)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let me = std::env::current_exe().unwrap().display().to_string();
    let sed_script = r#"s/^\{"jsonrpc":"2.0","id":([0-9]+),.*$/{"jsonrpc":"2.0","id":\1,"result":{"content":[{"type":"text","text":"Team plan: seats cost 19 EUR per user per month."}]}}/"#;
    let servers: Vec<(&str, Vec<String>)> = vec![
        ("`cat` (echoes; nothing to record)", vec!["cat".into()]),
        (
            "`sed -u` (answers each tools/call; every call recorded, sealed, fsynced)",
            vec!["sed".into(), "-u".into(), "-E".into(), sed_script.into()],
        ),
    ];
    println!("\n### Recorder overhead, {messages} request/response round trips, one at a time\n");
    println!(
        "Round-trip times in µs; each round trip passes the proxy twice (request and answer).\n"
    );
    println!("| server | path | p50 | p99 | added p50 | added p99 | recorded |");
    println!("|---|---|---|---|---|---|---|");
    for (name, server) in servers {
        let log = dir.join("record-bench.jsonl");
        let _ = std::fs::remove_file(&log);
        let stderr_path = dir.join("record-bench.stderr");
        let mut record_cmd: Vec<String> = vec![
            bin.into(),
            "record".into(),
            "--key".into(),
            dir.join("attestor.key").display().to_string(),
            "--log".into(),
            log.display().to_string(),
            "--server-name".into(),
            "bench".into(),
            "--".into(),
        ];
        record_cmd.extend(server.iter().cloned());
        let mut relay_cmd: Vec<String> = vec![me.clone(), "--relay".into()];
        relay_cmd.extend(server.iter().cloned());
        let mut pipes = [
            Pipe::spawn(&server, Stdio::null()),
            Pipe::spawn(&relay_cmd, Stdio::null()),
            Pipe::spawn(
                &record_cmd,
                Stdio::from(std::fs::File::create(&stderr_path).unwrap()),
            ),
        ];
        for p in pipes.iter_mut() {
            p.round_trips(0, 200, false);
        }
        let block = 100.min(messages);
        let mut done = 0;
        let mut from = 200;
        while done < messages {
            let k = block.min(messages - done);
            for p in pipes.iter_mut() {
                p.round_trips(from, k, true);
            }
            from += k;
            done += k;
        }
        let mut rtts: Vec<Vec<Duration>> = pipes.into_iter().map(Pipe::finish).collect();
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        let recorded = stderr
            .split("; ")
            .find(|s| s.contains("call(s) recorded"))
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("?")
            .to_owned();
        let p: Vec<(f64, f64)> = rtts
            .iter_mut()
            .map(|v| (pct(v, 0.5), pct(v, 0.99)))
            .collect();
        let (p50, p99) = p[0];
        println!("| {name} | plain pipe | {p50:.0} | {p99:.0} | | | |");
        println!(
            "| | minimal relay (2 threads, no tap) | {:.0} | {:.0} | {:+.0} | {:+.0} | |",
            p[1].0,
            p[1].1,
            p[1].0 - p50,
            p[1].1 - p99
        );
        println!(
            "| | `provscope record` | {:.0} | {:.0} | {:+.0} | {:+.0} | {recorded} |",
            p[2].0,
            p[2].1,
            p[2].0 - p50,
            p[2].1 - p99
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--relay") {
        relay(&args[i + 1..]);
    }
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let n: usize = opt("--envelopes").map_or(100_000, |s| s.parse().unwrap());
    let m: usize = opt("--messages").map_or(10_000, |s| s.parse().unwrap());
    let only = opt("--only");
    if only.as_deref().is_none_or(|o| o == "verify") {
        bench_verify(n);
    }
    if only.as_deref().is_none_or(|o| o == "record") {
        bench_record(m);
    }
}
