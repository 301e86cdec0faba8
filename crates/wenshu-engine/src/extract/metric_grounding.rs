//! Grounding of a metric tool's call: structure names are checked against the model and the question's demands,
//! facts (days, filter values, numbers) against the question.
//!
//! Measures, group-by dimensions, the grain, the order, the comparison kind and the share are ways of answering, not
//! facts: kept when they are names of the model, corrected or dropped only when they contradict what the question
//! asks (最低 is ascending), else marked unverified. The time range must be stated by a time expression — a range
//! the question's time expressions do not state (a day off) is corrected to the one it states, when one decides —,
//! a filter value must be named by the question (its value or a synonym), a limit or threshold must be a stated
//! number. "The question" is what the user said ([`Said`](super::said::Said)), never a router's rewrite.

use serde_json::{Map, Value};
use wenshu_contract::metric::{Grain, MetricModel};
use wenshu_lexicon::demand::{Baseline, Demand, DemandKind, Order};

use super::grounding::{Grounding, GroundingCheck, Verdict, number_support, plain};
use crate::facts::QuestionFacts;

/// Grounds each value of a metric tool's `answer` against `model` and the question; unknown keys pass through.
pub fn ground_metric(
    model: &MetricModel,
    facts: &QuestionFacts,
    answer: &Map<String, Value>,
    skip: &[&str],
) -> Grounding {
    let mut grounding = Grounding::default();
    let demands = &facts.demands;
    for (key, value) in answer {
        if value.is_null() {
            continue;
        }
        // A measure divided by or less another only where the question says so; the measure itself is kept.
        let value = &match key.as_str() {
            "measures" if !skip.contains(&"measures") => {
                let (kept, checks) = combined_checks(model, value, facts);
                grounding.checks.extend(checks);
                kept
            }
            _ => value.clone(),
        };
        let (value, verdict) = if skip.contains(&key.as_str()) {
            grounding.kept.insert(key.clone(), value.clone());
            continue;
        } else {
            match key.as_str() {
                // A distinct count's name is a dimension's (几位销售).
                "measures" => names_verdict(
                    value,
                    "name",
                    |n| model.measure_index(n).is_some() || model.dimension_index(n).is_some(),
                    facts,
                ),
                "groupBy" => names_verdict(value, "", |n| model.dimension_index(n).is_some(), facts),
                "grain" => grain_verdict(value, demands),
                "order" => order_verdict(model, value, demands),
                "compare" => compare_verdict(value, demands, facts),
                "share" => share_verdict(model, value),
                "timeRange" => stated_range(value, facts),
                "filters" => filters_verdict(model, value, facts),
                "limit" => (value.clone(), number_verdict(value, facts)),
                // A threshold on each record is checked as one on the groups: a measure of the model, a number stated.
                "having" | "each" => having_verdict(model, value, facts),
                "sort" | "cumulative" | "relative" => asked_verdict(key, value, demands),
                "bands" => bands_verdict(model, value, facts),
                "alsoHaving" | "alsoEach" => also_having_verdict(model, value, facts),
                "days" | "byDay" => days_verdict(key, value, facts),
                "within" => within_verdict(value, demands),
                _ => {
                    grounding.kept.insert(key.clone(), value.clone());
                    continue;
                }
            }
        };
        if !matches!(verdict, Verdict::Dropped { .. }) {
            grounding.kept.insert(key.clone(), value.clone());
        }
        grounding.checks.push(GroundingCheck {
            param: key.clone(),
            value,
            verdict,
        });
    }
    grounding
}

