//! The README's "Writing a catalog by hand" loads and answers as written: its SQL builds a real SQLite database, its
//! catalog, entity file and config are written as shown, and each question of its table is asked with the lexicon
//! engine (the real binary, run in that folder) — answered by the tool the README names, with the answer it shows,
//! which SQL by hand confirms. What the section says is refused is refused.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use wenshu_engine::db::{Database, QueryLimits};

const README: &str = include_str!("../../../README.md");

/// The README's section on writing a catalog by hand.
fn section() -> &'static str {
    let start = README
        .find("### Writing a catalog by hand")
        .expect("the README has the section");
    let rest = &README[start..];
    let end = rest[4..].find("\n## ").map_or(rest.len(), |e| e + 4);
    &rest[..end]
}

/// The fenced blocks of `lang` in the section, in order.
fn blocks(lang: &str) -> Vec<&'static str> {
    let fence = format!("```{lang}\n");
    section()
        .split(fence.as_str())
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect()
}

/// The question table: question, tool, answer as written.
fn table() -> Vec<(String, String, String)> {
    section()
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| question"))
        .map(|l| {
            let cells: Vec<String> = l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect();
            (cells[0].clone(), cells[1].clone(), cells[2].clone())
        })
        .collect()
}

/// The values an answer cell shows: `上海 2, 杭州 4` → [(上海, 2), (杭州, 4)]; `420.5` or `6 (…)` → [("", 6)].
fn shown(answer: &str) -> Vec<(String, f64)> {
    let plain = answer.split(" (").next().unwrap_or(answer);
    plain
        .split(", ")
        .map(|part| match part.rsplit_once(' ') {
            Some((label, n)) => (label.to_string(), n.parse().unwrap()),
            None => (String::new(), part.parse().unwrap()),
        })
        .collect()
}

fn number(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// Runs the binary in `dir`: its exit status, stdout and stderr.
fn wenshu(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(args)
        .current_dir(dir)
        .env_remove("WENSHU_CONFIG")
        .env_remove("WENSHU_LLM_BASE_URL")
        .env_remove("WENSHU_LLM_MODEL")
        .output()
        .expect("run wenshu");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asks `question` in `dir` with the lexicon engine: the tool and rows, when answered.
fn ask(dir: &Path, question: &str) -> Option<(String, Vec<Vec<Value>>)> {
    let (_, out, err) = wenshu(
        dir,
        &[
            "ask",
            "--engine",
            "lexicon",
            "--today",
            "2026-06-01",
            "--json",
            question,
        ],
    );
    let answer: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{question}: {e}: {out}{err}"));
    let outcome = &answer["outcome"];
    (outcome["kind"] == "answered").then(|| {
        (
            outcome["tool"].as_str().unwrap_or_default().to_string(),
            serde_json::from_value(outcome["rows"].clone()).unwrap_or_default(),
        )
    })
}

/// The README's files written into a fresh folder, its database built from its SQL.
async fn shop() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wenshu-readme-catalog-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let [sql] = blocks("sql")[..] else {
        panic!("one SQL block")
    };
    let [catalog, entities] = blocks("json")[..] else {
        panic!("two JSON blocks")
    };
    let [config] = blocks("toml")[..] else {
        panic!("one TOML block")
    };
    let db = Database::connect(&format!("sqlite:{}", dir.join("shop.db").display()))
        .await
        .unwrap();
    db.execute_batch(sql).await.unwrap();
    db.close().await;
    std::fs::write(dir.join("catalog.json"), catalog).unwrap();
    std::fs::write(dir.join("entities.json"), entities).unwrap();
    std::fs::write(dir.join("wenshu.toml"), config).unwrap();
    dir
}

/// SQL by hand for each question of the README's table.
fn truth_sql(question: &str) -> &'static str {
    match question {
        "2025年各城市的订单数" => {
            "SELECT c.city, COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id \
                                  WHERE o.day LIKE '2025%' GROUP BY 1"
        }
        "星辰2025年的金额" => "SELECT SUM(amount) FROM orders WHERE customer_id = 1 AND day LIKE '2025%'",
        "2025年有多少笔订单" | "2025年的订单数" => "SELECT COUNT(*) FROM orders WHERE day LIKE '2025%'",
        "2025年各产品的订单数" => {
            "SELECT l.product, COUNT(DISTINCT l.order_id) FROM order_lines l \
                                  JOIN orders o ON o.id = l.order_id WHERE o.day LIKE '2025%' GROUP BY 1"
        }
        "2025年各城市的平均金额" => {
            "SELECT c.city, AVG(o.amount) FROM orders o JOIN customers c \
                                    ON c.id = o.customer_id WHERE o.day LIKE '2025%' GROUP BY 1"
        }
        "2025年的平均评分" => "SELECT AVG(score) FROM orders WHERE day LIKE '2025%'",
        "各品类的库存" => "SELECT category, SUM(stock) FROM products GROUP BY 1",
        other => panic!("no SQL by hand for {other}"),
    }
}

