//! Fuzz the SQL guard with long and deep statements: chains of operators and set operations, nested brackets,
//! subqueries, CASE and prefix operators, repeated up to hundreds of thousands of times. Property: the guard never
//! crashes or overflows a stack (the caller's here is the fuzzer's), and what it accepts checks again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wenshu_sql::guard::{GuardPolicy, Dialect, check_sql};

/// Binary operators and set operations a piece may repeat.
const INFIX: &[&str] = &[
    " + ", " - ", " * ", " / ", " % ", " || ", " AND ", " OR ", " = ", " < ", "::int + ", " UNION ALL SELECT ",
    " -> ", " DIV ", " MOD ", " IS NOT ", " LIKE ",
];
/// Openers and their closers, nested as many times as a piece says.
const NESTED: &[(&str, &str)] = &[
    ("(", ")"),
    ("(SELECT ", ")"),
    ("CASE WHEN amount > 0 THEN ", " END"),
    ("NOT ", ""),
    ("- ", ""),
    ("ARRAY[", "]"),
    ("coalesce(", ", 0)"),
];

/// Builds the statement: each 4-byte piece picks a shape and how many times to repeat it.
fn statement(data: &[u8]) -> (Dialect, String) {
    let dialect = match data.first().copied().unwrap_or(0) % 3 {
        0 => Dialect::Sqlite,
        1 => Dialect::Postgres,
        _ => Dialect::MySql,
    };
    let mut opened = Vec::new();
    let mut body = String::from("amount");
    for piece in data.get(1..).unwrap_or_default().chunks(4) {
        let [kind, which, low, high] = [0, 1, 2, 3].map(|i| piece.get(i).copied().unwrap_or(0));
        let times = (usize::from(high) << 8 | usize::from(low)) * 4;
        if kind % 2 == 0 {
            let operator = INFIX[usize::from(which) % INFIX.len()];
            for _ in 0..times {
                body.push_str(operator);
                body.push_str("amount");
            }
        } else {
            let (open, close) = NESTED[usize::from(which) % NESTED.len()];
            body.push_str(" + ");
            for _ in 0..times.min(60_000) {
                body.push_str(open);
                opened.push(close);
            }
            body.push_str("amount");
        }
        if body.len() > 600_000 {
            break;
        }
    }
    for close in opened.into_iter().rev() {
        body.push_str(close);
    }
    (dialect, format!("SELECT {body} FROM sales"))
}

fuzz_target!(|data: &[u8]| {
    let (dialect, sql) = statement(data);
    let policy = GuardPolicy::new(&["sales"]);
    let verdict = check_sql(&sql, dialect, &policy);
    if let Some(rewrite) = verdict.sql {
        let again = check_sql(&rewrite, dialect, &policy);
        assert!(again.allowed, "the rewrite does not check again: {:?}", again.reasons);
    }
});
