//! The checks of `wenshu tools check --config wenshu.toml`, which read the configured database: every example
//! asked end to end with the lexicon engine (one answered by another tool, or not answered, is `misrouted`), and
//! every join of a metric tool counted (one that changes its first table's row count is `join`: an inner join on
//! an empty or dangling key drops rows, one on a repeated key counts rows twice).

use std::path::Path;

use anyhow::Context;
use wenshu_contract::Catalog;
use wenshu_contract::metric::MetricModel;
use wenshu_engine::{AskOutcome, AskRequest};
use wenshu_sql::db::{Database, QueryLimits};

use super::{Finding, finding, misrouted_example};
use crate::catalog_arg::CatalogArg;
use crate::config::ModelFlags;
use crate::engine_setup::{EngineChoice, PipelineArgs, engine};

/// The findings that need the data: misrouted examples and joins that change row counts.
pub async fn data_findings(
    catalog_path: Option<&Path>,
    entities_path: Option<&Path>,
    catalog: &Catalog,
    config: &Path,
    today: jiff::civil::Date,
) -> anyhow::Result<Vec<Finding>> {
    let args = PipelineArgs {
        catalog: CatalogArg {
            catalog: catalog_path.map(Path::to_path_buf),
        },
        entities: entities_path.map(Path::to_path_buf),
        engine: EngineChoice::Lexicon,
        model: ModelFlags {
            config: Some(config.to_path_buf()),
            ..ModelFlags::default()
        },
    };
    let mut args = args;
    let loaded = crate::config::Config::load(&args.model)?;
    // The names the examples may use: the flag's file, else the config's (as `wenshu ask` reads them).
    if args.entities.is_none() {
        args.entities = loaded.entities.clone();
    }
    let url = loaded
        .database_url
        .clone()
        .with_context(|| format!("{} names no database_url", config.display()))?;
    let mut findings = Vec::new();
    let db = Database::connect_read_only(&url)
        .await
        .with_context(|| format!("cannot connect to {}", wenshu_sql::db::redact(&url)))?;
    for tool in catalog.tools() {
        if let Some(model) = &tool.extensions().metrics {
            findings.extend(join_counts(&db, tool.name(), model).await?);
        }
    }
    db.close().await;
    let parts = args.parts(&url).await?;
    let engine = engine(parts, &url).await?;
    let fallback = catalog.fallback().map(|t| t.name());
    for tool in catalog.tools().iter().filter(|t| Some(t.name()) != fallback) {
        for example in &tool.extensions().examples {
            let answer = engine.ask(&AskRequest::new(example.as_str(), today)).await;
            let message = match &answer.outcome {
                AskOutcome::Answered { tool: answered, .. } if answered == tool.name() => continue,
                AskOutcome::Answered { tool: answered, .. } => {
                    format!("example `{example}` is answered by `{answered}`")
                }
                other => format!("example `{example}` is not answered ({})", other.kind()),
            };
            findings.push(misrouted_example(tool.name(), example, message));
        }
    }
    Ok(findings)
}

/// A `join` finding for each join of `model` after which its first table's rows are no longer counted once.
async fn join_counts(db: &Database, tool: &str, model: &MetricModel) -> anyhow::Result<Vec<Finding>> {
    let dialect = db.dialect();
    let q = |name: &str| dialect.quote_identifier(name);
    let Some(base) = model.tables.first() else {
        return Ok(Vec::new());
    };
    let from = |upto: usize| -> String {
        let mut sql = format!("{} {}", q(&base.name), q(&base.alias));
        for table in &model.tables[1..=upto] {
            if let Some((left, right)) = &table.join {
                sql.push_str(&format!(
                    " JOIN {} {} ON {}.{} = {}.{}",
                    q(&table.name),
                    q(&table.alias),
                    q(&left.table),
                    q(&left.column),
                    q(&right.table),
                    q(&right.column)
                ));
            }
        }
        sql
    };
    let count = |sql: String| async move {
        let rows = db
            .query(&sql, &[], QueryLimits::default())
            .await
            .with_context(|| format!("counting with `{sql}`"))?
            .rows;
        let n = rows
            .first()
            .and_then(|r| r.first())
            .and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
            .unwrap_or(0);
        anyhow::Ok(n)
    };
    let rows = count(format!("SELECT COUNT(*) FROM {}", from(0))).await?;
    let mut out = Vec::new();
    for (i, table) in model.tables.iter().enumerate().skip(1) {
        let joined = count(format!("SELECT COUNT(*) FROM {}", from(i))).await?;
        if joined != rows {
            let why = if joined < rows {
                "rows whose key is empty or matches nothing are dropped"
            } else {
                "rows whose key repeats there are counted more than once"
            };
            out.push(finding(
                tool,
                "join",
                format!(
                    "joining `{}` turns the {rows} rows of `{}` into {joined} ({why}): every measure over the \
                     model changes — join on a key every row has, or leave the table out",
                    table.alias, base.name
                ),
            ));
            break;
        }
    }
    Ok(out)
}
