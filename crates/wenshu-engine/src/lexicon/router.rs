//! The lexicon router: tool, subject, dates and rewritten question from the catalog's words, the entity catalogs
//! and the last three rounds — no model.

use std::sync::{Arc, Mutex};

use jiff::civil::Date;

use serde_json::json;
use wenshu_contract::{ParamType, Tool};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::DemandKind;
use wenshu_lexicon::place::scan_places;
use wenshu_lexicon::scan;

use super::flags::flag_words;
use super::history::{EarlierRange, last_subject, newest_first, previous_range};
use super::legs::leg_of;
use super::names::choose_with_names;
use super::rewrite::{RewriteInput, rewrite_with_edits};
use super::subject::{SubjectFinding, find_subject};
use super::tool_choice::NamedEntity;
use super::tool_choice::{THRESHOLD, ToolChoice, entity_mentions};
use super::tool_index::ToolIndex;
use crate::facts::QuestionFacts;
use crate::param_kinds::is_place_param;
use crate::resolve::EntityCatalogs;
use crate::route::{BoxFuture, MAX_HISTORY, RouteDecision, RouteInput, RouteResult, Router, Turn};
use wenshu_lexicon::sentence::Sentence;
use wenshu_lexicon::words::cues::{has_reference, looks_like_follow_up, opener_len, trim_function_words};

/// The tools an index was built for (each by address and name) and the day, with the index.
type CachedIndex = (Vec<(usize, String)>, Date, Arc<ToolIndex>);

/// Routes questions with the catalog's words and the entity catalogs.
#[derive(Clone)]
pub struct LexiconRouter {
    entities: Arc<EntityCatalogs>,
    /// The last index built, reused while the same tools are routed on the same day.
    index: Arc<Mutex<Option<CachedIndex>>>,
}

impl std::fmt::Debug for LexiconRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LexiconRouter").finish_non_exhaustive()
    }
}

/// The tool a route settles on and whether it carries over from an earlier round.
struct Settled<'a> {
    tool: &'a Tool,
    /// The earlier question whose tool carries over, and how many rounds back it is.
    inherited: Option<(&'a str, usize)>,
}

impl LexiconRouter {
    /// A router over these entity catalogs.
    pub fn new(entities: Arc<EntityCatalogs>) -> Self {
        Self {
            entities,
            index: Arc::default(),
        }
    }

    /// The BM25 index of `tools` on `today`: built once, then reused until the tools or the day change.
    fn index_for(&self, tools: &[&Tool], today: Date) -> Arc<ToolIndex> {
        let key: Vec<(usize, String)> = tools
            .iter()
            .map(|t| (std::ptr::from_ref::<Tool>(t) as usize, t.name().to_string()))
            .collect();
        let mut cache = self.index.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((tools_key, day, index)) = cache.as_ref()
            && *tools_key == key
            && *day == today
        {
            return index.clone();
        }
        let index = Arc::new(ToolIndex::build(tools, &self.entities, today));
        *cache = Some((key, today, index.clone()));
        index
    }

