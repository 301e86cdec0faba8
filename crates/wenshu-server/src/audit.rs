//! The audit entry of one question: who asked (the [`Principal`]'s id, name and role — never a key), through which
//! door, the tool and its bound call, the SQL that ran or was tried with its binds (what the execute and fallback
//! steps ran, typed by the engine: [`wenshu_engine::Executed`]), the row count and how it ended. `/api/ask` writes it
//! with the turn, in the turn's transaction, or alone as [`cancelled_entry`] when a streamed ask's client hangs up first; [`mcp_recorder`]
//! and [`mcp_extract_recorder`] hand the MCP server recorders that write it alone for `/mcp`'s `ask` and `extract`,
//! which keep no turn.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::Extensions;
use serde_json::{Value, json};
use wenshu_engine::{Answer, AskOutcome, AskRequest, ExtractOutcome, Extraction, SentSql, Trace, TraceStep};
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

/// The outcome of a streamed ask whose client hung up before its answer was stored.
pub const CANCELLED: &str = "cancelled";

/// The entry of a streamed ask to `question` cancelled by its client: the tool, call and SQL of the `steps` the engine
/// had finished (a call that ran but whose rows were held back), `step` the last step whose event the client was
/// sent (`None`: none), and no row count — rows are sent only after an ask's entry is stored.
pub fn cancelled_entry(
    principal: AuditPrincipal,
    door: &str,
    question: &str,
    steps: Vec<TraceStep>,
    sent: Option<&str>,
) -> NewAudit {
    let trace = Trace {
        steps,
        ..Trace::default()
    };
    let (tool, params) = executed_call(&trace);
    NewAudit {
        principal,
        door: door.to_string(),
        conversation_id: None,
        question: question.to_string(),
        tool,
        params,
        sql: statements(&trace),
        rows: None,
        outcome: CANCELLED.to_string(),
        step: sent.map(str::to_string),
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
            let (tool, params) = executed_call(&answer.trace);
            (tool, params, None, Some(step.clone()))
        }
    }
}

/// The tool and parameters of the call the execute step ran, if it ran one (`Null` parameters when none).
fn executed_call(trace: &Trace) -> (Option<String>, Value) {
    let executed = trace.ran("execute");
    (
        executed.map(|e| e.tool.clone()),
        executed.map_or(Value::Null, |e| Value::Object(e.params.clone())),
    )
}

/// The SQL of a trace, each `{"sql", "binds"}`: what the execute step sent (an SQL template's statement and binds,
/// a metric tool's statements with their `period`), then the fallback's — the statement that ran, or each attempt
/// that did not run with why (`"ran": false`, `error`).
pub fn statements(trace: &Trace) -> Vec<Value> {
    ["execute", "fallback"]
        .into_iter()
        .filter_map(|step| trace.ran(step))
        .flat_map(|executed| executed.statements.iter().map(statement_entry))
        .collect()
}

/// One statement as the audit log keeps it.
fn statement_entry(sent: &SentSql) -> Value {
    let mut entry = json!({"sql": sent.sql, "binds": sent.binds});
    if let Some(period) = &sent.period {
        entry["period"] = period.clone();
    }
    if !sent.ran {
        entry["ran"] = Value::Bool(false);
        entry["error"] = sent.error.clone().map_or(Value::Null, Value::String);
    }
    entry
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
        let entry = entry(mcp_principal(extensions), DOOR_MCP, &request.question, answer);
        write_alone(&store, entry)
    }
}

/// Writes one MCP call's entry alone in `store`.
fn write_alone(store: &Arc<dyn Store>, entry: NewAudit) -> McpRecord {
    let store = Arc::clone(store);
    Box::pin(async move {
        store
            .record_audit(entry)
            .await
            .map(|_| ())
            .map_err(|error| format!("the audit entry could not be written: {error}"))
    })
}

/// The audit principal of an MCP call: the principal the auth layer put in the request's extensions; `anonymous`
/// for an HTTP request without one; the local operator on stdio (`None`).
fn mcp_principal(extensions: Option<&Extensions>) -> AuditPrincipal {
    match extensions {
        None => AuditPrincipal {
            id: None,
            name: None,
            role: OPERATOR.to_string(),
        },
        Some(extensions) => extensions
            .get::<Principal>()
            .map_or_else(|| principal_of(&Principal::anonymous(None)), principal_of),
    }
}

/// The entry of an MCP `extract` of `tool`'s parameters from `question`: door `mcp`, step `extract`, the parameters
/// it gave (an `answered` outcome), or `need` (parameters missing) or `stopped` (unsupported, failed); no SQL runs.
pub fn extract_entry(principal: AuditPrincipal, tool: &str, question: &str, extraction: &Extraction) -> NewAudit {
    let (outcome, params) = match &extraction.outcome {
        ExtractOutcome::Ok { params } => ("answered", Value::Object(params.clone())),
        ExtractOutcome::Missing { params } => ("need", json!({"missing": params})),
        ExtractOutcome::Unsupported { param, value } => ("stopped", json!({param.clone(): value})),
        ExtractOutcome::Failed { .. } => ("stopped", Value::Null),
    };
    NewAudit {
        principal,
        door: DOOR_MCP.to_string(),
        conversation_id: None,
        question: question.to_string(),
        tool: Some(tool.to_string()),
        params,
        sql: Vec::new(),
        rows: None,
        outcome: outcome.to_string(),
        step: Some("extract".to_string()),
    }
}

