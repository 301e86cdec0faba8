//! The rewritten question: a follow-up made complete. A question that changes only the subject, dates or an enum
//! value (那满江红呢, 那上个月呢, 那华南呢) is the previous question with that part replaced; a question that changes
//! the tool (那它的评分呢) keeps its own words with the reference replaced by the subject (长津湖的评分呢). A
//! yes/no flag the follow-up states (其中超时的) is added to the previous question, or replaces what it said; so
//! are its counts (那前五呢) and places (那广州呢).

use std::ops::Range;

use serde::Serialize;

use jiff::civil::Date;
use wenshu_contract::{ParamType, Tool};
use wenshu_lexicon::filler::unread_pieces;
use wenshu_lexicon::numeral::NumeralKind;
use wenshu_lexicon::place::scan_places;
use wenshu_lexicon::time::scan_times;
use wenshu_lexicon::{SpanKind, scan};

use super::flags::flag_words;
use super::params::stated_params;
use crate::facts::QuestionFacts;
use crate::param_kinds::is_period_param;
use crate::resolve::EntityCatalogs;
use wenshu_lexicon::demand::DemandKind;
use wenshu_lexicon::sentence::{Sentence, is_cjk};
use wenshu_lexicon::words::cues::{find_reference, opener_len, without_opener};

/// What a rewrite starts from.
#[derive(Debug, Clone)]
pub struct RewriteInput<'a> {
    /// The user's own words.
    pub question: &'a str,
    /// The chosen tool.
    pub tool: &'a Tool,
    /// The subject, when the route has one.
    pub subject: Option<&'a str>,
    /// Whether the subject comes from an earlier round (the question does not name it).
    pub subject_from_history: bool,
    /// The previous round's time words, when its dates carry over.
    pub inherited_time: Option<&'a str>,
    /// The earlier question whose tool carries over (the question changes only a part of it).
    pub template: Option<&'a str>,
    /// The subject the template names, as written there.
    pub template_subject: Option<&'a str>,
    /// Names of entities the tool takes as parameters (not its subject): (as the template writes one, as the
    /// question writes another of the same type) — 王芳 → 赵敏 in 那赵敏呢.
    pub entity_swaps: Vec<(String, String)>,
    /// The day the question is asked.
    pub today: Date,
}

/// One change a follow-up makes to the earlier question it edits (or the context it adds to its own words).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// Which part: `subject`, `name`, `grouping`, `measure`, `period`, `count`, `place`, `value`, `condition`, or
    /// `words` (the follow-up's words the earlier question has no place for, carried in front).
    pub part: &'static str,
    /// The earlier question's words it replaces; `None` when it is added.
    pub replaced: Option<String>,
    /// The words that stand there now.
    pub by: String,
}

/// A follow-up made complete, and each change made to get there: what is not changed is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rewrite {
    /// The complete question.
    pub text: String,
    /// The earlier question edited, when the follow-up edits one (else its own words got the context).
    pub of: Option<String>,
    /// The changes, in the order made.
    pub edits: Vec<Edit>,
}

/// The complete question for a follow-up.
pub fn rewrite(input: &RewriteInput<'_>) -> String {
    rewrite_with_edits(input).text
}

/// [`rewrite`], with the edit that made it.
pub fn rewrite_with_edits(input: &RewriteInput<'_>) -> Rewrite {
    match input.template {
        Some(template) => from_template(input, template),
        None => with_context(input),
    }
}

/// The text being edited, and the edits so far.
struct Editor {
    text: String,
    edits: Vec<Edit>,
}

impl Editor {
    /// Replaces the first occurrence of `old` in the text, or puts `new` in front when `old` is absent.
    fn replace_or_prefix(&mut self, part: &'static str, old: Option<&str>, new: &str) {
        match old
            .filter(|o| !o.is_empty())
            .and_then(|o| self.text.find(o).map(|at| (at, o.len())))
        {
            Some((at, len)) => {
                self.note(part, Some(&self.text[at..at + len].to_string()), new);
                self.text.replace_range(at..at + len, new);
            }
            None => {
                self.note(part, None, new);
                self.text.insert_str(0, new);
            }
        }
    }

    /// Adds `words` at the end (after `joint`).
    fn append(&mut self, part: &'static str, joint: &str, words: &str) {
        self.note(part, None, words);
        self.text.push_str(joint);
        self.text.push_str(words);
    }

