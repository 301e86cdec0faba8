//! The Chinese (and numeric) pieces of a point expression: 去年, 上个月, 第三季度, 3月3号, 周三, 下午三点 ….

use super::calendar::{self, Unit};
use super::next_in;
use super::spec::{Ctx, Edge, Spec};
use super::{clock, holiday, lunar};
use crate::numeral::{self, Style};
use crate::text::{Cursor, is_word_char};
use jiff::civil::Date;

/// One way to read a piece of a point expression; returns the fields it names.
pub(crate) type Piece = fn(&mut Cursor, &Ctx, &Spec) -> Option<Spec>;

/// Every Chinese and numeric piece.
pub(crate) const PIECES: &[Piece] = &[
    same_day,
    day_word,
    year_word,
    whole_period,
    relative_unit,
    bare_weekday,
    explicit_year,
    republic_year,
    month,
    day,
    bare_day,
    quarter,
    half,
    numeric_date,
    holiday::holiday,
    lunar::lunar_date,
    edge_word,
    edge_suffix,
    first_units,
    nth_week,
    last_units,
    nth_month,
    nth_weekday,
    shared_unit_range,
    consecutive_days,
    super::decade::decade,
    clock::chinese,
];

/// Days named relative to today.
const DAY_WORDS: &[(&str, i64)] = &[
    ("大大前天", -4),
    ("大大后天", 4),
    ("大前天", -3),
    ("大后天", 3),
    ("全天", 0),
    ("前天", -2),
    ("前日", -2),
    ("昨天", -1),
    ("昨日", -1),
    ("昨儿", -1),
    ("昨晚", -1),
    ("昨夜", -1),
    ("今天", 0),
    ("今日", 0),
    ("今儿", 0),
    ("今晚", 0),
    ("今早", 0),
    ("今晨", 0),
    ("今夜", 0),
    ("当晚", 0),
    ("当夜", 0),
    ("当天", 0),
    ("当日", 0),
    ("明天", 1),
    ("明日", 1),
    ("明儿", 1),
    ("明晚", 1),
    ("明早", 1),
    ("后天", 2),
    ("后日", 2),
    // Cantonese: 大后日, 听日 (tomorrow), 寻日 / 琴日 / 噚日 (yesterday), 听朝, 寻晚 ….
    ("大后日", 3),
    ("大前日", -3),
    ("听日", 1),
    ("听朝", 1),
    ("听晚", 1),
    ("寻日", -1),
    ("寻晚", -1),
    ("琴日", -1),
    ("琴晚", -1),
    ("噚日", -1),
    ("噚晚", -1),
];

/// Years named relative to this one.
const YEAR_WORDS: &[(&str, i32)] = &[
    ("大前年", -3),
    ("大后年", 3),
    ("前年", -2),
    ("去年", -1),
    ("今年", 0),
    ("明年", 1),
    ("来年", 1),
    ("后年", 2),
    ("次年", 1),
    ("旧年", -1),
];

/// Prefixes that shift a unit (上个月: −1), longest first.
pub(crate) const SHIFT_PREFIXES: &[(&str, i64)] = &[
    ("上上个", -2),
    ("上上", -2),
    ("下下个", 2),
    ("下下", 2),
    ("上一个", -1),
    ("上一", -1),
    ("上个", -1),
    ("上", -1),
    ("下一个", 1),
    ("下一", 1),
    ("下个", 1),
    ("下", 1),
    ("今个", 0),
    ("呢个", 0),
    ("这一个", 0),
    ("这个", 0),
    ("这一", 0),
    ("这", 0),
    ("本", 0),
    ("当", 0),
    ("该", 0),
];

/// Unit words after a shift prefix.
const SHIFT_UNITS: &[(&str, Unit)] = &[
    ("半年度", Unit::Half),
    ("半年", Unit::Half),
    ("季度", Unit::Quarter),
    ("季", Unit::Quarter),
    ("星期", Unit::Week),
    ("礼拜", Unit::Week),
    ("周", Unit::Week),
    ("月份", Unit::Month),
    ("月度", Unit::Month),
    ("月", Unit::Month),
    ("年度", Unit::Year),
    ("年", Unit::Year),
];

/// Words for a week.
const WEEK_WORDS: &[&str] = &["星期", "礼拜", "周"];

