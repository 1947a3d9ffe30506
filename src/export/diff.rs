//! `provscope diff` for people: text for a terminal and Markdown to paste into a pull request.
//! Every value from a log (ids, questions, claim texts, results, finding messages) is untrusted:
//! one line, control characters escaped ([`crate::text::one_line`]), and in Markdown also its
//! metacharacters neutralized. JSON is the serialized [`RunDiff`], written by the command.

use crate::check::{Metrics, QUADRANTS};
use crate::diff::{
    ClaimChange, ClaimDiff, Counts, Direction, FindingRef, MetricsDelta, OriginRef, Presence,
    ResultChange, RunDiff, SessionDiff, SpanRef, TurnDiff,
};
use crate::export::report::{md, md_code};
use crate::text::{one_line, Paint, Term};
use std::io::{self, Write};

/// At most this many characters of one untrusted value on a line.
const MAX_CHARS: usize = 160;
/// At most this many changed stretches shown per result.
const MAX_HUNKS: usize = 8;

/// One line, control characters escaped, cut to [`MAX_CHARS`].
fn line(s: &str) -> String {
    let s = one_line(s);
    if s.chars().count() <= MAX_CHARS {
        return s.into_owned();
    }
    let mut out: String = s.chars().take(MAX_CHARS).collect();
    out.push('…');
    out
}

/// Quoted, for text.
fn quoted(s: &str) -> String {
    format!("\"{}\"", line(s))
}

fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{:.1}%", v * 100.0))
}

fn pts(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{:+.1} pts", v * 100.0))
}

fn signed(v: i64) -> String {
    format!("{v:+}")
}

fn summary(c: &Counts) -> [String; 3] {
    let [claims, rest] = c.sentences();
    [
        format!(
            "{} session(s) paired, {} added, {} removed",
            c.sessions_paired, c.sessions_added, c.sessions_removed
        ),
        claims,
        rest,
    ]
}

fn origin_text(o: &Option<OriginRef>) -> String {
    match o {
        None => "(no origin)".into(),
        Some(o) => format!(
            "{} {} {} args {} {}",
            line(&o.server),
            line(&o.tool),
            line(&o.call_id),
            line(short(&o.arguments_hash)),
            o.tier.map_or("", |t| t.label())
        )
        .trim_end()
        .to_owned(),
    }
}

fn short(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}

fn span_text(s: &Option<SpanRef>) -> String {
    match s {
        None => "(no span)".into(),
        Some(s) => match &s.text {
            Some(t) => quoted(t),
            None => format!(
                "block {} [{}..{}] (does not resolve)",
                s.block, s.start, s.end
            ),
        },
    }
}

fn support_text(s: Option<f64>) -> String {
    s.map_or("n/a".into(), |s| format!("{s:.2}"))
}

fn quadrant_text(q: Option<crate::check::Quadrant>) -> &'static str {
    q.map_or("none", |q| q.name())
}

fn finding_text(f: &FindingRef) -> String {
    format!(
        "{} {} (line {}): {}",
        f.kind,
        f.severity,
        f.line,
        line(&f.message)
    )
}

/// How values are written: plain text for a terminal, or Markdown for a pull request.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Text,
    Markdown,
}

impl Style {
    fn arrow(self) -> &'static str {
        match self {
            Style::Text => "->",
            Style::Markdown => "→",
        }
    }

    fn claim_text(self, s: &str) -> String {
        match self {
            Style::Text => quoted(s),
            Style::Markdown => md_code(&line(s)),
        }
    }

    fn origin(self, o: &Option<OriginRef>) -> String {
        match self {
            Style::Text => origin_text(o),
            Style::Markdown => md_origin(o),
        }
    }

    fn span(self, s: &Option<SpanRef>) -> String {
        match self {
            Style::Text => span_text(s),
            Style::Markdown => md_span(s),
        }
    }

    fn quadrant(self, q: Option<crate::check::Quadrant>) -> String {
        match self {
            Style::Text => quadrant_text(q).to_owned(),
            Style::Markdown => format!("`{}`", quadrant_text(q)),
        }
    }

    /// A finding that appeared.
    fn added(self, f: &FindingRef) -> String {
        match self {
            Style::Text => format!("+ {}", finding_text(f)),
            Style::Markdown => format!("added {}", md_finding(f)),
        }
    }

    /// A finding that went away.
    fn resolved(self, f: &FindingRef) -> String {
        match self {
            Style::Text => format!("- {} resolved", finding_text(f)),
            Style::Markdown => format!("resolved {}", md_finding(f)),
        }
    }
}

