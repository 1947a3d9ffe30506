//! One way to run the store's SQL on either backend.
//!
//! Every statement is written once, PostgreSQL style (`$1`, `$2`, …; standard SQL otherwise) and
//! run through a [`Q`]: a SQLite connection (the placeholders become `?1`, `?2`, …) or a
//! PostgreSQL client or transaction. Values go in as [`Val`] and come back as [`Row`]s of
//! integers, texts and NULLs, the only types the schema uses.

use std::borrow::Cow;

/// A parameter value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val<'a> {
    /// An integer (SQLite INTEGER, PostgreSQL BIGINT).
    I(i64),
    /// A text.
    T(&'a str),
    /// A text or NULL.
    OT(Option<&'a str>),
    /// An integer or NULL.
    OI(Option<i64>),
}

/// A column's type, for bulk inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Col {
    Int,
    Text,
}

impl From<i64> for Val<'_> {
    fn from(v: i64) -> Self {
        Val::I(v)
    }
}
impl From<u32> for Val<'_> {
    fn from(v: u32) -> Self {
        Val::I(i64::from(v))
    }
}
impl From<bool> for Val<'_> {
    fn from(v: bool) -> Self {
        Val::I(i64::from(v))
    }
}
impl<'a> From<&'a str> for Val<'a> {
    fn from(v: &'a str) -> Self {
        Val::T(v)
    }
}
impl<'a> From<&'a String> for Val<'a> {
    fn from(v: &'a String) -> Self {
        Val::T(v)
    }
}
impl<'a> From<Option<&'a str>> for Val<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Val::OT(v)
    }
}
impl<'a> From<&'a Option<String>> for Val<'a> {
    fn from(v: &'a Option<String>) -> Self {
        Val::OT(v.as_deref())
    }
}

/// Builds a `&[Val]` from expressions convertible into [`Val`].
macro_rules! vals {
    ($($v:expr),* $(,)?) => { &[$($crate::store::sql::Val::from($v)),*] };
}
pub(crate) use vals;

impl rusqlite::ToSql for Val<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Val::I(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Val::T(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Val::OT(Some(s)) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Val::OT(None) | Val::OI(None) => ToSqlOutput::Borrowed(ValueRef::Null),
            Val::OI(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
        })
    }
}

/// One value read back.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    Null,
    I(i64),
    T(String),
}

/// One row read back.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row(pub Vec<Cell>);

impl Row {
    fn cell(&self, i: usize) -> Result<&Cell, DbError> {
        self.0
            .get(i)
            .ok_or_else(|| DbError::Decode(format!("column {i} is missing")))
    }

    /// An integer column.
    pub fn i64(&self, i: usize) -> Result<i64, DbError> {
        match self.cell(i)? {
            Cell::I(v) => Ok(*v),
            other => Err(DbError::Decode(format!(
                "column {i} holds {other:?}, not an integer"
            ))),
        }
    }

    /// A non-negative integer column that fits in 32 bits (turns).
    pub fn u32(&self, i: usize) -> Result<u32, DbError> {
        let v = self.i64(i)?;
        u32::try_from(v).map_err(|_| DbError::Decode(format!("column {i} holds {v}, not a turn")))
    }

    /// A text column.
    pub fn text(&self, i: usize) -> Result<String, DbError> {
        match self.cell(i)? {
            Cell::T(v) => Ok(v.clone()),
            other => Err(DbError::Decode(format!(
                "column {i} holds {other:?}, not a text"
            ))),
        }
    }

    /// A text column that may be NULL.
    pub fn opt_text(&self, i: usize) -> Result<Option<String>, DbError> {
        match self.cell(i)? {
            Cell::Null => Ok(None),
            _ => self.text(i).map(Some),
        }
    }
}

/// What went wrong running a statement.
#[derive(Debug)]
pub(crate) enum DbError {
    Sqlite(rusqlite::Error),
    Pg(postgres::Error),
    Decode(String),
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Sqlite(e)
    }
}

/// The SQLite spelling of a statement: `$N` placeholders become `?N`.
pub(crate) fn sqlite_sql(sql: &str) -> Cow<'_, str> {
    if sql.contains('$') {
        Cow::Owned(sql.replace('$', "?"))
    } else {
        Cow::Borrowed(sql)
    }
}

