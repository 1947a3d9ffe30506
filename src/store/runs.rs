//! Verify runs (for the trend alarm) and corrections of shipped answers.

use super::sql::{vals, DbError, Val};
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
        self.write(|q| {
            let mut rows = 0usize;
            for &(s, r) in &items {
                let key = super::upsert_session(q, s, now)?.key;
                rows += 1;
                q.exec("DELETE FROM findings WHERE session_id = $1", vals![&key])?;
                for c in &r.claims {
                    q.exec(
                        "INSERT INTO claims (session_id, claim_id, turn, claim_text)
                         VALUES ($1, $2, $3, $4)
                         ON CONFLICT (session_id, claim_id, turn)
                         DO UPDATE SET claim_text = excluded.claim_text",
                        vals![&key, &c.claim_id, c.turn, &c.claim_text],
                    )?;
                    rows += 1;
                }
                for (i, x) in r.findings.iter().enumerate() {
                    let ids = serde_json::to_string(&x.call_ids).unwrap_or_else(|_| "[]".into());
                    let ev = serde_json::to_string(&x.evidence).unwrap_or_else(|_| "{}".into());
                    q.exec(
                        "INSERT INTO findings (session_id, seq, kind, severity, claim_id, turn,
                             call_ids, message, evidence_json, line)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                        &[
                            Val::T(&key),
                            Val::I(i as i64),
                            Val::T(x.kind.name()),
                            Val::T(x.severity.name()),
                            Val::OT(x.claim_id.as_deref()),
                            x.turn.map_or(Val::OT(None), Val::from),
                            Val::T(&ids),
                            Val::T(&x.message),
                            Val::T(&ev),
                            Val::I(x.line as i64),
                        ],
                    )?;
                    rows += 1;
                }
            }
            Ok(rows)
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

    /// Records a verify run; returns its id.
    pub fn record_run(&self, at: Timestamp, inputs_hash: &str, metrics: &Metrics) -> Result<i64> {
        let m = serde_json::to_string(metrics).unwrap_or_else(|_| "{}".into());
        let qd = serde_json::to_string(&metrics.quadrants).unwrap_or_else(|_| "{}".into());
        self.write(|q| {
            q.first(
                "INSERT INTO runs (at, inputs_hash, metrics_json, quadrants_json)
                 VALUES ($1, $2, $3, $4) RETURNING id",
                vals![at.millis(), inputs_hash, &m, &qd],
            )?
            .ok_or_else(|| DbError::Decode("the new run has no id".into()))?
            .i64(0)
        })
    }

    /// Every recorded run, oldest first.
    pub fn runs(&self) -> Result<Vec<Run>> {
        let rows = self.read(|q| {
            q.query(
                "SELECT id, at, inputs_hash, metrics_json FROM runs ORDER BY at, id",
                &[],
            )?
            .iter()
            .map(|r| Ok((r.i64(0)?, r.i64(1)?, r.text(2)?, r.text(3)?)))
            .collect::<std::result::Result<Vec<_>, DbError>>()
        })?;
        let mut out = Vec::new();
        for (id, at, inputs_hash, m) in rows {
            let metrics = serde_json::from_str(&m).map_err(|e| super::StoreError::Invalid {
                path: self.path().to_path_buf(),
                message: format!("run {id} has unreadable metrics: {e}"),
            })?;
            out.push(Run {
                id,
                at: Timestamp(at),
                inputs_hash,
                metrics,
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
