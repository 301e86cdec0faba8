//! The numbered SQL migrations of each backend, embedded from `migrations/<backend>/`.

/// One numbered migration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Migration {
    /// Its number; migrations apply in ascending order, each once.
    pub(crate) version: i64,
    /// Its file name, for the version table and messages.
    pub(crate) name: &'static str,
    /// The SQL script.
    pub(crate) sql: &'static str,
}

/// Builds one backend's migration list from the names below, with `sql` read from `migrations/<dir>/`.
macro_rules! migration_list {
    ($dir:literal) => {
        migration_list!($dir;
            1 "0001_init.sql",
            2 "0002_turn_subject.sql",
            3 "0003_owner_retention.sql",
            4 "0004_library_feedback.sql",
            5 "0005_audit.sql",
            6 "0006_packed_traces.sql",
        )
    };
    ($dir:literal; $($version:literal $name:literal,)*) => {
        &[$(Migration {
            version: $version,
            name: $name,
            sql: include_str!(concat!("../migrations/", $dir, "/", $name)),
        },)*]
    };
}

/// The SQLite migrations, oldest first.
pub(crate) const SQLITE: &[Migration] = migration_list!("sqlite");

/// The PostgreSQL migrations, oldest first.
pub(crate) const POSTGRES: &[Migration] = migration_list!("postgres");

/// The version table's definition (the same text works on both backends).
pub(crate) const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS wenshu_schema_version (\
     version BIGINT PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL)";

/// The migrations in `all` not yet in `applied`, oldest first.
pub(crate) fn pending<'m>(all: &'m [Migration], applied: &[i64]) -> impl Iterator<Item = &'m Migration> {
    all.iter()
        .filter(move |migration| !applied.contains(&migration.version))
}

/// Warns when the database holds migrations newer than this build knows.
pub(crate) fn warn_if_newer(all: &[Migration], applied: &[i64], backend: &str) {
    let known = all.iter().map(|migration| migration.version).max().unwrap_or(0);
    if let Some(newest) = applied.iter().copied().max().filter(|newest| *newest > known) {
        tracing::warn!(
            backend,
            newest,
            known,
            "the store's schema is newer than this build knows"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_ascend_and_match_names() {
        for list in [SQLITE, POSTGRES] {
            for (index, migration) in list.iter().enumerate() {
                let version = i64::try_from(index + 1).unwrap_or(i64::MAX);
                assert_eq!(migration.version, version);
                assert!(migration.name.starts_with(&format!("{version:04}_")));
            }
        }
        assert_eq!(pending(SQLITE, &[1]).count(), SQLITE.len() - 1);
        assert_eq!(
            pending(POSTGRES, &[1, 2]).map(|m| m.version).min(),
            POSTGRES.get(2).map(|m| m.version)
        );
        assert_eq!(pending(SQLITE, &[]).count(), SQLITE.len());
    }
}
