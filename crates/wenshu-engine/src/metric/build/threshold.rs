//! Thresholds: on a group's measure (HAVING), on a group's share of the total (占比超过10%), and on each record's
//! value (单笔超过1万), with the words before the measure saying which aggregate is compared.

use std::ops::Range;

use wenshu_contract::metric::{Grain, MeasureSel, MetricQuery, Reaggregate, Share, Threshold, ThresholdOp};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{self, Aggregate, Demand, DemandKind};

use super::measures::{is_avg, is_count, is_currency};
use super::times::grain_of_char;
use super::{Builder, Mention};

impl Builder<'_> {
    /// 单笔 with no measure named (单笔超过5万): 笔 counts sums of money, so the one total in a currency, if the
    /// model has exactly one; none otherwise.
    fn single_payment(&self, words: &str) -> Option<usize> {
        if !canonical(words).ends_with("单笔") {
            return None;
        }
        let money: Vec<usize> = (0..self.model.measures.len())
            .filter(|&i| {
                let m = &self.model.measures[i];
                m.expr.adds_up() && !is_count(&m.expr) && m.unit.as_deref().is_some_and(is_currency)
            })
            .collect();
        match money[..] {
            [one] => Some(one),
            _ => None,
        }
    }

    /// A threshold on a grouped measure (HAVING), or on each record's value of a measure named (单笔金额超过10万,
    /// 金额低于1万的订单有多少笔: records counted or called single); any other threshold on an ungrouped total is
    /// refused.
    pub(super) fn threshold(&mut self, query: &mut MetricQuery) {
        let all: Vec<Demand> = self
            .demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::Threshold { .. }))
            .cloned()
            .collect();
        let Some(d) = all.first().cloned() else {
            return;
        };
        let rest = &all[1..];
        // 销售额超过100万且订单数超过300的销售: the things named after the last threshold are grouped by.
        let anchor = all.last().map_or(d.range.end, |last| last.range.end);
        let DemandKind::Threshold { op, value } = d.kind else {
            return;
        };
        let op = ops(op);
        // 销量超过500套的产品: the threshold qualifies the dimension named right after it — a grouping by it.
        if query.group_by.is_empty()
            && query.grain.is_none()
            && let Some((dim, end)) = self.dimension_after(anchor)
        {
            // …超过200万的电影有几部: how many of them, which a grouping does not count.
            let rest = self.facts.question.get(end..).unwrap_or_default();
            let rest = rest.trim_start_matches(['有', '是', '一', '共', '总']);
            if rest.starts_with('几') || rest.starts_with("多少") {
                let label = &self.model.dimensions[dim].label;
                self.reasons
                    .push(format!("不能数满足条件的{label}有几个（只能列出它们）"));
                return;
            }
            query.group_by.push(self.model.dimensions[dim].label.clone());
        }
        // `sales persons with sales above 1000000`: the things named before `with` are grouped by.
        if query.group_by.is_empty()
            && query.grain.is_none()
            && let Some(dim) = self.dimension_with()
        {
            query.group_by.push(self.model.dimensions[dim].label.clone());
        }
        // 各地区销量超过500的产品: the things named after the thresholds are grouped by too, beside the grouping said
        // before — each region's products past it, never the regions alone.
        if let Some((dim, _)) = self.dimension_after(anchor)
            && (!query.group_by.is_empty() || query.grain.is_some())
        {
            self.group_by(query, dim);
        }
        let percent = self.percent_in(&d.range);
        // A share inside each group of another grouping (各地区占比超过30%的产品) is not a share of the whole.
        if (percent || self.share_before(&d).is_some()) && query.group_by.len() > 1 {
            self.reasons.push(format!(
                "「{}」：不能算每个{}内部的占比（只能算占全部的比例）",
                d.words, query.group_by[0]
            ));
            return;
        }
        let first_on_groups = !(percent || self.share_before(&d).is_some() || self.record_measure(&d, query).is_some());
        if !rest.is_empty() && !first_on_groups {
            // 单笔超过5万的订单数超过100的地区: the records kept first, then the groups of them.
            if let (false, None, Some(measure)) = (percent, self.share_before(&d), self.record_measure(&d, query)) {
                query.each = Some(Threshold::new(self.measure_label(measure), op, value));
                // 单笔金额超过1万且销量超过5的订单: more thresholds on each record, 且 / 或 between them.
                let mut joins: Vec<bool> = Vec::new();
                let mut previous_end = d.range.end;
                let mut taken = 0;
                for r in rest {
                    let DemandKind::Threshold { op, value } = r.kind else {
                        break;
                    };
                    let on_records = !self.percent_in(&r.range) && self.share_before(r).is_none();
                    let at = self.threshold_measure(r).map_or(r.range.start, |(_, w)| w.start);
                    let between = self.facts.question.get(previous_end..at).unwrap_or_default();
                    // Joined by 且 / 或 to a threshold on each record: on each record too, where it has a value.
                    let joined = ["且", "或", "并", "and", "or"]
                        .iter()
                        .any(|w| between.to_ascii_lowercase().contains(w));
                    let same_records = self
                        .threshold_measure(r)
                        .map(|(m, _)| m)
                        .filter(|&m| joined && self.model.measures[m].expr.single_aggregate().is_some());
                    let Some(m) = self.record_measure(r, query).or(same_records).filter(|_| on_records) else {
                        break;
                    };
                    joins.push(says_any(between));
                    query
                        .also_each
                        .push(Threshold::new(self.measure_label(m), ops(op), value));
                    previous_end = r.range.end;
                    taken += 1;
                }
                if joins.iter().any(|a| *a) && !joins.iter().all(|a| *a) {
                    self.reasons
                        .push("「且」和「或」混在一起，不知道怎么组合这几个门槛".into());
                    return;
                }
                query.each_any = joins.first().copied().unwrap_or(false);
                if let Some(next) = rest.get(taken) {
                    self.group_threshold(query, next, &rest[taken + 1..]);
                }
                return;
            }
            self.reasons
                .push(format!("「{}」：几个门槛同时用时，只能都是分组合计的门槛", d.words));
            return;
        }
        if percent || self.share_before(&d).is_some() {
            self.share_threshold(query, &d, op, value, percent);
            return;
        }
        if let Some(measure) = self.record_measure(&d, query) {
            query.each = Some(Threshold::new(self.measure_label(measure), op, value));
            return;
        }
        self.group_threshold(query, &d, rest);
    }

    /// A threshold on the groups' totals (HAVING) of the measure named before it, and the further ones after it.
    fn group_threshold(&mut self, query: &mut MetricQuery, d: &Demand, rest: &[Demand]) {
        let DemandKind::Threshold { op, value } = d.kind else {
            return;
        };
        let op = ops(op);
        let words = d.measure.clone().unwrap_or_else(|| d.words.clone());
        let d = d.clone();
        // 单次超过3小时: a threshold on each record of a measure not named is never one on the groups' totals.
        if let Some(single) = SINGLE.iter().find(|w| canonical(&words).ends_with(**w)) {
            let names: Vec<String> = (0..self.model.measures.len()).map(|i| self.measure_label(i)).collect();
            self.reasons.push(format!(
                "「{single}{}」：不知道是{single}的什么（可选：{}）",
                d.words,
                names.join("、")
            ));
            return;
        }
        if query.group_by.is_empty() && query.grain.is_none() {
            self.reasons.push(format!(
                "「{words}」{}：只能对分组后的合计设门槛，不能筛选单条记录",
                d.words
            ));
            return;
        }
        let mentioned = self.threshold_measure(&d);
        let Some(measure) = mentioned
            .as_ref()
            .map(|(m, _)| *m)
            .or_else(|| d.measure.as_deref().and_then(|w| self.measure_of(w)))
            .or_else(|| query.measures.first().and_then(|m| self.model.measure_index(&m.name)))
        else {
            self.reasons.push(format!("「{}」不知道按什么指标筛选", d.words));
            return;
        };
        let label = self.measure_label(measure);
        let spec = &self.model.measures[measure];
        let own_avg = is_avg(&spec.expr);
        let mut threshold = Threshold::new(label.clone(), op, value);
        match mentioned.as_ref().map(|(_, r)| self.prefix_of(r.start)) {
            // 总销售额超过500万: the group's total, shown beside whatever else is asked.
            Some(Prefix::Total(said)) => {
                if own_avg {
                    self.reasons
                        .push(format!("「{said}{label}」：{label}是平均值，没有合计"));
                    return;
                }
                let plain = MeasureSel::named(label.clone());
                if !query.measures.contains(&plain) {
                    query.measures.push(plain);
                }
            }
            // 平均销售额超过10万: the group's mean; shown as the mean when the measure is named only there.
            Some(Prefix::Mean(said)) if !own_avg => {
                if !spec.reaggregations.contains(&Reaggregate::Avg) {
                    self.reasons.push(format!("「{said}{label}」：{label}不支持求平均"));
                    return;
                }
                threshold.aggregate = Some(Reaggregate::Avg);
                let elsewhere = self
                    .mentions
                    .iter()
                    .any(|(r, m)| *m == Mention::Measure(measure) && mentioned.as_ref().is_some_and(|(_, at)| at != r));
                if !elsewhere {
                    for m in query.measures.iter_mut().filter(|m| m.name == label && !m.distinct) {
                        m.aggregate = Some(Reaggregate::Avg);
                    }
                }
            }
            Some(Prefix::Mean(_)) => {}
            // 月均销售额超过100万: the mean per bucket, only where the query computes it.
            Some(Prefix::PerBucket(said, grain)) => {
                let computed = query.measures.iter().any(|m| m.name == label && m.per == Some(grain))
                    && !query
                        .measures
                        .iter()
                        .any(|m| m.name == label && m.per.is_none() && m.aggregate.is_none());
                if !computed {
                    self.reasons
                        .push(format!("「{said}{label}」：不能对按时间平均后的值设门槛"));
                    return;
                }
            }
            Some(Prefix::None) | None => {}
        }
        if !query.measures.iter().any(|m| m.name == label) {
            query.measures.push(MeasureSel::named(label.clone()));
        }
        query.having = Some(threshold);
        self.more_thresholds(query, &d, rest);
    }

    /// Thresholds after the first (且订单数超过300, 或销量低于10): each on a measure named right before it, all
    /// joined by 且 / and or all by 或 / or.
    fn more_thresholds(&mut self, query: &mut MetricQuery, first: &Demand, rest: &[Demand]) {
        let q = self.facts.question.clone();
        let mut previous_end = first.range.end;
        let mut joins: Vec<bool> = Vec::new();
        for d in rest {
            let DemandKind::Threshold { op, value } = d.kind else {
                continue;
            };
            let Some((measure, named)) = self.threshold_measure(d) else {
                self.reasons.push(format!("「{}」不知道按什么指标筛选", d.words));
                return;
            };
            joins.push(says_any(q.get(previous_end..named.start).unwrap_or_default()));
            if !matches!(self.prefix_of(named.start), Prefix::None) || self.percent_in(&d.range) {
                self.reasons
                    .push(format!("「{}」：几个门槛同时用时，只能是指标合计的门槛", d.words));
                return;
            }
            let label = self.measure_label(measure);
            if !query.measures.iter().any(|m| m.name == label) {
                query.measures.push(MeasureSel::named(label.clone()));
            }
            query.also_having.push(Threshold::new(label, ops(op), value));
            previous_end = d.range.end;
        }
        if joins.iter().any(|a| *a) && !joins.iter().all(|a| *a) {
            self.reasons
                .push("「且」和「或」混在一起，不知道怎么组合这几个门槛".into());
            return;
        }
        query.having_any = joins.first().copied().unwrap_or(false);
    }

    /// A threshold in percent, or on a share (占比超过10%, 比例超过0.1): each group's share of the total, never
    /// the measure's own value; a percent on anything but a share or a measure kept in percent is refused.
    pub(super) fn share_threshold(
        &mut self,
        query: &mut MetricQuery,
        d: &Demand,
        op: ThresholdOp,
        value: f64,
        percent: bool,
    ) {
        let share = self.share_before(d);
        let mentioned = self.threshold_measure(d).map(|(m, _)| m);
        let measure = mentioned
            .or_else(|| d.measure.as_deref().and_then(|w| self.measure_of(w)))
            .or_else(|| query.measures.first().and_then(|m| self.model.measure_index(&m.name)));
        let said = self.facts.question.get(d.range.clone()).unwrap_or(&d.words).to_string();
        if share.is_none() {
            // A measure kept in percent (准时率 in %) compares its own value.
            let in_percent = measure
                .and_then(|m| self.model.measures[m].unit.as_deref())
                .is_some_and(|u| {
                    let u = canonical(u);
                    u == "%" || u == "百分比"
                });
            if let (true, Some(m)) = (in_percent, mentioned) {
                if query.group_by.is_empty() && query.grain.is_none() {
                    self.reasons
                        .push(format!("「{said}」：只能对分组后的合计设门槛，不能筛选单条记录"));
                    return;
                }
                let label = self.measure_label(m);
                if !query.measures.iter().any(|s| s.name == label) {
                    query.measures.push(MeasureSel::named(label.clone()));
                }
                query.having = Some(Threshold::new(label, op, value));
                return;
            }
            self.reasons.push(format!(
                "「{said}」：百分比只能比较占比，不知道是什么的百分比（不会当作{}的数值）",
                measure.map_or_else(|| "指标".to_string(), |m| self.measure_label(m))
            ));
            return;
        }
        let Some(measure) = measure else {
            self.reasons.push(format!("「{said}」不知道是哪个指标的占比"));
            return;
        };
        if query.group_by.is_empty() {
            self.reasons
                .push(format!("「{said}」：占比的门槛需要按维度分组（各组占总数的比例）"));
            return;
        }
        // A share is at most 1: 超过10% and 超过10 both say a tenth; 0.1 is one already.
        let fraction = if percent || value > 1.0 { value / 100.0 } else { value };
        let label = self.measure_label(measure);
        if !query.measures.iter().any(|m| m.name == label) {
            query.measures.push(MeasureSel::named(label.clone()));
        }
        if query.share.is_none() {
            query.share = Some(Share {
                across: query.group_by.clone(),
            });
        }
        let mut threshold = Threshold::new(label, op, fraction);
        threshold.share = true;
        query.having = Some(threshold);
    }

    /// Whether a percent numeral (10%, 百分之十) is inside `range`.
    pub(super) fn percent_in(&self, range: &Range<usize>) -> bool {
        self.facts.spans.iter().any(|s| {
            s.kind == wenshu_lexicon::SpanKind::Number(wenshu_lexicon::numeral::NumeralKind::Percent)
                && range.start <= s.range.start
                && s.range.end <= range.end
        })
    }

    /// The share demand (占比, 比例) right before a threshold (销售额占比超过10%), its range.
    pub(super) fn share_before(&self, d: &Demand) -> Option<Range<usize>> {
        self.demands.iter().find_map(|s| {
            let is_share = matches!(s.kind, DemandKind::Aggregate { of: Aggregate::Share });
            let gap = self.facts.question.get(s.range.end..d.range.start)?;
            (is_share && s.range.end <= d.range.start && is_glue(gap)).then(|| s.range.clone())
        })
    }

    /// The measure named right before a threshold (销售额超过…, 销售额占比超过…), with its words' range.
    pub(super) fn threshold_measure(&self, d: &Demand) -> Option<(usize, Range<usize>)> {
        let share = self.share_before(d);
        let end = share.as_ref().map_or(d.range.start, |s| s.start);
        self.mentions.iter().rev().find_map(|(r, m)| match m {
            Mention::Measure(i) if r.end <= end && self.facts.question.get(r.end..end).is_some_and(is_glue) => {
                Some((*i, r.clone()))
            }
            _ => None,
        })
    }

    /// What the words right before `at` say of the measure named there: its total (总, 合计), its mean (平均), or its
    /// mean per time bucket (月均) — general Chinese and English.
    pub(super) fn prefix_of(&self, at: usize) -> Prefix {
        let before = self.facts.question.get(..at).unwrap_or_default().trim_end();
        let lower = before.to_ascii_lowercase();
        for word in ["总", "合计", "累计", "总共", "一共"] {
            if before.ends_with(word) {
                return Prefix::Total(word.to_string());
            }
        }
        for word in ["total", "overall"] {
            if lower.ends_with(word) {
                return Prefix::Total(word.to_string());
            }
        }
        if let Some(head) = before.strip_suffix('均') {
            let bucket = head.chars().next_back().and_then(grain_of_char);
            let said = before[head.len() - head.chars().next_back().map_or(0, char::len_utf8)..].to_string();
            return match bucket {
                Some(grain) => Prefix::PerBucket(said, grain),
                None => Prefix::Mean(if head.ends_with('平') {
                    "平均".into()
                } else {
                    "均".into()
                }),
            };
        }
        for word in ["average", "mean", "avg"] {
            if lower.ends_with(word) {
                return Prefix::Mean(word.to_string());
            }
        }
        Prefix::None
    }

    /// The mean (平均) said right before the measure of a threshold: the threshold's, not a mean of the answer.
    pub(super) fn mean_of_threshold(&self, avg: &Demand) -> bool {
        // 日均 / 人均 say a mean per bucket or per person, which the threshold does not take over.
        if avg.words.ends_with('均') && avg.words != "平均" {
            return false;
        }
        self.demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::Threshold { .. }))
            .filter_map(|d| self.threshold_measure(d))
            .any(|(_, r)| {
                avg.range.end <= r.start && self.facts.question.get(avg.range.end..r.start).is_some_and(is_glue)
            })
    }

    /// The dimension named at `at`, after a unit and 的 (…超过500套的产品 → 产品), with where its word ends.
    pub(super) fn dimension_after(&self, at: usize) -> Option<(usize, usize)> {
        let q = &self.facts.question;
        let mut from = at;
        // The unit may have begun inside the number (300人 of 300人次).
        'units: for unit in self.model.measures.iter().filter_map(|m| m.unit.as_deref()) {
            for (k, _) in unit.char_indices() {
                let (head, tail) = unit.split_at(k);
                let before = q.get(..at).is_some_and(|b| b.ends_with(head));
                if before && !tail.is_empty() && q.get(at..).is_some_and(|rest| rest.starts_with(tail)) {
                    from = at + tail.len();
                    break 'units;
                }
            }
        }
        if q.get(from..).is_some_and(|rest| rest.starts_with('的')) {
            from += '的'.len_utf8();
        }
        self.mentions.iter().find_map(|(r, m)| match m {
            Mention::Dimension(dim) if r.start == from => Some((*dim, r.end)),
            _ => None,
        })
    }

    /// The measure of a threshold on each record: named before it, aggregating one column, and the records either
    /// counted by another measure (…的订单有多少笔) or called single (单笔, 每次: general Chinese).
    pub(super) fn record_measure(&self, d: &Demand, query: &MetricQuery) -> Option<usize> {
        let words = d.measure.as_deref()?;
        let measure = self.measure_of(words).or_else(|| self.single_payment(words))?;
        let spec = &self.model.measures[measure];
        spec.expr.single_aggregate()?;
        // 每单销量超过3的产品 read as a ratio per order: the threshold is on the ratio, not on each record.
        let label = self.measure_label(measure);
        if query.measures.iter().any(|m| m.name == label && m.divided_by.is_some()) {
            return None;
        }
        // The words may begin one character before the measure's (每 of 每单金额).
        let q = &self.facts.question;
        let from = q
            .get(..d.range.start)
            .and_then(|b| b.trim_end().strip_suffix(words))
            .and_then(|b| b.chars().next_back().map(|c| format!("{c}{words}")))
            .unwrap_or_else(|| words.to_string());
        let single = SINGLE
            .iter()
            .any(|w| canonical(words).starts_with(w) || canonical(&from).starts_with(w));
        let counted = query.measures.iter().any(|m| {
            self.model
                .measure_index(&m.name)
                .is_some_and(|i| i != measure && is_count(&self.model.measures[i].expr))
        });
        let ungrouped = query.group_by.is_empty() && query.grain.is_none();
        (single || (counted && ungrouped)).then_some(measure)
    }
}

