//! Building the pipeline from options: catalog, entity catalogs, engine (model or lexicon), database, executors
//! and fallback. Shared by `ask`, `eval` and the server.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use wenshu_contract::Catalog;
use wenshu_engine::Engine;
use wenshu_engine::ModelRouter;
use wenshu_engine::Planner;
use wenshu_engine::Router;
use wenshu_engine::SqlFallback;
use wenshu_engine::load_entities;
use wenshu_engine::{Executors, HttpExecutor, SqlTemplateExecutor};
use wenshu_engine::{Extractor, ModelExtractor};
use wenshu_engine::{LexiconExtractor, LexiconRouter};
use wenshu_engine::{MetricExecutor, SharedValues};
use wenshu_engine::{SchemaNotes, ScopedSchema};
use wenshu_entity::EntityCatalogs;
use wenshu_llm::client::ChatClient;
use wenshu_mcp::{McpExecutor, McpHub};
use wenshu_sql::db::{Database, DbOptions, QueryLimits};
use wenshu_sql::guard::GuardPolicy;

use crate::catalog_arg::CatalogArg;
use crate::config::{Config, ModelFlags};
use crate::data_dir::demo_database;
use crate::extract_cmd::{prompts, resolve_today};

/// Which engine routes and extracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineChoice {
    /// The model when one is configured, else the lexicon.
    Auto,
    /// A chat model (OpenAI-compatible).
    Model,
    /// The catalog, entity catalogs and language knowledge alone.
    Lexicon,
}

/// Where the pipeline's parts come from.
#[derive(Debug, Clone, clap::Args)]
pub struct PipelineArgs {
    #[command(flatten)]
    pub catalog: CatalogArg,
    /// An entity catalog JSON file (`{"movie": [{"id", "name", …}], …}`); the demo's when absent.
    #[arg(long, value_name = "FILE")]
    pub entities: Option<PathBuf>,
    /// The engine that routes and extracts.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: EngineChoice,
    #[command(flatten)]
    pub model: ModelFlags,
}

/// The loaded parts, before a database is attached.
pub struct Parts {
    /// The configuration file.
    pub config: Config,
    /// The catalog (MCP tools included).
    pub catalog: Arc<Catalog>,
    /// The chat client, when a model is configured.
    pub client: Option<Arc<ChatClient>>,
    /// The planner.
    pub planner: Planner,
    /// The extractor the planner uses (also offered by `wenshu mcp`).
    pub extractor: Arc<dyn Extractor>,
    /// The MCP servers of the config, connected.
    pub mcp: Option<Arc<McpHub>>,
    /// The dimension values of metric tools, read from the database by [`engine`].
    pub metric_values: SharedValues,
    /// Where `x-http` tools are called: the config's `[http] base_url`, else the catalog's `x-openapi.baseUrl`.
    pub http_base_url: Option<String>,
    /// Whether `x-http` tools other than GET get an executor (`[http] allow_writes`).
    pub http_allow_writes: bool,
}

impl PipelineArgs {
    /// Takes the config's `catalog` and `entities` files where no flag names one (`serve`, `ask` and `mcp`).
    pub fn take_config_files(&mut self, config: &Config) {
        if self.catalog.catalog.is_none() {
            self.catalog.catalog = config.catalog.clone();
        }
        if self.entities.is_none() {
            self.entities = config.entities.clone();
        }
    }

    /// Loads catalog, entities and engine into a planner; MCP servers are left out (see [`PipelineArgs::parts`]).
    pub fn planner(&self) -> anyhow::Result<Parts> {
        let config = Config::load(&self.model)?;
        let catalog = self.catalog.load()?;
        self.assemble(config, catalog, None, self.load_entities()?)
    }

    /// Like [`PipelineArgs::planner`], with the config's MCP servers connected and their tools in the catalog, and
    /// the config's entity queries run on `database_url`.
    pub async fn parts(&self, database_url: &str) -> anyhow::Result<Parts> {
        let config = Config::load(&self.model)?;
        let mut entities = self.load_entities()?;
        if !config.entity_queries.is_empty() {
            let db = Database::connect_read_only(database_url).await?;
            for query in &config.entity_queries {
                let loaded = load_entities(&db, &query.entity_type, &query.query).await?;
                entities.insert(&query.entity_type, loaded);
            }
            db.close().await;
        }
        let mut catalog = self.catalog.load()?;
        let hub = connect_mcp(&config).await?;
        if let Some(hub) = &hub {
            for refused in crate::config::scope::add_mcp_tools(&config, hub, &mut catalog)? {
                eprintln!("warning: MCP tool refused: {refused:?}");
            }
        }
        self.assemble(config, catalog, hub, entities)
    }

