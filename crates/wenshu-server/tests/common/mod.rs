//! A real wenshu server on 127.0.0.1 for the HTTP tests, put together as `wenshu serve` does: the demo SQLite
//! database, the lexicon engine (or a model engine on a loopback model), a SQLite store, `/mcp` beside the API
//! behind the same layers (its `ask` audited in the store), and the listener with its timeouts and connection cap.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use jiff::civil::date;
use wenshu_contract::demo_catalog;
use wenshu_engine::answer::Engine;
use wenshu_engine::db::Database;
use wenshu_engine::execute::{Executors, SqlTemplateExecutor};
use wenshu_engine::extract::{Extractor, ModelExtractor};
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::pipeline::Planner;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::model::ModelRouter;
use wenshu_llm::client::ChatClient;
use wenshu_llm::config::{BreakerConfig, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_mcp::{SessionLimits, WenshuMcpServer};
use wenshu_server::{AppState, ListenSettings, ServerSettings};
use wenshu_store::Store;

/// What a test server is made of.
#[derive(Default)]
pub struct Options {
    /// The server settings (`today` is fixed to 2026-11-29).
    pub settings: ServerSettings,
    /// The listener's timeouts and cap.
    pub listen: ListenSettings,
    /// The MCP session limits.
    pub sessions: SessionLimits,
    /// A loopback model's base URL: the model engine instead of the lexicon.
    pub model: Option<String>,
}

/// A running server.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// `127.0.0.1:PORT`.
    pub address: std::net::SocketAddr,
    /// Its state (limiter sizes, settings).
    pub state: AppState,
    /// Its store.
    pub store: Arc<dyn Store>,
    /// A client with no pooled-connection surprises.
    pub client: reqwest::Client,
    db: std::path::PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.db);
    }
}

/// Starts a server with `options`.
pub async fn start(options: Options) -> Server {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let db = std::env::temp_dir().join(format!("wenshu-http-{}-{nanos}.sqlite", std::process::id()));
    let url = format!("sqlite://{}", db.display());
    wenshu_demo::create_at(&url, date(2026, 11, 29)).await.unwrap();
    let database = Database::connect_read_only(&url).await.unwrap();
    let catalog = Arc::new(demo_catalog().unwrap());
    let entities = Arc::new(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON).unwrap());
    let (planner, extractor): (Planner, Arc<dyn Extractor>) = match &options.model {
        None => {
            let extractor = Arc::new(LexiconExtractor::new(entities.clone()));
            let planner = Planner::new(
                catalog.clone(),
                entities.clone(),
                Arc::new(LexiconRouter::new(entities.clone())),
                extractor.clone(),
            );
            (planner, extractor)
        }
        Some(base) => {
            let provider = ProviderConfig::new("scripted", base.clone(), "m").with_timeout(Duration::from_secs(30));
            let client =
                Arc::new(ChatClient::new(vec![provider], RetryConfig::default(), BreakerConfig::default()).unwrap());
            let prompts = Arc::new(PromptTemplates::embedded());
            let extractor = Arc::new(ModelExtractor::new(client.clone(), prompts.clone(), true));
            let planner = Planner::new(
                catalog.clone(),
                entities.clone(),
                Arc::new(ModelRouter::new(client, prompts)),
                extractor.clone(),
            );
            (planner, extractor)
        }
    };
    let mut executors = Executors::new();
    executors.register_sql(Arc::new(SqlTemplateExecutor::new(database.clone(), &catalog).unwrap()));
    // The metric tools run as `wenshu demo` runs them.
    let values = wenshu_engine::SharedValues::new();
    values.set(
        wenshu_engine::MetricValues::load(&database, &catalog, &entities)
            .await
            .unwrap(),
    );
    Arc::new(wenshu_engine::MetricExecutor::new(database, values)).register_all(&catalog, &mut executors);
    let engine = Engine::new(planner, Arc::new(executors));
    let store = wenshu_store::open_store("sqlite::memory:").await.unwrap();
    let settings = ServerSettings {
        today: Some(date(2026, 11, 29)),
        ..options.settings
    };
    let recorder = Arc::new(wenshu_server::audit::mcp_recorder(Arc::clone(&store)));
    let mcp = WenshuMcpServer::new(Arc::new(engine.clone()), extractor, catalog)
        .with_today(date(2026, 11, 29))
        .with_recorder(recorder);
    let mcp = wenshu_mcp::gated_http_service(
        mcp,
        wenshu_mcp::checked_origins(Vec::new()),
        options.sessions,
        Arc::new(wenshu_server::Principal::session_owner),
    );
    let state = AppState::new(engine, Arc::clone(&store), settings);
    let app = wenshu_server::app_with(state.clone(), "/mcp", mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(wenshu_server::serve_with(listener, app, options.listen));
    Server {
        base: format!("http://{address}"),
        address,
        state,
        store,
        client: reqwest::Client::new(),
        db,
    }
}

/// Settings with these user and admin keys.
pub fn keyed(users: &[&str], admins: &[&str]) -> ServerSettings {
    ServerSettings {
        user_keys: users.iter().map(|k| k.to_string()).collect(),
        admin_keys: admins.iter().map(|k| k.to_string()).collect(),
        ..ServerSettings::default()
    }
}
