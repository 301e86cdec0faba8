//! Calendar arithmetic on whole periods: the period containing a day, shifting, rolling windows.

use jiff::Span;
use jiff::civil::Date;

use super::DateRange;

/// A calendar unit a period can be measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Unit {
    /// One day.
    Day,
    /// A Monday-to-Sunday week.
    Week,
    /// A calendar month.
    Month,
    /// A calendar quarter.
    Quarter,
    /// A half year (January–June, July–December).
    Half,
    /// A calendar year.
    Year,
}

impl Unit {
    /// How many months the unit spans, for the month-based units.
    fn months(self) -> Option<i64> {
        match self {
            Unit::Month => Some(1),
            Unit::Quarter => Some(3),
            Unit::Half => Some(6),
            Unit::Year => Some(12),
            Unit::Day | Unit::Week => None,
        }
    }
}

/// A date, or None when outside 0001-01-01..=9999-12-31 or not a real day.
pub(crate) fn date(year: i32, month: i32, day: i32) -> Option<Date> {
    if !(1..=9999).contains(&year) {
        return None;
    }
    let year = i16::try_from(year).ok()?;
    let month = i8::try_from(month).ok()?;
    let day = i8::try_from(day).ok()?;
    Date::new(year, month, day).ok()
}

/// `d` moved by `n` units (months clamp to the month's last day); None when out of range.
pub(crate) fn add(d: Date, unit: Unit, n: i64) -> Option<Date> {
    let span = match unit {
        Unit::Day => Span::new().try_days(n).ok()?,
        Unit::Week => Span::new().try_weeks(n).ok()?,
        _ => Span::new().try_months(n.checked_mul(unit.months()?)?).ok()?,
    };
    let moved = d.checked_add(span).ok()?;
    (moved.year() >= 1).then_some(moved)
}

/// The first day of the `unit` period that contains `d`.
pub(crate) fn period_start(d: Date, unit: Unit) -> Option<Date> {
    match unit {
        Unit::Day => Some(d),
        Unit::Week => add(d, Unit::Day, -i64::from(d.weekday().to_monday_zero_offset())),
        _ => {
            let span = unit.months()?;
            let month0 = i64::from(d.month() - 1);
            let first = month0 - month0 % span + 1;
            date(i32::from(d.year()), i32::try_from(first).ok()?, 1)
        }
    }
}

/// The whole `unit` period starting at `start`.
pub(crate) fn period_from(start: Date, unit: Unit) -> Option<DateRange> {
    let end = add(add(start, unit, 1)?, Unit::Day, -1)?;
    Some(DateRange { start, end })
}

/// The whole `unit` period containing `d`.
pub(crate) fn period_containing(d: Date, unit: Unit) -> Option<DateRange> {
    period_from(period_start(d, unit)?, unit)
}

/// The whole `unit` period `n` periods away from the one containing `today` (上个月: n = −1).
pub(crate) fn shifted_period(today: Date, unit: Unit, n: i64) -> Option<DateRange> {
    period_from(add(period_start(today, unit)?, unit, n)?, unit)
}

/// The rolling window of `n` units ending today: today − n units + 1 day ..= today.
pub(crate) fn rolling(today: Date, unit: Unit, n: i64) -> Option<DateRange> {
    let start = add(add(today, unit, -n)?, Unit::Day, 1)?;
    Some(DateRange { start, end: today })
}

/// The `n` whole periods before the current one (上两个月), or after it when `n` is negative.
pub(crate) fn full_periods(today: Date, unit: Unit, n: i64) -> Option<DateRange> {
    let current = period_start(today, unit)?;
    if n >= 0 {
        let start = add(current, unit, -n)?;
        Some(DateRange {
            start,
            end: add(current, Unit::Day, -1)?,
        })
    } else {
        let start = add(current, unit, 1)?;
        let end = add(add(start, unit, -n)?, Unit::Day, -1)?;
        Some(DateRange { start, end })
    }
}

/// The first `n` units of `outer` (今年前三季度), None when they do not fit inside it.
pub(crate) fn first_units(outer: DateRange, unit: Unit, n: i64) -> Option<DateRange> {
    let end = add(add(outer.start, unit, n)?, Unit::Day, -1)?;
    (end <= outer.end).then_some(DateRange {
        start: outer.start,
        end,
    })
}

/// The last `n` units of `outer` (上月最后五天), None when they do not fit inside it.
pub(crate) fn last_units(outer: DateRange, unit: Unit, n: i64) -> Option<DateRange> {
    let start = add(add(outer.end, Unit::Day, 1)?, unit, -n)?;
    (start >= outer.start).then_some(DateRange { start, end: outer.end })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date as d;

    #[test]
    fn periods() {
        let today = d(2026, 11, 29);
        assert_eq!(period_start(today, Unit::Week), Some(d(2026, 11, 23)));
        assert_eq!(period_start(today, Unit::Quarter), Some(d(2026, 10, 1)));
        assert_eq!(period_start(today, Unit::Half), Some(d(2026, 7, 1)));
        assert_eq!(
            period_containing(d(2024, 2, 10), Unit::Month),
            Some(DateRange {
                start: d(2024, 2, 1),
                end: d(2024, 2, 29)
            })
        );
        assert_eq!(
            shifted_period(today, Unit::Quarter, -1),
            Some(DateRange {
                start: d(2026, 7, 1),
                end: d(2026, 9, 30)
            })
        );
    }

    #[test]
    fn windows() {
        let today = d(2026, 11, 29);
        assert_eq!(
            rolling(today, Unit::Day, 7),
            Some(DateRange {
                start: d(2026, 11, 23),
                end: today
            })
        );
        assert_eq!(
            rolling(today, Unit::Month, 1),
            Some(DateRange {
                start: d(2026, 10, 30),
                end: today
            })
        );
        assert_eq!(
            full_periods(today, Unit::Month, 2),
            Some(DateRange {
                start: d(2026, 9, 1),
                end: d(2026, 10, 31)
            })
        );
        assert_eq!(
            full_periods(today, Unit::Day, -3),
            Some(DateRange {
                start: d(2026, 11, 30),
                end: d(2026, 12, 2)
            })
        );
        assert_eq!(add(d(1, 1, 1), Unit::Day, -1), None);
        assert_eq!(add(d(9999, 12, 31), Unit::Year, 1), None);
        assert_eq!(date(2026, 2, 30), None);
    }
}
