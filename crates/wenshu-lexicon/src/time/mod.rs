//! Time expressions (Chinese, traditional and simplified, and English) → closed date ranges.
//!
//! Conventions (see `eval/README.md`): ranges are closed; calendar periods are whole (本月 is the
//! whole month); weeks start on Monday; rolling windows end today (最近7天 = today − 6 ..= today);
//! a month or quarter without a year is the latest one already started; a bare weekday is this
//! week's; 上两个月 are the two whole months before this one.
//!
//! Further conventions: a holiday without a year is this year's (国庆 on 2013-02-12 is 2013-10-01;
//! lunar holidays and solar terms are computed for any year), and a holiday week is a range (国庆假期 10-01..10-07,
//! 五一假期 05-01..05-05); 月初/年初 and 月底/年底 are the first and last day, 上旬/中旬/下旬 the days
//! 1–10, 11–20 and 21–end, 上半月/下半月 1–15 and 16–end; "N天后" is that day, "N个月后" that whole
//! month; hours and minutes away (3小时后) count whole days only; 去年的今天 is the same day a year
//! ago; a time of day (下午三点, 16:30) never changes the day, and alone it is today in a whole
//! expression but is not reported when scanning a sentence.

mod calendar;
mod chinese;
mod clock;
mod decade;
mod english;
mod expr;
mod glued;
mod holiday;
mod lunar;
mod spec;

use std::fmt;
use std::ops::Range;

use jiff::civil::Date;
use serde::Serialize;

use crate::numeral;
use crate::text::Folded;
use expr::{Outcome, expression};
use spec::Ctx;

/// A closed range of days: `start` and `end` both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateRange {
    /// The first day.
    pub start: Date,
    /// The last day (included).
    pub end: Date,
}

impl DateRange {
    /// A range, or an error when `end` is before `start`.
    pub fn new(start: Date, end: Date) -> Result<DateRange, TimeError> {
        if end < start {
            return Err(TimeError::Inverted(format!("{start}..{end}")));
        }
        Ok(DateRange { start, end })
    }

    /// How many days the range holds.
    pub fn days(&self) -> i64 {
        (self.end - self.start).get_days() as i64 + 1
    }
}

impl fmt::Display for DateRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

impl Serialize for DateRange {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("DateRange", 2)?;
        s.serialize_field("start", &self.start.to_string())?;
        s.serialize_field("end", &self.end.to_string())?;
        s.end()
    }
}

/// Why a text is not a time expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// The text is not a time expression, or names a day that does not exist (2月30日).
    #[error("not a date: {0}")]
    NotADate(String),
    /// A range whose end is before its start.
    #[error("not a date: the range {0} ends before it starts")]
    Inverted(String),
    /// A time zone name unknown to the time zone database.
    #[error("unknown time zone: {0}")]
    UnknownTimeZone(String),
}

impl TimeError {
    /// A stable machine-readable code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            TimeError::NotADate(_) | TimeError::Inverted(_) => "not_a_date",
            TimeError::UnknownTimeZone(_) => "unknown_time_zone",
        }
    }
}

/// The shape of a time expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeKind {
    /// One day: 今天, 3月3日, 上周二.
    Day,
    /// One Monday–Sunday week: 本周.
    Week,
    /// One calendar month: 上个月, 2024年3月.
    Month,
    /// One calendar quarter: Q3, 上季度.
    Quarter,
    /// One half year: 上半年.
    HalfYear,
    /// One calendar year: 去年.
    Year,
    /// A rolling window ending today: 最近7天.
    Rolling,
    /// From the start of a period until today: 年初至今, 本月以来.
    ToDate,
    /// Whole periods before the current one: 上两个月.
    Previous,
    /// Whole periods after today: 未来7天.
    Next,
    /// An explicit range or part of a period: 3月1日到3月5日, 周末, 上旬.
    Range,
}

