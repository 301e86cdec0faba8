//! No values across scopes (issue #24, point 7), on real databases: SQLite always, PostgreSQL and MariaDB/MySQL
//! when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.
//!
//! A viewer scoped to 华东 asks (lexicon engine) about a product only 华南 sells and about one nobody sells: the same
//! outcome, the same message but for the asked word, and no other 华南 value in the answer or its trace. The metric
//! dimension values, the fallback's schema description (and the prompt its trace keeps) and an entity query read
//! only the viewer's rows; an unscoped viewer still reads every row.

mod model_support;

use std::collections::BTreeMap;
use std::sync::Arc;

use jiff::civil::{Date, date};
use serde_json::json;
use wenshu_contract::Catalog;
use wenshu_engine::answer::{AskOutcome, Engine};
use wenshu_engine::db::{Database, Dialect};
use wenshu_engine::fallback::SqlFallback;
use wenshu_engine::fallback::schema::{SchemaNotes, ScopedSchema};
use wenshu_engine::metric::SharedValues;
use wenshu_engine::pipeline::AskRequest;
use wenshu_engine::resolve::sql::load_entities_scoped;
use wenshu_engine::scope::{BoundScope, ScopeRules, Viewer};
use wenshu_engine::sql_guard::GuardPolicy;
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

/// Values only rows of 华南 hold: none may reach a 华东 viewer.
const SOUTH_ONLY: [&str; 4] = ["华南", "旗舰版", "尊享版", "陈南"];
/// A product only 华南 sells.
const SOUTH_PRODUCT: &str = "旗舰版";
/// A product nobody sells.
const NO_PRODUCT: &str = "至尊版";

fn today() -> Date {
    date(2026, 11, 29)
}

fn rules() -> ScopeRules {
    ScopeRules::parse(&BTreeMap::from([
        ("sales".to_string(), "region = :user.region".to_string()),
        ("customers".to_string(), "region = :user.region".to_string()),
    ]))
    .unwrap()
}

fn east() -> Viewer {
    Viewer::scoped(
        Some("east".into()),
        BTreeMap::from([("region".to_string(), json!("华东"))]),
    )
}

fn catalog() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "sales_metrics",
        "description": "销售额：按地区、产品统计",
        "x-metrics": {
            "from": [{"table": "sales", "alias": "s", "columns": ["id", "region", "product", "amount"]}],
            "measures": [{"name": "amount", "label": "销售额", "expr": "SUM(s.amount)"}],
            "dimensions": [
                {"name": "region", "label": "地区", "column": "s.region"},
                {"name": "product", "label": "产品", "column": "s.product"}
            ]
        }
    }]}))
    .unwrap()
}

/// Creates the tables with their rows: 华东 sells 基础版 and 专业版, 华南 基础版, 旗舰版 and 尊享版.
async fn fill(db: &Database) {
    let suffix = if db.dialect() == Dialect::MySql {
        " CHARACTER SET utf8mb4"
    } else {
        ""
    };
    db.execute_batch(&format!(
        "DROP TABLE IF EXISTS sales; DROP TABLE IF EXISTS customers;
         CREATE TABLE sales (id INT, region VARCHAR(20), product VARCHAR(20), amount INT){suffix};
         CREATE TABLE customers (id INT, name VARCHAR(20), region VARCHAR(20)){suffix};
         INSERT INTO sales VALUES (1, '华东', '基础版', 10), (2, '华东', '专业版', 20), (3, '华南', '基础版', 100),
             (4, '华南', '旗舰版', 200), (5, '华南', '尊享版', 300);
         INSERT INTO customers VALUES (1, '张东', '华东'), (2, '陈南', '华南');"
    ))
    .await
    .unwrap();
}

/// The lexicon engine over `db` under [`rules`], reading metric values per scope.
async fn engine(db: &Database) -> (Engine, SharedValues) {
    model_support::scoped_metric_engine(db, Arc::new(catalog()), rules()).await
}

