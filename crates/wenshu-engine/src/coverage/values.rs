//! The values a question names for a tool — filter enum values by any spelling, entity names — against the
//! bound call: two values for a single-valued parameter are unmet (华东和华南), and a value named but bound
//! otherwise is unmet; nothing is dropped silently.

use std::cell::RefCell;
use std::ops::Range;
use std::sync::Arc;

use serde_json::{Map, Value};
use wenshu_contract::{ParamSpec, ParamType, Tool};
use wenshu_lexicon::memo::{Recent, recall};
use wenshu_lexicon::synonym::SynonymHit;
use wenshu_lexicon::time::time_word_ranges;

use super::Unmet;
use super::message::{param_label, unmet};
use crate::resolve::EntityCatalogs;
use crate::resolve::named::{NamedEntity, entity_mentions, overlaps};

/// Whether a parameter filters (an enum with no default, not the declared mode): its values are the question's
/// values, not a way of answering.
pub(crate) fn is_filter_enum(tool: &Tool, spec: &ParamSpec) -> bool {
    let mode = tool.extensions().answers.as_ref().and_then(|a| a.mode_param());
    !spec.enum_values.is_empty() && spec.default.is_none() && mode != Some(spec.name.as_str())
}

/// The values `question` names for each parameter of `tool` that takes names: filter enum values by any
/// spelling (outside entity names), entity names of an `x-entity` or subject parameter; in order, each once.
pub fn named_values(tool: &Tool, question: &str, entities: &EntityCatalogs) -> Vec<(String, Vec<String>)> {
    named_in(tool, &Reading::of(tool, question, entities), entities)
}

/// What a question says for one tool, read once per checked call and shared by the checks of its values: the
/// entity names, each enum parameter's spellings found, the time words.
pub struct Reading<'a> {
    /// The question.
    pub question: &'a str,
    /// The entity names, of every type.
    pub mentions: Vec<NamedEntity>,
    /// Each enum parameter (in schema order) with the spellings of its values found in the question.
    pub hits: Vec<(&'a str, Vec<SynonymHit>)>,
    /// The byte ranges of the time words.
    pub times: Arc<[Range<usize>]>,
}

impl<'a> Reading<'a> {
    /// Reads `question` for `tool`.
    pub fn of(tool: &'a Tool, question: &'a str, entities: &EntityCatalogs) -> Self {
        Self {
            question,
            mentions: entity_mentions(entities, question),
            hits: tool
                .params()
                .iter()
                .filter_map(|spec| tool.enum_index(&spec.name).map(|index| (spec, index)))
                .map(|(spec, index)| (spec.name.as_str(), index.matcher().find_all(question)))
                .collect(),
            times: time_words(question),
        }
    }
}

/// [`named_values`] of a question already read.
pub fn named_in(tool: &Tool, reading: &Reading<'_>, entities: &EntityCatalogs) -> Vec<(String, Vec<String>)> {
    let question = reading.question;
    let mentions = &reading.mentions;
    let hits_by_param = &reading.hits;
    let other_hits: Vec<(&str, &std::ops::Range<usize>)> = hits_by_param
        .iter()
        .flat_map(|(param, hits)| hits.iter().map(move |h| (*param, &h.range)))
        .collect();
    let times = &reading.times;
    let mut out = Vec::new();
    for spec in tool.params().iter() {
        if spec.ty == ParamType::Array {
            continue;
        }
        let mut named: Vec<String> = Vec::new();
        if is_filter_enum(tool, spec) {
            let Some((_, hits)) = hits_by_param.iter().find(|(p, _)| *p == spec.name) else {
                continue;
            };
            for hit in hits {
                // A value spelled inside a time expression (the week of "this week") is the time's word.
                let inside_name = mentions
                    .iter()
                    .map(|m| &m.range)
                    .chain(times.iter())
                    .any(|r| overlaps(r, &hit.range));
                let inside_other = other_hits
                    .iter()
                    .any(|(p, r)| *p != spec.name && r.len() > hit.range.len() && overlaps(r, &hit.range));
                // A one-character label (中 of P3(中)) is no value beside a longer spelling of another value.
                let weak = question.get(hit.range.clone()).is_some_and(|w| w.chars().count() == 1)
                    && hits
                        .iter()
                        .any(|h| h.value != hit.value && h.range.len() > hit.range.len());
                if !inside_name && !inside_other && !weak && !named.contains(&hit.value) {
                    named.push(hit.value.clone());
                }
            }
        } else if let Some(entity_type) = entity_type_of(tool, spec) {
            for m in mentions.iter().filter(|m| m.entity_type == entity_type) {
                let name = entities
                    .get(entity_type)
                    .and_then(|index| m.ids.first().and_then(|id| index.by_id(id)))
                    .map_or_else(|| m.surface.clone(), |e| e.name.clone());
                if !named.contains(&name) {
                    named.push(name);
                }
            }
        }
        if !named.is_empty() {
            out.push((spec.name.clone(), named));
        }
    }
    out
}

