//! The parameter table: each property of a tool's `inputSchema`, read once into a typed record.

use serde_json::{Map, Value};

/// The JSON type a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// A JSON string.
    String,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON object with its own properties.
    Object,
    /// A JSON array.
    Array,
    /// No `type` given: any JSON value.
    Any,
}

impl ParamType {
    /// Reads a JSON Schema `type` keyword; `None` when the name is not a type wenshu knows.
    pub fn from_schema_name(name: &str) -> Option<Self> {
        Some(match name {
            "string" => Self::String,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "boolean" => Self::Boolean,
            "object" => Self::Object,
            "array" => Self::Array,
            _ => return None,
        })
    }

    /// The JSON Schema name of the type (`any` when none was given).
    pub fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Object => "object",
            Self::Array => "array",
            Self::Any => "any",
        }
    }

    /// Whether a JSON value already has this type (no coercion).
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            Self::String => value.is_string(),
            Self::Integer => value.as_i64().is_some() || value.as_u64().is_some(),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Object => value.is_object(),
            Self::Array => value.is_array(),
            Self::Any => true,
        }
    }
}

/// Where an HTTP tool's parameter travels in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A `{name}` segment of the path template.
    Path,
    /// A `?name=value` pair of the query string.
    Query,
    /// A key of the JSON body object.
    Body,
}

impl Location {
    /// Reads the `"in"` keyword of a parameter.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "path" => Self::Path,
            "query" => Self::Query,
            "body" => Self::Body,
            _ => return None,
        })
    }

    /// The name used in `"in"`, logs and error bodies.
    pub fn name(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Query => "query",
            Self::Body => "body",
        }
    }

    /// Every location, in the order a request is read.
    pub const ALL: [Location; 3] = [Location::Path, Location::Query, Location::Body];
}

/// One parameter of a tool, as its schema declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    /// The property name.
    pub name: String,
    /// Its JSON type.
    pub ty: ParamType,
    /// Whether the schema lists it in `required`.
    pub required: bool,
    /// The `description`, empty when none.
    pub description: String,
    /// The `default`, if any.
    pub default: Option<Value>,
    /// The allowed values (`enum`), empty when any value of the type is allowed.
    pub enum_values: Vec<Value>,
    /// The `format` keyword (`date`, `email`, …).
    pub format: Option<String>,
    /// The `pattern` keyword.
    pub pattern: Option<String>,
    /// The `minimum` keyword.
    pub minimum: Option<Value>,
    /// The `maximum` keyword.
    pub maximum: Option<Value>,
    /// The HTTP location (`"in"`), for tools with `x-http`.
    pub location: Option<Location>,
    /// `x-entity`: the values are names from this entity catalog.
    pub entity: Option<String>,
    /// `x-principal`: the value is the asking principal's attribute of this name, filled by code — never shown to
    /// the model, never taken from the question.
    pub principal: Option<String>,
    /// The properties of an object parameter.
    pub properties: Vec<ParamSpec>,
    /// The item schema of an array parameter.
    pub items: Option<Box<ParamSpec>>,
    /// `x-explode: false`: an array in a query is sent as one comma-separated value (`daily=a,b`), not repeated.
    pub comma_joined: bool,
}

impl ParamSpec {
    /// The empty spec of a parameter named `name` with type `ty`; used as a starting point.
    pub fn new(name: impl Into<String>, ty: ParamType) -> Self {
        Self {
            name: name.into(),
            ty,
            required: false,
            description: String::new(),
            default: None,
            enum_values: Vec::new(),
            format: None,
            pattern: None,
            minimum: None,
            maximum: None,
            location: None,
            entity: None,
            principal: None,
            properties: Vec::new(),
            items: None,
            comma_joined: false,
        }
    }

    /// The enum values that are strings, as text.
    pub fn enum_strings(&self) -> impl Iterator<Item = &str> {
        self.enum_values.iter().filter_map(Value::as_str)
    }

    /// A nested property of an object parameter, by name.
    pub fn property(&self, name: &str) -> Option<&ParamSpec> {
        self.properties.iter().find(|p| p.name == name)
    }
}

/// The parameters of one tool, in the order the schema lists them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamTable {
    params: Vec<ParamSpec>,
}

impl ParamTable {
    /// A table of the given parameters, kept in order.
    pub fn new(params: Vec<ParamSpec>) -> Self {
        Self { params }
    }

    /// Every parameter, in schema order.
    pub fn iter(&self) -> impl Iterator<Item = &ParamSpec> {
        self.params.iter()
    }

    /// One parameter by name.
    pub fn get(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    /// How many parameters the tool has.
    pub fn len(&self) -> usize {
        self.params.len()
    }

    /// Whether the tool takes no parameters.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The names of the parameters, in schema order.
    pub fn names(&self) -> Vec<&str> {
        self.params.iter().map(|p| p.name.as_str()).collect()
    }
}

/// Reads a number-ish keyword (`minimum`, `maximum`) as it is written.
pub(crate) fn number_keyword(schema: &Map<String, Value>, key: &str) -> Option<Value> {
    schema.get(key).filter(|v| v.is_number()).cloned()
}
