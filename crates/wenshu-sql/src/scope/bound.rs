//! Rules bound to one viewer: the values each scoped table's rows must have, or why the table is denied; and the
//! refusals a question outside the scope gets.

use serde::Serialize;
use serde_json::Value;

use super::Viewer;
use super::rule::{ScopeRules, TableRule, table_key};

/// Why a question is refused by row scope, with its stop code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{en}")]
pub struct ScopeRefusal {
    /// `scope.denied` (an attribute a rule or parameter needs is missing), `scope.outside` (a value outside the
    /// viewer's scope was asked for).
    pub code: &'static str,
    /// What the user reads, in Chinese: what was asked and what the scope is.
    pub zh: String,
    /// The same in English.
    pub en: String,
    /// The parts of the text (`table`, `column`, `attribute`, `asked`, `scope`, `tool`, `param`).
    pub params: Vec<(&'static str, String)>,
}

/// Stop code: the viewer lacks an attribute a table's rule or a principal parameter needs.
pub const DENIED: &str = "scope.denied";
/// Stop code: the question asks for rows outside the viewer's scope.
pub const OUTSIDE: &str = "scope.outside";

/// One condition with the viewer's values: the column must equal one of `values`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundCondition {
    /// The column.
    pub column: String,
    /// The attribute the values come from.
    pub attribute: String,
    /// The allowed values (one, or an array attribute's several; never empty).
    pub values: Vec<Value>,
}

impl BoundCondition {
    /// Whether `value` is one of the allowed values (`7` and `"7"` are the same value).
    pub fn allows(&self, value: &Value) -> bool {
        self.values.iter().any(|v| same_value(v, value))
    }

    /// The allowed values as text, joined with 、.
    pub fn values_text(&self) -> String {
        self.values.iter().map(value_text).collect::<Vec<_>>().join("、")
    }
}

/// What a viewer may read of one scoped table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "access", rename_all = "snake_case")]
pub enum TableAccess {
    /// The rows where every condition holds.
    Rows {
        /// The conditions, in the rule's order.
        conditions: Vec<BoundCondition>,
    },
    /// No row: the viewer lacks a value the rule needs.
    Denied {
        /// The attribute.
        attribute: String,
        /// Why (missing, empty, not a scalar).
        why: String,
    },
}

/// One scoped table, bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundTable {
    /// The table as configured.
    pub table: String,
    /// The rule as written.
    pub rule: String,
    /// What the viewer may read.
    #[serde(flatten)]
    pub access: TableAccess,
}

/// Every rule bound to one viewer; empty for an unscoped viewer or when no rule exists.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BoundScope {
    tables: Vec<BoundTable>,
}

impl ScopeRules {
    /// Binds every rule to `viewer`: an unscoped viewer gets no filter; a scoped one gets its attributes' values,
    /// and a table whose rule needs an attribute the viewer lacks (or has empty, or not as strings, numbers or
    /// booleans) is denied — never widened.
    pub fn bind(&self, viewer: &Viewer) -> BoundScope {
        if viewer.unscoped {
            return BoundScope::unscoped();
        }
        BoundScope {
            tables: self.rules().iter().map(|rule| bind_rule(rule, viewer)).collect(),
        }
    }
}

fn bind_rule(rule: &TableRule, viewer: &Viewer) -> BoundTable {
    let mut conditions = Vec::new();
    let mut access = None;
    for condition in &rule.conditions {
        match attribute_values(viewer.attribute(&condition.attribute)) {
            Ok(values) => conditions.push(BoundCondition {
                column: condition.column.clone(),
                attribute: condition.attribute.clone(),
                values,
            }),
            Err(why) => {
                access = Some(TableAccess::Denied {
                    attribute: condition.attribute.clone(),
                    why,
                });
                break;
            }
        }
    }
    BoundTable {
        table: rule.table.clone(),
        rule: rule.text.clone(),
        access: access.unwrap_or(TableAccess::Rows { conditions }),
    }
}

/// The values an attribute allows, or why it allows none.
fn attribute_values(value: Option<&Value>) -> Result<Vec<Value>, String> {
    let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
    match value {
        None => Err("missing".into()),
        Some(Value::Array(items)) if items.is_empty() => Err("empty".into()),
        Some(Value::Array(items)) if items.iter().all(scalar) => {
            let mut values: Vec<Value> = Vec::new();
            for item in items {
                if !values.iter().any(|v| same_value(v, item)) {
                    values.push(item.clone());
                }
            }
            Ok(values)
        }
        Some(v) if scalar(v) => Ok(vec![v.clone()]),
        Some(_) => Err("not a string, number, boolean or array of them".into()),
    }
}

impl BoundScope {
    /// No filter at all.
    pub fn unscoped() -> Self {
        Self::default()
    }

    /// Whether nothing is filtered or denied.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The bound tables, in rule order.
    pub fn tables(&self) -> &[BoundTable] {
        &self.tables
    }

    /// The bound rule of a table, matched by its bare name ignoring ASCII case.
    pub fn table(&self, name: &str) -> Option<&BoundTable> {
        let key = table_key(name);
        self.tables.iter().find(|t| table_key(&t.table) == key)
    }

    /// The conditions rows of `table` must meet: `Ok(None)` when the table is not scoped, the refusal when it is
    /// denied.
    pub fn conditions(&self, table: &str) -> Result<Option<&[BoundCondition]>, ScopeRefusal> {
        match self.table(table) {
            None => Ok(None),
            Some(bound) => match &bound.access {
                TableAccess::Rows { conditions } => Ok(Some(conditions)),
                TableAccess::Denied { attribute, why } => Err(denied(&bound.table, attribute, why)),
            },
        }
    }

