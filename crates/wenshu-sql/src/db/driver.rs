//! What each SQL dialect supplies to the shared query and write flows: binding, row conversion, error mapping.

use serde_json::{Number, Value};
use sqlx::query::Query;
use sqlx::{Encode, Type};

use super::error::DbError;
use super::rows::QueryLimits;
use super::{Bind, NullType};

/// One driver's own parts; the flows around them ([`super::run`], [`super::write`]) are written once.
pub(crate) trait Driver: sqlx::Database {
    /// Binds `binds` in order (null, bool, integer, float, string; arrays and objects as JSON text), through
    /// [`bind_values`].
    fn bind_all<'q>(query: Query<'q, Self, Self::Arguments>, binds: &[Bind]) -> Query<'q, Self, Self::Arguments>;

    /// Binds a NULL of the type `null_type`, or an untyped one where the driver takes that.
    fn bind_null<'q>(query: Query<'q, Self, Self::Arguments>, null_type: NullType) -> Query<'q, Self, Self::Arguments>;

    /// Binds a JSON number as the driver's integer or float.
    fn bind_number<'q>(query: Query<'q, Self, Self::Arguments>, number: &Number) -> Query<'q, Self, Self::Arguments>;

    /// Every column of a row as JSON, by its type.
    fn convert_row(row: &Self::Row) -> Result<Vec<Value>, DbError>;

    /// The raw size in bytes of column `index` of `row`, when the driver holds it as bytes (checked against the
    /// cap per value before the value is converted).
    fn raw_len(row: &Self::Row, index: usize) -> Option<usize>;

    /// A driver error as a [`DbError`]: a refused write, a statement stopped at its time limit, or a failure.
    fn map_error(error: sqlx::Error, limits: QueryLimits) -> DbError;

    /// How many rows a write statement changed.
    fn rows_affected(result: &Self::QueryResult) -> u64;
}

/// Binds `binds` in order: NULLs and numbers as `DB` takes them, bools and strings as they are, arrays and objects
/// as JSON text.
pub(crate) fn bind_values<'q, DB>(
    mut query: Query<'q, DB, DB::Arguments>,
    binds: &[Bind],
) -> Query<'q, DB, DB::Arguments>
where
    DB: Driver,
    for<'t> bool: Encode<'t, DB> + Type<DB>,
    for<'t> String: Encode<'t, DB> + Type<DB>,
{
    for bind in binds {
        query = match &bind.value {
            Value::Null => DB::bind_null(query, bind.null_type),
            Value::Bool(b) => query.bind(*b),
            Value::Number(n) => DB::bind_number(query, n),
            Value::String(s) => query.bind(s.clone()),
            other => query.bind(other.to_string()),
        };
    }
    query
}
