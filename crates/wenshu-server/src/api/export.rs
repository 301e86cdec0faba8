//! `GET /api/turns/{id}/csv`: the rows of one answered turn (the principal's own) as a CSV file, the same columns
//! and rows the answer carried, headed by the columns' labels and units as the catalog declares them (`x-columns`) — a
//! metric answer's as its presentation shows them, its rates and shares written in percent (`销售额占比（%）`). UTF-8
//! with a byte-order mark (so spreadsheet programs read Chinese), RFC 4180 quoting, and text cells that a
//! spreadsheet would run as a formula (`=`, `+`, `-`, `@`) prefixed with `'`.
//!
//! A list its row limit cut (`rows_total` beyond the rows shown, or none with `rows_cap`) is exported whole, up to
//! the cap: its standalone question is asked again, on the day it was first asked and with the reader's scope, for
//! every row (`RowsWanted::All`); when that gives the same call (the limit aside) its rows are written — the run is
//! audited like an ask — else the rows the turn showed.

use axum::Extension;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::collections::BTreeMap;

use jiff::civil::Date;
use serde_json::{Map, Value, json};
use wenshu_contract::columns::{ColumnLabel, read_columns};
use wenshu_engine::{AskOutcome, AskRequest, RowsWanted};
use wenshu_store::Turn;

use super::conversations::path_error;
use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The answered turn's rows as CSV.
pub async fn csv(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(id) = id.map_err(path_error)?;
    let (turn, conversation_id) = match state.store().owned_turn(&id).await? {
        Some(owned) if principal.can_read(owned.owner.as_deref()) => (owned.turn, owned.conversation_id),
        _ => return Err(ApiError::not_found("unknown_turn", format!("no turn with id `{id}`"))),
    };
    let whole = whole_list(&state, &principal, &turn, conversation_id).await?;
    let outcome = whole.as_ref().unwrap_or(&turn.outcome);
    let (Some(columns), Some(rows)) = (
        outcome.get("columns").and_then(Value::as_array),
        outcome.get("rows").and_then(Value::as_array),
    ) else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "no_rows",
            format!("turn `{id}` ended as `{}` and has no rows to export", turn.kind),
        ));
    };
    let declared = turn
        .tool
        .as_deref()
        .and_then(|name| state.engine().planner().catalog().get(name))
        .and_then(|tool| read_columns(tool.definition().get("x-columns")).ok())
        .unwrap_or_default();
    let presented = presented_columns(&state, &turn.trace_id, columns.len()).await?;
    let headers: Vec<Value> = columns
        .iter()
        .zip(&presented)
        .map(
            |(column, shown)| match (declared.contains_key(column.as_str().unwrap_or_default()), shown) {
                (false, Some(shown)) => Value::String(shown.heading()),
                _ => header(column, &declared),
            },
        )
        .collect();
    let rows = as_percentages(rows, &presented);
    let body = to_csv(&headers, &rows);
    let disposition = format!("attachment; filename=\"wenshu-{}.csv\"", file_part(&id));
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response())
}

/// The outcome of a cut list's call asked again for every row up to its cap; `None` when the turn's list was not
/// cut, or the question asked again ran another call.
async fn whole_list(
    state: &AppState,
    principal: &Principal,
    turn: &Turn,
    conversation_id: String,
) -> Result<Option<Value>, ApiError> {
    let outcome = &turn.outcome;
    let shown = outcome.get("rows").and_then(Value::as_array).map_or(0, Vec::len) as u64;
    let cut = match (
        outcome.get("rows_total").and_then(Value::as_u64),
        outcome.get("rows_cap").and_then(Value::as_u64),
    ) {
        (Some(total), _) => total > shown,
        (None, Some(cap)) => shown < cap,
        (None, None) => false,
    };
    if !cut || turn.kind != "answered" {
        return Ok(None);
    }
    let mut request = AskRequest::new(turn.rewritten_question.clone(), asked_on(state, &turn.created_at));
    request.viewer = principal.viewer();
    let answer = state.engine().ask_rows(&request, RowsWanted::All).await;
    let AskOutcome::Answered { .. } = &answer.outcome else {
        return Ok(None);
    };
    let again = json!(answer.outcome);
    let cap = again.get("rows_cap").and_then(Value::as_u64);
    if again.get("tool") != outcome.get("tool") || !same_call(outcome.get("params"), again.get("params"), cap) {
        return Ok(None);
    }
    let mut audit = crate::audit::entry(
        crate::audit::principal_of(principal),
        crate::audit::DOOR_API,
        &turn.rewritten_question,
        &answer,
    );
    audit.conversation_id = Some(conversation_id);
    state.store().record_audit(audit).await?;
    Ok(Some(again))
}

