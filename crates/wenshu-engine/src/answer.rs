//! Answering: plan, then execute the fixed tool — or degrade once to the Text-to-SQL fallback — and say what
//! happened: `answered`, `choose`, `need` or `stopped`, with the whole trace.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value, json};
use wenshu_contract::BoundCall;

use crate::execute::{ExecContext, ExecError, Executors, sent_sql};
use crate::executed::{Executed, SentSql};
use crate::fallback::{SqlAttempt, SqlFallback};
use crate::list_size::{ListSize, ListWindow, RowsWanted};
use crate::message::RefusalMessage;
use crate::message::{Code, Message};
use crate::metric::SharedValues;
use crate::pipeline::{AskRequest, Planner};
use crate::plan::{Audience, Plan};
use crate::resolve::Candidate;
use crate::resolve::chosen::SubjectIdError;
use crate::scope::{BoundScope, ScopeRefusal, ScopeRules};
use crate::series_total::{TOTAL_LABEL, total_row};
use crate::trace::{Decision, Trace, TraceStep};
use crate::understood::{Understood, understood, understood_fallback};
use wenshu_sql::db::ByteCaps;

/// How a question ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AskOutcome {
    /// A tool ran and returned rows.
    Answered {
        /// The tool that ran (the fallback tool when it degraded).
        tool: String,
        /// Its parameters.
        params: Map<String, Value>,
        /// The result's columns.
        columns: Vec<String>,
        /// The result's rows.
        rows: Vec<Vec<Value>>,
        /// Whether more rows existed than the cap let through.
        truncated: bool,
        /// Whether the last row is the 合计 of the rows above it (a series asked about as a period).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        totaled: bool,
        /// A list with a row limit: its rows in all (`rows_total`, up to `rows_cap`) and the most one call shows.
        #[serde(flatten)]
        list: Option<ListSize>,
        /// One sentence about the result.
        summary: String,
        /// The same sentence in English.
        summary_en: String,
        /// Whether the fixed tool was replaced by the fallback, and why.
        fell_back: Option<String>,
        /// Why the fixed tool was replaced by the fallback, coded and in both languages.
        #[serde(skip_serializing_if = "Option::is_none")]
        fell_back_message: Option<Box<Message>>,
        /// The SQL that ran, for the fallback.
        sql: Option<String>,
        /// 理解为: the call that ran, in words, written from the bound call.
        understood: Understood,
    },
    /// The subject name matches several entities: the user picks one and asks again with its ID.
    Choose {
        /// The tool.
        tool: String,
        /// The name as given.
        name: String,
        /// The ranked candidates with distinguishing fields.
        candidates: Vec<Candidate>,
        /// What to do, coded and in both languages.
        message: Message,
    },
    /// Required parameters are missing: the user adds them.
    Need {
        /// The tool.
        tool: String,
        /// The missing parameters.
        missing: Vec<String>,
        /// What to add, coded and in both languages (the parameters by their labels).
        message: Message,
    },
    /// The request's subject ID cannot be used for the tool: the caller sends another (HTTP 422).
    Rejected {
        /// The tool.
        tool: String,
        /// Why, naming the field, the value and what is allowed.
        error: Box<SubjectIdError>,
    },
    /// The question cannot be answered; says at which step, why, and for whom.
    Stopped {
        /// The step it stopped at.
        step: String,
        /// The code of the first message: why, in one stable word.
        code: Code,
        /// Every reason in Chinese, in order, then the hints (the texts of `messages` and `hints`).
        reasons: Vec<String>,
        /// Every reason, coded and in both languages, in order.
        messages: Vec<Message>,
        /// Secondary notes, for someone else than the audience (what an administrator could enable).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        hints: Vec<Message>,
        /// Who can act on it.
        audience: Audience,
    },
}

impl AskOutcome {
    /// A stop at `step` for `audience`, with its messages (at least one) and secondary hints.
    pub fn stopped(step: &str, messages: Vec<Message>, hints: Vec<Message>, audience: Audience) -> Self {
        let code = messages.first().map_or(Code::RouteFailed, |m| m.code);
        let reasons = messages.iter().chain(&hints).map(|m| m.zh.clone()).collect();
        Self::Stopped {
            step: step.to_string(),
            code,
            reasons,
            messages,
            hints,
            audience,
        }
    }

    /// The kind word (`answered`, `choose`, `need`, `rejected`, `stopped`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Answered { .. } => "answered",
            Self::Choose { .. } => "choose",
            Self::Need { .. } => "need",
            Self::Rejected { .. } => "rejected",
            Self::Stopped { .. } => "stopped",
        }
    }
}

