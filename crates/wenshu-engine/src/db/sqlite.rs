//! SQLite: pools by URL (read-only with `query_only`), queries interrupted at their deadline by a progress handler.

use std::str::FromStr;
use std::time::{Duration, Instant};

use serde_json::Value;
use sqlx::sqlite::{SqliteArguments, SqliteConnectOptions, SqlitePool, SqlitePoolOptions, SqliteRow};
use sqlx::{AssertSqlSafe, Column, Decode, Executor, Row, SqlSafeStr, Sqlite, Statement, TypeInfo, ValueRef};

use super::collect::{collect_rows, decode_error};
use super::convert::{float_to_json, hex};
use super::error::DbError;
use super::rows::{QueryLimits, Rows};
use super::url::{redact, scrub};
use super::{Bind, DbOptions, WriteStatement, untyped};

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
    let pool = if in_memory {
        pool.min_connections(1).idle_timeout(None).max_lifetime(None)
    } else {
        pool
    };
    pool.connect_with(connect)
        .await
        .map_err(|e| connect_error(e.to_string()))
}

/// Runs one query under `limits`.
pub(crate) async fn query(pool: &SqlitePool, sql: &str, binds: &[Bind], limits: QueryLimits) -> Result<Rows, DbError> {
    let map_err = |e: sqlx::Error| map_error(e, limits);
    let mut conn = pool.acquire().await.map_err(map_err)?;
    let deadline = Instant::now() + limits.timeout;
    conn.lock_handle()
        .await
        .map_err(map_err)?
        .set_progress_handler(PROGRESS_STEPS, move || Instant::now() < deadline);
    let run = async {
        let query = bind_all(sqlx::query(AssertSqlSafe(sql)), binds);
        let mut collected = collect_rows(conn.fetch(query), limits.row_cap, convert_row, map_err).await?;
        if collected.columns.is_empty() {
            // No row came: the prepared statement still knows its columns.
            if let Ok(statement) = conn.prepare(AssertSqlSafe(sql).into_sql_str()).await {
                collected.columns = statement.columns().iter().map(|c| c.name().to_string()).collect();
            }
        }
        Ok::<_, DbError>(collected)
    };
    let outcome = tokio::time::timeout(limits.timeout, run).await;
    match outcome {
        Err(_) => {
            conn.close_on_drop();
            Err(DbError::Timeout {
                after_ms: limits.timeout_ms(),
            })
        }
        Ok(result) => {
            if let Ok(mut handle) = conn.lock_handle().await {
                handle.remove_progress_handler();
            }
            let collected = result.map_err(|e| match e {
                DbError::Query { .. } if Instant::now() >= deadline => DbError::Timeout {
                    after_ms: limits.timeout_ms(),
                },
                other => other,
            })?;
            Ok(Rows {
                columns: collected.columns,
                rows: collected.rows,
                truncated: collected.truncated,
            })
        }
    }
}

/// Runs statements with binds in one transaction; returns the rows affected.
pub(crate) async fn execute_all(pool: &SqlitePool, statements: &[WriteStatement]) -> Result<u64, DbError> {
    let map_err = |e: sqlx::Error| map_error(e, QueryLimits::default());
    let mut tx = pool.begin().await.map_err(map_err)?;
    let mut affected = 0;
    for statement in statements {
        let query = bind_all(
            sqlx::query(AssertSqlSafe(statement.sql.as_str())),
            &untyped(&statement.binds),
        );
        affected += tx.execute(query).await.map_err(map_err)?.rows_affected();
    }
    tx.commit().await.map_err(map_err)?;
    Ok(affected)
}

/// Runs a script of statements without binds.
pub(crate) async fn execute_batch(pool: &SqlitePool, sql: &str) -> Result<(), DbError> {
    sqlx::raw_sql(AssertSqlSafe(sql))
        .execute(pool)
        .await
        .map(|_| ())
        .map_err(|e| map_error(e, QueryLimits::default()))
}

fn bind_all<'q>(
    mut query: sqlx::query::Query<'q, Sqlite, SqliteArguments>,
    binds: &[Bind],
) -> sqlx::query::Query<'q, Sqlite, SqliteArguments> {
    for bind in binds {
        query = match &bind.value {
            // SQLite and MySQL take an untyped NULL.
            Value::Null => query.bind(None::<String>),
            Value::Bool(b) => query.bind(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => query.bind(i),
                None => query.bind(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => query.bind(s.clone()),
            other => query.bind(other.to_string()),
        };
    }
    query
}

fn convert_row(row: &SqliteRow) -> Result<Vec<Value>, DbError> {
    (0..row.len())
        .map(|i| {
            let raw = row.try_get_raw(i).map_err(|e| decode_error(i, "?", e))?;
            if raw.is_null() {
                return Ok(Value::Null);
            }
            let type_info = raw.type_info().into_owned();
            let name = type_info.name();
            let value = match name {
                "INTEGER" | "BOOLEAN" => <i64 as Decode<Sqlite>>::decode(raw).map(Value::from),
                "REAL" | "NUMERIC" => <f64 as Decode<Sqlite>>::decode(raw).map(float_to_json),
                "BLOB" => <Vec<u8> as Decode<Sqlite>>::decode(raw).map(|b| Value::String(hex(&b))),
                _ => <String as Decode<Sqlite>>::decode(raw).map(Value::String),
            };
            value.map_err(|e| decode_error(i, name, e))
        })
        .collect()
}

fn map_error(error: sqlx::Error, limits: QueryLimits) -> DbError {
    if let sqlx::Error::Database(db) = &error {
        let message = db.message().to_string();
        let code = db.code().unwrap_or_default();
        // SQLITE_READONLY (8) and its extended codes; `query_only` reports the same words.
        if code == "8" || code.parse::<u32>().is_ok_and(|c| c & 0xff == 8) || message.contains("readonly database") {
            return DbError::ReadOnly { message };
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
