//! A ranking inside each group: a grouping that distributes (各X, 每个X, each X, per X) beside a ranking of other
//! things (最高的产品, 前三的Y, top 3 Ys, 哪个Y) splits the ranking by X. General language only.

use super::{Demand, DemandKind};
use crate::canonical::canonical;

/// Grouping cues that distribute over the group's values (every one of them), unlike 按X or 哪个X.
const DISTRIBUTIVE: &[&str] = &[
    "各个",
    "各",
    "每一个",
    "每个",
    "每一",
    "每位",
    "每家",
    "每款",
    "每部",
    "每条",
    "每种",
    "每",
    "each",
    "every",
    "per",
];

/// Whether `d` is a grouping that distributes over its values (各X, 每个X, each X, per X), unlike 按X or 哪个X.
pub fn distributes(d: &Demand) -> bool {
    matches!(d.kind, DemandKind::Group { grain: None })
        && DISTRIBUTIVE
            .iter()
            .any(|c| d.words.eq_ignore_ascii_case(c) || d.words.starts_with(c))
}

/// Grouping cues that ask which value (哪个Y, which Y): their target is what a ranking beside them ranks.
const WHICH: &[&str] = &["哪", "which"];

/// Marks the ranking of `demands` with the target of a distributive grouping when the ranking ranks something
/// else: its own target, or the target of a "which" grouping.
pub(super) fn mark(demands: &mut [Demand]) {
    let Some(rank) = demands.iter().position(Demand::is_rank) else {
        return;
    };
    let group_target = |d: &Demand, cues: &[&str]| match d.kind {
        DemandKind::Group { .. }
            if cues
                .iter()
                .any(|c| d.words.eq_ignore_ascii_case(c) || d.words.starts_with(c)) =>
        {
            d.target.clone()
        }
        _ => None,
    };
    let ranked: Vec<String> = demands[rank]
        .target
        .iter()
        .cloned()
        .chain(demands.iter().filter_map(|d| group_target(d, WHICH)))
        .collect();
    if ranked.is_empty() {
        return;
    }
    let within = demands
        .iter()
        .filter_map(|d| group_target(d, DISTRIBUTIVE))
        .find(|g| ranked.iter().all(|r| !same_word(g, r)));
    demands[rank].within = within;
}

/// Whether two target words name the same thing: one starts the other (产品 ↔ 产品线, region ↔ regions).
fn same_word(a: &str, b: &str) -> bool {
    let (a, b) = (canonical(a).to_lowercase(), canonical(b).to_lowercase());
    !a.is_empty() && !b.is_empty() && (a.starts_with(&b) || b.starts_with(&a))
}
