//! `x-sql` templates are checked when the executor is built: a broken one names its tool and what is wrong.

use std::sync::Arc;

use jiff::civil::date;
use serde_json::{Value, json};
use wenshu_contract::{BoundCall, Catalog, demo_catalog};
use wenshu_engine::db::{Database, Dialect};
use wenshu_engine::execute::{ExecContext, ExecError, Executors, SqlTemplateExecutor};

fn tool_with_sql(x_sql: Value) -> Value {
    json!({"tools": [{
        "name": "sales",
        "description": "sales",
        "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string"},
            "period": {"type": "string", "enum": ["本月", "上月"], "default": "本月"},
            "kind": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "top": {"type": "integer"}
        }},
        "x-sql": x_sql
    }]})
}

async fn build(document: &Value) -> Result<SqlTemplateExecutor, ExecError> {
    let catalog = Catalog::from_value(document).expect("catalog");
    let db = Database::connect("sqlite::memory:").await.expect("memory");
    SqlTemplateExecutor::new(db, &catalog)
}

fn refusal(result: Result<SqlTemplateExecutor, ExecError>) -> (String, String) {
    match result {
        Err(ExecError::Invalid { tool, reason }) => (tool, reason),
        Err(other) => panic!("expected Invalid, got {other:?}"),
        Ok(_) => panic!("expected the template to be refused"),
    }
}

#[tokio::test]
async fn the_demo_templates_are_valid_for_every_dialect() {
    let catalog = demo_catalog().unwrap();
    for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
        let templates = wenshu_engine::execute::read_sql_templates(&catalog, dialect).unwrap();
        let names: Vec<&str> = templates.iter().map(|t| t.tool.as_str()).collect();
        assert_eq!(names, ["sales_query", "movie_box_office", "movie_rating"]);
        let sales = &templates[0];
        assert_eq!(sales.by.as_deref(), Some("queryType"));
        assert_eq!(sales.queries.len(), 4);
        assert_eq!(
            sales.periods,
            vec![("period".into(), "period_start".into(), "period_end".into())]
        );
    }
    let db = Database::connect("sqlite::memory:").await.unwrap();
    let executor = SqlTemplateExecutor::new(db, &catalog).unwrap();
    assert_eq!(
        executor.tool_names(),
        ["movie_box_office", "movie_rating", "sales_query"]
    );
    let mut executors = Executors::new();
    executors.register_sql(Arc::new(executor));
    assert_eq!(
        executors.tool_names(),
        ["movie_box_office", "movie_rating", "sales_query"]
    );
}

#[tokio::test]
async fn a_single_query_with_known_and_derived_placeholders_builds() {
    let document = tool_with_sql(json!({
        "query": "SELECT :region, :period_start, :period_end, CAST(:top AS INTEGER) AS t, 'x::y', '...:nope' -- :nope"
    }));
    let executor = build(&document).await.unwrap();
    let template = executor.template("sales").unwrap();
    assert_eq!(
        template.queries[0].1.binds,
        ["region", "period_start", "period_end", "top"]
    );
    // Running it binds the period's days on the context's day and NULL for absent parameters.
    let catalog = Catalog::from_value(&document).unwrap();
    let tool = catalog.get("sales").unwrap();
    let call = BoundCall {
        tool: "sales".into(),
        arguments: json!({"period": "上月", "kind": "a"}).as_object().cloned().unwrap(),
        defaulted: Vec::new(),
        coercions: Vec::new(),
    };
    let ctx = ExecContext::new(date(2026, 3, 10));
    let (sql, binds) = executor.prepare(tool, &call, &ctx).unwrap();
    assert!(sql.starts_with("SELECT ?, ?, ?, CAST(? AS INTEGER)"), "{sql}");
    assert_eq!(
        binds,
        vec![
            ("region".to_string(), Value::Null),
            ("period_start".to_string(), json!("2026-02-01")),
            ("period_end".to_string(), json!("2026-02-28")),
            ("top".to_string(), Value::Null),
        ]
    );
    let result = wenshu_engine::execute::Executor::execute(&executor, tool, &call, &ctx)
        .await
        .unwrap();
    assert_eq!(result.rows[0][1], json!("2026-02-01"));
    assert_eq!(result.detail["sql"], json!(sql));
    assert_eq!(
        result.detail["binds"][1],
        json!({"name": "period_start", "value": "2026-02-01"})
    );
}

