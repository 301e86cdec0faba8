//! 人均 (issue 26, shape 3, a derived measure): a sum or a count over the number of distinct people of the dimension
//! of people named right before it — 销售人均销售额 = sales over the number of salespeople, never the sum itself; a
//! bare 人均 (whose heads: customers, staff, patients?) is refused, and so is a measure that does not add up. On the demo data against truth
//! queries on SQLite, and on PostgreSQL / MariaDB when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

#[macro_use]
mod demo_truth;

use serde_json::json;
use wenshu_contract::metric::MetricQuery;
use wenshu_contract::{Catalog, demo_catalog};
use wenshu_engine::metric::build::{build_query, choose};
use wenshu_engine::metric::{MetricBuild, MetricValues};

/// A library's loans, with its readers: words of no demo catalog.
fn library(readers: bool) -> Catalog {
    let mut dimensions = vec![json!({"name": "branch", "label": "分馆", "column": "l.branch"})];
    if readers {
        dimensions.push(json!({"name": "reader", "label": "读者", "column": "l.reader"}));
    }
    Catalog::from_value(&json!({"tools": [{
        "name": "library_metrics",
        "description": "借阅指标",
        "x-metrics": {
            "from": [{"table": "loans", "alias": "l", "columns": ["id", "lent_on", "branch", "reader", "fine"]}],
            "time": {"column": "l.lent_on", "grains": ["day", "month", "year"]},
            "measures": [
                {"name": "fine", "label": "罚款", "expr": "SUM(l.fine)", "unit": "元"},
                {"name": "loans", "label": "借阅量", "expr": "COUNT(*)", "unit": "次"}
            ],
            "dimensions": dimensions
        }
    }]}))
    .expect("library catalog")
}

fn build(readers: bool, question: &str) -> MetricBuild {
    let catalog = library(readers);
    let tool = catalog.get("library_metrics").unwrap();
    build_query(tool, &MetricValues::new(), question, "2026-11-29".parse().unwrap())
}

#[test]
fn per_person_divides_by_the_people_counted() {
    let MetricBuild::Query { query } = build(true, "今年各分馆的读者人均借阅量") else {
        panic!("answered");
    };
    assert_eq!(query.measures[0].over.as_deref(), Some("读者"), "{query:?}");
    assert_eq!(query.group_by, vec!["分馆".to_string()]);
    // The people not named, or no dimension of people: refused, never the plain total.
    for (readers, question) in [(true, "今年各分馆的人均借阅量"), (false, "今年各分馆的人均借阅量")]
    {
        let MetricBuild::Unmet { reasons } = build(readers, question) else {
            panic!("{question} refused");
        };
        assert!(reasons.iter().any(|r| r.contains("人均")), "{reasons:?}");
    }
    let catalog = library(true);
    let model = catalog
        .get("library_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let bad = |q: serde_json::Value| serde_json::from_value::<MetricQuery>(q).unwrap().resolve(&model);
    let err = bad(json!({"measures": [{"name": "罚款", "aggregate": "avg", "over": "读者"}]})).unwrap_err();
    assert_eq!(err.field, "measures[0].aggregate");
    let err = bad(json!({"measures": [{"name": "罚款", "over": "书名"}]})).unwrap_err();
    assert_eq!(err.field, "measures[0].over");
    // A mean per person does not add up over time: no running total of it.
    let err =
        bad(json!({"measures": [{"name": "罚款", "over": "读者"}], "grain": "month", "cumulative": true})).unwrap_err();
    assert_eq!(err.field, "measures[0]");
}

#[test]
fn a_per_person_word_is_never_swallowed_by_a_grouping() {
    // 各产品人均订单数: 人均 is no part of the grouping's word (产品人), so it is read — and, whose heads unsaid,
    // refused rather than answered as the plain count.
    let catalog = demo_catalog().unwrap();
    let today = "2026-11-29".parse().unwrap();
    let built = choose(&catalog, &MetricValues::new(), "今年各产品人均订单数", today).map(|(_, b)| b);
    let Some(MetricBuild::Unmet { reasons }) = built else {
        panic!("{built:?}");
    };
    assert!(reasons.iter().any(|r| r.contains("销售人均")), "{reasons:?}");
}

const DEMO_CASES: &[(&str, &str)] = &[
    (
        "今年各地区的销售人均销售额",
        "SELECT region, SUM(amount) * 1.0 / COUNT(DISTINCT sales_person) FROM sales \
         WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY region ORDER BY region",
    ),
    (
        "上个月销售人均订单数",
        "SELECT COUNT(*) * 1.0 / COUNT(DISTINCT sales_person) FROM sales \
         WHERE day BETWEEN '2026-10-01' AND '2026-10-31'",
    ),
];

demo_cases_on_every_dialect!("per-person", DEMO_CASES);