/// An outcome with its trace and the question as understood.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// How it ended.
    pub outcome: AskOutcome,
    /// The question as understood (rewritten).
    pub rewritten_question: String,
    /// Every step.
    pub trace: Trace,
    /// The subject the call settled (the entity its tool's subject parameter names), for the history.
    #[serde(skip)]
    pub subject: Option<crate::route::TurnSubject>,
}

impl Answer {
    /// The answer the engine gives: its subject settled now (it needs the planner), so no caller comes back for it.
    fn new(outcome: AskOutcome, rewritten_question: String, trace: Trace, planner: &Planner) -> Self {
        let subject = subject_of_answer(planner, &outcome);
        Answer {
            outcome,
            rewritten_question,
            trace,
            subject,
        }
    }

    /// The conclusion this round leaves in a conversation's history: what was answered, or why not.
    pub fn conclusion(&self) -> String {
        conclusion_of(&self.outcome, &self.rewritten_question)
    }

    /// The round this answer makes in a conversation's history: the question as asked, the conclusion, the
    /// subject the call settled and whether it stopped.
    pub fn turn(&self, question: &str) -> crate::route::Turn {
        crate::route::Turn {
            question: question.to_string(),
            answer: self.conclusion(),
            subject: self.subject.clone(),
            stopped: self.outcome.kind() == "stopped",
        }
    }
}

/// The subject an answer was about, for the conversation's history: the entity its tool's subject parameter names.
fn subject_of_answer(planner: &Planner, outcome: &AskOutcome) -> Option<crate::route::TurnSubject> {
    let AskOutcome::Answered { tool, params, .. } = outcome else {
        return None;
    };
    crate::resolve::chosen::subject_of_call(planner.catalog().get(tool)?, planner.entities(), params)
}

/// The conclusion of `outcome` to the question read as `rewritten`: what was answered, or why not.
fn conclusion_of(outcome: &AskOutcome, rewritten: &str) -> String {
    match outcome {
        AskOutcome::Answered { summary, .. } => summary.clone(),
        AskOutcome::Choose { name, .. } => format!("「{name}」有多个候选，等待用户选择"),
        AskOutcome::Need { missing, .. } => format!("{rewritten}：缺少 {}", missing.join("、")),
        AskOutcome::Rejected { error, .. } => format!("{rewritten}：{error}"),
        AskOutcome::Stopped { messages, .. } => {
            // The reasons without the hints, and without the list of what can be asked: a later round's
            // history must not read the catalog's example questions as if this round had asked them.
            let reasons: Vec<&str> = messages
                .iter()
                .map(|m| match m.code {
                    Code::QuestionOutsideTools => "没有工具能回答这个问题",
                    _ => m.zh.as_str(),
                })
                .collect();
            format!("{rewritten}：未能回答（{}）", reasons.join("；"))
        }
    }
}

/// The whole pipeline: planner, executors and (with a model) the fallback.
#[derive(Clone)]
pub struct Engine {
    planner: Planner,
    executors: Arc<Executors>,
    fallback: Option<Arc<SqlFallback>>,
    timeout: Duration,
    row_cap: usize,
    bytes: ByteCaps,
    scope: Arc<ScopeRules>,
    metric_values: Option<SharedValues>,
}

impl Engine {
    /// An engine that plans with `planner` and runs tools with `executors`; no fallback until one is given.
    pub fn new(planner: Planner, executors: Arc<Executors>) -> Self {
        Self {
            planner,
            executors,
            fallback: None,
            timeout: Duration::from_secs(10),
            row_cap: 1000,
            bytes: ByteCaps::default(),
            scope: Arc::new(ScopeRules::none()),
            metric_values: None,
        }
    }

    /// Reads the values of the data (the metric tools' dimension values) to tell when a question names a value
    /// outside the viewer's scope for a tool whose scope is a principal parameter.
    pub fn with_metric_values(mut self, values: SharedValues) -> Self {
        self.metric_values = Some(values);
        self
    }

    /// Enforces these row-scope rules: each question's viewer is bound to them, and every path (templates, metric
    /// tools, the fallback) reads scoped tables only through the viewer's scope.
    pub fn with_scope(mut self, rules: Arc<ScopeRules>) -> Self {
        self.scope = rules;
        self
    }

