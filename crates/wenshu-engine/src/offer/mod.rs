//! What a bound call offers: its shape, dimension, grain, ranking measure, counts and computations — from the
//! tool's `x-answers`, else read from the spellings of the enum values it is bound with and from its own words.
//! Extraction (a mode's shape), coverage (demands against it) and the answer (its row limit) read the same offer.
//!
//! - [`metric`]: the offer of a metric call, from its model and query.

mod metric;

use std::cell::RefCell;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::Tool;
use wenshu_contract::answers::{RankOrder, Shape};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{Aggregate, Baseline, Grain};
use wenshu_lexicon::memo::{Recent, recall};
use wenshu_lexicon::words::modes::{
    COUNT_SPELLINGS, COUNT_TEXT, DETAIL_SPELLINGS, GROUP_PREFIXES, LIST_TEXT, LOWEST_SPELLINGS, RANK_SPELLINGS,
    SUMMARY_SPELLINGS, TREND_SPELLINGS,
};

/// What one bound call answers, for coverage. Any kind of tool can describe its calls with one: a declared
/// `x-answers`, a metric model, or what the enum spellings say.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Offer {
    /// The shape of the rows; none when nothing says (an undeclared tool without a mode).
    pub shape: Option<Shape>,
    /// Grouped or ranked: the words naming the dimension of each row.
    pub dimension: Vec<String>,
    /// Series: the grain of each row.
    pub grain: Option<Grain>,
    /// Ranked: the words of the measure the rows are ordered by (none: not known).
    pub order_by: Vec<String>,
    /// Ranked: which ends it shows.
    pub order: RankOrder,
    /// The words of the measures shown.
    pub measures: Vec<String>,
    /// Whether a count (of orders, tickets…) is shown.
    pub counts: bool,
    /// The words of the things counted, when declared (订单, 单, 笔): a count of anything else is not shown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counted: Vec<String>,
    /// Aggregates computed beyond sums and counts (average, share, max, min).
    pub aggregates: Vec<Aggregate>,
    /// Period comparisons computed (环比, 同比, against a named period).
    pub periods: Vec<Baseline>,
    /// Thresholds applied, as the numbers bound.
    pub thresholds: Vec<f64>,
    /// The parameter capping the rows and its bound value.
    pub limit: Option<(String, u64)>,
    /// Ranked inside each group: the words naming the groups (the dimension's, or the time bucket's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub within: Vec<String>,
    /// Ranked inside each group: how many rows each group keeps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within_top: Option<u32>,
    /// Rows ordered by a dimension's values: the words naming it, and the direction.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sorted_by: Vec<String>,
    /// Ordered by a dimension: which way.
    pub sorted: RankOrder,
    /// Rows kept by a comparison with a mean: the words naming the dimension the mean is split by (empty: over
    /// all the rows); none when no mean is compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative: Option<Vec<String>>,
    /// Whether that comparison is with the median (高于中位数) rather than the mean.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub relative_median: bool,
    /// The kinds of day the call keeps or splits by (周末, 工作日): the words of them it reads.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub days: Vec<wenshu_lexicon::words::days::KindOfDay>,
    /// Whether each time bucket shows a running total.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cumulative: bool,
    /// Whether a measure is shown divided by or less another (每单销量, 销售额除以销量).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub combined: bool,
    /// The words of what a ratio is per: a measure (订单 of 每个订单的销售额) or people (driver of fee per driver);
    /// no grouping by it is asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ratio_per: Vec<String>,
    /// Where the offer comes from: `x-answers`, `x-metrics` or `spellings`.
    pub source: &'static str,
}

