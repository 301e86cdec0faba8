//! Holidays as one day or a holiday week: fixed solar dates (元旦, 国庆节), lunar ones and solar terms
//! computed for any year (春节, 中秋, 清明, 冬至), Easter, and holiday weeks (国庆假期, 春节假期).
//!
//! A holiday without a year is this year's (the anchor's year on the right of a range): 国庆 on
//! 2013-02-12 is 2013-10-01, 春节 on 2026-11-29 is 2026-02-17.

use super::next_in;
use jiff::civil::Date;

use super::calendar::{self, Unit, date};
use super::lunar;
use super::spec::{Ctx, Spec};
use crate::numeral;
use crate::text::Cursor;

/// When a holiday falls in a given year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    /// The same month and day every year.
    Solar(u8, u8),
    /// A lunar month and day, moved by some days (除夕 is the day before 正月初一): the one falling
    /// in the Gregorian year asked about (腊八 of 2026 is lunar 2025-12-08, in January 2026).
    Lunar(u8, u8, i8),
    /// A solar term, by its index in [`lunar::SOLAR_TERMS`].
    Term(u8),
    /// Easter Sunday (Gregorian computus), moved by some days (复活节星期一: +1).
    Easter(i8),
    /// The n-th weekday (1 = Monday) of a month: (month, n, weekday).
    NthWeekday(u8, u8, u8),
}

/// Holiday names: (name, when, how many days it lasts).
const HOLIDAYS: &[(&str, When, u8)] = &[
    ("元旦", When::Solar(1, 1), 1),
    ("元旦节", When::Solar(1, 1), 1),
    ("情人节", When::Solar(2, 14), 1),
    ("妇女节", When::Solar(3, 8), 1),
    ("三八妇女节", When::Solar(3, 8), 1),
    ("植树节", When::Solar(3, 12), 1),
    ("愚人节", When::Solar(4, 1), 1),
    ("劳动节", When::Solar(5, 1), 1),
    ("五一劳动节", When::Solar(5, 1), 1),
    ("五一节", When::Solar(5, 1), 1),
    ("五一", When::Solar(5, 1), 1),
    ("五一假期", When::Solar(5, 1), 5),
    ("五一长假", When::Solar(5, 1), 5),
    ("五一小长假", When::Solar(5, 1), 5),
    ("劳动节假期", When::Solar(5, 1), 5),
    ("青年节", When::Solar(5, 4), 1),
    ("五四青年节", When::Solar(5, 4), 1),
    ("儿童节", When::Solar(6, 1), 1),
    ("六一儿童节", When::Solar(6, 1), 1),
    ("建党节", When::Solar(7, 1), 1),
    ("建军节", When::Solar(8, 1), 1),
    ("八一建军节", When::Solar(8, 1), 1),
    ("教师节", When::Solar(9, 10), 1),
    ("国庆节", When::Solar(10, 1), 1),
    ("国庆", When::Solar(10, 1), 1),
    ("十一", When::Solar(10, 1), 1),
    ("国庆假期", When::Solar(10, 1), 7),
    ("国庆节假期", When::Solar(10, 1), 7),
    ("国庆长假", When::Solar(10, 1), 7),
    ("国庆黄金周", When::Solar(10, 1), 7),
    ("十一假期", When::Solar(10, 1), 7),
    ("十一长假", When::Solar(10, 1), 7),
    ("十一黄金周", When::Solar(10, 1), 7),
    ("黄金周", When::Solar(10, 1), 7),
    ("母亲节", When::NthWeekday(5, 2, 7), 1),
    ("父亲节", When::NthWeekday(6, 3, 7), 1),
    ("感恩节", When::NthWeekday(11, 4, 4), 1),
    ("万圣节", When::Solar(10, 31), 1),
    ("光棍节", When::Solar(11, 11), 1),
    ("双十一", When::Solar(11, 11), 1),
    ("双十二", When::Solar(12, 12), 1),
    ("平安夜", When::Solar(12, 24), 1),
    ("圣诞夜", When::Solar(12, 24), 1),
    ("圣诞节", When::Solar(12, 25), 1),
    ("圣诞", When::Solar(12, 25), 1),
    ("春节", When::Lunar(1, 1, 0), 1),
    ("大年初一", When::Lunar(1, 1, 0), 1),
    ("正月初一", When::Lunar(1, 1, 0), 1),
    ("农历新年", When::Lunar(1, 1, 0), 1),
    ("春节假期", When::Lunar(1, 1, -1), 7),
    ("春节长假", When::Lunar(1, 1, -1), 7),
    ("春节黄金周", When::Lunar(1, 1, -1), 7),
    ("春节档", When::Lunar(1, 1, -1), 7),
    ("春节期间", When::Lunar(1, 1, -1), 7),
    ("除夕", When::Lunar(1, 1, -1), 1),
    ("除夕夜", When::Lunar(1, 1, -1), 1),
    ("大年三十", When::Lunar(1, 1, -1), 1),
    ("元宵节", When::Lunar(1, 15, 0), 1),
    ("元宵", When::Lunar(1, 15, 0), 1),
    ("正月十五", When::Lunar(1, 15, 0), 1),
    ("龙抬头", When::Lunar(2, 2, 0), 1),
    ("中和节", When::Lunar(2, 2, 0), 1),
    ("上巳节", When::Lunar(3, 3, 0), 1),
    ("端午节", When::Lunar(5, 5, 0), 1),
    ("端午", When::Lunar(5, 5, 0), 1),
    ("七夕节", When::Lunar(7, 7, 0), 1),
    ("七夕", When::Lunar(7, 7, 0), 1),
    ("7夕节", When::Lunar(7, 7, 0), 1),
    ("7夕", When::Lunar(7, 7, 0), 1),
    ("中元节", When::Lunar(7, 15, 0), 1),
    ("中秋节", When::Lunar(8, 15, 0), 1),
    ("中秋", When::Lunar(8, 15, 0), 1),
    ("重阳节", When::Lunar(9, 9, 0), 1),
    ("重阳", When::Lunar(9, 9, 0), 1),
    ("寒衣节", When::Lunar(10, 1, 0), 1),
    ("下元节", When::Lunar(10, 15, 0), 1),
    ("腊八节", When::Lunar(12, 8, 0), 1),
    ("腊八", When::Lunar(12, 8, 0), 1),
    ("小年", When::Lunar(12, 23, 0), 1),
    ("清明节", When::Term(6), 1),
    ("冬至节", When::Term(23), 1),
    ("复活节", When::Easter(0), 1),
    ("复活节星期一", When::Easter(1), 1),
    ("复活节周一", When::Easter(1), 1),
    ("耶稣受难日", When::Easter(-2), 1),
    ("受难节", When::Easter(-2), 1),
    ("国庆档", When::Solar(10, 1), 7),
    ("五一档", When::Solar(5, 1), 5),
    ("消费者权益日", When::Solar(3, 15), 1),
    ("护士节", When::Solar(5, 12), 1),
    ("航海日", When::Solar(7, 11), 1),
    ("航海日节", When::Solar(7, 11), 1),
    ("记者节", When::Solar(11, 8), 1),
    ("国家公祭日", When::Solar(12, 13), 1),
];

