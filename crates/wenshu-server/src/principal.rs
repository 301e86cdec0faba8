//! Who is asking: the [`Principal`] of a request, made once by the auth layer ([`crate::auth`]) and read by every
//! handler from the request's extensions. A principal names the key or token it proved (by a fingerprint or the
//! token's subject, never the key), its role, its name and its attributes; [`Principal::viewer`] is what the
//! engine sees of it. [`KeyPrincipal`] is one configured key with its name, role and attributes.

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use wenshu_engine::Viewer;

/// What a principal may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// No keys are configured: anyone may ask, nobody may change tools.
    Anonymous,
    /// Keys are configured and none was given (public routes only): may read nothing that is owned.
    Guest,
    /// A user key: may ask and read what it made.
    User,
    /// An admin key: may also change tools and read every conversation and trace.
    Admin,
}

impl Role {
    /// The role's name in logs and the store (`anonymous`, `user`, `admin`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anonymous => "anonymous",
            Self::Guest => "guest",
            Self::User => "user",
            Self::Admin => "admin",
        }
    }
}

/// The verified identity of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    /// Who it is, stable across requests: `k-` and 16 hex digits of the key's SHA-256 for a key, `jwt:` and the
    /// subject for a token (the prefixes keep the two apart); `None` when anonymous or a guest.
    pub id: Option<String>,
    /// What it may do.
    pub role: Role,
    /// A display name: the configured principal's `name`, or the token's name claim.
    pub name: Option<String>,
    /// Attributes a row scope reads (`region`, `tenant_id`, …): strings, numbers, booleans or arrays of them.
    pub attributes: BTreeMap<String, Value>,
    /// The client's address, as the connection gave it (forwarding headers are not trusted).
    pub address: Option<IpAddr>,
}

impl Principal {
    /// An anonymous principal from `address` (no keys are configured).
    pub fn anonymous(address: Option<IpAddr>) -> Self {
        Self {
            id: None,
            role: Role::Anonymous,
            name: None,
            attributes: BTreeMap::new(),
            address,
        }
    }

    /// The owner recorded on what this principal creates (conversations, feedback): its id; `None` when
    /// anonymous.
    pub fn owner(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// What the engine sees of this principal: an admin is unscoped; a user is scoped by its attributes; an
    /// anonymous principal or a guest is scoped with no attributes, so that a configured row scope refuses it
    /// rather than widening to every row.
    pub fn viewer(&self) -> Viewer {
        match self.role {
            Role::Admin => Viewer {
                id: self.id.clone(),
                name: self.name.clone(),
                unscoped: true,
                attributes: self.attributes.clone(),
            },
            Role::User => Viewer {
                name: self.name.clone(),
                ..Viewer::scoped(self.id.clone(), self.attributes.clone())
            },
            Role::Anonymous | Role::Guest => Viewer::scoped(None, BTreeMap::new()),
        }
    }

    /// Whether this principal may read a record owned by `owner`: admins and anonymous servers (no keys) read
    /// everything; a user reads only what it made.
    pub fn can_read(&self, owner: Option<&str>) -> bool {
        match self.role {
            Role::Admin | Role::Anonymous => true,
            Role::User => owner.is_some() && owner == self.owner(),
            Role::Guest => false,
        }
    }

    /// Whether this principal is an admin.
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }

    /// Who owns an MCP session opened with a request's `extensions`: its principal's [`Principal::bucket`] (the
    /// key or token, else the client address); `None` when the auth layer put no principal there.
    pub fn session_owner(extensions: &axum::http::Extensions) -> Option<String> {
        extensions.get::<Principal>().map(Principal::bucket)
    }

    /// The rate limiter's bucket: the principal's id, else the client address.
    pub fn bucket(&self) -> String {
        match (&self.id, self.address) {
            (Some(id), _) => format!("key:{id}"),
            (None, Some(ip)) => format!("addr:{ip}"),
            (None, None) => "anonymous".to_string(),
        }
    }
}

