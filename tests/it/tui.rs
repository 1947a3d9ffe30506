//! The explorer as a user sees it: TestBackend snapshots of every view (80x24, 200x60, NO_COLOR)
//! and `update` driven by key sequences (search, classify, walkthrough resume).

pub use crate::tui_util::{app, open_claim, run_effects, screen};
use provscope::check::{check_session, Config, Kind, Quadrant};
use provscope::ingest::{samples, LoadOptions};
use provscope::store::Store;
use provscope::tui::action::{Action, View};
use provscope::tui::app::Loaded;
use provscope::tui::filter::Filter;
use provscope::tui::update::{update, Effect};
use provscope::tui::{new_app, perform, restore_marks};

#[test]
fn sessions_view_snapshots() {
    let mut a = app(true);
    insta::assert_snapshot!("sessions_80x24", screen(&mut a, 80, 24));
    insta::assert_snapshot!("sessions_200x60", screen(&mut a, 200, 60));
}

#[test]
fn a_partly_unreadable_log_is_not_listed_as_clean() {
    let mut a = new_app(&Config::default(), false).unwrap();
    let clean = samples::load_all(&LoadOptions::default())
        .into_iter()
        .find(|s| s.name == "01-clean-baseline")
        .unwrap();
    let r = check_session(&clean, &Config::default());
    a.push_session(Loaded::new(clean, r));
    let bytes = b"{\"event\":\"session\",\"version\":1,\"session_id\":\"cut\",\"started_at\":\"2026-10-02T14:00:00Z\"}\n{\"event\":\"turn\",\"tu";
    let cut = provscope::ingest::load_bytes(
        "cut-short",
        "cut-short.jsonl",
        bytes,
        &LoadOptions::default(),
    );
    let r = check_session(&cut, &Config::default());
    a.push_session(Loaded::new(cut, r));
    let text = screen(&mut a, 100, 12);
    let row = |name: &str| {
        text.lines()
            .find(|l| l.contains(name))
            .unwrap_or("")
            .to_owned()
    };
    assert!(row("01-clean-baseline").contains("clean"), "{text}");
    assert!(row("cut-short").contains("log error"), "{text}");
}

#[test]
fn session_view_snapshots() {
    let mut a = app(true);
    open_claim(&mut a, "04-stale-cache", "clm_seat_price");
    insta::assert_snapshot!("session_80x24", screen(&mut a, 80, 24));
    insta::assert_snapshot!("session_200x60", screen(&mut a, 200, 60));
}

#[test]
fn claim_view_snapshots_and_no_color_labels() {
    let mut a = app(true);
    open_claim(&mut a, "04-stale-cache", "clm_seat_price");
    update(&mut a, Action::Goto(View::Claim));
    let s = screen(&mut a, 200, 60);
    assert!(
        s.contains("STALE") && s.contains("age at answer 5h 32m"),
        "{s}"
    );
    assert!(s.contains("◷ stale"), "colour mode uses symbol badges");
    insta::assert_snapshot!("claim_200x60", s);
    insta::assert_snapshot!("claim_80x24", screen(&mut a, 80, 24));
    let mut plain = app(false);
    open_claim(&mut plain, "04-stale-cache", "clm_seat_price");
    update(&mut plain, Action::Goto(View::Claim));
    let s = screen(&mut plain, 200, 60);
    assert!(s.contains("[stale]"), "NO_COLOR uses text labels: {s}");
    insta::assert_snapshot!("claim_no_color_200x60", s);
}

#[test]
fn unsupported_tokens_and_unsourced_claims_are_plain() {
    let mut a = app(true);
    open_claim(&mut a, "08-fact-wrong-source-right", "clm_refund_window");
    update(&mut a, Action::Goto(View::Claim));
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("not in the span: 30 days"), "{s}");
    let mut a = app(true);
    open_claim(&mut a, "07-unsourced", "clm_double_click");
    update(&mut a, Action::Goto(View::Claim));
    let s = screen(&mut a, 120, 40);
    assert!(
        s.contains("This claim has no origin: it is unsourced."),
        "{s}"
    );
}