    /// Degrades to this Text-to-SQL fallback (it needs a model).
    pub fn with_fallback(mut self, fallback: Arc<SqlFallback>) -> Self {
        self.fallback = Some(fallback);
        self
    }

    /// Sets the time limit and row cap of tool calls.
    pub fn with_limits(mut self, timeout: Duration, row_cap: usize) -> Self {
        self.timeout = timeout;
        self.row_cap = row_cap;
        self
    }

    /// Sets the byte caps of tool calls' results (per value and per result).
    pub fn with_byte_caps(mut self, bytes: ByteCaps) -> Self {
        self.bytes = bytes;
        self
    }

    /// The row-scope rules every question is bound to (none unless [`Engine::with_scope`]).
    pub fn scope(&self) -> &ScopeRules {
        &self.scope
    }

    /// The planner.
    pub fn planner(&self) -> &Planner {
        &self.planner
    }

    /// Whether a call of `tool` can run: an executor is registered for it.
    pub fn can_execute(&self, tool: &str) -> bool {
        self.executors.get(tool).is_some()
    }

    /// The first and last day a metric tool's data holds as `viewer` sees it (its row scope applied), read by its
    /// first measure over no period as an answer reads it; `None` for a tool without a metric model, or when that
    /// query is refused or fails. It aggregates every row the viewer sees: callers keep what it said.
    pub async fn data_span(
        &self,
        tool_name: &str,
        viewer: &crate::scope::Viewer,
        today: jiff::civil::Date,
    ) -> Option<(String, String)> {
        let tool = self.planner.catalog().get(tool_name)?;
        let model = tool.extensions().metrics.as_deref()?;
        model.time.as_ref()?;
        let measure = model.measures.first()?;
        let arguments = json!({"measures": [{"name": measure.label}]}).as_object().cloned()?;
        let call = BoundCall {
            tool: tool_name.to_string(),
            arguments,
            defaulted: vec![],
            coercions: vec![],
        };
        let ctx = ExecContext {
            today,
            timeout: self.timeout,
            row_cap: self.row_cap,
            bytes: self.bytes,
            scope: Arc::new(self.scope.bind(viewer)),
        };
        let result = self.executors.execute(tool, &call, &ctx).await.ok()?;
        let day = |key: &str| result.detail["span"][key].as_str().map(str::to_string);
        Some((day("start")?, day("end")?))
    }

    /// Answers one question (reading the metric values its viewer's row scope sees, when the engine has them).
    pub async fn ask(&self, request: &AskRequest) -> Answer {
        self.ask_rows(request, RowsWanted::Limit).await
    }

    /// Answers one question, a list with the rows `wanted` (every row up to the cap: the same call, its limit
    /// raised).
    pub async fn ask_rows(&self, request: &AskRequest, wanted: RowsWanted) -> Answer {
        // The viewer's scope, bound once for the whole ask: the metric values, the executors and the fallback read it.
        let asked = Asked {
            request,
            wanted,
            scope: Arc::new(self.scope.bind(&request.viewer)),
        };
        // Boxed: the answer's future is deep, and the server's futures hold this one.
        let answer = Box::pin(self.answer(&asked));
        match &self.metric_values {
            Some(values) => values.within(&asked.scope, answer).await,
            None => answer.await,
        }
    }

