//! The store's one error type.

/// What can go wrong in the store; no message ever carries a database password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A conversation (or other record) the caller named does not exist.
    #[error("{what} `{id}` not found")]
    NotFound {
        /// What kind of record was looked for (`conversation`, …).
        what: String,
        /// The id that was looked for.
        id: String,
    },
    /// The database failed, refused a statement, or held data the store cannot read.
    #[error("database error: {message}")]
    Database {
        /// What went wrong, passwords removed.
        message: String,
    },
    /// Applying the schema migrations failed.
    #[error("migration failed: {message}")]
    Migration {
        /// What went wrong, passwords removed.
        message: String,
    },
    /// The store URL names no backend this crate knows, or cannot be parsed.
    #[error("invalid store URL `{value}`: expected one of {allowed}")]
    InvalidUrl {
        /// The URL given, its password hidden.
        value: String,
        /// The forms that are accepted, in words.
        allowed: String,
    },
}

impl StoreError {
    /// A [`StoreError::Database`] from a driver error, with `context` in front.
    pub(crate) fn database(context: &str, error: impl std::fmt::Display) -> Self {
        Self::Database {
            message: format!("{context}: {error}"),
        }
    }

    /// A [`StoreError::NotFound`] for a conversation id.
    pub(crate) fn conversation_not_found(id: &str) -> Self {
        Self::NotFound {
            what: "conversation".to_string(),
            id: id.to_string(),
        }
    }
}
