//! The metric query of a question, built by code: measures, dimensions and values named in it (from the metric
//! model and the data), times from the time knowledge, and what it asks for from the demands. Whatever it cannot
//! express is reported, never dropped: a question is answered as asked or not at all.

use std::ops::Range;

use jiff::civil::Date;
use serde::Serialize;
use wenshu_contract::Tool;
use wenshu_contract::metric::{
    Compare, CompareKind, DimensionValues, Filter, Grain, MeasureSel, MetricModel, MetricQuery, Order, OrderDir,
    Reaggregate, Share, Threshold, ThresholdOp, TimeRange, Within,
};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{self, Aggregate, Baseline, Demand, DemandKind};
use wenshu_lexicon::filler::strip_filler;

use super::values::{MetricValues, ValueMention};
use crate::facts::QuestionFacts;
use wenshu_lexicon::identifiers as english;
use wenshu_lexicon::words::money::{CURRENCY_UNITS, MONEY_WORDS};
use wenshu_lexicon::words::references::reference_in;

/// The words asking "how many" before a unit (多少套, 几单).
const HOW_MANY: [&str; 3] = ["多少", "几", "how many"];

/// The outcome of building a metric query from a question.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant, reason = "made once per question and matched at once")]
pub enum MetricBuild {
    /// The question as a metric query.
    Query {
        /// The query.
        query: MetricQuery,
    },
    /// What the question asks that this model cannot express, in words.
    Unmet {
        /// Each part that cannot be met.
        reasons: Vec<String>,
    },
}

/// A word of the model found in the question.
#[derive(Debug, Clone, PartialEq)]
enum Mention {
    Measure(usize),
    Dimension(usize),
    Value(ValueMention),
}

/// The question, folded character by character so that ranges map back to the original text.
struct Folded {
    text: String,
    /// Original byte offset of each byte of `text`.
    origin: Vec<usize>,
    len: usize,
}

impl Folded {
    fn new(question: &str) -> Self {
        let mut text = String::with_capacity(question.len());
        let mut origin = Vec::with_capacity(question.len());
        for (at, c) in question.char_indices() {
            let folded = if c.is_whitespace() {
                " ".to_string()
            } else {
                canonical(c.encode_utf8(&mut [0; 4]))
            };
            origin.extend(std::iter::repeat_n(at, folded.len()));
            text.push_str(&folded);
        }
        Self {
            text,
            origin,
            len: question.len(),
        }
    }

    /// The original byte range of a folded byte range.
    fn original(&self, range: &Range<usize>) -> Range<usize> {
        let start = self.origin.get(range.start).copied().unwrap_or(self.len);
        let end = self.origin.get(range.end).copied().unwrap_or(self.len);
        start..end.max(start)
    }

    /// Every occurrence of `word` (canonical), as original ranges.
    fn find(&self, word: &str) -> Vec<Range<usize>> {
        if word.is_empty() {
            return Vec::new();
        }
        self.text
            .match_indices(word)
            .map(|(at, _)| self.original(&(at..at + word.len())))
            .collect()
    }
}

/// Builds the metric query of `question` over `tool`'s model, or says what it cannot express.
pub fn build_query(tool: &Tool, values: &MetricValues, question: &str, today: Date) -> MetricBuild {
    let Some(model) = tool.extensions().metrics.as_deref() else {
        return unmet(format!("`{}` has no metric model", tool.name()));
    };
    let text = canonical(question);
    let named = model.measures.iter().any(|m| {
        std::iter::once(&m.label)
            .chain(&m.synonyms)
            .chain(m.unit.iter())
            .any(|w| text.contains(&canonical(w)))
            || !english::find(&text, &m.name).is_empty()
    }) || !english::tool_words(&text, tool.name()).is_empty()
        || counts_things(model, &text)
        || asks_money(&text);
    if !named {
        let names: Vec<&str> = model.measures.iter().map(|m| m.label.as_str()).collect();
        return unmet(format!("没有指明要统计的指标（可选：{}）", names.join("、")));
    }
    let facts = QuestionFacts::shared(question, today);
    let demands = facts.demands.clone();
    Builder::new(tool.name(), model, values, &facts, demands).build()
}

struct Builder<'a> {
    model: &'a MetricModel,
    facts: &'a QuestionFacts,
    demands: Vec<Demand>,
    mentions: Vec<(Range<usize>, Mention)>,
    /// English words of the tool's name the question says (`sales` of `sales_metrics`): the tool's subject.
    about: Vec<Range<usize>>,
    /// Dimensions whose distinct values the question counts (几位销售, 多少人), with the words that ask it.
    distinct: Vec<(usize, Range<usize>)>,
    reasons: Vec<String>,
}

