//! A word shaped like a value of a filter parameter that is none of its values (火星区 where the values are spelled
//! 华东区, 华南区, …) is unmet: the call without it would answer for every value — a plausible number for a question
//! nobody asked. The shape comes from the catalog alone: a last character that the spellings of two or more values
//! share, after a stem as long as theirs.

use std::collections::BTreeSet;
use std::ops::Range;

use wenshu_contract::{ParamSpec, Tool};
use wenshu_lexicon::canonical::is_han;

use super::Unmet;
use super::message::{param_label, unmet};
use super::values::{Reading, is_filter_enum};
use crate::resolve::EntityCatalogs;

/// Characters that never begin or fill a value's stem: quantifiers, numerals, demonstratives, question words,
/// position and degree words, prepositions and particles (各地区, 哪个大区, 按地区, 这个区, 所有地区, 多少件, 三件,
/// 最新版 are no values).
const NOT_IN_STEMS: &str = "各每个哪全所有分按大小本该这那此某其同多少几些在与和及或跟的了是为从到对向给比把被将就都也还只自整等谁啥什么其他另别\
                            一二三四五六七八九十百千万亿两零上下前后内外里近最新旧高低好差总共";

/// What the spellings of one parameter's values share: a last character, and the lengths of the stems before it.
struct ValueShape {
    suffix: char,
    stem_lengths: BTreeSet<usize>,
}

/// The shapes of `spec`'s values: each last character that spellings of two or more values end in (CJK only).
fn value_shapes(surfaces: &[(String, Vec<String>)]) -> Vec<ValueShape> {
    let mut shapes: Vec<(ValueShape, BTreeSet<&str>)> = Vec::new();
    for (value, spellings) in surfaces {
        for spelling in std::iter::once(value).chain(spellings) {
            let chars: Vec<char> = spelling.chars().collect();
            let Some((&last, stem)) = chars.split_last() else {
                continue;
            };
            if stem.is_empty() || !chars.iter().all(|c| is_han(*c)) {
                continue;
            }
            match shapes.iter_mut().find(|(s, _)| s.suffix == last) {
                Some((shape, values)) => {
                    shape.stem_lengths.insert(stem.len());
                    values.insert(value);
                }
                None => shapes.push((
                    ValueShape {
                        suffix: last,
                        stem_lengths: BTreeSet::from([stem.len()]),
                    },
                    BTreeSet::from([value.as_str()]),
                )),
            }
        }
    }
    shapes
        .into_iter()
        .filter(|(_, values)| values.len() >= 2)
        .map(|(shape, _)| shape)
        .collect()
}

/// The tool's own words: its title, description and parameter descriptions (a span these hold is a term of the
/// tool — 地区, 发货 — not a value).
fn tool_text(tool: &Tool) -> String {
    let definition = tool.definition();
    let mut text = String::new();
    for key in ["title", "description"] {
        if let Some(s) = definition.get(key).and_then(|v| v.as_str()) {
            text.push_str(s);
            text.push('\n');
        }
    }
    for spec in tool.params().iter() {
        text.push_str(&spec.description);
        text.push('\n');
    }
    text
}

/// The spans of `question` shaped like a value of `spec` that are none of its spellings and overlap nothing in
/// `known` (values found, times, names).
fn unknown_spans(
    tool: &Tool,
    spec: &ParamSpec,
    shapes: &[ValueShape],
    question: &str,
    known: &[Range<usize>],
    own_text: &str,
) -> Vec<String> {
    let Some(index) = tool.enum_index(&spec.name) else {
        return Vec::new();
    };
    if shapes.is_empty() {
        return Vec::new();
    }
    let chars: Vec<(usize, char)> = question.char_indices().collect();
    let mut found: Vec<Range<usize>> = Vec::new();
    for (end, &(at, c)) in chars.iter().enumerate() {
        let Some(shape) = shapes.iter().find(|s| s.suffix == c) else {
            continue;
        };
        let stop = at + c.len_utf8();
        for &stem in shape.stem_lengths.iter().rev() {
            let Some(start) = end.checked_sub(stem) else {
                continue;
            };
            let stem_chars = &chars[start..end];
            if !stem_chars
                .iter()
                .all(|(_, ch)| is_han(*ch) && !NOT_IN_STEMS.contains(*ch))
            {
                continue;
            }
            let span = chars[start].0..stop;
            let word = &question[span.clone()];
            let overlaps = known.iter().any(|r| r.start < span.end && span.start < r.end);
            // A tail of the span that the tool's own text holds (地区 of 火星地区, 发货 of 仓发货) makes it a term.
            let tool_term = word
                .char_indices()
                .skip(1)
                .any(|(i, _)| word[i..].chars().count() >= 2 && own_text.contains(&word[i..]));
            if overlaps || tool_term || index.lookup(word).is_some() {
                continue;
            }
            // The longer of two spans that overlap (东北区 over 东北) is the word.
            found.retain(|f| !(span.start <= f.start && f.end <= span.end));
            if !found.iter().any(|f| f.start < span.end && span.start < f.end) {
                found.push(span);
            }
            break;
        }
    }
    found.into_iter().map(|r| question[r].to_string()).collect()
}

