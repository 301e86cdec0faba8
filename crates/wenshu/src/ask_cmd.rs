//! `wenshu ask`: one question, answered end to end, with every step shown.

use std::process::ExitCode;

use serde_json::{Value, json};
use wenshu_contract::Catalog;
use wenshu_contract::columns::{ColumnLabel, read_columns};
use wenshu_engine::AskRequest;
use wenshu_engine::{Answer, AskOutcome};

use crate::config::Config;
use crate::data_dir::{append_history, load_history};
use crate::engine_setup::{PipelineArgs, engine, placement};

/// Arguments of `wenshu ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// Database URL (sqlite:PATH, postgres://…, mysql://…); the demo database when absent.
    #[arg(long, value_name = "URL")]
    db: Option<String>,
    /// The day the question is asked (YYYY-MM-DD); default: today in the time zone.
    #[arg(long)]
    today: Option<String>,
    /// Keep the history of this conversation (in the data folder) and use its last three rounds.
    #[arg(long)]
    conversation: Option<String>,
    /// The subject the user chose from candidates: resolution is skipped.
    #[arg(long)]
    subject_id: Option<String>,
    /// Print the outcome and the trace as JSON.
    #[arg(long)]
    json: bool,
    /// The question, in the user's own words.
    question: String,
}

/// Runs `wenshu ask`: exit 0 when answered, asked to choose or to add something; 1 when stopped.
pub fn run(args: AskArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(ask(args))
}

async fn ask(mut args: AskArgs) -> anyhow::Result<ExitCode> {
    let config = Config::load(&args.pipeline.model)?;
    args.pipeline.take_config_files(&config);
    let place = placement(&config, args.today.as_deref(), args.db.as_deref()).await?;
    let today = place.today;
    let parts = args.pipeline.parts(&place.database_url).await?;
    let catalog = parts.catalog.clone();
    let engine = engine(parts, &place.database_url).await?;
    let history = match &args.conversation {
        Some(id) => load_history(id)?,
        None => Vec::new(),
    };
    let request = AskRequest {
        question: args.question.clone(),
        history,
        today,
        subject_id: args.subject_id.clone(),
        step_sink: None,
        viewer: wenshu_engine::Viewer::operator(),
    };
    let answer = engine.ask(&request).await;
    if let Some(id) = &args.conversation {
        append_history(id, answer.turn(&args.question))?;
    }
    let headers = headers_of(&catalog, &answer);
    if args.json {
        let mut out = json_of(&answer);
        if let Some(headers) = &headers {
            out["headers"] = json!(headers);
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", human(&args.question, &answer, headers.as_deref()));
    }
    Ok(match answer.outcome {
        AskOutcome::Stopped { .. } => ExitCode::from(1),
        AskOutcome::Rejected { .. } => ExitCode::from(2),
        _ => ExitCode::SUCCESS,
    })
}

/// The machine form: the outcome's kind, its tool and parameters, the outcome itself, and the trace.
pub fn json_of(answer: &Answer) -> Value {
    let (tool, params) = match &answer.outcome {
        AskOutcome::Answered { tool, params, .. } => (Some(tool.clone()), Some(params.clone())),
        AskOutcome::Choose { tool, .. } | AskOutcome::Need { tool, .. } | AskOutcome::Rejected { tool, .. } => {
            (Some(tool.clone()), None)
        }
        AskOutcome::Stopped { .. } => (None, None),
    };
    json!({
        "kind": answer.outcome.kind(),
        "tool": tool,
        "params": params,
        "rewritten_question": answer.rewritten_question,
        "outcome": answer.outcome,
        "trace": answer.trace,
    })
}

/// The headers an answer's columns are shown under: each column's `x-columns` label of the answering tool, with
/// its unit (`评分（分）`), else the column's name; `None` when nothing was answered.
fn headers_of(catalog: &Catalog, answer: &Answer) -> Option<Vec<String>> {
    let AskOutcome::Answered { tool, columns, .. } = &answer.outcome else {
        return None;
    };
    let declared = catalog
        .get(tool)
        .and_then(|t| read_columns(t.definition().get("x-columns")).ok())
        .unwrap_or_default();
    Some(
        columns
            .iter()
            .map(|c| match declared.get(c) {
                Some(ColumnLabel {
                    label,
                    unit: Some(unit),
                }) => format!("{label}（{unit}）"),
                Some(ColumnLabel { label, unit: None }) => label.clone(),
                None => c.clone(),
            })
            .collect(),
    )
}

fn human(question: &str, answer: &Answer, headers: Option<&[String]>) -> String {
    let mut out = format!("问题：{question}\n");
    if answer.rewritten_question != question {
        out.push_str(&format!("改写为：{}\n", answer.rewritten_question));
    }
    if let AskOutcome::Answered { understood, .. } = &answer.outcome {
        out.push_str(&format!("理解为：{}\n", understood.zh));
    }
    match &answer.outcome {
        AskOutcome::Answered {
            tool,
            summary,
            columns,
            rows,
            truncated,
            fell_back,
            sql,
            ..
        } => {
            out.push_str(&format!("工具：{tool}\n"));
            if let Some(reason) = fell_back {
                out.push_str(&format!("兜底：是（{reason}）\n"));
            }
            if let Some(sql) = sql {
                out.push_str(&format!("SQL：{sql}\n"));
            }
            out.push_str(&format!("回答：{summary}\n"));
            out.push_str(&table(headers.unwrap_or(columns), rows, *truncated));
        }
        AskOutcome::Choose { name, candidates, .. } => {
            out.push_str(&format!("「{name}」有多个候选，请用 --subject-id 选一个再问：\n"));
            for c in candidates {
                let extra: Vec<String> = c
                    .entity
                    .attributes
                    .iter()
                    .map(|(k, v)| format!("{k}={}", plain(v)))
                    .collect();
                out.push_str(&format!(
                    "  {}  {}  {}\n",
                    plain(&c.entity.id),
                    c.entity.name,
                    extra.join(" ")
                ));
            }
        }
        AskOutcome::Need { message, .. } => out.push_str(&format!("{}（{}）\n", message.zh, message.code)),
        AskOutcome::Rejected { error, .. } => out.push_str(&format!("请求有误：{error}\n")),
        AskOutcome::Stopped {
            step,
            code,
            messages,
            hints,
            audience,
            ..
        } => {
            out.push_str(&format!(
                "停在：{step}（面向{}，{code}）\n",
                if matches!(audience, wenshu_engine::Audience::Admin) {
                    "管理员"
                } else {
                    "用户"
                }
            ));
            for message in messages {
                out.push_str(&format!("  - {}\n", message.zh));
            }
            for hint in hints {
                out.push_str(&format!("  * {}\n", hint.zh));
            }
        }
    }
    out.push_str(&format!("步骤（{} 引擎）：\n", answer.trace.engine));
    for step in &answer.trace.steps {
        out.push_str(&format!(
            "  {:<9} {:>8.1} ms  {}\n",
            step.step, step.duration_ms, step.decision
        ));
    }
    out
}

fn table(columns: &[String], rows: &[Vec<Value>], truncated: bool) -> String {
    const SHOWN: usize = 20;
    let mut out = format!("  {}\n", columns.join(" | "));
    for row in rows.iter().take(SHOWN) {
        out.push_str(&format!(
            "  {}\n",
            row.iter().map(plain).collect::<Vec<_>>().join(" | ")
        ));
    }
    if rows.len() > SHOWN || truncated {
        out.push_str(&format!(
            "  …（共 {} 行{}）\n",
            rows.len(),
            if truncated { "，已截断" } else { "" }
        ));
    }
    out
}

fn plain(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}
