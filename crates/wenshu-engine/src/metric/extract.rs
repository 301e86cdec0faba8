//! The lexicon engine's extraction for a metric tool: the question's metric query, bound against the tool's
//! schema; what the model cannot express is `unsupported`, naming it.

use wenshu_contract::bind;

use super::build::{MetricBuild, build_query};
use super::execute::query_params;
use super::values::MetricValues;
use crate::extract::{ExtractOutcome, ExtractRequest, ExtractTrace, Extraction};

/// Extracts the metric query of `request.question` for a metric tool (none for another tool).
pub fn extract(request: &ExtractRequest<'_>, values: &MetricValues) -> Option<Extraction> {
    request.tool.extensions().metrics.as_ref()?;
    let mut trace = ExtractTrace {
        engine: "lexicon",
        fixed: request.fixed.clone(),
        ..ExtractTrace::default()
    };
    let outcome = match build_query(request.tool, values, request.question, request.today) {
        MetricBuild::Query { query } => {
            let params = query_params(&query);
            trace.bound_from = Some(params.clone());
            match bind(request.tool, &params) {
                Ok(call) => ExtractOutcome::Ok { params: call.arguments },
                Err(error) => ExtractOutcome::Failed {
                    reason: error.to_string(),
                },
            }
        }
        MetricBuild::Unmet { reasons } => ExtractOutcome::Unsupported {
            param: "query".into(),
            value: reasons.join("；"),
        },
    };
    Some(Extraction { outcome, trace })
}
