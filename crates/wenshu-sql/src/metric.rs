//! Compiling a resolved metric query to SQL per dialect: identifiers only from the model, quoted per dialect;
//! every value a bind; date buckets per dialect. Under a row scope every scoped table of the model (joined ones
//! too) has its conditions in every WHERE the statement has (the share's subquery included), values bound.

use serde_json::Value;
use wenshu_contract::metric::query::{Measured, ResolvedMeasure};
use wenshu_contract::metric::{
    ColumnRef, Combine, DayKind, DayPart, Grain, MetricExpr, MetricModel, ResolvedQuery, TimeColumn, TimeType,
};

use crate::dialect::Dialect;
use crate::scope::BoundCondition;

mod bands;
pub use bands::numeral;
mod relative;
mod running;
mod within;

/// The row scope of a model: each scoped table's alias with the conditions its rows must meet.
pub type ModelScope = [(String, Vec<BoundCondition>)];

/// One statement to run: SQL with the dialect's placeholders, and its binds in order.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricStatement {
    /// The SQL.
    pub sql: String,
    /// The values bound to its placeholders.
    pub binds: Vec<Value>,
}

/// What one output column of a statement holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputColumn {
    /// A dimension's value (its index in the model).
    Dimension(usize),
    /// The time bucket of a grain.
    Bucket(Grain),
    /// A selected measure (its position in the query's measures).
    Measure(usize),
    /// The share of the total of a selected measure.
    Share(usize),
    /// The day of the week (1 Monday to 7 Sunday), or the kind of day (0 a working day, 1 a weekend).
    Day(DayPart),
    /// The band of each record's value: 0 below the first bound, then one per bound.
    Band,
}

/// The statement of a metric query over one range, and what its columns hold.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledStatement {
    /// The SQL and binds.
    pub statement: MetricStatement,
    /// Its columns, in order.
    pub columns: Vec<OutputColumn>,
}

/// A SQL text under construction with its binds.
struct Writer {
    dialect: Dialect,
    sql: String,
    binds: Vec<Value>,
}

impl Writer {
    fn push(&mut self, text: &str) {
        self.sql.push_str(text);
    }

    fn bind(&mut self, value: Value) {
        let mark = self.dialect.placeholder(self.binds.len());
        self.binds.push(value);
        self.sql.push_str(&mark);
    }

    fn ident(&mut self, name: &str) {
        let quote = self.dialect.rules().identifier_quote();
        self.sql.push(quote);
        self.sql.push_str(name);
        self.sql.push(quote);
    }

    fn column(&mut self, column: &ColumnRef) {
        self.ident(&column.table);
        self.push(".");
        self.ident(&column.column);
    }

    /// An empty writer of the same dialect, for a part rendered as text first (it must bind nothing).
    fn fresh(&self) -> Writer {
        Writer {
            dialect: self.dialect,
            sql: String::new(),
            binds: Vec::new(),
        }
    }
}

/// Compiles `query` over `model` for `dialect`, restricted to `range` (the query's own, or a comparison's), with
/// the filters' values as bound values (typed as the data has them).
pub fn compile(
    model: &MetricModel,
    query: &ResolvedQuery,
    filters: &[(usize, Vec<Value>)],
    range: Option<&(String, String)>,
    per_buckets: &[Option<u32>],
    dialect: Dialect,
) -> CompiledStatement {
    compile_scoped(model, query, filters, range, per_buckets, dialect, &[])
}