/// One time expression found in a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeSpan {
    /// Byte range in the original text.
    pub range: Range<usize>,
    /// The dates it denotes.
    pub date_range: DateRange,
    /// Its shape.
    pub kind: TimeKind,
}

/// Today's date in the named IANA time zone (the only function here that reads the clock).
pub fn today_in(tz_name: &str) -> Result<Date, TimeError> {
    let tz = jiff::tz::TimeZone::get(tz_name).map_err(|_| TimeError::UnknownTimeZone(tz_name.to_string()))?;
    Ok(jiff::Timestamp::now().to_zoned_datetime(tz).date())
}

/// Characters trimmed from the ends of a whole expression.
fn is_trimmed(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '。' | '.' | '?' | '？' | '!' | '！' | ',' | '，' | '、' | '的' | ':' | '：'
        )
}

/// Characters that, left over around the one expression of a text, make it more than one expression.
fn is_time_residue(c: char) -> bool {
    c.is_ascii_digit()
        || numeral::is_chinese_numeral_char(c)
        || matches!(c, '年' | '月' | '日' | '号' | '周' | '季' | '天')
}

/// Parses a whole time expression (最近7天, 2024年3月, 上周二, Q3 2025 …) relative to `today`.
///
/// A text holding one expression among other words (下周一下午开会) is accepted too, as long as
/// nothing else in it looks like part of a date.
pub fn parse_date_range(text: &str, today: Date) -> Result<DateRange, TimeError> {
    let folded = Folded::expression(text);
    let chars = &folded.chars;
    let start = chars.iter().position(|c| !is_trimmed(*c)).unwrap_or(chars.len());
    let end = chars.iter().rposition(|c| !is_trimmed(*c)).map_or(start, |i| i + 1);
    let s = chars.get(start..end).unwrap_or(&[]);
    let not_a_date = || TimeError::NotADate(text.trim().to_string());
    if s.is_empty() {
        return Err(not_a_date());
    }
    let whole = Ctx {
        today,
        anchor: None,
        whole: true,
    };
    match expression(s, 0, &whole) {
        Outcome::Found(f) if f.end == s.len() => return Ok(f.range),
        Outcome::Invalid(_) => return Err(not_a_date()),
        _ => {}
    }
    let scanned = scan_with(s, &whole);
    match scanned.as_slice() {
        [(range, date_range, _)] => match unknown_words(s, range.clone()) {
            Some(words) => Err(TimeError::NotADate(format!(
                "{} (words not understood as part of a date: {words})",
                text.trim()
            ))),
            None => Ok(*date_range),
        },
        _ => Err(not_a_date()),
    }
}

/// Characters that make words around a time expression part of a longer time phrase the grammar does
/// not know (2024年冬至节气, 复活节星期一, 春节前后): reading only the known part would widen or move it.
const CALENDAR_CHARS: &str =
    "几多余数每伊节假至旬宵夕朔望腊闰农阴历世纪代档期季初末底晚夜早午时点分秒刻暑寒前后内外间中半整第礼拜星";

/// Season characters: right next to an expression they change it (2024年春), apart they need not (6-3 春游).
const SEASON_CHARS: &str = "春夏秋冬";

/// The words left around the one expression of a text when they may change its meaning: any
/// date-like character, a calendar word, or a name glued right before a holiday (以色列国庆节).
fn unknown_words(s: &[char], range: Range<usize>) -> Option<String> {
    let left = &s[..range.start];
    let right = &s[range.end..];
    let date_like = left
        .iter()
        .chain(right)
        .any(|c| is_time_residue(*c) || CALENDAR_CHARS.contains(*c));
    let glued_season = [left.last(), right.first()]
        .iter()
        .any(|c| c.is_some_and(|c| SEASON_CHARS.contains(*c)));
    let glued_before = left.last().is_some_and(|c| is_han(*c)) && holiday::starts_name(s, range.start);
    if !date_like && !glued_season && !glued_before {
        return None;
    }
    let words: Vec<String> = [left, right]
        .iter()
        .map(|part| part.iter().collect::<String>().trim().to_string())
        .filter(|w| !w.is_empty())
        .collect();
    Some(words.join(", "))
}

