//! Tool choice: BM25 over the tools' words plus evidence — an entity of a tool's subject type named in the
//! question, an enum value only one tool knows, an ID-like token for a tool with an ID parameter, a place for a
//! tool with an address — and a rule that sends aggregate questions over many subjects to the fallback.

use crate::param_kinds::{is_period_param, is_place_param};

use jiff::civil::Date;
use serde::Serialize;
use wenshu_contract::{ParamSpec, ParamType, Tool};
use wenshu_lexicon::SpanKind;
use wenshu_lexicon::numeral::NumeralKind;

use wenshu_lexicon::demand::{Aggregate, DemandKind};

use super::tool_index::ToolIndex;
use crate::facts::QuestionFacts;
use crate::offer::tool_words;
use crate::resolve::EntityCatalogs;
pub use crate::resolve::named::{NamedEntity, entity_mentions, overlaps};
use wenshu_lexicon::sentence::Sentence;
use wenshu_lexicon::words::cues::{aggregate_cues, has_reference, is_id_like, mask_question_words, related_words};

/// The least total score a tool needs to be chosen; below it the question goes to the fallback.
pub const THRESHOLD: f64 = 2.0;
/// Evidence of an entity of the tool's subject type (or of an `x-entity` parameter's type) named in the question.
pub const MENTION_BONUS: f64 = 4.0;
/// Evidence of a value (or synonym, or label) of one of the tool's enums that no other tool's words hold.
pub const ENUM_BONUS: f64 = 2.0;
/// Evidence of an ID-like token for a tool with an ID parameter.
pub const ID_BONUS: f64 = 3.0;
/// Evidence of a place for a tool with a `{province, city}` parameter.
pub const PLACE_BONUS: f64 = 1.5;
/// Evidence of a count word (多少单) for a tool whose words count that thing (单量, 订单数).
pub const COUNT_BONUS: f64 = 1.0;
/// What the score of a ranking tool is multiplied by when the question asks for no ranking.
pub const RANKING_TOOL_FACTOR: f64 = 0.5;

/// What the score of a tool of one subject is multiplied by when the question names no entity of its type and
/// refers to none (这个, 他).
pub const SUBJECTLESS_FACTOR: f64 = 0.8;

/// One tool's score and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolScore {
    /// The tool.
    pub tool: String,
    /// The BM25 score of its words.
    pub ngram: f64,
    /// The evidence bonus.
    pub evidence: f64,
    /// `ngram + evidence` (0 when excluded).
    pub total: f64,
    /// The total without the bonus for a named entity: how much the question's own words speak for the tool.
    pub own: f64,
    /// The words (n-grams of two or more characters, ASCII words) it shares with the question.
    pub matched: Vec<String>,
    /// The evidence, one line each.
    pub reasons: Vec<String>,
    /// Why the tool was set aside, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
}

/// The scores of every tool for a question, best first, and the choice.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolChoice {
    /// The chosen tool, when one reaches [`THRESHOLD`].
    pub chosen: Option<String>,
    /// Every tool's score, best first.
    pub scores: Vec<ToolScore>,
    /// The entities the question names.
    pub mentions: Vec<NamedEntity>,
}

impl ToolChoice {
    /// The score of one tool.
    pub fn score_of(&self, tool: &str) -> f64 {
        self.scores.iter().find(|s| s.tool == tool).map_or(0.0, |s| s.total)
    }
}

/// Whether a parameter takes a free identifier (a string, no enum, not the subject, its name or description says ID).
pub fn is_id_param(tool: &Tool, spec: &ParamSpec) -> bool {
    let subject = tool.extensions().subject.as_ref().map(|s| s.param.as_str());
    spec.ty == ParamType::String
        && spec.enum_values.is_empty()
        && spec.entity.is_none()
        && spec.format.is_none()
        && Some(spec.name.as_str()) != subject
        && (spec.pattern.is_some() || is_id_like(&spec.name, &spec.description))
}

