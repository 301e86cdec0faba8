//! Request bodies: read only when a body parameter exists, under a size cap and a nesting cap.

use serde_json::{Map, Value};

use crate::bind::BindError;
use crate::param::Location;

/// Limits on a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimits {
    /// The largest body accepted, in bytes (default 1 MiB).
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects accepted (default 20).
    pub max_depth: usize,
}

impl Default for BodyLimits {
    fn default() -> Self {
        Self {
            max_bytes: 1024 * 1024,
            max_depth: 20,
        }
    }
}

/// Parses a body into its top-level object, enforcing `limits` before any JSON parsing.
pub fn parse_body(bytes: &[u8], limits: BodyLimits) -> Result<Map<String, Value>, BindError> {
    if bytes.len() > limits.max_bytes {
        return Err(malformed(
            "body_too_large",
            format!(
                "the body has {} bytes; at most {} are allowed",
                bytes.len(),
                limits.max_bytes
            ),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        malformed(
            "invalid_utf8",
            format!("the body is not valid UTF-8 (at byte {})", e.valid_up_to()),
        )
    })?;
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let depth = nesting_depth(text);
    if depth > limits.max_depth {
        return Err(malformed(
            "body_too_deep",
            format!(
                "the body nests {depth} levels deep; at most {} are allowed",
                limits.max_depth
            ),
        ));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(malformed(
            "body_not_object",
            format!(
                "the body must be a JSON object of parameters, got {}",
                crate::extensions::kind_of(&other)
            ),
        )),
        Err(e) => Err(malformed(
            "malformed_json",
            format!(
                "the body is not valid JSON (line {}, column {}): {e}",
                e.line(),
                e.column()
            ),
        )),
    }
}

/// The deepest nesting of `[` and `{` outside strings, scanned without parsing.
pub fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn malformed(code: &'static str, message: String) -> BindError {
    BindError::Malformed {
        code,
        location: Some(Location::Body),
        message,
    }
}
