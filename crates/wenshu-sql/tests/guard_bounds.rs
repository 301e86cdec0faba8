//! The guard's bounds on a statement's size and depth (issue #24 point 1): chains of every operator, set operations,
//! nested brackets, CASE and prefix operators, 100k terms long, are refused with a reason and never overflow a
//! stack — the caller's here is a test thread's 2 MiB; statements just within the bounds are checked on the guard's
//! own stack and accepted; the rewrite of an accepted chain runs on SQLite.

use wenshu_sql::db::{Database, QueryLimits};
use wenshu_sql::guard::{Dialect, GuardPolicy, MAX_DEPTH, MAX_SQL_BYTES, MAX_TOKENS, check_sql};

const DIALECTS: [Dialect; 3] = [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql];

/// Binary operators of the three dialects (some only parse in one; a parse error is a refusal too).
const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "||", "AND", "OR", "XOR", "=", "<>", "<", "&", "|", "^", "<<", "->", "->>", "DIV", "MOD",
];

fn policy() -> GuardPolicy {
    GuardPolicy::new(&["sales"])
}

fn over_the_bounds(reasons: &[String]) -> bool {
    reasons
        .iter()
        .any(|r| r.contains("at most") || r.contains("recursion limit") || r.contains("does not parse"))
}

/// Checks `sql` on a thread with the default 2 MiB stack of a test thread: the guard must not use the caller's.
fn check_on_small_stack(sql: String, dialect: Dialect) -> wenshu_sql::guard::GuardVerdict {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || check_sql(&sql, dialect, &policy()))
        .unwrap()
        .join()
        .expect("the guard never panics")
}

#[test]
fn chains_of_every_operator_100k_terms_long_are_refused() {
    for dialect in DIALECTS {
        for operator in OPERATORS {
            let sql = format!(
                "SELECT {} FROM sales",
                vec!["1"; 100_000].join(&format!(" {operator} "))
            );
            let verdict = check_on_small_stack(sql, dialect);
            assert!(!verdict.allowed, "{dialect:?} {operator}");
            assert!(
                over_the_bounds(&verdict.reasons),
                "{dialect:?} {operator}: {:?}",
                verdict.reasons
            );
        }
        let unions = vec!["SELECT amount FROM sales"; 100_000].join(" UNION ALL ");
        let verdict = check_on_small_stack(unions, dialect);
        assert!(
            !verdict.allowed && over_the_bounds(&verdict.reasons),
            "{:?}",
            verdict.reasons
        );
        let casts = format!("SELECT 1{} FROM sales", "::int".repeat(100_000));
        assert!(!check_on_small_stack(casts, dialect).allowed);
    }
}

#[test]
fn chains_within_the_size_bound_but_too_deep_name_the_depth() {
    // 12 KB of `+`, the statement that took a server down: under the byte and token bounds, over the depth bound.
    for dialect in DIALECTS {
        let sql = format!("SELECT {} FROM sales", vec!["1"; 6_000].join("+"));
        assert!(sql.len() < MAX_SQL_BYTES);
        let verdict = check_on_small_stack(sql, dialect);
        assert!(!verdict.allowed);
        assert!(
            verdict
                .reasons
                .iter()
                .any(|r| r.contains("levels deep") && r.contains(&MAX_DEPTH.to_string())),
            "{:?}",
            verdict.reasons
        );
    }
}

#[test]
fn nesting_prefix_operators_and_case_are_bounded() {
    for dialect in DIALECTS {
        for sql in [
            format!("SELECT {}1{} FROM sales", "(".repeat(100_000), ")".repeat(100_000)),
            format!("SELECT {}1{} FROM sales", "(SELECT ".repeat(30_000), ")".repeat(30_000)),
            format!("SELECT {}1 FROM sales", "NOT ".repeat(50_000)),
            format!("SELECT {}1 FROM sales", "- ".repeat(100_000)),
            format!(
                "SELECT {}1{} FROM sales",
                "CASE WHEN 1 = 1 THEN ".repeat(20_000),
                " END".repeat(20_000)
            ),
            format!(
                "SELECT 1 FROM sales WHERE amount IN {}1{}",
                "(SELECT ".repeat(20_000),
                ")".repeat(20_000)
            ),
        ] {
            let head: String = sql.chars().take(40).collect();
            let verdict = check_on_small_stack(sql, dialect);
            assert!(!verdict.allowed, "{dialect:?} {head}");
            assert!(
                over_the_bounds(&verdict.reasons),
                "{dialect:?} {head}: {:?}",
                verdict.reasons
            );
        }
    }
}

