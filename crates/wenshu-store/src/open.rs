//! Opening a store by URL.

use std::sync::Arc;

use crate::commit::GroupCommit;
use crate::error::StoreError;
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::store::Store;
use crate::url::{self, Backend};

/// Opens the store a URL names (`sqlite:PATH`, `sqlite://PATH`, `sqlite::memory:`, `postgres://…`) and migrates it;
/// group commit with its default window.
pub async fn open_store(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    open_store_with(url, GroupCommit::default()).await
}

/// Opens the store a URL names like [`open_store`], gathering asks' writes as `commit` says.
pub async fn open_store_with(url: &str, commit: GroupCommit) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match url::backend_of(url)? {
        Backend::Sqlite => Arc::new(SqliteStore::open_with(url, commit).await?),
        Backend::Postgres => Arc::new(PgStore::connect_with(url, commit).await?),
    })
}
