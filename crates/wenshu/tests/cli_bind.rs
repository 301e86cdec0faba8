//! The `wenshu` binary: tools and bind, run as a person runs them.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn wenshu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(args)
        .output()
        .expect("wenshu runs")
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

#[test]
fn tools_list_shows_every_demo_tool() {
    let out = wenshu(&["tools", "list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "sales_query",
        "movie_box_office",
        "movie_rating",
        "query_order",
        "text_to_sql",
    ] {
        assert!(text.contains(name), "{text}");
    }
    assert!(
        text.contains("http POST /orders/{orderId}") && text.contains("fallback"),
        "{text}"
    );
}

#[test]
fn tools_render_and_show_one_tool() {
    let out = wenshu(&["tools", "render", "--tool", "movie_rating", "--lang", "en"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("- movieId (type: integer, required): 影片 ID")
    );
    let out = wenshu(&["tools", "show", "--tool", "movie_box_office"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("subject: movie fills `movieId`") && text.contains("default 最近7天"),
        "{text}"
    );
    let out = wenshu(&["tools", "render", "--tool", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("unknown tool `nope`"));
}

#[test]
fn bind_prints_the_call_and_exits_0() {
    let out = wenshu(&[
        "bind",
        "--tool",
        "sales_query",
        "--params",
        r#"{"region":"华东区","limit":"5"}"#,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let call = json_of(&out);
    assert_eq!(
        call["arguments"],
        json!({"region": "华东", "period": "本月", "queryType": "summary", "limit": 5})
    );
}

#[test]
fn bind_prints_the_error_body_and_exits_1() {
    let out = wenshu(&["bind", "--tool", "sales_query", "--params", r#"{"region":"火星"}"#]);
    assert_eq!(out.status.code(), Some(1));
    let body = json_of(&out);
    assert_eq!(body["error"]["code"], "enum_out_of_range");
    assert_eq!(body["error"]["param"], "region");
    for (params, code) in [
        ("{broken", "malformed_json"),
        ("[1]", "params_not_object"),
        (r#"{"x":1}"#, "unknown_field"),
    ] {
        let out = wenshu(&["bind", "--tool", "movie_rating", "--params", params]);
        assert_eq!(
            (out.status.code(), json_of(&out)["error"]["code"].clone()),
            (Some(1), json!(code))
        );
    }
    let out = wenshu(&["bind", "--tool", "nope", "--params", "{}"]);
    assert_eq!(json_of(&out)["error"]["code"], "unknown_tool");
}

#[test]
fn bind_an_http_request_with_a_body_from_stdin_and_a_dump() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args([
            "bind",
            "--tool",
            "query_order",
            "--request",
            "POST /orders/ord_1?status=shipped",
            "--body",
            "@-",
            "--dump",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(r#"{"address":{"province":"广东","city":"深圳"}}"#.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let result = json_of(&out);
    assert_eq!(result["arguments"]["orderId"], "ord_1");
    assert_eq!(result["dump"]["query"], json!({"status": "shipped"}));
    assert_eq!(result["request"]["url"], "/orders/ord_1?status=shipped");
}

#[test]
fn bind_a_body_from_a_file_and_refuse_a_deep_one() {
    let dir = std::env::temp_dir().join(format!("wenshu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = dir.join("deep.json");
    std::fs::write(&body, format!(r#"{{"address": {}{}}}"#, "[".repeat(30), "]".repeat(30))).unwrap();
    let at = format!("@{}", body.display());
    let out = wenshu(&[
        "bind",
        "--tool",
        "query_order",
        "--request",
        "POST /orders/o",
        "--body",
        &at,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["error"]["code"], "body_too_deep");
    let out = wenshu(&[
        "bind",
        "--tool",
        "query_order",
        "--request",
        "POST /orders/o",
        "--body",
        &at,
        "--max-depth",
        "40",
    ]);
    assert_eq!(json_of(&out)["error"]["code"], "invalid_type");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_broken_catalog_file_fails_at_load_naming_tool_and_field() {
    let dir = std::env::temp_dir().join(format!("wenshu-cli-cat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("broken.json");
    std::fs::write(&path, r#"{"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}}}]}"#).unwrap();
    let out = wenshu(&["tools", "list", "--catalog", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("tool `t`") && err.contains("inputSchema.properties.n.default") && err.contains("integer"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sql_check_prints_the_guarded_sql_or_the_reason() {
    let out = wenshu(&[
        "sql",
        "check",
        "--dialect",
        "sqlite",
        "--tables",
        "sales,movies",
        "select name from movies",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "SELECT name FROM movies LIMIT 1000"
    );
    let out = wenshu(&[
        "sql",
        "check",
        "--dialect",
        "postgres",
        "--tables",
        "sales",
        "--json",
        "SELECT * INTO b FROM sales",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let verdict = json_of(&out);
    assert_eq!(verdict["allowed"], false);
    assert!(verdict["reasons"][0].as_str().unwrap().contains("INTO"));
    let out = wenshu(&["sql", "check", "--dialect", "oracle", "--tables", "sales", "SELECT 1"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn eval_runs_date_number_sql_and_plan_cases() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/");
    let files: Vec<String> = ["dates.jsonl", "numbers.jsonl", "sql.jsonl", "cases.jsonl"]
        .iter()
        .map(|f| format!("{root}{f}"))
        .collect();
    let args: Vec<&str> = std::iter::once("eval")
        .chain(files.iter().map(String::as_str))
        .collect();
    let out = wenshu(&args);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let summary = text.trim_end().lines().last().unwrap_or_default();
    let (passed, failed) = summary
        .split_once(" passed, ")
        .and_then(|(p, f)| {
            Some((
                p.parse::<usize>().ok()?,
                f.strip_suffix(" failed")?.parse::<usize>().ok()?,
            ))
        })
        .unwrap_or_else(|| panic!("no summary line: {text}"));
    assert_eq!(failed, 0, "{text}");
    assert!(passed >= 1000, "every file's cases run (about a thousand): {text}");
}
