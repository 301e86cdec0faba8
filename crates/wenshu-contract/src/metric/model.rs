//! Reading and checking `x-metrics`: every column known, every expression an aggregate, every name unique.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::expr::parse_measure;
use super::{
    ColumnRef, Dimension, DimensionValues, Grain, Measure, MetricModel, MetricTable, Reaggregate, TimeColumn, TimeType,
};
use crate::catalog::FieldError;
use crate::extensions::{expect_object, kind_of, read_string_list};

const FIELD: &str = "x-metrics";

/// Reads and checks a tool's `x-metrics`, when it has one.
pub fn read_metrics(value: Option<&Value>) -> Result<Option<MetricModel>, FieldError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let object = expect_object(value, FIELD)?;
    allow_keys(object, FIELD, &["from", "time", "measures", "dimensions"])?;
    let tables = read_tables(object.get("from"))?;
    let time = object.get("time").map(|t| read_time(t, &tables)).transpose()?;
    let measures = read_list(object.get("measures"), "measures", |v, f| read_measure(v, f, &tables))?;
    if measures.is_empty() {
        return Err(FieldError::new(
            format!("{FIELD}.measures"),
            "at least one measure is required",
        ));
    }
    let dimensions = read_list(object.get("dimensions"), "dimensions", |v, f| {
        read_dimension(v, f, &tables)
    })?;
    let model = MetricModel {
        tables,
        time,
        measures,
        dimensions,
    };
    check_unique_names(&model)?;
    Ok(Some(model))
}

fn read_tables(value: Option<&Value>) -> Result<Vec<MetricTable>, FieldError> {
    let field = format!("{FIELD}.from");
    let items = value
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| FieldError::new(&field, "expected a non-empty array of tables"))?;
    let mut tables: Vec<MetricTable> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let f = format!("{field}[{i}]");
        let object = expect_object(item, &f)?;
        allow_keys(object, &f, &["table", "alias", "columns", "on"])?;
        let name = table_name(object.get("table"), &format!("{f}.table"))?;
        let alias = match object.get("alias") {
            None => identifier(Some(&Value::String(name.clone())), &format!("{f}.alias")).map_err(|_| {
                FieldError::new(
                    format!("{f}.alias"),
                    format!("table `{name}` is no identifier: give it an `alias` (ASCII letters, digits and `_`)"),
                )
            })?,
            Some(v) => identifier(Some(v), &format!("{f}.alias"))?,
        };
        if tables.iter().any(|t| t.alias == alias) {
            return Err(FieldError::new(
                format!("{f}.alias"),
                format!("alias `{alias}` is used twice"),
            ));
        }
        let columns = read_string_list(object.get("columns"), &format!("{f}.columns"))?;
        if columns.is_empty() {
            return Err(FieldError::new(format!("{f}.columns"), "list the table's columns"));
        }
        for (j, c) in columns.iter().enumerate() {
            identifier(Some(&Value::String(c.clone())), &format!("{f}.columns[{j}]"))?;
        }
        let table = MetricTable {
            name,
            alias,
            columns,
            join: None,
        };
        let join = match (i, object.get("on")) {
            (0, None) => None,
            (0, Some(_)) => return Err(FieldError::new(format!("{f}.on"), "the first table joins nothing")),
            (_, None) => return Err(FieldError::new(format!("{f}.on"), "a joined table needs `on`")),
            (_, Some(on)) => Some(read_join(on, &format!("{f}.on"), &tables, &table)?),
        };
        tables.push(MetricTable { join, ..table });
    }
    Ok(tables)
}

fn read_join(
    value: &Value,
    field: &str,
    earlier: &[MetricTable],
    this: &MetricTable,
) -> Result<(ColumnRef, ColumnRef), FieldError> {
    let sides = read_string_list(Some(value), field)?;
    let [left, right] = sides.as_slice() else {
        return Err(FieldError::new(
            field,
            "expected two columns, [earlier.column, this.column]",
        ));
    };
    let left = resolve_column(left, earlier).map_err(|r| FieldError::new(field, r))?;
    let right = resolve_column(right, std::slice::from_ref(this)).map_err(|r| FieldError::new(field, r))?;
    Ok((left, right))
}

