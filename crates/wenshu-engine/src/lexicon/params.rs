//! The parameters a question states, one family at a time: enum values by their spellings, periods by the days
//! they denote, counts by top-N numerals, entity names, places, ID-like tokens, yes/no words and dates. Nothing is
//! guessed: a parameter the question does not state is left to its default.

use std::ops::Range;

use jiff::civil::Date;
use serde_json::{Map, Number, Value};
use wenshu_contract::{ParamSpec, ParamType, Tool};
use wenshu_lexicon::bilingual::translations;
use wenshu_lexicon::english::find_identifier;
use wenshu_lexicon::numeral::{NumeralKind, integer_of};
use wenshu_lexicon::period::match_period_of;
use wenshu_lexicon::place::find_place;
use wenshu_lexicon::{SpanKind, SpanValue};

use wenshu_lexicon::demand::{DemandKind, ThresholdOp};

use super::flags::{flag_denial, flag_subject, flag_value};
use super::legs::{city_in, leg_of};
use super::tool_choice::{NamedEntity, entity_mentions, is_id_param, overlaps};
use crate::facts::QuestionFacts;
use crate::param_kinds::{is_period_param, is_place_param};
use crate::resolve::EntityCatalogs;
use wenshu_lexicon::words::cues::{IdToken, id_tokens};

/// One value the question states, and the words that state it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stated {
    /// The parameter.
    pub param: String,
    /// The value.
    pub value: Value,
    /// How the question states it.
    pub evidence: String,
}

/// What a question states for a tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatedParams {
    /// The values, in schema order.
    pub values: Vec<Stated>,
    /// A period the question names that the tool's period enum cannot take: (parameter, words).
    pub unsupported: Option<(String, String)>,
}

/// What the question holds, read once for every parameter.
struct Reading<'a> {
    facts: std::sync::Arc<QuestionFacts>,
    /// The thresholds the question states: (byte range, comparison, number).
    thresholds: Vec<(Range<usize>, ThresholdOp, f64)>,
    mentions: Vec<NamedEntity>,
    tokens: Vec<IdToken>,
    entities: &'a EntityCatalogs,
}

/// The parameters `question` states for `tool`, skipping `skip` (filled by code).
pub fn stated_params(
    tool: &Tool,
    question: &str,
    today: Date,
    skip: &[&str],
    entities: &EntityCatalogs,
) -> StatedParams {
    let facts = QuestionFacts::shared(question, today);
    let mentions = entity_mentions(entities, question);
    let enum_ranges: Vec<Range<usize>> = tool
        .params()
        .iter()
        .filter_map(|spec| tool.enum_index(&spec.name))
        .flat_map(|index| index.matcher().find_all(question).into_iter().map(|hit| hit.range))
        .collect();
    let taken: Vec<Range<usize>> = enum_ranges
        .into_iter()
        .chain(mentions.iter().map(|m| m.range.clone()))
        .collect();
    let tokens = free_id_tokens(&facts, &taken);
    let thresholds = facts
        .demands
        .iter()
        .filter_map(|d| match d.kind {
            DemandKind::Threshold { op, value } => Some((d.range.clone(), op, value)),
            _ => None,
        })
        .collect();
    let reading = Reading {
        facts,
        thresholds,
        mentions,
        tokens,
        entities,
    };
    let mut out = StatedParams::default();
    let booleans = tool
        .params()
        .iter()
        .filter(|s| s.ty == ParamType::Boolean && !skip.contains(&s.name.as_str()))
        .count();
    let integers = tool
        .params()
        .iter()
        .filter(|s| matches!(s.ty, ParamType::Integer | ParamType::Number) && !skip.contains(&s.name.as_str()))
        .count();
    for spec in tool.params().iter().filter(|s| !skip.contains(&s.name.as_str())) {
        let found = if !spec.enum_values.is_empty() {
            if is_period_param(spec, today) {
                match period_value(spec, &reading) {
                    Ok(found) => found,
                    Err(words) => {
                        out.unsupported.get_or_insert((spec.name.clone(), words));
                        None
                    }
                }
            } else {
                enum_value(tool, spec, &reading)
            }
        } else {
            match spec.ty {
                ParamType::Integer | ParamType::Number => match bound_kind(spec) {
                    Some(lower) => threshold_value(spec, &reading, lower),
                    None => count_value(spec, &reading, integers == 1),
                },
                ParamType::Boolean if flag_subject(spec).is_some() => match flag_denial(spec, question) {
                    Some(words) => {
                        out.unsupported.get_or_insert((spec.name.clone(), words));
                        None
                    }
                    None => flag_value(spec, question)
                        .map(|(b, words)| (Value::Bool(b), format!("the question says {words}"))),
                },
                ParamType::Boolean if booleans == 1 => reading.facts.boolean.map(|b| {
                    (
                        Value::Bool(b),
                        format!("the question says {}", if b { "yes" } else { "no" }),
                    )
                }),
                ParamType::String if spec.enum_values.is_empty() && leg_of(spec).is_some() => leg_of(spec)
                    .and_then(|leg| city_in(leg, question, &reading.facts.places))
                    .map(|(city, words)| (Value::String(city), format!("「{words}」 in the question's route"))),
                ParamType::Object if is_place_param(spec) => place_value(spec, &reading),
                ParamType::String if spec.entity.is_some() => entity_value(spec, &reading),
                ParamType::String if spec.format.as_deref() == Some("date") => date_value(spec, &reading),
                ParamType::String if is_time_zone_param(spec) => reading.facts.zones.first().map(|hit| {
                    (
                        Value::String(hit.zone.to_string()),
                        format!("the question names 「{}」, in {}", hit.place, hit.zone),
                    )
                }),
                ParamType::String if is_id_param(tool, spec) => reading.tokens.first().map(|t| {
                    (
                        Value::String(t.text.clone()),
                        format!("the ID-like token 「{}」", t.text),
                    )
                }),
                _ => None,
            }
        };
        if let Some((value, evidence)) = found {
            out.values.push(Stated {
                param: spec.name.clone(),
                value,
                evidence,
            });
        }
    }
    out
}

