//! The configuration file (`wenshu.toml`): model providers, retry and breaker settings, prompt overrides.
//!
//! Looked up in `--config`, then `WENSHU_CONFIG`, then `./wenshu.toml`; every field is optional. Model settings
//! from flags and the environment (`WENSHU_LLM_BASE_URL`, `WENSHU_LLM_API_KEY`, `WENSHU_LLM_MODEL`) replace the
//! first provider's, or make one when the file has none.

pub mod audit;
pub mod auth;
pub mod limits;
pub mod scope;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;
use wenshu_llm::client::ChatClient;
use wenshu_llm::config::{ApiKey, BreakerConfig, OutputMode, ProviderConfig, RetryConfig};

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Chat model settings.
    #[serde(default)]
    pub llm: LlmSection,
    /// The IANA time zone "today" is reckoned in (default Asia/Shanghai).
    pub timezone: Option<String>,
    /// The tool catalog file (default: the demo catalog).
    pub catalog: Option<PathBuf>,
    /// The entity catalog file (default: the demo entities).
    pub entities: Option<PathBuf>,
    /// Entity catalogs loaded by SQL queries on the database (each row an entity: `id`, `name`, optional `aliases`,
    /// other columns as attributes), added to the file's.
    #[serde(default)]
    pub entity_queries: Vec<EntityQuery>,
    /// The database the tools query (`sqlite:PATH`, `postgres://…`, `mysql://…`; default: the demo database).
    pub database_url: Option<String>,
    /// The tables the Text-to-SQL fallback may read (default: the demo's tables).
    #[serde(default)]
    pub fallback_tables: Vec<String>,
    /// The database the Text-to-SQL fallback reads (default: `database_url`); may name a least-privilege account.
    pub fallback_database_url: Option<String>,
    /// PostgreSQL: the role every fallback query runs as (`SET LOCAL ROLE`).
    pub fallback_role: Option<String>,
    /// Refuse to start, instead of warning, when the fallback's connection can read a table outside
    /// `fallback_tables`.
    #[serde(default)]
    pub fallback_require_least_privilege: bool,
    /// Where conversations and traces are kept (`sqlite:PATH` or `postgres://…`; default: a SQLite file in the data
    /// folder).
    pub store_url: Option<String>,
    /// Turns and traces older than this many days are purged (hourly); absent: [`DEFAULT_RETENTION_DAYS`]; 0: kept
    /// forever (with a warning at start).
    pub store_retention_days: Option<u32>,
    /// Group commit: how long, in milliseconds, the store gathers concurrent asks' writes into one transaction
    /// (absent: 1; 0: each write in a transaction of its own; see [`store::group_commit`]).
    pub store_group_commit_ms: Option<f64>,
    /// The most writes one group commit holds (absent: 256).
    pub store_group_commit_max: Option<usize>,
    /// Tools disabled at start (they can be enabled over the API with an admin key).
    #[serde(default)]
    pub disabled_tools: Vec<String>,
    /// `[server]`.
    #[serde(default)]
    pub server: ServerSection,
    /// `[[mcp.servers]]`: MCP servers whose tools join the catalog as `server.tool`.
    #[serde(default)]
    pub mcp: McpSection,
    /// `[http]`: where the catalog's `x-http` tools are called.
    #[serde(default)]
    pub http: HttpSection,
    /// `[auth]`: principals with attributes and JWT bearer tokens (see [`auth`]).
    #[serde(default)]
    pub auth: auth::AuthSection,
    /// `[audit]`: how long the audit log keeps its entries (see [`audit`]).
    #[serde(default)]
    pub audit: audit::AuditSection,
    /// `[limits]`: the time, rows and bytes of one tool call or fallback query (see [`limits`]).
    #[serde(default)]
    pub limits: limits::LimitsSection,
    /// `[scope]`: the row scope of each table (`sales = "region = :user.region"`, see [`scope`]).
    #[serde(default)]
    pub scope: std::collections::BTreeMap<String, String>,
}