/// Words naming an edge of the current period: (word, unit, edge).
const EDGE_WORDS: &[(&str, Unit, Edge)] = &[
    ("年初", Unit::Year, Edge::Start),
    ("年底", Unit::Year, Edge::End),
    ("年末", Unit::Year, Edge::End),
    ("季度初", Unit::Quarter, Edge::Start),
    ("季度末", Unit::Quarter, Edge::End),
    ("季初", Unit::Quarter, Edge::Start),
    ("季末", Unit::Quarter, Edge::End),
    ("月初", Unit::Month, Edge::Start),
    ("月底", Unit::Month, Edge::End),
    ("月末", Unit::Month, Edge::End),
    ("月中", Unit::Month, Edge::Xun(2)),
    ("周初", Unit::Week, Edge::Start),
    ("上旬", Unit::Month, Edge::Xun(1)),
    ("中旬", Unit::Month, Edge::Xun(2)),
    ("下旬", Unit::Month, Edge::Xun(3)),
    ("上半月", Unit::Month, Edge::HalfMonth(1)),
    ("下半月", Unit::Month, Edge::HalfMonth(2)),
];

/// Suffixes picking part of the period just named (3月底, 去年年初, 上月中旬).
const EDGE_SUFFIXES: &[(&str, Edge)] = &[
    ("最后一天", Edge::End),
    ("第一天", Edge::Start),
    ("上旬", Edge::Xun(1)),
    ("中旬", Edge::Xun(2)),
    ("下旬", Edge::Xun(3)),
    ("初", Edge::Start),
    ("底", Edge::End),
    ("末", Edge::End),
];

/// Unit words for counted periods (7天, 三个月, 两周), longest first.
pub(crate) const COUNT_UNITS: &[(&str, Unit)] = &[
    ("个星期", Unit::Week),
    ("个礼拜", Unit::Week),
    ("个季度", Unit::Quarter),
    ("个月", Unit::Month),
    ("个周", Unit::Week),
    ("季度", Unit::Quarter),
    ("星期", Unit::Week),
    ("礼拜", Unit::Week),
    ("天", Unit::Day),
    ("日", Unit::Day),
    ("周", Unit::Week),
    ("月", Unit::Month),
    ("年", Unit::Year),
];

/// Characters after 一 that make it part of a word (一共, 一起), not Monday.
const NOT_MONDAY_AFTER: &[char] = &['共', '起', '下', '直', '样', '些', '般', '定', '切', '致', '同'];

/// Characters that can start a Chinese or numeric time expression.
pub(crate) const START_CHARS: &str = "民听寻琴噚宜而呢旧0123456789世现目此眼次截首农阴旧闰今昨前明后大上下本这当该全整去来近最过未接第季年月周星礼从自由元情妇植愚劳青儿建教国万平圣初底末半首凌早清中午傍晚夜深白一二三四五六七八九十两〇零";

/// Fields for one day.
pub(crate) fn day_spec(d: Date) -> Spec {
    Spec {
        year: Some(i32::from(d.year())),
        month: u8::try_from(d.month()).ok(),
        day: u8::try_from(d.day()).ok(),
        ..Spec::default()
    }
}

/// Fields for the `unit` period containing `d`.
pub(crate) fn period_spec(d: Date, unit: Unit) -> Option<Spec> {
    let year = Some(i32::from(d.year()));
    let month = u8::try_from(d.month()).ok()?;
    Some(match unit {
        Unit::Day => day_spec(d),
        Unit::Week => Spec {
            week: Some(calendar::period_start(d, Unit::Week)?),
            ..Spec::default()
        },
        Unit::Month => Spec {
            year,
            month: Some(month),
            ..Spec::default()
        },
        Unit::Quarter => Spec {
            year,
            quarter: Some((month - 1) / 3 + 1),
            ..Spec::default()
        },
        Unit::Half => Spec {
            year,
            half: Some((month - 1) / 6 + 1),
            ..Spec::default()
        },
        Unit::Year => Spec {
            year,
            ..Spec::default()
        },
    })
}

/// Words for "now": today in a whole expression (现在 → today), but not reported in a sentence,
/// where 目前的库存 or 现在为止 mean the current state or "to date", not today alone.
const NOW_DAY_WORDS: &[(&str, i64)] = &[
    ("现在", 0),
    ("目前", 0),
    ("当前", 0),
    ("当下", 0),
    ("此刻", 0),
    ("此时", 0),
    ("眼下", 0),
    ("宜家", 0),
    ("而家", 0),
];

/// 今天, 昨天, 大后天 …; 现在 / 目前 in a whole expression.
fn day_word(c: &mut Cursor, ctx: &Ctx, _: &Spec) -> Option<Spec> {
    if ctx.whole && c.eat_table(NOW_DAY_WORDS).is_some() {
        return Some(day_spec(ctx.today));
    }
    if !next_in(c, "大今昨前明后当现目此眼全听寻琴噚") {
        return None;
    }
    let n = c.eat_table(DAY_WORDS)?;
    Some(day_spec(calendar::add(ctx.today, Unit::Day, n)?))
}