/// Why a configured principal or an attribute is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrincipalError {
    /// A principal without a name.
    #[error("a principal's `name` is empty: give each principal a name")]
    EmptyName,
    /// A principal whose key is empty.
    #[error("principal `{0}`: its key is empty")]
    EmptyKey(String),
    /// Two principals with one name.
    #[error("principal `{0}` is configured twice: names must be distinct")]
    DuplicateName(String),
    /// Two principals with one key.
    #[error("principals `{0}` and `{1}` have the same key: each key proves one principal")]
    DuplicateKey(String, String),
    /// An attribute name outside `[A-Za-z_][A-Za-z0-9_]*`.
    #[error("{owner}: attribute name `{name}` is not allowed: use letters, digits and `_`, not starting with a digit")]
    AttributeName {
        /// The principal, or the token's claim mapping.
        owner: String,
        /// The name given.
        name: String,
    },
    /// An attribute value of a kind a scope cannot compare.
    #[error("{owner}: attribute `{name}` is {found}; allowed: a string, a number, a boolean, or an array of them")]
    AttributeValue {
        /// The principal, or the token's claim.
        owner: String,
        /// The attribute.
        name: String,
        /// What it is instead (`an object`, `null`, `a nested array`).
        found: &'static str,
    },
}

/// Checks an attribute's name and value: `owner` names the principal or the token's claim in the error.
pub fn check_attribute(owner: &str, name: &str, value: &Value) -> Result<(), PrincipalError> {
    let mut chars = name.chars();
    let starts_well = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !starts_well || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(PrincipalError::AttributeName {
            owner: owner.to_string(),
            name: name.to_string(),
        });
    }
    let refuse = |found| PrincipalError::AttributeValue {
        owner: owner.to_string(),
        name: name.to_string(),
        found,
    };
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Ok(()),
        Value::Null => Err(refuse("null")),
        Value::Object(_) => Err(refuse("an object")),
        Value::Array(items) => match items.iter().find(|item| !is_scalar(item)) {
            None => Ok(()),
            Some(Value::Array(_)) => Err(refuse("a nested array")),
            Some(Value::Object(_)) => Err(refuse("an array holding an object")),
            Some(_) => Err(refuse("an array holding null")),
        },
    }
}

fn is_scalar(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// One configured key with its principal: a name, a role (user or admin) and attributes. Only the key's digest is
/// kept, and `Debug` prints the name alone.
#[derive(Clone)]
pub struct KeyPrincipal {
    name: String,
    digest: [u8; 32],
    role: Role,
    attributes: BTreeMap<String, Value>,
}

impl std::fmt::Debug for KeyPrincipal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyPrincipal")
            .field("name", &self.name)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

impl KeyPrincipal {
    /// The principal `name` proved by `key`, with `role` (an admin when `admin`) and `attributes`, each checked.
    pub fn new(
        name: &str,
        key: &str,
        admin: bool,
        attributes: BTreeMap<String, Value>,
    ) -> Result<Self, PrincipalError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(PrincipalError::EmptyName);
        }
        if key.trim().is_empty() {
            return Err(PrincipalError::EmptyKey(name.to_string()));
        }
        let owner = format!("principal `{name}`");
        for (attribute, value) in &attributes {
            check_attribute(&owner, attribute, value)?;
        }
        Ok(Self {
            name: name.to_string(),
            digest: digest(key.trim()),
            role: if admin { Role::Admin } else { Role::User },
            attributes,
        })
    }

    /// The principal's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The principal's attributes.
    pub fn attributes(&self) -> &BTreeMap<String, Value> {
        &self.attributes
    }

    /// Whether the principal is an admin (row scopes do not apply to it).
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }

    /// Checks that `principals` have distinct names and distinct keys.
    pub fn check_distinct(principals: &[KeyPrincipal]) -> Result<(), PrincipalError> {
        for (i, a) in principals.iter().enumerate() {
            for b in &principals[..i] {
                if a.name == b.name {
                    return Err(PrincipalError::DuplicateName(a.name.clone()));
                }
                if a.digest == b.digest {
                    return Err(PrincipalError::DuplicateKey(b.name.clone(), a.name.clone()));
                }
            }
        }
        Ok(())
    }
}

