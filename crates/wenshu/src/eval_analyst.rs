//! Analyst cases of `wenshu eval` (`analyst.jsonl`, see `eval/analyst.md`): the demo database of the case's day,
//! the truth computed by its SQL on that database, the question answered end to end, and the answer classified as
//! right, honest (not answered) or wrong (answered without the truth).

use std::collections::HashMap;

use jiff::civil::Date;
use serde_json::Value;
use wenshu_engine::AskRequest;
use wenshu_engine::{AskOutcome, Engine};
use wenshu_sql::db::{Database, QueryLimits};

use crate::data_dir::demo_database;
use crate::engine_setup::{PipelineArgs, engine};
use crate::eval_cmd::Verdict;

/// How an analyst case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Answered, and the answer holds the truth.
    Right,
    /// Not answered, with a reason.
    Honest,
    /// Answered without the truth: a silent wrong answer.
    Wrong,
}

/// Runs analyst cases, one engine per day.
pub struct AnalystRunner {
    args: PipelineArgs,
    engines: HashMap<Date, (Engine, String)>,
    runtime: Option<tokio::runtime::Runtime>,
    /// Right, honest and wrong so far.
    pub counts: [usize; 3],
}

/// Whether a case is an analyst case: a question with its truth as SQL, or one that must not be answered
/// (`check: "refuse"`, a restriction the data cannot apply).
pub fn is_analyst(case: &Value) -> bool {
    case.get("question").is_some()
        && (case.get("truth_sql").is_some() || case.get("check").and_then(Value::as_str) == Some(REFUSE))
}

/// The check of a case that must not be answered: any answered outcome is wrong.
const REFUSE: &str = "refuse";

impl AnalystRunner {
    /// A runner over the catalog, entities and engine `args` name.
    pub fn new(args: PipelineArgs) -> Self {
        Self {
            args,
            engines: HashMap::new(),
            runtime: None,
            counts: [0; 3],
        }
    }

    /// Whether any case ran.
    pub fn ran(&self) -> bool {
        self.counts.iter().sum::<usize>() > 0
    }

    /// Runs one case: right and honest pass, wrong fails.
    pub fn run(&mut self, case: &Value) -> Verdict {
        let question = case["question"].as_str().unwrap_or_default().to_string();
        let id = case["id"].as_str().unwrap_or_default().to_string();
        let label = format!("{id} {question}");
        let Some(today) = case["today"].as_str().and_then(|t| t.parse::<Date>().ok()) else {
            return Verdict::Fail(label, "a `today` date".into(), case["today"].to_string());
        };
        let check = case["check"].as_str().unwrap_or_default().to_string();
        let sql = case["truth_sql"].as_str().unwrap_or_default().to_string();
        if check.is_empty() || (sql.is_empty() && check != REFUSE) {
            return Verdict::Fail(label, "truth_sql and check".into(), "missing".into());
        }
        if self.runtime.is_none() {
            match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(runtime) => self.runtime = Some(runtime),
                Err(e) => return Verdict::Fail(label, "a runtime".into(), e.to_string()),
            }
        }
        let Some(runtime) = self.runtime.as_ref() else {
            return Verdict::Fail(label, "a runtime".into(), "none".into());
        };
        let history: Vec<String> = case["history"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|earlier| earlier.as_str().map(str::to_string))
            .collect();
        let asked = Asked {
            today,
            history: &history,
            question: &question,
        };
        let result = runtime.block_on(ask_case(&self.args, &mut self.engines, &asked, &sql, &check));
        match result {
            Ok((Class::Right, _)) => {
                self.counts[0] += 1;
                Verdict::Pass
            }
            Ok((Class::Honest, _)) => {
                self.counts[1] += 1;
                Verdict::Pass
            }
            Ok((Class::Wrong, got)) => {
                self.counts[2] += 1;
                Verdict::Fail(label, format!("the truth ({check})"), got)
            }
            Err(e) => Verdict::Fail(label, "a run".into(), format!("{e:#}")),
        }
    }
}

/// One question of a case: the day, the earlier questions asked first in the same conversation, the question.
struct Asked<'a> {
    today: Date,
    history: &'a [String],
    question: &'a str,
}

/// Asks one case — its earlier questions first, each answer a round of the history — and classifies the answer;
/// the text says what was answered when wrong.
async fn ask_case(
    args: &PipelineArgs,
    engines: &mut HashMap<Date, (Engine, String)>,
    asked: &Asked<'_>,
    truth_sql: &str,
    check: &str,
) -> anyhow::Result<(Class, String)> {
    let (today, question) = (asked.today, asked.question);
    let (engine, url) = match engines.entry(today) {
        std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
        std::collections::hash_map::Entry::Vacant(entry) => {
            let url = demo_database(today).await?;
            let parts = args.parts(&url).await?;
            let built = engine(parts, &url).await?;
            entry.insert((built, url))
        }
    };
    let mut history = Vec::new();
    for earlier in asked.history {
        let mut request = AskRequest::new(earlier.as_str(), today);
        request.history = history.clone();
        let answer = engine.ask(&request).await;
        history.push(answer.turn(earlier));
    }
    let mut request = AskRequest::new(question, today);
    request.history = history;
    let answer = engine.ask(&request).await;
    let AskOutcome::Answered { rows, understood, .. } = &answer.outcome else {
        return Ok((Class::Honest, answer.outcome.kind().to_string()));
    };
    let shown: Vec<&Vec<Value>> = rows.iter().take(5).collect();
    let got = format!(
        "{} → {}",
        understood.zh,
        serde_json::to_string(&shown).unwrap_or_default()
    );
    if check == REFUSE {
        return Ok((Class::Wrong, got));
    }
    let db = Database::connect_read_only(url).await?;
    let truth = db.query(truth_sql, &[], QueryLimits::default()).await?;
    db.close().await;
    let holds = match check {
        "first" => first_holds(&truth.rows, rows),
        "ordered" => ordered_holds(&truth.rows, rows),
        _ => all_hold(&truth.rows, rows),
    };
    Ok((if holds { Class::Right } else { Class::Wrong }, got))
}