/// Words that call a record single (单笔, 每次): a threshold after them is on each record — general Chinese.
pub(super) const SINGLE: &[&str] = &[
    "单笔", "单条", "单次", "单张", "单件", "单个", "单一", "每单", "每笔", "每次",
];

/// What the words before a threshold's measure say of it.
pub(super) enum Prefix {
    /// 总X, 合计X: the total.
    Total(String),
    /// 平均X: the mean.
    Mean(String),
    /// 月均X: the mean per bucket of a grain.
    PerBucket(String, Grain),
    /// Nothing.
    None,
}

/// Words that join a measure to what follows it and say nothing (的, 是, spaces, is, of).
pub(super) fn is_glue(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || ["的", "是", "得", "is", "was", "are", "of"].contains(&t.to_ascii_lowercase().as_str())
}

/// Whether the words between two thresholds join them by 或 / or (any may hold) rather than 且 / and.
fn says_any(between: &str) -> bool {
    const ANY: &[&str] = &["或者", "或是", "或", "or"];
    let between = between.to_ascii_lowercase();
    ANY.iter().any(|w| between.contains(w))
}

/// The query's comparison of a threshold the question states.
pub(super) fn ops(op: demand::ThresholdOp) -> ThresholdOp {
    match op {
        demand::ThresholdOp::Above => ThresholdOp::Gt,
        demand::ThresholdOp::AtLeast => ThresholdOp::Ge,
        demand::ThresholdOp::Below => ThresholdOp::Lt,
        demand::ThresholdOp::AtMost => ThresholdOp::Le,
    }
}
