//! `x-columns`: how a tool's result columns are shown to people — a label in the catalog's words and an optional
//! unit, by column name. Checked when the catalog loads; read by the page's API.
//!
//! ```json
//! "x-columns": {"amount": {"label": "销售额", "unit": "元"}, "day": "日期"}
//! ```
//!
//! A string is a label alone. Columns without an entry are shown by their name.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::catalog::FieldError;

/// How one result column is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ColumnLabel {
    /// The label (`销售额`).
    pub label: String,
    /// The unit its values are in (`元`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// Reads and checks `x-columns` (absent: no labels).
pub fn read_columns(value: Option<&Value>) -> Result<BTreeMap<String, ColumnLabel>, FieldError> {
    let Some(value) = value else {
        return Ok(BTreeMap::new());
    };
    let Some(object) = value.as_object() else {
        return Err(FieldError::new(
            "x-columns",
            "expected an object of column name to label",
        ));
    };
    let mut labels = BTreeMap::new();
    for (column, entry) in object {
        let field = format!("x-columns.{column}");
        if column.trim().is_empty() {
            return Err(FieldError::new("x-columns", "a column name is empty"));
        }
        let label = match entry {
            Value::String(label) => ColumnLabel {
                label: text(label, &field)?,
                unit: None,
            },
            Value::Object(entry) => {
                if let Some(extra) = entry.keys().find(|k| *k != "label" && *k != "unit") {
                    return Err(FieldError::new(
                        format!("{field}.{extra}"),
                        "unknown field; allowed: label, unit",
                    ));
                }
                let label = match entry.get("label") {
                    Some(Value::String(label)) => text(label, &format!("{field}.label"))?,
                    _ => {
                        return Err(FieldError::new(
                            format!("{field}.label"),
                            "is required and must be a string",
                        ));
                    }
                };
                let unit = match entry.get("unit") {
                    None => None,
                    Some(Value::String(unit)) => Some(text(unit, &format!("{field}.unit"))?),
                    Some(_) => return Err(FieldError::new(format!("{field}.unit"), "must be a string")),
                };
                ColumnLabel { label, unit }
            }
            _ => {
                return Err(FieldError::new(
                    field,
                    "expected a label string or {\"label\", \"unit\"}",
                ));
            }
        };
        labels.insert(column.clone(), label);
    }
    Ok(labels)
}

fn text(value: &str, field: &str) -> Result<String, FieldError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(FieldError::new(field, "must not be empty"));
    }
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_labels_and_units() {
        let labels = read_columns(Some(
            &json!({"amount": {"label": "销售额", "unit": "元"}, "day": "日期"}),
        ))
        .unwrap();
        assert_eq!(labels["amount"].label, "销售额");
        assert_eq!(labels["amount"].unit.as_deref(), Some("元"));
        assert_eq!(labels["day"].unit, None);
        assert!(read_columns(None).unwrap().is_empty());
    }

    #[test]
    fn names_the_field_at_fault() {
        let field = |value: Value| read_columns(Some(&value)).unwrap_err().field;
        assert_eq!(field(json!([])), "x-columns");
        assert_eq!(field(json!({"amount": ""})), "x-columns.amount");
        assert_eq!(field(json!({"amount": {"unit": "元"}})), "x-columns.amount.label");
        assert_eq!(
            field(json!({"amount": {"label": "a", "colour": 1}})),
            "x-columns.amount.colour"
        );
        assert_eq!(
            field(json!({"amount": {"label": "a", "unit": 3}})),
            "x-columns.amount.unit"
        );
        assert_eq!(field(json!({"amount": 3})), "x-columns.amount");
    }
}
