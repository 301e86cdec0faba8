//! What earlier rounds (at most three, newest first) give a follow-up question: the last subject named, the tool
//! last asked about, and the date range of the previous round.

use jiff::civil::Date;
use serde::Serialize;
use wenshu_contract::Tool;
use wenshu_lexicon::time::{DateRange, scan_times};

use super::names::choose_with_names;
use super::subject::{SubjectFinding, find_subject};
use super::tool_choice::entity_mentions;
use super::tool_index::ToolIndex;
use crate::resolve::EntityCatalogs;
use crate::route::Turn;

/// A subject found in an earlier round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EarlierSubject {
    /// The name.
    pub name: String,
    /// How many rounds back (1 = the previous round).
    pub rounds_back: usize,
    /// Where it was found: `subject` (the round's resolved subject), `question` or `answer`.
    pub found_in: &'static str,
}

/// A date range of an earlier round, with the words that gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EarlierRange {
    /// The range.
    pub range: DateRange,
    /// The words (上个月, 2026-10-01 至 2026-10-31).
    pub words: String,
}

/// The rounds a router may read, newest first.
pub fn newest_first(recent: &[Turn]) -> impl Iterator<Item = (usize, &Turn)> {
    recent.iter().rev().enumerate().map(|(i, turn)| (i + 1, turn))
}

/// The last subject of `entity_type` named in the rounds: the round's resolved subject (what the user chose), an
/// entity mention in the question, then in the answer, else the words a question of a tool of that subject type
/// left for a name.
pub fn last_subject(
    recent: &[Turn],
    entity_type: &str,
    tools: &[&Tool],
    index: &ToolIndex,
    entities: &EntityCatalogs,
    today: Date,
) -> Option<EarlierSubject> {
    for (rounds_back, turn) in newest_first(recent) {
        if let Some(subject) = turn.subject.as_ref().filter(|s| s.entity_type == entity_type) {
            return Some(EarlierSubject {
                name: subject.name.clone(),
                rounds_back,
                found_in: "subject",
            });
        }
        for (found_in, text) in [("question", &turn.question), ("answer", &turn.answer)] {
            if let Some(m) = entity_mentions(entities, text)
                .into_iter()
                .find(|m| m.entity_type == entity_type)
            {
                return Some(EarlierSubject {
                    name: m.surface,
                    rounds_back,
                    found_in,
                });
            }
        }
        let choice = choose_with_names(tools, index, entities, &turn.question, today);
        let tool = choice
            .chosen
            .as_deref()
            .and_then(|name| tools.iter().find(|t| t.name() == name));
        if let Some(tool) = tool
            && tool
                .extensions()
                .subject
                .as_ref()
                .is_some_and(|s| s.entity_type == entity_type)
            && let SubjectFinding::Words { name } = find_subject(tool, index, &choice.mentions, &turn.question, today)
        {
            return Some(EarlierSubject {
                name,
                rounds_back,
                found_in: "question",
            });
        }
    }
    None
}

/// The tool the newest round that chose one asked about, and how many rounds back.
pub fn last_tool(
    recent: &[Turn],
    tools: &[&Tool],
    index: &ToolIndex,
    entities: &EntityCatalogs,
    today: Date,
) -> Option<(String, usize)> {
    newest_first(recent).find_map(|(rounds_back, turn)| {
        choose_with_names(tools, index, entities, &turn.question, today)
            .chosen
            .map(|tool| (tool, rounds_back))
    })
}

/// The date range of the previous round: its question's first time expression, else its answer's.
pub fn previous_range(recent: &[Turn], today: Date) -> Option<EarlierRange> {
    let turn = recent.last()?;
    [&turn.question, &turn.answer].into_iter().find_map(|text| {
        scan_times(text, today).into_iter().next().map(|span| EarlierRange {
            range: span.date_range,
            words: text.get(span.range.clone()).unwrap_or_default().to_string(),
        })
    })
}
