//! The cost of a statement, bounded before it runs: shapes whose work grows without bound whatever the data.
//!
//! Three rules, each about the shape of the SQL and none about a table or column of any catalog:
//!
//! - **Cross joins of large FROM items.** In one query block, two or more *large* FROM items that no join
//!   condition connects are refused. Large: a table, a CTE or derived table not provably small, a table-valued or
//!   set-returning function (unless it expands literals of at most [`MAX_COUNT`] characters in all). Small: a
//!   query with a literal LIMIT of at most [`MAX_COUNT`], one `SELECT` of aggregates without GROUP BY (one row), a
//!   FROM-less `SELECT`, a VALUES list of at most [`MAX_COUNT`] rows. Connected: a comparison (`=`, `<`, `>`, `<=`,
//!   `>=`, `<>`, BETWEEN, IS [NOT] DISTINCT FROM) between column references of two items, in an ON or in WHERE (an
//!   unqualified column-to-column comparison connects everything it may refer to), USING and NATURAL, and a table
//!   function or LATERAL subquery that reads a column of another item. An item a condition pins to a key value
//!   (`d.id = 1`, a conjunct of its ON or of WHERE) is a lookup, not counted as large.
//! - **Repeat and pad functions, format strings.** `lpad`, `rpad`, `repeat`, `replicate`, `space` need a count that
//!   is a number literal of at most [`MAX_COUNT`]; `repeat`/`replicate` may not repeat a value built by another such
//!   call; `printf` and `format` (SQLite, PostgreSQL) need a plain string literal as format, with no width or
//!   precision above [`MAX_COUNT`] and none taken from an argument (`*`); MySQL's `FORMAT(x, d)` needs `d` a
//!   number literal of at most [`MAX_DECIMALS`].
//! - **Set-returning functions over a built value.** A table-valued or set-returning function (`unnest`,
//!   `json_each`, `JSON_TABLE`, `regexp_split_to_table`, SQLite's `x IN json_each(…)`, …) may expand a column or a
//!   literal, not a value built by a growing call ([`GROWING_FUNCTIONS`]).
//!
//! The rules apply whatever the allow list says: a deployment may configure its own list.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, InTarget, JoinConstraint,
    JoinOperator, LimitClause, ObjectName, ObjectNamePart, Query, Select, SetExpr, TableFactor, TableWithJoins,
    UnaryOperator, Value, Visit, Visitor,
};

use super::names;
use super::policy::{AGGREGATE_FUNCTIONS, GuardPolicy, POSTGRES_SET_RETURNING_FUNCTIONS, default_table_functions};
use super::scope::{Findings, Resolution};
use crate::dialect::Dialect;

/// The largest count a repeat or pad function may take, width or precision a format string may hold, and LIMIT
/// that makes a subquery small.
pub(super) const MAX_COUNT: u64 = 1000;
/// The most decimals MySQL's `FORMAT(x, d)` may be asked for.
pub(super) const MAX_DECIMALS: u64 = 30;

/// Functions whose result grows with an argument the query writes: a set-returning function may not expand a value
/// built by one of them.
pub(super) const GROWING_FUNCTIONS: &[&str] = &[
    "lpad",
    "rpad",
    "repeat",
    "replicate",
    "space",
    "printf",
    "format",
    "array_fill",
    "zeroblob",
    "randomblob",
];

/// Repeat and pad functions, with the position of their count argument.
const COUNTED_FUNCTIONS: &[(&str, usize)] = &[("lpad", 1), ("rpad", 1), ("repeat", 1), ("replicate", 1), ("space", 0)];