/// Characters that can start a holiday or solar-term name.
pub(crate) const START_CHARS: &str = "元情妇三植愚劳五青六儿建八教国十黄母父感万光双平圣春大正农除清端七中重龙上寒下腊小冬复耶受消护记立雨惊谷芒夏处白秋霜航7";

/// The day `when` falls on in `year`, None outside the tables' years.
fn day_in(when: When, year: i32) -> Option<Date> {
    match when {
        When::Solar(m, d) => date(year, i32::from(m), i32::from(d)),
        When::Lunar(m, d, shift) => [year, year - 1].into_iter().find_map(|lunar_year| {
            let day = lunar::lunar_day(lunar_year, m, false, d)?;
            calendar::add(day, Unit::Day, i64::from(shift)).filter(|day| i32::from(day.year()) == year)
        }),
        // 小寒 and 大寒 close a year's solar terms: 2017年大寒 is in January 2018.
        When::Term(index) if index < 2 => lunar::solar_term(year + 1, usize::from(index)),
        When::Term(index) => lunar::solar_term(year, usize::from(index)),
        When::Easter(shift) => calendar::add(easter(year)?, Unit::Day, i64::from(shift)),
        When::NthWeekday(m, n, weekday) => {
            let first = date(year, i32::from(m), 1)?;
            let to_first = (i64::from(weekday) - i64::from(first.weekday().to_monday_one_offset())).rem_euclid(7);
            calendar::add(first, Unit::Day, to_first + 7 * (i64::from(n) - 1))
        }
    }
}

/// Easter Sunday of a Gregorian year (the anonymous Gregorian computus).
fn easter(year: i32) -> Option<Date> {
    let a = year % 19;
    let b = year / 100;
    let c = year % 100;
    let d = b / 4;
    let e = b % 4;
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15) % 30;
    let i = c / 4;
    let k = c % 4;
    let l = (32 + 2 * e + 2 * i - h - k) % 7;
    let m = (a + 11 * h + 22 * l) / 451;
    let month = (h + l - 7 * m + 114) / 31;
    let day = (h + l - 7 * m + 114) % 31 + 1;
    date(year, month, day)
}

