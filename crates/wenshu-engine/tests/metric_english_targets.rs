//! An English grouping or ranking names a dimension in several words (`by ship country`, `top 5 ship countries`):
//! the words after the first are read while they and it name one dimension whole — the first word alone (`ship`)
//! starts several names (ship region, ship country, shippers) and would be read as whichever came first.

use serde_json::json;
use wenshu_contract::Catalog;
use wenshu_contract::metric::{MetricQuery, OrderDir};
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::{MetricBuild, MetricValues};

fn catalog() -> Catalog {
    Catalog::from_value(&json!({"tools": [{"name": "orders_metrics", "description": "orders",
        "x-metrics": {
            "from": [{"table": "orders", "columns": ["id", "day", "shipper", "ship_region", "ship_country", "freight"]}],
            "time": {"column": "day", "type": "text"},
            "measures": [
                {"name": "freight", "label": "运费", "synonyms": ["freight"], "expr": "SUM(freight)"},
                {"name": "orders", "label": "订单数", "synonyms": ["orders", "number of orders"], "expr": "COUNT(*)"}],
            "dimensions": [
                {"name": "shipper", "label": "承运商", "synonyms": ["shippers", "shipper"], "column": "shipper",
                 "values": ["Speedy", "United"]},
                {"name": "ShipRegion", "label": "发货地区", "column": "ship_region", "values": ["North", "South"]},
                {"name": "ShipCountry", "label": "发货国家", "column": "ship_country", "values": ["France", "Peru"]}]}}]}))
    .unwrap()
}

fn query(question: &str) -> MetricQuery {
    let catalog = catalog();
    let tool = catalog.get("orders_metrics").unwrap();
    match build_query(tool, &MetricValues::new(), question, "2026-06-01".parse().unwrap()) {
        MetricBuild::Query { query } => query,
        MetricBuild::Unmet { reasons } => panic!("{question}: {reasons:?}"),
    }
}

#[test]
fn the_words_after_an_english_target_name_the_dimension() {
    assert_eq!(query("Number of orders by ship country").group_by, vec!["发货国家"]);
    assert_eq!(query("orders by ship region").group_by, vec!["发货地区"]);
    assert_eq!(query("Number of orders by shipper").group_by, vec!["承运商"]);
    let top = query("Top 5 ship countries by freight");
    assert_eq!(top.group_by, vec!["发货国家"]);
    assert_eq!(top.limit, Some(5));
    let order = top.order.expect("ranked");
    assert_eq!((order.measure.as_str(), order.direction), ("运费", OrderDir::Desc));
}
