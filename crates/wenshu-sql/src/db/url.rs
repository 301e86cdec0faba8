//! Database URLs: which dialect a URL names, and the URL with its password hidden for messages.

use super::error::DbError;
pub use crate::dialect::Dialect;

/// The schemes [`dialect_of`] accepts, in words.
pub const ALLOWED_SCHEMES: &str =
    "sqlite:PATH, sqlite://PATH, sqlite::memory:, postgres://, postgresql://, mysql://, mariadb://";

/// The dialect a database URL names.
pub fn dialect_of(url: &str) -> Result<Dialect, DbError> {
    let lower = url.trim().to_ascii_lowercase();
    if lower.starts_with("sqlite:") {
        Ok(Dialect::Sqlite)
    } else if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        Ok(Dialect::Postgres)
    } else if lower.starts_with("mysql://") || lower.starts_with("mariadb://") {
        Ok(Dialect::MySql)
    } else {
        Err(DbError::UnsupportedScheme {
            value: redact(url),
            allowed: ALLOWED_SCHEMES,
        })
    }
}

/// The URL as the driver reads it: `mariadb://` becomes `mysql://`.
pub(crate) fn driver_url(url: &str) -> String {
    let trimmed = url.trim();
    match trimmed.get(..10) {
        Some(head) if head.eq_ignore_ascii_case("mariadb://") => format!("mysql://{}", &trimmed[10..]),
        _ => trimmed.to_string(),
    }
}

/// The URL with the password of `user:pass@` and any `password=` query value replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return redact_query(url);
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let authority = match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            match userinfo.find(':') {
                Some(colon) => format!("{}:***{}", &userinfo[..colon], &authority[at..]),
                None => authority.to_string(),
            }
        }
        None => authority.to_string(),
    };
    redact_query(&format!("{}{authority}{}", &url[..scheme_end], &rest[authority_end..]))
}

/// The password itself, when the URL holds one (to scrub it from driver messages).
pub(crate) fn password_of(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let userinfo = &authority[..authority.rfind('@')?];
    let password = &userinfo[userinfo.find(':')? + 1..];
    (!password.is_empty()).then_some(password)
}

/// A driver message with every trace of the URL's password removed.
pub(crate) fn scrub(message: &str, url: &str) -> String {
    let message = match password_of(url) {
        Some(password) => message.replace(password, "***"),
        None => message.to_string(),
    };
    message.replace(url, &redact(url))
}

fn redact_query(url: &str) -> String {
    let Some(q) = url.find('?') else {
        return url.to_string();
    };
    let pairs: Vec<String> = url[q + 1..]
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{}?{}", &url[..q], pairs.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialects_by_scheme() {
        assert_eq!(dialect_of("sqlite::memory:").ok(), Some(Dialect::Sqlite));
        assert_eq!(dialect_of("sqlite:/tmp/x.db").ok(), Some(Dialect::Sqlite));
        assert_eq!(dialect_of("sqlite:///tmp/x.db").ok(), Some(Dialect::Sqlite));
        assert_eq!(dialect_of("postgres://u@h/db").ok(), Some(Dialect::Postgres));
        assert_eq!(dialect_of("postgresql://u@h/db").ok(), Some(Dialect::Postgres));
        assert_eq!(dialect_of("mysql://u@h/db").ok(), Some(Dialect::MySql));
        assert_eq!(dialect_of("MariaDB://u@h/db").ok(), Some(Dialect::MySql));
    }

    #[test]
    fn unsupported_scheme_names_value_and_allowed_without_password() {
        let err = dialect_of("oracle://scott:tiger@db/orcl").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("oracle://scott:***@db/orcl"), "{text}");
        assert!(text.contains("postgres://"), "{text}");
        assert!(!text.contains("tiger"), "{text}");
    }

    #[test]
    fn redacts_passwords() {
        assert_eq!(redact("postgres://u:secret@h:5432/db"), "postgres://u:***@h:5432/db");
        assert_eq!(redact("mysql://root@h/db"), "mysql://root@h/db");
        assert_eq!(
            redact("postgres://h/db?user=u&password=pw"),
            "postgres://h/db?user=u&password=***"
        );
        assert_eq!(redact("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(password_of("postgres://u:p%40ss@h/db"), Some("p%40ss"));
        assert_eq!(
            scrub("bad login for u:pw", "postgres://u:pw@h/db"),
            "bad login for u:***"
        );
    }

    #[test]
    fn mariadb_is_read_as_mysql() {
        assert_eq!(driver_url("mariadb://root@h/db"), "mysql://root@h/db");
        assert_eq!(driver_url("postgres://h/db"), "postgres://h/db");
    }
}
