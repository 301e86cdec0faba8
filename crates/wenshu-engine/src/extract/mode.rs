//! Mode enums (`queryType`: summary, ranking, trend, detail): a value says how a tool answers, not what it filters,
//! so a model's inferred mode is checked against what the question asks for (its demands), not against its words.
//!
//! A parameter is a mode when the catalog declares answers per its values (`x-answers.by`), or when at least two
//! of its values are spelled or labelled as answer shapes (ranking/排名, trend/趋势, detail/明细, summary/汇总) —
//! read as coverage reads them ([`offer_of`]), so the two never disagree.

use serde_json::{Map, Value};
use wenshu_contract::answers::Shape;
use wenshu_contract::{ParamSpec, Tool};
use wenshu_lexicon::demand::{Aggregate, Demand, DemandKind};

use crate::offer::offer_of;

/// What the demands of a question decide about a mode value.
#[derive(Debug, Clone, PartialEq)]
pub enum ModeDecision {
    /// The value's answer has the shape the demand asks for; the words of the demand.
    Meets(String),
    /// The demands ask for another shape, which exactly this other value gives; the words of the demand.
    Another(Value, String),
    /// The demands ask for a shape the value does not give, and no single other value decides.
    Contradicts(String),
    /// No demand is about the answer's shape.
    Undecided,
}

/// Whether `spec` is a mode parameter of `tool`.
pub fn is_mode_param(tool: &Tool, spec: &ParamSpec) -> bool {
    if spec.enum_values.is_empty() {
        return false;
    }
    let declared = tool.extensions().answers.as_ref().and_then(|a| a.mode_param());
    declared == Some(spec.name.as_str())
        || spec
            .enum_strings()
            .filter(|v| value_shape(tool, spec, v).is_some())
            .count()
            >= 2
}

/// The shape a mode value answers with, as coverage reads the tool (`x-answers`, else the value's spellings).
pub fn value_shape(tool: &Tool, spec: &ParamSpec, value: &str) -> Option<Shape> {
    let mut arguments = Map::new();
    arguments.insert(spec.name.clone(), Value::String(value.to_string()));
    offer_of(tool, &arguments).shape
}

/// Decides a model's mode value against the question's demands.
pub fn decide(tool: &Tool, spec: &ParamSpec, value: &str, demands: &[Demand]) -> ModeDecision {
    let asked: Vec<(&Demand, &[Shape])> = demands.iter().filter_map(|d| asked_shapes(d).map(|s| (d, s))).collect();
    let Some((first, _)) = asked.first() else {
        return ModeDecision::Undecided;
    };
    let words = first.words.clone();
    let fits =
        |shape: Option<Shape>| shape.is_some_and(|shape| asked.iter().all(|(_, shapes)| shapes.contains(&shape)));
    if fits(value_shape(tool, spec, value)) {
        return ModeDecision::Meets(words);
    }
    let others: Vec<&str> = spec
        .enum_strings()
        .filter(|v| *v != value && fits(value_shape(tool, spec, v)))
        .collect();
    match others.as_slice() {
        [only] => ModeDecision::Another(Value::String((*only).to_string()), words),
        _ => ModeDecision::Contradicts(words),
    }
}

/// The shapes that meet one demand, when the demand is about the answer's shape.
fn asked_shapes(demand: &Demand) -> Option<&'static [Shape]> {
    Some(match demand.kind {
        DemandKind::Rank { .. } | DemandKind::Sort { .. } => &[Shape::Ranked],
        DemandKind::Group { grain: Some(_) } => &[Shape::Series],
        DemandKind::Group { grain: None } => &[Shape::Grouped, Shape::Ranked],
        DemandKind::List => &[Shape::Rows],
        DemandKind::Aggregate {
            of: Aggregate::Count | Aggregate::Total,
        } => &[Shape::Totals],
        _ => return None,
    })
}
