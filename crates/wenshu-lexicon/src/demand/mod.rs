//! Demands: what a question asks for beyond its filter values — a grouping (各产品), a ranking (前三名, 最高),
//! a comparison (A和B, 环比), an aggregate (平均, 占比, 多少单), a threshold (超过10万) or rows (明细).
//!
//! Pure language knowledge: each demand carries its span, its words and its target text (the X of 各X, the N of
//! 前N); which parameter or tool meets it is for the caller to decide from its catalog.

mod cues;
mod running;
mod scan;
mod sort;
mod within;

pub use within::distributes;

use std::ops::Range;

use jiff::civil::Date;
use serde::Serialize;

use crate::Span;
pub use crate::grain::Grain;

/// Which end of a ranking the question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// 最高, 最多, 前N: from the top.
    Highest,
    /// 最低, 最少, 倒数N: from the bottom.
    Lowest,
}

/// What a period comparison compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Baseline {
    /// 环比: the period before.
    Previous,
    /// 同比, 去年同期: the same period a year before.
    YearAgo,
    /// 比上月, 和去年比: the period named in the demand's target.
    Named,
}

/// An aggregate over the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    /// 平均, 人均.
    Average,
    /// 占比, 份额.
    Share,
    /// 最大 (without "which").
    Max,
    /// 最小 (without "which").
    Min,
    /// 合计, 一共.
    Total,
    /// 多少单, 几个, 数量: a count.
    Count,
}

/// How a threshold compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdOp {
    /// 超过, 大于: greater than.
    Above,
    /// 不少于, 至少, 以上: at least.
    AtLeast,
    /// 低于, 不到: less than.
    Below,
    /// 不超过, 以内: at most.
    AtMost,
}

/// What kind of demand, with what is specific to it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DemandKind {
    /// Grouped by a dimension (`grain` none; the dimension's words are the target, or none for 分别) or by a
    /// time grain.
    Group {
        /// The time grain, when the grouping is by time.
        grain: Option<Grain>,
    },
    /// Ranked: a superlative (`top` none) or the first N.
    Rank {
        /// Which end.
        order: Order,
        /// How many places, when named (前三 → 3).
        top: Option<u32>,
    },
    /// One place of a ranking (第二高, 排第三, 排第几): not the top of a ranking nor a total.
    Ordinal,
    /// Two or more things compared (对比, 多还是少, vs).
    Compare,
    /// Things named together (A和B, A、B): each is asked for.
    Joined,
    /// A period against another (环比, 同比, 比上月); for `Named` the target is the other period.
    Period {
        /// Against what.
        baseline: Baseline,
    },
    /// A change between periods (增长, 下降, 涨了多少).
    Change,
    /// An aggregate (the target is what is counted, for a count).
    Aggregate {
        /// Which aggregate.
        of: Aggregate,
    },
    /// A threshold on a measure (超过10万); the measure, when read, is the demand's `measure`.
    Threshold {
        /// How it compares.
        op: ThresholdOp,
        /// The number.
        value: f64,
    },
    /// Rows rather than totals (明细, 列出来).
    List,
    /// The rows in an order (按地区排序, sorted by region, 按销售额降序): the target, when read, is what they are
    /// ordered by (a dimension or a measure: the catalog decides); `order` the direction when said (升序 lowest
    /// first, 降序 highest first).
    Sort {
        /// The direction, when said.
        order: Option<Order>,
    },
    /// A comparison with the mean of the same measure (高于平均水平, below average): over all the rows, or, when the
    /// target is read (高于所在地区的平均), over the rows sharing the target's value.
    Relative {
        /// How it compares.
        op: ThresholdOp,
        /// With the median (高于中位数, above the median) rather than the mean.
        median: bool,
    },
    /// A running total over a time grouping (每月的累计销售额, cumulative monthly revenue): each bucket's value
    /// summed with every bucket before it.
    Cumulative,
    /// Two measures combined at query time (销售额除以销量, 销售额与订单数之比, 收入减去成本, ratio of A to B).
    Combine,
}

