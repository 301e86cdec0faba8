//! The first rows of each group: `ROW_NUMBER() OVER (PARTITION BY the group ORDER BY the measure)` in the grouped
//! statement, which is then wrapped to keep the rows numbered up to N, ordered group by group.

use wenshu_contract::metric::{MetricModel, ResolvedQuery};

use super::{OutputColumn, Writer, alias, bucket, dimension_columns, direction, measure, wrap_where};

/// The alias of the row number inside each group.
const RANK: &str = "rn";

/// The alias of the grouped statement once wrapped.
const RANKED: &str = "ranked";

/// `ROW_NUMBER() OVER (…) AS "rn"`: numbered inside each value of the dimension `groups` (each time bucket when
/// none) by the ordered measure, ties broken by the other groupings so every dialect numbers the same rows.
pub(super) fn row_number(
    w: &mut Writer,
    model: &MetricModel,
    query: &ResolvedQuery,
    groups: Option<usize>,
    per_buckets: &[Option<u32>],
) {
    w.push("ROW_NUMBER() OVER (PARTITION BY ");
    match groups {
        Some(dim) => dimension_columns(w, model, &[dim]),
        None => {
            if let Some(grain) = query.grain {
                bucket(w, model, grain);
            }
        }
    }
    w.push(" ORDER BY ");
    if let Some((position, dir)) = query.order {
        w.push("(");
        measure(
            w,
            model,
            &query.measures[position],
            per_buckets.get(position).copied().flatten(),
        );
        w.push(") ");
        w.push(direction(dir));
    }
    for dim in query.group_by.iter().filter(|d| Some(**d) != groups) {
        w.push(", ");
        w.column(&model.dimensions[*dim].column);
        w.push(" ASC");
    }
    if let (Some(grain), Some(_)) = (query.grain, groups) {
        w.push(", ");
        bucket(w, model, grain);
        w.push(" ASC");
    }
    w.push(") AS ");
    w.ident(RANK);
}

/// Wraps the grouped statement written so far: `SELECT its columns FROM (it) AS ranked WHERE rn <= keep`, ordered
/// by the group, then the measure, then the rest.
pub(super) fn wrap(w: &mut Writer, query: &ResolvedQuery, columns: &[OutputColumn], groups: Option<usize>, keep: u32) {
    wrap_where(w, query, columns, RANKED);
    w.ident(RANK);
    w.push(&format!(" <= {keep}"));
    w.push(" ORDER BY ");
    let group_alias = match groups {
        Some(dim) => alias(query, OutputColumn::Dimension(dim)),
        None => "t".to_string(),
    };
    w.ident(&group_alias);
    w.push(" ASC, ");
    w.ident(RANK);
    w.push(" ASC");
}
