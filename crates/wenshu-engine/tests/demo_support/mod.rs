//! The demo checks every database runs: make the demo, open it read-only, run every demo tool's template.

use std::time::Duration;

use jiff::civil::{Date, date};
use serde_json::{Map, Value, json};
use wenshu_contract::{BoundCall, Catalog, bind, demo_catalog};
use wenshu_demo as demo;
use wenshu_engine::db::{Database, DbError, QueryLimits};
use wenshu_engine::execute::{ExecContext, ExecError, Executor, SqlTemplateExecutor, ToolResult};

/// The day the demo is made for and the checks run on.
pub fn today() -> Date {
    date(2026, 11, 29)
}

/// The demo, made on a writable connection, and a read-only executor over it.
pub struct Demo {
    /// The demo catalog.
    pub catalog: Catalog,
    /// The read-only database.
    pub db: Database,
    /// The SQL executor over the read-only database.
    pub executor: SqlTemplateExecutor,
}

/// Makes the demo through `write_url`, then opens `read_url` read-only.
pub async fn make_demo(write_url: &str, read_url: &str) -> Demo {
    let writable = Database::connect(write_url).await.expect("writable connection");
    let summary = demo::create(&writable, today()).await.expect("demo created");
    assert_eq!(summary.movies, 22);
    assert_eq!(summary.box_office, 22 * 400);
    assert_eq!(summary.sales_people, 8);
    // Idempotent: a second run replaces the tables, the first one is left alone by create_if_absent.
    assert_eq!(demo::create_if_absent(&writable, today()).await.expect("check"), None);
    writable.close().await;
    let db = Database::connect_read_only(read_url)
        .await
        .expect("read-only connection");
    let catalog = demo_catalog().expect("demo catalog");
    let executor = SqlTemplateExecutor::new(db.clone(), &catalog).expect("templates");
    Demo { catalog, db, executor }
}

impl Demo {
    /// Binds `raw` for `tool` and runs it.
    pub async fn run(&self, tool: &str, raw: Value) -> Result<ToolResult, ExecError> {
        let tool_def = self.catalog.get(tool).expect("tool");
        let raw: Map<String, Value> = raw.as_object().cloned().unwrap_or_default();
        let call = bind(tool_def, &raw).expect("binds");
        self.executor.execute(tool_def, &call, &ExecContext::new(today())).await
    }

    /// Runs a call built by hand (no binding).
    pub async fn run_raw(&self, tool: &str, arguments: Value, ctx: &ExecContext) -> Result<ToolResult, ExecError> {
        let tool_def = self.catalog.get(tool).expect("tool");
        let call = BoundCall {
            tool: tool.to_string(),
            arguments: arguments.as_object().cloned().unwrap_or_default(),
            defaulted: Vec::new(),
            coercions: Vec::new(),
        };
        self.executor.execute(tool_def, &call, ctx).await
    }
}

fn column<'a>(result: &'a ToolResult, name: &str) -> Vec<&'a Value> {
    let index = result.columns.iter().position(|c| c == name).unwrap_or_else(|| {
        panic!("no column {name} in {:?}", result.columns);
    });
    result.rows.iter().map(|row| &row[index]).collect()
}

fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or_else(|| panic!("not a number: {value}"))
}

/// Every check of the demo tools through the SQL executor. `slow_sql` runs far past a 300 ms timeout.
pub async fn check_all(demo: &Demo, slow_sql: &str) {
    check_summary(demo).await;
    check_ranking(demo).await;
    check_detail(demo).await;
    check_trend(demo).await;
    check_movies(demo).await;
    check_binds_are_not_concatenated(demo).await;
    check_read_only(demo).await;
    check_row_cap(demo).await;
    check_timeout(demo, slow_sql).await;
}

