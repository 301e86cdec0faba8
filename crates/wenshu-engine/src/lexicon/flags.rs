//! Yes/no parameters read from their own description: 是否包含已取消的运单 ↔ 包括已取消的 → true, 不要算取消的 →
//! false; 只看超时的运单 ↔ 超时的 → true. The thing (X) comes from the description, the cue words are general.

use wenshu_contract::ParamSpec;
use wenshu_lexicon::canonical::canonical;

/// Words before X that include it.
const INCLUDE: &[&str] = &[
    "包括",
    "包含",
    "带上",
    "算上",
    "加上",
    "含",
    "要",
    "只看",
    "仅看",
    "只要",
    "只查",
    "只算",
    "including",
    "include",
    "with",
];
/// Words before X that leave it out (longest first: 不包括 before 包括).
pub(crate) const EXCLUDE: &[&str] = &[
    "不要算",
    "不包括",
    "不包含",
    "不算",
    "不含",
    "不要",
    "不计",
    "除去",
    "除了",
    "排除",
    "去掉",
    "剔除",
    "别算",
    "扣除",
    "excluding",
    "exclude",
    "without",
];
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

/// The flag's value the question states, with the words, or none.
pub fn flag_value(spec: &ParamSpec, question: &str) -> Option<(bool, String)> {
    let (forms, only) = flag_subject(spec)?;
    let q: Vec<char> = canonical(question).chars().collect();
    let text: String = q.iter().collect();
    for form in &forms {
        let f = canonical(form);
        let Some(byte_at) = text.find(&f) else {
            continue;
        };
        let at = text[..byte_at].chars().count();
        let before: String = q[at.saturating_sub(CUE_GAP + 4)..at].iter().collect();
        let cue_near = |cue: &str| {
            before
                .rfind(cue)
                .is_some_and(|i| before[i + cue.len()..].chars().count() <= CUE_GAP)
        };
        if let Some(cue) = EXCLUDE.iter().find(|c| cue_near(&canonical(c))) {
            return Some((false, format!("「{cue}…{form}」")));
        }
        if let Some(cue) = INCLUDE.iter().find(|c| cue_near(&canonical(c))) {
            return Some((true, format!("「{cue}{form}」")));
        }
        if only {
            return Some((true, format!("「{form}」")));
        }
    }
    None
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
        // A yes-word elsewhere in the sentence says nothing about the flag.
        assert_eq!(flag_value(&spec("只看超时的工单"), "已解决的有多少").map(|v| v.0), None);
    }
}
