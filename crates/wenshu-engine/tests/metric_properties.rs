//! Property: every metric query drawn from the demo's metric models compiles to SQL that the SQL guard accepts and
//! the database runs (SQLite always; PostgreSQL / MariaDB when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL`
//! are set), and no value of the query appears in the SQL text: every value is bound.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;
use wenshu_contract::metric::{
    Compare, CompareKind, Filter, MeasureSel, MetricModel, MetricQuery, Order, OrderDir, Share, Threshold, ThresholdOp,
    TimeRange,
};
use wenshu_contract::{Catalog, demo_catalog};
use wenshu_engine::db::{Database, QueryLimits};
use wenshu_engine::metric::{MetricValues, prepare};
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::sql_guard::{GuardPolicy, check_sql};

/// What a query is drawn from: one tool's model and its known values.
struct Pool {
    tool: String,
    model: Arc<MetricModel>,
    values: Vec<Vec<String>>,
}

fn pools(catalog: &Catalog, values: &MetricValues) -> Vec<Pool> {
    catalog
        .tools()
        .iter()
        .filter_map(|t| {
            let model = t.extensions().metrics.clone()?;
            let values = (0..model.dimensions.len())
                .map(|d| values.values(t.name(), d).iter().map(|v| v.text.clone()).collect())
                .collect();
            Some(Pool {
                tool: t.name().to_string(),
                model,
                values,
            })
        })
        .collect()
}

/// Raw choices a query is made of (indexes taken modulo what the model has).
#[derive(Debug, Clone)]
struct Draw {
    measures: Vec<(usize, u8)>,
    filters: Vec<(usize, Vec<usize>)>,
    range: Option<(u32, u32)>,
    grain: Option<usize>,
    group_by: Vec<usize>,
    order: Option<(usize, bool, Option<u32>)>,
    having: Option<(usize, u8, f64)>,
    each: Option<(usize, u8, f64)>,
    compare: Option<bool>,
    share: bool,
}

fn draws() -> impl Strategy<Value = (usize, Draw)> {
    (
        0usize..3,
        proptest::collection::vec((0usize..8, 0u8..6), 1..3),
        proptest::collection::vec((0usize..8, proptest::collection::vec(0usize..64, 1..4)), 0..3),
        proptest::option::of((0u32..1000, 0u32..400)),
        proptest::option::of(0usize..5),
        proptest::collection::vec(0usize..8, 0..3),
        proptest::option::of((0usize..8, any::<bool>(), proptest::option::of(1u32..50))),
        proptest::option::of((0usize..8, 0u8..4, -1.0e6f64..1.0e7)),
        proptest::option::of((0usize..8, 0u8..4, -1.0e3f64..1.0e5)),
        proptest::option::of(any::<bool>()),
        any::<bool>(),
    )
        .prop_map(
            |(pool, measures, filters, range, grain, group_by, order, having, each, compare, share)| {
                (
                    pool,
                    Draw {
                        measures,
                        filters,
                        range,
                        grain,
                        group_by,
                        order,
                        having,
                        each,
                        compare,
                        share,
                    },
                )
            },
        )
}

/// A valid metric query of `pool` from the draw (combinations the model refuses are left out).
fn query_of(pool: &Pool, d: &Draw) -> MetricQuery {
    let model = &pool.model;
    let day = |n: u32| {
        let start: jiff::civil::Date = "2024-01-01".parse().unwrap();
        start
            .checked_add(jiff::Span::new().days(i64::from(n)))
            .unwrap()
            .to_string()
    };
    let time = model.time.as_ref();
    let range = time.and(d.range).map(|(s, len)| TimeRange {
        start: day(s),
        end: day(s + len),
    });
    let mut q = MetricQuery {
        time_range: range.clone(),
        ..MetricQuery::default()
    };
    for (m, agg) in &d.measures {
        let spec = &model.measures[m % model.measures.len()];
        let mut sel = MeasureSel::named(spec.label.clone());
        match agg {
            0 | 1 if !spec.reaggregations.is_empty() => {
                sel.aggregate = Some(spec.reaggregations[usize::from(*agg) % spec.reaggregations.len()])
            }
            2 if range.is_some() => sel.per = time.map(|t| t.grains[0]),
            _ => {}
        }
        if !q.measures.contains(&sel) {
            q.measures.push(sel);
        }
    }
    if !model.dimensions.is_empty() {
        for (dim, picks) in &d.filters {
            let dim = dim % model.dimensions.len();
            let known = &pool.values[dim];
            let label = model.dimensions[dim].label.clone();
            if known.is_empty() || q.filters.iter().any(|f| f.dimension == label) {
                continue;
            }
            let mut values: Vec<String> = picks.iter().map(|p| known[p % known.len()].clone()).collect();
            values.dedup();
            q.filters.push(Filter {
                dimension: label,
                values,
            });
        }
        for g in &d.group_by {
            let label = model.dimensions[g % model.dimensions.len()].label.clone();
            if !q.group_by.contains(&label) {
                q.group_by.push(label);
            }
        }
    }
    q.grain = time.and_then(|t| d.grain.map(|g| t.grains[g % t.grains.len()]));
    if let Some((m, desc, limit)) = d.order {
        let spec = &model.measures[m % model.measures.len()];
        q.order = Some(Order {
            measure: spec.label.clone(),
            direction: if desc { OrderDir::Desc } else { OrderDir::Asc },
        });
        q.limit = limit;
    }
    let grouped = !q.group_by.is_empty() || q.grain.is_some();
    if let Some((m, op, value)) = d.having.filter(|_| grouped) {
        let ops = [ThresholdOp::Gt, ThresholdOp::Ge, ThresholdOp::Lt, ThresholdOp::Le];
        q.having = Some(Threshold::new(
            model.measures[m % model.measures.len()].label.clone(),
            ops[usize::from(op)],
            value,
        ));
    }
    if let Some((m, op, value)) = d.each {
        let ops = [ThresholdOp::Gt, ThresholdOp::Ge, ThresholdOp::Lt, ThresholdOp::Le];
        let spec = &model.measures[m % model.measures.len()];
        if spec.expr.single_aggregate().is_some() {
            q.each = Some(Threshold::new(spec.label.clone(), ops[usize::from(op)], value));
        }
    }
    if d.share {
        let across: Vec<String> = if q.group_by.is_empty() {
            q.filters.iter().map(|f| f.dimension.clone()).collect()
        } else {
            q.group_by.clone()
        };
        if !across.is_empty() {
            q.share = Some(Share { across });
        }
    }
    if let Some(yoy) = d.compare
        && q.time_range.is_some()
        && q.grain.is_none()
        && q.share.is_none()
        && q.having.is_none()
    {
        q.compare = Some(Compare {
            kind: if yoy {
                CompareKind::YearOverYear
            } else {
                CompareKind::PreviousPeriod
            },
            range: None,
            rank: None,
        });
    }
    if q.measures.iter().any(|m| m.per.is_some()) && q.time_range.is_none() {
        q.measures.iter_mut().for_each(|m| m.per = None);
    }
    q
}