    async fn answer(&self, asked: &Asked<'_>) -> Answer {
        let request = asked.request;
        let planned = self.planner.plan(request).await;
        let mut trace = planned.trace;
        let question = planned.rewritten_question.clone();
        let outcome = match planned.plan {
            Plan::Ok { tool, params } => self.execute(tool, params, asked, &question, &mut trace).await,
            Plan::Ambiguous { tool, name, candidates } => AskOutcome::Choose {
                message: Message::choose(&tool, &name, candidates.len()),
                tool,
                name,
                candidates,
            },
            Plan::NotFound { name, .. } => {
                AskOutcome::stopped("resolve", vec![Message::not_found(&name)], vec![], Audience::User)
            }
            // Values are never asked for a call that could not run: the user would give them for nothing.
            Plan::Missing { tool, .. } if !self.can_execute(&tool) => {
                let title = self
                    .planner
                    .catalog()
                    .get(&tool)
                    .and_then(|t| t.title())
                    .unwrap_or(&tool);
                let message = Message::tool_not_runnable(&tool, title);
                let reason = format!("tool `{tool}` has no executor configured");
                self.degrade(reason, message, asked, &question, &mut trace).await
            }
            Plan::Missing { tool, params } => AskOutcome::Need {
                message: Message::need(&tool, &params, &self.labels(&tool, &params)),
                tool,
                missing: params,
            },
            Plan::Unsupported { tool, param, value }
                if param == crate::extract::unmatched::UNMATCHED
                    && self
                        .planner
                        .catalog()
                        .get(&tool)
                        .is_some_and(crate::extract::unmatched::asked) =>
            {
                let words = crate::extract::unmatched::split(&value);
                let reason =
                    format!("tool `{tool}` cannot express 「{value}」 of the question (the model's unmatched)");
                let joined = crate::extract::unmatched::join(&words);
                let message = Message::unmatched(&tool, &param, &joined, &words);
                self.degrade(reason, message, asked, &question, &mut trace).await
            }
            Plan::Unsupported { tool, param, value } => {
                let reason = format!("tool `{tool}` cannot take {param}=「{value}」");
                let label = self.labels(&tool, std::slice::from_ref(&param)).remove(0);
                let spec = self.planner.catalog().get(&tool).and_then(|t| t.param(&param).cloned());
                let bound = |b: Option<&Value>| b.map(|v| v.to_string());
                let stated = value.trim().parse::<f64>().ok();
                let below = |b: &Option<Value>| {
                    b.as_ref()
                        .and_then(Value::as_f64)
                        .zip(stated)
                        .is_some_and(|(b, a)| a < b)
                };
                let above = |b: &Option<Value>| {
                    b.as_ref()
                        .and_then(Value::as_f64)
                        .zip(stated)
                        .is_some_and(|(b, a)| a > b)
                };
                let message = match spec.filter(|s| below(&s.minimum) || above(&s.maximum)) {
                    Some(spec) => Message::beyond_range(
                        &tool,
                        &param,
                        &label,
                        &value,
                        bound(spec.minimum.as_ref()).as_deref(),
                        bound(spec.maximum.as_ref()).as_deref(),
                    ),
                    None => Message::unsupported_value(&tool, &param, &label, &value),
                };
                self.degrade(reason, message, asked, &question, &mut trace).await
            }
            Plan::Fallback {
                unmet: Some(coverage), ..
            } if self.fallback.is_none() || self.planner.fallback_tool().is_none() => self.coverage_stop(&coverage),
            Plan::Fallback { reason, message, .. } => {
                self.degrade(reason, *message, asked, &question, &mut trace).await
            }
            Plan::Rejected { tool, error } => AskOutcome::Rejected { tool, error },
            Plan::Stopped {
                step,
                message,
                audience,
            } => AskOutcome::stopped(&step, vec![*message], vec![], audience),
        };
        Answer::new(outcome, question, trace, &self.planner)
    }