/// Every word of `question` shaped like a value of a filter parameter of `tool` that is none of its values, as
/// unmet, naming what the parameter can take instead. Spans already read as something else — a value of any
/// parameter, a time, an entity name — are not values.
pub fn unknown_values(tool: &Tool, question: &str, entities: &EntityCatalogs) -> Vec<Unmet> {
    unknown_in(tool, &Reading::of(tool, question, entities))
}

/// [`unknown_values`] of a question already read.
pub fn unknown_in(tool: &Tool, reading: &Reading<'_>) -> Vec<Unmet> {
    let question = reading.question;
    let filters: Vec<(&ParamSpec, Vec<ValueShape>)> = tool
        .params()
        .iter()
        .filter(|spec| is_filter_enum(tool, spec))
        .filter_map(|spec| {
            let shapes = value_shapes(tool.enum_index(&spec.name)?.surfaces());
            shapes
                .iter()
                .any(|s| question.contains(s.suffix))
                .then_some((spec, shapes))
        })
        .collect();
    if filters.is_empty() {
        return Vec::new();
    }
    let known = known_spans(reading);
    let own_text = tool_text(tool);
    let mut out = Vec::new();
    for (spec, shapes) in filters {
        for word in unknown_spans(tool, spec, &shapes, question, &known, &own_text) {
            let label = param_label(spec);
            let values: Vec<&str> = spec.enum_strings().collect();
            out.push(unmet(
                &word,
                format!("「{word}」不是{label}的取值，可选：{}", values.join("、")),
                format!("「{word}」 is not a {label}; the values are {}", values.join(", ")),
            ));
        }
    }
    out
}

/// What the question already says in other words: every enum spelling of the tool, every time, every entity name.
fn known_spans(reading: &Reading<'_>) -> Vec<Range<usize>> {
    let mut known: Vec<Range<usize>> = reading
        .hits
        .iter()
        .flat_map(|(_, hits)| hits.iter().map(|hit| hit.range.clone()))
        .collect();
    known.extend(reading.times.iter().cloned());
    known.extend(reading.mentions.iter().map(|m| m.range.clone()));
    known
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wenshu_contract::Catalog;

    use super::*;

    /// A catalog of another domain: store footfall, stores spelled 朝阳店 / 海淀店 / 西城店, a channel 线上 / 门店.
    fn catalog() -> Catalog {
        let tools = json!({"tools": [{
            "name": "footfall",
            "title": "门店客流",
            "description": "查询各门店的客流与成交",
            "inputSchema": {"type": "object", "properties": {
                "store": {"type": "string", "description": "门店筛选", "enum": ["朝阳", "海淀", "西城"]},
                "channel": {"type": "string", "description": "渠道", "enum": ["线上", "门店"]}
            }},
            "x-enum-synonyms": {"store": {"朝阳": ["朝阳店"], "海淀": ["海淀店"], "西城": ["西城店"]}}
        }]});
        Catalog::from_json_str(&tools.to_string()).unwrap()
    }

    fn unknown(question: &str) -> Vec<String> {
        let catalog = catalog();
        unknown_values(catalog.get("footfall").unwrap(), question, &EntityCatalogs::new())
            .into_iter()
            .map(|u| u.words)
            .collect()
    }

    #[test]
    fn a_word_shaped_like_a_value_but_none_of_them_is_unmet() {
        assert_eq!(unknown("丰台店上周的客流"), ["丰台店"]);
        let catalog = catalog();
        let unmet = unknown_values(
            catalog.get("footfall").unwrap(),
            "丰台店上周的客流",
            &EntityCatalogs::new(),
        );
        assert!(unmet[0].reason.contains("朝阳、海淀、西城"), "{:?}", unmet[0]);
        assert_eq!(unknown("朝阳店和丰台店的客流"), ["丰台店"]);
    }

    #[test]
    fn known_values_quantifiers_and_the_tools_own_words_are_not_values() {
        for question in [
            "朝阳店上周的客流",
            "各门店上周的客流",
            "哪家店客流最高",
            "三家店的成交",
            "每个店的客流",
            "这家店上周的客流",
            "最新店的客流",
        ] {
            assert_eq!(unknown(question), Vec::<String>::new(), "{question}");
        }
    }

    #[test]
    fn a_shape_needs_two_values_that_share_it() {
        // 线上 / 门店 share no last character: no shape, so 网店 is not read as a channel.
        assert_eq!(unknown("网上的成交"), Vec::<String>::new());
    }
}