    fn note(&mut self, part: &'static str, replaced: Option<&String>, by: &str) {
        self.edits.push(Edit {
            part,
            replaced: replaced.cloned(),
            by: by.to_string(),
        });
    }
}

/// The template with the parts the question changes replaced: subject, time words, enum values.
fn from_template(input: &RewriteInput<'_>, template: &str) -> Rewrite {
    let mut text = Editor {
        text: template.to_string(),
        edits: Vec::new(),
    };
    // The parts of the question placed in the template; the rest is carried in front of it (see `unplaced`).
    let mut used: Vec<Range<usize>> = Vec::new();
    let used_words = |words: &str, used: &mut Vec<Range<usize>>| {
        if let Some(at) = input.question.find(words).filter(|_| !words.is_empty()) {
            used.push(at..at + words.len());
        }
    };
    if let (Some(subject), false) = (input.subject, input.subject_from_history) {
        text.replace_or_prefix("subject", input.template_subject, subject);
        used_words(subject, &mut used);
    }
    for (old, new) in &input.entity_swaps {
        text.replace_or_prefix("name", Some(old), new);
        used_words(new, &mut used);
    }
    if let Some((old, new, at)) = grouping_swap(input.question, &text.text, input.today) {
        text.replace_or_prefix("grouping", Some(&old), &new);
        used.push(at);
    }
    if let Some((old, new)) = measure_swap(input.tool, input.question, &text.text) {
        text.replace_or_prefix("measure", Some(&old), &new);
        used_words(&new, &mut used);
    }
    if let Some(span) = scan_times(input.question, input.today).first() {
        used.push(span.range.clone());
        let words = input.question.get(span.range.clone()).unwrap_or_default();
        let old = scan_times(&text.text, input.today)
            .first()
            .and_then(|s| text.text.get(s.range.clone()))
            .map(str::to_string);
        text.replace_or_prefix("period", old.as_deref(), words);
    }
    for kind in [NumeralKind::TopN, NumeralKind::Count] {
        let numeral = |text: &str| {
            scan(text, input.today)
                .into_iter()
                .find(|s| s.kind == SpanKind::Number(kind))
                .map(|s| s.text)
        };
        if let Some(words) = numeral(input.question) {
            used_words(&words, &mut used);
            match numeral(&text.text) {
                Some(old) => text.replace_or_prefix("count", Some(&old), &words),
                None => text.append("count", "，", &words),
            }
        }
    }
    let outside = |name: Option<&str>, place: &str| !name.is_some_and(|n| n.contains(place));
    let place_of = |text: &str, name: Option<&str>| {
        scan_places(text)
            .into_iter()
            .filter_map(|hit| text.get(hit.range).map(str::to_string))
            .find(|words| outside(name, words))
    };
    if let Some(words) = place_of(input.question, input.subject) {
        used_words(&words, &mut used);
        let old = place_of(&text.text, input.subject.or(input.template_subject));
        if old.as_deref() != Some(words.as_str()) {
            text.replace_or_prefix("place", old.as_deref(), &words);
        }
    }
    // Values the question states without a spelling (good review rate → good_rate) are written as the value.
    let stated = stated_params(input.tool, input.question, input.today, &[], &EntityCatalogs::new()).values;
    for spec in input.tool.params().iter() {
        if is_period_param(spec, input.today) {
            continue;
        }
        let Some(index) = input.tool.enum_index(&spec.name) else {
            continue;
        };
        let (value, words) = match index.matcher().find_all(input.question).into_iter().next() {
            Some(hit) => {
                used.push(hit.range.clone());
                let words = input.question.get(hit.range.clone()).unwrap_or_default().to_string();
                (hit.value, words)
            }
            None => match stated
                .iter()
                .find(|s| s.param == spec.name)
                .and_then(|s| s.value.as_str())
            {
                Some(value) => {
                    used_words(value, &mut used);
                    // The evidence quotes the words that state it (「repeat customer share」).
                    let stated_words = stated.iter().find(|s| s.param == spec.name).and_then(|s| {
                        let (_, rest) = s.evidence.split_once('「')?;
                        rest.split_once('」').map(|(words, _)| words)
                    });
                    used_words(stated_words.unwrap_or_default(), &mut used);
                    (value.to_string(), value.to_string())
                }
                None => continue,
            },
        };
        match index.matcher().find_all(&text.text).into_iter().next() {
            Some(old) if old.value == value => {}
            Some(old) => {
                let old_words = text.text.get(old.range).unwrap_or_default().to_string();
                text.replace_or_prefix("value", Some(&old_words), &words);
            }
            None if spec.default.as_ref().and_then(|d| d.as_str()) == Some(value.as_str()) => {}
            None => text.append("value", "", &words),
        }
    }
    for spec in input.tool.params().iter().filter(|s| s.ty == ParamType::Boolean) {
        let Some(stated) = flag_words(spec, input.question) else {
            continue;
        };
        used.push(stated.range.clone());
        let words = input.question.get(stated.range.clone()).unwrap_or_default();
        match flag_words(spec, &text.text) {
            Some(old) if old.value == stated.value => {}
            Some(old) => {
                let old_words = text.text.get(old.range.clone()).unwrap_or_default().to_string();
                text.note("condition", Some(&old_words), words);
                text.text.replace_range(old.range, words);
            }
            None => {
                let tie = if words.ends_with(|c: char| is_cjk(c) && c != '的') {
                    "的"
                } else {
                    ""
                };
                let comma = if words.is_ascii() { ", " } else { "，" };
                text.append("condition", comma, &format!("{words}{tie}"));
            }
        }
    }
    let carried = unplaced(input.question, &used);
    if !carried.is_empty() {
        text.replace_or_prefix("words", None, &carried);
    }
    Rewrite {
        text: text.text,
        of: Some(template.to_string()),
        edits: text.edits,
    }
}

