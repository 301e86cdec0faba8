//! Every word of the question accounted for. The question is tiled: numerals and times, the tool's values by any
//! spelling, names of the entities the tool takes, the demands' words, the tool's own vocabulary (its title,
//! descriptions, labels, synonyms and examples — the catalog's words) and the filler of the language knowledge
//! (帮我, 是多少, 谢谢, please). What is left is **unread**: a place, a name, a kind of customer, a measure the tool
//! does not have. A call that ignores an unread word would answer a question nobody asked (杭州本月的销售额 → the
//! national total), so each unread word is unmet, named with what the tool can take instead.
//!
//! Metric tools are read by their query builder (`metric::build`), which accounts for every word the same way
//! with the same filler; this module reads the calls of every other tool but those with a parameter the
//! principal fills, whose named values the row scope judges when they run.

use std::ops::Range;
use std::sync::Arc;

use serde_json::{Map, Value};
use wenshu_contract::{ParamType, Tool};
use wenshu_lexicon::bilingual::translations;
use wenshu_lexicon::canonical::is_han;
use wenshu_lexicon::demand::Demand;
use wenshu_lexicon::english::{find_identifier, stems};
use wenshu_lexicon::filler::{restricts_nothing, unread_pieces};
use wenshu_lexicon::surname::looks_like_person_name;

use super::exclusion::without_cues;
use super::message::{param_label, unmet};
use super::values::{Reading, entity_type_of, is_filter_enum};
use super::{Unmet, strings_in};
use crate::facts::QuestionFacts;
use crate::offer::{ToolWords, tool_words};
use crate::resolve::EntityCatalogs;
use wenshu_lexicon::words::cues::related_pairs;
use wenshu_lexicon::words::references::reference_in;

/// How many of a parameter's values a message lists.
const LISTED_VALUES: usize = 6;

/// The words of `facts.question` that nothing accounts for, for a call of `tool`, as unmet; `already` are the
/// words other checks already found unmet (not named twice).
pub fn unread_in(
    tool: &Tool,
    arguments: &Map<String, Value>,
    facts: &QuestionFacts,
    reading: &Reading<'_>,
    demands: &[Demand],
    entities: &EntityCatalogs,
    already: &[Unmet],
) -> Vec<Unmet> {
    // A tool with a parameter the principal fills (an MCP or HTTP tool told the region by code) has the values of
    // that parameter judged by the row scope when it runs (`scope::named`): its words are not read here.
    if tool.extensions().metrics.is_some() || tool.params().iter().any(|spec| spec.principal.is_some()) {
        return Vec::new();
    }
    let question = reading.question;
    let mut ranges = covered(tool, facts, reading, demands);
    ranges.extend(bound_names(tool, arguments, question, entities));
    ranges.extend(bound_values(arguments, facts));
    let pieces_of = |ranges: &[Range<usize>]| -> Vec<String> {
        uncovered_runs(question, ranges)
            .iter()
            .flat_map(|run| unread_pieces(run))
            .collect()
    };
    let mut pieces = pieces_of(&ranges);
    if pieces.is_empty() {
        return Vec::new();
    }
    let vocabulary = Vocabulary::of(tool);
    let english = vocabulary.english_spans(tool, question);
    if !english.is_empty() {
        ranges.extend(english);
        pieces = pieces_of(&ranges);
    }
    let subject_bound = tool
        .extensions()
        .subject
        .as_ref()
        .is_some_and(|s| arguments.contains_key(&s.param));
    let mut pieces: Vec<String> = pieces
        .into_iter()
        // 这部电影 of a call bound to its subject is that subject.
        .filter(|p| !(subject_bound && reference_in(p).is_some_and(|r| p.starts_with(&r))))
        .flat_map(|p| unread_pieces(&without_cues(&p)))
        .flat_map(|p| vocabulary.unread(&p))
        .collect();
    // A word another check already names (the measure of a ranking it cannot order by) is not named twice.
    pieces.retain(|p| {
        !already
            .iter()
            .filter(|u| !u.words.is_empty())
            .any(|u| u.words.contains(p.as_str()) || p.contains(&u.words) || u.reason.contains(p.as_str()))
    });
    pieces.dedup();
    pieces
        .into_iter()
        .map(|word| explain(tool, facts, entities, &word))
        .collect()
}