/// Adds the cost refusals of `query` (parsed in `dialect`) to `findings`: each as a reason and as a refused
/// `clause` resolution naming the construct.
pub(super) fn refuse(query: &Query, dialect: Dialect, policy: &GuardPolicy, findings: &mut Findings) {
    // Every built-in dialect's table functions (PostgreSQL's set-returning ones among them) and this dialect's own.
    let mut table_functions: HashSet<String> = Dialect::BUILT_IN
        .into_iter()
        .flat_map(default_table_functions)
        .chain(dialect.rules().table_functions())
        .map(|f| f.to_string())
        .collect();
    if let Some(configured) = &policy.table_functions {
        table_functions.extend(configured.iter().map(|f| f.to_ascii_lowercase()));
    }
    let mut walk = CostWalk {
        dialect,
        table_functions,
        frames: Vec::new(),
        refusals: Vec::new(),
    };
    let _ = query.visit(&mut walk);
    for (construct, reason) in walk.refusals {
        findings.reasons.push(reason.clone());
        findings.resolutions.push(Resolution {
            name: construct,
            kind: "clause",
            allowed: false,
            why: reason,
        });
    }
}

/// An upper bound on the rows a FROM item or query returns, as far as the statement alone proves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Size {
    /// At most one row.
    One,
    /// At most [`MAX_COUNT`] rows, or as many as the statement writes.
    Small,
    /// As many as the data holds, or more.
    Large,
}

impl Size {
    /// The size of a cross product of two sizes.
    fn times(self, other: Size) -> Size {
        match (self, other) {
            (Size::One, other) | (other, Size::One) => other,
            _ => Size::Large,
        }
    }
}

/// The CTE names visible at some point, innermost last, with their sizes.
type Env = Vec<(String, Size)>;

/// One query block of the walk: its CTEs and which CTE body is being visited.
struct Frame {
    ctes: Vec<(String, Size)>,
    cte_queries: Vec<*const Query>,
    current: Option<usize>,
}

/// The walk over every query block, FROM item and expression of a statement, collecting refusals.
struct CostWalk {
    dialect: Dialect,
    table_functions: HashSet<String>,
    frames: Vec<Frame>,
    refusals: Vec<(String, String)>,
}

impl CostWalk {
    fn refuse(&mut self, construct: String, reason: String) {
        if !self.refusals.iter().any(|(_, r)| *r == reason) {
            self.refusals.push((construct, reason));
        }
    }

    /// The CTEs visible where the walk is: every enclosing block's, but in a CTE's body only the earlier CTEs of
    /// its own WITH (a later one, or itself, is taken for a large table).
    fn visible(&self) -> Env {
        let mut env = Env::new();
        for frame in &self.frames {
            let upto = frame.current.unwrap_or(frame.ctes.len());
            env.extend(frame.ctes[..upto].iter().cloned());
        }
        env
    }

    /// Rule (b) on one function call, and rule (c) on a set-returning function called as a value.
    fn check_function(&mut self, function: &Function) {
        let Some(name) = function_name(&function.name) else {
            return;
        };
        let args = unnamed_args(&function.args);
        if let Some((_, at)) = COUNTED_FUNCTIONS.iter().find(|(f, _)| *f == name)
            && let Some(count) = args.get(*at)
            && !is_small_number(count, MAX_COUNT)
        {
            self.refuse(
                name.clone(),
                format!(
                    "`{name}` with the count `{count}`: a repeat or pad function may build at most {MAX_COUNT} \
                     characters, so its count must be a number literal of at most {MAX_COUNT}"
                ),
            );
        }
        if matches!(name.as_str(), "repeat" | "replicate")
            && let Some(text) = args.first()
            && let Some(inner) = growing_call(text)
        {
            self.refuse(
                name.clone(),
                format!("`{name}` repeats a value built by `{inner}`: repeated growth is not allowed"),
            );
        }
        let formats_text = name == "printf" || (name == "format" && self.dialect.rules().format_takes_pattern());
        if formats_text && let Some(format) = args.first() {
            if let Some(why) = format_refusal(format) {
                self.refuse(name.clone(), format!("`{name}` {why}"));
            }
        } else if name == "format"
            && let Some(decimals) = args.get(1)
            && !is_small_number(decimals, MAX_DECIMALS)
        {
            self.refuse(
                name.clone(),
                format!(
                    "`FORMAT` with `{decimals}` decimals: MySQL's FORMAT may be asked for at most {MAX_DECIMALS} \
                     decimals, as a number literal"
                ),
            );
        }
        if self.table_functions.contains(&name) {
            self.check_expansion(&name, args);
        }
    }

