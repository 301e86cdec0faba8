//! The metric executor: a call's metric query checked against the model and the known values, compiled to SQL,
//! passed through the SQL guard, run read-only under the timeout and row cap; comparisons joined in code. Under a
//! viewer's row scope every scoped table of the model is filtered in WHERE, a table the viewer is denied refuses
//! the call, and a filter value outside the scope (a 华东 viewer asking for 华南, or a movie whose key the model joins
//! to a scoped column — see `reach`) is refused, never answered empty.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value, json};
use wenshu_contract::metric::{ChangeBy, CompareKind, MetricModel, MetricQuery, OrderDir, ResolvedQuery};
use wenshu_contract::{BoundCall, Catalog, Tool};

use super::dates::{bucket_count, other_range};
use super::describe::ALL_DATA_ZH;
use super::present::{self, ColumnInfo, ColumnKind, Presentation};
use super::values::{MetricValues, SharedValues};
use crate::execute::{ExecContext, ExecError, ExecFuture, Executor, Executors, ToolResult, check_call, elapsed_ms};
use crate::scope::BoundScope;
use wenshu_sql::db::bytes::value_bytes;
use wenshu_sql::db::{Database, Dialect, QueryLimits};
use wenshu_sql::guard::{GuardPolicy, check_sql};
use wenshu_sql::metric::{CompiledStatement, MetricStatement, ModelScope, OutputColumn, compile_scoped, compile_span};

/// A metric query compiled for one dialect: the statements (one per period) and how the answer is labelled.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The query as asked.
    pub query: MetricQuery,
    /// The query resolved against the model.
    pub resolved: ResolvedQuery,
    /// `(period label, statement)`: one, or two for a comparison (this period first).
    pub statements: Vec<(Option<String>, CompiledStatement)>,
    /// For a query over no period: the statement reading the first and last day of the data it covers.
    pub span: Option<MetricStatement>,
}

/// Checks `query` against `model` and the known values of `tool`'s dimensions, and compiles it for `dialect`.
pub fn prepare(
    tool: &str,
    model: &MetricModel,
    values: &MetricValues,
    query: &MetricQuery,
    dialect: Dialect,
) -> Result<Prepared, ExecError> {
    prepare_scoped(tool, model, values, query, dialect, &BoundScope::unscoped())
}

/// The conditions of `scope` on the tables of `model` (by alias), or the refusal of a denied table.
pub fn model_scope(
    model: &MetricModel,
    scope: &BoundScope,
) -> Result<Vec<(String, Vec<crate::scope::BoundCondition>)>, ExecError> {
    let mut scoped = Vec::new();
    for table in &model.tables {
        if let Some(conditions) = scope.conditions(&table.name).map_err(ExecError::Scope)? {
            scoped.push((table.alias.clone(), conditions.to_vec()));
        }
    }
    Ok(scoped)
}