async fn check_summary(demo: &Demo) {
    let east = demo
        .run("sales_query", json!({"region": "华东", "period": "本月"}))
        .await
        .expect("summary");
    assert_eq!(east.columns, ["amount", "quantity", "orders"]);
    assert_eq!(east.rows.len(), 1);
    let east_amount = number(&east.rows[0][0]);
    assert!(east_amount > 0.0, "{east:?}");
    assert!(east.rows[0][0].is_i64(), "amount is an integer: {:?}", east.rows[0]);
    assert!(east.rows[0][1].is_i64(), "quantity is an integer: {:?}", east.rows[0]);
    // The trace holds the SQL as sent and every bind, the period as its first and last day.
    assert!(east.detail["sql"].as_str().unwrap().contains("FROM sales"));
    let binds = east.detail["binds"].as_array().unwrap();
    assert!(
        binds.contains(&json!({"name": "period_start", "value": "2026-11-01"})),
        "{binds:?}"
    );
    assert!(
        binds.contains(&json!({"name": "period_end", "value": "2026-11-30"})),
        "{binds:?}"
    );
    assert!(binds.contains(&json!({"name": "region", "value": "华东"})), "{binds:?}");
    assert!(binds.contains(&json!({"name": "product", "value": null})), "{binds:?}");
    // No region: the whole country, more than one region.
    let all = demo.run("sales_query", json!({})).await.expect("summary");
    assert!(number(&all.rows[0][0]) > east_amount);
}

async fn check_ranking(demo: &Demo) {
    let ranking = demo
        .run(
            "sales_query",
            json!({"period": "上季度", "product": "企业版", "queryType": "ranking", "limit": 5}),
        )
        .await
        .expect("ranking");
    assert_eq!(ranking.columns[0], "sales_person");
    assert!(!ranking.rows.is_empty() && ranking.rows.len() <= 5, "{ranking:?}");
    let amounts: Vec<f64> = column(&ranking, "amount").into_iter().map(number).collect();
    assert!(amounts.windows(2).all(|w| w[0] >= w[1]), "descending: {amounts:?}");
}

async fn check_detail(demo: &Demo) {
    let detail = demo
        .run(
            "sales_query",
            json!({"salesPerson": "张伟", "period": "上月", "queryType": "detail", "limit": 10}),
        )
        .await
        .expect("detail");
    assert_eq!(detail.rows.len(), 10);
    assert!(column(&detail, "sales_person").iter().all(|p| **p == json!("张伟")));
    let days: Vec<&str> = column(&detail, "day").iter().map(|d| d.as_str().unwrap()).collect();
    assert!(days.iter().all(|d| d.starts_with("2026-10-")), "{days:?}");
    assert!(days.windows(2).all(|w| w[0] >= w[1]), "newest first: {days:?}");
}

async fn check_trend(demo: &Demo) {
    let year = demo
        .run(
            "sales_query",
            json!({"region": "西南", "period": "本年", "queryType": "trend"}),
        )
        .await
        .expect("trend");
    let months: Vec<&str> = column(&year, "day").iter().map(|d| d.as_str().unwrap()).collect();
    assert_eq!(months.len(), 11, "{months:?}");
    assert_eq!(months[0], "2026-01");
    assert_eq!(months[10], "2026-11");
    let month = demo
        .run("sales_query", json!({"period": "本月", "queryType": "trend"}))
        .await
        .expect("trend");
    let days: Vec<&str> = column(&month, "day").iter().map(|d| d.as_str().unwrap()).collect();
    assert_eq!(days.len(), 29);
    assert_eq!(days[0], "2026-11-01");
    assert!(days.windows(2).all(|w| w[0] < w[1]));
}

