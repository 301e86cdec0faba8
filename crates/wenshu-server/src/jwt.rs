//! JWT bearer tokens: a [`JwtVerifier`] checks a token's signature against a configured HS256 secret or the public
//! keys of a JWKS (RS256/RS384/RS512, ES256/ES384), then its issuer, audience, expiry and not-before (with a small
//! leeway), and makes the [`Principal`]: `jwt:` and the token's `sub` as its id, a name claim, the admin role when
//! the role claim holds one of the configured admin values, and attributes from configured claims. A token that
//! fails gets a [`JwtError`] saying why, never echoing the token.

use std::collections::BTreeMap;
use std::net::IpAddr;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use crate::principal::{Principal, PrincipalError, Role, check_attribute};

/// The longest `sub` accepted, in characters (it becomes the owner id of conversations).
pub const MAX_SUBJECT_CHARS: usize = 256;

/// What verifies the tokens' signatures.
#[derive(Clone)]
pub enum JwtKey {
    /// A shared HS256 secret (at least 32 bytes).
    Secret(String),
    /// The text of a JWKS document (`{"keys": [...]}`) with RSA or EC public keys.
    Jwks(String),
}

/// How tokens are checked and read.
#[derive(Clone)]
pub struct JwtSettings {
    /// The `iss` a token must carry.
    pub issuer: String,
    /// The audience a token's `aud` must hold.
    pub audience: String,
    /// The secret or the public keys.
    pub key: JwtKey,
    /// Seconds of clock skew allowed on `exp` and `nbf`.
    pub leeway_secs: u64,
    /// The claim holding a display name (e.g. `name`), if any.
    pub name_claim: Option<String>,
    /// The claim holding the role (a string or an array of strings), if any; without it every token is a user.
    pub role_claim: Option<String>,
    /// The role claim's values that make an admin.
    pub admin_values: Vec<String>,
    /// Attribute name → the claim it is read from (a claim name, or a dotted path into nested claims).
    pub attributes: BTreeMap<String, String>,
}

impl std::fmt::Debug for JwtSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtSettings")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("attributes", &self.attributes)
            .finish_non_exhaustive()
    }
}

/// Why the JWT settings are refused; each names the setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtConfigError {
    /// `issuer` or `audience` is empty.
    #[error("`{0}` is empty: tokens are checked against it")]
    Empty(&'static str),
    /// The HS256 secret is too short to resist guessing.
    #[error("the HS256 secret has {0} bytes; at least 32 are required")]
    ShortSecret(usize),
    /// The JWKS text is not a JWKS.
    #[error("the JWKS is not valid: {0}")]
    Jwks(String),
    /// The JWKS has no signing key wenshu can use.
    #[error("the JWKS holds no signing key (RSA or EC P-256/P-384)")]
    NoKeys,
    /// One key of the JWKS cannot be used.
    #[error("JWKS key {kid}: {why}")]
    Key {
        /// The key's `kid`, or its position.
        kid: String,
        /// Why.
        why: String,
    },
    /// An attribute mapping names an attribute that is not a plain name.
    #[error("{0}")]
    Attribute(PrincipalError),
}

/// Why a token is refused (said in the 401 body; never holds the token).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    /// Not three base64url parts with JSON inside.
    #[error("the token is not a well-formed JWT")]
    Malformed,
    /// Signed with an algorithm the configured key does not verify.
    #[error("the token is signed with {found}; this server accepts {accepted}")]
    Algorithm {
        /// The token's `alg`.
        found: String,
        /// What the configured key verifies.
        accepted: String,
    },
    /// The `kid` is not in the JWKS (or the token has none and the JWKS has several keys).
    #[error("the token's key id {0} is not in the configured JWKS")]
    UnknownKey(String),
    /// The signature does not verify.
    #[error("the token's signature does not verify")]
    Signature,
    /// Past `exp`.
    #[error("the token has expired")]
    Expired,
    /// Before `nbf`.
    #[error("the token is not valid yet (nbf)")]
    NotYetValid,
    /// Another issuer.
    #[error("the token's issuer (iss) is not the configured issuer")]
    Issuer,
    /// Another audience.
    #[error("the token's audience (aud) does not include the configured audience")]
    Audience,
    /// A required claim is absent (or of a type it cannot be: a number as `sub`, a text as `exp`).
    #[error("the token has no usable `{0}` claim")]
    MissingClaim(String),
    /// `sub` is not a usable identifier.
    #[error(
        "the token's `sub` must be a non-empty string of at most {MAX_SUBJECT_CHARS} characters, without control characters"
    )]
    Subject,
    /// A mapped claim cannot be an attribute.
    #[error("{0}")]
    Claim(PrincipalError),
}

