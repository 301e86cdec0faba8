//! The grounding check: every value a model gives must be supported by the question, or be a default.
//!
//! An enum value is supported by one of its spellings in the question (value, synonym, description label) or,
//! for a period enum, by a time expression denoting the same days; a number by a numeral span; a date by a time
//! expression; a name, ID or other string by the question's own text; a place by the gazetteer. An unsupported value
//! is dropped from the call and named in the trace. A period enum whose question names a period the enum cannot
//! take is `unsupported`, never silently replaced by the default. A mode (`queryType` = `ranking`) is a way of
//! answering, not a fact: no spelling needed, it is checked against the question's demands (前三名 asks for a
//! ranking), and kept, marked unverified, when nothing decides — never silently replaced by the default. A metric
//! tool's call is grounded by `metric_grounding`.

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::{ParamSpec, ParamType, Tool};
use wenshu_lexicon::canonical::strip_name_decorations;
use wenshu_lexicon::demand::Demand;
use wenshu_lexicon::period::match_period_of;

use super::mode::{ModeDecision, decide, is_mode_param};
use crate::facts::QuestionFacts;
use crate::param_kinds::{is_period_param, is_place_param};

/// What the check found for one value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// The question supports the value; `evidence` says how.
    Supported {
        /// The words or rule that support it.
        evidence: String,
    },
    /// The value is the parameter's default.
    Default,
    /// The value was replaced by the one the question's period denotes.
    Corrected {
        /// The value the model gave (null when it gave none).
        from: Value,
        /// Why.
        evidence: String,
    },
    /// A mode the model inferred (`queryType` = `ranking`) that nothing in the question decides: kept as given.
    Unverified {
        /// Why it could not be checked.
        reason: String,
    },
    /// Nothing in the question supports the value: it is left out of the call.
    Dropped {
        /// Why, in words.
        reason: String,
    },
}

/// The verdict on one parameter's value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroundingCheck {
    /// The parameter.
    pub param: String,
    /// The value checked (as given, or as corrected).
    pub value: Value,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// A period the question names that the tool's period enum cannot take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnsupportedValue {
    /// The period enum parameter.
    pub param: String,
    /// The words of the question naming the period.
    pub value: String,
}

/// The outcome of grounding a model's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Grounding {
    /// The values kept (supported, default or corrected), in the answer's order.
    pub kept: Map<String, Value>,
    /// One check per value examined.
    pub checks: Vec<GroundingCheck>,
    /// Set when the question names a period the tool cannot take.
    pub unsupported: Option<UnsupportedValue>,
}

