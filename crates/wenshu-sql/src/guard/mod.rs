//! The SQL guard: generated SQL is parsed (sqlparser, in the connection's dialect), walked, and let through only when
//! it is exactly one read-only query over allowed tables, calling allowed functions, with a LIMIT added or capped.
//! String matching is not a guard; the read-only connection under it is the second layer.

mod bounds;
mod comments;
mod cost;
mod ctes;
mod limit;
mod names;
mod policy;
mod recursion;
mod render;
pub mod row_scope;
mod scope;

pub use bounds::{MAX_DEPTH, MAX_SQL_BYTES, MAX_TOKENS, on_guard_stack};
pub use policy::{
    AGGREGATE_FUNCTIONS, DEFAULT_ALLOWED_FUNCTIONS, DEFAULT_DENIED_FUNCTIONS, GuardPolicy,
    POSTGRES_SET_RETURNING_FUNCTIONS, SYSTEM_SCHEMAS, default_table_functions,
};
pub use scope::Resolution;

pub use crate::dialect::Dialect;

use serde::Serialize;
use serde_json::Value as Json;
use sqlparser::ast::{Query, Statement};
use sqlparser::parser::Parser;

/// The guard's verdict on one statement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuardVerdict {
    /// Whether the statement may run.
    pub allowed: bool,
    /// Why not (every problem found), empty when allowed.
    pub reasons: Vec<String>,
    /// The SQL to run, re-rendered with its LIMIT, when allowed. Only this text is ever run: never the input.
    pub sql: Option<String>,
    /// The tables the statement reads (CTE names excluded).
    pub tables: Vec<String>,
    /// The functions it calls.
    pub functions: Vec<String>,
    /// The LIMIT the final SQL carries, when allowed.
    pub limit: Option<u64>,
    /// Every table, CTE, function and clause resolved, with what it resolved to or why it is refused.
    pub resolved: Vec<Resolution>,
    /// The values bound to the placeholders of `sql`, in order: the row scope's (empty without one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub binds: Vec<Json>,
    /// The attribute each bind comes from (`region` of `:user.region`), in the same order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bind_attributes: Vec<String>,
    /// When refused because it reads a table the viewer's row scope denies: that refusal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_refusal: Option<crate::scope::ScopeRefusal>,
}

/// Checks one SQL text under `policy`, parsed in `dialect`: executable comments are refused on the text, then it
/// must parse as exactly one query whose every name resolves to an allowed table or a CTE in scope, calling only
/// allowed functions; the rewrite (with its LIMIT) is parsed and checked again before it is returned.
pub fn check_sql(sql: &str, dialect: Dialect, policy: &GuardPolicy) -> GuardVerdict {
    check(sql, dialect, policy, None)
}

/// [`check_sql`] for SQL a model wrote, under a viewer's row scope: placeholders in the SQL are refused, every
/// reference to a scoped table becomes a scoped subquery (see [`row_scope`]) whose values are bound
/// ([`GuardVerdict::binds`]), a table the viewer is denied refuses the statement, and the rewrite is checked again
/// — names, tables, and that every scoped table is read only through its scoped subquery.
pub fn check_sql_scoped(
    sql: &str,
    dialect: Dialect,
    policy: &GuardPolicy,
    scope: &crate::scope::BoundScope,
) -> GuardVerdict {
    check(sql, dialect, policy, Some(scope))
}

/// [`checked`] on the guard's own stack ([`on_guard_stack`]): no statement overflows the caller's.
fn check(sql: &str, dialect: Dialect, policy: &GuardPolicy, scope: Option<&crate::scope::BoundScope>) -> GuardVerdict {
    if let Some(reason) = comments::refusal(sql) {
        return refused(vec![reason]);
    }
    on_guard_stack(|| checked(sql, dialect, policy, scope)).unwrap_or_else(|reason| refused(vec![reason]))
}

fn checked(
    sql: &str,
    dialect: Dialect,
    policy: &GuardPolicy,
    scope: Option<&crate::scope::BoundScope>,
) -> GuardVerdict {
    let mut query = match parse_one_query(sql, dialect) {
        Ok(query) => query,
        Err(reason) => match dialect
            .rules()
            .respell(sql)
            .map(|respelled| parse_one_query(&respelled, dialect))
        {
            Some(Ok(query)) => query,
            _ => return refused(vec![reason]),
        },
    };
    let mut findings = scope::inspect(&query, dialect, policy);
    cost::refuse(&query, dialect, policy, &mut findings);
    if !findings.reasons.is_empty() {
        let mut verdict = refused(findings.reasons);
        verdict.tables = findings.tables;
        verdict.functions = findings.functions;
        verdict.resolved = findings.resolutions;
        return verdict;
    }
    // The outer LIMIT is checked on the SQL as written, before the row scope's rewrite: a refusal quotes only the
    // user's SQL, never the scoped subquery or its bind marks.
    let limit = match limit::apply_limit(&mut query, policy.max_rows, dialect) {
        Ok(limit) => limit,
        Err(reason) => return refused(vec![reason]),
    };
    let scope_binds = match scope {
        None => None,
        Some(scope) => {
            if let Err(reason) = row_scope::refuse_placeholders(&query) {
                return refused(vec![reason]);
            }
            match row_scope::wrap(&mut query, dialect, scope) {
                Ok(binds) => Some((scope, binds)),
                Err(row_scope::ScopeRewriteError::Denied(refusal)) => {
                    let mut verdict = refused(vec![refusal.en.clone()]);
                    verdict.scope_refusal = Some(refusal);
                    return verdict;
                }
                Err(error) => return refused(vec![error.to_string()]),
            }
        }
    };
    let mut rewrite = render::render(query, dialect);
    let (mut binds, mut bind_attributes) = (Vec::new(), Vec::new());
    let mut scoped = None;
    if let Some((scope, scope_binds)) = scope_binds {
        match positional(&rewrite, dialect, &scope_binds) {
            Ok((sql, values)) => {
                rewrite = sql;
                (binds, bind_attributes) = values.into_iter().unzip();
            }
            Err(reason) => return refused(vec![reason]),
        }
        scoped = Some(scope);
    }
    if let Some(reason) = recheck(&rewrite, dialect, policy, &findings.tables, scoped) {
        return refused(vec![reason]);
    }
    GuardVerdict {
        allowed: true,
        reasons: Vec::new(),
        sql: Some(rewrite),
        tables: findings.tables,
        functions: findings.functions,
        limit: Some(limit),
        resolved: findings.resolutions,
        binds,
        bind_attributes,
        scope_refusal: None,
    }
}

