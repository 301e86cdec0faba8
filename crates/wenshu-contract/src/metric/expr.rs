//! A measure's expression: parsed with sqlparser (the SQL guard's parser), reduced to a small checked tree of
//! columns, literals, allowed functions, arithmetic and CASE, with every column inside an aggregate.

use sqlparser::ast::{
    BinaryOperator, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, UnaryOperator, Value,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use super::ColumnRef;

/// Aggregate functions a measure may use.
pub const AGGREGATE_FUNCTIONS: [&str; 5] = ["sum", "count", "avg", "min", "max"];

/// Scalar functions a measure may use (portable across SQLite, PostgreSQL and MySQL/MariaDB).
pub const SCALAR_FUNCTIONS: [&str; 5] = ["round", "abs", "coalesce", "nullif", "lower"];

/// A checked measure expression; it renders per dialect in the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricExpr {
    /// A column of one of the model's tables.
    Column(ColumnRef),
    /// A numeric literal as written.
    Number(String),
    /// A text literal written by the administrator.
    Text(String),
    /// `NULL`.
    Null,
    /// `*` (only inside `COUNT(*)`).
    Star,
    /// A call of an allowed function (lower case), optionally `DISTINCT`.
    Call {
        /// The function, lower case.
        name: String,
        /// Whether the arguments are `DISTINCT`.
        distinct: bool,
        /// The arguments.
        args: Vec<MetricExpr>,
    },
    /// `left op right` (arithmetic or comparison).
    Binary {
        /// The left operand.
        left: Box<MetricExpr>,
        /// The operator as SQL text (`+`, `-`, `*`, `/`, `=`, `<>`, `<`, `<=`, `>`, `>=`, `AND`, `OR`).
        op: &'static str,
        /// The right operand.
        right: Box<MetricExpr>,
    },
    /// `-expr` or `NOT expr`.
    Unary {
        /// `-` or `NOT`.
        op: &'static str,
        /// The operand.
        expr: Box<MetricExpr>,
    },
    /// `CASE WHEN c THEN r … ELSE e END`.
    Case {
        /// The `WHEN … THEN …` pairs.
        whens: Vec<(MetricExpr, MetricExpr)>,
        /// The `ELSE` result.
        otherwise: Option<Box<MetricExpr>>,
    },
}

impl MetricExpr {
    /// Whether the expression adds up over rows: a plain `SUM(…)` or `COUNT(…)` (not `COUNT(DISTINCT …)`), whose
    /// values over parts sum to its value over the whole (running totals, means of group values, per person).
    pub fn adds_up(&self) -> bool {
        matches!(self, Self::Call { name, distinct: false, .. } if name == "sum" || name == "count")
    }