impl<'a> Builder<'a> {
    fn new(
        tool: &str,
        model: &'a MetricModel,
        values: &MetricValues,
        facts: &'a QuestionFacts,
        demands: Vec<Demand>,
    ) -> Self {
        let folded = Folded::new(&facts.question);
        let times: Vec<Range<usize>> = facts.times.iter().map(|t| t.range.clone()).collect();
        let mut found: Vec<(Range<usize>, Mention)> = Vec::new();
        for (i, m) in model.measures.iter().enumerate() {
            for word in std::iter::once(&m.label).chain(&m.synonyms) {
                found.extend(
                    folded
                        .find(&canonical(word))
                        .into_iter()
                        .map(|r| (r, Mention::Measure(i))),
                );
            }
        }
        for (i, m) in model.measures.iter().enumerate() {
            found.extend(
                english::find(&folded.text, &m.name)
                    .iter()
                    .map(|r| (folded.original(r), Mention::Measure(i))),
            );
        }
        for (i, d) in model.dimensions.iter().enumerate() {
            found.extend(
                english::find(&folded.text, &d.name)
                    .iter()
                    .map(|r| (folded.original(r), Mention::Dimension(i))),
            );
            for word in std::iter::once(&d.label).chain(&d.synonyms) {
                found.extend(
                    folded
                        .find(&canonical(word))
                        .into_iter()
                        .map(|r| (r, Mention::Dimension(i))),
                );
            }
        }
        for v in values.mentions(tool, &folded.text) {
            let range = folded.original(&v.range);
            found.push((range, Mention::Value(v)));
        }
        found.retain(|(r, _)| !times.iter().any(|t| overlaps(t, r)));
        found.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.start.cmp(&b.0.start)));
        let mut mentions: Vec<(Range<usize>, Mention)> = Vec::new();
        for (range, mention) in found {
            if mentions.iter().all(|(r, _)| !overlaps(r, &range)) {
                mentions.push((range, mention));
            }
        }
        mentions.sort_by_key(|(r, _)| r.start);
        let about = english::tool_words(&folded.text, tool)
            .iter()
            .map(|r| folded.original(r))
            .filter(|r| mentions.iter().all(|(m, _)| !overlaps(m, r)))
            .collect();
        Self {
            model,
            facts,
            demands,
            mentions,
            about,
            distinct: Vec::new(),
            reasons: Vec::new(),
        }
    }

    fn build(mut self) -> MetricBuild {
        let mut query = MetricQuery::default();
        self.distinct_counts();
        self.measures(&mut query);
        self.filters(&mut query);
        self.times(&mut query);
        self.groups(&mut query);
        self.listed(&mut query);
        self.rank(&mut query);
        self.aggregates(&mut query);
        self.threshold(&mut query);
        self.unused_dimensions(&query);
        self.mean_to_date(&mut query);
        self.unused_numbers();
        self.leftovers();
        if query.measures.is_empty() && self.reasons.is_empty() {
            let names: Vec<&str> = self.model.measures.iter().map(|m| m.label.as_str()).collect();
            self.reasons
                .push(format!("没有指明要统计的指标（可选：{}）", names.join("、")));
        }
        if !self.reasons.is_empty() {
            return MetricBuild::Unmet { reasons: self.reasons };
        }
        match query.resolve(self.model) {
            Ok(_) => MetricBuild::Query { query },
            Err(e) => unmet(e.to_string()),
        }
    }

    fn measure_label(&self, index: usize) -> String {
        self.model.measures[index].label.clone()
    }

    /// Measures named by their words, by a unit after 多少 (多少套), or by a count's target (多少单).
    fn measures(&mut self, query: &mut MetricQuery) {
        let mut picked: Vec<usize> = Vec::new();
        for (_, m) in &self.mentions {
            if let Mention::Measure(i) = m
                && !picked.contains(i)
            {
                picked.push(*i);
            }
        }
        if picked.is_empty() {
            // The words of a distinct count (多少个销售) ask for no measure counted in their classifier.
            let mut blanked = self.facts.question.clone();
            for (_, r) in &self.distinct {
                if let Some(words) = blanked.get(r.clone()) {
                    let spaces = " ".repeat(words.len());
                    blanked.replace_range(r.clone(), &spaces);
                }
            }
            let text = canonical(&blanked);
            for (i, m) in self.model.measures.iter().enumerate() {
                let Some(unit) = m.unit.as_deref().map(canonical) else {
                    continue;
                };
                let asked = HOW_MANY.iter().any(|w| text.contains(&format!("{w}{unit}")));
                let counted = self.demands.iter().any(|d| {
                    matches!(d.kind, DemandKind::Aggregate { of: Aggregate::Count })
                        && !self.distinct.iter().any(|(_, r)| overlaps(r, &d.range))
                        && d.target.as_deref().is_some_and(|t| canonical(t) == unit)
                });
                let ranked = self
                    .demands
                    .iter()
                    .any(|d| d.measure.as_deref().is_some_and(|t| canonical(t) == unit));
                if (asked || counted || ranked) && !picked.contains(&i) {
                    picked.push(i);
                }
            }
        }
        if picked.is_empty() && asks_money(&self.facts.canonical) {
            // 卖了多少钱, how much money: the one total in a currency.
            let totals: Vec<usize> = (0..self.model.measures.len())
                .filter(|&i| {
                    let m = &self.model.measures[i];
                    is_sum(&m.expr) && m.unit.as_deref().is_some_and(is_currency)
                })
                .collect();
            if let [only] = totals[..] {
                picked.push(only);
            }
        }
        if picked.is_empty() && self.distinct.is_empty() && !self.about.is_empty() {
            // `sales by region`: the tool's subject without a measure of it — every measure of the model.
            picked = (0..self.model.measures.len()).collect();
        }
        query.measures = picked
            .into_iter()
            .map(|i| MeasureSel::named(self.measure_label(i)))
            .collect();
        for (dim, _) in &self.distinct {
            let sel = MeasureSel::distinct(self.model.dimensions[*dim].label.clone());
            if !query.measures.contains(&sel) {
                query.measures.push(sel);
            }
        }
    }

    /// Counts of a dimension's things (多少个销售员, 几位销售, how many sales people: the distinct values of its key,
    /// never the row count) and of people (多少人, 几位 with nothing after: the one dimension of people; refused
    /// naming the dimensions when there is none or more than one).
    fn distinct_counts(&mut self) {
        let q = &self.facts.question;
        for (r, m) in &self.mentions {
            let Mention::Dimension(dim) = m else { continue };
            if let Some(start) = how_many_before(q, r.start) {
                self.distinct.push((*dim, start..r.end));
            }
        }
        // 多少人 / 几个人 / 几位 / how many people: people, unless a measure counts them (评价人数, unit 人).
        let counted_by_measure = self
            .model
            .measures
            .iter()
            .any(|m| m.unit.as_deref().is_some_and(|u| canonical(u) == "人"));
        if counted_by_measure {
            return;
        }
        let Some(words) = people_count(q).filter(|w| !self.distinct.iter().any(|(_, r)| overlaps(r, w))) else {
            return;
        };
        let people: Vec<usize> = (0..self.model.dimensions.len())
            .filter(|&d| is_people(&self.model.dimensions[d]))
            .collect();
        let said = q.get(words.clone()).unwrap_or_default().to_string();
        let labels = |dims: &mut dyn Iterator<Item = usize>| -> String {
            dims.map(|d| self.model.dimensions[d].label.as_str())
                .collect::<Vec<_>>()
                .join("、")
        };
        match people.as_slice() {
            [one] => self.distinct.push((*one, words)),
            [] => {
                let all = labels(&mut (0..self.model.dimensions.len()));
                self.reasons.push(format!(
                    "「{said}」：数据里没有人员维度，数不了人数（可按：{}）",
                    if all.is_empty() { "无".to_string() } else { all }
                ));
            }
            many => {
                let names = labels(&mut many.iter().copied());
                self.reasons
                    .push(format!("「{said}」：数的是哪一种人？（可选：{names}）"));
            }
        }
    }

    /// The measure a demand's measure words name (销量 of 销量最高, 日销售额 ⊇ 销售额, 单 = a unit).
    fn measure_of(&self, words: &str) -> Option<usize> {
        let words = canonical(words);
        let named = self.model.measures.iter().position(|m| {
            std::iter::once(&m.label)
                .chain(&m.synonyms)
                .any(|w| words.contains(&canonical(w)))
        });
        named
            .or_else(|| {
                self.model
                    .measures
                    .iter()
                    .position(|m| m.unit.as_deref().is_some_and(|u| canonical(u) == words))
            })
            .or_else(|| self.model.measures.iter().position(|m| english::names(&words, &m.name)))
    }

    /// Values named become filters; two or more values of one dimension are shown side by side.
    fn filters(&mut self, query: &mut MetricQuery) {
        for (_, m) in &self.mentions {
            let Mention::Value(v) = m else { continue };
            let label = self.model.dimensions[v.dimension].label.clone();
            if v.value.ambiguous {
                self.reasons
                    .push(format!("「{}」是多个{label}的名字，请说明是哪一个", v.value.text));
                continue;
            }
            match query.filters.iter_mut().find(|f| f.dimension == label) {
                Some(f) if !f.values.contains(&v.value.text) => f.values.push(v.value.text.clone()),
                Some(_) => {}
                None => query.filters.push(Filter {
                    dimension: label,
                    values: vec![v.value.text.clone()],
                }),
            }
        }
        for f in &query.filters {
            if f.values.len() > 1 && !query.group_by.contains(&f.dimension) {
                query.group_by.push(f.dimension.clone());
            }
        }
        for place in &self.facts.places {
            let covered = self
                .mentions
                .iter()
                .any(|(r, m)| matches!(m, Mention::Value(_)) && overlaps(r, &place.range));
            if !covered {
                let text = self.facts.question.get(place.range.clone()).unwrap_or_default();
                self.reasons.push(format!("「{text}」不是任何维度的值"));
            }
        }
    }

    /// The time range (the first time expression) and a comparison's other period.
    fn times(&mut self, query: &mut MetricQuery) {
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
            }),
            Some((Baseline::YearAgo, _)) => Some(Compare {
                kind: CompareKind::YearOverYear,
                range: None,
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
            }),
            None => None,
        };
    }

    /// Groupings by a dimension (各产品, 哪个地区) or by a time grain (每月, 哪几天).
    fn groups(&mut self, query: &mut MetricQuery) {
        let groups: Vec<Demand> = self
            .demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::Group { .. }))
            .cloned()
            .collect();
        let averaged = self
            .demands
            .iter()
            .any(|d| matches!(d.kind, DemandKind::Aggregate { of: Aggregate::Average }));
        for d in groups {
            if let Some(grain) = d.grain() {
                if averaged && query.measures.iter().all(|m| m.per.is_none()) {
                    for m in &mut query.measures {
                        m.per = Some(grain);
                    }
                } else {
                    query.grain = Some(grain);
                }
                continue;
            }
            let Some(target) = d.target.as_deref() else { continue };
            match self.dimension_of(target) {
                Some(dim) => {
                    let label = self.model.dimensions[dim].label.clone();
                    if !query.group_by.contains(&label) {
                        query.group_by.push(label);
                    }
                }
                None if self.is_measure_word(target) => {}
                None => self.reasons.push(format!("不能按「{target}」分组")),
            }
        }
    }

    /// The dimension a demand's target names (by prefix either way, as the demands advise).
    fn dimension_of(&self, target: &str) -> Option<usize> {
        let target = canonical(target);
        self.model.dimensions.iter().position(|d| {
            english::names(&target, &d.name)
                || std::iter::once(&d.label).chain(&d.synonyms).any(|w| {
                    let w = canonical(w);
                    !w.is_empty() && (target.starts_with(&w) || w.starts_with(&target))
                })
        })
    }

    fn is_measure_word(&self, words: &str) -> bool {
        self.measure_of(words).is_some()
    }

    /// Rows asked for (明细, 有哪些): the values of a dimension when the words before name one (超过9分的电影有哪些
    /// is a grouping by 影片), else records, which a metric does not give.
    fn listed(&mut self, query: &mut MetricQuery) {
        let lists: Vec<Demand> = self
            .demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::List))
            .cloned()
            .collect();
        for d in lists {
            match d.measure.as_deref().and_then(|t| self.dimension_of(t)) {
                Some(dim) => {
                    let label = self.model.dimensions[dim].label.clone();
                    if !query.group_by.contains(&label) {
                        query.group_by.push(label);
                    }
                }
                None => {
                    self.reasons.push("指标只给汇总，不列明细".into());
                    return;
                }
            }
        }
    }

    /// A ranking: order by its measure, the top N (one for a superlative), over its dimension.
    fn rank(&mut self, query: &mut MetricQuery) {
        let Some(d) = self.demands.iter().find(|d| d.is_rank()).cloned() else {
            return;
        };
        let DemandKind::Rank { order, top } = d.kind else {
            return;
        };
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
        if let Some(target) = d.target.as_deref() {
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
                    let l = self.model.dimensions[dim].label.clone();
                    if !query.group_by.contains(&l) {
                        query.group_by.push(l);
                    }
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
    fn within(&mut self, query: &mut MetricQuery, groups: &str, keep: u32, words: &str) {
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

    /// Averages, shares, max and min; counts and totals are met by the measures.
    fn aggregates(&mut self, query: &mut MetricQuery) {
        let asked: Vec<(Aggregate, Demand)> = self
            .demands
            .iter()
            .filter_map(|d| match d.kind {
                DemandKind::Aggregate { of } => Some((of, d.clone())),
                _ => None,
            })
            .collect();
        for (of, d) in asked {
            match of {
                Aggregate::Average => {
                    if query.measures.iter().any(|m| m.per.is_some()) || self.mean_of_threshold(&d) {
                        continue;
                    }
                    // 日均 / 月均: the mean per time bucket; 人均: per person, which no measure counts.
                    let per_bucket = match d.words.as_str() {
                        "日均" => Some(Grain::Day),
                        "周均" => Some(Grain::Week),
                        "月均" => Some(Grain::Month),
                        "年均" => Some(Grain::Year),
                        _ => None,
                    };
                    if let Some(grain) = per_bucket {
                        if query.time_range.is_none() || query.grain.is_some() {
                            self.reasons.push(format!("「{}」需要一个时间段", d.words));
                        } else {
                            query.measures.iter_mut().for_each(|m| m.per = Some(grain));
                        }
                        continue;
                    }
                    if d.words == "人均" {
                        self.reasons.push("「人均」：不能按人数求平均".into());
                        continue;
                    }
                    for m in &mut query.measures {
                        let Some(i) = self.model.measure_index(&m.name) else {
                            continue;
                        };
                        let spec = &self.model.measures[i];
                        let own = spec.expr.single_aggregate().map(|(n, _)| n.to_string());
                        let is_avg = own.as_deref() == Some("avg")
                            || matches!(&spec.expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "avg");
                        if is_avg {
                            continue;
                        }
                        if spec.reaggregations.contains(&Reaggregate::Avg) {
                            m.aggregate = Some(Reaggregate::Avg);
                        } else {
                            self.reasons.push(format!("{}不支持求平均", spec.label));
                        }
                    }
                }
                Aggregate::Max | Aggregate::Min => {
                    let want = if of == Aggregate::Max {
                        Reaggregate::Max
                    } else {
                        Reaggregate::Min
                    };
                    // 日销售额的最大值: the largest daily total — the top bucket — not the largest record.
                    if let Some(grain) = self.bucket_of_measure() {
                        if query.grain.is_some() || query.order.is_some() || query.measures.len() != 1 {
                            self.reasons.push(format!(
                                "「{}」：不能在分组或排名之外再取按时间汇总的{}",
                                d.words,
                                want.label()
                            ));
                            continue;
                        }
                        query.grain = Some(grain);
                        query.order = Some(Order {
                            measure: query.measures[0].name.clone(),
                            direction: if of == Aggregate::Max {
                                OrderDir::Desc
                            } else {
                                OrderDir::Asc
                            },
                        });
                        query.limit = Some(1);
                        continue;
                    }
                    for m in &mut query.measures {
                        let Some(i) = self.model.measure_index(&m.name) else {
                            continue;
                        };
                        if self.model.measures[i].reaggregations.contains(&want) {
                            m.aggregate = Some(want);
                        } else {
                            self.reasons
                                .push(format!("{}不支持求{}", self.model.measures[i].label, want.label()));
                        }
                    }
                }
                // 占比超过10%: the share a threshold compares, set with it.
                Aggregate::Share
                    if self.demands.iter().any(|t| {
                        matches!(t.kind, DemandKind::Threshold { .. }) && self.share_before(t) == Some(d.range.clone())
                    }) => {}
                Aggregate::Share => {
                    let across: Vec<String> = if query.group_by.is_empty() {
                        query.filters.iter().map(|f| f.dimension.clone()).collect()
                    } else {
                        query.group_by.clone()
                    };
                    if across.is_empty() {
                        self.reasons.push("占比需要说明是谁的占比".into());
                    } else {
                        query.share = Some(Share { across });
                    }
                }
                Aggregate::Count => {
                    let covered = self.mentions.iter().any(|(r, m)| {
                        matches!(m, Mention::Measure(_))
                            && (overlaps(r, &d.range) || r.start <= d.range.start && d.range.end <= r.end)
                    });
                    let counted = query.measures.iter().any(|m| {
                        self.model
                            .measure_index(&m.name)
                            .is_some_and(|i| is_count(&self.model.measures[i].expr))
                    });
                    let by_target = d.target.as_deref().and_then(|t| self.measure_of(t)).is_some();
                    let distinct = self.distinct.iter().any(|(_, r)| overlaps(r, &d.range));
                    if !(covered || counted || by_target || distinct) {
                        self.reasons
                            .push(format!("不能数「{}」", d.target.as_deref().unwrap_or(&d.words)));
                    }
                }
                Aggregate::Total => {}
            }
        }
    }

    /// A dimension named together with another (销售额前三的产品和地区) that the query neither groups by nor filters
    /// on is unmet (a dimension naming the population — 所有电影 — is not); so is a mean over the values of a dimension (平均每个销售的业绩: the mean of their
    /// totals, which the model does not compute).
    fn unused_dimensions(&mut self, query: &MetricQuery) {
        for (range, m) in &self.mentions {
            let Mention::Dimension(dim) = m else { continue };
            let label = &self.model.dimensions[*dim].label;
            let used = query.group_by.contains(label)
                || query.filters.iter().any(|f| &f.dimension == label)
                || self.distinct.iter().any(|(d, _)| d == dim);
            let joined = self
                .demands
                .iter()
                .any(|d| d.kind == DemandKind::Joined && (d.range.end == range.start || d.range.start == range.end));
            if !used && joined && !self.reasons.iter().any(|r| r.contains(label.as_str())) {
                self.reasons
                    .push(format!("「{label}」：问题提到了它，但查询没有按它分组或筛选"));
            }
        }
        let averages = self
            .demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::Aggregate { of: Aggregate::Average }));
        for avg in averages {
            let over_dimension = self.demands.iter().any(|g| {
                g.kind == (DemandKind::Group { grain: None })
                    && g.range.start >= avg.range.end
                    && self
                        .facts
                        .question
                        .get(avg.range.end..g.range.start)
                        .is_some_and(|between| between.trim().is_empty() || between == "的")
            });
            if over_dimension {
                self.reasons.push(format!("「{}」：不能求各组合计的平均值", avg.words));
            }
        }
    }

    /// A mean per bucket over a period still running (本月日均, 今年平均每个月) is over the buckets so far: days
    /// after today have no rows and would lower it.
    fn mean_to_date(&mut self, query: &mut MetricQuery) {
        let today = self.facts.today.to_string();
        if query.measures.iter().any(|m| m.per.is_some())
            && let Some(range) = &mut query.time_range
            && range.end > today
            && range.start <= today
        {
            range.end = today;
        }
    }

    /// The time bucket a measure's word is prefixed with (日销售额, 单日票房, 月销量): a total per bucket, not a
    /// record; none when the prefix belongs to a time expression (上个月销售额) or there is none.
    fn bucket_of_measure(&self) -> Option<Grain> {
        let q = &self.facts.question;
        self.mentions.iter().find_map(|(r, m)| {
            if !matches!(m, Mention::Measure(_)) {
                return None;
            }
            let before = q.get(..r.start)?;
            let c = before.chars().next_back()?;
            let at = r.start - c.len_utf8();
            if self.facts.times.iter().any(|t| t.range.start <= at && at < t.range.end) {
                return None;
            }
            grain_of_char(c)
        })
    }

    /// A threshold on a grouped measure (HAVING), or on each record's value of a measure named (单笔金额超过10万,
    /// 金额低于1万的订单有多少笔: records counted or called single); any other threshold on an ungrouped total is
    /// refused.
    fn threshold(&mut self, query: &mut MetricQuery) {
        let Some(d) = self
            .demands
            .iter()
            .find(|d| matches!(d.kind, DemandKind::Threshold { .. }))
            .cloned()
        else {
            return;
        };
        let DemandKind::Threshold { op, value } = d.kind else {
            return;
        };
        let words = d.measure.clone().unwrap_or_else(|| d.words.clone());
        let op = match op {
            demand::ThresholdOp::Above => ThresholdOp::Gt,
            demand::ThresholdOp::AtLeast => ThresholdOp::Ge,
            demand::ThresholdOp::Below => ThresholdOp::Lt,
            demand::ThresholdOp::AtMost => ThresholdOp::Le,
        };
        // 销量超过500套的产品: the threshold qualifies the dimension named right after it — a grouping by it.
        if query.group_by.is_empty()
            && query.grain.is_none()
            && let Some((dim, end)) = self.dimension_after(d.range.end)
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
        let percent = self.percent_in(&d.range);
        if percent || self.share_before(&d).is_some() {
            self.share_threshold(query, &d, op, value, percent);
            return;
        }
        if let Some(measure) = self.record_measure(&d, query) {
            query.each = Some(Threshold::new(self.measure_label(measure), op, value));
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
    }

    /// A threshold in percent, or on a share (占比超过10%, 比例超过0.1): each group's share of the total, never
    /// the measure's own value; a percent on anything but a share or a measure kept in percent is refused.
    fn share_threshold(&mut self, query: &mut MetricQuery, d: &Demand, op: ThresholdOp, value: f64, percent: bool) {
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
    fn percent_in(&self, range: &Range<usize>) -> bool {
        self.facts.spans.iter().any(|s| {
            s.kind == wenshu_lexicon::SpanKind::Number(wenshu_lexicon::numeral::NumeralKind::Percent)
                && range.start <= s.range.start
                && s.range.end <= range.end
        })
    }

    /// The share demand (占比, 比例) right before a threshold (销售额占比超过10%), its range.
    fn share_before(&self, d: &Demand) -> Option<Range<usize>> {
        self.demands.iter().find_map(|s| {
            let is_share = matches!(s.kind, DemandKind::Aggregate { of: Aggregate::Share });
            let gap = self.facts.question.get(s.range.end..d.range.start)?;
            (is_share && s.range.end <= d.range.start && is_glue(gap)).then(|| s.range.clone())
        })
    }

    /// The measure named right before a threshold (销售额超过…, 销售额占比超过…), with its words' range.
    fn threshold_measure(&self, d: &Demand) -> Option<(usize, Range<usize>)> {
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
    fn prefix_of(&self, at: usize) -> Prefix {
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
    fn mean_of_threshold(&self, avg: &Demand) -> bool {
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
    fn dimension_after(&self, at: usize) -> Option<(usize, usize)> {
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
    fn record_measure(&self, d: &Demand, query: &MetricQuery) -> Option<usize> {
        const SINGLE: &[&str] = &["单笔", "单条", "单次", "单张", "单件", "单个", "单一", "每单"];
        let words = d.measure.as_deref()?;
        let measure = self.measure_of(words)?;
        let spec = &self.model.measures[measure];
        spec.expr.single_aggregate()?;
        let single = SINGLE.iter().any(|w| canonical(words).starts_with(w));
        let counted = query.measures.iter().any(|m| {
            self.model
                .measure_index(&m.name)
                .is_some_and(|i| i != measure && is_count(&self.model.measures[i].expr))
        });
        let ungrouped = query.group_by.is_empty() && query.grain.is_none();
        (single || (counted && ungrouped)).then_some(measure)
    }

    /// Numbers the query does not use (a bare year, a count of nothing known): a number is never ignored.
    fn unused_numbers(&mut self) {
        let takes = |d: &Demand, n: f64| match d.kind {
            DemandKind::Rank { top: Some(top), .. } => (f64::from(top) - n).abs() < 1e-9,
            DemandKind::Threshold { value, .. } => (value - n).abs() < 1e-9,
            _ => false,
        };
        for span in &self.facts.spans {
            let wenshu_lexicon::SpanValue::Number(n) = span.value else {
                continue;
            };
            let used = self.facts.times.iter().any(|t| overlaps(&t.range, &span.range))
                || self.mentions.iter().any(|(r, _)| overlaps(r, &span.range))
                || self.demands.iter().any(|d| takes(d, n));
            if !used {
                let text = self.facts.question.get(span.range.clone()).unwrap_or_default();
                self.reasons.push(format!("不知道「{text}」这个数指什么"));
            }
        }
    }

    /// Words the question says that nothing accounted for: a name the model does not know must not be ignored.
    fn leftovers(&mut self) {
        let q = &self.facts.question;
        let mut covered = vec![false; q.len()];
        let mut cover = |r: &Range<usize>| {
            let end = r.end.min(q.len());
            covered[r.start.min(end)..end].iter_mut().for_each(|c| *c = true);
        };
        self.facts.spans.iter().for_each(|s| cover(&s.range));
        self.facts.times.iter().for_each(|t| cover(&t.range));
        self.mentions.iter().for_each(|(r, _)| cover(r));
        self.about.iter().for_each(&mut cover);
        for d in &self.demands {
            d.word_ranges(q).iter().for_each(&mut cover);
        }
        let mut runs: Vec<String> = Vec::new();
        let mut run = String::new();
        for (at, c) in q.char_indices() {
            if covered[at] || !c.is_alphanumeric() {
                if !run.is_empty() {
                    runs.push(std::mem::take(&mut run));
                }
            } else {
                run.push(c);
            }
        }
        if !run.is_empty() {
            runs.push(run);
        }
        for run in runs {
            if let Some(word) = reference_in(&run) {
                self.reasons
                    .push(format!("「{word}」指的是什么？指标问题要说出对象的名字"));
                continue;
            }
            let rest = strip_filler(&canonical(&run));
            if rest.chars().count() >= 2 {
                self.reasons.push(format!("不认识「{run}」"));
            }
        }
    }
}

/// Classifiers between 多少/几 and the thing counted (多少个销售, 几位客户, 几家承运商): general Chinese.
const CLASSIFIERS: &[char] = &[
    '个', '位', '名', '家', '户', '种', '款', '类', '只', '部', '条', '辆', '所',
];

/// Where the words asking "how many" end right before `at` begin (多少个 of 多少个销售员, how many of how many
/// sales people), if they do.
fn how_many_before(q: &str, at: usize) -> Option<usize> {
    let before = q.get(..at)?.trim_end();
    let bare = before
        .strip_suffix(|c: char| CLASSIFIERS.contains(&c))
        .unwrap_or(before);
    for word in ["多少", "几"] {
        if let Some(head) = bare.strip_suffix(word) {
            return Some(head.len());
        }
    }
    let lower = before.to_ascii_lowercase();
    lower
        .strip_suffix("how many")
        .filter(|head| head.is_empty() || head.ends_with(|c: char| !c.is_ascii_alphanumeric()))
        .map(str::len)
}

/// The words of a count of people (多少人, 几个人, how many people): general language.
fn people_count(q: &str) -> Option<Range<usize>> {
    for (at, _) in q.char_indices() {
        let rest = &q[at..];
        let Some(ask) = ["多少", "几"].iter().find(|w| rest.starts_with(**w)) else {
            continue;
        };
        let after = &rest[ask.len()..];
        let classifier = after.chars().next().filter(|c| ['个', '位', '名'].contains(c));
        let after_classifier = classifier.map_or(after, |c| &after[c.len_utf8()..]);
        if after_classifier.starts_with('人') {
            return Some(at..at + (rest.len() - after_classifier.len()) + '人'.len_utf8());
        }
    }
    let lower = q.to_ascii_lowercase();
    lower.find("how many people").map(|at| at..at + "how many people".len())
}

/// Whether a dimension's things are people: a word of it ends in a general word for a person (销售员, 客户, 司机
/// — 员, 户, 人, 者, 师, 客, 工, 手, 机 are general Chinese), or its code names people (sales_person, customer_id).
fn is_people(dim: &wenshu_contract::metric::Dimension) -> bool {
    const PEOPLE_ENDS: &[char] = &['人', '员', '者', '师', '客', '户', '工', '手', '生', '友'];
    const PEOPLE_EN: &[&str] = &[
        "person", "people", "staff", "employee", "customer", "client", "user", "member", "agent", "rep", "driver",
        "courier", "seller", "buyer", "owner", "manager", "worker", "student", "teacher", "patient", "doctor",
    ];
    std::iter::once(&dim.label)
        .chain(&dim.synonyms)
        .any(|w| w.trim().ends_with(PEOPLE_ENDS))
        || dim
            .name
            .to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| PEOPLE_EN.contains(&w) || PEOPLE_EN.iter().any(|p| w.strip_suffix('s') == Some(p)))
}

/// Whether a question may count the things of a dimension (多少 or 几 with a dimension's word or 人, how many):
/// it names no measure, and is built to see.
fn counts_things(model: &MetricModel, text: &str) -> bool {
    let asks = text.contains("多少") || text.contains('几') || text.to_ascii_lowercase().contains("how many");
    asks && (text.contains('人')
        || text.to_ascii_lowercase().contains("people")
        || model.dimensions.iter().any(|d| {
            std::iter::once(&d.label)
                .chain(&d.synonyms)
                .any(|w| text.contains(&canonical(w)))
                || !english::find(text, &d.name).is_empty()
        }))
}

/// What the words before a threshold's measure say of it.
enum Prefix {
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
fn is_glue(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || ["的", "是", "得", "is", "was", "are", "of"].contains(&t.to_ascii_lowercase().as_str())
}

/// Whether a measure is a mean itself (`AVG(amount)`, 客单价).
fn is_avg(expr: &wenshu_contract::metric::MetricExpr) -> bool {
    matches!(expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "avg")
}

/// Whether a canonical question asks for an amount of money.
fn asks_money(text: &str) -> bool {
    MONEY_WORDS.iter().any(|w| text.contains(w))
}

/// Whether a measure's unit is money.
fn is_currency(unit: &str) -> bool {
    CURRENCY_UNITS.contains(&canonical(unit).as_str())
}

/// The grain a character names before 均 or a measure (日均, 月销售额): 日/天, 周, 月, 季, 年.
fn grain_of_char(c: char) -> Option<Grain> {
    match c {
        '日' | '天' => Some(Grain::Day),
        '周' => Some(Grain::Week),
        '月' => Some(Grain::Month),
        '季' => Some(Grain::Quarter),
        '年' => Some(Grain::Year),
        _ => None,
    }
}

fn is_sum(expr: &wenshu_contract::metric::MetricExpr) -> bool {
    matches!(expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "sum")
}

fn is_count(expr: &wenshu_contract::metric::MetricExpr) -> bool {
    matches!(expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "count")
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

fn unmet(reason: String) -> MetricBuild {
    MetricBuild::Unmet { reasons: vec![reason] }
}

/// The first metric tool of `catalog` (in catalog order) that expresses the question, or the reasons of the first
/// one that came closest (the fewest unmet parts); none when the catalog has no metric tool.
pub fn choose<'c>(
    catalog: &'c wenshu_contract::Catalog,
    values: &MetricValues,
    question: &str,
    today: Date,
) -> Option<(&'c Tool, MetricBuild)> {
    let mut closest: Option<(&Tool, MetricBuild, usize)> = None;
    for tool in catalog.tools().iter().filter(|t| t.extensions().metrics.is_some()) {
        match build_query(tool, values, question, today) {
            MetricBuild::Query { query } => return Some((tool, MetricBuild::Query { query })),
            MetricBuild::Unmet { reasons } => {
                let n = reasons.len();
                if closest.as_ref().is_none_or(|(_, _, best)| n < *best) {
                    closest = Some((tool, MetricBuild::Unmet { reasons }, n));
                }
            }
        }
    }
    closest.map(|(tool, build, _)| (tool, build))
}
