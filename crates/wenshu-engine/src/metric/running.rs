//! A comparison of a period that is still running compares the same days. 本月环比 on 11-29 compares 11-01..11-29
//! with 10-01..10-29, not the whole month (whose last day has not come) with a whole October; 今年同比 compares
//! 2026-01-01..11-29 with 2025-01-01..11-29; 本季度环比 10-01..11-29 with 07-01..08-29 (the lexicon's comparison
//! periods of a part of a period from its first day). A closed period compares whole periods, as written.

use jiff::civil::Date;
use serde_json::{Map, Value, json};
use wenshu_contract::metric::CompareKind;

use super::dates::{other_range, parse_day};

/// What was changed, for the answer: the day the running period was cut at (both periods are in 理解为).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SameDays {
    /// The last day compared (today).
    pub through: Date,
}

impl SameDays {
    /// The note the answer carries, in Chinese: 截至 2026-11-29，与同期对比.
    pub fn zh(&self) -> String {
        format!("截至 {}，与同期对比", self.through)
    }

    /// The note in English.
    pub fn en(&self) -> String {
        format!("through {}, against the same days", self.through)
    }
}

/// A metric call's arguments with a comparison of a running period (one holding `today` and ending after it) cut
/// at `today`, and the other period set to the same days; `None` (and the arguments unchanged) for a call without
/// a derived comparison or over a closed period.
pub fn same_days(arguments: &mut Map<String, Value>, today: Date) -> Option<SameDays> {
    let compare = arguments.get("compare")?;
    if compare.get("range").is_some_and(|r| !r.is_null()) {
        return None;
    }
    let kind: CompareKind = serde_json::from_value(compare.get("kind")?.clone()).ok()?;
    let range = arguments.get("timeRange")?;
    let start = parse_day(range.get("start")?.as_str()?)?;
    let end = parse_day(range.get("end")?.as_str()?)?;
    if !(start <= today && today < end) {
        return None;
    }
    let (first, through) = (start.to_string(), today.to_string());
    let other = other_range(kind, &first, &through)?;
    arguments.insert("timeRange".into(), json!({"start": first, "end": through}));
    // The comparison keeps what else it says (a ranking by the change).
    let mut compare = arguments.get("compare").cloned().unwrap_or_else(|| json!({}));
    compare["kind"] = json!(kind);
    compare["range"] = json!({"start": other.0, "end": other.1});
    arguments.insert("compare".into(), compare);
    Some(SameDays { through: today })
}

/// Whether a call compares a period cut at `today` (by [`same_days`], or so written) with another one: the note
/// its answer carries.
pub fn compared_through(arguments: &Map<String, Value>, today: Date) -> Option<SameDays> {
    arguments.get("compare")?;
    let end = arguments.get("timeRange")?.get("end")?.as_str()?;
    (parse_day(end)? == today).then_some(SameDays { through: today })
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;

    use super::*;

    fn call(start: &str, end: &str, kind: &str) -> Map<String, Value> {
        let value = json!({"measures": [{"name": "销售额"}], "timeRange": {"start": start, "end": end},
            "compare": {"kind": kind}});
        value.as_object().cloned().unwrap_or_default()
    }

    fn cut(start: &str, end: &str, kind: &str) -> Option<(Value, Value)> {
        let mut args = call(start, end, kind);
        same_days(&mut args, date(2026, 11, 29))?;
        Some((args["timeRange"].clone(), args["compare"]["range"].clone()))
    }

    #[test]
    fn a_running_period_compares_the_same_days() {
        let month = cut("2026-11-01", "2026-11-30", "previous_period");
        assert_eq!(
            month,
            Some((
                json!({"start": "2026-11-01", "end": "2026-11-29"}),
                json!({"start": "2026-10-01", "end": "2026-10-29"})
            ))
        );
        let year = cut("2026-01-01", "2026-12-31", "year_over_year");
        assert_eq!(
            year.map(|(_, other)| other),
            Some(json!({"start": "2025-01-01", "end": "2025-11-29"}))
        );
        let quarter = cut("2026-10-01", "2026-12-31", "previous_period");
        assert_eq!(
            quarter.map(|(_, other)| other),
            Some(json!({"start": "2026-07-01", "end": "2026-08-29"}))
        );
    }

    #[test]
    fn a_comparison_cut_at_today_carries_its_note() {
        let today = date(2026, 11, 29);
        let mut args = call("2026-11-01", "2026-11-30", "previous_period");
        assert_eq!(compared_through(&args, today), None);
        same_days(&mut args, today);
        assert_eq!(compared_through(&args, today), Some(SameDays { through: today }));
        assert_eq!(
            compared_through(&call("2026-10-01", "2026-10-31", "year_over_year"), today),
            None
        );
    }

    #[test]
    fn a_closed_period_or_a_named_one_is_left_as_written() {
        assert_eq!(cut("2026-10-01", "2026-10-31", "previous_period"), None);
        // A week ending today has run its course.
        assert_eq!(cut("2026-11-23", "2026-11-29", "previous_period"), None);
        let mut named = call("2026-11-01", "2026-11-30", "previous_period");
        named["compare"]["range"] = json!({"start": "2025-11-01", "end": "2025-11-30"});
        let before = named.clone();
        assert_eq!(same_days(&mut named, date(2026, 11, 29)), None);
        assert_eq!(named, before);
        let mut plain = call("2026-11-01", "2026-11-30", "previous_period");
        plain.remove("compare");
        assert_eq!(same_days(&mut plain, date(2026, 11, 29)), None);
    }
}
