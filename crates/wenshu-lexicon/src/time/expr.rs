//! Whole time expressions: points, rolling windows, "N天前", previous periods, ranges and to-date spans.

use super::calendar::{self, Unit};
use super::chinese::{self, COUNT_UNITS};
use super::english;
use super::next_in;
use super::spec::{Ctx, Spec};
use super::{DateRange, TimeKind};
use crate::numeral;
use crate::text::Cursor;

/// A time expression read from characters `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    /// Index just past the expression.
    pub end: usize,
    /// The dates it denotes.
    pub range: DateRange,
    /// What kind of expression it was.
    pub kind: TimeKind,
}

/// The result of reading at one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A time expression.
    Found(Found),
    /// Something shaped like a date that is not one (2月30日), ending at the index.
    Invalid(usize),
    /// Nothing here.
    NoMatch,
}

impl Outcome {
    /// Where the outcome ends (0 for no match).
    fn end(&self) -> usize {
        match self {
            Outcome::Found(f) => f.end,
            Outcome::Invalid(end) => *end,
            Outcome::NoMatch => 0,
        }
    }

    /// The longer of two outcomes, a found one winning ties.
    fn or_longer(self, other: Outcome) -> Outcome {
        match (self.end().cmp(&other.end()), &self, &other) {
            (_, Outcome::NoMatch, _) => other,
            (_, _, Outcome::NoMatch) => self,
            (std::cmp::Ordering::Less, _, _) => other,
            (std::cmp::Ordering::Equal, Outcome::Invalid(_), Outcome::Found(_)) => other,
            _ => self,
        }
    }
}

/// Wraps an optional range into an outcome ending at `end`.
fn found(range: Option<DateRange>, end: usize, kind: TimeKind) -> Outcome {
    match range {
        Some(range) if range.start <= range.end => Outcome::Found(Found { end, range, kind }),
        _ => Outcome::Invalid(end),
    }
}

/// Words before a rolling window (最近7天); the bool says it looks forward (未来7天).
const CN_WINDOW_PREFIXES: &[(&str, bool)] = &[
    ("最近的", false),
    ("最近", false),
    ("过去的", false),
    ("过去", false),
    ("近", false),
    ("未来的", true),
    ("未来", true),
    ("接下来的", true),
    ("接下来", true),
    ("今后", true),
];

/// The hour just past, this one or the next (上个小时, 这个小时): a part of today.
const THIS_HOUR_WORDS: &[&str] = &[
    "上个小时",
    "上个钟头",
    "这个小时",
    "这个钟头",
    "本小时",
    "下个小时",
    "下个钟头",
    "当前小时",
];

/// Words after a window (7天内, 三个月以来).
const WINDOW_SUFFIXES: &[&str] = &["以内", "之内", "以来", "内", "里", "来"];

/// Connectors between the two ends of a range.
const CN_CONNECTORS: &[&str] = &["——", "--", "到", "至", "迄", "~", "〜", "—", "–", "-", "−"];

/// Words before an end point meaning "from the start of its year up to it" (截至10月底).
const UNTIL_WORDS: &[&str] = &["截止到", "截至到", "截止至", "截止于", "截至", "截止"];

/// Words after a start point meaning "from then on" (3月起, 从去年9月开始).
const FROM_WORDS: &[&str] = &["开始", "起"];

/// English connectors between the two ends of a range.
const EN_CONNECTORS: &[&str] = &["to", "through", "thru", "until", "till"];

/// Words meaning "now" at the right end of a range (至今, 到现在).
const NOW_WORDS: &[&str] = &["现在", "目前", "当前", "当下", "此刻", "今", "now", "present"];