/// [`prepare`] under `scope`: the model's scoped tables filtered in every WHERE; a denied table, or a filter value
/// on a scoped column outside the viewer's values, is refused ([`ExecError::Scope`]).
pub fn prepare_scoped(
    tool: &str,
    model: &MetricModel,
    values: &MetricValues,
    query: &MetricQuery,
    dialect: Dialect,
    scope: &BoundScope,
) -> Result<Prepared, ExecError> {
    let scoped: Vec<(String, Vec<crate::scope::BoundCondition>)> = model_scope(model, scope)?;
    let scoped: &ModelScope = &scoped;
    let invalid = |reason: String| ExecError::Invalid {
        tool: tool.to_string(),
        reason,
    };
    let resolved = query.resolve(model).map_err(|e| invalid(e.to_string()))?;
    let mut filters = Vec::new();
    for (dim, names) in &resolved.filters {
        let label = &model.dimensions[*dim].label;
        let known = values.values(tool, *dim);
        let mut typed = Vec::new();
        let mut named = Vec::new();
        for name in names {
            let value = values.lookup(tool, *dim, name).ok_or_else(|| {
                let some: Vec<&str> = known.iter().take(10).map(|v| v.text.as_str()).collect();
                invalid(format!(
                    "`{name}` is not a value of {label}; known values: {}",
                    if some.is_empty() {
                        "none loaded".to_string()
                    } else {
                        some.join(", ")
                    }
                ))
            })?;
            if !typed.contains(&value.value) {
                typed.push(value.value.clone());
                named.push(value);
            }
        }
        let column = &model.dimensions[*dim].column;
        if let Some(table) = model.tables.iter().find(|t| t.alias == column.table)
            && let Some(refusal) = scope.outside(&table.name, &column.column, &typed)
        {
            return Err(ExecError::Scope(refusal));
        }
        if let Some(refusal) = super::reach::outside_through_joins(model, *dim, &named, scope) {
            return Err(ExecError::Scope(refusal));
        }
        filters.push((*dim, typed));
    }
    let per_buckets: Vec<Option<u32>> = resolved
        .measures
        .iter()
        .map(|m| match (m.per, &resolved.range) {
            (Some(grain), Some((start, end))) => bucket_count(grain, start, end).map(Some).ok_or(()),
            (Some(_), None) => Err(()),
            (None, _) => Ok(None),
        })
        .collect::<Result<_, ()>>()
        .map_err(|()| invalid("a mean per time bucket needs a time range".into()))?;
    let period = |r: &(String, String)| format!("{}～{}", r.0, r.1);
    let mut statements = vec![(
        resolved.range.as_ref().map(period),
        compile_scoped(
            model,
            &resolved,
            &filters,
            resolved.range.as_ref(),
            &per_buckets,
            dialect,
            scoped,
        ),
    )];
    if let Some((kind, other)) = &resolved.compare {
        let (start, end) = resolved
            .range
            .as_ref()
            .ok_or_else(|| invalid("a comparison needs a time range".into()))?;
        let other = match other {
            Some(r) => r.clone(),
            None => other_range(*kind, start, end)
                .ok_or_else(|| invalid(format!("no {} period for {start}～{end}", kind_name(*kind))))?,
        };
        statements.push((
            Some(period(&other)),
            compile_scoped(model, &resolved, &filters, Some(&other), &per_buckets, dialect, scoped),
        ));
    }
    let span = resolved
        .range
        .is_none()
        .then(|| compile_span(model, &filters, dialect, scoped))
        .flatten();
    Ok(Prepared {
        query: query.clone(),
        resolved,
        statements,
        span,
    })
}

fn kind_name(kind: CompareKind) -> &'static str {
    match kind {
        CompareKind::PreviousPeriod => "previous",
        CompareKind::YearOverYear => "year-earlier",
    }
}

/// Runs the metric tools of a catalog on one read-only database.
#[derive(Debug, Clone)]
pub struct MetricExecutor {
    db: Database,
    values: SharedValues,
}

impl MetricExecutor {
    /// An executor over `db`, reading filter values from `values`.
    pub fn new(db: Database, values: SharedValues) -> Self {
        Self { db, values }
    }

    /// Registers this executor for every metric tool of `catalog`.
    pub fn register_all(self: Arc<Self>, catalog: &Catalog, executors: &mut Executors) {
        for tool in catalog.tools().iter().filter(|t| t.extensions().metrics.is_some()) {
            let shared: Arc<dyn Executor> = self.clone();
            executors.register(tool.name(), shared);
        }
    }

    /// The database queries run on.
    pub fn database(&self) -> &Database {
        &self.db
    }

