//! The cost of a statement bounded before it runs (issue #24 point 3): cross joins of large FROM items without a
//! join condition, repeat/pad counts and format widths over 1000, and set-returning functions over a built value
//! are refused in every dialect they apply to, with a reason naming the construct; the ordinary forms (joins with
//! a condition, a table with a one-row aggregate, `LPAD(month, 2, '0')`, `printf('%.2f', x)`, `unnest(tags)`,
//! `json_each(attrs)`) are accepted and run: on SQLite in memory always, on PostgreSQL and MariaDB/MySQL when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` name a server (a database of its own is made there).

use wenshu_sql::db::{Database, Dialect, QueryLimits, ensure_database};
use wenshu_sql::guard::{GuardPolicy, check_sql};

const ALL: &[Dialect] = &[Dialect::Sqlite, Dialect::Postgres, Dialect::MySql];
const PG: &[Dialect] = &[Dialect::Postgres];
const LITE: &[Dialect] = &[Dialect::Sqlite];
const MY: &[Dialect] = &[Dialect::MySql];
const SERVERS: &[Dialect] = &[Dialect::Postgres, Dialect::MySql];

/// The database these tests make on each server.
const DB_NAME: &str = "wenshu_guard_cost";

fn policy() -> GuardPolicy {
    GuardPolicy::new(&["facts", "dims"])
}

/// The default policy with the function allow list emptied (every function not denied is allowed): the cost rules
/// refuse by shape, whatever the list.
fn open_policy() -> GuardPolicy {
    GuardPolicy {
        allowed_functions: Vec::new(),
        ..policy()
    }
}

/// `sql` must be refused in each of `dialects` under both policies, with a reason holding `names`.
fn refused(dialects: &[Dialect], sql: &str, names: &str) {
    for &dialect in dialects {
        for policy in [policy(), open_policy()] {
            let verdict = check_sql(sql, dialect, &policy);
            assert!(!verdict.allowed, "{dialect:?}: {sql} was allowed: {:?}", verdict.sql);
            assert!(
                verdict.reasons.iter().any(|r| r.contains(names)),
                "{dialect:?}: {sql}: no reason names `{names}`: {:?}",
                verdict.reasons
            );
            assert!(
                verdict
                    .resolved
                    .iter()
                    .any(|r| r.kind == "clause" && !r.allowed && r.why.contains(names)),
                "{dialect:?}: {sql}: the trace does not say why: {:?}",
                verdict.resolved
            );
        }
    }
}

#[test]
fn cross_joins_of_large_items_are_refused() {
    let cases = [
        "SELECT * FROM facts a CROSS JOIN dims b",
        "SELECT * FROM facts a, dims b",
        "SELECT * FROM facts, facts f2",
        "SELECT * FROM facts a JOIN dims b ON TRUE",
        "SELECT * FROM facts a JOIN dims b ON 1 = 1",
        "SELECT * FROM facts a LEFT JOIN dims b ON a.amount > 0",
        "SELECT * FROM facts a, dims b WHERE a.amount > 0 AND b.name = b.name",
        "SELECT * FROM facts a JOIN facts b ON a.id = b.id CROSS JOIN dims c",
        "SELECT * FROM facts a, facts b, dims c WHERE a.id = b.id",
        "WITH x AS (SELECT * FROM facts) SELECT * FROM x, dims",
        "SELECT * FROM (SELECT id FROM facts) a, (SELECT id FROM dims) b",
        "SELECT * FROM facts a, (SELECT grp, COUNT(*) AS n FROM facts GROUP BY grp) b",
        "SELECT * FROM facts a, (SELECT id FROM dims LIMIT 100000) b",
        "SELECT * FROM (facts a CROSS JOIN dims b)",
        "SELECT (SELECT COUNT(*) FROM facts a, dims b) AS n",
        "SELECT id FROM facts WHERE id IN (SELECT a.id FROM facts a CROSS JOIN facts b)",
        "SELECT id FROM dims UNION ALL SELECT a.id FROM facts a, dims b",
    ];
    for sql in cases {
        refused(ALL, sql, "cross join");
    }
    // A table function is large, unless it expands literals of at most 1000 characters: a longer literal it
    // expands, unconnected, is a cross join too.
    let long = format!("[{}]", vec!["1"; 1100].join(","));
    refused(
        PG,
        &format!("SELECT * FROM facts, unnest(ARRAY{long}) AS u(n)"),
        "cross join",
    );
    refused(
        PG,
        "SELECT * FROM facts, unnest(facts.tags) AS u(n), dims",
        "cross join",
    );
    refused(LITE, &format!("SELECT * FROM facts, json_each('{long}')"), "cross join");
    refused(LITE, "SELECT * FROM facts a, json_each(a.attrs), dims", "cross join");
    refused(
        MY,
        &format!("SELECT * FROM facts, JSON_TABLE('{long}', '$[*]' COLUMNS(v INT PATH '$')) AS j"),
        "cross join",
    );
}

