//! The metric query of a question, built by code: measures, dimensions and values named in it (from the metric
//! model and the data), times from the time knowledge, and what it asks for from the demands. Whatever it cannot
//! express is reported, never dropped: a question is answered as asked or not at all.

mod aggregates;
mod bands;
mod combined;
mod days;
mod dimensions;
mod folded;
mod measures;
mod rank;
mod relative;
mod sort;
mod threshold;
mod times;

use std::ops::Range;

use jiff::civil::Date;
use serde::Serialize;
use wenshu_contract::Tool;
use wenshu_contract::metric::{MetricModel, MetricQuery};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{Demand, DemandKind};
use wenshu_lexicon::filler::strip_filler;

use super::values::{MetricValues, ValueMention};
use crate::facts::QuestionFacts;
use folded::Folded;
use measures::{asks_money, counts_things};
use wenshu_lexicon::identifiers as english;
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
    /// Other words a step read (周末, 工作日): accounted for, not leftovers.
    read: Vec<Range<usize>>,
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
        // 每单运费 as a measure's own word is no grouping per 单运费.
        let demands = demands
            .into_iter()
            .filter(|d| {
                !(matches!(d.kind, DemandKind::Group { grain: None })
                    && mentions.iter().any(|(r, m)| {
                        matches!(m, Mention::Measure(_)) && r.start <= d.range.start && d.range.start < r.end
                    }))
            })
            .collect();
        Self {
            model,
            facts,
            demands,
            mentions,
            about,
            distinct: Vec::new(),
            read: Vec::new(),
            reasons: Vec::new(),
        }
    }

    fn build(mut self) -> MetricBuild {
        let mut query = MetricQuery::default();
        self.distinct_counts();
        self.measures(&mut query);
        self.combined(&mut query);
        self.bands(&mut query);
        self.filters(&mut query);
        self.times(&mut query);
        self.groups(&mut query);
        self.days(&mut query);
        self.listed(&mut query);
        self.sort(&mut query);
        self.rank(&mut query);
        self.aggregates(&mut query);
        self.running_total(&mut query);
        self.threshold(&mut query);
        self.relative(&mut query);
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

    /// Removes the demands `taken` says a step read (每单 of a ratio, the thresholds of bands): their words are read,
    /// never leftovers; the removed ones are returned.
    fn take_demands_where(&mut self, taken: impl Fn(&Demand) -> bool) -> Vec<Demand> {
        let q = &self.facts.question;
        let (took, kept): (Vec<Demand>, Vec<Demand>) =
            std::mem::take(&mut self.demands).into_iter().partition(|d| taken(d));
        for d in &took {
            self.read.extend(d.word_ranges(q));
        }
        self.demands = kept;
        took
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
                || self.read.iter().any(|r| overlaps(r, &span.range))
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
        self.read.iter().for_each(&mut cover);
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

/// Whether two byte ranges share a byte.
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// A build that cannot be met, for one reason.
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