    async fn execute(
        &self,
        tool_name: String,
        params: Map<String, Value>,
        asked: &Asked<'_>,
        question: &str,
        trace: &mut Trace,
    ) -> AskOutcome {
        let (request, wanted) = (asked.request, asked.wanted);
        let Some(tool) = self.planner.catalog().get(&tool_name) else {
            let message = Message::not_in_catalog(&tool_name);
            return self.degrade(message.en.clone(), message, asked, question, trace).await;
        };
        let started = Instant::now();
        let mut params = params;
        let scope = Arc::clone(&asked.scope);
        if let Some(values) = &self.metric_values {
            let catalog = self.planner.catalog();
            let named =
                crate::metric::outside::outside_named(tool, question, &self.scope, &scope, catalog, &values.get());
            if let Some(refusal) = named {
                return scope_stop(refusal);
            }
        }
        if let Err(refusal) = crate::scope::apply_principal(tool, &request.viewer, &mut params) {
            return scope_stop(refusal);
        }
        let same_days = tool
            .extensions()
            .metrics
            .is_some()
            .then(|| crate::metric::running::same_days(&mut params, request.today))
            .flatten();
        let window = ListWindow::of(tool, &mut params, self.row_cap, wanted, question);
        let call = BoundCall {
            tool: tool_name.clone(),
            arguments: window.as_ref().map_or_else(|| params.clone(), |w| w.probe(&params)),
            defaulted: vec![],
            coercions: vec![],
        };
        let ctx = ExecContext {
            today: request.today,
            timeout: self.timeout,
            row_cap: self.row_cap,
            bytes: self.bytes,
            scope,
        };
        match self.executors.execute(tool, &call, &ctx).await {
            Ok(mut result) => {
                let list = window.as_ref().map(|w| w.cut(&mut result.rows, result.truncated));
                if let (Some(window), Some(list)) = (&window, &list) {
                    result.truncated = list.rows_total.is_none() && window.limit >= window.cap;
                }
                let mut understood = understood(tool, &params, request.today, self.planner.entities());
                let span = |key: &str| result.detail["span"][key].as_str().map(str::to_string);
                if let (Some(first), Some(last)) = (span("start"), span("end")) {
                    understood = understood.with_data_span(&first, &last);
                }
                let mut summary = summarize(&understood.zh, &result.columns, &result.rows);
                let mut summary_en = summarize_en(&understood.en, &result.columns, &result.rows);
                match list.map(|l| l.note(result.rows.len())) {
                    Some(note) => {
                        let (zh, en) = note.unwrap_or_default();
                        summary.push_str(&zh);
                        summary_en.push_str(&en);
                    }
                    None if !cut_note(tool, &params, result.rows.len()).is_empty() => {
                        summary.push_str(&cut_note(tool, &params, result.rows.len()));
                        summary_en.push_str(" (the first rows only: there may be more)");
                    }
                    None => {}
                }
                let catalog = self.planner.catalog();
                let total = (!result.truncated)
                    .then(|| {
                        total_row(
                            tool,
                            &params,
                            catalog,
                            question,
                            request.today,
                            &result.columns,
                            &result.rows,
                        )
                    })
                    .flatten();
                if let Some(same_days) = &same_days {
                    summary.push_str(&format!("（{}）", same_days.zh()));
                    summary_en.push_str(&format!(" ({})", same_days.en()));
                }
                let totaled = total.is_some();
                if let Some(total) = total {
                    let sums: Vec<String> = (result.columns.iter().zip(&total))
                        .filter(|(_, sum)| sum.is_number())
                        .map(|(column, sum)| format!("{column}={}", cell_text(sum)))
                        .collect();
                    summary.push_str(&format!("，{TOTAL_LABEL}：{}", sums.join("，")));
                    summary_en.push_str(&format!("; in all: {}", sums.join(", ")));
                    result.rows.push(total);
                }
                let count = result.rows.len();
                let decision = Decision::both(format!("{count} rows"), format!("{count} 行"));
                let sent = sent_sql(&result.detail);
                trace.push(execute_step(started, decision, &tool_name, &params, &result, sent));
                AskOutcome::Answered {
                    tool: tool_name,
                    params,
                    columns: result.columns,
                    rows: result.rows,
                    truncated: result.truncated,
                    totaled,
                    list,
                    summary,
                    summary_en,
                    fell_back: None,
                    fell_back_message: None,
                    sql: None,
                    understood,
                }
            }
            Err(ExecError::Scope(refusal)) => {
                let refusal = self.subject_named(refusal, tool, &params);
                let decision = Decision::both(format!("stop: {}", refusal.code), refusal.message().zh);
                trace.push(execute_step(
                    started,
                    decision,
                    &tool_name,
                    &params,
                    &refusal,
                    Vec::new(),
                ));
                scope_stop(refusal)
            }
            Err(e) => {
                let message = match &e {
                    ExecError::NotConfigured { .. } => {
                        Message::tool_not_runnable(&tool_name, tool.title().unwrap_or(&tool_name))
                    }
                    _ => Message::tool_failed(&tool_name, &e.to_string(), &e.zh()),
                };
                let reason = format!("tool `{tool_name}` failed: {e}");
                let decision = Decision::both(reason.clone(), message.zh.clone());
                trace.push(execute_step(
                    started,
                    decision,
                    &tool_name,
                    &params,
                    Value::Null,
                    Vec::new(),
                ));
                self.degrade(reason, message, asked, question, trace).await
            }
        }
    }

    /// A refusal of the subject's own ID (`movie_id = 3`) told by the subject's name, as the user asked it;
    /// `refusal` as it is when it asks another value or the ID names no entity.
    fn subject_named(
        &self,
        refusal: ScopeRefusal,
        tool: &wenshu_contract::Tool,
        params: &Map<String, Value>,
    ) -> ScopeRefusal {
        let Some(subject) = &tool.extensions().subject else {
            return refusal;
        };
        let Some(id) = params.get(&subject.param) else {
            return refusal;
        };
        let of_id = refusal
            .params
            .iter()
            .any(|(k, v)| *k == "asked" && *v == crate::scope::bound::value_text(id));
        let entity = self
            .planner
            .entities()
            .get(&subject.entity_type)
            .and_then(|index| index.by_id(id));
        match entity {
            Some(entity) if of_id => {
                crate::scope::reach::named_refusal(refusal, "", std::slice::from_ref(&entity.name))
            }
            _ => refusal,
        }
    }

