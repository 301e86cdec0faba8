//! Writes for making the demo, the same on every dialect: statements in one transaction, or a script.

use sqlx::{AssertSqlSafe, Executor, IntoArguments, Pool};

use super::driver::Driver;
use super::error::DbError;
use super::rows::QueryLimits;
use super::{WriteStatement, untyped};

/// Runs statements with binds in one transaction; returns the rows affected.
pub(crate) async fn execute_all<DB>(pool: &Pool<DB>, statements: &[WriteStatement]) -> Result<u64, DbError>
where
    DB: Driver,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
{
    let map_err = |e: sqlx::Error| DB::map_error(e, QueryLimits::default());
    let mut tx = pool.begin().await.map_err(map_err)?;
    let mut affected = 0;
    for statement in statements {
        let query = DB::bind_all(
            sqlx::query(AssertSqlSafe(statement.sql.as_str())),
            &untyped(&statement.binds),
        );
        affected += DB::rows_affected(&tx.execute(query).await.map_err(map_err)?);
    }
    tx.commit().await.map_err(map_err)?;
    Ok(affected)
}

/// Runs a script of statements without binds.
pub(crate) async fn execute_batch<DB>(pool: &Pool<DB>, sql: &str) -> Result<(), DbError>
where
    DB: Driver,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
{
    sqlx::raw_sql(AssertSqlSafe(sql))
        .execute(pool)
        .await
        .map(|_| ())
        .map_err(|e| DB::map_error(e, QueryLimits::default()))
}
