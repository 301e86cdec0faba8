//! The planner: route → check → resolve → fill → extract → bind, each step in the trace; nothing runs yet.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use jiff::civil::Date;
use serde_json::{Map, Value, json};
use wenshu_contract::{Catalog, Tool};

use crate::check::{CheckedRoute, check_route};
use crate::extract::{ExtractOutcome, ExtractRequest, Extractor, Said};
use crate::fill::{asks_about_many, date_params, default_range, subject_param};
use crate::message::RefusalMessage;
use crate::message::{Code, Message};
use crate::plan::{Audience, Plan};
use crate::resolve::chosen::{check_chosen_id, choice_by_attribute, earlier_choice};
use crate::resolve::{EntityCatalogs, Resolution};
use crate::route::{RouteInput, Router, Turn};
use crate::scope::Viewer;
use crate::trace::{Decision, StepSink, Trace};

mod cover;

/// How many candidates an ambiguous subject lists at most.
pub const MAX_CANDIDATES: usize = 5;

/// One question to plan or answer.
#[derive(Debug, Clone)]
pub struct AskRequest {
    /// The user's own words.
    pub question: String,
    /// Earlier rounds, oldest first (the router uses the last three).
    pub history: Vec<Turn>,
    /// The day the question is asked.
    pub today: Date,
    /// A subject the user already chose (from candidates): resolution is skipped.
    pub subject_id: Option<String>,
    /// Receives each trace step as it finishes (for streaming), when given.
    pub step_sink: Option<StepSink>,
    /// Who asks: row scopes and principal-filled parameters read it (the local operator unless set).
    pub viewer: Viewer,
}

impl AskRequest {
    /// A question asked on `today`, with no history, no chosen subject and no listener.
    pub fn new(question: impl Into<String>, today: Date) -> Self {
        Self {
            question: question.into(),
            history: Vec::new(),
            today,
            subject_id: None,
            step_sink: None,
            viewer: Viewer::operator(),
        }
    }
}

/// A plan with its trace and the question as understood.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Where the pipeline stands.
    pub plan: Plan,
    /// Every step so far.
    pub trace: Trace,
    /// The question as understood (rewritten, references resolved).
    pub rewritten_question: String,
}

/// The pipeline's fixed parts: catalog, entity catalogs, engine, time zone, disabled tools.
#[derive(Clone)]
pub struct Planner {
    catalog: Arc<Catalog>,
    entities: Arc<EntityCatalogs>,
    router: Arc<dyn Router>,
    extractor: Arc<dyn Extractor>,
    timezone: String,
    disabled: Arc<RwLock<HashSet<String>>>,
}

impl Planner {
    /// A planner over a catalog and entity catalogs, routing and extracting with the given engine parts.
    pub fn new(
        catalog: Arc<Catalog>,
        entities: Arc<EntityCatalogs>,
        router: Arc<dyn Router>,
        extractor: Arc<dyn Extractor>,
    ) -> Self {
        Self {
            catalog,
            entities,
            router,
            extractor,
            timezone: "Asia/Shanghai".into(),
            disabled: Arc::default(),
        }
    }

    /// Reckons dates in this IANA time zone (stated in prompts).
    pub fn with_timezone(mut self, timezone: impl Into<String>) -> Self {
        self.timezone = timezone.into();
        self
    }

    /// Disables tools by name: the router never sees them, and a route naming one takes the fallback path.
    pub fn with_disabled(self, names: impl IntoIterator<Item = String>) -> Self {
        for name in names {
            self.set_enabled(&name, false);
        }
        self
    }

    /// Enables or disables one tool from now on (shared by every clone of this planner).
    pub fn set_enabled(&self, name: &str, enabled: bool) {
        let mut disabled = self.disabled.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        if enabled {
            disabled.remove(name);
        } else {
            disabled.insert(name.to_string());
        }
    }

    /// Whether a tool is enabled.
    pub fn is_enabled(&self, name: &str) -> bool {
        !self
            .disabled
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .contains(name)
    }

    /// The catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The entity catalogs.
    pub fn entities(&self) -> &EntityCatalogs {
        &self.entities
    }

    /// The time zone.
    pub fn timezone(&self) -> &str {
        &self.timezone
    }

    /// The fallback tool, unless it is missing or disabled.
    pub fn fallback_tool(&self) -> Option<&Tool> {
        self.catalog.fallback().filter(|t| self.is_enabled(t.name()))
    }

