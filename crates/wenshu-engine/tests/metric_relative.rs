//! Comparisons with a mean (issue 26, shape 2): 高于平均水平的X, 哪些Y低于平均, 超过所在X平均的Y, above average —
//! the rows grouped as asked, kept where the measure passes the mean of that measure over all the rows, or over the
//! rows sharing the parent dimension's value; a mean of a mean (客单价) and a comparison with nothing to compare are
//! refused. On a model of its own (a library's loans), then on the demo data against truth queries on SQLite, and
//! on PostgreSQL / MariaDB when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

#[macro_use]
mod demo_truth;

use serde_json::{Value, json};
use wenshu_contract::Catalog;
use wenshu_contract::metric::{MetricQuery, ThresholdOp};
use wenshu_engine::db::Dialect;
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::{MetricBuild, MetricValues};
use wenshu_sql::metric::compile;

/// A library's loans by branch and genre: words of no demo catalog.
fn library() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "library_metrics",
        "description": "借阅指标",
        "x-metrics": {
            "from": [{"table": "loans", "alias": "l",
                      "columns": ["id", "lent_on", "branch", "genre", "fine"]}],
            "time": {"column": "l.lent_on", "grains": ["day", "month", "year"]},
            "measures": [
                {"name": "fine", "label": "罚款", "expr": "SUM(l.fine)", "unit": "元"},
                {"name": "loans", "label": "借阅量", "expr": "COUNT(*)", "unit": "次"},
                {"name": "avg_fine", "label": "单次罚款", "expr": "AVG(l.fine)", "unit": "元"}
            ],
            "dimensions": [
                {"name": "branch", "label": "分馆", "column": "l.branch"},
                {"name": "genre", "label": "类别", "column": "l.genre"}
            ]
        }
    }]}))
    .expect("library catalog")
}

fn build(question: &str) -> MetricBuild {
    let catalog = library();
    let tool = catalog.get("library_metrics").unwrap();
    build_query(tool, &MetricValues::new(), question, "2026-11-29".parse().unwrap())
}

fn query(question: &str) -> MetricQuery {
    match build(question) {
        MetricBuild::Query { query } => query,
        other => panic!("{question}: {other:?}"),
    }
}

#[test]
fn a_comparison_with_the_mean_keeps_the_rows_past_it() {
    for (question, op, groups, within) in [
        (
            "今年借阅量高于平均水平的分馆有哪些",
            ThresholdOp::Gt,
            vec!["分馆"],
            None,
        ),
        ("今年哪些类别的罚款低于平均", ThresholdOp::Lt, vec!["类别"], None),
        (
            "今年借阅量超过所在分馆平均的类别",
            ThresholdOp::Gt,
            vec!["分馆", "类别"],
            Some("分馆"),
        ),
        (
            "今年各分馆借阅量高于平均的类别",
            ThresholdOp::Gt,
            vec!["分馆", "类别"],
            Some("分馆"),
        ),
        (
            "branches with loans above average this year",
            ThresholdOp::Gt,
            vec!["分馆"],
            None,
        ),
    ] {
        let q = query(question);
        let relative = q.relative.as_ref().unwrap_or_else(|| panic!("{question}: {q:?}"));
        assert_eq!(relative.op, op, "{question}");
        assert_eq!(relative.within.as_deref(), within, "{question}: {q:?}");
        let mut grouped: Vec<&str> = q.group_by.iter().map(String::as_str).collect();
        grouped.sort_unstable();
        let mut want = groups.clone();
        want.sort_unstable();
        assert_eq!(grouped, want, "{question}: {q:?}");
    }
    // A mean per loan has no "average level" of its own, and a total alone has nothing to be compared with.
    for question in ["今年单次罚款高于平均的分馆", "今年的罚款高于平均"] {
        assert!(matches!(build(question), MetricBuild::Unmet { .. }), "{question}");
    }
}

