//! The SQL guard against real PostgreSQL and MariaDB/MySQL servers with secret tables, when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set (see .ci/run): no statement of eval/sql.jsonl the
//! guard accepts returns a secret row when its rewrite runs (as the server's superuser, so the guard alone stands
//! between it and the secret), every accepted analytic case runs, and the least-privilege check names the secret
//! tables an account can read and none when it is a least-privilege one.

use serde_json::Value;
use wenshu_sql::db::{Database, DbOptions, Dialect, QueryLimits, ensure_database};
use wenshu_sql::guard::{GuardPolicy, check_sql};

/// The database made for these tests on each server.
const DB_NAME: &str = "wenshu_guard14";
/// Every text of a secret row holds it; a number of one equals [`SECRET_NUMBER`].
const MARKER: &str = "S3CRET";
const SECRET_NUMBER: i64 = 987_654_321;

/// The tables, as `name (columns)` in a portable form; `{text}`, `{num}`, `{ts}`, `{json}` are per dialect.
const ALLOWED: &[(&str, &str)] = &[
    (
        "sales",
        "id INT, region {text}, amount {num}, product_id INT, customer_id INT, seller_id INT, sold_at {ts}, name {text}",
    ),
    (
        "products",
        "id INT, name {text}, category {text}, price {num}, tags {array}, attrs {json}, email {text}",
    ),
    (
        "customers",
        "id INT, name {text}, email {text}, first_name {text}, last_name {text}",
    ),
    (
        "orders",
        "id INT, customer_id INT, total {num}, status {text}, created_at {ts}, shipped_at {ts}",
    ),
    (
        "order_items",
        "order_id INT, product_id INT, quantity INT, unit_price {num}",
    ),
    (
        "employees",
        "id INT, name {text}, salary {num}, department_id INT, manager_id INT, first_name {text}, last_name {text}",
    ),
    ("departments", "id INT, name {text}"),
    ("movies", "id INT, name {text}, year INT"),
    ("box_office", "movie_id INT, revenue {num}"),
    ("ratings", "movie_id INT, score {num}"),
];
const SECRETS: &[&str] = &["users", "secrets", "accounts"];

struct Server {
    dialect: Dialect,
    admin_url: String,
    url: String,
}

