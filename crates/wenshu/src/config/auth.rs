//! `[auth]` of `wenshu.toml`: principals with attributes (`[[auth.principals]]`, each key's value read from the
//! environment variable it names) and JWT bearer tokens (`[auth.jwt]`, an HS256 secret from the environment or a
//! JWKS file). Keys and secrets are never written in the file; every error names the field.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::Value;
use wenshu_server::jwt::{JwtKey, JwtSettings, JwtVerifier};
use wenshu_server::principal::{KeyPrincipal, check_attribute};

/// Seconds of clock skew allowed on a token's `exp` and `nbf` when `leeway_secs` is not given.
pub const DEFAULT_LEEWAY_SECS: u64 = 30;

/// `[auth]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSection {
    /// `[[auth.principals]]`: keys with a name, a role and attributes.
    #[serde(default)]
    pub principals: Vec<PrincipalSection>,
    /// `[auth.jwt]`: JWT bearer tokens.
    pub jwt: Option<JwtSection>,
}

/// What a principal may do.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoleName {
    /// Asks and reads what it made (the default).
    #[default]
    User,
    /// Also changes tools and reads everything; row scopes do not apply.
    Admin,
}

/// `[[auth.principals]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrincipalSection {
    /// The principal's name (shown in the audit log).
    pub name: String,
    /// The environment variable holding its key.
    pub key_env: String,
    /// `user` (default) or `admin`.
    #[serde(default)]
    pub role: RoleName,
    /// Attributes a row scope reads: strings, numbers, booleans or arrays of them.
    #[serde(default)]
    pub attributes: toml::Table,
}

/// `[auth.jwt]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JwtSection {
    /// The `iss` a token must carry.
    pub issuer: String,
    /// The audience a token's `aud` must hold.
    pub audience: String,
    /// The environment variable holding the HS256 secret (at least 32 bytes).
    pub hs256_secret_env: Option<String>,
    /// A JWKS file with the issuer's public keys (RS256/RS384/RS512, ES256/ES384), instead of a secret.
    pub jwks_file: Option<PathBuf>,
    /// Seconds of clock skew allowed on `exp` and `nbf` (default 30).
    pub leeway_secs: Option<u64>,
    /// The claim holding a display name.
    pub name_claim: Option<String>,
    /// The claim holding the role (a string or an array of strings; a dotted path reads nested claims).
    pub role_claim: Option<String>,
    /// The role claim's values that make an admin.
    #[serde(default)]
    pub admin_values: Vec<String>,
    /// Attribute name = the claim it is read from.
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
}

