//! Verify runs (for the trend alarm) and corrections of shipped answers.

use super::sql::{vals, Col, DbError, Val};
use super::{ensure_session, Result, Store};
use crate::check::Metrics;
use crate::model::Timestamp;
use serde::Serialize;

/// One recorded `verify --record-run`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    /// Run number (increasing).
    pub id: i64,
    /// When it ran.
    pub at: Timestamp,
    /// SHA-256 over the inputs' content hashes.
    pub inputs_hash: String,
    /// The run's metrics (quadrants included).
    pub metrics: Metrics,
    /// Where it ran: `$PROVSCOPE_RUN_ORIGIN`, else the host name (runs from many machines
    /// share one store on PostgreSQL).
    pub origin: String,
}

/// The origin recorded with a run: `$PROVSCOPE_RUN_ORIGIN` when set (a CI job's name, say),
/// else the host name, else `''`.
pub fn run_origin() -> String {
    if let Ok(o) = std::env::var("PROVSCOPE_RUN_ORIGIN") {
        if !o.is_empty() {
            return o;
        }
    }
    std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
        })
        .unwrap_or_default()
}

/// What happened when the grid flagged a shipped answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Correction {
    /// Session id.
    pub session_id: String,
    /// Claim id.
    pub claim_id: String,
    /// Turn.
    pub turn: u32,
    /// `survived` (re-stamped from a trusted origin) or `corrected` (user notified, answer fixed).
    pub outcome: String,
    /// Free text.
    pub note: String,
    /// When.
    pub at: Timestamp,
}

impl Store {
    /// Imports a checked session: the session, every claim statement and every finding, in one
    /// transaction (a re-import replaces the session's findings). Returns the rows written.
    pub fn import_report(
        &self,
        s: &super::SessionRef,
        r: &crate::check::SessionReport,
    ) -> Result<usize> {
        self.import_reports([(s, r)])
    }

