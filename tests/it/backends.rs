//! The case store's two backends for tests: a SQLite file in a temporary directory, and a fresh
//! database on the PostgreSQL server named by `PROVSCOPE_TEST_PG` (started by
//! `tests/support/pg.sh`, which `.ci/run` runs). Without that variable the PostgreSQL half of
//! each test says so loudly and is skipped, unless `PROVSCOPE_REQUIRE_INTEROP=1`, when it fails.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One store to test against.
pub enum Db {
    /// A SQLite file (its directory lives as long as the value).
    Sqlite {
        /// Deleted when the value is dropped.
        _dir: tempfile::TempDir,
        /// The database file.
        path: PathBuf,
    },
    /// A PostgreSQL database of its own.
    Pg(String),
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The server's URL, or `None` after a loud note (a failure under `PROVSCOPE_REQUIRE_INTEROP=1`).
pub fn pg_server(test: &str) -> Option<String> {
    match std::env::var("PROVSCOPE_TEST_PG") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            let msg = format!(
                "PostgreSQL half of `{test}` SKIPPED: PROVSCOPE_TEST_PG is not set \
                 (start a server with `eval \"$(bash tests/support/pg.sh start)\"`)"
            );
            if std::env::var("PROVSCOPE_REQUIRE_INTEROP").as_deref() == Ok("1") {
                panic!("{msg}; PROVSCOPE_REQUIRE_INTEROP=1 makes this a failure");
            }
            eprintln!("\n*** {msg} ***\n");
            None
        }
    }
}

/// `url` with its database name replaced by `name`.
pub fn with_dbname(url: &str, name: &str) -> String {
    let (base, query) = match url.find('?') {
        Some(i) => (&url[..i], &url[i..]),
        None => (url, ""),
    };
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let cut = base[after_scheme..]
        .find('/')
        .map_or(base.len(), |i| after_scheme + i);
    format!("{}/{name}{query}", &base[..cut])
}

/// A fresh, empty PostgreSQL database for `test`.
pub fn pg_db(test: &str) -> Option<String> {
    let server = pg_server(test)?;
    let name = format!(
        "t_{}_{}_{}",
        test.chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(30)
            .collect::<String>()
            .to_lowercase(),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = postgres::Client::connect(&server, postgres::NoTls)
        .unwrap_or_else(|e| panic!("PROVSCOPE_TEST_PG is set but the server is unreachable: {e}"));
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    Some(with_dbname(&server, &name))
}

/// SQLite, and PostgreSQL when a server is available.
pub fn backends(test: &str) -> Vec<Db> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cases.sqlite");
    let mut v = vec![Db::Sqlite { _dir: dir, path }];
    if let Some(url) = pg_db(test) {
        v.push(Db::Pg(url));
    }
    v
}

impl Db {
    /// What `--db` takes.
    pub fn arg(&self) -> String {
        match self {
            Db::Sqlite { path, .. } => path.display().to_string(),
            Db::Pg(u) => u.clone(),
        }
    }

    /// As a path, for `Store::open`.
    pub fn path(&self) -> PathBuf {
        PathBuf::from(self.arg())
    }

    /// Which backend, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Db::Sqlite { .. } => "sqlite",
            Db::Pg(_) => "postgres",
        }
    }

    /// Runs `sql` (with `$1` for `p`) through a plain client of the backend (not provscope):
    /// every value as text.
    pub fn strings(&self, sql: &str, p: &str) -> Vec<String> {
        match self {
            Db::Sqlite { path, .. } => {
                let conn = rusqlite::Connection::open(path).unwrap();
                let sql = sql.replace('$', "?");
                let mut st = conn.prepare(&sql).unwrap();
                let params: Vec<&str> = if st.parameter_count() == 0 {
                    vec![]
                } else {
                    vec![p]
                };
                st.query_map(rusqlite::params_from_iter(params), |r| {
                    r.get::<_, rusqlite::types::Value>(0)
                })
                .unwrap()
                .map(|v| match v.unwrap() {
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    rusqlite::types::Value::Text(t) => t,
                    other => format!("{other:?}"),
                })
                .collect()
            }
            Db::Pg(url) => {
                let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
                let sql = format!("SELECT x::text FROM ({sql}) AS q(x)");
                let rows = if sql.contains("$1") {
                    c.query(&sql, &[&p]).unwrap()
                } else {
                    c.query(&sql, &[]).unwrap()
                };
                rows.iter().map(|r| r.get::<_, String>(0)).collect()
            }
        }
    }

    /// A `count(*)`-like query's value.
    pub fn count(&self, sql: &str, p: &str) -> i64 {
        self.strings(sql, p)
            .first()
            .map_or(0, |s| s.parse().unwrap())
    }

    /// True when the table exists.
    pub fn has_table(&self, table: &str) -> bool {
        match self {
            Db::Sqlite { .. } => {
                self.count("SELECT count(*) FROM sqlite_schema WHERE name = $1", table) > 0
            }
            Db::Pg(_) => {
                self.count(
                    "SELECT count(*) FROM information_schema.tables
                     WHERE table_schema = current_schema() AND table_name = $1",
                    table,
                ) > 0
            }
        }
    }

    /// SQLite's `integrity_check` through a plain connection (which recovers a WAL); on
    /// PostgreSQL, provscope's own consistency check.
    pub fn integrity(&self) -> String {
        match self {
            Db::Sqlite { .. } => self.strings("PRAGMA integrity_check", "").join("\n"),
            Db::Pg(_) => provscope::store::Store::open(&self.path())
                .unwrap()
                .integrity_check()
                .unwrap(),
        }
    }
}
