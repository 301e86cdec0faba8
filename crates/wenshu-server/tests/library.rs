//! The page's API over real HTTP on 127.0.0.1: the principal's conversation list, rename, delete, an answer's CSV
//! and feedback on answers, each under the ownership rules, and every status seen documented in the OpenAPI file.

mod common;

use common::{Options, Server, keyed, start};
use reqwest::Method;
use serde_json::{Value, json};
use wenshu_server::ServerSettings;

/// One request with an optional key and JSON body: (status, body text).
async fn call(server: &Server, method: Method, path: &str, key: Option<&str>, body: Option<&Value>) -> (u16, String) {
    let mut request = server.client.request(method.clone(), format!("{}{path}", server.base));
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    assert_documented(&method, path, status);
    (status, text)
}

/// The same as [`call`], the body read as JSON (`Null` when empty).
async fn call_json(
    server: &Server,
    method: Method,
    path: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let (status, text) = call(server, method, path, key, body).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Fails unless the OpenAPI document lists `status` for the route `path` matches.
fn assert_documented(method: &Method, path: &str, status: u16) {
    let spec: Value = serde_json::from_str(wenshu_server::api::OPENAPI).unwrap();
    let path = path.split('?').next().unwrap_or(path);
    let paths = spec["paths"].as_object().unwrap();
    let template = paths
        .keys()
        .find(|template| {
            let (a, b): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
            a.len() == b.len() && a.iter().zip(&b).all(|(t, p)| t.starts_with('{') || t == p)
        })
        .unwrap_or_else(|| panic!("{path} is not in openapi.json"));
    let operation = &paths[template][method.as_str().to_lowercase()];
    assert!(
        operation["responses"][status.to_string()].is_object(),
        "{method} {template} answers {status}, which openapi.json does not list"
    );
}

async fn ask(server: &Server, key: &str, question: &str) -> Value {
    let (status, answer) = call_json(
        server,
        Method::POST,
        "/api/ask",
        Some(key),
        Some(&json!({"question": question})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

/// The CSV of `turn` as `u1` reads it (asserted 200).
async fn csv_of(server: &Server, turn: &str) -> String {
    let (status, csv) = call(server, Method::GET, &format!("/api/turns/{turn}/csv"), Some("u1"), None).await;
    assert_eq!(status, 200, "{csv}");
    csv
}

#[tokio::test]
async fn the_list_rename_and_delete_keep_to_the_owner() {
    let server = start(Options {
        settings: keyed(&["u1", "u2"], &["a1"]),
        ..Options::default()
    })
    .await;
    let first = ask(&server, "u1", "华东区本月的销售额是多少").await;
    let second = ask(&server, "u1", "本月各地区的销售额").await;
    let (one, two) = (
        first["conversationId"].as_str().unwrap(),
        second["conversationId"].as_str().unwrap(),
    );

    let (status, list) = call_json(&server, Method::GET, "/api/conversations", Some("u1"), None).await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = list["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [two, one]);
    assert_eq!(list["conversations"][1]["title"], "华东区本月的销售额是多少");
    let (_, other) = call_json(&server, Method::GET, "/api/conversations", Some("u2"), None).await;
    assert_eq!(other["conversations"], json!([]));
    let (status, _) = call_json(&server, Method::GET, "/api/conversations", None, None).await;
    assert_eq!(status, 401);
    let (status, error) = call_json(&server, Method::GET, "/api/conversations?limit=0", Some("u1"), None).await;
    assert_eq!((status, error["error"]["param"].as_str()), (422, Some("limit")));

    let path = format!("/api/conversations/{one}");
    let title = json!({"title": "  华东月报  "});
    let (status, _) = call_json(&server, Method::PATCH, &path, Some("u2"), Some(&title)).await;
    assert_eq!(status, 404, "another key's conversation is not there");
    let (status, renamed) = call_json(&server, Method::PATCH, &path, Some("u1"), Some(&title)).await;
    assert_eq!((status, renamed["title"].as_str()), (200, Some("华东月报")));
    let (status, error) = call_json(&server, Method::PATCH, &path, Some("u1"), Some(&json!({"title": "  "}))).await;
    assert_eq!((status, error["error"]["param"].as_str()), (422, Some("title")));
    let (status, _) = call_json(
        &server,
        Method::PATCH,
        &path,
        Some("u1"),
        Some(&json!({"title": "x", "y": 1})),
    )
    .await;
    assert_eq!(status, 400);
    let (_, list) = call_json(&server, Method::GET, "/api/conversations", Some("u1"), None).await;
    assert_eq!(list["conversations"][1]["title"], "华东月报");
    assert_eq!(list["conversations"][1]["renamed"], true);

    let (status, _) = call(&server, Method::DELETE, &path, Some("u2"), None).await;
    assert_eq!(status, 404);
    let (status, _) = call(&server, Method::DELETE, &path, Some("u1"), None).await;
    assert_eq!(status, 204);
    let (status, _) = call(&server, Method::GET, &path, Some("u1"), None).await;
    assert_eq!(status, 404);
    let (status, _) = call(&server, Method::DELETE, &path, Some("u1"), None).await;
    assert_eq!(status, 404);
    let (_, list) = call_json(&server, Method::GET, "/api/conversations", Some("a1"), None).await;
    assert_eq!(
        list["conversations"],
        json!([]),
        "an admin's list holds the admin's own conversations"
    );
}

#[tokio::test]
async fn csv_headers_are_the_catalogs_labels_with_units() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "u1", "华东区本月的销售额是多少").await;
    let turn = answer["turnId"].as_str().unwrap();
    let tool = answer["tool"].as_str().unwrap();
    let csv = csv_of(&server, turn).await;
    let header = csv
        .trim_start_matches('\u{feff}')
        .split("\r\n")
        .next()
        .unwrap()
        .to_string();
    let definition = server
        .state
        .engine()
        .planner()
        .catalog()
        .get(tool)
        .unwrap()
        .definition()
        .clone();
    let declared = definition["x-columns"]
        .as_object()
        .expect("the tool declares x-columns");
    for column in answer["outcome"]["columns"].as_array().unwrap() {
        let name = column.as_str().unwrap();
        let Some(spec) = declared.get(name) else { continue };
        let label = spec.as_str().or_else(|| spec["label"].as_str()).unwrap();
        let expected = match spec["unit"].as_str() {
            Some(unit) => format!("{label}（{unit}）"),
            None => label.to_string(),
        };
        assert!(header.split(',').any(|h| h == expected), "{header} lacks {expected}");
        assert!(
            !header.split(',').any(|h| h == name),
            "{header} shows the raw name {name}"
        );
    }
}

#[tokio::test]
async fn csv_has_the_answers_rows_and_feedback_is_read_back() {
    let server = start(Options {
        settings: keyed(&["u1", "u2"], &["a1"]),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "u1", "今年每个月的销售趋势").await;
    let turn = answer["turnId"].as_str().unwrap();
    let rows = answer["outcome"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{answer}");

    let csv = csv_of(&server, turn).await;
    let lines: Vec<&str> = csv
        .trim_start_matches('\u{feff}')
        .split("\r\n")
        .filter(|l| !l.is_empty())
        .collect();
    let columns: Vec<&str> = answer["outcome"]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    // The header holds one heading per column (the catalog's labels: csv_headers_are_the_catalogs_labels_with_units).
    assert_eq!(lines[0].split(',').count(), columns.len(), "{}", lines[0]);
    assert_eq!(lines.len(), rows.len() + 1);
    for (line, row) in lines[1..].iter().zip(rows) {
        let cells: Vec<String> = row
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        assert_eq!(*line, cells.join(","));
    }
    let (status, _) = call(
        &server,
        Method::GET,
        &format!("/api/turns/{turn}/csv"),
        Some("u2"),
        None,
    )
    .await;
    assert_eq!(status, 404);

    let path = format!("/api/turns/{turn}/feedback");
    let down = json!({"verdict": "down", "note": "少了华北"});
    let (status, _) = call_json(&server, Method::PUT, &path, Some("u2"), Some(&down)).await;
    assert_eq!(status, 404);
    let (status, error) = call_json(
        &server,
        Method::PUT,
        &path,
        Some("u1"),
        Some(&json!({"verdict": "meh"})),
    )
    .await;
    assert_eq!((status, error["error"]["param"].as_str()), (422, Some("verdict")));
    let (status, stored) = call_json(&server, Method::PUT, &path, Some("u1"), Some(&down)).await;
    assert_eq!((status, stored["verdict"].as_str()), (200, Some("down")), "{stored}");
    let (status, _) = call_json(
        &server,
        Method::PUT,
        "/api/turns/nope/feedback",
        Some("u1"),
        Some(&down),
    )
    .await;
    assert_eq!(status, 404);

    let (status, error) = call_json(&server, Method::GET, "/api/feedback", Some("u1"), None).await;
    assert_eq!((status, error["error"]["code"].as_str()), (403, Some("admin_required")));
    let (status, list) = call_json(&server, Method::GET, "/api/feedback", Some("a1"), None).await;
    assert_eq!(status, 200);
    let entry = &list["feedback"][0];
    assert_eq!(entry["turnId"], turn);
    assert_eq!(entry["note"], "少了华北");
    assert_eq!(entry["question"], "今年每个月的销售趋势");
    assert_eq!(entry["tool"], answer["tool"]);
    assert_eq!(entry["params"], answer["params"]);

    // The conversation's page carries the verdict with its turn, so a reloaded page shows it chosen again.
    let conversation = answer["conversationId"].as_str().unwrap();
    let (status, page) = call_json(
        &server,
        Method::GET,
        &format!("/api/conversations/{conversation}"),
        Some("u1"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let feedback = &page["turns"][0]["feedback"];
    assert_eq!(
        (feedback["verdict"].as_str(), feedback["note"].as_str()),
        (Some("down"), Some("少了华北")),
        "{page}"
    );
    let another = ask(&server, "u1", "华东区本月的销售额是多少").await;
    let (_, page) = call_json(
        &server,
        Method::GET,
        &format!("/api/conversations/{}", another["conversationId"].as_str().unwrap()),
        Some("u1"),
        None,
    )
    .await;
    assert!(page["turns"][0]["feedback"].is_null(), "{page}");
}

#[tokio::test]
async fn stops_carry_codes_and_both_languages_and_openapi_lists_every_code() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "u1", "今天天气怎么样").await;
    let outcome = &answer["outcome"];
    assert_eq!(
        (
            outcome["kind"].as_str(),
            outcome["code"].as_str(),
            outcome["audience"].as_str()
        ),
        (Some("stopped"), Some("question.outside_tools"), Some("user")),
        "{outcome}"
    );
    let message = &outcome["messages"][0];
    assert!(message["zh"].as_str().unwrap().contains("可以问"), "{message}");
    assert!(message["en"].as_str().unwrap().contains("You can ask"), "{message}");
    assert!(!message["params"]["tools"].as_array().unwrap().is_empty());
    assert_eq!(outcome["hints"][0]["code"].as_str(), Some("hint.enable_fallback"));
    // The older field stays: the Chinese texts, in order.
    assert_eq!(outcome["reasons"][0], message["zh"]);

    let answer = ask(&server, "u1", "战狼3的票房").await;
    assert_eq!(answer["outcome"]["code"].as_str(), Some("resolve.not_found"));
    assert!(
        answer["outcome"]["messages"][0]["en"]
            .as_str()
            .unwrap()
            .contains("战狼3")
    );

    let spec: Value = serde_json::from_str(wenshu_server::api::OPENAPI).unwrap();
    let listed: Vec<&str> = spec["components"]["schemas"]["MessageCode"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let codes: Vec<&str> = wenshu_engine::message::Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        listed, codes,
        "openapi.json's MessageCode must list every code, in order"
    );
}

#[tokio::test]
async fn without_keys_everyone_lists_and_reads_feedback() {
    let server = start(Options {
        settings: ServerSettings::default(),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "", "华东区本月的销售额是多少").await;
    let turn = answer["turnId"].as_str().unwrap();
    let (status, _) = call_json(
        &server,
        Method::PUT,
        &format!("/api/turns/{turn}/feedback"),
        None,
        Some(&json!({"verdict": "up"})),
    )
    .await;
    assert_eq!(status, 200);
    let (status, list) = call_json(&server, Method::GET, "/api/feedback?limit=5", None, None).await;
    assert_eq!((status, list["feedback"][0]["verdict"].as_str()), (200, Some("up")));
    let (_, list) = call_json(&server, Method::GET, "/api/conversations", None, None).await;
    assert_eq!(list["conversations"][0]["id"], answer["conversationId"]);
    let stopped = ask(&server, "", "今天天气怎么样").await;
    let turn = stopped["turnId"].as_str().unwrap();
    let (status, error) = call_json(&server, Method::GET, &format!("/api/turns/{turn}/csv"), None, None).await;
    assert_eq!(
        (status, error["error"]["code"].as_str()),
        (409, Some("no_rows")),
        "{stopped}"
    );
}

#[tokio::test]
async fn the_catalog_lists_examples_and_column_labels_of_enabled_tools() {
    let server = start(Options::default()).await;
    let (status, catalog) = call_json(&server, Method::GET, "/api/catalog", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(catalog["maxQuestionChars"], 500);
    // The day questions are read by (the harness fixes it), for the empty page.
    assert_eq!(catalog["today"], "2026-11-29");
    let tools = catalog["tools"].as_array().unwrap();
    let fallback = server
        .state
        .engine()
        .planner()
        .catalog()
        .fallback()
        .map(|t| t.name().to_string());
    assert!(
        tools
            .iter()
            .all(|t| Some(t["name"].as_str().unwrap().to_string()) != fallback)
    );
    let planner = server.state.engine().planner();
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let definition = planner.catalog().get(name).unwrap().definition();
        assert_eq!(
            tool["examples"],
            definition.get("x-examples").cloned().unwrap_or(json!([])),
            "{name}"
        );
        let declared = definition
            .get("x-columns")
            .and_then(Value::as_object)
            .map_or(0, |c| c.len());
        assert_eq!(tool["columns"].as_object().unwrap().len(), declared, "{name}");
        let subject = definition
            .get("x-subject")
            .and_then(|s| s.get("param"))
            .cloned()
            .unwrap_or(Value::Null);
        assert_eq!(tool["subjectParam"], subject, "{name}");
        // The parameter choosing a SQL tool's statement (x-sql.by), listed by the page with the bound ones.
        let selector = definition
            .get("x-sql")
            .and_then(|s| s.get("by"))
            .cloned()
            .unwrap_or(Value::Null);
        assert_eq!(tool["selector"], selector, "{name}");
        assert_eq!(
            tool["runnable"],
            json!(server.state.engine().can_execute(name)),
            "{name}"
        );
    }
    let runnable = |name: &str| tools.iter().find(|t| t["name"] == name).map(|t| t["runnable"].clone());
    assert_eq!(runnable("sales_query"), Some(json!(true)), "a SQL template runs");
    let selector = |name: &str| tools.iter().find(|t| t["name"] == name).map(|t| t["selector"].clone());
    assert_eq!(selector("sales_query"), Some(json!("queryType")));
    // What data exists, from when: a metric tool's first and last day (the harness's data ends on its today); a
    // template tool, or a metric model without a time column, says none.
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let metric = (planner.catalog().get(name).unwrap().extensions().metrics.as_deref())
            .is_some_and(|model| model.time.is_some());
        let span = &tool["dataSpan"];
        assert_eq!(span.is_object(), metric, "{name}: {span}");
        if metric {
            let (start, end) = (span["start"].as_str().unwrap(), span["end"].as_str().unwrap());
            assert!(
                start.len() == 10 && start < end && end <= "2026-11-29",
                "{name}: {span}"
            );
        }
    }
    assert!(
        tools.iter().any(|t| !t["columns"].as_object().unwrap().is_empty()),
        "no tool declares x-columns"
    );
    let first = tools[0]["name"].as_str().unwrap().to_string();
    planner.set_enabled(&first, false);
    let (_, catalog) = call_json(&server, Method::GET, "/api/catalog", None, None).await;
    assert!(
        catalog["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != first.as_str())
    );
}

#[tokio::test]
async fn a_cut_list_says_its_true_count_and_gives_every_row_with_its_csv() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    let cut = ask(&server, "u1", "张伟上个月的销售明细").await;
    let outcome = &cut["outcome"];
    let shown = outcome["rows"].as_array().unwrap().clone();
    let total = outcome["rows_total"].as_u64().expect("the list's true count");
    assert_eq!((shown.len(), outcome["rows_cap"].as_u64()), (10, Some(100)));
    assert!(total > 10, "a list of {total} rows is no cut list");
    let summary = outcome["summary"].as_str().unwrap();
    assert!(summary.contains(&format!("显示前 10 行，共 {total} 行")), "{summary}");
    let summary_en = outcome["summary_en"].as_str().unwrap();
    assert!(
        summary_en.contains(&format!("showing 10 of {total} rows")),
        "{summary_en}"
    );

    // `allRows`: the same call with its limit raised to the cap gives every row, the cut list's first.
    let body = json!({"question": "张伟上个月的销售明细", "allRows": true});
    let (status, all) = call_json(&server, Method::POST, "/api/ask", Some("u1"), Some(&body)).await;
    assert_eq!(status, 200, "{all}");
    let rows = all["outcome"]["rows"].as_array().unwrap();
    assert_eq!(u64::try_from(rows.len()).unwrap(), total);
    assert_eq!(all["outcome"]["rows_total"].as_u64(), Some(total));
    assert_eq!(rows[..10], shown[..]);
    assert_eq!(all["params"]["limit"], 100);

    // 全部明细 in the question asks the same.
    let words = ask(&server, "u1", "张伟上个月的全部明细").await;
    assert_eq!(words["outcome"]["rows"].as_array().map(Vec::len), Some(rows.len()));

    // The CSV of every row: a header of labels with units, then one line a row.
    let turn = all["turnId"].as_str().unwrap();
    let csv = csv_of(&server, turn).await;
    let lines: Vec<&str> = csv.trim_start_matches('\u{feff}').trim_end().split("\r\n").collect();
    assert_eq!(lines[0], "日期,地区,产品,销售员,销售额（元）,销量（套）");
    assert_eq!(u64::try_from(lines.len() - 1).unwrap(), total);

    // The cut turn's own CSV holds every row too (its call asked again up to the cap), the same as the whole list's.
    let cut_turn = cut["turnId"].as_str().unwrap();
    let cut_csv = csv_of(&server, cut_turn).await;
    assert_eq!(cut_csv, csv, "the cut list's CSV is not the whole list's");

    // Every field of the answered outcome is in the OpenAPI document's Outcome.
    let spec: Value = serde_json::from_str(wenshu_server::api::OPENAPI).unwrap();
    let documented = spec["components"]["schemas"]["Outcome"]["properties"]
        .as_object()
        .unwrap();
    for key in all["outcome"].as_object().unwrap().keys() {
        assert!(documented.contains_key(key), "the Outcome schema lacks `{key}`");
    }
    assert!(spec["components"]["schemas"]["AskRequest"]["properties"]["allRows"].is_object());
}

#[tokio::test]
async fn a_metric_answers_csv_has_units_and_its_shares_as_percentages() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "u1", "今年各地区的销售额占比").await;
    assert_eq!(answer["kind"], "answered", "{answer}");
    let turn = answer["turnId"].as_str().unwrap();
    let csv = csv_of(&server, turn).await;
    let lines: Vec<&str> = csv.trim_start_matches('\u{feff}').trim_end().split("\r\n").collect();
    // Headed as the page shows the columns: the measure with its unit, the share in percent.
    let heads: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(heads.len(), 3, "{}", lines[0]);
    assert!(
        heads[1].ends_with("（元）") && heads[2].ends_with("（%）"),
        "{}",
        lines[0]
    );
    let shares: Vec<f64> = lines[1..]
        .iter()
        .map(|line| line.rsplit(',').next().unwrap().parse().unwrap())
        .collect();
    let sum: f64 = shares.iter().sum();
    assert!(
        shares.iter().all(|s| *s > 1.0) && (sum - 100.0).abs() < 0.1,
        "shares {shares:?}"
    );
}

#[tokio::test]
async fn an_answers_trace_decisions_come_in_chinese_too() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "u1", "张伟上个月的销售明细").await;
    let steps = answer["trace"]["steps"].as_array().unwrap();
    let said: Vec<(&str, &str)> = steps
        .iter()
        .map(|s| (s["step"].as_str().unwrap(), s["decision_zh"].as_str().unwrap_or("")))
        .collect();
    for step in ["route", "check", "fill", "extract", "coverage", "execute"] {
        let zh = said.iter().find(|(name, _)| *name == step).map(|(_, zh)| *zh);
        assert!(
            zh.is_some_and(|zh| !zh.is_empty()),
            "step {step} has no Chinese decision: {said:?}"
        );
    }
    assert!(said.contains(&("route", "工具 sales_query")), "{said:?}");
    assert!(said.contains(&("check", "各项均通过检查")), "{said:?}");
    assert!(said.contains(&("extract", "完成")), "{said:?}");
    assert!(said.contains(&("execute", "10 行")), "{said:?}");
    // A subject found by its name says so in Chinese too.
    let answer = ask(&server, "u1", "流浪地球2最近7天的票房").await;
    let steps = answer["trace"]["steps"].as_array().unwrap();
    let resolve = steps.iter().find(|s| s["step"] == "resolve").expect("a resolve step");
    let zh = resolve["decision_zh"].as_str().unwrap_or("");
    assert!(zh.contains("匹配") && zh.contains("流浪地球"), "{resolve}");
}

#[tokio::test]
async fn a_tool_that_cannot_run_here_says_so_in_the_users_words_before_asking_for_values() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    // With every value given, and with none: the same user stop, never a need for values it could not use.
    for question in ["查一下订单 ord_123 发到广东深圳的已发货记录", "帮我查一下订单"] {
        let answer = ask(&server, "u1", question).await;
        assert_eq!(answer["outcome"]["kind"], "stopped", "{question}: {answer}");
        assert_eq!(answer["outcome"]["audience"], "user", "{question}: {answer}");
        let messages = answer["outcome"]["messages"].as_array().cloned().unwrap_or_default();
        let said = messages
            .iter()
            .find(|m| m["code"] == "tool.not_runnable")
            .unwrap_or_else(|| panic!("{question}: no tool.not_runnable among {answer}"));
        let zh = said["zh"].as_str().unwrap();
        assert!(zh.contains("订单查询") && zh.contains("还没有接入"), "{zh}");
        assert!(!zh.contains("executor") && !zh.contains("x-sql"), "{zh}");
        assert!(said["en"].as_str().unwrap().contains("not connected"), "{said}");
    }
    // The execute step that found no executor says it in Chinese too.
    let answer = ask(&server, "u1", "查一下订单 ord_123 发到广东深圳的已发货记录").await;
    let steps = answer["trace"]["steps"].as_array().unwrap();
    let execute = steps.iter().find(|s| s["step"] == "execute").expect("an execute step");
    assert!(
        execute["decision_zh"].as_str().unwrap().contains("还没有接入"),
        "{execute}"
    );
}

