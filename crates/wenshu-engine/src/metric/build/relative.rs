//! Comparisons with a mean (高于平均水平的销售, 哪些产品的销量低于平均, 超过所在地区平均的产品, above average):
//! the rows grouped as asked, kept where their measure passes the mean of that measure over all the rows, or over
//! the rows sharing a dimension's value.

use wenshu_contract::metric::{MeasureSel, MetricQuery, Relative};
use wenshu_lexicon::demand::{self, DemandKind};

use super::threshold::ops;
use super::{Builder, Mention};

impl Builder<'_> {
    /// A comparison with the mean: of a sum or a count, over rows grouped by something besides the dimension the
    /// mean is split by.
    pub(super) fn relative(&mut self, query: &mut MetricQuery) {
        let Some(d) = self
            .demands
            .iter()
            .find(|d| matches!(d.kind, DemandKind::Relative { .. }))
            .cloned()
        else {
            return;
        };
        let DemandKind::Relative { op, median } = d.kind else {
            return;
        };
        let measure = self
            .threshold_measure(&d)
            .map(|(m, _)| m)
            .or_else(|| d.measure.as_deref().and_then(|w| self.measure_of(w)))
            .or_else(|| query.measures.first().and_then(|m| self.model.measure_index(&m.name)));
        let Some(measure) = measure else {
            self.reasons.push(format!("「{}」不知道比较哪个指标", d.words));
            return;
        };
        let spec = &self.model.measures[measure];
        let label = spec.label.clone();
        if !spec.expr.adds_up() {
            self.reasons.push(format!(
                "「{}」：{label}不是合计或计数，各行的平均不是它的平均水平",
                d.words
            ));
            return;
        }
        let within = match d.target.as_deref() {
            None => None,
            Some(words) => match self.grouping_dimension(words) {
                Some(dim) => Some(self.group_by(query, dim)),
                None => {
                    self.reasons.push(format!("不能按「{words}」分组求平均"));
                    return;
                }
            },
        };
        // 超过所在地区平均的销售: the rows compared are those of the dimension named right after it.
        let rows_after = self
            .dimension_after(d.range.end)
            .map(|(dim, _)| dim)
            .or_else(|| self.dimension_with());
        if let Some(dim) = rows_after {
            self.group_by(query, dim);
        }
        // 各地区销售额高于平均的产品: the products of each region, against their region's mean.
        let within = within.or_else(|| {
            let rows = rows_after?;
            self.demands
                .iter()
                .filter(|g| demand::distributes(g))
                .filter_map(|g| g.target.as_deref().and_then(|t| self.grouping_dimension(t)))
                .find(|dim| *dim != rows)
                .map(|dim| self.model.dimensions[dim].label.clone())
        });
        let rows = query.group_by.iter().filter(|g| Some(*g) != within.as_ref()).count();
        if rows == 0 && query.grain.is_none() {
            self.reasons
                .push(format!("「{}」：要说出和谁比（哪些产品、哪些销售…）", d.words));
            return;
        }
        if !query.measures.iter().any(|m| m.name == label) {
            query.measures.push(MeasureSel::named(label.clone()));
        }
        query.relative = Some(Relative {
            measure: label,
            op: ops(op),
            within,
            median,
        });
    }

    /// The dimension an English question lists before what qualifies it (branches with loans above average,
    /// products whose sales…): general English.
    pub(super) fn dimension_with(&self) -> Option<usize> {
        const QUALIFY: &[&str] = &["with", "whose", "that", "having", "where"];
        let q = &self.facts.question;
        self.mentions.iter().find_map(|(r, m)| match m {
            Mention::Dimension(dim) => {
                let next = q.get(r.end..)?.trim_start();
                let word = next.split(|c: char| !c.is_ascii_alphabetic()).next()?;
                QUALIFY.contains(&word.to_ascii_lowercase().as_str()).then_some(*dim)
            }
            _ => None,
        })
    }
}
