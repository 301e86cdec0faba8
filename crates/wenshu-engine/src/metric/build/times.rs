//! The times a question names: the range, the grain of its buckets (每月, 按周), and the period compared.

use wenshu_contract::metric::{Compare, CompareKind, Grain, MetricQuery, TimeRange};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{Baseline, DemandKind};

use super::{Builder, overlaps};

impl Builder<'_> {
    /// The time range (the first time expression) and a comparison's other period.
    pub(super) fn times(&mut self, query: &mut MetricQuery) {
        // 去年同期 alone: the period glued before 同期 is the comparison's baseline, not the period asked.
        let times: Vec<_> = self
            .facts
            .times
            .iter()
            .filter(|t| {
                !self.demands.iter().any(|d| {
                    matches!(d.kind, DemandKind::Period { .. })
                        && d.words == "同期"
                        && (overlaps(&d.range, &t.range) || d.range.start == t.range.end)
                })
            })
            .collect();
        let period = self.demands.iter().find_map(|d| match d.kind {
            DemandKind::Period { baseline } => Some((baseline, d.target.clone())),
            _ => None,
        });
        let sided = self
            .demands
            .iter()
            .any(|d| matches!(d.kind, DemandKind::Joined | DemandKind::Compare | DemandKind::Change));
        if times.is_empty() {
            if period.is_some() {
                self.reasons.push("对比需要一个时间段".into());
            }
            return;
        }
        if self.model.time.is_none() {
            let names: Vec<&str> = self.model.measures.iter().map(|m| m.label.as_str()).collect();
            self.reasons
                .push(format!("{}没有时间维度，不能按时间查", names.join("、")));
            return;
        }
        let range = |i: usize| TimeRange {
            start: times[i].date_range.start.to_string(),
            end: times[i].date_range.end.to_string(),
        };
        query.time_range = Some(range(0));
        query.compare = match period {
            Some((Baseline::Previous, _)) => Some(Compare {
                kind: CompareKind::PreviousPeriod,
                range: None,
                rank: None,
            }),
            Some((Baseline::YearAgo, _)) => Some(Compare {
                kind: CompareKind::YearOverYear,
                range: None,
                rank: None,
            }),
            Some((Baseline::Named, target)) => {
                let named = target.as_deref().map(canonical).and_then(|t| {
                    times.iter().skip(1).position(|s| {
                        canonical(self.facts.question.get(s.range.clone()).unwrap_or_default()).contains(&t)
                    })
                });
                match named.map(|i| i + 1).or((times.len() > 1).then_some(1)) {
                    Some(i) => Some(Compare {
                        kind: CompareKind::PreviousPeriod,
                        range: Some(range(i)),
                        rank: None,
                    }),
                    None => {
                        self.reasons.push("没有找到要对比的时间段".into());
                        None
                    }
                }
            }
            None if sided && times.len() > 1 => Some(Compare {
                kind: CompareKind::PreviousPeriod,
                range: Some(range(1)),
                rank: None,
            }),
            None => None,
        };
    }
}

/// The grain a character names before 均 or a measure (日均, 月销售额): 日/天, 周, 月, 季, 年.
pub(super) fn grain_of_char(c: char) -> Option<Grain> {
    match c {
        '日' | '天' => Some(Grain::Day),
        '周' => Some(Grain::Week),
        '月' => Some(Grain::Month),
        '季' => Some(Grain::Quarter),
        '年' => Some(Grain::Year),
        _ => None,
    }
}
