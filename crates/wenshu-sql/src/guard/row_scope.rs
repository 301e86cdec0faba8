//! Row scope in the rewrite: every reference to a scoped table — at any depth, in CTE bodies, subqueries, joins,
//! LATERAL, set operations, under any alias, schema-qualified, quoted or in another case — becomes a scoped
//! subquery `(SELECT * FROM sales AS wenshu_scoped WHERE wenshu_scoped.region = :wenshu_scope_0_0_0 OFFSET 0) AS
//! sales` whose values are bound placeholders, materialized (a LIMIT or OFFSET per dialect, see [`skeleton_text`]) so
//! the optimizer never runs the user's predicates on rows outside the scope; names resolve as the guard resolves
//! them (a visible CTE is not the table).
//! [`verify`] re-checks a rewrite: every reference to a scoped table must sit in exactly such a subquery.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::OnceLock;

use serde_json::Value as Json;
use sqlparser::ast::{
    Expr, Ident, InTarget, ObjectName, ObjectNamePart, Query, SetExpr, TableAlias, TableFactor, Value, ValueWithSpan,
    Visit, VisitMut, Visitor, VisitorMut,
};

use super::ctes::{CteFrames, CteLookup};
use crate::dialect::Dialect;
use crate::scope::{BoundCondition, BoundScope, ScopeRefusal};

/// The alias of the scoped table inside its subquery (so that a rule's column never resolves to an outer query).
pub const INNER_ALIAS: &str = "wenshu_scoped";
/// The prefix of the named placeholders the rewrite writes.
pub const PLACEHOLDER_PREFIX: &str = "wenshu_scope_";

/// Why a statement cannot be scoped.
#[derive(Debug, Clone, PartialEq)]
pub enum ScopeRewriteError {
    /// A scoped table the viewer may not read.
    Denied(ScopeRefusal),
    /// A form the rewrite cannot scope (`TABLE sales`, SQLite's `x IN sales`), or a placeholder written in the SQL.
    Refused(String),
}

impl std::fmt::Display for ScopeRewriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Denied(refusal) => f.write_str(&refusal.en),
            Self::Refused(why) => f.write_str(why),
        }
    }
}

/// The named placeholders the rewrite wrote, with their values (`wenshu_scope_0_0_0` → `"华东"`), and which
/// attribute each value comes from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScopeBinds {
    /// Placeholder name (without `:`) → (attribute, value).
    pub values: HashMap<String, (String, Json)>,
    /// The scoped tables wrapped, folded, once each.
    pub tables: Vec<String>,
}

/// Wraps every reference to a table of `scope` in `query`; returns the placeholders written.
pub fn wrap(query: &mut Query, dialect: Dialect, scope: &BoundScope) -> Result<ScopeBinds, ScopeRewriteError> {
    let mut wrapper = Wrapper {
        dialect,
        scope,
        frames: CteFrames::default(),
        binds: ScopeBinds::default(),
        error: None,
    };
    let _ = query.visit(&mut wrapper);
    match wrapper.error {
        Some(error) => Err(error),
        None => Ok(wrapper.binds),
    }
}

