//! What proving who asks costs per request, in process: a configured key (SHA-256, constant-time comparison with
//! every entry) against JWT bearer tokens verified with an HS256 secret, and RS256 and ES256 keys from a JWKS.

use std::collections::BTreeMap;

use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::json;
use wenshu_server::jwt::{JwtKey, JwtSettings, JwtVerifier};
use wenshu_server::principal::{KeyPrincipal, Keys};

const SECRET: &str = "a-bench-secret-of-at-least-32-bytes!";

fn settings(key: JwtKey) -> JwtSettings {
    JwtSettings {
        issuer: "https://sso.bench".into(),
        audience: "wenshu".into(),
        key,
        leeway_secs: 30,
        name_claim: Some("name".into()),
        role_claim: Some("roles".into()),
        admin_values: vec!["admin".into()],
        attributes: BTreeMap::from([("region".to_string(), "region".to_string())]),
    }
}

fn token(alg: Algorithm, kid: Option<&str>, key: &EncodingKey) -> String {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({"iss": "https://sso.bench", "aud": "wenshu", "sub": "u-1", "exp": now + 86_400,
        "name": "Li", "roles": ["user"], "region": "华东"});
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_string);
    encode(&header, &claims, key).unwrap_or_default()
}

fn tokens(c: &mut Criterion) {
    let principals: Vec<KeyPrincipal> = (0..10)
        .filter_map(|i| {
            let attributes = BTreeMap::from([("region".to_string(), json!("华东"))]);
            KeyPrincipal::new(&format!("p{i}"), &format!("bench-key-{i}"), false, attributes).ok()
        })
        .collect();
    let keys = Keys::with_principals(&principals, &[], &[]);
    c.bench_function("a key among ten principals", |b| {
        b.iter(|| keys.verify("bench-key-7", None))
    });
    let Ok(hs) = JwtVerifier::new(settings(JwtKey::Secret(SECRET.into()))) else {
        return;
    };
    let hs_token = token(Algorithm::HS256, None, &EncodingKey::from_secret(SECRET.as_bytes()));
    c.bench_function("an HS256 token", |b| b.iter(|| hs.verify(&hs_token, None)));
    let jwks = include_str!("../tests/fixtures/jwt-test-jwks.json");
    let Ok(keyed) = JwtVerifier::new(settings(JwtKey::Jwks(jwks.into()))) else {
        return;
    };
    let rsa = EncodingKey::from_rsa_der(include_bytes!("../tests/fixtures/jwt-test-rsa.der"));
    let ec = EncodingKey::from_ec_der(include_bytes!("../tests/fixtures/jwt-test-ec.p8.der"));
    let rs_token = token(Algorithm::RS256, Some("test-rsa"), &rsa);
    let es_token = token(Algorithm::ES256, Some("test-ec"), &ec);
    c.bench_function("an RS256 token (JWKS)", |b| b.iter(|| keyed.verify(&rs_token, None)));
    c.bench_function("an ES256 token (JWKS)", |b| b.iter(|| keyed.verify(&es_token, None)));
}

criterion_group!(benches, tokens);
criterion_main!(benches);
