//! PostgreSQL: every query runs in its own transaction (read-only on a read-only connection) with a server-side
//! `statement_timeout`, and is rolled back after.

use std::str::FromStr;

use serde_json::Value;
use sqlx::error::BoxDynError;
use sqlx::postgres::types::Oid;
use sqlx::postgres::{PgArguments, PgConnectOptions, PgPool, PgPoolOptions, PgRow, PgValueFormat, PgValueRef};
use sqlx::{AssertSqlSafe, Column, Decode, Executor, Postgres, Row, SqlSafeStr, Statement, TypeInfo, ValueRef};

use super::collect::{collect_rows, decode_error};
use super::convert::{
    decimal_text_to_json, float_to_json, hex, pg_date_to_text, pg_numeric_to_text, pg_time_to_text,
    pg_timestamp_to_text,
};
use super::error::DbError;
use super::rows::{QueryLimits, Rows};
use super::url::{redact, scrub};
use super::{Bind, DbOptions, NullType, WriteStatement, untyped};

/// Opens a pool; a read-only one also sets `default_transaction_read_only` for every session.
pub(crate) async fn connect(url: &str, options: &DbOptions) -> Result<PgPool, DbError> {
    let connect_error = |message: String| DbError::Connect {
        url: redact(url),
        message: scrub(&message, url),
    };
    let mut connect = PgConnectOptions::from_str(url).map_err(|e| connect_error(e.to_string()))?;
    if options.read_only {
        connect = connect.options([("default_transaction_read_only", "on")]);
    }
    PgPoolOptions::new()
        .acquire_timeout(options.connect_timeout)
        .max_connections(options.max_connections.max(1))
        .connect_with(connect)
        .await
        .map_err(|e| connect_error(e.to_string()))
}

/// Runs one query under `limits` inside a transaction that is rolled back (committed when `read_only` is false).
pub(crate) async fn query(
    pool: &PgPool,
    sql: &str,
    binds: &[Bind],
    limits: QueryLimits,
    read_only: bool,
) -> Result<Rows, DbError> {
    let map_err = |e: sqlx::Error| map_error(e, limits);
    let mut conn = pool.acquire().await.map_err(map_err)?;
    let run = async {
        let begin = if read_only { "BEGIN READ ONLY" } else { "BEGIN" };
        conn.execute(begin).await.map_err(map_err)?;
        let timeout = format!("SET LOCAL statement_timeout = {}", limits.timeout_ms());
        conn.execute(AssertSqlSafe(timeout)).await.map_err(map_err)?;
        let query = bind_all(sqlx::query(AssertSqlSafe(sql)), binds);
        let collected = collect_rows(conn.fetch(query), limits.row_cap, convert_row, map_err).await;
        let mut collected = match collected {
            Ok(collected) => collected,
            Err(error) => {
                conn.execute("ROLLBACK").await.map_err(map_err)?;
                return Err(error);
            }
        };
        if collected.columns.is_empty()
            && let Ok(statement) = conn.prepare(AssertSqlSafe(sql).into_sql_str()).await
        {
            collected.columns = statement.columns().iter().map(|c| c.name().to_string()).collect();
        }
        let end = if read_only { "ROLLBACK" } else { "COMMIT" };
        conn.execute(end).await.map_err(map_err)?;
        Ok::<_, DbError>(collected)
    };
    match tokio::time::timeout(limits.timeout, run).await {
        Err(_) => {
            conn.close_on_drop();
            Err(DbError::Timeout {
                after_ms: limits.timeout_ms(),
            })
        }
        Ok(result) => {
            let collected = result?;
            Ok(Rows {
                columns: collected.columns,
                rows: collected.rows,
                truncated: collected.truncated,
            })
        }
    }
}