/// `all`: every value of the truth appears in some row of the answer.
pub fn all_hold(truth: &[Vec<Value>], rows: &[Vec<Value>]) -> bool {
    truth
        .iter()
        .flatten()
        .filter(|v| !v.is_null())
        .all(|v| rows.iter().any(|row| row.iter().any(|cell| cell_matches(cell, v))))
}

/// `first`: the truth's single value appears in the answer's first row.
pub fn first_holds(truth: &[Vec<Value>], rows: &[Vec<Value>]) -> bool {
    let (Some(value), Some(first)) = (truth.first().and_then(|r| r.first()), rows.first()) else {
        return false;
    };
    first.iter().any(|cell| cell_matches(cell, value))
}

/// `ordered`: the truth's values appear in the answer's rows in this order.
pub fn ordered_holds(truth: &[Vec<Value>], rows: &[Vec<Value>]) -> bool {
    let mut from = 0;
    for value in truth.iter().filter_map(|r| r.first()) {
        match rows
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, row)| row.iter().any(|cell| cell_matches(cell, value)))
        {
            Some((i, _)) => from = i + 1,
            None => return false,
        }
    }
    !truth.is_empty()
}

/// A cell shows a truth value: text as text (contained), numbers within 0.5% or equal at the cell's precision,
/// a fraction as a percentage.
pub fn cell_matches(cell: &Value, truth: &Value) -> bool {
    match truth {
        Value::String(t) => {
            let text = cell.as_str().map_or_else(|| cell.to_string(), str::to_string);
            !t.is_empty() && text.contains(t.as_str())
        }
        Value::Number(n) => {
            let Some(want) = n.as_f64() else { return false };
            let shown = match cell {
                Value::Number(c) => c.as_f64().map(|c| (c, decimals(&c.to_string()), false)),
                Value::String(s) => {
                    let s = s.trim().replace(',', "");
                    let (body, percent) = match s.strip_suffix('%') {
                        Some(body) => (body.to_string(), true),
                        None => (s.clone(), false),
                    };
                    body.parse::<f64>().ok().map(|c| (c, decimals(&body), percent))
                }
                _ => None,
            };
            let Some((got, places, percent)) = shown else {
                return false;
            };
            let candidates = if percent {
                vec![want * 100.0]
            } else {
                vec![want, want * 100.0]
            };
            candidates.iter().enumerate().any(|(i, w)| {
                let as_percent = i == 1 && !percent;
                if as_percent && want.abs() > 1.0 {
                    return false;
                }
                let close = (got - w).abs() <= w.abs() * 0.005 + f64::EPSILON;
                let scale = 10f64.powi(places);
                close || (w * scale).round() / scale == got
            })
        }
        Value::Bool(b) => cell.as_bool() == Some(*b),
        _ => false,
    }
}

/// The decimal places a number is written with.
fn decimals(text: &str) -> i32 {
    text.split_once('.').map_or(0, |(_, f)| f.len() as i32)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rows(v: Value) -> Vec<Vec<Value>> {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn cells_match_text_numbers_and_percentages() {
        assert!(cell_matches(&json!("2026-11-03"), &json!("2026-11-03")));
        assert!(cell_matches(&json!(15650306), &json!(15650305.83)));
        assert!(cell_matches(&json!("15,650,306"), &json!(15650305.83)));
        assert!(cell_matches(&json!("36.68%"), &json!(0.3668)));
        assert!(!cell_matches(&json!(100), &json!(120)));
        assert!(!cell_matches(&json!("华南"), &json!("华东")));
    }

    #[test]
    fn checks_all_first_and_ordered() {
        let answer = rows(json!([["赵敏", 300], ["李娜", 200], ["刘洋", 100]]));
        assert!(all_hold(&rows(json!([["李娜", 200], ["赵敏", 300]])), &answer));
        assert!(!all_hold(&rows(json!([["王芳", 50]])), &answer));
        assert!(first_holds(&rows(json!([["赵敏"]])), &answer));
        assert!(!first_holds(&rows(json!([["李娜"]])), &answer));
        assert!(ordered_holds(&rows(json!([["赵敏"], ["刘洋"]])), &answer));
        assert!(!ordered_holds(&rows(json!([["刘洋"], ["赵敏"]])), &answer));
    }
}