/// One thing a question asks for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Demand {
    /// What it asks for.
    #[serde(flatten)]
    pub kind: DemandKind,
    /// Byte range of its words in the original text (the cue and, where read, its target).
    pub range: Range<usize>,
    /// The cue words as written (各, 前三, 环比).
    pub words: String,
    /// The X of the demand as written: the dimension of a grouping or ranking (产品 of 各产品, 销售 of 最好的销售),
    /// the counted thing of a count (单 of 多少单), the other period of a named baseline (上月 of 比上月).
    pub target: Option<String>,
    /// The measure a ranking or threshold is by, read before it (销量 of 销量最高, 金额 of 金额超过10万); for rows,
    /// the word before the cue (电影 of 电影有哪些), which may name the things listed rather than records.
    pub measure: Option<String>,
    /// For a ranking inside each group (每个地区销售额最高的产品, top 3 products in each region): the target of the
    /// grouping that splits it (地区, 月), read from a grouping that distributes (各, 每个, each, per).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
}

impl Demand {
    /// Whether this demand is a ranking.
    pub fn is_rank(&self) -> bool {
        matches!(self.kind, DemandKind::Rank { .. })
    }

    /// Whether a change's words say a fall (下降, 减少, 跌幅, drop): the most of it is the smallest change.
    pub fn declines(&self) -> bool {
        const FALLS: &[&str] = &[
            "下降", "下滑", "减少", "跌", "降", "drop", "fall", "fell", "decline", "decrease", "shrank", "down",
        ];
        let words = self.words.to_ascii_lowercase();
        self.kind == DemandKind::Change && FALLS.iter().any(|w| words.contains(w))
    }

    /// Whether a change's or a ranking's words speak of a rate rather than an amount (增长率, 涨幅, 最快, fastest).
    pub fn says_rate(&self) -> bool {
        const RATES: &[&str] = &["率", "幅", "快", "慢", "百分", "rate", "percent", "fastest", "slowest"];
        let words = self.words.to_ascii_lowercase();
        RATES.iter().any(|w| words.contains(w))
    }

    /// The grain of a grouping by time, if it is one.
    pub fn grain(&self) -> Option<Grain> {
        match self.kind {
            DemandKind::Group { grain } => grain,
            _ => None,
        }
    }

    /// The byte ranges in `text` of the words this demand read: its cue, target and measure inside its range,
    /// and a threshold's measure read just before it (单笔金额超过10万).
    pub fn word_ranges(&self, text: &str) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let within = text.get(self.range.clone()).unwrap_or_default();
        // 最高…前三个: the words of a merged cue, each piece where it stands.
        for word in std::iter::once(&self.words)
            .chain(self.target.iter())
            .chain(self.measure.iter())
            .flat_map(|w| w.split('…'))
            .filter(|w| !w.is_empty())
        {
            if let Some(at) = within.find(word) {
                out.push(self.range.start + at..self.range.start + at + word.len());
            }
        }
        // 高于所在地区的平均水平: every word of a comparison with the mean is read.
        if matches!(self.kind, DemandKind::Relative { .. }) {
            out.push(self.range.clone());
        }
        if let (DemandKind::Threshold { .. } | DemandKind::Relative { .. }, Some(measure)) =
            (self.kind, self.measure.as_deref())
            && !measure.is_empty()
            && text
                .get(..self.range.start)
                .is_some_and(|before| before.ends_with(measure))
        {
            out.push(self.range.start - measure.len()..self.range.start);
        }
        out
    }
}

/// Every demand of a sentence, in order, given its numeral and time spans ([`crate::scan`]); a time expression
/// is never a demand's number (最近7天以内 is no threshold).
pub fn demands(text: &str, spans: &[Span]) -> Vec<Demand> {
    scan::demands(text, spans)
}

/// Every demand of a sentence, scanning its spans with `today`.
pub fn demands_of(text: &str, today: Date) -> Vec<Demand> {
    demands(text, &crate::scan(text, today))
}

#[cfg(test)]
mod tests;
