//! A metric question over no period names the span of the data it read (issue #31 point 3): 理解为 and the
//! headline say 全部数据：first～last, read under the question's filters and through the viewer's row scope (a
//! scoped viewer never learns another scope's days), on SQLite always and on PostgreSQL and MariaDB/MySQL when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set. A question with a period reads no span.

mod model_support;

use std::collections::BTreeMap;
use std::sync::Arc;

use jiff::civil::date;
use serde_json::json;
use wenshu_contract::Catalog;
use wenshu_engine::answer::{Answer, AskOutcome, Engine};
use wenshu_engine::db::{Database, Dialect};
use wenshu_engine::pipeline::AskRequest;
use wenshu_engine::scope::{ScopeRules, Viewer};

/// A metric tool over orders of two regions, with a day column.
fn catalog(date_type: &str) -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "order_metrics",
        "description": "订单金额：按区域统计",
        "x-metrics": {
            "from": [{"table": "orders", "alias": "o", "columns": ["id", "area", "total", "day"]}],
            "time": {"column": "o.day", "type": date_type},
            "measures": [{"name": "total", "label": "订单金额", "expr": "SUM(o.total)"}],
            "dimensions": [{"name": "area", "label": "区域", "column": "o.area"}]
        }
    }]}))
    .unwrap()
}

/// 东区 holds days from 2026-01-05 to 2026-03-10, 西区 from 2025-06-01 to 2026-11-20.
async fn fill(db: &Database) {
    let (day, suffix) = match db.dialect() {
        Dialect::Sqlite | Dialect::Custom(_) => ("TEXT", ""),
        Dialect::MySql => ("DATE", " CHARACTER SET utf8mb4"),
        Dialect::Postgres => ("DATE", ""),
    };
    db.execute_batch(&format!(
        "DROP TABLE IF EXISTS orders;
         CREATE TABLE orders (id INT, area VARCHAR(20), total INT, day {day}){suffix};
         INSERT INTO orders VALUES (1, '东区', 10, '2026-01-05'), (2, '东区', 20, '2026-03-10'),
             (3, '西区', 100, '2025-06-01'), (4, '西区', 200, '2026-11-20');"
    ))
    .await
    .unwrap();
}

async fn engine(db: &Database) -> Engine {
    let date_type = if db.dialect() == Dialect::Sqlite {
        "text"
    } else {
        "date"
    };
    let rules = ScopeRules::parse(&BTreeMap::from([(
        "orders".to_string(),
        "area = :user.area".to_string(),
    )]))
    .unwrap();
    model_support::scoped_metric_engine(db, Arc::new(catalog(date_type)), rules)
        .await
        .0
}

async fn ask(engine: &Engine, question: &str, viewer: Viewer) -> Answer {
    let mut request = AskRequest::new(question, date(2026, 11, 29));
    request.viewer = viewer;
    engine.ask(&request).await
}

/// 理解为 and the headline of an answer.
fn said(answer: &Answer) -> (String, String) {
    let AskOutcome::Answered { understood, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    let execute = answer.trace.step("execute").unwrap().output_value().to_string();
    (understood.zh.clone(), execute)
}

async fn check(db: &Database) {
    fill(db).await;
    let engine = engine(db).await;
    let (understood, _) = said(&ask(&engine, "各区域的订单金额", Viewer::operator()).await);
    assert!(understood.contains("全部数据：2025-06-01～2026-11-20"), "{understood}");
    let (understood, execute) = said(&ask(&engine, "东区的订单金额", Viewer::operator()).await);
    assert!(
        understood.contains("全部数据：2026-01-05～2026-03-10"),
        "under the filter: {understood}"
    );
    assert!(
        execute.contains("全部数据：2026-01-05～2026-03-10"),
        "the headline names it too: {execute}"
    );
    let east = Viewer::scoped(
        Some("east".into()),
        BTreeMap::from([("area".to_string(), json!("东区"))]),
    );
    let answer = ask(&engine, "各区域的订单金额", east).await;
    let (understood, _) = said(&answer);
    assert!(
        understood.contains("全部数据：2026-01-05～2026-03-10"),
        "through the scope: {understood}"
    );
    let whole = serde_json::to_string(&answer).unwrap();
    assert!(
        !whole.contains("2025-06-01") && !whole.contains("2026-11-20"),
        "another scope's days leak: {whole}"
    );
    let (understood, execute) = said(&ask(&engine, "本月各区域的订单金额", Viewer::operator()).await);
    assert!(
        understood.contains("2026-11-01～2026-11-30") && !understood.contains("全部数据"),
        "{understood}"
    );
    assert!(
        execute.contains("\"span\":null"),
        "a question with a period reads no span: {execute}"
    );
}

#[tokio::test]
async fn sqlite_names_the_span_of_the_data_read() {
    let path = std::env::temp_dir().join(format!("wenshu-metric-span-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let db = Database::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    check(&db).await;
    let _ = std::fs::remove_file(path);
}

async fn on_server(var: &str) {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return;
    };
    let url = wenshu_engine::db::ensure_database(&admin_url, "wenshu_metric_span")
        .await
        .unwrap();
    check(&Database::connect(&url).await.unwrap()).await;
}

#[tokio::test]
async fn postgres_names_the_span_of_the_data_read() {
    on_server("WENSHU_TEST_POSTGRES_URL").await;
}

#[tokio::test]
async fn mysql_names_the_span_of_the_data_read() {
    on_server("WENSHU_TEST_MYSQL_URL").await;
}