/// The ID-like tokens of a question that are not part of a time expression, a "top N", or one of `taken`.
pub(super) fn free_id_tokens(facts: &QuestionFacts, taken: &[Range<usize>]) -> Vec<IdToken> {
    id_tokens(&facts.question)
        .into_iter()
        .filter(|t| {
            !facts.times.iter().any(|s| overlaps(&s.range, &t.range))
                && !facts
                    .spans
                    .iter()
                    .any(|s| matches!(s.kind, SpanKind::Number(NumeralKind::TopN)) && overlaps(&s.range, &t.range))
                && !taken.iter().any(|r| overlaps(r, &t.range))
        })
        .collect()
}

/// A period enum's value: the one denoting the days of the question's first time expression; `Err(words)` when
/// no value does; `Ok(None)` when the question names no time.
fn period_value(spec: &ParamSpec, reading: &Reading<'_>) -> Result<Option<(Value, String)>, String> {
    let Some((_, words)) = reading.facts.first_time() else {
        return Ok(None);
    };
    let values: Vec<&str> = spec.enum_strings().collect();
    match match_period_of(&values, words, reading.facts.today) {
        Some(value) => {
            let evidence = format!("「{words}」 denotes the same days as {value}");
            Ok(Some((Value::String(value), evidence)))
        }
        None => Err(words.to_string()),
    }
}

/// An enum's value by a spelling in the question (value, synonym, label), outside entity names and IDs; when
/// several values are spelled, the default gives way, then the longest spelling wins, then the first.
fn enum_value(tool: &Tool, spec: &ParamSpec, reading: &Reading<'_>) -> Option<(Value, String)> {
    let index = tool.enum_index(&spec.name)?;
    let question = &reading.facts.question;
    let hits: Vec<_> = index
        .matcher()
        .find_all(question)
        .into_iter()
        .filter(|hit| {
            !reading.mentions.iter().any(|m| overlaps(&m.range, &hit.range))
                && !reading.tokens.iter().any(|t| overlaps(&t.range, &hit.range))
                && !reading.facts.times.iter().any(|t| overlaps(&t.range, &hit.range))
        })
        .collect();
    if hits.is_empty() {
        return identifier_value(spec, reading).or_else(|| translated_value(tool, spec, reading));
    }
    let default = spec.default.as_ref().and_then(Value::as_str);
    let several = hits
        .first()
        .is_some_and(|first| hits.iter().any(|h| h.value != first.value));
    let best = hits
        .iter()
        .filter(|h| !(several && Some(h.value.as_str()) == default))
        .enumerate()
        .max_by_key(|(i, h)| {
            (
                question.get(h.range.clone()).map_or(0, |w| w.chars().count()),
                std::cmp::Reverse(*i),
            )
        })
        .map(|(_, h)| h)?;
    let words = question.get(best.range.clone()).unwrap_or_default();
    Some((
        Value::String(best.value.clone()),
        format!("the question says 「{words}」 ({})", best.value),
    ))
}

/// How many other words may stand between two words of an enum value written as an identifier.
const IDENTIFIER_GAP: usize = 1;

