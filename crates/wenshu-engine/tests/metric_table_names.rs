//! A table whose name is no identifier (`Order Details`, a space in it) is read under the alias its model gives it:
//! the name is quoted in every statement, so the metric query runs through the guard on a real SQLite file and
//! answers the same as SQL written by hand.

use std::sync::Arc;

use serde_json::json;
use wenshu_contract::{Catalog, bind};
use wenshu_engine::db::{Database, QueryLimits};
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::execute::query_params;
use wenshu_engine::metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues};

#[tokio::test]
async fn a_table_named_with_a_space_answers_through_its_alias() {
    let dir = std::env::temp_dir().join(format!("wenshu-table-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("lines.sqlite").display());
    let writable = Database::connect(&url).await.unwrap();
    writable
        .execute_batch(
            "CREATE TABLE \"Order Details\" (id INTEGER PRIMARY KEY, product TEXT, price REAL, qty INTEGER);
             INSERT INTO \"Order Details\" VALUES (1, 'tea', 2.5, 4), (2, 'tea', 3.0, 2), (3, 'coffee', 4.0, 5);",
        )
        .await
        .unwrap();
    writable.close().await;
    let catalog = Catalog::from_value(&json!({"tools": [{"name": "line_metrics", "description": "订单明细",
        "x-metrics": {"from": [{"table": "Order Details", "alias": "od", "columns": ["id", "product", "price", "qty"]}],
            "measures": [{"name": "revenue", "label": "收入", "expr": "SUM(od.price * od.qty)"}],
            "dimensions": [{"name": "product", "label": "商品", "column": "od.product", "values": ["tea", "coffee"]}]}}]}))
    .unwrap();
    let tool = catalog.get("line_metrics").unwrap();
    let db = Database::connect_read_only(&url).await.unwrap();
    let MetricBuild::Query { query } = build_query(
        tool,
        &MetricValues::new(),
        "各商品的收入",
        "2026-11-29".parse().unwrap(),
    ) else {
        panic!("answered");
    };
    let shared = SharedValues::new();
    shared.set(MetricValues::new());
    let executor = Arc::new(MetricExecutor::new(db.clone(), shared));
    let call = bind(tool, &query_params(&query)).unwrap();
    let result = executor
        .execute(tool, &call, &ExecContext::new("2026-11-29".parse().unwrap()))
        .await
        .expect("runs through the guard");
    let truth = db
        .query(
            "SELECT product, SUM(price * qty) FROM \"Order Details\" GROUP BY product ORDER BY product",
            &[],
            QueryLimits::default(),
        )
        .await
        .unwrap()
        .rows;
    assert_eq!(result.rows, truth, "{:?}", result.detail["statements"]);
    let sql = result.detail["statements"][0]["sql"].as_str().unwrap();
    assert!(sql.contains("\"Order Details\" AS \"od\""), "{sql}");
    let _ = std::fs::remove_dir_all(dir);
}