impl AuthSection {
    /// The configured principals, their keys read through `env`; an unset variable, a bad attribute, or two
    /// principals with one name or one key is an error naming the field.
    pub fn principals(&self, env: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Vec<KeyPrincipal>> {
        let mut principals = Vec::new();
        for (at, section) in self.principals.iter().enumerate() {
            let field = format!("auth.principals[{at}]");
            let Some(key) = env(&section.key_env) else {
                bail!(
                    "{field}.key_env: the environment variable `{}` of principal `{}` is not set or empty",
                    section.key_env,
                    section.name
                );
            };
            let mut attributes = BTreeMap::new();
            for (name, value) in &section.attributes {
                let at = || format!("{field}.attributes.{name}");
                let value = json_value(value).with_context(|| format!("{} (principal `{}`)", at(), section.name))?;
                check_attribute(&format!("principal `{}`", section.name), name, &value).with_context(at)?;
                attributes.insert(name.clone(), value);
            }
            let principal = KeyPrincipal::new(&section.name, &key, section.role == RoleName::Admin, attributes)
                .with_context(|| field.clone())?;
            principals.push(principal);
        }
        KeyPrincipal::check_distinct(&principals).context("auth.principals")?;
        Ok(principals)
    }

    /// The JWT verifier, when `[auth.jwt]` is given; the secret read through `env`, the JWKS file read here.
    pub fn jwt(&self, env: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Option<Arc<JwtVerifier>>> {
        let Some(section) = &self.jwt else {
            return Ok(None);
        };
        let key = match (&section.hs256_secret_env, &section.jwks_file) {
            (Some(var), None) => match env(var) {
                Some(secret) => JwtKey::Secret(secret),
                None => bail!("auth.jwt.hs256_secret_env: the environment variable `{var}` is not set or empty"),
            },
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("auth.jwt.jwks_file: cannot read {}", path.display()))?;
                JwtKey::Jwks(text)
            }
            _ => {
                bail!("auth.jwt: give exactly one of `hs256_secret_env` (a shared secret) or `jwks_file` (public keys)")
            }
        };
        if !section.admin_values.is_empty() && section.role_claim.is_none() {
            bail!("auth.jwt.admin_values: needs `role_claim`, the claim the admin values are looked for in");
        }
        if section.role_claim.is_some() && section.admin_values.is_empty() {
            bail!("auth.jwt.role_claim: give `admin_values`, the role values that make an admin (else leave both out)");
        }
        let secret = section.hs256_secret_env.as_deref().unwrap_or_default();
        let settings = JwtSettings {
            issuer: section.issuer.clone(),
            audience: section.audience.clone(),
            key,
            leeway_secs: section.leeway_secs.unwrap_or(DEFAULT_LEEWAY_SECS),
            name_claim: section.name_claim.clone(),
            role_claim: section.role_claim.clone(),
            admin_values: section.admin_values.clone(),
            attributes: section.attributes.clone(),
        };
        let verifier = JwtVerifier::new(settings).map_err(|error| {
            let field = match &error {
                wenshu_server::jwt::JwtConfigError::Empty(name) => format!("auth.jwt.{name}"),
                wenshu_server::jwt::JwtConfigError::ShortSecret(_) => format!("auth.jwt.hs256_secret_env (`{secret}`)"),
                wenshu_server::jwt::JwtConfigError::Attribute(_) => "auth.jwt.attributes".to_string(),
                _ => "auth.jwt.jwks_file".to_string(),
            };
            anyhow::anyhow!("{field}: {error}")
        })?;
        Ok(Some(Arc::new(verifier)))
    }

