//! `wenshu sql check`: run the SQL guard on one statement, given after `--`, as the last argument (also one that
//! starts with a `--` comment), or on standard input (`-`).

use std::io::Read;
use std::process::ExitCode;

use anyhow::{Context, bail};

use serde_json::json;
use wenshu_sql::guard::{Dialect, GuardPolicy, MAX_SQL_BYTES, check_sql};

/// What `wenshu sql` can do.
#[derive(Debug, clap::Subcommand)]
pub enum SqlCommand {
    /// Print the guarded SQL (exit 0) or why it is refused (exit 1).
    Check {
        /// The dialect of the connection: sqlite, postgres or mysql.
        #[arg(long, value_parser = parse_dialect)]
        dialect: Dialect,
        /// The tables the statement may read, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        tables: Vec<String>,
        /// The LIMIT added when there is none, and the cap of a larger one.
        #[arg(long, default_value_t = 1000)]
        max_rows: u64,
        /// Print the whole verdict as JSON: each table, CTE and function resolved, and why it is refused.
        #[arg(long)]
        json: bool,
        /// The SQL statement (words are joined with spaces); `-` reads it from standard input.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 1.., required = true)]
        sql: Vec<String>,
    },
}

fn parse_dialect(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| format!("`{name}` is not a dialect; use sqlite, postgres or mysql"))
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
    let sql = statement_text(&sql)?;
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

/// The statement: standard input for `-`, else the words joined with spaces.
fn statement_text(words: &[String]) -> anyhow::Result<String> {
    if let [only] = words
        && only == "-"
    {
        // One byte past the guard's bound is enough for it to refuse the statement by its size.
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_SQL_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .context("cannot read the SQL from standard input")?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    let text = words.join(" ");
    if text.trim().is_empty() {
        bail!("no SQL given: put it after `--`, or pass `-` to read it from standard input");
    }
    Ok(text)
}
