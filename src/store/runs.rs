//! Verify runs (for the trend alarm) and corrections of shipped answers.

use super::{ensure_session, Result, Store};
use crate::check::Metrics;
use crate::model::Timestamp;
use rusqlite::params;
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
    pub fn import_reports<'a, I>(&self, items: I) -> Result<usize>
    where
        I: IntoIterator<Item = (&'a super::SessionRef, &'a crate::check::SessionReport)>,
    {
        let tx = self.begin()?;
        let now = Timestamp::now();
        let mut rows = 0usize;
        let res: rusqlite::Result<()> = (|| {
            let mut del = tx.prepare_cached("DELETE FROM findings WHERE session_id = ?1")?;
            let mut claims = tx.prepare_cached(
                "INSERT INTO claims (session_id, claim_id, turn, claim_text) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (session_id, claim_id, turn) DO UPDATE SET claim_text = excluded.claim_text",
            )?;
            let mut f = tx.prepare_cached(
                "INSERT INTO findings (session_id, seq, kind, severity, claim_id, turn, call_ids, message, evidence_json, line)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for (s, r) in items {
                super::upsert_session(&tx, s, now)?;
                rows += 1;
                del.execute([&s.session_id])?;
                for c in &r.claims {
                    claims.execute(params![s.session_id, c.claim_id, c.turn, c.claim_text])?;
                    rows += 1;
                }
                for (i, x) in r.findings.iter().enumerate() {
                    let ids = serde_json::to_string(&x.call_ids).unwrap_or_else(|_| "[]".into());
                    let ev = serde_json::to_string(&x.evidence).unwrap_or_else(|_| "{}".into());
                    f.execute(params![
                        s.session_id,
                        i as i64,
                        x.kind.name(),
                        x.severity.name(),
                        x.claim_id,
                        x.turn,
                        ids,
                        x.message,
                        ev,
                        x.line as i64
                    ])?;
                    rows += 1;
                }
            }
            Ok(())
        })();
        res.map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Findings per kind over every imported session.
    pub fn finding_counts(&self) -> Result<Vec<(String, i64)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT kind, count(*) FROM findings GROUP BY kind ORDER BY kind")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
    }

    /// Records a verify run; returns its id.
    pub fn record_run(&self, at: Timestamp, inputs_hash: &str, metrics: &Metrics) -> Result<i64> {
        let tx = self.begin()?;
        let m = serde_json::to_string(metrics).unwrap_or_else(|_| "{}".into());
        let q = serde_json::to_string(&metrics.quadrants).unwrap_or_else(|_| "{}".into());
        tx.prepare_cached("INSERT INTO runs (at, inputs_hash, metrics_json, quadrants_json) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut st| st.execute(params![at.millis(), inputs_hash, m, q]))
            .map_err(|e| self.err(e))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| self.err(e))?;
        Ok(id)
    }

    /// Every recorded run, oldest first.
    pub fn runs(&self) -> Result<Vec<Run>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, at, inputs_hash, metrics_json FROM runs ORDER BY at, id")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, at, inputs_hash, m) = row.map_err(|e| self.err(e))?;
            let metrics = serde_json::from_str(&m).map_err(|e| super::StoreError::Invalid {
                path: self.path.clone(),
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

    /// Records a correction.
    pub fn add_correction(&self, c: &Correction) -> Result<()> {
        let tx = self.begin()?;
        ensure_session(&tx, &c.session_id, c.at.millis())
            .and_then(|()| {
                tx.prepare_cached(
                    "INSERT INTO corrections (session_id, claim_id, turn, outcome, note, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?
                .execute(params![c.session_id, c.claim_id, c.turn, c.outcome, c.note, c.at.millis()])
                .map(|_| ())
            })
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    /// Corrections of a session, oldest first.
    pub fn corrections(&self, session_id: &str) -> Result<Vec<Correction>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT claim_id, turn, outcome, note, at FROM corrections WHERE session_id = ?1 ORDER BY at, id")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([session_id], |r| {
                Ok(Correction {
                    session_id: session_id.to_owned(),
                    claim_id: r.get(0)?,
                    turn: r.get(1)?,
                    outcome: r.get(2)?,
                    note: r.get(3)?,
                    at: Timestamp(r.get(4)?),
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
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