/// Runs the property on one database: compile, guard, no value in the text, run.
fn property_on(runtime: &tokio::runtime::Runtime, db: Database, cases: u32) {
    let catalog = demo_catalog().unwrap();
    let entities = EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap();
    let values = runtime.block_on(MetricValues::load(&db, &catalog, &entities)).unwrap();
    let pools = pools(&catalog, &values);
    let dialect = db.dialect();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&draws(), |(p, draw)| {
            let pool = &pools[p % pools.len()];
            let query = query_of(pool, &draw);
            let prepared = prepare(&pool.tool, &pool.model, &values, &query, dialect)
                .map_err(|e| TestCaseError::fail(format!("{e} for {query:?}")))?;
            let policy = GuardPolicy::new(&pool.model.table_names());
            for (_, compiled) in &prepared.statements {
                let statement = &compiled.statement;
                let verdict = check_sql(&statement.sql, dialect, &policy);
                prop_assert!(
                    verdict.allowed,
                    "guard refused {}: {:?}",
                    statement.sql,
                    verdict.reasons
                );
                for f in &query.filters {
                    for v in f
                        .values
                        .iter()
                        .filter(|v| v.chars().count() >= 2 && v.parse::<f64>().is_err())
                    {
                        prop_assert!(!statement.sql.contains(v.as_str()), "value {v} in {}", statement.sql);
                    }
                }
                if let Some(t) = &query.having {
                    prop_assert!(statement.binds.iter().any(|b| b.as_f64() == Some(t.value)));
                }
                let rows = runtime
                    .block_on(db.query(
                        verdict.sql.as_deref().unwrap(),
                        &statement.binds,
                        QueryLimits::default(),
                    ))
                    .map_err(|e| TestCaseError::fail(format!("{e}: {}", statement.sql)))?;
                prop_assert_eq!(rows.columns.len(), compiled.columns.len());
            }
            Ok(())
        })
        .unwrap();
}

fn demo_url(name: &str) -> (String, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("wenshu-metric-props-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    (format!("sqlite://{}", dir.join("demo.sqlite").display()), dir)
}

fn today() -> jiff::civil::Date {
    "2026-11-29".parse().unwrap()
}

#[test]
fn every_metric_query_compiles_to_guarded_bound_sql_that_sqlite_runs() {
    let (url, dir) = demo_url("sqlite");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(wenshu_demo::create_at(&url, today())).unwrap();
    let db = runtime.block_on(Database::connect_read_only(&url)).unwrap();
    property_on(&runtime, db, 96);
    let _ = std::fs::remove_dir_all(dir);
}

fn on_server(env: &str) {
    let Ok(url) = std::env::var(env) else {
        eprintln!("{env} not set: skipped");
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let db = Database::connect(&url).await.unwrap();
        wenshu_demo::create(&db, today()).await.unwrap();
        db.close().await;
    });
    let db = runtime.block_on(Database::connect_read_only(&url)).unwrap();
    property_on(&runtime, db, 48);
}

#[test]
fn every_metric_query_runs_on_postgres() {
    on_server("WENSHU_TEST_POSTGRES_URL");
}

#[test]
fn every_metric_query_runs_on_mysql() {
    on_server("WENSHU_TEST_MYSQL_URL");
}

#[test]
fn a_value_the_data_does_not_have_is_refused_naming_the_known_ones() {
    let catalog = demo_catalog().unwrap();
    let tool = catalog.get("sales_metrics").unwrap();
    let model = tool.extensions().metrics.clone().unwrap();
    let mut values = MetricValues::new();
    values.insert(tool, 0, vec![Value::from("华东"), Value::from("华南")]);
    let query: MetricQuery = serde_json::from_value(serde_json::json!({
        "measures": [{"name": "销售额"}],
        "filters": [{"dimension": "地区", "values": ["x' OR '1'='1"]}]
    }))
    .unwrap();
    let error = prepare(tool.name(), &model, &values, &query, wenshu_engine::db::Dialect::Sqlite).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("x' OR '1'='1") && text.contains("华东"), "{text}");
}
