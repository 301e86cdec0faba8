//! 理解为 — what ran, written by code from the bound call (never the question echoed): the tool's title, each
//! bound value by its parameter's label, the period's days, the answer's grouping or ranking; Chinese and English.

use jiff::civil::Date;
use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::answers::Shape;
use wenshu_contract::{ParamSpec, ParamType, Tool};
use wenshu_lexicon::period::period_range;

use crate::coverage::message::param_label;
use crate::metric::describe::{ALL_DATA_EN, ALL_DATA_ZH, NO_PERIOD_EN, NO_PERIOD_ZH};
use crate::offer::offer_of;
use crate::param_kinds::is_period_param;
use crate::resolve::EntityCatalogs;

/// The call as understood, in both languages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Understood {
    /// 销售数据查询 · 华东 · 本月（2026-11-01～2026-11-30）· 按销售员排名前 5
    pub zh: String,
    /// sales_query · 华东 · 本月 (2026-11-01..2026-11-30) · ranked by 销售员, top 5
    pub en: String,
}

impl Understood {
    /// The call over no period said with the span of the data it read (`全部数据：2024-11-30～2026-11-29（问题未
    /// 限定时间）`) in place of [`NO_PERIOD_ZH`].
    pub fn with_data_span(self, first: &str, last: &str) -> Self {
        Self {
            zh: self.zh.replace(
                NO_PERIOD_ZH,
                &format!("{ALL_DATA_ZH}：{first}～{last}（问题未限定时间）"),
            ),
            en: self.en.replace(
                NO_PERIOD_EN,
                &format!("{ALL_DATA_EN}: {first}..{last} (no period asked)"),
            ),
        }
    }
}

/// One part of the sentence in both languages.
struct Part {
    zh: String,
    en: String,
}

fn part(zh: impl Into<String>, en: impl Into<String>) -> Part {
    Part {
        zh: zh.into(),
        en: en.into(),
    }
}

/// 理解为 of a call of `tool` with `params` on `today`.
pub fn understood(tool: &Tool, params: &Map<String, Value>, today: Date, entities: &EntityCatalogs) -> Understood {
    if let Some((zh, en)) = crate::metric::describe::describe(tool, params) {
        return Understood { zh, en };
    }
    let title = tool.title().unwrap_or(tool.name());
    let mut parts = vec![part(title, tool.name())];
    let answers = tool.extensions().answers.as_ref();
    let mode = answers.and_then(|a| a.mode_param());
    let offer = offer_of(tool, params);
    let limit = offer.limit.as_ref().map(|(p, _)| p.as_str());
    let dates = tool.extensions().date_range.as_ref();
    if let Some(range) = dates
        && let (Some(start), Some(end)) = (
            params.get(&range.start).and_then(Value::as_str),
            params.get(&range.end).and_then(Value::as_str),
        )
    {
        parts.push(if start == end {
            part(start, start)
        } else {
            part(format!("{start}～{end}"), format!("{start}..{end}"))
        });
    }
    for spec in tool.params().iter() {
        let Some(value) = params.get(&spec.name) else {
            continue;
        };
        let is_date = dates.is_some_and(|r| r.start == spec.name || r.end == spec.name);
        if is_date || Some(spec.name.as_str()) == mode || Some(spec.name.as_str()) == limit {
            continue;
        }
        if let Some(p) = value_part(tool, spec, value, today, entities) {
            parts.push(p);
        }
    }
    if answers.is_some() {
        parts.extend(answer_part(&offer));
    }
    Understood {
        zh: parts.iter().map(|p| p.zh.as_str()).collect::<Vec<_>>().join(" · "),
        en: parts.iter().map(|p| p.en.as_str()).collect::<Vec<_>>().join(" · "),
    }
}

/// 理解为 of the fallback: the question it was given, as SQL.
pub fn understood_fallback(question: &str) -> Understood {
    Understood {
        zh: format!("按问题生成的 SQL：{question}"),
        en: format!("SQL generated for: {question}"),
    }
}

/// One bound value by its label; none for a default that says nothing (a limit, a false flag).
fn value_part(tool: &Tool, spec: &ParamSpec, value: &Value, today: Date, entities: &EntityCatalogs) -> Option<Part> {
    let label = param_label(spec);
    let is_default = spec.default.as_ref() == Some(value);
    if let Some(subject) = tool.extensions().subject.as_ref().filter(|s| s.param == spec.name) {
        let name = entities
            .get(&subject.entity_type)
            .and_then(|index| index.by_id(value))
            .map(|e| e.name.clone());
        let id = value.as_str().map_or_else(|| value.to_string(), str::to_string);
        return Some(match name {
            Some(name) => part(format!("{name}（ID {id}）"), format!("{name} (ID {id})")),
            None => part(format!("{label} {id}"), format!("{} {id}", spec.name)),
        });
    }
    match value {
        Value::String(s) if is_period_param(spec, today) => Some(match period_range(s, today) {
            Some(r) => part(
                format!("{s}（{}～{}）", r.start, r.end),
                format!("{s} ({}..{})", r.start, r.end),
            ),
            None => part(s.clone(), s.clone()),
        }),
        Value::String(s) if !spec.enum_values.is_empty() => {
            if is_default {
                return None;
            }
            let shown = enum_label(tool, spec, s).unwrap_or_else(|| s.clone());
            Some(part(shown, s.clone()))
        }
        Value::String(s) => Some(part(s.clone(), s.clone())),
        Value::Bool(b) if !is_default => Some(part(
            format!("{label}：{}", if *b { "是" } else { "否" }),
            format!("{}: {}", spec.name, if *b { "yes" } else { "no" }),
        )),
        Value::Number(n) if !is_default && spec.ty != ParamType::Boolean => {
            Some(part(format!("{label} {n}"), format!("{} {n}", spec.name)))
        }
        Value::Object(o) => {
            let text: Vec<String> = o.values().filter_map(Value::as_str).map(str::to_string).collect();
            (!text.is_empty()).then(|| part(text.join(""), text.join(" ")))
        }
        _ => None,
    }
}

