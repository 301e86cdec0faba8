//! `wenshu extract --engine model` against a real loopback chat server.

use std::process::{Command, Output};

use serde_json::{Value, json};
use wenshu_testkit::{Reply, ScriptedChatServer};

async fn extract(server: &ScriptedChatServer, extra_env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wenshu"));
    command
        .arg("extract")
        .args(args)
        .env("WENSHU_LLM_BASE_URL", server.base_url())
        .env("WENSHU_LLM_MODEL", "scripted")
        .env_remove("WENSHU_CONFIG")
        .env_remove("WENSHU_LLM_API_KEY");
    for (key, value) in extra_env {
        command.env(key, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("wenshu runs"))
        .await
        .unwrap()
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[tokio::test]
async fn extract_prints_the_outcome_and_trace() {
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"region": "华东区", "limit": "5"}"#)]).await;
    let out = extract(
        &server,
        &[],
        &[
            "--tool",
            "sales_query",
            "--today",
            "2026-11-29",
            "华东区上季度销售排名前五",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let result = json_of(&out);
    assert_eq!(result["outcome"]["status"], "ok");
    assert_eq!(
        result["outcome"]["params"],
        json!({"region": "华东", "period": "上季度", "queryType": "summary", "limit": 5})
    );
    assert_eq!(result["trace"]["engine"], "model");
    assert!(
        result["trace"]["calls"][0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("2026-11-29")
    );
}

#[tokio::test]
async fn extract_fills_dates_and_subject_from_code_and_keeps_the_key_secret() {
    let server = ScriptedChatServer::start(vec![Reply::content(r#"{"region": "华南"}"#)]).await;
    let out = extract(
        &server,
        &[("WENSHU_LLM_API_KEY", "sk-secret-123")],
        &[
            "--tool",
            "movie_box_office",
            "--today",
            "2026-11-29",
            "--subject-id",
            "2",
            "流浪地球2上个月的票房",
        ],
    )
    .await;
    let result = json_of(&out);
    assert_eq!(
        result["outcome"]["params"],
        json!({"movieId": 2, "startDate": "2026-10-01", "endDate": "2026-10-31"})
    );
    assert_eq!(server.requests().len(), 0, "code filled everything: no model call");
    let out = extract(
        &server,
        &[("WENSHU_LLM_API_KEY", "sk-secret-123")],
        &["--tool", "sales_query", "华南的销售额"],
    )
    .await;
    assert_eq!(json_of(&out)["outcome"]["params"]["region"], "华南");
    assert_eq!(
        server.requests()[0].authorization.as_deref(),
        Some("Bearer sk-secret-123")
    );
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!printed.contains("sk-secret-123"));
}

#[tokio::test]
async fn a_failed_extraction_exits_1_and_no_model_is_a_clear_error() {
    let server = ScriptedChatServer::start(vec![Reply::status(400, "bad request")]).await;
    let out = extract(
        &server,
        &[],
        &["--tool", "sales_query", "--today", "2026-11-29", "华东的销售额"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["outcome"]["status"], "failed");
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(["extract", "--tool", "movie_rating", "满江红的评分"])
        .env_remove("WENSHU_LLM_BASE_URL")
        .env_remove("WENSHU_LLM_MODEL")
        .env_remove("WENSHU_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no chat model is configured"));
}

#[tokio::test]
async fn a_config_file_names_providers_in_failover_order() {
    let down = ScriptedChatServer::start(vec![
        Reply::status(503, "down"),
        Reply::status(503, "down"),
        Reply::status(503, "down"),
    ])
    .await;
    let up = ScriptedChatServer::start(vec![Reply::content(r#"{"region": "华南"}"#)]).await;
    let dir = std::env::temp_dir().join(format!("wenshu-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wenshu.toml");
    let text = format!(
        "timezone = \"Asia/Shanghai\"\n[llm]\nmax_retries = 1\n[[llm.providers]]\nname = \"down\"\nbase_url = \"{}\"\nmodel = \"m\"\noutput_mode = \"json_object\"\n[[llm.providers]]\nname = \"up\"\nbase_url = \"{}\"\nmodel = \"m\"\n",
        down.base_url(),
        up.base_url()
    );
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_string();
    let args = [
        "--tool",
        "sales_query",
        "--today",
        "2026-11-29",
        "--config",
        path.as_str(),
        "华南本月销售额",
    ];
    let mut command = Command::new(env!("CARGO_BIN_EXE_wenshu"));
    command
        .arg("extract")
        .args(args)
        .env_remove("WENSHU_LLM_BASE_URL")
        .env_remove("WENSHU_LLM_MODEL");
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let result = json_of(&out);
    assert_eq!(result["outcome"]["params"]["region"], "华南");
    assert_eq!(result["trace"]["calls"][0]["provider"], "up");
    std::fs::remove_dir_all(&dir).ok();
}
