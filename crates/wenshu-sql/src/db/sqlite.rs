//! SQLite: pools by URL (read-only with `query_only`; scoped by an authorizer when asked), queries interrupted at
//! their deadline by a progress handler, every string or BLOB a query builds bounded by `SQLITE_LIMIT_LENGTH` (the
//! cap per value).

use std::str::FromStr;
use std::time::{Duration, Instant};

use serde_json::{Number, Value};
use sqlx::sqlite::{
    SqliteArguments, SqliteConnectOptions, SqlitePool, SqlitePoolOptions, SqliteQueryResult, SqliteRow,
};
use sqlx::{Decode, Sqlite};

use super::authorizer::{self, ReadScope};
use super::collect::convert_columns;
use super::convert::{float_to_json, hex};
use super::driver::{Driver, bind_values};
use super::error::{ByteCap, DbError};
use super::rows::{QueryLimits, Rows};
use super::run;
use super::url::{redact, scrub};
use super::{Bind, DbOptions, NullType};

/// How many SQLite VM steps pass between two looks at the deadline.
const PROGRESS_STEPS: i32 = 1000;

/// Opens a pool; a read-only one opens the file read-only and sets `PRAGMA query_only = ON`.
pub(crate) async fn connect(url: &str, options: &DbOptions) -> Result<SqlitePool, DbError> {
    let connect_error = |message: String| DbError::Connect {
        url: redact(url),
        message: scrub(&message, url),
    };
    let mut connect = SqliteConnectOptions::from_str(url)
        .map_err(|e| connect_error(e.to_string()))?
        .busy_timeout(Duration::from_secs(5));
    connect = if options.read_only {
        connect.read_only(true).pragma("query_only", "ON")
    } else {
        connect.create_if_missing(true)
    };
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    let pool = SqlitePoolOptions::new()
        .acquire_timeout(options.connect_timeout)
        .max_connections(if in_memory { 1 } else { options.max_connections.max(1) });
    let mut pool = if in_memory {
        pool.min_connections(1).idle_timeout(None).max_lifetime(None)
    } else {
        pool
    };
    if let Some(scope) = &options.scope {
        // One scope per pool, for the life of the program: the authorizer of every connection points to it.
        let scope: &'static ReadScope = Box::leak(Box::new(scope.clone()));
        pool = pool.after_connect(move |conn, _meta| {
            Box::pin(async move {
                authorizer::install(conn.lock_handle().await?.as_raw_handle(), scope);
                Ok(())
            })
        });
    }
    pool.connect_with(connect)
        .await
        .map_err(|e| connect_error(e.to_string()))
}

/// Runs one query under `limits`.
pub(crate) async fn query(pool: &SqlitePool, sql: &str, binds: &[Bind], limits: QueryLimits) -> Result<Rows, DbError> {
    let map_err = |e: sqlx::Error| Sqlite::map_error(e, limits);
    let mut conn = pool.acquire().await.map_err(map_err)?;
    let deadline = Instant::now() + limits.timeout;
    let previous_length = {
        let mut handle = conn.lock_handle().await.map_err(map_err)?;
        handle.set_progress_handler(PROGRESS_STEPS, move || Instant::now() < deadline);
        set_length_limit(handle.as_raw_handle(), length_limit(limits))
    };
    let run = run::fetch::<Sqlite>(&mut conn, sql, binds, limits);
    let result = tokio::time::timeout(limits.timeout, run).await;
    let Ok(result) = result else {
        return Err(run::timed_out(&mut conn, limits));
    };
    if let Ok(mut handle) = conn.lock_handle().await {
        handle.remove_progress_handler();
        set_length_limit(handle.as_raw_handle(), previous_length);
    }
    if matches!(result, Err(DbError::TooLarge { .. })) {
        // The statement is left unfinished: the connection is not handed to another query.
        conn.close_on_drop();
    }
    result.map(Rows::from).map_err(|e| match e {
        DbError::Query { .. } if Instant::now() >= deadline => DbError::Timeout {
            after_ms: limits.timeout_ms(),
        },
        other => other,
    })
}

