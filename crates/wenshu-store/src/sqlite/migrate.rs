//! Applies the SQLite migrations once each, inside one `BEGIN IMMEDIATE` transaction.

use sqlx::sqlite::SqlitePool;

use crate::error::StoreError;
use crate::ids;
use crate::migrations::{self, SQLITE, VERSION_TABLE};

/// Brings the schema up to date; a second process opening the same file waits for the first.
pub(super) async fn run(pool: &SqlitePool) -> Result<(), StoreError> {
    let failed = |step: &str, error: sqlx::Error| StoreError::Migration {
        message: format!("{step}: {error}"),
    };
    let mut tx = pool
        .begin_with("BEGIN IMMEDIATE")
        .await
        .map_err(|e| failed("begin", e))?;
    sqlx::raw_sql(VERSION_TABLE)
        .execute(&mut *tx)
        .await
        .map_err(|e| failed("create wenshu_schema_version", e))?;
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM wenshu_schema_version")
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| failed("read wenshu_schema_version", e))?;
    migrations::warn_if_newer(SQLITE, &applied, "sqlite");
    for migration in migrations::pending(SQLITE, &applied) {
        sqlx::raw_sql(migration.sql)
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(migration.name, e))?;
        sqlx::query("INSERT INTO wenshu_schema_version (version, name, applied_at) VALUES (?, ?, ?)")
            .bind(migration.version)
            .bind(migration.name)
            .bind(ids::now())
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(migration.name, e))?;
        tracing::info!(migration = migration.name, "applied SQLite store migration");
    }
    tx.commit().await.map_err(|e| failed("commit", e))
}
