//! The metric mechanism on a model of another domain (logistics shipments, written from the README alone): its
//! words, values and times come from the model and the data; answers equal plain SQL written by hand, and what the
//! model cannot express is refused naming it.

use std::sync::Arc;

use jiff::civil::Date;
use serde_json::{Value, json};
use wenshu_contract::{Catalog, bind};
use wenshu_engine::db::{Database, QueryLimits, WriteStatement};
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::execute::query_params;
use wenshu_engine::metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues};
use wenshu_engine::resolve::EntityCatalogs;

fn catalog() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "shipment_metrics",
        "description": "运单指标",
        "x-metrics": {
            "from": [
                {"table": "shipments", "alias": "s", "columns": ["id", "shipped_on", "carrier_id", "weight_kg", "fee"]},
                {"table": "carriers", "alias": "c", "columns": ["id", "name", "mode"], "on": ["s.carrier_id", "c.id"]}
            ],
            "time": {"column": "s.shipped_on", "grains": ["day", "week", "month"]},
            "measures": [
                {"name": "fee", "label": "运费", "synonyms": ["物流费用"], "expr": "SUM(s.fee)", "unit": "元",
                 "aggregations": ["avg", "max"]},
                {"name": "shipments", "label": "运单数", "synonyms": ["票数"], "expr": "COUNT(*)", "unit": "票"},
                {"name": "weight", "label": "货重", "expr": "SUM(s.weight_kg)", "unit": "公斤"}
            ],
            "dimensions": [
                {"name": "carrier", "label": "承运商", "synonyms": ["快递公司"], "column": "c.name", "key": "c.id"},
                {"name": "mode", "label": "运输方式", "column": "c.mode"}
            ]
        }
    }]}))
    .expect("shipments catalog")
}

/// A small deterministic data set: three carriers, a shipment a day each from 2026-09-01 to 2026-11-29.
async fn database(path: &std::path::Path) -> Database {
    let url = format!("sqlite://{}", path.display());
    let db = Database::connect(&url).await.unwrap();
    let mut statements = vec![
        "CREATE TABLE carriers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, mode TEXT NOT NULL)".to_string(),
        "CREATE TABLE shipments (id INTEGER PRIMARY KEY, shipped_on TEXT NOT NULL, carrier_id INTEGER NOT NULL, \
         weight_kg INTEGER NOT NULL, fee INTEGER NOT NULL)"
            .to_string(),
        "INSERT INTO carriers VALUES (1, '顺丰', '空运'), (2, '德邦', '陆运'), (3, '中通', '陆运')".to_string(),
    ];
    let start: Date = "2026-09-01".parse().unwrap();
    let mut id = 0;
    for day in 0..90i64 {
        let d = start.checked_add(jiff::Span::new().days(day)).unwrap();
        for carrier in 1..=3i64 {
            id += 1;
            let weight = 10 + (day * 7 + carrier * 13) % 40;
            let fee = weight * (carrier + 2) + day % 5;
            statements.push(format!(
                "INSERT INTO shipments VALUES ({id}, '{d}', {carrier}, {weight}, {fee})"
            ));
        }
    }
    let writes: Vec<WriteStatement> = statements
        .into_iter()
        .map(|sql| WriteStatement { sql, binds: Vec::new() })
        .collect();
    db.execute_all(&writes).await.unwrap();
    db.close().await;
    Database::connect_read_only(&url).await.unwrap()
}

struct Domain {
    catalog: Catalog,
    db: Database,
    values: MetricValues,
    _dir: std::path::PathBuf,
}