pub(crate) use crate::canonical::is_han;

/// Finds every time expression in a sentence, in order, with byte ranges.
pub fn scan_times(text: &str, today: Date) -> Vec<TimeSpan> {
    scan_folded(&Folded::expression(text), today)
}

/// The byte ranges of a sentence's time expressions, for telling which words are time words where no day is at
/// hand: which words make a time expression does not depend on the day (a leap year's day is used, so 2月29日 is
/// one).
pub fn time_word_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let any_day = jiff::civil::date(2024, 6, 15);
    scan_times(text, any_day).into_iter().map(|span| span.range).collect()
}

/// Scans folded text; ranges are byte ranges of the original text.
pub(crate) fn scan_folded(folded: &Folded, today: Date) -> Vec<TimeSpan> {
    scan_chars(&folded.chars, today)
        .into_iter()
        .map(|(range, date_range, kind)| TimeSpan {
            range: folded.bytes(range),
            date_range,
            kind,
        })
        .collect()
}

/// Whether the next character is one of `chars` (a cheap test before trying a table of words).
pub(crate) fn next_in(c: &crate::text::Cursor, chars: &str) -> bool {
    c.peek().is_some_and(|ch| chars.chars().any(|x| x == ch))
}

/// A small whole count at the cursor ([`numeral::count`]), skipping the numeral reader when the next
/// character cannot start a numeral (most positions of a sentence).
pub(crate) fn count(c: &mut crate::text::Cursor, max: u32) -> Option<u32> {
    let starts = c
        .peek()
        .is_some_and(|ch| ch.is_ascii_digit() || numeral::is_chinese_numeral_char(ch));
    if starts { numeral::count(c, max) } else { None }
}

/// Whether a time expression can start with `c`.
pub(crate) fn may_start(c: char) -> bool {
    static STARTS: std::sync::OnceLock<Vec<char>> = std::sync::OnceLock::new();
    let starts = STARTS.get_or_init(|| {
        let mut all: Vec<char> = chinese::START_CHARS
            .chars()
            .chain(holiday::START_CHARS.chars())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    });
    c.is_ascii_alphanumeric() || starts.binary_search(&c).is_ok() || numeral::is_chinese_numeral_char(c)
}

/// Scans characters; ranges are character indices.
pub(crate) fn scan_chars(s: &[char], today: Date) -> Vec<(Range<usize>, DateRange, TimeKind)> {
    scan_with(
        s,
        &Ctx {
            today,
            anchor: None,
            whole: false,
        },
    )
}

/// Scans characters with a context; ranges are character indices.
fn scan_with(s: &[char], ctx: &Ctx) -> Vec<(Range<usize>, DateRange, TimeKind)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        let glued = c.is_ascii_alphanumeric() && i > 0 && s.get(i - 1).is_some_and(|p| p.is_ascii_alphabetic());
        if !may_start(c) || glued {
            i += 1;
            continue;
        }
        match expression(s, i, ctx) {
            Outcome::Found(f) => {
                // 2024年寒假, 国庆之后, 上个月第二天: a longer phrase the grammar does not know; the
                // part it knows alone would widen or move it, so nothing is reported.
                if !glued::continues(s, f.end) {
                    out.push((i..f.end, f.range, f.kind));
                }
                i = f.end.max(i + 1);
            }
            Outcome::Invalid(end) => i = end.max(i + 1),
            Outcome::NoMatch => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod word_range_tests {
    use super::*;

    #[test]
    fn time_words_are_found_without_a_day() {
        let text = "this week by week, 2月29日的";
        let words: Vec<&str> = time_word_ranges(text).into_iter().filter_map(|r| text.get(r)).collect();
        assert_eq!(words, vec!["this week", "2月29日"]);
        assert!(time_word_ranges("按周看的趋势").is_empty());
    }
}