/// The byte ranges of `question` something reads: numerals and times, the tool's enum spellings, names of the
/// entities the tool takes, the demands' words.
fn covered(tool: &Tool, facts: &QuestionFacts, reading: &Reading<'_>, demands: &[Demand]) -> Vec<Range<usize>> {
    let question = reading.question;
    let taken: Vec<&str> = tool
        .params()
        .iter()
        .filter_map(|spec| entity_type_of(tool, spec))
        .collect();
    let mut ranges: Vec<Range<usize>> = reading.times.iter().cloned().collect();
    ranges.extend(
        reading
            .hits
            .iter()
            .flat_map(|(_, hits)| hits.iter().map(|h| h.range.clone())),
    );
    ranges.extend(
        reading
            .mentions
            .iter()
            .filter(|m| taken.contains(&m.entity_type.as_str()))
            .map(|m| m.range.clone()),
    );
    for demand in demands {
        ranges.extend(demand.word_ranges(question));
    }
    let numerals: Vec<Range<usize>> = facts
        .spans
        .iter()
        .map(|s| s.range.clone())
        .filter(|r| !numeral_inside_word(question, r, &ranges))
        .collect();
    ranges.extend(numerals);
    ranges
}

/// The words of `question` that spell an entity the call is bound to (封神第二部 of the movie 封神第二部：战火西岐,
/// bound by its ID): the longest stretch of two or more characters its name or an alias shares with the question.
fn bound_names(
    tool: &Tool,
    arguments: &Map<String, Value>,
    question: &str,
    entities: &EntityCatalogs,
) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for spec in tool.params().iter() {
        let (Some(kind), Some(value)) = (entity_type_of(tool, spec), arguments.get(&spec.name)) else {
            continue;
        };
        let Some(index) = entities.get(kind) else {
            continue;
        };
        let bound = index.by_id(value).or_else(|| {
            let name = value.as_str()?;
            index.entities().iter().find(|e| e.name == name)
        });
        // Its name, aliases and attributes (白云站, the station that picked one of two couriers of a name).
        let names: Vec<&str> = match bound {
            Some(entity) => std::iter::once(entity.name.as_str())
                .chain(entity.aliases.iter().map(String::as_str))
                .chain(entity.attributes.values().filter_map(Value::as_str))
                .collect(),
            None => value.as_str().into_iter().collect(),
        };
        out.extend(names.into_iter().filter_map(|name| longest_shared(question, name)));
    }
    out
}

/// The words of the question that spell a value the call is bound to: a string argument written in the question,
/// a place whose city or province is an argument (Guangzhou of 广州), a place naming a bound time zone.
fn bound_values(arguments: &Map<String, Value>, facts: &QuestionFacts) -> Vec<Range<usize>> {
    let question = &facts.question;
    let mut strings: Vec<&str> = Vec::new();
    arguments.values().for_each(|v| strings_in(v, &mut strings));
    strings.retain(|s| !s.is_empty());
    let mut out: Vec<Range<usize>> = strings
        .iter()
        .flat_map(|s| question.match_indices(s).map(|(at, m)| at..at + m.len()))
        .collect();
    // A place that names a bound time zone (东京 of Asia/Tokyo).
    for hit in facts.zones.iter().filter(|z| strings.contains(&z.zone)) {
        out.extend(question.match_indices(hit.place).map(|(at, m)| at..at + m.len()));
    }
    out.extend(
        facts
            .places
            .iter()
            .filter(|hit| {
                strings
                    .iter()
                    .any(|s| hit.place.province == *s || hit.place.city.as_deref() == Some(*s))
            })
            .map(|hit| hit.range.clone()),
    );
    out
}

/// The byte range in `text` of the longest stretch (two or more characters) that spells `name` or part of it: a
/// stretch `name` holds, or one that begins with `name`'s first character and takes the rest of its characters
/// in `name`'s order (唐探3 of 唐人街探案3).
fn longest_shared(text: &str, name: &str) -> Option<Range<usize>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let first = name.chars().next()?;
    let mut best: Option<Range<usize>> = None;
    for i in 0..chars.len() {
        let (start, c) = chars[i];
        // The longest stretch from `i` that `name` holds whole.
        let mut end = i;
        while end < chars.len() && name.contains(&text[start..chars[end].0 + chars[end].1.len_utf8()]) {
            end += 1;
        }
        // Or the longest from `i` that follows `name`'s characters in order, from its first.
        if c == first {
            let mut rest = name.chars();
            let mut ordered = i;
            while ordered < chars.len() && rest.any(|n| n == chars[ordered].1) {
                ordered += 1;
            }
            end = end.max(ordered);
        }
        if end >= i + 2 {
            let stop = chars[end - 1].0 + chars[end - 1].1.len_utf8();
            if best.as_ref().is_none_or(|b| b.len() < stop - start) {
                best = Some(start..stop);
            }
        }
    }
    best
}

