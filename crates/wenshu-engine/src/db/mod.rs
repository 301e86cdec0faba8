//! Database access: connections by URL (SQLite, PostgreSQL, MySQL/MariaDB), read-only queries with a timeout and a row cap, rows as JSON.
