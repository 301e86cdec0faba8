//! `wenshu init --db URL`: read a database's schema and data (read-only), draft `wenshu.toml` and a catalog of
//! metric tools, check the draft with the real loaders (every example built and run), print what was decided and
//! why, and write it — never over existing files without `--force`. `wenshu init --file data.csv` first loads the
//! file into an embedded SQLite database beside the draft ([`file`]).
//!
//! [`schema`] reads tables, columns, keys and comments; [`sample`] reads values and ranges; [`draft`] decides;
//! [`naming`] makes labels from comments; [`examples`] writes sample questions; [`config_text`] writes the toml.

mod config_text;
mod draft;
mod examples;
mod file;
mod naming;
mod sample;
mod schema;
mod xlsx;
mod zip;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::{Value, json};
use wenshu_contract::Catalog;
use wenshu_engine::load_entities;
use wenshu_engine::{ExecContext, Executor};
use wenshu_engine::{MetricBuild, MetricExecutor, MetricValues, SharedValues, build_query};
use wenshu_entity::EntityCatalogs;
use wenshu_sql::db::{Database, redact};

use draft::Draft;

/// `wenshu init` options.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The database to read (`sqlite:PATH`, `postgres://…`, `mysql://…`); only read, never written.
    #[arg(long, value_name = "URL", required_unless_present = "file", conflicts_with = "file")]
    pub db: Option<String>,
    /// CSV files or `.xlsx` workbooks to load into an embedded SQLite database in `--out` (a table per file or
    /// sheet), then draft from.
    #[arg(long, value_name = "FILE")]
    pub file: Vec<PathBuf>,
    /// Only these tables (comma-separated); all tables of the schema when absent.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub tables: Vec<String>,
    /// The folder to write `wenshu.toml` and `catalog.json` into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
    /// Replace existing files.
    #[arg(long)]
    pub force: bool,
}

/// The names of the files `init` writes.
const CONFIG_FILE: &str = "wenshu.toml";
const CATALOG_FILE: &str = "catalog.json";

