//! `GET /api/catalog`: what can be asked, for the page — each enabled tool (the fallback aside) with its title,
//! description, sample questions (`x-examples`), result-column labels (`x-columns`) and the parameter that takes a
//! resolved subject's ID (`x-subject`, so the page can show its name), the parameter choosing a SQL tool's statement
//! (`selector`, `x-sql.by`: the page lists it with the parameters the statement bound), whether a call of it can run (`runnable`: an
//! executor is registered; the page offers examples only of those), a metric tool's dimension labels (the page's
//! follow-up chips regroup by them; `dataSpan`, the first and last day of its data the principal sees), the longest
//! question the server takes, and the day the server reckons
//! "today" by (本月, 上周 and 最近7天 are read from it; the empty page says so).

use axum::extract::State;
use axum::{Extension, Json};
use serde_json::{Value, json};
use wenshu_contract::Tool;
use wenshu_contract::columns::read_columns;

use crate::principal::Principal;
use crate::state::{AppState, Spans};

/// The enabled tools with their examples and column labels.
pub async fn catalog(State(state): State<AppState>, Extension(principal): Extension<Principal>) -> Json<Value> {
    let spans = data_spans(&state, &principal).await;
    let engine = state.engine();
    let planner = engine.planner();
    let fallback = planner.catalog().fallback().map(Tool::name);
    let tools: Vec<Value> = planner
        .catalog()
        .tools()
        .iter()
        .filter(|tool| Some(tool.name()) != fallback && planner.is_enabled(tool.name()))
        .map(|tool| {
            let columns = read_columns(tool.definition().get("x-columns")).unwrap_or_default();
            json!({
                "name": tool.name(),
                "title": tool.title(),
                "description": tool.description(),
                "examples": tool.extensions().examples,
                "columns": columns,
                "subjectParam": tool.extensions().subject.as_ref().map(|s| s.param.as_str()),
                "runnable": engine.can_execute(tool.name()),
                "selector": tool.definition().get("x-sql").and_then(|sql| sql.get("by")).and_then(Value::as_str),
                "dataSpan": spans.iter().find(|(name, ..)| name == tool.name()).map(|(_, start, end)| json!({"start": start, "end": end})),
                "dimensions": tool.extensions().metrics.as_deref().map_or_else(Vec::new, |model| {
                    model.dimensions.iter().map(|d| d.label.clone()).collect::<Vec<_>>()
                }),
            })
        })
        .collect();
    Json(json!({
        "tools": tools,
        "maxQuestionChars": state.settings().max_question_chars,
        "today": state.today().to_string(),
    }))
}

/// Each enabled metric tool's first and last day of data as the principal sees it (its row scope), read once per
/// scope and day: the query aggregates every row the viewer sees.
async fn data_spans(state: &AppState, principal: &Principal) -> Spans {
    let engine = state.engine();
    let viewer = principal.viewer();
    let today = state.today();
    let scope = serde_json::to_string(&engine.scope().bind(&viewer)).unwrap_or_default();
    let key = format!("{today}|{scope}");
    if let Some(kept) = state.spans().get(&key) {
        return kept;
    }
    let planner = engine.planner();
    let mut spans = Vec::new();
    for tool in planner.catalog().tools() {
        if tool.extensions().metrics.is_none() || !planner.is_enabled(tool.name()) {
            continue;
        }
        if let Some((start, end)) = engine.data_span(tool.name(), &viewer, today).await {
            spans.push((tool.name().to_string(), start, end));
        }
    }
    let spans = std::sync::Arc::new(spans);
    state.spans().insert(key, spans.clone());
    spans
}
