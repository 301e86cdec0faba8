//! The analyst questions (`eval/analyst.jsonl`) answered by metric tools alone, model-free: each question's metric
//! query is built by code, compiled, guarded and run; the answer is checked against the truth SQL run on the same
//! demo data (SQLite). Right or honest, never wrong. PostgreSQL and MariaDB give the same answers when
//! `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set.

use std::sync::Arc;

use jiff::civil::Date;
use serde_json::Value;
use wenshu_contract::{Catalog, bind, demo_catalog};
use wenshu_engine::db::{Database, QueryLimits};
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::metric::build::choose;
use wenshu_engine::metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues};
use wenshu_engine::resolve::EntityCatalogs;

const CASES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/analyst.jsonl"));

#[derive(Debug, PartialEq)]
enum Verdict {
    Right,
    Honest(String),
    Wrong(String),
}

fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.replace(',', "").trim_end_matches('%').parse().ok(),
        _ => None,
    }
}

/// A truth value shown by a cell: text equal, or numbers within 0.5% (a fraction may be shown as a percentage).
fn shows(cell: &Value, truth: &Value) -> bool {
    match (as_number(truth), truth) {
        (Some(t), Value::Number(_)) => as_number(cell).is_some_and(|c| {
            let close = |a: f64, b: f64| (a - b).abs() <= 0.005 * b.abs().max(1e-9) || (a - b).abs() < 1e-6;
            close(c, t) || close(c / 100.0, t)
        }),
        _ => match (cell, truth) {
            (Value::String(c), Value::String(t)) => c == t,
            (c, t) => c == t,
        },
    }
}

fn row_shows(row: &[Value], truth: &Value) -> bool {
    row.iter().any(|cell| shows(cell, truth))
}

fn judge(check: &str, truth: &[Vec<Value>], rows: &[Vec<Value>]) -> Result<(), String> {
    let values: Vec<&Value> = truth.iter().flatten().collect();
    match check {
        "all" => match values.iter().find(|t| !rows.iter().any(|r| row_shows(r, t))) {
            Some(t) => Err(format!("{t} is not in the answer")),
            None => Ok(()),
        },
        "first" => match (values.first(), rows.first()) {
            (Some(t), Some(row)) if row_shows(row, t) => Ok(()),
            _ => Err(format!("{values:?} is not in the first row")),
        },
        "ordered" => {
            let mut at = 0;
            for t in values {
                match rows.iter().skip(at).position(|r| row_shows(r, t)) {
                    Some(i) => at += i + 1,
                    None => return Err(format!("{t} is missing or out of order")),
                }
            }
            Ok(())
        }
        other => Err(format!("unknown check {other}")),
    }
}

struct Setup {
    catalog: Catalog,
    truth_db: Database,
    _dir: tempdir::Dir,
}

