//! 1,000 concurrent questions through the model engine, against a loopback model that answers after 500 ms: all
//! complete without errors (the server neither serializes them nor drops any).

use std::sync::Arc;
use std::time::Duration;

use jiff::civil::date;
use serde_json::{Value, json};
use wenshu_contract::demo_catalog;
use wenshu_engine::answer::Engine;
use wenshu_engine::db::Database;
use wenshu_engine::execute::{Executors, SqlTemplateExecutor};
use wenshu_engine::extract::ModelExtractor;
use wenshu_engine::pipeline::Planner;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::model::ModelRouter;
use wenshu_llm::client::ChatClient;
use wenshu_llm::config::{BreakerConfig, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_server::{AppState, ServerSettings};
use wenshu_testkit::{Reply, ScriptedChatServer};

const QUESTIONS: usize = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_questions_complete_with_a_slow_model() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let route = json!({"toolCode": "movie_rating", "subjectType": "movie", "subjectName": "满江红", "startDate": null,
                       "endDate": null, "rewrittenQuestion": "满江红的评分是多少"})
    .to_string();
    let model = ScriptedChatServer::start(
        (0..QUESTIONS)
            .map(|_| Reply::delayed(Duration::from_millis(500), route.clone()))
            .collect(),
    )
    .await;
    let path = std::env::temp_dir().join(format!("wenshu-slow-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    wenshu_demo::create_at(&format!("sqlite://{}", path.display()), date(2026, 11, 29))
        .await
        .unwrap();
    let db = Database::connect_read_only(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let provider = ProviderConfig::new("slow", model.base_url(), "m").with_timeout(Duration::from_secs(30));
    let client = Arc::new(ChatClient::new(vec![provider], RetryConfig::default(), BreakerConfig::default()).unwrap());
    let prompts = Arc::new(PromptTemplates::embedded());
    let catalog = Arc::new(demo_catalog().unwrap());
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
    let planner = Planner::new(
        catalog.clone(),
        entities,
        Arc::new(ModelRouter::new(client.clone(), prompts.clone())),
        Arc::new(ModelExtractor::new(client, prompts, true)),
    );
    let mut executors = Executors::new();
    executors.register_sql(Arc::new(SqlTemplateExecutor::new(db, &catalog).unwrap()));
    let store = wenshu_store::open_store("sqlite::memory:").await.unwrap();
    let settings = ServerSettings {
        today: Some(date(2026, 11, 29)),
        ..ServerSettings::default()
    };
    let router = wenshu_server::router(AppState::new(
        Engine::new(planner, Arc::new(executors)),
        store,
        settings,
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    // A thousand clients from one address: the per-address connection cap (a defence against one client) is raised
    // to the global one, which this test is about.
    let listen = wenshu_server::ListenSettings {
        max_connections_per_address: 1024,
        ..wenshu_server::ListenSettings::default()
    };
    tokio::spawn(wenshu_server::serve_with(listener, router, listen));

    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(QUESTIONS)
        .build()
        .unwrap();
    let tasks: Vec<_> = (0..QUESTIONS)
        .map(|_| {
            let http = http.clone();
            let url = format!("{base}/api/ask");
            tokio::spawn(async move {
                let response = http
                    .post(url)
                    .json(&json!({"question": "满江红的评分是多少"}))
                    .send()
                    .await?;
                let status = response.status().as_u16();
                let body: Value = response.json().await?;
                Ok::<_, reqwest::Error>((status, body))
            })
        })
        .collect();
    let mut answered = 0;
    for task in tasks {
        let (status, body) = task.await.unwrap().unwrap();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["kind"], "answered", "{body}");
        assert_eq!(body["params"]["movieId"], 3);
        answered += 1;
    }
    assert_eq!(answered, QUESTIONS);
    assert_eq!(
        model.requests().len(),
        QUESTIONS,
        "one route call per question, nothing retried"
    );
    let _ = std::fs::remove_file(&path);
}
