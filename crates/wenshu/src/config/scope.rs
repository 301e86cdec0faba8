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

use anyhow::Context;
use wenshu_engine::scope::ScopeRules;

use super::Config;

impl Config {
    /// The `[scope]` rules, parsed and checked: a bad one fails, naming the table, the text and the grammar.
    pub fn scope_rules(&self) -> anyhow::Result<ScopeRules> {
        ScopeRules::parse(&self.scope).context("wenshu.toml [scope]")
    }
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
}
