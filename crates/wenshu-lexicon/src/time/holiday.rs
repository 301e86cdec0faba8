//! Holidays as one day or a holiday week: fixed solar dates (元旦, 国庆节), lunar and solar-term ones
//! from tables of their Gregorian dates (春节, 中秋, 清明), and holiday weeks (国庆假期, 五一假期).
//!
//! A holiday without a year is this year's (the anchor's year on the right of a range): 国庆 on
//! 2013-02-12 is 2013-10-01, 春节 on 2026-11-29 is 2026-02-17.

use jiff::civil::Date;

use super::calendar::{self, Unit, date};
use super::spec::{Ctx, Spec};
use crate::numeral;
use crate::text::Cursor;

/// The first year of the lunar tables.
const FIRST_YEAR: i32 = 2000;

/// 春节 (lunar 1/1) in 2000..=2035 as month × 100 + day.
const SPRING: [u16; 36] = [
    205, 124, 212, 201, 122, 209, 129, 218, 207, 126, 214, 203, 123, 210, 131, 219, 208, 128, 216, 205, 125, 212, 201,
    122, 210, 129, 217, 206, 126, 213, 203, 123, 211, 131, 219, 208,
];

/// 端午 (lunar 5/5) in 2000..=2035 as month × 100 + day.
const DRAGON_BOAT: [u16; 36] = [
    606, 625, 615, 604, 622, 611, 531, 619, 608, 528, 616, 606, 623, 612, 602, 620, 609, 530, 618, 607, 625, 614, 603,
    622, 610, 531, 619, 609, 528, 616, 605, 624, 612, 601, 620, 610,
];

/// 七夕 (lunar 7/7) in 2000..=2035 as month × 100 + day.
const QIXI: [u16; 36] = [
    806, 825, 815, 804, 822, 811, 731, 819, 807, 826, 816, 806, 823, 813, 802, 820, 809, 828, 817, 807, 825, 814, 804,
    822, 810, 829, 819, 808, 826, 816, 805, 824, 812, 801, 820, 810,
];

/// 中秋 (lunar 8/15) in 2000..=2035 as month × 100 + day.
const MID_AUTUMN: [u16; 36] = [
    912, 1001, 921, 911, 928, 918, 1006, 925, 914, 1003, 922, 912, 930, 919, 908, 927, 915, 1004, 924, 913, 1001, 921,
    910, 929, 917, 1006, 925, 915, 1003, 922, 912, 1001, 919, 908, 927, 916,
];

/// 重阳 (lunar 9/9) in 2000..=2035 as month × 100 + day.
const DOUBLE_NINTH: [u16; 36] = [
    1006, 1025, 1014, 1004, 1022, 1011, 1030, 1019, 1007, 1026, 1016, 1005, 1023, 1013, 1002, 1021, 1009, 1028, 1017,
    1007, 1025, 1014, 1004, 1023, 1011, 1029, 1018, 1008, 1026, 1016, 1005, 1024, 1012, 1001, 1020, 1009,
];

/// 清明 (the solar term) in 2000..=2035 as month × 100 + day.
const QINGMING: [u16; 36] = [
    404, 405, 405, 405, 404, 405, 405, 405, 404, 404, 405, 405, 404, 404, 405, 405, 404, 404, 405, 405, 404, 404, 405,
    405, 404, 404, 405, 405, 404, 404, 405, 405, 404, 404, 405, 405,
];