/// The `dividedBy` / `minus` of each measure item, kept only where the question names the other measure (its label,
/// a synonym or its unit) and says a ratio or difference (除以, 之比, 减去; 每, 均, per); the item without it otherwise.
fn combined_checks(model: &MetricModel, value: &Value, facts: &QuestionFacts) -> (Value, Vec<GroundingCheck>) {
    let mut kept = value.clone();
    let mut checks = Vec::new();
    let Some(items) = kept.as_array_mut() else {
        return (kept, checks);
    };
    let lower = facts.canonical.to_ascii_lowercase();
    let says_combined = facts.demands.iter().any(|d| d.kind == DemandKind::Combine)
        || facts.canonical.contains('每')
        || facts.canonical.contains('均')
        || lower.split(|c: char| !c.is_ascii_alphabetic()).any(|w| w == "per");
    for (i, item) in items.iter_mut().enumerate() {
        let Some(object) = item.as_object_mut() else { continue };
        for field in ["dividedBy", "minus"] {
            let Some(other) = object.get(field).and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            let named = model.measure_index(&other).is_some_and(|m| {
                let spec = &model.measures[m];
                std::iter::once(&spec.label)
                    .chain(&spec.synonyms)
                    .chain(spec.unit.iter())
                    .any(|w| facts.contains(w))
            });
            let verdict = if named && says_combined {
                Verdict::Supported {
                    evidence: format!("the question names {other} and combines it"),
                }
            } else {
                object.remove(field);
                Verdict::Dropped {
                    reason: format!("the question never asks for a measure {field} {other}"),
                }
            };
            checks.push(GroundingCheck {
                param: format!("measures[{i}].{field}"),
                value: Value::String(other),
                verdict,
            });
        }
    }
    (kept, checks)
}

/// More thresholds on the groups or on each record: each a measure of the model and a number the question states,
/// else all dropped.
fn also_having_verdict(model: &MetricModel, value: &Value, facts: &QuestionFacts) -> (Value, Verdict) {
    let items = value.as_array().cloned().unwrap_or_default();
    let unstated = items.iter().find_map(|t| match having_verdict(model, t, facts).1 {
        Verdict::Dropped { reason } => Some(reason),
        _ => None,
    });
    let verdict = match unstated {
        _ if items.is_empty() => not_in_model(&plain(value)),
        Some(reason) => Verdict::Dropped { reason },
        None => Verdict::Supported {
            evidence: "the question states each threshold".into(),
        },
    };
    (value.clone(), verdict)
}

/// Kinds of day (周末, 工作日, 按星期几): kept only where the question says them, never a narrowing of its own.
fn days_verdict(key: &str, value: &Value, facts: &QuestionFacts) -> (Value, Verdict) {
    use wenshu_lexicon::words::days::{KindOfDay, asks_weekday, day_kind_words, kind_of_day};
    let said: Vec<KindOfDay> = day_kind_words(&facts.question, &facts.spans)
        .into_iter()
        .filter_map(|(_, w)| kind_of_day(w))
        .collect();
    let by_weekday = facts
        .demands
        .iter()
        .any(|d| d.target.as_deref().is_some_and(asks_weekday));
    let asked = match (key, value.as_str()) {
        ("days", Some("weekend")) => said.contains(&KindOfDay::Weekend),
        ("days", Some("workday")) => said.contains(&KindOfDay::Workday),
        ("byDay", Some("weekday")) => by_weekday,
        ("byDay", Some("weekend")) => said.contains(&KindOfDay::Weekend) && said.contains(&KindOfDay::Workday),
        _ => false,
    };
    let verdict = if asked {
        Verdict::Supported {
            evidence: format!("the question says {key} {}", plain(value)),
        }
    } else {
        Verdict::Dropped {
            reason: format!("the question never asks for {key} {}", plain(value)),
        }
    };
    (value.clone(), verdict)
}

/// The first rows inside each group: kept only where the question ranks inside groups (每个地区最高的产品).
fn within_verdict(value: &Value, demands: &[Demand]) -> (Value, Verdict) {
    let verdict = match demands.iter().find(|d| d.within.is_some()) {
        Some(d) => Verdict::Supported {
            evidence: format!(
                "the question ranks inside each {}",
                d.within.as_deref().unwrap_or_default()
            ),
        },
        None => Verdict::Dropped {
            reason: "the question ranks inside no groups".into(),
        },
    };
    (value.clone(), verdict)
}

