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
