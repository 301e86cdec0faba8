//! Reads a tool's `inputSchema` into a [`ParamTable`], checking each property as it goes.

use serde_json::{Map, Value};

use crate::catalog::FieldError;
use crate::extensions::{expect_object, kind_of, optional_string};
use crate::param::{Location, ParamSpec, ParamTable, ParamType, number_keyword};

/// Reads the top-level properties of an `inputSchema` into a parameter table.
pub(crate) fn read_input_schema(schema: &Value) -> Result<ParamTable, FieldError> {
    let object = expect_object(schema, "inputSchema")?;
    match object.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(FieldError::new(
                "inputSchema.type",
                format!("expected \"object\", got {other}"),
            ));
        }
    }
    Ok(ParamTable::new(read_properties(object, "inputSchema")?))
}

/// Reads `properties` and `required` of an object schema.
fn read_properties(object: &Map<String, Value>, field: &str) -> Result<Vec<ParamSpec>, FieldError> {
    let properties = match object.get("properties") {
        None => return check_required_without_properties(object, field),
        Some(value) => expect_object(value, &format!("{field}.properties"))?,
    };
    let required = read_required(object, field, properties)?;
    properties
        .iter()
        .map(|(name, schema)| {
            let prop_field = format!("{field}.properties.{name}");
            read_param(name, schema, required.contains(&name.as_str()), &prop_field)
        })
        .collect()
}

fn check_required_without_properties(object: &Map<String, Value>, field: &str) -> Result<Vec<ParamSpec>, FieldError> {
    match object.get("required").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => Err(FieldError::new(
            format!("{field}.required"),
            "lists parameters but the schema has no properties",
        )),
        _ => Ok(Vec::new()),
    }
}

fn read_required<'a>(
    object: &'a Map<String, Value>,
    field: &str,
    properties: &Map<String, Value>,
) -> Result<Vec<&'a str>, FieldError> {
    let Some(value) = object.get("required") else {
        return Ok(Vec::new());
    };
    let field = format!("{field}.required");
    let list = value
        .as_array()
        .ok_or_else(|| FieldError::new(&field, format!("expected an array of names, got {}", kind_of(value))))?;
    list.iter()
        .map(|item| {
            let name = item
                .as_str()
                .ok_or_else(|| FieldError::new(&field, format!("expected a name, got {item}")))?;
            if !properties.contains_key(name) {
                return Err(FieldError::new(&field, format!("`{name}` is not a property")));
            }
            Ok(name)
        })
        .collect()
}

/// `x-explode`: `false` sends an array in a query as one comma-separated value; only an array may say it.
fn read_explode(object: &Map<String, Value>, spec: &ParamSpec, field: &str) -> Result<bool, FieldError> {
    match object.get("x-explode") {
        None => Ok(false),
        Some(Value::Bool(explode)) if spec.ty == ParamType::Array => Ok(!explode),
        Some(Value::Bool(_)) => Err(FieldError::new(
            format!("{field}.x-explode"),
            "only an array parameter is exploded or not",
        )),
        Some(other) => Err(FieldError::new(
            format!("{field}.x-explode"),
            format!("expected true or false, got {other}"),
        )),
    }
}

/// Reads one property schema into a spec.
fn read_param(name: &str, schema: &Value, required: bool, field: &str) -> Result<ParamSpec, FieldError> {
    let object = expect_object(schema, field)?;
    let mut spec = ParamSpec::new(name, read_type(object, field)?);
    spec.required = required;
    spec.description = optional_string(object, "description")
        .map_err(|e| e.within(field))?
        .unwrap_or_default();
    spec.format = optional_string(object, "format").map_err(|e| e.within(field))?;
    spec.pattern = optional_string(object, "pattern").map_err(|e| e.within(field))?;
    spec.entity = optional_string(object, "x-entity").map_err(|e| e.within(field))?;
    spec.principal = crate::extensions::read_principal(object, spec.ty, field)?;
    spec.minimum = number_keyword(object, "minimum");
    spec.maximum = number_keyword(object, "maximum");
    check_bounds(&spec, field)?;
    spec.location = read_location(object, field)?;
    spec.enum_values = read_enum(object, spec.ty, field)?;
    if spec.ty == ParamType::Object {
        spec.properties = read_properties(object, field)?;
    }
    if let Some(items) = object.get("items") {
        spec.items = Some(Box::new(read_param("items", items, false, &format!("{field}.items"))?));
    }
    spec.default = read_default(object, &spec, field)?;
    spec.comma_joined = read_explode(object, &spec, field)?;
    Ok(spec)
}

