//! `wenshu eval` on the analyst questions (no silent wrong answer: right or honest for every one) and on the
//! logistics domain's plan cases, with the lexicon engine.

use std::path::PathBuf;
use std::process::Command;

/// The least share of the logistics plan cases the lexicon engine must pass (the goal, 95%).
const LOGISTICS_FLOOR_PERCENT: usize = 95;

fn eval_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval"))
}

/// Runs `wenshu eval --engine lexicon ARGS` with no model and a data folder of its own; returns stdout.
fn eval(args: &[&str], data: &str) -> String {
    let dir = std::env::temp_dir().join(format!("wenshu-eval-{data}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wenshu"))
        .arg("eval")
        .args(["--engine", "lexicon"])
        .args(args)
        .env("WENSHU_DATA_DIR", &dir)
        .env_remove("WENSHU_CONFIG")
        .env_remove("WENSHU_LLM_BASE_URL")
        .env_remove("WENSHU_LLM_MODEL")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The numbers of a line `A word, B word, …` that starts with `prefix`.
fn counts(text: &str, prefix: &str) -> Vec<usize> {
    let line = text
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in:\n{text}"));
    line.split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect()
}

#[test]
fn no_analyst_question_gets_a_silent_wrong_answer() {
    for name in ["analyst.jsonl", "analyst_more.jsonl", "conversations.jsonl"] {
        let file = eval_dir().join(name);
        let cases =
            cases_with_check(&file, "all") + cases_with_check(&file, "first") + cases_with_check(&file, "ordered");
        let text = eval(&[file.to_str().unwrap()], "analyst");
        let [right, honest, wrong] = counts(&text, "analyst:")[..] else {
            panic!("{text}");
        };
        assert_eq!(wrong, 0, "{name}: {text}");
        assert_eq!(right + honest, cases, "{name}: {text}");
        assert!(
            right * 10 >= cases * 9,
            "{name}: fewer than nine in ten answered right: {text}"
        );
        let passed = format!("{cases} passed, 0 failed");
        assert!(text.lines().any(|l| l.trim() == passed), "{name}: {text}");
    }
}

#[test]
fn the_logistics_plan_cases_pass_with_the_lexicon_engine() {
    let dir = eval_dir().join("domain_logistics");
    let (catalog, entities, cases) = (
        dir.join("catalog.json"),
        dir.join("entities.json"),
        dir.join("cases.jsonl"),
    );
    let text = eval(
        &[
            "--catalog",
            catalog.to_str().unwrap(),
            "--entities",
            entities.to_str().unwrap(),
            cases.to_str().unwrap(),
        ],
        "logistics",
    );
    let last = text
        .lines()
        .rev()
        .find(|l| l.contains(" passed, ") && l.trim_end().ends_with(" failed"))
        .unwrap_or_default()
        .to_string();
    let [passed, failed] = counts(&last, "")[..] else {
        panic!("{text}");
    };
    assert_eq!(passed + failed, 70, "{text}");
    assert!(
        passed * 100 >= LOGISTICS_FLOOR_PERCENT * (passed + failed),
        "{passed} of {} passed:\n{text}",
        passed + failed
    );
}

/// Counts the lines of a jsonl file whose `check` is `check`.
fn cases_with_check(file: &std::path::Path, check: &str) -> usize {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| l.contains(&format!("\"check\": \"{check}\"")))
        .count()
}

#[test]
fn a_restriction_the_data_cannot_apply_is_never_answered_and_the_controls_are() {
    for name in ["unread.jsonl", "unread_more.jsonl"] {
        let file = eval_dir().join(name);
        let refusals = cases_with_check(&file, "refuse");
        let controls = cases_with_check(&file, "all") + cases_with_check(&file, "first");
        assert!(refusals > 0 && controls > 0, "{name}");
        let text = eval(&[file.to_str().unwrap()], "unread");
        let [right, honest, wrong] = counts(&text, "analyst:")[..] else {
            panic!("{text}");
        };
        // Every refusal is honest (an answer to one is wrong); every control is answered right.
        assert_eq!(wrong, 0, "{name}: {text}");
        assert_eq!(honest, refusals, "{name}: {text}");
        assert_eq!(right, controls, "{name}: {text}");
    }
}
