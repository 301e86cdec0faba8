//! The SQL guard: generated SQL is parsed (sqlparser, in the connection's dialect), walked, and let through only when
//! it is exactly one read-only query over allowed tables, calling allowed functions, with a LIMIT added or capped.
//! String matching is not a guard; the read-only connection under it is the second layer.

mod policy;
mod walk;

pub use policy::{DEFAULT_ALLOWED_FUNCTIONS, DEFAULT_DENIED_FUNCTIONS, GuardPolicy, SYSTEM_SCHEMAS, SqlDialect};

use serde::Serialize;
use sqlparser::ast::Statement;
use sqlparser::dialect::{Dialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;

/// The guard's verdict on one statement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuardVerdict {
    /// Whether the statement may run.
    pub allowed: bool,
    /// Why not (every problem found), empty when allowed.
    pub reasons: Vec<String>,
    /// The SQL to run, re-rendered with its LIMIT, when allowed.
    pub sql: Option<String>,
    /// The tables the statement reads (CTE names excluded).
    pub tables: Vec<String>,
    /// The functions it calls.
    pub functions: Vec<String>,
    /// The LIMIT the final SQL carries, when allowed.
    pub limit: Option<u64>,
}

/// Checks one SQL text under `policy`, parsed in `dialect`.
pub fn check_sql(sql: &str, dialect: SqlDialect, policy: &GuardPolicy) -> GuardVerdict {
    let parser_dialect: Box<dyn Dialect> = match dialect {
        SqlDialect::Sqlite => Box::new(SQLiteDialect {}),
        SqlDialect::Postgres => Box::new(PostgreSqlDialect {}),
        SqlDialect::Mysql => Box::new(MySqlDialect {}),
    };
    let mut statements = match Parser::parse_sql(parser_dialect.as_ref(), sql) {
        Ok(statements) => statements,
        Err(e) => return refused(vec![format!("the SQL does not parse as {}: {e}", dialect.name())]),
    };
    if statements.len() != 1 {
        return refused(vec![format!(
            "exactly one statement may run; found {}",
            statements.len()
        )]);
    }
    let Some(Statement::Query(query)) = statements.first_mut() else {
        let kind = statements.first().map(statement_kind).unwrap_or_default();
        return refused(vec![format!("only a query may run; found {kind}")]);
    };
    let mut findings = walk::Findings::default();
    walk::check_query(query, &mut findings);
    walk::check_relations(query, policy, &mut findings);
    walk::check_functions(query, policy, &mut findings);
    if !findings.reasons.is_empty() {
        let mut verdict = refused(findings.reasons);
        verdict.tables = findings.tables;
        verdict.functions = findings.functions;
        return verdict;
    }
    let limit = walk::apply_limit(query, policy.max_rows, &mut findings);
    if !findings.reasons.is_empty() {
        return refused(findings.reasons);
    }
    GuardVerdict {
        allowed: true,
        reasons: Vec::new(),
        sql: Some(query.to_string()),
        tables: findings.tables,
        functions: findings.functions,
        limit: Some(limit),
    }
}

fn refused(reasons: Vec<String>) -> GuardVerdict {
    GuardVerdict {
        allowed: false,
        reasons,
        sql: None,
        tables: Vec::new(),
        functions: Vec::new(),
        limit: None,
    }
}

/// The first keywords of a statement, for messages (`DELETE`, `DROP TABLE`, `PRAGMA`, …).
fn statement_kind(statement: &Statement) -> String {
    let text = statement.to_string();
    let words: Vec<&str> = text.split_whitespace().take(2).collect();
    match words.as_slice() {
        [first, second]
            if matches!(
                first.to_ascii_uppercase().as_str(),
                "DROP" | "CREATE" | "ALTER" | "TRUNCATE"
            ) =>
        {
            format!("{} {}", first.to_ascii_uppercase(), second.to_ascii_uppercase())
        }
        [first, ..] => first.to_ascii_uppercase(),
        [] => "an empty statement".to_string(),
    }
}
