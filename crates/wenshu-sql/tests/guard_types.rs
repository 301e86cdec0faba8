//! The guard's data types, CTE scoping and recursion (issue #24): PostgreSQL's catalog lookup types are refused in
//! every spelling and position (checked against the server's own `pg_type` when `WENSHU_TEST_POSTGRES_URL` is
//! set); SQLite's CTE scoping is checked on SQLite itself; bounded `WITH RECURSIVE` and the analyst functions that
//! used to be refused are accepted, and their rewrites run on each server (`WENSHU_TEST_MYSQL_URL` for MySQL or
//! MariaDB); unbounded recursion stays refused with the bound it lacks.

use serde_json::Value;
use wenshu_sql::db::{Database, QueryLimits, ensure_database};
use wenshu_sql::guard::{Dialect, GuardPolicy, GuardVerdict, check_sql};

/// The database these tests make on each server.
const DB_NAME: &str = "wenshu_guard_types";
/// Every text of a secret row holds it.
const MARKER: &str = "S3CRET";

fn policy() -> GuardPolicy {
    GuardPolicy::new(&["sales"])
}

fn verdict(sql: &str, dialect: Dialect) -> GuardVerdict {
    check_sql(sql, dialect, &policy())
}

fn refused(sql: &str, dialect: Dialect) -> GuardVerdict {
    let verdict = verdict(sql, dialect);
    assert!(
        !verdict.allowed,
        "{sql} must be refused in {dialect:?}: {:?}",
        verdict.sql
    );
    verdict
}

fn accepted(sql: &str, dialect: Dialect) -> String {
    let verdict = verdict(sql, dialect);
    assert!(
        verdict.allowed,
        "{sql} must be accepted in {dialect:?}: {:?}",
        verdict.reasons
    );
    verdict.sql.unwrap()
}

fn holds_secret(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains(MARKER),
        Value::Array(items) => items.iter().any(holds_secret),
        Value::Object(map) => map.values().any(holds_secret),
        _ => false,
    }
}

#[test]
fn catalog_types_are_refused_in_every_spelling_and_position() {
    let pg = Dialect::Postgres;
    for sql in [
        "SELECT 'users'::regclass",
        "SELECT '{users}'::_regclass",
        "SELECT '{admin}'::_regrole",
        "SELECT '{public}'::_regnamespace",
        "SELECT '{now()}'::_regprocedure",
        "SELECT 'x'::aclitem",
        "SELECT '{}'::_aclitem",
        "SELECT 'users'::regclass[]",
        "SELECT 'users'::\"_regclass\"",
        "SELECT 'users'::\"regclass\"",
        "SELECT 'users'::pg_catalog._regclass",
        "SELECT 'users'::pg_catalog.\"regclass\"",
        "SELECT CAST('{int4}' AS _regtype)",
        "SELECT CAST('users' AS regclass[][])",
        "SELECT regclass 'users'",
        "SELECT _regclass '{users}'",
        "SELECT pg_catalog.regclass 'users'",
        "SELECT 1::oid",
        "SELECT '{1}'::_oid",
        "SELECT 1::OID",
        "SELECT regclass('users')",
        "SELECT a FROM jsonb_to_recordset('[{\"a\":\"users\"}]') AS t(a regclass)",
        "SELECT a FROM jsonb_to_recordset('[{\"a\":\"users\"}]') AS t(a _regclass)",
        "SELECT a FROM json_to_record('{\"a\":\"users\"}') AS t(a regclass)",
        "SELECT a FROM json_to_record('{\"a\":\"users\"}') AS t(a pg_catalog.regrole)",
        "SELECT id FROM sales WHERE id::regclass IS NOT NULL",
        "SELECT * FROM sales WHERE region IN (SELECT 'users'::regclass::text)",
    ] {
        let verdict = refused(sql, pg);
        assert!(
            verdict.reasons.iter().any(|r| r.contains("catalog lookup type")),
            "{sql}: {:?}",
            verdict.reasons
        );
    }
    // JSON_TABLE columns and CONVERT carry data types too.
    for (sql, dialect) in [
        (
            "SELECT a FROM JSON_TABLE('[{\"a\":\"users\"}]', '$[*]' COLUMNS (a regclass PATH '$.a')) AS t",
            Dialect::MySql,
        ),
        ("SELECT CONVERT('users', regclass)", Dialect::MySql),
    ] {
        refused(sql, dialect);
    }
    // Names that only start like one are not types: columns, functions and other casts still pass.
    accepted(
        "SELECT region, regexp_replace(region, 'a', 'b'), CAST(amount AS numeric) FROM sales",
        pg,
    );
    accepted("SELECT region::text, '{1,2}'::int[] FROM sales", pg);
}