    /// Imports many checked sessions in one transaction (bulk import). Returns the rows written.
    /// Each session goes under its identity's key (see [`super::Identity`]).
    pub fn import_reports<'a, I>(&self, items: I) -> Result<usize>
    where
        I: IntoIterator<Item = (&'a super::SessionRef, &'a crate::check::SessionReport)>,
    {
        let items: Vec<_> = items.into_iter().collect();
        let now = Timestamp::now();
        // Serialized once, outside the transaction (which PostgreSQL may retry).
        let json: Vec<Vec<(String, String)>> = items
            .iter()
            .map(|(_, r)| {
                r.findings
                    .iter()
                    .map(|x| {
                        (
                            serde_json::to_string(&x.call_ids).unwrap_or_else(|_| "[]".into()),
                            serde_json::to_string(&x.evidence).unwrap_or_else(|_| "{}".into()),
                        )
                    })
                    .collect()
            })
            .collect();
        self.write(|q| {
            let refs: Vec<&super::SessionRef> = items.iter().map(|(s, _)| *s).collect();
            let ids = super::upsert_sessions(q, &refs, now)?;
            let keys: Vec<String> = ids.iter().map(|i| i.key.clone()).collect();
            // The findings of a previous import are replaced; a session new to the store has
            // none to delete.
            let mut known: Vec<&str> = ids
                .iter()
                .filter(|i| i.recorded)
                .map(|i| i.key.as_str())
                .collect();
            known.sort_unstable();
            known.dedup();
            if !known.is_empty() {
                q.delete_in("findings", "session_id", &known)?;
            }
            // One row per claim statement (the last text wins, as an upsert would). A session
            // new to the store has no claims yet: its rows need no conflict handling.
            let mut claims: Vec<Vec<Val<'_>>> = Vec::new();
            let mut new_claims: Vec<Vec<Val<'_>>> = Vec::new();
            let mut findings: Vec<Vec<Val<'_>>> = Vec::new();
            // A log given twice in one batch: its last occurrence is what is imported.
            let mut last = rustc_hash::FxHashMap::default();
            for (i, k) in keys.iter().enumerate() {
                last.insert(k.as_str(), i);
            }
            for (n, ((_, r), (key, json))) in items.iter().zip(keys.iter().zip(&json)).enumerate() {
                if last.get(key.as_str()) != Some(&n) {
                    continue;
                }
                let mut seen = rustc_hash::FxHashMap::default();
                let mut mine: Vec<Vec<Val<'_>>> = Vec::with_capacity(r.claims.len());
                for c in &r.claims {
                    let row = vec![
                        Val::T(key),
                        Val::T(&c.claim_id),
                        Val::from(c.turn),
                        Val::T(&c.claim_text),
                    ];
                    match seen.get(&(c.claim_id.as_str(), c.turn)) {
                        Some(&at) => mine[at] = row,
                        None => {
                            seen.insert((c.claim_id.as_str(), c.turn), mine.len());
                            mine.push(row);
                        }
                    }
                }
                if ids[n].recorded {
                    claims.extend(mine);
                } else {
                    new_claims.extend(mine);
                }
                for (i, (x, (ids, ev))) in r.findings.iter().zip(json).enumerate() {
                    findings.push(vec![
                        Val::T(key),
                        Val::I(i as i64),
                        Val::T(x.kind.name()),
                        Val::T(x.severity.name()),
                        Val::OT(x.claim_id.as_deref()),
                        Val::OI(x.turn.map(i64::from)),
                        Val::T(ids),
                        Val::T(&x.message),
                        Val::T(ev),
                        Val::I(x.line as i64),
                    ]);
                }
            }
            // In key order: each index grows at its right edge instead of all over.
            fn key3<'a>(r: &[Val<'a>]) -> (&'a str, &'a str, i64) {
                match (r.first(), r.get(1), r.get(2)) {
                    (Some(Val::T(a)), Some(Val::T(b)), Some(Val::I(c))) => (a, b, *c),
                    _ => ("", "", 0),
                }
            }
            new_claims.sort_unstable_by(|a, b| key3(a).cmp(&key3(b)));
            fn key2<'a>(r: &[Val<'a>]) -> (&'a str, i64) {
                match (r.first(), r.get(1)) {
                    (Some(Val::T(a)), Some(Val::I(b))) => (a, *b),
                    _ => ("", 0),
                }
            }
            findings.sort_by(|a, b| key2(a).cmp(&key2(b)));
            let columns = [Col::Text, Col::Text, Col::Int, Col::Text];
            let head = "INSERT INTO claims (session_id, claim_id, turn, claim_text)";
            q.insert_many(head, &columns, "", &new_claims)?;
            q.insert_many(
                head,
                &columns,
                "ON CONFLICT (session_id, claim_id, turn) DO UPDATE SET claim_text = excluded.claim_text",
                &claims,
            )?;
            q.insert_many(
                "INSERT INTO findings (session_id, seq, kind, severity, claim_id, turn, call_ids,
                     message, evidence_json, line)",
                &[
                    Col::Text,
                    Col::Int,
                    Col::Text,
                    Col::Text,
                    Col::Text,
                    Col::Int,
                    Col::Text,
                    Col::Text,
                    Col::Text,
                    Col::Int,
                ],
                "",
                &findings,
            )?;
            Ok(keys.len() + claims.len() + new_claims.len() + findings.len())
        })
    }

    /// Findings per kind over every imported session.
    pub fn finding_counts(&self) -> Result<Vec<(String, i64)>> {
        self.read(|q| {
            q.query(
                "SELECT kind, count(*) FROM findings GROUP BY kind ORDER BY kind",
                &[],
            )?
            .iter()
            .map(|r| Ok((r.text(0)?, r.i64(1)?)))
            .collect()
        })
    }

    /// Records a verify run (with [`run_origin`] as its origin); returns its id.
    pub fn record_run(&self, at: Timestamp, inputs_hash: &str, metrics: &Metrics) -> Result<i64> {
        self.record_run_from(&run_origin(), at, inputs_hash, metrics)
    }

    /// Records a verify run that ran at `origin`; returns its id.
    pub fn record_run_from(
        &self,
        origin: &str,
        at: Timestamp,
        inputs_hash: &str,
        metrics: &Metrics,
    ) -> Result<i64> {
        let m = serde_json::to_string(metrics).unwrap_or_else(|_| "{}".into());
        let qd = serde_json::to_string(&metrics.quadrants).unwrap_or_else(|_| "{}".into());
        self.write(|q| {
            q.first(
                "INSERT INTO runs (at, inputs_hash, metrics_json, quadrants_json, origin)
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                vals![at.millis(), inputs_hash, &m, &qd, origin],
            )?
            .ok_or_else(|| DbError::Decode("the new run has no id".into()))?
            .i64(0)
        })
    }

    /// Every recorded run, oldest first.
    pub fn runs(&self) -> Result<Vec<Run>> {
        let rows = self.read(|q| {
            q.query(
                "SELECT id, at, inputs_hash, metrics_json, origin FROM runs ORDER BY at, id",
                &[],
            )?
            .iter()
            .map(|r| Ok((r.i64(0)?, r.i64(1)?, r.text(2)?, r.text(3)?, r.text(4)?)))
            .collect::<std::result::Result<Vec<_>, DbError>>()
        })?;
        let mut out = Vec::new();
        for (id, at, inputs_hash, m, origin) in rows {
            let metrics = serde_json::from_str(&m).map_err(|e| super::StoreError::Invalid {
                path: self.path().to_path_buf(),
                message: format!("run {id} has unreadable metrics: {e}"),
            })?;
            out.push(Run {
                id,
                at: Timestamp(at),
                inputs_hash,
                metrics,
                origin,
            });
        }
        Ok(out)
    }

    /// Records a correction (under the session's store key).
    pub fn add_correction(&self, c: &Correction) -> Result<()> {
        self.write(|q| {
            ensure_session(q, &c.session_id, c.at.millis())?;
            q.exec(
                "INSERT INTO corrections (session_id, claim_id, turn, outcome, note, at)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                vals![
                    &c.session_id,
                    &c.claim_id,
                    c.turn,
                    &c.outcome,
                    &c.note,
                    c.at.millis()
                ],
            )?;
            Ok(())
        })
    }

    /// Every correction of every session, oldest first (for `trend`).
    pub fn all_corrections(&self) -> Result<Vec<Correction>> {
        self.read(|q| {
            q.query(
                "SELECT session_id, claim_id, turn, outcome, note, at FROM corrections
                 ORDER BY at, id",
                vals![],
            )?
            .iter()
            .map(|r| {
                Ok(Correction {
                    session_id: r.text(0)?,
                    claim_id: r.text(1)?,
                    turn: r.u32(2)?,
                    outcome: r.text(3)?,
                    note: r.text(4)?,
                    at: Timestamp(r.i64(5)?),
                })
            })
            .collect()
        })
    }

    /// Corrections of a session, oldest first.
    pub fn corrections(&self, session_id: &str) -> Result<Vec<Correction>> {
        self.read(|q| {
            q.query(
                "SELECT claim_id, turn, outcome, note, at FROM corrections WHERE session_id = $1
                 ORDER BY at, id",
                vals![session_id],
            )?
            .iter()
            .map(|r| {
                Ok(Correction {
                    session_id: session_id.to_owned(),
                    claim_id: r.text(0)?,
                    turn: r.u32(1)?,
                    outcome: r.text(2)?,
                    note: r.text(3)?,
                    at: Timestamp(r.i64(4)?),
                })
            })
            .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_corrections_round_trip() {
        let s = Store::open_in_memory().unwrap();
        let m = Metrics {
            claims: 3,
            ..Metrics::default()
        };
        let id = s.record_run(Timestamp(1000), "abc", &m).unwrap();
        let runs = s.runs().unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].id, id);
        assert_eq!(runs[0].metrics.claims, 3);
        let c = Correction {
            session_id: "s".into(),
            claim_id: "c".into(),
            turn: 2,
            outcome: "survived".into(),
            note: "re-stamped".into(),
            at: Timestamp(5),
        };
        s.add_correction(&c).unwrap();
        assert_eq!(s.corrections("s").unwrap(), vec![c.clone()]);
        let bad = Correction {
            outcome: "maybe".into(),
            ..c
        };
        assert!(s.add_correction(&bad).is_err());
    }
}