/// A change of a paired claim as one line of text (no prefix), as the explorer's diff view
/// shows it.
pub(crate) fn change_text(c: &ClaimChange) -> String {
    change_line(c, Style::Text)
}

/// A change of a paired claim as one line (no prefix), the same fields in either style.
fn change_line(c: &ClaimChange, st: Style) -> String {
    let to = st.arrow();
    match c {
        ClaimChange::Text { a, b } => {
            format!("text: {} {to} {}", st.claim_text(a), st.claim_text(b))
        }
        ClaimChange::Origin { fields, a, b, .. } => format!(
            "origin ({}): {} {to} {}",
            fields.join(", "),
            st.origin(a),
            st.origin(b)
        ),
        ClaimChange::Span { a, b } => format!("span: {} {to} {}", st.span(a), st.span(b)),
        ClaimChange::Support { a, b, .. } => {
            format!("support: {} {to} {}", support_text(*a), support_text(*b))
        }
        ClaimChange::FindingAdded { finding, .. } => st.added(finding),
        ClaimChange::FindingResolved { finding, .. } => st.resolved(finding),
        ClaimChange::Verdict {
            source,
            fact,
            quadrant,
            ..
        } => format!(
            "verdict: source {} {to} {}, fact {} {to} {}, quadrant {} {to} {}",
            source[0].name(),
            source[1].name(),
            fact[0].name(),
            fact[1].name(),
            st.quadrant(quadrant[0]),
            st.quadrant(quadrant[1])
        ),
    }
}

fn hunk_text(h: &crate::diff::words::Hunk) -> String {
    let mut s = String::new();
    if !h.before.is_empty() {
        s.push_str("… ");
        s.push_str(&line(&h.before));
        s.push(' ');
    }
    if !h.removed.is_empty() {
        s.push_str(&format!("[-{}-]", line(&h.removed)));
    }
    if !h.added.is_empty() {
        s.push_str(&format!("{{+{}+}}", line(&h.added)));
    }
    if !h.after.is_empty() {
        s.push(' ');
        s.push_str(&line(&h.after));
        s.push_str(" …");
    }
    s
}

fn result_head(r: &ResultChange) -> String {
    let calls = if r.call_a == r.call_b {
        line(&r.call_b)
    } else {
        format!("{} -> {}", line(&r.call_a), line(&r.call_b))
    };
    let mut s = format!(
        "result {} {} args {} ({calls}): {} word(s) removed, {} added",
        line(&r.server),
        line(&r.tool),
        line(short(&r.arguments_hash)),
        r.words.words_removed,
        r.words.words_added
    );
    if r.recorded[0] != r.recorded[1] {
        s.push_str(if r.recorded[1] {
            "; now recorded"
        } else {
            "; no longer recorded"
        });
    }
    if r.error[0] != r.error[1] {
        s.push_str(if r.error[1] {
            "; now an error"
        } else {
            "; no longer an error"
        });
    }
    s
}

fn label(d: Direction) -> (&'static str, Paint) {
    match d {
        Direction::Worse => ("WORSE", Paint::Error),
        Direction::Better => ("BETTER", Paint::Good),
        Direction::Neutral => ("CHANGED", Paint::Warning),
    }
}

fn turn_title(t: &TurnDiff) -> String {
    let num = match (t.turn_a, t.turn_b) {
        (Some(a), Some(b)) if a != b => format!("turn {a} -> {b}"),
        (_, Some(b)) => format!("turn {b}"),
        (Some(a), None) => format!("turn {a}"),
        (None, None) => "turn".into(),
    };
    let what = match t.presence {
        Presence::Added => " (added)",
        Presence::Removed => " (removed)",
        Presence::Paired => "",
    };
    let mut s = format!("{num}{what}: {}", quoted(&t.question));
    if let Some(q) = &t.question_a {
        s.push_str(&format!(" (was {})", quoted(q)));
    }
    s
}