/// [`compile`] under a row scope: `scope`'s conditions are in every WHERE, on the tables' aliases.
pub fn compile_scoped(
    model: &MetricModel,
    query: &ResolvedQuery,
    filters: &[(usize, Vec<Value>)],
    range: Option<&(String, String)>,
    per_buckets: &[Option<u32>],
    dialect: Dialect,
    scope: &ModelScope,
) -> CompiledStatement {
    let mut w = Writer {
        dialect,
        sql: String::with_capacity(512),
        binds: Vec::new(),
    };
    let mut columns = Vec::new();
    w.push("SELECT ");
    let mut first = true;
    let mut sep = |w: &mut Writer| {
        if !std::mem::take(&mut first) {
            w.push(", ");
        }
    };
    for (i, dim) in query.group_by.iter().enumerate() {
        sep(&mut w);
        w.column(&model.dimensions[*dim].column);
        w.push(" AS ");
        w.ident(&format!("d{i}"));
        columns.push(OutputColumn::Dimension(*dim));
    }
    if let Some(part) = query.by_day {
        sep(&mut w);
        day_part(&mut w, model, part);
        w.push(" AS ");
        w.ident("w");
        columns.push(OutputColumn::Day(part));
    }
    if let Some(grain) = query.grain {
        sep(&mut w);
        bucket(&mut w, model, grain);
        w.push(" AS ");
        w.ident("t");
        columns.push(OutputColumn::Bucket(grain));
    }
    if query.bands.is_some() {
        sep(&mut w);
        bands::band(&mut w, model, query);
        w.push(" AS ");
        w.ident("b");
        columns.push(OutputColumn::Band);
    }
    for (i, sel) in query.measures.iter().enumerate() {
        sep(&mut w);
        if query.cumulative {
            running::running_total(&mut w, model, query, sel);
        } else {
            measure(&mut w, model, sel, per_buckets.get(i).copied().flatten());
        }
        w.push(" AS ");
        w.ident(&format!("m{i}"));
        columns.push(OutputColumn::Measure(i));
    }
    if let Some(across) = &query.share {
        for (i, sel) in query.measures.iter().enumerate() {
            sep(&mut w);
            share(&mut w, model, query, sel, filters, across, range, scope);
            w.push(" AS ");
            w.ident(&format!("s{i}"));
            columns.push(OutputColumn::Share(i));
        }
    }
    if let Some((groups, _)) = query.within {
        sep(&mut w);
        within::row_number(&mut w, model, query, groups, per_buckets);
    }
    if query.relative.is_some() {
        sep(&mut w);
        relative::mean(&mut w, model, query);
    }
    from(&mut w, model);
    let has_where = where_clause(&mut w, model, filters, range, scope);
    record_conditions(&mut w, model, query, has_where);
    let grouped =
        !query.group_by.is_empty() || query.grain.is_some() || query.by_day.is_some() || query.bands.is_some();
    if grouped {
        w.push(" GROUP BY ");
        dimension_columns(&mut w, model, &query.group_by);
        let mut listed = !query.group_by.is_empty();
        if let Some(part) = query.by_day {
            if std::mem::replace(&mut listed, true) {
                w.push(", ");
            }
            day_part(&mut w, model, part);
        }
        if let Some(grain) = query.grain {
            if std::mem::replace(&mut listed, true) {
                w.push(", ");
            }
            bucket(&mut w, model, grain);
        }
        if query.bands.is_some() {
            if listed {
                w.push(", ");
            }
            bands::band(&mut w, model, query);
        }
    }
    if let Some((position, op, value)) = query.having {
        // Several thresholds are each parenthesised (… OR …); one is written alone, as it always was.
        let several = !query.having_also.is_empty();
        w.push(if several { " HAVING (" } else { " HAVING " });
        match &query.share {
            Some(across) if query.having_share => share(
                &mut w,
                model,
                query,
                &query.measures[position],
                filters,
                across,
                range,
                scope,
            ),
            _ => measure(
                &mut w,
                model,
                &query.measures[position],
                per_buckets.get(position).copied().flatten(),
            ),
        }
        compared_with(&mut w, op, value);
        if several {
            w.push(")");
        }
        for &(position, op, value) in &query.having_also {
            w.push(if query.having_any { " OR (" } else { " AND (" });
            let per = per_buckets.get(position).copied().flatten();
            measure(&mut w, model, &query.measures[position], per);
            compared_with(&mut w, op, value);
            w.push(")");
        }
    }
    if let Some((groups, keep)) = query.within {
        within::wrap(&mut w, query, &columns, groups, keep);
    } else {
        relative::wrap(&mut w, query, &columns);
        order(&mut w, query);
    }
    if let Some(limit) = query.limit {
        w.push(&format!(" LIMIT {limit}"));
    }
    CompiledStatement {
        statement: MetricStatement {
            sql: w.sql,
            binds: w.binds,
        },
        columns,
    }
}

