//! `row_scope`: the cost of row scope per query — the guard's check of generated SQL with and without a viewer's
//! scope (the scoped subqueries, their binds and the re-check), an `x-sql` template's scoped rewrite, and a metric
//! query compiled with and without the scope's conditions. No database.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::Criterion;
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_contract::metric::MetricQuery;
use wenshu_engine::db::Dialect;
use wenshu_engine::metric::{MetricValues, prepare, prepare_scoped};
use wenshu_engine::scope::{ScopeRules, Viewer};
use wenshu_engine::sql_guard::{GuardPolicy, check_sql, check_sql_scoped, parse_query, scope_query};

const TABLES: &[&str] = &["sales", "orders", "customers", "products"];

const STATEMENTS: &[(&str, Dialect, &str)] = &[
    (
        "simple",
        Dialect::Sqlite,
        "SELECT region, SUM(amount) FROM sales GROUP BY region",
    ),
    (
        "join_subquery",
        Dialect::Postgres,
        "SELECT c.name, SUM(o.total) AS t FROM customers c JOIN orders o ON o.customer_id = c.id \
         WHERE o.total > (SELECT AVG(total) FROM orders) AND c.id IN (SELECT customer_id FROM sales) \
         GROUP BY c.name ORDER BY t DESC",
    ),
    (
        "nested_ctes",
        Dialect::MySql,
        "WITH a AS (SELECT * FROM sales), b AS (SELECT region, SUM(amount) AS s FROM a GROUP BY region) \
         SELECT b.region, b.s, (SELECT COUNT(*) FROM orders) AS n FROM b JOIN sales x ON x.region = b.region",
    ),
];

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let rules = ScopeRules::parse(&BTreeMap::from([
        ("sales".to_string(), "region = :user.region".to_string()),
        (
            "orders".to_string(),
            "tenant_id = :user.tenant_id AND region IN :user.regions".to_string(),
        ),
    ]))
    .expect("rules");
    let viewer = Viewer::scoped(
        Some("bench".into()),
        BTreeMap::from([
            ("region".to_string(), json!("华东")),
            ("tenant_id".to_string(), json!(7)),
            ("regions".to_string(), json!(["华东", "华北"])),
        ]),
    );
    let scope = rules.bind(&viewer);
    let policy = GuardPolicy::new(TABLES);
    let mut group = criterion.benchmark_group("row_scope");
    for (name, dialect, sql) in STATEMENTS {
        group.bench_function(format!("guard_{name}_unscoped"), |b| {
            b.iter(|| black_box(check_sql(black_box(sql), *dialect, &policy)))
        });
        group.bench_function(format!("guard_{name}_scoped"), |b| {
            b.iter(|| black_box(check_sql_scoped(black_box(sql), *dialect, &policy, &scope)))
        });
    }
    let template = parse_query(
        "SELECT region, SUM(amount) AS total FROM sales WHERE (:region IS NULL OR region = :region) GROUP BY region",
        Dialect::Postgres,
    )
    .expect("template");
    group.bench_function("template_rewrite_scoped", |b| {
        b.iter(|| black_box(scope_query(black_box(&template), Dialect::Postgres, &scope)))
    });

    let catalog = demo_catalog().expect("demo catalog");
    let tool = catalog.get("sales_metrics").expect("sales_metrics");
    let model = tool.extensions().metrics.clone().expect("x-metrics");
    let table = model.tables[0].name.clone();
    let column = model.dimensions[0].column.column.clone();
    let metric_rules = ScopeRules::parse(&BTreeMap::from([(table, format!("{column} = :user.region"))])).expect("rule");
    let metric_scope = metric_rules.bind(&viewer);
    let mut values = MetricValues::new();
    values.insert(tool, 0, vec![Value::from("华东"), Value::from("华南")]);
    let query: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "销售额"}],
        "timeRange": {"start": "2026-07-01", "end": "2026-09-30"},
        "groupBy": ["地区"]
    }))
    .expect("query");
    group.bench_function("metric_compile_unscoped", |b| {
        b.iter(|| prepare(tool.name(), &model, &values, black_box(&query), Dialect::Postgres).expect("compiles"))
    });
    group.bench_function("metric_compile_scoped", |b| {
        b.iter(|| {
            prepare_scoped(
                tool.name(),
                &model,
                &values,
                black_box(&query),
                Dialect::Postgres,
                &metric_scope,
            )
            .expect("compiles")
        })
    });
    group.finish();
    criterion.final_summary();
}
