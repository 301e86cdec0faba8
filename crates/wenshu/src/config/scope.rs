//! `[scope]`: row scope declared once per table, a filter over the table's columns with the principal's
//! attributes:
//!
//! ```toml
//! [scope]
//! sales  = "region = :user.region"
//! orders = "tenant_id = :user.tenant_id AND region IN :user.regions"
//! ```
//!
//! Every path reads a scoped table only through the asking principal's scope: `x-sql` templates and the
//! Text-to-SQL fallback through a scoped subquery, metric tools with the conditions in WHERE; values are bound,
//! never written into the SQL. An admin sees every row; a principal without an attribute a rule reads is refused.
//!
//! An MCP server's tools take parameters from the principal by a mapping in their `[[mcp.servers]]` section
//! (`principal = { tenant_id = "tenant_id" }`, parameter → attribute): each of the server's tools that has the
//! parameter gets `x-principal` on it, so code fills it and the model never sees it.

use anyhow::{Context, bail};
use serde_json::Value;
use wenshu_contract::{Catalog, Tool};
use wenshu_mcp::McpHub;
use wenshu_mcp::client::{RefusedTool, split_namespaced};
use wenshu_sql::scope::ScopeRules;

use super::Config;

impl Config {
    /// The `[scope]` rules, parsed and checked: a bad one fails, naming the table, the text and the grammar.
    pub fn scope_rules(&self) -> anyhow::Result<ScopeRules> {
        ScopeRules::parse(&self.scope).context("wenshu.toml [scope]")
    }
}

/// Checks at start that every scoped table and column can be read on `db` (`SELECT column FROM table WHERE 1 = 0`):
/// a rule naming a column the table lacks fails here, naming the table, the column and the database's answer.
pub async fn check_scope_columns(rules: &ScopeRules, db: &wenshu_sql::db::Database) -> anyhow::Result<()> {
    let quote = |name: &str| db.dialect().quote_identifier(name);
    for rule in rules.rules() {
        let table: Vec<String> = rule.table.split('.').map(quote).collect();
        for condition in &rule.conditions {
            // Qualified, as the scoped SQL writes it (SQLite reads an unknown bare "name" as a string).
            let sql = format!(
                "SELECT {}.{} FROM {} AS {} WHERE 1 = 0",
                quote("wenshu_scoped"),
                quote(&condition.column),
                table.join("."),
                quote("wenshu_scoped")
            );
            if let Err(error) = db.query(&sql, &[], wenshu_sql::db::QueryLimits::default()).await {
                bail!(
                    "wenshu.toml [scope] {}: column `{}` of table `{}` cannot be read: {error}",
                    rule.table,
                    condition.column,
                    rule.table
                );
            }
        }
    }
    Ok(())
}

/// Adds the MCP servers' tools to `catalog`, with each server's `principal` mapping put on its tools as
/// `x-principal`; returns the refused tools. A mapping naming a parameter none of the server's tools has fails.
pub fn add_mcp_tools(config: &Config, hub: &McpHub, catalog: &mut Catalog) -> anyhow::Result<Vec<RefusedTool>> {
    let listed = hub.catalog_tools();
    let mut refused = listed.refused;
    for section in config.mcp.servers.iter().filter(|s| !s.principal.is_empty()) {
        for param in section.principal.keys() {
            let used = listed.tools.iter().any(|(name, tool)| {
                split_namespaced(name).is_some_and(|(server, _)| server == section.name) && tool.param(param).is_some()
            });
            if !used
                && listed
                    .tools
                    .iter()
                    .any(|(name, _)| name.starts_with(&format!("{}.", section.name)))
            {
                bail!(
                    "wenshu.toml [[mcp.servers]] `{}`: principal.{param}: no tool of the server has a parameter `{param}`",
                    section.name
                );
            }
        }
    }
    for (name, tool) in listed.tools {
        let server = split_namespaced(&name).map(|(s, _)| s.to_string()).unwrap_or_default();
        let mapping = config
            .mcp
            .servers
            .iter()
            .find(|s| s.name == server)
            .map(|s| &s.principal)
            .filter(|m| !m.is_empty());
        let tool = match mapping {
            None => tool,
            Some(mapping) => with_principal(tool, mapping)
                .with_context(|| format!("wenshu.toml [[mcp.servers]] `{server}`: principal on tool `{name}`"))?,
        };
        if let Err(error) = catalog.insert(tool) {
            refused.push(RefusedTool {
                server,
                tool: name,
                reason: error.to_string(),
            });
        }
    }
    Ok(refused)
}

