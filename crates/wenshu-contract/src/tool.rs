//! A compiled tool: its definition, parameter table, extensions, validator and HTTP route, built once at load.

use serde_json::{Map, Value};

use crate::catalog::{CatalogError, FieldError};
use crate::enum_index::EnumIndex;
use crate::extensions::{Extensions, expect_object, optional_string, read_extensions};
use crate::http::route::HttpRoute;
use crate::param::{Location, ParamSpec, ParamTable};
use crate::schema::read_input_schema;

/// The longest tool name accepted.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// One tool, checked and compiled: a call never compiles a schema.
#[derive(Debug)]
pub struct Tool {
    name: String,
    title: Option<String>,
    description: String,
    input_schema: Value,
    params: ParamTable,
    extensions: Extensions,
    definition: Value,
    validator: jsonschema::Validator,
    route: Option<HttpRoute>,
    enum_indexes: Vec<Option<EnumIndex>>,
}

impl Tool {
    /// Checks one MCP Tool object and compiles it; `position` names the tool in errors when it has no name.
    pub fn compile(definition: &Value, position: usize) -> Result<Self, CatalogError> {
        let unnamed = format!("#{position}");
        let object = expect_object(definition, "(tool)").map_err(|e| CatalogError::in_tool(&unnamed, e))?;
        let label = object
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or(&unnamed);
        let name = read_name(object).map_err(|e| CatalogError::in_tool(label, e))?;
        Self::compile_named(&name, object).map_err(|e| CatalogError::in_tool(&name, e))
    }

    fn compile_named(name: &str, object: &Map<String, Value>) -> Result<Self, FieldError> {
        let title = optional_string(object, "title")?;
        let description = optional_string(object, "description")?.unwrap_or_default();
        crate::columns::read_columns(object.get("x-columns"))?;
        let metrics = crate::metric::read_metrics(object.get("x-metrics"))?;
        let input_schema = match (object.get("inputSchema"), &metrics) {
            (Some(schema), _) => schema.clone(),
            (None, Some(model)) => crate::metric::input_schema(model),
            (None, None) => serde_json::json!({"type": "object"}),
        };
        let params = read_input_schema(&input_schema)?;
        let mut extensions = read_extensions(object, &params)?;
        extensions.metrics = metrics.map(std::sync::Arc::new);
        let route = match &extensions.http {
            Some(endpoint) => Some(HttpRoute::compile(endpoint, &params)?),
            None => {
                reject_locations_without_http(&params)?;
                None
            }
        };
        let validator = compile_validator(&input_schema)?;
        let enum_indexes = params
            .iter()
            .map(|spec| {
                let has_enum = !spec.enum_values.is_empty();
                has_enum.then(|| EnumIndex::build(spec, extensions.synonyms_of(&spec.name)))
            })
            .collect();
        Ok(Self {
            definition: Value::Object(object.clone()),
            name: name.to_string(),
            title,
            description,
            input_schema,
            params,
            extensions,
            validator,
            route,
            enum_indexes,
        })
    }

    /// The tool's unique name (its code).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// What the tool does.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The whole tool object exactly as loaded (MCP fields and every extension, `x-sql` included).
    pub fn definition(&self) -> &Value {
        &self.definition
    }

    /// The `inputSchema` exactly as loaded.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The parameter table, in schema order.
    pub fn params(&self) -> &ParamTable {
        &self.params
    }

    /// One parameter by name.
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.get(name)
    }

    /// The `x-` extensions.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The compiled validator of the `inputSchema`.
    pub fn validator(&self) -> &jsonschema::Validator {
        &self.validator
    }

    /// The canonical spellings (values and synonyms) of a top-level enum parameter.
    pub fn enum_index(&self, param: &str) -> Option<&EnumIndex> {
        let position = self.params.iter().position(|spec| spec.name == param)?;
        self.enum_index_at(position)
    }

    /// The enum index of the parameter at `position` in schema order.
    pub fn enum_index_at(&self, position: usize) -> Option<&EnumIndex> {
        self.enum_indexes.get(position).and_then(Option::as_ref)
    }

    /// The compiled HTTP route, for tools with `x-http`.
    pub fn route(&self) -> Option<&HttpRoute> {
        self.route.as_ref()
    }

    /// Where a parameter travels in an HTTP request (`body` when an HTTP tool's parameter names none).
    pub fn location_of(&self, spec: &ParamSpec) -> Option<Location> {
        self.route.as_ref().map(|route| route.location_of(spec))
    }
}

/// Compiles a schema into a validator that also checks `format`.
pub fn compile_validator(schema: &Value) -> Result<jsonschema::Validator, FieldError> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| FieldError::new("inputSchema", format!("not a valid JSON Schema: {e}")))
}

fn read_name(object: &Map<String, Value>) -> Result<String, FieldError> {
    let name = match object.get("name") {
        Some(Value::String(name)) => name.clone(),
        Some(other) => {
            return Err(FieldError::new("name", format!("expected a string, got {other}")));
        }
        None => return Err(FieldError::new("name", "is required")),
    };
    if name.is_empty() || name.len() > MAX_TOOL_NAME_LEN {
        return Err(FieldError::new(
            "name",
            format!("`{name}` must have 1 to {MAX_TOOL_NAME_LEN} characters"),
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(FieldError::new(
            "name",
            format!("`{name}` contains `{bad}`; allowed are ASCII letters, digits, `_`, `-` and `.`"),
        ));
    }
    Ok(name)
}

fn reject_locations_without_http(params: &ParamTable) -> Result<(), FieldError> {
    match params.iter().find(|p| p.location.is_some()) {
        Some(p) => Err(FieldError::new(
            format!("inputSchema.properties.{}.in", p.name),
            "an HTTP location is given but the tool has no `x-http`",
        )),
        None => Ok(()),
    }
}
