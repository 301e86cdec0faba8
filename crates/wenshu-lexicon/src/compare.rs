//! Comparison periods: the range a base range is compared with (同比, 去年同期, 环比, 上期).
//!
//! Conventions (also in `eval/README.md`):
//! - 同比 / 去年同期 / 上年同期 / year over year: the same days one year earlier. A day that does not
//!   exist a year earlier (02-29) becomes the month's last day, and a range ending on a month's last
//!   day ends on that month's last day a year earlier (2025-02 → 2024-02-01..2024-02-29).
//! - 环比 / 上期 / period over period: the previous period of the same kind and length. Whole months
//!   (本月, 本季度, 今年, 上两个月) → the same number of whole months just before; a part of a month
//!   starting on its first day (本月至今, 本月前十天) → the same days of the month before (clamped to
//!   its end), and likewise for a quarter, half or year to date (本季度至今 → the same days of the
//!   quarter before); a week from its Monday to a day before Sunday (本周至今) → the same days of the
//!   week before; anything else (本周, 最近7天, 3月5日到3月9日) → as many days just before.

use jiff::civil::Date;
use jiff::{Span, ToSpan};
use serde::Serialize;

use crate::time::{DateRange, TimeError, parse_date_range};

/// What a base range is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// 同比, 去年同期: the same days one year earlier.
    YearOverYear,
    /// 环比, 上期: the previous period of the same kind and length.
    PeriodOverPeriod,
}

/// Words naming a comparison basis, longest first.
const BASIS_WORDS: &[(&str, Basis)] = &[
    ("year over year", Basis::YearOverYear),
    ("year-over-year", Basis::YearOverYear),
    ("same period last year", Basis::YearOverYear),
    ("去年同期", Basis::YearOverYear),
    ("上年同期", Basis::YearOverYear),
    ("上一年同期", Basis::YearOverYear),
    ("前一年同期", Basis::YearOverYear),
    ("同比", Basis::YearOverYear),
    ("yoy", Basis::YearOverYear),
    ("period over period", Basis::PeriodOverPeriod),
    ("previous period", Basis::PeriodOverPeriod),
    ("上一期", Basis::PeriodOverPeriod),
    ("前一期", Basis::PeriodOverPeriod),
    ("上期", Basis::PeriodOverPeriod),
    ("环比", Basis::PeriodOverPeriod),
    ("mom", Basis::PeriodOverPeriod),
    ("qoq", Basis::PeriodOverPeriod),
    ("wow", Basis::PeriodOverPeriod),
    ("pop", Basis::PeriodOverPeriod),
];

/// Why no comparison range could be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// The word is not one of the comparison words.
    #[error("not a comparison word: {0} (expected 同比, 去年同期, 上年同期, 环比, 上期, yoy, mom …)")]
    UnknownBasis(String),
    /// The base text is not a time expression.
    #[error(transparent)]
    Base(#[from] TimeError),
    /// The comparison range falls outside the calendar (before year 1).
    #[error("no comparison range before {0}")]
    OutOfRange(String),
}

impl CompareError {
    /// A stable machine-readable code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            CompareError::UnknownBasis(_) => "unknown_basis",
            CompareError::Base(e) => e.code(),
            CompareError::OutOfRange(_) => "out_of_range",
        }
    }
}

/// A base range and the range it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The range asked about.
    pub base: DateRange,
    /// The range it is compared with.
    pub compare: DateRange,
    /// How the comparison range was chosen.
    pub basis: Basis,
}

/// The basis a word names (同比 → year over year, 环比 → period over period), None for other words.
pub fn basis_of(word: &str) -> Option<Basis> {
    let folded: String = word.trim().chars().map(crate::canonical::fold_char).collect();
    BASIS_WORDS.iter().find(|(w, _)| *w == folded).map(|(_, b)| *b)
}

