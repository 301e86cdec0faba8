//! Closed word lists the lexicon engine reads questions with: function words, references, follow-up connectors,
//! aggregate cues, and ID-like tokens.

use std::ops::Range;

use crate::sentence::Sentence;

/// Words that carry no subject: trimmed from the edges of what is left of a question, longest first.
const FUNCTION_WORDS: &[&str] = &[
    "这部电影",
    "那部电影",
    "这部影片",
    "那部影片",
    "是多少",
    "怎么样",
    "查一下",
    "看一下",
    "请问",
    "帮我",
    "帮忙",
    "给我",
    "我想",
    "我要",
    "知道",
    "查查",
    "查询",
    "查看",
    "看看",
    "看下",
    "一下",
    "那么",
    "多少",
    "怎样",
    "如何",
    "情况",
    "表现",
    "数据",
    "现在",
    "目前",
    "一共",
    "总共",
    "什么",
    "大概",
    "具体",
    "电影",
    "影片",
    "片子",
    "这部",
    "那部",
    "这个",
    "那个",
    "该片",
    "此片",
    "这片",
    "它的",
    "他的",
    "她的",
    "其的",
    "还有",
    "的",
    "了",
    "呢",
    "吗",
    "嘛",
    "吧",
    "啊",
    "呀",
    "是",
    "查",
    "看",
    "有",
    "在",
    "和",
    "与",
    "及",
    "啥",
    "都",
    "还",
    "再",
    "那",
    "这",
    "它",
    "他",
    "她",
    "其",
    "请",
    "共",
    "what",
    "what's",
    "whats",
    "how",
    "is",
    "was",
    "were",
    "are",
    "the",
    "of",
    "for",
    "about",
    "and",
    "movie",
    "film",
    "its",
    "it",
    "show",
    "me",
    "tell",
    "please",
    "ones",
    "one",
    "only",
    "just",
    "those",
    "these",
    "them",
    "then",
];

/// Question words that speak for no tool: masked from a question before its words are scored, longest first.
const QUESTION_WORDS: &[&str] = &[
    "是多少",
    "怎么样",
    "查一下",
    "看一下",
    "请问",
    "帮我",
    "给我",
    "多少",
    "怎样",
    "如何",
    "什么",
    "一下",
    "查查",
    "看看",
    "是",
    "的",
    "了",
    "呢",
    "吗",
    "吧",
    "啊",
    "呀",
    "嘛",
    "请",
    "我",
    "你",
    "他",
    "她",
    "它",
    "这",
    "那",
    "有",
    "在",
    "和",
    "与",
    "及",
];

/// Masks the question words (多少, 怎么样, 的, 呢 …) of a sentence, so only words that can speak for a tool remain.
pub fn mask_question_words(sentence: &mut Sentence) {
    let mut i = 0;
    while i < sentence.chars.len() {
        let rest = &sentence.chars[i..];
        match QUESTION_WORDS.iter().find(|w| starts_with_word(rest, w)) {
            Some(word) => {
                let len = word.chars().count();
                sentence.mask_chars(&(i..i + len));
                i += len;
            }
            None => i += 1,
        }
    }
}

/// Everyday words and the catalog-style words they mean (口碑 → 评价, 多少分 → 评分, 卖 → 销售): added to a
/// question's words before scoring, so a tool is found by what a question means, not only by its exact words.
const RELATED_WORDS: &[(&str, &str)] = &[
    ("口碑", "评价 评分"),
    ("多少分", "评分"),
    ("几分", "评分"),
    ("打分", "评分"),
    ("分数", "评分"),
    ("得分", "评分"),
    ("好评", "评价 评分"),
    ("影评", "评价 评分"),
    ("rating", "评分"),
    ("score", "评分"),
    ("review", "评价"),
    ("box office", "票房"),
    ("gross", "票房"),
    ("票房", "票房"),
    ("卖", "销售"),
    ("营收", "销售额"),
    ("营业额", "销售额"),
    ("业绩", "销售额"),
    ("revenue", "销售额"),
    ("sales", "销售"),
    ("sold", "销售"),
    ("sell", "销售"),
    ("selling", "销售"),
    ("order", "订单"),
    ("status", "状态"),
    ("物流", "订单 状态"),
    ("收货", "配送 地址 收件"),
    ("收件", "配送 地址"),
    ("快递", "订单 状态"),
];

/// Everyday words with the catalog-style words they mean (卖 → 销售), space-separated.
pub fn related_pairs() -> &'static [(&'static str, &'static str)] {
    RELATED_WORDS
}