/// The runs of letters and digits of `question` that no range covers, in order. A letter-and-digit token
/// partly covered (the 3 of 3D) is not read whole, so all of it is a run.
fn uncovered_runs(question: &str, covered: &[Range<usize>]) -> Vec<String> {
    let is_covered = |at: usize| covered.iter().any(|r| r.start <= at && at < r.end);
    let mut open: Vec<bool> = question.char_indices().map(|(at, _)| !is_covered(at)).collect();
    let chars: Vec<char> = question.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if open[start..i].iter().any(|o| *o) {
            open[start..i].iter_mut().for_each(|o| *o = true);
        }
    }
    let mut runs = Vec::new();
    let mut run = String::new();
    for (c, is_open) in chars.iter().zip(&open) {
        if *is_open && c.is_alphanumeric() {
            run.push(*c);
        } else if !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// Whether a numeral span is a Chinese numeral inside a word (三角 of 长三角): it begins with a Han numeral right
/// after a Han character that nothing else reads and that is not filler.
fn numeral_inside_word(question: &str, range: &Range<usize>, others: &[Range<usize>]) -> bool {
    let starts_han = question
        .get(range.clone())
        .and_then(|t| t.chars().next())
        .is_some_and(is_han);
    let before = question.get(..range.start).and_then(|b| b.char_indices().next_back());
    starts_han
        && matches!(before, Some((at, c)) if is_han(c)
            && !restricts_nothing(c)
            && !others.iter().any(|r| r.start <= at && at < r.end))
}

/// A tool's own words: every string of its definition a user might say, and its identifiers' English words
/// (read once per tool with the tool's other words, [`tool_words`]).
struct Vocabulary {
    /// The tool's words.
    words: Arc<ToolWords>,
}

impl Vocabulary {
    fn of(tool: &Tool) -> Self {
        Self {
            words: tool_words(tool),
        }
    }

    /// The strings, joined, lower case.
    fn text(&self) -> &str {
        self.words.vocabulary()
    }

    /// The parts of an unread piece the tool's words do not hold: a Chinese piece loses every stretch of two or
    /// more characters its vocabulary holds (longest first) and every everyday word whose catalog word it holds
    /// (业绩 → 销售额); an English word is read when the vocabulary holds it, a form of it, or its Chinese.
    fn unread(&self, piece: &str) -> Vec<String> {
        if piece.is_ascii() {
            let word = piece.to_ascii_lowercase();
            let known = stems(&word).iter().any(|s| self.holds_word(s) || self.related(s))
                || translations(&word)
                    .iter()
                    .any(|t| t.chinese.iter().any(|c| self.text().contains(c)));
            return if known { Vec::new() } else { vec![piece.to_string()] };
        }
        let mut rest = piece.to_lowercase();
        for (word, meaning) in related_pairs() {
            if rest.contains(word) && meaning.split(' ').any(|m| self.text().contains(m)) {
                rest = rest.replace(word, " ");
            }
        }
        let chars: Vec<char> = rest.chars().collect();
        let mut read = vec![false; chars.len()];
        for len in (2..=chars.len()).rev() {
            for start in 0..=chars.len() - len {
                if read[start..start + len].iter().all(|r| *r) {
                    continue;
                }
                let stretch: String = chars[start..start + len].iter().collect();
                if stretch.chars().all(is_han) && self.text().contains(&stretch) {
                    read[start..start + len].iter_mut().for_each(|r| *r = true);
                }
            }
        }
        let left: String = chars
            .iter()
            .zip(&read)
            .map(|(c, r)| if *r { ' ' } else { *c })
            .collect();
        left.split_whitespace().flat_map(unread_pieces).collect()
    }

    /// The English words of `question` the tool's words read: a phrase whose Chinese the vocabulary holds
    /// (on-time → 准时), an identifier of the tool spelled as words with one word between (good review rate →
    /// `good_rate`).
    fn english_spans(&self, tool: &Tool, question: &str) -> Vec<Range<usize>> {
        if !question.chars().any(|c| c.is_ascii_alphabetic()) {
            return Vec::new();
        }
        let mut out: Vec<Range<usize>> = translations(question)
            .into_iter()
            .filter(|t| t.chinese.iter().any(|c| self.text().contains(c)))
            .map(|t| t.range)
            .collect();
        let identifiers = tool
            .params()
            .iter()
            .flat_map(|spec| std::iter::once(spec.name.as_str()).chain(spec.enum_strings()));
        out.extend(
            identifiers
                .chain([tool.name()])
                .filter_map(|id| find_identifier(question, id, 1)),
        );
        out
    }

    /// Whether the vocabulary holds `word` as a whole English word.
    fn holds_word(&self, word: &str) -> bool {
        self.text()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w == word)
    }

    /// Whether an everyday English word means one of the vocabulary's words (sales → 销售).
    fn related(&self, word: &str) -> bool {
        related_pairs()
            .iter()
            .any(|(w, meaning)| *w == word && meaning.split(' ').any(|m| self.text().contains(m)))
    }
}

