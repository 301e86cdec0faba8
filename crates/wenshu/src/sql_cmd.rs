//! `wenshu sql check`: run the SQL guard on one statement.

use std::process::ExitCode;

use serde_json::json;
use wenshu_engine::sql_guard::{GuardPolicy, SqlDialect, check_sql};

/// What `wenshu sql` can do.
#[derive(Debug, clap::Subcommand)]
pub enum SqlCommand {
    /// Print the guarded SQL (exit 0) or why it is refused (exit 1).
    Check {
        /// The dialect of the connection: sqlite, postgres or mysql.
        #[arg(long, value_parser = parse_dialect)]
        dialect: SqlDialect,
        /// The tables the statement may read, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        tables: Vec<String>,
        /// The LIMIT added when there is none, and the cap of a larger one.
        #[arg(long, default_value_t = 1000)]
        max_rows: u64,
        /// Print the whole verdict as JSON.
        #[arg(long)]
        json: bool,
        /// The SQL statement.
        sql: String,
    },
}

fn parse_dialect(name: &str) -> Result<SqlDialect, String> {
    SqlDialect::from_name(name).ok_or_else(|| format!("`{name}` is not a dialect; use sqlite, postgres or mysql"))
}

/// Runs one `wenshu sql` subcommand.
pub fn run(command: SqlCommand) -> anyhow::Result<ExitCode> {
    let SqlCommand::Check {
        dialect,
        tables,
        max_rows,
        json,
        sql,
    } = command;
    let mut policy = GuardPolicy::new(&tables);
    policy.max_rows = max_rows;
    let verdict = check_sql(&sql, dialect, &policy);
    if json {
        println!("{}", serde_json::to_string_pretty(&json!(verdict))?);
    } else if let Some(guarded) = &verdict.sql {
        println!("{guarded}");
    } else {
        println!("refused: {}", verdict.reasons.join("; "));
    }
    Ok(if verdict.allowed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