/// An enum value written as an identifier of several words, found as those words in an English question
/// (`good_rate` ↔ "good review rate", `on_time_rate` ↔ "on-time rate"); only when exactly one value is found.
fn identifier_value(spec: &ParamSpec, reading: &Reading<'_>) -> Option<(Value, String)> {
    let question = &reading.facts.question;
    let mut found = spec.enum_strings().filter_map(|value| {
        let range = find_identifier(question, value, IDENTIFIER_GAP)?;
        let clear = !reading.facts.times.iter().any(|t| overlaps(&t.range, &range))
            && !reading.mentions.iter().any(|m| overlaps(&m.range, &range));
        clear.then(|| (value.to_string(), range))
    });
    let (value, range) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let words = question.get(range).unwrap_or_default();
    let evidence = format!("the question spells the words of {value}: 「{words}」");
    Some((Value::String(value), evidence))
}

/// An enum value spelled by the Chinese of an English word of the question, by the general vocabulary (daily →
/// 每天, a spelling of `day`); only when the question's words name exactly one value of the parameter.
fn translated_value(tool: &Tool, spec: &ParamSpec, reading: &Reading<'_>) -> Option<(Value, String)> {
    let index = tool.enum_index(&spec.name)?;
    let question = &reading.facts.question;
    let mut found: Vec<(String, String)> = Vec::new();
    for translation in translations(question) {
        let range = &translation.range;
        if reading.facts.times.iter().any(|t| overlaps(&t.range, range))
            || reading.mentions.iter().any(|m| overlaps(&m.range, range))
        {
            continue;
        }
        let words = question.get(range.clone()).unwrap_or_default();
        for chinese in translation.chinese {
            let whole = index
                .matcher()
                .find_all(chinese)
                .into_iter()
                .find(|hit| hit.range == (0..chinese.len()));
            if let Some(hit) = whole
                && !found.iter().any(|(value, _)| *value == hit.value)
            {
                found.push((hit.value, format!("「{words}」 means {chinese} ({})", spec.name)));
            }
        }
    }
    match found.as_slice() {
        [(value, evidence)] => Some((Value::String(value.clone()), evidence.clone())),
        _ => None,
    }
}

/// A string parameter that takes a time zone (its name or description says so).
fn is_time_zone_param(spec: &ParamSpec) -> bool {
    let text = format!("{} {}", spec.name, spec.description).to_ascii_lowercase();
    ["timezone", "time zone", "time_zone", "tz"]
        .iter()
        .any(|w| text.contains(w))
        || spec.description.contains("时区")
}

/// Whether a number parameter is a lower bound (`Some(true)`: min…, 最少, 至少, 不少于) or an upper bound
/// (`Some(false)`: max…, 最多, 上限), not a count of rows.
fn bound_kind(spec: &ParamSpec) -> Option<bool> {
    let name = spec.name.to_ascii_lowercase();
    let d = &spec.description;
    if name.starts_with("min")
        || ["最少", "至少", "最低", "不少于", "下限", "起码"]
            .iter()
            .any(|w| d.contains(w))
    {
        return Some(true);
    }
    let limit_like = ["limit", "top", "size"].iter().any(|w| name.contains(w));
    if !limit_like && (name.starts_with("max") || ["上限", "不超过", "最高"].iter().any(|w| d.contains(w))) {
        return Some(false);
    }
    None
}

/// A bound from the question's threshold of the same direction (不少于五百单 → 500 for a minimum).
fn threshold_value(spec: &ParamSpec, reading: &Reading<'_>, lower: bool) -> Option<(Value, String)> {
    let (range, _, n) = reading.thresholds.iter().find(|(_, op, _)| {
        let is_lower = matches!(op, ThresholdOp::AtLeast | ThresholdOp::Above);
        is_lower == lower
    })?;
    let value = match spec.ty {
        ParamType::Integer => Value::from(integer_of(*n)?),
        _ => Value::Number(Number::from_f64(*n)?),
    };
    let words = reading.facts.question.get(range.clone()).unwrap_or_default();
    Some((value, format!("the threshold 「{words}」")))
}

/// Whether a number parameter counts records (limit, top, 条数, 返回 …).
fn is_count_param(spec: &ParamSpec) -> bool {
    let name = spec.name.to_ascii_lowercase();
    let description = spec.description.to_lowercase();
    ["limit", "top", "count", "size", "num", "max"]
        .iter()
        .any(|w| name.contains(w))
        || ["条", "数", "名", "记录", "返回", "limit", "top"]
            .iter()
            .any(|w| description.contains(w))
}

