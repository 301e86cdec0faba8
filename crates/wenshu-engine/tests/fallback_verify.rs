//! Text-to-SQL answers are checked against the user's own words before they are shown (issue 23): a measure the
//! data lacks is never another column under its name, a count of people is a distinct count, a year is the
//! question's. A mismatch gets the one correction, naming it; a corrected statement that still mismatches stops.
//! The model is a scripted chat server on loopback; the SQL runs on the demo's SQLite data.

mod model_support;

use std::path::PathBuf;
use std::sync::Arc;

use jiff::civil::date;
use serde_json::json;
use wenshu_contract::demo_catalog;
use wenshu_engine::answer::{Answer, AskOutcome, Engine};
use wenshu_engine::db::{Database, QueryLimits};
use wenshu_engine::execute::Executors;
use wenshu_engine::extract::ModelExtractor;
use wenshu_engine::fallback::SqlFallback;
use wenshu_engine::fallback::schema::{SchemaNotes, describe_schema};
use wenshu_engine::pipeline::{AskRequest, Planner};
use wenshu_engine::plan::Audience;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::model::ModelRouter;
use wenshu_engine::sql_guard::GuardPolicy;
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

/// The demo's data in a file of its own (removed when dropped).
struct Demo {
    path: PathBuf,
}

impl Demo {
    async fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("wenshu-fallback-verify-{name}-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&path);
        wenshu_demo::create_at(&format!("sqlite://{}", path.display()), date(2026, 11, 29))
            .await
            .unwrap();
        Self { path }
    }

    async fn db(&self) -> Database {
        Database::connect_read_only(&format!("sqlite://{}", self.path.display()))
            .await
            .unwrap()
    }