#[test]
fn the_refusal_names_the_items() {
    let verdict = check_sql("SELECT * FROM facts a CROSS JOIN dims b", Dialect::Postgres, &policy());
    assert!(
        verdict.reasons[0].contains("`facts a`") && verdict.reasons[0].contains("`dims b`"),
        "{:?}",
        verdict.reasons
    );
}

#[test]
fn repeat_and_pad_counts_are_bounded() {
    refused(
        ALL,
        "SELECT lpad(label, 10000000, 'x') FROM facts",
        "`lpad` with the count `10000000`",
    );
    refused(
        ALL,
        "SELECT rpad('', amount, 'x') FROM facts",
        "`rpad` with the count `amount`",
    );
    refused(ALL, "SELECT lpad('x', 1001) FROM facts", "`lpad` with the count");
    refused(SERVERS, "SELECT repeat('x', 1000000)", "`repeat` with the count");
    refused(SERVERS, "SELECT repeat('x', id) FROM facts", "`repeat` with the count");
    refused(MY, "SELECT space(100000)", "`space` with the count");
    refused(ALL, "SELECT replicate('x', 5000)", "`replicate` with the count");
    refused(
        SERVERS,
        "SELECT repeat(repeat('x', 1000), 1000)",
        "`repeat` repeats a value built by `repeat`",
    );
    refused(
        PG,
        "SELECT repeat(lpad('', 1000, 'x'), 1000)",
        "repeats a value built by `lpad`",
    );
}

#[test]
fn format_strings_are_bounded() {
    refused(
        LITE,
        "SELECT printf('%.*c', 999999999, 'x')",
        "a width or precision taken from an argument",
    );
    refused(
        LITE,
        "SELECT printf('%*d', 999999999, 1)",
        "a width or precision taken from an argument",
    );
    refused(
        LITE,
        "SELECT printf('%2000d', 1)",
        "a width or precision may be at most 1000",
    );
    refused(
        LITE,
        "SELECT printf('%.5000f', amount) FROM facts",
        "may be at most 1000",
    );
    refused(
        LITE,
        "SELECT printf(label, 1) FROM facts",
        "`printf` with the format `label`",
    );
    refused(LITE, "SELECT format('%.*c', 999999999, 'x')", "taken from an argument");
    refused(PG, "SELECT format('%500000000s', 'x')", "`format` with `%500000000s`");
    refused(PG, "SELECT format('%-5000s|', label) FROM facts", "may be at most 1000");
    refused(PG, "SELECT format('%*s', 100000, 'x')", "taken from an argument");
    refused(PG, "SELECT format('%1$*2$s', 'x', 1000000)", "taken from an argument");
    refused(
        PG,
        "SELECT format(label || '%s', 'x') FROM facts",
        "the format must be a plain string literal",
    );
    refused(
        MY,
        "SELECT FORMAT(amount, 100000) FROM facts",
        "`FORMAT` with `100000` decimals",
    );
    refused(
        MY,
        "SELECT FORMAT(amount, id) FROM facts",
        "`FORMAT` with `id` decimals",
    );
}

