//! `provscope report`: the incident-review write-up of one session: timeline, every flagged
//! claim with its evidence and span, the grid classification with owner and next action, notes,
//! envelope status. Markdown, JSON or self-contained HTML (everything from the log escaped).
//!
//! The write-up is one typed [`Document`] built from the published verdicts; the JSON format is
//! its serialization and the Markdown and HTML forms render it.

use crate::check::{ClaimVerdict, EnvelopeStatus, Finding, Metrics, SessionReport};
use crate::check::{Quadrant, QUADRANTS};
use crate::model::{Kind, Name, Session, Severity, Tier, Timestamp};
use crate::store::{Classification, Correction};
use serde::Serialize;
use std::borrow::Cow;
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
    #[serde(skip_serializing_if = "<[Cow<'static, str>]>::is_empty")]
    import_notes: &'a [Cow<'static, str>],
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
    call_ids: &'a [Name],
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

/// The markup a write-up is written in. One writer ([`write_document`], [`write_set`]) walks
/// the document; the markup decides how each piece looks and how untrusted text is escaped, so
/// the Markdown and HTML forms cannot say different things.
trait Markup {
    /// Untrusted prose.
    fn text(&self, t: &str) -> String;
    /// An untrusted identifier (call id, claim id, session id).
    fn code(&self, t: &str) -> String;
    /// Trusted emphasis; HTML gives it `class`.
    fn strong(&self, t: &str, class: Option<&str>) -> String;
    /// Already escaped text that HTML marks with `class` (a reviewer, a cited span).
    fn classed(&self, t: String, class: &str) -> String;
    /// A heading; `text` is already escaped.
    fn heading(&self, o: &mut String, level: usize, text: &str);
    /// A paragraph of escaped text.
    fn para(&self, o: &mut String, text: &str);
    /// A block quote of escaped text.
    fn quote(&self, o: &mut String, text: &str);
    /// A list of escaped items, each with its escaped sub-items.
    fn list(&self, o: &mut String, items: &[Item]);
    /// A table of escaped cells; `numeric` marks the right-aligned columns.
    fn table(
        &self,
        o: &mut String,
        class: &str,
        header: &[&str],
        numeric: &[bool],
        rows: &[Vec<String>],
    );
    /// Opens a document of `title` (escaped).
    fn open(&self, o: &mut String, title: &str);
    /// Opens one session's write-up inside a report set.
    fn open_section(&self, o: &mut String);
    /// Closes what `open_section` opened.
    fn close_section(&self, o: &mut String);
    /// Closes the document.
    fn close(&self, o: &mut String);
}

/// One list item: escaped text, its escaped sub-items, and a class HTML gives it.
struct Item {
    text: String,
    sub: Vec<String>,
    class: Option<&'static str>,
}

impl Item {
    fn new(text: String) -> Self {
        Item {
            text,
            sub: Vec::new(),
            class: None,
        }
    }
}

/// GitHub-flavoured Markdown; untrusted text never starts a line, so only the writer's own
/// lines are headings, quotes or list items.
struct Markdown;

/// A self-contained HTML page: inline CSS, no scripts, no external resources.
struct Html;

impl Markup for Markdown {
    fn text(&self, t: &str) -> String {
        md(t)
    }
    fn code(&self, t: &str) -> String {
        md_code(t)
    }
    fn strong(&self, t: &str, _class: Option<&str>) -> String {
        format!("**{t}**")
    }
    fn classed(&self, t: String, class: &str) -> String {
        if class == "span" {
            format!("“{t}”")
        } else {
            t
        }
    }
    fn heading(&self, o: &mut String, level: usize, text: &str) {
        let _ = writeln!(o, "{} {text}\n", "#".repeat(level.clamp(1, 6)));
    }
    fn para(&self, o: &mut String, text: &str) {
        let _ = writeln!(o, "{text}\n");
    }
    fn quote(&self, o: &mut String, text: &str) {
        let _ = writeln!(o, "> {text}\n");
    }
    fn list(&self, o: &mut String, items: &[Item]) {
        for i in items {
            let _ = writeln!(o, "- {}", i.text);
            for s in &i.sub {
                let _ = writeln!(o, "  - {s}");
            }
        }
        o.push('\n');
    }
    fn table(
        &self,
        o: &mut String,
        _class: &str,
        header: &[&str],
        numeric: &[bool],
        rows: &[Vec<String>],
    ) {
        let _ = writeln!(o, "| {} |", header.join(" | "));
        let rule: Vec<&str> = (0..header.len())
            .map(|i| {
                if numeric.get(i) == Some(&true) {
                    "---:"
                } else {
                    "---"
                }
            })
            .collect();
        let _ = writeln!(o, "|{}|", rule.join("|"));
        for r in rows {
            let cells: Vec<String> = r.iter().map(|c| md_cell(c)).collect();
            let _ = writeln!(o, "| {} |", cells.join(" | "));
        }
        o.push('\n');
    }
    fn open(&self, _o: &mut String, _title: &str) {}
    fn open_section(&self, _o: &mut String) {}
    fn close_section(&self, _o: &mut String) {}
    fn close(&self, _o: &mut String) {}
}