/// Scores every tool for a question.
pub fn choose_tool(
    tools: &[&Tool],
    index: &ToolIndex,
    entities: &EntityCatalogs,
    question: &str,
    today: Date,
) -> ToolChoice {
    let facts = QuestionFacts::shared(question, today);
    let mentions = entity_mentions(entities, question);
    let mut query = Sentence::new(question);
    for span in &facts.times {
        query.mask_bytes(&span.range);
    }
    for mention in &mentions {
        query.mask_bytes(&mention.range);
    }
    let folded: String = query.chars.iter().collect();
    let related = related_words(&query.open_text());
    mask_question_words(&mut query);
    let has_count_or_top = facts
        .spans
        .iter()
        .any(|s| matches!(s.kind, SpanKind::Number(NumeralKind::Count | NumeralKind::TopN)));
    let (ranking, plural) = aggregate_cues(&folded, has_count_or_top);
    let asked = &facts.demands;
    let asks_rank = asked
        .iter()
        .any(|d| d.is_rank() || matches!(d.kind, DemandKind::Sort { .. }));
    let counted: Vec<String> = asked
        .iter()
        .filter(|d| d.kind == (DemandKind::Aggregate { of: Aggregate::Count }))
        .filter_map(|d| d.target.clone())
        .collect();
    let ngrams = index.score(&format!("{} {related}", query.open_text()));
    let mut scores: Vec<ToolScore> = tools
        .iter()
        .zip(ngrams)
        .map(|(tool, (name, ngram, matched))| {
            let mut score = ToolScore {
                tool: name,
                ngram,
                evidence: 0.0,
                total: 0.0,
                own: 0.0,
                matched,
                reasons: Vec::new(),
                excluded: None,
            };
            add_evidence(tool, index, &facts, &query, &mentions, &mut score);
            score.total = score.ngram + score.evidence;
            if let Some(word) = counted.iter().find(|w| counts_thing(tool, w)) {
                score.evidence += COUNT_BONUS;
                score.total += COUNT_BONUS;
                score.reasons.push(format!("「多少{word}」: the tool counts {word}"));
            }
            if !asks_rank && is_ranking_tool(tool) {
                score.total *= RANKING_TOOL_FACTOR;
                score
                    .reasons
                    .push("a ranking tool, and the question asks for no ranking".into());
            }
            if let Some(subject) = &tool.extensions().subject
                && !mentions.iter().any(|m| m.entity_type == subject.entity_type)
                && !has_reference(&folded)
            {
                score.total *= SUBJECTLESS_FACTOR;
                score.reasons.push(format!(
                    "a tool of one {}, and the question names none",
                    subject.entity_type
                ));
            }
            score.own = score.total
                - MENTION_BONUS * score.reasons.iter().filter(|r| r.starts_with("names the ")).count() as f64;
            if let Some(subject) = &tool.extensions().subject {
                let named = mentions.iter().any(|m| m.entity_type == subject.entity_type);
                if let (Some(ranking), Some(plural), false) = (ranking, plural, named) {
                    score.excluded = Some(format!(
                        "aggregate question over many {}s (「{ranking}」, 「{plural}」) and no {} named",
                        subject.entity_type, subject.entity_type
                    ));
                    score.total = 0.0;
                    score.own = 0.0;
                }
            }
            score
        })
        .collect();
    scores.sort_by(|a, b| b.total.total_cmp(&a.total));
    let chosen = scores
        .first()
        .filter(|s| s.total >= THRESHOLD && s.excluded.is_none())
        .map(|s| s.tool.clone());
    ToolChoice {
        chosen,
        scores,
        mentions,
    }
}

/// Whether a tool's own words count the thing a count word names (单 → 单量, 订单数; 人 → 人数).
fn counts_thing(tool: &Tool, word: &str) -> bool {
    let text = format!("{} {}", tool.title().unwrap_or_default(), tool.description());
    [format!("{word}量"), format!("{word}数")]
        .iter()
        .any(|w| text.contains(w.as_str()))
}