/// Finds a comparison word inside a sentence (和去年同期比, 环比增长): the first one, with its byte range.
pub fn find_basis(text: &str) -> Option<(std::ops::Range<usize>, Basis)> {
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return None;
    }
    BASIS_WORDS
        .iter()
        .filter(|(w, _)| !w.is_ascii())
        .filter_map(|(w, b)| lower.find(w).map(|i| (i..i + w.len(), *b)))
        .min_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)))
}

/// The last day of the month `d` is in.
fn month_end(d: Date) -> Date {
    d.last_of_month()
}

/// `d` moved by `months` months, clamped to the month's end; None outside the calendar.
fn add_months(d: Date, months: i64) -> Option<Date> {
    let moved = d.checked_add(Span::new().try_months(months).ok()?).ok()?;
    (moved.year() >= 1).then_some(moved)
}

/// For a range from the first day of a month, quarter, half or year to a day inside that same
/// period (本月至今, 本季度至今, 今年以来), the length of that period in months.
fn to_date_unit(base: DateRange) -> Option<i64> {
    let months_apart =
        i64::from(base.end.year() - base.start.year()) * 12 + i64::from(base.end.month() - base.start.month());
    let start_month0 = i64::from(base.start.month() - 1);
    [1, 3, 6, 12]
        .into_iter()
        .find(|unit| start_month0 % unit == 0 && start_month0 % unit + months_apart < *unit)
}

/// The comparison range of `base` on `basis` (see the module conventions); None before year 1.
pub fn compare_range(base: DateRange, basis: Basis) -> Option<DateRange> {
    let start_is_first = base.start.day() == 1;
    let end_is_last = base.end == month_end(base.end);
    match basis {
        Basis::YearOverYear => {
            let start = add_months(base.start, -12)?;
            let end = add_months(base.end, -12)?;
            let end = if end_is_last { month_end(end) } else { end };
            Some(DateRange { start, end })
        }
        Basis::PeriodOverPeriod if start_is_first && end_is_last => {
            let months = i64::from(base.end.year() - base.start.year()) * 12
                + i64::from(base.end.month() - base.start.month())
                + 1;
            let start = add_months(base.start, -months)?;
            let end = base.start.checked_sub(1.day()).ok()?;
            Some(DateRange { start, end })
        }
        Basis::PeriodOverPeriod if start_is_first && to_date_unit(base).is_some() => {
            let months = to_date_unit(base)?;
            let start = add_months(base.start, -months)?;
            let end = add_months(base.end, -months)?;
            Some(DateRange { start, end })
        }
        Basis::PeriodOverPeriod if base.start.weekday() == jiff::civil::Weekday::Monday && base.days() < 7 => {
            // 本周至今 on a Wednesday: Monday to Wednesday of the week before.
            let start = base.start.checked_sub(7.days()).ok()?;
            let end = base.end.checked_sub(7.days()).ok()?;
            (start.year() >= 1).then_some(DateRange { start, end })
        }
        Basis::PeriodOverPeriod => {
            let end = base.start.checked_sub(1.day()).ok()?;
            let start = end.checked_sub(Span::new().try_days(base.days() - 1).ok()?).ok()?;
            (start.year() >= 1).then_some(DateRange { start, end })
        }
    }
}

