//! The extract stage: the parameters the question states, by the configured extractor, bound with what code
//! fixed; the plan that ends in a call, a question back, or the fallback.

use std::time::Instant;

use serde_json::{Map, Value, json};
use wenshu_contract::Tool;

use crate::check::CheckedRoute;
use crate::extract::{ExtractOutcome, ExtractRequest, Said};
use crate::message::{Code, Message};
use crate::plan::{Audience, Plan};
use crate::trace::{Decision, Trace};

use super::{AskRequest, Planner, stopped};

impl Planner {
    pub(super) async fn extract(
        &self,
        tool: &Tool,
        request: &AskRequest,
        checked: &CheckedRoute,
        fixed: Map<String, Value>,
        trace: &mut Trace,
    ) -> Plan {
        let started = Instant::now();
        let extract_request = ExtractRequest {
            tool,
            question: &checked.rewritten_question,
            today: request.today,
            timezone: &self.timezone,
            fixed,
        };
        // The model reads the rewrite; what it extracts is checked against what the user said.
        let subject = tool
            .extensions()
            .subject
            .as_ref()
            .filter(|s| extract_request.fixed.contains_key(&s.param))
            .and(checked.subject_name.as_deref());
        let said = Said {
            question: &request.question,
            history: &request.history,
            subject,
        };
        let extraction = self.extractor.extract_said(&extract_request, said).await;
        let tokens: u64 = extraction
            .trace
            .calls
            .iter()
            .filter_map(|c| c.usage.as_ref())
            .map(|u| u.total_tokens)
            .sum();
        let name = tool.name().to_string();
        let plan = match extraction.outcome.clone() {
            ExtractOutcome::Ok { params } => Plan::Ok { tool: name, params },
            ExtractOutcome::Missing { params } => Plan::Missing { tool: name, params },
            ExtractOutcome::Unsupported { param, value } => Plan::Unsupported {
                tool: name,
                param,
                value,
            },
            ExtractOutcome::Failed { reason } => stopped(
                "extract",
                Message::detail(Code::ExtractFailed, "参数提取失败", "The extraction failed", &reason),
                Audience::Admin,
            ),
        };
        let input = json!({"tool": tool.name(), "question": checked.rewritten_question, "said": request.question, "fixed": extract_request.fixed});
        trace.record_with_tokens(
            "extract",
            started,
            Decision::both(plan.status(), plan.status_zh()),
            input,
            &extraction,
            (tokens > 0).then_some(tokens),
        );
        plan
    }
}
