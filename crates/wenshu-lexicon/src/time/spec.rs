//! A point in time as the fields a phrase names (year, quarter, month, day, week, weekday …),
//! and how those fields resolve to one closed date range.

use jiff::civil::Date;

use super::calendar::{self, Unit, date};
use super::{DateRange, TimeKind};

/// A part of a period picked out by 初/底/旬.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edge {
    /// The first day (年初, 月初).
    Start,
    /// The last day (年底, 月末).
    End,
    /// A ten-day part of a month: 1 上旬, 2 中旬, 3 下旬.
    Xun(u8),
    /// A half of a month: 1 上半月 (1st–15th), 2 下半月 (16th–end).
    HalfMonth(u8),
}

/// The fields a point expression names; unnamed ones are filled from today or an anchor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Spec {
    /// Calendar year.
    pub year: Option<i32>,
    /// The year was a bare number such as "2025" (no 年), weak evidence in a sentence.
    pub bare_year: bool,
    /// Half year, 1 or 2.
    pub half: Option<u8>,
    /// Quarter, 1..=4.
    pub quarter: Option<u8>,
    /// Month, 1..=12.
    pub month: Option<u8>,
    /// Day of month, 1..=31.
    pub day: Option<u8>,
    /// The Monday of a named week (上周).
    pub week: Option<Date>,
    /// Day of week, 1 = Monday ..= 7 = Sunday.
    pub weekday: Option<u8>,
    /// The weekend (Saturday and Sunday).
    pub weekend: bool,
    /// A part of the period (初, 底, 上旬).
    pub edge: Option<Edge>,
    /// The first N units of the period (今年前三季度), or the last N when `from_end` (上月最后五天).
    pub first: Option<(Unit, u32)>,
    /// `first` counts from the end of the period.
    pub from_end: bool,
    /// A time of day was read (下午三点); it does not change the date.
    pub clock: bool,
    /// The named day opens a holiday of this many days (国庆假期: 7).
    pub span: Option<u8>,
    /// A range of times of day that runs past midnight (晚上10点到凌晨2点): the day named and the next.
    pub overnight: bool,
    /// Days already resolved by another calendar (农历正月初五); only a year may go with them.
    pub fixed: Option<DateRange>,
}

/// What the unnamed fields are resolved against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx {
    /// Today's date.
    pub today: Date,
    /// The start of the left side of a range, for the right side's missing fields (3月1日到5日).
    pub anchor: Option<Date>,
    /// Parsing a whole expression (bare years and M/D allowed) rather than scanning a sentence.
    pub whole: bool,
}

/// Joins two optional fields; None when both are set.
fn join<T: Copy>(a: Option<T>, b: Option<T>) -> Result<Option<T>, ()> {
    match (a, b) {
        (Some(_), Some(_)) => Err(()),
        (x, None) | (None, x) => Ok(x),
    }
}

impl Spec {
    /// Whether no date field is set.
    pub fn is_empty(&self) -> bool {
        self.date_fields() == 0 && !self.clock
    }

    /// How many date fields are set.
    pub fn date_fields(&self) -> usize {
        [
            self.year.is_some(),
            self.half.is_some(),
            self.quarter.is_some(),
            self.month.is_some(),
            self.day.is_some(),
            self.week.is_some(),
            self.weekday.is_some(),
            self.weekend,
            self.edge.is_some(),
            self.first.is_some(),
            self.fixed.is_some(),
        ]
        .iter()
        .filter(|set| **set)
        .count()
    }

