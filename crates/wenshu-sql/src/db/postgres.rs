//! PostgreSQL: every query runs in its own transaction (read-only on a read-only connection) with a server-side
//! `statement_timeout` and `work_mem` (the result's byte cap), and is rolled back after.

use std::str::FromStr;

use serde_json::{Number, Value};
use sqlx::error::BoxDynError;
use sqlx::postgres::types::Oid;
use sqlx::postgres::{
    PgArguments, PgConnectOptions, PgPool, PgPoolOptions, PgQueryResult, PgRow, PgValueFormat, PgValueRef,
};
use sqlx::{Decode, Postgres, Row, TypeInfo, ValueRef};

use super::collect::convert_columns;
use super::convert::{
    decimal_text_to_json, float_to_json, hex, pg_date_to_text, pg_numeric_to_text, pg_time_to_text,
    pg_timestamp_to_text,
};
use super::driver::{Driver, bind_values};
use super::error::DbError;
use super::rows::{QueryLimits, Rows};
use super::run;
use super::url::{redact, scrub};
use super::{Bind, DbOptions, NullType};

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

/// Runs one query under `limits` inside a transaction that is rolled back (committed when `read_only` is false),
/// as `role` when one is given.
pub(crate) async fn query(
    pool: &PgPool,
    sql: &str,
    binds: &[Bind],
    limits: QueryLimits,
    read_only: bool,
    role: Option<&str>,
) -> Result<Rows, DbError> {
    let begin = if read_only { "BEGIN READ ONLY" } else { "BEGIN" };
    let mut setup = vec![
        begin.to_string(),
        format!("SET LOCAL statement_timeout = {}", limits.timeout_ms()),
        format!("SET LOCAL work_mem = '{}kB'", work_mem_kb(limits)),
    ];
    if read_only {
        // The server lexes string literals as the guard did: a backslash is a character, never an escape.
        setup.push("SET LOCAL standard_conforming_strings = on".to_string());
    }
    if let Some(role) = role {
        setup.push(format!("SET LOCAL ROLE \"{}\"", role.replace('"', "\"\"")));
    }
    run::in_transaction(pool, &setup, sql, binds, limits, read_only).await
}

/// The memory one sort or hash of a query may take before it spills to disk, in kB: the result's byte cap,
/// within PostgreSQL's bounds (64 kB to 2 GB).
fn work_mem_kb(limits: QueryLimits) -> usize {
    (limits.bytes.result / 1024).clamp(64, 2 * 1024 * 1024)
}

/// A query being bound.
type PgQuery<'q> = sqlx::query::Query<'q, Postgres, PgArguments>;

impl Driver for Postgres {
    fn bind_all<'q>(query: PgQuery<'q>, binds: &[Bind]) -> PgQuery<'q> {
        bind_values(query, binds)
    }

    fn bind_null<'q>(query: PgQuery<'q>, null_type: NullType) -> PgQuery<'q> {
        match null_type {
            NullType::Text => query.bind(None::<String>),
            NullType::Integer => query.bind(None::<i64>),
            NullType::Float => query.bind(None::<f64>),
            NullType::Bool => query.bind(None::<bool>),
        }
    }

    fn bind_number<'q>(query: PgQuery<'q>, number: &Number) -> PgQuery<'q> {
        match number.as_i64() {
            Some(i) => query.bind(i),
            None => query.bind(number.as_f64().unwrap_or(f64::NAN)),
        }
    }

    fn convert_row(row: &PgRow) -> Result<Vec<Value>, DbError> {
        convert_columns(row, |raw, _| convert_value(raw))
    }

    fn raw_len(row: &PgRow, index: usize) -> Option<usize> {
        let raw = row.try_get_raw(index).ok()?;
        raw.as_bytes().ok().map(<[u8]>::len)
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

    fn rows_affected(result: &PgQueryResult) -> u64 {
        result.rows_affected()
    }
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