    /// Rule (c): a set-returning or table-valued function may expand a column or a literal, not a built value.
    fn check_expansion(&mut self, name: &str, args: Vec<&Expr>) {
        for arg in args {
            if let Some(inner) = growing_call(arg) {
                self.refuse(
                    name.to_string(),
                    format!(
                        "`{name}` expands a value built by `{inner}`: a set-returning or table-valued function \
                         may expand a column or a literal, not a value the query builds"
                    ),
                );
            }
        }
    }

    /// Rule (a) on one query block.
    fn check_select(&mut self, select: &Select, env: &Env) {
        let mut block = Block {
            dialect: self.dialect,
            leaves: Vec::new(),
            parent: Vec::new(),
            pinned: HashSet::new(),
        };
        for from in &select.from {
            block.join_chain(from, env);
        }
        let all: Vec<usize> = (0..block.leaves.len()).collect();
        if let Some(selection) = &select.selection {
            block.link_comparisons(selection, &all);
            block.pin(selection, &all);
        }
        block.link_lateral();
        let mut components: Vec<(usize, usize)> = Vec::new();
        for i in 0..block.leaves.len() {
            if block.leaves[i].size != Size::Large || block.pinned.contains(&i) {
                continue;
            }
            let root = block.find(i);
            if !components.iter().any(|(r, _)| *r == root) {
                components.push((root, i));
            }
        }
        if let [(_, first), (_, second), ..] = components.as_slice() {
            let (a, b) = (&block.leaves[*first].label, &block.leaves[*second].label);
            self.refuse(
                "cross join".into(),
                format!(
                    "a cross join of {a} and {b} without a join condition: every row of one meets every row of \
                     the other; join them ON a comparison of their columns (or compare their columns in WHERE)"
                ),
            );
        }
    }
}