#[tokio::test]
async fn what_a_tool_cannot_do_reads_in_both_languages_in_the_trace() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "u1", "今年各地区的销售额占比").await;
    let steps = answer["trace"]["steps"].as_array().unwrap();
    let unmet: Vec<&Value> = steps
        .iter()
        .filter(|s| s["step"] == "coverage" && s["decision"].as_str().is_some_and(|d| d.contains("unmet: ")))
        .collect();
    assert!(!unmet.is_empty(), "no unmet coverage step in {steps:?}");
    for step in unmet {
        let zh = step["decision_zh"].as_str().unwrap_or("");
        assert!(zh.contains("未满足："), "{step}");
    }
}

#[tokio::test]
async fn a_stop_says_how_a_metric_tool_the_question_speaks_of_could_be_asked() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    // 卖得最好 names no measure: the ranking tool cannot rank products, and the metric tool of 产品 says what it
    // needs — the measures to choose from —; the tools of films, which the question does not speak of, say nothing.
    let answer = ask(&server, "u1", "上个月卖得最好的产品").await;
    assert_eq!(answer["outcome"]["kind"], "stopped", "{answer}");
    let messages = answer["outcome"]["messages"].as_array().cloned().unwrap_or_default();
    let another: Vec<&str> = messages
        .iter()
        .filter(|m| m["zh"].as_str().is_some_and(|zh| zh.starts_with("换个问法")))
        .filter_map(|m| m["zh"].as_str())
        .collect();
    assert_eq!(another.len(), 1, "{messages:?}");
    assert!(
        another[0].contains("销售指标分析") && another[0].contains("销售额"),
        "{another:?}"
    );
    assert!(
        messages
            .iter()
            .all(|m| m["en"].as_str().is_some_and(|en| !en.is_empty()))
    );
}

#[tokio::test]
async fn a_question_outside_every_tool_lists_only_tools_that_can_run() {
    let server = start(Options {
        settings: keyed(&["u1"], &["a1"]),
        ..Options::default()
    })
    .await;
    let answer = ask(&server, "u1", "今天天气怎么样").await;
    let messages = answer["outcome"]["messages"].as_array().cloned().unwrap_or_default();
    let outside = messages
        .iter()
        .find(|m| m["code"] == "question.outside_tools")
        .unwrap_or_else(|| panic!("no outside-tools message in {answer}"));
    let engine = server.state.engine();
    let listed: Vec<&str> = outside["params"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["tool"].as_str())
        .collect();
    assert!(!listed.is_empty(), "{outside}");
    assert!(listed.iter().all(|t| engine.can_execute(t)), "{listed:?}");
    // The demo's order tool has no executor here: neither it nor its example is offered.
    assert!(!listed.contains(&"query_order"), "{listed:?}");
    assert!(!outside["zh"].as_str().unwrap().contains("订单"), "{outside}");
}
