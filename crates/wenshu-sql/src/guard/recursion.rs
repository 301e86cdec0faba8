//! The recursion rule: a CTE that reads itself (how each dialect resolves names decides which do, see
//! [`super::names::cte_sight`]) may run only when its depth is bounded in the SQL itself.
//!
//! Bounded means: the CTE's body is `anchor UNION [ALL] step`, the step reads only the CTE, once, as its one FROM
//! item (no join: a join multiplies rows each round), and either the step's WHERE compares a column of the CTE with
//! a constant (`n < 100`, `day <= '2026-12-31'`, `n BETWEEN 1 AND 10`), or — on PostgreSQL and SQLite, which read a
//! recursive CTE only as far as asked — every query reading it is a plain `SELECT … FROM cte LIMIT n` (no WHERE,
//! grouping, ordering or function that would read it all). A CTE recursing through another one, mutual recursion
//! and anything else that reads itself are refused with the bound that is missing. The executor's timeout and row
//! cap stop what still runs away.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Cte, Expr, GroupByExpr, LimitClause, ObjectName, Query, SelectItem, SetExpr, SetOperator,
    TableFactor, UnaryOperator, Value, Visit, Visitor,
};

use crate::dialect::Dialect;

/// One one-part name that resolved to a CTE.
#[derive(Debug, Clone, Copy)]
pub(super) struct CteRef {
    /// The query whose WITH defines the CTE.
    pub owner: *const Query,
    /// The CTE (its index in that WITH) whose body holds the name; `None`: the rest of the query.
    pub from: Option<usize>,
    /// The CTE named (its index in that WITH).
    pub to: usize,
    /// The name as a FROM item, when it is one (not `TABLE x`).
    pub relation: Option<*const ObjectName>,
}

/// Why each recursive CTE of `query` may not run (empty when none recurses or every one is bounded).
pub(super) fn refusals(query: &Query, dialect: Dialect, refs: &[CteRef]) -> Vec<String> {
    if refs.iter().all(|r| r.from.is_none()) {
        return Vec::new();
    }
    let mut readers = LimitedReaders::default();
    let _ = query.visit(&mut readers);
    let mut checker = Checker {
        dialect,
        refs,
        limited: readers.limited,
        reasons: Vec::new(),
    };
    let _ = query.visit(&mut checker);
    checker.reasons
}

/// The FROM items of plain `SELECT … FROM x LIMIT n` queries: reading only `n` rows of `x`.
#[derive(Default)]
struct LimitedReaders {
    limited: HashSet<*const ObjectName>,
}

impl Visitor for LimitedReaders {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if let Some(name) = limited_read(query) {
            self.limited.insert(name as *const ObjectName);
        }
        ControlFlow::Continue(())
    }
}

/// The one table `query` reads when it reads at most a constant LIMIT of its rows, in order, and nothing else.
fn limited_read(query: &Query) -> Option<&ObjectName> {
    let limit = match &query.limit_clause {
        Some(LimitClause::LimitOffset {
            limit: Some(limit),
            limit_by,
            ..
        }) if limit_by.is_empty() => limit,
        Some(LimitClause::OffsetCommaLimit { limit, .. }) => limit,
        _ => return None,
    };
    if !is_constant(limit) || query.order_by.is_some() || query.fetch.is_some() {
        return None;
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let plain = select.distinct.is_none()
        && select.selection.is_none()
        && select.having.is_none()
        && select.qualify.is_none()
        && select.named_window.is_empty()
        && matches!(&select.group_by, GroupByExpr::Expressions(exprs, modifiers) if exprs.is_empty() && modifiers.is_empty())
        && select.projection.iter().all(|item| match item {
            SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => !calls_or_nests(expr),
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => true,
            _ => false,
        });
    match select.from.as_slice() {
        [only] if plain && only.joins.is_empty() => match &only.relation {
            TableFactor::Table { name, args: None, .. } => Some(name),
            _ => None,
        },
        _ => None,
    }
}

/// Whether an expression calls a function (an aggregate or window would read every row) or holds a subquery.
fn calls_or_nests(expr: &Expr) -> bool {
    struct Finder(bool);
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if matches!(expr, Expr::Function(_)) {
                self.0 = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
        fn pre_visit_query(&mut self, _query: &Query) -> ControlFlow<()> {
            self.0 = true;
            ControlFlow::Break(())
        }
    }
    let mut finder = Finder(false);
    let _ = expr.visit(&mut finder);
    finder.0
}

struct Checker<'a> {
    dialect: Dialect,
    refs: &'a [CteRef],
    limited: HashSet<*const ObjectName>,
    reasons: Vec<String>,
}

