//! `provscope report`: the incident-review write-up of one session: timeline, every flagged
//! claim with its evidence and span, the grid classification with owner and next action, notes,
//! envelope status. Markdown, JSON or self-contained HTML (everything from the log escaped).
//!
//! The write-up is one typed [`Document`] built from the published verdicts; the JSON format is
//! its serialization and the Markdown and HTML forms render it.

use crate::check::{ClaimVerdict, EnvelopeStatus, Finding, Metrics, SessionReport};
use crate::check::{Quadrant, QUADRANTS};
use crate::model::{Kind, Session, Severity, Tier, Timestamp};
use crate::store::{Classification, Correction};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write;

/// The report document (`provscope.report/1`).
#[derive(Serialize)]
pub struct Document<'a> {
    format: &'static str,
    session_id: &'a str,
    file: &'a str,
    /// `provscope` for a session log, else the importer that read the file (`importers.md`).
    source_format: &'static str,
    /// What the imported source lacked and how it was filled in.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    import_notes: &'a [String],
    title: Option<&'a str>,
    agent: Option<&'a str>,
    model: Option<&'a str>,
    started_at: Option<Timestamp>,
    metrics: &'a Metrics,
    timeline: Vec<TurnDoc<'a>>,
    flagged_claims: Vec<ClaimDoc<'a>>,
    session_findings: Vec<SessionFindingDoc<'a>>,
    /// Every claim per effective quadrant (a hand classification overrides the computed one),
    /// in `QUADRANTS` order, then the claims not placed; for the summary of a report set.
    #[serde(skip)]
    grid: [u64; 5],
}

#[derive(Serialize)]
struct TurnDoc<'a> {
    turn: u32,
    user: &'a str,
    calls: Vec<CallDoc<'a>>,
    answer: Option<&'a str>,
}

#[derive(Serialize)]
struct CallDoc<'a> {
    call_id: &'a str,
    server: &'a str,
    tool: &'a str,
    tier: Tier,
    issued_at: Timestamp,
    returned_at: Option<Timestamp>,
    error: bool,
    envelope: EnvelopeLabel,
}

/// The envelope column: `verified`, `failed` (invalid, tampered or missing) or `none`.
#[derive(Serialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum EnvelopeLabel {
    Verified,
    Failed,
    None,
}

impl From<EnvelopeStatus> for EnvelopeLabel {
    fn from(s: EnvelopeStatus) -> Self {
        match s {
            EnvelopeStatus::Verified | EnvelopeStatus::Partial => EnvelopeLabel::Verified,
            EnvelopeStatus::Failed | EnvelopeStatus::Missing => EnvelopeLabel::Failed,
            EnvelopeStatus::None => EnvelopeLabel::None,
        }
    }
}

impl EnvelopeLabel {
    fn name(self) -> &'static str {
        match self {
            EnvelopeLabel::Verified => "verified",
            EnvelopeLabel::Failed => "failed",
            EnvelopeLabel::None => "none",
        }
    }
}

#[derive(Serialize)]
struct ClaimDoc<'a> {
    claim_id: &'a str,
    turn: u32,
    claim_text: &'a str,
    call_id: Option<&'a str>,
    /// Who made the stamp: `declared` by the log, or `derived` from an API citation.
    stamp: crate::model::Provenance,
    /// For a derived stamp, the API citation's kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    citation: Option<&'a str>,
    source_verdict: crate::check::SourceVerdict,
    fact_verdict: crate::check::FactVerdict,
    quadrant: Option<Quadrant>,
    classified_by_hand: bool,
    verdict: Option<&'static str>,
    owner: Option<&'a str>,
    next_action: Option<&'a str>,
    note: Option<&'a str>,
    reviewer: Option<&'a str>,
    /// Marked reviewed in the case store (`m` in the explorer).
    reviewed: bool,
    span: Option<&'a str>,
    findings: Vec<FindingDoc<'a>>,
    /// What the incident procedure recorded for it (`provscope correct`), oldest first.
    corrections: Vec<CorrectionDoc<'a>>,
}