    /// The labels of a tool's parameters (地区 for `region`), the name where the tool has no label.
    fn labels(&self, tool: &str, params: &[String]) -> Vec<String> {
        let tool = self.planner.catalog().get(tool);
        params
            .iter()
            .map(|p| {
                tool.and_then(|t| t.param(p))
                    .map_or_else(|| p.clone(), crate::coverage::message::param_label)
            })
            .collect()
    }

    /// The stop for the user when the routed call cannot answer the question and no fallback can run: what cannot
    /// be done, and what can be answered instead.
    fn coverage_stop(&self, coverage: &crate::coverage::Coverage) -> AskOutcome {
        let unmet = Message::new(Code::CoverageUnmet, coverage.reason(), coverage.reason_en())
            .with("tool", coverage.tool.as_str());
        let mut messages = vec![unmet];
        if !coverage.instead.is_empty() {
            let en = self
                .planner
                .catalog()
                .get(&coverage.tool)
                .map(crate::coverage::message::instead_en)
                .unwrap_or_default();
            messages.push(
                Message::new(
                    Code::CoverageInstead,
                    format!("可以回答：{}", coverage.instead.join("；")),
                    format!("It can answer: {}", en.join("; ")),
                )
                .with("tool", coverage.tool.as_str()),
            );
        }
        // How another tool could be asked: what it would need (没有指明要统计的指标（可选：销售额、…）).
        for (title, needs) in &coverage.others {
            messages.push(
                Message::new(
                    Code::CoverageInstead,
                    format!("换个问法（{title}）：{needs}"),
                    format!("Asked another way ({title}): {needs}"),
                )
                .with("tool", coverage.tool.as_str()),
            );
        }
        AskOutcome::stopped("coverage", messages, vec![], Audience::User)
    }

    /// The stop when the fallback cannot run: for the user (with a hint for the administrator) when another wording
    /// may help, else for the administrator.
    fn no_fallback(&self, message: Message, admin_stop: Message) -> AskOutcome {
        if message.code.user_fixable() {
            let hint = Message::enable_fallback(self.fallback.is_none());
            AskOutcome::stopped("fallback", vec![message], vec![hint], Audience::User)
        } else {
            AskOutcome::stopped("fallback", vec![message, admin_stop], vec![], Audience::Admin)
        }
    }

    /// Degrades once to the fallback tool; says why it could not when it cannot.
    async fn degrade(
        &self,
        reason: String,
        message: Message,
        asked: &Asked<'_>,
        question: &str,
        trace: &mut Trace,
    ) -> AskOutcome {
        let request = asked.request;
        let started = Instant::now();
        // What can be asked instead lists only the tools that can run here: another would be a dead end.
        let message = if message.code == Code::QuestionOutsideTools {
            let runnable: Vec<&wenshu_contract::Tool> = (self.planner.askable_tools().into_iter())
                .filter(|t| self.can_execute(t.name()))
                .collect();
            Message::outside_tools(&runnable)
        } else {
            message
        };
        let Some(tool) = self.planner.fallback_tool() else {
            trace.record(
                "fallback",
                started,
                Decision::both("the fallback tool is disabled", "兜底工具已停用"),
                json!({"reason": reason}),
                Value::Null,
            );
            return self.no_fallback(message, Message::fallback_disabled());
        };
        let Some(fallback) = &self.fallback else {
            trace.record(
                "fallback",
                started,
                Decision::both("no model for the fallback", "兜底没有配置模型"),
                json!({"reason": reason}),
                Value::Null,
            );
            return self.no_fallback(message, Message::fallback_no_model());
        };
        let run = fallback
            .run_asked(question, &request.question, request.today, &asked.scope)
            .await;
        let tries = run.attempts.len();
        let decision = match &run.rows {
            Some(rows) => Decision::both(
                format!("{} rows after {tries} SQL attempt(s)", rows.rows.len()),
                format!("{} 行，尝试 SQL {tries} 次", rows.rows.len()),
            ),
            None => Decision::both(
                format!("stopped after {tries} SQL attempt(s)"),
                format!("尝试 SQL {tries} 次后停止"),
            ),
        };
        let tokens: u64 = run
            .attempts
            .iter()
            .filter_map(|a| a.call.usage.as_ref())
            .map(|u| u.total_tokens)
            .sum();
        let input = json!({"reason": reason, "question": question});
        let step = TraceStep {
            tokens: (tokens > 0).then_some(tokens),
            ..TraceStep::timed("fallback", started, decision, input, &run)
        };
        trace.push(step.with_ran(Executed {
            tool: tool.name().to_string(),
            params: Map::new(),
            statements: run.sent_sql(),
        }));
        if let Some(refusal) = run.scope_refusal {
            return scope_stop(refusal);
        }
        match run.rows {
            Some(rows) => AskOutcome::Answered {
                tool: tool.name().to_string(),
                params: json!({"question": question}).as_object().cloned().unwrap_or_default(),
                summary: summarize(&understood_fallback(question).zh, &rows.columns, &rows.rows),
                summary_en: summarize_en(&understood_fallback(question).en, &rows.columns, &rows.rows),
                columns: rows.columns,
                rows: rows.rows,
                truncated: rows.truncated,
                totaled: false,
                list: None,
                fell_back: Some(reason),
                fell_back_message: Some(Box::new(message)),
                sql: run.final_sql,
                understood: understood_fallback(question),
            },
            None => {
                let service_down = run.attempts.iter().any(|a| a.call.service_failed());
                let audience = if service_down { Audience::Admin } else { Audience::User };
                let mut messages = vec![message];
                // Each failed attempt's reason in both languages; the correction refused for the same reason as
                // the first try is one reason, said once.
                let mut said = std::collections::HashSet::new();
                messages.extend(
                    run.attempts
                        .iter()
                        .filter_map(SqlAttempt::failure)
                        .filter(|m| said.insert(m.zh.clone())),
                );
                AskOutcome::stopped("fallback", messages, vec![], audience)
            }
        }
    }
}

