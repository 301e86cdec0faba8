//! `wenshu tools check` flags what a reviewer would: a deliberately confusable pair (the lexicon engine scores
//! their examples within a hair of each other), an enum without labels, a tool without examples — and leaves a
//! distinct tool alone.

use std::process::Command;

use serde_json::json;

fn check(catalog: &serde_json::Value, name: &str) -> (Option<i32>, String) {
    let path = std::env::temp_dir().join(format!("wenshu-check19-{}-{name}.json", std::process::id()));
    std::fs::write(&path, catalog.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(["tools", "check", path.to_str().unwrap(), "--today", "2026-06-01"])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn order_tool(name: &str, title: &str, description: &str, examples: &[&str]) -> serde_json::Value {
    json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": {"type": "object", "properties": {
            "orderId": {"type": "string", "description": "订单号", "pattern": "^ord_[0-9]+$"}
        }},
        "x-examples": examples,
    })
}

#[test]
fn a_confusable_pair_is_flagged_and_a_distinct_tool_is_not() {
    let catalog = json!({"tools": [
        order_tool("shipment_status", "订单物流查询", "查询订单的物流状态和物流进度", &["查一下订单 ord_1 的物流状态", "订单 ord_2 的物流进度"]),
        order_tool("delivery_status", "订单物流跟踪", "查询订单的物流状态和物流进度", &["订单 ord_3 的物流状态", "查一下订单 ord_4 的物流进度"]),
        {
            "name": "weather_forecast",
            "title": "天气预报",
            "description": "查询城市未来几天的天气、气温和降雨",
            "inputSchema": {"type": "object", "properties": {
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "温度单位"}
            }},
            "x-examples": ["明天会下雨吗", "这几天的气温"],
        },
        {"name": "bare_tool", "title": "空", "description": "没有示例的工具", "inputSchema": {"type": "object"}}
    ]});
    let (code, out) = check(&catalog, "pair");
    assert_eq!(code, Some(1), "findings exit 1: {out}");
    let confusable: Vec<&str> = out.lines().filter(|l| l.starts_with("confusable")).collect();
    assert_eq!(confusable.len(), 1, "{out}");
    assert!(confusable[0].contains("delivery_status + shipment_status"), "{out}");
    assert!(
        !out.lines()
            .any(|l| l.starts_with("confusable") && l.contains("weather")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("enum-labels") && l.contains("celsius, fahrenheit")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("no-examples") && l.contains("bare_tool")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("unexercised") && l.contains("weather_forecast") && l.contains("unit")),
        "{out}"
    );
    assert!(
        !out.lines()
            .any(|l| l.starts_with("unexercised") && l.contains("shipment_status")),
        "IDs are read: {out}"
    );
}

#[test]
fn a_catalog_with_distinct_labelled_tools_is_clean() {
    let catalog = json!({"tools": [
        order_tool("shipment_status", "订单物流查询", "查询订单的物流状态和快递进度", &["查一下订单 ord_1 的物流状态"]),
        {
            "name": "weather_forecast",
            "title": "天气预报",
            "description": "查询城市未来几天的天气、气温和降雨",
            "inputSchema": {"type": "object", "properties": {
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "温度单位"}
            }},
            "x-enum-synonyms": {"unit": {"celsius": ["摄氏度"], "fahrenheit": ["华氏度"]}},
            "x-examples": ["明天的气温是多少华氏度"],
        }
    ]});
    let (code, out) = check(&catalog, "clean");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("2 tools checked, 0 findings"), "{out}");
}

#[test]
fn a_metric_name_that_starts_another_is_flagged() {
    let tool = |dimensions: serde_json::Value| {
        json!({"tools": [{
            "name": "game_sales",
            "title": "游戏销售",
            "description": "游戏的销售额",
            "x-examples": ["各游戏的销售额"],
            "x-metrics": {
                "from": [{"table": "sales", "columns": ["title", "genre", "amount", "day"]}],
                "time": {"column": "day", "type": "text", "label": "日期"},
                "measures": [{"name": "amount", "label": "销售额", "expr": "SUM(amount)"}],
                "dimensions": dimensions,
            },
        }]})
    };
    let (code, out) = check(
        &tool(json!([
            {"name": "title", "label": "游戏", "column": "title", "values": "data"},
            {"name": "genre", "label": "游戏类型", "column": "genre", "values": "data"},
        ])),
        "prefix",
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("prefix") && out.contains("`游戏` (dimension `title`)"),
        "{out}"
    );
    let (_, out) = check(
        &tool(json!([
            {"name": "title", "label": "游戏", "column": "title", "values": "data"},
            {"name": "genre", "label": "类型", "column": "genre", "values": "data"},
        ])),
        "distinct",
    );
    assert!(!out.contains("prefix"), "{out}");
}