#[derive(Serialize)]
struct CorrectionDoc<'a> {
    outcome: &'a str,
    note: &'a str,
    at: Timestamp,
}

#[derive(Serialize)]
struct FindingDoc<'a> {
    kind: Kind,
    severity: Severity,
    message: &'a str,
    evidence: &'a crate::check::Evidence,
    #[serde(skip)]
    rows: Vec<(String, String)>,
}

#[derive(Serialize)]
struct SessionFindingDoc<'a> {
    kind: Kind,
    severity: Severity,
    message: &'a str,
    call_ids: &'a [String],
}

fn finding(f: &Finding) -> FindingDoc<'_> {
    FindingDoc {
        kind: f.kind,
        severity: f.severity,
        message: &f.message,
        evidence: &f.evidence,
        rows: f.evidence.rows(),
    }
}

fn claim<'a>(
    s: &'a Session,
    r: &'a SessionReport,
    c: &'a ClaimVerdict,
    cl: Option<&'a Classification>,
    corrections: &'a [Correction],
    reviewed: bool,
) -> ClaimDoc<'a> {
    let q = c.effective_quadrant(cl.map(|x| x.quadrant));
    let stamp = s
        .answer(c.turn)
        .and_then(|a| a.claims.iter().find(|x| x.id() == c.claim_id))
        .map(|x| &x.stamp);
    ClaimDoc {
        claim_id: &c.claim_id,
        turn: c.turn,
        claim_text: &c.claim_text,
        call_id: c.call_id.as_deref(),
        stamp: stamp.map_or_else(Default::default, |x| x.provenance()),
        citation: stamp
            .and_then(|x| x.citation.as_ref())
            .map(|ci| ci.kind.as_str()),
        source_verdict: c.source_verdict,
        fact_verdict: c.fact_verdict,
        quadrant: q.map(|q| q.quadrant),
        classified_by_hand: cl.is_some(),
        verdict: q.map(|q| q.quadrant.verdict()),
        owner: cl
            .map(|x| x.owner.as_str())
            .or(q.map(|q| q.quadrant.owner())),
        next_action: cl
            .map(|x| x.next_action.as_str())
            .or(q.map(|q| q.quadrant.next_action())),
        note: cl.map(|x| x.note.as_str()).filter(|n| !n.is_empty()),
        reviewer: cl.map(|x| x.reviewer.as_str()),
        reviewed,
        span: c.cited_text(s),
        findings: r.findings_for(c).map(finding).collect(),
        corrections: corrections
            .iter()
            .filter(|x| x.claim_id == c.claim_id && x.turn == c.turn)
            .map(|x| CorrectionDoc {
                outcome: &x.outcome,
                note: &x.note,
                at: x.at,
            })
            .collect(),
    }
}

/// What the case store holds about a session's claims, as a report shows it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Review<'a> {
    /// Hand classifications; they override the computed quadrant.
    pub classes: &'a [Classification],
    /// What the incident procedure recorded (`provscope correct`).
    pub corrections: &'a [Correction],
    /// Claims marked reviewed in the explorer (claim id, turn).
    pub reviewed: &'a [(String, u32)],
}