/// One configured key: its SHA-256 (compared in constant time), fingerprint, role, name and attributes.
#[derive(Clone)]
struct KeyEntry {
    digest: [u8; 32],
    id: String,
    role: Role,
    name: Option<String>,
    attributes: BTreeMap<String, Value>,
}

/// The configured keys; the keys themselves are not kept, only their digests.
#[derive(Clone, Default)]
pub struct Keys {
    entries: Vec<KeyEntry>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("count", &self.entries.len()).finish()
    }
}

impl Keys {
    /// The keys of `users` (role user) and `admins` (role admin); a key in both is an admin key.
    pub fn new(users: &[String], admins: &[String]) -> Self {
        Self::with_principals(&[], users, admins)
    }

    /// The keys of `principals` (each with its name, role and attributes), then of `users` and `admins` (no name,
    /// no attributes). A key given twice keeps its first entry: a principal's, else the admin one.
    pub fn with_principals(principals: &[KeyPrincipal], users: &[String], admins: &[String]) -> Self {
        let mut entries: Vec<KeyEntry> = Vec::new();
        let mut push = |entry: KeyEntry| {
            if !entries.iter().any(|e| e.digest == entry.digest) {
                entries.push(entry);
            }
        };
        for principal in principals {
            push(KeyEntry {
                digest: principal.digest,
                id: fingerprint(&principal.digest),
                role: principal.role,
                name: Some(principal.name.clone()),
                attributes: principal.attributes.clone(),
            });
        }
        for (keys, role) in [(admins, Role::Admin), (users, Role::User)] {
            for key in keys {
                let digest = digest(key);
                push(KeyEntry {
                    id: fingerprint(&digest),
                    digest,
                    role,
                    name: None,
                    attributes: BTreeMap::new(),
                });
            }
        }
        Self { entries }
    }

    /// Whether any key is configured (then every protected route needs one).
    pub fn enabled(&self) -> bool {
        !self.entries.is_empty()
    }

    /// Whether an admin key is configured.
    pub fn has_admin(&self) -> bool {
        self.entries.iter().any(|e| e.role == Role::Admin)
    }

