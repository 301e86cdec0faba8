//! Yes/no parameters read from their own description: 是否包含已取消的运单 ↔ 包括已取消的 → true, 不要算取消的 →
//! false; 只看超时的运单 ↔ 超时的 → true. The thing (X) comes from the description, the cue words are general.

use wenshu_contract::ParamSpec;
use wenshu_lexicon::bilingual::spells;
use wenshu_lexicon::canonical::fold_char;
use wenshu_lexicon::english::words;
use wenshu_lexicon::words::inclusion::{
    ENGLISH_DENY, ENGLISH_EXCLUDE, ENGLISH_EXCLUDED_AFTER, ENGLISH_INCLUDE, ENGLISH_INCLUDED_AFTER, EXCLUDE, INCLUDE,
    NEGATIONS,
};

/// Leading words of a description that state the flag's sense (是否包含 X, 只看 X).
const LEADS: &[(&str, bool)] = &[
    ("是否只看", true),
    ("是否包含", false),
    ("是否包括", false),
    ("是否含", false),
    ("是否", false),
    ("只看", true),
    ("仅看", true),
    ("只查", true),
    ("仅限", true),
    ("包含", false),
    ("包括", false),
];
/// How far before X a cue may stand, in characters (包括已取消的 → 0, 不要算上取消的 → 1).
const CUE_GAP: usize = 2;

/// The thing a flag is about, from its description (是否包含已取消的运单 → 已取消), and whether naming it alone
/// means yes (只看 X).
pub fn flag_subject(spec: &ParamSpec) -> Option<(Vec<String>, bool)> {
    let head: String = spec
        .description
        .chars()
        .take_while(|c| !matches!(c, '，' | ',' | '（' | '(' | '。' | '；' | ';' | '：' | ':'))
        .collect();
    let (rest, only) = LEADS
        .iter()
        .find_map(|(lead, only)| head.strip_prefix(lead).map(|rest| (rest.to_string(), *only)))?;
    let core: String = rest.split('的').next().unwrap_or_default().trim().to_string();
    let mut forms = vec![core.clone()];
    if let Some(bare) = core.strip_prefix('已').filter(|b| b.chars().count() >= 2) {
        forms.push(bare.to_string());
    }
    forms.retain(|f| f.chars().count() >= 2);
    (!forms.is_empty()).then_some((forms, only))
}

/// A flag's value as a question states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagWords {
    /// The value.
    pub value: bool,
    /// How the question states it (「包括已取消」).
    pub evidence: String,
    /// Byte range in the question of the words that state it, cue included.
    pub range: std::ops::Range<usize>,
}

/// How many English words before X a cue may stand ("including the cancelled ones" → 1).
const ENGLISH_CUE_WORDS: usize = 2;

/// Where a negation word right before character `at` starts, if one stands there.
fn negation_before(q: &[char], at: usize) -> Option<usize> {
    let from = NEGATIONS.iter().find_map(|n| {
        let len = n.chars().count();
        let from = at.checked_sub(len)?;
        (q.get(from..at)?.iter().copied().eq(n.chars())).then_some(from)
    })?;
    // 有没有超时的 asks whether there are any: no negation.
    let asks = from.checked_sub(1).and_then(|i| q.get(i)) == Some(&'有') && q.get(from) == Some(&'没');
    (!asks).then_some(from)
}

/// The words that deny the thing of a flag that keeps only that thing (不超时的, "not delayed"): no value of the
/// flag says that, so the question cannot be answered with it.
pub fn flag_denial(spec: &ParamSpec, question: &str) -> Option<String> {
    let (forms, only) = flag_subject(spec)?;
    if !only {
        return None;
    }
    let q: Vec<char> = question.chars().map(fold_char).collect();
    let text: String = q.iter().collect();
    for form in &forms {
        if let Some(byte_at) = text.find(&fold(form)) {
            let at = text[..byte_at].chars().count();
            if let Some(from) = negation_before(&q, at) {
                let range = char_bytes(question, from..at + form.chars().count());
                return question.get(range).map(str::to_string);
            }
        }
    }
    forms.iter().find_map(|form| {
        let thing = spells(question, form)?;
        let written = words(question);
        let position = written.iter().position(|w| w.range.start == thing.range.start)?;
        let deny = written[position.saturating_sub(ENGLISH_CUE_WORDS)..position]
            .iter()
            .find(|w| ENGLISH_DENY.contains(&w.text.as_str()))?;
        question.get(deny.range.start..thing.range.end).map(str::to_string)
    })
}

/// The flag's value the question states, with the words, or none.
pub fn flag_value(spec: &ParamSpec, question: &str) -> Option<(bool, String)> {
    flag_words(spec, question).map(|f| (f.value, f.evidence))
}