impl Visitor for CostWalk {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        let ptr = query as *const Query;
        if let Some(parent) = self.frames.last_mut()
            && let Some(i) = parent.cte_queries.iter().position(|q| *q == ptr)
        {
            parent.current = Some(i);
        }
        let mut env = self.visible();
        let mut frame = Frame {
            ctes: Vec::new(),
            cte_queries: Vec::new(),
            current: None,
        };
        for cte in query.with.iter().flat_map(|w| &w.cte_tables) {
            let size = query_size(&cte.query, &env, self.dialect);
            let key = names::cte_key(&cte.alias.name, self.dialect);
            frame.ctes.push((key.clone(), size));
            frame.cte_queries.push(&*cte.query as *const Query);
            env.push((key, size));
        }
        self.frames.push(frame);
        let mut selects = Vec::new();
        block_selects(&query.body, &mut selects);
        for select in selects {
            self.check_select(select, &env);
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        self.frames.pop();
        let ptr = query as *const Query;
        if let Some(parent) = self.frames.last_mut()
            && parent.cte_queries.contains(&ptr)
        {
            parent.current = None;
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table {
                name, args: Some(args), ..
            } => {
                let name = function_name(name).unwrap_or_else(|| name.to_string());
                self.check_expansion(&name, arg_exprs(&args.args));
            }
            TableFactor::Function { name, args, .. } => {
                let name = function_name(name).unwrap_or_else(|| name.to_string());
                self.check_expansion(&name, arg_exprs(args));
            }
            TableFactor::UNNEST { array_exprs, .. } => self.check_expansion("unnest", array_exprs.iter().collect()),
            TableFactor::JsonTable { json_expr, .. } => self.check_expansion("json_table", vec![json_expr]),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Function(function) => self.check_function(function),
            Expr::In {
                target: InTarget::Table { name, args: Some(args) },
                ..
            } => {
                let name = function_name(name).unwrap_or_else(|| name.to_string());
                self.check_expansion(&name, arg_exprs(args));
            }
            Expr::In {
                target: InTarget::Unnest(array),
                ..
            } => self.check_expansion("unnest", vec![array]),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// One FROM item of a query block, for rule (a).
struct Leaf {
    /// How a column may name it (alias, else table or function name), lower case.
    qualifier: Option<String>,
    /// How the refusal names it.
    label: String,
    size: Size,
    /// Column qualifiers it reads from other items (a table function's arguments, a LATERAL subquery), with
    /// `None` for an unqualified column.
    reads: Vec<Option<String>>,
}

/// The FROM items of one query block, and which of them join conditions connect (a union-find).
struct Block {
    dialect: Dialect,
    leaves: Vec<Leaf>,
    parent: Vec<usize>,
    /// Items a condition pins to a key value (`d.id = 1`): lookups, not counted as large.
    pinned: HashSet<usize>,
}

impl Block {
    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        self.parent[a] = b;
    }

    fn union_all(&mut self, items: &[usize]) {
        for pair in items.windows(2) {
            self.union(pair[0], pair[1]);
        }
    }

    /// The leaf a column qualifier names among `scope`, if any.
    fn leaf_named(&self, qualifier: &str, scope: &[usize]) -> Option<usize> {
        scope
            .iter()
            .copied()
            .find(|i| self.leaves[*i].qualifier.as_deref() == Some(qualifier))
    }

    fn push(&mut self, leaf: Leaf) -> usize {
        self.leaves.push(leaf);
        self.parent.push(self.leaves.len() - 1);
        self.leaves.len() - 1
    }

    /// A FROM item and its joins; the leaves it holds.
    fn join_chain(&mut self, from: &TableWithJoins, env: &Env) -> Vec<usize> {
        let mut left = self.factor(&from.relation, env);
        for join in &from.joins {
            let right = self.factor(&join.relation, env);
            let mut both = left.clone();
            both.extend(&right);
            match join_constraint(&join.join_operator) {
                Some(JoinConstraint::On(on)) => {
                    self.link_comparisons(on, &both);
                    self.pin(on, &right);
                }
                Some(JoinConstraint::Using(_) | JoinConstraint::UsingAlias(..) | JoinConstraint::Natural) => {
                    self.union_all(&both)
                }
                _ => {}
            }
            left = both;
        }
        left
    }

    /// The leaves of one FROM item.
    fn factor(&mut self, factor: &TableFactor, env: &Env) -> Vec<usize> {
        let alias = |alias: &Option<sqlparser::ast::TableAlias>| alias.as_ref().map(|a| a.name.value.to_lowercase());
        let leaf = match factor {
            TableFactor::NestedJoin { table_with_joins, .. } => return self.join_chain(table_with_joins, env),
            TableFactor::Table {
                name, alias: a, args, ..
            } => {
                let last = name.0.last().map(|part| match part {
                    ObjectNamePart::Identifier(ident) => ident.clone(),
                    ObjectNamePart::Function(f) => f.name.clone(),
                });
                let size = match (args, name.0.as_slice(), &last) {
                    (None, [_], Some(ident)) => {
                        let key = names::cte_key(ident, self.dialect);
                        env.iter()
                            .rev()
                            .find(|(k, _)| *k == key)
                            .map_or(Size::Large, |(_, size)| *size)
                    }
                    (Some(args), ..) => literal_size(&arg_exprs(&args.args)),
                    _ => Size::Large,
                };
                let reads = args.as_ref().map_or_else(Vec::new, |args| {
                    arg_exprs(&args.args).into_iter().flat_map(column_qualifiers).collect()
                });
                Leaf {
                    qualifier: alias(a).or_else(|| last.map(|l| l.value.to_lowercase())),
                    label: format!("`{factor}`"),
                    size,
                    reads,
                }
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias: a,
                ..
            } => Leaf {
                qualifier: alias(a),
                label: match a {
                    Some(a) => format!("the subquery `{}`", a.name),
                    None => "a subquery".into(),
                },
                size: query_size(subquery, env, self.dialect),
                reads: match lateral {
                    true => all_qualifiers(subquery),
                    false => Vec::new(),
                },
            },
            TableFactor::Function {
                name, args, alias: a, ..
            } => Leaf {
                qualifier: alias(a).or_else(|| function_name(name)),
                label: format!("`{factor}`"),
                size: literal_size(&arg_exprs(args)),
                reads: arg_exprs(args).into_iter().flat_map(column_qualifiers).collect(),
            },
            TableFactor::UNNEST {
                array_exprs, alias: a, ..
            } => Leaf {
                qualifier: alias(a).or_else(|| Some("unnest".into())),
                label: format!("`{factor}`"),
                size: literal_size(&array_exprs.iter().collect::<Vec<_>>()),
                reads: array_exprs.iter().flat_map(column_qualifiers).collect(),
            },
            TableFactor::JsonTable {
                json_expr, alias: a, ..
            } => Leaf {
                qualifier: alias(a),
                label: "`JSON_TABLE(…)`".into(),
                size: literal_size(&[json_expr]),
                reads: column_qualifiers(json_expr),
            },
            other => Leaf {
                qualifier: None,
                label: format!("`{other}`"),
                size: Size::Large,
                reads: Vec::new(),
            },
        };
        vec![self.push(leaf)]
    }

    /// Connects the items that comparisons in `expr` (outside its subqueries) relate, among `scope`: an
    /// unqualified column compared with a column connects all of `scope`.
    fn link_comparisons(&mut self, expr: &Expr, scope: &[usize]) {
        let mut pairs: Vec<(Qualifiers, Qualifiers)> = Vec::new();
        each_expr(expr, false, |expr| {
            use sqlparser::ast::BinaryOperator as Op;
            let mut pair = |a: &Expr, b: &Expr| {
                let (a, b) = (column_qualifiers(a), column_qualifiers(b));
                if !a.is_empty() && !b.is_empty() {
                    pairs.push((a, b));
                }
            };
            match expr {
                Expr::BinaryOp {
                    left,
                    op: Op::Eq | Op::NotEq | Op::Lt | Op::LtEq | Op::Gt | Op::GtEq | Op::Spaceship,
                    right,
                } => pair(left, right),
                Expr::Between { expr, low, high, .. } => {
                    pair(expr, low);
                    pair(expr, high);
                }
                Expr::IsDistinctFrom(a, b) | Expr::IsNotDistinctFrom(a, b) => pair(a, b),
                _ => {}
            }
        });
        for (left, right) in pairs {
            for l in &left {
                for r in &right {
                    let resolve = |q: &Option<String>| match q {
                        None => Some(None),
                        Some(q) => self.leaf_named(q, scope).map(Some),
                    };
                    match (resolve(l), resolve(r)) {
                        (Some(Some(a)), Some(Some(b))) => self.union(a, b),
                        (Some(_), Some(_)) => self.union_all(scope),
                        _ => {}
                    }
                }
            }
        }
    }

    /// Marks the items of `scope` that a conjunct of `condition` pins: `q.column = literal` (either way round).
    fn pin(&mut self, condition: &Expr, scope: &[usize]) {
        use sqlparser::ast::BinaryOperator as Op;
        match condition {
            Expr::Nested(inner) => self.pin(inner, scope),
            Expr::BinaryOp {
                left,
                op: Op::And,
                right,
            } => {
                self.pin(left, scope);
                self.pin(right, scope);
            }
            Expr::BinaryOp {
                left,
                op: Op::Eq,
                right,
            } => {
                for (column, value) in [(left, right), (right, left)] {
                    if let Expr::CompoundIdentifier(parts) = column.as_ref()
                        && parts.len() >= 2
                        && is_literal(value)
                        && let Some(leaf) = self.leaf_named(&parts[parts.len() - 2].value.to_lowercase(), scope)
                    {
                        self.pinned.insert(leaf);
                    }
                }
            }
            _ => {}
        }
    }

    /// Connects a table function or LATERAL subquery with the items whose columns it reads; an unqualified column
    /// of a table function's argument connects it with every item before it.
    fn link_lateral(&mut self) {
        for i in 0..self.leaves.len() {
            let before: Vec<usize> = (0..i).collect();
            for read in self.leaves[i].reads.clone() {
                match read {
                    None if i > 0 => {
                        let mut with: Vec<usize> = before.clone();
                        with.push(i);
                        self.union_all(&with);
                    }
                    None => {}
                    Some(q) => {
                        let others: Vec<usize> = (0..self.leaves.len()).filter(|j| *j != i).collect();
                        if let Some(j) = self.leaf_named(&q, &others) {
                            self.union(i, j);
                        }
                    }
                }
            }
        }
    }
}

/// The qualifier of each column reference of an expression (`None` for an unqualified one).
type Qualifiers = Vec<Option<String>>;

/// The qualifier of each column reference in `expr` outside its subqueries (`None` for an unqualified one).
fn column_qualifiers(expr: &Expr) -> Qualifiers {
    let mut found = Vec::new();
    each_expr(expr, false, |expr| found.extend(column_qualifier(expr)));
    found
}

/// The qualifier of every qualified column reference in `query`, its subqueries included.
fn all_qualifiers(query: &Query) -> Qualifiers {
    let mut found = Vec::new();
    each_expr(query, true, |expr| {
        found.extend(column_qualifier(expr).filter(Option::is_some))
    });
    found
}

/// A column reference's qualifier (`Some(None)` for an unqualified column); `None` for any other expression.
fn column_qualifier(expr: &Expr) -> Option<Option<String>> {
    match expr {
        Expr::Identifier(_) => Some(None),
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => Some(Some(parts[parts.len() - 2].value.to_lowercase())),
        _ => None,
    }
}

/// Calls `each` on every expression of `node`, into its subqueries only when `into_subqueries`.
fn each_expr<V: Visit + ?Sized>(node: &V, into_subqueries: bool, each: impl FnMut(&Expr)) {
    struct Walk<F> {
        depth: usize,
        into_subqueries: bool,
        each: F,
    }
    impl<F: FnMut(&Expr)> Visitor for Walk<F> {
        type Break = ();

        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }

        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }

        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if self.depth == 0 || self.into_subqueries {
                (self.each)(expr);
            }
            ControlFlow::Continue(())
        }
    }
    let _ = node.visit(&mut Walk {
        depth: 0,
        into_subqueries,
        each,
    });
}

