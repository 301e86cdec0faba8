//! The checks on SQL strings of their own: a small shop's orders, asked on 2025-06-15.

use jiff::civil::date;

use super::*;
use crate::fallback::schema::described_columns;

const SCHEMA: &str = "表 orders(\n  id INTEGER\n  placed_on TEXT\n  city TEXT 取值: Lyon, Porto, 里昂港\n  \
                      total REAL\n  buyer TEXT\n  fee REAL -- 运费\n  state TEXT 取值: MA, NY\n)\n";

fn check(question: &str, sql: &str) -> Vec<Mismatch> {
    check_in(SCHEMA, question, sql, Dialect::Sqlite)
}

fn check_in(schema: &str, question: &str, sql: &str, dialect: Dialect) -> Vec<Mismatch> {
    let facts = QuestionFacts::new(question, date(2025, 6, 15));
    verify(sql, dialect, &facts, &described_columns(schema))
}

fn kinds(found: &[Mismatch]) -> Vec<&'static str> {
    found
        .iter()
        .map(|m| match m {
            Mismatch::Dates { .. } => "dates",
            Mismatch::Value { .. } => "value",
            Mismatch::MissingValue { .. } => "missing_value",
            Mismatch::Alias { .. } => "alias",
            Mismatch::Measure { .. } => "measure",
            Mismatch::PeopleCount { .. } => "people",
        })
        .collect()
}

#[test]
fn a_range_off_by_a_day_is_a_mismatch_naming_the_question_words() {
    let found = check(
        "上个月的订单总额",
        "SELECT SUM(total) FROM orders WHERE placed_on >= '2025-05-02' AND placed_on <= '2025-05-31'",
    );
    assert_eq!(kinds(&found), ["dates"], "{found:?}");
    let text = found[0].to_string();
    assert!(
        text.contains("2025-05-02") && text.contains("上个月") && text.contains("2025-05-01"),
        "{text}"
    );
    // The same month written every usual way is no mismatch.
    for sql in [
        "SELECT SUM(total) FROM orders WHERE placed_on >= '2025-05-01' AND placed_on < '2025-06-01'",
        "SELECT SUM(total) FROM orders WHERE placed_on BETWEEN '2025-05-01' AND '2025-05-31'",
        "SELECT SUM(total) FROM orders WHERE placed_on > '2025-04-30' AND placed_on <= '2025-05-31 23:59:59'",
        "SELECT SUM(total) FROM orders WHERE placed_on LIKE '2025-05%'",
        "SELECT SUM(total) FROM orders WHERE strftime('%Y-%m', placed_on) = '2025-05'",
        "SELECT SUM(total) FROM orders WHERE '2025-05-01' <= placed_on AND placed_on <= date('2025-05-31')",
    ] {
        assert!(
            check("上个月的订单总额", sql).is_empty(),
            "{sql}: {:?}",
            check("上个月的订单总额", sql)
        );
    }
}

#[test]
fn a_wrong_year_is_a_mismatch_in_every_spelling() {
    for sql in [
        "SELECT SUM(total) FROM orders WHERE strftime('%Y', placed_on) = '2023'",
        "SELECT SUM(total) FROM orders WHERE placed_on BETWEEN '2023-01-01' AND '2023-12-31'",
        "SELECT SUM(total) FROM orders WHERE placed_on LIKE '2023%'",
    ] {
        assert_eq!(kinds(&check("2024年的订单总额", sql)), ["dates", "dates"], "{sql}");
    }
    let pg = "SELECT SUM(total) FROM orders WHERE EXTRACT(YEAR FROM placed_on::date) = 2024";
    assert!(check_in(SCHEMA, "2024年的订单总额", pg, Dialect::Postgres).is_empty());
    let pg = "SELECT SUM(total) FROM orders WHERE EXTRACT(YEAR FROM placed_on::date) = 2023";
    assert_eq!(
        kinds(&check_in(SCHEMA, "2024年的订单总额", pg, Dialect::Postgres)).len(),
        2
    );
    // A question with no time expression leaves the dates alone; a number that is no year is no date.
    assert!(
        check(
            "订单总额",
            "SELECT SUM(total) FROM orders WHERE placed_on >= '2023-01-01'"
        )
        .is_empty()
    );
    assert!(
        check(
            "2024年的订单总额",
            "SELECT SUM(total) FROM orders WHERE placed_on LIKE '2024%' AND total > 2023"
        )
        .is_empty()
    );
}

#[test]
fn an_end_cut_at_today_or_a_compared_period_is_no_mismatch() {
    let to_date = "SELECT SUM(total) FROM orders WHERE placed_on BETWEEN '2025-01-01' AND '2025-06-15'";
    assert!(check("今年的订单总额", to_date).is_empty());
    let a_year_earlier = "SELECT SUM(CASE WHEN placed_on >= '2025-06-01' THEN total END), \
                          SUM(CASE WHEN placed_on <= '2024-06-30' THEN total END) FROM orders \
                          WHERE (placed_on BETWEEN '2025-06-01' AND '2025-06-30') OR (placed_on BETWEEN '2024-06-01' AND '2024-06-30')";
    assert!(
        check("本月订单总额同比", a_year_earlier).is_empty(),
        "{:?}",
        check("本月订单总额同比", a_year_earlier)
    );
    // Without a comparison, the year before is a wrong year.
    assert!(!check("本月订单总额", a_year_earlier).is_empty());
}