    /// Routes one question (synchronously; [`Router::route`] wraps this).
    pub fn route_now(&self, input: &RouteInput<'_>) -> RouteResult {
        // A round that stopped answered nothing: a follow-up continues the rounds before it (那华南呢 after a
        // refused 那京津冀呢 is about the question that was answered).
        if input.history.iter().any(|turn| turn.stopped) {
            let answered: Vec<Turn> = input.history.iter().filter(|turn| !turn.stopped).cloned().collect();
            return self.route_now(&RouteInput {
                history: &answered,
                ..input.clone()
            });
        }
        let entities = self.entities.as_ref();
        let tools = &input.tools;
        let index = self.index_for(tools, input.today);
        let choice = choose_with_names(tools, &index, entities, input.question, input.today);
        let recent = input.recent_history();
        let folded: String = Sentence::new(input.question).chars.iter().collect();
        let cued = looks_like_follow_up(&folded) || has_reference(&folded);
        let previous = self.earlier_tool(input, &index);
        let Some(settled) = settle_tool(input, &choice, previous, cued) else {
            let decision = RouteDecision {
                rewritten_question: Some(input.question.to_string()),
                ..RouteDecision::default()
            };
            return RouteResult {
                decision: Some(decision),
                evidence: json!({"engine": "lexicon", "threshold": THRESHOLD, "scores": choice.scores,
                    "mentions": choice.mentions, "reason": "no tool reaches the threshold"}),
                ..RouteResult::default()
            };
        };
        let tool = settled.tool;
        let subject_type = tool.extensions().subject.as_ref().map(|s| s.entity_type.clone());
        let finding = find_subject(tool, &index, &choice.mentions, input.question, input.today);
        // A question that ranks or groups (最近30天票房前五的电影) is about many subjects: it names none and
        // inherits none; a reference (它的评分) or a bare change (那上周呢) is about the earlier one.
        let about_many = || {
            QuestionFacts::shared(input.question, input.today)
                .demands
                .iter()
                .any(|d| {
                    matches!(
                        d.kind,
                        DemandKind::Rank { .. } | DemandKind::Sort { .. } | DemandKind::Group { .. }
                    )
                })
        };
        let earlier = match (&subject_type, &finding) {
            (Some(entity_type), SubjectFinding::Reference) => {
                last_subject(recent, entity_type, tools, &index, entities, input.today)
            }
            (Some(entity_type), SubjectFinding::Nothing) if !about_many() => {
                last_subject(recent, entity_type, tools, &index, entities, input.today)
            }
            _ => None,
        };
        let subject_name = finding
            .name()
            .map(str::to_string)
            .or_else(|| earlier.as_ref().map(|e| e.name.clone()));
        let follow_up = !recent.is_empty() && (cued || settled.inherited.is_some() || earlier.is_some());
        let own_time = crate::facts::QuestionFacts::shared(input.question, input.today)
            .times
            .first()
            .cloned();
        let inherited_range: Option<EarlierRange> = match (&own_time, follow_up, &tool.extensions().date_range) {
            (None, true, Some(_)) => previous_range(recent, input.today),
            _ => None,
        };
        let dates = own_time
            .as_ref()
            .map(|t| t.date_range)
            .or(inherited_range.as_ref().map(|r| r.range));
        let edit = if follow_up {
            let understood = settled
                .inherited
                .map(|(question, rounds_back)| self.understood(input, question, rounds_back));
            let template = understood.as_deref();
            let template_mentions = template.map(|t| entity_mentions(entities, t)).unwrap_or_default();
            let template_subject = template.and_then(|t| {
                find_subject(tool, &index, &template_mentions, t, input.today)
                    .name()
                    .map(str::to_string)
            });
            let entity_swaps = entity_swaps(tool, &template_mentions, &choice.mentions);
            Some(rewrite_with_edits(&RewriteInput {
                question: input.question,
                tool,
                subject: subject_name.as_deref(),
                subject_from_history: earlier.is_some(),
                inherited_time: inherited_range.as_ref().map(|r| r.words.as_str()),
                template,
                template_subject: template_subject.as_deref(),
                entity_swaps,
                today: input.today,
            }))
        } else {
            None
        };
        let rewritten = edit
            .as_ref()
            .map_or_else(|| input.question.to_string(), |edit| edit.text.clone());
        let decision = RouteDecision {
            tool_code: Some(tool.name().to_string()),
            subject_type: subject_name.as_ref().and(subject_type),
            subject_name,
            start_date: dates.map(|d| d.start.to_string()),
            end_date: dates.map(|d| d.end.to_string()),
            rewritten_question: Some(rewritten),
        };
        let evidence = json!({
            "engine": "lexicon",
            "threshold": THRESHOLD,
            "scores": choice.scores,
            "mentions": choice.mentions,
            "followUp": follow_up,
            "inheritedTool": settled.inherited.map(|(question, rounds_back)| json!({"from": question, "roundsBack": rounds_back})),
            "subject": {"finding": finding, "earlier": earlier},
            "edit": edit.map(|edit| json!({"of": edit.of, "changes": edit.edits})),
            "dates": match (&own_time, &inherited_range) {
                (Some(t), _) => json!({"from": "question", "words": input.question.get(t.range.clone())}),
                (None, Some(r)) => json!({"from": "previous round", "words": r.words}),
                (None, None) => json!(null),
            },
        });
        RouteResult {
            decision: Some(decision),
            evidence,
            ..RouteResult::default()
        }
    }
}

