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