/// Checks each value of `answer` against the question; keys the tool does not declare pass through untouched
/// (binding reports them). Parameters in `skip` (filled by code) are not checked.
pub fn ground(tool: &Tool, facts: &QuestionFacts, answer: &Map<String, Value>, skip: &[&str]) -> Grounding {
    if let Some(model) = tool.extensions().metrics.as_deref() {
        return super::metric_grounding::ground_metric(model, facts, answer, skip);
    }
    let mut grounding = Grounding::default();
    let demands: &[Demand] = &facts.demands;
    for (key, value) in answer {
        let Some(spec) = tool.param(key).filter(|_| !skip.contains(&key.as_str())) else {
            grounding.kept.insert(key.clone(), value.clone());
            continue;
        };
        if value.is_null() || is_period_param(spec, facts.today) {
            continue;
        }
        let verdict = if spec.default.as_ref() == Some(value) {
            Verdict::Default
        } else {
            match support(tool, spec, value, facts) {
                Some(evidence) => Verdict::Supported { evidence },
                None if is_mode_param(tool, spec) => mode_verdict(tool, spec, value, demands),
                None => Verdict::Dropped {
                    reason: format!("the question never states {}", plain(value)),
                },
            }
        };
        let value = match &verdict {
            Verdict::Corrected { .. } => mode_correction(tool, spec, value, demands),
            _ => value.clone(),
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
    for spec in tool
        .params()
        .iter()
        .filter(|s| is_period_param(s, facts.today) && !skip.contains(&s.name.as_str()))
    {
        ground_period(spec, facts, answer.get(&spec.name), &mut grounding);
    }
    grounding
}

/// A period enum takes the value whose days are the question's period; none → unsupported; no period → only a
/// default survives.
fn ground_period(spec: &ParamSpec, facts: &QuestionFacts, given: Option<&Value>, grounding: &mut Grounding) {
    let given = given.filter(|v| !v.is_null());
    let Some((_, words)) = facts.first_time() else {
        if let Some(value) = given {
            let verdict = if spec.default.as_ref() == Some(value) {
                Verdict::Default
            } else {
                Verdict::Dropped {
                    reason: format!("the question names no period, so not {}", plain(value)),
                }
            };
            if verdict == Verdict::Default {
                grounding.kept.insert(spec.name.clone(), value.clone());
            }
            grounding.checks.push(GroundingCheck {
                param: spec.name.clone(),
                value: value.clone(),
                verdict,
            });
        }
        return;
    };
    let values: Vec<&str> = spec.enum_strings().collect();
    let Some(matched) = match_period_of(&values, words, facts.today) else {
        grounding.unsupported = Some(UnsupportedValue {
            param: spec.name.clone(),
            value: words.to_string(),
        });
        return;
    };
    let matched = Value::String(matched);
    let evidence = format!("「{words}」 denotes the same days as {}", plain(&matched));
    let verdict = match given {
        Some(value) if *value == matched => Verdict::Supported { evidence },
        other => Verdict::Corrected {
            from: other.cloned().unwrap_or(Value::Null),
            evidence,
        },
    };
    grounding.kept.insert(spec.name.clone(), matched.clone());
    grounding.checks.push(GroundingCheck {
        param: spec.name.clone(),
        value: matched,
        verdict,
    });
}

/// A mode value no spelling supports, judged by what the question asks for: kept when it meets the demands or
/// nothing decides (marked unverified), replaced when the demands name exactly one other value, else dropped.
fn mode_verdict(tool: &Tool, spec: &ParamSpec, value: &Value, demands: &[Demand]) -> Verdict {
    let given = plain(value);
    match decide(tool, spec, &given, demands) {
        ModeDecision::Meets(words) => Verdict::Supported {
            evidence: format!("the question asks 「{words}」, which {given} answers"),
        },
        ModeDecision::Another(other, words) => Verdict::Corrected {
            from: value.clone(),
            evidence: format!(
                "the question asks 「{words}」, which {} answers, not {given}",
                plain(&other)
            ),
        },
        ModeDecision::Contradicts(words) => Verdict::Dropped {
            reason: format!("the question asks 「{words}」, which {given} does not answer"),
        },
        ModeDecision::Undecided => Verdict::Unverified {
            reason: format!(
                "nothing in the question decides {}: kept as the model inferred it ({given})",
                spec.name
            ),
        },
    }
}

/// The value a corrected mode takes (the one other value the demands decide for).
fn mode_correction(tool: &Tool, spec: &ParamSpec, value: &Value, demands: &[Demand]) -> Value {
    match decide(tool, spec, &plain(value), demands) {
        ModeDecision::Another(other, _) => other,
        _ => value.clone(),
    }
}

/// The evidence for a value, or `None` when the question does not support it.
fn support(tool: &Tool, spec: &ParamSpec, value: &Value, facts: &QuestionFacts) -> Option<String> {
    if !spec.enum_values.is_empty() {
        return enum_support(tool, spec, value, facts);
    }
    match (spec.ty, value) {
        (ParamType::Integer | ParamType::Number, _) => number_support(value, facts),
        (ParamType::String, Value::String(s)) if spec.format.as_deref() == Some("date") => {
            facts.states_date(s).then(|| format!("a time expression covers {s}"))
        }
        (ParamType::Boolean, Value::Bool(b)) => (facts.boolean == Some(*b)).then(|| format!("the question says {b}")),
        (ParamType::Object, Value::Object(object)) => object_support(spec, object, facts),
        (ParamType::Array, Value::Array(items)) => {
            let item_spec = spec.items.as_deref();
            let all = items.iter().all(|item| match item_spec {
                Some(item_spec) => support(tool, item_spec, item, facts).is_some(),
                None => text_support(item, facts).is_some(),
            });
            all.then(|| "every item is in the question".to_string())
        }
        _ => text_support(value, facts),
    }
}

fn enum_support(tool: &Tool, spec: &ParamSpec, value: &Value, facts: &QuestionFacts) -> Option<String> {
    let text = value.as_str()?;
    let hits = match tool.enum_index(&spec.name) {
        Some(index) => index.matcher().find_all(&facts.question),
        None => wenshu_contract::enum_index::EnumIndex::build(spec, &[])
            .matcher()
            .find_all(&facts.question),
    };
    let canonical_value = tool
        .enum_index(&spec.name)
        .and_then(|i| i.lookup(text))
        .map_or(text, |(v, _)| v);
    hits.iter().find(|hit| hit.value == canonical_value).map(|hit| {
        format!(
            "the question says 「{}」",
            facts.question.get(hit.range.clone()).unwrap_or(&hit.surface)
        )
    })
}

pub(super) fn number_support(value: &Value, facts: &QuestionFacts) -> Option<String> {
    let stated = match value.as_i64() {
        Some(i) => facts.states_integer(i),
        None => value.as_f64().is_some_and(|f| facts.states_number(f)),
    };
    stated.then(|| format!("the question states the number {value}"))
}

fn object_support(spec: &ParamSpec, object: &Map<String, Value>, facts: &QuestionFacts) -> Option<String> {
    if is_place_param(spec)
        && let Some(evidence) = place_support(object, facts)
    {
        return Some(evidence);
    }
    let all = object.values().all(|v| v.is_null() || text_support(v, facts).is_some());
    (all && !object.is_empty()).then(|| "every field is in the question".to_string())
}

/// A `{province, city}` object matches a place the question names (short names, 省/市 suffixes ignored).
fn place_support(object: &Map<String, Value>, facts: &QuestionFacts) -> Option<String> {
    let short = |key: &str| object.get(key).and_then(Value::as_str).map(short_place_name);
    let (province, city) = (short("province"), short("city"));
    facts.places.iter().find_map(|hit| {
        let province_ok = province.as_deref().is_none_or(|p| p == hit.place.province);
        let city_ok = city.as_deref().is_none_or(|c| Some(c) == hit.place.city.as_deref());
        (province_ok && city_ok && (province.is_some() || city.is_some())).then(|| {
            format!(
                "the question names the place 「{}」",
                facts.question.get(hit.range.clone()).unwrap_or("")
            )
        })
    })
}

fn short_place_name(name: &str) -> String {
    let name = name.trim();
    [
        "特别行政区",
        "壮族自治区",
        "回族自治区",
        "维吾尔自治区",
        "自治区",
        "省",
        "市",
    ]
    .iter()
    .find_map(|suffix| name.strip_suffix(suffix).filter(|rest| !rest.is_empty()))
    .unwrap_or(name)
    .to_string()
}

fn text_support(value: &Value, facts: &QuestionFacts) -> Option<String> {
    if let Some(hit) = value.as_str().and_then(|v| facts.zones.iter().find(|h| h.zone == v)) {
        return Some(format!("the question names 「{}」, in {}", hit.place, hit.zone));
    }
    let text = match value {
        Value::String(s) => strip_name_decorations(s),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    facts
        .contains(&text)
        .then(|| format!("the question contains 「{text}」"))
}

pub(super) fn plain(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;
    use serde_json::json;
    use wenshu_contract::{Catalog, demo_catalog};

    fn check(tool: &str, question: &str, answer: Value) -> Grounding {
        let catalog: Catalog = demo_catalog().unwrap();
        let facts = QuestionFacts::new(question, date(2026, 11, 29));
        ground(catalog.get(tool).unwrap(), &facts, answer.as_object().unwrap(), &[])
    }

    fn verdict_of<'a>(g: &'a Grounding, param: &str) -> &'a Verdict {
        &g.checks
            .iter()
            .find(|c| c.param == param)
            .unwrap_or_else(|| panic!("no check of {param}: {g:?}"))
            .verdict
    }

    #[test]
    fn enum_values_are_supported_by_synonyms_and_labels() {
        let g = check(
            "sales_query",
            "华东区本月的销售额是多少",
            json!({"region": "华东", "queryType": "summary"}),
        );
        assert_eq!(g.kept["region"], "华东");
        assert!(matches!(verdict_of(&g, "region"), Verdict::Supported { evidence } if evidence.contains("华东区")));
        assert!(matches!(verdict_of(&g, "queryType"), Verdict::Default));
        let g = check(
            "sales_query",
            "上季度企业版的销售排名前五",
            json!({"queryType": "ranking", "product": "企业版"}),
        );
        assert!(matches!(verdict_of(&g, "queryType"), Verdict::Supported { .. }));
        assert!(matches!(verdict_of(&g, "product"), Verdict::Supported { .. }));
    }

    #[test]
    fn an_invented_value_is_dropped_and_named() {
        let g = check(
            "sales_query",
            "华东区本月的销售额是多少",
            json!({"region": "华东", "salesPerson": "张伟", "product": "专业版"}),
        );
        assert!(!g.kept.contains_key("salesPerson") && !g.kept.contains_key("product"));
        assert!(matches!(verdict_of(&g, "salesPerson"), Verdict::Dropped { reason } if reason.contains("张伟")));
    }

    #[test]
    fn numbers_need_a_numeral_span_not_a_year() {
        let g = check("sales_query", "上季度企业版的销售排名前五", json!({"limit": 5}));
        assert!(matches!(verdict_of(&g, "limit"), Verdict::Supported { .. }));
        let g = check("sales_query", "2025年的销售排名", json!({"limit": 2025}));
        assert!(matches!(verdict_of(&g, "limit"), Verdict::Dropped { .. }));
        let g = check("sales_query", "销售排名", json!({"limit": 10}));
        assert_eq!(verdict_of(&g, "limit"), &Verdict::Default);
    }

    #[test]
    fn period_enums_follow_the_question_period() {
        let g = check("sales_query", "Q3华东区的销售额", json!({"period": "本季度"}));
        assert_eq!(g.kept["period"], "上季度");
        assert!(matches!(verdict_of(&g, "period"), Verdict::Corrected { from, .. } if from == "本季度"));
        let g = check("sales_query", "这个月华南的销售额", json!({}));
        assert_eq!(g.kept["period"], "本月");
        let g = check("sales_query", "去年华东区的销售额", json!({"period": "本年"}));
        assert_eq!(
            g.unsupported,
            Some(UnsupportedValue {
                param: "period".into(),
                value: "去年".into()
            })
        );
        assert!(!g.kept.contains_key("period"));
        let g = check("sales_query", "华东区的销售额", json!({"period": "上月"}));
        assert!(matches!(verdict_of(&g, "period"), Verdict::Dropped { .. }));
    }

    #[test]
    fn names_ids_and_places_come_from_the_text() {
        let g = check(
            "query_order",
            "查一下订单 ord_123 发到广东深圳的已发货记录",
            json!({"orderId": "ord_123", "status": "shipped", "address": {"province": "广东省", "city": "深圳市"}}),
        );
        for param in ["orderId", "status", "address"] {
            assert!(
                matches!(verdict_of(&g, param), Verdict::Supported { .. }),
                "{param}: {g:?}"
            );
        }
        let g = check(
            "query_order",
            "查一下订单 ord_123",
            json!({"orderId": "ord_124", "address": {"city": "上海"}}),
        );
        assert!(matches!(verdict_of(&g, "orderId"), Verdict::Dropped { .. }));
        assert!(matches!(verdict_of(&g, "address"), Verdict::Dropped { .. }));
    }

    #[test]
    fn dates_need_a_time_expression() {
        let g = check(
            "movie_box_office",
            "流浪地球2最近7天的票房",
            json!({"startDate": "2026-11-23", "endDate": "2026-11-29"}),
        );
        assert!(matches!(verdict_of(&g, "startDate"), Verdict::Supported { .. }));
        let g = check(
            "movie_box_office",
            "流浪地球2的票房",
            json!({"startDate": "2026-01-01"}),
        );
        assert!(matches!(verdict_of(&g, "startDate"), Verdict::Dropped { .. }));
    }

    #[test]
    fn a_time_zone_is_supported_by_a_place_the_question_names() {
        let catalog = Catalog::from_value(
            &json!([{"name": "now", "inputSchema": {"type": "object", "properties": {
            "timezone": {"type": "string", "description": "IANA timezone name"}}, "required": ["timezone"]}}]),
        )
        .unwrap();
        let facts = QuestionFacts::new("现在东京几点", date(2026, 11, 29));
        let g = ground(
            catalog.get("now").unwrap(),
            &facts,
            json!({"timezone": "Asia/Tokyo"}).as_object().unwrap(),
            &[],
        );
        assert!(matches!(verdict_of(&g, "timezone"), Verdict::Supported { evidence } if evidence.contains("东京")));
        let g = ground(
            catalog.get("now").unwrap(),
            &facts,
            json!({"timezone": "Europe/Paris"}).as_object().unwrap(),
            &[],
        );
        assert!(matches!(verdict_of(&g, "timezone"), Verdict::Dropped { .. }));
    }

    #[test]
    fn skipped_and_unknown_keys_pass_through() {
        let g = check("movie_rating", "满江红评分", json!({"movieId": 3, "color": "red"}));
        assert_eq!(g.kept["color"], "red");
        assert!(matches!(verdict_of(&g, "movieId"), Verdict::Dropped { .. }));
        let catalog = demo_catalog().unwrap();
        let facts = QuestionFacts::new("满江红评分", date(2026, 11, 29));
        let g = ground(
            catalog.get("movie_rating").unwrap(),
            &facts,
            json!({"movieId": 3}).as_object().unwrap(),
            &["movieId"],
        );
        assert_eq!(g.kept["movieId"], 3);
        assert!(g.checks.is_empty());
    }
}
