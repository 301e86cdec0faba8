//! `metric`: compiling a metric query to SQL (target < 50 µs), building one from a question's words, and the whole
//! lexicon plan of an analyst question that a metric tool answers (target < 200 µs). No database: the dimension
//! values are set as the data would give them.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use jiff::civil::date;
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_contract::metric::MetricQuery;
use wenshu_engine::db::Dialect;
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::{MetricValues, SharedValues, prepare};
use wenshu_engine::pipeline::{AskRequest, Planner};
use wenshu_engine::resolve::EntityCatalogs;

fn bench_metric(c: &mut Criterion) {
    let catalog = Arc::new(demo_catalog().expect("demo catalog"));
    let tool = catalog.get("sales_metrics").expect("sales_metrics");
    let model = tool.extensions().metrics.clone().expect("x-metrics");
    let mut values = MetricValues::new();
    let texts = |list: &[&str]| list.iter().map(|s| Value::from(*s)).collect::<Vec<_>>();
    values.insert(tool, 0, texts(&["华东", "华南", "华北", "西南", "西北"]));
    values.insert(tool, 1, texts(&["企业版", "专业版", "基础版"]));
    values.insert(
        tool,
        2,
        texts(&["张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵敏", "黄强"]),
    );
    let ranked: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "销售额"}, {"name": "销量"}],
        "filters": [{"dimension": "地区", "values": ["华东", "西南"]}, {"dimension": "产品", "values": ["企业版"]}],
        "timeRange": {"start": "2026-07-01", "end": "2026-09-30"},
        "groupBy": ["销售"],
        "order": {"measure": "销售额", "direction": "desc"},
        "limit": 5
    }))
    .expect("query");
    let compared: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "销售额"}],
        "filters": [{"dimension": "地区", "values": ["华南"]}],
        "timeRange": {"start": "2026-10-01", "end": "2026-12-31"},
        "compare": {"kind": "previous_period"}
    }))
    .expect("query");
    // Issue 26's shapes: a comparison with each region's mean, sorted by region; running totals per region.
    let relative: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "销售额"}],
        "timeRange": {"start": "2026-01-01", "end": "2026-11-29"},
        "groupBy": ["地区", "销售"],
        "relative": {"measure": "销售额", "op": ">", "within": "地区"},
        "sort": {"dimension": "地区", "direction": "asc"}
    }))
    .expect("query");
    let running: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "销售额"}, {"name": "订单数"}],
        "timeRange": {"start": "2026-01-01", "end": "2026-11-29"},
        "groupBy": ["地区"],
        "grain": "month",
        "cumulative": true
    }))
    .expect("query");
    let median: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "销量"}],
        "timeRange": {"start": "2026-01-01", "end": "2026-11-29"},
        "groupBy": ["地区", "销售"],
        "relative": {"measure": "销量", "op": ">", "within": "地区", "median": true}
    }))
    .expect("query");
    let bands: MetricQuery = serde_json::from_value(json!({
        "measures": [{"name": "订单数"}, {"name": "销售额", "dividedBy": "销量"}],
        "timeRange": {"start": "2026-01-01", "end": "2026-11-29"},
        "groupBy": ["地区"],
        "bands": {"measure": "销售额", "bounds": [10000, 50000]}
    }))
    .expect("query");
    let mut group = c.benchmark_group("metric");
    group.bench_function("compile_median_postgres", |b| {
        b.iter(|| prepare(tool.name(), &model, &values, black_box(&median), Dialect::Postgres).expect("compiles"))
    });
    group.bench_function("compile_bands_ratio_sqlite", |b| {
        b.iter(|| prepare(tool.name(), &model, &values, black_box(&bands), Dialect::Sqlite).expect("compiles"))
    });
    group.bench_function("compile_relative_sorted_sqlite", |b| {
        b.iter(|| prepare(tool.name(), &model, &values, black_box(&relative), Dialect::Sqlite).expect("compiles"))
    });
    group.bench_function("compile_running_mysql", |b| {
        b.iter(|| prepare(tool.name(), &model, &values, black_box(&running), Dialect::MySql).expect("compiles"))
    });
    group.bench_function("compile_ranked_postgres", |b| {
        b.iter(|| prepare(tool.name(), &model, &values, black_box(&ranked), Dialect::Postgres).expect("compiles"))
    });
    group.bench_function("compile_compare_mysql", |b| {
        b.iter(|| prepare(tool.name(), &model, &values, black_box(&compared), Dialect::MySql).expect("compiles"))
    });
    let today = date(2026, 11, 29);
    group.bench_function("build_from_question", |b| {
        b.iter(|| build_query(tool, &values, black_box("上个月销量排前三的销售是谁"), today))
    });
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).expect("entities"));
    let shared = SharedValues::new();
    shared.set(values.clone());
    let planner = Planner::new(
        catalog.clone(),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities).with_metric_values(shared)),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let request = AskRequest::new("今年各地区的销售额占比", today);
    let planned = runtime.block_on(planner.plan(&request));
    assert_eq!(planned.plan.tool(), Some("sales_metrics"), "{:?}", planned.plan);
    group.bench_function("plan_analyst_question", |b| {
        b.iter(|| runtime.block_on(planner.plan(black_box(&request))))
    });
    group.finish();
}

criterion_group!(benches, bench_metric);
criterion_main!(benches);
