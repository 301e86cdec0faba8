//! The `inputSchema` of a metric tool, made from its model: a metric query whose names are the model's.

use serde_json::{Value, json};

use super::query::{MAX_BOUNDS, MAX_LIMIT};
use super::{Grain, MetricModel, Reaggregate};

/// The JSON Schema of a metric query over `model` (used when the tool declares no `inputSchema`); a part naming
/// what the model lacks (a model without dimensions has no `groupBy`, `sort`, `over`…) is left out.
pub fn input_schema(model: &MetricModel) -> Value {
    let mut schema = full_schema(model);
    prune(&mut schema);
    schema
}

/// Removes every optional property no value could satisfy (an empty `enum`, or a required part that is one);
/// returns whether `schema` itself is such.
fn prune(schema: &mut Value) -> bool {
    let Some(object) = schema.as_object_mut() else {
        return false;
    };
    if object
        .get("enum")
        .is_some_and(|e| e.as_array().is_some_and(Vec::is_empty))
    {
        return true;
    }
    // An array whose items nothing satisfies holds nothing worth naming.
    if object.get_mut("items").is_some_and(prune) {
        return true;
    }
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let mut unsatisfiable = false;
    if let Some(properties) = object.get_mut("properties").and_then(Value::as_object_mut) {
        let dead: Vec<String> = properties
            .iter_mut()
            .filter_map(|(name, part)| prune(part).then(|| name.clone()))
            .collect();
        for name in dead {
            unsatisfiable |= required.contains(&name);
            properties.remove(&name);
        }
    }
    unsatisfiable
}

