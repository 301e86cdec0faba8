//! The query flow every dialect shares: the rows under the cap, the column names when no row came, the
//! transaction a query runs in, and the client-side timeout.

use sqlx::pool::PoolConnection;
use sqlx::{AssertSqlSafe, Column, Executor, IntoArguments, Pool, SqlSafeStr, Statement};

use super::Bind;
use super::collect::{Collected, collect_rows};
use super::driver::Driver;
use super::error::DbError;
use super::rows::{QueryLimits, Rows};

/// Runs `sql` with `binds` on `conn` and reads at most the row cap; when no row came, the prepared statement still
/// knows its columns.
pub(crate) async fn fetch<DB>(
    conn: &mut DB::Connection,
    sql: &str,
    binds: &[Bind],
    limits: QueryLimits,
) -> Result<Collected, DbError>
where
    DB: Driver,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
{
    let map_err = |e: sqlx::Error| DB::map_error(e, limits);
    let query = DB::bind_all(sqlx::query(AssertSqlSafe(sql)), binds);
    let mut collected = collect_rows(conn.fetch(query), limits, DB::raw_len, DB::convert_row, map_err).await?;
    if collected.columns.is_empty()
        && let Ok(statement) = conn.prepare(AssertSqlSafe(sql).into_sql_str()).await
    {
        collected.columns = statement.columns().iter().map(|c| c.name().to_string()).collect();
    }
    Ok(collected)
}

/// Runs one query on a connection of `pool` in a transaction of its own: the `setup` statements (beginning the
/// transaction and limiting its time, in the dialect's order), the rows, then `ROLLBACK` (`COMMIT` when `read_only`
/// is false). Stopped at the timeout.
pub(crate) async fn in_transaction<DB>(
    pool: &Pool<DB>,
    setup: &[String],
    sql: &str,
    binds: &[Bind],
    limits: QueryLimits,
    read_only: bool,
) -> Result<Rows, DbError>
where
    DB: Driver,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
{
    let map_err = |e: sqlx::Error| DB::map_error(e, limits);
    let mut pooled = pool.acquire().await.map_err(map_err)?;
    let run = async {
        let conn: &mut DB::Connection = &mut pooled;
        for statement in setup {
            conn.execute(AssertSqlSafe(statement.as_str())).await.map_err(map_err)?;
        }
        let collected = match fetch(conn, sql, binds, limits).await {
            Ok(collected) => collected,
            // The rest of an oversized result is never read: the connection is closed (below), which ends the
            // statement and its transaction on the server.
            Err(error @ DbError::TooLarge { .. }) => return Err(error),
            Err(error) => {
                conn.execute("ROLLBACK").await.map_err(map_err)?;
                return Err(error);
            }
        };
        let end = if read_only { "ROLLBACK" } else { "COMMIT" };
        conn.execute(end).await.map_err(map_err)?;
        Ok::<_, DbError>(collected)
    };
    match tokio::time::timeout(limits.timeout, run).await {
        Err(_) => Err(timed_out(&mut pooled, limits)),
        Ok(Err(error @ DbError::TooLarge { .. })) => {
            pooled.close_on_drop();
            Err(error)
        }
        Ok(result) => result.map(Rows::from),
    }
}

/// The error of a query stopped at its timeout; its connection is closed instead of going back to the pool.
pub(crate) fn timed_out<DB: sqlx::Database>(conn: &mut PoolConnection<DB>, limits: QueryLimits) -> DbError {
    conn.close_on_drop();
    DbError::Timeout {
        after_ms: limits.timeout_ms(),
    }
}