impl Server {
    fn from_env(var: &str, dialect: Dialect) -> Option<Self> {
        let Ok(admin_url) = std::env::var(var) else {
            println!("skipped: set {var} to run");
            return None;
        };
        let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |(b, _)| b);
        let url = format!("{base}/{DB_NAME}");
        Some(Self {
            dialect,
            admin_url,
            url,
        })
    }

    fn ty(&self, column: &str) -> String {
        let pg = self.dialect == Dialect::Postgres;
        column
            .replace("{text}", if pg { "TEXT" } else { "VARCHAR(200)" })
            .replace("{num}", if pg { "NUMERIC(14,2)" } else { "DECIMAL(14,2)" })
            .replace("{ts}", if pg { "TIMESTAMP" } else { "DATETIME" })
            .replace("{json}", if pg { "JSONB" } else { "JSON" })
            .replace("{array}", if pg { "TEXT[]" } else { "JSON" })
    }

    /// Makes the database afresh: the allowed tables with one ordinary row, the secret tables with marked rows,
    /// and a least-privilege account that can read only the allowed tables.
    async fn prepare(&self) {
        ensure_database(&self.admin_url, DB_NAME).await.unwrap();
        let admin = Database::connect(&self.admin_url).await.unwrap();
        match self.dialect {
            Dialect::Postgres => {
                admin
                    .execute_batch(
                        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'wenshu_guard_reader') \
                         THEN CREATE ROLE wenshu_guard_reader NOLOGIN; END IF; END $$",
                    )
                    .await
                    .unwrap();
            }
            _ => admin
                .execute_batch(
                    "CREATE USER IF NOT EXISTS 'wenshu_guard_ro'@'%' \
                     IDENTIFIED BY 'ro-pass'; CREATE USER IF NOT EXISTS 'wenshu_guard_ro'@'localhost' \
                     IDENTIFIED BY 'ro-pass'",
                )
                .await
                .unwrap(),
        }
        admin.close().await;
        let db = Database::connect(&self.url).await.unwrap();
        let mut script = String::new();
        for (table, columns) in ALLOWED {
            script.push_str(&format!(
                "DROP TABLE IF EXISTS {table}; CREATE TABLE {table} ({});",
                self.ty(columns)
            ));
        }
        for table in SECRETS {
            script.push_str(&format!(
                "DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (id INT, name {t}, password {t}, email {t}, \
                 balance {n}, region {t}, amount {n}); INSERT INTO {table} VALUES (1, '{MARKER}-name', \
                 '{MARKER}-password', '{MARKER}@example.com', {SECRET_NUMBER}, '{MARKER}-region', {SECRET_NUMBER});",
                t = self.ty("{text}"),
                n = self.ty("{num}")
            ));
        }
        script.push_str(
            "INSERT INTO sales VALUES (1, 'north', 10, 1, 1, 1, '2024-01-05 10:00:00', 'first');
             INSERT INTO customers VALUES (1, 'Ann', 'ann@example.com', 'Ann', 'Lee');
             INSERT INTO orders VALUES (1, 1, 120, 'paid', '2024-01-05 10:00:00', '2024-01-07 10:00:00');
             INSERT INTO order_items VALUES (1, 1, 2, 60);
             INSERT INTO employees VALUES (1, 'Bo', 5000, 1, NULL, 'Bo', 'Wu');
             INSERT INTO departments VALUES (1, 'ops');
             INSERT INTO movies VALUES (1, 'Film', 2021);
             INSERT INTO box_office VALUES (1, 3000);
             INSERT INTO ratings VALUES (1, 9);",
        );
        script.push_str(match self.dialect {
            Dialect::Postgres => {
                "INSERT INTO products VALUES (1, 'phone', 'tech', 99, ARRAY['a','b'], '{\"colors\": [\"red\"]}', 'p@x.io');
                 GRANT USAGE ON SCHEMA public TO wenshu_guard_reader;"
            }
            _ => "INSERT INTO products VALUES (1, 'phone', 'tech', 99, '[\"a\"]', '{\"colors\": [\"red\"]}', 'p@x.io');",
        });
        let tables: Vec<&str> = ALLOWED.iter().map(|(t, _)| *t).collect();
        match self.dialect {
            Dialect::Postgres => script.push_str(&format!(
                "GRANT SELECT ON {} TO wenshu_guard_reader;",
                tables.join(", ")
            )),
            _ => {
                for table in &tables {
                    for host in ["%", "localhost"] {
                        script.push_str(&format!(
                            "GRANT SELECT ON {DB_NAME}.{table} TO 'wenshu_guard_ro'@'{host}';"
                        ));
                    }
                }
            }
        }
        db.execute_batch(&script).await.unwrap();
        db.close().await;
    }

    fn least_privilege(&self) -> (String, DbOptions) {
        let read_only = DbOptions {
            read_only: true,
            ..DbOptions::default()
        };
        match self.dialect {
            Dialect::Postgres => (
                self.url.clone(),
                DbOptions {
                    role: Some("wenshu_guard_reader".into()),
                    ..read_only
                },
            ),
            _ => {
                let host = self.url.split_once('@').map_or("127.0.0.1:3306", |(_, h)| h);
                let host = host.split_once('/').map_or(host, |(h, _)| h);
                (format!("mysql://wenshu_guard_ro:ro-pass@{host}/{DB_NAME}"), read_only)
            }
        }
    }
}

fn allowed_tables() -> Vec<String> {
    ALLOWED.iter().map(|(t, _)| t.to_string()).collect()
}

fn holds_secret(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains(MARKER) || s.contains(&SECRET_NUMBER.to_string()),
        Value::Number(n) => n.as_f64().is_some_and(|f| f == SECRET_NUMBER as f64),
        Value::Array(items) => items.iter().any(holds_secret),
        Value::Object(map) => map.values().any(holds_secret),
        _ => false,
    }
}