async fn domain(name: &str) -> Domain {
    let dir = std::env::temp_dir().join(format!("wenshu-metric-domain-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = database(&dir.join("ship.sqlite")).await;
    let catalog = catalog();
    let values = MetricValues::load(&db, &catalog, &EntityCatalogs::new()).await.unwrap();
    Domain {
        catalog,
        db,
        values,
        _dir: dir,
    }
}

fn today() -> Date {
    "2026-11-29".parse().unwrap()
}

/// The rows the question's metric query returns.
async fn ask(d: &Domain, question: &str) -> Result<Vec<Vec<Value>>, Vec<String>> {
    let tool = d.catalog.get("shipment_metrics").unwrap();
    match build_query(tool, &d.values, question, today()) {
        MetricBuild::Unmet { reasons } => Err(reasons),
        MetricBuild::Query { query } => {
            let call = bind(tool, &query_params(&query)).expect("binds");
            let shared = SharedValues::new();
            shared.set(d.values.clone());
            let executor = Arc::new(MetricExecutor::new(d.db.clone(), shared));
            let result = executor
                .execute(tool, &call, &ExecContext::new(today()))
                .await
                .expect("runs");
            Ok(result.rows)
        }
    }
}

async fn truth(d: &Domain, sql: &str) -> Vec<Vec<Value>> {
    d.db.query(sql, &[], QueryLimits::default()).await.unwrap().rows
}

#[tokio::test]
async fn groupings_rankings_grains_and_filters_equal_hand_written_sql() {
    let d = domain("answers").await;
    let by_carrier = ask(&d, "上个月各承运商的运费").await.unwrap();
    let expected = truth(
        &d,
        "SELECT c.name, SUM(s.fee) FROM shipments s JOIN carriers c ON s.carrier_id = c.id \
         WHERE s.shipped_on BETWEEN '2026-10-01' AND '2026-10-31' GROUP BY c.id, c.name ORDER BY c.name",
    )
    .await;
    assert_eq!(by_carrier, expected);

    let top = ask(&d, "本月货重最高的快递公司是哪家").await.unwrap();
    let expected = truth(
        &d,
        "SELECT c.name, SUM(s.weight_kg) AS w FROM shipments s JOIN carriers c ON s.carrier_id = c.id \
         WHERE s.shipped_on BETWEEN '2026-11-01' AND '2026-11-30' GROUP BY c.id, c.name ORDER BY w DESC LIMIT 1",
    )
    .await;
    assert_eq!(top.len(), 1);
    assert_eq!(top[0][0], expected[0][0]);

    let daily = ask(&d, "空运上周每天的运单数").await.unwrap();
    let expected = truth(
        &d,
        "SELECT s.shipped_on, COUNT(*) FROM shipments s JOIN carriers c ON s.carrier_id = c.id \
         WHERE c.mode = '空运' AND s.shipped_on BETWEEN '2026-11-16' AND '2026-11-22' \
         GROUP BY s.shipped_on ORDER BY s.shipped_on",
    )
    .await;
    assert_eq!(daily, expected);

    let pair = ask(&d, "顺丰和德邦十月份的运费对比").await.unwrap();
    assert_eq!(
        pair.len(),
        2,
        "two values of one dimension are shown side by side: {pair:?}"
    );
}

#[tokio::test]
async fn comparisons_give_both_periods_the_change_and_the_rate() {
    // 本月 is still running on 11-29: it is compared with the same days of October.
    let d = domain("compare").await;
    let rows = ask(&d, "本月运费环比怎么样").await.unwrap();
    let this = truth(
        &d,
        "SELECT SUM(fee) FROM shipments WHERE shipped_on BETWEEN '2026-11-01' AND '2026-11-29'",
    )
    .await;
    let last = truth(
        &d,
        "SELECT SUM(fee) FROM shipments WHERE shipped_on BETWEEN '2026-10-01' AND '2026-10-29'",
    )
    .await;
    let (a, b) = (this[0][0].as_f64().unwrap(), last[0][0].as_f64().unwrap());
    assert_eq!(rows.len(), 1);
    let row: Vec<f64> = rows[0].iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(row[0], a);
    assert_eq!(row[1], b);
    assert!((row[2] - (a - b)).abs() < 1e-6);
    assert!((row[3] - (a - b) / b).abs() < 1e-9);
}

#[tokio::test]
async fn what_the_model_cannot_express_is_refused_naming_it() {
    let d = domain("refusals").await;
    let warehouse = ask(&d, "上个月各仓库的运费").await.unwrap_err();
    assert!(warehouse.iter().any(|r| r.contains("仓库")), "{warehouse:?}");
    let unknown = ask(&d, "圆通上个月的运费").await.unwrap_err();
    assert!(unknown.iter().any(|r| r.contains("圆通")), "{unknown:?}");
    let list = ask(&d, "上个月的运单明细").await.unwrap_err();
    assert!(!list.is_empty());
    let average = ask(&d, "上个月运单数的平均值").await;
    assert!(average.is_err(), "a count allows no average: {average:?}");
}
