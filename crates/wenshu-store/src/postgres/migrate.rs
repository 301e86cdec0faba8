//! Applies the PostgreSQL migrations once each, in one transaction under an advisory lock.

use sqlx::postgres::PgPool;

use crate::error::StoreError;
use crate::ids;
use crate::migrations::{self, POSTGRES, VERSION_TABLE};

/// The advisory lock key that serializes migrations across instances (`wenshu-st` as bytes).
const LOCK_KEY: i64 = 0x7765_6e73_6875_2d73;

/// Brings the schema up to date; instances starting at once take turns on the advisory lock.
pub(super) async fn run(pool: &PgPool) -> Result<(), StoreError> {
    let failed = |step: &str, error: sqlx::Error| StoreError::Migration {
        message: format!("{step}: {error}"),
    };
    let mut tx = pool.begin().await.map_err(|e| failed("begin", e))?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LOCK_KEY)
        .execute(&mut *tx)
        .await
        .map_err(|e| failed("take the migration lock", e))?;
    sqlx::raw_sql(VERSION_TABLE)
        .execute(&mut *tx)
        .await
        .map_err(|e| failed("create wenshu_schema_version", e))?;
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM wenshu_schema_version")
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| failed("read wenshu_schema_version", e))?;
    migrations::warn_if_newer(POSTGRES, &applied, "postgres");
    for migration in migrations::pending(POSTGRES, &applied) {
        sqlx::raw_sql(migration.sql)
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(migration.name, e))?;
        sqlx::query("INSERT INTO wenshu_schema_version (version, name, applied_at) VALUES ($1, $2, $3)")
            .bind(migration.version)
            .bind(migration.name)
            .bind(ids::now())
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(migration.name, e))?;
        tracing::info!(migration = migration.name, "applied PostgreSQL store migration");
    }
    tx.commit().await.map_err(|e| failed("commit", e))
}
