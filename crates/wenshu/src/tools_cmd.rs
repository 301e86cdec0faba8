//! `wenshu tools`: list, show and render the tools of a catalog.

use std::process::ExitCode;

use wenshu_contract::render::{Lang, render_tool};
use wenshu_contract::{Catalog, Tool};

use wenshu_mcp::{McpHub, render_server_tools};

use crate::catalog_arg::{CatalogArg, find_tool};
use crate::config::{Config, ModelFlags};

/// What `wenshu tools` can do.
#[derive(Debug, clap::Subcommand)]
pub enum ToolsCommand {
    /// One line per tool: name, title, parameter count and kind; with `--mcp NAME`, what that configured MCP server
    /// offers, rendered as a model reads it.
    List {
        #[command(flatten)]
        catalog: CatalogArg,
        /// A configured MCP server (`[[mcp.servers]]` in the config) to list instead.
        #[arg(long, value_name = "NAME")]
        mcp: Option<String>,
        /// The configuration file naming the MCP servers.
        #[arg(long, value_name = "FILE")]
        config: Option<std::path::PathBuf>,
    },
    /// A tool's parameter table and extensions.
    Show {
        #[command(flatten)]
        catalog: CatalogArg,
        /// The tool's name.
        #[arg(long)]
        tool: String,
    },
    /// The readable definition given to a model (every tool, or one).
    Render {
        #[command(flatten)]
        catalog: CatalogArg,
        /// Only this tool.
        #[arg(long)]
        tool: Option<String>,
        /// `zh` (default) or `en`.
        #[arg(long, default_value = "zh", value_parser = parse_lang)]
        lang: Lang,
    },
    /// Make tools from another description: `wenshu tools import openapi SPEC.yaml`.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Lint a catalog as a reviewer would: confusable tools, misrouted examples, enums without labels,
    /// parameters no example exercises (exit 1 when anything is found).
    Check(crate::tools_check::CheckArgs),
}

/// What `wenshu tools import` reads.
#[derive(Debug, clap::Subcommand)]
pub enum ImportSource {
    /// An OpenAPI 3.0/3.1 document (JSON or YAML): one HTTP tool per operation.
    Openapi(crate::openapi::OpenApiArgs),
}

/// Runs one `wenshu tools` subcommand.
pub fn run(command: ToolsCommand) -> anyhow::Result<ExitCode> {
    match command {
        ToolsCommand::Import {
            source: ImportSource::Openapi(args),
        } => return crate::openapi::run(args),
        ToolsCommand::Check(args) => return crate::tools_check::run(args),
        ToolsCommand::List {
            mcp: Some(server),
            config,
            ..
        } => print!("{}", mcp_tools(&server, config)?),
        ToolsCommand::List { catalog, .. } => print!("{}", list(&catalog.load()?)),
        ToolsCommand::Show { catalog, tool } => {
            print!("{}", show(find_tool(&catalog.load()?, &tool)?))
        }
        ToolsCommand::Render { catalog, tool, lang } => {
            let catalog = catalog.load()?;
            let tools: Vec<&Tool> = match tool {
                Some(name) => vec![find_tool(&catalog, &name)?],
                None => catalog.tools().iter().collect(),
            };
            let rendered: Vec<String> = tools.into_iter().map(|t| render_tool(t, lang)).collect();
            print!("{}", rendered.join("\n"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What one configured MCP server offers, each tool rendered as seed 000 shows.
fn mcp_tools(server: &str, config: Option<std::path::PathBuf>) -> anyhow::Result<String> {
    let flags = ModelFlags {
        config,
        ..ModelFlags::default()
    };
    let config = Config::load(&flags)?;
    let Some(section) = config.mcp.servers.iter().find(|s| s.name == server) else {
        let known: Vec<&str> = config.mcp.servers.iter().map(|s| s.name.as_str()).collect();
        anyhow::bail!(
            "no MCP server `{server}` in the config; configured: {}",
            known.join(", ")
        );
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let hub = McpHub::connect(vec![section.to_config()?]).await?;
        let text = render_server_tools(&hub, server, Lang::Zh)?;
        hub.shutdown().await;
        Ok(text)
    })
}

fn parse_lang(code: &str) -> Result<Lang, String> {
    Lang::from_code(code).ok_or_else(|| format!("`{code}` is not a language; use zh or en"))
}

fn list(catalog: &Catalog) -> String {
    let fallback = catalog.fallback().map(Tool::name);
    let mut out = String::new();
    for tool in catalog.tools() {
        let kind = match (tool.route(), Some(tool.name()) == fallback) {
            (_, true) => "fallback".to_string(),
            (Some(route), _) => format!("http {} {}", route.method, route.template.as_str()),
            (None, _) => "tool".to_string(),
        };
        out.push_str(&format!(
            "{:<18} {:<14} {} params  {}\n",
            tool.name(),
            tool.title().unwrap_or("-"),
            tool.params().len(),
            kind
        ));
    }
    out
}

fn show(tool: &Tool) -> String {
    let mut out = format!(
        "{} — {}\n{}\n\n",
        tool.name(),
        tool.title().unwrap_or("-"),
        tool.description()
    );
    out.push_str(&format!(
        "{:<12} {:<8} {:<9} {:<6} {:<10} allowed\n",
        "param", "type", "required", "in", "default"
    ));
    for spec in tool.params().iter() {
        let location = tool.location_of(spec).map_or("-", |l| l.name());
        let default = spec.default.as_ref().map_or("-".to_string(), plain);
        let allowed: Vec<String> = spec.enum_values.iter().map(plain).collect();
        out.push_str(&format!(
            "{:<12} {:<8} {:<9} {:<6} {:<10} {}\n",
            spec.name,
            spec.ty.name(),
            if spec.required { "yes" } else { "no" },
            location,
            default,
            allowed.join(", ")
        ));
    }
    let ext = tool.extensions();
    if let Some(subject) = &ext.subject {
        out.push_str(&format!(
            "\nsubject: {} fills `{}`\n",
            subject.entity_type, subject.param
        ));
    }
    if let Some(range) = &ext.date_range {
        let default = range.default.as_deref().unwrap_or("-");
        out.push_str(&format!(
            "date range: `{}`..`{}` (default {default})\n",
            range.start, range.end
        ));
    }
    for (param, list) in &ext.enum_synonyms {
        for entry in list {
            out.push_str(&format!(
                "synonyms {param}={}: {}\n",
                entry.value,
                entry.synonyms.join(", ")
            ));
        }
    }
    for example in &ext.examples {
        out.push_str(&format!("example: {example}\n"));
    }
    out
}

fn plain(value: &serde_json::Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}