#[test]
fn set_returning_functions_over_built_values_are_refused() {
    refused(
        PG,
        "SELECT * FROM unnest(string_to_array(lpad('', 1000, 'x'), '')) AS u(c)",
        "`unnest` expands a value built by `lpad`",
    );
    refused(
        PG,
        "SELECT unnest(string_to_array(lpad('', 10000000, 'x'), ''))",
        "`unnest` expands a value built by `lpad`",
    );
    refused(
        PG,
        "SELECT * FROM regexp_split_to_table(rpad('', 900, 'x'), '')",
        "`regexp_split_to_table` expands a value built by `rpad`",
    );
    refused(
        PG,
        "SELECT * FROM jsonb_array_elements(to_jsonb(string_to_array(repeat('x,', 500), ',')))",
        "`jsonb_array_elements` expands a value built by `repeat`",
    );
    refused(
        PG,
        "SELECT * FROM unnest(array_fill(1, ARRAY[1000000]))",
        "`unnest` expands a value built by `array_fill`",
    );
    refused(
        PG,
        "SELECT n FROM unnest((SELECT string_to_array(format('%900s', ''), ''))) AS u(n)",
        "`unnest` expands a value built by `format`",
    );
    refused(
        LITE,
        "SELECT * FROM json_each('[' || printf('%0900d', 0) || ']')",
        "`json_each` expands a value built by `printf`",
    );
    refused(
        LITE,
        "SELECT 1 WHERE 1 IN json_each(printf('[%0900d]', 0))",
        "`json_each` expands a value built by `printf`",
    );
    refused(
        LITE,
        "SELECT * FROM json_tree(printf('[%0900d]', 0))",
        "`json_tree` expands a value built by `printf`",
    );
    refused(
        MY,
        "SELECT * FROM JSON_TABLE(CONCAT('[', lpad('', 999, '1'), ']'), '$[*]' COLUMNS(v INT PATH '$')) AS j",
        "`json_table` expands a value built by `lpad`",
    );
}