    fn assemble(
        &self,
        config: Config,
        catalog: Catalog,
        mcp: Option<Arc<McpHub>>,
        entities: EntityCatalogs,
    ) -> anyhow::Result<Parts> {
        let http_base_url = match &config.http.base_url {
            Some(url) => Some(url.clone()),
            None => catalog.http_base_url().map(str::to_string),
        };
        let http_allow_writes = config.http.allow_writes;
        let catalog = Arc::new(catalog);
        let entities = Arc::new(entities);
        let client = config.chat_client(&self.model)?;
        let use_model = match self.engine {
            EngineChoice::Model if client.is_none() => {
                bail!(
                    "--engine model needs a chat model: set --llm-base-url and --llm-model (or WENSHU_LLM_*), or [[llm.providers]] in wenshu.toml"
                )
            }
            EngineChoice::Model => true,
            EngineChoice::Lexicon => false,
            EngineChoice::Auto => client.is_some(),
        };
        let metric_values = SharedValues::new();
        let (router, extractor): (Arc<dyn Router>, Arc<dyn Extractor>) = match (&client, use_model) {
            (Some(client), true) => {
                let prompts = Arc::new(prompts(&config)?);
                let strict = config.strict_schema();
                (
                    Arc::new(ModelRouter::new(client.clone(), prompts.clone())),
                    Arc::new(ModelExtractor::new(client.clone(), prompts, strict)),
                )
            }
            _ => (
                Arc::new(LexiconRouter::new(entities.clone())),
                Arc::new(LexiconExtractor::new(entities.clone()).with_metric_values(metric_values.clone())),
            ),
        };
        let planner =
            Planner::new(catalog.clone(), entities, router, extractor.clone()).with_timezone(config.timezone());
        Ok(Parts {
            config,
            catalog,
            client,
            planner,
            extractor,
            mcp,
            metric_values,
            http_base_url,
            http_allow_writes,
        })
    }

    fn load_entities(&self) -> anyhow::Result<EntityCatalogs> {
        match &self.entities {
            None => Ok(EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON)?),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read entity catalog {}", path.display()))?;
                EntityCatalogs::from_json_str(&text).with_context(|| format!("entity catalog {}", path.display()))
            }
        }
    }
}

/// The whole engine over a read-only database: SQL-template executors from the catalog's `x-sql`, and the
/// Text-to-SQL fallback when a model is configured.
pub async fn engine(parts: Parts, database_url: &str) -> anyhow::Result<Engine> {
    let db = Database::connect_read_only(database_url).await?;
    let scope = Arc::new(parts.config.scope_rules()?);
    crate::config::scope::check_scope_columns(&scope, &db).await?;
    let mut executors = Executors::new();
    let sql = SqlTemplateExecutor::new(db.clone(), &parts.catalog)?;
    sql.check_scope(&scope)?;
    executors.register_sql(Arc::new(sql));
    parts
        .metric_values
        .load(&db, parts.catalog.clone(), parts.planner.entities())
        .await?;
    Arc::new(MetricExecutor::new(db.clone(), parts.metric_values.clone())).register_all(&parts.catalog, &mut executors);
    if let Some(hub) = &parts.mcp {
        Arc::new(McpExecutor::new(hub.clone())).register_all(&mut executors);
    }
    register_http(&parts, &mut executors)?;
    let limits = parts.config.limits.query_limits()?;
    let mut engine = Engine::new(parts.planner, Arc::new(executors))
        .with_limits(limits.timeout, limits.row_cap)
        .with_byte_caps(limits.bytes)
        .with_scope(scope)
        .with_metric_values(parts.metric_values.clone());
    if let Some(client) = parts.client {
        let tables = parts.config.fallback_tables();
        // Sample values are read per viewer, through its row scope; every row's once here (a broken database fails now).
        let schema = ScopedSchema::new(Arc::new(db.clone()), tables.clone(), SchemaNotes::default());
        schema.describe(&wenshu_sql::scope::BoundScope::unscoped()).await?;
        let policy = GuardPolicy::new(&tables);
        // The guard's LIMIT is the fallback's row cap.
        let fallback_limits = QueryLimits {
            row_cap: usize::try_from(policy.max_rows).unwrap_or(usize::MAX),
            ..limits
        };
        let fallback_db = fallback_database(&parts.config, database_url, &policy).await?;
        let fallback = SqlFallback::new(
            client,
            Arc::new(prompts(&parts.config)?),
            Arc::new(fallback_db),
            policy,
            String::new(),
        )
        .with_scoped_schema(schema)
        .with_timezone(parts.config.timezone())
        .with_limits(fallback_limits);
        engine = engine.with_fallback(Arc::new(fallback));
    }
    Ok(engine)
}