/// One verifying key.
struct VerifyKey {
    kid: Option<String>,
    algorithm: Algorithm,
    key: DecodingKey,
}

/// Verifies bearer tokens and makes their principals.
pub struct JwtVerifier {
    settings: JwtSettings,
    keys: Vec<VerifyKey>,
    /// Whether the key is a shared secret.
    secret: bool,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("settings", &self.settings)
            .field("keys", &self.keys.len())
            .finish()
    }
}

impl JwtVerifier {
    /// A verifier of `settings`, or which setting is wrong.
    pub fn new(settings: JwtSettings) -> Result<Self, JwtConfigError> {
        if settings.issuer.trim().is_empty() {
            return Err(JwtConfigError::Empty("issuer"));
        }
        if settings.audience.trim().is_empty() {
            return Err(JwtConfigError::Empty("audience"));
        }
        for attribute in settings.attributes.keys() {
            check_attribute("the token's attribute mapping", attribute, &Value::Bool(true))
                .map_err(JwtConfigError::Attribute)?;
        }
        let (keys, secret) = match &settings.key {
            JwtKey::Secret(secret) => {
                if secret.len() < 32 {
                    return Err(JwtConfigError::ShortSecret(secret.len()));
                }
                let key = VerifyKey {
                    kid: None,
                    algorithm: Algorithm::HS256,
                    key: DecodingKey::from_secret(secret.as_bytes()),
                };
                (vec![key], true)
            }
            JwtKey::Jwks(text) => (jwks_keys(text)?, false),
        };
        Ok(Self { settings, keys, secret })
    }

    /// Whether `token` has the shape of a JWT (three dot-separated parts), so that it is checked as one rather
    /// than as an API key.
    pub fn looks_like_jwt(token: &str) -> bool {
        token.split('.').count() == 3 && token.split('.').all(|part| !part.is_empty())
    }

    /// Whether some token may be an admin (a role claim and admin values are configured).
    pub fn may_admit_admins(&self) -> bool {
        self.settings.role_claim.is_some() && !self.settings.admin_values.is_empty()
    }