/// The first and last day the data holds for a query over no period, under its filters and `scope`:
/// `SELECT MIN(time), MAX(time)`; `None` when the model has no time column.
pub fn compile_span(
    model: &MetricModel,
    filters: &[(usize, Vec<Value>)],
    dialect: Dialect,
    scope: &ModelScope,
) -> Option<MetricStatement> {
    let time = model.time.as_ref()?;
    let mut w = Writer {
        dialect,
        sql: String::with_capacity(256),
        binds: Vec::new(),
    };
    w.push("SELECT MIN(");
    compared_time(&mut w, model, time);
    w.push(") AS ");
    w.ident("first");
    w.push(", MAX(");
    compared_time(&mut w, model, time);
    w.push(") AS ");
    w.ident("last");
    from(&mut w, model);
    where_clause(&mut w, model, filters, None, scope);
    Some(MetricStatement {
        sql: w.sql,
        binds: w.binds,
    })
}

/// The columns of `dims`, comma-separated, each dimension's key before its column when it has one (what a GROUP BY
/// or a window's PARTITION BY lists).
fn dimension_columns(w: &mut Writer, model: &MetricModel, dims: &[usize]) {
    for (i, dim) in dims.iter().enumerate() {
        if i > 0 {
            w.push(", ");
        }
        if let Some(key) = &model.dimensions[*dim].key {
            w.column(key);
            w.push(", ");
        }
        w.column(&model.dimensions[*dim].column);
    }
}

/// Wraps the grouped statement written so far as `SELECT its columns FROM (it) AS name WHERE `, for the caller to
/// write the condition that keeps rows (the first N of each group, the rows past a mean).
fn wrap_where(w: &mut Writer, query: &ResolvedQuery, columns: &[OutputColumn], name: &str) {
    let inner = std::mem::take(&mut w.sql);
    w.push("SELECT ");
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            w.push(", ");
        }
        w.ident(&alias(query, *column));
    }
    w.push(" FROM (");
    w.push(&inner);
    w.push(") AS ");
    w.ident(name);
    w.push(" WHERE ");
}

/// The final ORDER BY: a dimension sorted by, else the measure ranked by (or, for kept groups and shares, the
/// first measure from the largest down), then the buckets and the groupings ascending.
fn order(w: &mut Writer, query: &ResolvedQuery) {
    let mut keys: Vec<(String, &str)> = Vec::new();
    if let Some((position, dir)) = query.sort {
        keys.push((format!("d{position}"), direction(dir)));
    } else if let Some((position, dir)) = query.order {
        keys.push((format!("m{position}"), direction(dir)));
    } else if query.grain.is_none() && (query.having.is_some() || query.share.is_some() || query.relative.is_some()) {
        // Groups kept by a threshold or a mean, or shares of a whole, read from the largest down (not by name).
        let position = query
            .having
            .map(|(position, _, _)| position)
            .or(query.relative.map(|(position, _, _)| position))
            .unwrap_or(0);
        keys.push((format!("m{position}"), "DESC"));
    }
    if query.by_day.is_some() {
        keys.push(("w".into(), "ASC"));
    }
    if query.grain.is_some() {
        keys.push(("t".into(), "ASC"));
    }
    keys.extend(
        (0..query.group_by.len())
            .filter(|i| query.sort.is_none_or(|(sorted, _)| sorted != *i))
            .map(|i| (format!("d{i}"), "ASC")),
    );
    // The bands of each group from the lowest up.
    if query.bands.is_some() {
        keys.push(("b".into(), "ASC"));
    }
    if keys.is_empty() {
        return;
    }
    w.push(" ORDER BY ");
    for (i, (alias, dir)) in keys.iter().enumerate() {
        if i > 0 {
            w.push(", ");
        }
        w.ident(alias);
        w.push(" ");
        w.push(dir);
    }
}

/// `ASC` or `DESC`.
fn direction(dir: wenshu_contract::metric::OrderDir) -> &'static str {
    match dir {
        wenshu_contract::metric::OrderDir::Asc => "ASC",
        wenshu_contract::metric::OrderDir::Desc => "DESC",
    }
}

fn from(w: &mut Writer, model: &MetricModel) {
    w.push(" FROM ");
    for (i, table) in model.tables.iter().enumerate() {
        if i > 0 {
            w.push(" JOIN ");
        }
        w.ident(&table.name);
        w.push(" AS ");
        w.ident(&table.alias);
        if let Some((left, right)) = &table.join {
            w.push(" ON ");
            w.column(left);
            w.push(" = ");
            w.column(right);
        }
    }
}

