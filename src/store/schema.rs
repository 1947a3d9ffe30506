//! The case store's schema: an ordered list of migrations, applied in one transaction each
//! time a store is opened. `PRAGMA user_version` records how many have been applied.
//!
//! Rules for adding a migration: append, never edit or reorder a released one; each migration
//! moves the schema from version `i` to `i + 1`; document the change in `docs/case-store.md`.

/// `PRAGMA application_id` of a provscope case store ("PRVS"): tells our databases from others.
pub const APPLICATION_ID: i64 = 0x5052_5653;

/// One schema step.
pub struct Migration {
    /// The version this migration produces.
    pub version: i64,
    /// What it does, for error messages.
    pub summary: &'static str,
    /// The SQL, run as one batch inside the migration's transaction: the one definition of the
    /// schema, written for SQLite and translated for PostgreSQL by [`Migration::sql_for`].
    pub sql: &'static str,
}

/// The SQL dialect a migration is run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (the embedded default).
    Sqlite,
}

impl Migration {
    /// The migration's SQL in `dialect`.
    pub fn sql_for(&self, dialect: Dialect) -> std::borrow::Cow<'static, str> {
        match dialect {
            Dialect::Sqlite => std::borrow::Cow::Borrowed(self.sql),
        }
    }
}

/// Every migration, oldest first. `MIGRATIONS[i].version == i + 1`.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        summary:
            "sessions, claims, classifications and their history, review progress, corrections, runs",
        sql: V1,
    },
    Migration {
        version: 2,
        summary: "findings imported from verify runs",
        sql: V2,
    },
    Migration {
        version: 3,
        summary: "a session's identity includes its content hash (sessions.declared_id)",
        sql: V3,
    },
];

/// The newest schema version this build reads and writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const V1: &str = r#"
CREATE TABLE sessions (
    session_id   TEXT PRIMARY KEY NOT NULL,
    path         TEXT NOT NULL,
    content_hash TEXT,
    first_seen   INTEGER NOT NULL,
    last_seen    INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_content_hash ON sessions (content_hash);

CREATE TABLE claims (
    session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    claim_id   TEXT NOT NULL,
    turn       INTEGER NOT NULL CHECK (turn >= 0),
    claim_text TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, claim_id, turn)
) STRICT;

CREATE TABLE classifications (
    session_id     TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    claim_id       TEXT NOT NULL,
    turn           INTEGER NOT NULL CHECK (turn >= 0),
    quadrant       TEXT NOT NULL CHECK (quadrant IN ('fact_right_source_right',
                       'fact_right_source_wrong', 'fact_wrong_source_right',
                       'fact_wrong_source_wrong')),
    fact_verdict   TEXT NOT NULL CHECK (fact_verdict IN ('right', 'wrong')),
    source_verdict TEXT NOT NULL CHECK (source_verdict IN ('right', 'wrong')),
    owner          TEXT NOT NULL,
    next_action    TEXT NOT NULL,
    note           TEXT NOT NULL DEFAULT '',
    reviewer       TEXT NOT NULL DEFAULT '',
    at             INTEGER NOT NULL,
    PRIMARY KEY (session_id, claim_id, turn)
) STRICT;
CREATE INDEX classifications_by_quadrant ON classifications (quadrant);

CREATE TABLE classification_history (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id     TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    claim_id       TEXT NOT NULL,
    turn           INTEGER NOT NULL,
    quadrant       TEXT NOT NULL,
    fact_verdict   TEXT NOT NULL,
    source_verdict TEXT NOT NULL,
    owner          TEXT NOT NULL,
    next_action    TEXT NOT NULL,
    note           TEXT NOT NULL,
    reviewer       TEXT NOT NULL,
    at             INTEGER NOT NULL
) STRICT;
CREATE INDEX classification_history_by_claim
    ON classification_history (session_id, claim_id, turn, id);
CREATE TRIGGER classification_history_no_update BEFORE UPDATE ON classification_history
BEGIN
    SELECT RAISE(ABORT, 'classification_history is append-only');
END;
CREATE TRIGGER classification_history_no_delete BEFORE DELETE ON classification_history
WHEN EXISTS (SELECT 1 FROM sessions WHERE session_id = OLD.session_id)
BEGIN
    SELECT RAISE(ABORT, 'classification_history is append-only');
END;

CREATE TABLE review (
    session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    claim_id   TEXT NOT NULL,
    turn       INTEGER NOT NULL CHECK (turn >= 0),
    reviewed   INTEGER NOT NULL CHECK (reviewed IN (0, 1)),
    at         INTEGER NOT NULL,
    PRIMARY KEY (session_id, claim_id, turn)
) STRICT;

CREATE TABLE review_cursor (
    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    claim_id   TEXT NOT NULL,
    turn       INTEGER NOT NULL CHECK (turn >= 0),
    at         INTEGER NOT NULL
) STRICT;

CREATE TABLE corrections (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    claim_id   TEXT NOT NULL,
    turn       INTEGER NOT NULL CHECK (turn >= 0),
    outcome    TEXT NOT NULL CHECK (outcome IN ('survived', 'corrected')),
    note       TEXT NOT NULL DEFAULT '',
    at         INTEGER NOT NULL
) STRICT;
CREATE INDEX corrections_by_claim ON corrections (session_id, claim_id, turn);

CREATE TABLE runs (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    at             INTEGER NOT NULL,
    inputs_hash    TEXT NOT NULL,
    metrics_json   TEXT NOT NULL CHECK (json_valid(metrics_json)),
    quadrants_json TEXT NOT NULL CHECK (json_valid(quadrants_json))
) STRICT;
CREATE INDEX runs_by_time ON runs (at, id);
"#;

const V2: &str = r#"
CREATE TABLE findings (
    session_id    TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL CHECK (seq >= 0),
    kind          TEXT NOT NULL,
    severity      TEXT NOT NULL CHECK (severity IN ('error', 'warning', 'info')),
    claim_id      TEXT,
    turn          INTEGER CHECK (turn >= 0),
    call_ids      TEXT NOT NULL CHECK (json_valid(call_ids)),
    message       TEXT NOT NULL,
    evidence_json TEXT NOT NULL CHECK (json_valid(evidence_json)),
    line          INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
) STRICT;
CREATE INDEX findings_by_kind ON findings (kind, severity);
CREATE INDEX findings_by_claim ON findings (session_id, claim_id, turn);
"#;

/// `sessions.session_id` becomes the store's key for one log's content: the declared id, or
/// `ID@sha256:<16 hex>` when another log with different content already holds the declared id.
const V3: &str = r#"
ALTER TABLE sessions ADD COLUMN declared_id TEXT NOT NULL DEFAULT '';
UPDATE sessions SET declared_id = session_id;
CREATE INDEX sessions_by_declared_id ON sessions (declared_id, content_hash);
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_consecutive() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, i as i64 + 1, "{}", m.summary);
        }
        assert_eq!(SCHEMA_VERSION, 3);
    }
}
