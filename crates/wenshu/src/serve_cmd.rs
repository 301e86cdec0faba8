//! `wenshu demo` and `wenshu serve`: the web page and HTTP API.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use wenshu_mcp::{SessionLimits, WenshuMcpServer};
use wenshu_server::timeouts::Timeouts;
use wenshu_server::{AppState, ListenSettings, ServerSettings};

use crate::catalog_arg::CatalogArg;
use crate::config::auth::scope_warnings;
use crate::config::{Config, ModelFlags};
use crate::data_dir::data_dir;
use crate::engine_setup::{EngineChoice, PipelineArgs, engine, placement};

/// Arguments of `wenshu demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on.
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A fixed day for the demo (YYYY-MM-DD); default: today.
    #[arg(long)]
    today: Option<String>,
    #[command(flatten)]
    model: ModelFlags,
    /// Where conversations are kept (hidden: `wenshu bench ask --compare` gives its servers stores of their own).
    #[arg(long, value_name = "URL", hide = true)]
    store: Option<String>,
    /// Keep nothing (hidden: the benchmark's no-store comparison only).
    #[arg(long, hide = true)]
    no_store: bool,
}

/// Arguments of `wenshu serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// The database the tools query; default: the config's `database_url`, else the demo database.
    #[arg(long, value_name = "URL")]
    db: Option<String>,
    /// Where conversations and traces are kept; default: the config's `store_url`, else the data folder.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The address to listen on (default: the config's, else 127.0.0.1).
    #[arg(long)]
    host: Option<String>,
    /// The port to listen on (default: the config's, else 8080).
    #[arg(long)]
    port: Option<u16>,
    /// A fixed day (YYYY-MM-DD); default: today in the time zone.
    #[arg(long)]
    today: Option<String>,
    /// Keep nothing (hidden: the benchmark's no-store comparison only).
    #[arg(long, hide = true)]
    no_store: bool,
}

/// Runs `wenshu demo`: the demo database, the demo catalog, the lexicon engine unless a model is configured.
pub fn demo(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let args = ServeArgs {
        pipeline: PipelineArgs {
            catalog: CatalogArg { catalog: None },
            entities: None,
            engine: EngineChoice::Auto,
            model: args.model,
        },
        db: None,
        store: args.store,
        host: Some(args.host),
        port: Some(args.port),
        today: args.today,
        no_store: args.no_store,
    };
    serve(args)
}

/// Runs `wenshu serve`.
pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(run(args))
}

