//! Path templates such as `/orders/{orderId}`, compiled once per tool.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use crate::catalog::FieldError;
use crate::extensions::HttpEndpoint;
use crate::param::{Location, ParamSpec, ParamTable};

/// Characters escaped in a path segment: everything but RFC 3986 unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// One segment of a path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Text that must appear as is.
    Literal(String),
    /// A `{name}` placeholder filled by a path parameter.
    Param(String),
}

/// A compiled path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTemplate {
    text: String,
    segments: Vec<Segment>,
}

/// Why a path segment could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathMatchError {
    /// The path does not have the template's shape.
    NoMatch,
    /// A segment is not valid UTF-8 once percent-decoded.
    InvalidUtf8 {
        /// The parameter whose segment it is.
        param: String,
    },
}

impl PathTemplate {
    /// Compiles a template; each `{name}` must fill a whole segment.
    pub fn parse(text: &str) -> Result<Self, String> {
        if !text.starts_with('/') {
            return Err(format!("`{text}` must start with `/`"));
        }
        let mut segments = Vec::new();
        for raw in text[1..].split('/') {
            let segment = match raw.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                Some(name) if is_param_name(name) => Segment::Param(name.to_string()),
                Some(name) => {
                    return Err(format!("`{{{name}}}` is not a valid parameter placeholder"));
                }
                None if raw.contains(['{', '}']) => {
                    return Err(format!("segment `{raw}` mixes text and a placeholder"));
                }
                None => Segment::Literal(raw.to_string()),
            };
            segments.push(segment);
        }
        Ok(Self {
            text: text.to_string(),
            segments,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The names of its placeholders, in order.
    pub fn param_names(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Param(name) => Some(name.as_str()),
            Segment::Literal(_) => None,
        })
    }

    /// Matches a request path (without query), returning each placeholder's percent-decoded value.
    pub fn match_path(&self, path: &str) -> Result<Vec<(String, String)>, PathMatchError> {
        let rest = path.strip_prefix('/').ok_or(PathMatchError::NoMatch)?;
        let parts: Vec<&str> = rest.split('/').collect();
        if parts.len() != self.segments.len() {
            return Err(PathMatchError::NoMatch);
        }
        let mut values = Vec::new();
        for (segment, part) in self.segments.iter().zip(parts) {
            match segment {
                Segment::Literal(text) if text == part => {}
                Segment::Literal(_) => return Err(PathMatchError::NoMatch),
                Segment::Param(_) if part.is_empty() => return Err(PathMatchError::NoMatch),
                Segment::Param(name) => {
                    let decoded = percent_decode_str(part)
                        .decode_utf8()
                        .map_err(|_| PathMatchError::InvalidUtf8 { param: name.clone() })?;
                    values.push((name.clone(), decoded.into_owned()));
                }
            }
        }
        Ok(values)
    }

    /// Fills the placeholders, percent-encoding each value; `None` when one has no value.
    pub fn render(&self, value_of: impl Fn(&str) -> Option<String>) -> Option<String> {
        let mut out = String::new();
        for segment in &self.segments {
            out.push('/');
            match segment {
                Segment::Literal(text) => out.push_str(text),
                Segment::Param(name) => out.extend(utf8_percent_encode(&value_of(name)?, SEGMENT)),
            }
        }
        Some(out)
    }
}

fn is_param_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// An HTTP tool's method and compiled path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRoute {
    /// The method, upper case.
    pub method: String,
    /// The compiled path template.
    pub template: PathTemplate,
}

impl HttpRoute {
    /// Compiles `x-http` and checks it against the parameters: every placeholder is a path parameter and every
    /// path parameter has a placeholder and is required.
    pub(crate) fn compile(endpoint: &HttpEndpoint, params: &ParamTable) -> Result<Self, FieldError> {
        let template = PathTemplate::parse(&endpoint.path).map_err(|r| FieldError::new("x-http.path", r))?;
        let route = Self {
            method: endpoint.method.clone(),
            template,
        };
        for name in route.template.param_names() {
            let spec = params.get(name).ok_or_else(|| {
                FieldError::new("x-http.path", format!("placeholder `{{{name}}}` names no parameter"))
            })?;
            let field = format!("inputSchema.properties.{name}");
            if spec.location.is_some_and(|l| l != Location::Path) {
                return Err(FieldError::new(
                    format!("{field}.in"),
                    "is in the path template but not `in: path`",
                ));
            }
            if !spec.required && spec.default.is_none() {
                return Err(FieldError::new(
                    field,
                    "a path parameter must be required or have a default",
                ));
            }
        }
        for spec in params.iter() {
            if spec.location == Some(Location::Path) && !route.template.param_names().any(|n| n == spec.name) {
                return Err(FieldError::new(
                    format!("inputSchema.properties.{}.in", spec.name),
                    format!("`in: path` but `{}` has no `{{{}}}`", endpoint.path, spec.name),
                ));
            }
        }
        if let Some(spec) = params
            .iter()
            .find(|p| p.location == Some(Location::Body) && !route.has_body())
        {
            return Err(FieldError::new(
                format!("inputSchema.properties.{}.in", spec.name),
                format!("a {} tool cannot take body parameters", route.method),
            ));
        }
        Ok(route)
    }

    /// Where a parameter travels: its `in`; else `path` when the template names it; else `body`, or `query` for
    /// methods without a body (GET, DELETE).
    pub fn location_of(&self, spec: &ParamSpec) -> Location {
        spec.location.unwrap_or_else(|| {
            if self.template.param_names().any(|n| n == spec.name) {
                Location::Path
            } else if self.has_body() {
                Location::Body
            } else {
                Location::Query
            }
        })
    }

    /// Whether requests of this method carry a body.
    pub fn has_body(&self) -> bool {
        !matches!(self.method.as_str(), "GET" | "DELETE")
    }
}