/// The constraint of a join, when its kind has one.
fn join_constraint(operator: &JoinOperator) -> Option<&JoinConstraint> {
    match operator {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::FullOuter(c)
        | JoinOperator::CrossJoin(c)
        | JoinOperator::Semi(c)
        | JoinOperator::LeftSemi(c)
        | JoinOperator::RightSemi(c)
        | JoinOperator::Anti(c)
        | JoinOperator::LeftAnti(c)
        | JoinOperator::RightAnti(c)
        | JoinOperator::StraightJoin(c)
        | JoinOperator::AsOf { constraint: c, .. } => Some(c),
        _ => None,
    }
}

/// The `SELECT`s of a query body, through its set operations, not into nested queries.
fn block_selects<'a>(body: &'a SetExpr, out: &mut Vec<&'a Select>) {
    match body {
        SetExpr::Select(select) => out.push(select),
        SetExpr::SetOperation { left, right, .. } => {
            block_selects(left, out);
            block_selects(right, out);
        }
        _ => {}
    }
}

/// How many rows `query` may return, as far as its text proves, with the CTEs of `env` visible.
fn query_size(query: &Query, env: &Env, dialect: Dialect) -> Size {
    let mut env = env.clone();
    for cte in query.with.iter().flat_map(|w| &w.cte_tables) {
        let size = query_size(&cte.query, &env, dialect);
        env.push((names::cte_key(&cte.alias.name, dialect), size));
    }
    let size = body_size(&query.body, &env, dialect);
    let limit = match &query.limit_clause {
        Some(LimitClause::LimitOffset { limit: Some(n), .. })
        | Some(LimitClause::OffsetCommaLimit { limit: n, .. }) => number(n),
        _ => query
            .fetch
            .as_ref()
            .and_then(|f| f.quantity.as_ref().map_or(Some(1.0), number)),
    };
    match limit {
        Some(n) if n <= 1.0 => Size::One,
        Some(n) if n <= MAX_COUNT as f64 => size.min(Size::Small),
        _ => size,
    }
}