    async fn run(&self, tool: &Tool, call: &BoundCall, ctx: &ExecContext) -> Result<ToolResult, ExecError> {
        let start = Instant::now();
        check_call(tool, call)?;
        let invalid = |reason: String| ExecError::Invalid {
            tool: tool.name().to_string(),
            reason,
        };
        let model = tool
            .extensions()
            .metrics
            .as_deref()
            .ok_or_else(|| ExecError::NotConfigured {
                tool: tool.name().to_string(),
            })?;
        // A comparison of a running period compares the same days, whoever made the call (the answer step has
        // already cut its own calls; this is then a no-op).
        let mut arguments = call.arguments.clone();
        super::running::same_days(&mut arguments, ctx.today);
        let through = super::running::compared_through(&arguments, ctx.today);
        let query: MetricQuery = serde_json::from_value(Value::Object(arguments))
            .map_err(|e| invalid(format!("not a metric query: {e}")))?;
        let dialect = self.db.dialect();
        let prepared = prepare_scoped(tool.name(), model, &self.values.get(), &query, dialect, &ctx.scope)?;
        let mut policy = GuardPolicy::new(&model.table_names());
        policy.max_rows = u64::try_from(ctx.row_cap).unwrap_or(u64::MAX);
        let mut limits = ctx.query_limits();
        let mut results = Vec::new();
        let mut sent = Vec::new();
        for (period, compiled) in &prepared.statements {
            let statement = &compiled.statement;
            let verdict = check_sql(&statement.sql, dialect, &policy);
            let sql = match (verdict.allowed, verdict.sql) {
                (true, Some(sql)) => sql,
                _ => {
                    return Err(invalid(format!(
                        "the SQL guard refused: {}",
                        verdict.reasons.join("; ")
                    )));
                }
            };
            let rows = self.db.query(&sql, &statement.binds, limits).await?;
            // The call's statements share the cap per result: the next one gets what this one left.
            let used: usize = rows.rows.iter().flatten().map(value_bytes).sum();
            limits.bytes.result = limits.bytes.result.saturating_sub(used);
            sent.push(json!({"period": period, "sql": sql, "binds": statement.binds}));
            results.push(rows);
        }
        let (columns, rows) = match results.as_slice() {
            [current, previous] => {
                let (columns, mut rows) = compare_rows(model, &prepared, &current.rows, &previous.rows);
                if let Some(rank) = prepared.resolved.change_rank {
                    rank_by_change(&columns, &mut rows, rank);
                }
                (columns, rows)
            }
            [only] => {
                let compiled = &prepared.statements[0].1.columns;
                let mut rows = only.rows.clone();
                present::name_days(compiled, &mut rows);
                present::name_bands(&prepared.resolved, compiled, &mut rows);
                (present::plain_columns(model, &prepared.resolved, compiled), rows)
            }
            _ => (Vec::new(), Vec::new()),
        };
        let truncated = results.iter().any(|r| r.truncated);
        let span = match &prepared.span {
            Some(statement) => self.span(statement, &policy, limits).await?,
            None => None,
        };
        let period = match (prepared.statements[0].0.as_deref(), through, &span) {
            (Some(period), Some(through), _) => Some(format!("{period}（{}）", through.zh())),
            (None, _, Some((first, last))) => Some(format!("{ALL_DATA_ZH}：{first}～{last}")),
            (period, _, _) => period.map(str::to_string),
        };
        let compared = match (prepared.statements[0].0.as_deref(), prepared.statements.get(1)) {
            (Some(this), Some((Some(other), _))) => Some(present::Compared {
                this,
                other,
                note: through.as_ref().map(|t| (t.zh(), t.en())),
            }),
            _ => None,
        };
        let (headline, headline_en) = present::headlines(&columns, &rows, period.as_deref(), compared.as_ref()).unzip();
        let mut presentation = Presentation {
            headline,
            headline_en,
            chart: present::chart(&columns, rows.len()),
            columns: columns.clone(),
        };
        super::within::present(model, &prepared.resolved, period.as_deref(), &mut presentation);
        Ok(ToolResult {
            columns: columns.iter().map(|c| c.label.clone()).collect(),
            rows,
            truncated,
            detail: json!({
                "kind": "metric",
                "dialect": dialect.name(),
                "query": prepared.query,
                "statements": sent,
                "presentation": presentation,
                "span": span.map(|(first, last)| json!({"start": first, "end": last})),
            }),
            duration_ms: elapsed_ms(start),
        })
    }
}

impl MetricExecutor {
    /// The first and last day `statement` (a [`Prepared::span`]) reads, as `YYYY-MM-DD`; `None` when the data
    /// holds no day.
    async fn span(
        &self,
        statement: &MetricStatement,
        policy: &GuardPolicy,
        limits: QueryLimits,
    ) -> Result<Option<(String, String)>, ExecError> {
        let dialect = self.db.dialect();
        let verdict = check_sql(&statement.sql, dialect, policy);
        let Some(sql) = verdict.sql.filter(|_| verdict.allowed) else {
            return Ok(None);
        };
        let rows = self.db.query(&sql, &statement.binds, limits).await?;
        let day = |value: &Value| value.as_str().and_then(|text| text.get(..10)).map(str::to_string);
        Ok(match rows.rows.first().map(Vec::as_slice) {
            Some([first, last]) => day(first).zip(day(last)),
            _ => None,
        })
    }
}

