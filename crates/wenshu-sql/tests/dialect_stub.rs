//! A dialect defined outside the crate, in this one file: what adding a dialect takes. Its rules (a parser, a
//! fence for the scoped subquery, its quote, its placeholders, its date buckets) are all the guard, the row-scope
//! rewrite and the metric compiler need; nothing else in `wenshu-sql` changes.

use serde_json::json;
use sqlparser::dialect::GenericDialect;
use wenshu_contract::demo_catalog;
use wenshu_contract::metric::MetricQuery;
use wenshu_sql::Dialect;
use wenshu_sql::dialect::{CteSight, DialectRules};
use wenshu_sql::guard::{GuardPolicy, check_sql, check_sql_scoped};
use wenshu_sql::metric::compile;
use wenshu_sql::scope::{ScopeRules, Viewer};

/// A test-only dialect: sqlparser's generic parser, backtick quotes, `?1`-style numbered placeholders and its
/// own date functions, so every place the crate asks a dialect shows in the SQL it writes.
struct Stub;

impl DialectRules for Stub {
    fn name(&self) -> &'static str {
        "stub"
    }

    fn parser(&self) -> Box<dyn sqlparser::dialect::Dialect> {
        Box::new(GenericDialect {})
    }

    fn default_schema(&self) -> Option<&'static str> {
        Some("dbo")
    }

    fn later_cte_sight(&self, recursive: bool, _is_itself: bool) -> CteSight {
        if recursive { CteSight::Cte } else { CteSight::Outside }
    }

    fn table_functions(&self) -> &'static [&'static str] {
        &[]
    }

    fn scope_fence(&self) -> &'static str {
        "SELECT * FROM t WHERE 1 = 1 OFFSET 0"
    }

    fn identifier_quote(&self) -> char {
        '`'
    }

    fn placeholder(&self, index: usize) -> String {
        format!("?{}", index + 1)
    }

    fn numbered_placeholders(&self) -> bool {
        true
    }

    fn week_start(&self, day: &str) -> String {
        format!("STUB_WEEK({day})")
    }
}

static STUB: Stub = Stub;

fn stub() -> Dialect {
    Dialect::Custom(&STUB)
}

#[test]
fn the_stub_is_one_dialect_among_the_others() {
    assert_eq!(stub().name(), "stub");
    assert_eq!(stub(), Dialect::Custom(&STUB));
    assert_ne!(stub(), Dialect::Postgres);
    assert_eq!(stub().placeholder(1), "?2");
    assert_eq!(stub().quote_identifier("a`b"), "`a``b`");
    // Configuration reads only the dialects wenshu connects to.
    assert_eq!(Dialect::from_name("stub"), None);
    assert_eq!(Dialect::from_name("PostgreSQL"), Some(Dialect::Postgres));
    assert_eq!(serde_json::to_value(stub()).unwrap(), json!("stub"));
}

#[test]
fn the_guard_checks_statements_in_the_stub_dialect() {
    let policy = GuardPolicy::new(&["sales"]);
    let verdict = check_sql("SELECT region, SUM(amount) FROM sales GROUP BY region", stub(), &policy);
    assert!(verdict.allowed, "{:?}", verdict.reasons);
    assert!(verdict.sql.unwrap().contains("LIMIT 1000"));
    // Its default schema names the bare table; another schema does not.
    assert!(check_sql("SELECT * FROM dbo.sales", stub(), &policy).allowed);
    assert!(!check_sql("SELECT * FROM other.sales", stub(), &policy).allowed);
    for refused in [
        "DELETE FROM sales",
        "SELECT * FROM secrets",
        "SELECT * FROM sales; SELECT 1",
        "SELECT * FROM generate_series(1, 10)",
    ] {
        let verdict = check_sql(refused, stub(), &policy);
        assert!(!verdict.allowed, "{refused} must be refused: {:?}", verdict.sql);
    }
}

#[test]
fn the_row_scope_wraps_tables_with_the_stubs_fence_and_quotes() {
    let rules = ScopeRules::parse(&[("sales".to_string(), "region = :user.region".to_string())].into()).unwrap();
    let viewer = Viewer::scoped(Some("alice".into()), [("region".to_string(), json!("east"))].into());
    let scope = rules.bind(&viewer);
    let policy = GuardPolicy::new(&["sales"]);
    let verdict = check_sql_scoped("SELECT SUM(amount) FROM sales", stub(), &policy, &scope);
    assert!(verdict.allowed, "{:?}", verdict.reasons);
    let sql = verdict.sql.unwrap();
    assert!(sql.contains("`region`"), "{sql}");
    assert!(sql.contains("OFFSET 0"), "{sql}");
}

#[test]
fn the_metric_compiler_writes_the_stubs_placeholders_and_buckets() {
    let catalog = demo_catalog().unwrap();
    let model = catalog
        .get("sales_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let query: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "amount"}],
        "filters": [{"dimension": "region", "values": ["华东"]}],
        "timeRange": {"start": "2026-11-01", "end": "2026-11-30"},
        "grain": "week"
    }))
    .unwrap();
    let resolved = query.resolve(&model).unwrap();
    let per = vec![None; resolved.measures.len()];
    let compiled = compile(&model, &resolved, &[], resolved.range.as_ref(), &per, stub());
    let sql = compiled.statement.sql;
    assert!(sql.contains("STUB_WEEK("), "{sql}");
    assert!(sql.contains("?1"), "{sql}");
    assert!(sql.contains("`sales`.`amount`"), "{sql}");
    // The same query in a built-in dialect writes its own.
    let postgres = compile(&model, &resolved, &[], resolved.range.as_ref(), &per, Dialect::Postgres);
    assert!(
        postgres.statement.sql.contains("DATE_TRUNC('week'"),
        "{}",
        postgres.statement.sql
    );
}