/// Everything a report shows (the `json` format, and the source of the others). A claim is
/// listed when it has findings, or was classified by hand or corrected (the incident
/// procedure's records from user reports, whether or not a check flagged it).
pub fn document<'a>(s: &'a Session, r: &'a SessionReport, review: Review<'a>) -> Document<'a> {
    let Review {
        classes,
        corrections,
        reviewed,
    } = review;
    let class: HashMap<(&str, u32), &Classification> = classes
        .iter()
        .map(|c| ((c.claim_id.as_str(), c.turn), c))
        .collect();
    let reviewed: std::collections::HashSet<(&str, u32)> =
        reviewed.iter().map(|(c, t)| (c.as_str(), *t)).collect();
    let mut grid = [0u64; 5];
    for c in &r.claims {
        let cl = class.get(&(c.claim_id.as_str(), c.turn)).copied();
        let cell = c
            .effective_quadrant(cl.map(|x| x.quadrant))
            .and_then(|q| QUADRANTS.iter().position(|x| *x == q.quadrant))
            .unwrap_or(4);
        grid[cell] += 1;
    }
    let timeline = s
        .turns
        .iter()
        .map(|t| TurnDoc {
            turn: t.index,
            user: &t.user,
            calls: s
                .calls_in_turn(t.index)
                .map(|c| {
                    let res = s.result(&c.id);
                    CallDoc {
                        call_id: &c.id,
                        server: &c.server,
                        tool: c.tool(),
                        tier: r.tier(&c.server).tier,
                        issued_at: c.issued_at,
                        returned_at: res.map(|x| x.tag.returned_at),
                        error: res.is_some_and(|x| x.is_error()),
                        envelope: r.envelope(&c.id).into(),
                    }
                })
                .collect(),
            answer: s.answer(t.index).map(|a| a.text.as_str()),
        })
        .collect();
    let flagged_claims = r
        .claims
        .iter()
        .filter(|c| {
            !c.findings.is_empty()
                || class.contains_key(&(c.claim_id.as_str(), c.turn))
                || corrections
                    .iter()
                    .any(|x| x.claim_id == c.claim_id && x.turn == c.turn)
        })
        .map(|c| {
            let cl = class.get(&(c.claim_id.as_str(), c.turn)).copied();
            let seen = reviewed.contains(&(c.claim_id.as_str(), c.turn));
            claim(s, r, c, cl, corrections, seen)
        })
        .collect();
    let h = s.header.as_ref();
    Document {
        format: "provscope.report/1",
        session_id: &r.session_id,
        file: &r.file,
        source_format: s.format(),
        import_notes: s.import.as_ref().map_or(&[], |i| i.notes.as_slice()),
        title: h.and_then(|h| h.title.as_deref()),
        agent: h.and_then(|h| h.agent.as_deref()),
        model: h.and_then(|h| h.model.as_deref()),
        started_at: h.map(|h| h.started_at),
        metrics: &r.metrics,
        timeline,
        flagged_claims,
        session_findings: r
            .findings
            .iter()
            .filter(|f| f.claim_id.is_none())
            .map(|f| SessionFindingDoc {
                kind: f.kind,
                severity: f.severity,
                message: &f.message,
                call_ids: &f.call_ids,
            })
            .collect(),
        grid,
    }
}

/// `declared`, or `derived from <kind>` (the kind is the importer's ASCII name of an API citation).
fn stamp_label(c: &ClaimDoc) -> String {
    match c.stamp {
        crate::model::Provenance::Declared => "declared".into(),
        crate::model::Provenance::Derived => {
            format!("derived from {}", crate::text::one_line(opt(c.citation)))
        }
    }
}

fn reviewed_label(r: bool) -> &'static str {
    if r {
        "reviewed"
    } else {
        "not reviewed"
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |x| format!("{:.0}%", x * 100.0))
}

fn opt(v: Option<&str>) -> &str {
    v.unwrap_or("")
}

/// Untrusted text for Markdown prose: control sequences stripped, Markdown and HTML
/// metacharacters neutralized.
pub(crate) fn md(t: &str) -> String {
    let t = crate::text::one_line(t);
    t.replace('\\', "\\\\")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('`', "\\`")
        .replace('|', "\\|")
        .replace('*', "\\*")
        .replace('_', "\\_")
        .replace('[', "\\[")
}