/// `[http]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSection {
    /// The base URL of `x-http` tools' paths; replaces the catalog's `x-openapi.baseUrl`.
    pub base_url: Option<String>,
    /// Whether tools that change things (POST, PUT, PATCH, DELETE) may be called from a question (default false:
    /// only GET tools get an executor).
    #[serde(default)]
    pub allow_writes: bool,
}

/// `[mcp]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSection {
    /// The servers, in order.
    #[serde(default)]
    pub servers: Vec<McpServerSection>,
}

/// `[[mcp.servers]]`: a command (stdio) or a URL (streamable HTTP).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSection {
    /// The server's name; its tools become `name.tool`.
    pub name: String,
    /// The command that starts it (stdio).
    pub command: Option<String>,
    /// The command's arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its URL (streamable HTTP), instead of a command.
    pub url: Option<String>,
    /// Seconds one tool call may take (default 30).
    pub call_timeout_secs: Option<u64>,
    /// Whether it is used (default true).
    pub enabled: Option<bool>,
    /// Parameters of this server's tools filled from the asking principal: parameter → attribute
    /// (`principal = { tenant_id = "tenant_id" }`); see [`scope`].
    #[serde(default)]
    pub principal: std::collections::BTreeMap<String, String>,
}

impl McpServerSection {
    /// The client configuration, or why the section is wrong.
    pub fn to_config(&self) -> anyhow::Result<wenshu_mcp::McpServerConfig> {
        let config = match (&self.command, &self.url) {
            (Some(command), None) => wenshu_mcp::McpServerConfig::stdio(&self.name, command, self.args.clone()),
            (None, Some(url)) => wenshu_mcp::McpServerConfig::http(&self.name, url),
            _ => bail!(
                "MCP server `{}`: give exactly one of `command` (stdio) or `url` (streamable HTTP)",
                self.name
            ),
        };
        let config = match self.call_timeout_secs {
            Some(secs) => config.with_call_timeout(Duration::from_secs(secs)),
            None => config,
        };
        Ok(config.with_enabled(self.enabled.unwrap_or(true)))
    }
}

/// `[[entity_queries]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityQuery {
    /// The entity type the rows are (`movie`).
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The query, e.g. `SELECT id, name, year, genre FROM movies`.
    pub query: String,
}

/// `[server]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// The address to listen on (default 127.0.0.1).
    pub host: Option<String>,
    /// The port (default 8080).
    pub port: Option<u16>,
    /// Requests per minute per client (0: no limit).
    pub rate_per_minute: Option<u32>,
    /// The largest request body, in bytes (default 65536).
    pub max_body_bytes: Option<usize>,
    /// The most connections open at once; more get a 503 (default 1024).
    pub max_connections: Option<usize>,
    /// The most connections open at once from one client address; more from it get a 503 (default 128).
    pub max_connections_per_address: Option<usize>,
    /// Seconds a connection may take to send a request head; also how long an idle keep-alive connection is kept
    /// (default 10).
    pub header_read_timeout_secs: Option<u64>,
    /// Seconds the whole request body may take to arrive (default 10).
    pub body_read_timeout_secs: Option<u64>,
    /// Seconds a request may take to be answered (default 60).
    pub request_timeout_secs: Option<u64>,
    /// The most turns one conversation may hold (default 1000).
    pub max_turns_per_conversation: Option<usize>,
    /// The most bytes of turns one conversation page carries (default 1048576).
    pub max_page_bytes: Option<usize>,
    /// The most conversation pages one principal may be reading at once; more get 429 (default 4).
    pub max_page_reads_per_principal: Option<usize>,
    /// Wrong API keys an address may send per minute before it gets 429s (default 10).
    pub auth_failures_per_minute: Option<u32>,
    /// The most MCP sessions live at once on `/mcp` (default 1000).
    pub mcp_max_sessions: Option<usize>,
    /// The most MCP sessions live at once that one principal (key, token, or address without keys) opened; more
    /// get a 429 (default 50).
    pub mcp_max_sessions_per_principal: Option<usize>,
    /// Seconds an MCP session is kept without a request (default 300).
    pub mcp_session_idle_secs: Option<u64>,
    /// Browser origins allowed to call `/mcp` besides loopback (`https://app.example.com:443`).
    #[serde(default)]
    pub mcp_allowed_origins: Vec<String>,
}

