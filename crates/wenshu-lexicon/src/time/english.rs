//! English time words: today, last month, this quarter, March 3, 2025, Q3 2025, past 7 days, ytd ….

use super::calendar::{self, Unit};
use super::chinese::{Piece, day_spec, period_spec};
use super::clock;
use super::spec::{Ctx, Edge, Spec};
use crate::text::Cursor;

/// Every English piece of a point expression.
pub(crate) const PIECES: &[Piece] = &[
    year_after_preposition,
    day_word,
    relative_unit,
    month_name,
    day_month,
    ordinal_period,
    weekday_name,
    edge_of,
    clock::english,
];

/// Days named relative to today (phrases are matched word by word).
const DAY_WORDS: &[(&str, i64)] = &[
    ("the day before yesterday", -2),
    ("day before yesterday", -2),
    ("the day after tomorrow", 2),
    ("day after tomorrow", 2),
    ("this morning", 0),
    ("this afternoon", 0),
    ("this evening", 0),
    ("last night", -1),
    ("today", 0),
    ("tonight", 0),
    ("yesterday", -1),
    ("tomorrow", 1),
];

/// Words that shift a unit (last month: −1).
const SHIFTS: &[(&str, i64)] = &[
    ("the current", 0),
    ("the previous", -1),
    ("the next", 1),
    ("the coming", 1),
    ("this", 0),
    ("current", 0),
    ("present", 0),
    ("last", -1),
    ("previous", -1),
    ("prior", -1),
    ("next", 1),
    ("coming", 1),
    ("following", 1),
];

/// Calendar units in English, plural forms first.
pub(crate) const UNITS: &[(&str, Unit)] = &[
    ("days", Unit::Day),
    ("day", Unit::Day),
    ("weeks", Unit::Week),
    ("week", Unit::Week),
    ("months", Unit::Month),
    ("month", Unit::Month),
    ("quarters", Unit::Quarter),
    ("quarter", Unit::Quarter),
    ("years", Unit::Year),
    ("year", Unit::Year),
];

/// Month names and abbreviations.
const MONTHS: &[(&str, u8)] = &[
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sept", 9),
    ("sep", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];

/// Weekday names, Monday = 1.
const WEEKDAYS: &[(&str, u8)] = &[
    ("monday", 1),
    ("tuesday", 2),
    ("wednesday", 3),
    ("thursday", 4),
    ("friday", 5),
    ("saturday", 6),
    ("sunday", 7),
];

/// Ordinal words for quarters and halves.
const ORDINALS: &[(&str, u8)] = &[
    ("first", 1),
    ("1st", 1),
    ("second", 2),
    ("2nd", 2),
    ("third", 3),
    ("3rd", 3),
    ("fourth", 4),
    ("4th", 4),
];

/// Number words for counts (past three months).
const NUMBER_WORDS: &[(&str, u32)] = &[
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("a", 1),
    ("an", 1),
];

/// Consumes a phrase word by word (spaces, underscores or hyphens between words).
pub(crate) fn eat_phrase(c: &mut Cursor, phrase: &str) -> bool {
    let save = c.pos;
    for (i, word) in phrase.split(' ').enumerate() {
        if i > 0 {
            let gap = c.skip_ws() + usize::from(c.eat('-'));
            if gap == 0 {
                c.pos = save;
                return false;
            }
            c.skip_ws();
        }
        if !c.eat_word(word) {
            c.pos = save;
            return false;
        }
    }
    true
}

/// Consumes the first phrase of `table` that comes next and returns its value.
pub(crate) fn eat_phrase_table<T: Copy>(c: &mut Cursor, table: &[(&str, T)]) -> Option<T> {
    table.iter().find(|(p, _)| eat_phrase(c, p)).map(|(_, v)| *v)
}

/// A count in digits or words (7, seven, a).
pub(crate) fn count(c: &mut Cursor) -> Option<u32> {
    if c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
        if c.prev().is_some_and(|p| p.is_ascii_alphanumeric()) {
            return None;
        }
        let save = c.pos;
        let (v, _) = c.digits()?;
        return match u32::try_from(v) {
            Ok(v) if v >= 1 => Some(v),
            _ => {
                c.pos = save;
                None
            }
        };
    }
    eat_phrase_table(c, NUMBER_WORDS)
}

