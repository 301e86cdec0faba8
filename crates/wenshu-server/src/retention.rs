//! Retention: when the store has a retention (`store_retention_days`; `wenshu serve` defaults it to 180 days, 0
//! keeps everything), turns and traces older than that are purged once at start and then every hour; when the audit
//! log has one (`[audit] retention_days`, the same default), its entries older than that are purged on the same
//! schedule, by a task of their own (an audit entry outlives its turn when its retention is longer).

use std::sync::Arc;
use std::time::Duration;

use wenshu_store::Store;

/// How often the purge runs.
pub const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// Starts the periodic purge of turns older than `days` days on `store`; the task ends with the runtime.
pub fn spawn(store: Arc<dyn Store>, days: u32) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PURGE_EVERY);
        loop {
            every.tick().await;
            match store.purge_older_than(days).await {
                Ok(0) => {}
                Ok(turns) => tracing::info!(turns, days, "purged turns older than the retention"),
                Err(error) => tracing::warn!(%error, "the retention purge failed"),
            }
        }
    })
}

/// Starts the periodic purge of audit entries older than `days` days on `store`; the task ends with the runtime.
pub fn spawn_audit(store: Arc<dyn Store>, days: u32) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PURGE_EVERY);
        loop {
            every.tick().await;
            match store.purge_audit_older_than(days).await {
                Ok(0) => {}
                Ok(entries) => tracing::info!(entries, days, "purged audit entries older than the retention"),
                Err(error) => tracing::warn!(%error, "the audit purge failed"),
            }
        }
    })
}
