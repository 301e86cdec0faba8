//! A guard refusal under a row scope quotes only the SQL as written: never the scoped subquery the rewrite puts in
//! (its alias `wenshu_scoped`) nor its bind marks (`:wenshu_scope_…`) (issue #29, D24).

use std::collections::BTreeMap;

use serde_json::json;
use wenshu_sql::guard::{Dialect, GuardPolicy, check_sql_scoped};
use wenshu_sql::scope::{ScopeRules, Viewer};

#[test]
fn a_refused_limit_quotes_the_users_sql_not_the_rewrite() {
    let rules = ScopeRules::parse(&BTreeMap::from([(
        "sales".to_string(),
        "region = :user.region".to_string(),
    )]))
    .unwrap();
    let viewer = Viewer::scoped(
        Some("east".into()),
        BTreeMap::from([("region".to_string(), json!("华东"))]),
    );
    let scope = rules.bind(&viewer);
    let policy = GuardPolicy::new(&["sales", "regions"]);
    for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
        for sql in [
            "SELECT region FROM sales LIMIT (SELECT COUNT(*) FROM sales)",
            "SELECT region FROM regions LIMIT (SELECT COUNT(*) FROM sales s JOIN sales t ON s.id = t.id)",
        ] {
            let verdict = check_sql_scoped(sql, dialect, &policy, &scope);
            assert!(!verdict.allowed, "{sql}");
            let reasons = verdict.reasons.join("; ");
            assert!(reasons.contains("LIMIT"), "{dialect:?} {sql}: {reasons}");
            assert!(!reasons.contains("wenshu_scope"), "{dialect:?} {sql}: {reasons}");
        }
    }
}
