//! The days of a metric query: the other period of a comparison (the lexicon's comparison periods) and the number
//! of time buckets a range spans (for a mean per month).

use jiff::civil::{Date, Weekday};
use wenshu_contract::metric::{CompareKind, Grain};
use wenshu_lexicon::compare::{Basis, compare_range};
use wenshu_lexicon::time::DateRange;

/// Reads an ISO day.
pub fn parse_day(text: &str) -> Option<Date> {
    text.parse::<Date>().ok()
}

/// The other period of a comparison of `kind` beside `(start, end)`, as ISO days.
pub fn other_range(kind: CompareKind, start: &str, end: &str) -> Option<(String, String)> {
    let base = DateRange {
        start: parse_day(start)?,
        end: parse_day(end)?,
    };
    let basis = match kind {
        CompareKind::PreviousPeriod => Basis::PeriodOverPeriod,
        CompareKind::YearOverYear => Basis::YearOverYear,
    };
    let other = compare_range(base, basis)?;
    Some((other.start.to_string(), other.end.to_string()))
}

/// How many buckets of `grain` the days `start..=end` touch (12 for a year by month).
pub fn bucket_count(grain: Grain, start: &str, end: &str) -> Option<u32> {
    let (start, end) = (parse_day(start)?, parse_day(end)?);
    if end < start {
        return None;
    }
    let months = |d: Date| i32::from(d.year()) * 12 + i32::from(d.month()) - 1;
    let count = match grain {
        Grain::Day => i64::from((end - start).get_days()) + 1,
        Grain::Week => {
            let monday = |d: Date| {
                let back = i64::from(d.weekday().to_monday_zero_offset());
                d.checked_sub(jiff::Span::new().days(back)).unwrap_or(d)
            };
            i64::from((monday(end) - monday(start)).get_days()) / 7 + 1
        }
        Grain::Month => i64::from(months(end) - months(start)) + 1,
        Grain::Quarter => i64::from(months(end) / 3 - months(start) / 3) + 1,
        Grain::Year => i64::from(end.year()) - i64::from(start.year()) + 1,
    };
    let _ = Weekday::Monday;
    u32::try_from(count).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_of_a_year_and_of_weeks() {
        assert_eq!(bucket_count(Grain::Month, "2025-01-01", "2025-12-31"), Some(12));
        assert_eq!(bucket_count(Grain::Quarter, "2025-01-01", "2025-12-31"), Some(4));
        assert_eq!(bucket_count(Grain::Week, "2026-11-02", "2026-11-29"), Some(4));
        assert_eq!(bucket_count(Grain::Day, "2026-11-01", "2026-11-30"), Some(30));
        assert_eq!(bucket_count(Grain::Year, "2026-11-30", "2026-11-01"), None);
    }

    #[test]
    fn comparisons_follow_the_lexicon() {
        let q3 = other_range(CompareKind::PreviousPeriod, "2026-10-01", "2026-12-31");
        assert_eq!(q3, Some(("2026-07-01".into(), "2026-09-30".into())));
        let yoy = other_range(CompareKind::YearOverYear, "2026-10-01", "2026-10-31");
        assert_eq!(yoy, Some(("2025-10-01".into(), "2025-10-31".into())));
    }
}