/// A count from a top-N numeral (前五, top 10, 前二十条), else a counted numeral (十条) — never a year, a date
/// or a numeral inside a time expression, an entity name or an ID.
fn count_value(spec: &ParamSpec, reading: &Reading<'_>, only_number: bool) -> Option<(Value, String)> {
    if !is_count_param(spec) && !only_number {
        return None;
    }
    let usable = |kind: NumeralKind| {
        reading.facts.spans.iter().find(|s| {
            s.kind == SpanKind::Number(kind)
                && !reading.thresholds.iter().any(|(r, _, _)| overlaps(r, &s.range))
                && !reading.mentions.iter().any(|m| overlaps(&m.range, &s.range))
                && !reading.tokens.iter().any(|t| overlaps(&t.range, &s.range))
        })
    };
    let span = usable(NumeralKind::TopN).or_else(|| usable(NumeralKind::Count))?;
    let SpanValue::Number(n) = span.value else {
        return None;
    };
    let value = match spec.ty {
        ParamType::Integer => Value::from(integer_of(n)?),
        _ => Value::Number(Number::from_f64(n)?),
    };
    Some((value, format!("the numeral 「{}」", span.text)))
}

/// A `{province, city}` object from the gazetteer (广东深圳 → 广东, 深圳).
fn place_value(spec: &ParamSpec, reading: &Reading<'_>) -> Option<(Value, String)> {
    let hit = reading.facts.places.first()?;
    let place = find_place(&reading.facts.question)?;
    let mut object = Map::new();
    if spec.property("province").is_some() {
        object.insert("province".into(), Value::String(place.province.clone()));
    }
    if let (Some(city), Some(_)) = (&place.city, spec.property("city")) {
        object.insert("city".into(), Value::String(city.clone()));
    }
    let words = reading.facts.question.get(hit.range.clone()).unwrap_or_default();
    (!object.is_empty()).then(|| (Value::Object(object), format!("the place 「{words}」")))
}

/// The name of an entity of the parameter's `x-entity` type named in the question (its catalog name).
fn entity_value(spec: &ParamSpec, reading: &Reading<'_>) -> Option<(Value, String)> {
    let entity_type = spec.entity.as_deref()?;
    let Some(mention) = reading.mentions.iter().find(|m| m.entity_type == entity_type) else {
        let index = reading.entities.get(entity_type)?;
        let (entity, words) = partial_name(index, &reading.facts.question)?;
        return Some((
            Value::String(entity.name.clone()),
            format!("「{words}」 is part of the name of one {entity_type} only"),
        ));
    };
    let name = reading
        .entities
        .get(entity_type)
        .and_then(|index| mention.ids.first().and_then(|id| index.by_id(id)))
        .map_or_else(|| mention.surface.clone(), |e| e.name.clone());
    Some((
        Value::String(name),
        format!("the {entity_type} 「{}」 is named", mention.surface),
    ))
}

/// The fewest characters a part of a name needs to stand for the entity.
const PARTIAL_NAME_CHARS: usize = 3;

/// The longest CJK words of a question (three characters or more) that are part of the name of exactly one
/// entity (白云仓 of 广州白云仓), with those words.
fn partial_name<'a>(
    index: &'a crate::resolve::EntityIndex,
    question: &str,
) -> Option<(&'a crate::resolve::Entity, String)> {
    let chars: Vec<char> = wenshu_lexicon::sentence::Sentence::new(question).chars;
    let names: Vec<String> = index
        .entities()
        .iter()
        .map(|e| wenshu_lexicon::sentence::Sentence::new(&e.name).chars.iter().collect())
        .collect();
    let longest = chars
        .len()
        .min(names.iter().map(|n| n.chars().count()).max().unwrap_or(0));
    for length in (PARTIAL_NAME_CHARS..=longest).rev() {
        for window in chars.windows(length) {
            if !window.iter().all(|&c| wenshu_lexicon::sentence::is_cjk(c)) {
                continue;
            }
            let words: String = window.iter().collect();
            let mut holders = names.iter().enumerate().filter(|(_, n)| n.contains(words.as_str()));
            if let (Some((position, _)), None) = (holders.next(), holders.next()) {
                return index.entities().get(position).map(|e| (e, words));
            }
        }
    }
    None
}