/// A Markdown table cell: a `|` not already escaped would end the cell, even inside a code
/// span (GFM), so it is escaped.
fn md_cell(c: &str) -> String {
    let mut out = String::with_capacity(c.len());
    let mut backslashes = 0usize;
    for ch in c.chars() {
        if ch == '|' && backslashes.is_multiple_of(2) {
            out.push('\\');
        }
        backslashes = if ch == '\\' { backslashes + 1 } else { 0 };
        out.push(ch);
    }
    out
}

impl Markup for Html {
    fn text(&self, t: &str) -> String {
        escape(t)
    }
    fn code(&self, t: &str) -> String {
        format!("<code>{}</code>", escape(t))
    }
    fn strong(&self, t: &str, class: Option<&str>) -> String {
        match class {
            Some(c) => format!("<b class=\"{c}\">{t}</b>"),
            None => format!("<b>{t}</b>"),
        }
    }
    fn classed(&self, t: String, class: &str) -> String {
        format!("<span class=\"{class}\">{t}</span>")
    }
    fn heading(&self, o: &mut String, level: usize, text: &str) {
        let l = level.clamp(1, 6);
        let _ = writeln!(o, "<h{l}>{text}</h{l}>");
    }
    fn para(&self, o: &mut String, text: &str) {
        let _ = writeln!(o, "<p>{text}</p>");
    }
    fn quote(&self, o: &mut String, text: &str) {
        let _ = writeln!(o, "<blockquote>{text}</blockquote>");
    }
    fn list(&self, o: &mut String, items: &[Item]) {
        o.push_str("<ul>\n");
        for i in items {
            match i.class {
                Some(c) => {
                    let _ = write!(o, "<li class=\"{c}\">{}", i.text);
                }
                None => {
                    let _ = write!(o, "<li>{}", i.text);
                }
            }
            if !i.sub.is_empty() {
                o.push_str("<ul class=\"ev\">");
                for s in &i.sub {
                    let _ = write!(o, "<li>{s}</li>");
                }
                o.push_str("</ul>");
            }
            o.push_str("</li>\n");
        }
        o.push_str("</ul>\n");
    }
    fn table(
        &self,
        o: &mut String,
        class: &str,
        header: &[&str],
        numeric: &[bool],
        rows: &[Vec<String>],
    ) {
        let _ = write!(o, "<table class=\"{class}\"><tr>");
        for h in header {
            let _ = write!(o, "<th>{h}</th>");
        }
        o.push_str("</tr>\n");
        for r in rows {
            o.push_str("<tr>");
            for (i, c) in r.iter().enumerate() {
                if numeric.get(i) == Some(&true) {
                    let _ = write!(o, "<td class=\"n\">{c}</td>");
                } else if i == 0 && class == "grid" {
                    let _ = write!(o, "<td class=\"quadrant\">{c}</td>");
                } else {
                    let _ = write!(o, "<td>{c}</td>");
                }
            }
            o.push_str("</tr>\n");
        }
        o.push_str("</table>\n");
    }
    fn open(&self, o: &mut String, title: &str) {
        o.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
        let _ = writeln!(o, "<title>{title}</title>");
        o.push_str("<style>body{font:14px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}code,.span{font-family:ui-monospace,monospace}.error{color:#b00020}.warning{color:#8a6d00}.info{color:#225}.span{background:#fff3b0;padding:0 .2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}td.n{text-align:right}.ev{color:#555;font-size:90%}</style></head><body>\n");
    }
    fn open_section(&self, o: &mut String) {
        o.push_str("<section>\n");
    }
    fn close_section(&self, o: &mut String) {
        o.push_str("</section>\n");
    }
    fn close(&self, o: &mut String) {
        o.push_str("</body></html>\n");
    }
}

