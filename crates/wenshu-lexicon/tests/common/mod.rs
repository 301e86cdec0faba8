//! Shared by the time-expression test files: the two "today"s and a checker reporting every failure at once.

use jiff::civil::Date;
use wenshu_lexicon::time::parse_date_range;

/// 2026-11-29, a Sunday.
pub const SUNDAY: &str = "2026-11-29";
/// 2013-02-12, a Tuesday.
pub const TUESDAY: &str = "2013-02-12";

/// Checks every (today, text, start, end) case and reports all failures at once.
pub fn check(cases: &[(&str, &str, &str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(today, text, start, end)| {
            let today: Date = today.parse().expect("today");
            let expected = format!("{start}..{end}");
            let got = parse_date_range(text, today)
                .map(|r| r.to_string())
                .unwrap_or_else(|e| e.to_string());
            (got != expected).then(|| format!("{text} (today {today}): expected {expected}, got {got}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
