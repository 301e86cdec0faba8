//! The planner: route → check → resolve → fill → extract → bind → coverage, each step in the trace; nothing runs yet.
//! The loop over the stages is here ([`Planner::plan`]); each stage the planner runs has a file of its own: `tool`
//! (the checked tool's call: fill), `resolve`, `extract`, `cover` (coverage, another mode or tool, the fallback).

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use jiff::civil::Date;
use serde_json::{Map, json};
use wenshu_contract::{Catalog, Tool};

use crate::check::check_route;
use crate::extract::Extractor;
use crate::message::{Code, Message};
use crate::plan::{Audience, Plan};
use crate::resolve::EntityCatalogs;
use crate::route::{RouteInput, Router, Turn};
use crate::scope::Viewer;
use crate::trace::{Decision, StepSink, Trace};

mod cover;
mod extract;
mod resolve;
mod tool;

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
            (Some(d), _) => match d.tool_code.as_deref() {
                Some(tool) => Decision::both(format!("tool {tool}"), format!("工具 {tool}")),
                None => Decision::both("tool (none)", "未选中工具"),
            },
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
            Decision::both(checked.notes.join("; "), checked.notes_zh.join("；"))
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
