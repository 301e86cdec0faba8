//! The first rows of each group (issue 26, shape 1): 每个X…最高的Y, 各X…前N的Y, top N Ys in each X, 每个月哪个X最高.
//! On a model of its own (a clinic's visits), the query ranks inside each group and keeps N of each, refusing what
//! the model cannot split by; compiled with `ROW_NUMBER() OVER (PARTITION BY …)` on every dialect. On the demo data
//! the answers equal a truth query on SQLite, and on PostgreSQL / MariaDB when `WENSHU_TEST_POSTGRES_URL` /
//! `WENSHU_TEST_MYSQL_URL` are set.

mod demo_truth;

use std::sync::Arc;

use jiff::civil::Date;
use serde_json::{Value, json};
use wenshu_contract::metric::{MetricQuery, Within};
use wenshu_contract::{Catalog, bind, demo_catalog};
use wenshu_engine::db::{Database, Dialect, QueryLimits};
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::metric::build::{build_query, choose};
use wenshu_engine::metric::execute::query_params;
use wenshu_engine::metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues};
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_sql::metric::compile;

/// A clinic's visits by department and doctor: words of no demo catalog.
fn clinic() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "clinic_metrics",
        "description": "门诊指标",
        "x-metrics": {
            "from": [{"table": "visits", "alias": "v",
                      "columns": ["id", "seen_on", "department", "doctor", "fee"]}],
            "time": {"column": "v.seen_on", "grains": ["day", "month", "year"]},
            "measures": [
                {"name": "fee", "label": "诊疗费", "synonyms": ["收入"], "expr": "SUM(v.fee)", "unit": "元"},
                {"name": "visits", "label": "就诊人次", "synonyms": ["接诊量"], "expr": "COUNT(*)", "unit": "次"}
            ],
            "dimensions": [
                {"name": "department", "label": "科室", "column": "v.department"},
                {"name": "doctor", "label": "医生", "synonyms": ["大夫"], "column": "v.doctor"}
            ]
        }
    }]}))
    .expect("clinic catalog")
}

fn build(question: &str) -> MetricBuild {
    let catalog = clinic();
    let tool = catalog.get("clinic_metrics").unwrap();
    let mut values = MetricValues::new();
    let texts = |list: &[&str]| list.iter().map(|s| Value::from(*s)).collect::<Vec<_>>();
    values.insert(tool, 0, texts(&["内科", "外科", "儿科"]));
    build_query(tool, &values, question, "2026-11-29".parse().unwrap())
}

fn query(question: &str) -> MetricQuery {
    match build(question) {
        MetricBuild::Query { query } => query,
        other => panic!("{question}: {other:?}"),
    }
}

#[test]
fn a_top_inside_each_group_is_read_from_general_words() {
    for (question, groups, keep) in [
        ("上个月每个科室诊疗费最高的医生", Some("科室"), 1),
        ("今年各科室接诊量前三的医生", Some("科室"), 3),
        ("今年每个科室收入最高的两位医生", Some("科室"), 2),
        ("top 2 doctors by fee in each department this year", Some("科室"), 2),
        ("今年每个月诊疗费最高的科室", None, 1),
        ("今年每个月哪个科室的接诊量最多", None, 1),
    ] {
        let q = query(question);
        assert_eq!(
            q.within,
            Some(Within {
                dimension: groups.map(str::to_string),
                limit: keep
            }),
            "{question}: {q:?}"
        );
        assert!(q.order.is_some() && q.limit.is_none(), "{question}: {q:?}");
    }
    // A plain ranking stays one ordered list.
    let q = query("今年诊疗费最高的三位医生");
    assert_eq!((q.within.clone(), q.limit), (None, Some(3)), "{q:?}");
}

#[test]
fn a_top_inside_groups_the_model_cannot_split_by_is_refused() {
    for question in [
        "今年每个病区诊疗费最高的医生",
        "今年各城市接诊量前三的医生",
        "按科室看今年诊疗费最高的医生",
    ] {
        assert!(
            matches!(build(question), MetricBuild::Unmet { .. }),
            "{question}: {:?}",
            build(question)
        );
    }
}