/// Every case of eval/sql.jsonl in the server's dialect, plus the secret-reading forms of each hostile class.
async fn no_accepted_statement_returns_a_secret(server: &Server) {
    server.prepare().await;
    let db = Database::connect_read_only(&server.url).await.unwrap();
    let policy = GuardPolicy::new(&allowed_tables());
    let cases = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/sql.jsonl"));
    let mut ran = 0;
    let mut leaks = Vec::new();
    let mut failed_analytic = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        if Dialect::from_name(case["dialect"].as_str().unwrap()) != Some(server.dialect) {
            continue;
        }
        let sql = case["sql"].as_str().unwrap();
        let verdict = check_sql(sql, server.dialect, &policy);
        let Some(rewrite) = verdict.sql.filter(|_| verdict.allowed) else {
            continue;
        };
        match db.query(&rewrite, &[], QueryLimits::default()).await {
            Ok(rows) => {
                ran += 1;
                if rows.rows.iter().flatten().any(holds_secret) {
                    leaks.push(format!("{sql} → {rewrite}"));
                }
            }
            Err(e) if case["allowed"] == true => failed_analytic.push(format!("{sql} → {rewrite}: {e}")),
            Err(_) => {}
        }
    }
    assert!(leaks.is_empty(), "accepted statements returned secret rows: {leaks:#?}");
    assert!(
        failed_analytic.is_empty(),
        "accepted analytic cases failed on the server: {failed_analytic:#?}"
    );
    assert!(ran > 100, "only {ran} accepted statements ran");
    // The secrets are there: the same connection reads them when asked directly (so the check above means it).
    let direct = db
        .query("SELECT password FROM users", &[], QueryLimits::default())
        .await
        .unwrap();
    assert!(direct.rows.iter().flatten().any(holds_secret));
    db.close().await;
}

/// The check names the secret tables the superuser can read, and none for the least-privilege account, which
/// cannot read them.
async fn least_privilege_is_checked(server: &Server) {
    server.prepare().await;
    let allowed = allowed_tables();
    let admin = Database::connect_read_only(&server.url).await.unwrap();
    let beyond = admin.tables_beyond(&allowed).await.unwrap();
    let names_secret = |t: &String| SECRETS.iter().any(|s| t.ends_with(&format!(".{s}"))) || t == "*.*";
    assert!(beyond.iter().any(names_secret), "{beyond:?}");
    admin.close().await;
    let (url, options) = server.least_privilege();
    let reader = Database::connect_with(&url, &options).await.unwrap();
    let beyond = reader.tables_beyond(&allowed).await.unwrap();
    assert!(beyond.is_empty(), "{beyond:?}");
    let denied = reader
        .query("SELECT password FROM users", &[], QueryLimits::default())
        .await;
    assert!(denied.is_err(), "{denied:?}");
    let rows = reader
        .query("SELECT name FROM movies", &[], QueryLimits::default())
        .await
        .unwrap();
    assert_eq!(rows.rows.len(), 1);
    reader.close().await;
}

/// String literals mean on the server what they meant to the guard: the rewrite's text keeps every backslash.
async fn literals_survive_the_rewrite(server: &Server) {
    let sql = match server.dialect {
        Dialect::MySql => r"SELECT 'a\\b' AS v, 'x\_y' AS w, 'it''s' AS q",
        _ => r"SELECT 'a\b' AS v, E'x\\_y' AS w, 'it''s' AS q",
    };
    let verdict = check_sql(sql, server.dialect, &GuardPolicy::new(&allowed_tables()));
    let rewrite = verdict.sql.unwrap_or_else(|| panic!("{sql}: {:?}", verdict.reasons));
    let db = Database::connect_read_only(&server.url).await.unwrap();
    let rows = db.query(&rewrite, &[], QueryLimits::default()).await.unwrap();
    assert_eq!(
        rows.rows[0],
        [Value::from(r"a\b"), Value::from(r"x\_y"), Value::from("it's")],
        "{rewrite}"
    );
    db.close().await;
}

#[tokio::test]
async fn postgres_secret_rows_never_come_back_and_privileges_are_checked() {
    let Some(server) = Server::from_env("WENSHU_TEST_POSTGRES_URL", Dialect::Postgres) else {
        return;
    };
    no_accepted_statement_returns_a_secret(&server).await;
    least_privilege_is_checked(&server).await;
    literals_survive_the_rewrite(&server).await;
}

#[tokio::test]
async fn mysql_secret_rows_never_come_back_and_privileges_are_checked() {
    let Some(server) = Server::from_env("WENSHU_TEST_MYSQL_URL", Dialect::MySql) else {
        return;
    };
    no_accepted_statement_returns_a_secret(&server).await;
    least_privilege_is_checked(&server).await;
    literals_survive_the_rewrite(&server).await;
}