    /// The principal `token` proves, or why it proves none.
    pub fn verify(&self, token: &str, address: Option<IpAddr>) -> Result<Principal, JwtError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| JwtError::Malformed)?;
        let key = self.key_for(header.kid.as_deref())?;
        if header.alg != key.algorithm {
            return Err(JwtError::Algorithm {
                found: format!("{:?}", header.alg),
                accepted: format!("{:?}", key.algorithm),
            });
        }
        let mut validation = Validation::new(key.algorithm);
        validation.leeway = self.settings.leeway_secs;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.settings.issuer]);
        validation.set_audience(&[&self.settings.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation).map_err(refusal)?;
        self.principal(&data.claims, address)
    }

    /// The key that must have signed a token with `kid`.
    fn key_for(&self, kid: Option<&str>) -> Result<&VerifyKey, JwtError> {
        if self.secret {
            return Ok(&self.keys[0]);
        }
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .find(|key| key.kid.as_deref() == Some(kid))
                .ok_or_else(|| JwtError::UnknownKey(format!("`{}`", shorten(kid)))),
            None if self.keys.len() == 1 => Ok(&self.keys[0]),
            None => Err(JwtError::UnknownKey(
                "(none given, and the JWKS has several keys)".into(),
            )),
        }
    }

    /// The principal of verified `claims`.
    fn principal(&self, claims: &Map<String, Value>, address: Option<IpAddr>) -> Result<Principal, JwtError> {
        let subject = match claims.get("sub") {
            Some(Value::String(sub))
                if !sub.trim().is_empty()
                    && sub.chars().count() <= MAX_SUBJECT_CHARS
                    && !sub.chars().any(char::is_control) =>
            {
                sub.clone()
            }
            Some(_) => return Err(JwtError::Subject),
            None => return Err(JwtError::MissingClaim("sub".into())),
        };
        let settings = &self.settings;
        let name = settings
            .name_claim
            .as_deref()
            .and_then(|claim| claim_value(claims, claim))
            .and_then(Value::as_str)
            .map(|name| shorten(name).to_string());
        let admin = settings
            .role_claim
            .as_deref()
            .and_then(|claim| claim_value(claims, claim))
            .is_some_and(|roles| {
                let holds = |role: &Value| {
                    role.as_str()
                        .is_some_and(|r| settings.admin_values.iter().any(|a| a == r))
                };
                match roles {
                    Value::Array(roles) => roles.iter().any(holds),
                    role => holds(role),
                }
            });
        let mut attributes = BTreeMap::new();
        for (attribute, claim) in &settings.attributes {
            if let Some(value) = claim_value(claims, claim) {
                check_attribute(&format!("the token's claim `{claim}`"), attribute, value).map_err(JwtError::Claim)?;
                attributes.insert(attribute.clone(), value.clone());
            }
        }
        Ok(Principal {
            id: Some(format!("jwt:{subject}")),
            role: if admin { Role::Admin } else { Role::User },
            name,
            attributes,
            address,
        })
    }
}

/// A claim by name, else by a dotted path into nested objects (`realm_access.roles`).
fn claim_value<'a>(claims: &'a Map<String, Value>, claim: &str) -> Option<&'a Value> {
    if let Some(value) = claims.get(claim) {
        return Some(value);
    }
    let mut parts = claim.split('.');
    let mut value = claims.get(parts.next()?)?;
    for part in parts {
        value = value.as_object()?.get(part)?;
    }
    Some(value)
}

/// The library's refusal as ours.
fn refusal(error: jsonwebtoken::errors::Error) -> JwtError {
    match error.into_kind() {
        ErrorKind::ExpiredSignature => JwtError::Expired,
        ErrorKind::ImmatureSignature => JwtError::NotYetValid,
        ErrorKind::InvalidIssuer => JwtError::Issuer,
        ErrorKind::InvalidAudience => JwtError::Audience,
        ErrorKind::MissingRequiredClaim(claim) => JwtError::MissingClaim(claim),
        ErrorKind::InvalidSignature
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidRsaKey(_)
        | ErrorKind::Crypto(_) => JwtError::Signature,
        _ => JwtError::Malformed,
    }
}

/// At most 64 characters of a token-given text (a `kid`, a name).
fn shorten(text: &str) -> &str {
    text.char_indices().nth(64).map_or(text, |(at, _)| &text[..at])
}