/// The WHERE of the scope, the range and the filters; whether it wrote one.
fn where_clause(
    w: &mut Writer,
    model: &MetricModel,
    filters: &[(usize, Vec<Value>)],
    range: Option<&(String, String)>,
    scope: &ModelScope,
) -> bool {
    let mut first = true;
    let mut and = |w: &mut Writer| w.push(if std::mem::take(&mut first) { " WHERE " } else { " AND " });
    for (alias, conditions) in scope {
        for condition in conditions {
            and(w);
            w.column(&ColumnRef {
                table: alias.clone(),
                column: condition.column.clone(),
            });
            in_values(w, &condition.values);
        }
    }
    if let (Some((start, end)), Some(time)) = (range, &model.time) {
        and(w);
        compared_time(w, model, time);
        w.push(" BETWEEN ");
        day_bind(w, time.ty, start);
        w.push(" AND ");
        day_bind(w, time.ty, end);
    }
    for (dim, values) in filters {
        and(w);
        w.column(&model.dimensions[*dim].column);
        in_values(w, values);
    }
    !first
}

/// The conditions on every record, after the WHERE [`where_clause`] wrote: the kind of day kept (周末) and the
/// threshold on each record (`amount > ?` for `SUM(amount)`).
fn record_conditions(w: &mut Writer, model: &MetricModel, query: &ResolvedQuery, has_where: bool) {
    let has_where = match query.days {
        None => has_where,
        // Only the days of a kind: of every record, like a threshold on each.
        Some(kind) => {
            w.push(if has_where { " AND " } else { " WHERE " });
            w.push(&day_of_week(w, model));
            w.push(match kind {
                DayKind::Weekend => " >= 6",
                DayKind::Workday => " <= 5",
            });
            true
        }
    };
    let Some(first) = query.each else {
        return;
    };
    // (a) > ? — or, with more, ((a) > ? AND (b) < ?), joined by OR when any may hold.
    let several = !query.each_also.is_empty();
    w.push(if has_where { " AND " } else { " WHERE " });
    if several {
        w.push("(");
    }
    for (i, (measure, op, value)) in std::iter::once(first)
        .chain(query.each_also.iter().copied())
        .enumerate()
    {
        if i > 0 {
            w.push(if query.each_any { " OR " } else { " AND " });
        }
        let Some((_, arg)) = model.measures[measure].expr.single_aggregate() else {
            continue;
        };
        w.push("(");
        expr(w, arg, None);
        w.push(")");
        compared_with(w, op, value);
    }
    if several {
        w.push(")");
    }
}

/// ` > ?`: a threshold's comparison, its bound a bind.
fn compared_with(w: &mut Writer, op: wenshu_contract::metric::ThresholdOp, value: f64) {
    w.push(" ");
    w.push(op.sql());
    w.push(" ");
    w.bind(number(value));
}

/// ` = ?` for one value, ` IN (?, ?)` for several.
fn in_values(w: &mut Writer, values: &[Value]) {
    if let [one] = values {
        w.push(" = ");
        w.bind(one.clone());
    } else {
        w.push(" IN (");
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                w.push(", ");
            }
            w.bind(v.clone());
        }
        w.push(")");
    }
}

fn day_bind(w: &mut Writer, ty: TimeType, day: &str) {
    let value = Value::String(day.to_string());
    if ty == TimeType::Date && w.dialect.rules().casts_bound_days() {
        w.push("CAST(");
        w.bind(value);
        w.push(" AS DATE)");
    } else {
        w.bind(value);
    }
}

fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        Value::from(value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

/// A selected measure's share of the total taken across `across` (their filters dropped from the total).
#[allow(clippy::too_many_arguments, reason = "the parts of one statement, written in order")]
fn share(
    w: &mut Writer,
    model: &MetricModel,
    query: &ResolvedQuery,
    sel: &ResolvedMeasure,
    filters: &[(usize, Vec<Value>)],
    across: &[usize],
    range: Option<&(String, String)>,
    scope: &ModelScope,
) {
    w.push("(");
    plain(w, model, sel);
    w.push(") * 1.0 / NULLIF((SELECT ");
    plain(w, model, sel);
    from(w, model);
    let kept: Vec<(usize, Vec<Value>)> = filters.iter().filter(|(d, _)| !across.contains(d)).cloned().collect();
    let has_where = where_clause(w, model, &kept, range, scope);
    record_conditions(w, model, query, has_where);
    w.push("), 0)");
}

/// A selected measure's own expression, neither re-aggregated nor divided; a distinct count of a dimension counts
/// its key when it has one.
fn plain(w: &mut Writer, model: &MetricModel, sel: &ResolvedMeasure) {
    match sel.of {
        Measured::Measure(m) => expr(w, &model.measures[m].expr, None),
        Measured::Distinct(d) => {
            let dim = &model.dimensions[d];
            w.push("COUNT(DISTINCT ");
            w.column(dim.key.as_ref().unwrap_or(&dim.column));
            w.push(")");
        }
    }
}

/// A selected measure: its expression, re-aggregated or divided by the number of buckets when asked, or per
/// distinct value of a dimension (人均).
fn measure(w: &mut Writer, model: &MetricModel, sel: &ResolvedMeasure, buckets: Option<u32>) {
    if let (Measured::Measure(m), Some(over)) = (sel.of, sel.over) {
        let dim = &model.dimensions[over];
        w.push("(");
        expr(w, &model.measures[m].expr, None);
        w.push(") * 1.0 / NULLIF(COUNT(DISTINCT ");
        w.column(dim.key.as_ref().unwrap_or(&dim.column));
        w.push("), 0)");
        return;
    }
    let Measured::Measure(m) = sel.of else {
        plain(w, model, sel);
        return;
    };
    if let Some((how, other)) = sel.combined {
        // A ratio or a difference of the two totals over the same rows.
        w.push("(");
        expr(w, &model.measures[m].expr, None);
        match how {
            Combine::Ratio => w.push(") * 1.0 / NULLIF("),
            Combine::Difference => w.push(") - ("),
        }
        expr(w, &model.measures[other].expr, None);
        w.push(match how {
            Combine::Ratio => ", 0)",
            Combine::Difference => ")",
        });
        return;
    }
    let spec = &model.measures[m];
    let reaggregate = sel.aggregate.map(|r| r.name());
    if sel.per.is_some() {
        w.push("(");
        expr(w, &spec.expr, None);
        w.push(") * 1.0 / ");
        w.bind(Value::from(buckets.unwrap_or(1).max(1)));
    } else {
        expr(w, &spec.expr, reaggregate);
    }
}

/// Renders a checked expression; `reaggregate` replaces the function of a single aggregate.
fn expr(w: &mut Writer, e: &MetricExpr, reaggregate: Option<&str>) {
    match e {
        MetricExpr::Column(c) => w.column(c),
        MetricExpr::Number(n) => w.push(n),
        MetricExpr::Text(t) => {
            let quoted = t.replace('\'', "''");
            let escaped = if w.dialect.rules().backslash_escapes() {
                quoted.replace('\\', "\\\\")
            } else {
                quoted
            };
            w.push("'");
            w.push(&escaped);
            w.push("'");
        }
        MetricExpr::Null => w.push("NULL"),
        MetricExpr::Star => w.push("*"),
        MetricExpr::Call { name, distinct, args } => {
            let name = reaggregate.unwrap_or(name);
            w.push(&name.to_ascii_uppercase());
            w.push(if *distinct { "(DISTINCT " } else { "(" });
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    w.push(", ");
                }
                expr(w, a, None);
            }
            w.push(")");
        }
        MetricExpr::Binary { left, op, right } => {
            w.push("(");
            expr(w, left, None);
            w.push(" ");
            w.push(op);
            w.push(" ");
            expr(w, right, None);
            w.push(")");
        }
        MetricExpr::Unary { op, expr: inner } => {
            w.push(op);
            w.push(if *op == "NOT" { " (" } else { "(" });
            expr(w, inner, None);
            w.push(")");
        }
        MetricExpr::Case { whens, otherwise } => {
            w.push("CASE");
            for (c, r) in whens {
                w.push(" WHEN ");
                expr(w, c, None);
                w.push(" THEN ");
                expr(w, r, None);
            }
            if let Some(o) = otherwise {
                w.push(" ELSE ");
                expr(w, o, None);
            }
            w.push(" END");
        }
    }
}