#[tokio::test]
async fn an_unknown_placeholder_names_the_tool_and_the_placeholder() {
    let (tool, reason) = refusal(build(&tool_with_sql(json!({"query": "SELECT * FROM t WHERE r = :regoin"}))).await);
    assert_eq!(tool, "sales");
    assert!(reason.contains(":regoin"), "{reason}");
    assert!(reason.contains(":region"), "lists the known names: {reason}");
    // `kind` is an enum but not of periods: no derived days.
    let (_, reason) = refusal(build(&tool_with_sql(json!({"query": "SELECT :kind_start"}))).await);
    assert!(reason.contains(":kind_start"), "{reason}");
}

#[tokio::test]
async fn by_must_name_an_enum_and_queries_must_cover_it() {
    let (_, r) = refusal(build(&tool_with_sql(json!({"by": "region", "queries": {"a": "SELECT 1"}}))).await);
    assert!(r.contains("no string enum"), "{r}");
    let (_, r) = refusal(build(&tool_with_sql(json!({"by": "nope", "queries": {}}))).await);
    assert!(r.contains("not a parameter"), "{r}");
    let (_, r) = refusal(build(&tool_with_sql(json!({"by": "kind", "queries": {"a": "SELECT 1"}}))).await);
    assert!(r.contains("no query for `kind` = `b`"), "{r}");
    let (_, r) = refusal(
        build(&tool_with_sql(
            json!({"by": "kind", "queries": {"a": "SELECT 1", "b": "SELECT 2", "c": "SELECT 3"}}),
        ))
        .await,
    );
    assert!(r.contains("`c`"), "{r}");
    let (_, r) = refusal(
        build(&tool_with_sql(
            json!({"by": "kind", "queries": {"a": "SELECT 1", "b": "SELECT :x"}}),
        ))
        .await,
    );
    assert!(r.contains("x-sql.queries.b") && r.contains(":x"), "{r}");
}

#[tokio::test]
async fn malformed_x_sql_is_refused() {
    for bad in [
        json!("SELECT 1"),
        json!({}),
        json!({"query": ""}),
        json!({"query": "SELECT 1", "by": "kind"}),
        json!({"query": "SELECT ?"}),
        json!({"query": "SELECT 'open"}),
        json!({"sql": "SELECT 1"}),
    ] {
        let (tool, _) = refusal(build(&tool_with_sql(bad.clone())).await);
        assert_eq!(tool, "sales", "{bad}");
    }
}

#[tokio::test]
async fn a_call_of_another_tool_or_without_a_by_value_is_invalid() {
    let document = tool_with_sql(json!({"by": "kind", "queries": {"a": "SELECT 1", "b": "SELECT 2"}}));
    let executor = build(&document).await.unwrap();
    let catalog = Catalog::from_value(&document).unwrap();
    let tool = catalog.get("sales").unwrap();
    let ctx = ExecContext::new(date(2026, 11, 29));
    let mut call = BoundCall {
        tool: "other".into(),
        arguments: Default::default(),
        defaulted: Vec::new(),
        coercions: Vec::new(),
    };
    assert!(matches!(
        executor.prepare(tool, &call, &ctx),
        Err(ExecError::Invalid { .. })
    ));
    call.tool = "sales".into();
    let err = executor.prepare(tool, &call, &ctx).unwrap_err();
    assert!(err.to_string().contains("`kind` has no value"), "{err}");
}