/// `[llm]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSection {
    /// Providers in failover order.
    #[serde(default)]
    pub providers: Vec<ProviderSection>,
    /// Ask for strict structured output (every property required and nullable); default true.
    pub strict_schema: Option<bool>,
    /// A folder whose template files replace the shipped prompts of the same names.
    pub prompts_dir: Option<PathBuf>,
    /// Retries per provider.
    pub max_retries: Option<u32>,
    /// Consecutive failed calls that open a provider's circuit breaker.
    pub breaker_failures: Option<u32>,
    /// Seconds an open breaker waits before a trial call.
    pub breaker_cool_down_secs: Option<u64>,
}

/// `[[llm.providers]]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSection {
    /// A name for logs and traces.
    pub name: Option<String>,
    /// The OpenAI-compatible base URL, e.g. `https://api.deepseek.com/v1`.
    pub base_url: Option<String>,
    /// The model name.
    pub model: Option<String>,
    /// The name of an environment variable holding the API key (keys are not written in files).
    pub api_key_env: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// The most tokens to generate.
    pub max_tokens: Option<u32>,
    /// Seconds before a call times out.
    pub timeout_secs: Option<u64>,
    /// `json_schema`, `json_schema_loose`, `json_object`, `plain` or `tool_call`.
    pub output_mode: Option<String>,
}

/// Model settings given on the command line.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct ModelFlags {
    /// The configuration file (default: `WENSHU_CONFIG`, then `./wenshu.toml` if present).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// OpenAI-compatible base URL (env `WENSHU_LLM_BASE_URL`).
    #[arg(long, env = "WENSHU_LLM_BASE_URL")]
    pub llm_base_url: Option<String>,
    /// Model name (env `WENSHU_LLM_MODEL`).
    #[arg(long, env = "WENSHU_LLM_MODEL")]
    pub llm_model: Option<String>,
    /// Output mode: json_schema, json_schema_loose, json_object, plain or tool_call.
    #[arg(long)]
    pub llm_output_mode: Option<String>,
    /// Seconds before a model call times out.
    #[arg(long)]
    pub llm_timeout_secs: Option<u64>,
}

/// How many days turns, traces and audit entries are kept when the configuration names no retention.
pub const DEFAULT_RETENTION_DAYS: u32 = 180;

/// A configured retention as days to keep: absent is [`DEFAULT_RETENTION_DAYS`], 0 is `None` (kept forever).
pub fn retention_of(days: Option<u32>) -> Option<u32> {
    match days {
        None => Some(DEFAULT_RETENTION_DAYS),
        Some(0) => None,
        Some(days) => Some(days),
    }
}

/// The warnings `wenshu serve` prints at start for retentions that keep everything (`store` for turns and traces,
/// `audit` for the audit log, as [`retention_of`] gives them).
pub fn retention_warnings(store: Option<u32>, audit: Option<u32>) -> Vec<String> {
    let mut warnings = Vec::new();
    if store.is_none() {
        warnings.push(
            "store_retention_days = 0 keeps every turn and trace forever: the store grows without bound (about 5 KB \
             a turn) and keeps every question and answer; set a number of days (default 180)"
                .to_string(),
        );
    }
    if audit.is_none() {
        warnings.push(
            "[audit] retention_days = 0 keeps every audit entry forever: the log grows without bound; set a number \
             of days (default 180)"
                .to_string(),
        );
    }
    warnings
}

impl Config {
    /// How long turns and traces are kept, in days (see [`retention_of`]); `None` keeps them forever.
    pub fn store_retention(&self) -> Option<u32> {
        retention_of(self.store_retention_days)
    }

    /// The store's group commit, as `store_group_commit_ms` and `store_group_commit_max` set it.
    pub fn group_commit(&self) -> anyhow::Result<wenshu_store::GroupCommit> {
        store::group_commit(self.store_group_commit_ms, self.store_group_commit_max)
    }

