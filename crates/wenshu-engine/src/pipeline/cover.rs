//! The coverage stage of the planner: a bound call that does not answer everything the question asks is not
//! run as if it did — another mode of the tool, then another tool that may answer, then the fallback.

use std::borrow::Cow;
use std::time::Instant;

use serde_json::{Map, Value, json};
use wenshu_contract::Tool;
use wenshu_lexicon::demand::Demand;

use super::{AskRequest, Planner};
use crate::check::CheckedRoute;
use crate::coverage::measures::unshown_measures;
use crate::coverage::{Coverage, check_with, fitting_modes, question_demands, unread_own_words, values};
use crate::facts::QuestionFacts;
use crate::lexicon::LexiconRouter;
use crate::plan::Plan;
use crate::route::RouteInput;
use crate::trace::{Decision, Trace};
use wenshu_lexicon::words::cues::without_opener;
use wenshu_lexicon::words::quantity::QUANTITY_WORDS;

impl Planner {
    /// Checks an `ok` plan's coverage; an unmet one becomes another mode or tool that answers, or the fallback.
    pub(super) async fn cover(
        &self,
        request: &AskRequest,
        checked: &CheckedRoute,
        plan: Plan,
        trace: &mut Trace,
    ) -> Plan {
        let Plan::Ok { tool, params } = &plan else {
            return self.metric_instead(request, checked, plan, trace).await;
        };
        let Some(routed) = self.catalog.get(tool) else {
            return plan;
        };
        let started = Instant::now();
        let read = self.read_question(request, checked);
        let question = read.as_ref();
        let facts = QuestionFacts::shared(question, request.today);
        let demands = question_demands(&facts);
        let first = self.judge(request, routed, params, &facts, &demands);
        let input = json!({"tool": tool, "params": params, "question": question});
        if first.is_met() {
            let why = if demands.is_empty() {
                Decision::both(
                    "every value is taken; the question asks for nothing more",
                    "每个值都已采用；问题没有其他要求",
                )
            } else {
                let source = &first.offer.source;
                Decision::both(
                    format!("every value and demand is met by {source}"),
                    format!("每个值和要求都由 {source} 满足"),
                )
            };
            trace.record("coverage", started, why, input, &first);
            return plan;
        }
        trace.record("coverage", started, unmet_decision(None, &first), input, &first);
        if let Some(found) = self
            .other_modes(request, checked, routed, params, &facts, &demands, trace)
            .await
        {
            return found;
        }
        let demand_unmet = first.unmet.len() > first.value_unmet;
        let mut others = Vec::new();
        if let Some(found) = self
            .other_tools(
                request,
                checked,
                routed,
                &facts,
                &first.named,
                &demands,
                demand_unmet,
                &mut others,
                trace,
            )
            .await
        {
            return found;
        }
        let mut first = first;
        first.others = others;
        Plan::Fallback {
            tool: self.fallback_tool().map(|t| t.name().to_string()),
            reason: first.reason(),
            message: Box::new(
                crate::message::Message::new(crate::message::Code::CoverageUnmet, first.reason(), first.reason_en())
                    .with("tool", tool.as_str()),
            ),
            question: question.to_string(),
            unmet: Some(Box::new(first)),
        }
    }

    /// The routed tool with another mode whose declared answer meets every demand.
    #[allow(clippy::too_many_arguments)]
    async fn other_modes(
        &self,
        request: &AskRequest,
        checked: &CheckedRoute,
        tool: &Tool,
        params: &Map<String, Value>,
        facts: &QuestionFacts,
        demands: &[Demand],
        trace: &mut Trace,
    ) -> Option<Plan> {
        for (param, value) in fitting_modes(tool, params, demands) {
            let mut extra = Map::new();
            extra.insert(param, Value::String(value));
            let plan = self.plan_tool(request, checked, extra, trace).await;
            if self.covered(request, &plan, facts, demands, trace) {
                return Some(plan);
            }
        }
        None
    }

