//! Reading a row stream under a row cap (stop at the cap, note whether more rows existed) and byte caps (each
//! value's raw size checked before it is converted, each converted row counted; over a cap the stream is dropped
//! and the result refused), each row's columns as JSON.

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use serde_json::Value;
use sqlx::error::BoxDynError;
use sqlx::{Column, ColumnIndex, Database, Row, TypeInfo, ValueRef};

use super::bytes::ByteBudget;
use super::error::DbError;
use super::rows::{QueryLimits, Rows};

/// The rows read: column names (from the first row), the values, and whether more rows existed.
pub(crate) struct Collected {
    /// Column names, empty when no row came.
    pub columns: Vec<String>,
    /// The converted rows.
    pub rows: Vec<Vec<Value>>,
    /// Whether a row beyond the cap existed.
    pub truncated: bool,
}

/// Reads at most the row cap of `limits` from `stream` (and one more to learn whether the result is truncated),
/// converting each row with `convert` under the byte caps of `limits`: `raw_len` tells a value's raw size before
/// it is converted (where the driver knows it); a value or a result over its cap is [`DbError::TooLarge`], and the
/// rest of the stream is never read. Driver errors become [`DbError`] through `map_err`.
pub(crate) async fn collect_rows<R, L, C, M>(
    mut stream: BoxStream<'_, Result<R, sqlx::Error>>,
    limits: QueryLimits,
    raw_len: L,
    convert: C,
    map_err: M,
) -> Result<Collected, DbError>
where
    R: Row,
    L: Fn(&R, usize) -> Option<usize>,
    C: Fn(&R) -> Result<Vec<Value>, DbError>,
    M: Fn(sqlx::Error) -> DbError,
{
    let mut budget = ByteBudget::new(limits.bytes);
    let mut collected = Collected {
        columns: Vec::new(),
        rows: Vec::new(),
        truncated: false,
    };
    while let Some(row) = stream.next().await {
        let row = row.map_err(&map_err)?;
        if collected.rows.is_empty() && collected.columns.is_empty() {
            collected.columns = row.columns().iter().map(|c| c.name().to_string()).collect();
        }
        if collected.rows.len() >= limits.row_cap {
            collected.truncated = true;
            break;
        }
        (0..row.len()).try_for_each(|i| raw_len(&row, i).map_or(Ok(()), |len| budget.check_raw(len)))?;
        let converted = convert(&row)?;
        budget.add_row(&converted)?;
        collected.rows.push(converted);
    }
    Ok(collected)
}

/// A value that could not be read from a column.
pub(crate) fn decode_error(column: usize, type_name: &str, error: impl std::fmt::Display) -> DbError {
    DbError::Query {
        message: format!("cannot read column {} of type {type_name}: {error}", column + 1),
    }
}

impl From<Collected> for Rows {
    fn from(collected: Collected) -> Self {
        Self {
            columns: collected.columns,
            rows: collected.rows,
            truncated: collected.truncated,
        }
    }
}

/// Every column of `row` as JSON: NULL as null, else `convert` with the column's type name; a failure names the
/// column and its type.
pub(crate) fn convert_columns<R, C>(row: &R, convert: C) -> Result<Vec<Value>, DbError>
where
    R: Row,
    usize: ColumnIndex<R>,
    C: for<'r> Fn(<R::Database as Database>::ValueRef<'r>, &str) -> Result<Value, BoxDynError>,
{
    (0..row.len())
        .map(|i| {
            let raw = row.try_get_raw(i).map_err(|e| decode_error(i, "?", e))?;
            if raw.is_null() {
                return Ok(Value::Null);
            }
            let type_info = raw.type_info().into_owned();
            let name = type_info.name().to_string();
            convert(raw, &name).map_err(|e| decode_error(i, &name, e))
        })
        .collect()
}
