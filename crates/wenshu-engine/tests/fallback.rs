//! Degrade once: every path to the Text-to-SQL fallback against a loopback model server and a real SQLite demo
//! database, and every way it stops.

mod model_support;

use std::path::PathBuf;
use std::sync::Arc;

use jiff::civil::date;
use serde_json::json;
use wenshu_contract::{Catalog, demo_catalog};
use wenshu_engine::answer::{Answer, AskOutcome, Engine};
use wenshu_engine::db::{ByteCaps, Database, QueryLimits};
use wenshu_engine::execute::{Executors, SqlTemplateExecutor};
use wenshu_engine::extract::ModelExtractor;
use wenshu_engine::fallback::SqlFallback;
use wenshu_engine::fallback::schema::{SchemaNotes, describe_schema};
use wenshu_engine::message::Code;
use wenshu_engine::pipeline::{AskRequest, Planner};
use wenshu_engine::plan::Audience;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::model::ModelRouter;
use wenshu_engine::sql_guard::GuardPolicy;
use wenshu_llm::client::ChatClient;
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

const TOP_TEN: &str = "SELECT m.name AS movie, SUM(b.revenue) AS revenue FROM box_office b JOIN movies m ON m.id = b.movie_id \
                       WHERE b.day >= '2026-01-01' GROUP BY m.name ORDER BY revenue DESC LIMIT 10";

struct Demo {
    path: PathBuf,
}

impl Demo {
    async fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("wenshu-fallback-{name}-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&path);
        wenshu_demo::create_at(&format!("sqlite://{}", path.display()), date(2026, 11, 29))
            .await
            .unwrap();
        Self { path }
    }

    /// An engine on the scripted model, `disabled` and every metric tool disabled: these tests exercise the paths
    /// to the fallback, which a metric tool would otherwise answer first (one scripted extraction per metric tool).
    async fn engine(&self, server: &ScriptedChatServer, disabled: &[&str]) -> Engine {
        let (client, prompts) = model(server);
        let catalog = Arc::new(demo_catalog().unwrap());
        let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
        let planner = Planner::new(
            catalog.clone(),
            entities,
            Arc::new(ModelRouter::new(client.clone(), prompts.clone())),
            Arc::new(ModelExtractor::new(client.clone(), prompts.clone(), true)),
        )
        .with_disabled(disabled.iter().map(|s| s.to_string()).chain(metric_tools(&catalog)));
        let db = self.db().await;
        let mut executors = Executors::new();
        let sql = SqlTemplateExecutor::new(db.clone(), &catalog).unwrap();
        executors.register_sql(Arc::new(sql));
        let fallback = self.fallback(server, db).await;
        Engine::new(planner, Arc::new(executors)).with_fallback(Arc::new(fallback))
    }

    /// The demo database, read-only.
    async fn db(&self) -> Database {
        Database::connect_read_only(&format!("sqlite://{}", self.path.display()))
            .await
            .unwrap()
    }

    /// The fallback on the scripted model over `db`, reading the demo's tables.
    async fn fallback(&self, server: &ScriptedChatServer, db: Database) -> SqlFallback {
        let (client, prompts) = model(server);
        let tables: Vec<String> = wenshu_demo::TABLES.iter().map(|t| t.to_string()).collect();
        let schema = describe_schema(&db, &tables, &SchemaNotes::default()).await.unwrap();
        SqlFallback::new(client, prompts, Arc::new(db), GuardPolicy::new(&tables), schema)
    }
}

