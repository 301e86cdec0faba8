//! Security schemes → `x-http-auth` headers whose values are read from environment variables when a tool is
//! called (never from the question). HTTP bearer and basic, API keys in a header, and OAuth 2 / OpenID Connect
//! tokens obtained elsewhere are mapped; API keys in a query or cookie and mutual TLS are named as unsupported.

use serde_json::{Value, json};

/// The `x-http-auth` entry of one scheme, and a line for the output; or why it cannot be mapped.
pub fn scheme_header(name: &str, scheme: &Value, prefix: &str) -> Result<(Value, String), String> {
    let env = env_name(prefix, name);
    let kind = scheme["type"].as_str().unwrap_or_default();
    let (header, value_prefix, how) = match kind {
        "http" => match scheme["scheme"].as_str().map(str::to_ascii_lowercase).as_deref() {
            Some("bearer") => ("Authorization".to_string(), "Bearer ", "a bearer token"),
            Some("basic") => ("Authorization".to_string(), "Basic ", "base64 of user:password"),
            other => return Err(format!("HTTP scheme `{}` is not supported", other.unwrap_or("(none)"))),
        },
        "apiKey" => match scheme["in"].as_str() {
            Some("header") => {
                let header = scheme["name"]
                    .as_str()
                    .filter(|h| !h.is_empty())
                    .ok_or("an API key without a name")?;
                (header.to_string(), "", "the API key")
            }
            Some(place) => return Err(format!("an API key in the {place} is not supported (headers only)")),
            None => return Err("an API key without `in`".into()),
        },
        "oauth2" | "openIdConnect" => (
            "Authorization".to_string(),
            "Bearer ",
            "an access token obtained elsewhere",
        ),
        other => return Err(format!("security scheme type `{other}` is not supported")),
    };
    let line = format!("auth `{name}` ({kind}) → header {header} from ${env} ({how})");
    Ok((json!({"header": header, "prefix": value_prefix, "env": env}), line))
}

/// `PETSTORE` + `bearerAuth` → `PETSTORE_BEARER_AUTH`.
pub fn env_name(prefix: &str, scheme: &str) -> String {
    let mut out = String::new();
    let mut last_lower = false;
    for c in format!("{prefix}_{scheme}").chars() {
        if c.is_ascii_uppercase() && last_lower {
            out.push('_');
        }
        last_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    out.trim_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_map_to_headers_from_the_environment() {
        let (entry, _) =
            scheme_header("bearerAuth", &json!({"type": "http", "scheme": "bearer"}), "Pet Store").unwrap();
        assert_eq!(
            entry,
            json!({"header": "Authorization", "prefix": "Bearer ", "env": "PET_STORE_BEARER_AUTH"})
        );
        let (entry, _) =
            scheme_header("key", &json!({"type": "apiKey", "in": "header", "name": "X-Key"}), "A").unwrap();
        assert_eq!(entry["header"], "X-Key");
        assert!(scheme_header("q", &json!({"type": "apiKey", "in": "query", "name": "k"}), "A").is_err());
        assert!(scheme_header("m", &json!({"type": "mutualTLS"}), "A").is_err());
    }
}