fn read_type(object: &Map<String, Value>, field: &str) -> Result<ParamType, FieldError> {
    let type_field = format!("{field}.type");
    match object.get("type") {
        None => Ok(ParamType::Any),
        Some(Value::String(name)) => ParamType::from_schema_name(name)
            .ok_or_else(|| FieldError::new(&type_field, format!("`{name}` is not a JSON Schema type"))),
        Some(Value::Array(names)) => {
            let non_null: Vec<&str> = names
                .iter()
                .filter_map(Value::as_str)
                .filter(|n| *n != "null")
                .collect();
            match non_null.as_slice() {
                [one] => ParamType::from_schema_name(one)
                    .ok_or_else(|| FieldError::new(&type_field, format!("`{one}` is not a JSON Schema type"))),
                _ => Ok(ParamType::Any),
            }
        }
        Some(other) => Err(FieldError::new(
            &type_field,
            format!("expected a type name, got {other}"),
        )),
    }
}

fn read_location(object: &Map<String, Value>, field: &str) -> Result<Option<Location>, FieldError> {
    match object.get("in") {
        None => Ok(None),
        Some(Value::String(name)) => Location::from_name(name).map(Some).ok_or_else(|| {
            FieldError::new(
                format!("{field}.in"),
                format!("`{name}` is not one of path, query, body"),
            )
        }),
        Some(other) => Err(FieldError::new(
            format!("{field}.in"),
            format!("expected a string, got {other}"),
        )),
    }
}

fn read_enum(object: &Map<String, Value>, ty: ParamType, field: &str) -> Result<Vec<Value>, FieldError> {
    let Some(value) = object.get("enum") else {
        return Ok(Vec::new());
    };
    let enum_field = format!("{field}.enum");
    let values = value
        .as_array()
        .ok_or_else(|| FieldError::new(&enum_field, format!("expected an array, got {}", kind_of(value))))?;
    if values.is_empty() {
        return Err(FieldError::new(
            &enum_field,
            "is empty: no value could ever be accepted",
        ));
    }
    if let Some(bad) = values.iter().find(|v| !ty.accepts(v)) {
        return Err(FieldError::new(
            &enum_field,
            format!("{bad} is not of type {}", ty.name()),
        ));
    }
    Ok(values.clone())
}

fn read_default(object: &Map<String, Value>, spec: &ParamSpec, field: &str) -> Result<Option<Value>, FieldError> {
    let Some(default) = object.get("default") else {
        return Ok(None);
    };
    let default_field = format!("{field}.default");
    if !spec.ty.accepts(default) {
        return Err(FieldError::new(
            &default_field,
            format!("{default} is not of type {}", spec.ty.name()),
        ));
    }
    if !spec.enum_values.is_empty() && !spec.enum_values.contains(default) {
        return Err(FieldError::new(
            &default_field,
            format!("{default} is not one of the enum values"),
        ));
    }
    Ok(Some(default.clone()))
}

fn check_bounds(spec: &ParamSpec, field: &str) -> Result<(), FieldError> {
    if let (Some(min), Some(max)) = (
        spec.minimum.as_ref().and_then(Value::as_f64),
        spec.maximum.as_ref().and_then(Value::as_f64),
    ) && min > max
    {
        return Err(FieldError::new(
            field,
            format!("minimum {min} is greater than maximum {max}"),
        ));
    }
    Ok(())
}