/// Every `reg…`, `aclitem` and `oid` type the server has (scalar and array), in every spelling: refused.
#[tokio::test]
async fn postgres_catalog_types_of_pg_type_are_refused_in_every_spelling() {
    let Ok(url) = std::env::var("WENSHU_TEST_POSTGRES_URL") else {
        println!("skipped: set WENSHU_TEST_POSTGRES_URL to run");
        return;
    };
    let db = Database::connect(&url).await.unwrap();
    let rows = db
        .query(
            "SELECT typname::text FROM pg_type WHERE typname ~ '^_?(reg|aclitem$|oid$)' ORDER BY 1",
            &[],
            QueryLimits::default(),
        )
        .await
        .unwrap();
    db.close().await;
    let types: Vec<String> = rows
        .rows
        .iter()
        .filter_map(|row| row[0].as_str().map(str::to_string))
        .collect();
    assert!(types.len() >= 20 && types.iter().any(|t| t == "_regclass"), "{types:?}");
    let mut passed = Vec::new();
    for t in &types {
        let mut spellings = vec![
            format!("SELECT 'x'::{t}"),
            format!("SELECT 'x'::\"{t}\""),
            format!("SELECT 'x'::pg_catalog.{t}"),
            format!("SELECT 'x'::pg_catalog.\"{t}\""),
            format!("SELECT CAST('x' AS {t})"),
            format!("SELECT CAST('x' AS pg_catalog.{t})"),
            format!("SELECT {t} 'x'"),
            format!("SELECT \"{t}\" 'x'"),
            format!("SELECT pg_catalog.{t} 'x'"),
            format!("SELECT {t}('x')"),
            format!("SELECT a FROM jsonb_to_recordset('[{{\"a\":\"x\"}}]') AS r(a {t})"),
            format!("SELECT a FROM json_to_record('{{\"a\":\"x\"}}') AS r(a \"{t}\")"),
            format!("SELECT region FROM sales WHERE region::{t} IS NOT NULL"),
        ];
        if !t.starts_with('_') {
            spellings.push(format!("SELECT 'x'::{t}[]"));
            spellings.push(format!("SELECT CAST('x' AS {t}[])"));
            spellings.push(format!("SELECT 'x'::pg_catalog.{t}[]"));
        }
        for sql in spellings {
            let verdict = verdict(&sql, Dialect::Postgres);
            if verdict.allowed {
                passed.push(sql);
            }
        }
    }
    assert!(passed.is_empty(), "catalog lookup types passed the guard: {passed:#?}");
    println!("{} catalog lookup types refused in every spelling", types.len());
}

/// One statement of the SQLite scoping check: what the guard must say.
struct ScopeCase {
    sql: &'static str,
    allowed: bool,
}

