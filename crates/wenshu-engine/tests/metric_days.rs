//! Kinds of day (issue 26, shape 8): 按星期几 groups by the day of the week (Monday first), 周末 / 工作日 keep the
//! days of that kind, both named split the rows into working days and weekends; holidays (a holiday calendar) stay
//! refused, and 按星期 is still by week. On a model of its own (a library's loans), then on the demo data against
//! truth queries on SQLite, and on PostgreSQL / MariaDB when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL`
//! are set.

#[macro_use]
mod demo_truth;

use serde_json::json;
use wenshu_contract::Catalog;
use wenshu_contract::metric::{DayKind, DayPart, Grain, MetricQuery};
use wenshu_engine::db::Dialect;
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::{MetricBuild, MetricValues};
use wenshu_sql::metric::compile;

/// A library's loans by branch: words of no demo catalog.
fn library() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "library_metrics",
        "description": "借阅指标",
        "x-metrics": {
            "from": [{"table": "loans", "alias": "l", "columns": ["id", "lent_on", "branch", "fine"]}],
            "time": {"column": "l.lent_on", "type": "date", "grains": ["day", "week", "month", "year"]},
            "measures": [{"name": "loans", "label": "借阅量", "expr": "COUNT(*)", "unit": "次"}],
            "dimensions": [{"name": "branch", "label": "分馆", "column": "l.branch"}]
        }
    }]}))
    .expect("library catalog")
}

fn build(question: &str) -> MetricBuild {
    let catalog = library();
    let tool = catalog.get("library_metrics").unwrap();
    build_query(tool, &MetricValues::new(), question, "2026-11-29".parse().unwrap())
}

fn query(question: &str) -> MetricQuery {
    match build(question) {
        MetricBuild::Query { query } => query,
        other => panic!("{question}: {other:?}"),
    }
}

#[test]
fn kinds_of_day_group_or_keep_the_days() {
    assert_eq!(query("今年按星期几的借阅量").by_day, Some(DayPart::Weekday));
    assert_eq!(query("今年每个周几的借阅量").by_day, Some(DayPart::Weekday));
    assert_eq!(query("今年周末的借阅量").days, Some(DayKind::Weekend));
    assert_eq!(query("上个月工作日各分馆的借阅量").days, Some(DayKind::Workday));
    assert_eq!(query("loans on weekends this year").days, Some(DayKind::Weekend));
    assert_eq!(query("今年周末和工作日的借阅量对比").by_day, Some(DayPart::Weekend));
    // 按星期 is by week; holidays need a calendar the data does not have.
    let weekly = query("今年按星期的借阅量");
    assert_eq!((weekly.grain, weekly.by_day), (Some(Grain::Week), None));
    assert!(matches!(build("今年节假日的借阅量"), MetricBuild::Unmet { .. }));
}

#[test]
fn the_day_of_the_week_compiles_per_dialect_and_is_checked() {
    let catalog = library();
    let model = catalog
        .get("library_metrics")
        .unwrap()
        .extensions()
        .metrics
        .clone()
        .unwrap();
    let resolved = query("今年周末各分馆按星期几的借阅量").resolve(&model).unwrap();
    for (dialect, function) in [
        (Dialect::Sqlite, "STRFTIME('%w'"),
        (Dialect::Postgres, "EXTRACT(ISODOW FROM"),
        (Dialect::MySql, "WEEKDAY("),
    ] {
        let sql = compile(&model, &resolved, &[], resolved.range.as_ref(), &[None], dialect)
            .statement
            .sql;
        assert!(
            sql.contains(function) && sql.contains(">= 6") && sql.contains("GROUP BY"),
            "{sql}"
        );
    }
    let bad = |q: serde_json::Value| serde_json::from_value::<MetricQuery>(q).unwrap().resolve(&model);
    let err = bad(json!({"measures": [{"name": "借阅量"}], "grain": "month", "byDay": "weekday"})).unwrap_err();
    assert_eq!(err.field, "byDay");
}

/// `(question, truth SQL)` on the demo (its days are ISO text): SQLite numbers Sunday 0.
const DEMO_CASES: &[(&str, &str)] = &[
    (
        "今年按星期几的销售额",
        "SELECT SUM(amount) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY (CAST(strftime('%w', day) AS INTEGER) + 6) % 7 ORDER BY (CAST(strftime('%w', day) AS INTEGER) + 6) % 7",
    ),
    (
        "今年周末的销售额",
        "SELECT SUM(amount) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         AND strftime('%w', day) IN ('0', '6')",
    ),
    (
        "上个月工作日的订单数",
        "SELECT COUNT(*) FROM sales WHERE day BETWEEN '2026-10-01' AND '2026-10-31' \
         AND strftime('%w', day) NOT IN ('0', '6')",
    ),
    (
        "今年周末和工作日的销售额对比",
        "SELECT SUM(amount) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         GROUP BY strftime('%w', day) IN ('0', '6') ORDER BY strftime('%w', day) IN ('0', '6')",
    ),
    (
        "今年各地区周末的订单数",
        "SELECT region, COUNT(*) FROM sales WHERE day BETWEEN '2026-01-01' AND '2026-12-31' \
         AND strftime('%w', day) IN ('0', '6') GROUP BY region ORDER BY region",
    ),
];

demo_cases_on_every_dialect!("days", DEMO_CASES);