/// Whether two calls' arguments are the same but for a limit raised to `cap`.
fn same_call(first: Option<&Value>, again: Option<&Value>, cap: Option<u64>) -> bool {
    let (Some(first), Some(again)) = (first.and_then(Value::as_object), again.and_then(Value::as_object)) else {
        return false;
    };
    let raised = |key: &String, value: &Value| cap.is_some() && value.as_u64() == cap && first.contains_key(key);
    let rest = |params: &Map<String, Value>| -> Map<String, Value> {
        params
            .iter()
            .filter(|(key, _)| !again.get(*key).is_some_and(|value| raised(key, value)))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    };
    rest(first) == rest(again)
}

/// The day a turn was asked on, where the server is (its fixed today, if it has one).
fn asked_on(state: &AppState, created_at: &str) -> Date {
    let settings = state.settings();
    settings
        .today
        .or_else(|| {
            let at: jiff::Timestamp = created_at.parse().ok()?;
            at.in_tz(&settings.timezone).ok().map(|zoned| zoned.date())
        })
        .unwrap_or_else(|| state.today())
}

/// A column of a metric answer as its presentation shows it: its label, unit, and whether it holds fractions shown
/// as percentages (a rate of change, a share).
#[derive(Debug, Clone, PartialEq)]
struct Presented {
    label: String,
    unit: Option<String>,
    percent: bool,
}

impl Presented {
    /// `销售额（元）`, `销售额占比（%）`, or the label alone.
    fn heading(&self) -> String {
        match (&self.unit, self.percent) {
            (_, true) => format!("{}（%）", self.label),
            (Some(unit), false) => format!("{}（{unit}）", self.label),
            (None, false) => self.label.clone(),
        }
    }
}

/// The presentation of each of `count` columns, read from the turn's trace (its execute step's metric
/// presentation); `None` for each where it has none or another number of columns.
async fn presented_columns(state: &AppState, trace_id: &str, count: usize) -> Result<Vec<Option<Presented>>, ApiError> {
    let none = vec![None; count];
    let Some(trace) = state.store().owned_trace(trace_id).await? else {
        return Ok(none);
    };
    let steps = trace.body.get("steps").and_then(Value::as_array);
    let execute = steps.and_then(|steps| {
        steps
            .iter()
            .rev()
            .find(|s| s.get("step").and_then(Value::as_str) == Some("execute"))
    });
    let Some(columns) = execute
        .and_then(|s| s.pointer("/output/detail/presentation/columns"))
        .and_then(Value::as_array)
        .filter(|columns| columns.len() == count)
    else {
        return Ok(none);
    };
    Ok(columns
        .iter()
        .map(|column| {
            let label = column.get("label").and_then(Value::as_str)?.to_string();
            let kind = column.get("kind").and_then(Value::as_str).unwrap_or_default();
            Some(Presented {
                label,
                unit: column.get("unit").and_then(Value::as_str).map(str::to_string),
                percent: matches!(kind, "rate" | "share"),
            })
        })
        .collect())
}