impl Offer {
    /// An offer that says nothing yet.
    pub fn unknown(source: &'static str) -> Offer {
        Offer {
            shape: None,
            dimension: Vec::new(),
            grain: None,
            order_by: Vec::new(),
            order: RankOrder::Desc,
            measures: Vec::new(),
            counts: false,
            counted: Vec::new(),
            aggregates: Vec::new(),
            periods: Vec::new(),
            thresholds: Vec::new(),
            limit: None,
            within: Vec::new(),
            within_top: None,
            sorted_by: Vec::new(),
            sorted: RankOrder::Asc,
            cumulative: false,
            combined: false,
            ratio_per: Vec::new(),
            relative: None,
            relative_median: false,
            days: Vec::new(),
            source,
        }
    }
}

/// Whether one of `spellings` holds one of `words` (canonical, containment).
pub fn spelled(spellings: &[String], words: &[&str]) -> bool {
    spellings.iter().any(|s| {
        let s = canonical(s);
        words.iter().any(|w| s.contains(&canonical(w)))
    })
}

/// The value of each bound enum parameter with all its spellings (value, synonyms, labels).
pub fn bound_spellings(tool: &Tool, arguments: &Map<String, Value>) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    for spec in tool.params().iter() {
        let (Some(value), Some(index)) = (
            arguments.get(&spec.name).and_then(Value::as_str),
            tool.enum_index(&spec.name),
        ) else {
            continue;
        };
        let mut spellings = vec![value.to_string()];
        if let Some((_, others)) = index.surfaces().iter().find(|(v, _)| v == value) {
            spellings.extend(others.iter().cloned());
        }
        out.push((spec.name.clone(), value.to_string(), spellings));
    }
    out
}

/// The grain a spelling names (day, 按天, 每日趋势 → day).
fn grain_spelled(spellings: &[String]) -> Option<Grain> {
    let table: &[(&[&str], Grain)] = &[
        (&["quarter", "季度"], Grain::Quarter),
        (&["month", "月"], Grain::Month),
        (&["week", "周", "星期"], Grain::Week),
        (&["day", "daily", "天", "日"], Grain::Day),
        (&["year", "年"], Grain::Year),
    ];
    table
        .iter()
        .find(|(words, _)| spelled(spellings, words))
        .map(|(_, g)| *g)
}

/// What a call of `tool` with `arguments` answers.
pub fn offer_of(tool: &Tool, arguments: &Map<String, Value>) -> Offer {
    if let Some(offer) = metric::offer(tool, arguments) {
        return offer;
    }
    if let Some(answers) = &tool.extensions().answers {
        let mut offer = Offer::unknown("x-answers");
        if let Some(answer) = answers.for_call(arguments) {
            offer.shape = Some(answer.shape);
            offer.dimension = answer.dimension.clone();
            offer.grain = answer.grain_for(arguments);
            offer.order_by = answer.order_by.clone();
            offer.order = answer.order;
            offer.measures = answer.measures.clone();
            offer.counts = !answer.counts.is_empty();
            offer.counted = answer.counts.clone();
            offer.limit = answer
                .limit
                .as_ref()
                .and_then(|p| arguments.get(p).and_then(Value::as_u64).map(|n| (p.clone(), n)));
        }
        offer.thresholds = bound_numbers(tool, arguments, offer.limit.as_ref().map(|(p, _)| p.as_str()));
        return offer;
    }
    spelled_offer(tool, arguments)
}

/// The numbers bound to numeric parameters other than the row limit, differing from their defaults.
fn bound_numbers(tool: &Tool, arguments: &Map<String, Value>, limit: Option<&str>) -> Vec<f64> {
    tool.params()
        .iter()
        .filter(|spec| Some(spec.name.as_str()) != limit)
        .filter_map(|spec| {
            let value = arguments.get(&spec.name)?;
            let n = value.as_f64()?;
            (spec.default.as_ref() != Some(value)).then_some(n)
        })
        .collect()
}

