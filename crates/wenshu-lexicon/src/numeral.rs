//! Numerals: Chinese (小写, 大写, abbreviated 三千五), Arabic (3,000, 1.5), mixed (1.5万), with count words.

use std::ops::Range;

use serde::Serialize;

use crate::text::{Cursor, Folded, is_word_char};

/// The largest magnitude accepted; bigger numerals are errors rather than imprecise floats.
pub const MAX_VALUE: f64 = 1e15;

/// What a numeral counts, judged from the words around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NumeralKind {
    /// A bare number: 三千五, 1.5万.
    Plain,
    /// A number with a measure word: 五个, 十五条.
    Count,
    /// A "first N": 前五, 前十名, top 5.
    TopN,
    /// An ordinal: 第三.
    Ordinal,
    /// A percentage: 5%, 百分之五.
    Percent,
}

/// A parsed number and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Number {
    /// The value (15000 for 1.5万).
    pub value: f64,
    /// What the number counts.
    pub kind: NumeralKind,
}

impl Number {
    /// The value as an integer when it is one.
    pub fn as_integer(&self) -> Option<i64> {
        integer_of(self.value)
    }
}

/// The value as an integer when it is a whole number within ±[`MAX_VALUE`].
pub fn integer_of(value: f64) -> Option<i64> {
    if value.fract() == 0.0 && value.abs() <= MAX_VALUE {
        Some(value as i64)
    } else {
        None
    }
}

/// Why a text is not a number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    /// The text is empty or only spaces.
    #[error("not a number: empty text")]
    Empty,
    /// The text holds something other than one numeral.
    #[error("not a number: {0}")]
    NotANumber(String),
    /// The numeral is larger than [`MAX_VALUE`].
    #[error("number too large: {0}")]
    TooLarge(String),
}

impl NumberError {
    /// A stable machine-readable code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            NumberError::Empty | NumberError::NotANumber(_) => "not_a_number",
            NumberError::TooLarge(_) => "number_too_large",
        }
    }
}

/// One numeral found in a sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NumeralSpan {
    /// Byte range in the original text, wrappers (前, 个, top) included.
    pub range: Range<usize>,
    /// The value.
    pub value: f64,
    /// What the number counts.
    pub kind: NumeralKind,
}

/// The value of a Chinese digit character (〇零一…九, 两, 大写 壹…玖).
pub(crate) fn digit_value(c: char) -> Option<u8> {
    Some(match c {
        '〇' | '零' => 0,
        '一' | '壹' | '幺' => 1,
        '二' | '贰' | '两' | '俩' => 2,
        '三' | '叁' | '参' => 3,
        '四' | '肆' => 4,
        '五' | '伍' => 5,
        '六' | '陆' => 6,
        '七' | '柒' => 7,
        '八' | '捌' => 8,
        '九' | '玖' => 9,
        _ => return None,
    })
}

/// The value of a unit within a section (十, 百, 千 and their 大写 forms).
fn small_unit(c: char) -> Option<f64> {
    match c {
        '十' | '拾' => Some(10.0),
        '百' | '佰' => Some(100.0),
        '千' | '仟' => Some(1000.0),
        _ => None,
    }
}

/// The value of a unit that closes a section (万, 亿).
fn large_unit(c: char) -> Option<f64> {
    match c {
        '万' => Some(1e4),
        '亿' => Some(1e8),
        _ => None,
    }
}

/// Whether `c` can be part of a Chinese numeral.
pub(crate) fn is_chinese_numeral_char(c: char) -> bool {
    digit_value(c).is_some() || small_unit(c).is_some() || large_unit(c).is_some()
}

/// How a numeral was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Arabic digits, maybe with Chinese units (1.5万).
    Arabic,
    /// Chinese digits read with units (三千五) or a single Chinese digit.
    Chinese,
    /// Chinese digits read one by one (二零二五).
    Positional,
}

/// A numeral read from folded characters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Read {
    /// The value.
    pub value: f64,
    /// How it was written.
    pub style: Style,
    /// How many characters it took.
    pub len: usize,
}