/// Bands of a measure: each bound a number the question states, else dropped.
fn bands_verdict(model: &MetricModel, value: &Value, facts: &QuestionFacts) -> (Value, Verdict) {
    let measure = value.get("measure").and_then(Value::as_str).unwrap_or_default();
    if model.measure_index(measure).is_none() {
        return (value.clone(), not_in_model(measure));
    }
    let bounds = value
        .get("bounds")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let unstated = bounds
        .iter()
        .find(|b| matches!(number_verdict(b, facts), Verdict::Dropped { .. }));
    let verdict = match unstated {
        _ if bounds.is_empty() => not_in_model(&plain(value)),
        Some(b) => Verdict::Dropped {
            reason: format!("the question never states the bound {}", plain(b)),
        },
        None => Verdict::Supported {
            evidence: format!("the question states the bounds of {measure}"),
        },
    };
    (value.clone(), verdict)
}

/// A name of the model that the question does not spell: kept, unverified.
fn unverified(what: &str) -> Verdict {
    Verdict::Unverified {
        reason: format!("{what} is a name of the metric model; nothing in the question contradicts it"),
    }
}

fn not_in_model(what: &str) -> Verdict {
    Verdict::Dropped {
        reason: format!("{what} is not a name of the metric model"),
    }
}

/// An array of names (or of objects whose `field` is a name): every one must be valid.
fn names_verdict(value: &Value, field: &str, valid: impl Fn(&str) -> bool, facts: &QuestionFacts) -> (Value, Verdict) {
    let names: Option<Vec<&str>> = value.as_array().map(|items| {
        items
            .iter()
            .filter_map(|item| {
                if field.is_empty() {
                    item.as_str()
                } else {
                    item.get(field)?.as_str()
                }
            })
            .collect()
    });
    let verdict = match names {
        Some(names) if !names.is_empty() && names.len() == value.as_array().map_or(0, Vec::len) => {
            if let Some(bad) = names.iter().find(|n| !valid(n)) {
                not_in_model(bad)
            } else if names.iter().all(|n| facts.contains(n)) {
                Verdict::Supported {
                    evidence: format!("the question says {}", names.join("、")),
                }
            } else {
                unverified(&names.join("、"))
            }
        }
        _ => not_in_model(&plain(value)),
    };
    (value.clone(), verdict)
}

fn grain_verdict(value: &Value, demands: &[Demand]) -> (Value, Verdict) {
    let Some(given) = value.as_str().and_then(Grain::from_name) else {
        return (value.clone(), not_in_model(&plain(value)));
    };
    let asked = demands.iter().find_map(|d| d.grain().map(|g| (g, d.words.clone())));
    match asked {
        Some((grain, words)) if grain == given => (
            value.clone(),
            Verdict::Supported {
                evidence: format!("the question asks 「{words}」"),
            },
        ),
        Some((grain, words)) => (
            Value::String(grain.name().to_string()),
            Verdict::Corrected {
                from: value.clone(),
                evidence: format!("the question asks 「{words}」, which is {}", grain.name()),
            },
        ),
        None => (value.clone(), unverified(given.name())),
    }
}

fn order_verdict(model: &MetricModel, value: &Value, demands: &[Demand]) -> (Value, Verdict) {
    let measure = value.get("measure").and_then(Value::as_str).unwrap_or_default();
    let direction = value.get("direction").and_then(Value::as_str).unwrap_or_default();
    if model.measure_index(measure).is_none() || !matches!(direction, "asc" | "desc") {
        return (value.clone(), not_in_model(&plain(value)));
    }
    let asked = demands.iter().find_map(|d| match &d.kind {
        DemandKind::Rank { order, .. } => Some((if *order == Order::Lowest { "asc" } else { "desc" }, &d.words)),
        _ => None,
    });
    match asked {
        Some((want, words)) if want == direction => (
            value.clone(),
            Verdict::Supported {
                evidence: format!("the question asks 「{words}」, which {direction} answers"),
            },
        ),
        Some((want, words)) => {
            let mut corrected = value.clone();
            corrected["direction"] = Value::String(want.to_string());
            (
                corrected,
                Verdict::Corrected {
                    from: value.clone(),
                    evidence: format!("the question asks 「{words}」, which {want} answers, not {direction}"),
                },
            )
        }
        None => (value.clone(), unverified(&format!("{measure} {direction}"))),
    }
}

