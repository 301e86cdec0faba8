//! `x-sql`: the SQL template of a tool, read from the catalog and checked once, when the executor is built.
//!
//! A tool answered from a database carries its query in `x-sql`, either one query:
//!
//! ```json
//! "x-sql": { "query": "SELECT … WHERE (:region IS NULL OR region = :region) AND day BETWEEN :period_start AND :period_end" }
//! ```
//!
//! or, when the query's shape depends on an enum parameter, one query per enum value:
//!
//! ```json
//! "x-sql": { "by": "queryType", "queries": { "summary": "…", "ranking": "…", "detail": "…", "trend": "…" } }
//! ```
//!
//! - `:name` is a placeholder for the tool's parameter `name`; an optional parameter without a value binds NULL
//!   (write `(:p IS NULL OR col = :p)` for an optional filter).
//! - For a parameter whose enum values are all periods (本月, 上月, 本季度, 上季度, 本年 — every value a time
//!   expression), `:name_start` and `:name_end` are the first and last day of the chosen period on the day of
//!   the call, as ISO dates (`YYYY-MM-DD`).
//! - Values are always bound by the driver, never written into the SQL. Placeholders inside strings, quoted
//!   identifiers and comments, and `::` casts, are not placeholders; positional ones (`?`, `$1`) are refused.
//! - `by` must name an enum parameter and `queries` must have exactly one query per enum value.
//!
//! A template naming an unknown parameter, a `by` that is not an enum, or a missing query fails when the executor
//! is built, naming the tool and what is wrong.
//!
//! Row scope: administrators mark nothing in a template. Under a viewer's scope, wenshu parses the template with
//! sqlparser and reads every scoped table through a scoped subquery (`(SELECT * FROM sales AS wenshu_scoped WHERE
//! wenshu_scoped.region = ? OFFSET 0) AS sales`, fenced per dialect so the optimizer never merges it), the same
//! rewrite the Text-to-SQL guard makes, with the viewer's values bound. A parameter compared with a scoped column (`region = :region`, `region IN (:a, :b)`), or with a column the
//! template joins to one (`m.id = :movieId` with `JOIN ratings r ON r.movie_id = m.id`), whose value lies outside
//! the viewer's scope refuses the call (`scope.outside`), never answers it empty. With row scopes configured, a template that
//! sqlparser cannot parse fails at load ([`check_scope`]).

use serde_json::{Map, Value};
use sqlparser::ast::Query;
use wenshu_contract::{Catalog, Tool};

use super::error::ExecError;
use wenshu_sql::db::{Dialect, rewrite_named};

/// One query of a template, rewritten for the database's dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledQuery {
    /// The template as written in the catalog.
    pub template: String,
    /// The SQL with positional placeholders.
    pub sql: String,
    /// The names to bind, in positional order.
    pub binds: Vec<String>,
    /// The template parsed by sqlparser (for row scope), when it parses.
    pub parsed: Option<Query>,
    /// Each parameter compared with a column by `=` or `IN` in the template, with that column and every column
    /// equal to it through the template's joins (see [`super::joined`]).
    pub reached: Vec<super::joined::Reached>,
}

/// The checked `x-sql` of one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlTemplate {
    /// The tool.
    pub tool: String,
    /// The enum parameter choosing the query, for a template with `by`.
    pub by: Option<String>,
    /// The queries: one with no key, or one per value of `by`.
    pub queries: Vec<(Option<String>, CompiledQuery)>,
    /// The period parameters and their derived names: `(param, param_start, param_end)`.
    pub periods: Vec<(String, String, String)>,
}

impl SqlTemplate {
    /// The query for a call: the only one, or the one for the call's value of `by`.
    pub fn query_for(&self, arguments: &Map<String, Value>) -> Result<&CompiledQuery, ExecError> {
        let Some(by) = &self.by else {
            return self
                .queries
                .first()
                .map(|(_, query)| query)
                .ok_or_else(|| self.invalid("`x-sql` holds no query".into()));
        };
        let value = arguments
            .get(by)
            .and_then(Value::as_str)
            .ok_or_else(|| self.invalid(format!("`x-sql.by` parameter `{by}` has no value in the call")))?;
        self.queries
            .iter()
            .find(|(key, _)| key.as_deref() == Some(value))
            .map(|(_, query)| query)
            .ok_or_else(|| self.invalid(format!("`x-sql.queries` has no query for `{by}` = `{value}`")))
    }

    fn invalid(&self, reason: String) -> ExecError {
        ExecError::Invalid {
            tool: self.tool.clone(),
            reason,
        }
    }
}

/// Reads and checks the `x-sql` of every tool of the catalog that has one, for `dialect`, in catalog order.
pub fn read_sql_templates(catalog: &Catalog, dialect: Dialect) -> Result<Vec<SqlTemplate>, ExecError> {
    catalog
        .tools()
        .iter()
        .filter_map(|tool| {
            tool.definition()
                .get("x-sql")
                .map(|x_sql| read_template(tool, x_sql, dialect))
        })
        .collect()
}

