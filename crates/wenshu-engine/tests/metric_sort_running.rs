//! Orders by a dimension and running totals (issue 26, shapes 9 and 7): 按X排序 / sorted by X / 按X降序 sort the
//! rows by a dimension's values, 按<measure>排序 stays a ranking; 每月的累计X sums each bucket with those before
//! it, only for a sum or a count, and 累计 without a time grouping stays the period's total. On a model of its own
//! (a library's loans), then on the demo data against truth queries on SQLite, and on PostgreSQL / MariaDB when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

#[macro_use]
mod demo_truth;

use serde_json::{Value, json};
use wenshu_contract::Catalog;
use wenshu_contract::metric::{Grain, MetricQuery, OrderDir};
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
                {"name": "fine", "label": "罚款", "synonyms": ["滞纳金"], "expr": "SUM(l.fine)", "unit": "元",
                 "aggregations": ["avg"]},
                {"name": "loans", "label": "借阅量", "expr": "COUNT(*)", "unit": "次"},
                {"name": "avg_fine", "label": "平均罚款", "expr": "AVG(l.fine)", "unit": "元"}
            ],
            "dimensions": [
                {"name": "branch", "label": "分馆", "column": "l.branch"},
                {"name": "genre", "label": "类别", "synonyms": ["图书类别"], "column": "l.genre"}
            ]
        }
    }]}))
    .expect("library catalog")
}

fn build(question: &str) -> MetricBuild {
    let catalog = library();
    let tool = catalog.get("library_metrics").unwrap();
    let mut values = MetricValues::new();
    let texts = |list: &[&str]| list.iter().map(|s| Value::from(*s)).collect::<Vec<_>>();
    values.insert(tool, 0, texts(&["东城", "西城", "海淀"]));
    build_query(tool, &values, question, "2026-11-29".parse().unwrap())
}

fn query(question: &str) -> MetricQuery {
    match build(question) {
        MetricBuild::Query { query } => query,
        other => panic!("{question}: {other:?}"),
    }
}

fn unmet(question: &str) -> Vec<String> {
    match build(question) {
        MetricBuild::Unmet { reasons } => reasons,
        other => panic!("{question} should not be answered: {other:?}"),
    }
}

#[test]
fn an_order_by_a_dimension_sorts_the_rows_by_its_values() {
    for (question, direction) in [
        ("今年各分馆的借阅量按分馆排序", OrderDir::Asc),
        ("今年借阅量按分馆升序排列", OrderDir::Asc),
        ("今年各类别的罚款按类别降序", OrderDir::Desc),
        ("loans by branch this year sorted by branch", OrderDir::Asc),
    ] {
        let q = query(question);
        let sort = q.sort.as_ref().unwrap_or_else(|| panic!("{question}: {q:?}"));
        assert_eq!(sort.direction, direction, "{question}");
        assert!(q.group_by.contains(&sort.dimension), "{question}: {q:?}");
        assert!(q.order.is_none(), "{question}: {q:?}");
    }
    // By a measure it is a ranking, highest first unless said.
    let q = query("今年各分馆的借阅量按借阅量排序");
    assert!(q.sort.is_none(), "{q:?}");
    let order = q.order.clone().expect("ranked");
    assert_eq!((order.measure.as_str(), order.direction), ("借阅量", OrderDir::Desc));
    assert_eq!(q.group_by, vec!["分馆".to_string()], "{q:?}");
    let q = query("今年各分馆的罚款按罚款升序排列");
    assert_eq!(q.order.map(|o| o.direction), Some(OrderDir::Asc));
    // A dimension the model lacks is refused, never ignored.
    assert!(!unmet("今年各分馆的借阅量按读者排序").is_empty());
}

