//! The PostgreSQL backend: connecting (URL, `PG*` environment, service file; TLS through
//! rustls), the schema version in `provscope_meta`, migrations under an advisory lock, and
//! write transactions that retry on a lost connection or a serialization failure.

use super::schema::{Dialect, Migration, APPLICATION_ID, SCHEMA_VERSION};
use super::sql::{Cell, DbError, Row, Val};
use super::StoreError;
use postgres::types::{ToSql, Type};
use postgres::{Client, Statement};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How many times a write transaction is tried when the connection is lost (or the server asks
/// for a retry) before it commits.
pub const WRITE_ATTEMPTS: u32 = 4;

/// True for `postgres://` and `postgresql://` URLs.
pub fn is_url(spec: &str) -> bool {
    spec.starts_with("postgres://") || spec.starts_with("postgresql://")
}

/// The URL with its password (in the user-info part or a `password=` parameter) replaced by
/// `***`: the only form in which a URL is ever printed.
pub fn redact(url: &str) -> String {
    let mut out = url.to_owned();
    if let Some(scheme_end) = out.find("://") {
        let rest_start = scheme_end + 3;
        let authority_end = out[rest_start..]
            .find(['/', '?'])
            .map_or(out.len(), |i| rest_start + i);
        if let Some(at) = out[rest_start..authority_end].rfind('@') {
            let userinfo = &out[rest_start..rest_start + at];
            if let Some(colon) = userinfo.find(':') {
                let start = rest_start + colon + 1;
                let end = rest_start + at;
                out.replace_range(start..end, "***");
            }
        }
    }
    // password=... in the query string.
    let mut result = String::with_capacity(out.len());
    let (base, query) = match out.find('?') {
        Some(i) => (&out[..i], Some(&out[i + 1..])),
        None => (out.as_str(), None),
    };
    result.push_str(base);
    if let Some(q) = query {
        result.push('?');
        let parts: Vec<String> = q
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                _ => kv.to_owned(),
            })
            .collect();
        result.push_str(&parts.join("&"));
    }
    result
}

/// A `name=value` pair list read from a libpq service file section.
fn service_section(name: &str) -> Option<Vec<(String, String)>> {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(f) = std::env::var_os("PGSERVICEFILE") {
        files.push(PathBuf::from(f));
    } else if let Some(home) = std::env::var_os("HOME") {
        files.push(Path::new(&home).join(".pg_service.conf"));
    }
    if let Some(d) = std::env::var_os("PGSYSCONFDIR") {
        files.push(Path::new(&d).join("pg_service.conf"));
    }
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let mut inside = false;
        let mut pairs = Vec::new();
        let mut found = false;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(sec) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                inside = sec.trim() == name;
                found |= inside;
                continue;
            }
            if inside {
                if let Some((k, v)) = line.split_once('=') {
                    pairs.push((k.trim().to_owned(), v.trim().to_owned()));
                }
            }
        }
        if found {
            return Some(pairs);
        }
    }
    None
}

/// Why the connection settings or TLS could not be set up (before any connection is tried).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The URL does not parse.
    #[error("the URL is not a valid PostgreSQL URL: {0}")]
    Url(postgres::Error),
    /// A port that is not a number (from a service file or `PGPORT`).
    #[error("invalid port `{0}`")]
    Port(String),
    /// An `sslmode` libpq does not define.
    #[error("unknown sslmode `{0}`")]
    SslMode(String),
    /// `service=NAME` with no such section.
    #[error("no service `{0}` in a service file")]
    NoService(String),
    /// `PGSSLROOTCERT` cannot be read.
    #[error("cannot read PGSSLROOTCERT {path}: {detail}")]
    RootCertFile {
        /// The file.
        path: String,
        /// Why.
        detail: String,
    },
    /// A certificate in `PGSSLROOTCERT` is unusable.
    #[error("bad certificate in PGSSLROOTCERT: {0}")]
    BadCertificate(String),
    /// rustls refused its configuration.
    #[error("TLS setup failed: {0}")]
    Tls(String),
}