fn claim_head(c: &ClaimDiff) -> String {
    let mut s = format!("claim {} {}", line(&c.claim_id), quoted(&c.text));
    if let Some(a) = &c.claim_id_a {
        s.push_str(&format!(" (was {}, paired by text)", line(a)));
    }
    match c.presence {
        Presence::Paired => {
            if let (Some(a), Some(b)) = (c.line_a, c.line_b) {
                s.push_str(&format!(" (line {a} -> {b})"));
            }
        }
        _ => {
            if let Some(v) = c.source_verdict {
                s.push_str(&format!(" source {}", v.name()));
            }
            if let Some(l) = c.line_a.or(c.line_b) {
                s.push_str(&format!(" (line {l})"));
            }
        }
    }
    s
}

/// The text report.
pub fn write_text<W: Write>(t: &mut Term<W>, d: &RunDiff, a: &str, b: &str) -> io::Result<()> {
    t.paint(Paint::Bold, "provscope diff")?;
    writeln!(t, " {} -> {}", line(a), line(b))?;
    for s in summary(&d.counts) {
        writeln!(t, "{s}")?;
    }
    for s in &d.sessions {
        writeln!(t)?;
        write_session(t, s)?;
    }
    for s in &d.sessions_added {
        writeln!(t)?;
        t.paint(Paint::Warning, "ADDED")?;
        writeln!(t, " session {} ({})", line(&s.session_id), line(&s.file))?;
    }
    for s in &d.sessions_removed {
        writeln!(t)?;
        t.paint(Paint::Warning, "REMOVED")?;
        writeln!(t, " session {} ({})", line(&s.session_id), line(&s.file))?;
    }
    writeln!(t)?;
    write_metrics_text(t, &d.metrics)?;
    writeln!(t)?;
    let (verdict, paint) = match d.direction {
        Direction::Worse => ("result: worse", Paint::Error),
        Direction::Better => ("result: better", Paint::Good),
        Direction::Neutral if d.counts.is_empty() => ("result: no changes", Paint::Good),
        Direction::Neutral => ("result: changed, neither better nor worse", Paint::Warning),
    };
    t.paint(paint, verdict)?;
    writeln!(t)
}

fn write_session<W: Write>(t: &mut Term<W>, s: &SessionDiff) -> io::Result<()> {
    let (l, p) = label(s.direction);
    if s.counts.is_empty() {
        t.paint(Paint::Good, "UNCHANGED")?;
    } else {
        t.paint(p, l)?;
    }
    let id = if s.a.session_id == s.b.session_id {
        line(&s.b.session_id)
    } else {
        format!("{} -> {}", line(&s.a.session_id), line(&s.b.session_id))
    };
    writeln!(
        t,
        " session {id} ({} -> {}), paired by {}",
        line(&s.a.file),
        line(&s.b.file),
        match s.paired_by {
            crate::diff::SessionPairing::SessionId => "session id",
            crate::diff::SessionPairing::FirstQuestion => "first question",
            crate::diff::SessionPairing::OnlyOne => "being the only one",
        }
    )?;
    for tu in &s.turns {
        writeln!(t, "  {}", turn_title(tu))?;
        for c in &tu.claims {
            write!(t, "    ")?;
            let (l, p) = match c.presence {
                Presence::Added if c.direction == Direction::Worse => ("ADDED", Paint::Error),
                Presence::Added => ("ADDED", Paint::Warning),
                Presence::Removed => ("REMOVED", Paint::Warning),
                Presence::Paired => label(c.direction),
            };
            t.paint(p, l)?;
            writeln!(t, " {}", claim_head(c))?;
            for ch in &c.changes {
                writeln!(t, "      {}", change_line(ch, Style::Text))?;
            }
            for f in &c.findings {
                writeln!(t, "      {}", finding_text(f))?;
            }
        }
        for c in &tu.calls_added {
            writeln!(
                t,
                "    + call {} {} {} args {}",
                line(&c.call_id),
                line(&c.server),
                line(&c.tool),
                line(short(&c.arguments_hash))
            )?;
        }
        for c in &tu.calls_removed {
            writeln!(
                t,
                "    - call {} {} {} args {}",
                line(&c.call_id),
                line(&c.server),
                line(&c.tool),
                line(short(&c.arguments_hash))
            )?;
        }
        for r in &tu.results_changed {
            writeln!(t, "    {}", result_head(r))?;
            for h in r.words.hunks.iter().take(MAX_HUNKS) {
                writeln!(t, "      {}", hunk_text(h))?;
            }
            if r.words.hunks.len() > MAX_HUNKS {
                writeln!(t, "      … {} more", r.words.hunks.len() - MAX_HUNKS)?;
            }
        }
        for f in &tu.findings_added {
            writeln!(t, "    {}", Style::Text.added(f))?;
        }
        for f in &tu.findings_resolved {
            writeln!(t, "    {}", Style::Text.resolved(f))?;
        }
    }
    for f in &s.findings_added {
        writeln!(t, "  {}", Style::Text.added(f))?;
    }
    for f in &s.findings_resolved {
        writeln!(t, "  {}", Style::Text.resolved(f))?;
    }
    Ok(())
}

