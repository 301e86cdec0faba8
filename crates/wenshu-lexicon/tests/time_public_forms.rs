//! Forms found in the public test suites of Chinese time parsers, family by family; today is
//! 2026-11-29 (a Sunday) or 2013-02-12 (a Tuesday).

mod common;

use common::{SUNDAY, TUESDAY, check};
use jiff::civil::Date;
use wenshu_lexicon::time::parse_date_range;

/// Every text must be refused, and the error must name the words not understood.
fn refused(cases: &[(&str, &str)]) {
    let today: Date = SUNDAY.parse().expect("today");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(text, named)| match parse_date_range(text, today) {
            Ok(r) => Some(format!("{text}: read as {r}")),
            Err(e) if !e.to_string().contains(named) => Some(format!("{text}: error does not name {named}: {e}")),
            Err(_) => None,
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn never_a_wider_or_other_range() {
    refused(&[
        ("以色列国庆节", "以色列"),
        ("美国国庆节", "美国"),
        ("2024年寒假", "寒假"),
        ("去年同期", "同期"),
        ("国庆节前后", "前后"),
        ("2024年春", "春"),
        ("农历", "农历"),
        ("2024年农历", "农历"),
        ("十几天前", ""),
        ("三天左右前", ""),
    ]);
}

#[test]
fn solar_terms_and_easter() {
    check(&[
        (SUNDAY, "2024年冬至", "2024-12-21", "2024-12-21"),
        (SUNDAY, "冬至", "2026-12-22", "2026-12-22"),
        (SUNDAY, "今年立春", "2026-02-04", "2026-02-04"),
        (SUNDAY, "2025年清明", "2025-04-04", "2025-04-04"),
        (SUNDAY, "1990年清明节", "1990-04-05", "1990-04-05"),
        (SUNDAY, "去年夏至", "2025-06-21", "2025-06-21"),
        (SUNDAY, "复活节", "2026-04-05", "2026-04-05"),
        (SUNDAY, "复活节星期一", "2026-04-06", "2026-04-06"),
        (SUNDAY, "2024年复活节", "2024-03-31", "2024-03-31"),
    ]);
}

#[test]
fn lunar_calendar() {
    check(&[
        (SUNDAY, "农历正月初五", "2026-02-21", "2026-02-21"),
        (SUNDAY, "正月初五", "2026-02-21", "2026-02-21"),
        (SUNDAY, "阴历八月十五", "2026-09-25", "2026-09-25"),
        (SUNDAY, "2025年农历八月十五", "2025-10-06", "2025-10-06"),
        (SUNDAY, "农历2024年腊月二十三", "2025-01-22", "2025-01-22"),
        (SUNDAY, "腊月", "2026-01-19", "2026-02-16"),
        (SUNDAY, "农历三月", "2026-04-17", "2026-05-16"),
        (SUNDAY, "2023年闰二月", "2023-03-22", "2023-04-19"),
        (SUNDAY, "2020年农历闰四月初一", "2020-05-23", "2020-05-23"),
        (SUNDAY, "农历二〇二五年正月十五", "2025-02-12", "2025-02-12"),
        (SUNDAY, "农历正月初一到正月十五", "2026-02-17", "2026-03-03"),
        (SUNDAY, "1988年春节", "1988-02-17", "1988-02-17"),
        (SUNDAY, "2050年中秋节", "2050-09-30", "2050-09-30"),
        (SUNDAY, "腊八节", "2026-01-26", "2026-01-26"),
        (SUNDAY, "2040年端午", "2040-06-14", "2040-06-14"),
    ]);
}

#[test]
fn holiday_periods() {
    check(&[
        (SUNDAY, "春节假期", "2026-02-16", "2026-02-22"),
        (SUNDAY, "2025年春节档", "2025-01-28", "2025-02-03"),
        (SUNDAY, "国庆假期", "2026-10-01", "2026-10-07"),
        (SUNDAY, "去年国庆档", "2025-10-01", "2025-10-07"),
        (TUESDAY, "国庆", "2013-10-01", "2013-10-01"),
    ]);
}
