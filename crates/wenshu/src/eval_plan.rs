//! Plan cases of `wenshu eval` (`cases.jsonl`): the pipeline up to the plan — route, check, resolve, extract, bind
//! — compared with the expected status, tool and parameters.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use wenshu_engine::Plan;
use wenshu_engine::Turn;
use wenshu_engine::{AskRequest, Planner};

use crate::engine_setup::PipelineArgs;
use crate::eval_cmd::Verdict;

/// Runs plan cases, building the planner on the first one.
pub struct PlanRunner {
    args: PipelineArgs,
    planner: Option<Result<Planner, String>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl PlanRunner {
    /// A runner over the catalog, entities and engine `args` name.
    pub fn new(args: PipelineArgs) -> Self {
        Self {
            args,
            planner: None,
            runtime: None,
        }
    }

    /// Plans one case and compares the plan with `expect`.
    pub fn run(&mut self, case: &Value) -> Verdict {
        let question = case["question"].as_str().unwrap_or_default().to_string();
        let planner = match self
            .planner
            .get_or_insert_with(|| self.args.planner().map(|p| p.planner).map_err(|e| format!("{e:#}")))
        {
            Ok(planner) => planner.clone(),
            Err(e) => return Verdict::Fail(question, "a planner".into(), e.clone()),
        };
        let Some(today) = case["today"].as_str().and_then(|t| t.parse().ok()) else {
            return Verdict::Fail(question, "a `today` date".into(), case["today"].to_string());
        };
        let history: Vec<Turn> =
            serde_json::from_value(case.get("history").cloned().unwrap_or(json!([]))).unwrap_or_default();
        let request = AskRequest {
            question: question.clone(),
            history,
            today,
            subject_id: None,
            step_sink: None,
            viewer: wenshu_engine::Viewer::operator(),
        };
        let runtime = match &self.runtime {
            Some(runtime) => runtime,
            None => match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(runtime) => self.runtime.insert(runtime),
                Err(e) => return Verdict::Fail(question, "a runtime".into(), e.to_string()),
            },
        };
        let planned = runtime.block_on(planner.plan(&request));
        let fallback = planner.fallback_tool().map(|t| t.name().to_string());
        let got = plan_as_expect(&planned.plan, fallback.as_deref());
        let expected = &case["expect"];
        if matches_expect(&got, expected) {
            Verdict::Pass
        } else {
            Verdict::Fail(question, expected.to_string(), got.to_string())
        }
    }
}

/// A plan in the shape of a case's `expect`.
fn plan_as_expect(plan: &Plan, fallback: Option<&str>) -> Value {
    match plan {
        Plan::Ok { tool, params } => json!({"tool": tool, "status": "ok", "params": params}),
        Plan::Ambiguous { tool, candidates, .. } => {
            let ids: Vec<Value> = candidates.iter().map(|c| c.entity.id.clone()).collect();
            json!({"tool": tool, "status": "ambiguous", "candidates": ids})
        }
        Plan::NotFound { tool, .. } => json!({"tool": tool, "status": "not_found"}),
        Plan::Missing { tool, params } => json!({"tool": tool, "status": "missing", "params": params}),
        Plan::Unsupported { tool, param, .. } => json!({"tool": tool, "status": "unsupported", "param": param}),
        Plan::Fallback { tool, reason, .. } => {
            json!({"tool": tool.as_deref().or(fallback), "status": "fallback", "reason": reason})
        }
        Plan::Rejected { tool, error } => json!({"tool": tool, "status": "rejected", "reason": error.to_string()}),
        Plan::Stopped { step, message, .. } => {
            json!({"status": "stopped", "step": step, "reason": message.en, "code": message.code})
        }
    }
}

/// Whether a plan (in `expect` shape) meets the expectation; candidate IDs and missing names compare as sets.
fn matches_expect(got: &Value, expected: &Value) -> bool {
    if got["status"] != expected["status"] || got["tool"] != expected["tool"] {
        return false;
    }
    let as_set = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .map(|a| a.iter().map(Value::to_string).collect())
            .unwrap_or_default()
    };
    match expected["status"].as_str() {
        Some("ok") => got["params"] == expected["params"],
        Some("ambiguous") => as_set(&got["candidates"]) == as_set(&expected["candidates"]),
        Some("missing") => as_set(&got["params"]) == as_set(&expected["params"]),
        Some("unsupported") => got["param"] == expected["param"],
        _ => true,
    }
}
