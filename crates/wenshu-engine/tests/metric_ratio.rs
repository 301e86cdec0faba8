//! Derived measures (issue 26, shape 3): a measure per another's unit or thing (平均每单销量, 每套多少钱, 单均销量,
//! average quantity per order), the ratio or difference of two named measures (销售额除以销量, 销售额与订单数之比,
//! 收入减去成本), and a total per person said with 平均每个 or `per` (平均每个销售的销售额, fee per driver): computed
//! from the two totals, never a mean of ratios. What cannot be combined (different units, a mean, one measure said
//! twice) is refused naming it. On the demo data against truth queries on SQLite, and on PostgreSQL / MariaDB when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

#[macro_use]
mod demo_truth;

use serde_json::json;
use wenshu_contract::Catalog;
use wenshu_contract::metric::MetricQuery;
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::{MetricBuild, MetricValues};

/// A workshop's jobs: words of no demo catalog.
fn workshop() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "workshop_metrics",
        "description": "车间指标",
        "x-metrics": {
            "from": [{"table": "jobs", "alias": "j", "columns": ["id", "done_on", "line", "worker", "income", "cost", "parts"]}],
            "time": {"column": "j.done_on", "grains": ["day", "month", "year"]},
            "measures": [
                {"name": "income", "label": "收入", "expr": "SUM(j.income)", "unit": "元", "aggregations": ["avg"]},
                {"name": "cost", "label": "成本", "expr": "SUM(j.cost)", "unit": "元"},
                {"name": "parts", "label": "部件数", "synonyms": ["部件"], "expr": "SUM(j.parts)", "unit": "个"},
                {"name": "jobs", "label": "工单数", "synonyms": ["工单"], "expr": "COUNT(*)", "unit": "张"},
                {"name": "unit_cost", "label": "平均成本", "expr": "AVG(j.cost)", "unit": "元"}
            ],
            "dimensions": [
                {"name": "line", "label": "产线", "column": "j.line"},
                {"name": "worker", "label": "工人", "column": "j.worker"}
            ]
        }
    }]}))
    .expect("workshop catalog")
}

fn build(question: &str) -> MetricBuild {
    let catalog = workshop();
    let tool = catalog.get("workshop_metrics").unwrap();
    build_query(tool, &MetricValues::new(), question, "2026-11-29".parse().unwrap())
}

fn query(question: &str) -> MetricQuery {
    match build(question) {
        MetricBuild::Query { query } => query,
        MetricBuild::Unmet { reasons } => panic!("{question}: {reasons:?}"),
    }
}

fn reasons(question: &str) -> Vec<String> {
    match build(question) {
        MetricBuild::Unmet { reasons } => reasons,
        MetricBuild::Query { query } => panic!("{question} answered: {query:?}"),
    }
}

#[test]
fn a_measure_per_another_is_read_from_the_unit_or_the_thing() {
    for (question, top, bottom) in [
        ("今年平均每张工单的收入", "收入", "工单数"),
        ("今年每张工单平均收入", "收入", "工单数"),
        ("今年平均每个部件的成本", "成本", "部件数"),
        ("本月各产线的张均部件数", "部件数", "工单数"),
        ("今年平均每张工单多少个部件", "部件数", "工单数"),
        ("今年收入除以部件数", "收入", "部件数"),
        ("今年收入与工单数之比", "收入", "工单数"),
        ("ratio of income to parts this year", "收入", "部件数"),
        ("average parts per job this year", "部件数", "工单数"),
    ] {
        let q = query(question);
        assert_eq!(q.measures.len(), 1, "{question}: {q:?}");
        assert_eq!(q.measures[0].name, top, "{question}: {q:?}");
        assert_eq!(q.measures[0].divided_by.as_deref(), Some(bottom), "{question}: {q:?}");
        assert_eq!(
            q.measures[0].aggregate, None,
            "{question}: a ratio is no mean of records"
        );
    }
    let q = query("今年收入减去成本");
    assert_eq!(q.measures[0].minus.as_deref(), Some("成本"), "{q:?}");
    let q = query("今年各产线收入与成本之差");
    assert_eq!(q.measures[0].minus.as_deref(), Some("成本"), "{q:?}");
    assert_eq!(q.group_by, vec!["产线".to_string()]);
}

#[test]
fn a_total_per_person_is_read_from_per_and_from_a_mean_per_each() {
    for question in [
        "今年平均每个工人的收入",
        "income per worker by line this year",
        "今年各产线平均每位工人的工单数",
    ] {
        let q = query(question);
        assert_eq!(q.measures[0].over.as_deref(), Some("工人"), "{question}: {q:?}");
        assert!(
            !q.group_by.contains(&"工人".to_string()),
            "{question}: per person is no grouping"
        );
    }
}