/// How many questions' time words each thread remembers.
const RECENT_QUESTIONS: usize = 4;

thread_local! {
    /// The byte ranges of the time words of the questions most recently read on this thread.
    static TIME_WORDS: RefCell<Recent<String, Arc<[Range<usize>]>>> =
        const { RefCell::new(Recent::new(RECENT_QUESTIONS)) };
}

/// The byte ranges of the time words of `question` (remembered per thread).
pub(crate) fn time_words(question: &str) -> Arc<[Range<usize>]> {
    recall(
        &TIME_WORDS,
        |q| q == question,
        || {
            // `year over year`, 同比: a period-over-period cue is a time word too (its `year` no grain asked).
            let mut ranges = time_word_ranges(question);
            ranges.extend(
                wenshu_lexicon::demand::demands(question, &[])
                    .into_iter()
                    .filter(|d| matches!(d.kind, wenshu_lexicon::demand::DemandKind::Period { .. }))
                    .map(|d| d.range),
            );
            (question.to_string(), ranges.into())
        },
    )
}

/// Every value `question` names that the bound call does not take.
pub fn unmet_values(
    tool: &Tool,
    arguments: &Map<String, Value>,
    question: &str,
    entities: &EntityCatalogs,
) -> Vec<Unmet> {
    unmet_named(tool, arguments, &named_values(tool, question, entities))
}

/// Every value of `named` (what [`named_values`] finds) that the bound call does not take.
pub fn unmet_named(tool: &Tool, arguments: &Map<String, Value>, named: &[(String, Vec<String>)]) -> Vec<Unmet> {
    let mut out = Vec::new();
    for (param, named) in named {
        let Some(spec) = tool.param(param) else {
            continue;
        };
        let label = param_label(spec);
        match named.as_slice() {
            [] => {}
            [one] => {
                let bound = arguments.get(param);
                let is_subject = tool.extensions().subject.as_ref().is_some_and(|s| s.param == *param);
                let taken = is_subject || bound.and_then(Value::as_str) == Some(one.as_str());
                if !taken {
                    out.push(unmet(
                        one,
                        format!("没有用上「{one}」（{label}）"),
                        format!("「{one}」 ({label}) was not used"),
                    ));
                }
            }
            several => {
                let list = several.join("、");
                out.push(unmet(
                    &list,
                    format!("一次只能查一个{label}：{list}"),
                    format!("one {label} at a time: {}", several.join(", ")),
                ));
            }
        }
    }
    out
}

/// Whether every value in `named` appears among a call's arguments (as a string, inside arrays too).
pub fn takes_all(arguments: &Map<String, Value>, named: &[(String, Vec<String>)]) -> bool {
    let text = Value::Object(arguments.clone()).to_string();
    named
        .iter()
        .flat_map(|(_, values)| values.iter())
        .all(|v| text.contains(&Value::String(v.clone()).to_string()))
}

/// The entity type whose names a parameter takes: its `x-entity`, or the subject type for the subject.
pub(super) fn entity_type_of<'a>(tool: &'a Tool, spec: &'a ParamSpec) -> Option<&'a str> {
    if let Some(t) = spec.entity.as_deref() {
        return Some(t);
    }
    let subject = tool.extensions().subject.as_ref()?;
    (subject.param == spec.name).then_some(subject.entity_type.as_str())
}