/// A count and unit: 7天, 三个月, 两周, 半年 (six months), 半个月 (15 days), 一年半 (18 months),
/// 一个半月 (45 days).
fn counted_unit(c: &mut Cursor) -> Option<(Unit, u32)> {
    let save = c.pos;
    if c.eat('半') {
        let unit = match c.eat_table(&[("个月", Unit::Month), ("月", Unit::Month), ("年", Unit::Year)]) {
            Some(Unit::Year) => (Unit::Month, 6),
            Some(_) => (Unit::Day, 15),
            None => {
                c.pos = save;
                return None;
            }
        };
        return Some(unit);
    }
    let n = super::count(c, 100_000)?;
    if c.eat_str("个半月") {
        return Some((Unit::Day, n.checked_mul(30)?.checked_add(15)?));
    }
    match c.eat_table(COUNT_UNITS) {
        Some(Unit::Year) if c.eat('半') => Some((Unit::Month, n.checked_mul(12)?.checked_add(6)?)),
        Some(unit) => Some((unit, n)),
        None => {
            c.pos = save;
            None
        }
    }
}

/// Units shorter than a day, in seconds (3小时后, 半个钟头前).
const SMALL_UNITS: &[(&str, u64)] = &[
    ("个小时", 3600),
    ("小时", 3600),
    ("个钟头", 3600),
    ("钟头", 3600),
    ("个钟", 3600),
    ("个刻钟", 900),
    ("刻钟", 900),
    ("分钟", 60),
    ("秒钟", 1),
    ("秒", 1),
];

/// A count of hours, minutes or seconds (3小时, 半个小时, 45分钟), in seconds.
fn counted_seconds(c: &mut Cursor) -> Option<u64> {
    let save = c.pos;
    let halves = if c.eat('半') {
        1
    } else {
        u64::from(super::count(c, 100_000)?) * 2
    };
    let halves = if c.looking_at("个半") {
        c.pos += 1;
        c.eat('半');
        halves + 1
    } else {
        halves
    };
    match c.eat_table(SMALL_UNITS) {
        Some(secs) => Some(halves * secs / 2),
        None => {
            c.pos = save;
            None
        }
    }
}

/// The day `seconds` before (sign −1) or after today, counting whole days only (3小时后 is today).
fn day_after_seconds(ctx: &Ctx, seconds: u64, sign: i64, end: usize) -> Outcome {
    let days = i64::try_from(seconds / 86_400).ok();
    let day = days.and_then(|d| calendar::add(ctx.today, Unit::Day, sign * d));
    found(day.map(|d| DateRange { start: d, end: d }), end, TimeKind::Day)
}

/// The whole `unit` period `n` units from today (a single day for days).
fn units_away(ctx: &Ctx, unit: Unit, n: i64, end: usize) -> Outcome {
    let day = calendar::add(ctx.today, unit, n);
    found(
        day.and_then(|d| calendar::period_containing(d, unit)),
        end,
        kind_of(unit),
    )
}

/// 最近10分钟, 过去两小时, 上两小时, 未来48小时: the days the window touches. Under a day it is
/// today; a window of N hours or more reaches back (or ahead) ceil(N / 24) days.
fn cn_small_window(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let mut c = Cursor::new(s, pos);
    if next_in(&c, "上这本下当") && c.eat_any(THIS_HOUR_WORDS).is_some() {
        // 上个小时, 这个小时: an hour of today.
        return found(
            Some(DateRange {
                start: ctx.today,
                end: ctx.today,
            }),
            c.pos,
            TimeKind::Day,
        );
    }
    let prefix = if next_in(&c, "最过近未接今上前之此") {
        match c.eat_table(CN_WINDOW_PREFIXES) {
            Some(f) => Some(f),
            None if c.eat_any(&["之前", "此前", "上", "前"]).is_some() => Some(false),
            None => return Outcome::NoMatch,
        }
    } else {
        None
    };
    let Some(seconds) = counted_seconds(&mut c) else {
        return Outcome::NoMatch;
    };
    // 十分钟内, 半小时以内: without a prefix only a word for "within" makes a window.
    let suffix = c.eat_any(WINDOW_SUFFIXES);
    if prefix.is_none() && !suffix.is_some_and(|i| WINDOW_SUFFIXES.get(i).is_some_and(|w| w.contains('内'))) {
        return Outcome::NoMatch;
    }
    let forward = prefix.unwrap_or(false);
    let days = i64::try_from(if seconds < 86_400 { 0 } else { seconds.div_ceil(86_400) }).ok();
    let kind = if forward { TimeKind::Next } else { TimeKind::Rolling };
    let range = days.and_then(|d| {
        let other = calendar::add(ctx.today, Unit::Day, if forward { d } else { -d })?;
        Some(if forward {
            DateRange {
                start: ctx.today,
                end: other,
            }
        } else {
            DateRange {
                start: other,
                end: ctx.today,
            }
        })
    });
    found(range, c.pos, kind)
}