async fn check_movies(demo: &Demo) {
    let box_office = demo
        .run(
            "movie_box_office",
            json!({"movieId": 2, "startDate": "2026-11-23", "endDate": "2026-11-29"}),
        )
        .await
        .expect("box office");
    assert_eq!(box_office.columns, ["day", "revenue"]);
    assert_eq!(box_office.rows.len(), 7);
    assert_eq!(box_office.rows[0][0], json!("2026-11-23"));
    assert_eq!(box_office.rows[6][0], json!("2026-11-29"));
    assert!(box_office.rows.iter().all(|r| number(&r[1]) > 0.0));
    let rating = demo.run("movie_rating", json!({"movieId": 3})).await.expect("rating");
    assert_eq!(rating.columns, ["name", "score", "votes"]);
    assert_eq!(rating.rows.len(), 1);
    assert_eq!(rating.rows[0][0], json!("满江红"));
    let score = number(&rating.rows[0][1]);
    assert!((6.0..=9.6).contains(&score), "{score}");
    assert!(rating.rows[0][2].is_i64());
    let none = demo.run("movie_rating", json!({"movieId": 999})).await.expect("rating");
    assert!(none.rows.is_empty());
    assert_eq!(none.columns, ["name", "score", "votes"], "columns even without rows");
}

async fn check_binds_are_not_concatenated(demo: &Demo) {
    let ctx = ExecContext::new(today());
    let injected = demo
        .run_raw(
            "sales_query",
            json!({"region": "华东' OR '1'='1", "period": "本月", "queryType": "summary", "limit": 10}),
            &ctx,
        )
        .await
        .expect("summary");
    assert_eq!(number(&injected.rows[0][2]), 0.0, "no order matches: {injected:?}");
    assert_eq!(number(&injected.rows[0][0]), 0.0);
}

async fn check_read_only(demo: &Demo) {
    let limits = QueryLimits::default();
    let deleted = demo.db.query("DELETE FROM sales", &[], limits).await;
    assert!(matches!(deleted, Err(DbError::ReadOnly { .. })), "{deleted:?}");
    let dropped = demo.db.query("DROP TABLE ratings", &[], limits).await;
    assert!(dropped.is_err(), "{dropped:?}");
    let count = demo
        .db
        .query("SELECT COUNT(*) FROM ratings", &[], limits)
        .await
        .expect("still there");
    assert_eq!(count.rows[0][0], json!(22));
    assert!(demo.db.execute_batch("DELETE FROM sales").await.is_err());
}

async fn check_row_cap(demo: &Demo) {
    let limits = QueryLimits {
        row_cap: 10,
        timeout: Duration::from_secs(10),
        ..QueryLimits::default()
    };
    let capped = demo.db.query("SELECT * FROM sales", &[], limits).await.expect("rows");
    assert_eq!(capped.rows.len(), 10);
    assert!(capped.truncated);
    assert_eq!(capped.columns.len(), 7);
    let exact = demo
        .db
        .query("SELECT * FROM ratings", &[], QueryLimits { row_cap: 22, ..limits });
    let exact = exact.await.expect("rows");
    assert_eq!(exact.rows.len(), 22);
    assert!(!exact.truncated);
    // Through the executor, the context's row cap applies.
    let ctx = ExecContext {
        row_cap: 3,
        ..ExecContext::new(today())
    };
    let result = demo
        .run_raw(
            "movie_box_office",
            json!({"movieId": 1, "startDate": "2026-01-01", "endDate": "2026-11-29"}),
            &ctx,
        )
        .await
        .expect("box office");
    assert_eq!(result.rows.len(), 3);
    assert!(result.truncated);
}

async fn check_timeout(demo: &Demo, slow_sql: &str) {
    let limits = QueryLimits {
        row_cap: 10,
        timeout: Duration::from_millis(300),
        ..QueryLimits::default()
    };
    let started = std::time::Instant::now();
    let slow = demo.db.query(slow_sql, &[], limits).await;
    assert!(matches!(slow, Err(DbError::Timeout { after_ms: 300 })), "{slow:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    // The pool still answers after a timeout.
    let after = demo
        .db
        .query("SELECT 1", &[], QueryLimits::default())
        .await
        .expect("after");
    assert_eq!(after.rows[0][0], json!(1));
}
