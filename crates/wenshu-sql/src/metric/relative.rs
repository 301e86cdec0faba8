//! Rows compared with a mean: `AVG(measure) OVER (PARTITION BY the parent)` beside the grouped measure, then the
//! grouped statement wrapped to keep the rows whose measure passes the comparison with it.

use wenshu_contract::metric::{MetricModel, ResolvedQuery};

use super::{OutputColumn, Writer, alias, measure};

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
        if let Some(key) = &model.dimensions[dim].key {
            w.column(key);
            w.push(", ");
        }
        w.column(&model.dimensions[dim].column);
    }
    w.push(") AS ");
    w.ident(MEAN);
}

/// Wraps the grouped statement written so far: `SELECT its columns FROM (it) AS compared WHERE m op mean`.
pub(super) fn wrap(w: &mut Writer, query: &ResolvedQuery, columns: &[OutputColumn]) {
    let Some((position, op, _)) = query.relative else {
        return;
    };
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
    w.ident(COMPARED);
    w.push(" WHERE ");
    w.ident(&format!("m{position}"));
    w.push(" ");
    w.push(op.sql());
    w.push(" ");
    w.ident(MEAN);
}