/// How many rows a query body may return (see [`query_size`]).
fn body_size(body: &SetExpr, env: &Env, dialect: Dialect) -> Size {
    match body {
        SetExpr::Select(select) => select_size(select, env, dialect),
        SetExpr::Query(query) => query_size(query, env, dialect),
        SetExpr::Values(values) => match values.rows.len() {
            0 | 1 => Size::One,
            n if n as u64 <= MAX_COUNT => Size::Small,
            _ => Size::Large,
        },
        SetExpr::SetOperation { left, right, .. } => {
            match body_size(left, env, dialect).max(body_size(right, env, dialect)) {
                Size::Large => Size::Large,
                _ => Size::Small,
            }
        }
        _ => Size::Large,
    }
}

/// How many rows one `SELECT` may return: one for aggregates without GROUP BY, else the product of its FROM items.
fn select_size(select: &Select, env: &Env, dialect: Dialect) -> Size {
    let grouped = match &select.group_by {
        GroupByExpr::All(_) => true,
        GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
    };
    // Whether the projection calls an aggregate (outside a window) or a set-returning function, outside subqueries.
    let (mut aggregate, mut set_returning) = (false, false);
    for item in &select.projection {
        each_expr(item, false, |expr| {
            if let Expr::Function(function) = expr
                && let Some(name) = function_name(&function.name)
            {
                let args = unnamed_args(&function.args).len();
                // SQLite's min/max of several arguments is a scalar function.
                let scalar = matches!(name.as_str(), "min" | "max") && args > 1;
                aggregate |= function.over.is_none() && !scalar && AGGREGATE_FUNCTIONS.contains(&name.as_str());
                set_returning |= POSTGRES_SET_RETURNING_FUNCTIONS.contains(&name.as_str());
            }
        });
    }
    if set_returning {
        return Size::Large;
    }
    if !grouped && (aggregate || select.having.is_some()) {
        return Size::One;
    }
    let mut size = Size::One;
    let mut block = Block {
        dialect,
        leaves: Vec::new(),
        parent: Vec::new(),
        pinned: HashSet::new(),
    };
    for from in &select.from {
        block.join_chain(from, env);
    }
    for leaf in &block.leaves {
        size = size.times(leaf.size);
    }
    size
}