/// 最近7天, 近三个月, 过去一周, 未来7天, 30天内.
fn cn_window(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let mut c = Cursor::new(s, pos);
    let forward = c.eat_table(CN_WINDOW_PREFIXES);
    let Some((unit, n)) = counted_unit(&mut c) else {
        return Outcome::NoMatch;
    };
    let suffix = c.eat_any(WINDOW_SUFFIXES).is_some();
    let n = i64::from(n);
    match forward {
        Some(true) => found(calendar::full_periods(ctx.today, unit, -n), c.pos, TimeKind::Next),
        Some(false) => found(calendar::rolling(ctx.today, unit, n), c.pos, TimeKind::Rolling),
        // Without 最近/近/过去 only a small count reads as a window (30天内), never a year (2025年以来).
        None if suffix && n < 1000 => found(calendar::rolling(ctx.today, unit, n), c.pos, TimeKind::Rolling),
        None => Outcome::NoMatch,
    }
}

/// Words after a count that look back (前) or ahead (后).
const AGO_WORDS: &[(&str, i64)] = &[
    ("以前", -1),
    ("之前", -1),
    ("前", -1),
    ("以后", 1),
    ("之后", 1),
    ("过后", 1),
    ("后", 1),
];

/// 三天前, 两个月前, 一年后, 3小时后: the period that many units away.
fn cn_ago(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let mut c = Cursor::new(s, pos);
    if let Some(seconds) = counted_seconds(&mut c) {
        let Some(sign) = c.eat_table(AGO_WORDS) else {
            return Outcome::NoMatch;
        };
        return day_after_seconds(ctx, seconds, sign, c.pos);
    }
    let Some((unit, n)) = counted_unit(&mut c) else {
        return Outcome::NoMatch;
    };
    // 3月之前 is "before March", 5日前 may be "before the 5th", 2024年以后 "after 2024": a bare 月 or
    // 日, or a count that reads as a year, is not a count of units.
    let bare_unit = matches!(c.prev(), Some('月' | '日'))
        && c.s
            .get(c.pos.wrapping_sub(2))
            .is_some_and(|ch| ch.is_ascii_digit() || numeral::is_chinese_numeral_char(*ch));
    if bare_unit || unit == Unit::Year && n >= 1000 {
        return Outcome::NoMatch;
    }
    let Some(sign) = c.eat_table(AGO_WORDS) else {
        return Outcome::NoMatch;
    };
    let n = sign * i64::from(n);
    let end = c.pos;
    c.eat('的');
    if unit != Unit::Day && c.eat_any(chinese::TODAY_WORDS).is_some() {
        // 一年前的今天: the very day that many units away.
        let day = calendar::add(ctx.today, unit, n);
        return found(day.map(|d| DateRange { start: d, end: d }), c.pos, TimeKind::Day);
    }
    units_away(ctx, unit, n, end)
}