/// A grouping the follow-up states (按产品, 各销售) in place of the template's (各地区): (the template's words, the
/// question's, their range in the question).
fn grouping_swap(question: &str, template: &str, today: Date) -> Option<(String, String, Range<usize>)> {
    let grouping = |text: &str| {
        QuestionFacts::shared(text, today)
            .demands
            .iter()
            .find(|d| matches!(d.kind, DemandKind::Group { grain: None }) && d.target.is_some())
            .map(|d| d.range.clone())
    };
    let (asked, had) = (grouping(question)?, grouping(template)?);
    let new = question.get(asked.clone())?.to_string();
    let old = template.get(had)?.to_string();
    (old != new).then_some((old, new, asked))
}

/// A measure the follow-up names (那销量呢) in place of the one the template names (销售额): the measure words the
/// tool declares it answers (`x-answers`), the longest found in each.
fn measure_swap(tool: &Tool, question: &str, template: &str) -> Option<(String, String)> {
    let answers = tool.extensions().answers.as_ref()?;
    let mut words: Vec<&str> = answers
        .all()
        .into_iter()
        .flat_map(|(_, answer)| answer.measures.iter().map(String::as_str))
        .filter(|w| w.chars().count() >= 2)
        .collect();
    words.sort_by_key(|w| std::cmp::Reverse(w.len()));
    let new = words.iter().find(|w| question.contains(**w))?;
    let old = words.iter().find(|w| template.contains(**w))?;
    (old != new).then(|| (old.to_string(), new.to_string()))
}

/// The words of a follow-up the template has no place for (那京津冀呢 after 上个月华东区的销售额, 那各产品呢):
/// what is left of the question after its opener, the `used` parts and the filler. They are carried in front of
/// the template, so that what reads the rewrite reads them too — a word dropped here would answer the earlier
/// question again.
fn unplaced(question: &str, used: &[Range<usize>]) -> String {
    let start = question.len() - without_opener(question).len();
    let mut pieces: Vec<String> = Vec::new();
    let mut run = String::new();
    for (at, c) in question.char_indices().filter(|(at, _)| *at >= start) {
        if used.iter().any(|r| r.contains(&at)) {
            pieces.extend(unread_pieces(&std::mem::take(&mut run)));
        } else {
            run.push(c);
        }
    }
    pieces.extend(unread_pieces(&run));
    pieces.concat()
}