/// One sentence about a result, after what ran (理解为): the single row's values, or how many rows and which
/// columns.
pub fn summarize(understood: &str, columns: &[String], rows: &[Vec<Value>]) -> String {
    let no_value = |row: &Vec<Value>| row.iter().all(Value::is_null);
    match (rows, one_row(columns, rows)) {
        ([], _) => format!("{understood}：没有查到数据"),
        ([row], _) if no_value(row) => format!("{understood}：没有查到数据"),
        (_, Some(pairs)) => format!("{understood} → {}", pairs.join("，")),
        _ => format!("{understood}：{} 行（{}）", rows.len(), columns.join("、")),
    }
}

/// The one row of a result as `column=value` pairs, when it has one row of at most four columns.
fn one_row(columns: &[String], rows: &[Vec<Value>]) -> Option<Vec<String>> {
    match rows {
        [row] if columns.len() <= 4 => Some(
            columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{c}={}", cell_text(v)))
                .collect(),
        ),
        _ => None,
    }
}

/// One cell as the summary shows it: text as it is, a fraction without the noise of binary floating point
/// (5974.5599999999995 → 5974.56: six decimals at most).
fn cell_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(n) if n.is_f64() => n.as_f64().map_or_else(
            || n.to_string(),
            |x| {
                let rounded = (x * 1e6).round() / 1e6;
                if rounded.is_finite() {
                    rounded.to_string()
                } else {
                    x.to_string()
                }
            },
        ),
        other => other.to_string(),
    }
}

/// [`summarize`] in English: the single row's values, or how many rows and which columns.
pub fn summarize_en(understood: &str, columns: &[String], rows: &[Vec<Value>]) -> String {
    let no_value = |row: &Vec<Value>| row.iter().all(Value::is_null);
    match (rows, one_row(columns, rows)) {
        ([], _) => format!("{understood}: no data found"),
        ([row], _) if no_value(row) => format!("{understood}: no data found"),
        (_, Some(pairs)) => format!("{understood} → {}", pairs.join(", ")),
        ([_], None) => format!("{understood}: 1 row ({})", columns.join(", ")),
        _ => format!("{understood}: {} rows ({})", rows.len(), columns.join(", ")),
    }
}

/// The note of a list cut by a default row limit: 「显示前 10 行，可能还有更多」; empty when not cut.
pub fn cut_note(tool: &wenshu_contract::Tool, params: &Map<String, Value>, rows: usize) -> String {
    let Some((param, limit)) = crate::offer::offer_of(tool, params).limit else {
        return String::new();
    };
    let defaulted = tool
        .param(&param)
        .and_then(|spec| spec.default.as_ref())
        .and_then(Value::as_u64)
        == Some(limit);
    if defaulted && rows as u64 >= limit {
        format!("（显示前 {limit} 行，可能还有更多）")
    } else {
        String::new()
    }
}