/// The metric rows: (name, A, B, change).
fn metric_rows(m: &MetricsDelta) -> Vec<[String; 4]> {
    fn count(x: &Metrics, q: &crate::check::Quadrant) -> u64 {
        x.quadrants.get(q).copied().unwrap_or(0)
    }
    fn sev(x: &Metrics, s: &crate::check::Severity) -> u64 {
        x.severities.get(s).copied().unwrap_or(0)
    }
    let mut rows = vec![
        [
            "claims".to_owned(),
            m.a.claims.to_string(),
            m.b.claims.to_string(),
            signed(m.b.claims as i64 - m.a.claims as i64),
        ],
        [
            "citation precision".to_owned(),
            pct(m.a.citation_precision),
            pct(m.b.citation_precision),
            pts(m.citation_precision),
        ],
        [
            "wrong-source rate".to_owned(),
            pct(m.a.wrong_source_rate),
            pct(m.b.wrong_source_rate),
            pts(m.wrong_source_rate),
        ],
    ];
    for q in &QUADRANTS {
        rows.push([
            q.name().to_owned(),
            count(&m.a, q).to_string(),
            count(&m.b, q).to_string(),
            signed(m.quadrants.get(q).copied().unwrap_or(0)),
        ]);
    }
    for s in [
        crate::check::Severity::Error,
        crate::check::Severity::Warning,
        crate::check::Severity::Info,
    ] {
        rows.push([
            format!("{s} findings"),
            sev(&m.a, &s).to_string(),
            sev(&m.b, &s).to_string(),
            signed(m.severities.get(&s).copied().unwrap_or(0)),
        ]);
    }
    rows
}

fn write_metrics_text<W: Write>(t: &mut Term<W>, m: &MetricsDelta) -> io::Result<()> {
    writeln!(t, "{:<26} {:>9} {:>9} {:>11}", "METRIC", "A", "B", "CHANGE")?;
    for [n, a, b, d] in metric_rows(m) {
        writeln!(t, "{n:<26} {a:>9} {b:>9} {d:>11}")?;
    }
    Ok(())
}

fn md_finding(f: &FindingRef) -> String {
    format!(
        "`{}` {} (line {}): {}",
        f.kind,
        f.severity,
        f.line,
        md(&f.message)
    )
}

fn md_origin(o: &Option<OriginRef>) -> String {
    match o {
        None => "no origin".into(),
        Some(o) => format!(
            "{} {} {}{}",
            md_code(&o.server),
            md_code(&o.tool),
            md_code(&o.call_id),
            o.tier
                .map_or(String::new(), |t| format!(" ({})", t.label()))
        ),
    }
}

fn md_span(s: &Option<SpanRef>) -> String {
    match s {
        None => "no span".into(),
        Some(s) => match &s.text {
            Some(t) => md_code(&line(t)),
            None => format!(
                "block {} [{}..{}] (does not resolve)",
                s.block, s.start, s.end
            ),
        },
    }
}

