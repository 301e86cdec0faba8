//! Times of day (下午三点, 15:30, tomorrow morning, at 3pm): read so that they stay inside the
//! expression, but they never change the date; a time of day alone is today in a whole expression.

use super::english::{eat_phrase, eat_phrase_table};
use super::next_in;
use super::spec::{Ctx, Spec};
use crate::text::Cursor;

/// Parts of the day in Chinese.
const DAY_PARTS: &[&str] = &[
    "凌晨", "早上", "早晨", "早间", "清晨", "上午", "中午", "午间", "下午", "午后", "傍晚", "黄昏", "晚上", "晚间",
    "夜晚", "夜里", "夜间", "半夜", "深夜", "午夜", "白天",
];

/// Parts of the day in English, longest first.
const EN_DAY_PARTS: &[(&str, ())] = &[
    ("in the morning", ()),
    ("in the afternoon", ()),
    ("in the evening", ()),
    ("at midnight", ()),
    ("at night", ()),
    ("at noon", ()),
    ("morning", ()),
    ("afternoon", ()),
    ("evening", ()),
    ("night", ()),
    ("noon", ()),
    ("midnight", ()),
];

/// The fields of a time of day.
fn clock_spec() -> Spec {
    Spec {
        clock: true,
        ..Spec::default()
    }
}

/// Minutes after `hh:` (two digits) and optional seconds; false (cursor kept) when there are none.
fn colon_minutes(c: &mut Cursor) -> bool {
    let save = c.pos;
    if !c.eat(':') {
        return false;
    }
    match c.digits() {
        Some((m, 2)) if m < 60 => {
            let save_sec = c.pos;
            if !(c.eat(':') && matches!(c.digits(), Some((_, 2)))) {
                c.pos = save_sec;
            }
            true
        }
        _ => {
            c.pos = save;
            false
        }
    }
}

/// Parts of the day after noon: an hour before 12 after them is in the afternoon or evening (下午3点 is 15:00).
const LATE_PARTS: &[&str] = &[
    "下午", "午后", "傍晚", "黄昏", "晚上", "晚间", "夜晚", "夜里", "夜间", "深夜", "晚", "夜",
];

/// Words before the second time of a range that put it on the next day (22:30~次日06:00).
const NEXT_DAY_WORDS: &[&str] = &["次日", "翌日", "第二天", "隔天", "次晨"];

/// Connectors between two times of day.
const CLOCK_CONNECTORS: &[&str] = &["~", "〜", "-", "—", "到", "至"];

/// A time of day read by [`one_time`]: its hour on the 24-hour clock when one was named, and its part of
/// the day (下午, 凌晨) when one was named.
type TimeRead = (Option<u64>, Option<&'static str>);

/// The hour on the 24-hour clock of `hour` after a part of the day (晚上10点 = 22, 凌晨12点 = 0).
fn hour_of_day(hour: u64, part: Option<&str>) -> u64 {
    match part {
        Some(p) if LATE_PARTS.contains(&p) && hour < 12 => hour + 12,
        Some("中午") if hour < 6 => hour + 12,
        Some("凌晨" | "半夜" | "午夜") if hour == 12 => 0,
        _ => hour,
    }
}

/// One time of day: 下午, 三点, 下午3点半, 15:30, 十点一刻, 四点三十分二十九秒, 零点整.
fn one_time(c: &mut Cursor) -> Option<TimeRead> {
    let mut part = None;
    if next_in(c, "凌早清上中午下傍黄晚夜半深白")
        && let Some(i) = c.eat_any(DAY_PARTS)
    {
        part = DAY_PARTS.get(i).copied();
    }
    let mut any = part.is_some();
    // 晚8点, 早7点: one character for the part of the day, only before an hour.
    let short_part = !any && matches!(c.peek(), Some('早' | '晚' | '夜'));
    if short_part {
        part = LATE_PARTS.iter().find(|p| c.looking_at(p)).copied();
        c.pos += 1;
    }
    let save = c.pos;
    let hour = if c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
        c.digits().map(|(v, _)| v)
    } else if c.peek() == Some('零') && matches!(c.peek_at(1), Some('点' | '时')) {
        // 零点, 零时: midnight.
        c.pos += 1;
        Some(0)
    } else {
        super::count(c, 24).map(u64::from)
    };
    let mut named = None;
    match hour {
        Some(h) if h <= 24 && (c.eat('点') || c.eat('时')) => {
            any = true;
            named = Some(h);
            c.eat('钟');
            let minutes_word = c.eat('半') || c.eat('整') || c.eat_any(&["一刻", "三刻", "1刻", "3刻"]).is_some();
            if !minutes_word && (super::count(c, 59).is_some() || c.eat('零') && super::count(c, 9).is_some()) {
                c.eat('分');
                let save_sec = c.pos;
                if !(super::count(c, 59).is_some() && c.eat('秒')) {
                    c.pos = save_sec;
                }
            }
        }
        Some(h) if h <= 24 && colon_minutes(c) => {
            any = true;
            named = Some(h);
            // 14:30时: the hour word after a clock time.
            if c.peek() == Some('时') && !matches!(c.peek_at(1), Some('间' | '候' | '段' | '期')) {
                c.pos += 1;
            }
        }
        // 9~11点, 3到5点: a range of hours within the day.
        Some(h) if h <= 24 && c.eat_any(CLOCK_CONNECTORS).is_some() => {
            let second = if c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
                c.digits().map(|(v, _)| v)
            } else {
                super::count(c, 24).map(u64::from)
            };
            match second {
                Some(h2) if h2 <= 24 && (c.eat('点') || c.eat('时')) => {
                    any = true;
                    c.eat('半');
                }
                _ => c.pos = save,
            }
        }
        _ => c.pos = save,
    }
    if short_part && c.pos == save {
        return None;
    }
    any.then_some((named.map(|h| hour_of_day(h, part)), part))
}