/// 上两个月, 前两年, 前7天: the N whole periods before the current one; 后三天, 下两周 after it.
fn cn_full_periods(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let mut c = Cursor::new(s, pos);
    let Some(sign) = c.eat_table(&[("前", 1), ("上", 1), ("后", -1), ("下", -1)]) else {
        return Outcome::NoMatch;
    };
    let Some((unit, n)) = counted_unit(&mut c) else {
        return Outcome::NoMatch;
    };
    let kind = if sign > 0 { TimeKind::Previous } else { TimeKind::Next };
    found(
        calendar::full_periods(ctx.today, unit, sign * i64::from(n)),
        c.pos,
        kind,
    )
}

/// English windows, "N days ago" and to-date words.
fn en_forms(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    if !s.get(pos).is_some_and(|ch| ch.is_ascii_alphanumeric()) {
        return Outcome::NoMatch;
    }
    let mut c = Cursor::new(s, pos);
    if let Some((unit, n, forward)) = english::window(&mut c) {
        let n = i64::from(n);
        return if forward {
            found(calendar::full_periods(ctx.today, unit, -n), c.pos, TimeKind::Next)
        } else {
            found(calendar::rolling(ctx.today, unit, n), c.pos, TimeKind::Rolling)
        };
    }
    if let Some((unit, n)) = english::ago(&mut c) {
        return units_away(ctx, unit, -i64::from(n), c.pos);
    }
    if let Some((unit, n)) = english::later(&mut c) {
        return units_away(ctx, unit, i64::from(n), c.pos);
    }
    if let Some((seconds, sign)) = english::hours_away(&mut c) {
        return day_after_seconds(ctx, seconds, sign, c.pos);
    }
    if let Some(unit) = english::to_date(&mut c) {
        let start = calendar::period_start(ctx.today, unit);
        return found(
            start.map(|start| DateRange { start, end: ctx.today }),
            c.pos,
            TimeKind::ToDate,
        );
    }
    Outcome::NoMatch
}

/// The kind of a whole period of `unit`.
fn kind_of(unit: Unit) -> TimeKind {
    match unit {
        Unit::Day => TimeKind::Day,
        Unit::Week => TimeKind::Week,
        Unit::Month => TimeKind::Month,
        Unit::Quarter => TimeKind::Quarter,
        Unit::Half => TimeKind::HalfYear,
        Unit::Year => TimeKind::Year,
    }
}

/// Reads one piece at the cursor, the longest reading of all pieces; returns its fields.
fn piece(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    let start = c.pos;
    let mut best: Option<(usize, Spec)> = None;
    let english = c.peek().is_some_and(|ch| ch.is_ascii_alphanumeric());
    let pieces = chinese::PIECES
        .iter()
        .chain(if english { english::PIECES } else { &[] });
    for read in pieces {
        let mut probe = Cursor::new(c.s, start);
        if let Some(fields) = read(&mut probe, ctx, spec)
            && probe.pos > start
            && best.is_none_or(|(end, _)| probe.pos > end)
        {
            best = Some((probe.pos, fields));
        }
    }
    let (end, fields) = best?;
    c.pos = end;
    Some(fields)
}

/// Separators allowed between pieces: spaces, 的, a comma or "of" in English.
fn separator(c: &mut Cursor) {
    c.skip_ws();
    if c.eat('的') || c.eat(',') || c.eat_word("of") || c.eat_word("in") {
        c.skip_ws();
    }
}

/// A point expression: pieces naming one day, week, month, quarter, half or year.
fn point(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let mut spec = Spec::default();
    let mut end = pos;
    loop {
        let mut c = Cursor::new(s, end);
        if end > pos {
            separator(&mut c);
        }
        // No piece starts with a character no time expression starts with.
        if !c.peek().is_some_and(super::may_start) {
            break;
        }
        let Some(fields) = piece(&mut c, ctx, &spec) else {
            break;
        };
        match spec.merge(&fields) {
            Some(merged) => {
                spec = merged;
                end = c.pos;
            }
            None => break,
        }
    }
    if end == pos {
        return Outcome::NoMatch;
    }
    match spec.resolve(ctx) {
        Some((range, kind)) => found(Some(range), end, kind),
        None if spec.is_empty() || spec.clock && ctx.anchor.is_none() && !ctx.whole || spec.bare_year && !ctx.whole => {
            Outcome::NoMatch
        }
        None => Outcome::Invalid(end),
    }
}