fn read_time(value: &Value, tables: &[MetricTable]) -> Result<TimeColumn, FieldError> {
    let field = format!("{FIELD}.time");
    let object = expect_object(value, &field)?;
    allow_keys(object, &field, &["column", "type", "grains", "label"])?;
    let column = column_field(object.get("column"), &format!("{field}.column"), tables)?;
    let ty = match object.get("type").and_then(Value::as_str) {
        None | Some("text") => TimeType::Text,
        Some("date") => TimeType::Date,
        Some("timestamp") => TimeType::Timestamp,
        Some(other) => {
            return Err(FieldError::new(
                format!("{field}.type"),
                format!(
                    "`{other}` is not a time type; allowed are text (ISO days), date and timestamp (read as its day)"
                ),
            ));
        }
    };
    let names = read_string_list(object.get("grains"), &format!("{field}.grains"))?;
    let grains = if names.is_empty() {
        Grain::ALL.to_vec()
    } else {
        names
            .iter()
            .map(|n| {
                Grain::from_name(n).ok_or_else(|| {
                    FieldError::new(
                        format!("{field}.grains"),
                        format!("`{n}` is not a grain; allowed are day, week, month, quarter, year"),
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    let label = optional(object, "label", &field)?.unwrap_or_else(|| column.column.clone());
    Ok(TimeColumn {
        column,
        ty,
        grains,
        label,
    })
}

fn read_measure(value: &Value, field: &str, tables: &[MetricTable]) -> Result<Measure, FieldError> {
    let object = expect_object(value, field)?;
    allow_keys(
        object,
        field,
        &[
            "name",
            "label",
            "synonyms",
            "expr",
            "unit",
            "decimals",
            "aggregations",
            "description",
        ],
    )?;
    let (name, label, synonyms) = read_names(object, field)?;
    let expr_text = required(object, "expr", field)?;
    let expr = parse_measure(&expr_text, &|parts| resolve_parts(parts, tables))
        .map_err(|r| FieldError::new(format!("{field}.expr"), r))?;
    let decimals = match object.get("decimals") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|d| *d <= 6)
                .and_then(|d| u8::try_from(d).ok())
                .ok_or_else(|| FieldError::new(format!("{field}.decimals"), "expected an integer from 0 to 6"))?,
        ),
    };
    let names = read_string_list(object.get("aggregations"), &format!("{field}.aggregations"))?;
    let mut reaggregations = Vec::new();
    for n in &names {
        let r = Reaggregate::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(n))
            .ok_or_else(|| {
                FieldError::new(
                    format!("{field}.aggregations"),
                    format!("`{n}` is not a re-aggregation; allowed are avg, max, min, count"),
                )
            })?;
        reaggregations.push(r);
    }
    if !reaggregations.is_empty() && expr.single_aggregate().is_none() {
        return Err(FieldError::new(
            format!("{field}.aggregations"),
            format!("`{expr_text}` is not one aggregate over one column, so it cannot be re-aggregated"),
        ));
    }
    Ok(Measure {
        name,
        label,
        synonyms,
        expr_text,
        expr,
        unit: optional(object, "unit", field)?,
        decimals,
        reaggregations,
    })
}

fn read_dimension(value: &Value, field: &str, tables: &[MetricTable]) -> Result<Dimension, FieldError> {
    let object = expect_object(value, field)?;
    allow_keys(
        object,
        field,
        &[
            "name",
            "label",
            "synonyms",
            "column",
            "key",
            "values",
            "valueSynonyms",
            "description",
        ],
    )?;
    let (name, label, synonyms) = read_names(object, field)?;
    let column = column_field(object.get("column"), &format!("{field}.column"), tables)?;
    let key = object
        .get("key")
        .map(|k| column_field(Some(k), &format!("{field}.key"), tables))
        .transpose()?;
    let values_field = format!("{field}.values");
    let values = match object.get("values") {
        None => DimensionValues::Data,
        Some(Value::String(s)) if s == "data" => DimensionValues::Data,
        Some(Value::Array(_)) => DimensionValues::List {
            values: read_string_list(object.get("values"), &values_field)?,
        },
        Some(Value::Object(o)) => match o.get("entity").and_then(Value::as_str) {
            Some(entity) if !entity.trim().is_empty() && o.len() == 1 => DimensionValues::Entity {
                entity: entity.trim().to_string(),
            },
            _ => return Err(FieldError::new(&values_field, "expected {\"entity\": TYPE}")),
        },
        Some(other) => {
            return Err(FieldError::new(
                &values_field,
                format!(
                    "expected \"data\", a list of values or {{\"entity\": TYPE}}, got {}",
                    kind_of(other)
                ),
            ));
        }
    };
    let mut value_synonyms = Vec::new();
    if let Some(v) = object.get("valueSynonyms") {
        let f = format!("{field}.valueSynonyms");
        for (key, list) in expect_object(v, &f)? {
            value_synonyms.push((key.clone(), read_string_list(Some(list), &format!("{f}.{key}"))?));
        }
    }
    Ok(Dimension {
        name,
        label,
        synonyms,
        column,
        key,
        values,
        value_synonyms,
    })
}

/// `name` (an identifier), `label` (defaults to the name) and `synonyms`.
fn read_names(object: &Map<String, Value>, field: &str) -> Result<(String, String, Vec<String>), FieldError> {
    let name = identifier(object.get("name"), &format!("{field}.name"))?;
    let label = optional(object, "label", field)?.unwrap_or_else(|| name.clone());
    let synonyms = read_string_list(object.get("synonyms"), &format!("{field}.synonyms"))?;
    if let Some(i) = synonyms.iter().position(|s| s.trim().is_empty()) {
        return Err(FieldError::new(format!("{field}.synonyms[{i}]"), "a synonym is empty"));
    }
    Ok((name, label, synonyms))
}

fn check_unique_names(model: &MetricModel) -> Result<(), FieldError> {
    let mut seen: HashSet<String> = HashSet::new();
    let measures = model.measures.iter().enumerate().map(|(i, m)| {
        (
            format!("{FIELD}.measures[{i}]"),
            std::iter::once(&m.name)
                .chain([&m.label])
                .chain(&m.synonyms)
                .collect::<Vec<_>>(),
        )
    });
    let dimensions = model.dimensions.iter().enumerate().map(|(i, d)| {
        (
            format!("{FIELD}.dimensions[{i}]"),
            std::iter::once(&d.name)
                .chain([&d.label])
                .chain(&d.synonyms)
                .collect::<Vec<_>>(),
        )
    });
    for (field, names) in measures.chain(dimensions) {
        let own: HashSet<&String> = names.iter().copied().collect();
        for name in own {
            if !seen.insert(name.clone()) {
                return Err(FieldError::new(field, format!("the name `{name}` is used twice")));
            }
        }
    }
    Ok(())
}

fn column_field(value: Option<&Value>, field: &str, tables: &[MetricTable]) -> Result<ColumnRef, FieldError> {
    let text = value
        .and_then(Value::as_str)
        .ok_or_else(|| FieldError::new(field, "expected a column name"))?;
    resolve_column(text, tables).map_err(|r| FieldError::new(field, r))
}

fn resolve_column(text: &str, tables: &[MetricTable]) -> Result<ColumnRef, String> {
    let parts: Vec<String> = text.split('.').map(|p| p.trim().to_string()).collect();
    resolve_parts(&parts, tables)
}

/// `column` (unique across the tables) or `alias.column`.
fn resolve_parts(parts: &[String], tables: &[MetricTable]) -> Result<ColumnRef, String> {
    let (alias, column) = match parts {
        [column] => (None, column),
        [alias, column] => (Some(alias), column),
        _ => return Err(format!("`{}` is not a column or alias.column", parts.join("."))),
    };
    let holders: Vec<&MetricTable> = tables
        .iter()
        .filter(|t| alias.is_none_or(|a| t.alias == *a))
        .filter(|t| t.columns.iter().any(|c| c == column))
        .collect();
    match holders.as_slice() {
        [table] => Ok(ColumnRef {
            table: table.alias.clone(),
            column: column.clone(),
        }),
        [] => Err(format!("unknown column `{}`", parts.join("."))),
        _ => Err(format!("column `{column}` is in several tables; write alias.{column}")),
    }
}

/// A table's name, written quoted in every statement (`Order Details`, 订单): any text but quotes, dots,
/// brackets, semicolons and control characters, which no quoting here escapes.
fn table_name(value: Option<&Value>, field: &str) -> Result<String, FieldError> {
    let text = value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| FieldError::new(field, "expected a non-empty string"))?;
    let bad = text
        .chars()
        .find(|c| c.is_control() || matches!(c, '"' | '`' | '\'' | '\\' | '.' | '[' | ']' | ';'));
    if let Some(c) = bad.or_else(|| (text.chars().count() > 128).then_some('…')) {
        return Err(FieldError::new(
            field,
            format!(
                "`{text}` is not a table name: `{c}` (quotes, dots, brackets, `;`, control characters and names over 128 characters are refused)"
            ),
        ));
    }
    Ok(text.to_string())
}

fn identifier(value: Option<&Value>, field: &str) -> Result<String, FieldError> {
    let text = value
        .and_then(Value::as_str)
        .map(str::trim)
        .ok_or_else(|| FieldError::new(field, "expected a non-empty string"))?;
    let ok = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(FieldError::new(
            field,
            format!("`{text}` is not an identifier (ASCII letters, digits and `_`, not starting with a digit)"),
        ));
    }
    Ok(text.to_string())
}

fn required(object: &Map<String, Value>, key: &str, field: &str) -> Result<String, FieldError> {
    optional(object, key, field)?.ok_or_else(|| FieldError::new(format!("{field}.{key}"), "is required"))
}

fn optional(object: &Map<String, Value>, key: &str, field: &str) -> Result<Option<String>, FieldError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(other) => Err(FieldError::new(
            format!("{field}.{key}"),
            format!("expected a non-empty string, got {}", kind_of(other)),
        )),
    }
}

fn read_list<T>(
    value: Option<&Value>,
    key: &str,
    read: impl Fn(&Value, &str) -> Result<T, FieldError>,
) -> Result<Vec<T>, FieldError> {
    let field = format!("{FIELD}.{key}");
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let items = value
        .as_array()
        .ok_or_else(|| FieldError::new(&field, format!("expected an array, got {}", kind_of(value))))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| read(item, &format!("{field}[{i}]")))
        .collect()
}

fn allow_keys(object: &Map<String, Value>, field: &str, allowed: &[&str]) -> Result<(), FieldError> {
    match object.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(FieldError::new(
            format!("{field}.{key}"),
            format!("unknown field; allowed are {}", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}
