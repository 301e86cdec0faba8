//! The SQL guard: every case of eval/sql.jsonl, and a generated corpus of attacks in each dialect.

use serde_json::Value;
use wenshu_sql::guard::{Dialect, GuardPolicy, check_sql};

const TABLES: [&str; 4] = ["sales", "movies", "box_office", "ratings"];
const DIALECTS: [Dialect; 3] = [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql];

fn policy() -> GuardPolicy {
    GuardPolicy::new(&TABLES)
}

#[test]
fn every_eval_sql_case() {
    let cases = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/sql.jsonl"));
    let mut failures = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let dialect = Dialect::from_name(case["dialect"].as_str().unwrap()).unwrap();
        let tables: Vec<&str> = case["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let verdict = check_sql(case["sql"].as_str().unwrap(), dialect, &GuardPolicy::new(&tables));
        if verdict.allowed != case["allowed"].as_bool().unwrap() {
            failures.push(format!("{}: {:?}", case["sql"], verdict.reasons));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn allowed_queries_get_a_limit_added_or_capped() {
    for dialect in DIALECTS {
        let v = check_sql(
            "SELECT region, SUM(amount) FROM sales GROUP BY region",
            dialect,
            &policy(),
        );
        assert!(v.allowed, "{dialect:?} {:?}", v.reasons);
        assert!(v.sql.as_deref().unwrap().ends_with("LIMIT 1000"), "{:?}", v.sql);
        let v = check_sql("SELECT name FROM movies LIMIT 5000", dialect, &policy());
        assert_eq!(
            (v.limit, v.sql.as_deref().unwrap().ends_with("LIMIT 1000")),
            (Some(1000), true)
        );
        let v = check_sql("SELECT name FROM movies LIMIT 5", dialect, &policy());
        assert_eq!(v.limit, Some(5));
    }
    let v = check_sql("SELECT name FROM movies LIMIT 10, 5000", Dialect::MySql, &policy());
    assert_eq!(v.limit, Some(1000));
    assert!(!check_sql("SELECT name FROM movies LIMIT (SELECT 5)", Dialect::Sqlite, &policy()).allowed);
}

#[test]
fn ctes_unions_and_subqueries_are_understood() {
    let v = check_sql(
        "WITH top AS (SELECT movie_id, SUM(revenue) r FROM box_office GROUP BY movie_id) \
         SELECT m.name FROM top JOIN movies m ON m.id = top.movie_id WHERE m.id IN (SELECT movie_id FROM ratings)",
        Dialect::Postgres,
        &policy(),
    );
    assert!(v.allowed, "{:?}", v.reasons);
    assert_eq!(v.tables, ["box_office", "movies", "ratings"]);
    let v = check_sql(
        "SELECT name FROM movies WHERE id IN (SELECT id FROM users)",
        Dialect::Sqlite,
        &policy(),
    );
    assert!(!v.allowed && v.reasons[0].contains("users"));
    let v = check_sql("SELECT * FROM (SELECT * FROM secrets) s", Dialect::Sqlite, &policy());
    assert!(!v.allowed);
}

/// Writes, DDL, multi-statements and comment-hiding tricks, each in every dialect that parses it.
#[test]
fn a_generated_corpus_of_attacks_is_refused() {
    let writes = [
        "DELETE FROM sales",
        "DELETE FROM sales WHERE 1=1",
        "UPDATE ratings SET score = 10",
        "INSERT INTO sales VALUES (1)",
        "INSERT INTO sales SELECT * FROM sales",
        "REPLACE INTO sales VALUES (1)",
        "DROP TABLE movies",
        "DROP VIEW v",
        "CREATE TABLE x (a INT)",
        "CREATE TABLE x AS SELECT * FROM sales",
        "ALTER TABLE sales ADD COLUMN x INT",
        "TRUNCATE TABLE sales",
        "GRANT ALL ON sales TO public",
        "ATTACH DATABASE 'x.db' AS x",
        "PRAGMA writable_schema = 1",
        "VACUUM",
        "COPY sales TO '/tmp/x'",
        "SET TRANSACTION READ WRITE",
        "BEGIN",
        "COMMIT",
        "CALL proc()",
        "EXPLAIN SELECT * FROM sales",
        "WITH d AS (DELETE FROM sales RETURNING *) SELECT * FROM d",
        "WITH u AS (UPDATE sales SET amount = 0 RETURNING *) SELECT * FROM u",
        "SELECT * INTO backup FROM sales",
        "SELECT * FROM sales FOR UPDATE",
        "SELECT * FROM sales FOR SHARE",
    ];
    let sneaky = [
        "SELECT * FROM sales; DROP TABLE sales",
        "SELECT * FROM sales;DELETE FROM sales",
        "SELECT * FROM sales /* harmless */; DELETE FROM sales",
        "SELECT * FROM sales -- comment\n; DELETE FROM sales",
        "SELECT 1; SELECT 2",
        "/* SELECT */ DELETE FROM sales",
        "-- SELECT\nDROP TABLE movies",
        "SELECT * FROM sqlite_master",
        "SELECT * FROM sqlite_schema",
        "SELECT * FROM pg_catalog.pg_tables",
        "SELECT * FROM pg_user",
        "SELECT * FROM information_schema.tables",
        "SELECT * FROM mysql.user",
        "SELECT * FROM performance_schema.threads",
        "SELECT * FROM other_db.sales",
        "SELECT load_extension('evil')",
        "SELECT pg_read_file('/etc/passwd')",
        "SELECT pg_sleep(100)",
        "SELECT sleep(100)",
        "SELECT benchmark(100000000, md5('x'))",
        "SELECT load_file('/etc/passwd')",
        "SELECT name FROM movies WHERE id = (SELECT pg_sleep(10))",
        "SELECT name FROM movies UNION SELECT password FROM users",
        "SELECT * FROM sales UNION ALL SELECT * FROM sqlite_master",
        "SELECT randomblob(1000000000)",
        "SELECT current_setting('data_directory')",
        "SELECT * FROM generate_series(1, 1000000000)",
        "",
        "   ",
        ";",
    ];
    let mut let_through = Vec::new();
    for sql in writes.iter().chain(sneaky.iter()) {
        for dialect in DIALECTS {
            let verdict = check_sql(sql, dialect, &policy());
            if verdict.allowed {
                let_through.push(format!("{dialect:?}: {sql} → {:?}", verdict.sql));
            }
        }
    }
    assert!(let_through.is_empty(), "{let_through:#?}");
}

#[test]
fn refusals_say_why() {
    let v = check_sql("DELETE FROM sales", Dialect::Sqlite, &policy());
    assert_eq!(v.reasons, ["only a query may run; found DELETE"]);
    let v = check_sql("SELECT * FROM sales; DROP TABLE sales", Dialect::Sqlite, &policy());
    assert!(v.reasons[0].contains("exactly one statement"));
    let v = check_sql("SELECT pg_sleep(1) FROM sales", Dialect::Postgres, &policy());
    assert!(v.reasons[0].contains("pg_sleep") && v.reasons[0].contains("deny"));
    let mut strict = policy();
    strict.allowed_functions = vec!["count".into()];
    let v = check_sql("SELECT upper(name) FROM movies", Dialect::Sqlite, &strict);
    assert!(v.reasons[0].contains("allow list"));
}

/// A name is a CTE only where the CTE is defined before the use, in the same block or an enclosing one.
#[test]
fn names_resolve_in_their_own_scope() {
    let users = GuardPolicy::new(&["sales", "users"]);
    let strict = policy();
    // Inside `a`, `users` is the real table (the CTE of that name comes after): refused without it on the list.
    let v = check_sql(
        "WITH a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a",
        Dialect::Postgres,
        &strict,
    );
    assert!(!v.allowed);
    let table = v
        .resolved
        .iter()
        .find(|r| r.name == "users" && r.kind == "table")
        .unwrap();
    assert!(!table.allowed, "{table:?}");
    // With `users` allowed the same CTEs (joined on a column) pass and read both tables; the CTE names are not tables.
    let v = check_sql(
        "WITH a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a, users \
         WHERE a.id = users.id",
        Dialect::Postgres,
        &users,
    );
    assert!(v.allowed, "{:?}", v.reasons);
    assert_eq!(v.tables, ["users", "sales"]);
    let kinds: Vec<(&str, &str)> = v.resolved.iter().map(|r| (r.name.as_str(), r.kind)).collect();
    assert_eq!(
        kinds,
        [("users", "table"), ("sales", "table"), ("a", "cte"), ("users", "cte")]
    );
    // A WITH nested in a derived table and in a subquery resolves like any other.
    for sql in [
        "SELECT * FROM (WITH s AS (SELECT * FROM sales) SELECT * FROM s) t",
        "SELECT * FROM movies WHERE id IN (WITH s AS (SELECT id FROM sales) SELECT id FROM s)",
    ] {
        let v = check_sql(sql, Dialect::MySql, &strict);
        assert!(v.allowed, "{sql}: {:?}", v.reasons);
    }
    // An inner CTE is not visible outside its block.
    let v = check_sql(
        "SELECT * FROM (WITH secrets AS (SELECT 1 AS id) SELECT * FROM secrets) t, secrets",
        Dialect::Sqlite,
        &strict,
    );
    assert!(
        !v.allowed && v.reasons.iter().any(|r| r.contains("secrets")),
        "{:?}",
        v.reasons
    );
}

#[test]
fn the_rewrite_is_what_was_checked() {
    let v = check_sql(
        "-- the titles\nSELECT name FROM movies /* newest first */ ORDER BY year DESC FETCH FIRST 20 ROWS ONLY",
        Dialect::Postgres,
        &policy(),
    );
    assert_eq!(
        v.sql.as_deref(),
        Some("SELECT name FROM movies ORDER BY year DESC LIMIT 20")
    );
    let again = check_sql(v.sql.as_deref().unwrap(), Dialect::Postgres, &policy());
    assert_eq!((again.allowed, again.tables), (true, vec!["movies".to_string()]));
    let v = check_sql("TABLE movies", Dialect::Postgres, &policy());
    assert_eq!(
        v.sql.as_deref(),
        Some("SELECT * FROM (TABLE movies) AS wenshu_table LIMIT 1000")
    );
}

#[test]
fn table_functions_and_qualified_entries_follow_the_policy() {
    let mut policy = policy();
    let sql = "SELECT * FROM sales, LATERAL generate_series(1, 3) g";
    assert!(!check_sql(sql, Dialect::Postgres, &policy).allowed);
    let v = check_sql(
        "SELECT j.value FROM sales, json_each('[1]') j",
        Dialect::Sqlite,
        &policy,
    );
    assert!(v.allowed, "{:?}", v.reasons);
    policy.table_functions = Some(vec![]);
    assert!(
        !check_sql(
            "SELECT j.value FROM sales, json_each('[1]') j",
            Dialect::Sqlite,
            &policy
        )
        .allowed
    );
    let qualified = GuardPolicy::new(&["analytics.daily"]);
    assert!(check_sql("SELECT * FROM analytics.daily", Dialect::Postgres, &qualified).allowed);
    assert!(!check_sql("SELECT * FROM analytics.users", Dialect::Postgres, &qualified).allowed);
    assert!(!check_sql("SELECT * FROM daily", Dialect::Postgres, &qualified).allowed);
    let public = GuardPolicy::new(&["public.sales"]);
    assert!(check_sql("SELECT * FROM sales", Dialect::Postgres, &public).allowed);
    assert!(check_sql("SELECT * FROM public.sales", Dialect::Postgres, &public).allowed);
}