/// A day number with an optional ordinal ending (3, 3rd, 21st).
fn day_number(c: &mut Cursor) -> Option<u8> {
    let save = c.pos;
    let (d, n) = c.digits()?;
    if n > 2 || !(1..=31).contains(&d) {
        c.pos = save;
        return None;
    }
    c.eat_any(&["st", "nd", "rd", "th"]);
    if c.peek().is_some_and(|ch| ch.is_ascii_alphanumeric()) {
        c.pos = save;
        return None;
    }
    u8::try_from(d).ok()
}

/// Prepositions that make a following bare four-digit number a year (in 2025, for 2025, during 2025, of 2025).
const YEAR_PREPOSITIONS: &[&str] = &["during", "in", "for", "of"];

/// in 2025, for 2025, during 2025, of 2025: that year (a year from 1900 to 2100 after a preposition).
fn year_after_preposition(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    let save = c.pos;
    if !YEAR_PREPOSITIONS.iter().any(|p| c.eat_word(p)) {
        return None;
    }
    let year = (c.skip_ws() > 0)
        .then(|| {
            let at = c.pos;
            super::chinese::explicit_year(c, ctx, spec).filter(|s| s.bare_year && c.pos - at == 4)
        })
        .flatten()
        .and_then(|s| s.year)
        .filter(|y| (1900..=2100).contains(y));
    match year {
        Some(year) => Some(Spec {
            year: Some(year),
            ..Spec::default()
        }),
        _ => {
            c.pos = save;
            None
        }
    }
}

/// today, yesterday, the day after tomorrow ….
fn day_word(c: &mut Cursor, ctx: &Ctx, _: &Spec) -> Option<Spec> {
    let n = eat_phrase_table(c, DAY_WORDS)?;
    Some(day_spec(calendar::add(ctx.today, Unit::Day, n)?))
}

/// this week, last month, next quarter, this weekend, last monday ….
fn relative_unit(c: &mut Cursor, ctx: &Ctx, _: &Spec) -> Option<Spec> {
    let save = c.pos;
    let n = eat_phrase_table(c, SHIFTS)?;
    if c.skip_ws() == 0 {
        c.pos = save;
        return None;
    }
    let week = || calendar::shifted_period(ctx.today, Unit::Week, n).map(|w| w.start);
    if c.eat_word("weekend") {
        return Some(Spec {
            week: Some(week()?),
            weekend: true,
            ..Spec::default()
        });
    }
    if let Some(w) = c.eat_word_table(WEEKDAYS) {
        return Some(Spec {
            week: Some(week()?),
            weekday: Some(w),
            ..Spec::default()
        });
    }
    let unit = c
        .eat_word_table(UNITS)
        .filter(|u| matches!(u, Unit::Week | Unit::Month | Unit::Quarter | Unit::Year));
    let Some(unit) = unit else {
        c.pos = save;
        return None;
    };
    let period = calendar::shifted_period(ctx.today, unit, n)?;
    period_spec(period.start, unit)
}

/// march, march 3, march 3rd (a year may follow as its own piece).
fn month_name(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    let m = c.eat_word_table(MONTHS)?;
    let mut spec = Spec {
        month: Some(m),
        ..Spec::default()
    };
    let save = c.pos;
    if c.skip_ws() > 0 {
        match day_number(c) {
            Some(d) => spec.day = Some(d),
            None => c.pos = save,
        }
    }
    Some(spec)
}

/// 3 march, 3rd of march.
fn day_month(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    if c.prev().is_some_and(|p| p.is_ascii_alphanumeric()) {
        return None;
    }
    let d = day_number(c)?;
    c.skip_ws();
    if c.eat_word("of") {
        c.skip_ws();
    }
    let m = c.eat_word_table(MONTHS)?;
    Some(Spec {
        month: Some(m),
        day: Some(d),
        ..Spec::default()
    })
}

/// first quarter, 3rd quarter, second half.
fn ordinal_period(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    let n = c.eat_word_table(ORDINALS)?;
    c.skip_ws();
    if c.eat_word("quarter") {
        return Some(Spec {
            quarter: Some(n),
            ..Spec::default()
        });
    }
    if n <= 2 && c.eat_word("half") {
        return Some(Spec {
            half: Some(n),
            ..Spec::default()
        });
    }
    None
}