/// The rows with each fraction column (a rate, a share) written as a percentage with at most two decimals.
fn as_percentages(rows: &[Value], presented: &[Option<Presented>]) -> Vec<Value> {
    if !presented.iter().flatten().any(|p| p.percent) {
        return rows.to_vec();
    }
    rows.iter()
        .map(|row| match row.as_array() {
            Some(cells) => Value::Array(
                cells
                    .iter()
                    .enumerate()
                    .map(
                        |(i, cell)| match (presented.get(i).and_then(Option::as_ref), cell.as_f64()) {
                            (Some(p), Some(fraction)) if p.percent => {
                                let percent = (fraction * 10_000.0).round() / 100.0;
                                serde_json::Number::from_f64(percent).map_or(Value::Null, Value::Number)
                            }
                            _ => cell.clone(),
                        },
                    )
                    .collect(),
            ),
            None => row.clone(),
        })
        .collect()
}

/// A column's header as the page shows it: the catalog's label (`x-columns`) with its unit (`销售额（元）`), else the
/// column as the answer named it.
fn header(column: &Value, declared: &BTreeMap<String, ColumnLabel>) -> Value {
    let Some(name) = column.as_str() else {
        return column.clone();
    };
    match declared.get(name) {
        Some(ColumnLabel {
            label,
            unit: Some(unit),
        }) => Value::String(format!("{label}（{unit}）")),
        Some(ColumnLabel { label, unit: None }) => Value::String(label.clone()),
        None => column.clone(),
    }
}

/// The id as it may appear in a file name (ASCII letters, digits, `-`, `_`).
fn file_part(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(64)
        .collect()
}

/// A header line of `columns` and one line per row, CRLF-terminated, after a byte-order mark.
pub fn to_csv(columns: &[Value], rows: &[Value]) -> String {
    let mut out = String::from("\u{feff}");
    push_line(&mut out, columns.iter());
    for row in rows {
        match row.as_array() {
            Some(cells) => push_line(&mut out, cells.iter()),
            None => push_line(&mut out, std::iter::once(row)),
        }
    }
    out
}

fn push_line<'a>(out: &mut String, cells: impl Iterator<Item = &'a Value>) {
    let line: Vec<String> = cells.map(cell).collect();
    out.push_str(&line.join(","));
    out.push_str("\r\n");
}

/// One cell: empty for null, numbers and booleans as written, text quoted when it must be.
fn cell(value: &Value) -> String {
    let text = match value {
        Value::Null => return String::new(),
        Value::Number(n) => return n.to_string(),
        Value::Bool(b) => return b.to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn writes_rows_with_quoting_and_formula_guard() {
        let columns = [json!("region"), json!("amount")];
        let rows = [
            json!(["华东", 1200]),
            json!(["a,\"b\"", null]),
            json!(["=SUM(A1)", -3.5]),
        ];
        let text = to_csv(&columns, &rows);
        let expected = "\u{feff}region,amount\r\n华东,1200\r\n\"a,\"\"b\"\"\",\r\n'=SUM(A1),-3.5\r\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn headers_are_labels_with_units() {
        let declared = BTreeMap::from([
            (
                "amount".to_string(),
                ColumnLabel {
                    label: "销售额".into(),
                    unit: Some("元".into()),
                },
            ),
            (
                "orders".to_string(),
                ColumnLabel {
                    label: "订单数".into(),
                    unit: None,
                },
            ),
        ]);
        let heads: Vec<Value> = [json!("amount"), json!("orders"), json!("region")]
            .iter()
            .map(|c| header(c, &declared))
            .collect();
        assert_eq!(heads, [json!("销售额（元）"), json!("订单数"), json!("region")]);
    }

    #[test]
    fn the_same_call_but_for_a_limit_raised_to_the_cap() {
        let first = json!({"period": "上月", "limit": 10});
        let cap = Some(100);
        assert!(same_call(
            Some(&first),
            Some(&json!({"period": "上月", "limit": 100})),
            cap
        ));
        assert!(!same_call(
            Some(&first),
            Some(&json!({"period": "本月", "limit": 100})),
            cap
        ));
        assert!(!same_call(
            Some(&first),
            Some(&json!({"period": "上月", "limit": 50})),
            cap
        ));
        assert!(!same_call(
            Some(&first),
            Some(&json!({"period": "上月", "limit": 100, "region": "华东"})),
            cap
        ));
        assert!(!same_call(Some(&first), None, cap));
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_part("ab12-_/..\"x"), "ab12-_x");
    }
}