/// The time column as ranges compare it: a timestamp as its day (a time of day on the last day is within the
/// range), any other as it is stored.
fn compared_time(w: &mut Writer, model: &MetricModel, time: &TimeColumn) {
    if time.ty == TimeType::Timestamp {
        day_text(w, model);
    } else {
        w.column(&time.column);
    }
}

/// The day of the time column as ISO text, per dialect.
fn day_text(w: &mut Writer, model: &MetricModel) {
    let Some(time) = &model.time else {
        w.push("NULL");
        return;
    };
    match time.ty {
        TimeType::Date => {
            let mut column = w.fresh();
            column.column(&time.column);
            let text = w.dialect.rules().date_text(&column.sql);
            w.push(&text);
        }
        // SQLite holds a timestamp as ISO text: its day is its first ten characters.
        TimeType::Timestamp if w.dialect == Dialect::Sqlite => {
            w.push("SUBSTR(");
            w.column(&time.column);
            w.push(", 1, 10)");
        }
        TimeType::Timestamp => {
            let mut column = w.fresh();
            column.column(&time.column);
            let text = w.dialect.rules().date_text(&column.sql);
            w.push(&text);
        }
        TimeType::Text => w.column(&time.column),
    }
}

/// The ISO day of the week of the model's day, per dialect (1 Monday to 7 Sunday).
fn day_of_week(w: &Writer, model: &MetricModel) -> String {
    let mut inner = w.fresh();
    day_text(&mut inner, model);
    w.dialect.rules().day_of_week(&inner.sql)
}

/// The day of the week, or the kind of day (`CASE WHEN … >= 6 THEN 1 ELSE 0 END`: a weekend).
fn day_part(w: &mut Writer, model: &MetricModel, part: DayPart) {
    let day = day_of_week(w, model);
    match part {
        DayPart::Weekday => w.push(&day),
        DayPart::Weekend => w.push(&format!("CASE WHEN {day} >= 6 THEN 1 ELSE 0 END")),
    }
}

/// The label of a time bucket, per dialect: `2026-11-29`, the Monday of a week, `2026-11`, `2026-Q4`, `2026`.
fn bucket(w: &mut Writer, model: &MetricModel, grain: Grain) {
    let day = {
        let mut inner = w.fresh();
        day_text(&mut inner, model);
        inner.sql
    };
    let sub = |from: u8, len: u8| format!("SUBSTR({day}, {from}, {len})");
    let rules = w.dialect.rules();
    let text = match grain {
        Grain::Day => day.clone(),
        Grain::Month => sub(1, 7),
        Grain::Year => sub(1, 4),
        Grain::Quarter => rules.quarter_label(&sub(1, 4), &sub(6, 2)),
        Grain::Week => rules.week_start(&day),
    };
    w.push(&text);
}

/// `SELECT DISTINCT` of one dimension's column over its own table, at most `max` values.
pub fn distinct_values_sql(model: &MetricModel, dimension: usize, dialect: Dialect, max: usize) -> String {
    let mut w = Writer {
        dialect,
        sql: String::new(),
        binds: Vec::new(),
    };
    let column = &model.dimensions[dimension].column;
    let table = model
        .tables
        .iter()
        .find(|t| t.alias == column.table)
        .map_or(column.table.as_str(), |t| t.name.as_str());
    w.push("SELECT DISTINCT ");
    w.column(column);
    w.push(" FROM ");
    w.ident(table);
    w.push(" AS ");
    w.ident(&column.table);
    w.push(" WHERE ");
    w.column(column);
    w.push(" IS NOT NULL ORDER BY 1");
    w.push(&format!(" LIMIT {max}"));
    w.sql
}

/// The alias a column has in the grouped statement (`d0`, `t`, `m0`, `s0`).
fn alias(query: &ResolvedQuery, column: OutputColumn) -> String {
    match column {
        OutputColumn::Dimension(dim) => {
            let i = query.group_by.iter().position(|d| *d == dim).unwrap_or_default();
            format!("d{i}")
        }
        OutputColumn::Bucket(_) => "t".into(),
        OutputColumn::Measure(i) => format!("m{i}"),
        OutputColumn::Share(i) => format!("s{i}"),
        OutputColumn::Day(_) => "w".into(),
        OutputColumn::Band => "b".into(),
    }
}