/// `tool` compiled again with `x-principal` on each mapped parameter it has.
fn with_principal(tool: Tool, mapping: &std::collections::BTreeMap<String, String>) -> anyhow::Result<Tool> {
    let mut definition = tool.definition().clone();
    let mut changed = false;
    if let Some(Value::Object(properties)) = definition.pointer_mut("/inputSchema/properties") {
        for (param, attribute) in mapping {
            if let Some(Value::Object(property)) = properties.get_mut(param) {
                property.insert("x-principal".into(), Value::String(attribute.clone()));
                changed = true;
            }
        }
    }
    if !changed {
        return Ok(tool);
    }
    Ok(Tool::compile(&definition, 0)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_rules_are_read_and_a_bad_one_names_its_table() {
        let config: Config = toml::from_str("[scope]\nsales = \"region = :user.region\"\n").unwrap();
        let rules = config.scope_rules().unwrap();
        assert!(rules.has_scopes() && rules.rule("sales").is_some());
        let bad: Config = toml::from_str("[scope]\nsales = \"region = 'x'\"\n").unwrap();
        let error = format!("{:#}", bad.scope_rules().unwrap_err());
        assert!(
            error.contains("[scope]") && error.contains("`sales`") && error.contains("region = 'x'"),
            "{error}"
        );
        assert!(!Config::default().scope_rules().unwrap().has_scopes());
    }

    #[tokio::test]
    async fn a_scoped_column_the_table_lacks_fails_at_start() {
        let path = std::env::temp_dir().join(format!("wenshu-scope-columns-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let db = wenshu_sql::db::Database::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        db.execute_batch("CREATE TABLE sales (region TEXT, amount INT)")
            .await
            .unwrap();
        let rules = |text: &str| {
            ScopeRules::parse(&std::collections::BTreeMap::from([(
                "sales".to_string(),
                text.to_string(),
            )]))
            .unwrap()
        };
        check_scope_columns(&rules("region = :user.region"), &db).await.unwrap();
        let error = check_scope_columns(&rules("tenant = :user.tenant"), &db)
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("[scope] sales") && error.contains("`tenant`"), "{error}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_principal_mapping_marks_the_parameter() {
        let catalog = Catalog::from_value(&serde_json::json!([{
            "name": "crm.orders",
            "description": "orders",
            "inputSchema": {"type": "object", "required": ["tenant"], "properties": {
                "tenant": {"type": "string"}, "status": {"type": "string"}
            }}
        }]))
        .unwrap();
        let definition = catalog.get("crm.orders").unwrap().definition().clone();
        let tool = || Tool::compile(&definition, 0).unwrap();
        let mapping = std::collections::BTreeMap::from([("tenant".to_string(), "tenant_id".to_string())]);
        let marked = with_principal(tool(), &mapping).unwrap();
        assert_eq!(marked.param("tenant").unwrap().principal.as_deref(), Some("tenant_id"));
        assert!(marked.param("status").unwrap().principal.is_none());
        let none = std::collections::BTreeMap::from([("other".to_string(), "x".to_string())]);
        assert!(
            with_principal(tool(), &none)
                .unwrap()
                .param("tenant")
                .unwrap()
                .principal
                .is_none()
        );
    }
}