impl Visitor for Checker<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        let Some(with) = &query.with else {
            return ControlFlow::Continue(());
        };
        let owner = query as *const Query;
        let refs: Vec<&CteRef> = self.refs.iter().filter(|r| r.owner == owner).collect();
        let count = with.cte_tables.len();
        let mut reads = vec![HashSet::new(); count];
        for r in &refs {
            if let Some(from) = r.from
                && from < count
                && r.to < count
            {
                reads[from].insert(r.to);
            }
        }
        let reach: Vec<HashSet<usize>> = (0..count).map(|i| reachable(&reads, i)).collect();
        for (i, cte) in with.cte_tables.iter().enumerate() {
            if !reach[i].contains(&i) {
                continue;
            }
            let through: Vec<String> = (0..count)
                .filter(|&j| j != i && reach[i].contains(&j) && reach[j].contains(&i))
                .map(|j| format!("`{}`", with.cte_tables[j].alias.name))
                .collect();
            if !through.is_empty() {
                self.reasons.push(format!(
                    "the recursive CTE `{}` recurses through {}: only a CTE that reads itself alone, in a bounded \
                     step, may recurse",
                    cte.alias.name,
                    through.join(", ")
                ));
                continue;
            }
            if let Err(reason) = self.bounded(cte, i, &refs) {
                self.reasons.push(reason);
            }
        }
        ControlFlow::Continue(())
    }
}

impl Checker<'_> {
    /// Whether CTE `i` (which reads itself and no other CTE that reads it) is bounded, or the bound it lacks.
    fn bounded(&self, cte: &Cte, i: usize, refs: &[&CteRef]) -> Result<(), String> {
        let name = &cte.alias.name;
        let SetExpr::SetOperation {
            op: SetOperator::Union,
            right,
            ..
        } = cte.query.body.as_ref()
        else {
            return Err(format!(
                "the CTE `{name}` reads itself, but its body is not `anchor UNION [ALL] step`: no bound can be seen"
            ));
        };
        let self_reads: Vec<&&CteRef> = refs.iter().filter(|r| r.from == Some(i) && r.to == i).collect();
        let step = match right.as_ref() {
            SetExpr::Select(select) => Some(select),
            _ => None,
        };
        let from_item = step.and_then(|select| match select.from.as_slice() {
            [only] if only.joins.is_empty() => match &only.relation {
                TableFactor::Table {
                    name: table,
                    args: None,
                    alias,
                    ..
                } if self_reads.len() == 1 && self_reads[0].relation == Some(table as *const ObjectName) => {
                    Some(alias.as_ref().map_or(name, |a| &a.name))
                }
                _ => None,
            },
            _ => None,
        });
        let (Some(step), Some(qualifier)) = (step, from_item) else {
            return Err(format!(
                "the recursive step of `{name}` must be one SELECT reading only `{name}` itself, once, as its one \
                 FROM item (no join with a table, which multiplies rows each round; no other reference to `{name}`)"
            ));
        };
        let columns = cte_columns(cte);
        if let Some(condition) = &step.selection
            && conjuncts(condition)
                .into_iter()
                .any(|c| is_bound(c, &columns, &qualifier.value))
        {
            return Ok(());
        }
        let readers: Vec<&&CteRef> = refs.iter().filter(|r| r.to == i && r.from != Some(i)).collect();
        let limited = self.dialect.rules().limit_bounds_recursion()
            && !readers.is_empty()
            && readers
                .iter()
                .all(|r| r.from.is_none() && r.relation.is_some_and(|p| self.limited.contains(&p)));
        if limited {
            return Ok(());
        }
        let limit = if self.dialect.rules().limit_bounds_recursion() {
            ", or every query reading it a plain `SELECT … FROM {name} LIMIT n` (no WHERE, grouping, ordering or \
             function)"
        } else {
            ""
        };
        Err(format!(
            "the recursive CTE `{name}` has no bound: its step needs a WHERE comparing a column of `{name}` with a \
             constant (`n < 100`, `day <= '2026-12-31'`){}",
            limit.replace("{name}", &name.value)
        ))
    }
}