async fn run(mut args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = Config::load(&args.pipeline.model)?;
    // Who may ask is read first, so that a wrong `[auth]` stops the server before anything is loaded.
    let env = |name: &str| crate::config::env_var(name);
    let principals = config.auth.principals(&env)?;
    let jwt = config.auth.jwt(&env)?;
    args.pipeline.take_config_files(&config);
    let place = placement(&config, args.today.as_deref(), args.db.as_deref()).await?;
    let (fixed_today, database) = (place.fixed_today, place.database_url);
    let parts = args.pipeline.parts(&database).await?;
    let store_url = match args.store.clone().or(config.store_url.clone()) {
        Some(url) => url,
        None => {
            let dir = data_dir();
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
            format!("sqlite://{}", PathBuf::from(&dir).join("wenshu-store.sqlite").display())
        }
    };
    let store: Arc<dyn wenshu_store::Store> = match args.no_store {
        true => Arc::new(crate::bench_store::NoStore),
        false => wenshu_store::open_store_with(&store_url, config.group_commit()?)
            .await
            .context("opening the store")?,
    };
    let store_url = if args.no_store {
        "none (benchmark)".to_string()
    } else {
        store_url
    };
    let has_model = parts.client.is_some();
    let (catalog, extractor) = (parts.catalog.clone(), parts.extractor.clone());
    let engine = engine(parts, &database).await?;
    // The engine that reads questions, and the model's other use when it only serves the fallback.
    let engine_name = match (engine.planner().engine_name(), has_model) {
        ("lexicon", true) => "lexicon, with a model for the fallback".to_string(),
        (name, _) => name.to_string(),
    };
    for name in &config.disabled_tools {
        engine.planner().set_enabled(name, false);
    }
    for state in store.tool_states().await? {
        engine.planner().set_enabled(&state.name, state.enabled);
    }
    let server = &config.server;
    let defaults = ServerSettings::default();
    let secs = |value: Option<u64>, default: Duration| value.map_or(default, Duration::from_secs);
    let (user_keys, admin_keys) = (keys("WENSHU_USER_KEYS"), keys("WENSHU_ADMIN_KEYS"));
    let read = attributes_read(&engine, &catalog);
    let plain_keys = user_keys.len();
    for warning in scope_warnings(&read, &principals, plain_keys, config.auth.jwt.as_ref()) {
        eprintln!("warning: {warning}");
    }
    let auth_line = config
        .auth
        .describe(principals.len(), user_keys.len() + admin_keys.len());
    let settings = ServerSettings {
        user_keys,
        admin_keys,
        principals,
        jwt,
        max_body_bytes: server.max_body_bytes.unwrap_or(defaults.max_body_bytes),
        rate_per_minute: server.rate_per_minute.unwrap_or(0),
        today: fixed_today,
        timezone: config.timezone().to_string(),
        max_turns_per_conversation: server
            .max_turns_per_conversation
            .unwrap_or(defaults.max_turns_per_conversation),
        auth_failures_per_minute: server
            .auth_failures_per_minute
            .unwrap_or(defaults.auth_failures_per_minute),
        timeouts: Timeouts {
            body_read: secs(server.body_read_timeout_secs, defaults.timeouts.body_read),
            request: secs(server.request_timeout_secs, defaults.timeouts.request),
        },
        store_retention_days: config.store_retention(),
        max_page_bytes: server.max_page_bytes.unwrap_or(defaults.max_page_bytes),
        max_page_reads_per_principal: server
            .max_page_reads_per_principal
            .unwrap_or(defaults.max_page_reads_per_principal),
        ..defaults
    };
    let listen_defaults = ListenSettings::default();
    let listen = ListenSettings {
        header_read: secs(server.header_read_timeout_secs, listen_defaults.header_read),
        max_connections: server.max_connections.unwrap_or(listen_defaults.max_connections),
        max_connections_per_address: server
            .max_connections_per_address
            .unwrap_or(listen_defaults.max_connections_per_address),
    };
    let session_defaults = SessionLimits::default();
    let sessions = SessionLimits {
        max_sessions: server.mcp_max_sessions.unwrap_or(session_defaults.max_sessions),
        per_owner: server
            .mcp_max_sessions_per_principal
            .unwrap_or(session_defaults.per_owner),
        idle: secs(server.mcp_session_idle_secs, session_defaults.idle),
    };
    let origins = server.mcp_allowed_origins.clone();
    // Every MCP `ask` is audited in the store, as every `/api/ask` is.
    let recorder = Arc::new(wenshu_server::audit::mcp_recorder(Arc::clone(&store)));
    let extract_recorder = Arc::new(wenshu_server::audit::mcp_extract_recorder(Arc::clone(&store)));
    let mcp = WenshuMcpServer::new(Arc::new(engine.clone()), extractor, catalog)
        .with_recorder(recorder)
        .with_extract_recorder(extract_recorder);
    let mcp = match fixed_today {
        Some(day) => mcp.with_today(day),
        None => mcp,
    };
    let audit_retention = config.audit.retention()?;
    for warning in crate::config::retention_warnings(settings.store_retention_days, audit_retention) {
        eprintln!("warning: {warning}");
    }
    if let Some(days) = settings.store_retention_days {
        wenshu_server::retention::spawn(Arc::clone(&store), days);
    }
    if let Some(days) = audit_retention {
        wenshu_server::retention::spawn_audit(Arc::clone(&store), days);
    }
    let state = AppState::new(engine, Arc::clone(&store), settings);
    let host = args
        .host
        .clone()
        .or(config.server.host.clone())
        .unwrap_or_else(|| "127.0.0.1".into());
    let port = args.port.or(config.server.port).unwrap_or(8080);
    let listener = tokio::net::TcpListener::bind((host.as_str(), port))
        .await
        .with_context(|| format!("cannot listen on {host}:{port}"))?;
    let address = listener.local_addr()?;
    println!(
        "wenshu is serving on http://{address}/  (engine: {engine_name}; database: {}; store: {})",
        redact(&database),
        redact(&store_url)
    );
    // A reader that takes the address line and goes (a closed pipe) must not stop the server: println! would
    // panic on the failed write, so the banner's write may fail quietly.
    let banner = match auth_line {
        Some(line) => format!("requests prove who they are with: {line}"),
        None => "no keys or tokens are configured: every request is anonymous (scoped, no attributes)".to_string(),
    };
    let _ = writeln!(std::io::stdout(), "{banner}");
    let mcp = wenshu_mcp::gated_http_service(
        mcp,
        wenshu_mcp::checked_origins(origins),
        sessions,
        Arc::new(wenshu_server::Principal::session_owner),
    );
    let app = wenshu_server::app_with(state, "/mcp", mcp);
    wenshu_server::serve_with(listener, app, listen).await?;
    Ok(ExitCode::SUCCESS)
}

/// Every attribute of the principal that something reads: the row scopes' rules and the catalog's `x-principal`
/// parameters.
fn attributes_read(engine: &wenshu_engine::Engine, catalog: &wenshu_contract::Catalog) -> Vec<String> {
    let mut read: BTreeSet<String> = engine.scope().attributes().into_iter().map(str::to_string).collect();
    for tool in catalog.names().into_iter().filter_map(|name| catalog.get(name)) {
        read.extend(tool.params().iter().filter_map(|p| p.principal.clone()));
    }
    read.into_iter().collect()
}

/// Comma-separated keys from an environment variable (keys are never written in files or printed).
fn keys(var: &str) -> Vec<String> {
    crate::config::env_var(var)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect()
}

fn redact(url: &str) -> String {
    wenshu_sql::db::redact(url)
}
