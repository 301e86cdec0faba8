//! Walking a parsed query: write bodies, SELECT INTO, locks, relations, functions, and the LIMIT.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, LimitClause, ObjectName, ObjectNamePart, Query, SetExpr, Value, ValueWithSpan, visit_expressions,
    visit_relations,
};

use super::policy::{GuardPolicy, SYSTEM_SCHEMAS};

/// What the walk found.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// Every problem, in the order found.
    pub reasons: Vec<String>,
    /// Tables read (CTE names excluded).
    pub tables: Vec<String>,
    /// Functions called.
    pub functions: Vec<String>,
    /// CTE names defined anywhere in the query.
    ctes: Vec<String>,
}

/// Checks the query's shape: every body a query (no DML in CTEs or set operations), no SELECT INTO, no locks.
pub(super) fn check_query(query: &Query, findings: &mut Findings) {
    if let Some(with) = &query.with {
        for cte in &with.cte_tables {
            findings.ctes.push(cte.alias.name.value.to_ascii_lowercase());
            check_query(&cte.query, findings);
        }
    }
    if !query.locks.is_empty() {
        findings
            .reasons
            .push("locking clauses (FOR UPDATE/SHARE) are not allowed".into());
    }
    if query.for_clause.is_some() {
        findings.reasons.push("FOR clauses are not allowed".into());
    }
    check_body(&query.body, findings);
}

fn check_body(body: &SetExpr, findings: &mut Findings) {
    match body {
        SetExpr::Select(select) => {
            if select.into.is_some() {
                findings
                    .reasons
                    .push("SELECT … INTO writes a table: not allowed".into());
            }
        }
        SetExpr::Query(query) => check_query(query, findings),
        SetExpr::SetOperation { left, right, .. } => {
            check_body(left, findings);
            check_body(right, findings);
        }
        SetExpr::Values(_) | SetExpr::Table(_) => {}
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => {
            findings
                .reasons
                .push("a data-changing statement inside the query is not allowed".into());
        }
        #[allow(unreachable_patterns)]
        _ => findings.reasons.push("this kind of query body is not allowed".into()),
    }
}

/// Every relation must be an allowed table or a CTE; system schemas and catalogs never are.
pub(super) fn check_relations(query: &Query, policy: &GuardPolicy, findings: &mut Findings) {
    let mut names: Vec<Vec<String>> = Vec::new();
    let _ = visit_relations(query, |name: &ObjectName| {
        names.push(parts(name));
        ControlFlow::<()>::Continue(())
    });
    for parts in names {
        let full = parts.join(".");
        let Some(table) = parts.last() else { continue };
        let schema = parts.len().checked_sub(2).and_then(|i| parts.get(i));
        if let Some(schema) = schema
            && (SYSTEM_SCHEMAS.contains(&schema.as_str()) || !matches!(schema.as_str(), "main" | "public"))
        {
            findings
                .reasons
                .push(format!("`{full}` is outside the allowed tables (schema `{schema}`)"));
            continue;
        }
        if is_system_table(table) {
            findings.reasons.push(format!("`{full}` is a system catalog"));
        } else if schema.is_none() && findings.ctes.contains(table) {
            continue;
        } else if !policy.table_allowed(table) {
            findings.reasons.push(format!(
                "table `{full}` is not on the allow list ({})",
                policy.allowed_tables.join(", ")
            ));
        } else if !findings.tables.contains(table) {
            findings.tables.push(table.clone());
        }
    }
}

fn is_system_table(table: &str) -> bool {
    table.starts_with("sqlite_") || table.starts_with("pg_") || SYSTEM_SCHEMAS.contains(&table)
}

/// Every function called must pass the deny and allow lists.
pub(super) fn check_functions(query: &Query, policy: &GuardPolicy, findings: &mut Findings) {
    let mut called: Vec<String> = Vec::new();
    let _ = visit_expressions(query, |expr: &Expr| {
        if let Expr::Function(function) = expr
            && let Some(name) = parts(&function.name).last()
        {
            called.push(name.clone());
        }
        ControlFlow::<()>::Continue(())
    });
    for name in called {
        if let Some(reason) = policy.function_refusal(&name) {
            findings.reasons.push(reason);
        }
        if !findings.functions.contains(&name) {
            findings.functions.push(name);
        }
    }
}

/// Adds `LIMIT max` when there is none, caps a larger literal one, and refuses one that is not a literal.
pub(super) fn apply_limit(query: &mut Query, max: u64, findings: &mut Findings) -> u64 {
    if query.fetch.is_some() {
        findings.reasons.push("FETCH FIRST is not allowed; use LIMIT".into());
        return max;
    }
    let current = match &query.limit_clause {
        None => None,
        Some(LimitClause::LimitOffset { limit: None, .. }) => None,
        Some(LimitClause::LimitOffset { limit: Some(expr), .. })
        | Some(LimitClause::OffsetCommaLimit { limit: expr, .. }) => match literal_u64(expr) {
            Some(n) => Some(n),
            None => {
                findings.reasons.push(format!("LIMIT `{expr}` is not a number"));
                return max;
            }
        },
    };
    let limit = current.map_or(max, |n| n.min(max));
    let limit_expr = Expr::value(Value::Number(limit.to_string(), false));
    match &mut query.limit_clause {
        Some(LimitClause::LimitOffset { limit: slot, .. }) => *slot = Some(limit_expr),
        Some(LimitClause::OffsetCommaLimit { limit: slot, .. }) => *slot = limit_expr,
        None => {
            query.limit_clause = Some(LimitClause::LimitOffset {
                limit: Some(limit_expr),
                offset: None,
                limit_by: vec![],
            })
        }
    }
    limit
}

fn literal_u64(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Value(ValueWithSpan {
            value: Value::Number(n, _),
            ..
        }) => n.parse().ok(),
        _ => None,
    }
}

/// The parts of a name, unquoted and lower case.
fn parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => ident.value.to_ascii_lowercase(),
            ObjectNamePart::Function(f) => f.name.value.to_ascii_lowercase(),
        })
        .collect()
}