impl Executor for MetricExecutor {
    fn execute<'a>(&'a self, tool: &'a Tool, call: &'a BoundCall, ctx: &'a ExecContext) -> ExecFuture<'a> {
        Box::pin(self.run(tool, call, ctx))
    }
}

/// This period's rows beside the other period's, joined on their categories: each measure's two values, the
/// change and the rate.
fn compare_rows(
    model: &MetricModel,
    prepared: &Prepared,
    current: &[Vec<Value>],
    previous: &[Vec<Value>],
) -> (Vec<ColumnInfo>, Vec<Vec<Value>>) {
    let compiled = &prepared.statements[0].1;
    let query = &prepared.resolved;
    let periods: Vec<Option<&str>> = prepared.statements.iter().map(|(p, _)| p.as_deref()).collect();
    let keys: Vec<usize> = compiled
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, OutputColumn::Dimension(_) | OutputColumn::Bucket(_)))
        .map(|(i, _)| i)
        .collect();
    let measures: Vec<(usize, usize)> = compiled
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c {
            OutputColumn::Measure(p) => Some((i, *p)),
            _ => None,
        })
        .collect();
    let mut columns: Vec<ColumnInfo> = present::plain_columns(model, query, &compiled.columns)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keys.contains(i))
        .map(|(_, c)| c)
        .collect();
    for (_, position) in &measures {
        let this = present::measure_info(model, query, *position, periods[0]);
        let other = present::measure_info(model, query, *position, periods.get(1).copied().flatten());
        let label = present::measure_label(model, query, *position);
        columns.push(this.clone());
        columns.push(other);
        columns.push(present::info(
            format!("{label}变化"),
            ColumnKind::Change,
            this.unit,
            this.decimals,
        ));
        columns.push(present::info(format!("{label}变化率"), ColumnKind::Rate, None, Some(4)));
    }
    let key_of = |row: &Vec<Value>| -> Vec<Value> { keys.iter().map(|k| row[*k].clone()).collect() };
    let mut rows = Vec::new();
    let mut seen: Vec<Vec<Value>> = Vec::new();
    let mut emit = |key: Vec<Value>, a: Option<&Vec<Value>>, b: Option<&Vec<Value>>| {
        let mut row = key;
        for (column, _) in &measures {
            let x = a.map(|r| r[*column].clone()).unwrap_or(Value::Null);
            let y = b.map(|r| r[*column].clone()).unwrap_or(Value::Null);
            let change = match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => json!(x - y),
                _ => Value::Null,
            };
            let rate = match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) if y != 0.0 => json!((x - y) / y),
                _ => Value::Null,
            };
            row.extend([x, y, change, rate]);
        }
        rows.push(row);
    };
    for row in current {
        let key = key_of(row);
        let other = previous.iter().find(|p| key_of(p) == key);
        seen.push(key.clone());
        emit(key, Some(row), other);
    }
    for row in previous {
        let key = key_of(row);
        if !seen.contains(&key) {
            emit(key, None, Some(row));
        }
    }
    (columns, rows)
}

/// Compared rows ranked by the first measure's change or rate (a column of its own), rows without one last, and
/// the first `limit` kept.
fn rank_by_change(
    columns: &[ColumnInfo],
    rows: &mut Vec<Vec<Value>>,
    (by, direction, limit): (ChangeBy, OrderDir, Option<u32>),
) {
    let kind = match by {
        ChangeBy::Change => ColumnKind::Change,
        ChangeBy::Rate => ColumnKind::Rate,
    };
    let Some(column) = columns.iter().position(|c| c.kind == kind) else {
        return;
    };
    let key = |row: &Vec<Value>| row.get(column).and_then(Value::as_f64);
    rows.sort_by(|a, b| match (key(a), key(b)) {
        (Some(x), Some(y)) => match direction {
            OrderDir::Desc => y.total_cmp(&x),
            OrderDir::Asc => x.total_cmp(&y),
        },
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    if let Some(limit) = limit {
        rows.truncate(limit as usize);
    }
}

/// The arguments of a metric call as a parameter map.
pub fn query_params(query: &MetricQuery) -> Map<String, Value> {
    match serde_json::to_value(query) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}