/// Characters after a number that make it a numbered name or a count (十一月, 五一班, 五一二楼).
const NUMBERED_AFTER: &str = "月日号点时分个年班届期级楼路栋层组";

/// Whether the characters at `end`, right after a name that ends in a numeral (五一, 双十一), make
/// it part of a number or a numbered name (五一二, 十一月, 五一班). A Chinese numeral that starts a
/// word (五一一共, 双十一一直) does not.
fn continues_number(s: &[char], end: usize) -> bool {
    let Some(&c) = s.get(end) else {
        return false;
    };
    if c.is_ascii_alphanumeric() || NUMBERED_AFTER.contains(c) {
        return true;
    }
    if !numeral::is_chinese_numeral_char(c) {
        return false;
    }
    let run_end = (end..s.len())
        .find(|i| !s.get(*i).is_some_and(|c| numeral::is_chinese_numeral_char(*c)))
        .unwrap_or(s.len());
    let starts_word = s.get(run_end).is_some_and(|n| {
        super::is_han(*n) && !NUMBERED_AFTER.contains(*n) && !super::chinese::NOT_A_DAY_AFTER.contains(*n)
    });
    !starts_word
}

/// The longest holiday or solar-term name at the cursor, consumed; the bool says it is a solar term.
fn name(c: &mut Cursor) -> Option<(When, u8, bool)> {
    if c.prev().is_some_and(numeral::is_chinese_numeral_char) {
        return None;
    }
    name_at(c)
}

/// One name of the tables: its first character, the name, its day, how many days, whether a solar term.
type Name = (char, &'static str, usize, When, u8, bool);

/// Every holiday and solar-term name, sorted by first character (table order kept within one).
fn names() -> &'static [Name] {
    static NAMES: std::sync::OnceLock<Vec<Name>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let terms = lunar::SOLAR_TERMS
            .iter()
            .zip(0_u8..)
            .map(|(name, i)| (*name, When::Term(i), 1_u8, true));
        let mut all: Vec<Name> = HOLIDAYS
            .iter()
            .map(|(name, when, days)| (*name, *when, *days, false))
            .chain(terms)
            .filter_map(|(name, when, days, term)| {
                Some((name.chars().next()?, name, name.chars().count(), when, days, term))
            })
            .collect();
        all.sort_by_key(|n| n.0);
        all
    })
}

/// The longest holiday or solar-term name at the cursor, whatever comes before it.
fn name_at(c: &mut Cursor) -> Option<(When, u8, bool)> {
    let first = c.peek()?;
    let all = names();
    let from = all.partition_point(|n| n.0 < first);
    let to = from + all[from..].partition_point(|n| n.0 == first);
    let &(_, name, len, when, days, term) = all[from..to].iter().filter(|n| c.looking_at(n.1)).max_by_key(|n| n.2)?;
    let end = c.pos + len;
    if let Some((when, days, end)) = holiday_period(c.s, end, when) {
        c.pos = end;
        return Some((when, days, false));
    }
    let ends_in_numeral = name.chars().last().is_some_and(numeral::is_chinese_numeral_char);
    if ends_in_numeral && continues_number(c.s, end) {
        return None;
    }
    c.pos = end;
    Some((when, days, term))
}

/// Words after a holiday's name that mean its days off (国庆期间, 五一假期, 春节长假).
const PERIOD_SUFFIXES: &[&str] = &["小长假", "黄金周", "期间", "假期", "长假"];

/// The holiday week a name followed by a period word means (国庆期间 = 国庆假期, 10-01..10-07):
/// the longest entry of the table on the same day, with where the word ends. None when the word does
/// not follow or the holiday has no week in the table (中秋期间 varies by year).
fn holiday_period(s: &[char], end: usize, when: When) -> Option<(When, u8, usize)> {
    let c = Cursor::new(s, end);
    let suffix = PERIOD_SUFFIXES.iter().find(|w| c.looking_at(w))?;
    let days = HOLIDAYS
        .iter()
        .filter(|(_, w, _)| *w == when)
        .map(|(_, _, days)| *days)
        .max()
        .filter(|days| *days > 1)?;
    Some((when, days, end + suffix.chars().count()))
}

