//! Scanning whole sentences: every time expression and numeral, with byte ranges into the text.

use jiff::civil::{Date, date};
use wenshu_lexicon::numeral::scan_numbers;
use wenshu_lexicon::time::scan_times;
use wenshu_lexicon::{SpanValue, scan};

const TODAY: Date = date(2026, 11, 29);

/// The (text, start..end) of every time expression found.
fn times(text: &str) -> Vec<(String, String)> {
    scan_times(text, TODAY)
        .into_iter()
        .map(|s| (text[s.range].to_string(), s.date_range.to_string()))
        .collect()
}

#[test]
fn time_expressions_in_sentences() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("华东区本月的销售额是多少", &[("本月", "2026-11-01..2026-11-30")]),
        ("上季度企业版的销售排名前五", &[("上季度", "2026-07-01..2026-09-30")]),
        (
            "《流浪地球2》最近7天的每日票房",
            &[("最近7天", "2026-11-23..2026-11-29")],
        ),
        ("封神第二部十月份的票房", &[("十月份", "2026-10-01..2026-10-31")]),
        ("和去年同期比如何", &[("去年", "2025-01-01..2025-12-31")]),
        ("2024年寒假的客流和端午假期比", &[]),
        ("去年暑假卖了多少", &[]),
        ("目前的库存和现在的价格", &[]),
        (
            "国庆假期和春节档的票房",
            &[
                ("国庆假期", "2026-10-01..2026-10-07"),
                ("春节档", "2026-02-16..2026-02-22"),
            ],
        ),
        (
            "這個月和上個月的對比",
            &[
                ("這個月", "2026-11-01..2026-11-30"),
                ("上個月", "2026-10-01..2026-10-31"),
            ],
        ),
        (
            "从3月1日到3月5日的订单",
            &[("从3月1日到3月5日", "2026-03-01..2026-03-05")],
        ),
        (
            "sales in the last 7 days vs last month",
            &[
                ("in the last 7 days", "2026-11-23..2026-11-29"),
                ("last month", "2026-10-01..2026-10-31"),
            ],
        ),
        (
            "2025年Q4和2026年Q1",
            &[
                ("2025年Q4", "2025-10-01..2025-12-31"),
                ("2026年Q1", "2026-01-01..2026-03-31"),
            ],
        ),
        ("上周一共卖了多少", &[("上周", "2026-11-16..2026-11-22")]),
        ("查一下订单 ord_123 的状态", &[]),
        ("year = 2023 的电影", &[]),
        ("2月30日的数据", &[]),
    ];
    for (text, expected) in cases {
        let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(times(text), expected, "{text}");
    }
}

#[test]
fn a_numeral_starting_a_word_is_no_day() {
    let october = "2026-10-01..2026-10-31";
    let november = "2026-11-01..2026-11-30";
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("上个月一共卖了多少套", &[("上个月", october)]),
        ("本月一共成交了多少单", &[("本月", november)]),
        ("这个月一共有多少销售额", &[("这个月", november)]),
        ("上个月一直在涨吗", &[("上个月", october)]),
        ("本月一笔订单最多多少钱", &[("本月", november)]),
        ("上个月一样多吗", &[("上个月", october)]),
        ("本月一起下单的客户", &[("本月", november)]),
        ("上个月三成的订单", &[("上个月", october)]),
        ("十月一共多少单", &[("十月", october)]),
        ("10月一直在涨吗", &[("10月", october)]),
        ("十月一下单的有多少", &[("十月", october)]),
        ("去年五一一共卖了多少", &[("去年五一", "2025-05-01..2025-05-01")]),
        ("去年双十一一共多少单", &[("去年双十一", "2025-11-11..2025-11-11")]),
        ("去年十一一直在涨吗", &[("去年十一", "2025-10-01..2025-10-01")]),
        // An explicit day keeps its reading.
        ("上个月1号卖了多少", &[("上个月1号", "2026-10-01..2026-10-01")]),
        ("十月一日的销售额", &[("十月一日", "2026-10-01..2026-10-01")]),
        ("三月三的销售额", &[("三月三", "2026-03-03..2026-03-03")]),
        ("十月一到十月七的销量", &[("十月一到十月七", "2026-10-01..2026-10-07")]),
        ("6月3卖了多少", &[("6月3", "2026-06-03..2026-06-03")]),
    ];
    for (text, expected) in cases {
        let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(times(text), expected, "{text}");
    }
}