/// A time of day, or a range of two (晚上10点到凌晨2点, 22:30~次日06:00): a range that runs past midnight
/// reaches into the next day.
pub(crate) fn chinese(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    if c.prev() == Some('第') {
        return None;
    }
    let (first, part) = one_time(c)?;
    let mut spec = clock_spec();
    let Some(h1) = first else {
        return Some(spec);
    };
    let save = c.pos;
    if c.eat_any(CLOCK_CONNECTORS).is_some() {
        let next_day = c.eat_any(NEXT_DAY_WORDS).is_some();
        match one_time(c) {
            Some((Some(h2), part2)) => {
                let h2 = if part2.is_none() { hour_of_day(h2, part) } else { h2 };
                let marked = part.is_some() || part2.is_some() || h1 >= 13;
                spec.overnight = next_day || h2 < h1 && marked;
                c.eat_any(&["之间", "期间"]);
            }
            _ => c.pos = save,
        }
    }
    Some(spec)
}

/// Consumes am/pm (a.m., p.m.) right after a time, standing alone as a word.
fn meridiem(c: &mut Cursor) -> bool {
    let save = c.pos;
    c.skip_ws();
    let read = ["a.m.", "p.m.", "am", "pm"].iter().any(|w| c.eat_str(w));
    if read && !c.peek().is_some_and(|ch| ch.is_ascii_alphanumeric()) {
        return true;
    }
    c.pos = save;
    false
}

/// An English time of day: morning, at night, 3pm, 10:30 am, 15:00, and "at 3" after a day (it does
/// not change the date).
pub(crate) fn english(c: &mut Cursor, _: &Ctx, spec: &Spec) -> Option<Spec> {
    if eat_phrase_table(c, EN_DAY_PARTS).is_some() {
        return Some(clock_spec());
    }
    let save = c.pos;
    let at = eat_phrase(c, "at");
    c.skip_ws();
    if c.prev().is_some_and(|p| p.is_ascii_alphanumeric()) && !at {
        c.pos = save;
        return None;
    }
    let hour = match c.digits() {
        Some((h, n)) if n <= 2 && h <= 24 => h,
        _ => {
            c.pos = save;
            return None;
        }
    };
    let minutes = colon_minutes(c);
    let half_day = meridiem(c);
    let ends_clean = !c.peek().is_some_and(|ch| ch.is_ascii_alphanumeric());
    let marked = minutes || half_day || at && !spec.is_empty();
    if !marked || !ends_clean || (half_day && hour > 12) {
        c.pos = save;
        return None;
    }
    let after = c.pos;
    c.skip_ws();
    if eat_phrase_table(c, EN_DAY_PARTS).is_none() {
        c.pos = after;
    }
    Some(clock_spec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    /// How many characters `read` consumes from the start of `text`, None when it reads nothing.
    fn read_len(read: fn(&mut Cursor, &Ctx, &Spec) -> Option<Spec>, text: &str, spec: &Spec) -> Option<usize> {
        let chars: Vec<char> = text.chars().collect();
        let ctx = Ctx {
            today: date(2013, 2, 12),
            anchor: None,
            whole: true,
        };
        let mut c = Cursor::new(&chars, 0);
        read(&mut c, &ctx, spec).map(|s| {
            assert!(s.clock);
            c.pos
        })
    }

    #[test]
    fn chinese_times() {
        let none = Spec::default();
        assert_eq!(read_len(chinese, "下午三点开会", &none), Some(4));
        assert_eq!(read_len(chinese, "四点三十分二十九秒", &none), Some(9));
        assert_eq!(read_len(chinese, "16:30:00", &none), Some(8));
        assert_eq!(read_len(chinese, "十点一刻", &none), Some(4));
        assert_eq!(read_len(chinese, "3个", &none), None);
    }

    #[test]
    fn english_times() {
        let none = Spec::default();
        let day = Spec {
            day: Some(3),
            ..Spec::default()
        };
        assert_eq!(read_len(english, "3pm", &none), Some(3));
        assert_eq!(read_len(english, "10:30 am", &none), Some(8));
        assert_eq!(read_len(english, "in the morning", &none), Some(14));
        assert_eq!(read_len(english, "at 3", &none), None);
        assert_eq!(read_len(english, "at 3", &day), Some(4));
        assert_eq!(read_len(english, "13pm", &none), None);
        assert_eq!(read_len(english, "3 products", &none), None);
    }
}
