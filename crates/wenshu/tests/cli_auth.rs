//! `wenshu serve` with `[[auth.principals]]` and `[auth.jwt]` in `wenshu.toml`, spoken to over real HTTP on
//! 127.0.0.1: a principal's key (from the variable the config names) and a token signed here are admitted, a wrong
//! or expired one gets 401, and a configuration error stops the server with the field named and no secret shown.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};

const SECRET: &str = "cli-test-secret-of-more-than-32-bytes";

/// A temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!("wenshu-cli-auth-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn serve_command(dir: &Path, config: &str) -> Command {
    let path = dir.join("wenshu.toml");
    std::fs::write(&path, config).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_wenshu"));
    command
        .args([
            "serve",
            "--engine",
            "lexicon",
            "--today",
            "2026-11-29",
            "--port",
            "0",
            "--config",
        ])
        .arg(&path)
        .env("WENSHU_DATA_DIR", dir)
        .env("WENSHU_KEY_ALICE", "alice-secret-key")
        .env("WENSHU_JWT_SECRET", SECRET)
        .env_remove("WENSHU_USER_KEYS")
        .env_remove("WENSHU_ADMIN_KEYS")
        .env_remove("WENSHU_CONFIG")
        .env_remove("WENSHU_LLM_BASE_URL")
        .env_remove("WENSHU_LLM_MODEL");
    command
}

/// A running `wenshu serve`, killed on drop.
struct Served {
    child: Child,
    base: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path, config: &str) -> Served {
    let mut child = serve_command(dir, config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("wenshu serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    let base = loop {
        let Some(Ok(line)) = lines.next() else {
            panic!("wenshu serve stopped before serving: {printed:?}");
        };
        if let Some(rest) = line.strip_prefix("wenshu is serving on ") {
            break rest
                .split_whitespace()
                .next()
                .unwrap()
                .trim_end_matches('/')
                .to_string();
        }
        printed.push(line);
    };
    let banner = lines.next().unwrap().unwrap();
    assert!(
        banner.contains("1 principals") && banner.contains("JWT from https://sso.test"),
        "{banner}"
    );
    assert!(!banner.contains("alice-secret-key") && !banner.contains(SECRET));
    Served { child, base }
}

const CONFIG: &str = r#"
[[auth.principals]]
name = "alice"
key_env = "WENSHU_KEY_ALICE"
role = "user"
attributes = { region = "华东", tenant_id = 7 }

[auth.jwt]
issuer = "https://sso.test"
audience = "wenshu"
hs256_secret_env = "WENSHU_JWT_SECRET"
attributes = { region = "region" }
"#;

fn token(exp_from_now: i64) -> String {
    let now = jsonwebtoken::get_current_timestamp() as i64;
    let claims = json!({"iss": "https://sso.test", "aud": "wenshu", "sub": "u-7", "exp": now + exp_from_now});
    encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .unwrap()
}

async fn ask(base: &str, bearer: &str) -> (u16, Value) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let response = reqwest::Client::new()
        .post(format!("{base}/api/ask"))
        .bearer_auth(bearer)
        .json(&json!({"question": "华东区本月的销售额是多少"}))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn configured_principals_and_tokens_are_admitted_and_wrong_ones_refused() {
    let dir = TempDir::new("serve");
    let served = serve(&dir.0, CONFIG);
    let (status, body) = ask(&served.base, "alice-secret-key").await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = ask(&served.base, &token(600)).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = ask(&served.base, "someone-else").await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("invalid_key")));
    let (status, body) = ask(&served.base, &token(-600)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("invalid_token")));
    assert!(body["error"]["message"].as_str().unwrap().contains("expired"));
}

#[test]
fn configuration_errors_stop_the_server_naming_the_field() {
    let dir = TempDir::new("errors");
    for (config, field) in [
        (
            "[[auth.principals]]\nname = \"bob\"\nkey_env = \"WENSHU_KEY_BOB_UNSET\"\n",
            "auth.principals[0].key_env",
        ),
        (
            "[[auth.principals]]\nname = \"a\"\nkey_env = \"WENSHU_KEY_ALICE\"\nattributes = { region = { x = 1 } }\n",
            "auth.principals[0].attributes.region",
        ),
        (
            "[[auth.principals]]\nname = \"a\"\nkey_env = \"WENSHU_KEY_ALICE\"\nrole = \"root\"\n",
            "role",
        ),
        (
            "[auth.jwt]\nissuer = \"i\"\naudience = \"a\"\nhs256_secret_env = \"WENSHU_JWT_SECRET\"\njwks_file = \"j.json\"\n",
            "exactly one of `hs256_secret_env`",
        ),
        (
            "[auth.jwt]\nissuer = \"i\"\naudience = \"a\"\njwks_file = \"/nonexistent/jwks.json\"\n",
            "auth.jwt.jwks_file",
        ),
    ] {
        let output = serve_command(&dir.0, config).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{config}");
        assert!(stderr.contains(field), "{config}: {stderr}");
        assert!(
            !stderr.contains("alice-secret-key") && !stderr.contains(SECRET),
            "{stderr}"
        );
    }
}
