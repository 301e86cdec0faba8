//! Who is asking: the [`Principal`] of a request, made once by the auth layer ([`crate::auth`]) and read by every
//! handler from the request's extensions. A principal names the key it proved (by a fingerprint, never the key),
//! its role, and room for what a later issue adds (a display name, attributes).

use std::collections::BTreeMap;
use std::net::IpAddr;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The fingerprint of the key that was proved (`k-` and 16 hex digits of its SHA-256); `None` when anonymous.
    pub key_id: Option<String>,
    /// What it may do.
    pub role: Role,
    /// A display name, when the key has one (none yet: room for a later issue).
    pub name: Option<String>,
    /// Further attributes of the key (tenant, groups, …); empty for now.
    pub attributes: BTreeMap<String, String>,
    /// The client's address, as the connection gave it (forwarding headers are not trusted).
    pub address: Option<IpAddr>,
}

impl Principal {
    /// An anonymous principal from `address` (no keys are configured).
    pub fn anonymous(address: Option<IpAddr>) -> Self {
        Self {
            key_id: None,
            role: Role::Anonymous,
            name: None,
            attributes: BTreeMap::new(),
            address,
        }
    }

    /// The owner recorded on what this principal creates: its key fingerprint; `None` when anonymous.
    pub fn owner(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// Whether this principal may read a record owned by `owner`: admins and anonymous servers (no keys) read
    /// everything; a user reads only what its own key made.
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

    /// The rate limiter's bucket: the key fingerprint, else the client address.
    pub fn bucket(&self) -> String {
        match (&self.key_id, self.address) {
            (Some(id), _) => format!("key:{id}"),
            (None, Some(ip)) => format!("addr:{ip}"),
            (None, None) => "anonymous".to_string(),
        }
    }
}

/// One configured key: its SHA-256 (compared in constant time), fingerprint and role.
#[derive(Clone)]
struct KeyEntry {
    digest: [u8; 32],
    id: String,
    role: Role,
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
        let mut entries: Vec<KeyEntry> = Vec::new();
        for (keys, role) in [(admins, Role::Admin), (users, Role::User)] {
            for key in keys {
                let digest = digest(key);
                if entries.iter().any(|e| e.digest == digest) {
                    continue;
                }
                entries.push(KeyEntry {
                    id: fingerprint(&digest),
                    digest,
                    role,
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
            key_id: Some(entry.id.clone()),
            role: entry.role,
            name: None,
            attributes: BTreeMap::new(),
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
    use super::*;

    #[test]
    fn verifies_keys_by_role_and_never_keeps_them() {
        let keys = Keys::new(&["u1".into()], &["a1".into()]);
        let user = keys.verify("u1", None).unwrap();
        assert_eq!(user.role, Role::User);
        assert!(!user.key_id.as_deref().unwrap().contains("u1"));
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