fn md_badge(c: &ClaimDiff) -> &'static str {
    match (c.presence, c.direction) {
        (Presence::Added, Direction::Worse) => "**added, source wrong**",
        (Presence::Added, _) => "added",
        (Presence::Removed, _) => "removed",
        (Presence::Paired, Direction::Worse) => "**worse**",
        (Presence::Paired, Direction::Better) => "better",
        (Presence::Paired, Direction::Neutral) => "changed",
    }
}

/// The Markdown report, ready to paste into a pull request.
pub fn markdown(d: &RunDiff, a: &str, b: &str) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let verdict = match d.direction {
        Direction::Worse => "**worse**",
        Direction::Better => "better",
        Direction::Neutral if d.counts.is_empty() => "no changes",
        Direction::Neutral => "changed, neither better nor worse",
    };
    let _ = writeln!(o, "## provscope diff: {verdict}\n");
    let _ = writeln!(o, "{} → {}\n", md_code(a), md_code(b));
    for s in summary(&d.counts) {
        let _ = writeln!(o, "- {s}");
    }
    let _ = writeln!(o, "\n| Metric | A | B | Change |\n|---|---:|---:|---:|");
    for [n, a, b, c] in metric_rows(&d.metrics) {
        let _ = writeln!(o, "| {n} | {a} | {b} | {c} |");
    }
    for s in &d.sessions {
        if s.counts.is_empty() {
            continue;
        }
        let _ = writeln!(
            o,
            "\n### Session {} ({} → {})\n",
            md_code(&s.b.session_id),
            md_code(&s.a.file),
            md_code(&s.b.file)
        );
        for t in &s.turns {
            let _ = writeln!(o, "- {}", md(&turn_title(t)));
            for c in &t.claims {
                let mut head = format!(
                    "  - {} claim {} {}",
                    md_badge(c),
                    md_code(&c.claim_id),
                    md(&quoted(&c.text))
                );
                if let Some(a) = &c.claim_id_a {
                    let _ = write!(head, " (was {}, paired by text)", md_code(a));
                }
                let _ = writeln!(o, "{head}");
                for ch in &c.changes {
                    let _ = writeln!(o, "    - {}", change_line(ch, Style::Markdown));
                }
                for f in &c.findings {
                    let _ = writeln!(o, "    - {}", md_finding(f));
                }
            }
            for (sign, calls) in [("added", &t.calls_added), ("removed", &t.calls_removed)] {
                for c in calls {
                    let _ = writeln!(
                        o,
                        "  - call {sign}: {} {} {} args `{}`",
                        md_code(&c.call_id),
                        md_code(&c.server),
                        md_code(&c.tool),
                        md(short(&c.arguments_hash))
                    );
                }
            }
            for r in &t.results_changed {
                let _ = writeln!(o, "  - {}", md(&result_head(r)));
                for h in r.words.hunks.iter().take(MAX_HUNKS) {
                    let _ = writeln!(o, "    - {}", md_code(&hunk_text(h)));
                }
                if r.words.hunks.len() > MAX_HUNKS {
                    let _ = writeln!(o, "    - … {} more", r.words.hunks.len() - MAX_HUNKS);
                }
            }
            for f in &t.findings_added {
                let _ = writeln!(o, "  - {}", Style::Markdown.added(f));
            }
            for f in &t.findings_resolved {
                let _ = writeln!(o, "  - {}", Style::Markdown.resolved(f));
            }
        }
        for f in &s.findings_added {
            let _ = writeln!(o, "- {}", Style::Markdown.added(f));
        }
        for f in &s.findings_resolved {
            let _ = writeln!(o, "- {}", Style::Markdown.resolved(f));
        }
    }
    for (what, list) in [
        ("added", &d.sessions_added),
        ("removed", &d.sessions_removed),
    ] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(o, "\n### Sessions {what}\n");
        for s in list {
            let _ = writeln!(o, "- {} ({})", md_code(&s.session_id), md_code(&s.file));
        }
    }
    o
}