/// The flag's value the question states, with its words and where they stand: the thing in Chinese with its
/// cue (包括已取消的, 超时的), or in English by the general vocabulary ("including cancelled", "delayed").
pub fn flag_words(spec: &ParamSpec, question: &str) -> Option<FlagWords> {
    let (forms, only) = flag_subject(spec)?;
    let modifiers = modifiers_of(&forms);
    let q: Vec<char> = question.chars().map(fold_char).collect();
    let text: String = q.iter().collect();
    let searched = forms
        .iter()
        .map(|f| (f.clone(), f.clone()))
        .chain(modifiers.iter().map(|m| (m.clone(), format!("{m}的"))));
    for (form, search) in searched {
        let f = fold(&search);
        let Some(byte_at) = text.find(&f) else {
            continue;
        };
        let at = text[..byte_at].chars().count();
        let before: String = q[at.saturating_sub(CUE_GAP + 4)..at].iter().collect();
        let cue_at = |cue: &str| {
            before
                .rfind(cue)
                .filter(|&i| before[i + cue.len()..].chars().count() <= CUE_GAP)
                .map(|i| at - before[i..].chars().count())
        };
        let original = |from: usize| char_bytes(question, from..at + f.chars().count());
        if let Some((cue, from)) = EXCLUDE.iter().find_map(|c| cue_at(&fold(c)).map(|from| (c, from))) {
            return Some(FlagWords {
                value: false,
                evidence: format!("「{cue}…{form}」"),
                range: original(from),
            });
        }
        if let Some((cue, from)) = INCLUDE.iter().find_map(|c| cue_at(&fold(c)).map(|from| (c, from))) {
            return Some(FlagWords {
                value: true,
                evidence: format!("「{cue}{form}」"),
                range: original(from),
            });
        }
        if let Some(from) = negation_before(&q, at) {
            // Not X: for a flag that keeps only X no value says it; for one that adds X, it is left out.
            if only {
                return None;
            }
            return Some(FlagWords {
                value: false,
                evidence: format!("「{}」", question.get(original(from)).unwrap_or_default()),
                range: original(from),
            });
        }
        if only {
            return Some(FlagWords {
                value: true,
                evidence: format!("「{form}」"),
                range: original(at),
            });
        }
    }
    forms
        .iter()
        .chain(&modifiers)
        .find_map(|form| english_flag(question, form, only))
}

/// The shorter heads of a thing that stand for it before 的 (离职员工 → 离职: 包括离职的), two characters or more.
fn modifiers_of(forms: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for form in forms {
        let chars: Vec<char> = form.chars().collect();
        for len in (2..chars.len()).rev() {
            let head: String = chars[..len].iter().collect();
            if !forms.contains(&head) && !out.contains(&head) {
                out.push(head);
            }
        }
    }
    out
}

/// The flag stated in English: a word the vocabulary gives for the thing (delayed ↔ 超时), after an including or
/// excluding word, or alone for a flag that names what to keep; none after a denying word.
fn english_flag(question: &str, form: &str, only: bool) -> Option<FlagWords> {
    let thing = spells(question, form).or_else(|| form.strip_prefix('已').and_then(|bare| spells(question, bare)))?;
    let written = words(question);
    let position = written.iter().position(|w| w.range.start == thing.range.start)?;
    let before = &written[position.saturating_sub(ENGLISH_CUE_WORDS)..position];
    let words_of = thing.range.clone();
    let said = question.get(words_of.clone()).unwrap_or_default();
    if before.iter().any(|w| ENGLISH_DENY.contains(&w.text.as_str())) {
        return None;
    }
    let after: Vec<_> = written
        .iter()
        .filter(|w| w.range.start >= thing.range.end)
        .take(ENGLISH_CUE_WORDS)
        .collect();
    let cue_after = |list: &[&str]| {
        after
            .iter()
            .find(|w| list.contains(&w.text.as_str()))
            .map(|w| w.range.end)
    };
    for (list, value) in [(ENGLISH_EXCLUDED_AFTER, false), (ENGLISH_INCLUDED_AFTER, true)] {
        if let Some(end) = cue_after(list) {
            let said = question.get(words_of.start..end).unwrap_or_default();
            return Some(FlagWords {
                value,
                evidence: format!("「{said}」"),
                range: words_of.start..end,
            });
        }
    }
    let cue = |list: &[&str]| before.iter().rev().find(|w| list.contains(&w.text.as_str())).cloned();
    if let Some(cue) = cue(ENGLISH_EXCLUDE) {
        return Some(FlagWords {
            value: false,
            evidence: format!("「{} … {said}」", cue.text),
            range: cue.range.start..words_of.end,
        });
    }
    if let Some(cue) = cue(ENGLISH_INCLUDE) {
        return Some(FlagWords {
            value: true,
            evidence: format!("「{} … {said}」", cue.text),
            range: cue.range.start..words_of.end,
        });
    }
    only.then(|| FlagWords {
        value: true,
        evidence: format!("「{said}」 ({form})"),
        range: words_of,
    })
}

/// A text folded one character for one (width, script, case), so character positions stay those of the text.
fn fold(text: &str) -> String {
    text.chars().map(fold_char).collect()
}