/// Untrusted text as a Markdown code span: backslashes mean nothing inside one, so the fence is
/// made longer than any run of backticks in the text instead of escaping.
pub(crate) fn md_code(t: &str) -> String {
    let t = crate::text::one_line(t);
    let longest = t.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if t.starts_with('`') || t.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{t}{pad}{fence}")
}

/// Markdown write-up.
pub fn markdown(doc: &Document) -> String {
    let mut o = String::new();
    let title = md(doc.title.unwrap_or(doc.session_id));
    let _ = writeln!(o, "# Incident review: {title}\n");
    let _ = writeln!(
        o,
        "- Session: {} ({})",
        md_code(doc.session_id),
        md(doc.file)
    );
    let _ = writeln!(
        o,
        "- Agent: {} · model: {} · started {}",
        md(opt(doc.agent)),
        md(opt(doc.model)),
        doc.started_at.map(|t| t.to_string()).unwrap_or_default()
    );
    if doc.source_format != "provscope" {
        let _ = writeln!(o, "- Read by the `{}` importer", doc.source_format);
        for n in doc.import_notes {
            let _ = writeln!(o, "  - {}", md(n));
        }
    }
    let m = doc.metrics;
    let _ = writeln!(
        o,
        "- Claims: {} · citation precision {} · wrong-source rate {}\n",
        m.claims,
        pct(m.citation_precision),
        pct(m.wrong_source_rate)
    );
    let _ = writeln!(o, "## Timeline\n");
    for t in &doc.timeline {
        let _ = writeln!(o, "### Turn {}\n\n**User:** {}\n", t.turn, md(t.user));
        for c in &t.calls {
            let _ = writeln!(
                o,
                "- {} {}/{} [{}] returned {} · envelope {}{}",
                md_code(c.call_id),
                md(c.server),
                md(c.tool),
                c.tier,
                c.returned_at.map(|t| t.to_string()).unwrap_or_default(),
                c.envelope.name(),
                if c.error { " · error" } else { "" }
            );
        }
        let _ = writeln!(o, "\n**Answer:** {}\n", md(opt(t.answer)));
    }
    let _ = writeln!(o, "## Flagged claims\n");
    if doc.flagged_claims.is_empty() {
        let _ = writeln!(o, "None.\n");
    }
    for c in &doc.flagged_claims {
        let _ = writeln!(
            o,
            "### {} (turn {})\n\n> {}\n",
            md_code(c.claim_id),
            c.turn,
            md(c.claim_text)
        );
        let _ = writeln!(
            o,
            "- Source {} · fact {} · cites {} · stamp {}",
            c.source_verdict.name(),
            c.fact_verdict.name(),
            c.call_id.map(md_code).unwrap_or_else(|| "nothing".into()),
            md(&stamp_label(c))
        );
        if let Some(q) = c.quadrant {
            let by = if c.classified_by_hand {
                format!("classified by hand by {}", md(opt(c.reviewer)))
            } else {
                "computed".into()
            };
            let _ = writeln!(
                o,
                "- Grid: **{}** ({by}, {}): {} · owner: {} · next action: {}",
                q.title(),
                reviewed_label(c.reviewed),
                q.verdict(),
                md(opt(c.owner)),
                md(opt(c.next_action))
            );
        }
        if let Some(n) = c.note {
            let _ = writeln!(o, "- Note: {}", md(n));
        }
        if let Some(sp) = c.span {
            let _ = writeln!(o, "- Cited span: “{}”", md(sp));
        }
        for x in &c.corrections {
            let note = if x.note.is_empty() {
                String::new()
            } else {
                format!(": {}", md(x.note))
            };
            let _ = writeln!(o, "- Correction: **{}** at {}{note}", md(x.outcome), x.at);
        }
        for f in &c.findings {
            let _ = writeln!(o, "- **{}** ({}): {}", f.kind, f.severity, md(f.message));
            for (k, v) in &f.rows {
                let _ = writeln!(o, "  - {}: {}", md(k), md(v));
            }
        }
        o.push('\n');
    }
    o
}

