//! Onboarding from a public database nobody here wrote (`eval/onboarding/`, issue 27): `wenshu init --db` drafts a
//! catalog of Northwind, and its 30 analyst questions are asked of the draft **as written** with the lexicon engine
//! (`wenshu ask --json`), each classified against its truth SQL — right (the answer holds the truth), honest (not
//! answered) or wrong (answered without the truth). No question may be answered wrong; the right ones may not fall
//! below the floor. `cargo test -p wenshu --test onboarding -- --nocapture` prints each verdict and the figures.
//! With `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` set, Northwind's tables (keys and foreign keys, its
//! `DATETIME`s as timestamps) are copied to PostgreSQL and MariaDB, drafted there, and asked the same way — the
//! truth still computed on the SQLite file.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use wenshu_engine::db::{Database, Dialect, QueryLimits, ensure_database};

/// The least number of right answers of the 30 (what the draft answers now; raise it as drafts get better).
const RIGHT_FLOOR: usize = 20;

fn onboarding_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/onboarding"))
}

/// A gzip file's content (RFC 1952: the header, its optional fields, raw deflate, an 8-byte trailer).
fn gunzip(bytes: &[u8]) -> Vec<u8> {
    assert!(bytes.len() > 18 && bytes[..3] == [0x1f, 0x8b, 8], "not a gzip file");
    let flags = bytes[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    }
    for bit in [8, 16] {
        if flags & bit != 0 {
            at += bytes[at..]
                .iter()
                .position(|b| *b == 0)
                .expect("a terminated header field")
                + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(&bytes[at..bytes.len() - 8]).expect("inflate")
}

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

/// A cell shows a truth value: text contained, numbers equal within 0.5% or at the cell's precision.
fn shows(cell: &Value, truth: &Value) -> bool {
    let as_number = |v: &Value| {
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.trim().replace(',', "").parse().ok()))
    };
    match truth {
        Value::Null => true,
        Value::Number(n) => {
            let (Some(want), Some(got)) = (n.as_f64(), as_number(cell)) else {
                return false;
            };
            let places = cell
                .to_string()
                .trim_matches('"')
                .split_once('.')
                .map_or(0, |(_, f)| f.len() as i32);
            let scale = 10f64.powi(places);
            (got - want).abs() <= want.abs() * 0.005 + f64::EPSILON || (want * scale).round() / scale == got
        }
        Value::String(t) => {
            let text = cell.as_str().map_or_else(|| cell.to_string(), str::to_string);
            // A number written as text by SQLite (strftime) may come back as a number.
            !t.is_empty() && (text.contains(t.as_str()) || as_number(cell).is_some_and(|c| t.parse() == Ok(c)))
        }
        other => cell == other,
    }
}

/// Whether an answer row shows every value of a truth row.
fn row_shows(row: &[Value], truth: &[Value]) -> bool {
    truth.iter().all(|t| row.iter().any(|c| shows(c, t)))
}