/// The stop of a question the viewer's row scope refuses: what was asked and what the scope is.
/// The execute step of `tool` called with `params`, ending in `output`, with the SQL it `sent` attached.
fn execute_step(
    started: Instant,
    decision: Decision,
    tool: &str,
    params: &Map<String, Value>,
    output: impl Serialize,
    sent: Vec<SentSql>,
) -> TraceStep {
    let input = json!({"tool": tool, "params": params});
    TraceStep::timed("execute", started, decision, input, output).with_ran(Executed {
        tool: tool.to_string(),
        params: params.clone(),
        statements: sent,
    })
}

/// One ask as the engine answers it: the request, the rows wanted, and the viewer's scope bound once.
struct Asked<'a> {
    request: &'a AskRequest,
    wanted: RowsWanted,
    scope: Arc<BoundScope>,
}

fn scope_stop(refusal: ScopeRefusal) -> AskOutcome {
    let message = refusal.message();
    let audience = if message.code.user_fixable() {
        Audience::User
    } else {
        Audience::Admin
    };
    AskOutcome::stopped("scope", vec![message], vec![], audience)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wenshu_contract::Catalog;

    use super::*;

    #[test]
    fn a_summary_shows_numbers_without_floating_point_noise() {
        let columns = vec!["票房".to_string(), "名称".to_string(), "场次".to_string()];
        let rows = vec![vec![json!(5974.5599999999995), json!("长津湖"), json!(12)]];
        assert_eq!(
            summarize("最近7天", &columns, &rows),
            "最近7天 → 票房=5974.56，名称=长津湖，场次=12"
        );
        assert_eq!(
            summarize_en("last 7 days", &columns, &rows),
            "last 7 days → 票房=5974.56, 名称=长津湖, 场次=12"
        );
        assert_eq!(cell_text(&json!(0.125)), "0.125");
        // A period the data does not reach (SUM over no row) is no data, never 销售额=null.
        let nothing = vec![vec![Value::Null]];
        let sum = ["销售额".to_string()];
        assert_eq!(summarize("2024年1月", &sum, &nothing), "2024年1月：没有查到数据");
        assert_eq!(summarize_en("2024-01", &sum, &nothing), "2024-01: no data found");
    }

    #[test]
    fn a_list_cut_by_the_default_limit_says_so() {
        let catalog = Catalog::from_json_str(
            &json!({"tools": [{"name": "rows", "inputSchema": {"type": "object", "properties": {
                "limit": {"type": "integer", "default": 10}}},
                "x-answers": {"shape": "rows", "limit": "limit"}}]})
            .to_string(),
        )
        .unwrap();
        let tool = catalog.get("rows").unwrap();
        let params = |n: u64| json!({ "limit": n }).as_object().cloned().unwrap_or_default();
        assert_eq!(cut_note(tool, &params(10), 10), "（显示前 10 行，可能还有更多）");
        assert_eq!(cut_note(tool, &params(10), 7), "");
        // A limit the question asked for is no cut.
        assert_eq!(cut_note(tool, &params(20), 20), "");
    }

    #[test]
    fn a_stop_outside_every_tool_leaves_no_examples_in_the_history() {
        let outside = Message::new(
            Code::QuestionOutsideTools,
            "没有工具能回答这个问题。可以问：甲（如「乙的评分」）",
            "…",
        );
        let outcome = AskOutcome::stopped(
            "fallback",
            vec![outside],
            vec![Message::enable_fallback(true)],
            Audience::User,
        );
        assert_eq!(
            conclusion_of(&outcome, "今天天气怎么样"),
            "今天天气怎么样：未能回答（没有工具能回答这个问题）"
        );
    }

    #[test]
    fn the_summary_reads_in_both_languages() {
        let columns = vec!["amount".to_string(), "orders".to_string()];
        let one = vec![vec![json!(118193), json!(2)]];
        assert_eq!(
            summarize("华东 · 本月", &columns, &one),
            "华东 · 本月 → amount=118193，orders=2"
        );
        assert_eq!(
            summarize_en("East · this month", &columns, &one),
            "East · this month → amount=118193, orders=2"
        );
        assert_eq!(summarize_en("x", &columns, &[]), "x: no data found");
        let two = vec![vec![json!(1), json!(2)], vec![json!(3), json!(4)]];
        assert_eq!(summarize_en("x", &columns, &two), "x: 2 rows (amount, orders)");
    }
}
