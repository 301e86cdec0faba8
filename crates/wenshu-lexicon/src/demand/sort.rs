//! What an order of the rows is by: the grouping word next to the sort word (按地区排序, 按地区升序排列, sorted by
//! region). General language only; whether that word is a dimension or a measure is the catalog's to say.

use super::{Demand, DemandKind};

/// Words between a grouping and its sort word that say nothing (按地区来排序, 按地区进行排序).
const GLUE: &[&str] = &["的", "来", "进行", "做", "去", "再", "then", "and"];

/// Merges the sort words of one order (升序排列: one demand, its direction said) and gives each the target of the
/// grouping right before it (按X排序) or right after it (sorted by X).
pub(super) fn attach(demands: &mut Vec<Demand>, text: &str) {
    merge_adjacent(demands, text);
    let groups: Vec<(std::ops::Range<usize>, String)> = demands
        .iter()
        .filter(|d| d.kind == DemandKind::Group { grain: None })
        .filter_map(|d| Some((d.range.clone(), d.target.clone()?)))
        .collect();
    for d in demands.iter_mut().filter(|d| matches!(d.kind, DemandKind::Sort { .. })) {
        let before = groups
            .iter()
            .find(|(g, _)| g.end <= d.range.start && is_glue(text.get(g.end..d.range.start)));
        let after = groups
            .iter()
            .find(|(g, _)| g.start >= d.range.end && is_glue(text.get(d.range.end..g.start)));
        if let Some((range, target)) = before.or(after) {
            d.target = Some(target.clone());
            d.range = d.range.start.min(range.start)..d.range.end.max(range.end);
        }
    }
    merge_around(demands);
}

/// `sorted by origin descending`: the sort words on both sides of one grouping are one order; the direction one
/// of them says is given to both.
fn merge_around(demands: &mut [Demand]) {
    for i in 0..demands.len() {
        for j in i + 1..demands.len() {
            let (DemandKind::Sort { order: a }, DemandKind::Sort { order: b }) = (demands[i].kind, demands[j].kind)
            else {
                continue;
            };
            let one_order = demands[i].target.is_some()
                && demands[i].target == demands[j].target
                && demands[j].range.start < demands[i].range.end;
            if one_order {
                let order = a.or(b);
                demands[i].kind = DemandKind::Sort { order };
                demands[j].kind = DemandKind::Sort { order };
            }
        }
    }
}

/// 升序排列, 降序排序: one order, the direction from whichever word says it.
fn merge_adjacent(demands: &mut Vec<Demand>, text: &str) {
    let mut i = 0;
    while i + 1 < demands.len() {
        let (a, b) = (&demands[i], &demands[i + 1]);
        let (DemandKind::Sort { order: oa }, DemandKind::Sort { order: ob }) = (a.kind, b.kind) else {
            i += 1;
            continue;
        };
        if a.range.end > b.range.start || !is_glue(text.get(a.range.end..b.range.start)) {
            i += 1;
            continue;
        }
        let b = demands.remove(i + 1);
        let a = &mut demands[i];
        a.kind = DemandKind::Sort { order: oa.or(ob) };
        a.words = format!("{}{}", a.words, b.words);
        a.range = a.range.start..b.range.end;
        a.measure = a.measure.take().or(b.measure);
    }
}

/// Whether the text between two demands is only spaces and glue words.
fn is_glue(between: Option<&str>) -> bool {
    let Some(mut rest) = between.map(str::trim) else {
        return false;
    };
    while !rest.is_empty() {
        let Some(word) = GLUE.iter().find(|w| rest.to_ascii_lowercase().starts_with(**w)) else {
            return false;
        };
        rest = rest[word.len()..].trim_start();
    }
    true
}