/// Reads a Chinese numeral (digits and units) at the cursor.
pub(crate) fn chinese(cur: &mut Cursor) -> Option<Read> {
    let start = cur.pos;
    let run = cur.s[start..].iter().take_while(|c| digit_value(**c).is_some()).count();
    let after_run = cur.s.get(start + run).copied();
    if run >= 2 && !after_run.is_some_and(|c| small_unit(c).is_some() || large_unit(c).is_some()) {
        let value = cur.s[start..start + run]
            .iter()
            .filter_map(|c| digit_value(*c))
            .fold(0.0, |acc, d| acc * 10.0 + f64::from(d));
        cur.pos = start + run;
        return Some(Read {
            value,
            style: Style::Positional,
            len: run,
        });
    }
    let mut total = 0.0_f64;
    let mut section = 0.0_f64;
    let mut pending: Option<u8> = None;
    let mut last_small = f64::INFINITY;
    let mut last_large = 0.0_f64;
    let mut after_zero = false;
    let mut last_unit: Option<f64> = None;
    let mut any = false;
    let mut end = start;
    let mut i = start;
    while let Some(&c) = cur.s.get(i) {
        if let Some(d) = digit_value(c) {
            if pending.is_some() {
                break;
            }
            if d == 0 {
                if !any {
                    any = true;
                    end = i + 1;
                    break;
                }
                after_zero = true;
                i += 1;
                continue;
            }
            pending = Some(d);
        } else if let Some(u) = small_unit(c) {
            if u >= last_small {
                break;
            }
            let d = match pending.take() {
                Some(d) => f64::from(d),
                None if u == 10.0 => 1.0,
                None => break,
            };
            section += d * u;
            last_small = u;
            last_unit = Some(u);
            after_zero = false;
        } else if let Some(u) = large_unit(c) {
            let sec = section + pending.take().map_or(0.0, f64::from);
            if !any || (sec == 0.0 && total == 0.0) {
                break;
            }
            if last_large > u {
                total += sec * u;
            } else {
                total = (total + sec) * u;
                last_large = u;
            }
            section = 0.0;
            last_small = f64::INFINITY;
            last_unit = Some(u);
            after_zero = false;
        } else {
            break;
        }
        any = true;
        i += 1;
        end = i;
    }
    if !any {
        return None;
    }
    let tail = match (pending, last_unit) {
        (Some(d), Some(u)) if !after_zero && end > start && ends_with_digit_after_unit(cur.s, end) => {
            f64::from(d) * u / 10.0
        }
        (Some(d), _) => f64::from(d),
        (None, _) => 0.0,
    };
    cur.pos = end;
    Some(Read {
        value: total + section + tail,
        style: Style::Chinese,
        len: end - start,
    })
}

/// Whether the numeral ending at `end` ends with a digit right after a unit (三千五, not 一百零五).
fn ends_with_digit_after_unit(s: &[char], end: usize) -> bool {
    end >= 2
        && s.get(end - 1).is_some_and(|c| digit_value(*c).is_some_and(|d| d != 0))
        && s.get(end - 2)
            .is_some_and(|c| small_unit(*c).is_some() || large_unit(*c).is_some())
}

/// Reads an Arabic numeral (3,000 / 1.5 / 12) with optional Chinese units after it (1.5万, 3千).
fn arabic(cur: &mut Cursor) -> Option<Read> {
    let start = cur.pos;
    let mut c = *cur;
    let (int, _) = c.digits()?;
    let mut value = int as f64;
    // Thousands separators: groups of exactly three digits.
    loop {
        let save = c.pos;
        if c.eat(',')
            && let Some((group, 3)) = c.digits()
        {
            value = value * 1000.0 + group as f64;
            continue;
        }
        c.pos = save;
        break;
    }
    let save = c.pos;
    if c.eat('.') {
        let frac_start = c.pos;
        match c.digits() {
            Some(_) => {
                let frac: String = c.s[frac_start..c.pos].iter().collect();
                let frac: f64 = format!("0.{frac}").parse().unwrap_or(0.0);
                value += frac;
            }
            None => c.pos = save,
        }
    }
    value = apply_units(&mut c, value);
    cur.pos = c.pos;
    Some(Read {
        value,
        style: Style::Arabic,
        len: c.pos - start,
    })
}

