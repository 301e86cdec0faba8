//! The catalog: every tool wenshu knows, loaded and checked once.

use std::collections::HashMap;

use serde_json::Value;

use crate::extensions::kind_of;
use crate::tool::Tool;

/// The demo catalog shipped inside wenshu (sales, box office, ratings, orders, and the Text-to-SQL fallback).
pub const DEMO_CATALOG_JSON: &str = include_str!("../catalogs/demo.json");

/// A problem with one field of a tool definition: where it is and why it is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The path of the field inside the tool, e.g. `inputSchema.properties.period.default`.
    pub field: String,
    /// Why the field is wrong.
    pub reason: String,
}

impl FieldError {
    /// A problem with `field`, for `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The same problem, with its field placed under `parent`.
    pub fn within(self, parent: &str) -> Self {
        Self {
            field: format!("{parent}.{}", self.field),
            reason: self.reason,
        }
    }
}

/// Why a catalog could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// The text is not JSON.
    #[error("catalog is not valid JSON (line {line}, column {column}): {message}")]
    Json {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// The catalog document itself has the wrong shape.
    #[error("catalog field `{field}`: {reason}")]
    Shape {
        /// The top-level field at fault.
        field: String,
        /// Why it is wrong.
        reason: String,
    },
    /// One tool is broken.
    #[error("catalog tool `{tool}`, field `{field}`: {reason}")]
    Tool {
        /// The tool's name (or its position when it has no usable name).
        tool: String,
        /// The field at fault, inside the tool.
        field: String,
        /// Why it is wrong.
        reason: String,
    },
}

impl CatalogError {
    /// A broken field of the tool named `tool`.
    pub fn in_tool(tool: impl Into<String>, error: FieldError) -> Self {
        Self::Tool {
            tool: tool.into(),
            field: error.field,
            reason: error.reason,
        }
    }
}

/// Every tool wenshu knows, compiled, with the name of the fallback tool.
#[derive(Debug, Default)]
pub struct Catalog {
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    fallback: Option<String>,
    http_base_url: Option<String>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads a catalog from JSON text: an object with `tools` (and optional `fallback`), or a bare array of tools.
    pub fn from_json_str(text: &str) -> Result<Self, CatalogError> {
        let document: Value = serde_json::from_str(text).map_err(|e| CatalogError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        Self::from_value(&document)
    }

    /// Loads a catalog from a parsed JSON document (see [`Catalog::from_json_str`]).
    pub fn from_value(document: &Value) -> Result<Self, CatalogError> {
        let (tools, fallback, http_base_url) = match document {
            Value::Array(tools) => (tools, None, None),
            Value::Object(object) => {
                let tools = object.get("tools").ok_or_else(|| shape("tools", "is required"))?;
                let tools = tools
                    .as_array()
                    .ok_or_else(|| shape("tools", format!("expected an array, got {}", kind_of(tools))))?;
                let fallback = match object.get("fallback") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(name)) => Some(name.clone()),
                    Some(other) => {
                        return Err(shape("fallback", format!("expected a tool name, got {other}")));
                    }
                };
                let base_url = document
                    .pointer("/x-openapi/baseUrl")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|url| !url.is_empty())
                    .map(str::to_string);
                (tools, fallback, base_url)
            }
            other => {
                return Err(shape(
                    "(root)",
                    format!("expected an object or an array, got {}", kind_of(other)),
                ));
            }
        };
        let mut catalog = Self {
            http_base_url,
            ..Self::new()
        };
        for (position, tool) in tools.iter().enumerate() {
            catalog.insert(Tool::compile(tool, position)?)?;
        }
        if let Some(name) = fallback {
            catalog.set_fallback(&name)?;
        }
        Ok(catalog)
    }

    /// Adds one compiled tool; a second tool with the same name is refused, never overwrites.
    pub fn insert(&mut self, tool: Tool) -> Result<(), CatalogError> {
        if self.index.contains_key(tool.name()) {
            return Err(CatalogError::Tool {
                tool: tool.name().to_string(),
                field: "name".into(),
                reason: "another tool already has this name".into(),
            });
        }
        self.index.insert(tool.name().to_string(), self.tools.len());
        self.tools.push(tool);
        Ok(())
    }

    /// Names the fallback tool, which must be in the catalog.
    pub fn set_fallback(&mut self, name: &str) -> Result<(), CatalogError> {
        if !self.index.contains_key(name) {
            return Err(shape("fallback", format!("`{name}` is not a tool of this catalog")));
        }
        self.fallback = Some(name.to_string());
        Ok(())
    }

    /// One tool by name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// Every tool, in the order loaded.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The names of every tool, in the order loaded.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(Tool::name).collect()
    }

    /// The fallback tool, if the catalog names one.
    pub fn fallback(&self) -> Option<&Tool> {
        self.fallback.as_deref().and_then(|name| self.get(name))
    }

    /// The base URL of the catalog's HTTP tools (`x-openapi.baseUrl`, written by `wenshu tools import openapi`),
    /// if it names one.
    pub fn http_base_url(&self) -> Option<&str> {
        self.http_base_url.as_deref()
    }

    /// How many tools the catalog holds.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the catalog holds no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// The demo catalog shipped inside wenshu, loaded and compiled.
pub fn demo_catalog() -> Result<Catalog, CatalogError> {
    Catalog::from_json_str(DEMO_CATALOG_JSON)
}

fn shape(field: &str, reason: impl Into<String>) -> CatalogError {
    CatalogError::Shape {
        field: field.into(),
        reason: reason.into(),
    }
}
