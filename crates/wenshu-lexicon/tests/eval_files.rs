//! Runs the project's evaluation files for dates and numbers; every case must pass.

use std::path::PathBuf;

use jiff::civil::Date;
use serde_json::Value;
use wenshu_lexicon::numeral::parse_number;
use wenshu_lexicon::time::parse_date_range;

/// The lines of an eval file as JSON values, with their line numbers.
fn cases(name: &str) -> Vec<(usize, Value)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../eval").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            (
                i + 1,
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1)),
            )
        })
        .collect()
}

/// A string field of a case.
fn field<'a>(case: &'a Value, name: &str) -> &'a str {
    case[name]
        .as_str()
        .unwrap_or_else(|| panic!("missing {name} in {case}"))
}

#[test]
fn dates_file_passes() {
    let mut failures = Vec::new();
    let all = cases("dates.jsonl");
    assert!(!all.is_empty());
    for (line, case) in &all {
        let today: Date = field(case, "today").parse().expect("today");
        let text = field(case, "text");
        let expected = format!("{}..{}", field(case, "start"), field(case, "end"));
        let got = parse_date_range(text, today)
            .map(|r| r.to_string())
            .unwrap_or_else(|e| e.to_string());
        if got != expected {
            failures.push(format!("dates.jsonl:{line}: {text}: expected {expected}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn numbers_file_passes() {
    let mut failures = Vec::new();
    for (line, case) in cases("numbers.jsonl") {
        let text = field(&case, "text");
        let expected = case["value"].as_f64().expect("value");
        match parse_number(text) {
            Ok(n) if n.value == expected => {}
            other => failures.push(format!(
                "numbers.jsonl:{line}: {text}: expected {expected}, got {other:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