#[test]
fn an_accumulating_total_over_time_buckets_is_a_running_total() {
    let q = query("今年每月的累计借阅量");
    assert!(q.cumulative && q.grain == Some(Grain::Month), "{q:?}");
    let q = query("今年各分馆每月的累计罚款");
    assert!(q.cumulative && q.group_by == vec!["分馆".to_string()], "{q:?}");
    let q = query("cumulative monthly fines this year");
    assert!(q.cumulative, "{q:?}");
    // Without a time grouping 累计 is the period's total.
    let q = query("今年累计借阅量");
    assert!(!q.cumulative && q.grain.is_none(), "{q:?}");
    // A mean does not add up: refused, never summed.
    let reasons = unmet("今年每月的累计平均罚款");
    assert!(reasons.iter().any(|r| r.contains("累计")), "{reasons:?}");
    let reasons = unmet("今年每月的累计平均每次罚款");
    assert!(!reasons.is_empty());
}

#[test]
fn sorts_and_running_totals_compile_on_every_dialect_and_are_checked() {
    let catalog = library();
    let model = catalog
        .get("library_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let sorted = query("今年各类别的罚款按类别降序").resolve(&model).unwrap();
    let running = query("今年各分馆每月的累计罚款").resolve(&model).unwrap();
    for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
        let sql = compile(&model, &sorted, &[], sorted.range.as_ref(), &[None], dialect)
            .statement
            .sql;
        let quote = if dialect == Dialect::MySql { '`' } else { '"' };
        assert!(sql.ends_with(&format!("ORDER BY {quote}d0{quote} DESC")), "{sql}");
        let sql = compile(&model, &running, &[], running.range.as_ref(), &[None], dialect)
            .statement
            .sql;
        assert!(sql.contains(") OVER (PARTITION BY "), "{sql}");
        assert!(sql.contains("SUM(SUM("), "{sql}");
    }
    let bad = |value: Value| serde_json::from_value::<MetricQuery>(value).unwrap().resolve(&model);
    let err =
        bad(json!({"measures": [{"name": "罚款"}], "sort": {"dimension": "分馆", "direction": "asc"}})).unwrap_err();
    assert_eq!(err.field, "sort.dimension");
    let err = bad(json!({"measures": [{"name": "罚款"}], "groupBy": ["分馆"],
        "order": {"measure": "罚款", "direction": "desc"}, "sort": {"dimension": "分馆", "direction": "asc"}}))
    .unwrap_err();
    assert_eq!(err.field, "sort");
    let err = bad(json!({"measures": [{"name": "罚款"}], "cumulative": true})).unwrap_err();
    assert_eq!(err.field, "cumulative");
    let err = bad(json!({"measures": [{"name": "平均罚款"}], "grain": "month", "cumulative": true})).unwrap_err();
    assert_eq!(err.field, "measures[0]");
    let err = bad(json!({"measures": [{"name": "罚款", "aggregate": "avg"}], "grain": "month", "cumulative": true}))
        .unwrap_err();
    assert_eq!(err.field, "measures[0]");
}

// ---- The demo data, against truth queries ----

/// `(question, truth SQL)`: the answer has the truth's rows in its order, no more.
fn demo_cases() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "今年每月的累计销售额",
            "SELECT substr(day, 1, 7) AS t, SUM(SUM(amount)) OVER (ORDER BY substr(day, 1, 7)) FROM sales \
             WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY t ORDER BY t",
        ),
        (
            "今年各地区每月的累计订单数",
            "SELECT region, substr(day, 1, 7) AS t, SUM(COUNT(*)) OVER (PARTITION BY region ORDER BY substr(day, 1, 7)) \
             FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY region, t ORDER BY t, region",
        ),
        (
            "上个月各地区的销售额按地区排序",
            "SELECT region, SUM(amount) FROM sales WHERE day BETWEEN '2026-10-01' AND '2026-10-31' \
             GROUP BY region ORDER BY region",
        ),
        (
            "上个月各产品的销量按产品降序排列",
            "SELECT product, SUM(quantity) FROM sales WHERE day BETWEEN '2026-10-01' AND '2026-10-31' \
             GROUP BY product ORDER BY product DESC",
        ),
        (
            "sales by region last month sorted by region",
            "SELECT region, SUM(amount) FROM sales WHERE day BETWEEN '2026-10-01' AND '2026-10-31' \
             GROUP BY region ORDER BY region",
        ),
    ]
}

demo_cases_on_every_dialect!("sort-running", &demo_cases());