/// A client of the scripted model (no retries) and the embedded prompts.
fn model(server: &ScriptedChatServer) -> (Arc<ChatClient>, Arc<PromptTemplates>) {
    let client = model_support::client_with(server, None);
    (client, Arc::new(PromptTemplates::embedded()))
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The names of the catalog's metric tools.
fn metric_tools(catalog: &Catalog) -> Vec<String> {
    catalog
        .tools()
        .iter()
        .filter(|t| t.extensions().metrics.is_some())
        .map(|t| t.name().to_string())
        .collect()
}

fn route(tool: Option<&str>, name: Option<&str>, rewritten: &str) -> Reply {
    Reply::content(
        json!({"toolCode": tool, "subjectType": name.map(|_| "movie"), "subjectName": name, "startDate": null,
               "endDate": null, "rewrittenQuestion": rewritten})
        .to_string(),
    )
}

fn sql(text: &str) -> Reply {
    Reply::content(json!({"sql": text, "explanation": "按要求查询"}).to_string())
}

async fn ask(engine: &Engine, question: &str) -> Answer {
    engine
        .ask(&AskRequest {
            question: question.into(),
            history: vec![],
            today: date(2026, 11, 29),
            subject_id: None,
            step_sink: None,
            viewer: wenshu_engine::scope::Viewer::operator(),
        })
        .await
}

fn attempts(answer: &Answer) -> usize {
    answer.trace.step("fallback").unwrap().output_value()["attempts"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn the_top_ten_movies_are_answered_by_the_fallback() {
    let demo = Demo::new("top").await;
    let server = ScriptedChatServer::start(vec![route(None, None, "今年票房最高的十部电影是哪些"), sql(TOP_TEN)]).await;
    let answer = ask(&demo.engine(&server, &[]).await, "今年票房最高的十部电影是哪些").await;
    let AskOutcome::Answered {
        tool,
        rows,
        fell_back,
        sql,
        columns,
        ..
    } = &answer.outcome
    else {
        panic!("{:?}", answer.outcome)
    };
    assert_eq!(tool, "text_to_sql");
    assert_eq!(rows.len(), 10);
    assert_eq!(columns, &["movie", "revenue"]);
    assert!(fell_back.as_deref().unwrap().contains("no tool"));
    assert!(sql.as_deref().unwrap().contains("LIMIT 10"));
    let system = server.requests()[1].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("box_office") && system.contains("2026-11-29") && system.contains("sqlite"),
        "{system}"
    );
    assert!(system.contains("华东"), "enum-like columns carry sample values");
}

#[tokio::test]
async fn an_sql_error_is_corrected_once() {
    let demo = Demo::new("correct").await;
    let server = ScriptedChatServer::start(vec![
        route(None, None, "今年票房最高的十部电影是哪些"),
        sql("SELECT title FROM movies"),
        sql(TOP_TEN),
    ])
    .await;
    let answer = ask(&demo.engine(&server, &[]).await, "今年票房最高的十部电影是哪些").await;
    assert_eq!(answer.outcome.kind(), "answered");
    assert_eq!(attempts(&answer), 2);
    let correction = server.requests()[2].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        correction.contains("SELECT title FROM movies") && correction.contains("title"),
        "{correction}"
    );
}

#[tokio::test]
async fn a_guard_refusal_is_corrected_once() {
    let demo = Demo::new("guard").await;
    let server = ScriptedChatServer::start(vec![
        route(None, None, "删掉所有销售数据"),
        sql("DELETE FROM sales"),
        sql("SELECT COUNT(*) AS n FROM sales"),
    ])
    .await;
    let answer = ask(&demo.engine(&server, &[]).await, "删掉所有销售数据").await;
    assert_eq!(answer.outcome.kind(), "answered");
    let step = &answer.trace.step("fallback").unwrap().output_value();
    assert_eq!(step["attempts"][0]["verdict"]["allowed"], false);
    assert!(step["attempts"][0]["error"].as_str().unwrap().contains("guard"));
    assert_eq!(step["final_sql"], "SELECT COUNT(*) AS n FROM sales LIMIT 1000");
}

#[tokio::test]
async fn both_failing_stops_naming_the_step_and_both_reasons() {
    let demo = Demo::new("both").await;
    let server = ScriptedChatServer::start(vec![
        route(None, None, "今年票房最高的十部电影是哪些"),
        sql("SELECT * FROM users"),
        sql("SELECT nothing FROM movies"),
    ])
    .await;
    let answer = ask(&demo.engine(&server, &[]).await, "今年票房最高的十部电影是哪些").await;
    let AskOutcome::Stopped {
        step,
        reasons,
        messages,
        audience,
        ..
    } = &answer.outcome
    else {
        panic!("{:?}", answer.outcome)
    };
    assert_eq!((step.as_str(), *audience), ("fallback", Audience::User));
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    // The English names what failed in the guard's and the database's words; the Chinese says it in Chinese,
    // with no English sentence from the guard or the database in it.
    assert!(
        messages[1].en.contains("users") && messages[2].en.contains("nothing"),
        "{messages:?}"
    );
    assert_eq!(
        (reasons[1].as_str(), reasons[2].as_str()),
        (
            "兜底未能回答：写出的 SQL 没有通过安全检查，没有执行",
            "兜底未能回答：数据库没能执行写出的 SQL"
        )
    );
    assert_eq!(server.requests().len(), 3, "one correction, never a loop");
}

#[tokio::test]
async fn a_model_that_writes_no_sql_is_heard_once_in_the_users_language() {
    let demo = Demo::new("no-sql").await;
    let said = || Reply::content(json!({"sql": "", "explanation": "数据库里没有天气数据"}).to_string());
    let server = ScriptedChatServer::start(vec![route(None, None, "今天天气怎么样"), said(), said()]).await;
    let answer = ask(&demo.engine(&server, &[]).await, "今天天气怎么样").await;
    let AskOutcome::Stopped { messages, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    // What the model said is the answer the user gets, once, not an English "no SQL statement" twice.
    let failed: Vec<_> = messages.iter().filter(|m| m.code == Code::FallbackFailed).collect();
    assert_eq!(failed.len(), 1, "{messages:?}");
    assert_eq!(failed[0].zh, "兜底未能回答：没有写出 SQL：数据库里没有天气数据");
    assert!(failed[0].en.contains("no SQL was written"), "{:?}", failed[0].en);
}

#[tokio::test]
async fn a_disabled_tool_degrades_and_a_disabled_fallback_stops_for_the_admin() {
    let demo = Demo::new("disabled").await;
    let server = ScriptedChatServer::start(vec![
        route(Some("movie_rating"), Some("满江红"), "满江红的评分是多少"),
        sql("SELECT r.score FROM ratings r JOIN movies m ON m.id = r.movie_id WHERE m.name = '满江红'"),
    ])
    .await;
    let answer = ask(&demo.engine(&server, &["movie_rating"]).await, "满江红的评分是多少").await;
    let AskOutcome::Answered { fell_back, rows, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    assert!(fell_back.as_deref().unwrap().contains("movie_rating"));
    assert_eq!(rows.len(), 1);
    let server = ScriptedChatServer::start(vec![route(None, None, "今年票房最高的十部电影是哪些")]).await;
    let answer = ask(
        &demo.engine(&server, &["text_to_sql"]).await,
        "今年票房最高的十部电影是哪些",
    )
    .await;
    let AskOutcome::Stopped {
        audience, code, hints, ..
    } = &answer.outcome
    else {
        panic!("{:?}", answer.outcome)
    };
    // Outside every tool is the user's to reword; enabling the fallback is a hint for the administrator.
    assert_eq!((*audience, *code), (Audience::User, Code::QuestionOutsideTools));
    assert!(
        hints
            .iter()
            .any(|h| h.code == Code::HintEnableFallback && h.zh.contains("启用兜底工具"))
    );
}

#[tokio::test]
async fn an_unsupported_value_degrades() {
    let demo = Demo::new("unsupported").await;
    let server = ScriptedChatServer::start(vec![
        route(Some("sales_query"), None, "去年华东的销售额"),
        Reply::content(r#"{"region": "华东", "period": "本年"}"#),
        sql("SELECT SUM(amount) AS amount FROM sales WHERE region = '华东' AND day BETWEEN '2025-01-01' AND '2025-12-31'"),
    ])
    .await;
    let answer = ask(&demo.engine(&server, &[]).await, "去年华东的销售额").await;
    let AskOutcome::Answered { fell_back, rows, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    assert!(fell_back.as_deref().unwrap().contains("period"), "{fell_back:?}");
    assert!(rows[0][0].as_f64().unwrap() > 0.0);
}

#[tokio::test]
async fn an_executor_failure_degrades_and_the_fixed_tool_is_not_retried() {
    let demo = Demo::new("executor").await;
    let server = ScriptedChatServer::start(vec![
        route(Some("query_order"), None, "查一下订单 ord_123 发到广东深圳的已发货记录"),
        Reply::content(
            r#"{"orderId": "ord_123", "status": "shipped", "address": {"province": "广东", "city": "深圳"}}"#,
        ),
        sql("SELECT COUNT(*) AS n FROM sales"),
    ])
    .await;
    let answer = ask(
        &demo.engine(&server, &[]).await,
        "查一下订单 ord_123 发到广东深圳的已发货记录",
    )
    .await;
    let AskOutcome::Answered { fell_back, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    assert!(fell_back.as_deref().unwrap().contains("query_order"));
    let executes = answer.trace.steps.iter().filter(|s| s.step == "execute").count();
    assert_eq!(executes, 1);
}

#[tokio::test]
async fn a_dead_model_during_the_fallback_stops_for_the_admin() {
    let demo = Demo::new("dead").await;
    let server = ScriptedChatServer::start(vec![
        route(None, None, "今年票房最高的十部电影是哪些"),
        Reply::status(500, "down"),
    ])
    .await;
    let answer = ask(&demo.engine(&server, &[]).await, "今年票房最高的十部电影是哪些").await;
    let AskOutcome::Stopped { audience, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    assert_eq!(*audience, Audience::Admin);
    assert_eq!(attempts(&answer), 1, "a service failure is not corrected");
}

#[tokio::test]
async fn a_result_over_a_byte_cap_is_not_corrected() {
    let demo = Demo::new("too-large").await;
    let server = ScriptedChatServer::start(vec![
        sql("SELECT name FROM movies"),
        sql("SELECT COUNT(*) AS n FROM movies"),
    ])
    .await;
    let small = QueryLimits {
        bytes: ByteCaps { cell: 1000, result: 20 },
        ..QueryLimits::default()
    };
    let fallback = demo.fallback(&server, demo.db().await).await.with_limits(small);
    let run = fallback.run("有哪些电影", date(2026, 11, 29)).await;
    assert_eq!(run.attempts.len(), 1, "{run:?}");
    assert!(run.attempts[0].over_limit);
    assert!(run.rows.is_none());
    assert!(
        run.reasons[0].contains("too large") && run.reasons[0].contains("max_result_bytes"),
        "{:?}",
        run.reasons
    );
    assert_eq!(server.requests().len(), 1, "no correction is asked for");
}

#[tokio::test]
async fn a_model_sql_too_deep_to_walk_is_refused_and_the_engine_lives_on() {
    // 6,000 `+` terms (12 KB) once overflowed the guard's walk and aborted the server; 60,000 on the correction.
    let deep = |terms: usize| format!("SELECT {} AS n FROM sales", vec!["amount"; terms].join("+"));
    let demo = Demo::new("deep").await;
    let server = ScriptedChatServer::start(vec![
        route(None, None, "今年票房最高的十部电影是哪些"),
        sql(&deep(6_000)),
        sql(&deep(60_000)),
        route(None, None, "今年票房最高的十部电影是哪些"),
        sql(TOP_TEN),
    ])
    .await;
    let engine = demo.engine(&server, &[]).await;
    let answer = ask(&engine, "今年票房最高的十部电影是哪些").await;
    let AskOutcome::Stopped { messages, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    // Two guard refusals are one reason for the user (said once); each is named in the trace.
    assert!(messages[1].en.contains("levels deep"), "{messages:?}");
    assert_eq!(messages.len(), 2, "{messages:?}");
    let step = answer.trace.step("fallback").unwrap().output_value();
    assert!(
        step["attempts"][1]["error"].as_str().unwrap().contains("bytes long"),
        "{step}"
    );
    let next = ask(&engine, "今年票房最高的十部电影是哪些").await;
    assert_eq!(next.outcome.kind(), "answered", "{:?}", next.outcome);
}

#[tokio::test]
async fn the_same_refusal_twice_is_said_once() {
    let demo = Demo::new("twice").await;
    let server = ScriptedChatServer::start(vec![
        route(None, None, "今天天气怎么样"),
        sql("SELECT * FROM sqlite_master"),
        sql("SELECT * FROM sqlite_master"),
    ])
    .await;
    let answer = ask(&demo.engine(&server, &[]).await, "今天天气怎么样").await;
    let AskOutcome::Stopped { messages, .. } = &answer.outcome else {
        panic!("{:?}", answer.outcome)
    };
    let refusals: Vec<_> = messages.iter().filter(|m| m.code == Code::FallbackFailed).collect();
    assert_eq!(refusals.len(), 1, "{messages:?}");
    assert!(refusals[0].en.contains("sqlite_master"), "{messages:?}");
    assert!(
        !refusals[0].zh.contains("sqlite_master") && !refusals[0].zh.contains("guard"),
        "{messages:?}"
    );
    assert_eq!(attempts(&answer), 2, "both tries are in the trace");
}
