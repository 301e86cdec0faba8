//! Why a database call failed, without ever repeating a password from the URL.

/// A failed connect, query or write. Messages never hold the password of a URL (see [`super::url::redact`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DbError {
    /// The URL names a scheme wenshu does not speak.
    #[error("database URL `{value}` is not supported; allowed schemes: {allowed}")]
    UnsupportedScheme {
        /// The URL (redacted) or its scheme.
        value: String,
        /// The schemes wenshu accepts, in words.
        allowed: &'static str,
    },
    /// The database could not be reached or refused the connection.
    #[error("cannot connect to `{url}`: {message}")]
    Connect {
        /// The URL, redacted.
        url: String,
        /// What the driver said.
        message: String,
    },
    /// The statement failed on the server (or its result could not be read).
    #[error("query failed: {message}")]
    Query {
        /// What the driver said.
        message: String,
    },
    /// The statement ran longer than allowed and was stopped.
    #[error("query timed out after {after_ms} ms")]
    Timeout {
        /// The limit that was exceeded, in milliseconds.
        after_ms: u64,
    },
    /// The result was larger than a byte cap allows: the query was stopped there.
    #[error("the result was too large: {} (the cap is {limit} bytes, `{}`)", cap.what(), cap.key())]
    TooLarge {
        /// Which cap was passed.
        cap: ByteCap,
        /// The cap, in bytes.
        limit: usize,
    },
    /// A write was attempted through a read-only connection.
    #[error("read-only connection: {message}")]
    ReadOnly {
        /// What the driver said.
        message: String,
    },
}

/// Which byte cap a result passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ByteCap {
    /// One value was larger than the cap per value.
    Cell,
    /// All values together were larger than the cap per result.
    Result,
}

impl ByteCap {
    /// What was too large, in words.
    pub fn what(self) -> &'static str {
        match self {
            Self::Cell => "one value is larger than the cap per value",
            Self::Result => "its values together are larger than the cap per result",
        }
    }

    /// The `[limits]` key of `wenshu.toml` that sets this cap.
    pub fn key(self) -> &'static str {
        match self {
            Self::Cell => "max_cell_bytes",
            Self::Result => "max_result_bytes",
        }
    }
}