/// Builds the connection settings: the URL first, then a service file section (`service=NAME`
/// in the URL, or `PGSERVICE`), then the `PG*` environment variables, for what is still unset.
pub fn config(url: &str) -> Result<postgres::Config, SetupError> {
    // `service` is libpq's, not the driver's: take it out of the query string.
    let (base, query) = match url.find('?') {
        Some(i) => (&url[..i], Some(&url[i + 1..])),
        None => (url, None),
    };
    let mut service = std::env::var("PGSERVICE").ok();
    let mut kept = Vec::new();
    for kv in query.into_iter().flat_map(|q| q.split('&')) {
        match kv.split_once('=') {
            Some(("service", v)) => service = Some(v.to_owned()),
            _ if kv.is_empty() => {}
            _ => kept.push(kv),
        }
    }
    let cleaned = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    let mut c: postgres::Config = cleaned.parse().map_err(SetupError::Url)?;
    let mut ssl_set = cleaned.contains("sslmode=");
    let mut set = |key: &str, value: &str, c: &mut postgres::Config| -> Result<(), SetupError> {
        match key {
            "host" if c.get_hosts().is_empty() => {
                c.host(value);
            }
            "port" if c.get_ports().is_empty() => {
                let p = value
                    .parse::<u16>()
                    .map_err(|_| SetupError::Port(value.to_owned()))?;
                c.port(p);
            }
            "dbname" if c.get_dbname().is_none() => {
                c.dbname(value);
            }
            "user" if c.get_user().is_none() => {
                c.user(value);
            }
            "password" if c.get_password().is_none() => {
                c.password(value);
            }
            "sslmode" => {
                let m = match value {
                    "disable" => postgres::config::SslMode::Disable,
                    "prefer" | "allow" => postgres::config::SslMode::Prefer,
                    "require" | "verify-ca" | "verify-full" => postgres::config::SslMode::Require,
                    other => return Err(SetupError::SslMode(other.to_owned())),
                };
                if !ssl_set {
                    c.ssl_mode(m);
                    ssl_set = true;
                }
            }
            _ => {}
        }
        Ok(())
    };
    if let Some(name) = service {
        let pairs = service_section(&name).ok_or_else(|| SetupError::NoService(name.clone()))?;
        for (k, v) in pairs {
            set(&k, &v, &mut c)?;
        }
    }
    for (var, key) in [
        ("PGHOST", "host"),
        ("PGPORT", "port"),
        ("PGDATABASE", "dbname"),
        ("PGUSER", "user"),
        ("PGPASSWORD", "password"),
        ("PGSSLMODE", "sslmode"),
    ] {
        if let Ok(v) = std::env::var(var) {
            set(key, &v, &mut c)?;
        }
    }
    if c.get_hosts().is_empty() {
        c.host("localhost");
    }
    if c.get_user().is_none() {
        if let Ok(u) = std::env::var("USER") {
            c.user(&u);
        }
    }
    if c.get_application_name().is_none() {
        c.application_name("provscope");
    }
    if c.get_connect_timeout().is_none() {
        c.connect_timeout(Duration::from_secs(10));
    }
    Ok(c)
}