/// A connection or transaction to run statements on.
pub(crate) enum Q<'a> {
    Sqlite(&'a rusqlite::Connection),
    Pg(super::pg::PgQ<'a>),
}

impl Q<'_> {
    /// Runs a statement; returns the rows changed.
    pub fn exec(&mut self, sql: &str, params: &[Val<'_>]) -> Result<u64, DbError> {
        match self {
            Q::Sqlite(c) => {
                let mut st = c.prepare_cached(&sqlite_sql(sql))?;
                Ok(st.execute(rusqlite::params_from_iter(params.iter()))? as u64)
            }
            Q::Pg(c) => c.exec(sql, params),
        }
    }

    /// Runs a query; returns every row.
    pub fn query(&mut self, sql: &str, params: &[Val<'_>]) -> Result<Vec<Row>, DbError> {
        match self {
            Q::Sqlite(c) => {
                let mut st = c.prepare_cached(&sqlite_sql(sql))?;
                let n = st.column_count();
                let mut rows = st.query(rusqlite::params_from_iter(params.iter()))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    let mut cells = Vec::with_capacity(n);
                    for i in 0..n {
                        use rusqlite::types::ValueRef;
                        cells.push(match r.get_ref(i)? {
                            ValueRef::Null => Cell::Null,
                            ValueRef::Integer(v) => Cell::I(v),
                            ValueRef::Text(t) => Cell::T(String::from_utf8_lossy(t).into_owned()),
                            ValueRef::Real(v) => Cell::T(v.to_string()),
                            ValueRef::Blob(b) => Cell::T(hex::encode(b)),
                        });
                    }
                    out.push(Row(cells));
                }
                Ok(out)
            }
            Q::Pg(c) => c.query(sql, params),
        }
    }

    /// Inserts many rows: `head` is `INSERT INTO t (a, b, …)`, `tail` what follows the values
    /// (an `ON CONFLICT` clause, or nothing). SQLite runs one prepared statement per row inside
    /// the transaction; PostgreSQL sends each column as one array.
    pub fn insert_many(
        &mut self,
        head: &str,
        kinds: &[Col],
        tail: &str,
        rows: &[Vec<Val<'_>>],
    ) -> Result<u64, DbError> {
        if rows.is_empty() {
            return Ok(0);
        }
        match self {
            Q::Sqlite(c) => {
                let marks: Vec<String> = (1..=kinds.len()).map(|i| format!("?{i}")).collect();
                let sql = format!("{head} VALUES ({}) {tail}", marks.join(", "));
                let mut st = c.prepare_cached(&sql)?;
                let mut n = 0;
                for r in rows {
                    n += st.execute(rusqlite::params_from_iter(r.iter()))? as u64;
                }
                Ok(n)
            }
            Q::Pg(c) => c.insert_many(head, kinds, tail, rows),
        }
    }

    /// True on PostgreSQL.
    pub fn is_pg(&self) -> bool {
        matches!(self, Q::Pg(_))
    }

    /// Serializes writers that decide by reading first (a session's identity): on PostgreSQL a
    /// transaction-level advisory lock on `key`; SQLite's writers are serialized already.
    pub fn lock(&mut self, key: &str) -> Result<(), DbError> {
        match self {
            Q::Sqlite(_) => Ok(()),
            Q::Pg(_) => {
                self.exec("SELECT pg_advisory_xact_lock(hashtext($1))", &[Val::T(key)])?;
                Ok(())
            }
        }
    }

    /// [`Q::lock`] for many keys at once, in sorted order (no deadlock between two batches).
    pub fn lock_many(&mut self, keys: &[&str]) -> Result<(), DbError> {
        match self {
            Q::Sqlite(_) => Ok(()),
            Q::Pg(c) => c.lock_many(keys),
        }
    }

    /// Runs `DELETE FROM table WHERE column IN (values)`; returns the rows deleted.
    pub fn delete_in(
        &mut self,
        table: &str,
        column: &str,
        values: &[&str],
    ) -> Result<u64, DbError> {
        match self {
            Q::Sqlite(c) => {
                let mut st =
                    c.prepare_cached(&format!("DELETE FROM {table} WHERE {column} = ?1"))?;
                let mut n = 0;
                for v in values {
                    n += st.execute([v])? as u64;
                }
                Ok(n)
            }
            Q::Pg(c) => c.delete_in(table, column, values),
        }
    }

    /// Runs a query; returns its first row, if any.
    pub fn first(&mut self, sql: &str, params: &[Val<'_>]) -> Result<Option<Row>, DbError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }
}
