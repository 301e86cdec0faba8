//! Subjects named by words shaped like a person's name. An entity type whose names are mostly Chinese personal
//! names (learned from its catalog) takes a question's left-over word of that shape (何勇, 张建) as evidence that
//! the question is about one of them, even where the catalog does not hold the word: resolution then finds the
//! entity, lists the near names, or says that none has the name — never a wrong one silently.

use jiff::civil::Date;
use wenshu_contract::Tool;
use wenshu_lexicon::place::scan_places;
use wenshu_lexicon::surname::looks_like_person_name;

use super::subject::leftover;
use super::tool_choice::{NamedEntity, SUBJECTLESS_FACTOR, THRESHOLD, ToolChoice, choose_tool};
use super::tool_index::ToolIndex;
use crate::resolve::EntityCatalogs;
use wenshu_lexicon::words::cues::trim_function_words;

/// Evidence of a word shaped like a name of the tool's subject type (less than a name the catalog holds).
pub const NAME_SHAPE_BONUS: f64 = 3.0;

/// The word of `question` shaped like a personal name that may name the subject of `tool`: the tool's subject
/// type is people, the question names none of them, and a left-over word (times, numerals, names, enum values,
/// the tool's words, places and function words taken out) has the shape, and is no part of a name of another type.
pub fn name_shaped_word(
    tool: &Tool,
    index: &ToolIndex,
    entities: &EntityCatalogs,
    mentions: &[NamedEntity],
    question: &str,
    today: Date,
) -> Option<String> {
    let subject = tool.extensions().subject.as_ref()?;
    let people = entities.get(&subject.entity_type)?;
    if mentions.iter().any(|m| m.entity_type == subject.entity_type) || !people.is_person_type() {
        return None;
    }
    let mut sentence = leftover(tool, index, mentions, question, today);
    for place in scan_places(question) {
        sentence.mask_bytes(&place.range);
    }
    sentence
        .open_runs()
        .into_iter()
        .map(|run| trim_function_words(&sentence, run))
        .map(|run| sentence.slice(&run).trim().to_string())
        .find(|word| looks_like_person_name(word) && !part_of_other_name(entities, &subject.entity_type, word))
}

/// Whether a word is part of the name of an entity of another type (白云 of 广州白云仓).
fn part_of_other_name(entities: &EntityCatalogs, entity_type: &str, word: &str) -> bool {
    entities.types().into_iter().filter(|t| *t != entity_type).any(|t| {
        entities.get(t).is_some_and(|index| {
            index
                .entities()
                .iter()
                .any(|e| e.name.contains(word) || e.aliases.iter().any(|a| a.contains(word)))
        })
    })
}

/// [`choose_tool`], with the evidence of a word shaped like a name for tools whose subjects are people: the
/// bonus is added (not to the tool's own words) and the discount for naming no subject is taken back.
pub fn choose_with_names(
    tools: &[&Tool],
    index: &ToolIndex,
    entities: &EntityCatalogs,
    question: &str,
    today: Date,
) -> ToolChoice {
    let mut choice = choose_tool(tools, index, entities, question, today);
    let mut changed = false;
    for score in choice.scores.iter_mut().filter(|s| s.excluded.is_none()) {
        let Some(tool) = tools.iter().find(|t| t.name() == score.tool) else {
            continue;
        };
        let Some(word) = name_shaped_word(tool, index, entities, &choice.mentions, question, today) else {
            continue;
        };
        if let Some(at) = score.reasons.iter().position(|r| r.starts_with("a tool of one ")) {
            score.reasons.remove(at);
            score.total /= SUBJECTLESS_FACTOR;
            score.own /= SUBJECTLESS_FACTOR;
        }
        score.evidence += NAME_SHAPE_BONUS;
        score.total += NAME_SHAPE_BONUS;
        score.reasons.push(format!("「{word}」 is shaped like a person's name"));
        changed = true;
    }
    if changed {
        choice.scores.sort_by(|a, b| b.total.total_cmp(&a.total));
        choice.chosen = choice
            .scores
            .first()
            .filter(|s| s.total >= THRESHOLD && s.excluded.is_none())
            .map(|s| s.tool.clone());
    }
    choice
}

#[cfg(test)]
mod tests {
    use super::*;
    use wenshu_contract::Catalog;

    fn catalog() -> Catalog {
        let text = serde_json::json!({"tools": [
            {"name": "teacher_load", "title": "教师课时", "description": "查询某位老师在日期范围内的课时数和学生评分",
             "inputSchema": {"type": "object", "properties": {
                "teacherId": {"type": "integer", "description": "老师 ID"},
                "startDate": {"type": "string", "format": "date", "description": "开始日期"},
                "endDate": {"type": "string", "format": "date", "description": "结束日期"}},
                "required": ["teacherId", "startDate", "endDate"]},
             "x-subject": {"type": "teacher", "param": "teacherId"},
             "x-date-range": {"start": "startDate", "end": "endDate", "default": "本月"}},
            {"name": "room_usage", "title": "教室使用", "description": "某间教室在日期范围内的使用课时",
             "inputSchema": {"type": "object", "properties": {
                "roomId": {"type": "integer", "description": "教室 ID"}}, "required": ["roomId"]},
             "x-subject": {"type": "room", "param": "roomId"}},
            {"name": "enrolment", "title": "报名统计", "description": "各课程的报名人数",
             "inputSchema": {"type": "object", "properties": {}}}
        ]});
        Catalog::from_json_str(&text.to_string()).unwrap()
    }

    fn entities() -> EntityCatalogs {
        EntityCatalogs::from_json_str(
            r#"{"teacher": [{"id": 1, "name": "孙丽华"}, {"id": 2, "name": "赵文"}, {"id": 3, "name": "钱多多"}],
                "room": [{"id": 9, "name": "明德楼"}, {"id": 8, "name": "黄河厅"}, {"id": 7, "name": "长江厅"}]}"#,
        )
        .unwrap()
    }

    fn chosen(question: &str) -> (Option<String>, Vec<String>) {
        let catalog = catalog();
        let tools: Vec<&Tool> = catalog.tools().iter().collect();
        let entities = entities();
        let today = jiff::civil::date(2026, 11, 29);
        let index = ToolIndex::build(&tools, &entities, today);
        let choice = choose_with_names(&tools, &index, &entities, question, today);
        let reasons = choice.scores.first().map(|s| s.reasons.clone()).unwrap_or_default();
        (choice.chosen, reasons)
    }

    #[test]
    fn people_types_are_told_by_their_names() {
        let entities = entities();
        assert!(entities.get("teacher").is_some_and(|i| i.is_person_type()));
        assert!(!entities.get("room").is_some_and(|i| i.is_person_type()));
    }

    #[test]
    fn a_name_shaped_word_speaks_for_a_tool_about_people() {
        let (tool, reasons) = chosen("周敏上个月上了多少课");
        assert_eq!(tool.as_deref(), Some("teacher_load"), "{reasons:?}");
        assert!(reasons.iter().any(|r| r.contains("「周敏」")), "{reasons:?}");
        assert_eq!(chosen("孙丽上个月上了多少课").0.as_deref(), Some("teacher_load"));
        assert_ne!(
            chosen("上个月上了多少课").0.as_deref(),
            Some("teacher_load"),
            "no name, no subject"
        );
        assert_ne!(
            chosen("黄河上个月上了多少课").0.as_deref(),
            Some("teacher_load"),
            "黄河 is part of 黄河厅"
        );
    }
}