/// The name of the first growing call ([`GROWING_FUNCTIONS`]) in `expr`, its subqueries included.
fn growing_call(expr: &Expr) -> Option<String> {
    struct Growing(Option<String>);
    impl Visitor for Growing {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if let Expr::Function(function) = expr
                && let Some(name) = function_name(&function.name)
                && GROWING_FUNCTIONS.contains(&name.as_str())
            {
                self.0 = Some(name);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut growing = Growing(None);
    let _ = expr.visit(&mut growing);
    growing.0
}

/// The lower-case name of a function (the last part of a qualified one).
fn function_name(name: &ObjectName) -> Option<String> {
    name.0.last().map(names::function_part)
}

/// The expressions among function arguments (named ones included).
fn arg_exprs(args: &[FunctionArg]) -> Vec<&Expr> {
    args.iter()
        .filter_map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
            | FunctionArg::Named {
                arg: FunctionArgExpr::Expr(e),
                ..
            }
            | FunctionArg::ExprNamed {
                arg: FunctionArgExpr::Expr(e),
                ..
            } => Some(e),
            _ => None,
        })
        .collect()
}

/// The argument expressions of a call, in order.
fn unnamed_args(args: &FunctionArguments) -> Vec<&Expr> {
    match args {
        FunctionArguments::List(list) => arg_exprs(&list.args),
        _ => Vec::new(),
    }
}

