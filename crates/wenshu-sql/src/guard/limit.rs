//! The outer LIMIT: added when there is none, capped when larger, refused when not a literal; a literal
//! `FETCH FIRST n ROWS ONLY` becomes that LIMIT; a bare VALUES list within the cap keeps none.

use sqlparser::ast::{Expr, LimitClause, Query, SetExpr, UnaryOperator, Value, ValueWithSpan};

use crate::dialect::Dialect;

/// Adds `LIMIT max` when there is none and caps a larger literal one (SQLite's negative LIMIT, "no limit", too);
/// returns the LIMIT, or why it is refused.
pub(super) fn apply_limit(query: &mut Query, max: u64, dialect: Dialect) -> Result<u64, String> {
    // A bare VALUES list is as long as it is written (SQLite takes no LIMIT after it): within the cap it runs as is.
    if let SetExpr::Values(values) = query.body.as_ref()
        && query.limit_clause.is_none()
        && query.fetch.is_none()
    {
        let rows = values.rows.len() as u64;
        return match rows <= max {
            true => Ok(rows),
            false => Err(format!("VALUES lists {rows} rows; at most {max} may be returned")),
        };
    }
    if let Some(fetch) = query.fetch.take() {
        let offset = match query.limit_clause.take() {
            None => None,
            Some(LimitClause::LimitOffset {
                limit: None,
                offset,
                limit_by,
            }) if limit_by.is_empty() => offset,
            Some(_) => return Err("FETCH FIRST with a LIMIT is not allowed; use LIMIT".into()),
        };
        if fetch.percent || fetch.with_ties {
            return Err("FETCH FIRST … PERCENT/WITH TIES is not allowed; use LIMIT".into());
        }
        let n = match &fetch.quantity {
            None => 1,
            Some(expr) => literal_u64(expr).ok_or_else(|| format!("FETCH FIRST `{expr}` is not a number"))?,
        };
        query.limit_clause = Some(LimitClause::LimitOffset {
            limit: Some(number(n)),
            offset,
            limit_by: vec![],
        });
    }
    let current = match &query.limit_clause {
        None | Some(LimitClause::LimitOffset { limit: None, .. }) => None,
        Some(LimitClause::LimitOffset { limit: Some(expr), .. })
        | Some(LimitClause::OffsetCommaLimit { limit: expr, .. }) => match literal_u64(expr) {
            Some(n) => Some(n),
            None if dialect.rules().negative_limit_is_none() && is_negative_literal(expr) => None,
            None => return Err(format!("LIMIT `{expr}` is not a number")),
        },
    };
    let limit = current.map_or(max, |n| n.min(max));
    match &mut query.limit_clause {
        Some(LimitClause::LimitOffset { limit: slot, .. }) => *slot = Some(number(limit)),
        Some(LimitClause::OffsetCommaLimit { limit: slot, .. }) => *slot = number(limit),
        None => {
            query.limit_clause = Some(LimitClause::LimitOffset {
                limit: Some(number(limit)),
                offset: None,
                limit_by: vec![],
            })
        }
    }
    Ok(limit)
}

fn is_negative_literal(expr: &Expr) -> bool {
    matches!(expr, Expr::UnaryOp { op: UnaryOperator::Minus, expr } if literal_u64(expr).is_some())
}

fn number(n: u64) -> Expr {
    Expr::value(Value::Number(n.to_string(), false))
}

fn literal_u64(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Value(ValueWithSpan {
            value: Value::Number(n, _),
            ..
        }) => n.parse().ok(),
        _ => None,
    }
}