/// rustls with the ring provider, Mozilla's roots, and the CA file in `PGSSLROOTCERT` if set.
fn tls() -> Result<tokio_postgres_rustls::MakeRustlsConnect, SetupError> {
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(f) = std::env::var_os("PGSSLROOTCERT") {
        use rustls::pki_types::pem::PemObject;
        let certs = rustls::pki_types::CertificateDer::pem_file_iter(&f).map_err(|e| {
            SetupError::RootCertFile {
                path: Path::new(&f).display().to_string(),
                detail: e.to_string(),
            }
        })?;
        for c in certs {
            let c = c.map_err(|e| SetupError::BadCertificate(e.to_string()))?;
            roots
                .add(c)
                .map_err(|e| SetupError::BadCertificate(e.to_string()))?;
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| SetupError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(cfg))
}

/// One PostgreSQL connection with its prepared statements.
pub struct Pg {
    client: Client,
    config: postgres::Config,
    tls: tokio_postgres_rustls::MakeRustlsConnect,
    statements: HashMap<String, Statement>,
    /// The redacted URL (for messages).
    pub name: PathBuf,
}

fn pg_err(name: &Path, e: postgres::Error) -> StoreError {
    StoreError::Postgres {
        path: name.to_path_buf(),
        source: e,
    }
}

impl Pg {
    /// Connects to the server named by `url` (credentials from the URL, a service file or the
    /// environment; never printed).
    pub fn connect(url: &str) -> Result<Pg, StoreError> {
        let name = PathBuf::from(redact(url));
        let invalid = |e: SetupError| StoreError::Invalid {
            path: name.clone(),
            message: e.to_string(),
        };
        let config = config(url).map_err(invalid)?;
        let tls = tls().map_err(invalid)?;
        let client = config.connect(tls.clone()).map_err(|e| pg_err(&name, e))?;
        Ok(Pg {
            client,
            config,
            tls,
            statements: HashMap::new(),
            name,
        })
    }

    fn reconnect(&mut self) -> Result<(), StoreError> {
        self.client = self
            .config
            .connect(self.tls.clone())
            .map_err(|e| pg_err(&self.name, e))?;
        self.statements.clear();
        Ok(())
    }

    /// `(schema version, application id)`; `(0, 0)` when the database has no provscope tables.
    fn header(tx: &mut postgres::Transaction<'_>) -> Result<(i64, i64, bool), postgres::Error> {
        let has_meta: bool = tx
            .query_one("SELECT to_regclass('provscope_meta') IS NOT NULL", &[])?
            .get(0);
        let has_tables: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM information_schema.tables
                 WHERE table_schema = current_schema())",
                &[],
            )?
            .get(0);
        if !has_meta {
            return Ok((0, 0, has_tables));
        }
        let mut v = 0;
        let mut a = 0;
        for r in tx.query("SELECT key, value FROM provscope_meta", &[])? {
            let k: String = r.get(0);
            let val: i64 = r.get(1);
            match k.as_str() {
                "schema_version" => v = val,
                "application_id" => a = val,
                _ => {}
            }
        }
        Ok((v, a, has_tables))
    }

    /// Applies pending migrations in one transaction, serialized across clients by an advisory
    /// lock; refuses a newer schema or a database of another application.
    pub fn migrate_with(&mut self, migrations: &[Migration]) -> Result<(), StoreError> {
        let name = self.name.clone();
        let supported = migrations.len() as i64;
        let mut tx = self.client.transaction().map_err(|e| pg_err(&name, e))?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&APPLICATION_ID])
            .map_err(|e| pg_err(&name, e))?;
        let (version, app_id, has_tables) = Self::header(&mut tx).map_err(|e| pg_err(&name, e))?;
        check(&name, version, app_id, supported, has_tables)?;
        for m in migrations.iter().filter(|m| m.version > version) {
            tx.batch_execute(&m.sql_for(Dialect::Postgres))
                .map_err(|e| StoreError::Invalid {
                    path: name.clone(),
                    message: format!(
                        "migration to schema version {} ({}) failed, nothing was changed: {}",
                        m.version,
                        m.summary,
                        pg_message(&e)
                    ),
                })?;
        }
        if version < supported || app_id != APPLICATION_ID {
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS provscope_meta (
                     key   TEXT PRIMARY KEY NOT NULL,
                     value BIGINT NOT NULL)",
            )
            .map_err(|e| pg_err(&name, e))?;
            for (k, v) in [
                ("schema_version", supported),
                ("application_id", APPLICATION_ID),
            ] {
                tx.execute(
                    "INSERT INTO provscope_meta (key, value) VALUES ($1, $2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    &[&k, &v],
                )
                .map_err(|e| pg_err(&name, e))?;
            }
        }
        tx.commit().map_err(|e| pg_err(&name, e))
    }

    /// The schema version, refusing (without changing anything) what this build cannot read.
    /// `None` when the database has no case store yet.
    pub fn check_readable(&mut self) -> Result<Option<i64>, StoreError> {
        let name = self.name.clone();
        let mut tx = self
            .client
            .build_transaction()
            .read_only(true)
            .start()
            .map_err(|e| pg_err(&name, e))?;
        let (version, app_id, has_tables) = Self::header(&mut tx).map_err(|e| pg_err(&name, e))?;
        check(&name, version, app_id, SCHEMA_VERSION, has_tables)?;
        if version == 0 {
            return Ok(None);
        }
        if version < SCHEMA_VERSION {
            return Err(StoreError::OlderSchema {
                path: name,
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        Ok(Some(version))
    }

    /// Runs `f` in a read-only transaction.
    pub fn read<T>(
        &mut self,
        f: impl FnOnce(&mut super::sql::Q<'_>) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        if self.client.is_closed() {
            self.reconnect()
                .map_err(|e| DbError::Decode(e.to_string()))?;
        }
        let mut tx = self
            .client
            .build_transaction()
            .read_only(true)
            .start()
            .map_err(DbError::Pg)?;
        let v = f(&mut super::sql::Q::Pg(PgQ {
            tx: &mut tx,
            statements: &mut self.statements,
        }))?;
        tx.commit().map_err(DbError::Pg)?;
        Ok(v)
    }

    /// Runs `f` in one write transaction. A lost connection or a serialization failure before
    /// the commit is retried on a new connection (up to [`WRITE_ATTEMPTS`] times: nothing of a
    /// failed attempt is kept); a connection lost *during* the commit fails loudly, as the
    /// server may or may not have committed.
    pub fn write<T>(
        &mut self,
        mut f: impl FnMut(&mut super::sql::Q<'_>) -> Result<T, DbError>,
    ) -> Result<T, StoreError> {
        let name = self.name.clone();
        let mut last: Option<postgres::Error> = None;
        for attempt in 0..WRITE_ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(50 << attempt));
            }
            if self.client.is_closed() {
                if let Err(e) = self.reconnect() {
                    if attempt + 1 == WRITE_ATTEMPTS {
                        return Err(e);
                    }
                    continue;
                }
            }
            let mut tx = match self.client.transaction() {
                Ok(t) => t,
                Err(e) if retryable(&e) => {
                    last = Some(e);
                    continue;
                }
                Err(e) => return Err(pg_err(&name, e)),
            };
            let r = f(&mut super::sql::Q::Pg(PgQ {
                tx: &mut tx,
                statements: &mut self.statements,
            }));
            match r {
                Ok(v) => match tx.commit() {
                    Ok(()) => return Ok(v),
                    Err(e) if e.is_closed() || e.code().is_none() => {
                        return Err(StoreError::Invalid {
                            path: name,
                            message: format!(
                                "the connection was lost while committing ({e}); the write may \
                                 or may not have been applied: check before repeating it"
                            ),
                        })
                    }
                    Err(e) if retryable(&e) => last = Some(e),
                    Err(e) => return Err(pg_err(&name, e)),
                },
                Err(DbError::Pg(e)) if retryable(&e) => {
                    drop(tx);
                    last = Some(e);
                }
                Err(DbError::Pg(e)) => return Err(pg_err(&name, e)),
                Err(DbError::Decode(message)) => {
                    return Err(StoreError::Invalid {
                        path: name,
                        message,
                    })
                }
                Err(DbError::Sqlite(e)) => {
                    return Err(StoreError::Sqlite {
                        path: name,
                        source: e,
                    })
                }
            }
        }
        Err(StoreError::Invalid {
            path: name,
            message: format!(
                "the write failed {WRITE_ATTEMPTS} times and was not applied{}",
                last.map(|e| format!(" (last error: {})", pg_message(&e)))
                    .unwrap_or_default()
            ),
        })
    }
}

