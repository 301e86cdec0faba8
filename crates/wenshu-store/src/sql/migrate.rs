//! Applies a backend's migrations once each, in one write transaction (under the backend's migration lock, where
//! it has one), so instances starting at once take turns.

use sqlx::{Decode, Encode, Executor, IntoArguments, Pool, Type};

use super::Backend;
use crate::error::StoreError;
use crate::ids;
use crate::migrations::{self, VERSION_TABLE};

/// Brings the schema up to date.
pub(super) async fn run<DB>(pool: &Pool<DB>) -> Result<(), StoreError>
where
    DB: Backend,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c str: Encode<'c, DB> + Type<DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
    for<'r> i64: Decode<'r, DB> + Encode<'r, DB> + Type<DB>,
{
    let failed = |step: &str, error: sqlx::Error| StoreError::Migration {
        message: format!("{step}: {error}"),
    };
    let mut tx = super::begin_write(pool).await.map_err(|e| failed("begin", e))?;
    if let Some(lock) = DB::SQL.migration_lock {
        sqlx::query(lock)
            .bind(DB::SQL.migration_lock_key)
            .execute(&mut *tx)
            .await
            .map_err(|e| failed("take the migration lock", e))?;
    }
    sqlx::raw_sql(VERSION_TABLE)
        .execute(&mut *tx)
        .await
        .map_err(|e| failed("create wenshu_schema_version", e))?;
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM wenshu_schema_version")
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| failed("read wenshu_schema_version", e))?;
    migrations::warn_if_newer(DB::MIGRATIONS, &applied, DB::BACKEND);
    for migration in migrations::pending(DB::MIGRATIONS, &applied) {
        sqlx::raw_sql(migration.sql)
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(migration.name, e))?;
        sqlx::query(DB::SQL.insert_schema_version)
            .bind(migration.version)
            .bind(migration.name)
            .bind(ids::now().as_str())
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(migration.name, e))?;
        tracing::info!(migration = migration.name, "applied {} store migration", DB::LABEL);
    }
    tx.commit().await.map_err(|e| failed("commit", e))
}
