//! Words glued right after a time expression in a sentence that make it part of a longer time phrase
//! the grammar does not read (2024年寒假, 国庆之后, 上个月第二天, 今年第三个季度): reporting the
//! known part alone would widen or move the dates, so the scan reports nothing there.

use crate::numeral;

/// Characters that make an unknown break or season (寒假, 假期, 档期, 暑期, 中秋期间).
const HOLIDAY_WORD_CHARS: &str = "假档暑寒节期";

/// Words that move the dates before or after the expression (国庆之后, 春节前后, 十月左右).
const BEFORE_AFTER_WORDS: &[&str] = &["之前", "之后", "以前", "以后", "前后", "左右", "前夕"];

/// Words that pick a numbered part of the period (上个月第二天, 今年头三天, 本季度第三周).
const PART_PREFIXES: &[&str] = &["最后", "最初", "第", "头", "首", "末"];

/// Units a numbered part counts; with 个 before them or not (第三个季度).
const PART_UNITS: &str = "年季月周星礼天日旬号";

/// Whether the characters at `end`, right after a time expression, make it part of a phrase the
/// grammar does not read.
pub(crate) fn continues(s: &[char], end: usize) -> bool {
    let rest = s.get(end..).unwrap_or(&[]);
    let Some(&first) = rest.first() else {
        return false;
    };
    HOLIDAY_WORD_CHARS.contains(first)
        || BEFORE_AFTER_WORDS.iter().any(|w| starts_with(rest, w))
        || bare_before_after(rest)
        || numbered_part(rest)
        || part_of_period(rest)
}

/// Whether `s` starts with `word`.
fn starts_with(s: &[char], word: &str) -> bool {
    let mut at = s.iter();
    word.chars().all(|w| at.next() == Some(&w))
}

/// 国庆前, 春节后 (not 上个月前五名, a top N, nor 前三天, read as part of the period).
fn bare_before_after(rest: &[char]) -> bool {
    matches!(rest.first(), Some('前' | '后'))
        && !rest
            .get(1)
            .is_some_and(|c| c.is_ascii_digit() || numeral::is_chinese_numeral_char(*c))
}

/// 第二天, 头三天, 第三个季度, 最后两周: a numbered part the grammar did not read.
fn numbered_part(rest: &[char]) -> bool {
    let Some(prefix) = PART_PREFIXES.iter().find(|p| starts_with(rest, p)) else {
        return false;
    };
    let mut i = prefix.chars().count();
    let numeral_start = i;
    while rest
        .get(i)
        .is_some_and(|c| c.is_ascii_digit() || numeral::is_chinese_numeral_char(*c))
    {
        i += 1;
    }
    if i == numeral_start {
        return false;
    }
    if rest.get(i) == Some(&'个') {
        i += 1;
    }
    rest.get(i).is_some_and(|c| PART_UNITS.contains(*c))
}

/// 今年年中, 上个月中: the middle or an edge of the period written in a way the grammar did not
/// read (中 alone only before no other ideograph: it starts words such as 中国, and 上个月中的 may
/// mean "in last month").
fn part_of_period(rest: &[char]) -> bool {
    let edge = |c: Option<&char>| c.is_some_and(|c| "中初底末".contains(*c));
    let alone = |c: Option<&char>| c.is_none_or(|c| !super::is_han(*c));
    match rest.first() {
        Some('年' | '月') => edge(rest.get(1)),
        Some('中') => alone(rest.get(1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(text: &str) -> bool {
        let s: Vec<char> = text.chars().collect();
        continues(&s, 0)
    }

    #[test]
    fn glued_words_that_change_the_dates() {
        for text in [
            "寒假",
            "期间",
            "之后的销量",
            "前后",
            "前的",
            "后",
            "第二天",
            "头三天",
            "第三个季度",
            "第10周",
            "最后两周",
            "年中",
            "中",
            "中，",
        ] {
            assert!(after(text), "{text}");
        }
    }

    #[test]
    fn ordinary_words_after_a_date() {
        for text in [
            "",
            "的销售额",
            "前五名",
            "前10",
            "第一单",
            "第一笔订单",
            "中国的销量",
            "中华区",
            "中的",
            "日均订单",
            "一共",
            "同比",
        ] {
            assert!(!after(text), "{text}");
        }
    }
}