/// One way to read a single expression at a position.
type Form = fn(&[char], usize, &Ctx) -> Outcome;

/// The longest single expression at `pos`: a point, a window, an "ago", previous periods, English forms.
fn simple(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let forms: [Form; 6] = [point, cn_window, cn_small_window, cn_ago, cn_full_periods, en_forms];
    forms
        .iter()
        .fold(Outcome::NoMatch, |best, form| best.or_longer(form(s, pos, ctx)))
}

/// A whole expression at `pos`: [从] A [到 B | 以来 | 至今].
pub(crate) fn expression(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let mut c = Cursor::new(s, pos);
    if next_in(&c, "截") && c.eat_any(UNTIL_WORDS).is_some() {
        return until(s, c.pos, ctx);
    }
    let mut since = false;
    if c.eat_any(&["从", "自从", "自"]).is_some() || c.eat_word("from") || c.eat_word("between") {
        c.skip_ws();
    } else if c.eat_word("since") {
        since = true;
        c.skip_ws();
    }
    let left = match simple(s, c.pos, ctx) {
        Outcome::Found(f) => f,
        other => return other,
    };
    let mut c = Cursor::new(s, left.end);
    c.skip_ws();
    if next_in(&c, "截") && c.eat_any(UNTIL_WORDS).is_some() && !since {
        return until_within(&mut c, ctx, left);
    }
    let mut c = Cursor::new(s, left.end);
    let from_on = c.eat_any(FROM_WORDS).is_some();
    c.skip_ws();
    let connected =
        c.eat_any(CN_CONNECTORS).is_some() || EN_CONNECTORS.iter().any(|w| c.eat_word(w)) || c.eat_word("and");
    if connected && !since {
        c.skip_ws();
        if let Some(range) = right_end(&mut c, ctx, left) {
            c.eat_any(&["为止", "之间", "期间"]);
            return found(Some(range), c.pos, TimeKind::Range);
        }
    }
    let mut c = Cursor::new(s, left.end);
    let from_on = from_on && c.eat_any(FROM_WORDS).is_some();
    if c.eat_any(&["以来", "至今"]).is_some() || since || from_on {
        c.eat_str("为止");
        let range = DateRange {
            start: left.range.start,
            end: ctx.today,
        };
        return found(Some(range), c.pos, TimeKind::ToDate);
    }
    let mut c = Cursor::new(s, left.end);
    if left.kind == TimeKind::Day && c.eat_any(&["当天", "当日"]).is_some() {
        // 双十一当天: the day just named, not today.
        return Outcome::Found(Found { end: c.pos, ..left });
    }
    if left.kind == TimeKind::Day
        && let Some(list) = day_list(s, ctx, left)
    {
        return Outcome::Found(list);
    }
    let whole_period = matches!(
        left.kind,
        TimeKind::Year | TimeKind::HalfYear | TimeKind::Quarter | TimeKind::Month | TimeKind::Week | TimeKind::Day
    );
    // 2025年内, 本季度之内: within the period named (not 今年内销, 今年内蒙古).
    if whole_period
        && c.eat_any(&["之内", "以内", "内"]).is_some()
        && !c.peek().is_some_and(|ch| super::is_han(ch) && ch != '的')
    {
        return Outcome::Found(Found { end: c.pos, ..left });
    }
    Outcome::Found(left)
}

/// Separators of a list of days (3月4号，5号，6号).
const LIST_SEPARATORS: &[&str] = &[",", "、", "和", "及", "与"];

