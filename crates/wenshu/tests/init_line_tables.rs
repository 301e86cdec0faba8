//! A table of lines named with a space (`Order Items`) is drafted under an alias by `wenshu init`, after the
//! table of orders it details; asked with the lexicon engine, a count of orders is the orders tool's, revenue the
//! lines tool's, and orders by product the lines' count of distinct orders — drafted only when every order has
//! lines (else it would leave some out). Real SQLite files, the real binary, answers checked against SQL by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use wenshu_engine::db::{Database, QueryLimits};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wenshu-init-lines-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// A shop whose orders `1..=orders` each have lines, except those listed in `bare`.
async fn shop(dir: &Path, orders: u32, bare: &[u32]) -> String {
    let url = format!("sqlite:{}", dir.join("shop.db").display());
    let mut script = String::from(
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);\n\
         CREATE TABLE products (product_id INTEGER PRIMARY KEY, product_name TEXT NOT NULL);\n\
         CREATE TABLE orders (order_id INTEGER PRIMARY KEY, order_date TEXT NOT NULL, \
         customer_id INTEGER NOT NULL REFERENCES customers(customer_id), recipient_name TEXT NOT NULL, \
         freight REAL NOT NULL);\n\
         CREATE TABLE \"Order Items\" (item_id INTEGER PRIMARY KEY, \
         order_id INTEGER NOT NULL REFERENCES orders(order_id), \
         product_id INTEGER NOT NULL REFERENCES products(product_id), unit_price REAL NOT NULL, \
         quantity INTEGER NOT NULL);\n\
         INSERT INTO customers VALUES (1, 'Acme', 'Chile'), (2, 'Brio', 'Peru'), (3, 'Cora', 'Chile');\n\
         INSERT INTO products VALUES (1, 'Tea'), (2, 'Coffee'), (3, 'Cocoa');\n",
    );
    let mut item = 0;
    for o in 1..=orders {
        script.push_str(&format!(
            "INSERT INTO orders VALUES ({o}, '2025-{:02}-{:02}', {}, 'recipient {o}', {}.5);\n",
            o % 12 + 1,
            o % 27 + 1,
            o % 3 + 1,
            o % 7 + 2
        ));
        if bare.contains(&o) {
            continue;
        }
        for p in 1..=(o % 3 + 1) {
            item += 1;
            script.push_str(&format!(
                "INSERT INTO \"Order Items\" VALUES ({item}, {o}, {}, {}.25, {});\n",
                (o + p) % 3 + 1,
                p + 2,
                o % 4 + 1
            ));
        }
    }
    let db = Database::connect(&url).await.unwrap();
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    url
}

/// Asks `question` of the draft in `draft` with the lexicon engine: the tool and rows, when answered.
fn ask(draft: &Path, question: &str) -> Option<(String, Vec<Vec<Value>>)> {
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
    (outcome["kind"] == "answered").then(|| {
        (
            outcome["tool"].as_str().unwrap_or_default().to_string(),
            serde_json::from_value(outcome["rows"].clone()).unwrap_or_default(),
        )
    })
}

/// The rows of `sql` on the database at `url`.
async fn truth(url: &str, sql: &str) -> Vec<Vec<Value>> {
    let db = Database::connect_read_only(url).await.unwrap();
    let rows = db.query(sql, &[], QueryLimits::default()).await.unwrap().rows;
    db.close().await;
    rows
}

fn number(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or(f64::NAN)
}

#[tokio::test]
async fn a_line_table_named_with_a_space_answers_after_its_orders() {
    let dir = temp_dir("all");
    let url = shop(&dir, 40, &[]).await;
    let draft = dir.join("draft");
    let (ok, stdout, stderr) = wenshu(&["init", "--db", &url, "--out", draft.to_str().unwrap()]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("Order Items: metric tool `order_items_metrics`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("COUNT(DISTINCT order_id), every row of orders having lines"),
        "{stdout}"
    );
    // The recipient's name names no order: no entity of orders in the lines' tool.
    assert!(
        stdout.contains("orders (via order_id): records of events without a name of their own"),
        "{stdout}"
    );
    let catalog: Value = serde_json::from_str(&std::fs::read_to_string(draft.join("catalog.json")).unwrap()).unwrap();
    let names: Vec<&str> = catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    let position = |name: &str| {
        names
            .iter()
            .position(|n| *n == name)
            .unwrap_or_else(|| panic!("{names:?}"))
    };
    assert!(
        position("orders_metrics") < position("order_items_metrics"),
        "{names:?}"
    );

    let (tool, rows) = ask(&draft, "How many orders are there in total?").expect("answered");
    assert_eq!(tool, "orders_metrics");
    assert_eq!(rows.first().and_then(|r| r.last()).map(number), Some(40.0));

    let (tool, rows) = ask(&draft, "What is the total sales revenue?").expect("answered");
    assert_eq!(tool, "order_items_metrics");
    let want = truth(&url, "SELECT SUM(unit_price * quantity) FROM \"Order Items\"").await;
    let got = rows.first().and_then(|r| r.last()).map(number).unwrap();
    assert!((got - number(&want[0][0])).abs() < 0.01, "{rows:?} vs {want:?}");

    let (tool, rows) = ask(&draft, "各产品的订单数").expect("answered");
    assert_eq!(tool, "order_items_metrics");
    let want = truth(
        &url,
        "SELECT p.product_name, COUNT(DISTINCT i.order_id) FROM \"Order Items\" i \
         JOIN products p ON p.product_id = i.product_id GROUP BY 1 ORDER BY 1",
    )
    .await;
    for w in &want {
        assert!(
            rows.iter()
                .any(|r| r.first() == w.first() && r.last().map(number) == Some(number(&w[1]))),
            "{w:?} not in {rows:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn orders_without_lines_leave_the_lines_without_a_count_of_orders() {
    let dir = temp_dir("bare");
    let url = shop(&dir, 40, &[7, 19]).await;
    let draft = dir.join("draft");
    let (ok, stdout, stderr) = wenshu(&["init", "--db", &url, "--out", draft.to_str().unwrap()]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("Order Items: metric tool `order_items_metrics`"),
        "{stdout}"
    );
    assert!(!stdout.contains("COUNT(DISTINCT"), "{stdout}");
    // Counting orders by product would leave out the orders without lines: not answered, rather than wrong.
    assert_eq!(ask(&draft, "各产品的订单数"), None);
    let (tool, rows) = ask(&draft, "How many orders are there in total?").expect("answered");
    assert_eq!(tool, "orders_metrics");
    assert_eq!(rows.first().and_then(|r| r.last()).map(number), Some(40.0));
    let _ = std::fs::remove_dir_all(&dir);
}