    /// An engine whose every tool is disabled but the fallback: each question goes to Text-to-SQL.
    async fn engine(&self, server: &ScriptedChatServer) -> Engine {
        let client = model_support::client_with(server, None);
        let prompts = Arc::new(PromptTemplates::embedded());
        let catalog = Arc::new(demo_catalog().unwrap());
        let fallback_tool = catalog.fallback().map(|t| t.name().to_string());
        let others: Vec<String> = catalog
            .tools()
            .iter()
            .map(|t| t.name().to_string())
            .filter(|name| Some(name) != fallback_tool.as_ref())
            .collect();
        let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
        let planner = Planner::new(
            catalog,
            entities,
            Arc::new(ModelRouter::new(client.clone(), prompts.clone())),
            Arc::new(ModelExtractor::new(client.clone(), prompts.clone(), true)),
        )
        .with_disabled(others);
        let db = self.db().await;
        let tables: Vec<String> = wenshu_demo::TABLES.iter().map(|t| t.to_string()).collect();
        let schema = describe_schema(&db, &tables, &SchemaNotes::default()).await.unwrap();
        let fallback = SqlFallback::new(client, prompts, Arc::new(db), GuardPolicy::new(&tables), schema);
        Engine::new(planner, Arc::new(Executors::new())).with_fallback(Arc::new(fallback))
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The router's answer: no tool (the fallback), and a rewrite of the question.
fn no_tool(rewritten: &str) -> Reply {
    Reply::content(
        json!({"toolCode": null, "subjectType": null, "subjectName": null, "startDate": null, "endDate": null,
               "rewrittenQuestion": rewritten})
        .to_string(),
    )
}

fn sql(text: &str) -> Reply {
    Reply::content(json!({"sql": text, "explanation": "按要求查询"}).to_string())
}

async fn ask(demo: &Demo, replies: Vec<Reply>, question: &str) -> (Answer, ScriptedChatServer) {
    let server = ScriptedChatServer::start(replies).await;
    let answer = demo
        .engine(&server)
        .await
        .ask(&AskRequest::new(question, date(2026, 11, 29)))
        .await;
    (answer, server)
}

/// The text of the correction the model was sent (the third request: route, SQL, correction).
fn correction(server: &ScriptedChatServer) -> String {
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "one route, one SQL, one correction");
    let messages = requests[2].body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"].as_str().unwrap().to_string()
}

/// The reasons of a stop for the user at the fallback; panics on any other outcome.
fn user_stop(answer: &Answer) -> String {
    let AskOutcome::Stopped {
        step,
        reasons,
        audience,
        ..
    } = &answer.outcome
    else {
        panic!("expected a stop, got {:?}", answer.outcome)
    };
    assert_eq!((step.as_str(), *audience), ("fallback", Audience::User));
    reasons.join("\n")
}

async fn one_number(db: &Database, sql: &str) -> f64 {
    let rows = db.query(sql, &[], QueryLimits::default()).await.unwrap();
    rows.rows[0][0].as_f64().unwrap()
}

#[tokio::test]
async fn an_unknown_measure_aliased_as_another_column_is_not_answered_as_that_measure() {
    let demo = Demo::new("alias").await;
    let month = "region = '华北' AND day BETWEEN '2026-10-01' AND '2026-10-31'";
    let question = "上个月华北区的毛利是多少";
    let (answer, server) = ask(
        &demo,
        vec![
            no_tool(question),
            sql(&format!("SELECT SUM(amount) AS gross_profit FROM sales WHERE {month}")),
            // Corrected, it names the sum honestly — and still answers another measure.
            sql(&format!("SELECT SUM(amount) AS amount FROM sales WHERE {month}")),
        ],
        question,
    )
    .await;
    let reasons = user_stop(&answer);
    assert!(
        reasons.contains("毛利") && reasons.contains("gross_profit"),
        "{reasons}"
    );
    let correction = correction(&server);
    assert!(
        correction.contains("gross_profit") && correction.contains("「毛利」") && correction.contains("没有"),
        "the correction names the mismatch: {correction}"
    );
    let step = &answer.trace.step("fallback").unwrap().output_value();
    assert_eq!(step["attempts"][0]["mismatches"][0]["kind"], "alias", "{step:#}");
    assert_eq!(step["attempts"][1]["mismatches"][0]["kind"], "measure", "{step:#}");
    assert!(step["rows"].is_null(), "nothing ran: {step:#}");
}

#[tokio::test]
async fn count_star_for_how_many_people_is_corrected_or_refused() {
    let demo = Demo::new("people").await;
    let question = "本月华东有多少位销售员有成交";
    let rows = "FROM sales WHERE region = '华东' AND day >= '2026-11-01' AND day <= '2026-11-29'";
    let distinct = format!("SELECT COUNT(DISTINCT sales_person) AS people {rows}");
    let (answer, server) = ask(
        &demo,
        vec![
            no_tool(question),
            sql(&format!("SELECT COUNT(*) AS people {rows}")),
            sql(&distinct),
        ],
        question,
    )
    .await;
    let AskOutcome::Answered { rows: answered, .. } = &answer.outcome else {
        panic!("expected the corrected count, got {:?}", answer.outcome)
    };
    let db = demo.db().await;
    let people = one_number(&db, &distinct).await;
    let orders = one_number(&db, &format!("SELECT COUNT(*) {rows}")).await;
    assert!(people < orders, "the data tells the two apart: {people} vs {orders}");
    assert_eq!(answered[0][0].as_f64(), Some(people));
    let correction = correction(&server);
    assert!(
        correction.contains("多少位销售员") && correction.contains("COUNT(DISTINCT"),
        "{correction}"
    );

    // A model that keeps counting rows is refused, naming why.
    let (answer, _) = ask(
        &demo,
        vec![
            no_tool(question),
            sql(&format!("SELECT COUNT(*) AS people {rows}")),
            sql(&format!("SELECT COUNT(sales_person) AS people {rows}")),
        ],
        question,
    )
    .await;
    let reasons = user_stop(&answer);
    assert!(
        reasons.contains("人数") && reasons.contains("COUNT(sales_person)"),
        "{reasons}"
    );
}

#[tokio::test]
async fn a_wrong_year_in_text_to_sql_is_corrected_or_refused() {
    let demo = Demo::new("year").await;
    let question = "今年华东的销售额是多少";
    let right = "SELECT SUM(amount) AS amount FROM sales WHERE region = '华东' \
                 AND day BETWEEN '2026-01-01' AND '2026-12-31'";
    let wrong = "SELECT SUM(amount) AS amount FROM sales WHERE region = '华东' AND strftime('%Y', day) = '2025'";
    let (answer, server) = ask(&demo, vec![no_tool(question), sql(wrong), sql(right)], question).await;
    let AskOutcome::Answered { rows, sql: ran, .. } = &answer.outcome else {
        panic!("expected the corrected year, got {:?}", answer.outcome)
    };
    assert!(ran.as_deref().unwrap().contains("2026-01-01"), "{ran:?}");
    let db = demo.db().await;
    assert_eq!(rows[0][0].as_f64(), Some(one_number(&db, right).await));
    assert_ne!(
        rows[0][0].as_f64(),
        Some(one_number(&db, wrong).await),
        "the data tells the years apart"
    );
    let correction = correction(&server);
    assert!(
        correction.contains("今年") && correction.contains("2025") && correction.contains("2026-01-01"),
        "{correction}"
    );

    // Twice wrong: not shown.
    let (answer, _) = ask(&demo, vec![no_tool(question), sql(wrong), sql(wrong)], question).await;
    let reasons = user_stop(&answer);
    assert!(reasons.contains("时间范围") && reasons.contains("今年"), "{reasons}");
    assert!(!matches!(answer.outcome, AskOutcome::Answered { .. }));

    // A rewrite that moved the year is what the model understood, not what the user asked.
    let (answer, _) = ask(
        &demo,
        vec![no_tool("2025年华东的销售额是多少"), sql(wrong), sql(wrong)],
        question,
    )
    .await;
    assert!(user_stop(&answer).contains("今年"));
}
