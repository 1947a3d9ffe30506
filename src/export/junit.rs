//! JUnit XML, one writer for every command that speaks it: `verify --format junit` (one suite
//! per session, one test case per claim statement, failing when a finding reaches the threshold)
//! and `check --format junit` (one test case per case, session, turn and claim).

use super::xml_escape as x;
use crate::check::case::CheckResult;
use crate::check::gates::GateResult;
use crate::check::{Finding, SessionReport, Severity};
use crate::model::Timestamp;
use std::io::{self, Write};

/// A test suite.
pub struct Suite {
    /// Suite name.
    pub name: String,
    /// ISO 8601 timestamp (no zone), when known.
    pub timestamp: Option<String>,
    /// `<properties>`: name and value (`verify`: the importer that read the session's file).
    pub properties: Vec<(&'static str, String)>,
    /// Its test cases.
    pub cases: Vec<TestCase>,
}

/// A test case.
pub struct TestCase {
    /// `classname`.
    pub classname: String,
    /// `name`, unique within its suite.
    pub name: String,
    /// Set when it failed: (type, message, body).
    pub failure: Option<(String, String, String)>,
    /// Extra output (findings below the threshold).
    pub system_out: Option<String>,
}

/// Writes `<testsuites>` with every suite.
pub fn write(w: &mut dyn Write, name: &str, suites: &[Suite]) -> io::Result<()> {
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().map(Suite::failures).sum();
    write_head(w, name, tests, failures)?;
    for s in suites {
        write_suite(w, s)?;
    }
    write_tail(w)
}

impl Suite {
    /// How many of its cases failed.
    pub fn failures(&self) -> usize {
        self.cases.iter().filter(|c| c.failure.is_some()).count()
    }
}

/// The XML declaration and the opening `<testsuites>` with the run's totals.
pub fn write_head(w: &mut dyn Write, name: &str, tests: usize, failures: usize) -> io::Result<()> {
    writeln!(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(
        w,
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">",
        x(name)
    )
}

/// The closing `</testsuites>`.
pub fn write_tail(w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, "</testsuites>")
}

/// One `<testsuite>`.
pub fn write_suite(w: &mut dyn Write, s: &Suite) -> io::Result<()> {
    let nf = s.failures();
    write!(
        w,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{nf}\" errors=\"0\" skipped=\"0\"",
        x(&s.name),
        s.cases.len()
    )?;
    if let Some(t) = &s.timestamp {
        write!(w, " timestamp=\"{}\"", x(t))?;
    }
    writeln!(w, ">")?;
    // Before the test cases, as the schema orders them.
    if !s.properties.is_empty() {
        writeln!(w, "    <properties>")?;
        for (name, value) in &s.properties {
            writeln!(
                w,
                "      <property name=\"{}\" value=\"{}\"/>",
                x(name),
                x(value)
            )?;
        }
        writeln!(w, "    </properties>")?;
    }
    for c in &s.cases {
        write!(
            w,
            "    <testcase classname=\"{}\" name=\"{}\"",
            x(&c.classname),
            x(&c.name)
        )?;
        if c.failure.is_none() && c.system_out.is_none() {
            writeln!(w, "/>")?;
            continue;
        }
        writeln!(w, ">")?;
        if let Some((kind, message, body)) = &c.failure {
            writeln!(
                w,
                "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                x(kind),
                x(message),
                x(body)
            )?;
        }
        if let Some(o) = &c.system_out {
            writeln!(w, "      <system-out>{}</system-out>", x(o))?;
        }
        writeln!(w, "    </testcase>")?;
    }
    writeln!(w, "  </testsuite>")
}

/// One finding in a line; an imported record's JSON path is added (a log line is the claim's).
fn describe(f: &Finding) -> String {
    match &f.json_path {
        Some(_) => format!(
            "{} [{}]: {} ({})",
            f.kind,
            f.severity,
            f.message,
            f.location()
        ),
        None => format!("{} [{}]: {}", f.kind, f.severity, f.message),
    }
}

/// The timestamp of `verify`'s suites.
pub fn suite_timestamp(checked_at: Timestamp) -> String {
    checked_at.to_string().trim_end_matches('Z').to_owned()
}

/// `verify`'s suite of one session: one test case per claim statement.
pub fn verify_suite(r: &SessionReport, fail_on: Option<Severity>, stamp: &str) -> Suite {
    let fails = |s: Severity| fail_on.is_some_and(|t| s <= t);
    Suite {
        name: r.name.clone(),
        timestamp: Some(stamp.to_owned()),
        properties: vec![("format", r.format.to_owned())],
        cases: r
            .claims
            .iter()
            .map(|c| {
                let bad: Vec<&Finding> = r.findings_for(c).filter(|f| fails(f.severity)).collect();
                let rest: Vec<String> = r
                    .findings_for(c)
                    .filter(|f| !fails(f.severity))
                    .map(describe)
                    .collect();
                let failure = bad.first().map(|first| {
                    let mut body: Vec<String> = bad.iter().map(|f| describe(f)).collect();
                    // Declared, the default, is not marked.
                    if c.provenance == crate::model::Provenance::Derived {
                        body.push("stamp derived from the model API's citation".into());
                    }
                    body.push(format!(
                        "at {}:{}",
                        r.file,
                        crate::model::location(c.line, c.json_path.as_deref())
                    ));
                    (
                        first.kind.to_string(),
                        first.message.clone(),
                        body.join("\n"),
                    )
                });
                TestCase {
                    classname: r.session_id.clone(),
                    name: format!("turn {} {}", c.turn, c.claim_id),
                    failure,
                    system_out: (!rest.is_empty()).then(|| rest.join("\n")),
                }
            })
            .collect(),
    }
}

/// The metric gates as one suite, `provscope gates`: a test case per gate, failing with the
/// figure and the threshold.
pub fn gate_suite(gates: &[GateResult], stamp: &str) -> Suite {
    Suite {
        name: "provscope gates".into(),
        timestamp: Some(stamp.to_owned()),
        properties: Vec::new(),
        cases: gates
            .iter()
            .map(|g| TestCase {
                classname: "provscope.gate".into(),
                name: crate::check::gates::title(g),
                failure: (!g.passed)
                    .then(|| ("gate".to_owned(), g.message.clone(), g.message.clone())),
                system_out: g.passed.then(|| g.message.clone()),
            })
            .collect(),
    }
}

/// `check`'s suite: one test case per (case, session, turn, claim).
pub fn check_suites(results: &[CheckResult]) -> Vec<Suite> {
    vec![Suite {
        name: "conflicting-source cases".into(),
        timestamp: None,
        properties: Vec::new(),
        cases: results
            .iter()
            .map(|r| TestCase {
                classname: format!("provscope.case.{}", r.case_id),
                name: r.label(),
                failure: (!r.passed).then(|| {
                    let msg = r.reasons.join("; ");
                    let body = format!(
                        "{msg}\ncase {} ({})\nclaim {} in {} turn {}",
                        r.case_id,
                        r.case_file,
                        r.claim_id,
                        r.session_file,
                        r.turn.map_or_else(|| "-".to_owned(), |t| t.to_string())
                    );
                    ("case".to_owned(), msg, body)
                }),
                system_out: None,
            })
            .collect(),
    }]
}
