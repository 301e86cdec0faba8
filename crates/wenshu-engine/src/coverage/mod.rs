//! Coverage: after bind, whether the bound call answers everything the question asks — every value it names
//! (a second value for a single-valued parameter is unmet, never dropped) and every demand (grouping, ranking,
//! comparison, aggregate, threshold, rows). A demand is met only by what the call offers ([`crate::offer`]).
//!
//! - [`measures`]: the catalog's measures a question names that the call does not show.
//! - [`values`]: the values the question names, against the bound parameters.
//! - [`unknown`]: a word shaped like a filter's values but none of them (火星区) is unmet, never ignored.
//! - [`statistics`]: a statistic the tool never names (中位数, 方差, median) is unmet, never answered as a sum.
//! - [`exclusion`]: a value the question leaves out (除了X, 不含X, X之外) is never a filter on it.
//! - [`time_words`]: a date the scan left out (国庆之后), a kind of day (周末, 工作日) and periods read apart
//!   (今年周末) are unmet, never a default period.
//! - [`reference`]: a reference word nothing resolved (它, 这个产品), for a tool without a subject, is unmet.
//! - [`unread`]: every word accounted for — a word nothing reads (a place, a name, a kind of customer, a
//!   measure the tool lacks: 杭州, 老客户, 佣金) is unmet, never ignored.
//! - [`meets`]: one demand against an offer.
//! - [`message`]: what cannot be done and what can be answered instead, in words.

pub mod exclusion;
pub mod measures;
pub mod meets;
pub mod message;
pub mod reference;
pub mod statistics;
pub mod time_words;
pub mod unknown;
pub mod unread;
pub mod values;

use jiff::civil::Date;
use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::Tool;
use wenshu_lexicon::demand::{Demand, DemandKind};

use crate::facts::QuestionFacts;
pub use crate::offer::{Offer, offer_of};
use crate::resolve::EntityCatalogs;

/// One thing the question asks for that the call does not give.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmet {
    /// The question's words.
    pub words: String,
    /// What cannot be done, in Chinese (不能按地区分组).
    pub reason: String,
    /// The same in English.
    pub reason_en: String,
}

/// The coverage of one bound call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    /// The tool.
    pub tool: String,
    /// The demands of the question.
    pub demands: Vec<Demand>,
    /// What the call offers.
    pub offer: Offer,
    /// What the call does not give; empty when it answers the question.
    pub unmet: Vec<Unmet>,
    /// What the tool can answer instead, in Chinese.
    pub instead: Vec<String>,
    /// What another tool tried instead would need: a metric tool's title and why it could not build the query
    /// (没有指明要统计的指标…), so that a stop says how to ask it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<(String, String)>,
    /// The values the question names for the tool ([`values::named_values`]).
    #[serde(skip)]
    pub named: Vec<(String, Vec<String>)>,
    /// How many of `unmet` are values named and not taken (the first ones).
    #[serde(skip)]
    pub value_unmet: usize,
}

impl Coverage {
    /// Whether the call answers everything the question asks.
    pub fn is_met(&self) -> bool {
        self.unmet.is_empty()
    }

    /// What cannot be done, in Chinese, one clause each.
    pub fn reason(&self) -> String {
        self.unmet
            .iter()
            .map(|u| u.reason.as_str())
            .collect::<Vec<_>>()
            .join("；")
    }