/// Refuses any placeholder in `query` (`?`, `$1`, `:name`, `@name`): generated SQL binds nothing of its own.
pub fn refuse_placeholders(query: &Query) -> Result<(), String> {
    let mut found = None;
    let _ = sqlparser::ast::visit_expressions(query, |expr| {
        if let Expr::Value(ValueWithSpan {
            value: Value::Placeholder(p),
            ..
        }) = expr
        {
            found = Some(p.clone());
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    match found {
        Some(p) => Err(format!(
            "placeholder `{p}` is not allowed in generated SQL: write values, wenshu binds only its own"
        )),
        None => Ok(()),
    }
}

/// Checks a rewrite: every reference to a table of `scope` is the inner table of a scoped subquery with exactly
/// the rule's conditions; returns the first violation.
pub fn verify(query: &Query, dialect: Dialect, scope: &BoundScope) -> Result<(), String> {
    if scope.is_empty() {
        return Ok(());
    }
    let mut verifier = Verifier {
        dialect,
        scope,
        frames: CteFrames::default(),
        sanctioned: HashSet::new(),
        expected: HashMap::new(),
        error: None,
    };
    let _ = query.visit(&mut verifier);
    verifier.error.map_or(Ok(()), Err)
}

/// The scoped table a relation name reads, when it is one: never a CTE in sight (as the guard resolved it).
fn scoped_table<'a>(
    frames: &CteFrames,
    name: &ObjectName,
    dialect: Dialect,
    scope: &'a BoundScope,
) -> Option<&'a crate::scope::BoundTable> {
    let idents: Vec<&Ident> = name
        .0
        .iter()
        .filter_map(|part| match part {
            ObjectNamePart::Identifier(ident) => Some(ident),
            ObjectNamePart::Function(_) => None,
        })
        .collect();
    if let [ident] = idents.as_slice()
        && matches!(frames.lookup(ident, dialect), CteLookup::Cte { .. })
    {
        return None;
    }
    idents.last().and_then(|last| scope.table(&last.value))
}

fn quote(name: &str, dialect: Dialect) -> Ident {
    Ident::with_quote(dialect.rules().identifier_quote(), name)
}

fn placeholder(name: String) -> Expr {
    Expr::value(Value::Placeholder(format!(":{name}")))
}

/// `wenshu_scoped.c1 = :p AND wenshu_scoped.c2 IN (:q, :r)`, with the placeholder names per condition and value.
fn predicate(
    conditions: &[BoundCondition],
    table_index: usize,
    dialect: Dialect,
) -> (Expr, Vec<(String, usize, usize)>) {
    let mut names = Vec::new();
    let mut parts = Vec::new();
    for (c, condition) in conditions.iter().enumerate() {
        let column = Expr::CompoundIdentifier(vec![Ident::new(INNER_ALIAS), quote(&condition.column, dialect)]);
        let mut marks: Vec<Expr> = Vec::new();
        for v in 0..condition.values.len() {
            let name = format!("{PLACEHOLDER_PREFIX}{table_index}_{c}_{v}");
            names.push((name.clone(), c, v));
            marks.push(placeholder(name));
        }
        parts.push(match marks.len() {
            1 => Expr::BinaryOp {
                left: Box::new(column),
                op: sqlparser::ast::BinaryOperator::Eq,
                right: Box::new(marks.remove(0)),
            },
            _ => Expr::In {
                expr: Box::new(column),
                target: InTarget::List(marks),
                negated: false,
                global: false,
            },
        });
    }
    let mut iter = parts.into_iter();
    let first = iter.next().unwrap_or_else(|| Expr::value(Value::Boolean(false)));
    let predicate = iter.fold(first, |left, right| Expr::BinaryOp {
        left: Box::new(left),
        op: sqlparser::ast::BinaryOperator::And,
        right: Box::new(right),
    });
    (predicate, names)
}

/// The skeleton of a scoped subquery in each dialect: `SELECT * FROM t WHERE 1 = 1` with a LIMIT or OFFSET that
/// changes no row but keeps the optimizer from merging the subquery into the outer query or pushing the outer
/// query's conditions into it — so the user's predicates never run on rows outside the scope (an error raised by
/// a hidden row would tell it exists). MySQL/MariaDB: a LIMIT stops the derived-table merge and condition
/// pushdown; PostgreSQL: `OFFSET 0` stops the subquery pull-up and qual pushdown; SQLite: an OFFSET stops the
/// query flattener and WHERE-clause pushdown.
fn skeleton_text(dialect: Dialect) -> &'static str {
    dialect.rules().scope_fence()
}