/// Markdown write-up of one session.
pub fn markdown(doc: &Document) -> String {
    let mut o = String::new();
    write_document(&mut o, &Markdown, doc, 1);
    o
}

/// HTML-escapes untrusted text (after removing control sequences).
pub fn escape(s: &str) -> String {
    crate::export::xml_escape(&crate::text::sanitize(s, true))
}

/// Self-contained HTML write-up of one session: inline CSS, no scripts, no external resources.
pub fn html(doc: &Document) -> String {
    let mut o = String::new();
    let title = format!(
        "Incident review: {}",
        escape(doc.title.unwrap_or(doc.session_id))
    );
    Html.open(&mut o, &title);
    write_document(&mut o, &Html, doc, 1);
    Html.close(&mut o);
    o
}

/// One session's write-up, its title a heading of `level`.
fn write_document(o: &mut String, m: &dyn Markup, doc: &Document, level: usize) {
    let title = m.text(doc.title.unwrap_or(doc.session_id));
    m.heading(o, level, &format!("Incident review: {title}"));
    let mut head = vec![
        Item::new(format!(
            "Session: {} ({})",
            m.code(doc.session_id),
            m.text(doc.file)
        )),
        Item::new(format!(
            "Agent: {} · model: {} · started {}",
            m.text(opt(doc.agent)),
            m.text(opt(doc.model)),
            doc.started_at.map(|t| t.to_string()).unwrap_or_default()
        )),
    ];
    if doc.source_format != "provscope" {
        head.push(Item {
            text: format!("Read by the {} importer", m.code(doc.source_format)),
            sub: doc.import_notes.iter().map(|n| m.text(n)).collect(),
            class: None,
        });
    }
    let x = doc.metrics;
    head.push(Item::new(format!(
        "Claims: {} · citation precision {} · wrong-source rate {}",
        x.claims,
        pct(x.citation_precision),
        pct(x.wrong_source_rate)
    )));
    m.list(o, &head);

    m.heading(o, level + 1, "Timeline");
    for t in &doc.timeline {
        m.heading(o, level + 2, &format!("Turn {}", t.turn));
        m.para(
            o,
            &format!("{} {}", m.strong("User:", None), m.text(t.user)),
        );
        if !t.calls.is_empty() {
            let rows: Vec<Vec<String>> = t
                .calls
                .iter()
                .map(|c| {
                    vec![
                        m.code(c.call_id),
                        format!("{}/{}", m.text(c.server), m.text(c.tool)),
                        c.tier.to_string(),
                        c.returned_at.map(|t| t.to_string()).unwrap_or_default(),
                        c.envelope.name().to_owned(),
                        if c.error { "error" } else { "" }.to_owned(),
                    ]
                })
                .collect();
            m.table(
                o,
                "calls",
                &[
                    "call",
                    "server/tool",
                    "tier",
                    "returned",
                    "envelope",
                    "error",
                ],
                &[],
                &rows,
            );
        }
        m.para(
            o,
            &format!("{} {}", m.strong("Answer:", None), m.text(opt(t.answer))),
        );
    }

    m.heading(o, level + 1, "Flagged claims");
    if doc.flagged_claims.is_empty() {
        m.para(o, "None.");
    }
    for c in &doc.flagged_claims {
        m.heading(
            o,
            level + 2,
            &format!("{} (turn {})", m.code(c.claim_id), c.turn),
        );
        m.quote(o, &m.text(c.claim_text));
        m.list(o, &claim_items(m, c));
    }
}