/// Multiplies by the Chinese units that follow an Arabic numeral (1.5万, 3千万).
fn apply_units(c: &mut Cursor, mut value: f64) -> f64 {
    while let Some(u) = c.peek().and_then(|ch| small_unit(ch).or_else(|| large_unit(ch))) {
        value *= u;
        c.pos += 1;
    }
    value
}

/// Reads one numeral (Arabic, Chinese, mixed, or Chinese with a 点 decimal) at the cursor.
pub(crate) fn numeral(cur: &mut Cursor) -> Option<Read> {
    let start = cur.pos;
    let first = cur.peek()?;
    if first.is_ascii_digit() {
        return arabic(cur);
    }
    let mut read = chinese(cur)?;
    if read.style == Style::Chinese && cur.peek() == Some('点') {
        let mut c = *cur;
        c.pos += 1;
        let digits: Vec<u8> = c.s[c.pos..].iter().map_while(|ch| digit_value(*ch)).collect();
        if !digits.is_empty() {
            let frac = digits.iter().rev().fold(0.0, |acc, d| (acc + f64::from(*d)) / 10.0);
            read.value += frac;
            cur.pos = c.pos + digits.len();
            let mut after = *cur;
            read.value = apply_units(&mut after, read.value);
            cur.pos = after.pos;
        }
    }
    read.len = cur.pos - start;
    Some(read)
}

/// Reads a small whole count (Arabic or Chinese) such as the 7 of 最近7天; None above `max`.
pub(crate) fn count(cur: &mut Cursor, max: u32) -> Option<u32> {
    let save = cur.pos;
    let first = cur.peek()?;
    let value = if first.is_ascii_digit() {
        cur.digits()?.0 as f64
    } else {
        let read = chinese(cur)?;
        if read.style == Style::Positional {
            cur.pos = save;
            return None;
        }
        read.value
    };
    if value < 1.0 || value > f64::from(max) || value.fract() != 0.0 {
        cur.pos = save;
        return None;
    }
    Some(value as u32)
}

/// Measure words that make a numeral a count (个, 名, 条 …).
const MEASURE_WORDS: &[&str] = &[
    "个", "名", "条", "位", "家", "款", "部", "次", "件", "笔", "单", "项", "张", "本", "台", "辆", "只", "人", "元",
    "块", "行", "页", "份", "组", "批", "种", "座", "场", "集", "套", "箱", "瓶", "斤", "吨", "米", "岁", "倍",
];

/// Words before a numeral that make it a "first N".
const TOP_PREFIXES: &[&str] = &["前", "top"];

/// A numeral with its surrounding words, read at a cursor.
struct Wrapped {
    /// The numeral itself.
    read: Read,
    /// Its kind.
    kind: NumeralKind,
    /// Characters from the wrapper start to the wrapper end.
    end: usize,
}

/// Reads a numeral with optional wrappers: 前五名, top 5, 第三, 百分之五, 五个, 5%.
fn wrapped(cur: &mut Cursor) -> Option<Wrapped> {
    let mut c = *cur;
    let mut kind = NumeralKind::Plain;
    let top_allowed = !cur.prev().is_some_and(is_word_char);
    if top_allowed && c.eat_any(TOP_PREFIXES).is_some() {
        kind = NumeralKind::TopN;
        c.skip_ws();
        c.eat('-');
    } else if c.eat('第') {
        kind = NumeralKind::Ordinal;
    } else if c.eat_str("百分之") {
        kind = NumeralKind::Percent;
    }
    let read = numeral(&mut c)?;
    if kind != NumeralKind::Percent {
        if c.eat('%') || c.eat('‰') {
            kind = NumeralKind::Percent;
        } else if c.eat_any(MEASURE_WORDS).is_some() && kind == NumeralKind::Plain {
            kind = NumeralKind::Count;
        }
    }
    cur.pos = c.pos;
    Some(Wrapped { read, kind, end: c.pos })
}