#[test]
fn filter_values_must_be_the_ones_the_question_names() {
    let q = "Lyon上个月的订单总额";
    let month = "placed_on LIKE '2025-05%'";
    assert!(
        check(
            q,
            &format!("SELECT SUM(total) FROM orders WHERE city = 'Lyon' AND {month}")
        )
        .is_empty()
    );
    let other = check(
        q,
        &format!("SELECT SUM(total) FROM orders WHERE city = 'Porto' AND {month}"),
    );
    assert_eq!(kinds(&other), ["value", "missing_value"], "{other:?}");
    assert!(other[0].to_string().contains("Porto") && other[0].to_string().contains("Lyon"));
    let dropped = check(q, &format!("SELECT SUM(total) FROM orders WHERE {month}"));
    assert_eq!(kinds(&dropped), ["missing_value"]);
    let listed = "SELECT city, SUM(total) FROM orders WHERE city IN ('Lyon', 'Porto') GROUP BY city";
    assert_eq!(kinds(&check("Lyon的订单总额", listed)), ["value"]);
    // A Han value is found inside the sentence; a two-letter Latin value only as a whole word.
    assert_eq!(
        kinds(&check("里昂港的订单总额", "SELECT SUM(total) FROM orders")),
        ["missing_value"]
    );
    assert!(check("how many orders", "SELECT COUNT(*) FROM orders").is_empty());
    assert_eq!(
        kinds(&check("orders from MA", "SELECT COUNT(*) FROM orders")),
        ["missing_value"]
    );
}

#[test]
fn a_measure_the_schema_lacks_is_never_another_column_under_its_name() {
    let q = "上个月的毛利是多少";
    let month = "WHERE placed_on LIKE '2025-05%'";
    let aliased = check(q, &format!("SELECT SUM(total) AS gross_profit FROM orders {month}"));
    assert_eq!(kinds(&aliased), ["alias"], "{aliased:?}");
    let text = aliased[0].to_string();
    assert!(
        text.contains("毛利") && text.contains("gross_profit") && text.contains("没有"),
        "{text}"
    );
    let chinese_alias = check(q, &format!("SELECT SUM(total) AS 毛利 FROM orders {month}"));
    assert_eq!(kinds(&chinese_alias), ["alias"]);
    // Named honestly, it still answers another measure.
    assert_eq!(
        kinds(&check(q, &format!("SELECT SUM(total) AS total FROM orders {month}"))),
        ["measure"]
    );
    // Derived from two columns, it may be that measure.
    assert!(
        check(
            q,
            &format!("SELECT SUM(total - fee) AS gross_profit FROM orders {month}")
        )
        .is_empty()
    );
    // A column of that measure (by its comment) answers it, whatever its output name.
    assert!(check("上个月的运费", &format!("SELECT SUM(fee) AS x FROM orders {month}")).is_empty());
    let wrong = check(
        "上个月的运费",
        &format!("SELECT SUM(total) AS freight FROM orders {month}"),
    );
    assert_eq!(kinds(&wrong), ["alias"]);
    assert!(
        wrong[0].to_string().contains("fee"),
        "names the column of it: {}",
        wrong[0]
    );
    // English, and a question that names no such measure.
    let english = check(
        "total commission in May 2025",
        "SELECT SUM(total) AS commission FROM orders WHERE placed_on LIKE '2025-05%'",
    );
    assert_eq!(kinds(&english), ["alias"], "{english:?}");
    assert!(
        check(
            "上个月的订单总额",
            &format!("SELECT SUM(total) AS profit FROM orders {month}")
        )
        .is_empty()
    );
}

#[test]
fn a_count_of_people_is_a_distinct_count() {
    let q = "上个月有多少位客户下单";
    let month = "WHERE placed_on LIKE '2025-05%'";
    let rows = check(q, &format!("SELECT COUNT(*) AS n FROM orders {month}"));
    assert_eq!(kinds(&rows), ["people"], "{rows:?}");
    assert!(rows[0].to_string().contains("COUNT(DISTINCT"), "{}", rows[0]);
    assert_eq!(
        kinds(&check(q, &format!("SELECT COUNT(buyer) FROM orders {month}"))),
        ["people"]
    );
    assert!(check(q, &format!("SELECT COUNT(DISTINCT buyer) FROM orders {month}")).is_empty());
    assert!(
        check(
            q,
            &format!("SELECT COUNT(*) FROM (SELECT DISTINCT buyer FROM orders {month}) t")
        )
        .is_empty()
    );
    assert!(
        check(
            q,
            &format!("SELECT COUNT(*) FROM (SELECT buyer FROM orders {month} GROUP BY buyer) t")
        )
        .is_empty()
    );
    let english = check(
        "how many customers ordered in May 2025",
        "SELECT COUNT(*) FROM orders WHERE placed_on LIKE '2025-05%'",
    );
    assert_eq!(kinds(&english), ["people"]);
    // A count of orders is a count of rows.
    assert!(check("上个月有多少笔订单", &format!("SELECT COUNT(*) FROM orders {month}")).is_empty());
}

#[test]
fn people_words_are_read_from_general_language() {
    for (question, words) in [
        ("有多少人买了", Some("多少人")),
        ("几位老师", Some("几位老师")),
        ("一共几名", Some("几名")),
        ("几个销售完成了目标", Some("几个销售")),
        ("客户人数", Some("人数")),
        ("How many unique users signed up", Some("how many … users")),
        ("the number of drivers", Some("number of … drivers")),
        ("多少人次", None),
        ("多少人民币", None),
        ("多少销售额", None),
        ("how many orders", None),
    ] {
        assert_eq!(people_count_words(question).as_deref(), words, "{question}");
    }
}

#[test]
fn sql_that_does_not_parse_is_left_to_the_guard() {
    assert!(check("上个月的毛利", "SELEC nothing").is_empty());
}