#[test]
fn the_mean_is_a_window_over_the_grouped_rows_on_every_dialect_and_is_checked() {
    let catalog = library();
    let model = catalog
        .get("library_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let resolved = query("今年借阅量超过所在分馆平均的类别").resolve(&model).unwrap();
    for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
        let sql = compile(&model, &resolved, &[], resolved.range.as_ref(), &[None], dialect)
            .statement
            .sql;
        assert!(sql.contains("AVG(COUNT(*)) OVER (PARTITION BY "), "{sql}");
        assert!(sql.contains(" > "), "{sql}");
    }
    let bad = |value: Value| serde_json::from_value::<MetricQuery>(value).unwrap().resolve(&model);
    let err = bad(json!({"measures": [{"name": "罚款"}], "relative": {"measure": "罚款", "op": ">"}})).unwrap_err();
    assert_eq!(err.field, "groupBy");
    let err = bad(json!({"measures": [{"name": "单次罚款"}], "groupBy": ["分馆"],
        "relative": {"measure": "单次罚款", "op": ">"}}))
    .unwrap_err();
    assert_eq!(err.field, "relative.measure");
    let err = bad(json!({"measures": [{"name": "罚款"}], "groupBy": ["类别"],
        "relative": {"measure": "罚款", "op": ">", "within": "分馆"}}))
    .unwrap_err();
    assert_eq!(err.field, "relative.within");
}

// ---- The demo data, against truth queries ----

/// `(question, truth SQL)`: the rows past the mean, largest first.
const DEMO_CASES: &[(&str, &str)] = &[
    (
        "今年销售额高于平均水平的销售有哪些",
        "SELECT p, m FROM (SELECT sales_person AS p, SUM(amount) AS m, AVG(SUM(amount)) OVER () AS a FROM sales \
         WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY sales_person) WHERE m > a ORDER BY m DESC",
    ),
    (
        "上个月哪些产品的销量低于平均",
        "SELECT p, m FROM (SELECT product AS p, SUM(quantity) AS m, AVG(SUM(quantity)) OVER () AS a FROM sales \
         WHERE day BETWEEN '2026-10-01' AND '2026-10-31' GROUP BY product) WHERE m < a ORDER BY m DESC",
    ),
    (
        "今年销售额超过所在地区平均的销售",
        "SELECT r, p, m FROM (SELECT region AS r, sales_person AS p, SUM(amount) AS m, \
         AVG(SUM(amount)) OVER (PARTITION BY region) AS a FROM sales \
         WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY region, sales_person) WHERE m > a ORDER BY m DESC",
    ),
    (
        "regions with orders above average last month",
        "SELECT r, m FROM (SELECT region AS r, COUNT(*) AS m, AVG(COUNT(*)) OVER () AS a FROM sales \
         WHERE day BETWEEN '2026-10-01' AND '2026-10-31' GROUP BY region) WHERE m > a ORDER BY m DESC",
    ),
    // The median (高于中位数, above the median): the middle total, or the mean of the middle two — truth by
    // LIMIT/OFFSET over the sorted totals, not the statement's own arithmetic.
    (
        "今年销售额高于中位数的销售",
        "WITH g AS (SELECT sales_person AS p, SUM(amount) AS m FROM sales \
         WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY sales_person) \
         SELECT p, m FROM g WHERE m > (SELECT AVG(m) FROM (SELECT m FROM g ORDER BY m \
         LIMIT 2 - (SELECT COUNT(*) FROM g) % 2 OFFSET ((SELECT COUNT(*) FROM g) - 1) / 2)) ORDER BY m DESC",
    ),
    (
        "sales persons with orders below the median last month",
        "WITH g AS (SELECT sales_person AS p, COUNT(*) AS m FROM sales \
         WHERE day BETWEEN '2026-10-01' AND '2026-10-31' GROUP BY sales_person) \
         SELECT p, m FROM g WHERE m < (SELECT AVG(m) FROM (SELECT m FROM g ORDER BY m \
         LIMIT 2 - (SELECT COUNT(*) FROM g) % 2 OFFSET ((SELECT COUNT(*) FROM g) - 1) / 2)) ORDER BY m DESC",
    ),
];

demo_cases_on_every_dialect!("relative", DEMO_CASES);