#[test]
fn too_many_tokens_or_bytes_are_refused_by_size() {
    let wide = format!("SELECT {} FROM sales", vec!["amount"; MAX_TOKENS].join(", "));
    let verdict = check_on_small_stack(wide, Dialect::Postgres);
    assert!(
        verdict.reasons.iter().any(|r| r.contains("tokens")),
        "{:?}",
        verdict.reasons
    );
    let long = format!("SELECT '{}' FROM sales", "x".repeat(MAX_SQL_BYTES));
    let verdict = check_on_small_stack(long, Dialect::Sqlite);
    assert!(
        verdict.reasons.iter().any(|r| r.contains("bytes")),
        "{:?}",
        verdict.reasons
    );
}

#[tokio::test]
async fn statements_within_the_bounds_are_checked_on_the_guards_stack_and_run() {
    // Each of these overflowed a 2 MiB stack in an unoptimized build when the guard walked on the caller's.
    let deep = [
        format!("SELECT {} AS total FROM sales", vec!["amount"; 900].join(" + ")),
        format!(
            "SELECT amount FROM sales WHERE {}",
            vec!["amount > 1"; 400].join(" OR ")
        ),
        format!("SELECT {}1{} AS one FROM sales", "(SELECT ".repeat(15), ")".repeat(15)),
        format!(
            "SELECT {}1{} AS one FROM sales",
            "CASE WHEN amount > 0 THEN ".repeat(25),
            " END".repeat(25)
        ),
        vec!["SELECT amount FROM sales"; 300].join(" UNION ALL "),
        format!(
            "SELECT region FROM sales WHERE region IN ({})",
            (0..5_000).map(|i| format!("'r{i}'")).collect::<Vec<_>>().join(", ")
        ),
    ];
    let db = Database::connect("sqlite::memory:").await.unwrap();
    db.execute_batch("CREATE TABLE sales (region TEXT, amount REAL); INSERT INTO sales VALUES ('r7', 2);")
        .await
        .unwrap();
    for sql in deep {
        let head: String = sql.chars().take(60).collect();
        let verdict = check_on_small_stack(sql, Dialect::Sqlite);
        assert!(verdict.allowed, "{head}: {:?}", verdict.reasons);
        let rows = db
            .query(&verdict.sql.unwrap(), &[], QueryLimits::default())
            .await
            .unwrap_or_else(|e| panic!("{head}: {e}"));
        assert!(!rows.rows.is_empty(), "{head}");
    }
}

#[test]
fn mysql_mod_operator_is_the_percent_operator() {
    let verdict = check_sql(
        "SELECT id MOD 7 AS bucket, COUNT(*) AS n FROM sales GROUP BY id MOD 7",
        Dialect::MySql,
        &GuardPolicy::new(&["sales"]),
    );
    assert!(verdict.allowed, "{:?}", verdict.reasons);
    let sql = verdict.sql.unwrap();
    assert!(sql.contains("id % 7") && !sql.contains("MOD"), "{sql}");
    let function = check_sql(
        "SELECT MOD(id, 7) FROM sales",
        Dialect::MySql,
        &GuardPolicy::new(&["sales"]),
    );
    assert!(function.allowed, "{:?}", function.reasons);
    let secret = check_sql(
        "SELECT id MOD 7 FROM users",
        Dialect::MySql,
        &GuardPolicy::new(&["sales"]),
    );
    assert!(!secret.allowed, "the respelled statement is checked like any other");
    assert!(
        !check_sql(
            "SELECT id MOD 7 FROM sales",
            Dialect::Postgres,
            &GuardPolicy::new(&["sales"])
        )
        .allowed
    );
}

#[tokio::test]
async fn a_bare_values_list_runs_on_sqlite_without_a_limit() {
    let policy = GuardPolicy::new(&["sales"]);
    let verdict = check_sql("VALUES ((SELECT COUNT(*) FROM sales)), (2)", Dialect::Sqlite, &policy);
    assert!(verdict.allowed, "{:?}", verdict.reasons);
    let sql = verdict.sql.unwrap();
    assert!(!sql.contains("LIMIT"), "{sql}");
    let db = Database::connect("sqlite::memory:").await.unwrap();
    db.execute_batch("CREATE TABLE sales (region TEXT, amount REAL)")
        .await
        .unwrap();
    let rows = db.query(&sql, &[], QueryLimits::default()).await.unwrap();
    assert_eq!(rows.rows.len(), 2);
    let mut small = policy.clone();
    small.max_rows = 1;
    let over = check_sql("VALUES (1), (2)", Dialect::Sqlite, &small);
    assert!(
        !over.allowed && over.reasons[0].contains("at most 1"),
        "{:?}",
        over.reasons
    );
}