    /// The one aggregate call this expression is, with its single argument (`SUM(amount)` → `sum`, `amount`).
    pub fn single_aggregate(&self) -> Option<(&str, &MetricExpr)> {
        match self {
            Self::Call {
                name,
                distinct: false,
                args,
            } if AGGREGATE_FUNCTIONS.contains(&name.as_str()) => match args.as_slice() {
                [arg] if !matches!(arg, Self::Star) => Some((name, arg)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Every column the expression reads.
    pub fn columns(&self) -> Vec<&ColumnRef> {
        let mut out = Vec::new();
        self.collect_columns(&mut out);
        out
    }

    fn collect_columns<'a>(&'a self, out: &mut Vec<&'a ColumnRef>) {
        match self {
            Self::Column(c) => out.push(c),
            Self::Call { args, .. } => args.iter().for_each(|a| a.collect_columns(out)),
            Self::Binary { left, right, .. } => {
                left.collect_columns(out);
                right.collect_columns(out);
            }
            Self::Unary { expr, .. } => expr.collect_columns(out),
            Self::Case { whens, otherwise } => {
                for (c, r) in whens {
                    c.collect_columns(out);
                    r.collect_columns(out);
                }
                if let Some(e) = otherwise {
                    e.collect_columns(out);
                }
            }
            Self::Number(_) | Self::Text(_) | Self::Null | Self::Star => {}
        }
    }
}

/// Parses and checks a measure expression; `resolve` turns a column name (`amount`, `b.revenue`) into a column of
/// the model or says why not.
pub fn parse_measure(
    text: &str,
    resolve: &dyn Fn(&[String]) -> Result<ColumnRef, String>,
) -> Result<MetricExpr, String> {
    let dialect = GenericDialect {};
    let expr = Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| format!("`{text}` does not parse as a SQL expression: {e}"))?;
    let checked = convert(&expr, resolve)?;
    check_aggregation(&checked, false)?;
    if !contains_aggregate(&checked) {
        return Err(format!(
            "`{text}` is not an aggregate: a measure must aggregate its columns ({})",
            AGGREGATE_FUNCTIONS.join(", ")
        ));
    }
    Ok(checked)
}

fn convert(expr: &Expr, resolve: &dyn Fn(&[String]) -> Result<ColumnRef, String>) -> Result<MetricExpr, String> {
    let conv = |e: &Expr| convert(e, resolve);
    Ok(match expr {
        Expr::Identifier(ident) => MetricExpr::Column(resolve(std::slice::from_ref(&ident.value))?),
        Expr::CompoundIdentifier(parts) => {
            let names: Vec<String> = parts.iter().map(|p| p.value.clone()).collect();
            MetricExpr::Column(resolve(&names)?)
        }
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => MetricExpr::Number(n.to_string()),
            Value::SingleQuotedString(s) => MetricExpr::Text(s.clone()),
            Value::Null => MetricExpr::Null,
            other => return Err(format!("the literal `{other}` is not allowed in a measure")),
        },
        Expr::Nested(inner) => conv(inner)?,
        Expr::UnaryOp { op, expr } => MetricExpr::Unary {
            op: match op {
                UnaryOperator::Minus => "-",
                UnaryOperator::Not => "NOT",
                other => return Err(format!("the operator `{other}` is not allowed in a measure")),
            },
            expr: Box::new(conv(expr)?),
        },
        Expr::BinaryOp { left, op, right } => MetricExpr::Binary {
            left: Box::new(conv(left)?),
            op: binary_op(op)?,
            right: Box::new(conv(right)?),
        },
        Expr::Case {
            operand: None,
            conditions,
            else_result,
            ..
        } => MetricExpr::Case {
            whens: conditions
                .iter()
                .map(|w| Ok((conv(&w.condition)?, conv(&w.result)?)))
                .collect::<Result<_, String>>()?,
            otherwise: else_result.as_deref().map(conv).transpose()?.map(Box::new),
        },
        Expr::Function(function) => {
            let name = function.name.to_string().to_ascii_lowercase();
            if !AGGREGATE_FUNCTIONS.contains(&name.as_str()) && !SCALAR_FUNCTIONS.contains(&name.as_str()) {
                return Err(format!(
                    "function `{name}` is not allowed in a measure; allowed are {} and {}",
                    AGGREGATE_FUNCTIONS.join(", "),
                    SCALAR_FUNCTIONS.join(", ")
                ));
            }
            if function.filter.is_some() || function.over.is_some() || !function.within_group.is_empty() {
                return Err(format!(
                    "`{name}` may not carry FILTER, OVER or WITHIN GROUP in a measure"
                ));
            }
            let FunctionArguments::List(list) = &function.args else {
                return Err(format!("`{name}` needs an argument list"));
            };
            if !list.clauses.is_empty() {
                return Err(format!("`{name}` may not carry clauses in its arguments"));
            }
            let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
            let args = list
                .args
                .iter()
                .map(|arg| match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => conv(e),
                    FunctionArg::Unnamed(FunctionArgExpr::Wildcard) if name == "count" => Ok(MetricExpr::Star),
                    other => Err(format!(
                        "the argument `{other}` of `{name}` is not allowed in a measure"
                    )),
                })
                .collect::<Result<_, String>>()?;
            MetricExpr::Call { name, distinct, args }
        }
        other => return Err(format!("`{other}` is not allowed in a measure")),
    })
}

fn binary_op(op: &BinaryOperator) -> Result<&'static str, String> {
    Ok(match op {
        BinaryOperator::Plus => "+",
        BinaryOperator::Minus => "-",
        BinaryOperator::Multiply => "*",
        BinaryOperator::Divide => "/",
        BinaryOperator::Eq => "=",
        BinaryOperator::NotEq => "<>",
        BinaryOperator::Lt => "<",
        BinaryOperator::LtEq => "<=",
        BinaryOperator::Gt => ">",
        BinaryOperator::GtEq => ">=",
        BinaryOperator::And => "AND",
        BinaryOperator::Or => "OR",
        other => return Err(format!("the operator `{other}` is not allowed in a measure")),
    })
}

