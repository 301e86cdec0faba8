//! The SQL template executor: a tool's `x-sql` query, its placeholders bound from the call, run read-only; under a
//! viewer's row scope, every scoped table read through its scoped subquery (see [`super::sql_template`]).

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Value, json};
use wenshu_contract::{BoundCall, Catalog, Tool};

use super::error::ExecError;
use super::sql_template::{SqlTemplate, check_scope, read_sql_templates};
use super::{ExecContext, ExecFuture, Executor, ToolResult, check_call, elapsed_ms};
use wenshu_contract::ParamType;
use wenshu_sql::db::{Bind, Database, NullType, rewrite_named};

/// Runs the `x-sql` templates of a catalog's tools on one database (open it read-only).
#[derive(Debug, Clone)]
pub struct SqlTemplateExecutor {
    db: Database,
    templates: HashMap<String, SqlTemplate>,
}

impl SqlTemplateExecutor {
    /// Reads and checks every `x-sql` of the catalog's tools for the database's dialect; a broken template fails
    /// here, naming the tool and the placeholder.
    pub fn new(db: Database, catalog: &Catalog) -> Result<Self, ExecError> {
        let templates = read_sql_templates(catalog, db.dialect())?
            .into_iter()
            .map(|t| (t.tool.clone(), t))
            .collect();
        Ok(Self { db, templates })
    }

    /// The tools that have a template, sorted.
    pub fn tool_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.templates.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// The checked template of one tool.
    pub fn template(&self, tool: &str) -> Option<&SqlTemplate> {
        self.templates.get(tool)
    }