/// The offer of an undeclared tool, read from the spellings of its bound enum values and its own words.
fn spelled_offer(tool: &Tool, arguments: &Map<String, Value>) -> Offer {
    let mut offer = Offer::unknown("spellings");
    let title = tool.title().unwrap_or_default();
    let words = tool_words(tool);
    let mut low_bound = false;
    for spec in tool.params().iter() {
        let (Some(value), Some(_)) = (
            arguments.get(&spec.name).and_then(Value::as_str),
            tool.enum_index(&spec.name),
        ) else {
            continue;
        };
        let says = words.says(&spec.name, value);
        low_bound |= says.low;
        match &says.class {
            Class::Rank => offer.shape = Some(Shape::Ranked),
            Class::Trend(grain) => {
                offer.shape = Some(Shape::Series);
                offer.grain = offer.grain.or(*grain).or(Some(Grain::Day));
            }
            Class::Detail => offer.shape = Some(Shape::Rows),
            Class::Count => offer.counts = true,
            Class::Summary => {
                offer.shape.get_or_insert(Shape::Totals);
            }
            Class::Grain(grain) => {
                offer.shape = Some(Shape::Series);
                offer.grain = Some(*grain);
            }
            Class::Group(dimension) => {
                offer.shape = Some(Shape::Grouped);
                offer.dimension.extend(dimension.iter().cloned());
            }
            Class::Nothing => {}
        }
    }
    if words.title_ranks {
        offer.shape = Some(Shape::Ranked);
    }
    if offer.shape.is_none() && offer.counts {
        offer.shape = Some(Shape::Totals);
    }
    if offer.shape == Some(Shape::Ranked) {
        offer.dimension.push(title.to_string());
        offer.dimension.push(tool.description().to_string());
        offer.order = match (words.can_go_low, low_bound) {
            (true, true) => RankOrder::Asc,
            _ => RankOrder::Desc,
        };
    }
    offer.counts = offer.counts || words.own_counts;
    if offer.shape.is_none() && words.own_lists && !words.has_mode {
        offer.shape = Some(Shape::Rows);
    }
    let limit = words.limit.as_deref();
    offer.thresholds = bound_numbers(tool, arguments, limit);
    offer.limit = limit.and_then(|p| arguments.get(p).and_then(Value::as_u64).map(|n| (p.to_string(), n)));
    offer
}

/// What one enum value's spellings say about a call bound with it.
#[derive(Debug, Clone, PartialEq)]
struct ValueSays {
    /// The way of answering it names, if any.
    class: Class,
    /// Whether it spells ranking from the bottom.
    low: bool,
}

/// The way of answering an enum value names, the first that holds: ranking, trend, detail, count, summary, a
/// grain, a grouping by something.
#[derive(Debug, Clone, PartialEq)]
enum Class {
    Rank,
    Trend(Option<Grain>),
    Detail,
    Count,
    Summary,
    Grain(Grain),
    Group(Vec<String>),
    Nothing,
}

impl ValueSays {
    /// What a value spelled these ways (the value first) says.
    fn of(spellings: &[String]) -> Self {
        let class = if spelled(spellings, RANK_SPELLINGS) {
            Class::Rank
        } else if spelled(spellings, TREND_SPELLINGS) {
            Class::Trend(grain_spelled(spellings))
        } else if spelled(spellings, DETAIL_SPELLINGS) {
            Class::Detail
        } else if spelled(spellings, COUNT_SPELLINGS) {
            Class::Count
        } else if spelled(spellings, SUMMARY_SPELLINGS) {
            Class::Summary
        } else if let Some(grain) = grain_spelled(spellings).filter(|_| is_grain_value(spellings)) {
            Class::Grain(grain)
        } else if let Some(words) = grouping_words(spellings) {
            Class::Group(words)
        } else {
            Class::Nothing
        };
        Self {
            class,
            low: spelled(spellings, LOWEST_SPELLINGS),
        }
    }
}

