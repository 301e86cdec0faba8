//! A measure per another measure's unit or thing (平均每单销量, 每套多少钱, 单均销量, average quantity per order) and
//! the ratio or difference of two named measures (销售额除以销量, 销售额与订单数之比, 销售额减去成本, ratio of A to
//! B): computed from the two totals at query time, never a mean of ratios.

use std::ops::Range;

use wenshu_contract::metric::{MeasureSel, MetricQuery};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{Aggregate, DemandKind};
use wenshu_lexicon::identifiers as english;

use super::folded::Folded;
use super::measures::is_people;
use super::threshold::SINGLE;
use super::{Builder, Mention, overlaps};

/// What may stand between 每 and the thing counted (每一单, 每个订单, 每笔订单): general Chinese.
const AFTER_EACH: &[&str] = &[
    "", "一", "个", "一个", "笔", "一笔", "位", "一位", "件", "张", "条", "次",
];

/// The words of a mean per each thing of a dimension before its name (平均每个医生, 平均每家门店): general Chinese.
const PER_EACH: &[&str] = &[
    "平均每一个",
    "平均每个",
    "平均每位",
    "平均每名",
    "平均每家",
    "平均每一",
    "平均每",
];

/// The words of a plain mean a ratio takes in (平均每单, 每单平均, average … per order).
const MEAN_WORDS: &[&str] = &["平均", "average", "avg", "mean"];

/// How two measures are combined, as the question says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    Ratio,
    Difference,
}

/// Words between two measures, and after the second, that combine them (A 除以 B; A 与 B 之比).
const BETWEEN: &[(&str, How, &[&str])] = &[
    ("除以", How::Ratio, &[]),
    ("/", How::Ratio, &[]),
    ("÷", How::Ratio, &[]),
    ("divided by", How::Ratio, &[]),
    ("per", How::Ratio, &[]),
    ("减去", How::Difference, &[]),
    ("减", How::Difference, &[]),
    ("minus", How::Difference, &[]),
    ("与", How::Ratio, &["之比", "的比值", "的比率", "的比", "比值", "比率"]),
    ("和", How::Ratio, &["之比", "的比值", "的比率", "的比", "比值", "比率"]),
    ("跟", How::Ratio, &["之比", "的比值", "的比率", "的比"]),
    (
        "与",
        How::Difference,
        &["之差", "的差值", "的差额", "的差", "差值", "差额"],
    ),
    (
        "和",
        How::Difference,
        &["之差", "的差值", "的差额", "的差", "差值", "差额"],
    ),
    ("to", How::Ratio, &[]),
    ("and", How::Difference, &[]),
];

/// English words before the first measure that a pair needs (ratio of A to B, difference between A and B).
fn english_opening(how: How, between: &str) -> Option<&'static [&'static str]> {
    match (how, between) {
        (How::Ratio, "to") => Some(&["ratio of", "the ratio of"]),
        (How::Difference, "and") => Some(&["difference between", "the difference between"]),
        _ => None,
    }
}