/// The CTEs reachable from `start` by reading (itself when it recurses).
fn reachable(reads: &[HashSet<usize>], start: usize) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut stack: Vec<usize> = reads[start].iter().copied().collect();
    while let Some(next) = stack.pop() {
        if seen.insert(next) {
            stack.extend(reads[next].iter().copied());
        }
    }
    seen
}

/// The CTE's column names (lower case): its column list, else the names its anchor's leftmost SELECT gives.
fn cte_columns(cte: &Cte) -> Vec<String> {
    if !cte.alias.columns.is_empty() {
        return cte
            .alias
            .columns
            .iter()
            .map(|c| c.name.value.to_ascii_lowercase())
            .collect();
    }
    let mut body = cte.query.body.as_ref();
    loop {
        match body {
            SetExpr::SetOperation { left, .. } => body = left,
            SetExpr::Select(select) => {
                return select
                    .projection
                    .iter()
                    .filter_map(|item| match item {
                        SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.to_ascii_lowercase()),
                        SelectItem::UnnamedExpr(Expr::Identifier(ident)) => Some(ident.value.to_ascii_lowercase()),
                        SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => {
                            parts.last().map(|p| p.value.to_ascii_lowercase())
                        }
                        _ => None,
                    })
                    .collect();
            }
            _ => return Vec::new(),
        }
    }
}

/// The parts of a condition joined by AND.
fn conjuncts(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut parts = conjuncts(left);
            parts.extend(conjuncts(right));
            parts
        }
        Expr::Nested(inner) => conjuncts(inner),
        other => vec![other],
    }
}

/// Whether a condition compares a column of the CTE (named as `qualifier.column` or `column`) with a constant:
/// `<`, `<=`, `>`, `>=` either way round, or `BETWEEN` two constants.
fn is_bound(condition: &Expr, columns: &[String], qualifier: &str) -> bool {
    let column = |e: &Expr| is_cte_column(e, columns, qualifier);
    match condition {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq,
            right,
        } => (column(left) && is_constant(right)) || (is_constant(left) && column(right)),
        Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } => column(expr) && is_constant(low) && is_constant(high),
        Expr::Nested(inner) => is_bound(inner, columns, qualifier),
        _ => false,
    }
}

/// A column of the CTE, or one plus or minus a constant (`n + 1`).
fn is_cte_column(expr: &Expr, columns: &[String], qualifier: &str) -> bool {
    match expr {
        Expr::Identifier(ident) => columns.contains(&ident.value.to_ascii_lowercase()),
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [table, column] => {
                table.value.eq_ignore_ascii_case(qualifier) && columns.contains(&column.value.to_ascii_lowercase())
            }
            _ => false,
        },
        Expr::Nested(inner) => is_cte_column(inner, columns, qualifier),
        Expr::Cast { expr, .. } => is_cte_column(expr, columns, qualifier),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Plus | BinaryOperator::Minus,
            right,
        } => {
            (is_cte_column(left, columns, qualifier) && is_constant(right))
                || (is_constant(left) && is_cte_column(right, columns, qualifier))
        }
        _ => false,
    }
}

/// A value that is the same in every round: a literal (not a placeholder), a typed literal (`DATE '…'`), an
/// interval, or arithmetic, casts and function calls over those only.
fn is_constant(expr: &Expr) -> bool {
    match expr {
        Expr::Value(value) => !matches!(value.value, Value::Placeholder(_)),
        Expr::TypedString(_) => true,
        Expr::Interval(interval) => is_constant(&interval.value),
        Expr::Nested(inner) => is_constant(inner),
        Expr::Cast { expr, .. } => is_constant(expr),
        Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        } => is_constant(expr),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply | BinaryOperator::Divide,
            right,
        } => is_constant(left) && is_constant(right),
        Expr::Function(function) => match &function.args {
            sqlparser::ast::FunctionArguments::List(list) => {
                function.over.is_none()
                    && function.filter.is_none()
                    && list.args.iter().all(|arg| match arg {
                        sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(e)) => {
                            is_constant(e)
                        }
                        _ => false,
                    })
            }
            _ => false,
        },
        _ => false,
    }
}