/// The first non-ASCII spelling of an ASCII enum value (delivered → 已签收), when it has one.
fn enum_label(tool: &Tool, spec: &ParamSpec, value: &str) -> Option<String> {
    if !value.is_ascii() {
        return None;
    }
    let index = tool.enum_index(&spec.name)?;
    let (_, spellings) = index.surfaces().iter().find(|(v, _)| v == value)?;
    spellings.iter().find(|s| !s.is_ascii()).cloned()
}

/// The answer's shape in words: 汇总, 按销售员排名前 5, 按日的趋势, 明细（前 10 行）.
fn answer_part(offer: &crate::offer::Offer) -> Option<Part> {
    let dimension = offer.dimension.first().cloned().unwrap_or_default();
    let n = offer.limit.as_ref().map(|(_, n)| *n);
    Some(match offer.shape? {
        Shape::Totals => part("汇总", "totals"),
        Shape::Grouped => part(format!("按{dimension}分组"), format!("grouped by {dimension}")),
        Shape::Ranked => match n {
            Some(n) => part(
                format!("按{dimension}排名前 {n}"),
                format!("ranked by {dimension}, top {n}"),
            ),
            None => part(format!("按{dimension}排名"), format!("ranked by {dimension}")),
        },
        Shape::Series => {
            let grain = offer.grain.unwrap_or(wenshu_lexicon::Grain::Day);
            part(
                format!("按{}的趋势", grain.label()),
                format!("trend by {}", grain.name()),
            )
        }
        Shape::Rows => match n {
            Some(n) => part(format!("明细（前 {n} 行）"), format!("records (first {n})")),
            None => part("明细", "records"),
        },
    })
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;
    use serde_json::json;
    use wenshu_contract::Catalog;

    use super::*;

    #[test]
    fn written_from_the_call_not_the_question() {
        let catalog = Catalog::from_json_str(
            &json!({"tools": [{
                "name": "shop_stats", "title": "门店经营",
                "inputSchema": {"type": "object", "properties": {
                    "city": {"type": "string", "description": "城市筛选：杭州、宁波", "enum": ["杭州", "宁波"]},
                    "period": {"type": "string", "description": "时间段", "enum": ["本月", "上月"], "default": "本月"},
                    "mode": {"type": "string", "enum": ["total", "top"], "default": "total"},
                    "vip": {"type": "boolean", "description": "是否只看会员", "default": false},
                    "n": {"type": "integer", "default": 10}
                }},
                "x-answers": {"by": "mode", "answers": {
                    "total": {"shape": "totals"},
                    "top": {"shape": "ranked", "dimension": ["店员"], "limit": "n"}
                }}
            }]})
            .to_string(),
        )
        .unwrap();
        let tool = catalog.get("shop_stats").unwrap();
        let params = json!({"city": "杭州", "period": "上月", "mode": "top", "vip": true, "n": 5});
        let u = understood(
            tool,
            params.as_object().unwrap(),
            date(2026, 11, 29),
            &EntityCatalogs::new(),
        );
        assert_eq!(
            u.zh,
            "门店经营 · 杭州 · 上月（2026-10-01～2026-10-31） · 是否只看会员：是 · 按店员排名前 5"
        );
        assert_eq!(
            u.en,
            "shop_stats · 杭州 · 上月 (2026-10-01..2026-10-31) · vip: yes · ranked by 店员, top 5"
        );
        let params = json!({"period": "本月", "mode": "total", "vip": false, "n": 10});
        let u = understood(
            tool,
            params.as_object().unwrap(),
            date(2026, 11, 29),
            &EntityCatalogs::new(),
        );
        assert_eq!(u.zh, "门店经营 · 本月（2026-11-01～2026-11-30） · 汇总");
    }

    #[test]
    fn a_series_grain_is_said_in_each_language() {
        let catalog = Catalog::from_json_str(
            &json!({"tools": [{
                "name": "visits", "title": "访问量",
                "inputSchema": {"type": "object", "properties": {
                    "period": {"type": "string", "enum": ["本年"], "default": "本年"}
                }},
                "x-answers": {"shape": "series", "grain": "month"}
            }]})
            .to_string(),
        )
        .unwrap();
        let params = json!({"period": "本年"});
        let u = understood(
            catalog.get("visits").unwrap(),
            params.as_object().unwrap(),
            date(2026, 11, 29),
            &EntityCatalogs::new(),
        );
        assert!(u.zh.ends_with("按月的趋势"), "{}", u.zh);
        assert!(u.en.ends_with("trend by month"), "{}", u.en);
    }
}