/// Runs `wenshu init`.
pub fn run(args: InitArgs) -> anyhow::Result<ExitCode> {
    let config_path = args.out.join(CONFIG_FILE);
    let catalog_path = args.out.join(CATALOG_FILE);
    let loaded_path = loaded_db_path(&args);
    let existing: Vec<String> = [Some(&config_path), Some(&catalog_path), loaded_path.as_ref()]
        .into_iter()
        .flatten()
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if !existing.is_empty() && !args.force {
        bail!("{} already exists; pass --force to replace it", existing.join(" and "));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (catalog_text, config_text, decisions) = runtime.block_on(draft_for(&args))?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    write(&catalog_path, &catalog_text)?;
    write(&config_path, &config_text)?;
    for line in &decisions {
        println!("{line}");
    }
    // What `wenshu tools check --config` says of the draft, every example asked end to end; an example another
    // tool answers, or none, is left out of the draft (and named), so the draft's examples are ones it answers.
    let mut reviewed = runtime.block_on(review(&catalog_path, &config_path));
    if let Ok(findings) = &reviewed {
        let misrouted: Vec<(String, String)> = findings
            .iter()
            .filter_map(|f| Some((f.subject.clone(), f.example.clone()?)))
            .collect();
        if !misrouted.is_empty() {
            write(&catalog_path, &without_examples(&catalog_text, &misrouted)?)?;
            for (tool, example) in &misrouted {
                println!("{tool}: example `{example}` left out — tools check: it is not this tool's answer");
            }
            reviewed = runtime.block_on(review(&catalog_path, &config_path));
        }
    }
    match reviewed {
        Ok(findings) if findings.is_empty() => println!("tools check: no findings"),
        Ok(findings) => {
            for f in &findings {
                println!("tools check: {} {}: {}", f.kind, f.subject, f.message);
            }
        }
        Err(e) => println!("tools check could not run: {e:#}"),
    }
    println!(
        "wrote {} and {}; next: wenshu tools check {} --config {} — then wenshu serve --config {}",
        config_path.display(),
        catalog_path.display(),
        catalog_path.display(),
        config_path.display(),
        config_path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The catalog text without the examples `(tool, example)`.
fn without_examples(catalog_text: &str, examples: &[(String, String)]) -> anyhow::Result<String> {
    let mut catalog: serde_json::Value = serde_json::from_str(catalog_text)?;
    for tool in catalog["tools"].as_array_mut().into_iter().flatten() {
        let name = tool["name"].as_str().unwrap_or_default().to_string();
        if let Some(list) = tool.get_mut("x-examples").and_then(serde_json::Value::as_array_mut) {
            list.retain(|e| {
                !examples
                    .iter()
                    .any(|(t, x)| *t == name && e.as_str() == Some(x.as_str()))
            });
        }
    }
    Ok(format!("{}\n", serde_json::to_string_pretty(&catalog)?))
}

/// The findings of `wenshu tools check --config` on the written draft.
async fn review(catalog_path: &Path, config_path: &Path) -> anyhow::Result<Vec<crate::tools_check::Finding>> {
    let catalog = crate::catalog_arg::CatalogArg {
        catalog: Some(catalog_path.to_path_buf()),
    }
    .load()?;
    let today = crate::extract_cmd::resolve_today(None, "UTC")?;
    let entities = std::sync::Arc::new(EntityCatalogs::new());
    let mut findings = crate::tools_check::check(&catalog, entities, today).await;
    findings.extend(crate::tools_check::data_findings(Some(catalog_path), None, &catalog, config_path, today).await?);
    Ok(findings)
}

/// The database `--file` loads into: `OUT/<first file's name>.db`.
fn loaded_db_path(args: &InitArgs) -> Option<PathBuf> {
    let first = args.file.first()?;
    let stem = first.file_stem().and_then(|s| s.to_str()).unwrap_or("data");
    Some(args.out.join(format!("{stem}.db")))
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Reads, drafts and checks: the catalog text, the config text and the decisions.
async fn draft_for(args: &InitArgs) -> anyhow::Result<(String, String, Vec<String>)> {
    let (url, loaded) = match (&args.db, loaded_db_path(args)) {
        (Some(url), _) => (url.clone(), None),
        (None, Some(path)) => {
            std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
            let loaded = file::load(&args.file, &path).await?;
            (loaded.url.clone(), Some(loaded))
        }
        (None, None) => bail!("give --db URL or --file FILE"),
    };
    let db = Database::connect_read_only(&url)
        .await
        .with_context(|| format!("cannot connect to {}", redact(&url)))?;
    let result = draft_on(&db, args, &url, loaded.as_ref()).await;
    db.close().await;
    result
}

async fn draft_on(
    db: &Database,
    args: &InitArgs,
    url: &str,
    loaded: Option<&file::Loaded>,
) -> anyhow::Result<(String, String, Vec<String>)> {
    let mut tables = schema::read_schema(db, &args.tables).await?;
    if tables.is_empty() {
        bail!("{} has no tables to read", redact(url));
    }
    if let Some(loaded) = loaded {
        for table in &mut tables {
            let Some(comments) = loaded.comments.get(&table.name) else {
                continue;
            };
            table.comment = comments.table.clone();
            for column in &mut table.columns {
                column.comment = comments.columns.get(&column.name).cloned();
            }
        }
    }
    let mut samples = HashMap::new();
    for table in &tables {
        let mut found = sample::sample_table(db, table).await?;
        sample::count_joins(db, table, &tables, &mut found).await?;
        samples.insert(table.name.clone(), found);
    }
    let mut draft = draft::draft(&tables, &samples, db.dialect());
    let mut decisions = loaded.map(|l| l.decisions.clone()).unwrap_or_default();
    decisions.push(format!(
        "read {} tables of {} ({})",
        tables.len(),
        redact(url),
        db.dialect().name()
    ));
    decisions.append(&mut draft.decisions);
    if draft.tools.is_empty() {
        bail!(
            "no table looks like a fact table (numbers to measure, and a day column or a foreign key):\n{}",
            decisions.join("\n")
        );
    }
    let entities = load_entity_catalogs(db, &draft).await?;
    let dropped = check_examples(db, &mut draft, &entities).await?;
    decisions.extend(dropped);
    let document = catalog_document(&draft, url);
    Catalog::from_value(&document).context("the drafted catalog does not load (this is a bug of wenshu init)")?;
    let catalog_text = serde_json::to_string_pretty(&document)? + "\n";
    // The catalog by its absolute path: `serve --config` reads it from wherever it is started.
    let catalog_path = std::path::absolute(args.out.join(CATALOG_FILE))?;
    let config_text = config_text::config_text(url, &catalog_path.display().to_string(), &draft);
    toml::from_str::<crate::config::Config>(&config_text)
        .context("the drafted wenshu.toml does not load (this is a bug of wenshu init)")?;
    Ok((catalog_text, config_text, decisions))
}

/// The entity catalogs the draft's entity queries load (run now, as `serve` will).
async fn load_entity_catalogs(db: &Database, draft: &Draft) -> anyhow::Result<EntityCatalogs> {
    let mut entities = EntityCatalogs::new();
    for query in &draft.entity_queries {
        let loaded = load_entities(db, &query.entity_type, &query.query)
            .await
            .with_context(|| format!("the drafted entity query `{}` fails", query.query))?;
        entities.insert(&query.entity_type, loaded);
    }
    Ok(entities)
}

/// Builds and runs every drafted example through the metric tools; an example that does not build or run is
/// dropped and named. Returns the lines saying what was dropped.
async fn check_examples(db: &Database, draft: &mut Draft, entities: &EntityCatalogs) -> anyhow::Result<Vec<String>> {
    let catalog = Catalog::from_value(&json!({"tools": draft.tools}))
        .context("a drafted metric tool does not load (this is a bug of wenshu init)")?;
    let values = MetricValues::load(db, &catalog, entities).await?;
    let shared = SharedValues::new();
    shared.set(values.clone());
    let executor = MetricExecutor::new(db.clone(), shared);
    let today = crate::extract_cmd::resolve_today(None, "UTC")?;
    let mut lines = Vec::new();
    for tool_value in &mut draft.tools {
        let name = tool_value["name"].as_str().unwrap_or_default().to_string();
        let tool = catalog.get(&name).context("a drafted tool went missing")?;
        let dated: &[String] = draft
            .dated_examples
            .iter()
            .find(|(t, _)| *t == name)
            .map_or(&[], |(_, d)| d.as_slice());
        let mut kept = Vec::new();
        for example in tool.extensions().examples.clone() {
            let outcome = match build_query(tool, &values, &example, today) {
                MetricBuild::Query { query } if query.time_range.is_none() && dated.contains(&example) => {
                    Err("its period was not read as a time range".to_string())
                }
                MetricBuild::Query { query } => {
                    let params = wenshu_engine::query_params(&query);
                    match wenshu_contract::bind::bind(tool, &params) {
                        Ok(call) => executor
                            .execute(tool, &call, &ExecContext::new(today))
                            .await
                            .map(|_| ())
                            .map_err(|e| e.to_string()),
                        Err(e) => Err(e.to_string()),
                    }
                }
                MetricBuild::Unmet { reasons } => Err(reasons.join("; ")),
            };
            match outcome {
                Ok(()) => kept.push(Value::String(example)),
                Err(reason) => lines.push(format!("{name}: example `{example}` dropped — {reason}")),
            }
        }
        tool_value["x-examples"] = Value::Array(kept);
    }
    Ok(lines)
}

/// The catalog file: the metric tools and the Text-to-SQL fallback over the tables they read.
fn catalog_document(draft: &Draft, url: &str) -> Value {
    let mut tools = draft.tools.clone();
    tools.push(json!({
        "name": "text_to_sql",
        "title": "兜底：按问题生成 SQL",
        "description": "当固定工具无法回答时，根据问题生成只读 SQL 并执行（限 fallback_tables 中的表）",
        "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}
    }));
    json!({
        "about": format!(
            "Drafted by `wenshu init` from {}: one metric tool per fact-like table. Read it and edit labels, \
             synonyms and examples; `wenshu tools check` lints it.",
            redact(url)
        ),
        "fallback": "text_to_sql",
        "tools": tools,
    })
}