/// The catalog-style words a folded question means beyond its own words, space-separated: the related words
/// above, and the Chinese of its English words (delayed → 超时, on-time → 准时), so an English question is read
/// with a Chinese catalog's words.
pub fn related_words(folded: &str) -> String {
    let related = RELATED_WORDS
        .iter()
        .filter(|(word, _)| folded.contains(word))
        .map(|(_, meaning)| *meaning);
    let translated = crate::bilingual::translations(folded)
        .into_iter()
        .flat_map(|t| t.chinese.iter().copied());
    related.chain(translated).collect::<Vec<_>>().join(" ")
}

/// Words that refer back to an earlier subject.
const REFERENCES: &[&str] = &[
    "这部电影",
    "那部电影",
    "这部影片",
    "那部影片",
    "这部",
    "那部",
    "这个",
    "那个",
    "该片",
    "此片",
    "这片",
    "它",
    "他",
    "她",
    "其",
    "it",
    "its",
];

/// Words that open a follow-up question (那它的评分呢, 那满江红呢, what about …).
const FOLLOW_UP_OPENERS: &[&str] = &[
    "那么",
    "那",
    "还有",
    "再看",
    "再查",
    "换成",
    "换",
    "只看",
    "只要",
    "只查",
    "仅看",
    "and",
    "what about",
    "how about",
];

/// Ranking and superlative words: the question compares many subjects.
const RANKING_CUES: &[&str] = &[
    "最高",
    "最多",
    "最低",
    "最少",
    "最好",
    "最差",
    "最火",
    "最热",
    "最受欢迎",
    "排名",
    "排行",
    "榜",
    "哪些",
    "哪几",
    "哪部",
    "highest",
    "most",
    "best",
    "top",
    "ranking",
];

/// Words naming many subjects at once.
const PLURAL_CUES: &[&str] = &[
    "电影", "影片", "片子", "哪些", "哪几", "所有", "各部", "movies", "films",
];

/// Whether a folded text starts with one of the words, at a word boundary for ASCII words.
fn starts_with_word(chars: &[char], word: &str) -> bool {
    let mut len = 0;
    let mut last = None;
    for w in word.chars() {
        if chars.get(len) != Some(&w) {
            return false;
        }
        last = Some(w);
        len += 1;
    }
    !(last.is_some_and(|c| c.is_ascii_alphanumeric()) && chars.get(len).is_some_and(char::is_ascii_alphanumeric))
}

/// Whether a folded text ends with one of the words, at a word boundary for ASCII words.
fn ends_with_word(chars: &[char], word: &str) -> bool {
    let w: Vec<char> = word.chars().collect();
    chars.len() >= w.len()
        && chars[chars.len() - w.len()..] == w[..]
        && !(w.first().is_some_and(char::is_ascii_alphanumeric)
            && chars
                .len()
                .checked_sub(w.len() + 1)
                .and_then(|i| chars.get(i))
                .is_some_and(char::is_ascii_alphanumeric))
}

/// Trims function words (and spaces) from both ends of a character range of a sentence, repeatedly.
pub fn trim_function_words(sentence: &Sentence, range: Range<usize>) -> Range<usize> {
    let (mut start, mut end) = (range.start, range.end);
    loop {
        while start < end && sentence.chars[start].is_whitespace() {
            start += 1;
        }
        while end > start && sentence.chars[end - 1].is_whitespace() {
            end -= 1;
        }
        let chars = &sentence.chars[start..end];
        if let Some(word) = FUNCTION_WORDS.iter().find(|w| starts_with_word(chars, w)) {
            start += word.chars().count();
            continue;
        }
        if let Some(word) = FUNCTION_WORDS.iter().find(|w| ends_with_word(chars, w)) {
            end -= word.chars().count();
            continue;
        }
        return start..end;
    }
}

/// Whether a folded text holds a reference word (它, 这部, 该片 …).
pub fn has_reference(folded: &str) -> bool {
    REFERENCES.iter().any(|r| {
        if r.is_ascii() {
            folded.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == *r)
        } else {
            folded.contains(r)
        }
    })
}

/// The first reference word of a sentence, as a character range (longest word first at each position).
pub fn find_reference(sentence: &Sentence) -> Option<Range<usize>> {
    (0..sentence.chars.len()).find_map(|i| {
        let rest = &sentence.chars[i..];
        let left_ok = !sentence
            .chars
            .get(i.wrapping_sub(1))
            .is_some_and(char::is_ascii_alphanumeric);
        REFERENCES
            .iter()
            .find(|r| starts_with_word(rest, r) && (!r.is_ascii() || left_ok))
            .map(|r| i..i + r.chars().count())
    })
}