/// Words for "today" after a named year, month or week (去年的今天, 上个月的今天, 上周的今天).
pub(crate) const TODAY_WORDS: &[&str] = &["今天", "今日", "当天", "当日", "这一天", "这天"];

/// 今天 after a year, month or week: the day of that period matching today (month-ends clamp).
fn same_day(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "今当这") {
        return None;
    }
    let today = ctx.today;
    let only = |s: Spec| s == *spec;
    let fields = if let (Some(y), Some(m)) = (spec.year, spec.month) {
        only(Spec {
            year: Some(y),
            month: Some(m),
            ..Spec::default()
        })
        .then_some(())?;
        let first = calendar::date(y, i32::from(m), 1)?;
        let last = calendar::add(calendar::add(first, Unit::Month, 1)?, Unit::Day, -1)?;
        Spec {
            day: u8::try_from(today.day().min(last.day())).ok(),
            ..Spec::default()
        }
    } else if let Some(y) = spec.year {
        only(Spec {
            year: Some(y),
            bare_year: spec.bare_year,
            ..Spec::default()
        })
        .then_some(())?;
        let same = calendar::add(today, Unit::Year, i64::from(y) - i64::from(today.year()))?;
        Spec {
            month: u8::try_from(same.month()).ok(),
            day: u8::try_from(same.day()).ok(),
            ..Spec::default()
        }
    } else if let Some(week) = spec.week {
        only(Spec {
            week: Some(week),
            ..Spec::default()
        })
        .then_some(())?;
        Spec {
            weekday: u8::try_from(today.weekday().to_monday_one_offset()).ok(),
            ..Spec::default()
        }
    } else {
        return None;
    };
    c.eat_any(TODAY_WORDS)?;
    Some(fields)
}

/// 全年, 整年, 全月: the whole year or month already named, else the current one.
fn whole_period(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "全整") {
        return None;
    }
    let unit = c.eat_table(&[
        ("全年度", Unit::Year),
        ("全年", Unit::Year),
        ("整年", Unit::Year),
        ("全月", Unit::Month),
        ("整月", Unit::Month),
    ])?;
    let named = match unit {
        Unit::Year => spec.year.is_some() && spec.date_fields() == 1,
        _ => spec.month.is_some() && spec.day.is_none(),
    };
    if named {
        return Some(Spec::default());
    }
    if !spec.is_empty() {
        return None;
    }
    calendar::period_containing(ctx.today, unit).and_then(|p| period_spec(p.start, unit))
}

/// 今年, 去年, 前年 ….
fn year_word(c: &mut Cursor, ctx: &Ctx, _: &Spec) -> Option<Spec> {
    if !next_in(c, "大前去今明来后次旧") {
        return None;
    }
    let n = c.eat_table(YEAR_WORDS)?;
    Some(Spec {
        year: Some(i32::from(ctx.today.year()) + n),
        ..Spec::default()
    })
}

/// A weekday character after a week word: 一…六, 日/天/七, 1…7.
fn weekday_char(c: &mut Cursor) -> Option<u8> {
    let ch = c.peek()?;
    let w = match ch {
        '一' | '1' => 1,
        '二' | '2' => 2,
        '三' | '3' => 3,
        '四' | '4' => 4,
        '五' | '5' => 5,
        '六' | '6' => 6,
        '日' | '天' | '七' | '7' => 7,
        _ => return None,
    };
    let next = c.peek_at(1);
    let afternoon = next == Some('下') && c.peek_at(2) == Some('午');
    if (ch == '一' && !afternoon && next.is_some_and(|n| NOT_MONDAY_AFTER.contains(&n)))
        || (ch.is_ascii_digit() && next.is_some_and(|n| n.is_ascii_digit()))
    {
        return None;
    }
    c.pos += 1;
    Some(w)
}

/// What may follow a week word: a weekday (周三) or 末 (周末).
fn week_day_part(c: &mut Cursor) -> Option<Spec> {
    if c.eat('末') {
        return Some(Spec {
            weekend: true,
            ..Spec::default()
        });
    }
    weekday_char(c).map(|w| Spec {
        weekday: Some(w),
        ..Spec::default()
    })
}

