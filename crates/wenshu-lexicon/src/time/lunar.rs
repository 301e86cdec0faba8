//! The Chinese lunisolar calendar (农历/阴历 months and days, 闰月) and the 24 solar terms, for
//! Gregorian years 1000–3000, computed by `tyme4rs`.

use super::next_in;
use jiff::civil::Date;
use tyme4rs::tyme::Culture;
use tyme4rs::tyme::lunar::{LunarDay, LunarMonth};
use tyme4rs::tyme::solar::{SolarDay, SolarTerm};

use super::DateRange;
use super::calendar::date;
use super::chinese;
use super::spec::{Ctx, Spec};
use crate::numeral;
use crate::text::Cursor;

/// The years the calendar is asked about; outside them a lunar date is not a date.
const YEARS: std::ops::RangeInclusive<i32> = 1000..=3000;

/// The 24 solar terms in Gregorian order, 小寒 (early January) first.
pub(crate) const SOLAR_TERMS: [&str; 24] = [
    "小寒", "大寒", "立春", "雨水", "惊蛰", "春分", "清明", "谷雨", "立夏", "小满", "芒种", "夏至", "小暑", "大暑",
    "立秋", "处暑", "白露", "秋分", "寒露", "霜降", "立冬", "小雪", "大雪", "冬至",
];

/// A Gregorian date from the calendar crate's solar day.
fn from_solar(day: &SolarDay) -> Option<Date> {
    date(
        i32::try_from(day.get_year()).ok()?,
        i32::try_from(day.get_month()).ok()?,
        i32::try_from(day.get_day()).ok()?,
    )
}

/// The lunar month `month` (1..=12, leap when `leap`) of lunar year `year`, checked.
fn lunar_month(year: i32, month: u8, leap: bool) -> Option<LunarMonth> {
    if !YEARS.contains(&year) || !(1..=12).contains(&month) {
        return None;
    }
    let m = if leap { -isize::from(month) } else { isize::from(month) };
    LunarMonth::new(isize::try_from(year).ok()?, m).ok()
}

/// The Gregorian day of lunar `year`-`month`-`day` (闰 when `leap`); None when it does not exist.
pub(crate) fn lunar_day(year: i32, month: u8, leap: bool, day: u8) -> Option<Date> {
    let m = lunar_month(year, month, leap)?;
    if day == 0 || usize::from(day) > m.get_day_count() {
        return None;
    }
    let d = LunarDay::new(isize::try_from(year).ok()?, m.get_month_with_leap(), usize::from(day)).ok()?;
    from_solar(&d.get_solar_day())
}

/// The Gregorian days of a whole lunar month.
pub(crate) fn lunar_month_range(year: i32, month: u8, leap: bool) -> Option<DateRange> {
    let m = lunar_month(year, month, leap)?;
    let start = lunar_day(year, month, leap, 1)?;
    let last = u8::try_from(m.get_day_count()).ok()?;
    let end = lunar_day(year, month, leap, last)?;
    Some(DateRange { start, end })
}

/// The lunar year a Gregorian day falls in (春节 2026-02-17 starts lunar year 2026).
pub(crate) fn lunar_year_of(d: Date) -> Option<i32> {
    if !YEARS.contains(&i32::from(d.year())) {
        return None;
    }
    let solar = SolarDay::new(
        isize::from(d.year()),
        usize::try_from(d.month()).ok()?,
        usize::try_from(d.day()).ok()?,
    )
    .ok()?;
    i32::try_from(solar.get_lunar_day().get_year()).ok()
}

/// The day of solar term `index` (into [`SOLAR_TERMS`]) in Gregorian `year`.
pub(crate) fn solar_term(year: i32, index: usize) -> Option<Date> {
    if !YEARS.contains(&year) || index >= SOLAR_TERMS.len() {
        return None;
    }
    // tyme4rs counts a year's terms from the 冬至 of the December before: 小寒 is its index 1.
    let term = SolarTerm::from_index(isize::try_from(year).ok()?, isize::try_from(index).ok()? + 1);
    let day = from_solar(&term.get_julian_day().get_solar_day())?;
    (term.get_name() == SOLAR_TERMS[index] && i32::from(day.year()) == year).then_some(day)
}

/// Words saying the lunar calendar is meant.
pub(crate) const LUNAR_PREFIXES: &[&str] = &["农历", "阴历", "旧历", "夏历"];

/// Month names used only in the lunar calendar.
const MONTH_NAMES: &[(&str, u8)] = &[("正月", 1), ("冬月", 11), ("腊月", 12)];

/// Characters that start a day number written only in the lunar calendar (初五, 廿二, 卅).
const LUNAR_DAY_STARTS: &[char] = &['初', '廿', '卅'];

/// A lunar day number: 初一…初十, 十一…三十, 廿三 (日/号 allowed after).
fn day_number(c: &mut Cursor) -> Option<u8> {
    let save = c.pos;
    let d = if c.eat('初') {
        super::count(c, 10)?
    } else {
        let d = super::count(c, 30)?;
        if c.peek()
            .is_some_and(|ch| ch == '月' || ch == '年' || ch.is_ascii_digit())
        {
            c.pos = save;
            return None;
        }
        d
    };
    c.eat_any(&["日", "号"]);
    u8::try_from(d).ok()
}