/// HTML-escapes untrusted text (after removing control sequences).
pub fn escape(s: &str) -> String {
    crate::export::xml_escape(&crate::text::sanitize(s, true))
}

/// Self-contained HTML write-up: inline CSS, no scripts, no external resources.
pub fn html(doc: &Document) -> String {
    let e = escape;
    let mut o = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
    let title = e(doc.title.unwrap_or(doc.session_id));
    let _ = writeln!(o, "<title>Incident review: {title}</title>");
    o.push_str("<style>body{font:14px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}code,.span{font-family:ui-monospace,monospace}.error{color:#b00020}.warning{color:#8a6d00}.info{color:#225}.span{background:#fff3b0;padding:0 .2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}.ev{color:#555;font-size:90%}</style></head><body>\n");
    let _ = writeln!(o, "<h1>Incident review: {title}</h1>");
    let _ = writeln!(
        o,
        "<p>Session <code>{}</code> ({}) · agent {} · model {} · started {}</p>",
        e(doc.session_id),
        e(doc.file),
        e(opt(doc.agent)),
        e(opt(doc.model)),
        doc.started_at.map(|t| t.to_string()).unwrap_or_default()
    );
    if doc.source_format != "provscope" {
        let _ = writeln!(
            o,
            "<p>Read by the <code>{}</code> importer</p><ul>",
            doc.source_format
        );
        for n in doc.import_notes {
            let _ = writeln!(o, "<li>{}</li>", e(n));
        }
        o.push_str("</ul>\n");
    }
    let m = doc.metrics;
    let _ = writeln!(
        o,
        "<p>{} claims · citation precision {} · wrong-source rate {}</p>",
        m.claims,
        pct(m.citation_precision),
        pct(m.wrong_source_rate)
    );
    o.push_str("<h2>Timeline</h2>\n");
    for t in &doc.timeline {
        let _ = writeln!(o, "<h3>Turn {}</h3><p><b>User:</b> {}</p><table><tr><th>call</th><th>server/tool</th><th>tier</th><th>returned</th><th>envelope</th></tr>", t.turn, e(t.user));
        for c in &t.calls {
            let _ = writeln!(
                o,
                "<tr><td><code>{}</code></td><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                e(c.call_id),
                e(c.server),
                e(c.tool),
                c.tier,
                c.returned_at.map(|t| t.to_string()).unwrap_or_default(),
                c.envelope.name()
            );
        }
        let _ = writeln!(o, "</table><p><b>Answer:</b> {}</p>", e(opt(t.answer)));
    }
    o.push_str("<h2>Flagged claims</h2>\n");
    for c in &doc.flagged_claims {
        let _ = writeln!(
            o,
            "<h3><code>{}</code> (turn {})</h3><blockquote>{}</blockquote>",
            e(c.claim_id),
            c.turn,
            e(c.claim_text)
        );
        let _ = writeln!(
            o,
            "<p>source {} · fact {} · cites <code>{}</code> · stamp {}</p>",
            c.source_verdict.name(),
            c.fact_verdict.name(),
            e(opt(c.call_id)),
            e(&stamp_label(c))
        );
        if let Some(q) = c.quadrant {
            let by = if c.classified_by_hand {
                format!(
                    "classified by hand by <span class=\"reviewer\">{}</span>",
                    e(opt(c.reviewer))
                )
            } else {
                "computed".into()
            };
            let _ = writeln!(
                o,
                "<p>Grid: <b class=\"quadrant\">{}</b> ({by}, <span class=\"reviewed\">{}</span>): {} · owner: {} · next action: {}</p>",
                q.title(),
                reviewed_label(c.reviewed),
                q.verdict(),
                e(opt(c.owner)),
                e(opt(c.next_action))
            );
        }
        if let Some(n) = c.note {
            let _ = writeln!(o, "<p>Note: {}</p>", e(n));
        }
        if let Some(sp) = c.span {
            let _ = writeln!(
                o,
                "<p>Cited span: <span class=\"span\">{}</span></p>",
                e(sp)
            );
        }
        for x in &c.corrections {
            let _ = writeln!(
                o,
                "<p class=\"correction\">Correction: <b>{}</b> at {}{}</p>",
                e(x.outcome),
                x.at,
                if x.note.is_empty() {
                    String::new()
                } else {
                    format!(": {}", e(x.note))
                }
            );
        }
        o.push_str("<ul>\n");
        for f in &c.findings {
            let _ = write!(
                o,
                "<li class=\"{}\"><b>{}</b> ({}): {}<ul class=\"ev\">",
                f.severity,
                f.kind,
                f.severity,
                e(f.message)
            );
            for (k, v) in &f.rows {
                let _ = write!(o, "<li>{}: {}</li>", e(k), e(v));
            }
            o.push_str("</ul></li>\n");
        }
        o.push_str("</ul>\n");
    }
    o.push_str("</body></html>\n");
    o
}