#[tokio::test]
async fn the_readmes_hand_written_catalog_answers_as_the_readme_says() {
    let dir = shop().await;
    let (ok, out, err) = wenshu(&dir, &["tools", "check", "catalog.json", "--config", "wenshu.toml"]);
    assert!(ok, "the README's catalog does not pass tools check: {out}{err}");
    let rows = table();
    assert!(rows.len() >= 8, "{rows:?}");
    let db = Database::connect_read_only(&format!("sqlite:{}", dir.join("shop.db").display()))
        .await
        .unwrap();
    for (question, tool, answer) in &rows {
        let (got_tool, got) = ask(&dir, question).unwrap_or_else(|| panic!("{question} is not answered"));
        assert_eq!(&got_tool, tool, "{question}");
        let truth = db
            .query(truth_sql(question), &[], QueryLimits::default())
            .await
            .unwrap()
            .rows;
        for (label, want) in shown(answer) {
            let row_of = |rows: &[Vec<Value>]| -> Option<f64> {
                rows.iter()
                    .find(|r| label.is_empty() || r.first().and_then(Value::as_str) == Some(label.as_str()))
                    .and_then(|r| r.last())
                    .map(number)
            };
            let (got, truth) = (row_of(&got), row_of(&truth));
            assert!(
                got.is_some_and(|g| (g - want).abs() < 0.01),
                "{question}: {label} {got:?}, README {want}"
            );
            assert!(
                truth.is_some_and(|t| (t - want).abs() < 0.01),
                "{question}: {label} SQL {truth:?}, README {want}"
            );
        }
    }
    db.close().await;
    // Without `time`, a question naming a period is not the stock tool's.
    assert_eq!(ask(&dir, "2025年各品类的库存"), None);
    // Without the synonym 订单, 多少笔订单 leaves 订单 unread.
    let catalog = std::fs::read_to_string(dir.join("catalog.json")).unwrap();
    std::fs::write(
        dir.join("catalog.json"),
        catalog.replace(r#""synonyms": ["订单"], "#, ""),
    )
    .unwrap();
    assert_eq!(ask(&dir, "2025年有多少笔订单"), None);
    // The errors the section quotes.
    let unqualified = catalog.replace("SUM(amount)", "SUM(amount) + COUNT(DISTINCT id)");
    std::fs::write(dir.join("bad.json"), unqualified).unwrap();
    let (ok, out, err) = wenshu(&dir, &["tools", "check", "bad.json", "--config", "wenshu.toml"]);
    assert!(
        !ok && err.contains("column `id` is in several tables; write alias.id"),
        "{out}{err}"
    );
    let no_fallback_tool = catalog.replace(r#""name": "text_to_sql""#, r#""name": "sql_fallback""#);
    std::fs::write(dir.join("bad.json"), no_fallback_tool).unwrap();
    let (ok, out, err) = wenshu(&dir, &["tools", "check", "bad.json", "--config", "wenshu.toml"]);
    assert!(
        !ok && err.contains("`text_to_sql` is not a tool of this catalog"),
        "{out}{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
