//! Orders asked in words (按地区排序, sorted by region, 按销售额降序): by a dimension, the rows sorted by its values;
//! by a measure or by nothing named, a ranking (read by `rank`); running totals (每月的累计销售额).

use wenshu_contract::metric::{MetricQuery, OrderDir, SortBy};
use wenshu_lexicon::demand::{DemandKind, Order};

use super::{Builder, Mention};

impl Builder<'_> {
    /// An order by a dimension sorts the rows by its values (grouped by it); any other order is a ranking by the
    /// measure, highest first unless said.
    pub(super) fn sort(&mut self, query: &mut MetricQuery) {
        let Some(at) = self
            .demands
            .iter()
            .position(|d| matches!(d.kind, DemandKind::Sort { .. }))
        else {
            return;
        };
        let d = self.demands[at].clone();
        let DemandKind::Sort { order } = d.kind else {
            return;
        };
        let dimension = match d.target.as_deref() {
            Some(t) => self.grouping_dimension(t),
            // 按目的城市排序: a dimension whose words the grouping cue cut short (目 | 的城市) ends right before.
            None => self.dimension_right_before(d.range.start),
        };
        let Some(dim) = dimension else {
            // 按销售额排序, 销售额降序: a ranking by the measure, unless the question ranks already.
            if !self.demands.iter().any(|o| o.is_rank()) {
                let ranked = &mut self.demands[at];
                ranked.kind = DemandKind::Rank {
                    order: order.unwrap_or(Order::Highest),
                    top: None,
                };
                let by = ranked.target.take();
                ranked.measure = ranked.measure.take().or(by);
            }
            return;
        };
        let label = self.group_by(query, dim);
        query.sort = Some(SortBy {
            dimension: label,
            direction: match order {
                Some(Order::Highest) => OrderDir::Desc,
                _ => OrderDir::Asc,
            },
        });
    }

    /// The dimension named right before `at`, only glue between (按目的城市排序, 按目的城市来排序).
    fn dimension_right_before(&self, at: usize) -> Option<usize> {
        let q = &self.facts.question;
        self.mentions.iter().find_map(|(r, m)| match m {
            Mention::Dimension(dim)
                if r.end <= at
                    && q.get(r.end..at)
                        .is_some_and(|g| matches!(g.trim(), "" | "的" | "来" | "进行" | "来进行")) =>
            {
                Some(*dim)
            }
            _ => None,
        })
    }

    /// Running totals over the time buckets: only of a sum or a count, and only with a grouping by time.
    pub(super) fn running_total(&mut self, query: &mut MetricQuery) {
        let Some(d) = self.demands.iter().find(|d| d.kind == DemandKind::Cumulative).cloned() else {
            return;
        };
        if query.grain.is_none() {
            self.reasons
                .push(format!("「{}」：累计要按时间分组（每天、每月…）", d.words));
            return;
        }
        if let Some(m) = query.measures.iter().find(|m| !self.adds_up(m)) {
            self.reasons
                .push(format!("「{}」：{}不能累加（只有合计或计数能累计）", d.words, m.name));
            return;
        }
        query.cumulative = true;
    }
}