/// The ordinary forms each dialect must accept (and run).
fn ordinary(dialect: Dialect) -> Vec<&'static str> {
    let mut cases = vec![
        "SELECT a.grp, b.name FROM facts a JOIN dims b ON a.ref_id = b.id",
        "SELECT a.grp, b.name FROM facts a LEFT JOIN dims b ON b.id = a.ref_id AND b.name <> 'none'",
        "SELECT a.grp, b.name FROM facts a, dims b WHERE a.ref_id = b.id",
        "SELECT a.grp, b.name FROM facts a CROSS JOIN dims b WHERE a.ref_id = b.id",
        "SELECT a.id, b.id FROM facts a, facts b WHERE a.id < b.id",
        "SELECT a.id FROM facts a, dims b WHERE a.amount BETWEEN b.id AND b.id + 100",
        "SELECT grp, name FROM facts JOIN dims USING (id)",
        "SELECT grp, name FROM facts NATURAL JOIN dims",
        "SELECT a.grp, a.amount - m.avg_amount AS diff FROM facts a, (SELECT AVG(amount) AS avg_amount FROM facts) m",
        "WITH total AS (SELECT SUM(amount) AS s FROM facts) SELECT a.grp, a.amount / t.s AS share FROM facts a \
         CROSS JOIN total t",
        "WITH total AS (SELECT SUM(amount) AS s FROM facts), half AS (SELECT s / 2 AS h FROM total) \
         SELECT a.grp FROM facts a, half WHERE a.amount > half.h",
        "SELECT a.id, b.id AS dim FROM facts a, (SELECT id FROM dims ORDER BY id LIMIT 5) b",
        "SELECT a.grp, d.name FROM facts a CROSS JOIN dims d WHERE d.id = 1",
        "SELECT a.grp FROM facts a, (SELECT MIN(amount) AS lo, MAX(amount) AS hi FROM facts) r \
         WHERE a.amount > r.lo",
        "SELECT a.grp FROM facts a, (SELECT 1 AS one) x",
        "SELECT a.grp, v.n FROM facts a, (SELECT 1 AS n UNION ALL SELECT 2) v",
    ];
    match dialect {
        Dialect::Sqlite | Dialect::Custom(_) => cases.extend([
            "SELECT printf('%.2f', amount) AS money FROM facts",
            "SELECT printf('%5d|%-10s|%05.1f', id, grp, amount) AS line FROM facts",
            "SELECT a.id, j.value FROM facts a, json_each(a.attrs) j",
            "SELECT facts.id, json_each.value FROM facts, json_each(attrs)",
            "SELECT a.id, j.value FROM facts a JOIN json_each(a.tags) j",
            "SELECT id FROM facts WHERE 'red' IN (SELECT value FROM json_each(tags))",
            "SELECT key, value FROM json_each('{\"a\": 1, \"b\": 2}')",
            "SELECT a.id, j.value FROM facts a, json_each('[1, 2]') j",
        ]),
        Dialect::Postgres => cases.extend([
            "SELECT LPAD(month, 2, '0') AS mm FROM facts",
            "SELECT RPAD(grp, 10, '.') || label AS line FROM facts",
            "SELECT format('%s-%s', grp, label) AS line FROM facts",
            "SELECT format('%-10s|%5s', grp, id) AS line FROM facts",
            "SELECT a.id, t.tag FROM facts a, unnest(a.tags) AS t(tag)",
            "SELECT id, unnest(tags) AS tag FROM facts",
            "SELECT t.tag, COUNT(*) FROM facts a CROSS JOIN LATERAL unnest(a.tags) AS t(tag) GROUP BY t.tag",
            "SELECT a.id, e.key FROM facts a CROSS JOIN LATERAL jsonb_each(a.attrs) e",
            "SELECT a.id, e.key, e.value FROM facts a, jsonb_each_text(a.attrs) AS e",
            "SELECT a.id, w FROM facts a, regexp_split_to_table(a.label, ' ') AS w",
            "SELECT a.id, x FROM facts a, unnest(string_to_array(a.label, ',')) AS x",
            "SELECT x FROM unnest(ARRAY['a', 'b']) AS x",
            "SELECT a.grp, v.n FROM facts a, (VALUES (1), (2)) AS v(n)",
            "SELECT a.id, u.n FROM facts a, unnest(ARRAY[1, 2, 3]) AS u(n)",
            "SELECT a.id, l.id AS dim FROM facts a \
             CROSS JOIN LATERAL (SELECT d.id FROM dims d WHERE d.id = a.ref_id) l",
        ]),
        Dialect::MySql => cases.extend([
            "SELECT LPAD(month, 2, '0') AS mm FROM facts",
            "SELECT CONCAT(RPAD(grp, 10, '.'), label) AS line FROM facts",
            "SELECT FORMAT(amount, 2) AS money FROM facts",
            "SELECT a.id, j.tag FROM facts a, JSON_TABLE(a.tags, '$[*]' COLUMNS(tag VARCHAR(20) PATH '$')) AS j",
            "SELECT a.id, j.tag FROM facts a JOIN JSON_TABLE(a.tags, '$[*]' COLUMNS(tag VARCHAR(20) PATH '$')) AS j \
             ON TRUE",
            "SELECT j.v FROM JSON_TABLE('[1, 2]', '$[*]' COLUMNS(v INT PATH '$')) AS j",
            "SELECT a.id, j.v FROM facts a, JSON_TABLE('[1, 2]', '$[*]' COLUMNS(v INT PATH '$')) AS j",
        ]),
    }
    cases
}

