//! The metric builder on an English model of its own (cloud subscriptions): a number the query does not use is
//! refused by name, never dropped (a bare year must not widen to all time), and names of several words match.

use jiff::civil::Date;
use serde_json::{Value, json};
use wenshu_contract::Catalog;
use wenshu_contract::metric::MetricQuery;
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::{MetricBuild, MetricValues};

fn catalog() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "subscription_metrics",
        "description": "Subscription metrics",
        "x-metrics": {
            "from": [{"table": "subs", "alias": "s", "columns": ["id", "sold_on", "plan", "channel", "price"]}],
            "time": {"column": "s.sold_on", "grains": ["day", "month", "year"]},
            "measures": [
                {"name": "revenue", "label": "revenue", "synonyms": ["amount"], "expr": "SUM(s.price)"},
                {"name": "orders", "label": "number of orders", "expr": "COUNT(*)"}
            ],
            "dimensions": [
                {"name": "channel", "label": "channel", "column": "s.channel"},
                {"name": "plan", "label": "plan", "column": "s.plan"}
            ]
        }
    }]}))
    .expect("subscriptions catalog")
}

fn build(question: &str) -> MetricBuild {
    let catalog = catalog();
    let tool = catalog.get("subscription_metrics").unwrap();
    let mut values = MetricValues::new();
    let texts = |list: &[&str]| list.iter().map(|s| Value::from(*s)).collect::<Vec<_>>();
    values.insert(tool, 0, texts(&["web", "partner", "app store"]));
    values.insert(tool, 1, texts(&["Cloud Drive Pro", "Cloud Drive", "Mail Basic"]));
    let today: Date = "2026-11-29".parse().unwrap();
    build_query(tool, &values, question, today)
}

fn query(question: &str) -> MetricQuery {
    match build(question) {
        MetricBuild::Query { query } => query,
        other => panic!("{question}: {other:?}"),
    }
}

fn reasons(question: &str) -> Vec<String> {
    match build(question) {
        MetricBuild::Unmet { reasons } => reasons,
        other => panic!("{question}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_question_without_numbers_is_built() {
    let q = query("amount by channel");
    assert_eq!(q.measures.len(), 1, "{q:?}");
    assert_eq!(q.measures[0].name, "revenue");
    assert_eq!(q.group_by, vec!["channel".to_string()]);
    assert!(q.time_range.is_none(), "{q:?}");
}

#[test]
fn a_number_the_query_does_not_use_is_refused_by_name() {
    let reasons = reasons("amount by channel 42");
    assert!(reasons.iter().any(|r| r.contains("42")), "{reasons:?}");
}

#[test]
fn a_year_after_a_preposition_is_that_year() {
    for question in [
        "amount by channel in 2025",
        "amount by channel for 2025",
        "amount by channel during 2025",
    ] {
        let q = query(question);
        let range = q
            .time_range
            .as_ref()
            .unwrap_or_else(|| panic!("{question}: all time: {q:?}"));
        assert_eq!(
            (range.start.as_str(), range.end.as_str()),
            ("2025-01-01", "2025-12-31"),
            "{question}"
        );
        assert_eq!(q.group_by, vec!["channel".to_string()], "{question}");
    }
}

#[test]
fn a_bare_year_never_widens_to_all_time() {
    let reasons = reasons("amount by channel 2025");
    assert!(reasons.iter().any(|r| r.contains("2025")), "{reasons:?}");
}

#[test]
fn names_of_several_words_match() {
    let q = query("number of orders of Cloud Drive Pro");
    assert_eq!(q.measures.len(), 1, "{q:?}");
    assert_eq!(q.measures[0].name, "number of orders");
    assert_eq!(q.filters.len(), 1, "{q:?}");
    assert_eq!(q.filters[0].dimension, "plan");
    assert_eq!(q.filters[0].values, vec!["Cloud Drive Pro".to_string()]);
}

#[test]
fn a_value_of_several_words_is_a_filter() {
    let q = query("amount of app store");
    assert_eq!(q.filters.len(), 1, "{q:?}");
    assert_eq!(q.filters[0].dimension, "channel");
    assert_eq!(q.filters[0].values, vec!["app store".to_string()]);
}