#[test]
fn drift_parallel_grid_review_help_snapshots() {
    let mut a = app(true);
    open_claim(&mut a, "03-citation-drift", "clm_team_price");
    update(&mut a, Action::Goto(View::Drift));
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("re-binding points:") && s.contains("⇄"), "{s}");
    insta::assert_snapshot!("drift_200x60", s);

    let mut a = app(true);
    open_claim(&mut a, "06-parallel-conflict", "clm_inc_resolved");
    update(&mut a, Action::Goto(View::Parallel));
    let s = screen(&mut a, 200, 60);
    assert!(
        s.contains("arrival order:")
            && s.contains("◀ cited")
            && s.contains("conflict surfaced in the answer: no"),
        "{s}"
    );
    insta::assert_snapshot!("parallel_200x60", s);
    insta::assert_snapshot!("parallel_80x24", screen(&mut a, 80, 24));

    let mut a = app(true);
    open_claim(&mut a, "04-stale-cache", "clm_seat_price");
    update(&mut a, Action::Goto(View::Grid));
    insta::assert_snapshot!("grid_200x60", screen(&mut a, 200, 60));
    insta::assert_snapshot!("grid_80x24", screen(&mut a, 80, 24));

    let mut a = app(true);
    open_claim(&mut a, "05-untrusted-injection", "clm_list_price");
    update(&mut a, Action::Goto(View::Review));
    let s = screen(&mut a, 200, 60);
    assert!(s.contains("flagged claim 1 of"), "{s}");
    insta::assert_snapshot!("review_200x60", s);

    update(&mut a, Action::Help);
    let s = screen(&mut a, 80, 24);
    assert!(
        s.contains("Help: Review") && s.contains("next flagged claim"),
        "{s}"
    );
    insta::assert_snapshot!("help_80x24", s);
}

#[test]
fn help_descriptions_wrap_under_themselves() {
    let mut a = app(true);
    open_claim(&mut a, "03-citation-drift", "clm_team_price");
    update(&mut a, Action::Goto(View::Session));
    update(&mut a, Action::Help);
    let s = screen(&mut a, 80, 24);
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("open the sub-agent session"))
        .unwrap_or_else(|| panic!("no sub-agent row: {s}"));
    // The help pane starts three columns in (outer border, a column of the view, its border);
    // the description's second line starts under its first, 16 columns after the keys' start.
    let next: String = lines[at + 1].chars().skip(3).take(17).collect();
    let first: String = lines[at].chars().skip(3).take(16).collect();
    assert!(first.trim_end().ends_with('a'), "{s}");
    assert_eq!(next.chars().filter(|c| *c == ' ').count(), 16, "{s}");
    assert!(!next.ends_with(' '), "{s}");
}

#[test]
fn terminal_escapes_in_logs_never_reach_the_screen() {
    let mut fx = String::new();
    for line in samples::files()
        .iter()
        .find(|(n, _)| n.starts_with("01"))
        .unwrap()
        .1
        .lines()
    {
        fx.push_str(&line.replace(
            "Premium refunds",
            "Premium \\u001b]0;pwned\\u0007\\u001b[31mrefunds",
        ));
        fx.push('\n');
    }
    let s =
        provscope::ingest::load_bytes("evil", "evil.jsonl", fx.as_bytes(), &LoadOptions::default());
    let r = check_session(&s, &Config::default());
    let mut a = new_app(&Config::default(), true).unwrap();
    a.push_session(Loaded::new(s, r));
    update(&mut a, Action::Open);
    update(&mut a, Action::Right);
    update(&mut a, Action::Open);
    let out = screen(&mut a, 200, 60);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{7}'),
        "escape sequences rendered"
    );
    // Shown visibly escaped, never emitted.
    assert!(out.contains("Premium ^[]0;pwned^G^[[31mrefunds"), "{out}");
}

