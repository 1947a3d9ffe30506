//! Incremental checks of a growing log (`check::incremental`, used by `verify --follow` and the
//! explorer's follow mode): after each appended line the turn-local checks re-run for the
//! affected turns only, and the report equals a whole check of the same lines, on every prefix
//! of the sample logs, of line-based imported formats and of generated sessions with every check
//! firing (envelopes, sub-agents, a tier review schedule).

use provscope::check::incremental::{check_since, Memo, Recheck};
use provscope::check::{check_session, Config, SessionReport};
use provscope::gen::{write_session, GenSpec};
use provscope::ingest::{load_any_bytes, LoadOptions};
use provscope::model::Session;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(bytes: &[u8]) -> Vec<Session> {
    load_any_bytes("live", "live.jsonl", bytes, &LoadOptions::default())
}

/// Everything a report holds, skipped serde fields included.
fn shown(r: &SessionReport) -> String {
    format!("{r:?}")
}

/// Checks `bytes` cut after each line in turn, each time from the memo of the cut before, and
/// compares with a whole check. Returns what each incremental check did.
fn grow(name: &str, bytes: &[u8], cfg: &Config) -> Vec<Vec<Recheck>> {
    let cuts: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .chain((bytes.last() != Some(&b'\n')).then_some(bytes.len()))
        .collect();
    let mut memos: Vec<Memo> = Vec::new();
    let mut done = Vec::new();
    for (n, &cut) in cuts.iter().enumerate() {
        let sessions = load(&bytes[..cut]);
        let mut next = Vec::new();
        let mut did = Vec::new();
        for (k, s) in sessions.iter().enumerate() {
            let (inc, memo, recheck) = check_since(s, cfg, &[], memos.get(k));
            let whole = check_session(s, cfg);
            assert_eq!(
                shown(&inc),
                shown(&whole),
                "{name}: session {k} after line {}: incremental != whole ({recheck:?})",
                n + 1
            );
            next.push(memo);
            did.push(recheck);
        }
        memos = next;
        done.push(did);
    }
    done
}

fn tiered() -> Config {
    Config::parse(
        "[tiers]\n\"community-prices\" = { tier = \"T2\", reviewed = 2026-01-01, review_every = \"90d\" }\n",
    )
    .unwrap()
}

#[test]
fn incremental_equals_a_whole_check_after_every_line_of_the_sample_logs() {
    let dir = root().join("sample-sessions");
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 10, "{logs:?}");
    let mut kept = 0;
    for log in &logs {
        let bytes = std::fs::read(log).unwrap();
        for cfg in [Config::default(), tiered()] {
            let done = grow(&log.display().to_string(), &bytes, &cfg);
            kept += done.iter().flatten().map(|r| r.kept).sum::<usize>();
        }
    }
    assert!(kept > 0, "no turn was ever kept: nothing was incremental");
}

#[test]
fn incremental_equals_a_whole_check_after_every_line_of_imported_logs() {
    let formats = root().join("tests/formats");
    let logs = [
        "claude-code/projects/-Users-pete-tmp-claude-code-sessions/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl",
        "claude-code/projects/-Users-pete-tmp-claude-code-sessions/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl",
        "claude-desktop-log/mcp-server-weather.log",
    ];
    for l in logs {
        let p: &Path = &formats.join(l);
        let bytes = std::fs::read(p).unwrap();
        grow(l, &bytes, &Config::default());
    }
}

#[test]
fn incremental_equals_a_whole_check_on_generated_sessions_with_every_check() {
    let cases = (1..=12).map(|seed| (seed, seed % 3 == 1, seed % 4 == 2));
    for (seed, envelopes, sub_agents) in cases {
        let spec = GenSpec {
            turns: 6,
            calls: 3,
            seed,
            fault_rate: 0.7,
            result_bytes: 300,
            envelopes,
            sub_agents,
        };
        let mut bytes = Vec::new();
        write_session(&mut bytes, &spec, 1).unwrap();
        grow(&format!("generated seed {seed}"), &bytes, &tiered());
    }
}

/// The probe: the turns the turn-local checks looked at. Lines appended to the last turn
/// re-check that turn only; the others keep their findings.
#[test]
fn appending_to_the_last_turn_re_checks_that_turn_only() {
    let spec = GenSpec {
        turns: 6,
        calls: 3,
        seed: 11,
        fault_rate: 0.5,
        result_bytes: 200,
        envelopes: false,
        sub_agents: false,
    };
    let mut bytes = Vec::new();
    write_session(&mut bytes, &spec, 0).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let last_turn = lines
        .iter()
        .rposition(|l| l.contains("\"event\":\"turn\""))
        .unwrap();
    let cfg = tiered();
    // Every turn but the last, whole; then the last turn line by line.
    let first = load(lines[..last_turn].concat().as_bytes());
    let (_, mut memo, recheck) = check_since(&first[0], &cfg, &[], None);
    assert_eq!(
        recheck.checked,
        vec![1, 2, 3, 4, 5],
        "a first check looks at every turn"
    );
    let mut checked_last = 0;
    for n in last_turn + 1..=lines.len() {
        let s = &load(lines[..n].concat().as_bytes())[0];
        let (r, m, recheck) = check_since(s, &cfg, &[], Some(&memo));
        assert!(
            recheck.checked.iter().all(|&t| t == 6),
            "line {n}: {recheck:?}"
        );
        checked_last += usize::from(recheck.checked == [6]);
        assert!(
            recheck.kept == 5 || (recheck.kept == 6 && recheck.checked.is_empty()),
            "line {n}: turns 1-5 kept: {recheck:?}"
        );
        assert_eq!(shown(&r), shown(&check_session(s, &cfg)), "line {n}");
        memo = m;
    }
    assert!(
        checked_last > 0,
        "turn 6 was checked once its claims arrived"
    );
    // A line that changes nothing any check reads (a label for an unknown claim) keeps every
    // turn's findings: nothing is checked turn by turn.
    let mut more = lines.concat();
    more.push_str(
        "{\"event\":\"label\",\"claim_id\":\"no-such-claim\",\"fact\":\"right\",\"source\":\"test\"}\n",
    );
    let s = &load(more.as_bytes())[0];
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
    let (r, _, recheck) = check_since(s, &cfg, &[], Some(&memo));
    assert_eq!(recheck.checked, Vec::<u32>::new());
    assert_eq!(recheck.kept, 6);
    assert_eq!(shown(&r), shown(&check_session(s, &cfg)));
}