/// The question without its opener, the reference replaced by the subject, inherited time words added (after the
/// subject, where there is one).
fn with_context(input: &RewriteInput<'_>) -> Rewrite {
    let sentence = Sentence::new(input.question);
    let skip = opener_len(&sentence.chars);
    let rest = sentence.slice(&(skip..sentence.chars.len())).trim_start().to_string();
    let time = input
        .inherited_time
        .filter(|_| scan_times(&rest, input.today).is_empty())
        .unwrap_or_default();
    let mut text = Editor {
        text: rest,
        edits: Vec::new(),
    };
    match input.subject.filter(|_| input.subject_from_history) {
        Some(subject) => {
            let rest_sentence = Sentence::new(&text.text);
            let reference = find_reference(&rest_sentence)
                .map(|range| rest_sentence.byte_range(&range))
                .and_then(|bytes| text.text.get(bytes).map(str::to_string));
            text.replace_or_prefix("subject", reference.as_deref(), &format!("{subject}{time}"));
            if let Some(edit) = text.edits.last_mut() {
                edit.by = subject.to_string();
            }
            if !time.is_empty() {
                text.note("period", None, time);
            }
        }
        None if !time.is_empty() => text.replace_or_prefix("period", None, time),
        None => {}
    }
    Rewrite {
        text: text.text,
        of: None,
        edits: text.edits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;
    use wenshu_contract::demo_catalog;

    fn input<'a>(question: &'a str, tool: &'a Tool) -> RewriteInput<'a> {
        RewriteInput {
            question,
            tool,
            subject: None,
            subject_from_history: false,
            inherited_time: None,
            template: None,
            template_subject: None,
            entity_swaps: Vec::new(),
            today: date(2026, 11, 29),
        }
    }

    #[test]
    fn references_become_the_subject() {
        let catalog = demo_catalog().unwrap();
        let Some(tool) = catalog.get("movie_rating") else {
            panic!("demo tool")
        };
        let mut i = input("那它的评分呢", tool);
        i.subject = Some("长津湖");
        i.subject_from_history = true;
        assert_eq!(rewrite(&i), "长津湖的评分呢");
        let mut i = input("评分呢", tool);
        i.subject = Some("长津湖");
        i.subject_from_history = true;
        assert_eq!(rewrite(&i), "长津湖评分呢");
    }

    #[test]
    fn a_flag_the_follow_up_states_joins_the_template() {
        let catalog = wenshu_contract::Catalog::from_json_str(
            &serde_json::json!({"tools": [{"name": "bills", "inputSchema": {"type": "object", "properties": {
                "onlyOverdue": {"type": "boolean", "description": "只看逾期的账单，默认否"},
                "includeVoid": {"type": "boolean", "description": "是否包含已作废的账单"}
            }}}]})
            .to_string(),
        )
        .unwrap();
        let tool = &catalog.tools()[0];
        let mut i = input("其中逾期的有几笔", tool);
        i.template = Some("上月华东的账单有多少");
        assert_eq!(rewrite(&i), "上月华东的账单有多少，逾期的");
        let mut i = input("不算作废的呢", tool);
        i.template = Some("上月包括作废的账单有多少");
        assert_eq!(
            rewrite(&i),
            "上月不算作废的账单有多少",
            "the opposite words are replaced"
        );
        let mut i = input("那逾期的呢", tool);
        i.template = Some("上月逾期的账单有多少");
        assert_eq!(rewrite(&i), "上月逾期的账单有多少", "said already");
    }

    #[test]
    fn counts_and_places_of_the_follow_up_replace_the_templates() {
        let catalog = wenshu_contract::Catalog::from_json_str(
            &serde_json::json!({"tools": [{"name": "stores", "inputSchema": {"type": "object", "properties": {
                "city": {"type": "string", "description": "门店所在城市"},
                "limit": {"type": "integer", "description": "返回前几名"}
            }}}]})
            .to_string(),
        )
        .unwrap();
        let tool = &catalog.tools()[0];
        let mut i = input("那前五呢", tool);
        i.template = Some("上月杭州销售额前十的门店");
        assert_eq!(rewrite(&i), "上月杭州销售额前五的门店");
        let mut i = input("那苏州呢", tool);
        i.template = Some("上月杭州销售额前十的门店");
        assert_eq!(rewrite(&i), "上月苏州销售额前十的门店");
        let mut i = input("那前3名呢", tool);
        i.template = Some("上月杭州的门店销售额");
        assert_eq!(rewrite(&i), "上月杭州的门店销售额，前3名");
    }

    #[test]
    fn a_value_stated_without_a_spelling_is_written_as_the_value() {
        let catalog = wenshu_contract::Catalog::from_json_str(
            &serde_json::json!({"tools": [{"name": "stores", "inputSchema": {"type": "object", "properties": {
                "metric": {"type": "string", "enum": ["sales_amount", "repeat_share"], "default": "sales_amount",
                    "description": "排名指标：sales_amount(销售额)、repeat_share(复购占比)"}
            }}}]})
            .to_string(),
        )
        .unwrap();
        let tool = &catalog.tools()[0];
        let mut i = input("what about repeat customer share?", tool);
        i.template = Some("top 5 stores by sales_amount this month");
        assert_eq!(rewrite(&i), "top 5 stores by repeat_share this month");
    }

    /// A tool of another domain: clinic visits by department, answering 门诊量 or 诊费.
    fn clinic() -> wenshu_contract::Catalog {
        let tool = serde_json::json!({"name": "clinic_visits", "description": "门诊统计",
            "inputSchema": {"type": "object", "properties": {
                "department": {"type": "string", "enum": ["内科", "外科", "儿科"]},
                "period": {"type": "string", "enum": ["本月", "上月"], "default": "本月"}}},
            "x-answers": {"shape": "totals", "measures": ["门诊量", "诊费"]}});
        wenshu_contract::Catalog::from_value(&serde_json::json!({"tools": [tool]})).unwrap()
    }

    #[test]
    fn a_follow_up_swaps_the_measure_and_carries_what_it_cannot_place() {
        let catalog = clinic();
        let tool = &catalog.tools()[0];
        let mut i = input("那诊费呢", tool);
        i.template = Some("上月内科的门诊量");
        assert_eq!(rewrite(&i), "上月内科的诊费");
        let mut i = input("那按科室看呢", tool);
        i.template = Some("上月各医生的门诊量");
        assert_eq!(rewrite(&i), "上月按科室的门诊量");
        let mut i = input("那急诊呢", tool);
        i.template = Some("上月内科的门诊量");
        assert_eq!(
            rewrite(&i),
            "急诊上月内科的门诊量",
            "急诊 is no department: it must stay to be judged"
        );
    }

    #[test]
    fn templates_take_the_changed_parts() {
        let catalog = demo_catalog().unwrap();
        let Some(tool) = catalog.get("movie_box_office") else {
            panic!("demo tool")
        };
        let mut i = input("那满江红呢", tool);
        i.subject = Some("满江红");
        i.template = Some("长津湖上个月的票房");
        i.template_subject = Some("长津湖");
        assert_eq!(rewrite(&i), "满江红上个月的票房");
        let mut i = input("那最近7天呢", tool);
        i.subject = Some("长津湖");
        i.subject_from_history = true;
        i.template = Some("长津湖上个月的票房");
        assert_eq!(rewrite(&i), "长津湖最近7天的票房");
        let Some(sales) = catalog.get("sales_query") else {
            panic!("demo tool")
        };
        let mut i = input("那华南呢", sales);
        i.template = Some("华东区上月的销售额");
        assert_eq!(rewrite(&i), "华南上月的销售额");
    }

    #[test]
    fn the_edit_names_each_part_replaced_or_added() {
        let catalog = clinic();
        let tool = &catalog.tools()[0];
        let mut i = input("那按科室看呢", tool);
        i.template = Some("上月各医生的门诊量");
        let edit = rewrite_with_edits(&i);
        assert_eq!(edit.of.as_deref(), Some("上月各医生的门诊量"));
        let grouping = edit.edits.iter().find(|e| e.part == "grouping").unwrap();
        assert_eq!(grouping.replaced.as_deref(), Some("各医生"));
        assert_eq!(
            edit.edits.len(),
            1,
            "the period and the measure are kept: {:?}",
            edit.edits
        );
        let mut i = input("那急诊呢", tool);
        i.template = Some("上月内科的门诊量");
        let edit = rewrite_with_edits(&i);
        assert_eq!(
            edit.edits,
            vec![Edit {
                part: "words",
                replaced: None,
                by: "急诊".into()
            }]
        );
        let rating = demo_catalog().unwrap();
        let mut i = input("那它的评分呢", rating.get("movie_rating").unwrap());
        i.subject = Some("长津湖");
        i.subject_from_history = true;
        i.inherited_time = Some("上个月");
        let edit = rewrite_with_edits(&i);
        assert_eq!(edit.text, "长津湖上个月的评分呢");
        assert_eq!(edit.of, None);
        let parts: Vec<(&str, Option<&str>, &str)> = edit
            .edits
            .iter()
            .map(|e| (e.part, e.replaced.as_deref(), e.by.as_str()))
            .collect();
        assert_eq!(
            parts,
            vec![("subject", Some("它"), "长津湖"), ("period", None, "上个月")]
        );
    }
}