/// Gives the `x-http` tools one HTTP executor under the base URL (credentials from the environment, as each tool's
/// `x-http-auth` says): GET tools only unless `[http] allow_writes`; tools left without one are named in a warning
/// (asking them then says the tool has no executor).
fn register_http(parts: &Parts, executors: &mut Executors) -> anyhow::Result<()> {
    let (mut tools, mut writes) = (Vec::new(), Vec::new());
    for tool in parts.catalog.tools() {
        match tool.route() {
            Some(route) if route.method == "GET" || parts.http_allow_writes => tools.push(tool.name()),
            Some(_) => writes.push(tool.name()),
            None => {}
        }
    }
    if !writes.is_empty() {
        eprintln!(
            "warning: HTTP tools that change things are not called from questions ({}): set `[http] allow_writes = \
             true` in wenshu.toml to allow them",
            writes.join(", ")
        );
    }
    if tools.is_empty() {
        return Ok(());
    }
    let Some(base_url) = parts.http_base_url.as_deref() else {
        eprintln!(
            "warning: no base URL for the HTTP tools ({}): set `[http] base_url` in wenshu.toml, or import with \
             --base-url; they cannot be called",
            tools.join(", ")
        );
        return Ok(());
    };
    let http: Arc<HttpExecutor> = Arc::new(HttpExecutor::new(base_url).context("the HTTP executor")?);
    for name in tools {
        executors.register(name, http.clone());
    }
    Ok(())
}

/// The fallback's own read-only connection: `fallback_database_url` (else the tools' database), scoped by an
/// authorizer on SQLite, as `fallback_role` on PostgreSQL; what it can read beyond the allowed tables is warned
/// about, or refused with `fallback_require_least_privilege`.
async fn fallback_database(config: &Config, database_url: &str, policy: &GuardPolicy) -> anyhow::Result<Database> {
    let url = config.fallback_database_url.as_deref().unwrap_or(database_url);
    let dialect = wenshu_sql::db::dialect_of(url)?;
    let options = DbOptions {
        read_only: true,
        scope: Some(wenshu_engine::read_scope(policy, dialect)),
        role: config.fallback_role.clone(),
        ..DbOptions::default()
    };
    let db = Database::connect_with(url, &options).await?;
    let beyond = db.tables_beyond(&policy.allowed_tables).await?;
    if !beyond.is_empty() {
        let message = format!(
            "the fallback's connection ({}) can read tables outside fallback_tables: {}; give it a least-privilege \
             account (README: \"A least-privilege account for the fallback\")",
            db.url(),
            beyond.join(", ")
        );
        if config.fallback_require_least_privilege {
            anyhow::bail!("{message} (fallback_require_least_privilege = true)");
        }
        eprintln!("warning: {message}");
    }
    Ok(db)
}

/// The day questions are asked on, and the database the tools query.
pub struct Placement {
    /// A fixed day (`--today`), when given.
    pub fixed_today: Option<jiff::civil::Date>,
    /// The day: the fixed one, else today in the config's time zone.
    pub today: jiff::civil::Date,
    /// The database URL: the flag's, else the config's `database_url`, else the demo database (made on first use).
    pub database_url: String,
}

/// Works out the day and the database from `--today`, `--db` and the config.
pub async fn placement(config: &Config, today: Option<&str>, db: Option<&str>) -> anyhow::Result<Placement> {
    let fixed_today = today.map(|t| resolve_today(Some(t), config.timezone())).transpose()?;
    let today = match fixed_today {
        Some(day) => day,
        None => resolve_today(None, config.timezone())?,
    };
    let database_url = match db.map(str::to_string).or(config.database_url.clone()) {
        Some(url) => url,
        None => demo_database(today).await?,
    };
    Ok(Placement {
        fixed_today,
        today,
        database_url,
    })
}

/// Connects the config's MCP servers (a server that is down only marks its tools unavailable).
pub async fn connect_mcp(config: &Config) -> anyhow::Result<Option<Arc<McpHub>>> {
    if config.mcp.servers.is_empty() {
        return Ok(None);
    }
    let configs = config
        .mcp
        .servers
        .iter()
        .map(|s| s.to_config())
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Some(Arc::new(McpHub::connect(configs).await?)))
}