/// The skeleton of a scoped subquery ([`skeleton_text`]), parsed once per dialect.
fn skeleton(dialect: Dialect) -> Query {
    static SKELETONS: [OnceLock<Query>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    match dialect.built_in_index() {
        Some(slot) => SKELETONS[slot].get_or_init(|| parse_skeleton(dialect)).clone(),
        None => parse_skeleton(dialect),
    }
}

fn parse_skeleton(dialect: Dialect) -> Query {
    let dialect_box = dialect.rules().parser();
    let parsed = sqlparser::parser::Parser::parse_sql(dialect_box.as_ref(), skeleton_text(dialect));
    match parsed.ok().and_then(|statements| statements.into_iter().next()) {
        Some(sqlparser::ast::Statement::Query(query)) => *query,
        _ => Query {
            with: None,
            body: Box::new(SetExpr::Values(sqlparser::ast::Values {
                explicit_row: false,
                value_keyword: false,
                rows: vec![],
            })),
            order_by: None,
            limit_clause: None,
            fetch: None,
            locks: vec![],
            for_clause: None,
            settings: None,
            format_clause: None,
            pipe_operators: vec![],
        },
    }
}

/// A plain table factor reading `name`, no alias.
fn plain_table(name: ObjectName, dialect: Dialect) -> TableFactor {
    let mut query = skeleton(dialect);
    match query.body.as_mut() {
        SetExpr::Select(select) if !select.from.is_empty() => {
            let mut factor = select.from.swap_remove(0).relation;
            if let TableFactor::Table { name: slot, .. } = &mut factor {
                *slot = name;
            }
            factor
        }
        _ => TableFactor::Derived {
            lateral: false,
            subquery: Box::new(query),
            alias: None,
            sample: None,
        },
    }
}

/// The scoped subquery over `inner` (a plain table factor without alias).
fn scoped_query(inner: TableFactor, predicate: Expr, dialect: Dialect) -> Query {
    let mut query = skeleton(dialect);
    if let SetExpr::Select(select) = query.body.as_mut()
        && !select.from.is_empty()
    {
        let mut inner = inner;
        if let TableFactor::Table { alias, .. } = &mut inner {
            *alias = Some(TableAlias {
                explicit: true,
                name: quote(INNER_ALIAS, dialect),
                columns: vec![],
                at: None,
            });
        }
        select.from[0].relation = inner;
        select.selection = Some(predicate);
    }
    query
}

struct Wrapper<'a> {
    dialect: Dialect,
    scope: &'a BoundScope,
    frames: CteFrames,
    binds: ScopeBinds,
    error: Option<ScopeRewriteError>,
}

impl Wrapper<'_> {
    fn fail(&mut self, error: ScopeRewriteError) -> ControlFlow<()> {
        self.error.get_or_insert(error);
        ControlFlow::Break(())
    }
}

impl VisitorMut for Wrapper<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        self.frames.enter(query, self.dialect);
        if let Some(table) = table_statement(&query.body)
            && self.scope.table(&table).is_some()
        {
            return self.fail(ScopeRewriteError::Refused(format!(
                "`TABLE {table}` reads a row-scoped table; write SELECT … FROM {table}"
            )));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        self.frames.leave(query);
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::In {
            target: InTarget::Table { name, args: None },
            ..
        } = expr
            && scoped_table(&self.frames, name, self.dialect, self.scope).is_some()
        {
            let written = name.to_string();
            return self.fail(ScopeRewriteError::Refused(format!(
                "`IN {written}` reads a row-scoped table; write IN (SELECT … FROM {written})"
            )));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            args: None,
            alias,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        let Some(bound) = scoped_table(&self.frames, name, self.dialect, self.scope) else {
            return ControlFlow::Continue(());
        };
        let conditions = match self.scope.conditions(&bound.table) {
            Ok(Some(conditions)) => conditions,
            Ok(None) => return ControlFlow::Continue(()),
            Err(refusal) => return self.fail(ScopeRewriteError::Denied(refusal)),
        };
        let table_index = self
            .scope
            .tables()
            .iter()
            .position(|t| t.table == bound.table)
            .unwrap_or_default();
        let (predicate, marks) = predicate(conditions, table_index, self.dialect);
        for (mark, c, v) in marks {
            let condition = &conditions[c];
            self.binds
                .values
                .insert(mark, (condition.attribute.clone(), condition.values[v].clone()));
        }
        let key = bound.table.to_ascii_lowercase();
        if !self.binds.tables.contains(&key) {
            self.binds.tables.push(key);
        }
        let last = name
            .0
            .iter()
            .rev()
            .find_map(|part| match part {
                ObjectNamePart::Identifier(ident) => Some(ident.clone()),
                ObjectNamePart::Function(_) => None,
            })
            .unwrap_or_else(|| Ident::new(&bound.table));
        let outer_alias = alias.take().unwrap_or(TableAlias {
            explicit: true,
            name: last,
            columns: vec![],
            at: None,
        });
        let inner = std::mem::replace(
            factor,
            plain_table(ObjectName::from(vec![Ident::new("t")]), self.dialect),
        );
        *factor = TableFactor::Derived {
            lateral: false,
            subquery: Box::new(scoped_query(inner, predicate, self.dialect)),
            alias: Some(outer_alias),
            sample: None,
        };
        ControlFlow::Continue(())
    }
}

/// The table of a `TABLE x` body, if the body is one.
fn table_statement(body: &SetExpr) -> Option<String> {
    match body {
        SetExpr::Table(table) => table.table_name.as_ref().map(|t| t.value.clone()),
        SetExpr::SetOperation { left, right, .. } => table_statement(left).or_else(|| table_statement(right)),
        _ => None,
    }
}