/// The longest string or BLOB a statement may build or read: the cap per value (SQLite refuses longer ones with
/// SQLITE_TOOBIG before allocating them).
fn length_limit(limits: QueryLimits) -> i32 {
    i32::try_from(limits.bytes.cell).unwrap_or(i32::MAX).max(1)
}

/// Sets the connection's `SQLITE_LIMIT_LENGTH`; returns the limit it had.
fn set_length_limit(handle: std::ptr::NonNull<libsqlite3_sys::sqlite3>, limit: i32) -> i32 {
    // SAFETY: the handle is the live connection locked by the caller; sqlite3_limit only reads and sets an int.
    unsafe { libsqlite3_sys::sqlite3_limit(handle.as_ptr(), libsqlite3_sys::SQLITE_LIMIT_LENGTH, limit) }
}

/// A query being bound.
type SqliteQuery<'q> = sqlx::query::Query<'q, Sqlite, SqliteArguments>;

impl Driver for Sqlite {
    fn bind_all<'q>(query: SqliteQuery<'q>, binds: &[Bind]) -> SqliteQuery<'q> {
        bind_values(query, binds)
    }

    fn bind_null<'q>(query: SqliteQuery<'q>, _: NullType) -> SqliteQuery<'q> {
        // SQLite and MySQL take an untyped NULL.
        query.bind(None::<String>)
    }

    fn bind_number<'q>(query: SqliteQuery<'q>, number: &Number) -> SqliteQuery<'q> {
        match number.as_i64() {
            Some(i) => query.bind(i),
            None => query.bind(number.as_f64().unwrap_or(f64::NAN)),
        }
    }

    fn convert_row(row: &SqliteRow) -> Result<Vec<Value>, DbError> {
        convert_columns(row, |raw, name| match name {
            "INTEGER" | "BOOLEAN" => <i64 as Decode<Sqlite>>::decode(raw).map(Value::from),
            "REAL" | "NUMERIC" => <f64 as Decode<Sqlite>>::decode(raw).map(float_to_json),
            "BLOB" => <Vec<u8> as Decode<Sqlite>>::decode(raw).map(|b| Value::String(hex(&b))),
            _ => <String as Decode<Sqlite>>::decode(raw).map(Value::String),
        })
    }

    fn raw_len(_: &SqliteRow, _: usize) -> Option<usize> {
        // SQLITE_LIMIT_LENGTH (see `length_limit`) bounds every value the statement makes or reads.
        None
    }

    fn map_error(error: sqlx::Error, limits: QueryLimits) -> DbError {
        if let sqlx::Error::Database(db) = &error {
            let message = db.message().to_string();
            let code = db.code().unwrap_or_default();
            // SQLITE_READONLY (8) and its extended codes; `query_only` reports the same words.
            if code == "8" || code.parse::<u32>().is_ok_and(|c| c & 0xff == 8) || message.contains("readonly database")
            {
                return DbError::ReadOnly { message };
            }
            // SQLITE_TOOBIG (18): a string or BLOB longer than SQLITE_LIMIT_LENGTH, the cap per value.
            if code == "18" || message.contains("string or blob too big") {
                return DbError::TooLarge {
                    cap: ByteCap::Cell,
                    limit: limits.bytes.cell,
                };
            }
            // SQLITE_INTERRUPT (9): the progress handler stopped the statement at its deadline.
            if code == "9" || message == "interrupted" {
                return DbError::Timeout {
                    after_ms: limits.timeout_ms(),
                };
            }
            return DbError::Query { message };
        }
        DbError::Query {
            message: error.to_string(),
        }
    }

    fn rows_affected(result: &SqliteQueryResult) -> u64 {
        result.rows_affected()
    }
}