    /// Reads the configuration named by `flags` (or found by default); an absent default file is an empty config.
    pub fn load(flags: &ModelFlags) -> anyhow::Result<Self> {
        let explicit = flags
            .config
            .clone()
            .filter(|path| !path.as_os_str().is_empty())
            .or_else(|| env_var("WENSHU_CONFIG").map(PathBuf::from));
        match explicit {
            Some(path) => Self::read(&path),
            None if Path::new("wenshu.toml").exists() => Self::read(Path::new("wenshu.toml")),
            None => Ok(Self::default()),
        }
    }

    fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("config {}", path.display()))
    }

    /// The providers in failover order, with flags and environment applied to the first.
    pub fn providers(&self, flags: &ModelFlags) -> anyhow::Result<Vec<ProviderConfig>> {
        let mut sections = self.llm.providers.clone();
        let (base_url, model) = (set(&flags.llm_base_url), set(&flags.llm_model));
        let output_mode = set(&flags.llm_output_mode);
        let overridden = base_url.is_some() || model.is_some() || output_mode.is_some();
        if sections.is_empty() && overridden {
            sections.push(ProviderSection::default());
        }
        if let Some(first) = sections.first_mut() {
            first.base_url = base_url.or(first.base_url.take());
            first.model = model.or(first.model.take());
            first.output_mode = output_mode.or(first.output_mode.take());
            first.timeout_secs = flags.llm_timeout_secs.or(first.timeout_secs);
        }
        let env_key = env_var("WENSHU_LLM_API_KEY");
        sections
            .iter()
            .enumerate()
            .map(|(i, section)| provider(section, i, env_key.as_deref()))
            .collect()
    }

    /// The chat client over the providers of the config and flags, when at least one is configured.
    pub fn chat_client(&self, flags: &ModelFlags) -> anyhow::Result<Option<Arc<ChatClient>>> {
        let providers = self.providers(flags)?;
        if providers.is_empty() {
            return Ok(None);
        }
        Ok(Some(Arc::new(ChatClient::new(
            providers,
            self.retry(),
            self.breaker(),
        )?)))
    }

    /// The tables the fallback may read: the configured ones, else the demo database's.
    pub fn fallback_tables(&self) -> Vec<String> {
        if self.fallback_tables.is_empty() {
            wenshu_demo::TABLES.iter().map(|t| t.to_string()).collect()
        } else {
            self.fallback_tables.clone()
        }
    }

    /// Whether to ask for strict structured output (default true).
    pub fn strict_schema(&self) -> bool {
        self.llm.strict_schema.unwrap_or(true)
    }

    /// Retry settings.
    pub fn retry(&self) -> RetryConfig {
        let mut retry = RetryConfig::default();
        if let Some(n) = self.llm.max_retries {
            retry.max_retries = n;
        }
        retry
    }

    /// Circuit breaker settings.
    pub fn breaker(&self) -> BreakerConfig {
        let mut breaker = BreakerConfig::default();
        if let Some(n) = self.llm.breaker_failures {
            breaker.failure_threshold = n;
        }
        if let Some(secs) = self.llm.breaker_cool_down_secs {
            breaker.cool_down = Duration::from_secs(secs);
        }
        breaker
    }

    /// The time zone "today" is reckoned in.
    pub fn timezone(&self) -> &str {
        self.timezone.as_deref().unwrap_or("Asia/Shanghai")
    }
}

/// An environment variable's value; `None` when it is unset, empty or only blanks (`WENSHU_LLM_BASE_URL=` in a
/// shell means "not set", as everywhere in wenshu).
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

/// A flag's value (or its environment variable's, which clap reads even when empty); `None` when empty or blank.
fn set(value: &Option<String>) -> Option<String> {
    value.clone().filter(|value| !value.trim().is_empty())
}