struct Verifier<'a> {
    dialect: Dialect,
    scope: &'a BoundScope,
    frames: CteFrames,
    sanctioned: HashSet<*const ObjectName>,
    /// The normalized text of each scoped table's subquery (its FROM left out), made once per table.
    expected: HashMap<String, String>,
    error: Option<String>,
}

impl Verifier<'_> {
    /// Whether `subquery` is exactly the scoped subquery of the table it reads; marks that table's name.
    fn sanction(&mut self, subquery: &Query) {
        let SetExpr::Select(select) = subquery.body.as_ref() else {
            return;
        };
        let [from] = select.from.as_slice() else { return };
        let TableFactor::Table {
            name,
            alias: Some(alias),
            args: None,
            ..
        } = &from.relation
        else {
            return;
        };
        if !from.joins.is_empty() || alias.name.value != INNER_ALIAS || !alias.columns.is_empty() {
            return;
        }
        let Some(bound) = scoped_table(&self.frames, name, self.dialect, self.scope) else {
            return;
        };
        let Ok(Some(conditions)) = self.scope.conditions(&bound.table) else {
            return;
        };
        let dialect = self.dialect;
        let expected = self.expected.entry(bound.table.clone()).or_insert_with(|| {
            let (predicate, _) = predicate(conditions, 0, dialect);
            let mut skeleton = scoped_query(plain_table(name.clone(), dialect), predicate, dialect);
            normalize(&mut skeleton);
            skeleton.to_string()
        });
        let mut found = subquery.clone();
        normalize(&mut found);
        if *expected == found.to_string() {
            self.sanctioned.insert(name as *const ObjectName);
        }
    }
}

