//! Rows compared with a mean: `AVG(measure) OVER (PARTITION BY the parent)` beside the grouped measure, then the
//! grouped statement wrapped to keep the rows whose measure passes the comparison with it.

use wenshu_contract::metric::{MetricModel, ResolvedQuery};

use super::{OutputColumn, Writer, dimension_columns, measure, wrap_where};

/// The alias of the mean beside each row.
const MEAN: &str = "mean";

/// The alias of the grouped statement once wrapped.
const COMPARED: &str = "compared";

/// `AVG(measure) OVER (PARTITION BY parent) AS "mean"`: the mean of the compared measure over every row of the
/// statement (or over the rows sharing the parent dimension's value).
pub(super) fn mean(w: &mut Writer, model: &MetricModel, query: &ResolvedQuery) {
    let Some((position, _, parent)) = query.relative else {
        return;
    };
    w.push("AVG(");
    measure(w, model, &query.measures[position], None);
    w.push(") OVER (");
    if let Some(dim) = parent {
        w.push("PARTITION BY ");
        dimension_columns(w, model, &[dim]);
    }
    w.push(") AS ");
    w.ident(MEAN);
}

/// Wraps the grouped statement written so far: `SELECT its columns FROM (it) AS compared WHERE m op mean`.
pub(super) fn wrap(w: &mut Writer, query: &ResolvedQuery, columns: &[OutputColumn]) {
    let Some((position, op, _)) = query.relative else {
        return;
    };
    wrap_where(w, query, columns, COMPARED);
    w.ident(&format!("m{position}"));
    w.push(" ");
    w.push(op.sql());
    w.push(" ");
    w.ident(MEAN);
}
