//! `wenshu ask` end to end on the demo database with the lexicon engine (no model anywhere).

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};

struct DataDir(PathBuf);

impl DataDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("wenshu-ask-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Self(dir)
    }

    fn ask(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_wenshu"))
            .arg("ask")
            .args(["--today", "2026-11-29", "--engine", "lexicon"])
            .args(args)
            .env("WENSHU_DATA_DIR", &self.0)
            .env_remove("WENSHU_LLM_BASE_URL")
            .env_remove("WENSHU_LLM_MODEL")
            .env_remove("WENSHU_CONFIG")
            .output()
            .expect("wenshu runs")
    }

    fn ask_json(&self, args: &[&str]) -> (Option<i32>, Value) {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.ask(&all);
        let value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code(), value)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_seed_questions_are_answered_on_the_demo_database() {
    let dir = DataDir::new("seed");
    let (code, answer) = dir.ask_json(&["华东区本月的销售额是多少"]);
    assert_eq!(code, Some(0));
    assert_eq!(answer["kind"], "answered");
    assert_eq!(
        answer["params"],
        json!({"region": "华东", "period": "本月", "queryType": "summary", "limit": 10})
    );
    assert!(answer["outcome"]["rows"][0][0].as_f64().unwrap() > 0.0);
    let steps: Vec<&str> = answer["trace"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["route", "check", "fill", "extract", "coverage", "execute"]);
    let (_, answer) = dir.ask_json(&["流浪地球2最近7天的每日票房"]);
    assert_eq!(
        answer["params"],
        json!({"movieId": 2, "startDate": "2026-11-23", "endDate": "2026-11-29"})
    );
    assert_eq!(answer["outcome"]["rows"].as_array().unwrap().len(), 7);
    assert!(
        dir.0.join("demo-2026-11-29.sqlite").exists(),
        "the demo database is made on first use"
    );
}

