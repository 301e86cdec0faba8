//! The SQL template executor: a tool's `x-sql` query, its placeholders bound from the call, run read-only.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Value, json};
use wenshu_contract::{BoundCall, Catalog, Tool};

use super::error::ExecError;
use super::sql_template::{SqlTemplate, read_sql_templates};
use super::{ExecContext, ExecFuture, Executor, ToolResult, check_call, elapsed_ms};
use crate::db::{Bind, Database, NullType, QueryLimits};
use wenshu_contract::ParamType;

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

    /// The SQL and the named binds a call would run, without running it.
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
        let binds = query
            .binds
            .iter()
            .map(|name| Ok((name.clone(), bind_value(template, call, ctx, name)?)))
            .collect::<Result<Vec<_>, ExecError>>()?;
        Ok((query.sql.clone(), binds))
    }

    async fn run(&self, tool: &Tool, call: &BoundCall, ctx: &ExecContext) -> Result<ToolResult, ExecError> {
        let start = Instant::now();
        let (sql, named) = self.prepare(tool, call, ctx)?;
        let values: Vec<Bind> = named
            .iter()
            .map(|(name, value)| Bind::typed(value.clone(), null_type_of(tool, name)))
            .collect();
        let limits = QueryLimits {
            row_cap: ctx.row_cap,
            timeout: ctx.timeout,
        };
        let rows = self.db.query_binds(&sql, &values, limits).await?;
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