#[test]
fn search_finds_and_opens_a_claim() {
    let mut a = app(true);
    open_claim(&mut a, "06-parallel-conflict", "clm_inc_resolved");
    update(&mut a, Action::Search);
    let mut last = None;
    for c in "statuspage".chars() {
        for e in update(&mut a, crate::tui_util::key(c)) {
            last = Some(e);
        }
    }
    assert!(
        matches!(&last, Some(Effect::Search { query, .. }) if query == "statuspage"),
        "{last:?}"
    );
    // Run the search as the runtime would, synchronously, through `update`.
    run_effects(&mut a, last.into_iter().collect());
    assert!(!a.search.as_ref().unwrap().hits.is_empty());
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("match(es)"), "{s}");
    update(
        &mut a,
        crate::tui_util::code(ratatui::crossterm::event::KeyCode::Enter),
    );
    assert_eq!(a.view, View::Claim);
    let call = a.current_claim().unwrap().call_id.clone().unwrap();
    let server = &a.current().unwrap().session.call(&call).unwrap().server;
    assert_eq!(server, "statuspage.vendor.io");
}

#[test]
fn classify_persists_and_walkthrough_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cases.sqlite");
    let store = Store::open(&db).unwrap();
    let mut a = app(true);
    a.filter = Filter::parse("session:04-stale").unwrap();
    open_claim(&mut a, "04-stale-cache", "clm_seat_price");
    update(&mut a, Action::Goto(View::Review));
    assert_eq!(a.review.len(), 3, "three flagged claims in 04");
    // Step to the second flagged claim, classify it, note it, mark it reviewed.
    let mut effects = update(&mut a, Action::Next);
    effects.extend(update(
        &mut a,
        Action::Classify(Quadrant::FactWrongSourceWrong),
    ));
    update(&mut a, Action::Note);
    for c in "check mirror".chars() {
        update(&mut a, crate::tui_util::key(c));
    }
    effects.extend(update(
        &mut a,
        crate::tui_util::code(ratatui::crossterm::event::KeyCode::Enter),
    ));
    effects.extend(update(&mut a, Action::ToggleReviewed));
    for e in &effects {
        if let Some(m) = perform(&a, Some(&store), e) {
            if let provscope::tui::action::Msg::Done(r) = &m {
                assert!(r.is_ok(), "{r:?}");
            }
            update(&mut a, m);
        }
    }
    let key = a.claim_key().unwrap();
    drop(store);

    // A new explorer on the same database resumes at the same claim with the same marks.
    let store = Store::open(&db).unwrap();
    let mut b = app(true);
    let sid = key.0.clone();
    update(
        &mut b,
        provscope::tui::action::Msg::Restored(restore_marks(&store, &sid).unwrap()),
    );
    b.filter = Filter::parse("session:04-stale").unwrap();
    open_claim(&mut b, "04-stale-cache", "clm_seat_price");
    update(&mut b, Action::Goto(View::Review));
    assert_eq!(b.review_pos, 1, "resumes where the review stopped");
    assert_eq!(b.claim_key().unwrap(), key);
    let m = b.mark().unwrap();
    assert_eq!(m.quadrant, Some(Quadrant::FactWrongSourceWrong));
    assert_eq!(m.note, "check mirror");
    assert!(b.is_reviewed(b.cur.unwrap(), b.sel_claim));
    let s = screen(&mut b, 200, 60);
    assert!(
        s.contains("flagged claim 2 of 3 · 1 reviewed") && s.contains("note: check mirror"),
        "{s}"
    );
}

#[test]
fn navigation_keys_and_back() {
    let mut a = app(true);
    update(&mut a, Action::Bottom);
    assert_eq!(a.sel_session, a.order.len() - 1);
    update(&mut a, Action::Top);
    assert_eq!(a.sel_session, 0);
    update(&mut a, Action::Open);
    assert_eq!(a.view, View::Session);
    update(&mut a, Action::Down);
    assert_eq!(a.sel_turn, 1);
    update(&mut a, Action::Back);
    assert_eq!(a.view, View::Sessions);
    assert_eq!(update(&mut a, Action::Back), vec![Effect::Quit]);
}