impl LexiconRouter {
    /// The tool the newest earlier round that chose one was routed to, and how many rounds back: a round that
    /// was itself a follow-up (那华南呢) is routed with the rounds before it (the last [`MAX_HISTORY`], so the
    /// rounds looked back on shrink at each step), so its tool is the one it kept.
    fn earlier_tool(&self, input: &RouteInput<'_>, index: &ToolIndex) -> Option<(String, usize)> {
        let recent = input.recent_history();
        newest_first(recent).find_map(|(rounds_back, turn)| {
            input.history.len().checked_sub(rounds_back)?;
            let tool = match self.route_follow_up(input, &turn.question, rounds_back) {
                Some(routed) => routed.decision.and_then(|d| d.tool_code),
                None => choose_with_names(&input.tools, index, &self.entities, &turn.question, input.today).chosen,
            };
            tool.map(|tool| (tool, rounds_back))
        })
    }

    /// An earlier round `rounds_back` rounds before the question, routed again with the rounds before it, when it
    /// was itself a follow-up (那华南呢, 它的评分呢) and has rounds before it; `None` for a question of its own.
    fn route_follow_up(&self, input: &RouteInput<'_>, question: &str, rounds_back: usize) -> Option<RouteResult> {
        let at = input.history.len().checked_sub(rounds_back)?;
        let folded: String = Sentence::new(question).chars.iter().collect();
        if at == 0 || !(looks_like_follow_up(&folded) || has_reference(&folded)) {
            return None;
        }
        let earlier = RouteInput {
            question,
            history: input
                .history
                .get(at.saturating_sub(MAX_HISTORY)..at)
                .unwrap_or_default(),
            ..input.clone()
        };
        Some(self.route_now(&earlier))
    }

    /// An earlier round's question as understood: a follow-up itself (那年假呢) is rewritten against the rounds
    /// before it, so a chain of follow-ups keeps what the first question said.
    fn understood(&self, input: &RouteInput<'_>, question: &str, rounds_back: usize) -> String {
        self.route_follow_up(input, question, rounds_back)
            .and_then(|routed| routed.decision)
            .and_then(|d| d.rewritten_question)
            .unwrap_or_else(|| question.to_string())
    }
}

/// The tool: the question's own when its words reach the threshold; in a follow-up whose words do not, the tool
/// of the newest earlier round, when the question's named entities fit it; else the best score if it reaches the
/// threshold (a named entity alone does).
fn settle_tool<'a>(
    input: &RouteInput<'a>,
    choice: &ToolChoice,
    previous: Option<(String, usize)>,
    cued: bool,
) -> Option<Settled<'a>> {
    let find = |name: &str| input.tools.iter().copied().find(|t| t.name() == name);
    let best = choice.scores.first();
    let own_enough = best.is_some_and(|b| b.own >= THRESHOLD && b.excluded.is_none());
    let aggregate = best.is_some_and(|b| b.excluded.is_some());
    let history: &'a [Turn] = input.history;
    let recent = &history[history.len().saturating_sub(MAX_HISTORY)..];
    // A question made of nothing but the earlier tool's values continues it, with or without 那…呢.
    let swap = (!aggregate && !recent.is_empty())
        .then(|| previous.clone())
        .flatten()
        .and_then(|(name, rounds_back)| find(&name).map(|tool| (tool, rounds_back)))
        .filter(|(tool, _)| changes_only_values(tool, input.question, &choice.mentions, input.today))
        // Without a cue, a question that names what it measures (本月西南区的销售额) is complete: a new question.
        .filter(|(tool, _)| cued || !names_a_measure(tool, input.question));
    if let Some((tool, rounds_back)) = swap {
        let question = round_back(recent, rounds_back).map_or("", |t| t.question.as_str());
        return Some(Settled {
            tool,
            inherited: Some((question, rounds_back)),
        });
    }
    if !own_enough && !aggregate && !recent.is_empty() {
        let named = !choice.mentions.is_empty();
        if (cued || named)
            && let Some((name, rounds_back)) = previous.clone()
            && let Some(tool) = find(&name)
            && choice.mentions.iter().all(|m| fits(tool, &m.entity_type))
        {
            let question = round_back(recent, rounds_back).map_or("", |t| t.question.as_str());
            return Some(Settled {
                tool,
                inherited: Some((question, rounds_back)),
            });
        }
    }
    let chosen = choice.chosen.as_deref().and_then(find)?;
    let same_as_before = match previous {
        Some((name, rounds_back)) if cued && name == chosen.name() => {
            round_back(recent, rounds_back).map(|t| (t.question.as_str(), rounds_back))
        }
        _ => None,
    };
    Some(Settled {
        tool: chosen,
        inherited: same_as_before,
    })
}

