//! Running totals: each time bucket's measure summed with the buckets before it,
//! `SUM(measure) OVER (PARTITION BY the other groupings ORDER BY the bucket)` in the grouped statement.

use wenshu_contract::metric::{MetricModel, ResolvedMeasure, ResolvedQuery};

use super::{Writer, bucket, dimension_columns, measure};

/// The running total of `sel` over the query's buckets, inside each value of its dimensions.
pub(super) fn running_total(w: &mut Writer, model: &MetricModel, query: &ResolvedQuery, sel: &ResolvedMeasure) {
    w.push("SUM(");
    measure(w, model, sel, None);
    w.push(") OVER (");
    if !query.group_by.is_empty() {
        w.push("PARTITION BY ");
        dimension_columns(w, model, &query.group_by);
        w.push(" ");
    }
    if let Some(grain) = query.grain {
        w.push("ORDER BY ");
        bucket(w, model, grain);
    }
    w.push(")");
}