#[test]
fn what_cannot_be_combined_is_refused_naming_it() {
    // Different units: no difference.
    assert!(
        reasons("今年收入减去部件数").iter().any(|r| r.contains("units")),
        "units"
    );
    // A mean is no total to divide.
    assert!(!reasons("今年平均成本除以部件数").is_empty());
    // One measure said twice, once per job and once not: which is which is not known.
    let said = reasons("今年收入最高的产线每张工单收入");
    assert!(said.iter().any(|r| r.contains("收入")), "{said:?}");
    // Per what? Nothing else named.
    assert!(!reasons("今年平均每张工单").is_empty());
    // 单次 names no measure (单笔 would be money): refused, never a threshold on the groups' totals.
    let single = reasons("今年各产线单次超过500的工单数");
    assert!(single.iter().any(|r| r.contains("单次")), "{single:?}");
    let catalog = workshop();
    let model = catalog
        .get("workshop_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let bad = |q: serde_json::Value| serde_json::from_value::<MetricQuery>(q).unwrap().resolve(&model);
    for (q, field) in [
        (
            json!({"measures": [{"name": "收入", "dividedBy": "产线"}]}),
            "measures[0].dividedBy",
        ),
        (
            json!({"measures": [{"name": "收入", "dividedBy": "收入"}]}),
            "measures[0].dividedBy",
        ),
        (
            json!({"measures": [{"name": "收入", "dividedBy": "平均成本"}]}),
            "measures[0].dividedBy",
        ),
        (
            json!({"measures": [{"name": "收入", "minus": "部件数"}]}),
            "measures[0].minus",
        ),
        (
            json!({"measures": [{"name": "收入", "minus": "成本", "dividedBy": "工单数"}]}),
            "measures[0]",
        ),
        (
            json!({"measures": [{"name": "收入", "aggregate": "avg", "dividedBy": "工单数"}]}),
            "measures[0].dividedBy",
        ),
        (
            json!({"measures": [{"name": "产线", "distinct": true, "dividedBy": "工单数"}]}),
            "measures[0]",
        ),
        (
            json!({"measures": [{"name": "收入", "dividedBy": "工单数"}], "grain": "month", "cumulative": true}),
            "measures[0]",
        ),
        (
            json!({"measures": [{"name": "收入", "dividedBy": "工单数"}], "groupBy": ["产线"], "share": {"across": ["产线"]}}),
            "measures[0]",
        ),
    ] {
        let err = bad(q.clone()).expect_err(&q.to_string());
        assert_eq!(err.field, field, "{q}: {err}");
    }
}

const DEMO_CASES: &[(&str, &str)] = &[
    (
        "今年各地区平均每单销量",
        "SELECT region, SUM(quantity) * 1.0 / COUNT(*) FROM sales \
         WHERE day BETWEEN '2026-01-01' AND '2026-12-31' GROUP BY region ORDER BY region",
    ),
    (
        "今年平均每套多少钱",
        "SELECT SUM(amount) * 1.0 / SUM(quantity) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31'",
    ),
    (
        "上个月每单销售额最高的三个销售",
        "SELECT sales_person, SUM(amount) * 1.0 / COUNT(*) AS m FROM sales \
         WHERE day BETWEEN '2026-10-01' AND '2026-10-31' GROUP BY sales_person ORDER BY m DESC LIMIT 3",
    ),
    (
        "今年平均每单销量超过2.9的产品",
        "SELECT product, SUM(quantity) * 1.0 / COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY product HAVING SUM(quantity) * 1.0 / COUNT(*) > 2.9 ORDER BY product",
    ),
    (
        "上个月每个月的每单销售额",
        "SELECT substr(day, 1, 7), SUM(amount) * 1.0 / COUNT(*) FROM sales \
         WHERE day BETWEEN '2026-10-01' AND '2026-10-31' GROUP BY substr(day, 1, 7)",
    ),
    (
        "今年平均每个销售的销售额",
        "SELECT SUM(amount) * 1.0 / COUNT(DISTINCT sales_person) FROM sales \
         WHERE day BETWEEN '2026-01-01' AND '2026-12-31'",
    ),
    // 每单 / 单笔 before a threshold: each record's value when records are counted, the ratio per order when the
    // groups after it are compared; 单笔 alone is a sum of money (笔).
    (
        "上个月单笔超过5万的订单按地区的数量",
        "SELECT region, COUNT(*) FROM sales WHERE day BETWEEN '2026-10-01' AND '2026-10-31' AND amount > 50000 \
         GROUP BY region ORDER BY region",
    ),
    (
        "今年每单金额超过5万的订单有多少",
        "SELECT SUM(amount), COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' AND amount > 50000",
    ),
    (
        "今年每单销量超过2.9的产品",
        "SELECT product, SUM(quantity) * 1.0 / COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY product HAVING SUM(quantity) * 1.0 / COUNT(*) > 2.9 ORDER BY product",
    ),
];

demo_cases_on_every_dialect!("ratio", DEMO_CASES);

#[test]
fn a_grouping_glued_to_a_measure_groups_by_the_dimension() {
    // 各产线收入: the target read is 产线收入 — the dimension, then a measure — never dropped as a measure's word.
    let q = query("今年各产线收入");
    assert_eq!(q.group_by, vec!["产线".to_string()], "{q:?}");
    assert_eq!(q.measures[0].name, "收入");
}