/// Runs statements with binds in one transaction; returns the rows affected.
pub(crate) async fn execute_all(pool: &PgPool, statements: &[WriteStatement]) -> Result<u64, DbError> {
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
pub(crate) async fn execute_batch(pool: &PgPool, sql: &str) -> Result<(), DbError> {
    sqlx::raw_sql(AssertSqlSafe(sql))
        .execute(pool)
        .await
        .map(|_| ())
        .map_err(|e| map_error(e, QueryLimits::default()))
}

fn bind_all<'q>(
    mut query: sqlx::query::Query<'q, Postgres, PgArguments>,
    binds: &[Bind],
) -> sqlx::query::Query<'q, Postgres, PgArguments> {
    for bind in binds {
        query = match &bind.value {
            Value::Null => match bind.null_type {
                NullType::Text => query.bind(None::<String>),
                NullType::Integer => query.bind(None::<i64>),
                NullType::Float => query.bind(None::<f64>),
                NullType::Bool => query.bind(None::<bool>),
            },
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

fn convert_row(row: &PgRow) -> Result<Vec<Value>, DbError> {
    (0..row.len())
        .map(|i| {
            let raw = row.try_get_raw(i).map_err(|e| decode_error(i, "?", e))?;
            if raw.is_null() {
                return Ok(Value::Null);
            }
            let type_info = raw.type_info().into_owned();
            let name = type_info.name().to_string();
            convert_value(raw).map_err(|e| decode_error(i, &name, e))
        })
        .collect()
}

fn convert_value(raw: PgValueRef<'_>) -> Result<Value, BoxDynError> {
    let type_info = raw.type_info().into_owned();
    if raw.format() == PgValueFormat::Text {
        let text = raw.as_str()?;
        return Ok(match type_info.name() {
            "INT2" | "INT4" | "INT8" | "FLOAT4" | "FLOAT8" | "NUMERIC" | "OID" => decimal_text_to_json(text),
            "BOOL" => Value::Bool(text == "t"),
            _ => Value::String(text.to_string()),
        });
    }
    Ok(match type_info.name() {
        "BOOL" => Value::Bool(<bool as Decode<Postgres>>::decode(raw)?),
        "INT2" => Value::from(<i16 as Decode<Postgres>>::decode(raw)?),
        "INT4" => Value::from(<i32 as Decode<Postgres>>::decode(raw)?),
        "INT8" => Value::from(<i64 as Decode<Postgres>>::decode(raw)?),
        "OID" => Value::from(<Oid as Decode<Postgres>>::decode(raw)?.0),
        "FLOAT4" => float_to_json(f64::from(<f32 as Decode<Postgres>>::decode(raw)?)),
        "FLOAT8" => float_to_json(<f64 as Decode<Postgres>>::decode(raw)?),
        "NUMERIC" => decimal_text_to_json(&pg_numeric_to_text(raw.as_bytes()?)?),
        "DATE" => Value::String(pg_date_to_text(raw.as_bytes()?)?),
        "TIMESTAMP" => Value::String(pg_timestamp_to_text(raw.as_bytes()?, false)?),
        "TIMESTAMPTZ" => Value::String(pg_timestamp_to_text(raw.as_bytes()?, true)?),
        "TIME" => Value::String(pg_time_to_text(raw.as_bytes()?)?),
        "JSON" | "JSONB" => <Value as Decode<Postgres>>::decode(raw)?,
        "BYTEA" => Value::String(hex(raw.as_bytes()?)),
        "TEXT" | "VARCHAR" | "CHAR" | "NAME" | "CITEXT" | "UNKNOWN" | "XML" => {
            Value::String(<String as Decode<Postgres>>::decode(raw)?)
        }
        other => match std::str::from_utf8(raw.as_bytes()?) {
            Ok(text) if !text.contains('\0') => Value::String(text.to_string()),
            _ => Value::String(format!("({other} value)")),
        },
    })
}

fn map_error(error: sqlx::Error, limits: QueryLimits) -> DbError {
    if let sqlx::Error::Database(db) = &error {
        let message = db.message().to_string();
        return match db.code().as_deref() {
            // read_only_sql_transaction
            Some("25006") => DbError::ReadOnly { message },
            // query_canceled: statement_timeout fired
            Some("57014") => DbError::Timeout {
                after_ms: limits.timeout_ms(),
            },
            _ => DbError::Query { message },
        };
    }
    DbError::Query {
        message: error.to_string(),
    }
}
