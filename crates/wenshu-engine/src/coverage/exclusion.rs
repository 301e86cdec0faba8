//! Values the question leaves out: 除了X以外 / 除X外 / 不含X / 非X / X之外 / excluding X. A call never filters on
//! such a value; until a call can exclude one, it is unmet (不支持排除某个值：X), never a filter on X.

use serde_json::{Map, Value};
use wenshu_contract::Tool;

use super::message::unmet;
use super::values::named_values;
use super::{Unmet, strings_in};
use crate::resolve::EntityCatalogs;
use wenshu_lexicon::words::inclusion::{EXCLUDE, EXCLUDE_AFTER, EXCLUDE_SHORT};

/// Every value the call binds or the question names that the question leaves out, as unmet.
pub fn excluded_values(
    tool: &Tool,
    arguments: &Map<String, Value>,
    question: &str,
    entities: &EntityCatalogs,
) -> Vec<Unmet> {
    excluded_named(arguments, question, &named_values(tool, question, entities))
}

/// Every value the call binds or `named` holds (what [`named_values`] finds) that the question leaves out.
pub fn excluded_named(arguments: &Map<String, Value>, question: &str, named: &[(String, Vec<String>)]) -> Vec<Unmet> {
    let mut bound: Vec<&str> = Vec::new();
    arguments.values().for_each(|value| strings_in(value, &mut bound));
    let mut values: Vec<String> = bound.into_iter().map(str::to_string).collect();
    values.extend(named.iter().flat_map(|(_, v)| v.iter().cloned()));
    let mut out: Vec<Unmet> = Vec::new();
    for v in values {
        if is_excluded(question, &v) && !out.iter().any(|u| u.words == v) {
            out.push(unmet(
                &v,
                format!("不支持排除某个值：{v}"),
                format!("cannot exclude a value: {v}"),
            ));
        }
    }
    out
}

/// `piece` without the exclusion cues it holds (不含, 除了, 之外): the exclusion is judged here, or by the flag
/// that reads it, so its cue is no unread word.
pub fn without_cues(piece: &str) -> String {
    let mut rest = piece.to_string();
    for cue in EXCLUDE.iter().chain(EXCLUDE_SHORT).chain(EXCLUDE_AFTER) {
        if rest.contains(cue) {
            rest = rest.replace(cue, " ");
        }
    }
    rest
}

/// Whether some mention of `value` in `question` stands after an exclusion cue or before 之外 / 以外.
pub fn is_excluded(question: &str, value: &str) -> bool {
    if value.trim().is_empty() {
        return false;
    }
    let lower = question.to_lowercase();
    let value = value.to_lowercase();
    lower.match_indices(&value).any(|(at, _)| {
        let before = &lower[..at];
        let after = &lower[at + value.len()..];
        let before = before.trim_end();
        // One character may stand between (排除掉X, 不含有X).
        let one_back = before.char_indices().next_back().map_or("", |(i, _)| &before[..i]);
        let near_before = |cue: &str| before.ends_with(cue) || one_back.ends_with(cue);
        EXCLUDE.iter().any(|c| near_before(c))
            || EXCLUDE_SHORT.iter().any(|c| before.ends_with(c))
            || EXCLUDE_AFTER.iter().any(|c| after.starts_with(c))
    })
}
