//! `provscope db copy`: every row of one store into another, empty one (SQLite to PostgreSQL
//! or back), in one write transaction on the destination.

use super::sql::{Cell, Col, Row, Val};
use super::{Result, Store, StoreError};

/// The tables in the order their foreign keys need, with their columns (without the
/// autoincrement ids, which the destination assigns in the source's order). The current
/// classifications are not copied: they are a view of the history, copied in its order.
/// `(table, columns with their types, ORDER BY)`.
type Table = (&'static str, &'static [(&'static str, Col)], &'static str);

const TABLES: &[Table] = &[
    (
        "sessions",
        &[
            ("session_id", Col::Text),
            ("declared_id", Col::Text),
            ("path", Col::Text),
            ("content_hash", Col::Text),
            ("first_seen", Col::Int),
            ("last_seen", Col::Int),
        ],
        "session_id",
    ),
    (
        "claims",
        &[
            ("session_id", Col::Text),
            ("claim_id", Col::Text),
            ("turn", Col::Int),
            ("claim_text", Col::Text),
        ],
        "session_id, claim_id, turn",
    ),
    ("classification_history", &CLASSIFICATION, "id"),
    (
        "review",
        &[
            ("session_id", Col::Text),
            ("claim_id", Col::Text),
            ("turn", Col::Int),
            ("reviewed", Col::Int),
            ("at", Col::Int),
        ],
        "session_id, claim_id, turn",
    ),
    (
        "review_cursors",
        &[
            ("session_id", Col::Text),
            ("reviewer", Col::Text),
            ("claim_id", Col::Text),
            ("turn", Col::Int),
            ("at", Col::Int),
        ],
        "session_id, reviewer",
    ),
    (
        "corrections",
        &[
            ("session_id", Col::Text),
            ("claim_id", Col::Text),
            ("turn", Col::Int),
            ("outcome", Col::Text),
            ("note", Col::Text),
            ("at", Col::Int),
        ],
        "id",
    ),
    (
        "runs",
        &[
            ("at", Col::Int),
            ("inputs_hash", Col::Text),
            ("metrics_json", Col::Text),
            ("quadrants_json", Col::Text),
            ("origin", Col::Text),
        ],
        "id",
    ),
    (
        "findings",
        &[
            ("session_id", Col::Text),
            ("seq", Col::Int),
            ("kind", Col::Text),
            ("severity", Col::Text),
            ("claim_id", Col::Text),
            ("turn", Col::Int),
            ("call_ids", Col::Text),
            ("message", Col::Text),
            ("evidence_json", Col::Text),
            ("line", Col::Int),
        ],
        "session_id, seq",
    ),
];

const CLASSIFICATION: [(&str, Col); 11] = [
    ("session_id", Col::Text),
    ("claim_id", Col::Text),
    ("turn", Col::Int),
    ("quadrant", Col::Text),
    ("fact_verdict", Col::Text),
    ("source_verdict", Col::Text),
    ("owner", Col::Text),
    ("next_action", Col::Text),
    ("note", Col::Text),
    ("reviewer", Col::Text),
    ("at", Col::Int),
];

fn val<'a>(c: &'a Cell, kind: Col) -> Val<'a> {
    match (c, kind) {
        (Cell::I(v), _) => Val::I(*v),
        (Cell::T(t), _) => Val::T(t),
        (Cell::Null, Col::Int) => Val::OI(None),
        (Cell::Null, Col::Text) => Val::OT(None),
    }
}

impl Store {
    /// Copies every row of `from` into this store, which must be empty, in one transaction.
    /// Returns `(table, rows)` per table. Run and correction numbers are assigned anew, in the
    /// same order.
    pub fn copy_from(&self, from: &Store) -> Result<Vec<(&'static str, usize)>> {
        let held = self.counts()?;
        if let Some((t, n)) = held.iter().find(|(_, n)| *n > 0) {
            return Err(StoreError::Invalid {
                path: self.path().to_path_buf(),
                message: format!(
                    "it already holds {n} rows of {t}; `db copy` only copies into an empty store"
                ),
            });
        }
        let mut data: Vec<(&'static str, Vec<Row>)> = Vec::new();
        for (table, cols, order) in TABLES {
            let names: Vec<&str> = cols.iter().map(|(n, _)| *n).collect();
            let sql = format!("SELECT {} FROM {table} ORDER BY {order}", names.join(", "));
            data.push((table, from.read(|q| q.query(&sql, &[]))?));
        }
        self.write(|q| {
            let mut counts = Vec::new();
            for ((table, cols, _), (_, rows)) in TABLES.iter().zip(&data) {
                let names: Vec<&str> = cols.iter().map(|(n, _)| *n).collect();
                let kinds: Vec<Col> = cols.iter().map(|(_, k)| *k).collect();
                let vals: Vec<Vec<Val<'_>>> = rows
                    .iter()
                    .map(|r| r.0.iter().zip(&kinds).map(|(c, k)| val(c, *k)).collect())
                    .collect();
                q.insert_many(
                    &format!("INSERT INTO {table} ({})", names.join(", ")),
                    &kinds,
                    "",
                    &vals,
                )?;
                counts.push((*table, rows.len()));
            }
            Ok(counts)
        })
    }
}