    /// Another tool that may meet every demand: a metric tool, or (when a demand is unmet) one with `x-answers`
    /// and no subject to resolve whose declared answers fit; planned, and taken when it takes every value the
    /// question names for the routed tool (`named`) and meets every demand; what a metric tool tried would need goes to
    /// `others`.
    #[allow(clippy::too_many_arguments)]
    async fn other_tools(
        &self,
        request: &AskRequest,
        checked: &CheckedRoute,
        routed: &Tool,
        facts: &QuestionFacts,
        named: &[(String, Vec<String>)],
        demands: &[Demand],
        demand_unmet: bool,
        others: &mut Vec<(String, String)>,
        trace: &mut Trace,
    ) -> Option<Plan> {
        let fallback = self.catalog.fallback().map(Tool::name);
        let candidates: Vec<&Tool> = self
            .catalog
            .tools()
            .iter()
            .filter(|t| t.name() != routed.name() && Some(t.name()) != fallback && self.is_enabled(t.name()))
            .filter(|t| t.extensions().subject.is_none())
            .filter(|t| t.extensions().metrics.is_some() || (demand_unmet && may_answer(t, demands)))
            .collect();
        for tool in candidates {
            let mut other = checked.clone();
            other.tool = Some(tool.name().to_string());
            let mut extra = Map::new();
            if let Some((param, value)) = fitting_modes(tool, &Map::new(), demands).into_iter().next() {
                extra.insert(param, Value::String(value));
            }
            let plan = self.plan_tool(request, &other, extra, trace).await;
            // A metric tool that could not build the query says what it needs (没有指明要统计的指标…).
            if let Plan::Unsupported { value, .. } = &plan
                && tool
                    .extensions()
                    .metrics
                    .as_deref()
                    .is_some_and(|m| names_part_of(m, &facts.question))
            {
                others.push((tool.title().unwrap_or(tool.name()).to_string(), value.clone()));
            }
            let takes_named = matches!(&plan, Plan::Ok { params, .. } if values::takes_all(params, named));
            if takes_named && self.covered(request, &plan, facts, demands, trace) {
                return Some(plan);
            }
        }
        None
    }

    /// A plan that is not `ok` — the routed tool cannot take a value, lacks a parameter the question asks
    /// something else of, or no tool was routed: a metric tool whose query meets every value and demand, else the
    /// plan as it was (see the `metric` module).
    async fn metric_instead(
        &self,
        request: &AskRequest,
        checked: &CheckedRoute,
        plan: Plan,
        trace: &mut Trace,
    ) -> Plan {
        let read = self.read_question(request, checked);
        let question = read.as_ref();
        let facts = QuestionFacts::shared(question, request.today);
        let demands = question_demands(&facts);
        let worth = match &plan {
            // 上个月的订单有多少 (an order lookup lacking its ID), 本月客单价是多少 (no tool routed): a metric query
            // that accounts for every word of the question answers it; the builder refuses one that does not.
            // 上个月科幻片的票房 (科幻片 no movie's name): a metric query reading 科幻 as a value; a name it does
            // not know is refused by the builder (不认识「战狼3」).
            // 帮我查一下订单 (a lookup naming no period and asking no quantity): its missing ID is asked for, never
            // a count of everything.
            Plan::Missing { .. } => !demands.is_empty() || !facts.times.is_empty() || asks_quantity(question),
            Plan::Unsupported { .. } | Plan::Fallback { .. } | Plan::NotFound { .. } => true,
            _ => false,
        };
        if !worth {
            return plan;
        }
        let metric_tools = self
            .catalog
            .tools()
            .iter()
            .filter(|t| t.extensions().metrics.is_some() && self.is_enabled(t.name()));
        for tool in metric_tools {
            let mut other = checked.clone();
            other.tool = Some(tool.name().to_string());
            other.subject_type = None;
            other.subject_name = None;
            let found = self.plan_tool(request, &other, Map::new(), trace).await;
            if self.covered(request, &found, &facts, &demands, trace) {
                return found;
            }
        }
        plan
    }

    /// The coverage of one call of `tool`: the question read (`facts`, with `demands`), the measures it names,
    /// and — when that reading is a rewrite carrying earlier rounds — every word the user wrote this round.
    fn judge(
        &self,
        request: &AskRequest,
        tool: &Tool,
        params: &Map<String, Value>,
        facts: &QuestionFacts,
        demands: &[Demand],
    ) -> Coverage {
        let mut coverage = check_with(tool, params, facts, demands.to_vec(), &self.entities);
        if facts.question != request.question {
            let own = QuestionFacts::shared(without_opener(&request.question), request.today);
            for unmet in unread_own_words(tool, params, &own, &self.entities) {
                if !coverage.unmet.iter().any(|u| u.words == unmet.words) {
                    coverage.unmet.push(unmet);
                }
            }
        }
        coverage
            .unmet
            .extend(unshown_measures(&self.catalog, &coverage.offer, &facts.question));
        coverage
    }

