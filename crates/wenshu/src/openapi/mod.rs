//! `wenshu tools import openapi SPEC`: an OpenAPI 3.0/3.1 document (JSON or YAML) → a catalog of HTTP tools,
//! each loaded by the real catalog loader before it is written; what could not be imported is named.
//!
//! [`refs`] inlines `$ref`s; [`convert`] maps operations to tools; [`auth`] maps security schemes to headers read
//! from the environment.

mod auth;
mod convert;
mod refs;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::{Value, json};
use wenshu_contract::Catalog;

/// `wenshu tools import openapi` options.
#[derive(Debug, clap::Args)]
pub struct OpenApiArgs {
    /// The OpenAPI document (`.json`, `.yaml` or `.yml`).
    pub spec: PathBuf,
    /// The base URL the tools call (default: the document's first server).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Only operations with one of these tags (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "TAG,...")]
    pub only: Vec<String>,
    /// Write the catalog here instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace `--out` when it exists.
    #[arg(long)]
    pub force: bool,
}

/// Runs the import.
pub fn run(args: OpenApiArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.spec).with_context(|| format!("cannot read {}", args.spec.display()))?;
    let (document, notes) = import(&text, &args.spec, args.base_url.as_deref(), &args.only)?;
    let catalog = serde_json::to_string_pretty(&document)? + "\n";
    let report = notes.join("\n");
    match &args.out {
        Some(path) => {
            if path.exists() && !args.force {
                bail!("{} already exists; pass --force to replace it", path.display());
            }
            std::fs::write(path, catalog).with_context(|| format!("cannot write {}", path.display()))?;
            println!(
                "{report}\nwrote {}; next: wenshu tools check {}",
                path.display(),
                path.display()
            );
        }
        None => {
            eprintln!("{report}");
            print!("{catalog}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads a document as JSON, else YAML.
fn parse(text: &str, path: &Path) -> anyhow::Result<Value> {
    let yaml = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    if yaml {
        serde_yaml_ng::from_str(text).with_context(|| format!("{} is not YAML", path.display()))
    } else {
        serde_json::from_str(text).with_context(|| format!("{} is not JSON (name a YAML file .yaml)", path.display()))
    }
}

/// The catalog document of an OpenAPI text, and the lines saying what was done and left out.
pub fn import(
    text: &str,
    path: &Path,
    base_url: Option<&str>,
    only: &[String],
) -> anyhow::Result<(Value, Vec<String>)> {
    let raw = parse(text, path)?;
    let version = raw["openapi"].as_str().unwrap_or_default();
    if !version.starts_with("3.") {
        match raw["swagger"].as_str() {
            Some(v) => bail!("Swagger {v} is not read; convert it to OpenAPI 3 first"),
            None => bail!("`openapi` is `{version}`, not 3.0 or 3.1"),
        }
    }
    let mut notes = Vec::new();
    let document = refs::inline_refs(&raw, &mut notes);
    let mut imported = convert::convert(&document, only);
    notes.append(&mut imported.notes);
    if imported.filtered > 0 {
        notes.push(format!(
            "{} operations left out by --only {}",
            imported.filtered,
            only.join(",")
        ));
    }
    let base = base_url.map(str::to_string).or(imported.server_url.clone());
    let mut tools = Vec::new();
    for tool in imported.tools {
        match Catalog::from_value(&json!({"tools": [tool.clone()]})) {
            Ok(_) => tools.push(tool),
            Err(e) => notes.push(format!(
                "tool `{}` not imported — it does not load: {e}",
                tool["name"].as_str().unwrap_or("?")
            )),
        }
    }
    if tools.is_empty() {
        bail!("no operation could be imported:\n{}", notes.join("\n"));
    }
    let title = document["info"]["title"].as_str().unwrap_or("(untitled)");
    notes.insert(
        0,
        format!(
            "{title} (OpenAPI {version}): {} tools, base URL {}",
            tools.len(),
            base.as_deref().unwrap_or("(none: pass --base-url)")
        ),
    );
    notes.push("no x-examples were written: add the questions people ask, then run wenshu tools check".into());
    let document = json!({
        "about": format!("Imported by `wenshu tools import openapi` from {} ({title} {}).", path.display(), document["info"]["version"].as_str().unwrap_or("")),
        "x-openapi": {"title": title, "baseUrl": base, "notes": notes},
        "tools": tools,
    });
    Catalog::from_value(&document).context("the imported catalog does not load (this is a bug of the importer)")?;
    Ok((document, notes))
}
