//! The SQL an executor says it sent (its result's `detail`: an SQL template's statement, a metric query's
//! statements), read once into [`SentSql`] where the engine records the execute step.

use serde::Deserialize;
use serde_json::Value;

use crate::executed::SentSql;

/// What the engine's executors write in a result's `detail`, as far as the SQL goes.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Detail {
    /// An SQL template: one statement.
    Sql {
        sql: String,
        #[serde(default)]
        binds: Vec<Value>,
    },
    /// A metric query: one statement per period.
    Metric {
        #[serde(default)]
        statements: Vec<Statement>,
    },
}

/// One statement of a metric query.
#[derive(Deserialize)]
struct Statement {
    sql: String,
    #[serde(default)]
    binds: Vec<Value>,
    #[serde(default)]
    period: Value,
}

/// The SQL statements `detail` says were sent; none for an HTTP or MCP call (or a detail of another shape).
pub fn sent_sql(detail: &Value) -> Vec<SentSql> {
    match Detail::deserialize(detail) {
        Ok(Detail::Sql { sql, binds }) => vec![SentSql::ran(sql, binds, None)],
        Ok(Detail::Metric { statements }) => statements
            .into_iter()
            .map(|s| SentSql::ran(s.sql, s.binds, Some(s.period)))
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_templates_and_a_metric_querys_statements_are_read_and_an_http_call_has_none() {
        let template =
            sent_sql(&json!({"kind": "sql", "dialect": "sqlite", "sql": "SELECT 1 WHERE a = ?", "binds": [3]}));
        assert_eq!(template.len(), 1);
        assert_eq!(
            (template[0].sql.as_str(), &template[0].binds, &template[0].period),
            ("SELECT 1 WHERE a = ?", &vec![json!(3)], &None)
        );
        let metric = sent_sql(&json!({"kind": "metric", "statements": [
            {"period": "current", "sql": "SELECT SUM(x) FROM t", "binds": []},
            {"period": "previous", "sql": "SELECT SUM(x) FROM t WHERE d < ?", "binds": ["2026-01-01"]},
        ]}));
        assert_eq!(metric.len(), 2);
        assert_eq!(metric[1].period, Some(json!("previous")));
        assert!(sent_sql(&json!({"kind": "http", "method": "GET", "url": "https://x"})).is_empty());
        assert!(sent_sql(&json!({"result": {}})).is_empty());
    }
}