    /// The database queries run on.
    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Checks the templates against row-scope rules: with rules configured, each must parse (see
    /// [`check_scope`]).
    pub fn check_scope(&self, rules: &crate::scope::ScopeRules) -> Result<(), ExecError> {
        let mut templates: Vec<SqlTemplate> = self.templates.values().cloned().collect();
        templates.sort_by(|a, b| a.tool.cmp(&b.tool));
        check_scope(&templates, rules)
    }

    /// The SQL and the named binds a call would run, without running it: under `ctx.scope`, the scoped rewrite
    /// with the scope's values bound as `user.<attribute>`; a denied table or a value outside the scope refuses.
    pub fn prepare(
        &self,
        tool: &Tool,
        call: &BoundCall,
        ctx: &ExecContext,
    ) -> Result<(String, Vec<(String, Value)>), ExecError> {
        check_call(tool, call)?;
        let template = self
            .templates
            .get(tool.name())
            .ok_or_else(|| ExecError::NotConfigured {
                tool: tool.name().to_string(),
            })?;
        let query = template.query_for(&call.arguments)?;
        if !ctx.scope.is_empty() {
            return self.prepare_scoped(tool, template, query, call, ctx);
        }
        let binds = query
            .binds
            .iter()
            .map(|name| Ok((name.clone(), bind_value(template, call, ctx, name)?)))
            .collect::<Result<Vec<_>, ExecError>>()?;
        Ok((query.sql.clone(), binds))
    }

    fn prepare_scoped(
        &self,
        tool: &Tool,
        template: &SqlTemplate,
        query: &super::sql_template::CompiledQuery,
        call: &BoundCall,
        ctx: &ExecContext,
    ) -> Result<(String, Vec<(String, Value)>), ExecError> {
        let invalid = |reason: String| ExecError::Invalid {
            tool: tool.name().to_string(),
            reason,
        };
        let dialect = self.db.dialect();
        let parsed = query.parsed.as_ref().ok_or_else(|| {
            invalid("the template does not parse as one query, so the row scope cannot be applied".into())
        })?;
        let scoped = wenshu_sql::guard::scope_query(parsed, dialect, &ctx.scope).map_err(|e| match e {
            wenshu_sql::guard::row_scope::ScopeRewriteError::Denied(refusal) => ExecError::Scope(refusal),
            wenshu_sql::guard::row_scope::ScopeRewriteError::Refused(why) => invalid(format!("row scope: {why}")),
        })?;
        let Some((text, marks)) = scoped else {
            let binds = query
                .binds
                .iter()
                .map(|name| Ok((name.clone(), bind_value(template, call, ctx, name)?)))
                .collect::<Result<Vec<_>, ExecError>>()?;
            return Ok((query.sql.clone(), binds));
        };
        for reached in &query.reached {
            let Some(value) = call.arguments.get(&reached.param) else {
                continue;
            };
            let values = match value {
                Value::Array(items) => items.clone(),
                other => vec![other.clone()],
            };
            let tables: Vec<&str> = match &reached.table {
                Some(table) => vec![table.as_str()],
                None => marks.tables.iter().map(String::as_str).collect(),
            };
            for table in tables {
                if let Some(refusal) = ctx.scope.outside(table, &reached.column, &values) {
                    return Err(ExecError::Scope(refusal));
                }
            }
        }
        let positional = rewrite_named(&text, self.db.dialect()).map_err(|e| invalid(format!("row scope: {e}")))?;
        let binds = positional
            .binds
            .iter()
            .map(|name| match marks.values.get(name) {
                Some((attribute, value)) => Ok((format!("user.{attribute}"), value.clone())),
                None => Ok((name.clone(), bind_value(template, call, ctx, name)?)),
            })
            .collect::<Result<Vec<_>, ExecError>>()?;
        Ok((positional.sql, binds))
    }

    async fn run(&self, tool: &Tool, call: &BoundCall, ctx: &ExecContext) -> Result<ToolResult, ExecError> {
        let start = Instant::now();
        let (sql, named) = self.prepare(tool, call, ctx)?;
        let values: Vec<Bind> = named
            .iter()
            .map(|(name, value)| Bind::typed(value.clone(), null_type_of(tool, name)))
            .collect();
        let rows = self.db.query_binds(&sql, &values, ctx.query_limits()).await?;
        let binds: Vec<Value> = named
            .into_iter()
            .map(|(name, value)| json!({ "name": name, "value": value }))
            .collect();
        Ok(ToolResult {
            columns: rows.columns,
            rows: rows.rows,
            truncated: rows.truncated,
            detail: json!({ "kind": "sql", "dialect": self.db.dialect().name(), "sql": sql, "binds": binds }),
            duration_ms: elapsed_ms(start),
        })
    }
}

impl Executor for SqlTemplateExecutor {
    fn execute<'a>(&'a self, tool: &'a Tool, call: &'a BoundCall, ctx: &'a ExecContext) -> ExecFuture<'a> {
        Box::pin(self.run(tool, call, ctx))
    }
}

/// The type a NULL of placeholder `name` carries: its parameter's type (derived period days are text).
fn null_type_of(tool: &Tool, name: &str) -> NullType {
    match tool.param(name).map(|spec| spec.ty) {
        Some(ParamType::Integer) => NullType::Integer,
        Some(ParamType::Number) => NullType::Float,
        Some(ParamType::Boolean) => NullType::Bool,
        _ => NullType::Text,
    }
}

/// The value bound to one placeholder: the call's argument (NULL when absent), or a period's first/last day.
fn bind_value(template: &SqlTemplate, call: &BoundCall, ctx: &ExecContext, name: &str) -> Result<Value, ExecError> {
    if let Some(value) = call.arguments.get(name) {
        return Ok(value.clone());
    }
    let derived = template.periods.iter().find_map(|(param, start, end)| {
        (start == name)
            .then_some((param, true))
            .or((end == name).then_some((param, false)))
    });
    let Some((param, is_start)) = derived else {
        return Ok(Value::Null);
    };
    let Some(period) = call.arguments.get(param) else {
        return Ok(Value::Null);
    };
    let range = period
        .as_str()
        .and_then(|p| wenshu_lexicon::period::period_range(p, ctx.today))
        .ok_or_else(|| ExecError::Invalid {
            tool: template.tool.clone(),
            reason: format!("`{param}` = {period} is not a period this day ({})", ctx.today),
        })?;
    let day = if is_start { range.start } else { range.end };
    Ok(Value::String(day.to_string()))
}
