//! The resolve stage: the subject's ID as a fixed parameter — a chosen ID checked, an earlier choice kept, a name
//! resolved — or the plan that stops here (ambiguous, not found, no subject).

use std::time::Instant;

use serde_json::{Map, Value, json};
use wenshu_contract::Tool;

use crate::check::CheckedRoute;
use crate::fill::{asks_about_many, subject_param};
use crate::message::{Code, Message};
use crate::plan::{Audience, Plan};
use crate::resolve::Resolution;
use crate::resolve::chosen::{check_chosen_id, choice_by_attribute, earlier_choice};
use crate::trace::{Decision, Trace};

use super::{AskRequest, MAX_CANDIDATES, Planner, catalog_invalid, stopped};

impl Planner {
    /// The subject's ID as a fixed parameter, or the plan that stops here (ambiguous, not found, no subject).
    pub(super) fn resolve_subject(
        &self,
        tool: &Tool,
        request: &AskRequest,
        checked: &CheckedRoute,
        trace: &mut Trace,
    ) -> Result<Map<String, Value>, Plan> {
        let Some(subject) = &tool.extensions().subject else {
            return Ok(Map::new());
        };
        let started = Instant::now();
        let Some(index) = self.entities.get(&subject.entity_type) else {
            let message = Message::new(
                Code::ResolveNoCatalog,
                format!("没有配置类型为「{}」的对象目录：请管理员配置", subject.entity_type),
                format!("no entity catalog of type `{}` is configured", subject.entity_type),
            )
            .with("type", subject.entity_type.as_str());
            return Err(stopped("resolve", message, Audience::Admin));
        };
        if let Some(id) = &request.subject_id {
            let name = checked.subject_name.as_deref();
            let input = json!({"subjectId": id, "name": name, "type": subject.entity_type});
            return match check_chosen_id(tool, subject, index, id, name, MAX_CANDIDATES) {
                Ok(chosen) => {
                    let (kind, name) = (&subject.entity_type, &chosen.entity.name);
                    let why = Decision::both(
                        format!("the caller chose {kind} {id}: {name}"),
                        format!("用户选择了 {name}（{kind} {id}）"),
                    );
                    trace.record("resolve", started, why, input, &chosen.params);
                    Ok(chosen.params)
                }
                Err(error) => {
                    trace.record("resolve", started, error.to_string(), input, &error);
                    let tool = tool.name().to_string();
                    Err(Plan::Rejected { tool, error })
                }
            };
        }
        let Some(name) = checked.subject_name.clone() else {
            let reason = format!(
                "tool `{}` needs one {} and the question names none",
                tool.name(),
                subject.entity_type
            );
            trace.record("resolve", started, reason.clone(), json!({}), Value::Null);
            if asks_about_many(&request.question, request.today) {
                let title = tool.title().unwrap_or(tool.name());
                let message = Message::new(
                    Code::ResolveNoSubject,
                    format!("「{title}」一次只查一个{}，问题没有指明是哪一个", subject.entity_type),
                    format!(
                        "“{title}” answers about one {} and the question names none",
                        subject.entity_type
                    ),
                )
                .with("tool", tool.name())
                .with("type", subject.entity_type.as_str());
                return Err(self.fallback(reason, message, &checked.rewritten_question));
            }
            return Err(Plan::Missing {
                tool: tool.name().to_string(),
                params: vec![subject.param.clone()],
            });
        };
        let resolution = index.resolve(&name, MAX_CANDIDATES);
        // The same name the user already chose an entity for in this conversation means that entity again.
        let earlier = match resolution {
            Resolution::Ambiguous { .. } => earlier_choice(&request.history, &subject.entity_type, index, &resolution),
            Resolution::NotFound => choice_by_attribute(&request.history, index, &name),
            _ => None,
        };
        let input = json!({"name": name, "type": subject.entity_type, "chosenEarlier": earlier.map(|e| &e.id)});
        let resolution = match earlier {
            Some(entity) => Resolution::Exact { entity: entity.clone() },
            None => resolution,
        };
        let outcome = match &resolution {
            Resolution::Exact { entity } => Ok((
                entity.id.clone(),
                Decision::both(
                    format!("exact match: {}", entity.name),
                    format!("完全匹配：{}", entity.name),
                ),
            )),
            Resolution::Fuzzy { entity, method, .. } => Ok((
                entity.id.clone(),
                Decision::both(
                    format!("unique fuzzy match ({method:?}): {}", entity.name),
                    format!("唯一的近似匹配：{}", entity.name),
                ),
            )),
            Resolution::Ambiguous { candidates, .. } => Err(Plan::Ambiguous {
                tool: tool.name().to_string(),
                name: name.clone(),
                candidates: candidates.clone(),
            }),
            Resolution::NotFound if asks_about_many(&request.question, request.today) => Err(self.fallback(
                format!(
                    "「{name}」 is no {}, and the question asks about many",
                    subject.entity_type
                ),
                Message::new(
                    Code::ResolveNotOne,
                    format!("「{name}」不是一个{}，而问题问的是多个", subject.entity_type),
                    format!(
                        "“{name}” is no {}, and the question asks about many",
                        subject.entity_type
                    ),
                )
                .with("name", name.as_str())
                .with("type", subject.entity_type.as_str()),
                &checked.rewritten_question,
            )),
            Resolution::NotFound => Err(Plan::NotFound {
                tool: tool.name().to_string(),
                name: name.clone(),
            }),
        };
        match outcome {
            Ok((id, why)) => {
                let id_text = id.as_str().map_or_else(|| id.to_string(), str::to_string);
                let fixed = subject_param(tool, &id_text)
                    .map_err(|e| stopped("resolve", catalog_invalid(&e.to_string()), Audience::Admin))?;
                trace.record("resolve", started, why, input, &resolution);
                Ok(fixed)
            }
            Err(plan) => {
                trace.record(
                    "resolve",
                    started,
                    Decision::both(
                        format!("stop: {}", plan.status()),
                        format!("停止：{}", plan.status_zh()),
                    ),
                    input,
                    &resolution,
                );
                Err(plan)
            }
        }
    }
}
