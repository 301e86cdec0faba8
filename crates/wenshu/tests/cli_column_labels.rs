//! `wenshu ask` shows an answer's columns under the answering tool's `x-columns` labels, with their units
//! (`评分（分）`), in the table it prints and as `headers` in `--json` (beside the columns' own names); a column
//! without a label keeps its name. The real binary on the demo catalog and database.

use std::process::{Command, Output};

use serde_json::{Value, json};

fn ask(data: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .arg("ask")
        .args(["--today", "2026-11-29", "--engine", "lexicon"])
        .args(args)
        .current_dir(data)
        .env("WENSHU_DATA_DIR", data)
        .env_remove("WENSHU_LLM_BASE_URL")
        .env_remove("WENSHU_LLM_MODEL")
        .env_remove("WENSHU_CONFIG")
        .output()
        .expect("wenshu runs")
}

#[test]
fn answers_are_shown_under_the_catalogs_column_labels() {
    let data = std::env::temp_dir().join(format!("wenshu-column-labels-{}", std::process::id()));
    std::fs::create_dir_all(&data).unwrap();
    let out = ask(&data, &["满江红的评分是多少"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("  影片 | 评分（分） | 评价人数（人）\n"), "{text}");
    assert!(!text.contains("name | score | votes"), "{text}");

    let out = ask(&data, &["--json", "满江红的评分是多少"]);
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(answer["headers"], json!(["影片", "评分（分）", "评价人数（人）"]));
    assert_eq!(answer["outcome"]["columns"], json!(["name", "score", "votes"]));

    // A catalog without labels: the columns keep their names.
    let catalog: Value = serde_json::from_str(wenshu_contract::catalog::DEMO_CATALOG_JSON).unwrap();
    let mut bare = catalog.clone();
    for tool in bare["tools"].as_array_mut().unwrap() {
        tool.as_object_mut().unwrap().remove("x-columns");
    }
    let path = data.join("catalog.json");
    std::fs::write(&path, bare.to_string()).unwrap();
    let out = ask(
        &data,
        &["--json", "--catalog", path.to_str().unwrap(), "满江红的评分是多少"],
    );
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(answer["headers"], json!(["name", "score", "votes"]), "{answer}");
    let _ = std::fs::remove_dir_all(&data);
}