/// An unread word as unmet: a name shaped like a person's where the tool takes people's names lists them; a
/// place or any other word says what the tool can filter by.
fn explain(tool: &Tool, facts: &QuestionFacts, entities: &EntityCatalogs, word: &str) -> Unmet {
    let title = tool.title().unwrap_or(tool.name());
    if looks_like_person_name(word)
        && let Some((label, names)) = people_param(tool, entities)
    {
        return unmet(
            word,
            format!("「{word}」不是已知的{label}（可选：{}…）", names.join("、")),
            format!("「{word}」 is not a known {label} (e.g. {}…)", names.join(", ")),
        );
    }
    let filters = filters_of(tool);
    let place = facts.places.iter().any(|p| {
        facts
            .question
            .get(p.range.clone())
            .is_some_and(|s| word.contains(s) || s.contains(word))
    });
    let (what_zh, what_en) = if place {
        ("是地名", "is a place")
    } else {
        ("没有对应的条件或指标", "matches no condition or measure")
    };
    if filters.is_empty() {
        return unmet(
            word,
            format!("「{word}」{what_zh}，{title}不能按它回答"),
            format!("「{word}」 {what_en}; {title} cannot apply it"),
        );
    }
    unmet(
        word,
        format!("「{word}」{what_zh}，{title}只能按{}筛选", filters.join("、")),
        format!("「{word}」 {what_en}; {title} filters only by {}", filters.join(", ")),
    )
}

/// The parameter of `tool` that takes people's names from an entity catalog, with a few of the names.
fn people_param(tool: &Tool, entities: &EntityCatalogs) -> Option<(String, Vec<String>)> {
    tool.params().iter().find_map(|spec| {
        let index = entities.get(entity_type_of(tool, spec)?)?;
        let names: Vec<String> = index
            .entities()
            .iter()
            .map(|e| e.name.clone())
            .filter(|n| looks_like_person_name(n))
            .fold(Vec::new(), |mut names, n| {
                if !names.contains(&n) && names.len() < LISTED_VALUES {
                    names.push(n);
                }
                names
            });
        (names.len() >= 2).then(|| (param_label(spec), names))
    })
}

