//! Compared rows ranked by their change (issue 26, shape 4): 哪个产品环比增长最快 (the rate), 同比下降最多的地区
//! (the smallest change), 增长最多的前两个 (the change, two kept); 最快 without a change is no ranking. On the demo
//! data against truth queries on SQLite, and on PostgreSQL / MariaDB when `WENSHU_TEST_POSTGRES_URL` /
//! `WENSHU_TEST_MYSQL_URL` are set; the query's own checks on the demo model.

mod demo_truth;

use serde_json::json;
use wenshu_contract::demo_catalog;
use wenshu_contract::metric::{ChangeBy, MetricQuery, OrderDir};
use wenshu_engine::metric::build::choose;
use wenshu_engine::metric::{MetricBuild, MetricValues};

fn query(question: &str) -> MetricQuery {
    let catalog = demo_catalog().unwrap();
    match choose(&catalog, &MetricValues::new(), question, "2026-11-29".parse().unwrap()) {
        Some((_, MetricBuild::Query { query })) => query,
        other => panic!("{question}: {other:?}"),
    }
}

#[test]
fn a_ranking_beside_a_comparison_ranks_by_the_change() {
    for (question, by, direction, limit) in [
        ("上个月哪个产品的销售额环比增长最快", ChangeBy::Rate, OrderDir::Desc, 1),
        ("上个月哪个产品的销售额环比增长最慢", ChangeBy::Rate, OrderDir::Asc, 1),
        ("今年哪个地区的销售额同比下降最多", ChangeBy::Change, OrderDir::Asc, 1),
        (
            "上个月销量环比增长最多的前两个销售",
            ChangeBy::Change,
            OrderDir::Desc,
            2,
        ),
        (
            "上个月各地区销售额环比涨幅最大的是哪个",
            ChangeBy::Rate,
            OrderDir::Desc,
            1,
        ),
    ] {
        let q = query(question);
        let rank = q.compare.as_ref().and_then(|c| c.rank.clone());
        let rank = rank.unwrap_or_else(|| panic!("{question}: {q:?}"));
        assert_eq!(
            (rank.by, rank.direction, rank.limit),
            (by, direction, Some(limit)),
            "{question}"
        );
        assert!(
            q.order.is_none() && q.limit.is_none() && !q.group_by.is_empty(),
            "{question}: {q:?}"
        );
    }
    let compare = json!({"kind": "previous_period", "rank": {"by": "rate", "direction": "desc"}});
    let range = json!({"start": "2026-10-01", "end": "2026-10-31"});
    let field = demo_truth::refused_field(json!({"measures": [{"name": "销售额"}], "timeRange": range,
        "compare": compare}));
    assert_eq!(field, "compare.rank");
    let field = demo_truth::refused_field(json!({"measures": [{"name": "销售额"}], "timeRange": range,
        "groupBy": ["地区"], "limit": 3, "compare": compare}));
    assert_eq!(field, "compare.rank");
}

/// The rows of a comparison of two periods by `dim`, ranked by `key` (`this - other`, or the rate), `keep` kept.
fn truth(dim: &str, measure: &str, this: (&str, &str), other: (&str, &str), key: &str, keep: u32) -> String {
    format!(
        "SELECT d, a, b FROM (SELECT {dim} AS d, \
         SUM(CASE WHEN day BETWEEN '{}' AND '{}' THEN {measure} END) AS a, \
         SUM(CASE WHEN day BETWEEN '{}' AND '{}' THEN {measure} END) AS b FROM sales GROUP BY {dim}) \
         ORDER BY {key} LIMIT {keep}",
        this.0, this.1, other.0, other.1
    )
}

fn demo_cases() -> Vec<(&'static str, String)> {
    let october = ("2026-10-01", "2026-10-31");
    let september = ("2026-09-01", "2026-09-30");
    let year = ("2026-01-01", "2026-11-29");
    let year_ago = ("2025-01-01", "2025-11-29");
    vec![
        (
            "上个月哪个产品的销售额环比增长最快",
            truth("product", "amount", october, september, "(a - b) * 1.0 / b DESC", 1),
        ),
        (
            "今年哪个地区的销售额同比下降最多",
            truth("region", "amount", year, year_ago, "a - b ASC", 1),
        ),
        (
            "上个月销量环比增长最多的前两个销售",
            truth("sales_person", "quantity", october, september, "a - b DESC", 2),
        ),
        // English: the change said with a verb of the past (fell, rose), `the most` before `month over month`.
        (
            "which region's orders fell the most month over month last month",
            truth("region", "1", october, september, "a - b ASC", 1),
        ),
        (
            "which region's orders rose fastest month over month last month",
            truth("region", "1", october, september, "(a - b) * 1.0 / b DESC", 1),
        ),
    ]
}

async fn run(env: Option<&str>) {
    let cases = demo_cases();
    let cases: Vec<(&str, &str)> = cases.iter().map(|(q, t)| (*q, t.as_str())).collect();
    demo_truth::cases_equal_truth("change-rank", env, &cases).await;
}

#[tokio::test]
async fn rankings_by_the_change_on_the_demo_equal_the_truth_on_sqlite() {
    run(None).await;
}

#[tokio::test]
async fn rankings_by_the_change_on_postgres_equal_the_truth() {
    run(Some("WENSHU_TEST_POSTGRES_URL")).await;
}

#[tokio::test]
async fn rankings_by_the_change_on_mysql_equal_the_truth() {
    run(Some("WENSHU_TEST_MYSQL_URL")).await;
}
