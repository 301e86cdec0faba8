//! `wenshu` (问数): ask the data in one sentence. The one binary: tools, bind, parse, eval.

mod ask_cmd;
mod bench_cmd;
mod bench_metrics;
mod bench_server;
mod bench_store;
mod bind_cmd;
mod catalog_arg;
mod config;
mod data_dir;
mod engine_setup;
mod eval_analyst;
mod eval_cmd;
mod eval_plan;
mod extract_cmd;
mod init;
mod mcp_cmd;
mod openapi;
mod parse_cmd;
mod serve_cmd;
mod sql_cmd;
mod tools_check;
mod tools_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// wenshu (问数): turn one sentence into a correct, safe call of a business tool.
#[derive(Debug, Parser)]
#[command(name = "wenshu", version, about)]
struct Cli {
    /// Print debug logs (each bound parameter with its location and raw value) to stderr.
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the demo: the web page and API on the demo database, catalog and (unless a model is set) lexicon engine.
    Demo(Box<serve_cmd::DemoArgs>),
    /// Serve the web page and HTTP API with a configuration (`--config wenshu.toml`).
    Serve(Box<serve_cmd::ServeArgs>),
    /// List, show and render the tools of a catalog.
    Tools {
        #[command(subcommand)]
        command: tools_cmd::ToolsCommand,
    },
    /// Measure: `wenshu bench ask` load-tests a running server's `POST /api/ask`.
    Bench {
        #[command(subcommand)]
        command: bench_cmd::BenchCommand,
    },
    /// Bind raw parameters (or a raw HTTP request) to one validated call of a tool.
    Bind(bind_cmd::BindArgs),
    /// Ask a question: route, resolve, extract, bind, execute (or degrade once), with every step shown.
    Ask(Box<ask_cmd::AskArgs>),
    /// Extract the parameters a question states for one tool (outcome and trace as JSON).
    Extract(Box<extract_cmd::ExtractArgs>),
    /// Serve wenshu as an MCP server on stdio (tools `ask` and `extract`).
    Mcp(Box<mcp_cmd::McpArgs>),
    /// Parse dates, numbers and every span of a sentence with the language knowledge.
    Parse {
        #[command(subcommand)]
        command: parse_cmd::ParseCommand,
    },
    /// Check SQL with the guard (`wenshu sql check --dialect sqlite --tables a,b SQL`).
    Sql {
        #[command(subcommand)]
        command: sql_cmd::SqlCommand,
    },
    /// Run evaluation cases from JSONL files; closes with `N passed, M failed`.
    Eval(eval_cmd::EvalArgs),
    /// Draft `wenshu.toml` and a catalog of metric tools from a database's schema and data (read-only).
    Init(Box<init::InitArgs>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let result = match cli.command {
        Command::Demo(args) => serve_cmd::demo(*args),
        Command::Serve(args) => serve_cmd::serve(*args),
        Command::Tools { command } => tools_cmd::run(command),
        Command::Ask(args) => ask_cmd::run(*args),
        Command::Bench { command } => bench_cmd::run(command),
        Command::Bind(args) => bind_cmd::run(args),
        Command::Extract(args) => extract_cmd::run(*args),
        Command::Mcp(args) => mcp_cmd::run(*args),
        Command::Parse { command } => parse_cmd::run(command),
        Command::Sql { command } => sql_cmd::run(command),
        Command::Eval(args) => eval_cmd::run(args),
        Command::Init(args) => init::run(*args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn init_logging(verbose: bool) {
    let default = if verbose { "debug" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_env("WENSHU_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