/// What a tool's own words and enum spellings say, read once per tool: what each value says, and the tool-wide
/// facts (a title that ranks, a value that ranks from the bottom, words that count or list, a mode enum).
#[derive(Debug)]
pub struct ToolWords {
    /// Each enum parameter with each value (spelled with its synonyms and labels) and what it says.
    values: Vec<(String, Vec<(String, ValueSays)>)>,
    /// Whether the title or name says the tool ranks (快递员排名, courier_ranking).
    pub title_ranks: bool,
    /// Whether some value spells ranking from the bottom.
    can_go_low: bool,
    /// Whether the tool's own words say it counts.
    own_counts: bool,
    /// Whether the tool's own words say it lists records.
    own_lists: bool,
    /// Whether some enum spells a mode (ranking, trend, detail).
    has_mode: bool,
    /// The row-limit parameter.
    limit: Option<String>,
    /// Every string of the definition a user might say (title, descriptions, labels, synonyms, examples) and the
    /// identifiers' English words, one a line, lower case: the vocabulary the reading accounts words with.
    vocabulary: String,
}

impl ToolWords {
    /// Reads a tool's words.
    fn read(tool: &Tool) -> Self {
        let title = tool.title().unwrap_or_default();
        let own_text = vec![format!("{} {} {}", tool.name(), title, tool.description())];
        let values: Vec<(String, Vec<(String, ValueSays)>)> = tool
            .params()
            .iter()
            .filter_map(|spec| tool.enum_index(&spec.name).map(|index| (spec, index)))
            .map(|(spec, index)| {
                let says = index
                    .surfaces()
                    .iter()
                    .map(|(value, others)| {
                        let mut all = vec![value.clone()];
                        all.extend(others.iter().cloned());
                        (value.clone(), ValueSays::of(&all))
                    })
                    .collect();
                (spec.name.clone(), says)
            })
            .collect();
        let all_surfaces = || {
            tool.params()
                .iter()
                .filter_map(|spec| tool.enum_index(&spec.name))
                .flat_map(|index| index.surfaces().iter())
                .map(|(value, others)| {
                    let mut all = others.clone();
                    all.push(value.clone());
                    all
                })
        };
        Self {
            values,
            title_ranks: spelled(&[title.to_string(), tool.name().to_string()], RANK_SPELLINGS),
            can_go_low: all_surfaces().any(|all| spelled(&all, LOWEST_SPELLINGS)),
            own_counts: spelled(&own_text, COUNT_TEXT),
            own_lists: spelled(&own_text, LIST_TEXT),
            has_mode: all_surfaces().any(|all| {
                [RANK_SPELLINGS, TREND_SPELLINGS, DETAIL_SPELLINGS]
                    .iter()
                    .any(|words| spelled(&all, words))
            }),
            limit: limit_param(tool).map(str::to_string),
            vocabulary: {
                let mut text = String::new();
                collect_strings(tool.definition(), &mut text);
                text.to_lowercase()
            },
        }
    }

    /// Every string of the definition a user might say, and the identifiers' words, lower case.
    pub fn vocabulary(&self) -> &str {
        &self.vocabulary
    }

    /// What `value` of the enum parameter `param` says (read afresh when it is none of the values).
    fn says(&self, param: &str, value: &str) -> std::borrow::Cow<'_, ValueSays> {
        self.values
            .iter()
            .find(|(p, _)| p == param)
            .and_then(|(_, values)| values.iter().find(|(v, _)| v == value))
            .map_or_else(
                || std::borrow::Cow::Owned(ValueSays::of(&[value.to_string()])),
                |(_, says)| std::borrow::Cow::Borrowed(says),
            )
    }
}

/// The text a tool's words are read from: name, title, description, and each parameter's name with its enum
/// spellings. Two tools with the same key have the same [`ToolWords`].
#[derive(Debug)]
struct ToolKey {
    name: String,
    title: Option<String>,
    description: String,
    params: Vec<(String, Surfaces)>,
}

/// An enum's values, each with its other spellings (as `EnumIndex::surfaces` gives them).
type Surfaces = Vec<(String, Vec<String>)>;