mod tempdir {
    /// A folder removed when dropped.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

async fn setup(name: &str, today: Date) -> Setup {
    let dir = std::env::temp_dir().join(format!("wenshu-metric-analyst-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("demo.sqlite");
    let url = format!("sqlite://{}", path.display());
    wenshu_demo::create_at(&url, today).await.expect("demo data");
    Setup {
        catalog: demo_catalog().unwrap(),
        truth_db: Database::connect_read_only(&url).await.unwrap(),
        _dir: tempdir::Dir(dir),
    }
}

async fn answer_all(setup: &Setup, db: Database) -> Vec<(String, Verdict)> {
    let entities = EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap();
    let values = MetricValues::load(&db, &setup.catalog, &entities)
        .await
        .expect("values");
    let shared = SharedValues::new();
    shared.set(values);
    let executor = Arc::new(MetricExecutor::new(db, shared.clone()));
    let mut verdicts = Vec::new();
    for line in CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap().to_string();
        let question = case["question"].as_str().unwrap();
        let today: Date = case["today"].as_str().unwrap().parse().unwrap();
        let truth = setup
            .truth_db
            .query(case["truth_sql"].as_str().unwrap(), &[], QueryLimits::default())
            .await
            .expect("truth SQL");
        let verdict = match choose(&setup.catalog, &shared.get(), question, today) {
            None => Verdict::Honest("no metric tool".into()),
            Some((_, MetricBuild::Unmet { reasons })) => Verdict::Honest(reasons.join("；")),
            Some((tool, MetricBuild::Query { query })) => {
                let arguments = wenshu_engine::metric::execute::query_params(&query);
                let call = bind(tool, &arguments).expect("a built query binds against the tool's schema");
                let ctx = ExecContext::new(today);
                match executor.execute(tool, &call, &ctx).await {
                    Ok(result) => {
                        if std::env::var("WENSHU_METRIC_DEBUG").is_ok() {
                            eprintln!(
                                "{id} {question} {}\n   {:?}",
                                serde_json::to_string(&query).unwrap(),
                                result.rows.iter().take(4).collect::<Vec<_>>()
                            );
                        }
                        let judged = judge(case["check"].as_str().unwrap(), &truth.rows, &result.rows);
                        match judged {
                            Ok(()) => Verdict::Right,
                            Err(why) => Verdict::Wrong(format!(
                                "{why}; query {}; rows {:?}",
                                serde_json::to_string(&query).unwrap(),
                                result.rows
                            )),
                        }
                    }
                    Err(e) => Verdict::Honest(format!("execution failed: {e}")),
                }
            }
        };
        verdicts.push((id, verdict));
    }
    verdicts
}

fn report(name: &str, verdicts: &[(String, Verdict)]) -> (usize, usize) {
    let right = verdicts.iter().filter(|(_, v)| *v == Verdict::Right).count();
    let wrong: Vec<&(String, Verdict)> = verdicts
        .iter()
        .filter(|(_, v)| matches!(v, Verdict::Wrong(_)))
        .collect();
    for (id, v) in verdicts {
        if *v != Verdict::Right {
            eprintln!("{name} {id}: {v:?}");
        }
    }
    eprintln!("{name}: {right} right, {} wrong of {}", wrong.len(), verdicts.len());
    (right, wrong.len())
}

fn today() -> Date {
    "2026-11-29".parse().unwrap()
}

#[tokio::test]
async fn analyst_questions_on_sqlite_are_right_or_honest() {
    let setup = setup("sqlite", today()).await;
    let db = setup.truth_db.clone();
    let verdicts = answer_all(&setup, db).await;
    let (right, wrong) = report("sqlite", &verdicts);
    assert_eq!(wrong, 0, "a metric answer must never be a wrong number");
    assert!(right >= 27, "{right} of 30 right");
}

async fn same_answers_on(env: &str) {
    let Ok(url) = std::env::var(env) else {
        eprintln!("{env} not set: skipped");
        return;
    };
    let setup = setup(env, today()).await;
    let writable = Database::connect(&url).await.expect("server database");
    wenshu_demo::create(&writable, today())
        .await
        .expect("demo data on the server");
    writable.close().await;
    let db = Database::connect_read_only(&url).await.unwrap();
    let on_server = answer_all(&setup, db.clone()).await;
    let (right, wrong) = report(&format!("{env} lexicon engine"), &end_to_end(&setup, db).await);
    assert_eq!(wrong, 0, "never a wrong number on {env}");
    assert!(right >= 27, "{right} of 30 right on {env}");
    let on_sqlite = answer_all(&setup, setup.truth_db.clone()).await;
    let (_, wrong) = report(env, &on_server);
    assert_eq!(wrong, 0);
    let kinds = |v: &[(String, Verdict)]| -> Vec<(String, bool)> {
        v.iter().map(|(id, v)| (id.clone(), *v == Verdict::Right)).collect()
    };
    assert_eq!(
        kinds(&on_server),
        kinds(&on_sqlite),
        "the same questions are right on {env} and SQLite"
    );
}

#[tokio::test]
async fn analyst_questions_on_postgres_give_the_same_answers() {
    same_answers_on("WENSHU_TEST_POSTGRES_URL").await;
}

#[tokio::test]
async fn analyst_questions_on_mysql_give_the_same_answers() {
    same_answers_on("WENSHU_TEST_MYSQL_URL").await;
}

/// The whole lexicon engine (route, coverage, metric tools after the fixed ones, no model) on the analyst
/// questions: right or honest, never wrong, and at least 27 right.
async fn end_to_end(setup: &Setup, db: Database) -> Vec<(String, Verdict)> {
    use wenshu_engine::answer::{AskOutcome, Engine};
    use wenshu_engine::execute::{Executors, SqlTemplateExecutor};
    use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
    use wenshu_engine::pipeline::{AskRequest, Planner};
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
    let catalog = Arc::new(demo_catalog().unwrap());
    let shared = SharedValues::new();
    shared.set(MetricValues::load(&db, &catalog, &entities).await.expect("values"));
    let mut executors = Executors::new();
    executors.register_sql(Arc::new(SqlTemplateExecutor::new(db.clone(), &catalog).unwrap()));
    Arc::new(MetricExecutor::new(db, shared.clone())).register_all(&catalog, &mut executors);
    let planner = Planner::new(
        catalog.clone(),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities).with_metric_values(shared)),
    );
    let engine = Engine::new(planner, Arc::new(executors));
    let mut verdicts = Vec::new();
    for line in CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap().to_string();
        let question = case["question"].as_str().unwrap();
        let today: Date = case["today"].as_str().unwrap().parse().unwrap();
        let truth = setup
            .truth_db
            .query(case["truth_sql"].as_str().unwrap(), &[], QueryLimits::default())
            .await
            .expect("truth SQL");
        let answer = engine.ask(&AskRequest::new(question, today)).await;
        let verdict = match &answer.outcome {
            AskOutcome::Answered { tool, rows, .. } => {
                match judge(case["check"].as_str().unwrap(), &truth.rows, rows) {
                    Ok(()) => Verdict::Right,
                    Err(why) => Verdict::Wrong(format!(
                        "{tool}: {why}; rows {:?}",
                        rows.iter().take(5).collect::<Vec<_>>()
                    )),
                }
            }
            other => {
                if std::env::var("WENSHU_METRIC_DEBUG").is_ok() {
                    for step in serde_json::to_value(&answer.trace).unwrap()["steps"]
                        .as_array()
                        .unwrap()
                    {
                        eprintln!(
                            "   {id} {} {} {}",
                            step["step"],
                            step["decision"],
                            if step["step"] == "extract" {
                                step["output"]["outcome"].to_string()
                            } else {
                                String::new()
                            }
                        );
                    }
                }
                Verdict::Honest(format!("{}: {}", other.kind(), answer.conclusion()))
            }
        };
        verdicts.push((id, verdict));
    }
    verdicts
}

#[tokio::test]
async fn analyst_questions_end_to_end_with_the_lexicon_engine() {
    let setup = setup("lexicon", today()).await;
    let verdicts = end_to_end(&setup, setup.truth_db.clone()).await;
    let (right, wrong) = report("lexicon engine", &verdicts);
    assert_eq!(wrong, 0, "never a wrong number");
    assert!(right >= 27, "{right} of 30 right");
}
