//! Running totals: each time bucket's measure summed with the buckets before it,
//! `SUM(measure) OVER (PARTITION BY the other groupings ORDER BY the bucket)` in the grouped statement.

use wenshu_contract::metric::{MetricModel, ResolvedMeasure, ResolvedQuery};

use super::{Writer, bucket, measure};

/// The running total of `sel` over the query's buckets, inside each value of its dimensions.
pub(super) fn running_total(w: &mut Writer, model: &MetricModel, query: &ResolvedQuery, sel: &ResolvedMeasure) {
    w.push("SUM(");
    measure(w, model, sel, None);
    w.push(") OVER (");
    let mut first = true;
    for dim in &query.group_by {
        w.push(if std::mem::take(&mut first) {
            "PARTITION BY "
        } else {
            ", "
        });
        if let Some(key) = &model.dimensions[*dim].key {
            w.column(key);
            w.push(", ");
        }
        w.column(&model.dimensions[*dim].column);
    }
    if let Some(grain) = query.grain {
        if !first {
            w.push(" ");
        }
        w.push("ORDER BY ");
        bucket(w, model, grain);
    }
    w.push(")");
}