/// A recorder for the MCP server's `extract` that writes each entry alone in `store`, named as [`mcp_recorder`]
/// names an `ask`'s.
pub fn mcp_extract_recorder(
    store: Arc<dyn Store>,
) -> impl Fn(Option<&Extensions>, &str, &str, &Extraction) -> McpRecord + Send + Sync + 'static {
    move |extensions, tool, question, extraction| {
        let entry = extract_entry(mcp_principal(extensions), tool, question, extraction);
        write_alone(&store, entry)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::Map;
    use wenshu_engine::{Audience, Code, Executed, FallbackRun, Message, SqlAttempt};

    use super::*;

    /// A stopped answer at `step` whose trace holds `steps`, each with what it ran.
    fn stopped(step: &str, steps: Vec<(&'static str, Executed)>) -> Answer {
        let mut trace = Trace::new("lexicon", None);
        for (name, executed) in steps {
            trace.push(TraceStep::timed(name, Instant::now(), "", Value::Null, Value::Null).with_ran(executed));
        }
        let message = Message::new(Code::RouteFailed, "停", "stopped");
        Answer {
            outcome: AskOutcome::stopped(step, vec![message], Vec::new(), Audience::User),
            rewritten_question: "q".to_string(),
            trace,
            subject: None,
        }
    }

    fn sent(sql: &str, binds: Value, period: Option<&str>) -> SentSql {
        SentSql::ran(
            sql.to_string(),
            binds.as_array().cloned().unwrap_or_default(),
            period.map(|p| json!(p)),
        )
    }

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    fn who() -> AuditPrincipal {
        AuditPrincipal {
            id: Some("k-0123456789abcdef".to_string()),
            name: Some("alice".to_string()),
            role: "user".to_string(),
        }
    }

    #[test]
    fn a_metric_tools_statements_and_a_failed_calls_tool_are_kept() {
        let sql = "SELECT SUM(amount) FROM sales WHERE region = $1";
        let executed = Executed {
            tool: "sales_metrics".to_string(),
            params: params(json!({"measures": ["amount"]})),
            statements: vec![
                sent(sql, json!(["华东"]), Some("current")),
                sent(sql, json!(["华东"]), Some("previous")),
            ],
        };
        let answer = stopped("coverage", vec![("execute", executed)]);
        let entry = entry(who(), DOOR_API, "华东的销售额同比", &answer);
        assert_eq!(entry.sql.len(), 2);
        assert_eq!(entry.sql[1]["period"], "previous");
        assert_eq!(entry.sql[0]["binds"], json!(["华东"]));
        assert_eq!(entry.tool.as_deref(), Some("sales_metrics"));
        assert_eq!(entry.params, json!({"measures": ["amount"]}));
        assert_eq!(
            (entry.outcome.as_str(), entry.step.as_deref()),
            ("stopped", Some("coverage"))
        );
        assert_eq!(entry.rows, None);
        assert_eq!(entry.principal, who());
    }

    #[test]
    fn a_cancelled_asks_entry_names_the_call_its_finished_steps_ran() {
        let executed = Executed {
            tool: "box_office".to_string(),
            params: params(json!({"movie_id": 2})),
            statements: vec![sent("SELECT * FROM t WHERE id = ?", json!([2]), None)],
        };
        let answer = stopped("execute", vec![("execute", executed)]);
        let entry = cancelled_entry(who(), DOOR_API, "q", answer.trace.steps, Some("execute"));
        assert_eq!(entry.tool.as_deref(), Some("box_office"));
        assert_eq!(entry.params, json!({"movie_id": 2}));
        assert_eq!(
            entry.sql,
            [json!({"sql": "SELECT * FROM t WHERE id = ?", "binds": [2]})]
        );
        assert_eq!((entry.outcome.as_str(), entry.rows), (CANCELLED, None));
    }

    #[test]
    fn the_fallbacks_sql_is_what_ran_or_every_attempt_with_why() {
        // The fallback's own records, as the engine attaches them to its step.
        let ran = FallbackRun {
            attempts: vec![SqlAttempt {
                sql: Some("SELECT region FROM sales".to_string()),
                ..SqlAttempt::default()
            }],
            final_sql: Some("SELECT region FROM sales LIMIT 100".to_string()),
            ..FallbackRun::default()
        };
        let fallback = |run: &FallbackRun| Executed {
            tool: "sql_fallback".to_string(),
            params: Map::new(),
            statements: run.sent_sql(),
        };
        let answer = stopped("fallback", vec![("fallback", fallback(&ran))]);
        assert_eq!(
            statements(&answer.trace),
            [json!({"sql": "SELECT region FROM sales LIMIT 100", "binds": []})]
        );
        let refused = FallbackRun {
            attempts: vec![
                SqlAttempt {
                    sql: Some("SELECT * FROM users".to_string()),
                    error: Some("the guard refused table users".to_string()),
                    ..SqlAttempt::default()
                },
                SqlAttempt {
                    error: Some("no SQL in the answer".to_string()),
                    ..SqlAttempt::default()
                },
            ],
            ..FallbackRun::default()
        };
        let answer = stopped("fallback", vec![("fallback", fallback(&refused))]);
        let sql = statements(&answer.trace);
        assert_eq!(sql.len(), 1, "{sql:?}");
        assert_eq!(
            (sql[0]["sql"].as_str(), sql[0]["ran"].as_bool()),
            (Some("SELECT * FROM users"), Some(false))
        );
        assert!(sql[0]["error"].as_str().is_some_and(|e| e.contains("users")));
    }

    #[test]
    fn an_http_call_and_a_stop_before_any_tool_have_no_sql() {
        let http = Executed {
            tool: "h".to_string(),
            ..Executed::default()
        };
        let answer = stopped("fallback", vec![("execute", http)]);
        assert!(statements(&answer.trace).is_empty());
        let answer = stopped("route", vec![]);
        let entry = entry(who(), DOOR_MCP, "?", &answer);
        assert_eq!((entry.tool, entry.params, entry.sql.len()), (None, Value::Null, 0));
        assert_eq!(entry.door, "mcp");
    }
}