/// Each statement runs on SQLite (an allowed table `sales`, a secret table `users`, the same columns) and through
/// the guard: what the guard accepts runs there and reads no secret; what SQLite refuses (a circular reference) or
/// answers with a secret row, the guard refuses; and where the guard resolves `users` as the table, SQLite reads
/// the table, where as a CTE, it does not.
#[tokio::test]
async fn sqlite_cte_scoping_agrees_with_sqlite() {
    let db = Database::connect("sqlite::memory:").await.unwrap();
    db.execute_batch(&format!(
        "CREATE TABLE sales (id INTEGER, amount INTEGER, region TEXT); INSERT INTO sales VALUES (1, 5, 'north'); \
         CREATE TABLE users (id INTEGER, amount INTEGER, region TEXT); INSERT INTO users VALUES (2, 7, '{MARKER}');"
    ))
    .await
    .unwrap();
    let cases = [
        // A CTE naming itself is recursion on SQLite (an error here), not the table it shadows.
        ScopeCase {
            sql: "WITH users AS (SELECT * FROM users) SELECT * FROM users",
            allowed: false,
        },
        ScopeCase {
            sql: "WITH sales AS (SELECT * FROM sales WHERE amount > 0) SELECT region, SUM(amount) FROM sales GROUP BY region",
            allowed: false,
        },
        ScopeCase {
            sql: "SELECT * FROM (WITH users AS (SELECT * FROM users) SELECT * FROM users) AS t",
            allowed: false,
        },
        // Forward references: a body sees the CTEs after it.
        ScopeCase {
            sql: "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM sales) SELECT * FROM a",
            allowed: true,
        },
        ScopeCase {
            sql: "WITH a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a",
            allowed: true,
        },
        // An inner WITH's later CTE shadows the outer one for the earlier body: here it reads the secret table.
        ScopeCase {
            sql: "WITH x AS (SELECT * FROM sales) SELECT * FROM (WITH y AS (SELECT * FROM x), x AS (SELECT * FROM users) SELECT * FROM y) AS t",
            allowed: false,
        },
        // An outer CTE named like the secret table is the CTE.
        ScopeCase {
            sql: "WITH users AS (SELECT * FROM sales) SELECT * FROM (WITH a AS (SELECT * FROM users) SELECT * FROM a) AS t",
            allowed: true,
        },
        ScopeCase {
            sql: "WITH a AS (SELECT * FROM sales) SELECT * FROM users",
            allowed: false,
        },
        // Mutual recursion is an error on SQLite.
        ScopeCase {
            sql: "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM a) SELECT * FROM a",
            allowed: false,
        },
        // Bounded recursion, with or without RECURSIVE.
        ScopeCase {
            sql: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r",
            allowed: true,
        },
        ScopeCase {
            sql: "WITH r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r",
            allowed: true,
        },
        ScopeCase {
            sql: "WITH r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r LIMIT 5",
            allowed: true,
        },
        // Runs on SQLite, but unbounded by the guard's rule (a join, no bound): refused.
        ScopeCase {
            sql: "WITH r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r, sales WHERE n < 5) SELECT n FROM r",
            allowed: false,
        },
        ScopeCase {
            sql: "WITH r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM (SELECT n FROM r LIMIT 5) AS t",
            allowed: true,
        },
    ];
    scoping_agrees(&db, Dialect::Sqlite, &cases).await;
    db.close().await;
}

/// The guard's view of each case agrees with the database's (see [`sqlite_cte_scoping_agrees_with_sqlite`]).
async fn scoping_agrees(db: &Database, dialect: Dialect, cases: &[ScopeCase]) {
    let mut problems = Vec::new();
    for case in cases {
        let verdict = verdict(case.sql, dialect);
        let on_sqlite = db.query(case.sql, &[], QueryLimits::default()).await;
        let read_secret = on_sqlite
            .as_ref()
            .is_ok_and(|rows| rows.rows.iter().flatten().any(holds_secret));
        if verdict.allowed != case.allowed {
            problems.push(format!(
                "{}: guard allowed={} {:?}",
                case.sql, verdict.allowed, verdict.reasons
            ));
        }
        if (on_sqlite.is_err() || read_secret) && verdict.allowed {
            problems.push(format!(
                "{}: the guard accepts what SQLite answers with {on_sqlite:?}",
                case.sql
            ));
        }
        if let Some(rewrite) = &verdict.sql {
            match db.query(rewrite, &[], QueryLimits::default()).await {
                Ok(rows) if rows.rows.iter().flatten().any(holds_secret) => {
                    problems.push(format!("{rewrite}: the rewrite read a secret"))
                }
                Ok(_) => {}
                Err(e) => problems.push(format!("{rewrite}: the rewrite fails on SQLite: {e}")),
            }
        }
        let users_as_table = verdict.resolved.iter().any(|r| r.name == "users" && r.kind == "table");
        let users_as_cte = verdict.resolved.iter().any(|r| r.name == "users" && r.kind == "cte");
        if on_sqlite.is_ok() && users_as_table != read_secret {
            problems.push(format!(
                "{}: the guard reads `users` as a table: {users_as_table}, SQLite read the table: {read_secret}",
                case.sql
            ));
        }
        if users_as_cte && !users_as_table && read_secret {
            problems.push(format!(
                "{}: the guard took `users` for the CTE, the database read the table",
                case.sql
            ));
        }
    }
    assert!(problems.is_empty(), "{dialect:?}: {problems:#?}");
}

