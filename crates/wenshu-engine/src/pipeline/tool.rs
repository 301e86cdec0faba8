//! The checked tool's call: the subject resolved, the dates and principal parameters filled, then extracted —
//! with `extra` fixed when coverage chose a mode.

use std::time::Instant;

use serde_json::{Map, Value, json};

use crate::check::CheckedRoute;
use crate::fill::{date_params, default_range};
use crate::message::Message;
use crate::message::RefusalMessage;
use crate::plan::{Audience, Plan};
use crate::trace::{Decision, Trace};

use super::{AskRequest, Planner, catalog_invalid, stopped};

impl Planner {
    /// Plans the checked route's tool: resolve, fill, extract and bind, with `extra` fixed (a mode coverage chose).
    pub(super) async fn plan_tool(
        &self,
        request: &AskRequest,
        checked: &CheckedRoute,
        extra: Map<String, Value>,
        trace: &mut Trace,
    ) -> Plan {
        let Some(tool) = checked.tool.as_deref().and_then(|name| self.catalog.get(name)) else {
            let outside = Message::outside_tools(&self.askable_tools());
            return self.fallback(checked.notes.join("; "), outside, &checked.rewritten_question);
        };
        let mut fixed = match self.resolve_subject(tool, request, checked, trace) {
            Ok(fixed) => fixed,
            Err(plan) => return plan,
        };
        let started = Instant::now();
        let range = match checked.dates {
            Some(range) => Ok(Some(range)),
            None => default_range(tool, request.today),
        };
        match range {
            Ok(range) => {
                let dates = date_params(tool, range);
                let why = match (checked.dates, dates.is_empty()) {
                    (_, true) => Decision::both(
                        "no start and end dates to fill: the tool's own parameters say its period",
                        "无需填写起止日期：时间段由工具自己的参数表示",
                    ),
                    (Some(r), false) => Decision::both(format!("the routed dates {r}"), format!("问题中的日期 {r}")),
                    (None, false) => Decision::both(
                        "no dates were asked: the tool's default range",
                        "问题未限定日期：用工具的默认范围",
                    ),
                };
                trace.record("fill", started, why, json!({"dates": checked.dates}), &dates);
                fixed.extend(dates);
            }
            Err(e) => return stopped("fill", catalog_invalid(&e.to_string()), Audience::Admin),
        }
        fixed.extend(extra);
        match crate::scope::principal_params(tool, &request.viewer) {
            Ok(filled) => fixed.extend(filled),
            Err(refusal) => return stopped("scope", refusal.message(), Audience::Admin),
        }
        self.extract(tool, request, checked, fixed, trace).await
    }
}