/// Parses text holding exactly one numeral, with wrappers such as 前五, 前十名, top 5, 两个.
pub fn parse_number(text: &str) -> Result<Number, NumberError> {
    let folded = Folded::new(text.trim());
    let s = &folded.chars;
    if s.is_empty() {
        return Err(NumberError::Empty);
    }
    let mut cur = Cursor::new(s, 0);
    let negative = cur.eat('-') || cur.eat('负');
    let not_a_number = || NumberError::NotANumber(text.trim().to_string());
    let w = wrapped(&mut cur).ok_or_else(not_a_number)?;
    cur.skip_ws();
    if !cur.at_end() {
        return Err(not_a_number());
    }
    if !w.read.value.is_finite() || w.read.value > MAX_VALUE {
        return Err(NumberError::TooLarge(text.trim().to_string()));
    }
    let value = if negative { -w.read.value } else { w.read.value };
    Ok(Number { value, kind: w.kind })
}

/// Finds every numeral in a sentence (byte ranges), skipping digits inside identifiers and lone 一 in 一下.
pub fn scan_numbers(text: &str) -> Vec<NumeralSpan> {
    let folded = Folded::new(text);
    scan_folded(&folded, &[])
}

/// Scans folded text for numerals, skipping the character ranges in `taken` (sorted).
pub(crate) fn scan_folded(folded: &Folded, taken: &[Range<usize>]) -> Vec<NumeralSpan> {
    let s = &folded.chars;
    let mut out = Vec::new();
    let mut i = 0;
    let mut taken_iter = taken.iter().peekable();
    while i < s.len() {
        while taken_iter.peek().is_some_and(|r| r.end <= i) {
            taken_iter.next();
        }
        if let Some(r) = taken_iter.peek().filter(|r| r.start <= i) {
            i = r.end;
            continue;
        }
        let c = s[i];
        let starts = c.is_ascii_digit() || is_chinese_numeral_char(c) || matches!(c, '前' | '第' | '百' | 't');
        let prev = i.checked_sub(1).and_then(|p| s.get(p).copied());
        let glued = prev.is_some_and(|p| is_word_char(p) || p == '_' || p == '.');
        if !starts || glued {
            i += 1;
            continue;
        }
        let mut cur = Cursor::new(s, i);
        let found = wrapped(&mut cur).filter(|w| accept(w, taken, i));
        match found {
            Some(w) => {
                out.push(NumeralSpan {
                    range: folded.bytes(i..w.end),
                    value: w.read.value,
                    kind: w.kind,
                });
                i = w.end;
            }
            None => i += 1,
        }
    }
    out
}

