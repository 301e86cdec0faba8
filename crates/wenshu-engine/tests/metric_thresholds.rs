//! Two or more thresholds on the groups (issue 26, shape 6): 销售额超过1000万且订单数超过300的销售 keeps the groups
//! passing all of them, …或… those passing any; 且 and 或 mixed, or a further threshold on a mean or a share, are
//! refused. On the demo data against truth queries on SQLite, and on PostgreSQL / MariaDB when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

#[macro_use]
mod demo_truth;

use serde_json::json;
use wenshu_contract::demo_catalog;
use wenshu_engine::metric::build::choose;
use wenshu_engine::metric::{MetricBuild, MetricValues};

fn built(question: &str) -> MetricBuild {
    let catalog = demo_catalog().unwrap();
    choose(&catalog, &MetricValues::new(), question, "2026-11-29".parse().unwrap())
        .map(|(_, b)| b)
        .expect("a metric tool")
}

#[test]
fn thresholds_joined_by_and_or_or_keep_the_groups_passing_all_or_any() {
    let MetricBuild::Query { query } = built("今年销售额超过1000万且订单数超过300的销售") else {
        panic!("answered");
    };
    assert_eq!(query.group_by, vec!["销售".to_string()]);
    assert_eq!(query.also_having.len(), 1);
    assert!(!query.having_any);
    let MetricBuild::Query { query } = built("今年销售额超过2000万或订单数低于500的销售") else {
        panic!("answered");
    };
    assert!(
        query.having_any && query.also_having[0].measure == "订单数",
        "{query:?}"
    );
    for question in [
        "今年销售额超过1000万且订单数超过300或销量低于1000的销售",
        "今年销售额超过1000万且平均订单数超过3的销售",
    ] {
        assert!(matches!(built(question), MetricBuild::Unmet { .. }), "{question}");
    }
    let field = demo_truth::refused_field(json!({"measures": [{"name": "销售额"}], "groupBy": ["销售"],
        "alsoHaving": [{"measure": "订单数", "op": ">", "value": 3}]}));
    assert_eq!(field, "alsoHaving");
    // More thresholds on each record need the first, and a value per record (a count has none).
    let field = demo_truth::refused_field(json!({"measures": [{"name": "订单数"}],
        "alsoEach": [{"measure": "销量", "op": ">", "value": 3}]}));
    assert_eq!(field, "alsoEach");
    let field = demo_truth::refused_field(json!({"measures": [{"name": "订单数"}],
        "each": {"measure": "销量", "op": ">", "value": 3},
        "alsoEach": [{"measure": "订单数", "op": ">", "value": 3}]}));
    assert_eq!(field, "alsoEach[0].measure");
}

#[test]
fn the_things_named_after_a_threshold_are_never_dropped() {
    // 各地区…的产品: each region's products past it, not the regions alone.
    let MetricBuild::Query { query } = built("今年各地区销量超过500的产品") else {
        panic!("answered");
    };
    assert_eq!(
        query.group_by,
        vec!["地区".to_string(), "产品".to_string()],
        "{query:?}"
    );
    // A share inside each region is no share of the whole: refused, never the regions' shares.
    let MetricBuild::Unmet { reasons } = built("今年各地区销售额占比超过30%的产品") else {
        panic!("refused");
    };
    assert!(reasons.iter().any(|r| r.contains("内部的占比")), "{reasons:?}");
}

const DEMO_CASES: &[(&str, &str)] = &[
    (
        "今年销量超过1500且订单数超过540的销售",
        "SELECT sales_person, SUM(quantity), COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY sales_person HAVING SUM(quantity) > 1500 AND COUNT(*) > 540 ORDER BY SUM(quantity) DESC",
    ),
    (
        "今年销量超过1550或订单数低于510的销售",
        "SELECT sales_person, SUM(quantity), COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY sales_person HAVING SUM(quantity) > 1550 OR COUNT(*) < 510 ORDER BY SUM(quantity) DESC",
    ),
    (
        "今年各地区销量超过1000的产品",
        "SELECT region, product, SUM(quantity) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY region, product HAVING SUM(quantity) > 1000 ORDER BY SUM(quantity) DESC, region, product",
    ),
    // Two thresholds on each record, joined by 且 / 或 (the count of the records kept).
    (
        "今年单笔金额超过5万且销量超过3的订单数",
        "SELECT SUM(amount), SUM(quantity), COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         AND amount > 50000 AND quantity > 3",
    ),
    (
        "今年各地区单笔金额超过8万或销量低于2的订单数",
        "SELECT region, SUM(amount), SUM(quantity), COUNT(*) FROM sales \
         WHERE day BETWEEN '2026-01-01' AND '2026-12-31' AND (amount > 80000 OR quantity < 2) \
         GROUP BY region ORDER BY region",
    ),
    // A threshold on each record, then one on the groups of the records kept.
    (
        "今年单笔超过5万的订单数超过265的地区",
        "SELECT region, COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' AND amount > 50000 \
         GROUP BY region HAVING COUNT(*) > 265 ORDER BY COUNT(*) DESC",
    ),
    // English: the things before `with` / `whose` are grouped by; exceed and `no more than` are thresholds.
    (
        "sales persons with quantity above 1500 and orders above 540 this year",
        "SELECT sales_person, SUM(quantity), COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY sales_person HAVING SUM(quantity) > 1500 AND COUNT(*) > 540 ORDER BY SUM(quantity) DESC",
    ),
    (
        "regions whose orders exceed 860 this year",
        "SELECT region, COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY region HAVING COUNT(*) > 860 ORDER BY COUNT(*) DESC",
    ),
];

demo_cases_on_every_dialect!("thresholds", DEMO_CASES);
