//! Period enums: map a date range to the enum value (本月, last_quarter …) that denotes the same days.

use std::cell::RefCell;

use jiff::civil::Date;

use crate::memo::{Recent, recall};
use crate::text::Folded;
use crate::time::{DateRange, TimeKind, parse_date_range, scan_times};

/// How many recently read enum values each thread remembers.
const RECENT_VALUES: usize = 64;

/// A value and the day it is read on.
type Reading = (String, Date);

thread_local! {
    /// The enum values most recently read on this thread, with their meaning that day.
    static RECENT: RefCell<Recent<Reading, Option<(DateRange, TimeKind)>>> =
        const { RefCell::new(Recent::new(RECENT_VALUES)) };
}

/// The range an enum value denotes today (本月, this_month, last_7_days …), if it is a time expression.
///
/// The last few values read on this thread are remembered, so the enum labels a plan reads many times
/// are parsed once.
pub fn period_range(value: &str, today: Date) -> Option<DateRange> {
    value_meaning(value, today).map(|(range, _)| range)
}

/// The enum value whose own meaning today is exactly `range`; None when no value denotes it.
///
/// Each value is read as a time expression itself (Chinese, or English in snake_case or with
/// spaces), so Q3 on 2026-11-29 maps to 上季度 and 去年 maps to nothing in 本月/上月/本季度/上季度/本年.
pub fn match_period<S: AsRef<str>>(enum_values: &[S], range: &DateRange, today: Date) -> Option<String> {
    enum_values
        .iter()
        .map(AsRef::as_ref)
        .find(|value| period_range(value, today).as_ref() == Some(range))
        .map(str::to_string)
}

/// The range and kind an enum value denotes today, when it is one time expression (remembered per thread).
fn value_meaning(value: &str, today: Date) -> Option<(DateRange, TimeKind)> {
    recall(
        &RECENT,
        |(v, day)| *day == today && v == value,
        || ((value.to_string(), today), read_meaning(value, today)),
    )
}

/// The range and kind an enum value denotes today, read afresh.
fn read_meaning(value: &str, today: Date) -> Option<(DateRange, TimeKind)> {
    let range = parse_date_range(value, today).ok()?;
    let folded = Folded::expression(value);
    let spans = crate::time::scan_folded(&folded, today);
    let kind = match spans.as_slice() {
        [one] if one.date_range == range => one.kind,
        _ => return Some((range, TimeKind::Range)),
    };
    Some((range, kind))
}

/// Like [`match_period`] for a question's time expression: among values denoting the same days,
/// one of the same kind wins (最近7天 on a Sunday → last_7_days rather than current_week).
pub fn match_period_of<S: AsRef<str>>(enum_values: &[S], expression: &str, today: Date) -> Option<String> {
    let range = parse_date_range(expression, today).ok()?;
    let kind = match scan_times(expression, today).as_slice() {
        [one] if one.date_range == range => Some(one.kind),
        _ => None,
    };
    let candidates: Vec<(&str, TimeKind)> = enum_values
        .iter()
        .map(AsRef::as_ref)
        .filter_map(|v| {
            value_meaning(v, today)
                .filter(|(r, _)| *r == range)
                .map(|(_, k)| (v, k))
        })
        .collect();
    candidates
        .iter()
        .find(|(_, k)| Some(*k) == kind)
        .or_else(|| candidates.first())
        .map(|(v, _)| (*v).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    const CN: &[&str] = &["本月", "上月", "本季度", "上季度", "本年"];
    const EN: &[&str] = &[
        "this_month",
        "last_month",
        "current_quarter",
        "last_quarter",
        "this_year",
        "current_week",
        "last_7_days",
        "last_30_days",
    ];

    fn range(text: &str, today: Date) -> DateRange {
        parse_date_range(text, today).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn chinese_enums() {
        let today = date(2026, 11, 29);
        for (question, expected) in [
            ("Q3", Some("上季度")),
            ("这个月", Some("本月")),
            ("上个月", Some("上月")),
            ("10月", Some("上月")),
            ("今年", Some("本年")),
            ("第四季度", Some("本季度")),
            ("去年", None),
            ("最近7天", None),
            ("上周", None),
        ] {
            let got = match_period(CN, &range(question, today), today);
            assert_eq!(got.as_deref(), expected, "{question}");
        }
    }

    #[test]
    fn english_enums() {
        let today = date(2026, 11, 29);
        for (question, expected) in [
            ("本月", Some("this_month")),
            ("上个月", Some("last_month")),
            ("本季度", Some("current_quarter")),
            ("Q3", Some("last_quarter")),
            ("今年", Some("this_year")),
            ("本周", Some("current_week")),
            ("近30天", Some("last_30_days")),
            ("去年", None),
        ] {
            let got = match_period(EN, &range(question, today), today);
            assert_eq!(got.as_deref(), expected, "{question}");
        }
        assert_eq!(match_period_of(EN, "最近7天", today).as_deref(), Some("last_7_days"));
        assert_eq!(match_period_of(EN, "本周", today).as_deref(), Some("current_week"));
        assert_eq!(match_period_of(CN, "Q3", today).as_deref(), Some("上季度"));
        assert_eq!(match_period_of(CN, "去年", today), None);
        let owned: Vec<String> = EN.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            match_period(&owned, &range("this month", today), today).as_deref(),
            Some("this_month")
        );
    }

    #[test]
    fn non_periods_never_match() {
        let today = date(2026, 11, 29);
        let r = range("本月", today);
        assert_eq!(match_period(&["all", "全部", ""], &r, today), None);
        assert_eq!(match_period::<&str>(&[], &r, today), None);
    }
}
