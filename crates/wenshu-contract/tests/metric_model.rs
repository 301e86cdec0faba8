//! `x-metrics` at catalog load: the demo's metric tools compile, broken models fail naming the tool and the field,
//! and metric queries are checked name by name.

use serde_json::{Value, json};
use wenshu_contract::metric::{CompareKind, Grain, MetricQuery, OrderDir, TimeType};
use wenshu_contract::{Catalog, CatalogError};

/// A shipments model of another domain (logistics), written here from the README alone.
fn shipments(edit: impl FnOnce(&mut Value)) -> Value {
    let mut tool = json!({
        "name": "shipment_metrics",
        "description": "运单指标",
        "x-metrics": {
            "from": [
                {"table": "shipments", "alias": "s", "columns": ["id", "shipped_on", "carrier_id", "weight_kg", "fee"]},
                {"table": "carriers", "alias": "c", "columns": ["id", "name", "mode"], "on": ["s.carrier_id", "c.id"]}
            ],
            "time": {"column": "s.shipped_on", "type": "date", "grains": ["day", "month"]},
            "measures": [
                {"name": "fee", "label": "运费", "expr": "SUM(s.fee)", "unit": "元", "aggregations": ["avg", "max"]},
                {"name": "count", "label": "运单数", "expr": "COUNT(*)"},
                {"name": "fee_per_kg", "label": "每公斤运费", "expr": "SUM(s.fee) * 1.0 / NULLIF(SUM(s.weight_kg), 0)"}
            ],
            "dimensions": [
                {"name": "carrier", "label": "承运商", "column": "c.name"},
                {"name": "mode", "label": "运输方式", "column": "mode", "values": ["陆运", "空运"]}
            ]
        }
    });
    edit(&mut tool);
    json!({"tools": [tool]})
}

fn refused(document: Value) -> (String, String, String) {
    match Catalog::from_value(&document).expect_err("the model must be refused") {
        CatalogError::Tool { tool, field, reason } => (tool, field, reason),
        other => panic!("expected a tool error, got {other}"),
    }
}

#[test]
fn the_demo_metric_tools_compile_with_their_measures_and_grains() {
    let catalog = wenshu_contract::demo_catalog().expect("demo catalog");
    let sales = catalog.get("sales_metrics").expect("sales_metrics");
    let model = sales.extensions().metrics.as_ref().expect("x-metrics");
    let labels: Vec<&str> = model.measures.iter().map(|m| m.label.as_str()).collect();
    assert_eq!(labels, ["销售额", "销量", "订单数", "客单价"]);
    assert_eq!(model.time.as_ref().map(|t| t.grains.len()), Some(5));
    assert!(
        sales.param("measures").is_some(),
        "a metric tool's inputSchema comes from its model"
    );
    let box_office = catalog
        .get("box_office_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    assert_eq!(
        box_office.tables[1].join.as_ref().map(|(l, _)| l.table.as_str()),
        Some("b")
    );
    assert!(
        catalog
            .get("rating_metrics")
            .unwrap()
            .extensions()
            .metrics
            .as_ref()
            .unwrap()
            .time
            .is_none()
    );
}

