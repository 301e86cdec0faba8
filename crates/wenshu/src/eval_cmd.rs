//! `wenshu eval`: run evaluation cases from JSONL files and report failures.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde_json::Value;
use wenshu_lexicon::numeral::parse_number;
use wenshu_lexicon::time::parse_date_range;
use wenshu_sql::guard::{Dialect, GuardPolicy, check_sql};

use crate::engine_setup::PipelineArgs;
use crate::eval_analyst::{AnalystRunner, is_analyst};
use crate::eval_plan::PlanRunner;
use crate::parse_cmd::number_json;

/// Arguments of `wenshu eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The catalog, entity catalogs and engine that plan cases run against.
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// JSONL files of cases (dates.jsonl, numbers.jsonl, sql.jsonl, cases.jsonl, ...).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The outcome of one case.
pub enum Verdict {
    /// The case passed.
    Pass,
    /// The case failed: (text, expected, got).
    Fail(String, String, String),
    /// The case is of a kind this harness does not run yet.
    Skip,
}

/// A string field of a case.
fn text_field<'a>(case: &'a Value, name: &str) -> Option<&'a str> {
    case.get(name).and_then(Value::as_str)
}

/// Runs one date case: fields today, text, start, end.
fn date_case(case: &Value) -> Option<Verdict> {
    let (today, text) = (text_field(case, "today")?, text_field(case, "text")?);
    let (start, end) = (text_field(case, "start")?, text_field(case, "end")?);
    let expected = format!("{start}..{end}");
    let got = match today.parse() {
        Ok(today) => match parse_date_range(text, today) {
            Ok(range) => range.to_string(),
            Err(e) => e.to_string(),
        },
        Err(_) => format!("bad today: {today}"),
    };
    Some(if got == expected {
        Verdict::Pass
    } else {
        Verdict::Fail(text.to_string(), expected, got)
    })
}

/// Runs one number case: fields text, value.
fn number_case(case: &Value) -> Option<Verdict> {
    let text = text_field(case, "text")?;
    let expected = case.get("value")?.as_f64()?;
    let got = parse_number(text);
    Some(match got {
        Ok(n) if n.value == expected => Verdict::Pass,
        Ok(n) => Verdict::Fail(
            text.to_string(),
            number_json(expected).to_string(),
            number_json(n.value).to_string(),
        ),
        Err(e) => Verdict::Fail(text.to_string(), number_json(expected).to_string(), e.to_string()),
    })
}

/// Runs one SQL guard case: fields dialect, tables, sql, allowed.
fn sql_case(case: &Value) -> Option<Verdict> {
    let dialect = Dialect::from_name(text_field(case, "dialect")?)?;
    let tables: Vec<&str> = case
        .get("tables")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let sql = text_field(case, "sql")?;
    let expected = case.get("allowed")?.as_bool()?;
    let verdict = check_sql(sql, dialect, &GuardPolicy::new(&tables));
    Some(if verdict.allowed == expected {
        Verdict::Pass
    } else {
        let got = if verdict.allowed {
            "allowed".to_string()
        } else {
            format!("refused ({})", verdict.reasons.join("; "))
        };
        Verdict::Fail(
            sql.to_string(),
            if expected { "allowed".into() } else { "refused".into() },
            got,
        )
    })
}

/// The runners of the cases that need the pipeline, each built on its first case.
struct Runners {
    plans: PlanRunner,
    analyst: AnalystRunner,
}

/// Decides a case's kind from its fields and runs it.
fn run_case(case: &Value, runners: &mut Runners) -> Verdict {
    if case.get("question").is_some() && case.get("expect").is_some() {
        return runners.plans.run(case);
    }
    if is_analyst(case) {
        return runners.analyst.run(case);
    }
    let is_date = ["today", "text", "start", "end"].iter().all(|f| case.get(f).is_some());
    let is_number = case.get("text").is_some() && case.get("value").is_some() && case.get("question").is_none();
    let is_sql = case.get("sql").is_some() && case.get("allowed").is_some();
    let verdict = if is_sql {
        sql_case(case)
    } else if is_date {
        date_case(case)
    } else if is_number {
        number_case(case)
    } else {
        Some(Verdict::Skip)
    };
    verdict.unwrap_or_else(|| Verdict::Fail(case.to_string(), "a well-formed case".into(), "missing fields".into()))
}

/// Counts of one run.
#[derive(Default)]
struct Tally {
    /// Cases that passed.
    passed: usize,
    /// Cases that failed.
    failed: usize,
    /// Cases of kinds not supported yet.
    skipped: usize,
}

/// Runs every case of one file, printing one line per failure.
fn run_file(path: &Path, tally: &mut Tally, runners: &mut Runners) -> anyhow::Result<()> {
    let content = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut skipped_here = 0;
    for (i, line) in content.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let where_ = format!("{}:{}", path.display(), i + 1);
        let verdict = match serde_json::from_str::<Value>(line) {
            Ok(case) => run_case(&case, runners),
            Err(e) => Verdict::Fail(line.to_string(), "a JSON case".into(), format!("invalid JSON: {e}")),
        };
        match verdict {
            Verdict::Pass => tally.passed += 1,
            Verdict::Skip => {
                tally.skipped += 1;
                skipped_here += 1;
            }
            Verdict::Fail(text, expected, got) => {
                tally.failed += 1;
                println!("FAIL {where_}: {text}: expected {expected}, got {got}");
            }
        }
    }
    if skipped_here > 0 {
        println!("{}: {skipped_here} skipped: kind not supported yet", path.display());
    }
    Ok(())
}

/// Runs every case of every file and prints `N passed, M failed` (analyst cases: right and honest pass, wrong
/// fails, with a line of right / honest / wrong before).
pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let mut tally = Tally::default();
    let mut runners = Runners {
        plans: PlanRunner::new(args.pipeline.clone()),
        analyst: AnalystRunner::new(args.pipeline),
    };
    for path in &args.files {
        run_file(path, &mut tally, &mut runners)?;
    }
    if runners.analyst.ran() {
        let [right, honest, wrong] = runners.analyst.counts;
        println!("analyst: {right} right, {honest} honest, {wrong} wrong");
    }
    let mut summary = format!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.skipped > 0 {
        summary.push_str(&format!(", {} skipped", tally.skipped));
    }
    println!("{summary}");
    Ok(if tally.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