/// Each ordinary form is accepted; returns the rewrites to run.
fn accepted(dialect: Dialect) -> Vec<(&'static str, String)> {
    ordinary(dialect)
        .into_iter()
        .map(|sql| {
            let verdict = check_sql(sql, dialect, &policy());
            assert!(verdict.allowed, "{dialect:?}: {sql}: {:?}", verdict.reasons);
            (sql, verdict.sql.unwrap())
        })
        .collect()
}

#[test]
fn ordinary_forms_are_accepted() {
    for &dialect in ALL {
        accepted(dialect);
    }
}

/// The tables of these tests, for a dialect.
fn schema(dialect: Dialect) -> String {
    let (text, num, array, json) = match dialect {
        Dialect::Postgres => ("TEXT", "NUMERIC(14,2)", "TEXT[]", "JSONB"),
        Dialect::MySql => ("VARCHAR(200)", "DECIMAL(14,2)", "JSON", "JSON"),
        Dialect::Sqlite | Dialect::Custom(_) => ("TEXT", "REAL", "TEXT", "TEXT"),
    };
    let tags = match dialect {
        Dialect::Postgres => ["ARRAY['red', 'blue']", "ARRAY['green']"],
        _ => ["'[\"red\", \"blue\"]'", "'[\"green\"]'"],
    };
    format!(
        "DROP TABLE IF EXISTS facts; DROP TABLE IF EXISTS dims;
         CREATE TABLE facts (id INT, grp {text}, amount {num}, ref_id INT, label {text}, month {text}, tags {array},
                             attrs {json});
         CREATE TABLE dims (id INT, name {text});
         INSERT INTO facts VALUES (1, 'a', 10, 1, 'x y', '3', {t1}, '{{\"k\": \"v\"}}'),
                                  (2, 'b', 200, 2, 'p,q', '11', {t2}, '{{\"n\": 1}}');
         INSERT INTO dims VALUES (1, 'one'), (2, 'two');",
        t1 = tags[0],
        t2 = tags[1]
    )
}

/// Runs every ordinary form of `dialect` on `db` (with the tables made).
async fn run_ordinary(db: &Database, dialect: Dialect) {
    let mut failed = Vec::new();
    for (sql, rewrite) in accepted(dialect) {
        if let Err(e) = db.query(&rewrite, &[], QueryLimits::default()).await {
            failed.push(format!("{sql} → {rewrite}: {e}"));
        }
    }
    assert!(
        failed.is_empty(),
        "{dialect:?}: accepted forms failed to run: {failed:#?}"
    );
}

#[tokio::test]
async fn ordinary_forms_run_on_sqlite() {
    let db = Database::connect("sqlite::memory:").await.unwrap();
    db.execute_batch(&schema(Dialect::Sqlite)).await.unwrap();
    run_ordinary(&db, Dialect::Sqlite).await;
}

/// Makes this file's database on the server `var` names, with the tables; `None` (printed) when unset.
async fn server(var: &str, dialect: Dialect) -> Option<Database> {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return None;
    };
    ensure_database(&admin_url, DB_NAME).await.unwrap();
    let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |(b, _)| b);
    let url = format!("{base}/{DB_NAME}");
    let db = Database::connect(&url).await.unwrap();
    db.execute_batch(&schema(dialect)).await.unwrap();
    db.close().await;
    Some(Database::connect_read_only(&url).await.unwrap())
}

#[tokio::test]
async fn ordinary_forms_run_on_postgres() {
    let Some(db) = server("WENSHU_TEST_POSTGRES_URL", Dialect::Postgres).await else {
        return;
    };
    run_ordinary(&db, Dialect::Postgres).await;
    db.close().await;
}

#[tokio::test]
async fn ordinary_forms_run_on_mysql() {
    let Some(db) = server("WENSHU_TEST_MYSQL_URL", Dialect::MySql).await else {
        return;
    };
    run_ordinary(&db, Dialect::MySql).await;
    db.close().await;
}