/// A lost connection, a serialization failure or a deadlock: the transaction did not commit
/// and can be tried again.
fn retryable(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    if e.is_closed() {
        return true;
    }
    match e.code() {
        Some(c) => {
            *c == SqlState::T_R_SERIALIZATION_FAILURE
                || *c == SqlState::T_R_DEADLOCK_DETECTED
                || c.code().starts_with("08")
                || *c == SqlState::ADMIN_SHUTDOWN
        }
        // An I/O error talking to the server.
        None => e.to_string().contains("connection") || e.to_string().contains("io error"),
    }
}

/// The server's message for a database error, else the driver's.
pub fn pg_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => d.message().to_owned(),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}

fn check(
    name: &Path,
    version: i64,
    app_id: i64,
    supported: i64,
    has_tables: bool,
) -> Result<(), StoreError> {
    if app_id != 0 && app_id != APPLICATION_ID {
        return Err(StoreError::NotACaseStore {
            path: name.to_path_buf(),
            reason: format!("its provscope_meta names another application, id {app_id:#x}"),
        });
    }
    if version > supported {
        return Err(StoreError::NewerSchema {
            path: name.to_path_buf(),
            found: version,
            supported,
        });
    }
    if version == 0 && has_tables {
        return Err(StoreError::NotACaseStore {
            path: name.to_path_buf(),
            reason: "its schema has tables but no provscope_meta: use an empty database or \
                     schema for the case store"
                .into(),
        });
    }
    Ok(())
}