fn compare_verdict(value: &Value, demands: &[Demand], facts: &QuestionFacts) -> (Value, Verdict) {
    // A ranking of the compared rows only where the question ranks (哪个…增长最快): else every row, not the top.
    if value.get("rank").is_some_and(|r| !r.is_null()) && !demands.iter().any(Demand::is_rank) {
        let mut all_rows = value.clone();
        if let Some(object) = all_rows.as_object_mut() {
            object.remove("rank");
        }
        let (kept, _) = compare_verdict(&all_rows, demands, facts);
        return (
            kept,
            Verdict::Corrected {
                from: value.clone(),
                evidence: "the question ranks no compared rows".into(),
            },
        );
    }
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
    if !matches!(kind, "previous_period" | "year_over_year") {
        return (value.clone(), not_in_model(&plain(value)));
    }
    if let Some(range) = value.get("range").filter(|r| !r.is_null())
        && matches!(range_verdict(range, facts), Verdict::Dropped { .. })
    {
        return (
            value.clone(),
            Verdict::Dropped {
                reason: format!("the question never states the comparison range {}", plain(range)),
            },
        );
    }
    let asked = demands.iter().find_map(|d| match &d.kind {
        DemandKind::Period { baseline } => Some((*baseline, &d.words)),
        _ => None,
    });
    match asked {
        Some((Baseline::Previous, words)) if kind == "year_over_year" => {
            corrected_kind(value, "previous_period", words)
        }
        Some((Baseline::YearAgo, words)) if kind == "previous_period" => corrected_kind(value, "year_over_year", words),
        Some((_, words)) => (
            value.clone(),
            Verdict::Supported {
                evidence: format!("the question asks 「{words}」"),
            },
        ),
        None => (value.clone(), unverified(kind)),
    }
}

fn corrected_kind(value: &Value, kind: &str, words: &str) -> (Value, Verdict) {
    let mut corrected = value.clone();
    corrected["kind"] = Value::String(kind.to_string());
    (
        corrected,
        Verdict::Corrected {
            from: value.clone(),
            evidence: format!("the question asks 「{words}」, which is {kind}"),
        },
    )
}

fn share_verdict(model: &MetricModel, value: &Value) -> (Value, Verdict) {
    let across: Option<Vec<&str>> = value
        .get("across")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect());
    let verdict = match across {
        Some(names) => match names.iter().find(|n| model.dimension_index(n).is_none()) {
            Some(bad) => not_in_model(bad),
            None => unverified(&format!("share across {}", names.join("、"))),
        },
        None => not_in_model(&plain(value)),
    };
    (value.clone(), verdict)
}

/// The query's range when the question states it; else the range of the question's time expression that decides
/// (its only one, or the only one overlapping the given range), corrected; else dropped.
fn stated_range(value: &Value, facts: &QuestionFacts) -> (Value, Verdict) {
    let verdict = range_verdict(value, facts);
    if !matches!(verdict, Verdict::Dropped { .. }) {
        return (value.clone(), verdict);
    }
    let day = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .and_then(|d| d.parse::<jiff::civil::Date>().ok())
    };
    let overlapping: Vec<_> = match (day("start"), day("end")) {
        (Some(start), Some(end)) => facts
            .times
            .iter()
            .filter(|t| t.date_range.start <= end && start <= t.date_range.end)
            .collect(),
        _ => Vec::new(),
    };
    let decides = match (facts.times.as_slice(), overlapping.as_slice()) {
        ([only], _) => Some(only),
        (_, [only]) => Some(*only),
        _ => None,
    };
    let Some(time) = decides else {
        return (value.clone(), verdict);
    };
    let words = facts.question.get(time.range.clone()).unwrap_or_default();
    let range = time.date_range;
    let mut corrected = value.clone();
    corrected["start"] = Value::String(range.start.to_string());
    corrected["end"] = Value::String(range.end.to_string());
    let evidence = format!(
        "the question says 「{words}」, which is {} to {}",
        range.start, range.end
    );
    (
        corrected,
        Verdict::Corrected {
            from: value.clone(),
            evidence,
        },
    )
}

