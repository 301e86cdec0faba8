//! `wenshu init --file data.csv` (issue 27): a CSV file becomes a table of an embedded SQLite database beside the
//! draft, its types inferred, and the drafted catalog answers questions about it — checked against sums computed
//! here from the rows written. English headers and Chinese headers (kept as the columns' labels).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Runs the binary; its exit status, stdout and stderr.
fn wenshu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(args)
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

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wenshu-init-file-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Rows of a small shop: (day, city, amount in cents); days in 2024 and 2025, some written `YYYY/M/D`.
fn rows(cities: [&str; 3]) -> Vec<(String, String, i64)> {
    (0..120)
        .map(|i: i64| {
            let year = if i % 4 == 0 { 2024 } else { 2025 };
            let (month, day) = (i % 12 + 1, i % 28 + 1);
            let date = if i % 5 == 0 {
                format!("{year}/{month}/{day}")
            } else {
                format!("{year}-{month:02}-{day:02}")
            };
            (date, cities[(i % 3) as usize].to_string(), 1000 + i * 37 % 5000)
        })
        .collect()
}

/// The 2025 amount per city, in yuan.
fn truth(rows: &[(String, String, i64)]) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (_, city, cents) in rows.iter().filter(|r| r.0.starts_with("2025")) {
        *out.entry(city.clone()).or_insert(0.0) += *cents as f64 / 100.0;
    }
    out
}

/// Asks `question` of the draft in `draft`; the answer's rows as (first cell, last cell).
fn ask(draft: &Path, question: &str) -> BTreeMap<String, f64> {
    let (_, out, err) = wenshu(&[
        "ask",
        "--config",
        draft.join("wenshu.toml").to_str().unwrap(),
        "--catalog",
        draft.join("catalog.json").to_str().unwrap(),
        "--engine",
        "lexicon",
        "--today",
        "2026-06-01",
        "--json",
        question,
    ]);
    let answer: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{question}: {e}: {out}{err}"));
    assert_eq!(answer["outcome"]["kind"], "answered", "{question}: {answer}");
    let rows: Vec<Vec<Value>> = serde_json::from_value(answer["outcome"]["rows"].clone()).unwrap();
    rows.iter()
        .map(|r| {
            let key = r[0].as_str().map_or_else(|| r[0].to_string(), str::to_string);
            let value = r.last().and_then(|v| v.as_f64().or_else(|| v.as_str()?.parse().ok()));
            (
                key,
                value.unwrap_or_else(|| panic!("{question}: not a number in {r:?}")),
            )
        })
        .collect()
}

fn assert_close(question: &str, got: &BTreeMap<String, f64>, want: &BTreeMap<String, f64>) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{question}: {got:?}"
    );
    for (k, w) in want {
        assert!((got[k] - w).abs() < 0.01, "{question} [{k}]: got {}, want {w}", got[k]);
    }
}

#[test]
fn a_csv_file_becomes_a_catalog_that_answers() {
    let dir = temp_dir("en");
    let data = rows(["Berlin", "Paris", "Rome"]);
    let mut csv = String::from("Order Date,City,Amount,Order No,Note\r\n");
    for (i, (date, city, cents)) in data.iter().enumerate() {
        csv.push_str(&format!(
            "{date},{city},{}.{:02},NO-{i:04},\"ok, \"\"fine\"\"\"\r\n",
            cents / 100,
            cents % 100
        ));
    }
    let file = dir.join("shop sales.csv");
    std::fs::write(&file, csv).unwrap();
    let draft = dir.join("draft");
    let (ok, out, err) = wenshu(&[
        "init",
        "--file",
        file.to_str().unwrap(),
        "--out",
        draft.to_str().unwrap(),
    ]);
    assert!(ok, "init failed: {out}{err}");
    assert!(
        out.contains("loaded into table `shop_sales` — 120 rows; Order_Date DATE, City TEXT, Amount REAL"),
        "{out}"
    );
    assert!(out.contains("Order_Date is the time column"), "{out}");
    assert!(draft.join("shop sales.db").exists(), "the database beside the draft");
    let question = "amount by city from 2025-01-01 to 2025-12-31";
    assert_close(question, &ask(&draft, question), &truth(&data));
    // Never over an earlier load without --force.
    let (again, _, refused) = wenshu(&[
        "init",
        "--file",
        file.to_str().unwrap(),
        "--out",
        draft.to_str().unwrap(),
    ]);
    assert!(!again && refused.contains("--force"), "{refused}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn chinese_headers_label_the_columns() {
    let dir = temp_dir("zh");
    let data = rows(["北京", "上海", "深圳"]);
    let mut csv = String::from("\u{feff}下单日期,城市,金额\n");
    for (date, city, cents) in &data {
        csv.push_str(&format!("{date},{city},{}.{:02}\n", cents / 100, cents % 100));
    }
    let file = dir.join("销售.csv");
    std::fs::write(&file, csv).unwrap();
    let draft = dir.join("draft");
    let (ok, out, err) = wenshu(&[
        "init",
        "--file",
        file.to_str().unwrap(),
        "--out",
        draft.to_str().unwrap(),
    ]);
    assert!(ok, "init failed: {out}{err}");
    let catalog = std::fs::read_to_string(draft.join("catalog.json")).unwrap();
    assert!(
        catalog.contains("\"label\": \"金额\"") && catalog.contains("\"label\": \"城市\""),
        "{catalog}"
    );
    let question = "2025年各城市的金额";
    assert_close(question, &ask(&draft, question), &truth(&data));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_without_rows_or_with_a_long_line_is_refused() {
    let dir = temp_dir("bad");
    for (name, text, says) in [
        ("empty.csv", "", "empty"),
        ("long.csv", "a,b\n1,2,3\n", "line 2 has 3 values"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let (ok, out, err) = wenshu(&[
            "init",
            "--file",
            file.to_str().unwrap(),
            "--out",
            dir.join(name).with_extension("draft").to_str().unwrap(),
        ]);
        assert!(!ok && err.contains(says), "{name}: {out}{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tests/data/xlsx/shop.xlsx` (written by `make_shop.py` beside it): two sheets, shared strings, a day column in a
/// date format.
fn xlsx_fixture() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xlsx/shop.xlsx"))
}

#[test]
fn every_sheet_of_a_workbook_becomes_a_table_that_answers() {
    let dir = temp_dir("xlsx");
    let draft = dir.join("draft");
    let fixture = xlsx_fixture();
    let (ok, out, err) = wenshu(&[
        "init",
        "--file",
        fixture.to_str().unwrap(),
        "--out",
        draft.to_str().unwrap(),
    ]);
    assert!(ok, "init failed: {out}{err}");
    assert!(
        out.contains("[Orders]: loaded into table `Orders` — 60 rows; Order_Date DATE, City TEXT, Amount REAL"),
        "{out}"
    );
    assert!(
        out.contains("[销售]: loaded into table `data` — 60 rows; c1 DATE, c2 TEXT, c3 REAL"),
        "{out}"
    );
    // The sums make_shop.py prints.
    let want: BTreeMap<String, f64> = [("Berlin", 697.5), ("Paris", 877.5), ("Rome", 787.5)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let question = "amount by city from 2025-01-01 to 2025-12-31";
    assert_close(question, &ask(&draft, question), &want);
    let _ = std::fs::remove_dir_all(&dir);
}