    /// What cannot be done, in English.
    pub fn reason_en(&self) -> String {
        self.unmet
            .iter()
            .map(|u| u.reason_en.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Every string inside a JSON value (an address object's city and province too).
pub(crate) fn strings_in<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings_in(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings_in(v, out)),
        _ => {}
    }
}

/// The question's demands that coverage judges (things named together are judged as values).
pub fn question_demands(facts: &QuestionFacts) -> Vec<Demand> {
    facts
        .demands
        .iter()
        .filter(|d| d.kind != DemandKind::Joined)
        .cloned()
        .collect()
}

/// Checks one bound call of `tool` against `question`.
pub fn check(
    tool: &Tool,
    arguments: &Map<String, Value>,
    question: &str,
    today: Date,
    entities: &EntityCatalogs,
) -> Coverage {
    let facts = QuestionFacts::shared(question, today);
    let demands = question_demands(&facts);
    check_with(tool, arguments, &facts, demands, entities)
}

/// Checks one bound call against facts and demands already read.
pub fn check_with(
    tool: &Tool,
    arguments: &Map<String, Value>,
    facts: &QuestionFacts,
    demands: Vec<Demand>,
    entities: &EntityCatalogs,
) -> Coverage {
    let offer = offer_of(tool, arguments);
    let reading = values::Reading::of(tool, &facts.question, entities);
    let named = values::named_in(tool, &reading, entities);
    let mut unmet = values::unmet_named(tool, arguments, &named);
    let value_unmet = unmet.len();
    unmet.extend(unknown::unknown_in(tool, &reading));
    unmet.extend(exclusion::excluded_named(arguments, &facts.question, &named));
    unmet.extend(time_words::unread_times(facts));
    unmet.extend(time_words::day_kinds(facts, &offer.days));
    unmet.extend(time_words::two_periods(facts, &offer));
    unmet.extend(time_words::later_baseline(arguments));
    for demand in &demands {
        match meets::meets(demand, &offer, tool, arguments, &demands) {
            Err(u) => unmet.push(u),
            Ok(()) => unmet.extend(meets::uncounted(demand, &offer, &facts.question)),
        }
    }
    unmet.extend(reference::unresolved_reference(tool, facts));
    // 高于中位数: a comparison with the median computes it.
    let asked: Vec<_> = facts
        .statistics
        .iter()
        .filter(|s| !(offer.relative_median && s.en == "median"))
        .cloned()
        .collect();
    unmet.extend(statistics::unmet_statistics(tool, &asked));
    let unread = unread::unread_in(tool, arguments, facts, &reading, &demands, entities, &unmet);
    unmet.extend(unread);
    Coverage {
        tool: tool.name().to_string(),
        demands,
        offer,
        unmet,
        instead: message::instead(tool),
        others: Vec::new(),
        named,
        value_unmet,
    }
}

/// What the user's own words of a follow-up leave unread in a call bound from the conversation (that
/// [`check_with`] judged on the rewrite carrying the earlier rounds): a value named but not bound, a word shaped
/// like a parameter's values that is none of them, and every word nothing reads (那京津冀呢, 那马晓东呢, 那佣金呢
/// — a rewrite that dropped the word must not answer the earlier question again).
pub fn unread_own_words(
    tool: &Tool,
    arguments: &Map<String, Value>,
    facts: &QuestionFacts,
    entities: &EntityCatalogs,
) -> Vec<Unmet> {
    let reading = values::Reading::of(tool, &facts.question, entities);
    let named = values::named_in(tool, &reading, entities);
    let mut unmet = values::unmet_named(tool, arguments, &named);
    unmet.extend(unknown::unknown_in(tool, &reading));
    let demands = question_demands(facts);
    let unread = unread::unread_in(tool, arguments, facts, &reading, &demands, entities, &unmet);
    unmet.extend(unread);
    unmet
}

/// The mode values of `tool` whose answer meets every demand (for a call that fits once its mode is set), in
/// order: the declared mode's values, or — for a tool without `x-answers` — any enum value whose spellings make
/// the call answer (detail for 列出来, ranking for 前五); `arguments` are the call's other parameters.
pub fn fitting_modes(tool: &Tool, arguments: &Map<String, Value>, demands: &[Demand]) -> Vec<(String, String)> {
    let candidates: Vec<(String, String)> = match &tool.extensions().answers {
        Some(answers) => match answers.mode_param() {
            Some(param) => answers
                .all()
                .into_iter()
                .filter_map(|(value, _)| value)
                .map(|value| (param.to_string(), value.to_string()))
                .collect(),
            None => Vec::new(),
        },
        None => tool
            .params()
            .iter()
            .flat_map(|spec| spec.enum_strings().map(move |v| (spec.name.clone(), v.to_string())))
            .collect(),
    };
    candidates
        .into_iter()
        .filter(|(param, value)| arguments.get(param).and_then(Value::as_str) != Some(value.as_str()))
        .filter(|(param, value)| {
            let mut args = arguments.clone();
            args.insert(param.clone(), Value::String(value.clone()));
            let offer = offer_of(tool, &args);
            demands
                .iter()
                .all(|d| meets::meets(d, &offer, tool, &args, demands).is_ok())
        })
        .collect()
}

#[cfg(test)]
mod tests;