#[test]
fn a_model_of_another_domain_compiles() {
    let catalog = Catalog::from_value(&shipments(|_| {})).expect("shipments model");
    let model = catalog
        .get("shipment_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    assert_eq!(model.time.as_ref().unwrap().ty, TimeType::Date);
    assert_eq!(
        model.dimensions[1].column.table, "c",
        "a bare column resolves to the one table holding it"
    );
    assert_eq!(model.measures[0].label, "运费");
}

#[test]
fn an_unknown_column_fails_at_load_naming_the_tool_and_the_field() {
    let (tool, field, reason) = refused(shipments(|t| {
        t["x-metrics"]["measures"][0]["expr"] = json!("SUM(s.price)")
    }));
    assert_eq!(tool, "shipment_metrics");
    assert_eq!(field, "x-metrics.measures[0].expr");
    assert!(reason.contains("s.price"), "{reason}");
    let (_, field, _) = refused(shipments(|t| {
        t["x-metrics"]["dimensions"][0]["column"] = json!("c.label")
    }));
    assert_eq!(field, "x-metrics.dimensions[0].column");
    let (_, field, reason) = refused(shipments(|t| t["x-metrics"]["measures"][0]["expr"] = json!("SUM(id)")));
    assert_eq!(field, "x-metrics.measures[0].expr");
    assert!(reason.contains("several tables"), "{reason}");
}

#[test]
fn a_non_aggregate_or_a_forbidden_function_fails_at_load() {
    let (_, field, reason) = refused(shipments(|t| t["x-metrics"]["measures"][1]["expr"] = json!("s.fee")));
    assert_eq!(field, "x-metrics.measures[1].expr");
    assert!(reason.contains("outside an aggregate"), "{reason}");
    let (_, _, reason) = refused(shipments(|t| {
        t["x-metrics"]["measures"][1]["expr"] = json!("SUM(pg_sleep(1))")
    }));
    assert!(reason.contains("pg_sleep"), "{reason}");
    let (_, field, _) = refused(shipments(|t| {
        t["x-metrics"]["measures"][2]["aggregations"] = json!(["avg"])
    }));
    assert_eq!(field, "x-metrics.measures[2].aggregations");
    let (_, field, _) = refused(shipments(|t| t["x-metrics"]["time"]["grains"] = json!(["hour"])));
    assert_eq!(field, "x-metrics.time.grains");
    let (_, field, _) = refused(shipments(|t| t["x-metrics"]["dimensions"][1]["label"] = json!("运费")));
    assert_eq!(field, "x-metrics.dimensions[1]");
    let (_, field, _) = refused(shipments(|t| {
        t["x-metrics"]["from"][1]["table"] = json!("carriers; drop")
    }));
    assert_eq!(field, "x-metrics.from[1].table");
}

#[test]
fn a_metric_query_is_checked_name_by_name() {
    let catalog = Catalog::from_value(&shipments(|_| {})).unwrap();
    let model = catalog
        .get("shipment_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let query: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "运费"}],
        "groupBy": ["承运商"],
        "grain": "month",
        "order": {"measure": "运单数", "direction": "desc"},
        "limit": 3,
        "timeRange": {"start": "2026-01-01", "end": "2026-03-31"}
    }))
    .unwrap();
    let resolved = query.resolve(&model).expect("valid query");
    assert_eq!(resolved.measures.len(), 2, "the ordering measure is shown too");
    assert_eq!(resolved.order, Some((1, OrderDir::Desc)));
    assert_eq!(resolved.grain, Some(Grain::Month));

    let mut bad = query.clone();
    bad.group_by = vec!["仓库".into()];
    let error = bad.resolve(&model).unwrap_err();
    assert_eq!(error.field, "groupBy[0]");
    assert!(
        error.reason.contains("仓库") && error.reason.contains("承运商"),
        "{}",
        error.reason
    );

    let mut bad = query.clone();
    bad.grain = Some(Grain::Week);
    assert_eq!(bad.resolve(&model).unwrap_err().field, "grain");

    let mut bad = query.clone();
    bad.limit = Some(0);
    assert_eq!(bad.resolve(&model).unwrap_err().field, "limit");

    let mut bad = query;
    bad.grain = None;
    bad.compare = Some(wenshu_contract::metric::Compare {
        kind: CompareKind::YearOverYear,
        range: None,
        rank: None,
    });
    bad.time_range = None;
    assert_eq!(bad.resolve(&model).unwrap_err().field, "compare");
    let sql_in_a_name: Result<MetricQuery, _> =
        serde_json::from_value(json!({"measures": [{"name": "运费"}], "sql": "DROP TABLE x"}));
    assert!(sql_in_a_name.is_err(), "unknown fields are refused");
}

/// The metric query the README shows resolves against the demo's sales model, as written.
#[test]
fn the_readmes_metric_query_resolves_on_the_demo_model() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let block = readme
        .split("```json\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .find(|b| b.contains("\"relative\""))
        .expect("the README shows a metric query with `relative`");
    let query: MetricQuery = serde_json::from_str(block).expect("the README's query parses");
    let catalog = wenshu_contract::demo_catalog().unwrap();
    let model = catalog
        .get("sales_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let resolved = query.resolve(&model).expect("the README's query resolves");
    assert!(resolved.relative.is_some_and(|(_, _, within)| within.is_some()));
}

/// A table whose name is no identifier (`Order Details`) is held quoted, under an alias the model gives it; without
/// an alias, or with a quote in its name, it is refused naming the field.
#[test]
fn a_table_named_with_a_space_is_read_under_its_alias() {
    let lines = |table: &str, alias: Option<&str>| {
        let mut from = json!({"table": table, "columns": ["id", "price", "qty"]});
        if let Some(alias) = alias {
            from["alias"] = json!(alias);
        }
        json!({"tools": [{"name": "line_metrics", "description": "明细",
            "x-metrics": {"from": [from], "measures": [{"name": "revenue", "label": "收入",
                "expr": "SUM(od.price * od.qty)"}], "dimensions": []}}]})
    };
    let catalog = Catalog::from_value(&lines("Order Details", Some("od"))).expect("loads");
    let model = catalog
        .get("line_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    assert_eq!(
        (model.tables[0].name.as_str(), model.tables[0].alias.as_str()),
        ("Order Details", "od")
    );
    let err = Catalog::from_value(&lines("Order Details", None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("alias") && err.contains("Order Details"), "{err}");
    let err = Catalog::from_value(&lines("Order\"Details", Some("od")))
        .unwrap_err()
        .to_string();
    assert!(err.contains(".table"), "{err}");
}