/// Reads and checks the `x-sql` value of one tool.
pub fn read_template(tool: &Tool, x_sql: &Value, dialect: Dialect) -> Result<SqlTemplate, ExecError> {
    let invalid = |reason: String| ExecError::Invalid {
        tool: tool.name().to_string(),
        reason,
    };
    let object = x_sql
        .as_object()
        .ok_or_else(|| invalid("`x-sql` must be an object with `query`, or `by` and `queries`".into()))?;
    if let Some(unknown) = object
        .keys()
        .find(|k| !matches!(k.as_str(), "query" | "by" | "queries"))
    {
        return Err(invalid(format!(
            "`x-sql` has an unknown key `{unknown}`; allowed are `query`, `by`, `queries`"
        )));
    }
    let periods = period_params(tool);
    let compile = |field: &str, template: &Value| -> Result<CompiledQuery, ExecError> {
        let template = template
            .as_str()
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| invalid(format!("`{field}` must be a non-empty SQL string")))?;
        let positional = rewrite_named(template, dialect).map_err(|e| invalid(format!("`{field}`: {e}")))?;
        if let Some(unknown) = positional.binds.iter().find(|name| {
            tool.param(name).is_none() && !periods.iter().any(|(_, start, end)| start == *name || end == *name)
        }) {
            return Err(invalid(format!(
                "`{field}` names placeholder `:{unknown}`, which is not a parameter of the tool; known: {}",
                known_names(tool, &periods)
            )));
        }
        let parsed = wenshu_sql::guard::parse_query(template, dialect).ok();
        let reached = parsed.as_ref().map(super::joined::reached_columns).unwrap_or_default();
        Ok(CompiledQuery {
            template: template.to_string(),
            sql: positional.sql,
            binds: positional.binds,
            parsed,
            reached,
        })
    };
    let (by, queries) = match (object.get("query"), object.get("by"), object.get("queries")) {
        (Some(query), None, None) => (None, vec![(None, compile("x-sql.query", query)?)]),
        (None, Some(by), Some(queries)) => {
            let by = by
                .as_str()
                .ok_or_else(|| invalid("`x-sql.by` must name a parameter".into()))?;
            let spec = tool
                .param(by)
                .ok_or_else(|| invalid(format!("`x-sql.by` names `{by}`, which is not a parameter of the tool")))?;
            let values: Vec<&str> = spec.enum_strings().collect();
            if values.is_empty() {
                return Err(invalid(format!("`x-sql.by` names `{by}`, which has no string enum")));
            }
            let queries = queries
                .as_object()
                .ok_or_else(|| invalid("`x-sql.queries` must be an object of enum value → SQL".into()))?;
            if let Some(extra) = queries.keys().find(|k| !values.contains(&k.as_str())) {
                return Err(invalid(format!(
                    "`x-sql.queries` has `{extra}`, which is not an enum value of `{by}` ({})",
                    values.join(", ")
                )));
            }
            let mut compiled = Vec::new();
            for value in &values {
                let template = queries
                    .get(*value)
                    .ok_or_else(|| invalid(format!("`x-sql.queries` has no query for `{by}` = `{value}`")))?;
                compiled.push((
                    Some(value.to_string()),
                    compile(&format!("x-sql.queries.{value}"), template)?,
                ));
            }
            (Some(by.to_string()), compiled)
        }
        _ => {
            return Err(invalid(
                "`x-sql` must have either `query`, or both `by` and `queries`".into(),
            ));
        }
    };
    Ok(SqlTemplate {
        tool: tool.name().to_string(),
        by,
        queries,
        periods,
    })
}

/// The parameters whose enum values are all periods, with their derived names.
fn period_params(tool: &Tool) -> Vec<(String, String, String)> {
    let reference = jiff::civil::date(2026, 6, 15);
    tool.params()
        .iter()
        .filter(|spec| {
            !spec.enum_values.is_empty()
                && spec.enum_values.iter().all(|v| {
                    v.as_str()
                        .is_some_and(|v| wenshu_lexicon::period::period_range(v, reference).is_some())
                })
        })
        .map(|spec| {
            (
                spec.name.clone(),
                format!("{}_start", spec.name),
                format!("{}_end", spec.name),
            )
        })
        .collect()
}

fn known_names(tool: &Tool, periods: &[(String, String, String)]) -> String {
    let mut names: Vec<String> = tool.params().names().into_iter().map(|n| format!(":{n}")).collect();
    for (_, start, end) in periods {
        names.push(format!(":{start}"));
        names.push(format!(":{end}"));
    }
    names.join(", ")
}

/// With row scopes configured, every template must parse (sqlparser, in the dialect): the scope is applied to the
/// parsed query. The first that does not fails, naming the tool and the query.
pub fn check_scope(templates: &[SqlTemplate], rules: &crate::scope::ScopeRules) -> Result<(), ExecError> {
    if !rules.has_scopes() {
        return Ok(());
    }
    for template in templates {
        for (key, query) in &template.queries {
            if query.parsed.is_none() {
                return Err(ExecError::Invalid {
                    tool: template.tool.clone(),
                    reason: format!(
                        "`x-sql{}` does not parse as one query, and row scope is configured: wenshu applies the scope to the parsed query",
                        key.as_ref()
                            .map(|k| format!(".queries.{k}"))
                            .unwrap_or_else(|| ".query".into())
                    ),
                });
            }
        }
    }
    Ok(())
}