/// The signing keys of a JWKS: RSA and EC P-256/P-384 keys; keys marked for encryption are skipped.
fn jwks_keys(text: &str) -> Result<Vec<VerifyKey>, JwtConfigError> {
    let set: JwkSet = serde_json::from_str(text).map_err(|e| JwtConfigError::Jwks(e.to_string()))?;
    let mut keys = Vec::new();
    for (at, jwk) in set.keys.iter().enumerate() {
        if jwk.common.public_key_use == Some(PublicKeyUse::Encryption) {
            continue;
        }
        let kid = jwk.common.key_id.clone();
        let name = kid.as_ref().map_or_else(|| format!("#{at}"), |kid| format!("`{kid}`"));
        let refuse = |why: String| JwtConfigError::Key { kid: name.clone(), why };
        let algorithm = match (&jwk.algorithm, jwk.common.key_algorithm) {
            (AlgorithmParameters::RSA(_), None | Some(KeyAlgorithm::RS256)) => Algorithm::RS256,
            (AlgorithmParameters::RSA(_), Some(KeyAlgorithm::RS384)) => Algorithm::RS384,
            (AlgorithmParameters::RSA(_), Some(KeyAlgorithm::RS512)) => Algorithm::RS512,
            (AlgorithmParameters::EllipticCurve(ec), None | Some(KeyAlgorithm::ES256))
                if ec.curve == EllipticCurve::P256 =>
            {
                Algorithm::ES256
            }
            (AlgorithmParameters::EllipticCurve(ec), None | Some(KeyAlgorithm::ES384))
                if ec.curve == EllipticCurve::P384 =>
            {
                Algorithm::ES384
            }
            (AlgorithmParameters::OctetKey(_), _) => {
                return Err(refuse(
                    "a shared secret does not belong in a JWKS of public keys: use the HS256 secret setting".into(),
                ));
            }
            (_, algorithm) => {
                return Err(refuse(format!(
                    "its type and algorithm ({algorithm:?}) are not supported; supported: RSA with RS256/RS384/RS512, \
                     EC P-256 with ES256, EC P-384 with ES384"
                )));
            }
        };
        let key = DecodingKey::from_jwk(jwk).map_err(|e| refuse(e.to_string()))?;
        keys.push(VerifyKey { kid, algorithm, key });
    }
    if keys.is_empty() {
        return Err(JwtConfigError::NoKeys);
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{EncodingKey, Header, encode};
    use serde_json::json;

    use super::*;

    const SECRET: &str = "a-test-secret-of-at-least-32-bytes!!";

    fn settings(key: JwtKey) -> JwtSettings {
        JwtSettings {
            issuer: "https://sso.test".into(),
            audience: "wenshu".into(),
            key,
            leeway_secs: 5,
            name_claim: Some("name".into()),
            role_claim: Some("realm.roles".into()),
            admin_values: vec!["wenshu-admin".into()],
            attributes: BTreeMap::from([
                ("region".to_string(), "region".to_string()),
                ("tenant_id".to_string(), "tid".to_string()),
            ]),
        }
    }

    fn now() -> i64 {
        jsonwebtoken::get_current_timestamp() as i64
    }

    fn claims(extra: Value) -> Value {
        let mut claims = json!({"iss": "https://sso.test", "aud": "wenshu", "sub": "u-1", "exp": now() + 600});
        claims
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        claims
    }

    fn hs(claims: &Value, secret: &str) -> String {
        encode(
            &Header::new(Algorithm::HS256),
            claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    }

    fn verifier() -> JwtVerifier {
        JwtVerifier::new(settings(JwtKey::Secret(SECRET.into()))).unwrap()
    }

    #[test]
    fn a_valid_token_makes_a_principal_with_its_claims() {
        let token = hs(&claims(json!({"name": "Li", "region": "华东", "tid": 7})), SECRET);
        let principal = verifier().verify(&token, None).unwrap();
        assert_eq!(principal.id.as_deref(), Some("jwt:u-1"));
        assert_eq!((principal.role, principal.name.as_deref()), (Role::User, Some("Li")));
        assert_eq!(principal.attributes["region"], json!("华东"));
        assert_eq!(principal.attributes["tenant_id"], json!(7));
        let admin = hs(&claims(json!({"realm": {"roles": ["x", "wenshu-admin"]}})), SECRET);
        assert_eq!(verifier().verify(&admin, None).unwrap().role, Role::Admin);
        let not_admin = hs(&claims(json!({"realm": {"roles": "wenshu-user"}})), SECRET);
        assert_eq!(verifier().verify(&not_admin, None).unwrap().role, Role::User);
    }

    #[test]
    fn each_refusal_says_why() {
        let v = verifier();
        let cases = [
            (hs(&claims(json!({"exp": now() - 60})), SECRET), JwtError::Expired),
            (hs(&claims(json!({"nbf": now() + 600})), SECRET), JwtError::NotYetValid),
            (hs(&claims(json!({"iss": "https://other"})), SECRET), JwtError::Issuer),
            (hs(&claims(json!({"aud": "other"})), SECRET), JwtError::Audience),
            (
                hs(&claims(json!({})), "another-secret-of-at-least-32-bytes"),
                JwtError::Signature,
            ),
            (hs(&claims(json!({"sub": ""})), SECRET), JwtError::Subject),
            (
                hs(&claims(json!({"sub": 7})), SECRET),
                JwtError::MissingClaim("sub".into()),
            ),
            (hs(&claims(json!({"sub": "a\nb"})), SECRET), JwtError::Subject),
            ("a.b.c".to_string(), JwtError::Malformed),
        ];
        for (token, expected) in cases {
            assert_eq!(v.verify(&token, None).unwrap_err(), expected);
        }
        let mut no_sub = claims(json!({}));
        no_sub.as_object_mut().unwrap().remove("sub");
        assert_eq!(
            v.verify(&hs(&no_sub, SECRET), None).unwrap_err(),
            JwtError::MissingClaim("sub".into())
        );
        let object = hs(&claims(json!({"region": {"a": 1}})), SECRET);
        assert!(
            v.verify(&object, None)
                .unwrap_err()
                .to_string()
                .contains("claim `region`")
        );
        // Within the leeway an expired token still passes.
        assert!(v.verify(&hs(&claims(json!({"exp": now() - 2})), SECRET), None).is_ok());
    }

    #[test]
    fn another_algorithm_is_refused_never_confused() {
        let token = encode(
            &Header::new(Algorithm::HS384),
            &claims(json!({})),
            &EncodingKey::from_secret(SECRET.as_bytes()),
        )
        .unwrap();
        assert!(matches!(
            verifier().verify(&token, None),
            Err(JwtError::Algorithm { .. })
        ));
        // "none" is not an algorithm the library reads: malformed.
        let unsigned = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.";
        assert!(verifier().verify(unsigned, None).is_err());
    }

    #[test]
    fn settings_errors_name_the_setting() {
        let short = JwtVerifier::new(settings(JwtKey::Secret("short".into()))).unwrap_err();
        assert_eq!(short, JwtConfigError::ShortSecret(5));
        let mut no_issuer = settings(JwtKey::Secret(SECRET.into()));
        no_issuer.issuer = " ".into();
        assert_eq!(
            JwtVerifier::new(no_issuer).unwrap_err(),
            JwtConfigError::Empty("issuer")
        );
        let bad = JwtVerifier::new(settings(JwtKey::Jwks("{}".into()))).unwrap_err();
        assert!(matches!(bad, JwtConfigError::Jwks(_)), "{bad}");
        let empty = JwtVerifier::new(settings(JwtKey::Jwks(r#"{"keys": []}"#.into()))).unwrap_err();
        assert_eq!(empty, JwtConfigError::NoKeys);
        let oct = r#"{"keys": [{"kty": "oct", "kid": "s", "k": "c2VjcmV0"}]}"#;
        let oct = JwtVerifier::new(settings(JwtKey::Jwks(oct.into()))).unwrap_err();
        assert!(
            oct.to_string().contains("`s`") && oct.to_string().contains("shared secret"),
            "{oct}"
        );
        let mut bad_attribute = settings(JwtKey::Secret(SECRET.into()));
        bad_attribute.attributes.insert("a-b".into(), "x".into());
        assert!(matches!(
            JwtVerifier::new(bad_attribute),
            Err(JwtConfigError::Attribute(_))
        ));
        assert!(!format!("{:?}", settings(JwtKey::Secret(SECRET.into()))).contains(SECRET));
    }

    #[test]
    fn jwks_keys_verify_rs256_and_es256_by_kid() {
        let jwks = include_str!("../tests/fixtures/jwt-test-jwks.json");
        let v = JwtVerifier::new(settings(JwtKey::Jwks(jwks.into()))).unwrap();
        let sign = |alg, kid: Option<&str>, key: &EncodingKey| {
            let mut header = Header::new(alg);
            header.kid = kid.map(str::to_string);
            encode(&header, &claims(json!({})), key).unwrap()
        };
        let rsa = EncodingKey::from_rsa_der(include_bytes!("../tests/fixtures/jwt-test-rsa.der"));
        let ec = EncodingKey::from_ec_der(include_bytes!("../tests/fixtures/jwt-test-ec.p8.der"));
        assert!(v.verify(&sign(Algorithm::RS256, Some("test-rsa"), &rsa), None).is_ok());
        assert!(v.verify(&sign(Algorithm::ES256, Some("test-ec"), &ec), None).is_ok());
        let swapped = sign(Algorithm::RS256, Some("test-ec"), &rsa);
        assert!(matches!(v.verify(&swapped, None), Err(JwtError::Algorithm { .. })));
        let unknown = sign(Algorithm::RS256, Some("gone"), &rsa);
        assert_eq!(
            v.verify(&unknown, None).unwrap_err(),
            JwtError::UnknownKey("`gone`".into())
        );
        let no_kid = sign(Algorithm::RS256, None, &rsa);
        assert!(matches!(v.verify(&no_kid, None), Err(JwtError::UnknownKey(_))));
        // An HS256 token made with a public key's bytes as the secret is refused (no algorithm confusion).
        let forged = sign(
            Algorithm::HS256,
            Some("test-rsa"),
            &EncodingKey::from_secret(jwks.as_bytes()),
        );
        assert!(matches!(v.verify(&forged, None), Err(JwtError::Algorithm { .. })));
    }

    #[test]
    fn junk_never_panics_and_is_refused() {
        let jwks = JwtVerifier::new(settings(JwtKey::Jwks(
            include_str!("../tests/fixtures/jwt-test-jwks.json").into(),
        )));
        let verifiers = [verifier(), jwks.unwrap()];
        let b64 = |text: &str| {
            use std::fmt::Write;
            // base64url without padding, by hand (the tests have no base64 crate).
            const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let bytes = text.as_bytes();
            let mut out = String::new();
            for chunk in bytes.chunks(3) {
                let n = chunk
                    .iter()
                    .enumerate()
                    .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
                for i in 0..=chunk.len() {
                    let _ = write!(out, "{}", ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
                }
            }
            out
        };
        let mut tokens = vec![
            String::new(),
            "..".into(),
            "a.b.c".into(),
            "é.é.é".into(),
            format!("{}.{}.", b64(r#"{"alg":"none"}"#), b64("{}")),
            format!(
                "{}.{}.AAAA",
                b64(r#"{"alg":"RS256","kid":"test-rsa"}"#),
                b64(r#"{"sub":"x"}"#)
            ),
            format!("{}.{}.AAAA", b64(r#"{"alg":"ES256","kid":"test-ec"}"#), b64("[]")),
            format!("{}.{}.AAAA", b64(r#"{"alg":"HS256"}"#), b64("null")),
            format!("{}.x.y", b64(r#"{"alg":"EdDSA"}"#)),
            format!("{}.{}.{}", "A".repeat(5000), "B".repeat(5000), "C".repeat(5000)),
        ];
        tokens.push(format!(
            "{}.{}.AAAA",
            b64(r#"{"alg":"HS256","kid":"test-rsa"}"#),
            b64(r#"{"sub":"x"}"#)
        ));
        for verifier in &verifiers {
            for token in &tokens {
                assert!(verifier.verify(token, None).is_err(), "{token}");
            }
        }
    }

    #[test]
    fn only_three_part_tokens_look_like_jwts() {
        assert!(JwtVerifier::looks_like_jwt("a.b.c"));
        for token in ["abc", "a.b", "a..c", "a.b.c.d"] {
            assert!(!JwtVerifier::looks_like_jwt(token), "{token}");
        }
    }
}
