//! Words naming a kind of day rather than a period (工作日, 节假日, weekend).

/// Words naming a kind of day rather than a period (general Chinese and English), longest first.
pub const DAY_KINDS: &[&str] = &[
    "法定节假日",
    "节假日",
    "双休日",
    "工作日",
    "休息日",
    "周末",
    "假日",
    "平日",
    "business days",
    "business day",
    "weekends",
    "weekend",
    "weekdays",
    "weekday",
    "workdays",
    "workday",
    "holidays",
];

/// Words asking for the day of the week (按星期几, by day of the week): a grouping by it, never by week.
pub const WEEKDAY_WORDS: &[&str] = &["星期几", "周几", "礼拜几", "day of the week", "day of week"];

/// A kind of day a metric can keep: weekends (Saturday, Sunday) or working days (Monday to Friday).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KindOfDay {
    /// 周末, 双休日, 休息日, weekend.
    Weekend,
    /// 工作日, 平日, weekday, workday, business day.
    Workday,
}

/// The kind of day a word of [`DAY_KINDS`] names, when it is one of the two the calendar alone tells (holidays are
/// not: they need a holiday calendar).
pub fn kind_of_day(word: &str) -> Option<KindOfDay> {
    let w = word.to_ascii_lowercase();
    match w.as_str() {
        "周末" | "双休日" | "休息日" | "weekend" | "weekends" => Some(KindOfDay::Weekend),
        "工作日" | "平日" | "weekday" | "weekdays" | "workday" | "workdays" | "business day" | "business days" => {
            Some(KindOfDay::Workday)
        }
        _ => None,
    }
}

/// Whether a grouping's word asks for the day of the week (星期几, 周几).
pub fn asks_weekday(word: &str) -> bool {
    let w = word.trim().to_ascii_lowercase();
    WEEKDAY_WORDS.iter().any(|d| w == *d)
}

/// Every word of [`DAY_KINDS`] in `question` that no time span covers (上周末 is a period, not a kind of day), with
/// its byte range: the longest at each place, ASCII words whole.
pub fn day_kind_words(question: &str, spans: &[crate::Span]) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let q = question.to_ascii_lowercase();
    let mut out: Vec<(std::ops::Range<usize>, &'static str)> = Vec::new();
    for word in DAY_KINDS {
        for (at, _) in q.match_indices(word) {
            let range = at..at + word.len();
            let overlaps = |r: &std::ops::Range<usize>| r.start < range.end && range.start < r.end;
            let in_time = spans
                .iter()
                .any(|s| matches!(s.kind, crate::SpanKind::Time(_)) && overlaps(&s.range));
            let whole = !word.is_ascii()
                || (!q[..at].ends_with(|c: char| c.is_ascii_alphanumeric())
                    && !q[range.end..].starts_with(|c: char| c.is_ascii_alphanumeric()));
            if !in_time && whole && !out.iter().any(|(r, _)| overlaps(r)) {
                out.push((range, word));
            }
        }
    }
    out
}