/// Several sessions in one report (`provscope.report-set/1`): an executive summary, the grid
/// summary over every session, one row per session, then each session's write-up.
#[derive(Serialize)]
pub struct ReportSet<'a> {
    format: &'static str,
    summary: SetSummary<'a>,
    sessions: Vec<Document<'a>>,
}

#[derive(Serialize)]
struct SetSummary<'a> {
    sessions: usize,
    claims: u64,
    flagged_claims: usize,
    /// Flagged claims with at least one error.
    flagged_with_error: usize,
    /// Flagged claims marked reviewed.
    reviewed: usize,
    classified_by_hand: usize,
    /// Every claim per effective quadrant, in the playbook's order.
    grid: Vec<GridRow>,
    /// Claims in no quadrant (the fact is not judged).
    not_placed: u64,
    per_session: Vec<SessionRow<'a>>,
}

#[derive(Serialize)]
struct GridRow {
    quadrant: Quadrant,
    title: &'static str,
    verdict: &'static str,
    owner: &'static str,
    next_action: &'static str,
    claims: u64,
    sessions: usize,
}

#[derive(Serialize)]
struct SessionRow<'a> {
    session_id: &'a str,
    title: Option<&'a str>,
    file: &'a str,
    claims: u64,
    flagged: usize,
    flagged_with_error: usize,
    reviewed: usize,
    quadrants: std::collections::BTreeMap<Quadrant, u64>,
    not_placed: u64,
}

fn has_error(c: &ClaimDoc) -> bool {
    c.findings.iter().any(|f| f.severity == Severity::Error)
}