/// Whether a folded question opens or closes like a follow-up (那…, …呢, what about …).
pub fn looks_like_follow_up(folded: &str) -> bool {
    let trimmed = folded.trim_end_matches(|c: char| c.is_whitespace() || "?？。.!！".contains(c));
    let chars: Vec<char> = trimmed.trim_start().chars().collect();
    FOLLOW_UP_OPENERS.iter().any(|w| starts_with_word(&chars, w)) || trimmed.ends_with('呢')
}

/// The follow-up opener a folded question starts with, as a number of characters.
pub fn opener_len(chars: &[char]) -> usize {
    FOLLOW_UP_OPENERS
        .iter()
        .find(|w| starts_with_word(chars, w))
        .map_or(0, |w| w.chars().count())
}

/// `question` without the follow-up opener it starts with (那华南呢 → 华南呢).
pub fn without_opener(question: &str) -> &str {
    let skip = opener_len(&crate::sentence::Sentence::new(question).chars);
    let start = question.char_indices().nth(skip).map_or(question.len(), |(at, _)| at);
    &question[start..]
}

/// The aggregate cues of a folded question: (a ranking or superlative word, a word naming many subjects).
pub fn aggregate_cues(folded: &str, has_count_or_top: bool) -> (Option<&'static str>, Option<&'static str>) {
    let ranking = RANKING_CUES.iter().find(|w| folded.contains(*w)).copied();
    let plural = PLURAL_CUES.iter().find(|w| folded.contains(*w)).copied();
    let plural = plural.or(has_count_or_top.then_some("N部"));
    (ranking, plural)
}

/// An ID-like token of a sentence: ASCII, starting with a letter and holding a digit (ord_123, A-9), or a run of
/// at least five digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdToken {
    /// Byte range in the sentence.
    pub range: Range<usize>,
    /// The token as written.
    pub text: String,
}

/// Every ID-like token of a text (maximal runs of `[A-Za-z0-9_-]`).
pub fn id_tokens(text: &str) -> Vec<IdToken> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let bytes = text.as_bytes();
    for i in 0..=bytes.len() {
        let inside = bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-');
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let token = text.get(s..i).unwrap_or_default().trim_matches('-');
                let offset = text.get(s..i).map_or(0, |t| t.len() - t.trim_start_matches('-').len());
                let first_letter = token.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
                let has_digit = token.chars().any(|c| c.is_ascii_digit());
                let all_digits = !token.is_empty() && token.chars().all(|c| c.is_ascii_digit());
                if (first_letter && has_digit) || (all_digits && token.len() >= 5) {
                    out.push(IdToken {
                        range: s + offset..s + offset + token.len(),
                        text: token.to_string(),
                    });
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether a parameter's name or description says it holds an identifier (ID, 编号, 单号, 订单号 …).
pub fn is_id_like(name: &str, description: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let description = description.to_lowercase();
    name.ends_with("id")
        || name.ends_with("no")
        || name.ends_with("code")
        || name.ends_with("number")
        || ["id", "编号", "单号", "号码", "订单号", "代码", "code"]
            .iter()
            .any(|w| description.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trimmed(text: &str) -> String {
        let s = Sentence::new(text);
        let r = trim_function_words(&s, 0..s.chars.len());
        s.slice(&r).to_string()
    }

    #[test]
    fn function_words_leave_the_name() {
        assert_eq!(trimmed("那它的"), "");
        assert_eq!(trimmed("查一下战狼3的"), "战狼3");
        assert_eq!(trimmed("那满江红呢"), "满江红");
        assert_eq!(trimmed("what is the"), "");
    }

    #[test]
    fn references_and_follow_ups() {
        assert!(has_reference("那它的评分呢"));
        assert!(has_reference("what about its rating"));
        assert!(!has_reference("满江红的评分"));
        assert!(looks_like_follow_up("那满江红呢"));
        assert!(looks_like_follow_up("长津湖呢？"));
        assert!(!looks_like_follow_up("长津湖的评分"));
    }

    #[test]
    fn id_tokens_need_a_letter_and_a_digit() {
        let texts: Vec<String> = id_tokens("订单 ord_123 和 A-9，不是 abc 或 12，是 2023110500")
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(texts, vec!["ord_123", "A-9", "2023110500"]);
        assert!(is_id_like("orderId", "订单 ID"));
        assert!(!is_id_like("region", "地区筛选"));
    }

    #[test]
    fn aggregates_need_both_cues() {
        assert_eq!(
            aggregate_cues("今年票房最高的十部电影是哪些", true),
            (Some("最高"), Some("电影"))
        );
        assert_eq!(aggregate_cues("满江红的票房", false), (None, None));
    }
}