    /// The principal `presented` proves, if it is a configured key. Every entry is compared, in constant time, so
    /// the time taken says nothing about which key or how much of it matched.
    pub fn verify(&self, presented: &str, address: Option<IpAddr>) -> Option<Principal> {
        let presented = digest(presented);
        let mut found: Option<&KeyEntry> = None;
        for entry in &self.entries {
            if bool::from(entry.digest.ct_eq(&presented)) {
                found = Some(entry);
            }
        }
        found.map(|entry| Principal {
            id: Some(entry.id.clone()),
            role: entry.role,
            name: entry.name.clone(),
            attributes: entry.attributes.clone(),
            address,
        })
    }
}

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn fingerprint(digest: &[u8; 32]) -> String {
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("k-{hex}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn attributes(value: Value) -> BTreeMap<String, Value> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_user_key_with_attributes_is_a_scoped_viewer_and_an_admin_is_unscoped() {
        let alice = KeyPrincipal::new(
            "alice",
            "ka",
            false,
            attributes(json!({"region": "华东", "tenant_id": 7})),
        );
        let root = KeyPrincipal::new("root", "kr", true, attributes(json!({"region": "华南"})));
        let keys = Keys::with_principals(&[alice.unwrap(), root.unwrap()], &["plain".into()], &[]);
        let viewer = keys.verify("ka", None).unwrap().viewer();
        assert!(!viewer.unscoped);
        assert_eq!(viewer.name.as_deref(), Some("alice"));
        assert_eq!(viewer.attribute("region"), Some(&json!("华东")));
        assert_eq!(viewer.attribute("tenant_id"), Some(&json!(7)));
        assert!(viewer.id.as_deref().unwrap().starts_with("k-"));
        let admin = keys.verify("kr", None).unwrap().viewer();
        assert!(admin.unscoped);
        assert_eq!(admin.name.as_deref(), Some("root"));
        let plain = keys.verify("plain", None).unwrap();
        assert_eq!((plain.role, plain.name.clone()), (Role::User, None));
        assert!(!plain.viewer().unscoped && plain.viewer().attributes.is_empty());
    }

    #[test]
    fn anonymous_and_guests_are_scoped_with_nothing() {
        let anonymous = Principal::anonymous(None).viewer();
        assert!(!anonymous.unscoped);
        assert!(anonymous.attributes.is_empty() && anonymous.id.is_none());
        let guest = Principal {
            role: Role::Guest,
            attributes: attributes(json!({"region": "华东"})),
            ..Principal::anonymous(None)
        };
        assert!(guest.viewer().attributes.is_empty() && !guest.viewer().unscoped);
    }

    #[test]
    fn attributes_are_scalars_or_arrays_of_them_with_plain_names() {
        let ok = json!({"region": "华东", "n": 1.5, "on": true, "regions": ["华东", "华南"], "ids": [1, 2]});
        assert!(KeyPrincipal::new("a", "k", false, attributes(ok)).is_ok());
        for (value, found) in [
            (json!({"x": null}), "null"),
            (json!({"x": {"y": 1}}), "an object"),
            (json!({"x": [[1]]}), "a nested array"),
            (json!({"x": [{"y": 1}]}), "an array holding an object"),
        ] {
            let error = KeyPrincipal::new("a", "k", false, attributes(value)).unwrap_err();
            assert!(error.to_string().contains(found), "{error}");
            assert!(error.to_string().contains("principal `a`") && error.to_string().contains("`x`"));
        }
        for name in ["1st", "a-b", "", "地区"] {
            let error = KeyPrincipal::new("a", "k", false, attributes(json!({name: 1}))).unwrap_err();
            assert!(matches!(error, PrincipalError::AttributeName { .. }), "{name}: {error}");
        }
        assert_eq!(
            KeyPrincipal::new(" ", "k", false, BTreeMap::new()).unwrap_err(),
            PrincipalError::EmptyName
        );
        assert!(matches!(
            KeyPrincipal::new("a", " ", false, BTreeMap::new()),
            Err(PrincipalError::EmptyKey(_))
        ));
    }

    #[test]
    fn principals_have_distinct_names_and_keys_and_debug_never_shows_a_key() {
        let p = |name: &str, key: &str| KeyPrincipal::new(name, key, false, BTreeMap::new()).unwrap();
        assert!(KeyPrincipal::check_distinct(&[p("a", "k1"), p("b", "k2")]).is_ok());
        let error = KeyPrincipal::check_distinct(&[p("a", "k1"), p("a", "k2")]).unwrap_err();
        assert_eq!(error, PrincipalError::DuplicateName("a".into()));
        let error = KeyPrincipal::check_distinct(&[p("a", "secret-1"), p("b", "secret-1")]).unwrap_err();
        assert_eq!(error, PrincipalError::DuplicateKey("a".into(), "b".into()));
        assert!(!error.to_string().contains("secret-1"));
        assert!(!format!("{:?}", p("a", "secret-1")).contains("secret-1"));
    }

    #[test]
    fn verifies_keys_by_role_and_never_keeps_them() {
        let keys = Keys::new(&["u1".into()], &["a1".into()]);
        let user = keys.verify("u1", None).unwrap();
        assert_eq!(user.role, Role::User);
        assert!(!user.id.as_deref().unwrap().contains("u1"));
        assert_eq!(keys.verify("a1", None).unwrap().role, Role::Admin);
        assert!(keys.verify("u2", None).is_none());
        assert!(keys.verify("", None).is_none());
        assert!(!format!("{keys:?}").contains("u1"));
    }

    #[test]
    fn users_read_only_their_own() {
        let keys = Keys::new(&["u1".into(), "u2".into()], &["a1".into()]);
        let (u1, u2, admin) = (
            keys.verify("u1", None).unwrap(),
            keys.verify("u2", None).unwrap(),
            keys.verify("a1", None).unwrap(),
        );
        assert!(u1.can_read(u1.owner()));
        assert!(!u2.can_read(u1.owner()));
        assert!(!u2.can_read(None));
        assert!(admin.can_read(u1.owner()));
        assert!(Principal::anonymous(None).can_read(None));
    }
}