#[tokio::test]
async fn with_its_database_a_misrouted_example_and_a_join_that_drops_rows_are_flagged() {
    let dir = std::env::temp_dir().join(format!("wenshu-check27-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite:{}", dir.join("shop.db").display());
    let mut script = String::from(
        "CREATE TABLE stores (store_id INTEGER PRIMARY KEY, city TEXT NOT NULL);\n\
         INSERT INTO stores VALUES (1, '北京'), (2, '上海');\n\
         CREATE TABLE sales (id INTEGER PRIMARY KEY, day TEXT NOT NULL, store_id INTEGER, amount REAL NOT NULL);\n\
         CREATE TABLE visits (id INTEGER PRIMARY KEY, day TEXT NOT NULL, channel TEXT NOT NULL, visitors INTEGER);\n",
    );
    for i in 1..=40 {
        // Every fourth sale has no store: an inner join drops it.
        let store = if i % 4 == 0 {
            "NULL".to_string()
        } else {
            (i % 2 + 1).to_string()
        };
        script.push_str(&format!(
            "INSERT INTO sales VALUES ({i}, '2025-03-{:02}', {store}, {i}.5);\n\
             INSERT INTO visits VALUES ({i}, '2025-03-{:02}', '{}', {i});\n",
            i % 28 + 1,
            i % 28 + 1,
            ["app", "web"][i % 2]
        ));
    }
    let db = wenshu_engine::db::Database::connect(&url).await.unwrap();
    db.execute_batch(&script).await.unwrap();
    db.close().await;
    let time = json!({"column": "day", "type": "text", "label": "日期"});
    let catalog = json!({"tools": [
        {
            "name": "sales_metrics",
            "title": "销售指标",
            "description": "门店销售额，可按城市分组",
            "x-examples": ["各城市的销售额"],
            "x-metrics": {
                "from": [
                    {"table": "sales", "columns": ["id", "day", "store_id", "amount"]},
                    {"table": "stores", "columns": ["store_id", "city"], "on": ["sales.store_id", "stores.store_id"]}
                ],
                "time": time,
                "measures": [{"name": "amount", "label": "销售额", "expr": "SUM(amount)"}],
                "dimensions": [{"name": "city", "label": "城市", "column": "stores.city", "values": "data"}],
            },
        },
        {
            "name": "visits_metrics",
            "title": "访问指标",
            "description": "访问人数，可按渠道分组",
            "x-examples": ["各渠道的访问人数", "各城市的销售额"],
            "x-metrics": {
                "from": [{"table": "visits", "columns": ["id", "day", "channel", "visitors"]}],
                "time": time,
                "measures": [{"name": "visitors", "label": "访问人数", "expr": "SUM(visitors)"}],
                "dimensions": [{"name": "channel", "label": "渠道", "column": "channel", "values": "data"}],
            },
        },
    ]});
    let catalog_path = dir.join("catalog.json");
    std::fs::write(&catalog_path, catalog.to_string()).unwrap();
    let config = dir.join("wenshu.toml");
    std::fs::write(
        &config,
        format!("database_url = \"{url}\"\ncatalog = \"{}\"\n", catalog_path.display()),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args([
            "tools",
            "check",
            catalog_path.to_str().unwrap(),
            "--today",
            "2026-06-01",
        ])
        .args(["--config", config.to_str().unwrap()])
        .env_remove("WENSHU_LLM_BASE_URL")
        .env_remove("WENSHU_LLM_MODEL")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("joining `stores` turns the 40 rows of `sales` into 30"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("misrouted") && l.contains("visits_metrics") && l.contains("各城市的销售额")),
        "{text}"
    );
    assert!(
        !text.contains("各渠道的访问人数"),
        "an example its tool answers is no finding: {text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