    /// Combines two specs; None when they name the same field twice or cannot go together.
    pub fn merge(&self, other: &Spec) -> Option<Spec> {
        // 2015年3月3日星期二: a weekday after a full date adds nothing.
        let weekday_only = Spec {
            weekday: other.weekday,
            ..Spec::default()
        } == *other
            && other.weekday.is_some();
        if weekday_only && self.day.is_some() && self.month.is_some() && !self.clock {
            return Some(*self);
        }
        if self.weekend && other.weekend || self.clock && other.clock {
            return None;
        }
        let m = Spec {
            year: join(self.year, other.year).ok()?,
            bare_year: if self.year.is_some() {
                self.bare_year
            } else {
                other.bare_year
            },
            half: join(self.half, other.half).ok()?,
            quarter: join(self.quarter, other.quarter).ok()?,
            month: join(self.month, other.month).ok()?,
            day: join(self.day, other.day).ok()?,
            week: join(self.week, other.week).ok()?,
            weekday: join(self.weekday, other.weekday).ok()?,
            weekend: self.weekend || other.weekend,
            edge: join(self.edge, other.edge).ok()?,
            first: join(self.first, other.first).ok()?,
            from_end: self.from_end || other.from_end,
            clock: self.clock || other.clock,
            overnight: self.overnight || other.overnight,
            span: join(self.span, other.span).ok()?,
            fixed: join(self.fixed, other.fixed).ok()?,
        };
        // A time of day ends a point: nothing but a time of day may follow it.
        if self.clock && other.date_fields() > 0 {
            return None;
        }
        m.coherent().then_some(m)
    }

    /// Whether the fields can describe one period.
    fn coherent(&self) -> bool {
        let calendar = self.year.is_some()
            || self.half.is_some()
            || self.quarter.is_some()
            || self.month.is_some()
            || self.day.is_some();
        let weekly = self.week.is_some() || self.weekday.is_some() || self.weekend;
        let sub_year = [self.half.is_some(), self.quarter.is_some(), self.month.is_some()]
            .iter()
            .filter(|set| **set)
            .count();
        let day_without_month = self.day.is_some()
            && self.month.is_none()
            && (self.year.is_some() || self.half.is_some() || self.quarter.is_some());
        let refined = self.edge.is_some() || self.first.is_some();
        let refines_nothing =
            refined && self.date_fields() == usize::from(self.edge.is_some()) + usize::from(self.first.is_some());
        let over_refined =
            self.edge.is_some() && self.first.is_some() || (self.first.is_some() && (self.day.is_some() || weekly));
        let mixed = calendar && weekly || self.weekday.is_some() && self.weekend;
        let fixed_alone = self.fixed.is_none()
            || self.date_fields() == 1 + usize::from(self.year.is_some()) + usize::from(self.month.is_some())
                && self.edge.is_none();
        fixed_alone && !mixed && sub_year <= 1 && !day_without_month && !refines_nothing && !over_refined
    }

    /// The single day, week or period the fields name, and its kind; None when impossible (2月30日).
    pub fn resolve(&self, ctx: &Ctx) -> Option<(DateRange, TimeKind)> {
        let (base, kind) = self.base(ctx)?;
        if self.overnight {
            // 晚上10点到凌晨2点: a single day and the next; a longer period with it is no reading.
            return (base.start == base.end && self.edge.is_none() && self.first.is_none()).then(|| {
                let end = calendar::add(base.end, Unit::Day, 1)?;
                Some((DateRange { start: base.start, end }, TimeKind::Range))
            })?;
        }
        let (range, kind) = match self.first {
            Some((unit, n)) if self.from_end => (calendar::last_units(base, unit, i64::from(n))?, TimeKind::Range),
            Some((unit, n)) => (calendar::first_units(base, unit, i64::from(n))?, TimeKind::Range),
            None => (base, kind),
        };
        match self.edge {
            None => Some((range, kind)),
            Some(Edge::Start) => Some((
                DateRange {
                    start: range.start,
                    end: range.start,
                },
                TimeKind::Day,
            )),
            Some(Edge::End) => Some((
                DateRange {
                    start: range.end,
                    end: range.end,
                },
                TimeKind::Day,
            )),
            Some(Edge::Xun(k)) => month_part(range, kind, 10 * i64::from(k) - 10, 10, k >= 3),
            Some(Edge::HalfMonth(k)) => month_part(range, kind, 15 * i64::from(k) - 15, 15, k >= 2),
        }
    }