/// The report over several sessions, in the order given.
pub fn set(docs: Vec<Document<'_>>) -> ReportSet<'_> {
    let per_session: Vec<SessionRow> = docs
        .iter()
        .map(|d| SessionRow {
            session_id: d.session_id,
            title: d.title,
            file: d.file,
            claims: d.grid.iter().sum(),
            flagged: d.flagged_claims.len(),
            flagged_with_error: d.flagged_claims.iter().filter(|c| has_error(c)).count(),
            reviewed: d.flagged_claims.iter().filter(|c| c.reviewed).count(),
            quadrants: QUADRANTS.iter().zip(d.grid).map(|(q, n)| (*q, n)).collect(),
            not_placed: d.grid[4],
        })
        .collect();
    let grid = QUADRANTS
        .iter()
        .enumerate()
        .map(|(i, q)| GridRow {
            quadrant: *q,
            title: q.title(),
            verdict: q.verdict(),
            owner: q.owner(),
            next_action: q.next_action(),
            claims: docs.iter().map(|d| d.grid[i]).sum(),
            sessions: docs.iter().filter(|d| d.grid[i] > 0).count(),
        })
        .collect();
    let summary = SetSummary {
        sessions: docs.len(),
        claims: per_session.iter().map(|r| r.claims).sum(),
        flagged_claims: per_session.iter().map(|r| r.flagged).sum(),
        flagged_with_error: per_session.iter().map(|r| r.flagged_with_error).sum(),
        reviewed: per_session.iter().map(|r| r.reviewed).sum(),
        classified_by_hand: docs
            .iter()
            .flat_map(|d| &d.flagged_claims)
            .filter(|c| c.classified_by_hand)
            .count(),
        grid,
        not_placed: per_session.iter().map(|r| r.not_placed).sum(),
        per_session,
    };
    ReportSet {
        format: "provscope.report-set/1",
        summary,
        sessions: docs,
    }
}

/// The executive summary's sentences (plain text; session names are escaped by the caller's
/// `name` function).
fn executive(set: &ReportSet, name: &dyn Fn(&str) -> String) -> Vec<String> {
    let s = &set.summary;
    let flagged_sessions = s.per_session.iter().filter(|r| r.flagged > 0).count();
    let mut out = vec![
        format!(
            "{} sessions, {} claims; {} flagged claims ({} with an error) in {} sessions.",
            s.sessions, s.claims, s.flagged_claims, s.flagged_with_error, flagged_sessions
        ),
        format!(
            "Reviewed: {} of {} flagged claims; {} classified by hand.",
            s.reviewed, s.flagged_claims, s.classified_by_hand
        ),
    ];
    let hidden = &s.grid[1];
    let mut worst: Vec<&SessionRow> = s
        .per_session
        .iter()
        .filter(|r| r.quadrants.get(&hidden.quadrant).copied().unwrap_or(0) > 0)
        .collect();
    worst.sort_by_key(|r| std::cmp::Reverse(r.quadrants.get(&hidden.quadrant).copied()));
    let names: Vec<String> = worst
        .iter()
        .take(5)
        .map(|r| {
            format!(
                "{} ({})",
                name(r.session_id),
                r.quadrants.get(&hidden.quadrant).copied().unwrap_or(0)
            )
        })
        .collect();
    out.push(format!(
        "Hidden failures ({}): {} claims in {} sessions{}{}.",
        hidden.title,
        hidden.claims,
        hidden.sessions,
        if names.is_empty() { "" } else { ", most in " },
        names.join(", ")
    ));
    out.push(format!(
        "Fact wrong: {} claims ({}: {}, {}: {}).",
        s.grid[2].claims + s.grid[3].claims,
        s.grid[2].title,
        s.grid[2].claims,
        s.grid[3].title,
        s.grid[3].claims
    ));
    out
}

/// Adds one level to every heading of a write-up (Markdown lines starting with `#`; untrusted
/// text never starts a line, see `markdown`).
fn demote_md(text: &str) -> String {
    let mut o = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        if line.starts_with('#') {
            o.push('#');
        }
        o.push_str(line);
        o.push('\n');
    }
    o
}

/// Markdown report over several sessions.
pub fn markdown_set(set: &ReportSet) -> String {
    let mut o = String::new();
    let s = &set.summary;
    let _ = writeln!(o, "# Incident review: {} sessions\n", s.sessions);
    let _ = writeln!(o, "## Executive summary\n");
    for line in executive(set, &|n| md_code(n)) {
        let _ = writeln!(o, "- {line}");
    }
    let _ = writeln!(o, "\n## Grid summary\n");
    let _ = writeln!(
        o,
        "| Quadrant | Claims | Sessions | Verdict | Owner | Next action |\n|---|---:|---:|---|---|---|"
    );
    for g in &s.grid {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} |",
            g.title, g.claims, g.sessions, g.verdict, g.owner, g.next_action
        );
    }
    let _ = writeln!(o, "| Not placed | {} | | | | |", s.not_placed);
    let _ = writeln!(o, "\n## Sessions\n");
    let _ = writeln!(o, "| Session | Claims | Flagged | Errors | Reviewed | RR | RW | WR | WW |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &s.per_session {
        let q = |i: usize| r.quadrants.get(&QUADRANTS[i]).copied().unwrap_or(0);
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {}/{} | {} | {} | {} | {} |",
            md_code(r.session_id),
            r.claims,
            r.flagged,
            r.flagged_with_error,
            r.reviewed,
            r.flagged,
            q(0),
            q(1),
            q(2),
            q(3)
        );
    }
    o.push('\n');
    for d in &set.sessions {
        o.push_str(&demote_md(&markdown(d)));
    }
    o
}