#[test]
fn export_key_writes_a_case_that_check_can_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(true);
    open_claim(&mut a, "06-parallel-conflict", "clm_inc_resolved");
    update(&mut a, Action::Goto(View::Claim));
    let effects = update(&mut a, Action::Export);
    assert_eq!(effects.len(), 1);
    let cwd = std::env::current_dir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    let msg = perform(&a, None, &effects[0]);
    std::env::set_current_dir(cwd).unwrap();
    update(&mut a, msg.unwrap());
    assert!(
        a.status
            .contains("case written to 06-parallel-conflict.clm_inc_resolved.1.case.json"),
        "{}",
        a.status
    );
    // `y` right after copies the case path.
    let copied = update(&mut a, Action::Copy);
    assert_eq!(
        copied,
        vec![Effect::Copy(
            "06-parallel-conflict.clm_inc_resolved.1.case.json".into()
        )]
    );
    let text = std::fs::read_to_string(
        dir.path()
            .join("06-parallel-conflict.clm_inc_resolved.1.case.json"),
    )
    .unwrap();
    assert!(
        text.contains("\"cite_server\": \"incidents.internal\""),
        "{text}"
    );
    // Every finding kind on screen has a badge.
    let _ = Kind::Stale;
}

/// An explorer holding one fixture session, with claim `claim` (index) selected in `view`.
fn fixture_view(lines: &[serde_json::Value], claim: usize, view: View) -> String {
    let text: String = lines.iter().map(|v| v.to_string() + "\n").collect();
    let s =
        provscope::ingest::load_bytes("fx", "fx.jsonl", text.as_bytes(), &LoadOptions::default());
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let r = check_session(&s, &Config::default());
    let mut a = new_app(&Config::default(), false).unwrap();
    a.push_session(Loaded::new(s, r));
    update(&mut a, Action::Open);
    a.select_claim(claim);
    update(&mut a, Action::Goto(view));
    let _ = &mut a;
    screen(&mut a, 200, 60)
}

#[test]
fn drift_view_shows_every_statement_check_grouped_even_across_punctuation() {
    use crate::common::{Fx, FxCall, FxClaim};
    let mut fx = Fx::baseline();
    fx.turns = 2;
    let text = fx.calls[0].text.clone();
    fx.calls
        .push(FxCall::new("req_2", 2, "pricing.internal", &text));
    fx.claims.push(FxClaim::new(
        "clm_restated",
        2,
        "Team seats cost $19, per user per month!",
        "req_2",
        "seats cost $19 per user per month",
    ));
    let r = fx.report();
    let drift: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::CitationDrift)
        .collect();
    assert_eq!(drift.len(), 1, "{:?}", r.findings);
    assert_eq!(drift[0].claim_id.as_deref(), Some("clm_restated"));
    let screen = fixture_view(&fx.lines(), 1, View::Drift);
    assert!(screen.contains("clm_price"), "{screen}");
    assert!(screen.contains("clm_restated"), "{screen}");
    assert!(
        screen.contains("req_1") && screen.contains("req_2"),
        "{screen}"
    );
    assert!(
        screen.contains("re-bound from `req_1` to `req_2`"),
        "{screen}"
    );
}

#[test]
fn parallel_view_shows_the_group_check_judged() {
    use crate::common::{Fx, FxCall};
    let mut fx = Fx::baseline();
    // req_2 overlaps req_1 in time (no fan-out id recorded); req_3 comes later, alone.
    let mut b = FxCall::new(
        "req_2",
        1,
        "mirror.vendor.com",
        "Seats: $25 per user per month.",
    );
    b.issued = "2026-10-02T14:01:00.500Z".into();
    b.returned = "2026-10-02T14:01:02Z".into();
    b.fetched = "2026-10-02T14:01:02Z".into();
    let mut c = FxCall::new(
        "req_3",
        1,
        "community-prices",
        "Seats: $30 per user per month.",
    );
    c.issued = "2026-10-02T14:01:05Z".into();
    c.returned = "2026-10-02T14:01:06Z".into();
    c.fetched = "2026-10-02T14:01:06Z".into();
    fx.calls.push(b);
    fx.calls.push(c);
    let r = fx.report();
    let fanout = r.fanout(&r.claims[0]).expect("a fan-out around req_1");
    let order: Vec<&str> = fanout.issue_order.iter().map(|id| id.as_str()).collect();
    assert_eq!(order, ["req_1", "req_2"]);
    let screen = fixture_view(&fx.lines(), 0, View::Parallel);
    assert!(screen.contains("req_2 mirror.vendor.com"), "{screen}");
    assert!(!screen.contains("req_3"), "{screen}");
    assert!(screen.contains("issue order:   req_1 → req_2"), "{screen}");
}

