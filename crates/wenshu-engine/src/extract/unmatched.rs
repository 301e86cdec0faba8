//! The conditions a model says the tool cannot express (`unmatched`): the user's words naming a condition, a
//! measure, a dimension or a value the tool's parameters have no way to say (a city where the tool has only
//! regions, a kind of customer it lacks, a measure it does not have). The list is never an argument of the tool. A
//! word the user said makes the call unable to answer the question; a word the user never said is ignored and
//! noted — a model cannot invent a restriction.

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::Tool;
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::filler::{restricts_nothing, unread_pieces};

use super::ExtractRequest;
use crate::facts::QuestionFacts;
use crate::param_kinds::is_period_param;

/// The key of the list in the model's answer (and the `param` of the `unsupported` outcome it leads to).
pub const UNMATCHED: &str = "unmatched";

/// What separates the words in the value of an `unsupported` outcome.
const SEPARATOR: &str = "、";

/// Whether the model is asked for the list: not when the tool has a parameter of that name (the key is its own).
pub fn asked(tool: &Tool) -> bool {
    tool.param(UNMATCHED).is_none()
}

/// What became of one word the model listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnmatchedVerdict {
    /// The user said it: the tool cannot express it, so the call does not answer the question.
    Said,
    /// Not in the user's words: ignored (a model cannot invent a restriction).
    NotSaid,
    /// Said, but expressed after all: a value the answer or code binds (华东区 when the answer has 华东), or a time
    /// expression of a tool that takes dates (code fills them, hidden from the model): ignored.
    Expressed,
    /// Words that restrict nothing (帮我, 的, please): ignored.
    Filler,
    /// Not a string: ignored.
    NotText,
}

/// One word the model listed as unmatched, and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnmatchedCheck {
    /// The word as the model wrote it (a non-string item as JSON).
    pub word: String,
    /// What became of it.
    pub verdict: UnmatchedVerdict,
}

/// Takes the list out of `answer` (for a tool that does not own the key) and judges each item against what the
/// user said (`facts`, the user's own words and recent rounds) and what the call binds (the answer, code's fixed
/// parameters, the `subject` name code resolved): empty when the answer has no list.
pub fn take(
    request: &ExtractRequest<'_>,
    subject: Option<&str>,
    answer: &mut Map<String, Value>,
    facts: &QuestionFacts,
) -> Vec<UnmatchedCheck> {
    if !asked(request.tool) {
        return Vec::new();
    }
    let items = match answer.remove(UNMATCHED) {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => vec![other],
    };
    let mut checks: Vec<UnmatchedCheck> = Vec::new();
    for item in items {
        let check = match &item {
            Value::String(text) => judge(text.trim(), request, subject, answer, facts),
            Value::Null => continue,
            other => UnmatchedCheck {
                word: other.to_string(),
                verdict: UnmatchedVerdict::NotText,
            },
        };
        if check.word.is_empty() || checks.iter().any(|c| c.word == check.word) {
            continue;
        }
        checks.push(check);
    }
    checks
}

fn judge(
    word: &str,
    request: &ExtractRequest<'_>,
    subject: Option<&str>,
    answer: &Map<String, Value>,
    facts: &QuestionFacts,
) -> UnmatchedCheck {
    let verdict = if is_filler(word) {
        UnmatchedVerdict::Filler
    } else if !facts.contains(word) {
        UnmatchedVerdict::NotSaid
    } else if expressed(word, request, subject, answer, facts) {
        UnmatchedVerdict::Expressed
    } else {
        UnmatchedVerdict::Said
    };
    UnmatchedCheck {
        word: word.to_string(),
        verdict,
    }
}

/// Whether a said word is expressed after all: a string the answer or code binds, words of the subject's name code
/// resolved, a spelling of an enum value the answer binds, or words of a time expression when the tool takes dates
/// or a period.
fn expressed(
    word: &str,
    request: &ExtractRequest<'_>,
    subject: Option<&str>,
    answer: &Map<String, Value>,
    facts: &QuestionFacts,
) -> bool {
    let folded = canonical(word);
    if subject.is_some_and(|name| canonical(name).contains(&folded)) {
        return true;
    }
    let bound = answer.values().chain(request.fixed.values());
    if bound.into_iter().any(|value| has_string(value, &folded)) {
        return true;
    }
    let tool = request.tool;
    let spelled = answer.iter().any(|(param, value)| {
        let index = tool.enum_index(param);
        value
            .as_str()
            .is_some_and(|v| index.and_then(|i| i.lookup(word)).is_some_and(|(hit, _)| hit == v))
    });
    if spelled {
        return true;
    }
    let takes_dates =
        tool.extensions().date_range.is_some() || tool.params().iter().any(|spec| is_period_param(spec, request.today));
    takes_dates
        && facts
            .times
            .iter()
            .filter_map(|t| facts.question.get(t.range.clone()))
            .any(|words| canonical(words).contains(&folded))
}