/// Self-contained HTML report over several sessions.
pub fn html_set(set: &ReportSet) -> String {
    let e = escape;
    let s = &set.summary;
    let mut o = String::new();
    // The head of a one-session write-up (same CSS and policy), with this report's title.
    let one = set.sessions.first().map(html).unwrap_or_default();
    let head_end = one.find("<body>\n").map_or(0, |i| i + "<body>\n".len());
    let head = one.get(..head_end).unwrap_or_default();
    let title_start = head.find("<title>").unwrap_or(0);
    let title_end = head.find("</title>").map_or(0, |i| i + "</title>".len());
    o.push_str(head.get(..title_start).unwrap_or_default());
    let _ = write!(o, "<title>Incident review: {} sessions</title>", s.sessions);
    o.push_str(head.get(title_end..).unwrap_or_default());
    if head.is_empty() {
        o.push_str(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"></head><body>\n",
        );
    }
    let _ = writeln!(o, "<h1>Incident review: {} sessions</h1>", s.sessions);
    o.push_str("<h2>Executive summary</h2>\n<ul>\n");
    for line in executive(set, &|n| n.to_owned()) {
        let _ = writeln!(o, "<li>{}</li>", e(&line));
    }
    o.push_str("</ul>\n<h2>Grid summary</h2>\n<table class=\"grid\"><tr><th>quadrant</th><th>claims</th><th>sessions</th><th>verdict</th><th>owner</th><th>next action</th></tr>\n");
    for g in &s.grid {
        let _ = writeln!(
            o,
            "<tr><td class=\"quadrant\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            g.title, g.claims, g.sessions, g.verdict, g.owner, g.next_action
        );
    }
    let _ = writeln!(
        o,
        "<tr><td>Not placed</td><td>{}</td><td></td><td></td><td></td><td></td></tr></table>",
        s.not_placed
    );
    o.push_str("<h2>Sessions</h2>\n<table class=\"sessions\"><tr><th>session</th><th>claims</th><th>flagged</th><th>errors</th><th>reviewed</th><th>RR</th><th>RW</th><th>WR</th><th>WW</th></tr>\n");
    for r in &s.per_session {
        let q = |i: usize| r.quadrants.get(&QUADRANTS[i]).copied().unwrap_or(0);
        let _ = writeln!(
            o,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            e(r.session_id),
            r.claims,
            r.flagged,
            r.flagged_with_error,
            r.reviewed,
            r.flagged,
            q(0),
            q(1),
            q(2),
            q(3)
        );
    }
    o.push_str("</table>\n");
    for d in &set.sessions {
        let one = html(d);
        let body = one
            .find("<body>\n")
            .and_then(|i| one.get(i + "<body>\n".len()..))
            .and_then(|b| b.strip_suffix("</body></html>\n"))
            .unwrap_or_default();
        // One level down; every untrusted text is escaped, so these tags are ours.
        let body = body
            .replace("<h3>", "<h4>")
            .replace("</h3>", "</h4>")
            .replace("<h2>", "<h3>")
            .replace("</h2>", "</h3>")
            .replace("<h1>", "<h2>")
            .replace("</h1>", "</h2>");
        o.push_str("<section>\n");
        o.push_str(&body);
        o.push_str("</section>\n");
    }
    o.push_str("</body></html>\n");
    o
}