/// Whether a holiday or solar-term name starts at `pos`.
pub(crate) fn starts_name(s: &[char], pos: usize) -> bool {
    let mut c = Cursor::new(s, pos);
    name_at(&mut c).is_some()
}

/// 国庆, 今年春节, 2025年中秋节, 国庆假期 …: the holiday of the year named, else of this year;
/// after the full date it falls on (2月14日情人节) it adds nothing.
pub(crate) fn holiday(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    let year_only = Spec {
        year: spec.year,
        bare_year: spec.bare_year,
        ..Spec::default()
    } == *spec;
    let full_date = spec.month.is_some() && spec.day.is_some() && spec.span.is_none();
    if !year_only && !full_date {
        return None;
    }
    let save = c.pos;
    let lunar_named = next_in(c, "农阴旧夏") && c.eat_any(lunar::LUNAR_PREFIXES).is_some();
    let (when, days, term) = name(c)?;
    if lunar_named && !matches!(when, When::Lunar(..)) {
        c.pos = save;
        return None;
    }
    // A solar term's name is an ordinary word too (雨水, 小满): in a sentence only after a year.
    let bare_numeral = matches!(when, When::Solar(10, 1))
        && days == 1
        && c.s[save..c.pos].iter().all(|ch| numeral::is_chinese_numeral_char(*ch));
    if (term || bare_numeral) && !ctx.whole && spec.year.is_none() {
        return None;
    }
    let year = match spec.year {
        Some(y) => y,
        None => i32::from(ctx.anchor.unwrap_or(ctx.today).year()),
    };
    let date = day_in(when, year)?;
    if i32::from(date.year()) != year && !full_date {
        // 2017年大寒 falls in January 2018: the day itself, the year consumed.
        return Some(Spec {
            fixed: Some(super::DateRange { start: date, end: date }),
            ..Spec::default()
        });
    }
    let month = u8::try_from(date.month()).ok();
    let day = u8::try_from(date.day()).ok();
    if full_date {
        return (spec.month == month && spec.day == day && days == 1).then(Spec::default);
    }
    Some(Spec {
        year: spec.year.is_none().then_some(year),
        month,
        day,
        span: (days > 1).then_some(days),
        ..Spec::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date as d;

    #[test]
    fn lunar_and_rule_days() {
        assert_eq!(day_in(When::Lunar(1, 1, 0), 2013), Some(d(2013, 2, 10)));
        assert_eq!(day_in(When::Lunar(1, 1, -1), 2026), Some(d(2026, 2, 16)));
        assert_eq!(day_in(When::Lunar(1, 15, 0), 2024), Some(d(2024, 2, 24)));
        assert_eq!(day_in(When::Lunar(8, 15, 0), 2025), Some(d(2025, 10, 6)));
        assert_eq!(day_in(When::Lunar(5, 5, 0), 2035), Some(d(2035, 6, 10)));
        assert_eq!(day_in(When::Lunar(1, 1, 0), 1990), Some(d(1990, 1, 27)));
        assert_eq!(day_in(When::Lunar(8, 15, 0), 2050), Some(d(2050, 9, 30)));
        assert_eq!(day_in(When::Lunar(12, 8, 0), 2026), Some(d(2026, 1, 26)));
        assert_eq!(day_in(When::Term(6), 2026), Some(d(2026, 4, 5)));
        assert_eq!(day_in(When::Term(23), 2024), Some(d(2024, 12, 21)));
        assert_eq!(day_in(When::Easter(0), 2024), Some(d(2024, 3, 31)));
        assert_eq!(day_in(When::Easter(1), 2025), Some(d(2025, 4, 21)));
        assert_eq!(day_in(When::Easter(0), 2026), Some(d(2026, 4, 5)));
        assert_eq!(day_in(When::NthWeekday(5, 2, 7), 2013), Some(d(2013, 5, 12)));
        assert_eq!(day_in(When::NthWeekday(6, 3, 7), 2026), Some(d(2026, 6, 21)));
        assert_eq!(day_in(When::NthWeekday(11, 4, 4), 2026), Some(d(2026, 11, 26)));
    }

    #[test]
    fn numeral_names_need_a_boundary() {
        let read = |text: &str| {
            let chars: Vec<char> = text.chars().collect();
            name(&mut Cursor::new(&chars, 0)).map(|(_, days, _)| days)
        };
        assert_eq!(read("五一假期"), Some(5));
        assert_eq!(read("五一去哪"), Some(1));
        assert_eq!(read("五一二"), None);
        assert_eq!(read("五一班"), None);
        assert_eq!(read("双十一月"), None);
        assert_eq!(read("国庆"), Some(1));
    }
}