/// The value of a number literal (possibly negative, parenthesized, or a string literal holding a number).
fn number(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Value(value) => match &value.value {
            Value::Number(n, _) => n.parse().ok(),
            Value::SingleQuotedString(s) => s.trim().parse().ok(),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => number(expr).map(|n| -n),
        Expr::Nested(inner) => number(inner),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

/// The size of a table function's result from its arguments: small when they are literals (strings, numbers,
/// arrays of them, their casts and concatenations) of at most [`MAX_COUNT`] characters and elements in all (it
/// expands no more than is written), else large.
fn literal_size(args: &[&Expr]) -> Size {
    struct Written {
        width: usize,
        literal: bool,
    }
    impl Visitor for Written {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            use sqlparser::ast::BinaryOperator as Op;
            match expr {
                Expr::Value(value) => {
                    let text = value.value.clone().into_string().map_or(1, |s| s.chars().count());
                    self.width += text.max(1);
                }
                Expr::Array(_)
                | Expr::Nested(_)
                | Expr::Cast { .. }
                | Expr::UnaryOp { .. }
                | Expr::BinaryOp {
                    op: Op::StringConcat, ..
                } => {}
                _ => {
                    self.literal = false;
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut written = Written {
        width: 0,
        literal: true,
    };
    for arg in args {
        let _ = arg.visit(&mut written);
    }
    match written.literal && written.width as u64 <= MAX_COUNT {
        true => Size::Small,
        false => Size::Large,
    }
}

/// Whether `expr` is a literal value other than NULL (a number, possibly negative, or a string).
fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::Value(value) => !matches!(value.value, Value::Null | Value::Placeholder(_)),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => is_literal(expr),
        Expr::Nested(inner) => is_literal(inner),
        _ => false,
    }
}

/// Whether `expr` is a number literal of at most `max`.
fn is_small_number(expr: &Expr, max: u64) -> bool {
    number(expr).is_some_and(|n| n <= max as f64)
}

/// Why a format string may build an unbounded text, if it may: not a plain string literal, a width or precision
/// above [`MAX_COUNT`], or one taken from an argument (`*`).
fn format_refusal(format: &Expr) -> Option<String> {
    let text = match format {
        Expr::Value(value) => match &value.value {
            Value::SingleQuotedString(s) => s.clone(),
            Value::DollarQuotedString(s) => s.value.clone(),
            _ => {
                return Some(format!(
                    "with the format `{format}`: the format must be a plain string literal"
                ));
            }
        },
        _ => {
            return Some(format!(
                "with the format `{format}`: the format must be a plain string literal"
            ));
        }
    };
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        if chars[at] != '%' {
            at += 1;
            continue;
        }
        let start = at;
        at += 1;
        if chars.get(at) == Some(&'%') {
            at += 1;
            continue;
        }
        // A position (`2$`), flags, a width and a precision.
        let digits = |at: &mut usize| {
            let mut value: u64 = 0;
            let mut any = false;
            while let Some(d) = chars.get(*at).and_then(|c| c.to_digit(10)) {
                value = value.saturating_mul(10).saturating_add(d as u64);
                any = true;
                *at += 1;
            }
            any.then_some(value)
        };
        let before = at;
        if digits(&mut at).is_some() && chars.get(at) == Some(&'$') {
            at += 1;
        } else {
            at = before;
        }
        while chars.get(at).is_some_and(|c| "-+ #0,!'".contains(*c)) {
            at += 1;
        }
        let mut sizes = Vec::new();
        if chars.get(at) == Some(&'*') {
            sizes.push(None);
            at += 1;
        } else if let Some(width) = digits(&mut at) {
            sizes.push(Some(width));
        }
        if chars.get(at) == Some(&'.') {
            at += 1;
            if chars.get(at) == Some(&'*') {
                sizes.push(None);
                at += 1;
            } else if let Some(precision) = digits(&mut at) {
                sizes.push(Some(precision));
            }
        }
        let spec: String = chars[start..(at + 1).min(chars.len())].iter().collect();
        for size in sizes {
            match size {
                None => {
                    return Some(format!(
                        "with `{spec}` in its format: a width or precision taken from an argument (`*`) is not \
                         allowed"
                    ));
                }
                Some(n) if n > MAX_COUNT => {
                    return Some(format!(
                        "with `{spec}` in its format: a width or precision may be at most {MAX_COUNT}"
                    ));
                }
                Some(_) => {}
            }
        }
    }
    None
}
