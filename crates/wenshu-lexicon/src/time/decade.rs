//! Decades and centuries: 80年代, 上世纪90年代, 本世纪20年代, 二十世纪九十年代, 18世纪, 上世纪.
//!
//! The N-th century is the hundred years from (N − 1) × 100 (18世纪 = 1700–1799, 本世纪 = 2000–2099);
//! a decade without a century is the latest one already started (80年代 = 1980–1989 and 20年代 =
//! 2020–2029 in 2026, 30年代 = 1930–1939).

use super::DateRange;
use super::calendar::date;
use super::next_in;
use super::spec::{Ctx, Spec};
use crate::numeral;
use crate::text::Cursor;

/// Words naming a century relative to today's: (word, offset in centuries).
const CENTURY_WORDS: &[(&str, i32)] = &[
    ("上上个世纪", -2),
    ("上个世纪", -1),
    ("上世纪", -1),
    ("这个世纪", 0),
    ("本世纪", 0),
    ("当今世纪", 0),
    ("下个世纪", 1),
    ("下世纪", 1),
];

/// The first year of a century: 上世纪 → 1900, 18世纪 → 1700, 二十一世纪 → 2000.
fn century(c: &mut Cursor, ctx: &Ctx) -> Option<i32> {
    let current = i32::from(ctx.today.year()) / 100 * 100;
    if let Some(offset) = c.eat_table(CENTURY_WORDS) {
        return Some(current + 100 * offset);
    }
    let save = c.pos;
    let n = super::count(c, 99)?;
    if !c.eat_str("世纪") {
        c.pos = save;
        return None;
    }
    i32::try_from(n).ok().map(|n| (n - 1) * 100)
}

/// A decade word after a century, or alone: 80年代, 九十年代, 2010年代 → its first year.
fn decade_start(c: &mut Cursor, century: Option<i32>, ctx: &Ctx) -> Option<i32> {
    let save = c.pos;
    let value = if c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
        let (v, n) = c.digits()?;
        if n != 2 && n != 4 {
            c.pos = save;
            return None;
        }
        i32::try_from(v).ok()?
    } else {
        i32::try_from(super::count(c, 90)?).ok()?
    };
    if !c.eat_str("年代") || value % 10 != 0 {
        c.pos = save;
        return None;
    }
    if value >= 1000 {
        return century.is_none().then_some(value);
    }
    if value >= 100 {
        return None;
    }
    Some(match century {
        Some(start) => start + value,
        None => {
            let year = i32::from(ctx.today.year());
            let this = year / 100 * 100 + value;
            if this <= year { this } else { this - 100 }
        }
    })
}

/// The years `first..first + count` as one range.
fn years(first: i32, count: i32) -> Option<DateRange> {
    Some(DateRange {
        start: date(first, 1, 1)?,
        end: date(first + count - 1, 12, 31)?,
    })
}

/// 80年代, 上世纪90年代, 本世纪20年代, 十九世纪七十年代, 18世纪, 上世纪: the years they span.
pub(crate) fn decade(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    let numeral_start = c
        .peek()
        .is_some_and(|ch| ch.is_ascii_digit() || numeral::is_chinese_numeral_char(ch));
    if !numeral_start && !next_in(c, "上这本当下") {
        return None;
    }
    if !spec.is_empty() {
        return None;
    }
    let century = century(c, ctx);
    let before_decade = *c;
    c.eat('的');
    let range = match decade_start(c, century, ctx) {
        Some(first) => years(first, 10)?,
        None => {
            *c = before_decade;
            years(century?, 100)?
        }
    };
    Some(Spec {
        fixed: Some(range),
        ..Spec::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::parse_date_range;
    use jiff::civil::date as d;

    #[test]
    fn decades_and_centuries() {
        let today = d(2026, 11, 29);
        for (text, start, end) in [
            ("80年代", d(1980, 1, 1), d(1989, 12, 31)),
            ("八十年代", d(1980, 1, 1), d(1989, 12, 31)),
            ("20年代", d(2020, 1, 1), d(2029, 12, 31)),
            ("30年代", d(1930, 1, 1), d(1939, 12, 31)),
            ("上世纪90年代", d(1990, 1, 1), d(1999, 12, 31)),
            ("本世纪20年代", d(2020, 1, 1), d(2029, 12, 31)),
            ("二十世纪九十年代", d(1990, 1, 1), d(1999, 12, 31)),
            ("十九世纪七十年代", d(1870, 1, 1), d(1879, 12, 31)),
            ("20世纪60年代", d(1960, 1, 1), d(1969, 12, 31)),
            ("2010年代", d(2010, 1, 1), d(2019, 12, 31)),
            ("18世纪", d(1700, 1, 1), d(1799, 12, 31)),
            ("上世纪", d(1900, 1, 1), d(1999, 12, 31)),
            ("本世纪", d(2000, 1, 1), d(2099, 12, 31)),
        ] {
            assert_eq!(parse_date_range(text, today), Ok(DateRange { start, end }), "{text}");
        }
        for text in ["85年代", "二十世纪九十年代末期", "11世纪初", "上世纪2010年代"] {
            assert!(parse_date_range(text, today).is_err(), "{text}");
        }
    }
}