/// 上个月, 本季度, 下下周三, 这周末, 本年度 ….
fn relative_unit(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "上下这本当该今呢") {
        return None;
    }
    let n = c.eat_table(SHIFT_PREFIXES)?;
    let counted = matches!(c.prev(), Some('个' | '一'));
    let unit = c.eat_table(SHIFT_UNITS)?;
    if spec.year.is_some() && spec.date_fields() == 1 {
        // 去年本月, 前年当季度: this month's (quarter's) number in the year named.
        let same = period_spec(ctx.today, unit)?;
        let only = match unit {
            Unit::Month if n == 0 => Spec {
                month: same.month,
                ..Spec::default()
            },
            Unit::Quarter if n == 0 => Spec {
                quarter: same.quarter,
                ..Spec::default()
            },
            _ => return None,
        };
        return Some(only);
    }
    // 上半年 is the first half of the year; 上个半年 the half before this one.
    if unit == Unit::Half && !counted {
        return None;
    }
    let period = calendar::shifted_period(ctx.today, unit, n)?;
    let spec = period_spec(period.start, unit)?;
    if unit == Unit::Week {
        let mut after = *c;
        if let Some(part) = week_day_part(&mut after) {
            c.pos = after.pos;
            return spec.merge(&part);
        }
    }
    Some(spec)
}

/// 周三, 星期天, 礼拜五 (this week's unless anchored). A bare 周末 is no date: over a period it is a kind of day
/// (上个月周末的销售额), and the coming weekend only when 这个 / 本 / 下 says so (这周末, 本周末).
fn bare_weekday(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    if !next_in(c, "星礼周") {
        return None;
    }
    c.eat_any(WEEK_WORDS)?;
    if c.peek() == Some('末') {
        return None;
    }
    week_day_part(c)
}

/// A two-digit year: 98 → 1998, 15 → 2015 (the 20xx reading unless it is over ten years ahead).
fn two_digit_year(v: u64, today: Date) -> Option<i32> {
    let v = i32::try_from(v).ok()?;
    let modern = 2000 + v;
    Some(if modern <= i32::from(today.year()) + 10 {
        modern
    } else {
        1900 + v
    })
}

/// Whether a bare four-digit number can be a year: not followed by more of a number or a measure.
fn may_end_bare_year(c: &Cursor) -> bool {
    match c.peek() {
        None => true,
        Some(ch) => {
            !(ch.is_ascii_digit()
                || matches!(ch, ',' | '.' | '%' | '/' | ':')
                || numeral::is_chinese_numeral_char(ch)
                || is_word_char(ch) && ch != 'q' && ch != 'h')
        }
    }
}

/// 2025年, 二零二五年, 两千零二十五年, 13年, 2025年度; a bare 2025 when allowed.
pub(crate) fn explicit_year(c: &mut Cursor, ctx: &Ctx, _: &Spec) -> Option<Spec> {
    let first = c.peek()?;
    if first.is_ascii_digit() {
        if c.prev().is_some_and(|p| p.is_ascii_digit()) {
            return None;
        }
        let (v, n) = c.digits()?;
        let year = match n {
            4 => i32::try_from(v).ok()?,
            2 => two_digit_year(v, ctx.today)?,
            _ => return None,
        };
        if c.eat_any(&["年度", "年份", "年"]).is_some() {
            return Some(Spec {
                year: Some(year),
                ..Spec::default()
            });
        }
        if n == 4 && year >= 1000 && may_end_bare_year(c) {
            return Some(Spec {
                year: Some(year),
                bare_year: true,
                ..Spec::default()
            });
        }
        return None;
    }
    let read = numeral::chinese(c)?;
    let year = match (read.style, read.len) {
        (Style::Positional, 4) => read.value as i32,
        (Style::Positional, 2) => two_digit_year(read.value as u64, ctx.today)?,
        (Style::Chinese, _) if (1000.0..=9999.0).contains(&read.value) && read.value.fract() == 0.0 => {
            read.value as i32
        }
        _ => return None,
    };
    c.eat_any(&["年度", "年份", "年"])?;
    Some(Spec {
        year: Some(year),
        ..Spec::default()
    })
}

/// 民国十年, 民国元年, 民国26年: years of the Republic era (year 1 is 1912).
fn republic_year(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    if !c.eat_str("民国") {
        return None;
    }
    let n = if c.eat('元') { 1 } else { super::count(c, 200)? };
    c.eat('年').then_some(())?;
    Some(Spec {
        year: i32::try_from(n).ok().map(|n| 1911 + n),
        ..Spec::default()
    })
}

/// 3月, 十月份, 十二月, 首月.
fn month(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    if c.eat_str("首月") || c.eat_str("元月") {
        return Some(Spec {
            month: Some(1),
            ..Spec::default()
        });
    }
    let m = super::count(c, 12)?;
    c.eat_any(&["月份", "月"])?;
    Some(Spec {
        month: u8::try_from(m).ok(),
        ..Spec::default()
    })
}

