//! Bands of each record's value (issue 26, shape 7): the bands a question lists (1万以下、1万到5万、5万以上; under
//! 1000, 1000 to 5000 and over 5000) of the measure named before them, one row per band (per group when grouped),
//! counted by the other measures named. Bands not said, with a gap, or of a value with none per record are refused
//! naming it. On the demo data against truth queries on SQLite, and on PostgreSQL / MariaDB when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

#[macro_use]
mod demo_truth;

use serde_json::json;
use wenshu_contract::Catalog;
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::{MetricBuild, MetricValues};

/// A parking garage's stays: words of no demo catalog.
fn garage() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "parking_metrics",
        "description": "停车指标",
        "x-metrics": {
            "from": [{"table": "stays", "alias": "s", "columns": ["id", "entered_on", "gate", "minutes", "fee"]}],
            "time": {"column": "s.entered_on", "grains": ["day", "month"]},
            "measures": [
                {"name": "fee", "label": "停车费", "expr": "SUM(s.fee)", "unit": "元"},
                {"name": "minutes", "label": "停车时长", "expr": "SUM(s.minutes)", "unit": "分钟"},
                {"name": "stays", "label": "车次", "expr": "COUNT(*)", "unit": "次"},
                {"name": "mean_fee", "label": "平均停车费", "expr": "AVG(s.fee)", "unit": "元"}
            ],
            "dimensions": [{"name": "gate", "label": "入口", "column": "s.gate"}]
        }
    }]}))
    .expect("garage catalog")
}

fn build(question: &str) -> MetricBuild {
    let catalog = garage();
    let tool = catalog.get("parking_metrics").unwrap();
    build_query(tool, &MetricValues::new(), question, "2026-11-29".parse().unwrap())
}

#[test]
fn listed_bands_of_a_value_become_rows() {
    for (question, grouped) in [
        ("本月停车时长在30以下、30到120、120以上的车次", false),
        ("本月各入口停车费在10元以下、10到50、50以上的车次", true),
        ("stays by fee under 10, 10 to 50 and over 50 this month", false),
    ] {
        let MetricBuild::Query { query } = build(question) else {
            panic!("{question}: {:?}", build(question));
        };
        let bands = query.bands.as_ref().expect("bands");
        assert_eq!(query.measures.len(), 1, "{question}: {query:?}");
        assert_eq!(query.measures[0].name, "车次", "{question}");
        assert_eq!(bands.bounds.len(), 2, "{question}: {bands:?}");
        assert_eq!(!query.group_by.is_empty(), grouped, "{question}");
    }
}

#[test]
fn bands_not_said_whole_or_of_no_record_value_are_refused() {
    for (question, said) in [
        ("本月按停车费区间统计车次", "边界"),
        ("本月停车费在10以下、20到50、50以上的车次", "首尾相接"),
        ("本月车次在10以下、10到50、50以上的停车费", "单条"),
        ("本月停车费在10以下、10到50、50以上", "统计什么"),
    ] {
        let MetricBuild::Unmet { reasons } = build(question) else {
            panic!("{question} answered");
        };
        assert!(reasons.iter().any(|r| r.contains(said)), "{question}: {reasons:?}");
    }
    // The query itself: bounds increasing and finite, at most 20, a measure with a value per record.
    for (bands, field) in [
        (json!({"measure": "停车费", "bounds": [50, 10]}), "bands.bounds"),
        (json!({"measure": "停车费", "bounds": []}), "bands.bounds"),
        (json!({"measure": "车次", "bounds": [10]}), "bands.measure"),
        (
            json!({"measure": "停车费", "bounds": (0..21).collect::<Vec<i32>>()}),
            "bands.bounds",
        ),
    ] {
        let catalog = garage();
        let model = catalog
            .get("parking_metrics")
            .unwrap()
            .extensions()
            .metrics
            .clone()
            .unwrap();
        let query: wenshu_contract::metric::MetricQuery =
            serde_json::from_value(json!({"measures": [{"name": "车次"}], "bands": bands})).unwrap();
        assert_eq!(query.resolve(&model).unwrap_err().field, field, "{bands}");
    }
    assert_eq!(
        demo_truth::refused_field(json!({"measures": [{"name": "订单数"}], "grain": "month",
            "bands": {"measure": "销售额", "bounds": [10000]}})),
        "bands"
    );
}

const DEMO_CASES: &[(&str, &str)] = &[
    (
        "今年订单金额在1万以下、1万到5万、5万以上的订单数",
        "SELECT CASE WHEN amount < 10000 THEN '<10000' WHEN amount < 50000 THEN '10000–50000' ELSE '≥50000' END, \
         COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY CASE WHEN amount < 10000 THEN 0 WHEN amount < 50000 THEN 1 ELSE 2 END \
         ORDER BY CASE WHEN amount < 10000 THEN 0 WHEN amount < 50000 THEN 1 ELSE 2 END",
    ),
    (
        "上个月各地区销售额在2万以下、2万以上的订单数和销量",
        "SELECT region, CASE WHEN amount < 20000 THEN '<20000' ELSE '≥20000' END, COUNT(*), SUM(quantity) FROM sales \
         WHERE day BETWEEN '2026-10-01' AND '2026-10-31' \
         GROUP BY region, CASE WHEN amount < 20000 THEN 0 ELSE 1 END \
         ORDER BY region, CASE WHEN amount < 20000 THEN 0 ELSE 1 END",
    ),
    (
        "orders by amount under 10000, 10000 to 50000 and over 50000 last month",
        "SELECT CASE WHEN amount < 10000 THEN '<10000' WHEN amount < 50000 THEN '10000–50000' ELSE '≥50000' END, \
         COUNT(*) FROM sales WHERE day BETWEEN '2026-10-01' AND '2026-10-31' \
         GROUP BY CASE WHEN amount < 10000 THEN 0 WHEN amount < 50000 THEN 1 ELSE 2 END \
         ORDER BY CASE WHEN amount < 10000 THEN 0 WHEN amount < 50000 THEN 1 ELSE 2 END",
    ),
];

demo_cases_on_every_dialect!("bands", DEMO_CASES);
