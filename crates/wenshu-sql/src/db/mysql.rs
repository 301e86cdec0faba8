//! MySQL and MariaDB: every query runs in its own transaction (`START TRANSACTION READ ONLY` on a read-only
//! connection) under the server's statement time limit (`max_execution_time` on MySQL, `max_statement_time` on
//! MariaDB), and is rolled back after.

use std::str::FromStr;

use serde_json::{Number, Value};
use sqlx::error::BoxDynError;
use sqlx::mysql::types::MySqlTime;
use sqlx::mysql::{
    MySqlArguments, MySqlConnectOptions, MySqlDatabaseError, MySqlPool, MySqlPoolOptions, MySqlQueryResult, MySqlRow,
    MySqlValueRef,
};
use sqlx::{Decode, Executor, MySql, Row, ValueRef};

use super::collect::convert_columns;
use super::convert::{decimal_text_to_json, float_to_json, hex, mysql_datetime_to_text};
use super::driver::{Driver, bind_values};
use super::error::DbError;
use super::rows::{QueryLimits, Rows};
use super::run;
use super::url::{driver_url, redact, scrub};
use super::{Bind, DbOptions, NullType};

/// How much longer than the client's timeout the server's own statement limit is, in milliseconds.
const SERVER_LIMIT_MARGIN_MS: u64 = 500;

/// Which server speaks the MySQL protocol: their statement time limits differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// Oracle MySQL: `max_execution_time` in milliseconds (SELECT only).
    MySql,
    /// MariaDB: `max_statement_time` in seconds.
    MariaDb,
}

/// Opens a pool and learns the server's flavor; a read-only pool sets `SESSION TRANSACTION READ ONLY` too.
pub(crate) async fn connect(url: &str, options: &DbOptions) -> Result<(MySqlPool, Flavor), DbError> {
    let connect_error = |message: String| DbError::Connect {
        url: redact(url),
        message: scrub(&message, url),
    };
    let connect = MySqlConnectOptions::from_str(&driver_url(url)).map_err(|e| connect_error(e.to_string()))?;
    let mut pool = MySqlPoolOptions::new()
        .acquire_timeout(options.connect_timeout)
        .max_connections(options.max_connections.max(1));
    if options.read_only {
        pool = pool.after_connect(|conn, _meta| {
            Box::pin(async move {
                conn.execute("SET SESSION TRANSACTION READ ONLY").await?;
                Ok(())
            })
        });
    }
    let pool = pool
        .connect_with(connect)
        .await
        .map_err(|e| connect_error(e.to_string()))?;
    let version: String = sqlx::query_scalar("SELECT VERSION()")
        .fetch_one(&pool)
        .await
        .map_err(|e| connect_error(e.to_string()))?;
    let flavor = if version.to_ascii_lowercase().contains("mariadb") {
        Flavor::MariaDb
    } else {
        Flavor::MySql
    };
    Ok((pool, flavor))
}

/// Runs one query under `limits` inside a transaction that is rolled back (committed when `read_only` is false).
pub(crate) async fn query(
    pool: &MySqlPool,
    flavor: Flavor,
    sql: &str,
    binds: &[Bind],
    limits: QueryLimits,
    read_only: bool,
) -> Result<Rows, DbError> {
    // The server's limit is a backstop a little past the client's: MySQL and MariaDB stop some statements
    // (SLEEP, BENCHMARK) without an error, which must not pass for a result.
    let server_ms = limits.timeout_ms().saturating_add(SERVER_LIMIT_MARGIN_MS);
    let time_limit = match flavor {
        Flavor::MySql => format!("SET SESSION max_execution_time = {server_ms}"),
        Flavor::MariaDb => format!("SET SESSION max_statement_time = {:.3}", server_ms as f64 / 1000.0),
    };
    let begin = if read_only {
        "START TRANSACTION READ ONLY"
    } else {
        "START TRANSACTION"
    };
    let setup = [time_limit, begin.to_string()];
    run::in_transaction(pool, &setup, sql, binds, limits, read_only).await
}

/// A query being bound.
type MySqlQuery<'q> = sqlx::query::Query<'q, MySql, MySqlArguments>;

