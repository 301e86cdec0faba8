//! A database of its own on a PostgreSQL or MySQL/MariaDB server (for the demo data, the tests' scratch data):
//! created unless it exists, and its URL beside the server's.

use serde_json::Value;

use super::{Database, DbError, Pool, QueryLimits};

/// Creates database `name` on the server of `admin_url` unless it exists, and gives its URL (the admin URL with
/// its path replaced). `name` is a plain identifier (ASCII letters, digits, `_`); SQLite has no server, so a
/// SQLite URL is refused.
pub async fn ensure_database(admin_url: &str, name: &str) -> Result<String, DbError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(DbError::Query {
            message: format!("database name `{name}`: only ASCII letters, digits and `_` are allowed"),
        });
    }
    let admin = Database::connect(admin_url).await?;
    let created = match &admin.pool {
        Pool::Postgres(_) => {
            let exists = admin
                .query(
                    "SELECT 1 FROM pg_database WHERE datname = $1",
                    &[Value::from(name)],
                    QueryLimits::default(),
                )
                .await;
            match exists {
                Ok(rows) if rows.rows.is_empty() => admin.execute_batch(&format!("CREATE DATABASE {name}")).await,
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            }
        }
        Pool::MySql(..) => {
            admin
                .execute_batch(&format!("CREATE DATABASE IF NOT EXISTS {name}"))
                .await
        }
        Pool::Sqlite(_) => Err(DbError::Query {
            message: "a SQLite URL names a file, not a server: there is no database to create".into(),
        }),
    };
    admin.close().await;
    created?;
    let base = admin_url.rsplit_once('/').map_or(admin_url, |(base, _)| base);
    Ok(format!("{base}/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_name_that_is_no_plain_identifier_is_refused_before_connecting() {
        for name in ["", "a;DROP DATABASE b", "x y", "数据"] {
            let error = ensure_database("postgres://nobody@127.0.0.1:1/x", name)
                .await
                .unwrap_err();
            assert!(error.to_string().contains("only ASCII letters"), "{name}: {error}");
        }
    }
}