    /// The period before first-N and edge refinements.
    fn base(&self, ctx: &Ctx) -> Option<(DateRange, TimeKind)> {
        if let Some(range) = self.fixed {
            let kind = if range.start == range.end {
                TimeKind::Day
            } else {
                TimeKind::Range
            };
            return Some((range, kind));
        }
        let today = ctx.today;
        let anchor = ctx.anchor.unwrap_or(today);
        if self.week.is_some() || self.weekday.is_some() || self.weekend {
            let monday = match self.week {
                Some(m) => m,
                None => calendar::period_start(anchor, Unit::Week)?,
            };
            return if let Some(w) = self.weekday {
                let d = calendar::add(monday, Unit::Day, i64::from(w) - 1)?;
                Some((DateRange { start: d, end: d }, TimeKind::Day))
            } else if self.weekend {
                let start = calendar::add(monday, Unit::Day, 5)?;
                let end = calendar::add(monday, Unit::Day, 6)?;
                Some((DateRange { start, end }, TimeKind::Range))
            } else {
                Some((calendar::period_from(monday, Unit::Week)?, TimeKind::Week))
            };
        }
        if let Some(d) = self.day {
            let day = match self.month {
                Some(m) => {
                    let y = self.year.unwrap_or(self.latest_year(ctx, Unit::Month, m)?);
                    date(y, i32::from(m), i32::from(d))?
                }
                None => latest_day(ctx, d)?,
            };
            return match self.span {
                Some(n) if n > 1 => {
                    let end = calendar::add(day, Unit::Day, i64::from(n) - 1)?;
                    Some((DateRange { start: day, end }, TimeKind::Range))
                }
                _ => Some((DateRange { start: day, end: day }, TimeKind::Day)),
            };
        }
        let (unit, index, kind) = if let Some(m) = self.month {
            (Unit::Month, m, TimeKind::Month)
        } else if let Some(q) = self.quarter {
            (Unit::Quarter, q, TimeKind::Quarter)
        } else if let Some(h) = self.half {
            (Unit::Half, h, TimeKind::HalfYear)
        } else if let Some(y) = self.year {
            if self.bare_year && !ctx.whole {
                return None;
            }
            return Some((calendar::period_containing(date(y, 1, 1)?, Unit::Year)?, TimeKind::Year));
        } else if self.clock {
            let day = match ctx.anchor {
                Some(a) => a,
                None if ctx.whole => today,
                None => return None,
            };
            return Some((DateRange { start: day, end: day }, TimeKind::Day));
        } else {
            return None;
        };
        let year = match self.year {
            Some(y) => y,
            None if unit == Unit::Half => i32::from(anchor.year()),
            None => self.latest_year(ctx, unit, index)?,
        };
        let months_per = match unit {
            Unit::Quarter => 3,
            Unit::Half => 6,
            _ => 1,
        };
        let start = date(year, (i32::from(index) - 1) * months_per + 1, 1)?;
        Some((calendar::period_from(start, unit)?, kind))
    }

    /// The year of an unnamed-year month or quarter: the anchor's, else the latest one already started.
    fn latest_year(&self, ctx: &Ctx, unit: Unit, index: u8) -> Option<i32> {
        if let Some(a) = ctx.anchor {
            return Some(i32::from(a.year()));
        }
        let today = ctx.today;
        let current = match unit {
            Unit::Quarter => (today.month() - 1) / 3 + 1,
            _ => today.month(),
        };
        let year = i32::from(today.year());
        Some(if i8::try_from(index).ok()? <= current {
            year
        } else {
            year - 1
        })
    }
}

/// The part of a month starting `offset` days in, `len` days long or running to its end when `last`.
fn month_part(month: DateRange, kind: TimeKind, offset: i64, len: i64, last: bool) -> Option<(DateRange, TimeKind)> {
    if kind != TimeKind::Month {
        return None;
    }
    let start = calendar::add(month.start, Unit::Day, offset)?;
    let end = if last {
        month.end
    } else {
        calendar::add(start, Unit::Day, len - 1)?
    };
    Some((DateRange { start, end }, TimeKind::Range))
}

/// The day `d` of the anchor's month, or of the latest month where that day has already come.
fn latest_day(ctx: &Ctx, d: u8) -> Option<Date> {
    if let Some(a) = ctx.anchor {
        return date(i32::from(a.year()), i32::from(a.month()), i32::from(d));
    }
    let today = ctx.today;
    (0..13).find_map(|back| {
        let month = calendar::add(today.first_of_month(), Unit::Month, -back)?;
        date(i32::from(month.year()), i32::from(month.month()), i32::from(d)).filter(|day| *day <= today)
    })
}
