//! What a template's parameters reach: each parameter compared with a column (`m.id = :movieId`, `col IN (:a, :b)`,
//! at any depth), and every column equal to that one through the template's equalities (`JOIN ratings r ON
//! r.movie_id = m.id`, `WHERE a.x = b.y`; not one under OR, NOT or CASE, which need not hold), with the table its
//! qualifier names. A row-scope rule on any of those columns decides the parameter's value (see
//! [`crate::scope::reach`]), so a value outside the scope is refused even when the column it is compared with is
//! not the scoped one.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, InTarget, Query, TableFactor, UnaryOperator, ValueWithSpan, Visit, Visitor,
};

use crate::scope::reach::{ColumnKey, equal_columns};

/// A column a parameter reaches: the table it belongs to (none when unqualified or when its qualifier names no
/// table of the template, so any scoped table read may hold it) and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// The parameter.
    pub param: String,
    /// The table, when the template names it.
    pub table: Option<String>,
    /// The column, ASCII-lowercased.
    pub column: String,
}

/// Every column each parameter of `query` reaches: the one it is compared with and those equal to it.
pub(crate) fn reached_columns(query: &Query) -> Vec<Reached> {
    let mut found = Found::default();
    let _ = query.visit(&mut found);
    let equalities: Vec<(ColumnKey, ColumnKey)> = found
        .equalities
        .iter()
        .filter(|pair| !found.guarded.contains(pair))
        .cloned()
        .collect();
    let mut reached: Vec<Reached> = Vec::new();
    for (param, column) in &found.compared {
        for key in equal_columns(column, &equalities) {
            let table = key.table.as_ref().and_then(|q| found.tables.get(q).cloned().flatten());
            let one = Reached {
                param: param.clone(),
                table,
                column: key.column,
            };
            if !reached.contains(&one) {
                reached.push(one);
            }
        }
    }
    reached
}

/// What one walk over a template finds.
#[derive(Default)]
struct Found {
    /// Alias or bare name → the table it names (none when two tables share it).
    tables: BTreeMap<String, Option<String>>,
    /// `(parameter, column)` compared by `=` or `IN`.
    compared: Vec<(String, ColumnKey)>,
    /// Column = column, anywhere.
    equalities: Vec<(ColumnKey, ColumnKey)>,
    /// Column = column under OR, NOT or CASE.
    guarded: Vec<(ColumnKey, ColumnKey)>,
}

impl Visitor for Found {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = factor
            && let Some(table) = name.0.last().and_then(|part| part.as_ident())
        {
            let table = table.value.to_ascii_lowercase();
            let key = alias
                .as_ref()
                .map_or_else(|| table.clone(), |a| a.name.value.to_ascii_lowercase());
            self.tables
                .entry(key)
                .and_modify(|known| {
                    if known.as_deref() != Some(table.as_str()) {
                        *known = None;
                    }
                })
                .or_insert(Some(table));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            } => match (column_key(left), column_key(right), param(left), param(right)) {
                (Some(a), Some(b), _, _) => push_new(&mut self.equalities, (a, b)),
                (Some(c), None, None, Some(p)) | (None, Some(c), Some(p), None) => push_new(&mut self.compared, (p, c)),
                _ => {}
            },
            Expr::In {
                expr,
                target: InTarget::List(list),
                negated: false,
                ..
            } => {
                if let Some(c) = column_key(expr) {
                    for p in list.iter().filter_map(param) {
                        push_new(&mut self.compared, (p, c.clone()));
                    }
                }
            }
            Expr::BinaryOp {
                op: BinaryOperator::Or, ..
            }
            | Expr::UnaryOp {
                op: UnaryOperator::Not, ..
            }
            | Expr::Case { .. } => {
                let _ = sqlparser::ast::visit_expressions(expr, |inner| {
                    if let Expr::BinaryOp {
                        left,
                        op: BinaryOperator::Eq,
                        right,
                    } = inner
                        && let (Some(a), Some(b)) = (column_key(left), column_key(right))
                    {
                        push_new(&mut self.guarded, (a, b));
                    }
                    ControlFlow::<()>::Continue(())
                });
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn push_new<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// A column reference: `col`, `t.col`, `schema.t.col`.
fn column_key(expr: &Expr) -> Option<ColumnKey> {
    match expr {
        Expr::Identifier(ident) => Some(ColumnKey::new(None, &ident.value)),
        Expr::CompoundIdentifier(parts) => {
            let (column, rest) = parts.split_last()?;
            Some(ColumnKey::new(rest.last().map(|t| t.value.as_str()), &column.value))
        }
        _ => None,
    }
}

/// A named placeholder `:p`, as `p`.
fn param(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(ValueWithSpan {
            value: sqlparser::ast::Value::Placeholder(p),
            ..
        }) => p.strip_prefix(':').map(str::to_string),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wenshu_sql::Dialect;
    use wenshu_sql::guard::parse_query;

    fn reached(sql: &str) -> Vec<(String, Option<String>, String)> {
        reached_columns(&parse_query(sql, Dialect::Sqlite).unwrap())
            .into_iter()
            .map(|r| (r.param, r.table, r.column))
            .collect()
    }

    fn one(param: &str, table: Option<&str>, column: &str) -> (String, Option<String>, String) {
        (param.into(), table.map(str::to_string), column.into())
    }

    #[test]
    fn a_parameter_reaches_the_columns_its_column_is_joined_with() {
        assert_eq!(
            reached("SELECT a.x FROM things a JOIN marks AS b ON b.thing_ref = a.id WHERE a.id = :thing"),
            vec![
                one("thing", Some("things"), "id"),
                one("thing", Some("marks"), "thing_ref")
            ]
        );
        assert_eq!(
            reached(
                "SELECT 1 FROM things, marks m WHERE (:kind IS NULL OR kind IN (:kind)) AND m.thing_ref = things.id AND things.id = :thing"
            ),
            vec![
                one("kind", None, "kind"),
                one("thing", Some("things"), "id"),
                one("thing", Some("marks"), "thing_ref")
            ]
        );
    }

    #[test]
    fn an_equality_that_need_not_hold_reaches_nothing() {
        for sql in [
            "SELECT 1 FROM things a, marks b WHERE a.id = :thing AND (b.thing_ref = a.id OR b.flag = 1)",
            "SELECT 1 FROM things a, marks b WHERE a.id = :thing AND NOT (b.thing_ref = a.id)",
            "SELECT 1 FROM things a, marks b WHERE a.id = :thing AND CASE WHEN b.thing_ref = a.id THEN 1 END = 1",
        ] {
            assert_eq!(reached(sql), vec![one("thing", Some("things"), "id")], "{sql}");
        }
        assert_eq!(
            reached("SELECT 1 FROM (SELECT id FROM things) AS d WHERE d.id = :thing"),
            vec![one("thing", None, "id")],
            "a derived table's alias names no table"
        );
    }
}