/// Both days must be stated by the question's time expressions.
fn range_verdict(value: &Value, facts: &QuestionFacts) -> Verdict {
    let day = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
    let (start, end) = (day("start"), day("end"));
    let spans = facts
        .times
        .iter()
        .any(|t| t.date_range.start.to_string() == start && t.date_range.end.to_string() == end);
    if spans || (facts.states_date(start) && facts.states_date(end)) {
        Verdict::Supported {
            evidence: format!("a time expression covers {start} to {end}"),
        }
    } else {
        Verdict::Dropped {
            reason: format!("the question never states {start} to {end}"),
        }
    }
}

/// An order by a dimension, running totals or a comparison with a mean: kept only when the question asks for them (按地区排序, 累计),
/// never added by a model on its own.
fn asked_verdict(key: &str, value: &Value, demands: &[Demand]) -> (Value, Verdict) {
    let asked = demands.iter().find(|d| match d.kind {
        DemandKind::Sort { .. } => key == "sort",
        DemandKind::Cumulative => key == "cumulative",
        DemandKind::Relative { .. } => key == "relative",
        _ => false,
    });
    let verdict = match asked {
        _ if value == &Value::Bool(false) => Verdict::Supported {
            evidence: "nothing asked".into(),
        },
        Some(d) => Verdict::Supported {
            evidence: format!("the question asks 「{}」", d.words),
        },
        None => Verdict::Dropped {
            reason: format!("the question never asks for {key}"),
        },
    };
    (value.clone(), verdict)
}

fn number_verdict(value: &Value, facts: &QuestionFacts) -> Verdict {
    match number_support(value, facts) {
        Some(evidence) => Verdict::Supported { evidence },
        None => Verdict::Dropped {
            reason: format!("the question never states {}", plain(value)),
        },
    }
}

fn having_verdict(model: &MetricModel, value: &Value, facts: &QuestionFacts) -> (Value, Verdict) {
    let measure = value.get("measure").and_then(Value::as_str).unwrap_or_default();
    if model.measure_index(measure).is_none() {
        return (value.clone(), not_in_model(measure));
    }
    let bound = value.get("value").cloned().unwrap_or(Value::Null);
    (value.clone(), number_verdict(&bound, facts))
}

/// The spelling by which the question names `text` of dimension `dim`: the value itself, or a value synonym (a
/// spelling the value starts with, as 华东 of 华东区, or one listed for it).
fn names_value(model: &MetricModel, dim: usize, text: &str, facts: &QuestionFacts) -> Option<String> {
    if facts.contains(text) {
        return Some(text.to_string());
    }
    model.dimensions[dim]
        .value_synonyms
        .iter()
        .filter(|(value, synonyms)| text.starts_with(value.as_str()) || synonyms.iter().any(|s| s == text))
        .flat_map(|(value, synonyms)| std::iter::once(value).chain(synonyms))
        .find(|spelling| facts.contains(spelling))
        .cloned()
}

/// Filters whose every value the question names are kept; the others are dropped and named.
fn filters_verdict(model: &MetricModel, value: &Value, facts: &QuestionFacts) -> (Value, Verdict) {
    let Some(items) = value.as_array() else {
        return (value.clone(), not_in_model(&plain(value)));
    };
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for item in items {
        let dim = item
            .get("dimension")
            .and_then(Value::as_str)
            .and_then(|d| model.dimension_index(d));
        let values: Vec<&str> = item
            .get("values")
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let named = dim.is_some_and(|dim| {
            !values.is_empty() && values.iter().all(|v| names_value(model, dim, v, facts).is_some())
        });
        if named {
            kept.push(item.clone());
        } else {
            dropped.push(plain(item));
        }
    }
    match (kept.is_empty(), dropped.is_empty()) {
        (_, true) => (
            value.clone(),
            Verdict::Supported {
                evidence: "the question names every filter value".to_string(),
            },
        ),
        (true, false) => (
            value.clone(),
            Verdict::Dropped {
                reason: format!("the question never states {}", dropped.join("、")),
            },
        ),
        (false, false) => (
            Value::Array(kept),
            Verdict::Corrected {
                from: value.clone(),
                evidence: format!("the question never states {}, so it is left out", dropped.join("、")),
            },
        ),
    }
}