/// `query` (parsed in `dialect`, named placeholders allowed: an `x-sql` template) with every reference to a table
/// of `scope` wrapped in its scoped subquery, rendered; with the marks written. `Ok(None)` when it reads no scoped
/// table (the template runs as written).
pub fn scope_query(
    query: &Query,
    dialect: Dialect,
    scope: &crate::scope::BoundScope,
) -> Result<Option<(String, row_scope::ScopeBinds)>, row_scope::ScopeRewriteError> {
    if scope.is_empty() {
        return Ok(None);
    }
    let mut query = query.clone();
    let binds = row_scope::wrap(&mut query, dialect, scope)?;
    if binds.tables.is_empty() {
        return Ok(None);
    }
    let text = render::render(query, dialect);
    match parse_one_query(&text, dialect) {
        Ok(again) => row_scope::verify(&again, dialect, scope).map_err(row_scope::ScopeRewriteError::Refused)?,
        Err(reason) => return Err(row_scope::ScopeRewriteError::Refused(reason)),
    }
    Ok(Some((text, binds)))
}

/// Parses `sql` as one query in `dialect` (named placeholders are values), or says why not; a statement over the
/// [`bounds`] is refused before it is parsed. Walk a tree that came from outside on [`on_guard_stack`].
pub fn parse_query(sql: &str, dialect: Dialect) -> Result<Query, String> {
    parse_one_query(sql, dialect)
}

/// The rewrite with the row scope's named marks as the dialect's positional placeholders, and the values (with
/// their attributes) in placeholder order; any other named placeholder refuses it.
pub fn positional(
    rewrite: &str,
    dialect: Dialect,
    scope_binds: &row_scope::ScopeBinds,
) -> Result<(String, Vec<(Json, String)>), String> {
    let positional = crate::placeholder::rewrite_named(rewrite, dialect)
        .map_err(|e| format!("the guard's scoped rewrite does not bind: {e}"))?;
    let values = positional
        .binds
        .iter()
        .map(|name| {
            scope_binds
                .values
                .get(name)
                .map(|(attribute, value)| (value.clone(), attribute.clone()))
                .ok_or_else(|| format!("the guard's scoped rewrite holds `:{name}`, which is not wenshu's"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((positional.sql, values))
}

/// The one query `sql` holds, or why it is not one query (or is too big or deep to parse: [`bounds`]).
fn parse_one_query(sql: &str, dialect: Dialect) -> Result<Query, String> {
    let tokens = bounds::tokens_within(sql, dialect)?;
    let parser_dialect = dialect.rules().parser();
    let statements = Parser::new(parser_dialect.as_ref())
        .with_tokens_with_locations(tokens)
        .parse_statements()
        .map_err(|e| format!("the SQL does not parse as {}: {e}", dialect.name()))?;
    if statements.len() != 1 {
        return Err(format!("exactly one statement may run; found {}", statements.len()));
    }
    match statements.into_iter().next() {
        Some(Statement::Query(query)) => Ok(*query),
        Some(other) => Err(format!("only a query may run; found {}", statement_kind(&other))),
        None => Err("exactly one statement may run; found 0".into()),
    }
}

/// The rewrite must parse as one query again and read the same allowed tables: what runs is what was checked;
/// under a row scope, every scoped table only through its scoped subquery.
fn recheck(
    rewrite: &str,
    dialect: Dialect,
    policy: &GuardPolicy,
    tables: &[String],
    scoped: Option<&crate::scope::BoundScope>,
) -> Option<String> {
    let again = match parse_one_query(rewrite, dialect) {
        Ok(query) => {
            if let Some(scope) = scoped
                && let Err(reason) = row_scope::verify(&query, dialect, scope)
            {
                return Some(format!("the guard's scoped rewrite does not check again: {reason}"));
            }
            scope::inspect(&query, dialect, policy)
        }
        Err(reason) => return Some(format!("the guard's rewrite does not check again: {reason}")),
    };
    if !again.reasons.is_empty() || again.tables != tables {
        return Some(format!(
            "the guard's rewrite does not check again: {}",
            again.reasons.join("; ")
        ));
    }
    None
}

fn refused(reasons: Vec<String>) -> GuardVerdict {
    GuardVerdict {
        allowed: false,
        reasons,
        sql: None,
        tables: Vec::new(),
        functions: Vec::new(),
        limit: None,
        resolved: Vec::new(),
        binds: Vec::new(),
        bind_attributes: Vec::new(),
        scope_refusal: None,
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