/// The days of a lunar month or day in lunar `year`.
fn days_of(year: i32, month: u8, leap: bool, day: Option<u8>) -> Option<DateRange> {
    match day {
        Some(d) => lunar_day(year, month, leap, d).map(|start| DateRange { start, end: start }),
        None => lunar_month_range(year, month, leap),
    }
}

/// 农历正月初五, 阴历八月十五, 腊月二十三, 闰四月, 农历2025年三月, 五月初五, 大年初十: the lunar year
/// named, else the lunar year numbered like today's year (腊月 of 2026 is in January 2027); on the
/// right of a range, the first such day not before its start.
pub(crate) fn lunar_date(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    let numeral_start = c
        .peek()
        .is_some_and(|ch| ch.is_ascii_digit() || numeral::is_chinese_numeral_char(ch));
    if !numeral_start && !next_in(c, "农阴旧夏闰正冬腊大") {
        return None;
    }
    let year_only = Spec {
        year: spec.year,
        bare_year: spec.bare_year,
        ..Spec::default()
    } == *spec;
    if !year_only {
        return None;
    }
    let prefixed = c.eat_any(LUNAR_PREFIXES).is_some();
    let mut year = spec.year;
    if prefixed && year.is_none() {
        let mut probe = *c;
        if let Some(named) = chinese::explicit_year(&mut probe, ctx, &Spec::default())
            && !named.bare_year
        {
            year = named.year;
            c.pos = probe.pos;
            c.eat('的');
        }
    }
    let leap = c.eat('闰');
    let month = if let Some(m) = c.eat_table(MONTH_NAMES) {
        m
    } else if !leap && c.looking_at("大年初") {
        // 大年初十: a day of the first month.
        c.pos += 2;
        1
    } else {
        let m = super::count(c, 12)?;
        c.eat_any(&["月份", "月"])?;
        // Without 农历 a numbered month is lunar only before a lunar day (五月初五, 九月廿二).
        if !(prefixed || leap || c.peek().is_some_and(|ch| LUNAR_DAY_STARTS.contains(&ch))) {
            return None;
        }
        u8::try_from(m).ok()?
    };
    let mut probe = *c;
    let day = day_number(&mut probe);
    if day.is_some() {
        c.pos = probe.pos;
    }
    let range = match (year, ctx.anchor) {
        (Some(y), _) => days_of(y, month, leap, day)?,
        (None, Some(anchor)) => {
            let y = lunar_year_of(anchor)?;
            [y, y + 1]
                .into_iter()
                .find_map(|y| days_of(y, month, leap, day).filter(|r| r.end >= anchor))?
        }
        (None, None) => days_of(i32::from(ctx.today.year()), month, leap, day)?,
    };
    Some(Spec {
        fixed: Some(range),
        ..Spec::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date as d;

    #[test]
    fn lunar_days_of_known_years() {
        assert_eq!(lunar_day(2026, 1, false, 1), Some(d(2026, 2, 17)));
        assert_eq!(lunar_day(2013, 1, false, 1), Some(d(2013, 2, 10)));
        assert_eq!(lunar_day(2024, 8, false, 15), Some(d(2024, 9, 17)));
        assert_eq!(lunar_day(1950, 1, false, 1), Some(d(1950, 2, 17)));
        assert_eq!(lunar_day(2050, 1, false, 1), Some(d(2050, 1, 23)));
        assert_eq!(lunar_day(2020, 4, true, 1), Some(d(2020, 5, 23)));
        assert_eq!(lunar_day(2021, 4, true, 1), None, "2021 has no 闰四月");
        assert_eq!(lunar_day(2026, 1, false, 31), None);
        assert_eq!(lunar_day(999, 1, false, 1), None);
    }

    #[test]
    fn lunar_months_and_years() {
        assert_eq!(
            lunar_month_range(2026, 1, false),
            Some(DateRange {
                start: d(2026, 2, 17),
                end: d(2026, 3, 18)
            })
        );
        assert_eq!(lunar_year_of(d(2026, 2, 16)), Some(2025));
        assert_eq!(lunar_year_of(d(2026, 2, 17)), Some(2026));
    }

    #[test]
    fn solar_terms_of_known_years() {
        assert_eq!(solar_term(2024, 23), Some(d(2024, 12, 21)), "2024 冬至");
        assert_eq!(solar_term(2026, 6), Some(d(2026, 4, 5)), "2026 清明");
        assert_eq!(solar_term(2025, 0), Some(d(2025, 1, 5)), "2025 小寒");
        assert_eq!(solar_term(2025, 2), Some(d(2025, 2, 3)), "2025 立春");
        assert_eq!(solar_term(2024, 11), Some(d(2024, 6, 21)), "2024 夏至");
        assert_eq!(solar_term(1990, 6), Some(d(1990, 4, 5)), "1990 清明");
    }
}