/// What `tool` can filter by, in words: each filter enum with its values, each parameter taking names.
fn filters_of(tool: &Tool) -> Vec<String> {
    tool.params()
        .iter()
        .filter_map(|spec| {
            if is_filter_enum(tool, spec) {
                let values: Vec<&str> = spec.enum_strings().take(LISTED_VALUES).collect();
                Some(format!("{}（{}）", param_label(spec), values.join("、")))
            } else if entity_type_of(tool, spec).is_some() && spec.ty != ParamType::Array {
                Some(param_label(spec))
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;
    use serde_json::json;
    use wenshu_contract::Catalog;

    use super::*;

    /// A catalog of another domain: a clinic's visits by department, with doctors named in an entity catalog.
    fn catalog() -> Catalog {
        let tools = json!({"tools": [{
            "name": "clinic_visits",
            "title": "门诊量查询",
            "description": "查询门诊就诊人次，可按科室、医生筛选",
            "inputSchema": {"type": "object", "properties": {
                "department": {"type": "string", "description": "科室筛选", "enum": ["内科", "外科", "儿科"]},
                "doctor": {"type": "string", "description": "医生姓名", "x-entity": "doctor"},
                "period": {"type": "string", "description": "时间段", "enum": ["本月", "上月"], "default": "本月"}
            }},
            "x-examples": ["内科本月的门诊量"]
        }]});
        Catalog::from_json_str(&tools.to_string()).unwrap()
    }

    fn entities() -> EntityCatalogs {
        EntityCatalogs::from_json_str(
            &json!({"doctor": [{"id": 1, "name": "王建国"}, {"id": 2, "name": "李秀英"}, {"id": 3, "name": "赵明"}]})
                .to_string(),
        )
        .unwrap()
    }

    fn unread(question: &str) -> Vec<String> {
        let catalog = catalog();
        let tool = catalog.get("clinic_visits").unwrap();
        let facts = QuestionFacts::new(question, date(2026, 11, 29));
        let entities = entities();
        let reading = Reading::of(tool, question, &entities);
        let demands = crate::coverage::question_demands(&facts);
        unread_in(tool, &Map::new(), &facts, &reading, &demands, &entities, &[])
            .into_iter()
            .map(|u| u.words)
            .collect()
    }

    #[test]
    fn values_names_times_vocabulary_and_filler_are_read() {
        for question in [
            "内科本月的门诊量",
            "请问上个月外科的就诊人次是多少",
            "王建国本月的门诊量",
            "麻烦帮我查一下儿科上月的门诊，谢谢",
            "各科室本月的门诊量",
        ] {
            assert_eq!(unread(question), Vec::<String>::new(), "{question}");
        }
    }

    #[test]
    fn places_people_kinds_and_measures_the_tool_lacks_are_unread() {
        assert_eq!(unread("杭州本月的门诊量"), ["杭州"]);
        assert_eq!(unread("本月医保患者的门诊量"), ["医保患者"]);
        assert_eq!(unread("上个月内科的药费"), ["药费"]);
        assert_eq!(unread("周杰本月的门诊量"), ["周杰"]);
        assert_eq!(unread("What were visits in Beijing last month?"), ["Beijing"]);
        assert_eq!(unread("长三角本月的门诊量"), ["长三角"]);
        assert_eq!(unread("内科的3D门诊量"), ["3D"]);
        assert_eq!(unread("东京本月的门诊量"), ["东京"]);
    }

    #[test]
    fn a_place_naming_a_bound_time_zone_is_read() {
        let catalog = Catalog::from_json_str(
            &json!({"tools": [{
                "name": "clock",
                "description": "Get current time in a specific timezone",
                "inputSchema": {"type": "object", "properties": {
                    "timezone": {"type": "string", "description": "IANA timezone name"}
                }, "required": ["timezone"]}
            }]})
            .to_string(),
        )
        .unwrap();
        let tool = catalog.get("clock").unwrap();
        let question = "现在东京几点";
        let facts = QuestionFacts::new(question, date(2026, 11, 29));
        let entities = EntityCatalogs::new();
        let reading = Reading::of(tool, question, &entities);
        let bound: Map<String, Value> = [("timezone".to_string(), json!("Asia/Tokyo"))].into_iter().collect();
        assert!(unread_in(tool, &bound, &facts, &reading, &[], &entities, &[]).is_empty());
        let other: Map<String, Value> = [("timezone".to_string(), json!("Europe/Paris"))].into_iter().collect();
        let found = unread_in(tool, &other, &facts, &reading, &[], &entities, &[]);
        assert_eq!(found.iter().map(|u| u.words.as_str()).collect::<Vec<_>>(), ["东京"]);
    }

    #[test]
    fn a_bound_entity_reads_the_words_that_spell_part_of_its_name() {
        assert_eq!(
            longest_shared("封神第二部十月份的票房", "封神第二部：战火西岐"),
            Some(0..15)
        );
        assert_eq!(longest_shared("本月的门诊量", "王建国"), None);
        assert_eq!(longest_shared("唐探3上周的票房", "唐人街探案3"), Some(0..7));
        assert_eq!(longest_shared("上周唐探的票房", "唐人街探案3"), Some(6..12));
    }

    #[test]
    fn a_person_shaped_word_lists_the_known_names() {
        let catalog = catalog();
        let tool = catalog.get("clinic_visits").unwrap();
        let question = "周杰本月的门诊量";
        let facts = QuestionFacts::new(question, date(2026, 11, 29));
        let entities = entities();
        let reading = Reading::of(tool, question, &entities);
        let found = unread_in(tool, &Map::new(), &facts, &reading, &[], &entities, &[]);
        assert!(found[0].reason.contains("王建国"), "{:?}", found[0]);
        let place = unread_in(
            tool,
            &Map::new(),
            &QuestionFacts::new("杭州本月的门诊量", date(2026, 11, 29)),
            &Reading::of(tool, "杭州本月的门诊量", &entities),
            &[],
            &entities,
            &[],
        );
        assert!(place[0].reason.contains("科室（内科、外科、儿科）"), "{:?}", place[0]);
    }
}