/// 3日, 3号, 二十八日.
fn day(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    let d = super::count(c, 31)?;
    c.eat_any(&["日", "号"])?;
    Some(Spec {
        day: u8::try_from(d).ok(),
        ..Spec::default()
    })
}

/// Characters after a number that make it something other than a day (3个, 3天, 3点).
pub(crate) const NOT_A_DAY_AFTER: &str = "个天周年月季点时分秒万千百亿%.,:/-名件条位家元块次号日折倍";

/// Characters that may follow a day written in Chinese numerals without 日/号 (三月三的, 十月一到十月七);
/// any other ideograph may make a word with the numeral (一共, 一直, 三成) and the number is no day.
const AFTER_BARE_CHINESE_DAY: &str = "的到至和与及跟、";

/// Whether the cursor stands right after a month named by its number (6月, 三月, 十二月), with no
/// separator: a bare day follows only such a month, never 上个月 or 本月.
fn after_numbered_month(c: &Cursor) -> bool {
    let before = |back: usize| c.pos.checked_sub(back).and_then(|i| c.s.get(i)).copied();
    before(1) == Some('月') && before(2).is_some_and(|m| m.is_ascii_digit() || numeral::is_chinese_numeral_char(m))
}

/// A day number right after a numbered month, without 日/号: 6月3, 三月三.
fn bare_day(c: &mut Cursor, _: &Ctx, spec: &Spec) -> Option<Spec> {
    if spec.month.is_none() || spec.day.is_some() || !after_numbered_month(c) {
        return None;
    }
    let start = c.pos;
    let d = super::count(c, 31)?;
    let next = c.peek();
    if next.is_some_and(|n| {
        n.is_ascii_alphanumeric() || numeral::is_chinese_numeral_char(n) || NOT_A_DAY_AFTER.contains(n)
    }) {
        return None;
    }
    let chinese = c.s[start..c.pos].iter().any(|ch| numeral::is_chinese_numeral_char(*ch));
    if chinese && next.is_some_and(|n| super::is_han(n) && !AFTER_BARE_CHINESE_DAY.contains(n)) {
        return None;
    }
    Some(Spec {
        day: u8::try_from(d).ok(),
        ..Spec::default()
    })
}

/// 第三季度, 第三个季度, 三季度, 第一季, Q3, q4.
fn quarter(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    let q = if c.peek() == Some('q') {
        if c.prev().is_some_and(|p| p.is_ascii_alphabetic()) {
            return None;
        }
        c.pos += 1;
        let q = c.peek().and_then(|d| d.to_digit(10)).filter(|d| (1..=4).contains(d))?;
        c.pos += 1;
        if c.peek().is_some_and(is_word_char) {
            return None;
        }
        c.eat_any(&["季度", "季"]);
        q
    } else if c.eat_str("首季度") || c.eat_str("首季") {
        1
    } else if c.eat('第') {
        let q = super::count(c, 4)?;
        c.eat('个');
        c.eat_any(&["季度", "季"])?;
        q
    } else {
        let q = super::count(c, 4)?;
        c.eat_str("季度").then_some(())?;
        q
    };
    Some(Spec {
        quarter: u8::try_from(q).ok(),
        ..Spec::default()
    })
}

/// 上半年, 下半年, H1, h2.
fn half(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    if !next_in(c, "h上下前后") {
        return None;
    }
    let h = if c.peek() == Some('h') {
        if c.prev().is_some_and(|p| p.is_ascii_alphabetic()) {
            return None;
        }
        c.pos += 1;
        let h = c.peek().and_then(|d| d.to_digit(10)).filter(|d| (1..=2).contains(d))?;
        c.pos += 1;
        if c.peek().is_some_and(is_word_char) {
            return None;
        }
        h
    } else {
        let h = c.eat_table(&[("上半年", 1), ("下半年", 2), ("前半年", 1), ("后半年", 2)])?;
        c.eat('度');
        h
    };
    Some(Spec {
        half: u8::try_from(h).ok(),
        ..Spec::default()
    })
}