/// Parses `base_text` as a time expression and gives its comparison range for `word` (同比, 环比 …).
///
/// `compare("本月", "环比", 2026-11-29)` → base 2026-11-01..2026-11-30, compare 2026-10-01..2026-10-31;
/// `compare("最近7天", "环比", …)` → the 7 days before; `compare("2025年3月", "同比", …)` → 2024-03.
pub fn compare(base_text: &str, word: &str, today: Date) -> Result<Comparison, CompareError> {
    let basis = basis_of(word).ok_or_else(|| CompareError::UnknownBasis(word.trim().to_string()))?;
    let base = parse_date_range(base_text, today)?;
    let compare = compare_range(base, basis).ok_or_else(|| CompareError::OutOfRange(base.to_string()))?;
    Ok(Comparison { base, compare, basis })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn range(a: Date, b: Date) -> DateRange {
        DateRange { start: a, end: b }
    }

    fn check(cases: &[(&str, &str, &str)]) {
        let today = date(2026, 11, 29);
        for (base, word, expected) in cases {
            let got = compare(base, word, today).map(|c| c.compare.to_string());
            assert_eq!(got.as_deref(), Ok(*expected), "{base} {word}");
        }
    }

    #[test]
    fn year_over_year() {
        check(&[
            ("本月", "同比", "2025-11-01..2025-11-30"),
            ("最近7天", "去年同期", "2025-11-23..2025-11-29"),
            ("今年", "上年同期", "2025-01-01..2025-12-31"),
            ("2025年2月", "同比", "2024-02-01..2024-02-29"),
            ("2024年2月", "同比", "2023-02-01..2023-02-28"),
            ("2024年2月29日", "同比", "2023-02-28..2023-02-28"),
            ("本季度", "YoY", "2025-10-01..2025-12-31"),
            ("年初至今", "同比", "2025-01-01..2025-11-29"),
        ]);
    }

    #[test]
    fn period_over_period() {
        check(&[
            ("本月", "环比", "2026-10-01..2026-10-31"),
            ("本周", "环比", "2026-11-16..2026-11-22"),
            ("最近7天", "环比", "2026-11-16..2026-11-22"),
            ("本季度", "上期", "2026-07-01..2026-09-30"),
            ("今年", "环比", "2025-01-01..2025-12-31"),
            ("上两个月", "环比", "2026-07-01..2026-08-31"),
            ("本月至今", "环比", "2026-10-01..2026-10-29"),
            ("2026年3月1日到3月31日", "环比", "2026-02-01..2026-02-28"),
            ("2026年3月1日到3月30日", "环比", "2026-02-01..2026-02-28"),
            ("昨天", "环比", "2026-11-27..2026-11-27"),
            ("上半年", "mom", "2025-07-01..2025-12-31"),
            ("本季度至今", "环比", "2026-07-01..2026-08-29"),
            ("年初至今", "环比", "2025-01-01..2025-11-29"),
            ("本月前十天", "环比", "2026-10-01..2026-10-10"),
        ]);
    }

    #[test]
    fn week_to_date_is_the_same_days_of_last_week() {
        let wednesday = range(date(2026, 11, 23), date(2026, 11, 25));
        assert_eq!(
            compare_range(wednesday, Basis::PeriodOverPeriod),
            Some(range(date(2026, 11, 16), date(2026, 11, 18)))
        );
    }

    #[test]
    fn errors_name_the_part() {
        let today = date(2026, 11, 29);
        assert_eq!(
            compare("本月", "比一比", today).map_err(|e| e.code()),
            Err("unknown_basis")
        );
        assert_eq!(
            compare("不是日期", "同比", today).map_err(|e| e.code()),
            Err("not_a_date")
        );
        assert_eq!(
            compare_range(range(date(1, 1, 1), date(1, 1, 31)), Basis::YearOverYear),
            None
        );
        assert_eq!(
            compare_range(range(date(1, 1, 1), date(1, 1, 7)), Basis::PeriodOverPeriod),
            None
        );
    }

    #[test]
    fn words_in_sentences() {
        assert_eq!(basis_of(" 同比 "), Some(Basis::YearOverYear));
        assert_eq!(basis_of("環比"), Some(Basis::PeriodOverPeriod));
        assert_eq!(basis_of("同期"), None);
        let text = "上个月销售额和去年同期比如何";
        let (r, b) = find_basis(text).unwrap_or((0..0, Basis::PeriodOverPeriod));
        assert_eq!((&text[r], b), ("去年同期", Basis::YearOverYear));
        assert_eq!(
            find_basis("本月环比增长多少").map(|(_, b)| b),
            Some(Basis::PeriodOverPeriod)
        );
        assert_eq!(find_basis("本月销售额"), None);
    }
}