    /// Refuses when any of `tables` is denied to the viewer.
    pub fn check_tables<'a>(&self, tables: impl IntoIterator<Item = &'a str>) -> Result<(), ScopeRefusal> {
        for table in tables {
            self.conditions(table)?;
        }
        Ok(())
    }

    /// The refusal of asking for `values` of `table.column` when some of them are outside the scope.
    pub fn outside(&self, table: &str, column: &str, values: &[Value]) -> Option<ScopeRefusal> {
        let conditions = self.conditions(table).ok().flatten()?;
        let condition = conditions.iter().find(|c| c.column.eq_ignore_ascii_case(column))?;
        let asked: Vec<String> = values
            .iter()
            .filter(|v| !v.is_null() && !condition.allows(v))
            .map(value_text)
            .collect();
        if asked.is_empty() {
            return None;
        }
        let scope_text = condition.values_text();
        Some(ScopeRefusal {
            code: OUTSIDE,
            zh: format!(
                "超出数据范围：你问的 {column} = {} 不在你可见的范围内（{column}：{scope_text}），不能查询",
                asked.join("、"),
            ),
            en: format!(
                "Outside your data scope: {column} = {} is not within what you may see ({column}: {scope_text})",
                asked.join(", "),
            ),
            params: vec![
                ("table", bound_name(self, table)),
                ("column", column.to_string()),
                ("asked", asked.join("、")),
                ("scope", scope_text),
            ],
        })
    }
}

fn bound_name(scope: &BoundScope, table: &str) -> String {
    scope
        .table(table)
        .map_or_else(|| table.to_string(), |t| t.table.clone())
}

/// The refusal of a table whose rule needs an attribute the viewer lacks.
pub fn denied(table: &str, attribute: &str, why: &str) -> ScopeRefusal {
    let zh_why = match why {
        "missing" => "没有这个属性",
        "empty" => "的这个属性为空",
        _ => "的这个属性不是可比较的值",
    };
    let en_why = match why {
        "missing" => "does not have".to_string(),
        other => format!("has {other} as"),
    };
    ScopeRefusal {
        code: DENIED,
        zh: format!("数据范围：表 {table} 按身份属性 {attribute} 限定可见的行，而你的身份{zh_why}，不能查询"),
        en: format!(
            "Row scope: table {table} shows the rows of attribute `{attribute}`, which your identity {en_why} it; it cannot be read"
        ),
        params: vec![("table", table.to_string()), ("attribute", attribute.to_string())],
    }
}

/// Whether two scalar values are the same value (`7` and `"7"` are).
pub fn same_value(a: &Value, b: &Value) -> bool {
    a == b || (!a.is_array() && !a.is_object() && !b.is_array() && !b.is_object() && value_text(a) == value_text(b))
}

/// A scalar as plain text.
pub fn value_text(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    fn rules() -> ScopeRules {
        ScopeRules::parse(&BTreeMap::from([
            ("sales".to_string(), "region = :user.region".to_string()),
            (
                "orders".to_string(),
                "tenant_id = :user.tenant_id AND region IN :user.region".to_string(),
            ),
        ]))
        .unwrap()
    }

    fn viewer(attributes: serde_json::Value) -> Viewer {
        let map: BTreeMap<String, Value> = serde_json::from_value(attributes).unwrap();
        Viewer::scoped(Some("k".into()), map)
    }

    #[test]
    fn an_unscoped_viewer_gets_no_filter() {
        let bound = rules().bind(&Viewer::operator());
        assert!(bound.is_empty());
        assert_eq!(bound.conditions("sales"), Ok(None));
    }

    #[test]
    fn a_scoped_viewer_gets_its_values_and_is_denied_what_it_lacks() {
        let bound = rules().bind(&viewer(json!({"region": ["华东", "华北", "华东"]})));
        let sales = bound.conditions("SALES").unwrap().unwrap();
        assert_eq!(sales[0].values, vec![json!("华东"), json!("华北")]);
        let refusal = bound.conditions("orders").unwrap_err();
        assert_eq!(refusal.code, DENIED);
        assert!(refusal.zh.contains("tenant_id") && refusal.en.contains("orders"));
        assert!(bound.check_tables(["sales"]).is_ok() && bound.check_tables(["sales", "orders"]).is_err());
        for bad in [
            json!({"region": []}),
            json!({"region": null}),
            json!({"region": {"a": 1}}),
        ] {
            assert!(rules().bind(&viewer(bad.clone())).conditions("sales").is_err(), "{bad}");
        }
    }

    #[test]
    fn values_outside_the_scope_are_named() {
        let bound = rules().bind(&viewer(json!({"region": "华东", "tenant_id": 7})));
        assert!(bound.outside("sales", "region", &[json!("华东")]).is_none());
        let refusal = bound.outside("sales", "Region", &[json!("华南")]).unwrap();
        assert_eq!(refusal.code, OUTSIDE);
        assert!(
            refusal.zh.contains("华南") && refusal.zh.contains("华东"),
            "{}",
            refusal.zh
        );
        assert!(
            refusal.en.contains("华南") && refusal.en.contains("华东"),
            "{}",
            refusal.en
        );
        assert!(bound.outside("orders", "tenant_id", &[json!("7")]).is_none());
        assert!(bound.outside("orders", "tenant_id", &[json!(8)]).is_some());
        assert!(bound.outside("other", "region", &[json!("华南")]).is_none());
    }
}