impl Visitor for Verifier<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        self.frames.enter(query, self.dialect);
        if let Some(table) = table_statement(&query.body)
            && self.scope.table(&table).is_some()
        {
            self.error = Some(format!("`TABLE {table}` reads a row-scoped table"));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        self.frames.leave(query);
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Derived { subquery, .. } = factor {
            self.sanction(subquery);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        if let Some(bound) = scoped_table(&self.frames, relation, self.dialect, self.scope)
            && !self.sanctioned.contains(&(relation as *const ObjectName))
        {
            self.error = Some(format!(
                "`{relation}` reads row-scoped table `{}` outside its scoped subquery",
                bound.table
            ));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

/// A scoped subquery without its FROM and with every placeholder as `?`: the part that must match exactly.
fn normalize(query: &mut Query) {
    if let SetExpr::Select(select) = query.body.as_mut() {
        select.from.clear();
    }
    let _ = query.visit(&mut NormalizePlaceholders);
}

/// Every placeholder as `?`, so that a rewrite with named marks and its positional text compare equal.
struct NormalizePlaceholders;

impl VisitorMut for NormalizePlaceholders {
    type Break = ();

    fn post_visit_value(&mut self, value: &mut ValueWithSpan) -> ControlFlow<()> {
        if let Value::Placeholder(p) = &mut value.value {
            *p = "?".into();
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::scope::{ScopeRules, Viewer};

    fn scope() -> BoundScope {
        let rules = ScopeRules::parse(&BTreeMap::from([(
            "sales".to_string(),
            "region = :user.region".to_string(),
        )]));
        rules.unwrap().bind(&Viewer::scoped(
            None,
            BTreeMap::from([("region".to_string(), json!("华东"))]),
        ))
    }

    fn parse(sql: &str) -> Query {
        super::super::parse_query(sql, Dialect::Sqlite).unwrap()
    }

    #[test]
    fn every_dialect_fences_the_scoped_subquery() {
        let scope = scope();
        for (dialect, fence, mark) in [
            (Dialect::MySql, "LIMIT 18446744073709551615", "?"),
            (Dialect::Postgres, "OFFSET 0", "$1"),
            (Dialect::Sqlite, "LIMIT -1 OFFSET 0", "?"),
        ] {
            let mut query = super::super::parse_query("SELECT count(*) FROM sales WHERE amount > 1", dialect).unwrap();
            wrap(&mut query, dialect, &scope).unwrap();
            let text = query.to_string();
            assert!(
                text.contains(&format!("= :wenshu_scope_0_0_0 {fence}) AS sales")),
                "{dialect:?}: {text}"
            );
            let again = super::super::parse_query(&text.replace(":wenshu_scope_0_0_0", mark), dialect).unwrap();
            assert_eq!(verify(&again, dialect, &scope), Ok(()), "{dialect:?}: {text}");
        }
    }

    #[test]
    fn verify_accepts_only_the_exact_scoped_subquery() {
        let scope = scope();
        let mut query = parse("SELECT * FROM sales s JOIN (SELECT * FROM Sales) t ON 1 = 1");
        let marks = wrap(&mut query, Dialect::Sqlite, &scope).unwrap();
        assert_eq!(marks.tables, vec!["sales".to_string()]);
        assert_eq!(marks.values.len(), 1);
        let text = query.to_string();
        assert_eq!(text.matches(INNER_ALIAS).count(), 4, "{text}");
        assert_eq!(text.matches("LIMIT -1 OFFSET 0").count(), 2, "{text}");
        assert_eq!(verify(&parse(&text), Dialect::Sqlite, &scope), Ok(()));
        for tampered in [
            "SELECT * FROM sales",
            "SELECT * FROM (SELECT * FROM sales AS wenshu_scoped WHERE wenshu_scoped.\"region\" = ? OR 1 = 1 LIMIT -1 OFFSET 0) AS sales",
            "SELECT * FROM (SELECT * FROM sales AS wenshu_scoped LIMIT -1 OFFSET 0) AS sales",
            "SELECT * FROM (SELECT * FROM sales AS wenshu_scoped WHERE wenshu_scoped.\"other\" = ? LIMIT -1 OFFSET 0) AS sales",
            "SELECT * FROM (SELECT * FROM sales AS wenshu_scoped, sales AS x WHERE wenshu_scoped.\"region\" = ? LIMIT -1 OFFSET 0) AS s",
            // The form without its fence, which the optimizer may merge into the outer query.
            "SELECT * FROM (SELECT * FROM sales AS wenshu_scoped WHERE wenshu_scoped.\"region\" = ?) AS sales",
            "SELECT * FROM (SELECT * FROM sales AS wenshu_scoped WHERE wenshu_scoped.\"region\" = ? LIMIT 5) AS sales",
        ] {
            assert!(verify(&parse(tampered), Dialect::Sqlite, &scope).is_err(), "{tampered}");
        }
        let ok = "SELECT * FROM (SELECT * FROM sales AS wenshu_scoped WHERE wenshu_scoped.\"region\" = ? LIMIT -1 OFFSET 0) AS sales";
        assert_eq!(verify(&parse(ok), Dialect::Sqlite, &scope), Ok(()));
    }

    #[test]
    fn a_name_is_a_cte_or_the_scoped_table_as_the_guard_and_the_database_resolve_it() {
        let scope = scope();
        // Inside the first CTE, `sales` is the later CTE on SQLite (a body sees its whole WITH) and the table on
        // PostgreSQL and MySQL (only earlier CTEs); the block's own body always reads the CTE.
        let sql = "WITH a AS (SELECT * FROM sales), sales AS (SELECT 1 AS x) SELECT * FROM a JOIN sales ON 1 = 1";
        for (dialect, wrapped) in [(Dialect::Sqlite, 0), (Dialect::Postgres, 1), (Dialect::MySql, 1)] {
            let mut query = super::super::parse_query(sql, dialect).unwrap();
            wrap(&mut query, dialect, &scope).unwrap();
            let text = query.to_string();
            assert_eq!(text.matches(INNER_ALIAS).count(), wrapped * 2, "{dialect:?}: {text}");
            let guard = super::super::check_sql(sql, dialect, &crate::guard::GuardPolicy::new(&["sales"]));
            let tables = guard.tables.iter().filter(|t| *t == "sales").count();
            assert_eq!(
                tables, wrapped,
                "{dialect:?}: the guard reads the table where the rewrite scopes it"
            );
        }
        // A recursive CTE named like the scoped table reads itself, never the table, in its own body.
        let recursive = "WITH RECURSIVE sales(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM sales WHERE n < 3) \
                         SELECT n FROM sales";
        for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
            let mut query = super::super::parse_query(recursive, dialect).unwrap();
            wrap(&mut query, dialect, &scope).unwrap();
            assert!(!query.to_string().contains(INNER_ALIAS), "{dialect:?}: {query}");
            assert_eq!(verify(&query, dialect, &scope), Ok(()), "{dialect:?}");
        }
    }
}
