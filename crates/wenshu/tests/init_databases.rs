//! `wenshu init` on real databases with a schema of related tables written here — SQLite always, PostgreSQL and
//! MariaDB when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set (see .ci/run): the draft loads, and
//! questions over it are answered through the metric tools (question → metric query → SQL → rows), each answer
//! checked against SQL written in the test.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use wenshu_contract::{Catalog, bind};
use wenshu_engine::db::{Database, Dialect, QueryLimits, ensure_database};
use wenshu_engine::execute::{ExecContext, Executor};
use wenshu_engine::metric::execute::query_params;
use wenshu_engine::metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues, build_query};
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::resolve::sql::load_entities;

/// The database these tests make on each server (its own, so no other test's tables are read).
const DB_NAME: &str = "wenshu_init19";

/// The words of one backend's data and questions: Chinese with comments on the servers, English in SQLite.
struct Words {
    channels: [&'static str; 3],
    cities: [&'static str; 3],
    products: [&'static str; 4],
    categories: [&'static str; 2],
}

const ZH: Words = Words {
    channels: ["线上", "门店", "电话"],
    cities: ["北京", "上海", "深圳"],
    products: ["星火笔记本", "云盘专业版", "极速路由器", "静音键盘"],
    categories: ["硬件", "软件"],
};
const EN: Words = Words {
    channels: ["online", "store", "phone"],
    cities: ["Beijing", "Shanghai", "Shenzhen"],
    products: ["Laptop", "Drive", "Router", "Keyboard"],
    categories: ["hardware", "software"],
};

/// A little deterministic generator, so every run writes the same rows.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// The DDL and rows of the schema: customers and products (dimension tables), orders (the fact table).
fn script(dialect: Dialect, words: &Words) -> String {
    let comments = dialect != Dialect::Sqlite;
    let c = |text: &str| {
        if dialect == Dialect::MySql {
            format!(" COMMENT '{text}'")
        } else {
            String::new()
        }
    };
    let money = if dialect == Dialect::Sqlite {
        "REAL"
    } else {
        "DECIMAL(12,2)"
    };
    let text = if dialect == Dialect::MySql {
        "VARCHAR(100)"
    } else {
        "TEXT"
    };
    let mut s =
        String::from("DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS customers; DROP TABLE IF EXISTS products;");
    let engine = if dialect == Dialect::MySql {
        " ENGINE=InnoDB COMMENT '订单'"
    } else {
        ""
    };
    s.push_str(&format!(
        "CREATE TABLE customers (id INT PRIMARY KEY, name {text} NOT NULL{}, city {text}{}){};",
        c("客户名称"),
        c("城市"),
        if dialect == Dialect::MySql {
            " COMMENT '客户'"
        } else {
            ""
        }
    ));
    s.push_str(&format!(
        "CREATE TABLE products (id INT PRIMARY KEY, name {text} NOT NULL{}, category {text}{}){};",
        c("产品名称"),
        c("品类"),
        if dialect == Dialect::MySql {
            " COMMENT '产品'"
        } else {
            ""
        }
    ));
    s.push_str(&format!(
        "CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT REFERENCES customers(id), \
         product_id INT REFERENCES products(id), day DATE{}, channel {text}{}, amount {money}{}, quantity INT{}, \
         order_no {text}{}{}){engine};",
        c("下单日期"),
        c("渠道"),
        c("销售额（元）/金额"),
        c("销量"),
        c("订单号"),
        if dialect == Dialect::MySql {
            ", FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (product_id) REFERENCES products(id)"
        } else {
            ""
        }
    ));
    if comments && dialect == Dialect::Postgres {
        for (target, text) in [
            ("TABLE orders", "订单"),
            ("TABLE customers", "客户"),
            ("TABLE products", "产品"),
            ("COLUMN customers.name", "客户名称"),
            ("COLUMN customers.city", "城市"),
            ("COLUMN products.name", "产品名称"),
            ("COLUMN products.category", "品类"),
            ("COLUMN orders.day", "下单日期"),
            ("COLUMN orders.channel", "渠道"),
            ("COLUMN orders.amount", "销售额（元）/金额"),
            ("COLUMN orders.quantity", "销量"),
            ("COLUMN orders.order_no", "订单号"),
        ] {
            s.push_str(&format!("COMMENT ON {target} IS '{text}';"));
        }
    }
    for i in 0..12 {
        s.push_str(&format!(
            "INSERT INTO customers VALUES ({}, 'C{:02} {}', '{}');",
            i + 1,
            i + 1,
            words.cities[i % 3],
            words.cities[i % 3]
        ));
    }
    for (i, p) in words.products.iter().enumerate() {
        s.push_str(&format!(
            "INSERT INTO products VALUES ({}, '{p}', '{}');",
            i + 1,
            words.categories[i % 2]
        ));
    }
    let mut rng = Lcg(19);
    for i in 0..300 {
        let year = if i % 4 == 0 { 2024 } else { 2025 };
        s.push_str(&format!(
            "INSERT INTO orders VALUES ({}, {}, {}, '{year}-{:02}-{:02}', '{}', {}.{:02}, {}, 'NO-{:05}');",
            i + 1,
            rng.next(12) + 1,
            rng.next(4) + 1,
            rng.next(12) + 1,
            rng.next(28) + 1,
            words.channels[rng.next(3) as usize],
            rng.next(900) + 20,
            rng.next(100),
            rng.next(5) + 1,
            i
        ));
    }
    s
}

/// Runs the binary; its exit status, stdout and stderr.
fn wenshu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(args)
        .output()
        .expect("run wenshu");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A number of a result cell (numbers may come back as JSON numbers or decimal text).
fn number(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

fn key(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// Rows of `(key, number)` as a map; a single-column answer under the key "".
fn as_map(rows: &[Vec<Value>]) -> BTreeMap<String, f64> {
    rows.iter()
        .map(|r| match r.as_slice() {
            [only] => (String::new(), number(only)),
            [k, .., v] => (key(k), number(v)),
            [] => panic!("an empty row"),
        })
        .collect()
}

fn assert_close(asked: &str, got: &BTreeMap<String, f64>, want: &BTreeMap<String, f64>) {
    assert!(!want.is_empty(), "{asked}: the check SQL found nothing");
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{asked}: got {got:?}, want {want:?}"
    );
    for (k, w) in want {
        assert!((got[k] - w).abs() < 0.01, "{asked} [{k}]: got {}, want {w}", got[k]);
    }
}

/// Drafts a catalog for `url` into `dir`, then answers questions through its metric tools and checks each
/// against SQL.
async fn init_and_ask(url: &str, dialect: Dialect, words: &Words, dir: &Path) {
    let db = Database::connect(url).await.unwrap();
    db.execute_batch(&script(dialect, words)).await.unwrap();
    db.close().await;
    let out = dir.to_str().unwrap();
    let (ok, stdout, stderr) = wenshu(&["init", "--db", url, "--out", out]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(stdout.contains("orders: metric tool `orders_metrics`"), "{stdout}");
    assert!(stdout.contains("customers: no metric tool"), "{stdout}");
    assert!(stdout.contains("order_no not a dimension"), "{stdout}");
    // init reviews its draft as `tools check --config` would: every example answered by its own tool.
    assert!(stdout.contains("tools check: no findings"), "{stdout}");
    let (again, _, refused) = wenshu(&["init", "--db", url, "--out", out]);
    assert!(
        !again && refused.contains("--force"),
        "a second init must not overwrite: {refused}"
    );

    let catalog = Catalog::from_json_str(&std::fs::read_to_string(dir.join("catalog.json")).unwrap()).unwrap();
    let config: toml::Table = toml::from_str(&std::fs::read_to_string(dir.join("wenshu.toml")).unwrap()).unwrap();
    let tool = catalog.get("orders_metrics").expect("the orders metric tool");
    assert!(!tool.extensions().examples.is_empty(), "examples are drafted");
    let reader = Database::connect_read_only(url).await.unwrap();
    let mut entities = EntityCatalogs::new();
    for q in config["entity_queries"].as_array().expect("entity queries") {
        let ty = q["type"].as_str().unwrap();
        entities.insert(
            ty,
            load_entities(&reader, ty, q["query"].as_str().unwrap()).await.unwrap(),
        );
    }
    let values = MetricValues::load(&reader, &catalog, &entities).await.unwrap();
    let shared = SharedValues::new();
    shared.set(values.clone());
    let executor = MetricExecutor::new(reader.clone(), shared);
    let today = jiff::civil::date(2026, 6, 1);
    let month = match dialect {
        Dialect::Postgres => "TO_CHAR(day, 'YYYY-MM')",
        Dialect::MySql => "DATE_FORMAT(day, '%Y-%m')",
        Dialect::Sqlite | Dialect::Custom(_) => "SUBSTR(day, 1, 7)",
    };
    let in_2025 = "o.day BETWEEN '2025-01-01' AND '2025-12-31'";
    let zh = words.channels[0] == ZH.channels[0];
    let product = words.products[1];
    let city = words.cities[0];
    let cases: Vec<(String, String)> = vec![
        (
            if zh {
                "2025年各渠道的销售额".into()
            } else {
                "amount by channel from 2025-01-01 to 2025-12-31".into()
            },
            format!("SELECT o.channel, SUM(o.amount) FROM orders o WHERE {in_2025} GROUP BY o.channel"),
        ),
        (
            if zh {
                "2025年每个月的销量".into()
            } else {
                "quantity by month from 2025-01-01 to 2025-12-31".into()
            },
            format!(
                "SELECT {}, SUM(o.quantity) FROM orders o WHERE {in_2025} GROUP BY {}",
                month.replace("day", "o.day"),
                month.replace("day", "o.day")
            ),
        ),
        (
            if zh {
                format!("2025年{product}的销量")
            } else {
                format!("quantity of {product} from 2025-01-01 to 2025-12-31")
            },
            format!(
                "SELECT SUM(o.quantity) FROM orders o JOIN products p ON p.id = o.product_id \
                 WHERE {in_2025} AND p.name = '{product}'"
            ),
        ),
        (
            if zh {
                format!("2025年{city}的订单数")
            } else {
                format!("orders in {city} from 2025-01-01 to 2025-12-31")
            },
            format!(
                "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id \
                 WHERE {in_2025} AND c.city = '{city}'"
            ),
        ),
    ];
    for (question, sql) in &cases {
        let query = match build_query(tool, &values, question, today) {
            MetricBuild::Query { query } => query,
            MetricBuild::Unmet { reasons } => panic!("`{question}` is not answered: {reasons:?}"),
        };
        let call = bind(tool, &query_params(&query)).unwrap();
        let result = executor.execute(tool, &call, &ExecContext::new(today)).await.unwrap();
        let want = reader.query(sql, &[], QueryLimits::default()).await.unwrap();
        assert_close(question, &as_map(&result.rows), &as_map(&want.rows));
    }
    // The whole pipeline with the drafted files: `wenshu ask --config` (route, coverage, metric tool, answer).
    for (question, sql) in &cases[..2] {
        let (config, catalog) = (dir.join("wenshu.toml"), dir.join("catalog.json"));
        let (ok, stdout, stderr) = wenshu(&[
            "ask",
            "--config",
            config.to_str().unwrap(),
            "--catalog",
            catalog.to_str().unwrap(),
            "--engine",
            "lexicon",
            "--today",
            "2026-06-01",
            "--json",
            question,
        ]);
        assert!(ok, "ask failed: {stdout}\n{stderr}");
        let answer: Value = serde_json::from_str(&stdout).unwrap();
        let outcome = &answer["outcome"];
        assert_eq!(
            (outcome["kind"].as_str(), outcome["tool"].as_str()),
            (Some("answered"), Some("orders_metrics")),
            "{question}: {outcome}"
        );
        let rows: Vec<Vec<Value>> = serde_json::from_value(outcome["rows"].clone()).unwrap();
        let want = reader.query(sql, &[], QueryLimits::default()).await.unwrap();
        assert_close(question, &as_map(&rows), &as_map(&want.rows));
    }
    reader.close().await;
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wenshu-init19-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn sqlite_schema_drafts_metric_tools_that_answer() {
    let dir = temp_dir("sqlite");
    let url = format!("sqlite:{}", dir.join("shop.db").display());
    init_and_ask(&url, Dialect::Sqlite, &EN, &dir.join("draft")).await;
    let (ok, _, err) = wenshu(&[
        "init",
        "--db",
        &url,
        "--tables",
        "orders,nope",
        "--out",
        dir.join("x").to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("`nope`") && err.contains("orders"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_fact_column_a_joined_table_also_has_is_written_with_its_tables_name() {
    let dir = temp_dir("shared-column");
    let url = format!("sqlite:{}", dir.join("music.db").display());
    let db = Database::connect(&url).await.unwrap();
    let mut script = String::from(
        "CREATE TABLE track (track_id INTEGER PRIMARY KEY, name TEXT NOT NULL, unit_price NUMERIC(10,2) NOT NULL);\n\
         CREATE TABLE invoice_line (line_id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL REFERENCES track(track_id), \
         unit_price NUMERIC(10,2) NOT NULL, quantity INTEGER NOT NULL);\n",
    );
    for t in 1..=40 {
        script.push_str(&format!("INSERT INTO track VALUES ({t}, 'track {t}', 0.99);\n"));
    }
    for l in 1..=200 {
        script.push_str(&format!(
            "INSERT INTO invoice_line VALUES ({l}, {}, 1.29, {});\n",
            l % 40 + 1,
            l % 3 + 1
        ));
    }
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    let (ok, stdout, stderr) = wenshu(&["init", "--db", &url, "--out", dir.join("draft").to_str().unwrap()]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    let catalog = Catalog::from_json_str(&std::fs::read_to_string(dir.join("draft/catalog.json")).unwrap()).unwrap();
    let model = catalog
        .get("invoice_line_metrics")
        .expect("the fact table's tool")
        .definition();
    let measures = model["x-metrics"]["measures"].as_array().unwrap();
    assert!(
        measures.iter().any(|m| m["expr"] == "SUM(invoice_line.unit_price)"),
        "the shared column is qualified: {measures:?}"
    );
    assert!(measures.iter().any(|m| m["expr"] == "SUM(quantity)"), "{measures:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The URL of this suite's own database on the server named by `var`, made afresh; `None` (skipped) when unset.
async fn server_database(var: &str) -> Option<String> {
    named_server_database(var, DB_NAME).await
}

/// The URL of the database `name` on the server named by `var`, made afresh; `None` (skipped) when unset.
async fn named_server_database(var: &str, name: &str) -> Option<String> {
    let Ok(admin_url) = std::env::var(var) else {
        println!("skipped: set {var} to run");
        return None;
    };
    Some(ensure_database(&admin_url, name).await.unwrap())
}

#[tokio::test]
async fn postgres_schema_with_comments_drafts_metric_tools_that_answer() {
    let Some(url) = server_database("WENSHU_TEST_POSTGRES_URL").await else {
        return;
    };
    let dir = temp_dir("postgres");
    init_and_ask(&url, Dialect::Postgres, &ZH, &dir).await;
    let catalog = std::fs::read_to_string(dir.join("catalog.json")).unwrap();
    assert!(
        catalog.contains("\"label\": \"销售额\"") && catalog.contains("\"unit\": \"元\""),
        "labels from comments"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn mariadb_schema_with_comments_drafts_metric_tools_that_answer() {
    let Some(url) = server_database("WENSHU_TEST_MYSQL_URL").await else {
        return;
    };
    let dir = temp_dir("mysql");
    init_and_ask(&url, Dialect::MySql, &ZH, &dir).await;
    let catalog = std::fs::read_to_string(dir.join("catalog.json")).unwrap();
    assert!(
        catalog.contains("\"label\": \"销售额\"") && catalog.contains("\"synonyms\": [\n"),
        "labels from comments"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fact table whose day is a `DATETIME`/`TIMESTAMP` holding days (and another holding times of day): the day one
/// is the time column, and questions by month are answered; the timed one is named, never read as days.
async fn timestamp_days_are_the_time_column(url: &str, dialect: Dialect, dir: &Path) {
    let stamp = if dialect == Dialect::Postgres {
        "TIMESTAMP"
    } else {
        "DATETIME"
    };
    let text = if dialect == Dialect::MySql {
        "VARCHAR(40)"
    } else {
        "TEXT"
    };
    let mut script = format!(
        "DROP TABLE IF EXISTS visits; CREATE TABLE visits (id INT PRIMARY KEY, logged_at {stamp}, \
         visited_at {stamp}, channel {text}, spend DECIMAL(10,2));"
    );
    let mut rng = Lcg(7);
    for i in 0..120 {
        let day = if dialect == Dialect::Sqlite {
            format!("2025-{:02}-{:02}", rng.next(12) + 1, rng.next(28) + 1)
        } else {
            format!("2025-{:02}-{:02} 00:00:00", rng.next(12) + 1, rng.next(28) + 1)
        };
        script.push_str(&format!(
            "INSERT INTO visits VALUES ({}, '2025-01-{:02} {:02}:17:00', '{day}', '{}', {}.50);",
            i + 1,
            rng.next(28) + 1,
            rng.next(23) + 1,
            ["web", "app"][rng.next(2) as usize],
            rng.next(300) + 1
        ));
    }
    let db = Database::connect(url).await.unwrap();
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    let (ok, stdout, stderr) = wenshu(&[
        "init",
        "--db",
        url,
        "--tables",
        "visits",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(stdout.contains("visited_at is the time column"), "{stdout}");
    assert!(stdout.contains("logged_at holds times of day"), "{stdout}");
    let catalog = Catalog::from_json_str(&std::fs::read_to_string(dir.join("catalog.json")).unwrap()).unwrap();
    let tool = catalog.get("visits_metrics").expect("the visits tool");
    let reader = Database::connect_read_only(url).await.unwrap();
    let values = MetricValues::load(&reader, &catalog, &EntityCatalogs::new())
        .await
        .unwrap();
    let shared = SharedValues::new();
    shared.set(values.clone());
    let executor = MetricExecutor::new(reader.clone(), shared);
    let today = jiff::civil::date(2026, 6, 1);
    let question = "spend by month from 2025-03-01 to 2025-05-31";
    let query = match build_query(tool, &values, question, today) {
        MetricBuild::Query { query } => query,
        MetricBuild::Unmet { reasons } => panic!("`{question}` is not answered: {reasons:?}"),
    };
    let call = bind(tool, &query_params(&query)).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today)).await.unwrap();
    let month = match dialect {
        Dialect::Postgres => "TO_CHAR(visited_at, 'YYYY-MM')",
        Dialect::MySql => "DATE_FORMAT(visited_at, '%Y-%m')",
        Dialect::Sqlite | Dialect::Custom(_) => "SUBSTR(visited_at, 1, 7)",
    };
    let sql = format!(
        "SELECT {month}, SUM(spend) FROM visits WHERE {month} BETWEEN '2025-03' AND '2025-05' GROUP BY {month}"
    );
    let want = reader.query(&sql, &[], QueryLimits::default()).await.unwrap();
    assert_eq!(want.rows.len(), 3, "three months of visits");
    assert_close(question, &as_map(&result.rows), &as_map(&want.rows));
    reader.close().await;
}

#[tokio::test]
async fn sqlite_datetime_days_are_the_time_column() {
    let dir = temp_dir("stamp-sqlite");
    let url = format!("sqlite:{}", dir.join("visits.db").display());
    timestamp_days_are_the_time_column(&url, Dialect::Sqlite, &dir.join("draft")).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn postgres_timestamp_days_are_the_time_column() {
    let Some(url) = named_server_database("WENSHU_TEST_POSTGRES_URL", "wenshu_init27_stamp").await else {
        return;
    };
    let dir = temp_dir("stamp-postgres");
    timestamp_days_are_the_time_column(&url, Dialect::Postgres, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn mariadb_datetime_days_are_the_time_column() {
    let Some(url) = named_server_database("WENSHU_TEST_MYSQL_URL", "wenshu_init27_stamp").await else {
        return;
    };
    let dir = temp_dir("stamp-mysql");
    timestamp_days_are_the_time_column(&url, Dialect::MySql, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_join_that_drops_rows_is_left_out_with_a_finding() {
    let dir = temp_dir("nullable-key");
    let url = format!("sqlite:{}", dir.join("shop.db").display());
    let mut script = String::from(
        "CREATE TABLE members (member_id INTEGER PRIMARY KEY, name TEXT NOT NULL, level TEXT);\n\
         CREATE TABLE stores (store_id INTEGER PRIMARY KEY, city TEXT NOT NULL);\n\
         CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, day TEXT NOT NULL, \
         member_id INTEGER REFERENCES members(member_id), store_id INTEGER NOT NULL REFERENCES stores(store_id), \
         amount REAL NOT NULL);\n",
    );
    for m in 1..=20 {
        script.push_str(&format!(
            "INSERT INTO members VALUES ({m}, 'member {m}', '{}');\n",
            ["gold", "silver"][m % 2]
        ));
    }
    for s in 1..=3 {
        script.push_str(&format!(
            "INSERT INTO stores VALUES ({s}, '{}');\n",
            ["north", "south", "east"][s - 1]
        ));
    }
    for i in 1..=90 {
        // One sale in three is a guest's: no member.
        let member = if i % 3 == 0 {
            "NULL".to_string()
        } else {
            (i % 20 + 1).to_string()
        };
        script.push_str(&format!(
            "INSERT INTO sales VALUES ({i}, '2025-{:02}-{:02}', {member}, {}, {}.5);\n",
            i % 12 + 1,
            i % 28 + 1,
            i % 3 + 1,
            i * 7 % 200 + 10
        ));
    }
    let db = Database::connect(&url).await.unwrap();
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    let draft = dir.join("draft");
    let (ok, stdout, stderr) = wenshu(&["init", "--db", &url, "--out", draft.to_str().unwrap()]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("foreign key member_id → members not joined: joined, 90 rows become 60"),
        "{stdout}"
    );
    let catalog = Catalog::from_json_str(&std::fs::read_to_string(draft.join("catalog.json")).unwrap()).unwrap();
    let model = &catalog.get("sales_metrics").expect("the sales tool").definition()["x-metrics"];
    let joined: Vec<&str> = model["from"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["table"].as_str())
        .collect();
    assert_eq!(joined, ["sales", "stores"], "{model}");
    // Every sale is counted, guests' too.
    let (ok, stdout, stderr) = wenshu(&[
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
        "total amount",
    ]);
    assert!(ok, "ask failed: {stdout}\n{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    let rows: Vec<Vec<Value>> = serde_json::from_value(answer["outcome"]["rows"].clone()).unwrap_or_default();
    let want: f64 = (1..=90).map(|i| (i * 7 % 200 + 10) as f64 + 0.5).sum();
    assert!(
        rows.first()
            .and_then(|r| r.last())
            .is_some_and(|v| (number(v) - want).abs() < 0.01),
        "{answer}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_line_table_gets_its_day_and_names_through_the_tables_it_joins() {
    let dir = temp_dir("two-hops");
    let url = format!("sqlite:{}", dir.join("music.db").display());
    let mut script = String::from(
        "CREATE TABLE genre (genre_id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n\
         CREATE TABLE track (track_id INTEGER PRIMARY KEY, name TEXT NOT NULL, \
         genre_id INTEGER NOT NULL REFERENCES genre(genre_id), unit_price NUMERIC(10,2) NOT NULL);\n\
         CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, invoice_date DATETIME NOT NULL, \
         billing_city TEXT NOT NULL, total NUMERIC(10,2) NOT NULL);\n\
         CREATE TABLE invoice_line (invoice_line_id INTEGER PRIMARY KEY, \
         invoice_id INTEGER NOT NULL REFERENCES invoice(invoice_id), \
         track_id INTEGER NOT NULL REFERENCES track(track_id), unit_price NUMERIC(10,2) NOT NULL, \
         quantity INTEGER NOT NULL);\n\
         INSERT INTO genre VALUES (1, 'Rock'), (2, 'Jazz'), (3, 'Blues');\n",
    );
    for t in 1..=60 {
        script.push_str(&format!(
            "INSERT INTO track VALUES ({t}, 'track {t}', {}, 0.99);\n",
            t % 3 + 1
        ));
    }
    let mut rng = Lcg(27);
    for i in 1..=80 {
        let year = if i % 4 == 0 { 2024 } else { 2025 };
        script.push_str(&format!(
            "INSERT INTO invoice VALUES ({i}, '{year}-{:02}-{:02}', '{}', 0);\n",
            rng.next(12) + 1,
            rng.next(28) + 1,
            ["Oslo", "Lima", "Pune"][(i % 3) as usize]
        ));
    }
    for l in 1..=300 {
        script.push_str(&format!(
            "INSERT INTO invoice_line VALUES ({l}, {}, {}, {}.{:02}, {});\n",
            rng.next(80) + 1,
            rng.next(60) + 1,
            rng.next(2),
            rng.next(100),
            rng.next(3) + 1
        ));
    }
    let db = Database::connect(&url).await.unwrap();
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    let draft = dir.join("draft");
    let (ok, stdout, stderr) = wenshu(&["init", "--db", &url, "--out", draft.to_str().unwrap()]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("invoice.invoice_date (via invoice_id) is the time column"),
        "{stdout}"
    );
    assert!(stdout.contains("unit_price × quantity → measure 销售额"), "{stdout}");
    let catalog = Catalog::from_json_str(&std::fs::read_to_string(draft.join("catalog.json")).unwrap()).unwrap();
    let tool = catalog.get("invoice_line_metrics").expect("the line tool");
    let reader = Database::connect_read_only(&url).await.unwrap();
    let config: toml::Table = toml::from_str(&std::fs::read_to_string(draft.join("wenshu.toml")).unwrap()).unwrap();
    let mut entities = EntityCatalogs::new();
    for q in config["entity_queries"].as_array().expect("entity queries") {
        let ty = q["type"].as_str().unwrap();
        entities.insert(
            ty,
            load_entities(&reader, ty, q["query"].as_str().unwrap()).await.unwrap(),
        );
    }
    let values = MetricValues::load(&reader, &catalog, &entities).await.unwrap();
    let shared = SharedValues::new();
    shared.set(values.clone());
    let executor = MetricExecutor::new(reader.clone(), shared);
    let today = jiff::civil::date(2026, 6, 1);
    let in_2025 = "i.invoice_date BETWEEN '2025-01-01' AND '2025-12-31'";
    let cases = [
        (
            "revenue by genre from 2025-01-01 to 2025-12-31",
            format!(
                "SELECT g.name, SUM(l.unit_price * l.quantity) FROM invoice_line l \
                 JOIN invoice i ON i.invoice_id = l.invoice_id JOIN track t ON t.track_id = l.track_id \
                 JOIN genre g ON g.genre_id = t.genre_id WHERE {in_2025} GROUP BY g.name"
            ),
        ),
        (
            "quantity by month from 2025-01-01 to 2025-12-31",
            format!(
                "SELECT SUBSTR(i.invoice_date, 1, 7), SUM(l.quantity) FROM invoice_line l \
                 JOIN invoice i ON i.invoice_id = l.invoice_id WHERE {in_2025} GROUP BY 1"
            ),
        ),
    ];
    for (question, sql) in &cases {
        let query = match build_query(tool, &values, question, today) {
            MetricBuild::Query { query } => query,
            MetricBuild::Unmet { reasons } => panic!("`{question}` is not answered: {reasons:?}"),
        };
        let call = bind(tool, &query_params(&query)).unwrap();
        let result = executor.execute(tool, &call, &ExecContext::new(today)).await.unwrap();
        let want = reader.query(sql, &[], QueryLimits::default()).await.unwrap();
        assert_close(question, &as_map(&result.rows), &as_map(&want.rows));
    }
    reader.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_fraction_discount_is_taken_off_revenue_and_another_scale_is_not_guessed() {
    let dir = temp_dir("discount");
    let url = format!("sqlite:{}", dir.join("shop.db").display());
    let mut script = String::from(
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, order_date TEXT NOT NULL);\n\
         CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, \
         order_id INTEGER NOT NULL REFERENCES orders(order_id), unit_price REAL NOT NULL, \
         quantity INTEGER NOT NULL, discount REAL NOT NULL);\n\
         CREATE TABLE quote_lines (line_id INTEGER PRIMARY KEY, \
         order_id INTEGER NOT NULL REFERENCES orders(order_id), unit_price REAL NOT NULL, \
         quantity INTEGER NOT NULL, discount REAL NOT NULL);\n",
    );
    for o in 1..=40 {
        script.push_str(&format!(
            "INSERT INTO orders VALUES ({o}, '2025-{:02}-11');\n",
            o % 12 + 1
        ));
    }
    for l in 1..=120 {
        script.push_str(&format!(
            "INSERT INTO order_lines VALUES ({l}, {}, {}.25, {}, {});\n\
             INSERT INTO quote_lines VALUES ({l}, {}, 3.5, 2, {});\n",
            l % 40 + 1,
            l % 17 + 1,
            l % 4 + 1,
            [0.0, 0.05, 0.1, 0.25][l % 4],
            l % 40 + 1,
            [0, 5, 10, 15][l % 4]
        ));
    }
    let db = Database::connect(&url).await.unwrap();
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    let draft = dir.join("draft");
    let (ok, stdout, stderr) = wenshu(&["init", "--db", &url, "--out", draft.to_str().unwrap()]);
    assert!(ok, "init failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("unit_price × quantity × (1 − discount) → measure 销售额"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unit_price × quantity not drafted as sales: discount is not a fraction"),
        "{stdout}"
    );
    let catalog = Catalog::from_json_str(&std::fs::read_to_string(draft.join("catalog.json")).unwrap()).unwrap();
    let tool = catalog.get("order_lines_metrics").expect("the line tool");
    let reader = Database::connect_read_only(&url).await.unwrap();
    let values = MetricValues::load(&reader, &catalog, &EntityCatalogs::new())
        .await
        .unwrap();
    let shared = SharedValues::new();
    shared.set(values.clone());
    let executor = MetricExecutor::new(reader.clone(), shared);
    let today = jiff::civil::date(2026, 6, 1);
    let question = "revenue by month from 2025-01-01 to 2025-12-31";
    let query = match build_query(tool, &values, question, today) {
        MetricBuild::Query { query } => query,
        MetricBuild::Unmet { reasons } => panic!("`{question}` is not answered: {reasons:?}"),
    };
    let call = bind(tool, &query_params(&query)).unwrap();
    let result = executor.execute(tool, &call, &ExecContext::new(today)).await.unwrap();
    let want = reader
        .query(
            "SELECT SUBSTR(o.order_date, 1, 7), SUM(l.unit_price * l.quantity * (1 - l.discount)) \
             FROM order_lines l JOIN orders o ON o.order_id = l.order_id GROUP BY 1",
            &[],
            QueryLimits::default(),
        )
        .await
        .unwrap();
    assert_close(question, &as_map(&result.rows), &as_map(&want.rows));
    reader.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