impl Driver for MySql {
    fn bind_all<'q>(query: MySqlQuery<'q>, binds: &[Bind]) -> MySqlQuery<'q> {
        bind_values(query, binds)
    }

    fn bind_null<'q>(query: MySqlQuery<'q>, _: NullType) -> MySqlQuery<'q> {
        // SQLite and MySQL take an untyped NULL.
        query.bind(None::<String>)
    }

    fn bind_number<'q>(query: MySqlQuery<'q>, number: &Number) -> MySqlQuery<'q> {
        match (number.as_i64(), number.as_u64()) {
            (Some(i), _) => query.bind(i),
            (None, Some(u)) => query.bind(u),
            _ => query.bind(number.as_f64().unwrap_or(f64::NAN)),
        }
    }

    fn convert_row(row: &MySqlRow) -> Result<Vec<Value>, DbError> {
        convert_columns(row, convert_value)
    }

    fn raw_len(row: &MySqlRow, index: usize) -> Option<usize> {
        let raw = row.try_get_raw(index).ok()?;
        if raw.is_null() {
            return None;
        }
        <&[u8] as Decode<MySql>>::decode(raw).ok().map(<[u8]>::len)
    }

    fn map_error(error: sqlx::Error, limits: QueryLimits) -> DbError {
        if let sqlx::Error::Database(db) = &error {
            let message = db.message().to_string();
            let number = db
                .try_downcast_ref::<MySqlDatabaseError>()
                .map(MySqlDatabaseError::number);
            return match number {
                // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, ER_OPTION_PREVENTS_STATEMENT (read_only server)
                Some(1792) | Some(1290) => DbError::ReadOnly { message },
                // ER_QUERY_TIMEOUT (MySQL), ER_STATEMENT_TIMEOUT (MariaDB)
                Some(3024) | Some(1969) => DbError::Timeout {
                    after_ms: limits.timeout_ms(),
                },
                _ => DbError::Query { message },
            };
        }
        DbError::Query {
            message: error.to_string(),
        }
    }

    fn rows_affected(result: &MySqlQueryResult) -> u64 {
        result.rows_affected()
    }
}

/// Whether raw bytes are the text protocol's form (a value of a statement run without binds), not the binary
/// one: binary dates start with their length byte (0, 4, 7 or 11), text ones with a digit.
fn is_text(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(u8::is_ascii_digit)
}

fn convert_value(raw: MySqlValueRef<'_>, name: &str) -> Result<Value, BoxDynError> {
    Ok(match name {
        "BOOLEAN" => Value::Bool(<bool as Decode<MySql>>::decode(raw)?),
        "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "BIGINT" | "YEAR" => {
            Value::from(<i64 as Decode<MySql>>::decode(raw)?)
        }
        "TINYINT UNSIGNED" | "SMALLINT UNSIGNED" | "MEDIUMINT UNSIGNED" | "INT UNSIGNED" | "BIGINT UNSIGNED" => {
            Value::from(<u64 as Decode<MySql>>::decode(raw)?)
        }
        "FLOAT" | "DOUBLE" => float_to_json(<f64 as Decode<MySql>>::decode(raw)?),
        "DECIMAL" => decimal_text_to_json(<&str as Decode<MySql>>::decode(raw)?),
        "DATE" | "DATETIME" | "TIMESTAMP" => {
            let bytes = <&[u8] as Decode<MySql>>::decode(raw)?;
            if is_text(bytes) {
                Value::String(std::str::from_utf8(bytes)?.replacen(' ', "T", 1))
            } else {
                Value::String(mysql_datetime_to_text(bytes, name != "DATE")?)
            }
        }
        "TIME" => Value::String(<MySqlTime as Decode<MySql>>::decode(raw)?.to_string()),
        "JSON" => <Value as Decode<MySql>>::decode(raw)?,
        "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" | "BIT" | "GEOMETRY" => {
            Value::String(hex(<&[u8] as Decode<MySql>>::decode(raw)?))
        }
        _ => Value::String(<&str as Decode<MySql>>::decode(raw)?.to_string()),
    })
}