/// Whether a tool's title or name says it ranks (快递员排名, courier_ranking).
fn is_ranking_tool(tool: &Tool) -> bool {
    tool_words(tool).title_ranks
}

/// Adds the evidence for one tool.
fn add_evidence(
    tool: &Tool,
    index: &ToolIndex,
    facts: &QuestionFacts,
    query: &Sentence,
    mentions: &[NamedEntity],
    score: &mut ToolScore,
) {
    let bonus = |amount: f64, reason: String, score: &mut ToolScore| {
        score.evidence += amount;
        score.reasons.push(reason);
    };
    if let Some(subject) = &tool.extensions().subject
        && let Some(m) = mentions.iter().find(|m| m.entity_type == subject.entity_type)
    {
        bonus(
            MENTION_BONUS,
            format!("names the {} 「{}」", m.entity_type, m.surface),
            score,
        );
    }
    let mut enum_hits: Vec<std::ops::Range<usize>> = Vec::new();
    for spec in tool.params().iter() {
        if let Some(entity_type) = &spec.entity
            && let Some(m) = mentions.iter().find(|m| &m.entity_type == entity_type)
        {
            bonus(
                MENTION_BONUS,
                format!("names the {} 「{}」 ({})", entity_type, m.surface, spec.name),
                score,
            );
        }
        if is_period_param(spec, facts.today) {
            continue;
        }
        if let Some(enum_index) = tool.enum_index(&spec.name) {
            let hits = enum_index.matcher().find_all(&facts.question);
            enum_hits.extend(hits.iter().map(|h| h.range.clone()));
            let specific = hits.iter().find(|hit| {
                let surface: String = Sentence::new(facts.question.get(hit.range.clone()).unwrap_or_default())
                    .chars
                    .iter()
                    .collect();
                !query.overlaps_mask(&hit.range) && index.tools_containing(&surface) <= 1
            });
            if let Some(hit) = specific {
                let words = facts.question.get(hit.range.clone()).unwrap_or_default();
                bonus(
                    ENUM_BONUS,
                    format!("「{words}」 is {} of {}", hit.value, spec.name),
                    score,
                );
            }
        }
    }
    let tokens = super::params::free_id_tokens(facts, &enum_hits);
    if let (Some(token), Some(spec)) = (tokens.first(), tool.params().iter().find(|s| is_id_param(tool, s))) {
        bonus(ID_BONUS, format!("「{}」 looks like {}", token.text, spec.name), score);
    }
    if let (Some(place), true) = (facts.places.first(), tool.params().iter().any(is_place_param)) {
        let words = facts.question.get(place.range.clone()).unwrap_or_default();
        bonus(PLACE_BONUS, format!("the place 「{words}」"), score);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogs(names: &str) -> EntityCatalogs {
        EntityCatalogs::from_json_str(names).unwrap()
    }

    #[test]
    fn remembered_mentions_belong_to_their_catalogs() {
        let first = catalogs(r#"{"shop": [{"id": 1, "name": "朝阳店"}]}"#);
        let second = catalogs(r#"{"shop": [{"id": 2, "name": "海淀店"}]}"#);
        let question = "朝阳店和海淀店的客流";
        for _ in 0..2 {
            let a = entity_mentions(&first, question);
            let b = entity_mentions(&second, question);
            assert_eq!((a.len(), a[0].surface.as_str()), (1, "朝阳店"));
            assert_eq!((b.len(), b[0].surface.as_str()), (1, "海淀店"));
        }
        let mut grown = catalogs(r#"{"shop": [{"id": 1, "name": "朝阳店"}]}"#);
        assert_eq!(entity_mentions(&grown, question).len(), 1);
        grown.insert("mall", vec![second.get("shop").unwrap().entities()[0].clone()]);
        assert_eq!(
            entity_mentions(&grown, question).len(),
            2,
            "a catalog that changed is read again"
        );
    }
}