fn provider(section: &ProviderSection, position: usize, env_key: Option<&str>) -> anyhow::Result<ProviderConfig> {
    let name = section
        .name
        .clone()
        .unwrap_or_else(|| format!("provider{}", position + 1));
    let Some(base_url) = section.base_url.clone() else {
        bail!("model provider `{name}`: base_url is not set (flag --llm-base-url, env WENSHU_LLM_BASE_URL or config)")
    };
    let Some(model) = section.model.clone() else {
        bail!("model provider `{name}`: model is not set (flag --llm-model, env WENSHU_LLM_MODEL or config)")
    };
    let mut config = ProviderConfig::new(name.clone(), base_url, model);
    let key = match &section.api_key_env {
        Some(var) => env_var(var),
        None if position == 0 => env_key.map(str::to_string),
        None => None,
    };
    if let Some(key) = key {
        config = config.with_api_key(ApiKey::new(key));
    }
    if let Some(t) = section.temperature {
        config = config.with_temperature(t);
    }
    if let Some(n) = section.max_tokens {
        config = config.with_max_tokens(n);
    }
    if let Some(secs) = section.timeout_secs {
        config = config.with_timeout(Duration::from_secs(secs));
    }
    if let Some(mode) = &section.output_mode {
        config = config.with_output_mode(output_mode(mode).with_context(|| format!("model provider `{name}`"))?);
    }
    Ok(config)
}

fn output_mode(name: &str) -> anyhow::Result<OutputMode> {
    Ok(match name {
        "json_schema" => OutputMode::JsonSchema { strict: true },
        "json_schema_loose" => OutputMode::JsonSchema { strict: false },
        "json_object" => OutputMode::JsonObject,
        "plain" => OutputMode::Plain,
        "tool_call" => OutputMode::ToolCall,
        other => {
            bail!("output_mode `{other}` is not one of json_schema, json_schema_loose, json_object, plain, tool_call")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readmes_server_section_loads_with_its_caps() {
        let readme = include_str!("../../../README.md");
        let start = readme.find("\n[server]\n").expect("README shows [server]");
        let block: String = readme[start + 1..]
            .lines()
            .skip(1)
            .take_while(|line| !line.trim().is_empty() && !line.starts_with('['))
            .map(|line| format!("{line}\n"))
            .collect();
        let server: ServerSection = toml::from_str(&block).unwrap();
        assert_eq!(server.max_connections_per_address, Some(128));
        assert_eq!(server.mcp_max_sessions_per_principal, Some(50));
        assert_eq!(
            (server.max_page_bytes, server.max_page_reads_per_principal),
            (Some(1_048_576), Some(4))
        );
    }

    #[test]
    fn retention_defaults_to_180_days_and_keeping_everything_is_warned_of() {
        let config: Config = toml::from_str("").unwrap();
        assert_eq!(config.store_retention(), Some(180));
        assert_eq!(config.audit.retention().unwrap(), Some(180));
        assert!(retention_warnings(config.store_retention(), config.audit.retention().unwrap()).is_empty());
        let config: Config = toml::from_str("store_retention_days = 30\n[audit]\nretention_days = 400").unwrap();
        assert_eq!(
            (config.store_retention(), config.audit.retention().unwrap()),
            (Some(30), Some(400))
        );
        let config: Config = toml::from_str("store_retention_days = 0\n[audit]\nretention_days = 0").unwrap();
        assert_eq!(
            (config.store_retention(), config.audit.retention().unwrap()),
            (None, None)
        );
        let warnings = retention_warnings(config.store_retention(), config.audit.retention().unwrap());
        assert_eq!(warnings.len(), 2);
        assert!(
            warnings[0].starts_with("store_retention_days = 0 keeps every turn"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("[audit] retention_days = 0 keeps every audit entry"),
            "{warnings:?}"
        );
    }

    #[test]
    fn fallback_tables_default_to_the_demo_and_follow_the_config() {
        let config: Config = toml::from_str("").unwrap();
        assert_eq!(
            config.fallback_tables(),
            wenshu_demo::TABLES.iter().map(|t| t.to_string()).collect::<Vec<_>>()
        );
        let config: Config = toml::from_str("fallback_tables = [\"orders\"]").unwrap();
        assert_eq!(config.fallback_tables(), ["orders"]);
        assert!(
            toml::from_str::<Config>("fallback_table = []").is_err(),
            "unknown fields are refused"
        );
    }
}