fn contains_aggregate(expr: &MetricExpr) -> bool {
    match expr {
        MetricExpr::Call { name, args, .. } => {
            AGGREGATE_FUNCTIONS.contains(&name.as_str()) || args.iter().any(contains_aggregate)
        }
        MetricExpr::Binary { left, right, .. } => contains_aggregate(left) || contains_aggregate(right),
        MetricExpr::Unary { expr, .. } => contains_aggregate(expr),
        MetricExpr::Case { whens, otherwise } => {
            whens
                .iter()
                .any(|(c, r)| contains_aggregate(c) || contains_aggregate(r))
                || otherwise.as_deref().is_some_and(contains_aggregate)
        }
        _ => false,
    }
}

/// Every column must be inside exactly one aggregate; aggregates do not nest.
fn check_aggregation(expr: &MetricExpr, inside: bool) -> Result<(), String> {
    match expr {
        MetricExpr::Column(c) if !inside => Err(format!(
            "column `{}` is used outside an aggregate: a measure must aggregate every column",
            c.column
        )),
        MetricExpr::Call { name, args, .. } => {
            let aggregate = AGGREGATE_FUNCTIONS.contains(&name.as_str());
            if aggregate && inside {
                return Err(format!("aggregate `{name}` is nested inside another aggregate"));
            }
            args.iter().try_for_each(|a| check_aggregation(a, inside || aggregate))
        }
        MetricExpr::Binary { left, right, .. } => {
            check_aggregation(left, inside)?;
            check_aggregation(right, inside)
        }
        MetricExpr::Unary { expr, .. } => check_aggregation(expr, inside),
        MetricExpr::Case { whens, otherwise } => {
            for (c, r) in whens {
                check_aggregation(c, inside)?;
                check_aggregation(r, inside)?;
            }
            otherwise.as_deref().map_or(Ok(()), |e| check_aggregation(e, inside))
        }
        MetricExpr::Star if !inside => Err("`*` is allowed only in COUNT(*)".into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(names: &[String]) -> Result<ColumnRef, String> {
        let column = names.last().cloned().unwrap_or_default();
        if ["amount", "quantity"].contains(&column.as_str()) {
            Ok(ColumnRef {
                table: "t".into(),
                column,
            })
        } else {
            Err(format!("no column `{column}`"))
        }
    }

    #[test]
    fn aggregates_pass_and_raw_columns_fail() {
        assert!(parse_measure("SUM(amount)", &resolve).is_ok());
        assert!(parse_measure("COUNT(*)", &resolve).is_ok());
        assert!(parse_measure("SUM(amount) * 1.0 / NULLIF(SUM(quantity), 0)", &resolve).is_ok());
        let raw = parse_measure("amount", &resolve).unwrap_err();
        assert!(raw.contains("outside an aggregate"), "{raw}");
        let mixed = parse_measure("SUM(amount) + quantity", &resolve).unwrap_err();
        assert!(mixed.contains("`quantity`"), "{mixed}");
        assert!(
            parse_measure("1 + 2", &resolve)
                .unwrap_err()
                .contains("not an aggregate")
        );
    }

    #[test]
    fn unknown_columns_functions_and_nesting_fail() {
        assert!(parse_measure("SUM(price)", &resolve).unwrap_err().contains("price"));
        assert!(
            parse_measure("SUM(sleep(amount))", &resolve)
                .unwrap_err()
                .contains("sleep")
        );
        assert!(
            parse_measure("SUM(MAX(amount))", &resolve)
                .unwrap_err()
                .contains("nested")
        );
        assert!(parse_measure("SUM(amount) OVER ()", &resolve).is_err());
        assert!(parse_measure("(SELECT 1)", &resolve).is_err());
    }

    #[test]
    fn single_aggregate_is_found() {
        let e = parse_measure("SUM(amount)", &resolve).unwrap();
        assert_eq!(e.single_aggregate().map(|(n, _)| n), Some("sum"));
        let star = parse_measure("COUNT(*)", &resolve).unwrap();
        assert!(star.single_aggregate().is_none());
    }
}