    /// Whether a plan is `ok` and its call meets every value and demand (recorded as a coverage step).
    fn covered(
        &self,
        request: &AskRequest,
        plan: &Plan,
        facts: &QuestionFacts,
        demands: &[Demand],
        trace: &mut Trace,
    ) -> bool {
        let Plan::Ok { tool, params } = plan else {
            return false;
        };
        let Some(t) = self.catalog.get(tool) else {
            return false;
        };
        let started = Instant::now();
        let coverage = self.judge(request, t, params, facts, demands);
        let met = coverage.is_met();
        let why = if met {
            Decision::both(
                format!("{tool} meets every value and demand"),
                format!("{tool} 满足每个值和要求"),
            )
        } else {
            unmet_decision(Some(tool), &coverage)
        };
        trace.record(
            "coverage",
            started,
            why,
            json!({"tool": tool, "params": params}),
            &coverage,
        );
        met
    }
}

impl Planner {
    /// The question coverage reads: the user's own words when there is no history — a model's rewrite is what the
    /// model understood, never evidence. With history, the rewrite that carries the earlier rounds into the
    /// question as code makes it from the user's rounds (the lexicon engine's): the lexicon engine's own route has
    /// it; on the model engine the lexicon router reads the rounds again, and where it routes elsewhere the user's
    /// words alone are read.
    fn read_question<'a>(&self, request: &'a AskRequest, checked: &'a CheckedRoute) -> Cow<'a, str> {
        if request.history.is_empty() {
            return Cow::Borrowed(&request.question);
        }
        if self.router.engine() == "lexicon" {
            return Cow::Borrowed(&checked.rewritten_question);
        }
        let input = RouteInput {
            question: &request.question,
            history: &request.history,
            today: request.today,
            timezone: &self.timezone,
            tools: self.routable_tools(),
            subject_types: self.entities.types().into_iter().map(str::to_string).collect(),
        };
        let code = LexiconRouter::new(self.entities.clone()).route_now(&input);
        match code.decision {
            Some(decision) if decision.tool_code.is_some() && decision.tool_code == checked.tool => decision
                .rewritten_question
                .map_or(Cow::Borrowed(request.question.as_str()), Cow::Owned),
            _ => Cow::Borrowed(&request.question),
        }
    }
}

/// Whether one of a tool's declared answers could meet every demand (the values are checked after planning).
fn may_answer(tool: &Tool, demands: &[Demand]) -> bool {
    let Some(answers) = &tool.extensions().answers else {
        return false;
    };
    match answers.mode_param() {
        Some(_) => !fitting_modes(tool, &Map::new(), demands).is_empty(),
        None => {
            let offer = crate::offer::offer_of(tool, &Map::new());
            demands
                .iter()
                .all(|d| crate::coverage::meets::meets(d, &offer, tool, &Map::new(), demands).is_ok())
        }
    }
}

/// Whether `question` asks for a quantity rather than a record (上个月的订单有多少, not 帮我查一下订单).
fn asks_quantity(question: &str) -> bool {
    let folded = question.to_lowercase();
    QUANTITY_WORDS.iter().any(|w| folded.contains(w))
}

/// The coverage step's decision when something is unmet (after the tool's name, when given), in both languages.
fn unmet_decision(tool: Option<&str>, coverage: &Coverage) -> Decision {
    let named = |text: String| tool.map_or_else(|| text.clone(), |tool| format!("{tool}: {text}"));
    Decision::both(
        named(format!("unmet: {}", coverage.reason_en())),
        named(format!("未满足：{}", coverage.reason())),
    )
}

/// Whether `question` names one of a metric model's measures or dimensions (by label or synonym): its tool is one
/// the user may mean, so what it would need is worth saying.
fn names_part_of(model: &wenshu_contract::metric::MetricModel, question: &str) -> bool {
    let measures = model
        .measures
        .iter()
        .flat_map(|m| std::iter::once(&m.label).chain(&m.synonyms));
    let dimensions = model
        .dimensions
        .iter()
        .flat_map(|d| std::iter::once(&d.label).chain(&d.synonyms));
    measures
        .chain(dimensions)
        .any(|word| !word.is_empty() && question.contains(word.as_str()))
}