    /// One line for the startup banner: how requests prove who they are (no keys, no secrets).
    pub fn describe(&self, principals: usize, plain_keys: usize) -> Option<String> {
        let mut parts = Vec::new();
        if principals > 0 {
            parts.push(format!("{principals} principals"));
        }
        if plain_keys > 0 {
            parts.push(format!("{plain_keys} keys from WENSHU_USER_KEYS/WENSHU_ADMIN_KEYS"));
        }
        if let Some(jwt) = &self.jwt {
            parts.push(format!("JWT from {}", jwt.issuer));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// What to warn about at start when row scopes or principal-filled parameters read `attributes`: no principals at
/// all (every request is anonymous, scoped with no attributes, and refused on scoped tables), or a user principal
/// lacking an attribute that is read (its questions there are refused). `plain_keys`: keys without attributes from the
/// environment lists; `jwt`: the token settings, whose attribute mapping is checked the same way.
pub fn scope_warnings(
    attributes: &[String],
    principals: &[KeyPrincipal],
    plain_keys: usize,
    jwt: Option<&JwtSection>,
) -> Vec<String> {
    if attributes.is_empty() {
        return Vec::new();
    }
    if principals.is_empty() && plain_keys == 0 && jwt.is_none() {
        return vec![
            "row scopes or principal parameters are configured but no principals, keys or tokens: every request is \
             anonymous, scoped with no attributes, and refused on scoped tables"
                .to_string(),
        ];
    }
    let mut warnings = Vec::new();
    let lacking = |has: &dyn Fn(&str) -> bool| -> Vec<&str> {
        attributes.iter().map(String::as_str).filter(|a| !has(a)).collect()
    };
    for principal in principals.iter().filter(|p| !p.is_admin()) {
        let missing = lacking(&|a| principal.attributes().contains_key(a));
        if !missing.is_empty() {
            warnings.push(format!(
                "principal `{}` has no attribute {} that a row scope or a principal parameter reads: its questions there are refused",
                principal.name(),
                quoted(&missing)
            ));
        }
    }
    if plain_keys > 0 {
        warnings.push(format!(
            "{plain_keys} keys from WENSHU_USER_KEYS have no attributes: their questions on scoped tables and principal parameters are refused"
        ));
    }
    if let Some(jwt) = jwt {
        let missing = lacking(&|a| jwt.attributes.contains_key(a));
        if !missing.is_empty() {
            warnings.push(format!(
                "auth.jwt.attributes maps no claim to {} that a row scope or a principal parameter reads: tokens' \
                 questions there are refused",
                quoted(&missing)
            ));
        }
    }
    warnings
}

fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// An attribute's TOML value as JSON: strings, integers, floats, booleans and arrays; dates are refused (the
/// attribute check refuses tables and nested arrays).
fn json_value(value: &toml::Value) -> anyhow::Result<Value> {
    Ok(match value {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(n) => Value::from(*n),
        toml::Value::Float(x) => serde_json::Number::from_f64(*x)
            .map(Value::Number)
            .with_context(|| format!("{x} is not a finite number"))?,
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => {
            bail!("{d} is a date-time; allowed: a string, a number, a boolean, or an array of them (quote a date)")
        }
        toml::Value::Array(items) => Value::Array(items.iter().map(json_value).collect::<anyhow::Result<_>>()?),
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| Ok((k.clone(), json_value(v)?)))
                .collect::<anyhow::Result<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(text: &str) -> AuthSection {
        toml::from_str(text).unwrap()
    }

    fn env(name: &str) -> Option<String> {
        match name {
            "K_ALICE" => Some("alice-key".into()),
            "K_BOB" => Some("bob-key".into()),
            "JWT_SECRET" => Some("a-shared-secret-of-at-least-32-bytes".into()),
            "SHORT" => Some("short".into()),
            _ => None,
        }
    }

    fn error(result: anyhow::Result<impl std::fmt::Debug>) -> String {
        format!("{:#}", result.unwrap_err())
    }

    #[test]
    fn principals_read_keys_from_the_environment_with_attributes() {
        let auth = section(
            r#"
            [[principals]]
            name = "alice"
            key_env = "K_ALICE"
            attributes = { region = "华东", tenant_id = 7, regions = ["华东", "华南"], vip = true }
            [[principals]]
            name = "bob"
            key_env = "K_BOB"
            role = "admin"
            "#,
        );
        let principals = auth.principals(&env).unwrap();
        assert_eq!(
            principals.iter().map(KeyPrincipal::name).collect::<Vec<_>>(),
            ["alice", "bob"]
        );
        let keys = wenshu_server::principal::Keys::with_principals(&principals, &[], &[]);
        let alice = keys.verify("alice-key", None).unwrap();
        assert_eq!(alice.attributes["tenant_id"], serde_json::json!(7));
        assert_eq!(alice.attributes["regions"], serde_json::json!(["华东", "华南"]));
        assert!(keys.verify("bob-key", None).unwrap().is_admin());
    }

    #[test]
    fn principal_errors_name_the_field() {
        let unset = section("[[principals]]\nname = \"carol\"\nkey_env = \"K_NONE\"");
        let message = error(unset.principals(&env));
        assert!(
            message.contains("auth.principals[0].key_env") && message.contains("K_NONE"),
            "{message}"
        );
        let nested = section("[[principals]]\nname = \"a\"\nkey_env = \"K_ALICE\"\nattributes = { r = { x = 1 } }");
        let message = error(nested.principals(&env));
        assert!(
            message.contains("auth.principals[0].attributes.r") && message.contains("an object"),
            "{message}"
        );
        let date = section("[[principals]]\nname = \"a\"\nkey_env = \"K_ALICE\"\nattributes = { d = 2026-01-01 }");
        assert!(error(date.principals(&env)).contains("date-time"));
        let twice = section(
            "[[principals]]\nname = \"a\"\nkey_env = \"K_ALICE\"\n[[principals]]\nname = \"b\"\nkey_env = \"K_ALICE\"",
        );
        let message = error(twice.principals(&env));
        assert!(
            message.contains("auth.principals") && message.contains("same key"),
            "{message}"
        );
        assert!(!message.contains("alice-key"));
        let role = toml::from_str::<AuthSection>("[[principals]]\nname = \"a\"\nkey_env = \"K\"\nrole = \"root\"");
        let message = role.unwrap_err().to_string();
        assert!(
            message.contains("role") && message.contains("user") && message.contains("admin"),
            "{message}"
        );
        assert!(toml::from_str::<AuthSection>("[[principals]]\nname = \"a\"\nkey = \"plain\"").is_err());
    }

    #[test]
    fn scopes_without_principals_or_attributes_are_warned_about() {
        let read = vec!["region".to_string()];
        assert!(scope_warnings(&[], &[], 0, None).is_empty());
        let none = scope_warnings(&read, &[], 0, None);
        assert!(none.len() == 1 && none[0].contains("anonymous"), "{none:?}");
        let auth = section(
            "[[principals]]\nname = \"alice\"\nkey_env = \"K_ALICE\"\nattributes = { region = \"华东\" }\n\
             [[principals]]\nname = \"bob\"\nkey_env = \"K_BOB\"",
        );
        let principals = auth.principals(&env).unwrap();
        let warnings = scope_warnings(&read, &principals, 0, None);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("`bob`") && warnings[0].contains("`region`"));
        let jwt = section("[jwt]\nissuer = \"i\"\naudience = \"a\"\nhs256_secret_env = \"JWT_SECRET\"").jwt;
        let warnings = scope_warnings(&read, &principals[..1], 2, jwt.as_ref());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[1].contains("auth.jwt.attributes"));
    }

    #[test]
    fn jwt_settings_need_one_key_source_and_name_the_field() {
        let ok = section("[jwt]\nissuer = \"i\"\naudience = \"a\"\nhs256_secret_env = \"JWT_SECRET\"");
        assert!(ok.jwt(&env).unwrap().is_some());
        assert!(section("").jwt(&env).unwrap().is_none());
        for (text, field) in [
            ("[jwt]\nissuer = \"i\"\naudience = \"a\"", "hs256_secret_env"),
            (
                "[jwt]\nissuer = \"i\"\naudience = \"a\"\nhs256_secret_env = \"NONE\"",
                "auth.jwt.hs256_secret_env",
            ),
            (
                "[jwt]\nissuer = \"i\"\naudience = \"a\"\nhs256_secret_env = \"SHORT\"",
                "at least 32",
            ),
            (
                "[jwt]\nissuer = \"\"\naudience = \"a\"\nhs256_secret_env = \"JWT_SECRET\"",
                "auth.jwt.issuer",
            ),
            (
                "[jwt]\nissuer = \"i\"\naudience = \"a\"\njwks_file = \"/nonexistent/jwks.json\"",
                "auth.jwt.jwks_file",
            ),
            (
                "[jwt]\nissuer = \"i\"\naudience = \"a\"\nhs256_secret_env = \"JWT_SECRET\"\nadmin_values = [\"x\"]",
                "auth.jwt.admin_values",
            ),
            (
                "[jwt]\nissuer = \"i\"\naudience = \"a\"\nhs256_secret_env = \"JWT_SECRET\"\nattributes = { \"a-b\" = \"c\" }",
                "auth.jwt.attributes",
            ),
        ] {
            let message = error(section(text).jwt(&env));
            assert!(message.contains(field), "{text}: {message}");
            assert!(
                !message.contains("short\"") && !message.contains("a-shared-secret"),
                "{message}"
            );
        }
    }
}
