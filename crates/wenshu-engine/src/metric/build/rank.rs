//! Rankings: top-N and bottom-N of the rows (前五, 最高的), and the first rows within each group (每个地区最高的).

use wenshu_contract::metric::{
    ChangeBy, ChangeRank, DimensionValues, MeasureSel, MetricQuery, Order, OrderDir, Within,
};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{self, DemandKind};

use super::{Builder, Mention};

impl Builder<'_> {
    /// A ranking: order by its measure, the top N (one for a superlative), over its dimension.
    pub(super) fn rank(&mut self, query: &mut MetricQuery) {
        let Some(d) = self.demands.iter().find(|d| d.is_rank()).cloned() else {
            return;
        };
        let DemandKind::Rank { order, top } = d.kind else {
            return;
        };
        if let Some(compare) = query.compare.as_mut() {
            // 哪个产品环比增长最快, 同比下降最多的地区: the compared rows ranked by the change.
            let Some(change) = self.demands.iter().find(|c| c.kind == DemandKind::Change) else {
                self.reasons
                    .push(format!("「{}」：对比时要说按增长还是下降排", d.words));
                return;
            };
            // Several measures (sales by the tool's own word: every measure): whose change ranks is not said.
            if query.measures.len() > 1 {
                let labels: Vec<&str> = query.measures.iter().map(|m| m.name.as_str()).collect();
                self.reasons.push(format!(
                    "「{}」：按哪个指标的变化排？（{}）",
                    d.words,
                    labels.join("、")
                ));
                return;
            }
            let highest = order == demand::Order::Highest;
            compare.rank = Some(ChangeRank {
                by: if change.says_rate() || d.says_rate() {
                    ChangeBy::Rate
                } else {
                    ChangeBy::Change
                },
                direction: if highest != change.declines() {
                    OrderDir::Desc
                } else {
                    OrderDir::Asc
                },
                limit: Some(top.unwrap_or(1)),
            });
            if let Some(target) = d.target.as_deref() {
                match self.grouping_dimension(target) {
                    Some(dim) => {
                        self.group_by(query, dim);
                    }
                    None => self.reasons.push(format!("不能按「{target}」排")),
                }
            }
            return;
        }
        let measure = d.measure.as_deref().and_then(|w| self.measure_of(w));
        let measure = match measure.or_else(|| query.measures.first().and_then(|m| self.model.measure_index(&m.name))) {
            Some(m) => m,
            None => {
                self.reasons.push(format!("「{}」不知道按什么指标排", d.words));
                return;
            }
        };
        let label = self.measure_label(measure);
        if !query.measures.iter().any(|m| m.name == label) {
            query.measures.push(MeasureSel::named(label.clone()));
        }
        if let Some(target) = self.demand_target(&d) {
            let target = target.as_str();
            match self.dimension_of(target) {
                Some(dim) => {
                    // 按地区看销售额最高的产品: a grouping that does not distribute beside a ranking of other
                    // things says no top within each group; one ordered list does not give it either.
                    let within = self.demands.iter().find_map(|g| match (g.kind, g.target.as_deref()) {
                        (DemandKind::Group { grain: None }, Some(t)) if d.within.is_none() => {
                            self.dimension_of(t).filter(|&other| other != dim)
                        }
                        _ => None,
                    });
                    if let Some(other) = within {
                        self.reasons.push(format!(
                            "不能在每个{}里分别排出{}",
                            self.model.dimensions[other].label, self.model.dimensions[dim].label
                        ));
                        return;
                    }
                    self.group_by(query, dim);
                }
                None => {
                    let target = canonical(target);
                    let names_value = self.mentions.iter().any(|(r, m)| {
                        matches!(m, Mention::Value(_))
                            && self
                                .facts
                                .question
                                .get(r.clone())
                                .is_some_and(|t| target.contains(&canonical(t)))
                    });
                    let entity = self
                        .model
                        .dimensions
                        .iter()
                        .position(|dim| matches!(dim.values, DimensionValues::Entity { .. }));
                    match (names_value, entity) {
                        (true, Some(dim)) if query.group_by.is_empty() => {
                            query.group_by.push(self.model.dimensions[dim].label.clone())
                        }
                        _ if !query.group_by.is_empty() || query.grain.is_some() => {}
                        _ => self
                            .reasons
                            .push(format!("不能按「{}」排名", d.target.as_deref().unwrap_or_default())),
                    }
                }
            }
        }
        if query.group_by.is_empty() && query.grain.is_none() {
            self.reasons.push(format!("「{}」没有说按什么排", d.words));
            return;
        }
        let superlative = d.words.contains('最')
            || ["most", "highest", "lowest", "best", "worst"]
                .iter()
                .any(|w| d.words.to_lowercase().contains(w));
        query.order = Some(Order {
            measure: label,
            direction: match order {
                demand::Order::Highest => OrderDir::Desc,
                demand::Order::Lowest => OrderDir::Asc,
            },
        });
        let keep = top.or(superlative.then_some(1));
        match d.within.as_deref() {
            Some(groups) => self.within(query, groups, keep.unwrap_or(1), &d.words),
            None => query.limit = keep,
        }
    }

    /// The first rows of each group (每个地区销售额最高的产品, 每个月哪个地区最高): the groups are a dimension
    /// grouped by, or the time buckets of the grain; anything else is unmet.
    pub(super) fn within(&mut self, query: &mut MetricQuery, groups: &str, keep: u32, words: &str) {
        let bucketed = self
            .demands
            .iter()
            .any(|g| g.grain().is_some() && g.target.as_deref() == Some(groups));
        let dimension = match self.dimension_of(groups) {
            Some(dim) if !bucketed => Some(self.model.dimensions[dim].label.clone()),
            None if bucketed && query.grain.is_some() => None,
            _ => {
                self.reasons
                    .push(format!("不能在每个「{groups}」里分别排出「{words}」"));
                return;
            }
        };
        query.within = Some(Within { dimension, limit: keep });
    }
}