impl ToolKey {
    fn of(tool: &Tool) -> Self {
        Self {
            name: tool.name().to_string(),
            title: tool.title().map(str::to_string),
            description: tool.description().to_string(),
            params: tool
                .params()
                .iter()
                .map(|spec| {
                    let surfaces = tool.enum_index(&spec.name).map(|i| i.surfaces().to_vec());
                    (spec.name.clone(), surfaces.unwrap_or_default())
                })
                .collect(),
        }
    }

    /// Whether this is the key of `tool`.
    fn is_of(&self, tool: &Tool) -> bool {
        self.name == tool.name()
            && self.title.as_deref() == tool.title()
            && self.description == tool.description()
            && self.params.len() == tool.params().len()
            && self
                .params
                .iter()
                .zip(tool.params().iter())
                .all(|((name, surfaces), spec)| {
                    *name == spec.name && tool.enum_index(&spec.name).map_or(&[][..], |i| i.surfaces()) == &surfaces[..]
                })
    }
}

/// How many tools' words each thread remembers.
const RECENT_TOOLS: usize = 64;

thread_local! {
    /// The words of the tools most recently read on this thread.
    static RECENT: RefCell<Recent<ToolKey, Arc<ToolWords>>> = const { RefCell::new(Recent::new(RECENT_TOOLS)) };
}

/// What a tool's words say, read once per tool and remembered (per thread, by the text they are read from).
pub fn tool_words(tool: &Tool) -> Arc<ToolWords> {
    recall(
        &RECENT,
        |key| key.is_of(tool),
        || (ToolKey::of(tool), Arc::new(ToolWords::read(tool))),
    )
}

/// Keys of a tool's definition whose strings are not words a user would say (SQL, addresses, schemas' types).
const NOT_VOCABULARY: &[&str] = &["x-sql", "x-http", "x-http-auth", "type", "format", "pattern", "$schema"];

/// Appends every string of `value` a user might say, one a line; identifiers also as their words.
fn collect_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
            if s.is_ascii() && !s.contains(' ') {
                out.push_str(&wenshu_lexicon::english::identifier_words(s).join(" "));
                out.push('\n');
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => {
            for (key, v) in map {
                if NOT_VOCABULARY.contains(&key.as_str()) {
                    continue;
                }
                // Property names are identifiers a user may spell (region, salesPerson).
                out.push_str(&wenshu_lexicon::english::identifier_words(key).join(" "));
                out.push('\n');
                collect_strings(v, out);
            }
        }
        _ => {}
    }
}

/// The row-limit parameter of an undeclared tool: an integer named like a limit.
fn limit_param(tool: &Tool) -> Option<&str> {
    tool.params()
        .iter()
        .find(|spec| {
            let name = spec.name.to_ascii_lowercase();
            ["limit", "top", "size"].iter().any(|w| name.contains(w))
        })
        .map(|spec| spec.name.as_str())
}

/// Whether an enum value is itself a grain (day, 按天, 每周), not a grouping by something else.
fn is_grain_value(spellings: &[String]) -> bool {
    const GRAINS: &[&str] = &["day", "week", "month", "quarter", "year", "daily", "weekly", "monthly"];
    spellings
        .first()
        .is_some_and(|v| GRAINS.contains(&v.to_ascii_lowercase().as_str()))
        || spellings.iter().any(|s| {
            let s = canonical(s);
            [
                "按天",
                "按日",
                "每天",
                "每日",
                "按周",
                "每周",
                "按月",
                "每月",
                "按季度",
                "每季度",
                "按年",
                "每年",
            ]
            .iter()
            .any(|w| s == *w)
        })
}

/// The dimension words of a grouping value spelled with a grouping cue (按承运商 → 承运商), if it is one.
fn grouping_words(spellings: &[String]) -> Option<Vec<String>> {
    let words: Vec<String> = spellings
        .iter()
        .filter_map(|s| {
            let s = canonical(s);
            GROUP_PREFIXES
                .iter()
                .find_map(|p| s.strip_prefix(p).map(str::to_string))
                .filter(|rest| !rest.is_empty())
        })
        .collect();
    (!words.is_empty()).then_some(words)
}