#[test]
fn claim_view_shows_the_ttl_behind_the_stale_verdict() {
    use crate::common::Fx;
    let mut fx = Fx::baseline();
    fx.calls[0].ttl = 10;
    // The tag carries no TTL: `stale` takes the stamp's 10 s, not the configured default.
    let mut lines = fx.lines();
    for l in &mut lines {
        if l["event"] == "tool_result" {
            l["tag"].as_object_mut().unwrap().remove("ttl_seconds");
        }
    }
    let screen = fixture_view(&lines, 0, View::Claim);
    assert!(screen.contains("(from the stamp)"), "{screen}");
    assert!(screen.contains("STALE"), "{screen}");
    assert!(screen.contains("stale"), "{screen}");
}

/// The incident record of sample 01 (no finding in it): a correction of `clm_refund_amount`
/// and a hand classification of `clm_card_posting`, at fixed times.
fn record_incident(store: &Store) -> String {
    use provscope::model::Timestamp;
    use provscope::store::{Classification, Correction, SessionRef};
    let sid = "sess_2026-10-02_7f3a91c2".to_owned();
    store
        .add_correction(&Correction {
            session_id: sid.clone(),
            claim_id: "clm_refund_amount".into(),
            turn: 2,
            outcome: "corrected".into(),
            note: "user: the statement says €229.00".into(),
            at: Timestamp::parse("2026-10-05T09:30:00Z").unwrap(),
        })
        .unwrap();
    let c = Classification::new(
        &sid,
        "clm_card_posting",
        1,
        Quadrant::FactRightSourceWrong,
        "issuer page, not policy",
        "ana",
        Timestamp::parse("2026-10-05T10:00:00Z").unwrap(),
    );
    let sref = SessionRef {
        session_id: sid.clone(),
        path: String::new(),
        content_hash: None,
    };
    store.classify(&sref, &c).unwrap();
    sid
}

#[test]
fn the_walkthrough_shows_corrections_and_hand_classifications() {
    let mut screens: Vec<(String, String)> = Vec::new();
    for db in crate::backends::backends("tui_walkthrough_records") {
        let store = Store::open(&db.path()).unwrap();
        let sid = record_incident(&store);
        let mut a = app(true);
        // Without the record, the clean session has nothing to walk through.
        a.filter = Filter::parse("session:01-clean").unwrap();
        open_claim(&mut a, "01-clean-baseline", "clm_refund_amount");
        update(&mut a, Action::Goto(View::Review));
        assert!(a.review.is_empty(), "{}", db.name());
        let s = screen(&mut a, 120, 30);
        assert!(
            s.contains("no flagged, corrected or hand-classified claims"),
            "{s}"
        );
        update(&mut a, Action::Back);
        // The record arrives from the store (as the runtime sends it after loading): both
        // claims join the walkthrough, in turn order, though no check flagged them.
        update(
            &mut a,
            provscope::tui::action::Msg::Restored(restore_marks(&store, &sid).unwrap()),
        );
        update(&mut a, Action::Goto(View::Review));
        assert_eq!(a.review.len(), 2, "{}", db.name());
        assert_eq!(a.current_claim().unwrap().claim_id, "clm_card_posting");
        let s = screen(&mut a, 200, 60);
        assert!(
            s.contains("claim 1 of 2 to review (0 flagged, 2 corrected or classified by hand)")
                && s.contains("Fact right, source wrong (classified)")
                && s.contains("classified by hand by ana at 2026-10-05T10:00:00Z")
                && s.contains("note: issuer page, not policy"),
            "{s}"
        );
        update(&mut a, Action::Next);
        assert_eq!(a.current_claim().unwrap().claim_id, "clm_refund_amount");
        let wide = screen(&mut a, 200, 60);
        assert!(
            wide.contains("claim 2 of 2 to review")
                && wide.contains(
                    "correction: corrected at 2026-10-05T09:30:00Z: user: the statement says €229.00"
                )
                && wide.contains("Fact right, source right (computed)"),
            "{wide}"
        );
        let narrow = screen(&mut a, 80, 24);
        assert!(narrow.contains("correction: corrected"), "{narrow}");
        // The claim view shows the same record.
        update(&mut a, Action::Goto(View::Claim));
        let s = screen(&mut a, 200, 60);
        assert!(
            s.contains("correction: corrected at 2026-10-05T09:30:00Z"),
            "{s}"
        );
        update(&mut a, Action::Back);
        // The filter narrows to either record.
        for (f, n, claim) in [
            ("correction:yes", 1, Some("clm_refund_amount")),
            ("correction:corrected", 1, Some("clm_refund_amount")),
            ("correction:survived", 0, None),
            ("classified:yes", 1, Some("clm_card_posting")),
            ("correction:no classified:no", 7, None),
        ] {
            a.filter = Filter::parse(&format!("session:01-clean {f}")).unwrap();
            // The walkthrough rebuilds the queue under the filter.
            update(&mut a, Action::Goto(View::Sessions));
            update(&mut a, Action::Goto(View::Review));
            assert_eq!(a.queue.items.len(), n, "{f} ({})", db.name());
            assert_eq!(a.review.len(), n.min(claim.map_or(0, |_| 1)), "{f}");
            if let Some(c) = claim {
                let (s, i) = a.queue.items[0];
                let l = &a.sessions[s as usize];
                assert_eq!(l.report.claims[i as usize].claim_id, c, "{f}");
            }
            update(&mut a, Action::Back);
        }
        screens.push((wide, narrow));
    }
    // Both backends show the same walkthrough.
    assert!(screens.windows(2).all(|w| w[0] == w[1]));
    let (wide, narrow) = &screens[0];
    insta::assert_snapshot!("review_correction_200x60", wide);
    insta::assert_snapshot!("review_correction_80x24", narrow);
}

