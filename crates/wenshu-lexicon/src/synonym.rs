//! Enum values and their synonyms found inside a sentence, and `value(label)` lists in descriptions.

use std::collections::HashMap;
use std::ops::Range;

use serde::Serialize;

use crate::canonical::fold_char;
use crate::text::{Folded, is_word_char};

/// One synonym found in a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SynonymHit {
    /// Byte range in the original text.
    pub range: Range<usize>,
    /// The canonical enum value.
    pub value: String,
    /// The surface form that matched, as written in the synonym list.
    pub surface: String,
}

/// One surface form to look for.
#[derive(Debug, Clone)]
struct Pattern {
    /// The folded characters.
    chars: Vec<char>,
    /// Index of the value in `SynonymMatcher::values`.
    value: usize,
    /// The surface as given.
    surface: String,
}

/// Finds enum values by their surface forms (the value itself counts as one), on folded text.
#[derive(Debug, Clone, Default)]
pub struct SynonymMatcher {
    /// The canonical values.
    values: Vec<String>,
    /// All surface forms.
    patterns: Vec<Pattern>,
    /// Pattern indices by first folded character, longest first.
    by_first: HashMap<char, Vec<usize>>,
}

impl SynonymMatcher {
    /// Builds a matcher from (canonical value, surface forms) pairs; the value is a surface form too.
    pub fn new<I>(entries: I) -> SynonymMatcher
    where
        I: IntoIterator<Item = (String, Vec<String>)>,
    {
        let mut m = SynonymMatcher::default();
        for (value, surfaces) in entries {
            let index = m.values.len();
            for surface in std::iter::once(value.clone()).chain(surfaces) {
                let chars: Vec<char> = surface.trim().chars().map(fold_char).collect();
                if chars.is_empty() || m.patterns.iter().any(|p| p.chars == chars) {
                    continue;
                }
                m.patterns.push(Pattern {
                    chars,
                    value: index,
                    surface,
                });
            }
            m.values.push(value);
        }
        for (i, p) in m.patterns.iter().enumerate() {
            if let Some(&first) = p.chars.first() {
                m.by_first.entry(first).or_default().push(i);
            }
        }
        let patterns = &m.patterns;
        for list in m.by_first.values_mut() {
            list.sort_by_key(|i| std::cmp::Reverse(patterns[*i].chars.len()));
        }
        m
    }

    /// Every hit in `text`: no two overlap; longer hits win, then earlier ones; sorted by position.
    pub fn find_all(&self, text: &str) -> Vec<SynonymHit> {
        let folded = Folded::new(text);
        self.find_folded(&folded)
    }

    /// [`SynonymMatcher::find_all`] on text already folded.
    pub(crate) fn find_folded(&self, folded: &Folded) -> Vec<SynonymHit> {
        let s = &folded.chars;
        let mut candidates: Vec<(usize, usize, usize)> = Vec::new(); // (start, len, pattern)
        for (i, c) in s.iter().enumerate() {
            let Some(list) = self.by_first.get(c) else { continue };
            for &pi in list {
                let p = &self.patterns[pi];
                let end = i + p.chars.len();
                if s.get(i..end) == Some(p.chars.as_slice())
                    && self.bounded(s, i, end, &p.chars)
                    && !inside_common_word(s, i, &p.chars)
                {
                    candidates.push((i, p.chars.len(), pi));
                }
            }
        }
        candidates.sort_by_key(|&(start, len, _)| (std::cmp::Reverse(len), start));
        let mut taken = vec![false; s.len()];
        let mut hits: Vec<(usize, usize, usize)> = Vec::new();
        for (start, len, pi) in candidates {
            let span = start..start + len;
            if taken[span.clone()].iter().any(|t| *t) {
                continue;
            }
            taken[span].iter_mut().for_each(|t| *t = true);
            hits.push((start, len, pi));
        }
        hits.sort_unstable();
        hits.into_iter()
            .map(|(start, len, pi)| {
                let p = &self.patterns[pi];
                let range = folded.bytes(start..start + len);
                SynonymHit {
                    range,
                    value: self.values[p.value].clone(),
                    surface: p.surface.clone(),
                }
            })
            .collect()
    }

    /// Whether an ASCII-edged pattern at `start..end` stands as a whole word.
    fn bounded(&self, s: &[char], start: usize, end: usize, pattern: &[char]) -> bool {
        let left_ok = !pattern.first().is_some_and(|c| is_word_char(*c))
            || !start
                .checked_sub(1)
                .and_then(|i| s.get(i))
                .is_some_and(|c| is_word_char(*c));
        let right_ok =
            !pattern.last().is_some_and(|c| is_word_char(*c)) || !s.get(end).is_some_and(|c| is_word_char(*c));
        left_ok && right_ok
    }
}

/// Common two-character words whose characters carry no meaning of their own (其中 "among them", 最高 "the
/// highest", 多少 "how many"): a one-character spelling (中 of P3(中), 高 of 高优先级) is not found inside them.
const COMMON_WORDS: &[&str] = &[
    "其中", "之中", "当中", "集中", "中间", "高于", "低于", "大于", "小于", "多于", "少于", "提高", "降低", "最高",
    "最低", "最大", "最小", "最多", "最少", "最新", "最早", "最晚", "最好", "最差", "多少", "至少", "至多", "很多",
    "许多", "好多", "多久", "大概", "大约", "大家", "小时", "是否", "有无", "没有", "不是", "还是", "就是", "新增",
    "不好", "不高", "不低",
];