/// What a write-up says of one flagged claim: verdicts and stamp, the grid classification,
/// note, cited span, corrections, then each finding with its evidence.
fn claim_items(m: &dyn Markup, c: &ClaimDoc) -> Vec<Item> {
    let mut items = vec![Item::new(format!(
        "Source {} · fact {} · cites {} · stamp {}",
        c.source_verdict.name(),
        c.fact_verdict.name(),
        c.call_id
            .map(|id| m.code(id))
            .unwrap_or_else(|| "nothing".into()),
        m.text(&stamp_label(c))
    ))];
    if let Some(q) = c.quadrant {
        let by = if c.classified_by_hand {
            format!(
                "classified by hand by {}",
                m.classed(m.text(opt(c.reviewer)), "reviewer")
            )
        } else {
            "computed".into()
        };
        items.push(Item::new(format!(
            "Grid: {} ({by}, {}): {} · owner: {} · next action: {}",
            m.strong(q.title(), Some("quadrant")),
            m.classed(reviewed_label(c.reviewed).into(), "reviewed"),
            q.verdict(),
            m.text(opt(c.owner)),
            m.text(opt(c.next_action))
        )));
    }
    if let Some(n) = c.note {
        items.push(Item::new(format!("Note: {}", m.text(n))));
    }
    if let Some(sp) = c.span {
        items.push(Item::new(format!(
            "Cited span: {}",
            m.classed(m.text(sp), "span")
        )));
    }
    for x in &c.corrections {
        let note = if x.note.is_empty() {
            String::new()
        } else {
            format!(": {}", m.text(x.note))
        };
        items.push(Item {
            text: format!(
                "Correction: {} at {}{note}",
                m.strong(&m.text(x.outcome), None),
                x.at
            ),
            sub: Vec::new(),
            class: Some("correction"),
        });
    }
    for f in &c.findings {
        items.push(Item {
            text: format!(
                "{} ({}): {}",
                m.strong(&f.kind.to_string(), None),
                f.severity,
                m.text(f.message)
            ),
            sub: f
                .rows
                .iter()
                .map(|(k, v)| format!("{}: {}", m.text(k), m.text(v)))
                .collect(),
            class: Some(f.severity.name()),
        });
    }
    items
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

/// Markdown report over several sessions.
pub fn markdown_set(set: &ReportSet) -> String {
    let mut o = String::new();
    write_set(&mut o, &Markdown, set);
    o
}

/// Self-contained HTML report over several sessions.
pub fn html_set(set: &ReportSet) -> String {
    let mut o = String::new();
    Html.open(
        &mut o,
        &format!("Incident review: {} sessions", set.summary.sessions),
    );
    write_set(&mut o, &Html, set);
    Html.close(&mut o);
    o
}

/// A report set: the executive summary, the grid summary, a row per session, then each
/// session's write-up one heading level down.
fn write_set(o: &mut String, m: &dyn Markup, set: &ReportSet) {
    let s = &set.summary;
    m.heading(o, 1, &format!("Incident review: {} sessions", s.sessions));
    m.heading(o, 2, "Executive summary");
    let summary: Vec<Item> = executive(set, &|n| m.code(n))
        .into_iter()
        .map(Item::new)
        .collect();
    m.list(o, &summary);
    m.heading(o, 2, "Grid summary");
    let mut grid: Vec<Vec<String>> = s
        .grid
        .iter()
        .map(|g| {
            vec![
                g.title.to_owned(),
                g.claims.to_string(),
                g.sessions.to_string(),
                g.verdict.to_owned(),
                g.owner.to_owned(),
                g.next_action.to_owned(),
            ]
        })
        .collect();
    let mut not_placed = vec![String::new(); 6];
    not_placed[0] = "Not placed".into();
    not_placed[1] = s.not_placed.to_string();
    grid.push(not_placed);
    m.table(
        o,
        "grid",
        &[
            "Quadrant",
            "Claims",
            "Sessions",
            "Verdict",
            "Owner",
            "Next action",
        ],
        &[false, true, true],
        &grid,
    );
    m.heading(o, 2, "Sessions");
    let rows: Vec<Vec<String>> = s
        .per_session
        .iter()
        .map(|r| {
            let q = |i: usize| r.quadrants.get(&QUADRANTS[i]).copied().unwrap_or(0);
            vec![
                m.code(r.session_id),
                r.claims.to_string(),
                r.flagged.to_string(),
                r.flagged_with_error.to_string(),
                format!("{}/{}", r.reviewed, r.flagged),
                q(0).to_string(),
                q(1).to_string(),
                q(2).to_string(),
                q(3).to_string(),
            ]
        })
        .collect();
    m.table(
        o,
        "sessions",
        &[
            "Session", "Claims", "Flagged", "Errors", "Reviewed", "RR", "RW", "WR", "WW",
        ],
        &[false, true, true, true, true, true, true, true, true],
        &rows,
    );
    for d in &set.sessions {
        m.open_section(o);
        write_document(o, m, d, 2);
        m.close_section(o);
    }
}