#[test]
fn a_period_cut_at_an_end_is_one_narrower_span() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "今年截至上个月底的销售额",
            &[("今年截至上个月底", "2026-01-01..2026-10-31")],
        ),
        ("今年截止到昨天的订单", &[("今年截止到昨天", "2026-01-01..2026-11-28")]),
        ("本月截至今天的销量", &[("本月截至今天", "2026-11-01..2026-11-29")]),
        (
            "今年到上个月底的销售额",
            &[("今年到上个月底", "2026-01-01..2026-10-31")],
        ),
        // An end outside the period would widen it: nothing is reported.
        ("上个月截至今天的销量", &[]),
        (
            "去年双十一当天的销售额",
            &[("去年双十一当天", "2025-11-11..2025-11-11")],
        ),
    ];
    for (text, expected) in cases {
        let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(times(text), expected, "{text}");
    }
}

#[test]
fn glued_words_that_change_the_dates_leave_no_span() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("国庆之后的销量", &[]),
        ("国庆前的订单", &[]),
        ("春节前后的票房", &[]),
        ("上个月第二天的销售额", &[]),
        ("今年第三个季度的销量", &[("今年第三个季度", "2026-07-01..2026-09-30")]),
        ("今年第三个月的销量", &[("今年第三个月", "2026-03-01..2026-03-31")]),
        ("本月第六周的订单", &[]),
        ("本季度第三周的订单", &[]),
        ("上个月头三天卖了多少", &[]),
        ("今年年中的库存", &[]),
        // Ordinary words after a date keep it.
        ("上个月前五名的销售", &[("上个月", "2026-10-01..2026-10-31")]),
        ("今年第一单是谁签的", &[("今年", "2026-01-01..2026-12-31")]),
        ("今年中国区的销量", &[("今年", "2026-01-01..2026-12-31")]),
        ("本月日均订单量", &[("本月", "2026-11-01..2026-11-30")]),
    ];
    for (text, expected) in cases {
        let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(times(text), expected, "{text}");
    }
}

#[test]
fn holiday_periods_in_sentences() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("国庆期间的销售额", &[("国庆期间", "2026-10-01..2026-10-07")]),
        ("国庆节期间的销售额", &[("国庆节期间", "2026-10-01..2026-10-07")]),
        ("十一期间卖了多少", &[("十一期间", "2026-10-01..2026-10-07")]),
        ("五一期间的订单", &[("五一期间", "2026-05-01..2026-05-05")]),
        ("去年五一长假的订单", &[("去年五一长假", "2025-05-01..2025-05-05")]),
        ("春节期间的票房", &[("春节期间", "2026-02-16..2026-02-22")]),
        ("国庆小长假的票房", &[("国庆小长假", "2026-10-01..2026-10-07")]),
        // No fixed week in the table: refused, never the single day or the whole year.
        ("中秋期间的销售额", &[]),
        ("2025年中秋期间的销售额", &[]),
        ("元旦假期的销售额", &[]),
    ];
    for (text, expected) in cases {
        let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(times(text), expected, "{text}");
    }
}

#[test]
fn numerals_in_sentences() {
    let text = "今年票房最高的十部电影，前20名，每部1.5万张票，共3,000条";
    let values: Vec<f64> = scan_numbers(text).iter().map(|s| s.value).collect();
    assert_eq!(values, vec![10.0, 20.0, 15000.0, 3000.0]);
}

#[test]
fn combined_scan_is_sorted_and_disjoint() {
    let text = "最近30天华东区排名前十的销售，和2025年3月比";
    let spans = scan(text, TODAY);
    let got: Vec<&str> = spans.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(got, vec!["最近30天", "前十", "2025年3月"]);
    for pair in spans.windows(2) {
        assert!(pair[0].range.end <= pair[1].range.start);
    }
    assert!(matches!(spans[1].value, SpanValue::Number(v) if v == 10.0));
}

#[test]
fn weeks_of_a_month_and_of_a_year_in_a_sentence() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("本月第一周的订单", &[("本月第一周", "2026-11-02..2026-11-08")]),
        (
            "上个月最后一周卖了多少",
            &[("上个月最后一周", "2026-10-26..2026-11-01")],
        ),
        ("十月第二周和第三周的销量", &[("十月第二周", "2026-10-12..2026-10-18")]),
        ("2026年第10周的订单量", &[("2026年第10周", "2026-03-02..2026-03-08")]),
        // A bare 第N周 in a sentence may count from anything (上线第二周): not a date.
        ("上线第二周的销量", &[]),
        ("第三周年的活动", &[]),
    ];
    for (text, expected) in cases {
        let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(times(text), expected, "{text}");
    }
}