/// Whether `value` holds the string `folded` (canonical), at any depth.
fn has_string(value: &Value, folded: &str) -> bool {
    match value {
        Value::String(text) => canonical(text) == folded,
        Value::Array(items) => items.iter().any(|item| has_string(item, folded)),
        Value::Object(map) => map.values().any(|item| has_string(item, folded)),
        _ => false,
    }
}

/// Whether a word restricts nothing: a character that restricts nothing alone, or words the filler reads whole.
fn is_filler(word: &str) -> bool {
    let mut chars = word.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => !c.is_alphanumeric() || restricts_nothing(c),
        _ => unread_pieces(word).is_empty(),
    }
}

/// The words the user said, of `checks`, in order.
pub fn said(checks: &[UnmatchedCheck]) -> Vec<&str> {
    checks
        .iter()
        .filter(|c| c.verdict == UnmatchedVerdict::Said)
        .map(|c| c.word.as_str())
        .collect()
}

/// The value of the `unsupported` outcome naming `words`.
pub fn join(words: &[&str]) -> String {
    words.join(SEPARATOR)
}

/// The words an `unsupported` outcome's value names (the inverse of [`join`]).
pub fn split(value: &str) -> Vec<&str> {
    value.split(SEPARATOR).filter(|w| !w.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;
    use serde_json::json;
    use wenshu_contract::demo_catalog;

    use super::*;

    fn checks(answer: Value, question: &str) -> (Vec<UnmatchedCheck>, Map<String, Value>) {
        let catalog = demo_catalog().unwrap();
        let mut answer = answer.as_object().cloned().unwrap();
        let request = ExtractRequest {
            tool: catalog.get("sales_query").unwrap(),
            question,
            today: date(2026, 11, 29),
            timezone: "Asia/Shanghai",
            fixed: Map::new(),
        };
        let facts = QuestionFacts::new(question, request.today);
        let checks = take(&request, Some("马晓东"), &mut answer, &facts);
        (checks, answer)
    }

    #[test]
    fn a_said_word_the_call_expresses_is_ignored() {
        let (checks, _) = checks(
            json!({"region": "华东", "unmatched": ["华东区", "上个月", "华东", "马晓东", "老客户"]}),
            "华东区马晓东上个月老客户的销售额",
        );
        let verdicts: Vec<(&str, UnmatchedVerdict)> = checks.iter().map(|c| (c.word.as_str(), c.verdict)).collect();
        assert_eq!(
            verdicts,
            [
                ("华东区", UnmatchedVerdict::Expressed),
                ("上个月", UnmatchedVerdict::Expressed),
                ("华东", UnmatchedVerdict::Expressed),
                ("马晓东", UnmatchedVerdict::Expressed),
                ("老客户", UnmatchedVerdict::Said),
            ]
        );
    }

    #[test]
    fn the_list_leaves_the_answer_and_each_word_is_judged_by_the_users_words() {
        let (checks, rest) = checks(
            json!({"period": "本月", "unmatched": ["杭州", "火星", "的", "帮我查一下", 3, "杭州", " "]}),
            "帮我查一下杭州本月的销售额",
        );
        assert_eq!(rest, json!({"period": "本月"}).as_object().cloned().unwrap());
        let verdicts: Vec<(&str, UnmatchedVerdict)> = checks.iter().map(|c| (c.word.as_str(), c.verdict)).collect();
        assert_eq!(
            verdicts,
            [
                ("杭州", UnmatchedVerdict::Said),
                ("火星", UnmatchedVerdict::NotSaid),
                ("的", UnmatchedVerdict::Filler),
                ("帮我查一下", UnmatchedVerdict::Filler),
                ("3", UnmatchedVerdict::NotText),
            ]
        );
        assert_eq!(said(&checks), ["杭州"]);
    }

    #[test]
    fn a_single_string_is_one_word_and_null_or_empty_is_nothing() {
        assert_eq!(
            said(&checks(json!({"unmatched": "Hangzhou"}), "Hangzhou sales this month").0),
            ["Hangzhou"]
        );
        assert!(checks(json!({"unmatched": null}), "杭州").0.is_empty());
        assert!(checks(json!({"unmatched": []}), "杭州").0.is_empty());
        assert!(checks(json!({}), "杭州").0.is_empty());
    }

    #[test]
    fn joined_words_split_back() {
        assert_eq!(split(&join(&["杭州", "老客户"])), ["杭州", "老客户"]);
    }
}