/// 2026-03-03, 2026/3/3, 2026.03.03, 20260303, 2026-03; 3/3 and 3-3 only in a whole expression.
fn numeric_date(c: &mut Cursor, ctx: &Ctx, _: &Spec) -> Option<Spec> {
    if c.prev().is_some_and(|p| p.is_ascii_digit()) {
        return None;
    }
    let (first, n) = c.digits()?;
    let to_u8 = |v: u64| u8::try_from(v).ok();
    if n == 8 {
        let spec = Spec {
            year: i32::try_from(first / 10000).ok(),
            month: to_u8(first / 100 % 100),
            day: to_u8(first % 100),
            ..Spec::default()
        };
        return (!c.peek().is_some_and(|ch| ch.is_ascii_digit())).then_some(spec);
    }
    if n == 4 && c.peek() == Some(' ') {
        return spaced_date(c, ctx, first);
    }
    let sep = c.peek().filter(|s| matches!(s, '-' | '/' | '.' | '·'))?;
    if sep == '·' && n > 2 {
        return None;
    }
    c.pos += 1;
    let (second, n2) = c.digits()?;
    let second_max = if n == 4 { 12 } else { 31 };
    if n2 > 2 || !(1..=second_max).contains(&second) {
        return None;
    }
    if n == 4 {
        let mut spec = Spec {
            year: i32::try_from(first).ok(),
            month: to_u8(second),
            ..Spec::default()
        };
        let save = c.pos;
        // 2026-03-03, 1994.01-19: the day's separator may differ from the month's.
        if c.peek().is_some_and(|ch| ch == sep || matches!(ch, '-' | '/' | '.')) {
            c.pos += 1;
            match c.digits() {
                Some((third, n3)) if n3 <= 2 => spec.day = to_u8(third),
                // 2020-07-0814:30: a time glued to the day.
                Some((third, 4)) if c.peek() == Some(':') => {
                    spec.day = to_u8(third / 100);
                    c.pos -= 2;
                    return Some(spec);
                }
                _ => c.pos = save,
            }
        }
        c.eat_any(&["日", "号"]);
        return (!c.peek().is_some_and(|ch| ch.is_ascii_digit())).then_some(spec);
    }
    if n <= 2 && ctx.whole && c.peek() == Some(sep) && sep != '·' {
        return day_month_year(c, first, second, sep, ctx.today);
    }
    if sep == '/' && (1..=12).contains(&first) && n <= 2 && matches!(c.peek(), Some('日' | '号')) {
        // 3/4号: month/day marked as a day.
        c.pos += 1;
        return Some(Spec {
            month: to_u8(first),
            day: to_u8(second),
            ..Spec::default()
        });
    }
    // 11.1-11.11, 10/1-10/7: a connector to another date is not a measure.
    let connector = c
        .peek()
        .is_some_and(|ch| matches!(ch, '-' | '~' | '—' | '–') && ch != sep)
        && c.peek_at(1).is_some_and(|ch| ch.is_ascii_digit());
    let measured = !connector
        && c.peek()
            .is_some_and(|ch| ch.is_ascii_digit() || ch == sep || NOT_A_DAY_AFTER.contains(ch));
    if n <= 2 && ctx.whole && (1..=12).contains(&first) && !measured {
        return Some(Spec {
            month: to_u8(first),
            day: to_u8(second),
            ..Spec::default()
        });
    }
    None
}

/// 2021 03 15: a year, month and day apart by single spaces (copy-paste, speech); in a sentence only with a
/// two-digit month and day, and all three always.
fn spaced_date(c: &mut Cursor, ctx: &Ctx, year: u64) -> Option<Spec> {
    let part = |c: &mut Cursor| {
        c.eat(' ').then_some(())?;
        let (v, n) = c.digits()?;
        (n == 2 || ctx.whole && n == 1).then_some(u8::try_from(v).ok()?)
    };
    let month = part(c)?;
    let day = part(c)?;
    if c.peek().is_some_and(|ch| ch.is_ascii_alphanumeric()) || !(1..=12).contains(&month) {
        return None;
    }
    Some(Spec {
        year: i32::try_from(year).ok(),
        month: Some(month),
        day: Some(day),
        ..Spec::default()
    })
}

/// The year after `a{sep}b`: 11/29/2026 (M/D/Y) or 29.11.2026 (D.M.Y), read only when one of the
/// two numbers cannot be a month (or both are the same); 03/04/2026 is not a date.
/// With a two-digit year (7/9/21, 04/11/93) slashes are the US short date, M/D/YY, unless the first number
/// cannot be a month.
fn day_month_year(c: &mut Cursor, a: u64, b: u64, sep: char, today: Date) -> Option<Spec> {
    c.eat(sep).then_some(())?;
    let (year, n) = c.digits()?;
    let short = n == 2 && sep == '/';
    if !(n == 4 || short) || c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
        return None;
    }
    let year = if short {
        two_digit_year(year, today)?
    } else {
        i32::try_from(year).ok()?
    };
    let (month, day) = match (a <= 12, b <= 12) {
        _ if a == b => (a, b),
        (true, false) => (a, b),
        (false, true) => (b, a),
        (true, true) if short => (a, b),
        _ => return None,
    };
    Some(Spec {
        year: Some(year),
        month: u8::try_from(month).ok(),
        day: u8::try_from(day).ok(),
        ..Spec::default()
    })
}

