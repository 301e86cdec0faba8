//! JWT bearer tokens minted for the server under test (HS256): a valid one, an expired one, one signed with
//! another secret.

use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::{Value, json};

/// The issuer the server is configured with.
pub const ISSUER: &str = "https://sso.matrix.test";
/// The audience the server is configured with.
pub const AUDIENCE: &str = "wenshu";

/// A token for `subject` with `claims` added, signed with `secret`, expiring `expires_in` seconds from now
/// (negative: already expired).
pub fn token(secret: &str, subject: &str, claims: Value, expires_in: i64) -> String {
    let now = jiff::Timestamp::now().as_second();
    let mut body = json!({"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "iat": now, "exp": now + expires_in});
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), claims) {
        body.extend(extra);
    }
    encode(&Header::default(), &body, &EncodingKey::from_secret(secret.as_bytes())).expect("a token is signed")
}