fn ask(question: &str, viewer: Viewer) -> AskRequest {
    let mut request = AskRequest::new(question, today());
    request.viewer = viewer;
    request
}

/// Which of [`SOUTH_ONLY`] `text` holds, `allowed` aside.
fn south_values_in(text: &str, allowed: &str) -> Vec<&'static str> {
    let text = text.replace(allowed, "");
    SOUTH_ONLY.into_iter().filter(|v| text.contains(v)).collect()
}

async fn a_value_of_another_scope_is_a_value_of_none(db: &Database) {
    let (engine, _) = engine(db).await;
    let other = engine.ask(&ask(&format!("{SOUTH_PRODUCT}的销售额"), east())).await;
    let nowhere = engine.ask(&ask(&format!("{NO_PRODUCT}的销售额"), east())).await;
    assert!(
        !matches!(other.outcome, AskOutcome::Answered { .. }),
        "another scope's product is not answered: {:?}",
        other.outcome
    );
    let other_json = serde_json::to_string(&other.outcome).unwrap();
    let nowhere_json = serde_json::to_string(&nowhere.outcome).unwrap();
    assert_eq!(
        other_json.replace(SOUTH_PRODUCT, NO_PRODUCT),
        nowhere_json,
        "the same outcome but for the asked word"
    );
    let trace = serde_json::to_string(&other.trace).unwrap();
    assert_eq!(
        south_values_in(&other_json, SOUTH_PRODUCT),
        Vec::<&str>::new(),
        "{other_json}"
    );
    assert_eq!(south_values_in(&trace, SOUTH_PRODUCT), Vec::<&str>::new(), "{trace}");

    let own = engine.ask(&ask("基础版的销售额", east())).await;
    match &own.outcome {
        AskOutcome::Answered { rows, .. } => assert!(
            rows.iter()
                .flatten()
                .any(|v| v.as_i64() == Some(10) || v.as_f64() == Some(10.0)),
            "{rows:?}"
        ),
        other => panic!("the viewer's own product is answered: {other:?}"),
    }
    let admin = engine
        .ask(&ask(&format!("{SOUTH_PRODUCT}的销售额"), Viewer::operator()))
        .await;
    match &admin.outcome {
        AskOutcome::Answered { rows, .. } => assert!(
            rows.iter()
                .flatten()
                .any(|v| v.as_i64() == Some(200) || v.as_f64() == Some(200.0)),
            "{rows:?}"
        ),
        other => panic!("an unscoped viewer is answered: {other:?}"),
    }
}

/// The values of dimension `dimension` of the metric tool, sorted.
fn texts(scoped: &wenshu_engine::metric::MetricValues, dimension: usize) -> Vec<String> {
    let mut texts: Vec<String> = scoped
        .values("sales_metrics", dimension)
        .iter()
        .map(|v| v.text.clone())
        .collect();
    texts.sort();
    texts
}

async fn dimension_values_are_the_viewers(db: &Database) {
    let (_, values) = engine(db).await;
    let east_scope = rules().bind(&east());
    let scoped = values.for_scope(&east_scope).await;
    assert_eq!(texts(&scoped, 1), ["专业版", "基础版"]);
    assert!(
        Arc::ptr_eq(&scoped, &values.for_scope(&rules().bind(&east())).await),
        "read once per scope"
    );
    // The scoped column's own values stay known: asking for another region is refused as outside the scope.
    assert_eq!(texts(&scoped, 0), ["华东", "华南"]);
    let all = values.for_scope(&BoundScope::unscoped()).await;
    assert_eq!(texts(&all, 1), ["专业版", "基础版", "尊享版", "旗舰版"]);
    let denied = values
        .for_scope(&rules().bind(&Viewer::scoped(None, BTreeMap::new())))
        .await;
    assert!(texts(&denied, 1).is_empty());
}