/// 年初, 月底, 季末 … of the period already named, or of the current one.
fn edge_word(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "年季月周上中下") {
        return None;
    }
    let (_, unit, edge) = EDGE_WORDS.iter().find(|(w, _, _)| c.eat_str(w))?;
    let named = match unit {
        Unit::Year => spec.year.is_some() && spec.month.is_none() && spec.quarter.is_none(),
        Unit::Quarter => spec.quarter.is_some(),
        Unit::Month => spec.month.is_some(),
        _ => spec.week.is_some(),
    };
    let edge = Spec {
        edge: Some(*edge),
        ..Spec::default()
    };
    if named {
        return Some(edge);
    }
    period_spec(ctx.today, *unit)?.merge(&edge)
}

/// 初, 底, 末, 上旬 … after a named period (3月底, 上月中旬).
fn edge_suffix(c: &mut Cursor, _: &Ctx, spec: &Spec) -> Option<Spec> {
    if spec.is_empty() {
        return None;
    }
    let edge = c.eat_table(EDGE_SUFFIXES)?;
    Some(Spec {
        edge: Some(edge),
        ..Spec::default()
    })
}

/// 前三季度, 前两个月 after a named year or month (今年前三季度).
fn first_units(c: &mut Cursor, _: &Ctx, spec: &Spec) -> Option<Spec> {
    if spec.year.is_none() && spec.month.is_none() {
        return None;
    }
    c.eat('前').then_some(())?;
    let n = super::count(c, 400)?;
    let unit = c.eat_table(COUNT_UNITS)?;
    (unit != Unit::Year).then_some(Spec {
        first: Some((unit, n)),
        ..Spec::default()
    })
}

/// 最后五天, 后三个月 after a named year or month (上月最后五天, 二零二一年后三月).
fn last_units(c: &mut Cursor, _: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "最后") {
        return None;
    }
    if spec.year.is_none() && spec.month.is_none() || spec.day.is_some() {
        return None;
    }
    c.eat_any(&["最后", "后"])?;
    let n = super::count(c, 400)?;
    let unit = c
        .eat_table(COUNT_UNITS)
        .or_else(|| c.eat('月').then_some(Unit::Month))?;
    (unit != Unit::Year).then_some(Spec {
        first: Some((unit, n)),
        from_end: true,
        ..Spec::default()
    })
}

/// 第8个月 after a named year (70年第8个月): that month.
fn nth_month(c: &mut Cursor, _: &Ctx, spec: &Spec) -> Option<Spec> {
    if spec.year.is_none() || spec.date_fields() != 1 {
        return None;
    }
    c.eat('第').then_some(())?;
    let m = super::count(c, 12)?;
    c.eat_str("个月").then_some(())?;
    Some(Spec {
        month: u8::try_from(m).ok(),
        ..Spec::default()
    })
}

/// 第一个星期一, 第3个周日, 最后一个周五 after a named month (十月第一个星期一): that day.
fn nth_weekday(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "第最") {
        return None;
    }
    if spec.month.is_none() || spec.day.is_some() || spec.date_fields() > 2 {
        return None;
    }
    let nth = if c.eat_str("最后一个") {
        None
    } else {
        c.eat('第').then_some(())?;
        let n = super::count(c, 5)?;
        c.eat('个');
        Some(n)
    };
    c.eat_any(WEEK_WORDS)?;
    let weekday = weekday_char(c)?;
    let (month, _) = spec.resolve(ctx)?;
    let first = month.start;
    let to_first = (i64::from(weekday) - i64::from(first.weekday().to_monday_one_offset())).rem_euclid(7);
    let day = match nth {
        Some(n) => calendar::add(first, Unit::Day, to_first + 7 * (i64::from(n) - 1))?,
        None => {
            let back = (i64::from(month.end.weekday().to_monday_one_offset()) - i64::from(weekday)).rem_euclid(7);
            calendar::add(month.end, Unit::Day, -back)?
        }
    };
    (day <= month.end).then_some(Spec {
        fixed: Some(super::DateRange { start: day, end: day }),
        ..Spec::default()
    })
}