/// What the store needs of a PostgreSQL transaction (erases the transaction's lifetime).
pub trait TxLike {
    /// Prepares a statement.
    fn prepare(&mut self, sql: &str) -> Result<Statement, postgres::Error>;
    /// Executes a prepared statement.
    fn execute(
        &mut self,
        st: &Statement,
        p: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, postgres::Error>;
    /// Queries with a prepared statement.
    fn query(
        &mut self,
        st: &Statement,
        p: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>, postgres::Error>;
    /// Starts a `COPY … FROM STDIN`.
    fn copy_in(&mut self, sql: &str) -> Result<postgres::CopyInWriter<'_>, postgres::Error>;
}

impl TxLike for postgres::Transaction<'_> {
    fn prepare(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        postgres::Transaction::prepare(self, sql)
    }
    fn execute(
        &mut self,
        st: &Statement,
        p: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        postgres::Transaction::execute(self, st, p)
    }
    fn query(
        &mut self,
        st: &Statement,
        p: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>, postgres::Error> {
        postgres::Transaction::query(self, st, p)
    }
    fn copy_in(&mut self, sql: &str) -> Result<postgres::CopyInWriter<'_>, postgres::Error> {
        postgres::Transaction::copy_in(self, sql)
    }
}

/// Statements on a PostgreSQL transaction, prepared once per connection.
pub struct PgQ<'a> {
    tx: &'a mut (dyn TxLike + 'a),
    statements: &'a mut HashMap<String, Statement>,
}

fn params<'v>(vals: &'v [Val<'v>], ints: &'v [Option<i64>]) -> Vec<&'v (dyn ToSql + Sync)> {
    vals.iter()
        .zip(ints)
        .map(|(v, i)| -> &(dyn ToSql + Sync) {
            match v {
                Val::I(_) | Val::OI(_) => i,
                Val::T(s) => s,
                Val::OT(o) => o,
            }
        })
        .collect()
}

