//! A question that names a value outside the viewer's scope for a tool whose scope is a principal parameter (an
//! HTTP or MCP tool told the viewer's region by code): the tool would answer for the viewer's own value — an answer
//! to another question — so the question is refused (`scope.outside`). The values a scope attribute can take come
//! from the data: the metric dimensions over the columns the row-scope rules bind to that attribute.

use serde_json::Value;
use wenshu_contract::{Catalog, Tool};
use wenshu_lexicon::canonical::canonical;

use super::MetricValues;
use crate::scope::bound::{BoundScope, ScopeRefusal};
use crate::scope::rule::ScopeRules;

/// The refusal for the first value `question` names, of a column scoped by an attribute one of `tool`'s principal
/// parameters takes, that the viewer's scope does not allow; `None` when it names none.
pub fn outside_named(
    tool: &Tool,
    question: &str,
    rules: &ScopeRules,
    scope: &BoundScope,
    catalog: &Catalog,
    values: &MetricValues,
) -> Option<ScopeRefusal> {
    let attributes: Vec<&str> = tool
        .params()
        .iter()
        .filter_map(|spec| spec.principal.as_deref())
        .collect();
    if attributes.is_empty() {
        return None;
    }
    let text = canonical(question);
    for rule in rules.rules() {
        for condition in rule
            .conditions
            .iter()
            .filter(|c| attributes.contains(&c.attribute.as_str()))
        {
            for named in column_values_named(catalog, values, &rule.table, &condition.column, &text) {
                if let Some(refusal) = scope.outside(&rule.table, &condition.column, &[named]) {
                    return Some(refusal);
                }
            }
        }
    }
    None
}

/// The values of `table.column` (as metric dimensions over it read them from the data) that `text` (canonical)
/// spells.
fn column_values_named(catalog: &Catalog, values: &MetricValues, table: &str, column: &str, text: &str) -> Vec<Value> {
    let mut named: Vec<Value> = Vec::new();
    for metric_tool in catalog.tools() {
        let Some(model) = metric_tool.extensions().metrics.as_deref() else {
            continue;
        };
        for (position, dimension) in model.dimensions.iter().enumerate() {
            let over_column = dimension.column.column.eq_ignore_ascii_case(column)
                && model
                    .tables
                    .iter()
                    .any(|t| t.alias == dimension.column.table && t.name.eq_ignore_ascii_case(table));
            if !over_column {
                continue;
            }
            for known in values.values(metric_tool.name(), position) {
                let spelled = known
                    .spellings
                    .iter()
                    .any(|s| !s.is_empty() && text.contains(s.as_str()));
                if spelled && !named.contains(&known.value) {
                    named.push(known.value.clone());
                }
            }
        }
    }
    named
}