/// The round `rounds_back` rounds before the question (1: the last one), if the history holds it.
fn round_back(recent: &[Turn], rounds_back: usize) -> Option<&Turn> {
    recent.len().checked_sub(rounds_back).and_then(|i| recent.get(i))
}

/// Whether a follow-up only puts other values into the earlier tool's question (那中通呢, 那上个月呢, 那上海呢,
/// 只看逾期的呢): once the tool's enum spellings and yes/no flags, time expressions and numerals, entity names of
/// types the tool takes, places
/// (for a tool with a place or route parameter), the opener and function words are taken out, nothing is left —
/// and something was taken.
fn changes_only_values(tool: &Tool, question: &str, mentions: &[NamedEntity], today: Date) -> bool {
    let mut sentence = Sentence::new(question);
    let opener = opener_len(&sentence.chars);
    sentence.mask_chars(&(0..opener));
    let mut values = 0;
    let mut take = |sentence: &mut Sentence, range: &std::ops::Range<usize>| {
        sentence.mask_bytes(range);
        values += 1;
    };
    for span in scan(question, today) {
        take(&mut sentence, &span.range);
    }
    for mention in mentions.iter().filter(|m| fits(tool, &m.entity_type)) {
        take(&mut sentence, &mention.range);
    }
    for spec in tool.params().iter() {
        if let Some(index) = tool.enum_index(&spec.name) {
            for hit in index.matcher().find_all(question) {
                take(&mut sentence, &hit.range);
            }
        }
    }
    for spec in tool.params().iter().filter(|p| p.ty == ParamType::Boolean) {
        if let Some(flag) = flag_words(spec, question) {
            take(&mut sentence, &flag.range);
        }
    }
    if tool.params().iter().any(|p| is_place_param(p) || leg_of(p).is_some()) {
        for place in scan_places(question) {
            take(&mut sentence, &place.range);
        }
    }
    // Another grouping (按产品呢, 换成按销售员看) edits the earlier question's grouping: coverage judges whether the
    // tool can group so.
    let groupings: Vec<std::ops::Range<usize>> = QuestionFacts::shared(question, today)
        .demands
        .iter()
        .filter(|d| matches!(d.kind, DemandKind::Group { grain: None }) && d.target.is_some())
        .map(|d| d.range.clone())
        .collect();
    for range in &groupings {
        take(&mut sentence, range);
    }
    values > 0
        && sentence
            .open_runs()
            .into_iter()
            .map(|run| trim_function_words(&sentence, run))
            .all(|run| run.is_empty())
}

/// The names a follow-up changes among the entities `tool` takes as parameters (not its subject): for each type,
/// the template's name and the question's, when both name one and they differ.
fn entity_swaps(tool: &Tool, template: &[NamedEntity], question: &[NamedEntity]) -> Vec<(String, String)> {
    let subject = tool.extensions().subject.as_ref().map(|s| s.entity_type.as_str());
    tool.params()
        .iter()
        .filter_map(|p| p.entity.as_deref())
        .filter(|entity_type| Some(*entity_type) != subject)
        .filter_map(|entity_type| {
            let old = template.iter().find(|m| m.entity_type == entity_type)?;
            let new = question.iter().find(|m| m.entity_type == entity_type)?;
            (old.surface != new.surface).then(|| (old.surface.clone(), new.surface.clone()))
        })
        .collect()
}

/// Whether `question` names one of the measures `tool` declares it answers (`x-answers`), two characters or more.
fn names_a_measure(tool: &Tool, question: &str) -> bool {
    let Some(answers) = &tool.extensions().answers else {
        return false;
    };
    let folded = canonical(question);
    answers
        .all()
        .iter()
        .flat_map(|(_, answer)| answer.measures.iter())
        .map(|word| canonical(word))
        .any(|word| word.chars().count() >= 2 && folded.contains(word.as_str()))
}

/// Whether a tool takes an entity of this type (as its subject or as an `x-entity` parameter).
fn fits(tool: &Tool, entity_type: &str) -> bool {
    tool.extensions()
        .subject
        .as_ref()
        .is_some_and(|s| s.entity_type == entity_type)
        || tool.params().iter().any(|p| p.entity.as_deref() == Some(entity_type))
}