impl Builder<'_> {
    /// A ratio or difference of two measures the question asks for: the first measure is shown divided by (or
    /// less) the second; the words saying it are read, and a mean they take in (平均每单) is no re-aggregation.
    pub(super) fn combined(&mut self, query: &mut MetricQuery) {
        if self.per_people(query) {
            return;
        }
        let (how, numerators, other, all_words) = match self.named_pair() {
            Some((how, left, right, words)) => (how, vec![left], right, vec![words]),
            None => match self.per_unit() {
                Some((other, all_words)) => {
                    let numerators: Vec<usize> = query
                        .measures
                        .iter()
                        .filter(|m| !m.distinct)
                        .filter_map(|m| self.model.measure_index(&m.name))
                        .filter(|&i| i != other || !self.only_inside(i, &all_words))
                        .collect();
                    (How::Ratio, numerators, other, all_words)
                }
                None => return,
            },
        };
        let words = all_words[0].clone();
        let said = self
            .facts
            .question
            .get(words.clone())
            .unwrap_or_default()
            .trim()
            .to_string();
        for words in &all_words {
            self.read.push(words.clone());
            self.take_demands(words);
        }
        let other_label = self.measure_label(other);
        if numerators.is_empty() || numerators.contains(&other) {
            self.reasons.push(format!(
                "「{said}」：{other_label}之外还要说出是什么的{}",
                match how {
                    How::Ratio => "比值（如每单的销量）",
                    How::Difference => "差",
                }
            ));
            return;
        }
        if let Some(i) = numerators.iter().find(|&&i| !self.all_beside(i, &all_words)) {
            // 销量最高的产品每单销量: one 销量 is a total, the other per order — two measures, not one.
            let label = self.measure_label(*i);
            self.reasons
                .push(format!("「{label}」说了不止一次，不知道哪一处是「{said}」的"));
            return;
        }
        if query.measures.iter().any(|m| m.distinct) {
            self.reasons
                .push(format!("「{said}」：不能把个数再按{other_label}计算"));
            return;
        }
        query.measures = numerators
            .into_iter()
            .map(|i| {
                let mut sel = MeasureSel::named(self.measure_label(i));
                match how {
                    How::Ratio => sel.divided_by = Some(other_label.clone()),
                    How::Difference => sel.minus = Some(other_label.clone()),
                }
                sel
            })
            .collect();
    }

    /// Two measures named with words combining them (销售额除以销量, 销售额与订单数之比, ratio of A to B): `(how, the
    /// first, the second, the words from the first's start to the second's end and what follows it)`.
    fn named_pair(&self) -> Option<(How, usize, usize, Range<usize>)> {
        let q = &self.facts.question;
        let measures: Vec<(Range<usize>, usize)> = self
            .mentions
            .iter()
            .filter_map(|(r, m)| match m {
                Mention::Measure(i) => Some((r.clone(), *i)),
                _ => None,
            })
            .collect();
        for pair in measures.windows(2) {
            let [(first, left), (second, right)] = pair else {
                continue;
            };
            let between = canonical(q.get(first.end..second.start)?.trim());
            let after = canonical(q.get(second.end..)?.trim_start());
            let before = canonical(q.get(..first.start)?.trim_end());
            for (word, how, closing) in BETWEEN {
                if between != *word {
                    continue;
                }
                let close = match closing.iter().find(|c| after.starts_with(**c)) {
                    Some(c) => c.len(),
                    None if closing.is_empty() => 0,
                    None => continue,
                };
                let opening = english_opening(*how, word);
                if let Some(openings) = opening
                    && !openings.iter().any(|o| before.ends_with(o))
                {
                    continue;
                }
                let start = match opening {
                    Some(openings) => {
                        let o = openings
                            .iter()
                            .filter(|o| before.ends_with(**o))
                            .map(|o| o.len())
                            .max()?;
                        q.get(..first.start)?.trim_end().len().checked_sub(o)?
                    }
                    None => first.start,
                };
                let skipped = q.get(second.end..)?.len() - q.get(second.end..)?.trim_start().len();
                let end = second.end + if close > 0 { skipped + close } else { 0 };
                return Some((*how, *left, *right, start..end.min(q.len())));
            }
        }
        None
    }

    /// Per the unit or the thing of a measure that adds up (每单, 每一套, 每个订单, 单均, per order): `(that measure,
    /// each place the words are said)`; a time grain (每月) or people (每人, 人均: whose heads is not known) are
    /// not such.
    fn per_unit(&self) -> Option<(usize, Vec<Range<usize>>)> {
        let folded = Folded::new(&self.facts.question);
        let is_time = |r: &Range<usize>| {
            self.facts.times.iter().any(|t| overlaps(&t.range, r))
                || self
                    .demands
                    .iter()
                    .any(|d| matches!(d.kind, DemandKind::Group { grain: Some(_) }) && overlaps(&d.range, r))
        };
        for (j, m) in self.model.measures.iter().enumerate() {
            if !m.expr.adds_up() {
                continue;
            }
            let unit = m.unit.as_deref().map(canonical).filter(|u| u != "人");
            // The unit (每单, 每套) or the measure's words (每个订单, 每个部件).
            let mut things: Vec<String> = unit.iter().cloned().collect();
            things.extend(std::iter::once(&m.label).chain(&m.synonyms).map(|w| canonical(w)));
            let mut found: Vec<Range<usize>> = Vec::new();
            // 次均 inside 次均费用: a word of another measure or a dimension is no ratio.
            let in_other_word = |r: &Range<usize>| {
                self.mentions
                    .iter()
                    .any(|(m, what)| *what != Mention::Measure(j) && overlaps(m, r))
            };
            let mut add = |r: Range<usize>| {
                if !is_time(&r)
                    && !in_other_word(&r)
                    && !self.single_record(&r)
                    && !found.iter().any(|f| overlaps(f, &r))
                {
                    found.push(r);
                }
            };
            // The longest words first: 每张工单 before 每张.
            let mut said: Vec<Range<usize>> = things
                .iter()
                .flat_map(|thing| AFTER_EACH.iter().map(move |between| format!("每{between}{thing}")))
                .flat_map(|words| folded.find(&words))
                .collect();
            said.sort_by_key(|r| std::cmp::Reverse(r.len()));
            said.into_iter().for_each(|r| add(self.with_mean(r)));
            if let Some(unit) = unit.filter(|u| u.chars().count() == 1) {
                folded.find(&format!("{unit}均")).into_iter().for_each(&mut add);
            }
            let lower = folded.text.to_ascii_lowercase();
            // per order: the measure's name or an English word of it (orders of `row_count`).
            let english_words = std::iter::once(&m.name)
                .chain(std::iter::once(&m.label))
                .chain(&m.synonyms)
                .filter(|w| w.is_ascii());
            for r in english_words.flat_map(|w| english::find(&folded.text, w)) {
                if lower
                    .get(..r.start)
                    .is_some_and(|b| b.trim_end().ends_with(" per") || b.trim_end() == "per")
                {
                    let per = lower[..r.start].trim_end().len() - "per".len();
                    add(folded.original(&(per..r.end)));
                }
            }
            if !found.is_empty() {
                found.sort_by_key(|r| r.start);
                return Some((j, found));
            }
        }
        None
    }

    /// A total per thing of a dimension said with 平均每(个|位|家…) right before it (平均每个销售的销售额, 平均每家门店的
    /// 营收), or per person with `per` (revenue per employee by department): the total over the number of them, as
    /// 销售人均 says it. Whether one was said.
    fn per_people(&mut self, query: &mut MetricQuery) -> bool {
        let q = self.facts.question.clone();
        let lower = q.to_ascii_lowercase();
        let said = self.mentions.iter().find_map(|(r, m)| {
            let Mention::Dimension(dim) = m else { return None };
            let before = q.get(..r.start)?;
            let chinese = PER_EACH
                .iter()
                .find(|w| before.ends_with(**w))
                .map(|w| r.start - w.len());
            // `sales per region` is a grouping; `revenue per employee` a ratio: only people.
            let english = lower
                .get(..r.start)
                .map(str::trim_end)
                .filter(|b| *b == "per" || b.ends_with(" per"))
                .filter(|_| is_people(&self.model.dimensions[*dim]))
                .map(|b| b.len() - "per".len());
            Some((*dim, chinese.or(english)?..r.end))
        });
        let Some((dim, words)) = said else {
            return false;
        };
        self.read.push(words.clone());
        self.take_demands(&words);
        let label = self.model.dimensions[dim].label.clone();
        let said = q.get(words).unwrap_or_default().to_string();
        self.divide_per(query, &label, |measure| {
            format!("「{said}」：{measure}不能按{label}平均")
        });
        true
    }

    /// Whether `words` begin the measure of a threshold on each record (每单金额超过1万的订单: orders of over 10,000
    /// each, no ratio).
    fn single_record(&self, words: &Range<usize>) -> bool {
        let q = &self.facts.question;
        self.demands.iter().any(|d| {
            let (DemandKind::Threshold { .. }, Some(measure)) = (d.kind, d.measure.as_deref()) else {
                return false;
            };
            let starts = q
                .get(..d.range.start)
                .and_then(|b| b.trim_end().strip_suffix(measure))
                .map(str::len);
            // The measure's words begin at, inside or right after the ratio's (每单金额, 单金额 of 每单金额).
            let from = canonical(q.get(words.start..).unwrap_or_default());
            // …的产品: a grouping after the threshold compares each group's ratio (每单销量超过3的产品).
            let grouped = self.dimension_after(d.range.end).is_some();
            starts.is_some_and(|at| words.start <= at && at <= words.end)
                && SINGLE.iter().any(|w| from.starts_with(w))
                && !grouped
        })
    }

    /// The words of a ratio with a plain mean right before or after them (平均每单, 每单平均, 每单的平均).
    fn with_mean(&self, words: Range<usize>) -> Range<usize> {
        let q = &self.facts.question;
        let mut range = words;
        for mean in MEAN_WORDS {
            if q.get(..range.start).is_some_and(|b| b.ends_with(mean)) {
                range.start -= mean.len();
            }
            for joint in ["", "的"] {
                if q.get(range.end..)
                    .is_some_and(|a| a.starts_with(&format!("{joint}{mean}")))
                {
                    range.end += joint.len() + mean.len();
                }
            }
        }
        range
    }

    /// Whether measure `i`, when named more than once, is named right beside the ratio's words each time (每单销售额
    /// …按每单销售额排名; 平均每单的销量; 销售额每单多少).
    fn all_beside(&self, i: usize, words: &[Range<usize>]) -> bool {
        let q = &self.facts.question;
        let said: Vec<&Range<usize>> = self
            .mentions
            .iter()
            .filter(|(_, m)| *m == Mention::Measure(i))
            .map(|(r, _)| r)
            .collect();
        let gap = |a: usize, b: usize| q.get(a..b).is_some_and(|g| matches!(g.trim(), "" | "的"));
        said.len() < 2
            || said
                .iter()
                .all(|r| words.iter().any(|w| gap(w.end, r.start) || gap(r.end, w.start)))
    }

    /// Whether every mention of measure `i` lies inside one of `words` (每个订单: the orders are the denominator
    /// only).
    fn only_inside(&self, i: usize, words: &[Range<usize>]) -> bool {
        self.mentions
            .iter()
            .filter(|(_, m)| *m == Mention::Measure(i))
            .all(|(r, _)| words.iter().any(|w| w.start <= r.start && r.end <= w.end))
    }

    /// Drops the demands the ratio's words say (每个 of 每个订单, 平均 of 平均每单) and a plain mean anywhere (average
    /// quantity per order): the ratio is that mean.
    fn take_demands(&mut self, words: &Range<usize>) {
        let q = self.facts.question.clone();
        let took = self.take_demands_where(|d| {
            // 每单 of 每单销量 reads as a grouping by 单销量, 按每单销售额 as one by 每单销售额: a grouping whose
            // words meet the ratio's is the ratio.
            let target_at = d
                .target
                .as_deref()
                .and_then(|t| q.get(d.range.clone())?.rfind(t).map(|at| d.range.start + at));
            let inside = words.start <= d.range.start && d.range.end <= words.end
                || matches!(d.kind, DemandKind::Group { grain: None })
                    && (words.contains(&d.range.start) || target_at.is_some_and(|at| words.contains(&at)));
            let plain_mean = matches!(d.kind, DemandKind::Aggregate { of: Aggregate::Average })
                && MEAN_WORDS.contains(&d.words.to_ascii_lowercase().as_str());
            inside || plain_mean
        });
        // A ranking is not inside each of a grouping the ratio took (每单销售额最高的销售).
        let taken_targets: Vec<String> = took.into_iter().filter_map(|d| d.target).collect();
        for d in &mut self.demands {
            if d.within.as_ref().is_some_and(|w| taken_targets.contains(w)) {
                d.within = None;
            }
        }
    }
}