/// 3月4号，5号，6号: a list of consecutive days after a day, read as the range they fill; a list with a gap
/// is not one range, and only the first day is read.
fn day_list(s: &[char], ctx: &Ctx, left: Found) -> Option<Found> {
    let anchored = Ctx {
        anchor: Some(left.range.start),
        ..*ctx
    };
    let mut last = left;
    loop {
        let mut c = Cursor::new(s, last.end);
        c.skip_ws();
        if c.eat_any(LIST_SEPARATORS).is_none() {
            break;
        }
        c.skip_ws();
        match simple(s, c.pos, &anchored) {
            Outcome::Found(next)
                if next.kind == TimeKind::Day
                    && calendar::add(last.range.end, Unit::Day, 1) == Some(next.range.start) =>
            {
                last = next;
            }
            _ => break,
        }
    }
    (last.end > left.end).then_some(Found {
        end: last.end,
        range: DateRange {
            start: left.range.start,
            end: last.range.end,
        },
        kind: TimeKind::Range,
    })
}

/// A period cut at an end inside it (今年截至上个月底 = from 1 January to 31 October): the period's
/// start to that end. An end outside the period is refused rather than read as a wider range.
fn until_within(c: &mut Cursor, ctx: &Ctx, left: Found) -> Outcome {
    c.skip_ws();
    let Some(range) = right_end(c, ctx, left) else {
        return Outcome::Invalid(c.pos);
    };
    if range.end > left.range.end {
        return Outcome::Invalid(c.pos);
    }
    c.eat_any(&["为止", "止"]);
    found(Some(range), c.pos, TimeKind::ToDate)
}

/// 截至X: from the first day of X's year to the last day of X (截至10月底, 截至今天).
fn until(s: &[char], pos: usize, ctx: &Ctx) -> Outcome {
    let mut c = Cursor::new(s, pos);
    c.skip_ws();
    let end = match simple(s, c.pos, ctx) {
        Outcome::Found(f) => f,
        Outcome::Invalid(end) => return Outcome::Invalid(end),
        Outcome::NoMatch => match c.eat_any(NOW_WORDS) {
            Some(_) => Found {
                end: c.pos,
                range: DateRange {
                    start: ctx.today,
                    end: ctx.today,
                },
                kind: TimeKind::Day,
            },
            None => return Outcome::Invalid(c.pos),
        },
    };
    let mut c = Cursor::new(s, end.end);
    c.eat_any(&["为止", "止"]);
    let start = calendar::period_start(end.range.end, Unit::Year);
    found(
        start.map(|start| DateRange {
            start,
            end: end.range.end,
        }),
        c.pos,
        TimeKind::ToDate,
    )
}

/// The right end of a range after its connector, its missing fields taken from the left end.
fn right_end(c: &mut Cursor, ctx: &Ctx, left: Found) -> Option<DateRange> {
    let anchored = Ctx {
        anchor: Some(left.range.start),
        ..*ctx
    };
    let mut right = match simple(c.s, c.pos, &anchored) {
        Outcome::Found(f) => f,
        _ => {
            c.eat_any(NOW_WORDS)?;
            return Some(DateRange {
                start: left.range.start,
                end: ctx.today,
            });
        }
    };
    if right.range.end < left.range.start {
        // 12月到1月: the right end is in the next week, month or year.
        right = [Unit::Week, Unit::Month, Unit::Year].iter().find_map(|unit| {
            let anchor = calendar::add(left.range.start, *unit, 1)?;
            match simple(
                c.s,
                c.pos,
                &Ctx {
                    anchor: Some(anchor),
                    ..*ctx
                },
            ) {
                Outcome::Found(f) if f.range != right.range && f.range.end >= left.range.start => Some(f),
                _ => None,
            }
        })?;
    }
    c.pos = right.end;
    Some(DateRange {
        start: left.range.start,
        end: right.range.end,
    })
}
