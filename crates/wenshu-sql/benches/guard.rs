//! `sql_guard`: the guard's time per statement (parse, scoped resolution, LIMIT, rewrite and its re-check) for an
//! analytic query of each shape and for refused ones, and over every case of eval/sql.jsonl.

use std::hint::black_box;

use criterion::Criterion;
use serde_json::Value;
use wenshu_sql::guard::{Dialect, GuardPolicy, check_sql};

const TABLES: &[&str] = &[
    "sales",
    "products",
    "customers",
    "orders",
    "order_items",
    "movies",
    "box_office",
];

const STATEMENTS: &[(&str, Dialect, &str)] = &[
    (
        "simple",
        Dialect::Sqlite,
        "SELECT region, SUM(amount) FROM sales GROUP BY region",
    ),
    (
        "ctes_window_join",
        Dialect::Postgres,
        "WITH monthly AS (SELECT product_id, date_trunc('month', sold_at) AS m, SUM(amount) AS total FROM sales \
         GROUP BY 1, 2), ranked AS (SELECT product_id, m, total, RANK() OVER (PARTITION BY m ORDER BY total DESC) \
         AS rk FROM monthly) SELECT p.name, r.m, r.total FROM ranked r JOIN products p ON p.id = r.product_id \
         WHERE r.rk <= 3 AND p.id IN (SELECT product_id FROM order_items) ORDER BY r.m, r.rk",
    ),
    (
        "subqueries_case",
        Dialect::MySql,
        "SELECT c.name, SUM(CASE WHEN o.status = 'paid' THEN o.total ELSE 0 END) AS paid FROM customers c \
         JOIN orders o ON o.customer_id = c.id WHERE EXISTS (SELECT 1 FROM order_items oi WHERE oi.order_id = o.id) \
         GROUP BY c.name HAVING SUM(o.total) > (SELECT AVG(total) FROM orders) ORDER BY paid DESC LIMIT 10",
    ),
    (
        "refused_shadowing_cte",
        Dialect::Postgres,
        "WITH a AS (SELECT * FROM users), users AS (SELECT * FROM sales) SELECT * FROM a",
    ),
    (
        "refused_executable_comment",
        Dialect::MySql,
        "SELECT * FROM sales /*M! UNION SELECT password, 2, 3 FROM users */",
    ),
];

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let policy = GuardPolicy::new(TABLES);
    let mut group = criterion.benchmark_group("sql_guard");
    for (name, dialect, sql) in STATEMENTS {
        group.bench_function(*name, |b| {
            b.iter(|| black_box(check_sql(black_box(sql), *dialect, &policy)))
        });
    }
    let cases: Vec<(String, Dialect, GuardPolicy)> =
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/sql.jsonl"))
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let case: Value = serde_json::from_str(line).expect("a JSON case");
                let tables: Vec<&str> = case["tables"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                (
                    case["sql"].as_str().unwrap().to_string(),
                    Dialect::from_name(case["dialect"].as_str().unwrap()).unwrap(),
                    GuardPolicy::new(&tables),
                )
            })
            .collect();
    println!("eval/sql.jsonl: {} cases per iteration", cases.len());
    group.bench_function("every_eval_case", |b| {
        b.iter(|| {
            for (sql, dialect, policy) in &cases {
                black_box(check_sql(sql, *dialect, policy));
            }
        })
    });
    group.finish();
    criterion.final_summary();
}