/// The byte range of a character range of a text.
fn char_bytes(text: &str, chars: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let at = |i: usize| text.char_indices().nth(i).map_or(text.len(), |(b, _)| b);
    at(chars.start)..at(chars.end)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wenshu_contract::Catalog;

    use super::*;

    fn spec(description: &str) -> ParamSpec {
        let catalog = Catalog::from_json_str(
            &json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
                "f": {"type": "boolean", "description": description}
            }}}]})
            .to_string(),
        )
        .unwrap();
        catalog.tools()[0].param("f").unwrap().clone()
    }

    #[test]
    fn include_and_exclude_words_around_the_thing() {
        let s = spec("是否包含离职员工，默认不包含");
        assert_eq!(flag_value(&s, "本月的考勤，含离职员工").map(|v| v.0), Some(true));
        assert_eq!(flag_value(&s, "不算离职员工的话是多少").map(|v| v.0), Some(false));
        assert_eq!(flag_value(&s, "本月的考勤").map(|v| v.0), None);
        let s = spec("是否包含已退款的订单");
        assert_eq!(flag_value(&s, "包括已退款的").map(|v| v.0), Some(true));
        assert_eq!(flag_value(&s, "不要算退款的").map(|v| v.0), Some(false));
        let s = spec("只看逾期的账单，默认否");
        assert_eq!(flag_value(&s, "上月逾期的账单有几笔").map(|v| v.0), Some(true));
        assert_eq!(flag_value(&s, "上月的账单有几笔").map(|v| v.0), None);
        // The head of the thing before 的 stands for it (离职员工 → 包括离职的).
        let s = spec("是否包含离职员工，默认不包含");
        assert_eq!(flag_value(&s, "研发部有多少人，包括离职的").map(|v| v.0), Some(true));
        assert_eq!(flag_value(&s, "研发部有多少人，不算离职的").map(|v| v.0), Some(false));
        assert_eq!(flag_value(&s, "研发部离职率").map(|v| v.0), None);
        assert_eq!(
            flag_value(&s, "headcount including resigned staff").map(|v| v.0),
            Some(true)
        );
        // English, by the general vocabulary: the thing's English word, with or without a cue.
        let s = spec("只看逾期的账单，默认否");
        assert_eq!(
            flag_value(&s, "how many bills were overdue last month").map(|v| v.0),
            Some(true)
        );
        assert_eq!(
            flag_value(&s, "bills that are not overdue").map(|v| v.0),
            None,
            "no value says not"
        );
        let s = spec("是否包含已退款的订单");
        assert_eq!(
            flag_value(&s, "orders including refunded ones").map(|v| v.0),
            Some(true)
        );
        assert_eq!(flag_value(&s, "orders, excluding refunded").map(|v| v.0), Some(false));
        assert_eq!(
            flag_value(&s, "refunded orders").map(|v| v.0),
            None,
            "naming it includes nothing"
        );
        let included = flag_value(&s, "refunded ones included, how many orders");
        assert_eq!(included.map(|v| v.0), Some(true));
        let excluded = flag_value(&s, "orders with refunded ones excluded");
        assert_eq!(excluded.map(|v| v.0), Some(false));
        // Not X: a flag that keeps only X cannot say it; one that adds X leaves it out.
        let s = spec("只看逾期的账单，默认否");
        assert_eq!(flag_value(&s, "未逾期的账单有几笔").map(|v| v.0), None);
        assert_eq!(flag_denial(&s, "未逾期的账单有几笔").as_deref(), Some("未逾期"));
        assert_eq!(
            flag_denial(&s, "bills that are not overdue").as_deref(),
            Some("not overdue")
        );
        assert_eq!(flag_denial(&s, "逾期的账单有几笔"), None);
        assert_eq!(
            flag_denial(&s, "有没有逾期的账单"),
            None,
            "有没有 asks whether there are"
        );
        assert_eq!(flag_value(&s, "有没有逾期的账单").map(|v| v.0), Some(true));
        let s = spec("是否包含已作废的账单");
        assert_eq!(flag_value(&s, "没有作废的账单有几笔").map(|v| v.0), Some(false));
        assert_eq!(
            flag_denial(&s, "没有作废的账单有几笔"),
            None,
            "leaving it out is a value"
        );
        // A yes-word elsewhere in the sentence says nothing about the flag.
        assert_eq!(flag_value(&spec("只看超时的工单"), "已解决的有多少").map(|v| v.0), None);
    }

    #[test]
    fn the_words_that_state_a_flag_are_located() {
        let s = spec("是否包含离职员工，默认不包含");
        let question = "本月考勤，包括离职员工";
        let found = flag_words(&s, question).map(|f| (f.value, question.get(f.range).unwrap_or_default().to_string()));
        assert_eq!(found, Some((true, "包括离职员工".to_string())));
        let s = spec("只看逾期的账单");
        let question = "list overdue bills";
        let found = flag_words(&s, question).map(|f| question.get(f.range).unwrap_or_default().to_string());
        assert_eq!(found.as_deref(), Some("overdue"));
    }
}