/// The scoping cases on a server, in its own database: `sales` allowed, `users` secret.
async fn server_scoping(var: &str, dialect: Dialect, cases: &[ScopeCase]) {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return;
    };
    let name = "wenshu_guard_scope";
    ensure_database(&admin_url, name).await.unwrap();
    let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |(b, _)| b);
    let db = Database::connect(&format!("{base}/{name}")).await.unwrap();
    db.execute_batch(&format!(
        "DROP TABLE IF EXISTS sales; DROP TABLE IF EXISTS users; \
         CREATE TABLE sales (id INT, amount INT, region VARCHAR(50)); INSERT INTO sales VALUES (1, 5, 'north'); \
         CREATE TABLE users (id INT, amount INT, region VARCHAR(50)); INSERT INTO users VALUES (2, 7, '{MARKER}');"
    ))
    .await
    .unwrap();
    scoping_agrees(&db, dialect, cases).await;
    db.close().await;
}

/// PostgreSQL: without RECURSIVE a CTE body sees only earlier CTEs (a name of itself or a later one is the table);
/// with RECURSIVE it sees every CTE of the clause.
#[tokio::test]
async fn postgres_cte_scoping_agrees_with_postgres() {
    let cases = [
        ScopeCase {
            sql: "WITH users AS (SELECT * FROM users) SELECT * FROM users",
            allowed: false,
        },
        ScopeCase {
            sql: "WITH a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a",
            allowed: false,
        },
        ScopeCase {
            sql: "WITH RECURSIVE a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a",
            allowed: true,
        },
        ScopeCase {
            sql: "WITH sales AS (SELECT * FROM sales WHERE amount > 0) SELECT region FROM sales",
            allowed: true,
        },
        ScopeCase {
            sql: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r",
            allowed: true,
        },
    ];
    server_scoping("WENSHU_TEST_POSTGRES_URL", Dialect::Postgres, &cases).await;
}

/// MySQL and MariaDB: without RECURSIVE as PostgreSQL; with it a later CTE is a table to MySQL and the CTE to
/// MariaDB, so the guard refuses that name either way.
#[tokio::test]
async fn mysql_cte_scoping_agrees_with_the_server() {
    let cases = [
        ScopeCase {
            sql: "WITH users AS (SELECT * FROM users) SELECT * FROM users",
            allowed: false,
        },
        ScopeCase {
            sql: "WITH a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a",
            allowed: false,
        },
        ScopeCase {
            sql: "WITH RECURSIVE a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a",
            allowed: false,
        },
        ScopeCase {
            sql: "WITH sales AS (SELECT * FROM sales WHERE amount > 0) SELECT region FROM sales",
            allowed: true,
        },
        ScopeCase {
            sql: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r",
            allowed: true,
        },
    ];
    server_scoping("WENSHU_TEST_MYSQL_URL", Dialect::MySql, &cases).await;
}

#[test]
fn unbounded_recursion_is_refused_with_the_bound_it_lacks() {
    for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
        for (sql, lacks) in [
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
                "has no bound",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n <> 10) SELECT n FROM r",
                "has no bound",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < amount) SELECT n FROM r",
                "has no bound",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r LIMIT 5",
                "has no bound",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r ORDER BY n LIMIT 5",
                "has no bound",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r JOIN sales ON sales.id = r.n \
                 WHERE n < 10) SELECT n FROM r",
                "one FROM item",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r, sales WHERE n < 10) SELECT n FROM r",
                "one FROM item",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < (SELECT MAX(n) FROM r)) \
                 SELECT n FROM r",
                "one FROM item",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM (SELECT n FROM r) AS s WHERE n < 10) \
                 SELECT n FROM r",
                "one FROM item",
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT n FROM r) SELECT n FROM r",
                "anchor UNION",
            ),
            (
                "WITH RECURSIVE a(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM b WHERE n < 10), \
                 b(n) AS (SELECT n FROM a) SELECT n FROM a",
                "recurses through",
            ),
        ] {
            let verdict = refused(sql, dialect);
            // MySQL: a later CTE under RECURSIVE is refused as ambiguous before any recursion is seen.
            let ambiguous = dialect == Dialect::MySql && lacks == "recurses through";
            assert!(
                verdict.reasons.iter().any(|r| r.contains(lacks))
                    || (ambiguous && verdict.reasons.iter().any(|r| r.contains("MariaDB"))),
                "{dialect:?} {sql}: {:?}",
                verdict.reasons
            );
        }
    }
    // MySQL materializes a recursive CTE whole: a LIMIT outside does not bound it there.
    refused(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r LIMIT 5",
        Dialect::MySql,
    );
    // Without RECURSIVE, PostgreSQL and MySQL read the table of that name: refused by the allow list.
    for dialect in [Dialect::Postgres, Dialect::MySql] {
        let verdict = refused("WITH users AS (SELECT * FROM users) SELECT * FROM users", dialect);
        assert!(verdict.resolved.iter().any(|r| r.name == "users" && r.kind == "table"));
        accepted(
            "WITH sales AS (SELECT * FROM sales WHERE amount > 0) SELECT region FROM sales",
            dialect,
        );
    }
}