    /// The engine that routes and extracts (`lexicon` or `model`): the router's.
    pub fn engine_name(&self) -> &'static str {
        self.router.engine()
    }

    /// The tools a router may choose: enabled, fallback and metric tools excluded (a metric tool is chosen by
    /// coverage, after the fixed tools: see the `metric` module).
    pub fn routable_tools(&self) -> Vec<&Tool> {
        let fallback = self.catalog.fallback().map(Tool::name);
        self.catalog
            .tools()
            .iter()
            .filter(|t| Some(t.name()) != fallback && self.is_enabled(t.name()))
            .filter(|t| t.extensions().metrics.is_none())
            .collect()
    }

    /// The tools a question may be answered by, for a stop that lists what can be asked: every enabled tool but
    /// the fallback.
    pub fn askable_tools(&self) -> Vec<&Tool> {
        let fallback = self.catalog.fallback().map(Tool::name);
        self.catalog
            .tools()
            .iter()
            .filter(|t| Some(t.name()) != fallback && self.is_enabled(t.name()))
            .collect()
    }

    /// The tools a routed decision may name: the routable ones and the enabled metric tools (a model router may
    /// return a metric query by names; coverage then checks it like any other call).
    fn checkable_tools<'a>(&'a self, routable: &[&'a str]) -> Vec<&'a str> {
        let metric = self
            .catalog
            .tools()
            .iter()
            .filter(|t| t.extensions().metrics.is_some() && self.is_enabled(t.name()))
            .map(Tool::name);
        routable.iter().copied().chain(metric).collect()
    }

    /// Plans one question: route, check, resolve, fill, extract, bind.
    pub async fn plan(&self, request: &AskRequest) -> Planned {
        let mut trace = Trace::new(self.router.engine(), request.step_sink.clone());
        let tools = self.routable_tools();
        let enabled: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        let subject_types: Vec<String> = self.entities.types().into_iter().map(str::to_string).collect();
        let input = RouteInput {
            question: &request.question,
            history: &request.history,
            today: request.today,
            timezone: &self.timezone,
            tools,
            subject_types: subject_types.clone(),
        };
        let started = Instant::now();
        let routed = self.router.route(&input).await;
        let decision_text = match (&routed.decision, &routed.error) {
            (Some(d), _) => {
                let tool = d.tool_code.as_deref().unwrap_or("(none)");
                Decision::both(format!("tool {tool}"), format!("工具 {tool}"))
            }
            (None, Some(e)) => e.clone().into(),
            (None, None) => Decision::both("no decision", "未作出选择"),
        };
        let route_input = json!({"question": request.question, "history": input.recent_history(), "today": request.today.to_string(), "tools": enabled});
        let tokens = routed
            .call
            .as_ref()
            .and_then(|c| c.usage.as_ref())
            .map(|u| u.total_tokens);
        trace.record_with_tokens("route", started, decision_text, route_input, &routed, tokens);
        let Some(decision) = routed.decision else {
            let reason = routed.error.unwrap_or_else(|| "the router gave no decision".into());
            let message = Message::detail(
                Code::RouteFailed,
                "路由未给出决定",
                "The router gave no decision",
                &reason,
            );
            let plan = if routed.service_failed {
                Plan::Stopped {
                    step: "route".into(),
                    message: Box::new(message),
                    audience: Audience::Admin,
                }
            } else {
                self.fallback(reason, message, &request.question)
            };
            return Planned {
                plan,
                trace,
                rewritten_question: request.question.clone(),
            };
        };
        let started = Instant::now();
        let checkable = self.checkable_tools(&enabled);
        let checked = check_route(
            &decision,
            &request.question,
            &request.history,
            request.today,
            &checkable,
            &subject_types,
        );
        let summary = if checked.notes.is_empty() {
            Decision::both("every field passed", "各项均通过检查")
        } else {
            checked.notes.join("; ").into()
        };
        trace.record("check", started, summary, &decision, &checked);
        let rewritten = checked.rewritten_question.clone();
        let plan = self.plan_tool(request, &checked, Map::new(), &mut trace).await;
        let plan = self.cover(request, &checked, plan, &mut trace).await;
        Planned {
            plan,
            trace,
            rewritten_question: rewritten,
        }
    }

    /// Plans the checked route's tool: resolve, fill, extract and bind, with `extra` fixed (a mode coverage chose).
    async fn plan_tool(
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

    /// The subject's ID as a fixed parameter, or the plan that stops here (ambiguous, not found, no subject).
    fn resolve_subject(
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

    async fn extract(
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

    /// The fallback plan, or a stop for the administrator when there is no enabled fallback tool; `message` is
    /// the coded reason a stop shows when the fallback cannot run.
    pub fn fallback(&self, reason: String, message: Message, question: &str) -> Plan {
        Plan::Fallback {
            tool: self.fallback_tool().map(|t| t.name().to_string()),
            reason,
            message: Box::new(message),
            question: question.to_string(),
            unmet: None,
        }
    }
}

/// A tool definition that cannot take what code filled: for the administrator.
fn catalog_invalid(detail: &str) -> Message {
    Message::detail(
        Code::CatalogInvalid,
        "工具定义有误，请管理员检查目录",
        "The tool's definition is wrong",
        detail,
    )
}

fn stopped(step: &str, message: Message, audience: Audience) -> Plan {
    Plan::Stopped {
        step: step.to_string(),
        message: Box::new(message),
        audience,
    }
}