#[test]
fn candidates_are_listed_and_a_chosen_id_answers() {
    let dir = DataDir::new("choose");
    let (code, answer) = dir.ask_json(&["英雄上周的票房"]);
    assert_eq!((code, answer["kind"].as_str()), (Some(0), Some("choose")));
    let ids: Vec<i64> = answer["outcome"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["entity"]["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [21, 22]);
    let (_, answer) = dir.ask_json(&["--subject-id", "22", "英雄上周的票房"]);
    assert_eq!(answer["kind"], "answered");
    assert_eq!(answer["params"]["movieId"], 22);
    assert_eq!(answer["params"]["startDate"], "2026-11-16");
}

#[test]
fn a_conversation_resolves_references_from_its_history() {
    let dir = DataDir::new("conversation");
    let (_, first) = dir.ask_json(&["--conversation", "c1", "长津湖上个月的票房"]);
    assert_eq!(first["params"]["movieId"], 4);
    let (_, second) = dir.ask_json(&["--conversation", "c1", "那它的评分呢"]);
    assert_eq!(second["tool"], "movie_rating");
    assert_eq!(second["params"], json!({"movieId": 4}));
    let history: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("conversations/c1.json")).unwrap()).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 2);
    let out = dir.ask(&["--conversation", "../etc", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn stops_say_where_and_for_whom() {
    let dir = DataDir::new("stops");
    let (code, answer) = dir.ask_json(&["战狼3的票房"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        (
            answer["outcome"]["step"].as_str(),
            answer["outcome"]["audience"].as_str()
        ),
        (Some("resolve"), Some("user"))
    );
    // Every stop carries a stable code and its texts in both languages.
    assert_eq!(answer["outcome"]["code"].as_str(), Some("resolve.not_found"));
    let message = &answer["outcome"]["messages"][0];
    assert_eq!(message["params"]["name"].as_str(), Some("战狼3"));
    assert!(message["zh"].as_str().unwrap().contains("战狼3") && message["zh"].as_str().unwrap().contains("对象"));
    assert!(message["en"].as_str().unwrap().starts_with("Not found"), "{message}");
    let (_, answer) = dir.ask_json(&["今年票房最高的十部电影是哪些"]);
    assert_eq!(
        (answer["kind"].as_str(), answer["tool"].as_str()),
        (Some("answered"), Some("box_office_metrics")),
        "a metric tool answers a ranking, no fallback needed"
    );
    assert_eq!(answer["outcome"]["rows"].as_array().unwrap().len(), 10);
    let (_, answer) = dir.ask_json(&["上映年份最早的十部电影是哪些"]);
    assert_eq!(
        (
            answer["outcome"]["step"].as_str(),
            answer["outcome"]["audience"].as_str()
        ),
        (Some("fallback"), Some("user")),
        "no fixed or metric tool orders by a dimension: the user hears so, not an administrator's problem"
    );
    let outcome = &answer["outcome"];
    assert_eq!(outcome["code"].as_str(), Some("question.outside_tools"));
    let message = &outcome["messages"][0];
    assert!(
        message["zh"].as_str().unwrap().starts_with("没有工具能回答"),
        "{message}"
    );
    assert!(
        message["en"].as_str().unwrap().starts_with("No tool answers"),
        "{message}"
    );
    // What can be asked: the catalog's tools with their examples, in the text and as parameters.
    let tools = message["params"]["tools"].as_array().unwrap();
    assert!(tools.len() >= 3, "{tools:?}");
    assert!(tools.iter().all(|t| t["title"].is_string() && t["examples"].is_array()));
    let example = tools[0]["examples"][0].as_str().unwrap();
    assert!(message["zh"].as_str().unwrap().contains(example), "{message}");
    assert!(!message["zh"].as_str().unwrap().contains("管理员"), "{message}");
    // The administrator's part (a model would let Text-to-SQL answer) is a secondary hint.
    assert_eq!(outcome["hints"][0]["code"].as_str(), Some("hint.enable_fallback"));
    assert!(outcome["hints"][0]["zh"].as_str().unwrap().contains("模型"));
    let out = String::from_utf8(dir.ask(&["上映年份最早的十部电影是哪些"]).stdout).unwrap();
    assert!(
        out.contains("面向用户，question.outside_tools") && out.contains("可以问："),
        "{out}"
    );
    let (code, answer) = dir.ask_json(&["这部电影的评分"]);
    assert_eq!((code, answer["kind"].as_str()), (Some(0), Some("need")));
    assert_eq!(answer["outcome"]["message"]["code"].as_str(), Some("need.params"));
    assert!(
        answer["outcome"]["message"]["en"]
            .as_str()
            .unwrap()
            .starts_with("Also needed")
    );
    let params = &answer["outcome"]["message"]["params"];
    assert_eq!(params["missing"], answer["outcome"]["missing"]);
    assert_eq!(
        params["labels"].as_array().map(Vec::len),
        params["missing"].as_array().map(Vec::len)
    );
    // A tool that cannot run here is said to the user at once (another question may be answered), with or
    // without the values it takes — never a need for values it could not use; the administrator's hint follows.
    for question in ["查一下订单 ord_123 发到广东深圳的已发货记录", "订单 A-9 现在什么状态"] {
        let (_, answer) = dir.ask_json(&[question]);
        let outcome = &answer["outcome"];
        assert_eq!(
            (outcome["code"].as_str(), outcome["audience"].as_str()),
            (Some("tool.not_runnable"), Some("user")),
            "{question}: {outcome}"
        );
        assert_eq!(outcome["hints"][0]["code"].as_str(), Some("hint.enable_fallback"));
    }
    let (_, answer) = dir.ask_json(&["华东区本月的销售额是多少"]);
    let summary_en = answer["outcome"]["summary_en"].as_str().unwrap();
    assert!(summary_en.contains("→") && !summary_en.contains('，'), "{summary_en}");
    let out = dir.ask(&["华东区本月的销售额是多少"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("理解为：销售数据查询 · 华东 · 本月")
            && !text.contains("理解为：华东区本月的销售额是多少")
            && text.contains("工具：sales_query")
            && text.contains("步骤（lexicon 引擎）"),
        "{text}"
    );
}

#[test]
fn entity_catalogs_come_from_a_sql_query_in_the_config() {
    let dir = DataDir::new("entity-sql");
    std::fs::create_dir_all(&dir.0).unwrap();
    let entities = dir.0.join("only-people.json");
    std::fs::write(&entities, r#"{"salesPerson": [{"id": 101, "name": "张伟"}]}"#).unwrap();
    let config = dir.0.join("wenshu.toml");
    std::fs::write(
        &config,
        "[[entity_queries]]\ntype = \"movie\"\nquery = \"SELECT id, name, year, genre FROM movies\"\n",
    )
    .unwrap();
    let entities_arg = entities.to_str().unwrap().to_string();
    let config_arg = config.to_str().unwrap().to_string();
    let (code, answer) = dir.ask_json(&[
        "--entities",
        &entities_arg,
        "--config",
        &config_arg,
        "满江红的评分是多少",
    ]);
    assert_eq!(code, Some(0), "{answer}");
    assert_eq!(
        answer["params"],
        json!({"movieId": 3}),
        "the movies came from the query on the demo database"
    );
}