/// The statements an analyst writes that must be accepted, per dialect, with the rows each returns on the tables
/// these tests make (`None`: any number).
fn analyst_cases(dialect: Dialect) -> Vec<(&'static str, Option<usize>)> {
    match dialect {
        Dialect::Postgres => vec![
            (
                "SELECT region, GROUPING(region) AS total_row, SUM(amount) AS amount FROM sales GROUP BY ROLLUP(region)",
                Some(3),
            ),
            ("SELECT ARRAY(SELECT region FROM sales ORDER BY id) AS regions", Some(1)),
            (
                "SELECT jsonb_object_agg(region, amount) AS by_region FROM sales",
                Some(1),
            ),
            (
                "SELECT json_object_agg(region, amount) AS by_region FROM sales",
                Some(1),
            ),
            (
                "SELECT date_bin(INTERVAL '1 day', sold_at, TIMESTAMP '2024-01-01') AS bucket, COUNT(*) FROM sales \
                 GROUP BY 1",
                None,
            ),
            ("SELECT regexp_match(region, '^[a-z]+') AS m FROM sales", Some(2)),
            ("SELECT array_position(tags, 'b') AS at FROM sales", Some(2)),
            (
                "WITH RECURSIVE d(day) AS (SELECT DATE '2026-01-01' UNION ALL SELECT day + 1 FROM d \
                 WHERE day < DATE '2026-01-31') SELECT day FROM d",
                Some(31),
            ),
            (
                "WITH RECURSIVE d(day) AS (SELECT DATE '2026-01-01' UNION ALL SELECT (day + INTERVAL '1 day')::date \
                 FROM d WHERE day < DATE '2026-01-31') SELECT d.day, COUNT(s.id) FROM d LEFT JOIN sales s \
                 ON s.sold_at::date = d.day GROUP BY d.day ORDER BY d.day",
                Some(31),
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r LIMIT 10",
                Some(10),
            ),
        ],
        Dialect::MySql => vec![
            ("SELECT FIELD(region, 'south', 'north') AS pos FROM sales", Some(2)),
            ("SELECT JSON_OBJECTAGG(region, amount) AS by_region FROM sales", Some(1)),
            ("SELECT REGEXP_SUBSTR(region, '[a-z]+') AS word FROM sales", Some(2)),
            ("SELECT amount MOD 7 AS rest FROM sales", Some(2)),
            (
                "WITH RECURSIVE d(day) AS (SELECT DATE '2026-01-01' UNION ALL SELECT day + INTERVAL 1 DAY FROM d \
                 WHERE day < DATE '2026-01-31') SELECT day FROM d",
                Some(31),
            ),
            (
                "WITH RECURSIVE d(day) AS (SELECT CAST('2026-01-01' AS DATE) UNION ALL \
                 SELECT DATE_ADD(day, INTERVAL 1 DAY) FROM d WHERE day <= '2026-01-30') \
                 SELECT d.day, COUNT(s.id) AS n FROM d LEFT JOIN sales s ON DATE(s.sold_at) = d.day GROUP BY d.day",
                Some(31),
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT SUM(n) FROM r",
                Some(1),
            ),
        ],
        Dialect::Sqlite | Dialect::Custom(_) => vec![
            ("SELECT typeof(amount) AS t FROM sales", Some(2)),
            (
                "SELECT json_group_object(region, amount) AS by_region FROM sales",
                Some(1),
            ),
            (
                "WITH RECURSIVE d(day) AS (SELECT date('2026-01-01') UNION ALL SELECT date(day, '+1 day') FROM d \
                 WHERE day < '2026-01-31') SELECT day FROM d",
                Some(31),
            ),
            (
                "WITH d(day) AS (SELECT '2026-01-01' UNION ALL SELECT date(day, '+1 day') FROM d \
                 WHERE day < date('2026-01-31')) SELECT d.day, COUNT(s.id) FROM d LEFT JOIN sales s \
                 ON date(s.sold_at) = d.day GROUP BY d.day",
                Some(31),
            ),
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r LIMIT 10",
                Some(10),
            ),
        ],
    }
}

