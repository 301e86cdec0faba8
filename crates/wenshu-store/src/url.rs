//! Store URLs: which backend a URL names, and the URL or a message with its password hidden.

use crate::error::StoreError;

/// The forms [`backend_of`] accepts, in words.
pub(crate) const ALLOWED: &str = "sqlite:PATH, sqlite://PATH, sqlite::memory:, postgres://…, postgresql://…";

/// The backend a store URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    /// SQLite, a file or memory.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// The backend `url` names, or [`StoreError::InvalidUrl`].
pub(crate) fn backend_of(url: &str) -> Result<Backend, StoreError> {
    let lower = url.trim().to_ascii_lowercase();
    if lower.starts_with("sqlite:") {
        Ok(Backend::Sqlite)
    } else if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        Ok(Backend::Postgres)
    } else {
        Err(invalid(url))
    }
}

/// A [`StoreError::InvalidUrl`] for `url`, its password hidden.
pub(crate) fn invalid(url: &str) -> StoreError {
    StoreError::InvalidUrl {
        value: redact(url),
        allowed: ALLOWED.to_string(),
    }
}

/// The password in `url`, from `user:password@` or a `password=` query parameter.
fn password(url: &str) -> Option<&str> {
    if let Some(start) = url.find("://").map(|at| at + 3) {
        let rest = &url[start..];
        let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
        if let Some(at) = authority.rfind('@')
            && let Some(colon) = authority[..at].find(':')
            && at > colon + 1
        {
            return Some(&authority[colon + 1..at]);
        }
    }
    let query = &url[url.find('?')? + 1..];
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("password="))
        .filter(|secret| !secret.is_empty())
}

/// `url` with its password replaced by `***`.
pub(crate) fn redact(url: &str) -> String {
    scrub(url, url)
}

/// `message` with every occurrence of `url`'s password replaced by `***`.
pub(crate) fn scrub(message: &str, url: &str) -> String {
    match password(url) {
        Some(secret) => message.replace(secret, "***"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_by_scheme() {
        assert_eq!(backend_of("sqlite::memory:"), Ok(Backend::Sqlite));
        assert_eq!(backend_of("sqlite://data/wenshu.db"), Ok(Backend::Sqlite));
        assert_eq!(backend_of("postgres://u@h/db"), Ok(Backend::Postgres));
        assert_eq!(backend_of("postgresql://u@h/db"), Ok(Backend::Postgres));
        assert!(matches!(
            backend_of("mysql://u:p@h/db"),
            Err(StoreError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn passwords_are_hidden() {
        assert_eq!(redact("postgres://u:s3cret@h:5432/db"), "postgres://u:***@h:5432/db");
        assert_eq!(
            redact("postgres://h/db?user=u&password=s3cret"),
            "postgres://h/db?user=u&password=***"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        let Err(StoreError::InvalidUrl { value, .. }) = backend_of("mysql://u:s3cret@h/db") else {
            panic!("mysql is not a store backend");
        };
        assert!(!value.contains("s3cret"));
        assert_eq!(
            scrub("login for u:s3cret failed", "postgres://u:s3cret@h/db"),
            "login for u:*** failed"
        );
    }
}