/// Whether a numeral found by the scanner is worth reporting.
fn accept(w: &Wrapped, taken: &[Range<usize>], start: usize) -> bool {
    let noisy = match w.read.style {
        Style::Arabic => false,
        Style::Chinese => w.read.len == 1 && w.kind == NumeralKind::Plain,
        Style::Positional => w.read.len < 3 && w.kind == NumeralKind::Plain,
    };
    let overlaps = taken.iter().any(|r| r.start < w.end && start < r.end);
    !noisy && !overlaps && w.read.value.is_finite() && w.read.value <= MAX_VALUE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> f64 {
        match parse_number(text) {
            Ok(n) => n.value,
            Err(e) => panic!("{text}: {e}"),
        }
    }

    #[test]
    fn chinese_numerals() {
        for (text, expected) in [
            ("三", 3.0),
            ("十", 10.0),
            ("十一", 11.0),
            ("二十", 20.0),
            ("二十五", 25.0),
            ("一百零二", 102.0),
            ("一千零五十", 1050.0),
            ("三千五", 3500.0),
            ("一万二", 12000.0),
            ("两百", 200.0),
            ("两百五", 250.0),
            ("一亿五", 150_000_000.0),
            ("一亿二千万", 120_000_000.0),
            ("一万亿", 1e12),
            ("五百万", 5_000_000.0),
            ("壹佰贰拾叁", 123.0),
            ("玖仟捌佰", 9800.0),
            ("兩萬", 20000.0),
            ("〇", 0.0),
            ("二零二五", 2025.0),
            ("三点五", 3.5),
            ("十二万三千四百五十六", 123_456.0),
        ] {
            assert_eq!(value(text), expected, "{text}");
        }
    }

    #[test]
    fn arabic_and_mixed() {
        for (text, expected) in [
            ("3,000", 3000.0),
            ("1,234,567", 1_234_567.0),
            ("1.5", 1.5),
            ("1.5万", 15000.0),
            ("3千", 3000.0),
            ("2亿", 2e8),
            ("１２３", 123.0),
            ("-5", -5.0),
            ("0", 0.0),
        ] {
            assert_eq!(value(text), expected, "{text}");
        }
    }

    #[test]
    fn wrappers() {
        for (text, expected, kind) in [
            ("前五", 5.0, NumeralKind::TopN),
            ("前十名", 10.0, NumeralKind::TopN),
            ("top 5", 5.0, NumeralKind::TopN),
            ("TOP10", 10.0, NumeralKind::TopN),
            ("五个", 5.0, NumeralKind::Count),
            ("十五条", 15.0, NumeralKind::Count),
            ("前20", 20.0, NumeralKind::TopN),
            ("两个", 2.0, NumeralKind::Count),
            ("兩個", 2.0, NumeralKind::Count),
            ("第三", 3.0, NumeralKind::Ordinal),
            ("百分之五十", 50.0, NumeralKind::Percent),
            ("5%", 5.0, NumeralKind::Percent),
        ] {
            let n = parse_number(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!((n.value, n.kind), (expected, kind), "{text}");
        }
    }

    #[test]
    fn errors() {
        assert_eq!(parse_number(""), Err(NumberError::Empty));
        assert_eq!(parse_number("   "), Err(NumberError::Empty));
        for text in ["abc", "万", "千万个好", "三月", "12abc", "前", "top", "1.2.3", "十十"] {
            assert!(matches!(parse_number(text), Err(NumberError::NotANumber(_))), "{text}");
        }
        for text in ["一亿亿亿亿亿", "99999999999999999", "1亿亿亿"] {
            assert!(matches!(parse_number(text), Err(NumberError::TooLarge(_))), "{text}");
        }
        assert!(parse_number("99999999999999999999999").is_err());
    }

    #[test]
    fn scans_sentences() {
        let text = "销售排名前五的产品，每个卖了3,000件，查一下两个地区";
        let spans = scan_numbers(text);
        let got: Vec<(&str, f64, NumeralKind)> = spans
            .iter()
            .map(|s| (&text[s.range.clone()], s.value, s.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                ("前五", 5.0, NumeralKind::TopN),
                ("3,000件", 3000.0, NumeralKind::Count),
                ("两个", 2.0, NumeralKind::Count),
            ]
        );
    }

    #[test]
    fn scan_skips_identifiers_and_noise() {
        let spans = scan_numbers("ord_123 一起 一下 统一 x5");
        assert!(spans.is_empty(), "{spans:?}");
        let spans = scan_numbers("给我top5和三千五");
        let values: Vec<f64> = spans.iter().map(|s| s.value).collect();
        assert_eq!(values, vec![5.0, 3500.0]);
    }

    #[test]
    fn integers() {
        assert_eq!(
            Number {
                value: 3.0,
                kind: NumeralKind::Plain
            }
            .as_integer(),
            Some(3)
        );
        assert_eq!(
            Number {
                value: 1.5,
                kind: NumeralKind::Plain
            }
            .as_integer(),
            None
        );
    }
}