/// monday, friday … (this week's).
fn weekday_name(c: &mut Cursor, _: &Ctx, _: &Spec) -> Option<Spec> {
    let w = c.eat_word_table(WEEKDAYS)?;
    Some(Spec {
        weekday: Some(w),
        ..Spec::default()
    })
}

/// Words for the edges of a period: (phrase, edge).
const EDGES: &[(&str, Edge)] = &[
    ("the end of", Edge::End),
    ("the beginning of", Edge::Start),
    ("the start of", Edge::Start),
    ("end of", Edge::End),
    ("beginning of", Edge::Start),
    ("start of", Edge::Start),
];

/// Bare units after an edge phrase, meaning the current period (end of the month).
const EDGE_UNITS: &[(&str, Unit)] = &[
    ("the week", Unit::Week),
    ("the month", Unit::Month),
    ("the quarter", Unit::Quarter),
    ("the year", Unit::Year),
    ("week", Unit::Week),
    ("month", Unit::Month),
    ("quarter", Unit::Quarter),
    ("year", Unit::Year),
];

/// end of the month, beginning of next year, start of March, end of 2025: the first or last day.
fn edge_of(c: &mut Cursor, ctx: &Ctx, spec: &Spec) -> Option<Spec> {
    let save = c.pos;
    let edge = eat_phrase_table(c, EDGES)?;
    c.skip_ws();
    let period = match eat_phrase_table(c, EDGE_UNITS) {
        Some(unit) => calendar::period_containing(ctx.today, unit).and_then(|p| period_spec(p.start, unit)),
        None => {
            let start = c.pos;
            [relative_unit as Piece, month_name, super::chinese::explicit_year]
                .iter()
                .find_map(|read| {
                    c.pos = start;
                    read(c, ctx, spec).filter(|s| s.day.is_none() && s.weekday.is_none() && !s.weekend)
                })
        }
    };
    let Some(period) = period else {
        c.pos = save;
        return None;
    };
    period.merge(&Spec {
        edge: Some(edge),
        ..Spec::default()
    })
}

/// Words that open a rolling window ending today.
const WINDOW_PREFIXES: &[&str] = &[
    "in the last",
    "in the past",
    "over the last",
    "over the past",
    "during the last",
    "during the past",
    "the last",
    "the past",
    "last",
    "past",
    "trailing",
    "recent",
    "the previous",
    "previous",
    "prior",
];

/// past/last N days|weeks|months|quarters|years, past week; next N days. Returns (unit, n, forward).
pub(crate) fn window(c: &mut Cursor) -> Option<(Unit, u32, bool)> {
    let save = c.pos;
    let forward = if eat_phrase(c, "next") || eat_phrase(c, "the next") || eat_phrase(c, "coming") {
        true
    } else if WINDOW_PREFIXES.iter().any(|p| eat_phrase(c, p)) {
        false
    } else {
        return None;
    };
    let prefix_end = c.pos;
    c.skip_ws();
    let n = count(c);
    c.skip_ws();
    let unit = c.eat_word_table(UNITS);
    match (n, unit) {
        (Some(n), Some(unit)) => Some((unit, n, forward)),
        // "past week" without a count: one unit (but "last week" is the calendar week).
        (None, Some(unit)) if !forward && !is_calendar_word(c, save, prefix_end) => Some((unit, 1, false)),
        _ => {
            c.pos = save;
            None
        }
    }
}

/// Whether the window prefix just read was "last"/"previous"/"prior", which name calendar periods.
fn is_calendar_word(c: &Cursor, start: usize, end: usize) -> bool {
    let word: String = c.s[start..end].iter().collect();
    matches!(
        word.as_str(),
        "last" | "previous" | "prior" | "the previous" | "the last"
    )
}

/// N days|weeks|months|years ago. Returns (unit, n).
pub(crate) fn ago(c: &mut Cursor) -> Option<(Unit, u32)> {
    let save = c.pos;
    let n = count(c)?;
    c.skip_ws();
    let unit = c.eat_word_table(UNITS);
    c.skip_ws();
    match unit {
        Some(unit) if c.eat_word("ago") => Some((unit, n)),
        _ => {
            c.pos = save;
            None
        }
    }
}

