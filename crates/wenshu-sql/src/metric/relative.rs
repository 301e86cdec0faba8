//! Rows compared with a mean: `AVG(measure) OVER (PARTITION BY the parent)` beside the grouped measure, then the
//! grouped statement wrapped to keep the rows whose measure passes the comparison with it; with a median, each
//! row's place and the number of rows, and a wrap more that takes the middle row or two.

use wenshu_contract::metric::{MetricModel, ResolvedQuery};

use super::{OutputColumn, Writer, dimension_columns, measure, wrap_where};

/// The alias of the mean beside each row.
const MEAN: &str = "mean";

/// The alias of the grouped statement once wrapped.
const COMPARED: &str = "compared";

/// For a median: the aliases of a row's place by the measure, of the number of rows, and of the statement with them.
const PLACE: &str = "place";
const ROWS: &str = "n_rows";
const RANKED: &str = "ranked";

/// `AVG(measure) OVER (PARTITION BY parent) AS "mean"`: the mean of the compared measure over every row of the
/// statement (or over the rows sharing the parent dimension's value).
pub(super) fn mean(w: &mut Writer, model: &MetricModel, query: &ResolvedQuery) {
    let Some((position, _, parent)) = query.relative else {
        return;
    };
    if query.relative_median {
        median_ranks(w, model, query, position, parent);
        return;
    }
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

/// For a median: each row's place by the measure and the number of rows (inside the parent's value), from which
/// the wrap takes the middle one or two.
fn median_ranks(w: &mut Writer, model: &MetricModel, query: &ResolvedQuery, position: usize, parent: Option<usize>) {
    let partition = |w: &mut Writer| {
        if let Some(dim) = parent {
            w.push("PARTITION BY ");
            dimension_columns(w, model, &[dim]);
            w.push(" ");
        }
    };
    w.push("ROW_NUMBER() OVER (");
    partition(w);
    w.push("ORDER BY ");
    measure(w, model, &query.measures[position], None);
    w.push(") AS ");
    w.ident(PLACE);
    w.push(", COUNT(*) OVER (");
    partition(w);
    w.push(") AS ");
    w.ident(ROWS);
}

/// For a median: the grouped statement wrapped once more with the mean of its middle row or two —
/// `2 * place IN (rows, rows + 1, rows + 2)`, the same arithmetic on every dialect — as the mean compared with.
fn with_median(w: &mut Writer, query: &ResolvedQuery, position: usize) {
    let inner = std::mem::take(&mut w.sql);
    w.push("SELECT ");
    w.ident(RANKED);
    w.push(".*, AVG(CASE WHEN 2 * ");
    w.ident(PLACE);
    w.push(" IN (");
    w.ident(ROWS);
    w.push(", ");
    w.ident(ROWS);
    w.push(" + 1, ");
    w.ident(ROWS);
    w.push(" + 2) THEN ");
    w.ident(&format!("m{position}"));
    w.push(" END) OVER (");
    if let Some((_, _, Some(parent))) = query.relative
        && let Some(at) = query.group_by.iter().position(|d| *d == parent)
    {
        w.push("PARTITION BY ");
        w.ident(&format!("d{at}"));
    }
    w.push(") AS ");
    w.ident(MEAN);
    w.push(" FROM (");
    w.push(&inner);
    w.push(") AS ");
    w.ident(RANKED);
}

/// Wraps the grouped statement written so far: `SELECT its columns FROM (it) AS compared WHERE m op mean`.
pub(super) fn wrap(w: &mut Writer, query: &ResolvedQuery, columns: &[OutputColumn]) {
    let Some((position, op, _)) = query.relative else {
        return;
    };
    if query.relative_median {
        with_median(w, query, position);
    }
    wrap_where(w, query, columns, COMPARED);
    w.ident(&format!("m{position}"));
    w.push(" ");
    w.push(op.sql());
    w.push(" ");
    w.ident(MEAN);
}