impl Router for LexiconRouter {
    fn engine(&self) -> &'static str {
        "lexicon"
    }

    fn route<'a>(&'a self, input: &'a RouteInput<'a>) -> BoxFuture<'a, RouteResult> {
        Box::pin(async move { self.route_now(input) })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tool_choice::choose_tool;
    use super::*;
    use wenshu_contract::Catalog;

    /// Two tools that both take a region: bills (long words) and the overdue rate of bills (short words).
    fn catalog() -> Catalog {
        let region = serde_json::json!({"type": "string", "enum": ["华东", "华南", "华北"], "description": "地区"});
        let text = serde_json::json!({"tools": [
            {"name": "bill_query", "title": "账单查询",
             "description": "查询账单数量和明细，可按地区、账单状态、开票日期筛选，支持统计数量、明细列表和按天趋势",
             "inputSchema": {"type": "object", "properties": {
                "region": region, "onlyVoid": {"type": "boolean", "description": "只看已作废的账单，默认否"},
                "startDate": {"type": "string", "format": "date", "description": "开始日期"},
                "endDate": {"type": "string", "format": "date", "description": "结束日期"}}},
             "x-date-range": {"start": "startDate", "end": "endDate", "default": "最近7天"}},
            {"name": "overdue_rate", "title": "逾期率", "description": "各地区账单的逾期率，可只看已作废的账单",
             "inputSchema": {"type": "object", "properties": {"region": region,
                "onlyVoid": {"type": "boolean", "description": "只看已作废的账单，默认否"}}}},
            {"name": "attendance", "title": "考勤统计", "description": "员工的出勤天数和迟到次数",
             "inputSchema": {"type": "object", "properties": {}}},
            {"name": "inventory", "title": "库存查询", "description": "仓库里商品的库存件数",
             "inputSchema": {"type": "object", "properties": {}}}
        ]});
        Catalog::from_json_str(&text.to_string()).unwrap()
    }

    /// The lexicon router's decision on `question` after `history`, over the test catalog.
    fn decide(question: &str, history: &[Turn]) -> Option<crate::route::RouteDecision> {
        let catalog = catalog();
        let router = LexiconRouter::new(Arc::new(EntityCatalogs::new()));
        let input = RouteInput {
            question,
            history,
            today: jiff::civil::date(2026, 11, 29),
            timezone: "Asia/Shanghai",
            tools: catalog.tools().iter().collect(),
            subject_types: Vec::new(),
        };
        router.route_now(&input).decision
    }

    fn route(question: &str, history: &[Turn]) -> Option<String> {
        decide(question, history).and_then(|d| d.tool_code)
    }

    #[test]
    fn a_follow_up_that_only_swaps_a_value_keeps_the_earlier_tool() {
        let catalog = catalog();
        let tools: Vec<&Tool> = catalog.tools().iter().collect();
        let today = jiff::civil::date(2026, 11, 29);
        let entities = EntityCatalogs::new();
        let alone = choose_tool(
            &tools,
            &ToolIndex::build(&tools, &entities, today),
            &entities,
            "那华南呢",
            today,
        );
        assert_eq!(
            alone.scores[0].tool, "overdue_rate",
            "by its own words, the short tool is first"
        );
        let history = [Turn::new("上月华东开票的账单明细", "上月华东的账单共 12 张")];
        assert_eq!(route("那华南呢", &history).as_deref(), Some("bill_query"));
        assert_eq!(route("那上个月呢", &history).as_deref(), Some("bill_query"));
        let chain = [history[0].clone(), Turn::new("那华南呢", "上月华南的账单共 3 张")];
        let rewritten = |question: &str, history: &[Turn]| decide(question, history).and_then(|d| d.rewritten_question);
        assert_eq!(
            rewritten("那本月呢", &chain).as_deref(),
            Some("本月华南开票的账单明细"),
            "a follow-up of a follow-up keeps the first question's words"
        );
        let alone = choose_tool(
            &tools,
            &ToolIndex::build(&tools, &entities, today),
            &entities,
            "只看已作废的呢",
            today,
        );
        assert_eq!(alone.chosen.as_deref(), Some("overdue_rate"), "{:?}", alone.scores);
        assert_eq!(
            route("只看已作废的呢", &history).as_deref(),
            Some("bill_query"),
            "a flag of the earlier tool"
        );
        assert_eq!(
            route("那华南的逾期率呢", &history).as_deref(),
            Some("overdue_rate"),
            "a word of another tool changes the tool"
        );
    }
}