async fn schema_and_fallback_trace_are_the_viewers(db: &Database) {
    let tables = vec!["sales".to_string(), "customers".to_string()];
    let schema = ScopedSchema::new(Arc::new(db.clone()), tables.clone(), SchemaNotes::default());
    let east_scope = rules().bind(&east());
    let text = schema.describe(&east_scope).await.unwrap().text.clone();
    assert!(text.contains("华东") && text.contains("基础版"), "{text}");
    assert_eq!(south_values_in(&text, ""), Vec::<&str>::new(), "{text}");
    let all = schema.describe(&BoundScope::unscoped()).await.unwrap().text.clone();
    assert_eq!(south_values_in(&all, ""), SOUTH_ONLY, "{all}");

    let sql = "SELECT product, SUM(amount) AS total FROM sales GROUP BY product ORDER BY product";
    let reply = || Reply::content(json!({"sql": sql, "explanation": "各产品"}).to_string());
    let server = ScriptedChatServer::start(vec![reply(), reply()]).await;
    let client = model_support::client_with(&server, None);
    let fallback = SqlFallback::new(
        client,
        Arc::new(PromptTemplates::embedded()),
        Arc::new(db.clone()),
        GuardPolicy::new(&tables),
        String::new(),
    )
    .with_scoped_schema(schema);
    let run = fallback.run_scoped("看全国的销售额", today(), &east_scope).await;
    assert!(run.rows.is_some(), "{:?}", run.reasons);
    let trace = serde_json::to_string(&run).unwrap();
    assert!(
        trace.contains("基础版"),
        "the prompt lists the viewer's values: {trace}"
    );
    assert_eq!(south_values_in(&trace, ""), Vec::<&str>::new(), "{trace}");
    let admin = fallback.run("看全国的销售额", today()).await;
    let admin_trace = serde_json::to_string(&admin).unwrap();
    assert!(admin_trace.contains(SOUTH_PRODUCT), "{admin_trace}");
}

async fn entities_are_the_viewers(db: &Database) {
    let query = "SELECT id, name FROM customers";
    let names = |entities: Vec<wenshu_engine::resolve::Entity>| -> Vec<String> {
        let mut names: Vec<String> = entities.into_iter().map(|e| e.name).collect();
        names.sort();
        names
    };
    let east_scope = rules().bind(&east());
    let seen = load_entities_scoped(db, "customer", query, &east_scope).await.unwrap();
    assert_eq!(names(seen), ["张东"]);
    let all = load_entities_scoped(db, "customer", query, &BoundScope::unscoped())
        .await
        .unwrap();
    assert_eq!(names(all), ["张东", "陈南"]);
    let denied = rules().bind(&Viewer::scoped(None, BTreeMap::new()));
    assert!(
        load_entities_scoped(db, "customer", query, &denied)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn check_all(write: &Database, read_url: &str) {
    fill(write).await;
    let db = Database::connect_read_only(read_url).await.unwrap();
    a_value_of_another_scope_is_a_value_of_none(&db).await;
    dimension_values_are_the_viewers(&db).await;
    schema_and_fallback_trace_are_the_viewers(&db).await;
    entities_are_the_viewers(&db).await;
}

#[tokio::test]
async fn sqlite_reads_values_through_the_viewers_scope() {
    let path = std::env::temp_dir().join(format!("wenshu-scope-values-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let url = format!("sqlite://{}", path.display());
    let write = Database::connect(&url).await.unwrap();
    check_all(&write, &url).await;
    let _ = std::fs::remove_file(path);
}

async fn on_server(var: &str) {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return;
    };
    let url = wenshu_engine::db::ensure_database(&admin_url, "wenshu_scope_values")
        .await
        .unwrap();
    let write = Database::connect(&url).await.unwrap();
    check_all(&write, &url).await;
}

#[tokio::test]
async fn postgres_reads_values_through_the_viewers_scope() {
    on_server("WENSHU_TEST_POSTGRES_URL").await;
}

#[tokio::test]
async fn mysql_reads_values_through_the_viewers_scope() {
    on_server("WENSHU_TEST_MYSQL_URL").await;
}
