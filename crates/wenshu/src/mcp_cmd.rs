//! `wenshu mcp`: wenshu as an MCP server on standard input and output, offering `ask` and `extract`.

use std::process::ExitCode;
use std::sync::Arc;

use wenshu_mcp::{WenshuMcpServer, serve_stdio};

use crate::config::Config;
use crate::engine_setup::{PipelineArgs, engine, placement};

/// Arguments of `wenshu mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// The database the tools query; the config's `database_url`, else the demo database.
    #[arg(long, value_name = "URL")]
    db: Option<String>,
    /// A fixed day (YYYY-MM-DD); default: today in the time zone.
    #[arg(long)]
    today: Option<String>,
}

/// Serves MCP on stdio until the client closes it. Nothing but the protocol is written to standard output.
pub fn run(mut args: McpArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let config = Config::load(&args.pipeline.model)?;
        args.pipeline.take_config_files(&config);
        let place = placement(&config, args.today.as_deref(), args.db.as_deref()).await?;
        let (fixed_today, database) = (place.fixed_today, place.database_url);
        let parts = args.pipeline.parts(&database).await?;
        let (catalog, extractor) = (parts.catalog.clone(), parts.extractor.clone());
        let engine = engine(parts, &database).await?;
        let server = WenshuMcpServer::new(Arc::new(engine), extractor, catalog);
        let server = match fixed_today {
            Some(day) => server.with_today(day),
            None => server,
        };
        serve_stdio(server).await?;
        Ok(ExitCode::SUCCESS)
    })
}
