//! The audit entry of one question: who asked (the [`Principal`]'s id, name and role — never a key), through which
//! door, the tool and its bound call, the SQL that ran or was tried with its binds (from the execute step's
//! `detail` and the fallback's run), the row count and how it ended. `/api/ask` writes it with the turn, in the
//! turn's transaction; [`mcp_recorder`] hands the MCP server a recorder that writes it alone for `/mcp`'s `ask`,
//! which keeps no turn.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::Extensions;
use serde_json::{Value, json};
use wenshu_engine::answer::{Answer, AskOutcome};
use wenshu_engine::pipeline::AskRequest;
use wenshu_engine::trace::Trace;
use wenshu_store::{AuditPrincipal, NewAudit, Store};

use crate::principal::Principal;

/// The door of `/api/ask` (and the page).
pub const DOOR_API: &str = "api";

/// The door of MCP's `ask`.
pub const DOOR_MCP: &str = "mcp";

/// The role recorded for the local operator (MCP on stdio: no HTTP request, no principal).
pub const OPERATOR: &str = "operator";

/// How a principal is named in the audit log: its id (a key fingerprint, a token's subject), name and role.
pub fn principal_of(principal: &Principal) -> AuditPrincipal {
    AuditPrincipal {
        id: principal.owner().map(str::to_string),
        name: principal.name.clone(),
        role: principal.role.as_str().to_string(),
    }
}

/// The entry of `answer` to `question`, asked by `principal` through `door`.
pub fn entry(principal: AuditPrincipal, door: &str, question: &str, answer: &Answer) -> NewAudit {
    let (tool, params, rows, step) = call_of(answer);
    NewAudit {
        principal,
        door: door.to_string(),
        conversation_id: None,
        question: question.to_string(),
        tool,
        params,
        sql: statements(&answer.trace),
        rows,
        outcome: answer.outcome.kind().to_string(),
        step,
    }
}

/// The tool, the bound call's parameters, the row count and the step an answer ended at. A stop after a tool ran
/// and failed names that tool and its call, from the execute step.
fn call_of(answer: &Answer) -> (Option<String>, Value, Option<u64>, Option<String>) {
    match &answer.outcome {
        AskOutcome::Answered {
            tool,
            params,
            rows,
            fell_back,
            ..
        } => {
            let step = if fell_back.is_some() { "fallback" } else { "execute" };
            let count = u64::try_from(rows.len()).unwrap_or(u64::MAX);
            (
                Some(tool.clone()),
                Value::Object(params.clone()),
                Some(count),
                Some(step.to_string()),
            )
        }
        AskOutcome::Choose { tool, .. } | AskOutcome::Need { tool, .. } | AskOutcome::Rejected { tool, .. } => {
            (Some(tool.clone()), Value::Null, None, None)
        }
        AskOutcome::Stopped { step, .. } => {
            let executed = answer.trace.step("execute").map(|s| &s.input);
            let tool = executed.and_then(|input| input.get("tool")).and_then(Value::as_str);
            let params = executed.and_then(|input| input.get("params")).cloned();
            (
                tool.map(str::to_string),
                params.unwrap_or(Value::Null),
                None,
                Some(step.clone()),
            )
        }
    }
}

/// The SQL of a trace, each `{"sql", "binds"}`: what the execute step sent (an SQL template's statement and binds,
/// a metric tool's statements), then the fallback's — the statement that ran, or each attempt that did not run with
/// why.
pub fn statements(trace: &Trace) -> Vec<Value> {
    let mut sql = Vec::new();
    if let Some(detail) = trace.step("execute").and_then(|s| s.output.get("detail")) {
        match detail.get("kind").and_then(Value::as_str) {
            Some("sql") => sql.push(json!({
                "sql": detail.get("sql").cloned().unwrap_or(Value::Null),
                "binds": detail.get("binds").cloned().unwrap_or_else(|| json!([])),
            })),
            Some("metric") => {
                let sent = detail.get("statements").and_then(Value::as_array);
                for statement in sent.into_iter().flatten() {
                    sql.push(json!({
                        "sql": statement.get("sql").cloned().unwrap_or(Value::Null),
                        "binds": statement.get("binds").cloned().unwrap_or_else(|| json!([])),
                        "period": statement.get("period").cloned().unwrap_or(Value::Null),
                    }));
                }
            }
            _ => {}
        }
    }
    if let Some(run) = trace.step("fallback").map(|s| &s.output) {
        match run.get("final_sql").and_then(Value::as_str) {
            Some(ran) => sql.push(json!({"sql": ran, "binds": []})),
            None => {
                let attempts = run.get("attempts").and_then(Value::as_array);
                for attempt in attempts.into_iter().flatten() {
                    if let Some(written) = attempt.get("sql").and_then(Value::as_str) {
                        let error = attempt.get("error").cloned().unwrap_or(Value::Null);
                        sql.push(json!({"sql": written, "binds": [], "ran": false, "error": error}));
                    }
                }
            }
        }
    }
    sql
}

/// What the MCP server calls after each `ask`: the request's extensions (`None` on stdio), the request and the
/// answer; an error when the entry could not be written (the answer is then not given).
pub type McpRecord = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

/// A recorder for the MCP server's `ask` that writes each entry alone in `store`: the principal the auth layer
/// put in the request's extensions; `anonymous` for an HTTP request without one; the local operator on stdio.
pub fn mcp_recorder(
    store: Arc<dyn Store>,
) -> impl Fn(Option<&Extensions>, &AskRequest, &Answer) -> McpRecord + Send + Sync + 'static {
    move |extensions, request, answer| {
        let principal = match extensions {
            None => AuditPrincipal {
                id: None,
                name: None,
                role: OPERATOR.to_string(),
            },
            Some(extensions) => extensions
                .get::<Principal>()
                .map_or_else(|| principal_of(&Principal::anonymous(None)), principal_of),
        };
        let entry = entry(principal, DOOR_MCP, &request.question, answer);
        let store = Arc::clone(&store);
        Box::pin(async move {
            store
                .record_audit(entry)
                .await
                .map(|_| ())
                .map_err(|error| format!("the audit entry could not be written: {error}"))
        })
    }
}