/// A `format: date` parameter from the question's first time expression: its first day for a start, its last
/// day for an end, the day itself for a one-day expression.
fn date_value(spec: &ParamSpec, reading: &Reading<'_>) -> Option<(Value, String)> {
    let (range, words) = reading.facts.first_time()?;
    let name = spec.name.to_ascii_lowercase();
    let is_end = ["end", "to", "until", "stop"].iter().any(|w| name.contains(w)) || spec.description.contains("结束");
    let is_start =
        ["start", "begin", "from", "since"].iter().any(|w| name.contains(w)) || spec.description.contains("开始");
    let day = match (is_start, is_end) {
        (_, true) => range.end,
        (true, false) => range.start,
        (false, false) if range.start == range.end => range.start,
        (false, false) => return None,
    };
    Some((Value::String(day.to_string()), format!("「{words}」 covers {day}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::EntityCatalogs;

    fn store_ranking() -> wenshu_contract::Catalog {
        let catalog = serde_json::json!({"tools": [{"name": "store_ranking", "inputSchema": {"type": "object",
        "properties": {
            "metric": {"type": "string", "enum": ["sales_amount", "repeat_share", "refund_rate"],
                "default": "sales_amount", "description": "排名指标"},
            "grain": {"type": "string", "enum": ["day", "week", "month"], "description": "汇总粒度"}
        }}}]});
        wenshu_contract::Catalog::from_json_str(&catalog.to_string()).unwrap()
    }

    fn stated(question: &str) -> Vec<(String, Value)> {
        let catalog = store_ranking();
        let today = jiff::civil::date(2026, 11, 29);
        stated_params(&catalog.tools()[0], question, today, &[], &EntityCatalogs::new())
            .values
            .into_iter()
            .map(|s| (s.param, s.value))
            .collect()
    }

    #[test]
    fn an_identifier_value_is_read_word_by_word() {
        let metric = |q: &str| stated(q).into_iter().find(|(p, _)| p == "metric").map(|(_, v)| v);
        assert_eq!(
            metric("top 5 stores by repeat customer share"),
            Some(Value::from("repeat_share"))
        );
        assert_eq!(metric("stores by refund rate"), Some(Value::from("refund_rate")));
        assert_eq!(metric("stores by refunds"), None, "one word of two is no value");
        assert_eq!(
            metric("refund rate or repeat share"),
            None,
            "two values named: neither is taken"
        );
    }

    #[test]
    fn an_english_word_spells_a_value_by_its_chinese() {
        let catalog = serde_json::json!({"tools": [{"name": "visits", "inputSchema": {"type": "object",
        "properties": {
            "grain": {"type": "string", "enum": ["d", "w", "m"], "description": "粒度：d(每天)、w(每周)、m(每月)"},
            "state": {"type": "string", "enum": ["open", "shut"], "description": "状态：open(待处理)、shut(已关闭)"}
        }}}]});
        let catalog = wenshu_contract::Catalog::from_json_str(&catalog.to_string()).unwrap();
        let today = jiff::civil::date(2026, 11, 29);
        let stated = |q: &str| -> Vec<(String, Value)> {
            stated_params(&catalog.tools()[0], q, today, &[], &EntityCatalogs::new())
                .values
                .into_iter()
                .map(|s| (s.param, s.value))
                .collect()
        };
        assert_eq!(stated("weekly visits"), vec![("grain".to_string(), Value::from("w"))]);
        assert_eq!(
            stated("closed tickets, daily"),
            vec![
                ("grain".to_string(), Value::from("d")),
                ("state".to_string(), Value::from("shut"))
            ]
        );
        assert_eq!(stated("daily and weekly visits"), vec![], "two values: neither");
    }

    #[test]
    fn an_enum_value_inside_a_time_expression_is_the_times() {
        let grain = |q: &str| stated(q).into_iter().find(|(p, _)| p == "grain").map(|(_, v)| v);
        assert_eq!(grain("sales of this week"), None, "the week of 「this week」");
        assert_eq!(grain("sales this month by week"), Some(Value::from("week")));
    }

    #[test]
    fn a_part_of_one_name_only_stands_for_that_entity() {
        let entities = EntityCatalogs::from_json_str(
            r#"{"site": [{"id": 1, "name": "东城青松站"}, {"id": 2, "name": "西城青松站"}, {"id": 3, "name": "南湖白桦站"}]}"#,
        )
        .unwrap();
        let Some(index) = entities.get("site") else {
            panic!("site index");
        };
        let found = partial_name(index, "白桦站本周到货多少").map(|(e, words)| (e.name.clone(), words));
        assert_eq!(found, Some(("南湖白桦站".to_string(), "白桦站".to_string())));
        assert!(
            partial_name(index, "青松站本周到货多少").is_none(),
            "two sites hold 青松站"
        );
        assert!(
            partial_name(index, "白桦本周到货多少").is_none(),
            "two characters are too few"
        );
    }
}
