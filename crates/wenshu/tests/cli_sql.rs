//! `wenshu sql check`: the SQL after `--`, as a last argument that starts with a comment, or on standard input;
//! `--json` shows what each name resolved to and why a statement is refused.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn check(args: &[&str], stdin: Option<&str>) -> Output {
    check_in("postgres", args, stdin)
}

/// `wenshu sql check` in `dialect` over sales and movies, `stdin` written to it (the command stops reading past its
/// bound: a write it no longer reads may fail, and does not matter).
fn check_in(dialect: &str, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .args(["sql", "check", "--dialect", dialect, "--tables", "sales,movies"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wenshu runs");
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin.unwrap_or_default().as_bytes());
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn sql_that_starts_with_a_comment_is_sql_not_a_flag() {
    let out = check(&["-- note\nSELECT name FROM movies"], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out).trim(), "SELECT name FROM movies LIMIT 1000");
    let out = check(&["--", "-- note\nSELECT name FROM movies LIMIT 3"], None);
    assert_eq!(stdout(&out).trim(), "SELECT name FROM movies LIMIT 3");
    let out = check(&["--", "SELECT", "name", "FROM", "movies"], None);
    assert_eq!(stdout(&out).trim(), "SELECT name FROM movies LIMIT 1000");
}

#[test]
fn sql_is_read_from_standard_input_with_a_dash() {
    let out = check(&["-"], Some("-- the titles\nSELECT name\nFROM movies\n"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out).trim(), "SELECT name FROM movies LIMIT 1000");
    let out = check(&["-"], Some("  \n"));
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("refused"), "{}", stdout(&out));
}

#[test]
fn json_shows_each_resolution_and_why_it_is_refused() {
    let sql = "WITH users AS (SELECT * FROM users) SELECT upper(name) FROM users";
    let out = check(&["--json", "--", sql], None);
    assert_eq!(out.status.code(), Some(1));
    let verdict: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let resolved = verdict["resolved"].as_array().unwrap();
    let inner = resolved
        .iter()
        .find(|r| r["kind"] == "table" && r["name"] == "users")
        .unwrap();
    assert_eq!(inner["allowed"], false);
    assert!(inner["why"].as_str().unwrap().contains("allow list"), "{inner}");
    let outer = resolved.iter().find(|r| r["kind"] == "cte").unwrap();
    assert_eq!(
        (outer["name"].as_str(), outer["allowed"].as_bool()),
        (Some("users"), Some(true))
    );
    let function = resolved.iter().find(|r| r["kind"] == "function").unwrap();
    assert_eq!(
        (function["name"].as_str(), function["allowed"].as_bool()),
        (Some("upper"), Some(true))
    );
    assert!(verdict["reasons"][0].as_str().unwrap().contains("users"));
}

/// A statement of `terms` terms joined by `operator`, in a SELECT (or a chain of query blocks for set operators).
fn chain(operator: &str, terms: usize) -> String {
    if operator.starts_with("UNION") {
        return vec!["SELECT 1"; terms].join(&format!(" {operator} "));
    }
    format!("SELECT {} FROM sales", vec!["1"; terms].join(&format!(" {operator} ")))
}

#[test]
fn long_and_deep_statements_are_refused_never_a_crash() {
    for dialect in ["sqlite", "postgres", "mysql"] {
        for (operator, terms) in [
            ("+", 60_000),
            ("OR", 40_000),
            ("||", 60_000),
            ("UNION ALL", 20_000),
            ("*", 3_000),
        ] {
            let sql = chain(operator, terms);
            let out = check_in(dialect, &["-"], Some(&sql));
            let said = stdout(&out);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{dialect} {operator}×{terms}: {said} {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                said.starts_with("refused:") && (said.contains("at most") || said.contains("recursion limit")),
                "{dialect} {operator}×{terms}: {said}"
            );
        }
    }
}