#[test]
fn the_top_inside_groups_is_a_row_number_per_group_on_every_dialect() {
    let catalog = clinic();
    let model = catalog
        .get("clinic_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let resolved = query("今年各科室接诊量前三的医生").resolve(&model).unwrap();
    for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
        let sql = compile(&model, &resolved, &[], resolved.range.as_ref(), &[None], dialect)
            .statement
            .sql;
        assert!(sql.contains("ROW_NUMBER() OVER (PARTITION BY "), "{sql}");
        assert!(sql.contains(" <= 3 ORDER BY "), "{sql}");
        assert!(!sql.contains("LIMIT"), "{sql}");
    }
    // The query's own checks: a top inside groups ranks by something, inside something else.
    let bad = |value: Value| serde_json::from_value::<MetricQuery>(value).unwrap().resolve(&model);
    let err = bad(json!({"measures": [{"name": "诊疗费"}], "groupBy": ["科室", "医生"],
        "within": {"dimension": "科室", "limit": 1}}))
    .unwrap_err();
    assert_eq!(err.field, "within");
    let err = bad(json!({"measures": [{"name": "诊疗费"}], "groupBy": ["科室"],
        "order": {"measure": "诊疗费", "direction": "desc"}, "within": {"dimension": "科室", "limit": 1}}))
    .unwrap_err();
    assert_eq!(err.field, "groupBy");
    let err = bad(json!({"measures": [{"name": "诊疗费"}], "groupBy": ["医生"],
        "order": {"measure": "诊疗费", "direction": "desc"}, "within": {"limit": 1}}))
    .unwrap_err();
    assert_eq!(err.field, "within.dimension");
    let err = bad(json!({"measures": [{"name": "诊疗费"}], "groupBy": ["科室", "医生"],
        "order": {"measure": "诊疗费", "direction": "desc"}, "within": {"dimension": "科室", "limit": 0}}))
    .unwrap_err();
    assert_eq!(err.field, "within.limit");
}

// ---- The demo data, against truth queries ----

/// The rows of a top inside groups: `ROW_NUMBER` over a grouped truth (SQLite), ordered group by group.
fn truth(groups: &str, ranked: &str, measure: &str, range: (&str, &str), keep: u32) -> String {
    format!(
        "SELECT g, r, m FROM (SELECT {groups} AS g, {ranked} AS r, {measure} AS m, ROW_NUMBER() OVER \
         (PARTITION BY {groups} ORDER BY {measure} DESC) AS n FROM sales WHERE day BETWEEN '{}' AND '{}' \
         GROUP BY {groups}, {ranked}) WHERE n <= {keep} ORDER BY g, n",
        range.0, range.1
    )
}

/// `(question, truth SQL)`: the answer has the truth's rows in its order, no more.
fn demo_cases() -> Vec<(&'static str, String)> {
    let month = ("2026-10-01", "2026-10-31");
    let year = ("2026-01-01", "2026-12-31");
    vec![
        (
            "上个月每个地区销售额最高的产品",
            truth("region", "product", "SUM(amount)", month, 1),
        ),
        (
            "今年各地区销量前两名的销售",
            truth("region", "sales_person", "SUM(quantity)", year, 2),
        ),
        (
            "top 2 products by orders in each region last month",
            truth("region", "product", "COUNT(*)", month, 2),
        ),
        (
            "今年每个月销售额最高的地区",
            truth("substr(day, 1, 7)", "region", "SUM(amount)", year, 1),
        ),
    ]
}

async fn run_demo(db: Database, truth_db: &Database) {
    let today: Date = "2026-11-29".parse().unwrap();
    let catalog = demo_catalog().unwrap();
    let entities = EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap();
    let values = MetricValues::load(&db, &catalog, &entities).await.expect("values");
    let shared = SharedValues::new();
    shared.set(values);
    let executor = Arc::new(MetricExecutor::new(db, shared.clone()));
    for (question, truth_sql) in demo_cases() {
        let truth = truth_db
            .query(&truth_sql, &[], QueryLimits::default())
            .await
            .expect("truth")
            .rows;
        let Some((tool, MetricBuild::Query { query })) = choose(&catalog, &shared.get(), question, today) else {
            panic!("{question}: not answered");
        };
        let call = bind(tool, &query_params(&query)).expect("binds");
        let result = executor
            .execute(tool, &call, &ExecContext::new(today))
            .await
            .expect("runs");
        let rows = result.rows;
        assert_eq!(
            rows.len(),
            truth.len(),
            "{question}: {query:?} → {rows:?}, truth {truth:?}"
        );
        // Row by row in order: the group, the ranked thing and the measure (a time bucket's label as the data's).
        for (row, want) in rows.iter().zip(&truth) {
            assert!(
                want.iter().all(|cell| row.iter().any(|c| demo_truth::close(c, cell))),
                "{question}: {row:?} is not {want:?} (rows {rows:?})"
            );
        }
        let presentation = &result.detail["presentation"];
        assert!(
            presentation["headline"].as_str().is_some_and(|h| h.contains("每个")),
            "{presentation}"
        );
        assert!(presentation["chart"]["group"].is_u64(), "{presentation}");
    }
}

#[tokio::test]
async fn the_top_inside_groups_on_the_demo_equals_the_truth_on_sqlite() {
    let (db, dir) = demo_truth::demo_sqlite("top-within", "sqlite").await;
    run_demo(db.clone(), &db).await;
    let _ = std::fs::remove_dir_all(dir);
}

async fn on_server(env: &str) {
    if let Some((db, truth, dir)) = demo_truth::demo_on_server("top-within", env).await {
        run_demo(db, &truth).await;
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[tokio::test]
async fn the_top_inside_groups_on_postgres_equals_the_truth() {
    on_server("WENSHU_TEST_POSTGRES_URL").await;
}

#[tokio::test]
async fn the_top_inside_groups_on_mysql_equals_the_truth() {
    on_server("WENSHU_TEST_MYSQL_URL").await;
}
