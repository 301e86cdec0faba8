//! The `--catalog` option shared by commands: a JSON file, or the demo catalog shipped inside wenshu.

use std::path::PathBuf;

use anyhow::Context;
use wenshu_contract::{Catalog, Tool, demo_catalog};

/// Where the tools come from.
#[derive(Debug, Clone, clap::Args)]
pub struct CatalogArg {
    /// A catalog JSON file (MCP Tool objects with wenshu's x- extensions); the built-in demo catalog when absent.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
}

impl CatalogArg {
    /// Loads and compiles the catalog; a broken one fails here with the tool, the field and why.
    pub fn load(&self) -> anyhow::Result<Catalog> {
        match &self.catalog {
            None => Ok(demo_catalog()?),
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("cannot read catalog {}", path.display()))?;
                Catalog::from_json_str(&text).with_context(|| format!("catalog {}", path.display()))
            }
        }
    }
}

/// Finds a tool by name, or says which tools exist.
pub fn find_tool<'a>(catalog: &'a Catalog, name: &str) -> anyhow::Result<&'a Tool> {
    catalog
        .get(name)
        .with_context(|| format!("unknown tool `{name}`; known tools: {}", catalog.names().join(", ")))
}
