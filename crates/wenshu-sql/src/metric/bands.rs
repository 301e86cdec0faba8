//! Bands of each record's value (按金额区间): the number of the band a record's value falls in — 0 below the first
//! bound, 1 from it to the second, … — grouped by and ordered on; the bounds are checked finite numbers, written as
//! numerals so the expression is the same text in SELECT and GROUP BY on every dialect.

use wenshu_contract::metric::{MetricModel, ResolvedQuery};

use super::{Writer, expr};

/// `CASE WHEN value < b0 THEN 0 WHEN value < b1 THEN 1 … ELSE n END` for the query's bands, if any.
pub(super) fn band(w: &mut Writer, model: &MetricModel, query: &ResolvedQuery) {
    let Some((measure, bounds)) = &query.bands else {
        return;
    };
    let Some((_, value)) = model.measures[*measure].expr.single_aggregate() else {
        return;
    };
    w.push("CASE");
    for (i, bound) in bounds.iter().enumerate() {
        w.push(" WHEN ");
        expr(w, value, None);
        w.push(&format!(" < {} THEN {i}", numeral(*bound)));
    }
    w.push(&format!(" ELSE {} END", bounds.len()));
}

/// A finite number as an SQL numeral (never in exponent form); also how a band's bounds are named.
pub fn numeral(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::numeral;

    #[test]
    fn numerals_are_plain() {
        assert_eq!(numeral(50000.0), "50000");
        assert_eq!(numeral(-2.5), "-2.5");
        assert_eq!(numeral(1e20), "100000000000000000000");
    }
}