/// in N days|weeks|months|years, N days later, N days from now. Returns (unit, n).
pub(crate) fn later(c: &mut Cursor) -> Option<(Unit, u32)> {
    let save = c.pos;
    let opened = eat_phrase(c, "in") || eat_phrase(c, "after");
    c.skip_ws();
    let read = count(c).and_then(|n| {
        c.skip_ws();
        Some((c.eat_word_table(UNITS)?, n))
    });
    let Some(read) = read else {
        c.pos = save;
        return None;
    };
    if opened {
        return Some(read);
    }
    c.skip_ws();
    if eat_phrase(c, "later") || eat_phrase(c, "from now") {
        return Some(read);
    }
    c.pos = save;
    None
}

/// Hour and minute units in English.
const SMALL_UNITS: &[(&str, u32)] = &[
    ("hours", 3600),
    ("hour", 3600),
    ("hrs", 3600),
    ("hr", 3600),
    ("minutes", 60),
    ("minute", 60),
    ("mins", 60),
    ("min", 60),
    ("seconds", 1),
    ("second", 1),
];

/// N hours ago, in N minutes, N hours later: the day that many seconds away, as (seconds, sign).
pub(crate) fn hours_away(c: &mut Cursor) -> Option<(u64, i64)> {
    let save = c.pos;
    let opened = eat_phrase(c, "in") || eat_phrase(c, "after");
    c.skip_ws();
    let read = count(c).and_then(|n| {
        c.skip_ws();
        Some(u64::from(c.eat_word_table(SMALL_UNITS)?) * u64::from(n))
    });
    let Some(seconds) = read else {
        c.pos = save;
        return None;
    };
    if opened {
        return Some((seconds, 1));
    }
    c.skip_ws();
    if c.eat_word("ago") {
        return Some((seconds, -1));
    }
    if eat_phrase(c, "later") || eat_phrase(c, "from now") {
        return Some((seconds, 1));
    }
    c.pos = save;
    None
}

/// To-date words: ytd, year to date, mtd, month-to-date, qtd, wtd.
const TO_DATE: &[(&str, Unit)] = &[
    ("ytd", Unit::Year),
    ("year to date", Unit::Year),
    ("mtd", Unit::Month),
    ("month to date", Unit::Month),
    ("qtd", Unit::Quarter),
    ("quarter to date", Unit::Quarter),
    ("wtd", Unit::Week),
    ("week to date", Unit::Week),
];

/// ytd, year to date …: the unit whose current period runs to today.
pub(crate) fn to_date(c: &mut Cursor) -> Option<Unit> {
    eat_phrase_table(c, TO_DATE)
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;

    use crate::time::scan_times;

    #[test]
    fn a_year_after_a_preposition_is_that_year() {
        for (question, words) in [
            ("amount by channel in 2025", "in 2025"),
            ("revenue for 2024 by plan", "for 2024"),
            ("orders during 1999", "during 1999"),
        ] {
            let times = scan_times(question, date(2026, 11, 29));
            assert_eq!(times.len(), 1, "{question}: {times:?}");
            assert_eq!(&question[times[0].range.clone()], words, "{question}");
            let year: i16 = words[words.len() - 4..].parse().unwrap();
            assert_eq!(times[0].date_range.start, date(year, 1, 1), "{question}");
            assert_eq!(times[0].date_range.end, date(year, 12, 31), "{question}");
        }
    }

    #[test]
    fn other_numbers_after_a_preposition_are_no_year() {
        for question in ["orders in 2500", "top 5 for 20255", "in 1850 units", "in 3 days"] {
            let times = scan_times(question, date(2026, 11, 29));
            assert!(
                times.iter().all(|t| !question[t.range.clone()].starts_with("in 2")),
                "{question}: {times:?}"
            );
            assert!(
                times
                    .iter()
                    .all(|t| t.date_range.start.year() != 2500 && t.date_range.start.year() != 1850),
                "{question}: {times:?}"
            );
        }
    }
}