/// Whether a one-character CJK spelling at `start` is part of one of the [`COMMON_WORDS`] in `s`.
fn inside_common_word(s: &[char], start: usize, pattern: &[char]) -> bool {
    let [c] = pattern else {
        return false;
    };
    if !crate::canonical::is_han(*c) {
        return false;
    }
    let pair = |a: Option<&char>, b: Option<&char>| match (a, b) {
        (Some(a), Some(b)) => COMMON_WORDS.iter().any(|w| {
            let mut chars = w.chars();
            chars.next() == Some(*a) && chars.next() == Some(*b)
        }),
        _ => false,
    };
    let before = start.checked_sub(1).and_then(|i| s.get(i));
    pair(before, s.get(start)) || pair(s.get(start), s.get(start + 1))
}

/// Separators between `value(label)` items.
fn is_item_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, '、' | ',' | '，' | ';' | '；' | ':' | '：' | '/' | '|' | ')' | '）')
}

/// Parses labels written as `value(label)` or `value（label）`: "summary(汇总)、ranking(排名)".
pub fn description_labels(description: &str) -> Vec<(String, String)> {
    let chars: Vec<char> = description.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !matches!(chars[i], '(' | '（') {
            i += 1;
            continue;
        }
        let Some(close) = chars[i + 1..]
            .iter()
            .position(|c| matches!(c, ')' | '）'))
            .map(|p| i + 1 + p)
        else {
            break;
        };
        let value_start = chars[..i]
            .iter()
            .rposition(|c| is_item_separator(*c))
            .map_or(0, |p| p + 1);
        let value: String = chars[value_start..i].iter().collect();
        let label: String = chars[i + 1..close].iter().collect();
        let (value, label) = (value.trim(), label.trim());
        if !value.is_empty() && !label.is_empty() {
            out.push((value.to_string(), label.to_string()));
        }
        i = close + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sales() -> SynonymMatcher {
        let entries = [
            ("华东", vec!["华东区", "华东地区", "East China"]),
            ("专业版", vec!["professional", "pro", "professional edition"]),
            ("企业版", vec!["enterprise", "企业"]),
            ("summary", vec!["汇总", "销售额", "多少"]),
            ("ranking", vec!["排名", "排行", "排行榜", "top"]),
        ];
        SynonymMatcher::new(
            entries
                .into_iter()
                .map(|(v, s)| (v.to_string(), s.into_iter().map(String::from).collect())),
        )
    }

    fn found(text: &str) -> Vec<(String, String)> {
        sales()
            .find_all(text)
            .into_iter()
            .map(|h| (text[h.range].to_string(), h.value))
            .collect()
    }

    #[test]
    fn longest_match_wins() {
        assert_eq!(
            found("華東地區企业版销售额排行榜"),
            vec![
                ("華東地區".to_string(), "华东".to_string()),
                ("企业版".to_string(), "企业版".to_string()),
                ("销售额".to_string(), "summary".to_string()),
                ("排行榜".to_string(), "ranking".to_string()),
            ]
        );
    }

    #[test]
    fn ascii_words_need_boundaries() {
        assert!(found("our product line").is_empty());
        assert_eq!(found("the Pro edition")[0].1, "专业版");
        assert_eq!(
            found("East China sales, professional edition")[1].0,
            "professional edition"
        );
        assert_eq!(found("top5")[..], []);
        assert_eq!(found("专业版pro")[1].1, "专业版");
    }

    #[test]
    fn one_character_spellings_are_not_read_inside_common_words() {
        let levels = SynonymMatcher::new(
            [("L1", "高"), ("L2", "中"), ("L3", "低")]
                .into_iter()
                .map(|(v, s)| (v.to_string(), vec![s.to_string()])),
        );
        let values = |text: &str| -> Vec<String> { levels.find_all(text).into_iter().map(|h| h.value).collect() };
        assert!(values("其中逾期的有几个").is_empty(), "中 of 其中");
        assert!(values("得分最高的学员").is_empty(), "高 of 最高");
        assert_eq!(values("中风险的客户"), vec!["L2"]);
        assert_eq!(values("高、低两档"), vec!["L1", "L3"]);
    }

    #[test]
    fn no_overlaps() {
        let hits = sales().find_all("华东区华东");
        assert_eq!(hits.len(), 2);
        assert!(hits[0].range.end <= hits[1].range.start);
        assert!(sales().find_all("").is_empty());
    }

    #[test]
    fn labels() {
        assert_eq!(
            description_labels("查询类型：summary(汇总)、ranking(排名)、detail（明细）、trend(趋势)"),
            vec![
                ("summary".to_string(), "汇总".to_string()),
                ("ranking".to_string(), "排名".to_string()),
                ("detail".to_string(), "明细".to_string()),
                ("trend".to_string(), "趋势".to_string()),
            ]
        );
        assert!(description_labels("返回记录数限制，默认10").is_empty());
        assert!(description_labels("broken(").is_empty());
        assert!(description_labels("()").is_empty());
    }
}