/// 第三周, 第2个星期, 最后一周 after a named month (十月第一周, 本月第二周, 上个月最后一周): the
/// Monday-to-Sunday week starting on the month's Nth (or last) Monday; 第N周 after a year (2026年第10周),
/// or alone in a whole expression (this year's), is ISO week N. A week the period lacks is none.
fn nth_week(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "第最") {
        return None;
    }
    let year_month = Spec {
        year: spec.year,
        bare_year: spec.bare_year,
        month: spec.month,
        ..Spec::default()
    };
    if year_month != *spec || spec.bare_year && !ctx.whole {
        return None;
    }
    let nth = if c.eat_str("最后一") {
        None
    } else {
        c.eat('第').then_some(())?;
        Some(super::count(c, 53)?)
    };
    c.eat('个');
    c.eat_any(WEEK_WORDS)?;
    // 第二周三 is a weekday (or none); 三周年 and 周岁 are not weeks.
    if week_day_part(&mut c.clone()).is_some() || c.peek().is_some_and(|ch| "年岁".contains(ch)) {
        return None;
    }
    let monday = if spec.month.is_some() {
        let (month, _) = spec.resolve(ctx)?;
        let to_monday = (8 - i64::from(month.start.weekday().to_monday_one_offset())) % 7;
        let first = calendar::add(month.start, Unit::Day, to_monday)?;
        let n = match nth {
            Some(n) => i64::from(n),
            None => (month.end - first).get_days() as i64 / 7 + 1,
        };
        let monday = calendar::add(first, Unit::Day, 7 * (n - 1))?;
        (monday <= month.end).then_some(monday)?
    } else {
        let year = match spec.year {
            Some(y) => y,
            None if ctx.whole => i32::from(ctx.today.year()),
            None => return None,
        };
        let week = i8::try_from(nth?).ok()?;
        jiff::civil::ISOWeekDate::new(i16::try_from(year).ok()?, week, jiff::civil::Weekday::Monday)
            .ok()?
            .date()
    };
    Some(Spec {
        fixed: Some(super::DateRange {
            start: monday,
            end: calendar::add(monday, Unit::Day, 6)?,
        }),
        ..Spec::default()
    })
}

/// Connectors of a range written with one unit for both ends (12-19日, 1－9月份).
const SHARED_CONNECTORS: &[&str] = &["——", "--", "~", "〜", "—", "–", "-", "−", "到", "至"];

/// 12-19日, 1－9月份, 1-五月 after a named year or month: one range whose two ends share the unit.
fn shared_unit_range(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    let year_only = spec.date_fields() == usize::from(spec.year.is_some()) && !spec.clock;
    let year_month = spec.month.is_some() && spec.date_fields() == 1 + usize::from(spec.year.is_some());
    if !year_only && !year_month {
        return None;
    }
    let a = super::count(c, 31)?;
    c.eat_any(SHARED_CONNECTORS)?;
    let b = super::count(c, 31)?;
    let (start, end) = if year_month {
        c.eat_any(&["日", "号"])?;
        let with_day = |d: u32| Spec {
            day: u8::try_from(d).ok(),
            ..*spec
        };
        (with_day(a).resolve(ctx)?.0, with_day(b).resolve(ctx)?.0)
    } else {
        c.eat_any(&["月份", "月"])?;
        let with_month = |m: u32| Spec {
            month: u8::try_from(m).ok().filter(|m| (1..=12).contains(m)),
            ..*spec
        };
        let start = with_month(a).resolve(ctx)?.0;
        let anchored = Ctx {
            anchor: Some(start.start),
            ..*ctx
        };
        (start, with_month(b).resolve(&anchored)?.0)
    };
    (start.start <= end.end).then_some(Spec {
        fixed: Some(super::DateRange {
            start: start.start,
            end: end.end,
        }),
        ..Spec::default()
    })
}

/// 今明两天, 昨今两天, 今明两年, 今明后三天: consecutive days or years named by their first characters.
fn consecutive_days(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    if !next_in(c, "前昨今去") {
        return None;
    }
    if !spec.is_empty() {
        return None;
    }
    // (first day or year, how many, whether years may be counted, whether days may).
    let (first, count, years_ok, days_ok) = c.eat_table(&[
        ("前昨今", (-2, 3, false, true)),
        ("昨今明", (-1, 3, false, true)),
        ("今明后", (0, 3, true, true)),
        ("昨今", (-1, 2, false, true)),
        ("今明", (0, 2, true, true)),
        ("前昨", (-2, 2, false, true)),
        ("去今", (-1, 2, true, false)),
    ])?;
    let n = super::count(c, 3)?;
    let unit = c.eat_table(&[("天", Unit::Day), ("日", Unit::Day), ("年", Unit::Year)])?;
    let allowed = if unit == Unit::Year { years_ok } else { days_ok };
    if i64::from(n) != count || !allowed {
        return None;
    }
    let start = calendar::period_start(calendar::add(ctx.today, unit, first)?, unit)?;
    let last = calendar::add(start, unit, count)?;
    let end = calendar::add(last, Unit::Day, -1)?;
    Some(Spec {
        fixed: Some(super::DateRange { start, end }),
        ..Spec::default()
    })
}