/// Whether the answered rows hold the truth, as the case's check says.
fn holds(check: &str, truth: &[Vec<Value>], rows: &[Vec<Value>]) -> bool {
    let found = |t: &Vec<Value>| rows.iter().any(|r| row_shows(r, t));
    match check {
        "scalar" => truth
            .first()
            .and_then(|t| t.first())
            .is_some_and(|want| rows.iter().flatten().any(|c| shows(c, want))),
        "values" => truth
            .iter()
            .flatten()
            .all(|want| rows.iter().flatten().any(|c| shows(c, want))),
        "rows" => !truth.is_empty() && truth.iter().all(found),
        "top" => truth.len() <= rows.len() && truth.iter().zip(rows).all(|(t, r)| row_shows(r, t)),
        "set" => truth.len() == rows.len() && truth.iter().all(found),
        _ => false,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Right,
    Honest,
    Wrong,
}

/// Asks one case of the draft in `draft` and classifies the answer; the text says what was answered.
async fn ask(case: &Value, draft: &Path, truth_db: &Database) -> (Class, String) {
    let question = case["question"].as_str().unwrap();
    // `ask` exits non-zero on an answer it did not give; the JSON says which.
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
    let outcome = &answer["outcome"];
    if outcome["kind"] != "answered" {
        return (Class::Honest, format!("{}", outcome["kind"]));
    }
    let rows: Vec<Vec<Value>> = serde_json::from_value(outcome["rows"].clone()).unwrap_or_default();
    let shown: Vec<&Vec<Value>> = rows.iter().take(4).collect();
    let got = format!("{} → {}", outcome["tool"], serde_json::to_string(&shown).unwrap());
    let check = case["check"].as_str().unwrap();
    let Some(sql) = case["truth_sql"].as_str() else {
        return (Class::Wrong, got);
    };
    let truth = truth_db.query(sql, &[], QueryLimits::default()).await.unwrap().rows;
    (
        if holds(check, &truth, &rows) {
            Class::Right
        } else {
            Class::Wrong
        },
        got,
    )
}

/// Northwind unpacked into a folder of its own: the folder and the database's URL.
fn northwind(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("wenshu-onboarding-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db_path = dir.join("northwind.db");
    std::fs::write(
        &db_path,
        gunzip(&std::fs::read(onboarding_dir().join("northwind.db.gz")).unwrap()),
    )
    .unwrap();
    let url = format!("sqlite:{}", db_path.display());
    (dir, url)
}

/// Drafts `draft_url` into `dir/draft`, asks every question of the draft and classifies it against the truth on
/// `truth_url`; the right, honest and wrong counts (a wrong one fails the test).
async fn draft_and_ask(draft_url: &str, truth_url: &str, dir: &Path) -> [usize; 3] {
    let draft = dir.join("draft");
    let (ok, out, err) = wenshu(&["init", "--db", draft_url, "--out", draft.to_str().unwrap()]);
    assert!(ok, "init failed: {out}{err}");
    println!("{out}");
    // The draft's examples are its own tools' answers (one another tool answers is left out by init).
    let catalog: Value = serde_json::from_str(&std::fs::read_to_string(draft.join("catalog.json")).unwrap()).unwrap();
    for tool in catalog["tools"].as_array().unwrap() {
        for example in tool["x-examples"].as_array().into_iter().flatten() {
            let example = example.as_str().unwrap();
            let (_, answer, err) = wenshu(&[
                "ask",
                "--config",
                draft.join("wenshu.toml").to_str().unwrap(),
                "--engine",
                "lexicon",
                "--json",
                example,
            ]);
            let answer: Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{example}: {e}: {err}"));
            assert_eq!(
                answer["outcome"]["tool"], tool["name"],
                "{example}: {}",
                answer["outcome"]
            );
        }
    }
    let truth_db = Database::connect_read_only(truth_url).await.unwrap();
    let cases = std::fs::read_to_string(onboarding_dir().join("northwind.jsonl")).unwrap();
    let mut counts = [0usize; 3];
    let mut wrong = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let (class, got) = ask(&case, &draft, &truth_db).await;
        counts[class as usize] += 1;
        println!("{:?} {} {}: {got}", class, case["id"], case["question"]);
        if class == Class::Wrong {
            wrong.push(format!("{} {}: {got}", case["id"], case["question"]));
        }
    }
    truth_db.close().await;
    println!(
        "onboarding northwind ({draft_url}): {} right, {} honest, {} wrong",
        counts[0], counts[1], counts[2]
    );
    assert!(wrong.is_empty(), "answered without the truth:\n{}", wrong.join("\n"));
    counts
}

#[tokio::test]
async fn northwind_drafted_by_init_answers_right_or_honestly() {
    let (dir, url) = northwind("sqlite");
    let counts = draft_and_ask(&url, &url, &dir).await;
    assert!(
        counts[0] >= RIGHT_FLOOR,
        "{} right, fewer than {RIGHT_FLOOR}",
        counts[0]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A SQLite cell as a literal of `dialect` (MySQL reads backslashes in strings as escapes).
fn literal(value: &Value, dialect: Dialect) -> String {
    match value {
        Value::Null => "NULL".into(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => {
            let s = s.replace('\'', "''");
            if dialect == Dialect::MySql {
                format!("'{}'", s.replace('\\', "\\\\"))
            } else {
                format!("'{s}'")
            }
        }
        other => format!("'{}'", other.to_string().replace('\'', "''")),
    }
}

/// The SQL type a column of SQLite's declared type `declared` is copied as (`keyed`: in a key); `None` for binary
/// columns.
fn copied_type(declared: &str, keyed: bool, dialect: Dialect) -> Option<&'static str> {
    let mysql = dialect == Dialect::MySql;
    Some(match declared.to_ascii_uppercase().as_str() {
        "BLOB" => return None,
        "INTEGER" | "INT" => "BIGINT",
        "NUMERIC" | "REAL" if mysql => "DOUBLE",
        "NUMERIC" | "REAL" => "DOUBLE PRECISION",
        "DATE" => "DATE",
        "DATETIME" if mysql => "DATETIME",
        "DATETIME" => "TIMESTAMP",
        // MariaDB keys cannot be TEXT.
        _ if mysql && keyed => "VARCHAR(255)",
        _ => "TEXT",
    })
}

/// Copies Northwind's tables (not its views; binary columns left out) from SQLite to the database at `target`:
/// declared types mapped, primary keys kept, foreign keys declared without checking the rows.
async fn copy_northwind(sqlite_url: &str, target: &str) {
    let source = Database::connect_read_only(sqlite_url).await.unwrap();
    let to = Database::connect(target).await.unwrap();
    let dialect = to.dialect();
    let q = |name: &str| dialect.quote_identifier(name);
    let limits = QueryLimits {
        row_cap: 100_000,
        ..QueryLimits::default()
    };
    let read = |sql: String| {
        let source = source.clone();
        async move { source.query(&sql, &[], limits).await.unwrap().rows }
    };
    let tables: Vec<String> =
        read("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name".into())
            .await
            .iter()
            .filter_map(|r| r[0].as_str().map(str::to_string))
            .collect();
    let mut script = String::new();
    if dialect == Dialect::MySql {
        script.push_str("SET FOREIGN_KEY_CHECKS = 0;");
    }
    for table in &tables {
        let cascade = if dialect == Dialect::Postgres { " CASCADE" } else { "" };
        script.push_str(&format!("DROP TABLE IF EXISTS {}{cascade};", q(table)));
    }
    let mut keys = String::new();
    for table in &tables {
        let literal_name = table.replace('\'', "''");
        let info = read(format!(
            "SELECT name, type, pk FROM pragma_table_info('{literal_name}') ORDER BY cid"
        ))
        .await;
        let foreign = read(format!(
            "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list('{literal_name}')"
        ))
        .await;
        let mut columns: Vec<(String, &str)> = Vec::new();
        let mut primary = Vec::new();
        for r in &info {
            let name = r[0].as_str().unwrap();
            let keyed = r[2].as_i64().unwrap_or(0) > 0 || foreign.iter().any(|f| f[0].as_str() == Some(name));
            let Some(ty) = copied_type(r[1].as_str().unwrap_or(""), keyed, dialect) else {
                continue;
            };
            columns.push((name.to_string(), ty));
            if r[2].as_i64().unwrap_or(0) > 0 {
                primary.push(q(name));
            }
        }
        let mut ddl: Vec<String> = columns.iter().map(|(n, t)| format!("{} {t}", q(n))).collect();
        if !primary.is_empty() {
            ddl.push(format!("PRIMARY KEY ({})", primary.join(", ")));
        }
        script.push_str(&format!("CREATE TABLE {} ({});", q(table), ddl.join(", ")));
        for (i, r) in foreign.iter().enumerate() {
            let (Some(from), Some(to_table), Some(to_column)) = (r[0].as_str(), r[1].as_str(), r[2].as_str()) else {
                continue;
            };
            let unchecked = if dialect == Dialect::Postgres { " NOT VALID" } else { "" };
            keys.push_str(&format!(
                "ALTER TABLE {} ADD CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({}){unchecked};",
                q(table),
                q(&format!("fk_{}_{i}", table.replace(' ', "_"))),
                q(from),
                q(to_table),
                q(to_column),
            ));
        }
        let names: Vec<String> = columns.iter().map(|(n, _)| q(n)).collect();
        let selected: Vec<String> = columns.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        let data = read(format!("SELECT {} FROM \"{table}\"", selected.join(", "))).await;
        for chunk in data.chunks(200) {
            let values: Vec<String> = chunk
                .iter()
                .map(|r| {
                    let cells: Vec<String> = r.iter().map(|v| literal(v, dialect)).collect();
                    format!("({})", cells.join(", "))
                })
                .collect();
            script.push_str(&format!(
                "INSERT INTO {} ({}) VALUES {};",
                q(table),
                names.join(", "),
                values.join(", ")
            ));
        }
    }
    script.push_str(&keys);
    to.execute_batch(&script).await.unwrap();
    to.close().await;
    source.close().await;
}

/// Northwind copied to the server named by `var`, drafted and asked there; skipped when `var` is unset.
async fn northwind_on_server(var: &str, name: &str) {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return;
    };
    let (dir, sqlite_url) = northwind(name);
    let url = ensure_database(&admin_url, "wenshu_onboarding").await.unwrap();
    copy_northwind(&sqlite_url, &url).await;
    let counts = draft_and_ask(&url, &sqlite_url, &dir).await;
    assert!(counts[0] > 0, "nothing answered on {name}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn northwind_on_postgres_is_drafted_and_answers_right_or_honestly() {
    northwind_on_server("WENSHU_TEST_POSTGRES_URL", "postgres").await;
}

#[tokio::test]
async fn northwind_on_mariadb_is_drafted_and_answers_right_or_honestly() {
    northwind_on_server("WENSHU_TEST_MYSQL_URL", "mysql").await;
}

#[test]
fn checks_hold_only_the_truth() {
    use serde_json::json;
    let rows = |v: Value| -> Vec<Vec<Value>> { serde_json::from_value(v).unwrap() };
    let answer = rows(json!([["Germany", 122], ["USA", "122.0"], ["France", 77]]));
    assert!(holds("rows", &rows(json!([["France", 77], ["Germany", 122]])), &answer));
    assert!(!holds("rows", &rows(json!([["France", 78]])), &answer));
    assert!(holds("top", &rows(json!([["Germany", 122]])), &answer));
    assert!(!holds("top", &rows(json!([["France", 77]])), &answer));
    assert!(!holds("set", &rows(json!([["France", 77]])), &answer));
    assert!(holds("scalar", &rows(json!([[77]])), &answer));
    assert!(!holds("scalar", &rows(json!([[76]])), &answer));
    assert!(holds(
        "values",
        &rows(json!([["2016", 77]])),
        &rows(json!([[2016, 77]]))
    ));
    assert!(!holds("none", &rows(json!([[1]])), &answer));
}