/// The tables of the analyst cases, per dialect: `sales` with two rows.
fn analyst_tables(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Postgres => {
            "DROP TABLE IF EXISTS sales; CREATE TABLE sales (id INT, region TEXT, amount NUMERIC(14,2), \
             sold_at TIMESTAMP, tags TEXT[]); INSERT INTO sales VALUES (1, 'north', 10, '2026-01-05 10:00:00', \
             ARRAY['a','b']), (2, 'south', 20, '2026-01-06 11:00:00', ARRAY['b'])"
        }
        Dialect::MySql => {
            "DROP TABLE IF EXISTS sales; CREATE TABLE sales (id INT, region VARCHAR(50), amount DECIMAL(14,2), \
             sold_at DATETIME); INSERT INTO sales VALUES (1, 'north', 10, '2026-01-05 10:00:00'), \
             (2, 'south', 20, '2026-01-06 11:00:00')"
        }
        Dialect::Sqlite | Dialect::Custom(_) => {
            "CREATE TABLE sales (id INTEGER, region TEXT, amount REAL, sold_at TEXT); INSERT INTO sales VALUES \
             (1, 'north', 10, '2026-01-05 10:00:00'), (2, 'south', 20, '2026-01-06 11:00:00')"
        }
    }
}

/// Every analyst case is accepted and its rewrite (`verdict.sql`) runs on `db`, with the rows it should have.
async fn analyst_rewrites_run(db: &Database, dialect: Dialect) {
    db.execute_batch(analyst_tables(dialect)).await.unwrap();
    let mut problems = Vec::new();
    for (sql, expected) in analyst_cases(dialect) {
        let verdict = verdict(sql, dialect);
        let Some(rewrite) = verdict.sql.filter(|_| verdict.allowed) else {
            problems.push(format!("{sql}: refused: {:?}", verdict.reasons));
            continue;
        };
        match db.query(&rewrite, &[], QueryLimits::default()).await {
            Ok(rows) if expected.is_some_and(|n| n != rows.rows.len()) => {
                problems.push(format!("{rewrite}: {} rows, expected {expected:?}", rows.rows.len()))
            }
            Ok(_) => {}
            Err(e) => problems.push(format!("{rewrite}: {e}")),
        }
    }
    assert!(problems.is_empty(), "{dialect:?}: {problems:#?}");
}

#[tokio::test]
async fn sqlite_analyst_rewrites_run() {
    let db = Database::connect("sqlite::memory:").await.unwrap();
    analyst_rewrites_run(&db, Dialect::Sqlite).await;
    db.close().await;
}

/// The server's own database for these tests, made afresh.
async fn server_db(var: &str) -> Option<Database> {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return None;
    };
    ensure_database(&admin_url, DB_NAME).await.unwrap();
    let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |(b, _)| b);
    Some(Database::connect(&format!("{base}/{DB_NAME}")).await.unwrap())
}

#[tokio::test]
async fn postgres_analyst_rewrites_run() {
    let Some(db) = server_db("WENSHU_TEST_POSTGRES_URL").await else {
        return;
    };
    analyst_rewrites_run(&db, Dialect::Postgres).await;
    db.close().await;
}

#[tokio::test]
async fn mysql_analyst_rewrites_run() {
    let Some(db) = server_db("WENSHU_TEST_MYSQL_URL").await else {
        return;
    };
    analyst_rewrites_run(&db, Dialect::MySql).await;
    db.close().await;
}
