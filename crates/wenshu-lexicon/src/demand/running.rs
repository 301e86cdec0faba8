//! A running total: a total word that accumulates (累计, 累积, cumulative, running total) beside a grouping by a
//! time grain (每月的累计销售额) sums each bucket with those before it. Without a time grouping it is a plain
//! total (今年累计销售额). General language only.

use super::{Aggregate, Demand, DemandKind};

/// Total words that accumulate over time.
const RUNNING: &[&str] = &["累计", "累积", "cumulative", "running total"];

/// Turns an accumulating total beside a time grouping into [`DemandKind::Cumulative`].
pub(super) fn mark(demands: &mut [Demand]) {
    if !demands.iter().any(|d| d.grain().is_some()) {
        return;
    }
    for d in demands.iter_mut() {
        let accumulates = d.kind == (DemandKind::Aggregate { of: Aggregate::Total })
            && RUNNING.iter().any(|w| d.words.eq_ignore_ascii_case(w));
        if accumulates {
            d.kind = DemandKind::Cumulative;
        }
    }
}