/// When a holiday falls in a given year.
#[derive(Debug, Clone, Copy)]
enum When {
    /// The same month and day every year.
    Solar(u8, u8),
    /// A day of a yearly table, moved by some days (除夕 is the day before 春节).
    Table(&'static [u16; 36], i8),
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
    ("春节", When::Table(&SPRING, 0), 1),
    ("大年初一", When::Table(&SPRING, 0), 1),
    ("正月初一", When::Table(&SPRING, 0), 1),
    ("农历新年", When::Table(&SPRING, 0), 1),
    ("除夕", When::Table(&SPRING, -1), 1),
    ("除夕夜", When::Table(&SPRING, -1), 1),
    ("大年三十", When::Table(&SPRING, -1), 1),
    ("元宵节", When::Table(&SPRING, 14), 1),
    ("元宵", When::Table(&SPRING, 14), 1),
    ("正月十五", When::Table(&SPRING, 14), 1),
    ("清明节", When::Table(&QINGMING, 0), 1),
    ("清明", When::Table(&QINGMING, 0), 1),
    ("端午节", When::Table(&DRAGON_BOAT, 0), 1),
    ("端午", When::Table(&DRAGON_BOAT, 0), 1),
    ("七夕节", When::Table(&QIXI, 0), 1),
    ("七夕", When::Table(&QIXI, 0), 1),
    ("中秋节", When::Table(&MID_AUTUMN, 0), 1),
    ("中秋", When::Table(&MID_AUTUMN, 0), 1),
    ("重阳节", When::Table(&DOUBLE_NINTH, 0), 1),
    ("重阳", When::Table(&DOUBLE_NINTH, 0), 1),
];

/// Characters that can start a holiday name.
pub(crate) const START_CHARS: &str = "元情妇三植愚劳五青六儿建八教国十黄母父感万光双平圣春大正农除清端七中重";

/// The day `when` falls on in `year`, None outside the tables' years.
fn day_in(when: When, year: i32) -> Option<Date> {
    match when {
        When::Solar(m, d) => date(year, i32::from(m), i32::from(d)),
        When::Table(table, shift) => {
            let md = *table.get(usize::try_from(year - FIRST_YEAR).ok()?)?;
            let day = date(year, i32::from(md / 100), i32::from(md % 100))?;
            calendar::add(day, Unit::Day, i64::from(shift))
        }
        When::NthWeekday(m, n, weekday) => {
            let first = date(year, i32::from(m), 1)?;
            let to_first = (i64::from(weekday) - i64::from(first.weekday().to_monday_one_offset())).rem_euclid(7);
            calendar::add(first, Unit::Day, to_first + 7 * (i64::from(n) - 1))
        }
    }
}

/// Whether a character right after a name that ends in a numeral (五一, 双十一) makes it part of a
/// number or a numbered name (五一二, 十一月, 五一班).
fn continues_number(c: Option<char>) -> bool {
    c.is_some_and(|c| {
        c.is_ascii_alphanumeric()
            || numeral::is_chinese_numeral_char(c)
            || "月日号点时分个年班届期级楼路栋层组".contains(c)
    })
}

/// The longest holiday name at the cursor, consumed.
fn name(c: &mut Cursor) -> Option<(When, u8)> {
    if c.prev().is_some_and(numeral::is_chinese_numeral_char) {
        return None;
    }
    let (name, when, days) = HOLIDAYS
        .iter()
        .filter(|(name, _, _)| c.looking_at(name))
        .max_by_key(|(name, _, _)| name.chars().count())?;
    let end = c.pos + name.chars().count();
    let ends_in_numeral = name.chars().last().is_some_and(numeral::is_chinese_numeral_char);
    if ends_in_numeral && continues_number(c.s.get(end).copied()) {
        return None;
    }
    c.pos = end;
    Some((*when, *days))
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
    let (when, days) = name(c)?;
    let year = match spec.year {
        Some(y) => y,
        None => i32::from(ctx.anchor.unwrap_or(ctx.today).year()),
    };
    let day = day_in(when, year)?;
    let month = u8::try_from(day.month()).ok();
    let day = u8::try_from(day.day()).ok();
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
    fn tables_hold_known_days() {
        assert_eq!(day_in(When::Table(&SPRING, 0), 2013), Some(d(2013, 2, 10)));
        assert_eq!(day_in(When::Table(&SPRING, -1), 2026), Some(d(2026, 2, 16)));
        assert_eq!(day_in(When::Table(&SPRING, 14), 2024), Some(d(2024, 2, 24)));
        assert_eq!(day_in(When::Table(&MID_AUTUMN, 0), 2025), Some(d(2025, 10, 6)));
        assert_eq!(day_in(When::Table(&DRAGON_BOAT, 0), 2035), Some(d(2035, 6, 10)));
        assert_eq!(day_in(When::Table(&SPRING, 0), 1999), None);
        assert_eq!(day_in(When::Table(&SPRING, 0), 2036), None);
        assert_eq!(day_in(When::NthWeekday(5, 2, 7), 2013), Some(d(2013, 5, 12)));
        assert_eq!(day_in(When::NthWeekday(6, 3, 7), 2026), Some(d(2026, 6, 21)));
        assert_eq!(day_in(When::NthWeekday(11, 4, 4), 2026), Some(d(2026, 11, 26)));
    }

    #[test]
    fn tables_are_in_season() {
        let in_range = |table: &[u16; 36], lo: u16, hi: u16| table.iter().all(|md| (lo..=hi).contains(md));
        assert!(in_range(&SPRING, 121, 220));
        assert!(in_range(&DRAGON_BOAT, 528, 625));
        assert!(in_range(&QIXI, 731, 829));
        assert!(in_range(&MID_AUTUMN, 907, 1008));
        assert!(in_range(&DOUBLE_NINTH, 1001, 1031));
        assert!(in_range(&QINGMING, 404, 405));
    }

    #[test]
    fn numeral_names_need_a_boundary() {
        let read = |text: &str| {
            let chars: Vec<char> = text.chars().collect();
            name(&mut Cursor::new(&chars, 0)).map(|(_, days)| days)
        };
        assert_eq!(read("五一假期"), Some(5));
        assert_eq!(read("五一去哪"), Some(1));
        assert_eq!(read("五一二"), None);
        assert_eq!(read("五一班"), None);
        assert_eq!(read("双十一月"), None);
        assert_eq!(read("国庆"), Some(1));
    }
}