#[test]
fn classifying_a_clean_claim_by_hand_adds_it_to_the_walkthrough_with_who_and_when() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("cases.sqlite")).unwrap();
    let mut a = app(true);
    a.filter = Filter::parse("session:01-clean").unwrap();
    open_claim(&mut a, "01-clean-baseline", "clm_order_owner");
    update(&mut a, Action::Goto(View::Queue));
    assert_eq!(a.review.len(), 0);
    // The queue's third row, classified by hand.
    update(&mut a, Action::Down);
    update(&mut a, Action::Down);
    let effects = update(&mut a, Action::Classify(Quadrant::FactWrongSourceRight));
    assert_eq!(
        a.review.len(),
        1,
        "a hand classification joins the walkthrough"
    );
    let (s, c) = (a.cur.unwrap(), a.sel_claim);
    assert!(a.is_classified(s, c) && a.mark().unwrap().recorded.is_none());
    for e in &effects {
        let m = perform(&a, Some(&store), e).unwrap();
        assert!(
            matches!(&m, provscope::tui::action::Msg::Classified(..)),
            "saved"
        );
        update(&mut a, m);
    }
    assert!(a.status.starts_with("saved to"), "{}", a.status);
    let rec = a.mark().unwrap().recorded.clone().unwrap();
    assert_eq!(rec.owner, Quadrant::FactWrongSourceRight.owner());
    // Re-classifying drops who decided until the store answers again.
    update(&mut a, Action::Classify(Quadrant::FactRightSourceRight));
    assert!(a.mark().unwrap().recorded.is_none());
    update(&mut a, Action::Goto(View::Review));
    assert_eq!(a.review.len(), 1);
    assert_eq!(a.sel_claim, c);
    let s = screen(&mut a, 200, 60);
    assert!(
        s.contains("claim 1 of 1 to review (0 flagged, 1 corrected or classified by hand)")
            && s.contains("Fact right, source right (classified)"),
        "{s}"
    );
}

#[test]
fn a_status_longer_than_the_line_ends_in_an_ellipsis() {
    let mut a = app(true);
    a.status = format!("{} tail-that-does-not-fit", "word ".repeat(30));
    let s = screen(&mut a, 80, 24);
    let line = s
        .lines()
        .find(|l| l.starts_with(" word word"))
        .unwrap_or_else(|| panic!("no status line: {s}"));
    assert!(line.trim_end().ends_with('…'), "{line:?}");
    assert!(!s.contains("tail-that"), "{s}");
}