/// The schema before pruning.
fn full_schema(model: &MetricModel) -> Value {
    let measures: Vec<&str> = model.measures.iter().map(|m| m.label.as_str()).collect();
    let dimensions: Vec<&str> = model.dimensions.iter().map(|d| d.label.as_str()).collect();
    let grains: Vec<&str> = model
        .time
        .as_ref()
        .map(|t| t.grains.iter().map(|g| g.name()).collect())
        .unwrap_or_default();
    // A measure item or a threshold may also name a dimension whose distinct values are counted.
    let countable: Vec<&str> = measures.iter().chain(&dimensions).copied().collect();
    let aggregates: Vec<&str> = Reaggregate::ALL.iter().map(|r| r.name()).collect();
    // A measure is divided by or less another: with one measure there is none (left out).
    let others: &[&str] = if measures.len() > 1 { &measures } else { &[] };
    let range = json!({
        "type": "object",
        "properties": {"start": {"type": "string", "format": "date"}, "end": {"type": "string", "format": "date"}},
        "required": ["start", "end"],
        "additionalProperties": false
    });
    let grain = if grains.is_empty() {
        json!({"type": "string", "enum": Grain::ALL.iter().map(|g| g.name()).collect::<Vec<_>>()})
    } else {
        json!({"type": "string", "enum": grains})
    };
    let record = json!({"type": "object", "description": "单条记录的门槛", "properties": {
        "measure": {"type": "string", "enum": measures},
        "op": {"type": "string", "enum": [">", ">=", "<", "<="]},
        "value": {"type": "number"}
    }, "required": ["measure", "op", "value"], "additionalProperties": false});
    json!({
        "type": "object",
        "properties": {
            "measures": {
                "type": "array", "minItems": 1, "description": "度量",
                "items": {"type": "object", "properties": {
                    "name": {"type": "string", "enum": countable},
                    "aggregate": {"type": "string", "enum": aggregates},
                    "per": grain.clone(),
                    "distinct": {"type": "boolean", "description": "name 是维度：数它有多少个不同的值（多少个、几位）"},
                    "over": {"type": "string", "enum": dimensions, "description": "人均：度量除以该维度不同值的个数（人均销售额 = 销售额 / 销售人数）"},
                    "dividedBy": {"type": "string", "enum": others, "description": "度量除以另一个度量（每单销量 = 销量 / 订单数）；两者都是合计或计数"},
                    "minus": {"type": "string", "enum": others, "description": "度量减去同单位的另一个度量（两者之差）"}
                }, "required": ["name"], "additionalProperties": false}
            },
            "filters": {
                "type": "array", "description": "维度筛选",
                "items": {"type": "object", "properties": {
                    "dimension": {"type": "string", "enum": dimensions},
                    "values": {"type": "array", "minItems": 1, "items": {"type": "string"}}
                }, "required": ["dimension", "values"], "additionalProperties": false}
            },
            "timeRange": range.clone(),
            "grain": grain,
            "groupBy": {"type": "array", "items": {"type": "string", "enum": dimensions}, "description": "分组维度"},
            "order": {"type": "object", "properties": {
                "measure": {"type": "string", "enum": countable},
                "direction": {"type": "string", "enum": ["asc", "desc"]}
            }, "required": ["measure", "direction"], "additionalProperties": false},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
            "having": {"type": "object", "properties": {
                "measure": {"type": "string", "enum": countable},
                "op": {"type": "string", "enum": [">", ">=", "<", "<="]},
                "value": {"type": "number"},
                "aggregate": {"type": "string", "enum": aggregates, "description": "比较的是该度量的平均值等"},
                "share": {"type": "boolean", "description": "比较的是占比（value 是小数，10% 为 0.1），需要 share"}
            }, "required": ["measure", "op", "value"], "additionalProperties": false},
            "alsoHaving": {"type": "array", "description": "更多分组门槛（销售额超过100万且订单数超过300）", "items": {"type": "object", "properties": {
                "measure": {"type": "string", "enum": countable},
                "op": {"type": "string", "enum": [">", ">=", "<", "<="]},
                "value": {"type": "number"}
            }, "required": ["measure", "op", "value"], "additionalProperties": false}},
            "havingAny": {"type": "boolean", "description": "having 与 alsoHaving 满足其一即可（或）；默认须全部满足（且）"},
            "each": record.clone(),
            "alsoEach": {"type": "array", "description": "更多单条记录的门槛（单笔金额超过1万且数量超过5）", "items": record},
            "eachAny": {"type": "boolean", "description": "each 与 alsoEach 满足其一即可（或）；默认须全部满足（且）"},
            "compare": {"type": "object", "properties": {
                "kind": {"type": "string", "enum": ["previous_period", "year_over_year"]},
                "range": range,
                "rank": {"type": "object", "description": "按变化排名（哪个X环比增长最快）：by 为 change（增长最多）或 rate（增长最快、涨幅最大）；需要 groupBy，不与 order、limit 同用", "properties": {
                    "by": {"type": "string", "enum": ["change", "rate"]},
                    "direction": {"type": "string", "enum": ["asc", "desc"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}
                }, "required": ["by", "direction"], "additionalProperties": false}
            }, "required": ["kind"], "additionalProperties": false},
            "share": {"type": "object", "properties": {
                "across": {"type": "array", "items": {"type": "string", "enum": dimensions}}
            }, "required": ["across"], "additionalProperties": false},
            "within": {"type": "object", "description": "组内前N（每个X里Y最高的前N个Z）：按 order 在每组内排名，每组保留 limit 行；groupBy 里还要有组内被排名的维度", "properties": {
                "dimension": {"type": "string", "enum": dimensions, "description": "分组的维度；省略时每个时间段（grain）为一组"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "每组保留几行"}
            }, "required": ["limit"], "additionalProperties": false},
            "sort": {"type": "object", "description": "按维度的值排序（按地区排序）；该维度须在 groupBy 里；不与 order 同用", "properties": {
                "dimension": {"type": "string", "enum": dimensions},
                "direction": {"type": "string", "enum": ["asc", "desc"]}
            }, "required": ["dimension", "direction"], "additionalProperties": false},
            "relative": {"type": "object", "description": "与平均比较（高于平均水平的X、超过所在地区平均的产品）：保留度量高于或低于平均的行；within 时在该维度的每个值内取平均", "properties": {
                "measure": {"type": "string", "enum": countable},
                "op": {"type": "string", "enum": [">", ">=", "<", "<="]},
                "within": {"type": "string", "enum": dimensions},
                "median": {"type": "boolean", "description": "与中位数比较（高于中位数），不是平均"}
            }, "required": ["measure", "op"], "additionalProperties": false},
            "byDay": {"type": "string", "enum": ["weekday", "weekend"], "description": "按日子类型分行：weekday 按星期几（周一至周日），weekend 分工作日和周末两行"},
            "days": {"type": "string", "enum": ["weekend", "workday"], "description": "只算周末（周六、周日）或工作日（周一至周五）"},
            "cumulative": {"type": "boolean", "description": "累计：每个时间段（grain）的值加上之前各段之和；只用于求和或计数的度量"},
            "bands": {"type": "object", "description": "按区间：每条记录的度量值落在哪个区间（1万以下、1万到5万、5万以上 → bounds [10000, 50000]）", "properties": {
                "measure": {"type": "string", "enum": measures},
                "bounds": {"type": "array", "minItems": 1, "maxItems": MAX_BOUNDS, "items": {"type": "number"}}
            }, "required": ["measure", "bounds"], "additionalProperties": false}
        },
        "required": ["measures"],
        "additionalProperties": false
    })
}