fn ints(vals: &[Val<'_>]) -> Vec<Option<i64>> {
    vals.iter()
        .map(|v| match v {
            Val::I(i) => Some(*i),
            Val::OI(o) => *o,
            _ => None,
        })
        .collect()
}

impl PgQ<'_> {
    fn statement(&mut self, sql: &str) -> Result<Statement, DbError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.tx.prepare(sql).map_err(DbError::Pg)?;
        self.statements.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    /// Runs a statement; returns the rows changed.
    pub fn exec(&mut self, sql: &str, vals: &[Val<'_>]) -> Result<u64, DbError> {
        let st = self.statement(sql)?;
        let is = ints(vals);
        self.tx
            .execute(&st, &params(vals, &is))
            .map_err(DbError::Pg)
    }

    /// Runs a query; returns every row.
    pub fn query(&mut self, sql: &str, vals: &[Val<'_>]) -> Result<Vec<Row>, DbError> {
        let st = self.statement(sql)?;
        let is = ints(vals);
        let rows = self
            .tx
            .query(&st, &params(vals, &is))
            .map_err(DbError::Pg)?;
        rows.iter().map(convert_row).collect()
    }

    /// Plain inserts through `COPY … FROM STDIN (FORMAT binary)`: the server's bulk path.
    /// `head` is `INSERT INTO table (columns)`. The rows are encoded here (BIGINT and TEXT
    /// fields need no type information) and sent in messages of about 256 KiB.
    fn copy_rows(
        &mut self,
        head: &str,
        kinds: &[super::sql::Col],
        rows: &[Vec<Val<'_>>],
    ) -> Result<u64, DbError> {
        use std::io::Write;
        const CHUNK: usize = 256 * 1024;
        let target = head
            .trim()
            .strip_prefix("INSERT INTO")
            .ok_or_else(|| DbError::Decode(format!("not an INSERT: {head}")))?;
        let fields = i16::try_from(kinds.len())
            .map_err(|_| DbError::Decode(format!("too many columns: {head}")))?;
        let mut sink = self
            .tx
            .copy_in(&format!("COPY {target} FROM STDIN (FORMAT binary)"))
            .map_err(DbError::Pg)?;
        let io = |e: std::io::Error| DbError::Decode(format!("COPY into {target} failed: {e}"));
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
        // Signature, flags, header extension length.
        buf.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
        buf.extend_from_slice(&0i32.to_be_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        for r in rows {
            buf.extend_from_slice(&fields.to_be_bytes());
            for (i, k) in kinds.iter().enumerate() {
                copy_field(&mut buf, *k, r.get(i)).map_err(DbError::Decode)?;
            }
            if buf.len() >= CHUNK {
                sink.write_all(&buf).map_err(io)?;
                buf.clear();
            }
        }
        buf.extend_from_slice(&(-1i16).to_be_bytes());
        sink.write_all(&buf).map_err(io)?;
        sink.finish().map_err(DbError::Pg)
    }

    /// Transaction-level advisory locks on every key, taken in sorted order.
    pub fn lock_many(&mut self, keys: &[&str]) -> Result<(), DbError> {
        let st = self.statement(
            "SELECT count(pg_advisory_xact_lock(hashtext(k)))
             FROM (SELECT unnest($1::text[]) AS k ORDER BY 1) AS t",
        )?;
        let keys: Vec<&str> = keys.to_vec();
        self.tx.query(&st, &[&keys]).map_err(DbError::Pg)?;
        Ok(())
    }

    /// `DELETE FROM table WHERE column = ANY($1)`.
    pub fn delete_in(
        &mut self,
        table: &str,
        column: &str,
        values: &[&str],
    ) -> Result<u64, DbError> {
        let st = self.statement(&format!(
            "DELETE FROM {table} WHERE {column} = ANY($1::text[])"
        ))?;
        let values: Vec<&str> = values.to_vec();
        self.tx.execute(&st, &[&values]).map_err(DbError::Pg)
    }

    /// Inserts many rows in one statement per chunk: each column travels as one array and
    /// `unnest` turns them back into rows.
    pub fn insert_many(
        &mut self,
        head: &str,
        kinds: &[super::sql::Col],
        tail: &str,
        rows: &[Vec<Val<'_>>],
    ) -> Result<u64, DbError> {
        use super::sql::Col;
        if tail.trim().is_empty() {
            return self.copy_rows(head, kinds, rows);
        }
        let casts: Vec<String> = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                format!(
                    "${}::{}",
                    i + 1,
                    match k {
                        Col::Int => "bigint[]",
                        Col::Text => "text[]",
                    }
                )
            })
            .collect();
        let sql = format!("{head} SELECT * FROM unnest({}) {tail}", casts.join(", "));
        let st = self.statement(&sql)?;
        let mut n = 0;
        for chunk in rows.chunks(20_000) {
            let mut int_cols: Vec<Vec<Option<i64>>> = Vec::new();
            let mut text_cols: Vec<Vec<Option<&str>>> = Vec::new();
            for (i, k) in kinds.iter().enumerate() {
                match k {
                    Col::Int => int_cols.push(
                        chunk
                            .iter()
                            .map(|r| match r.get(i) {
                                Some(Val::I(v)) => Some(*v),
                                Some(Val::OI(v)) => *v,
                                _ => None,
                            })
                            .collect(),
                    ),
                    Col::Text => text_cols.push(
                        chunk
                            .iter()
                            .map(|r| match r.get(i) {
                                Some(Val::T(s)) => Some(*s),
                                Some(Val::OT(s)) => *s,
                                _ => None,
                            })
                            .collect(),
                    ),
                }
            }
            let (mut ii, mut ti) = (0, 0);
            let mut ps: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(kinds.len());
            for k in kinds {
                match k {
                    Col::Int => {
                        ps.push(&int_cols[ii]);
                        ii += 1;
                    }
                    Col::Text => {
                        ps.push(&text_cols[ti]);
                        ti += 1;
                    }
                }
            }
            n += self.tx.execute(&st, &ps).map_err(DbError::Pg)?;
        }
        Ok(n)
    }
}

/// One field of a binary `COPY` row: its length and bytes (BIGINT big-endian, TEXT as UTF-8),
/// or length -1 for NULL (also for a value of the other kind).
fn copy_field(buf: &mut Vec<u8>, kind: super::sql::Col, v: Option<&Val<'_>>) -> Result<(), String> {
    use super::sql::Col;
    match (kind, v) {
        (Col::Int, Some(Val::I(n) | Val::OI(Some(n)))) => {
            buf.extend_from_slice(&8i32.to_be_bytes());
            buf.extend_from_slice(&n.to_be_bytes());
        }
        (Col::Text, Some(Val::T(t) | Val::OT(Some(t)))) => {
            let len = i32::try_from(t.len())
                .map_err(|_| format!("a text of {} bytes is too long for COPY", t.len()))?;
            buf.extend_from_slice(&len.to_be_bytes());
            buf.extend_from_slice(t.as_bytes());
        }
        _ => buf.extend_from_slice(&(-1i32).to_be_bytes()),
    }
    Ok(())
}

fn convert_row(r: &postgres::Row) -> Result<Row, DbError> {
    let mut cells = Vec::with_capacity(r.len());
    for (i, c) in r.columns().iter().enumerate() {
        let t = c.type_();
        let cell = if *t == Type::INT8 {
            r.try_get::<_, Option<i64>>(i).map(|v| v.map(Cell::I))
        } else if *t == Type::INT4 {
            r.try_get::<_, Option<i32>>(i)
                .map(|v| v.map(|x| Cell::I(i64::from(x))))
        } else if *t == Type::INT2 {
            r.try_get::<_, Option<i16>>(i)
                .map(|v| v.map(|x| Cell::I(i64::from(x))))
        } else if *t == Type::BOOL {
            r.try_get::<_, Option<bool>>(i)
                .map(|v| v.map(|x| Cell::I(i64::from(x))))
        } else {
            r.try_get::<_, Option<String>>(i).map(|v| v.map(Cell::T))
        }
        .map_err(DbError::Pg)?;
        cells.push(cell.unwrap_or(Cell::Null));
    }
    Ok(Row(cells))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://ana:s3cr%40t@db.example:5432/cases?sslmode=require"),
            "postgres://ana:***@db.example:5432/cases?sslmode=require"
        );
        assert_eq!(
            redact("postgresql://db/cases?user=ana&password=hunter2&sslmode=disable"),
            "postgresql://db/cases?user=ana&password=***&sslmode=disable"
        );
        assert_eq!(redact("postgres://ana@db/cases"), "postgres://ana@db/cases");
        assert_eq!(redact("postgres:///cases"), "postgres:///cases");
    }

    #[test]
    fn config_reads_url_then_environment() {
        let c = config("postgres://ana:pw@10.0.0.1:6543/cases?sslmode=disable").unwrap();
        assert_eq!(c.get_user(), Some("ana"));
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
        assert_eq!(c.get_ports(), &[6543]);
        assert_eq!(c.get_dbname(), Some("cases"));
        assert!(config("postgres://db/cases?service=none-such-service-xyz").is_err());
        assert!(config("postgres://db/cases?bogus=1").is_err());
    }
}
