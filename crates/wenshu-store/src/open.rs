//! Opening a store by URL.

use std::sync::Arc;

use crate::error::StoreError;
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::store::Store;
use crate::url::{self, Backend};

/// Opens the store a URL names (`sqlite:PATH`, `sqlite://PATH`, `sqlite::memory:`, `postgres://…`) and migrates it.
pub async fn open_store(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match url::backend_of(url)? {
        Backend::Sqlite => Arc::new(SqliteStore::open(url).await?),
        Backend::Postgres => Arc::new(PgStore::connect(url).await?),
    })
}
