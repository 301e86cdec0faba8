//! `x-answers`: what a tool returns, stated by the administrator — totals, rows grouped or ranked by a dimension,
//! a series by a time grain, or detail rows — for the whole tool or per value of a mode enum (`queryType`).
//! Coverage reads it to know whether a call answers everything a question asks for; it is checked at load.
//!
//! ```json
//! "x-answers": {
//!   "by": "queryType",
//!   "answers": {
//!     "summary": {"shape": "totals", "measures": ["销售额", "销量"], "counts": ["订单", "单"]},
//!     "ranking": {"shape": "ranked", "dimension": ["销售员"], "orderBy": ["销售额"], "limit": "limit"},
//!     "trend": {"shape": "series", "grain": "day", "grainWhen": {"period": {"本年": "month"}}},
//!     "detail": {"shape": "rows", "limit": "limit"}
//!   }
//! }
//! ```
//! Without `by`, the object itself is the tool's one answer: `"x-answers": {"shape": "series", "grain": "day"}`.

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_lexicon::Grain;

use crate::catalog::FieldError;
use crate::extensions::{expect_object, kind_of, read_string_list};
use crate::param::{ParamTable, ParamType};

/// The shape of what a call returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// One row of totals over the filtered rows.
    Totals,
    /// One row per value of a dimension, in no particular order.
    Grouped,
    /// One row per value of a dimension, ordered by a measure.
    Ranked,
    /// One row per time bucket.
    Series,
    /// The matching records themselves.
    Rows,
}

impl Shape {
    /// The spelling in the catalog.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Totals => "totals",
            Shape::Grouped => "grouped",
            Shape::Ranked => "ranked",
            Shape::Series => "series",
            Shape::Rows => "rows",
        }
    }

    const ALL: [Shape; 5] = [Shape::Totals, Shape::Grouped, Shape::Ranked, Shape::Series, Shape::Rows];
}

/// Which ends a ranking can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RankOrder {
    /// Highest first only.
    Desc,
    /// Lowest first only.
    Asc,
    /// Either (a parameter chooses).
    Both,
}

/// What one call returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// Its shape.
    pub shape: Shape,
    /// Grouped or ranked: the words naming what each row is (销售员, sales person).
    pub dimension: Vec<String>,
    /// Series: the grain.
    pub grain: Option<Grain>,
    /// Series: another parameter's values that change the grain (`period` = 本年 → month).
    pub grain_when: Vec<(String, String, Grain)>,
    /// Ranked: the measure the rows are ordered by, in words.
    pub order_by: Vec<String>,
    /// Ranked: which ends it can show.
    pub order: RankOrder,
    /// The measures each row shows, in words.
    pub measures: Vec<String>,
    /// What the rows or totals count, in words (订单, 单), when a count is shown.
    pub counts: Vec<String>,
    /// The parameter that caps the rows, if any.
    pub limit: Option<String>,
}

impl Answer {
    /// The grain of a series for these arguments (`grainWhen` first).
    pub fn grain_for(&self, arguments: &Map<String, Value>) -> Option<Grain> {
        self.grain_when
            .iter()
            .find(|(param, value, _)| arguments.get(param).and_then(Value::as_str) == Some(value.as_str()))
            .map(|(_, _, grain)| *grain)
            .or(self.grain)
    }
}

/// `x-answers` of one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Answers {
    /// One answer whatever the arguments.
    One(Answer),
    /// One answer per value of a mode parameter.
    ByValue {
        /// The mode parameter.
        param: String,
        /// The answer of each declared value.
        answers: Vec<(String, Answer)>,
    },
}

impl Answers {
    /// The answer of a call with these arguments (the mode parameter's value), if declared.
    pub fn for_call(&self, arguments: &Map<String, Value>) -> Option<&Answer> {
        match self {
            Answers::One(answer) => Some(answer),
            Answers::ByValue { param, answers } => {
                let value = arguments.get(param)?.as_str()?;
                answers.iter().find(|(v, _)| v == value).map(|(_, a)| a)
            }
        }
    }

    /// Every declared answer, with the mode value that gives it (none for a single answer).
    pub fn all(&self) -> Vec<(Option<&str>, &Answer)> {
        match self {
            Answers::One(answer) => vec![(None, answer)],
            Answers::ByValue { answers, .. } => answers.iter().map(|(v, a)| (Some(v.as_str()), a)).collect(),
        }
    }

    /// The mode parameter, when answers are per value.
    pub fn mode_param(&self) -> Option<&str> {
        match self {
            Answers::One(_) => None,
            Answers::ByValue { param, .. } => Some(param),
        }
    }
}

/// Reads and checks `x-answers` against the parameter table.
pub(crate) fn read_answers(value: Option<&Value>, params: &ParamTable) -> Result<Option<Answers>, FieldError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let object = expect_object(value, "x-answers")?;
    let Some(by) = object.get("by") else {
        return read_answer(object, "x-answers", params).map(|a| Some(Answers::One(a)));
    };
    let param = by.as_str().ok_or_else(|| {
        FieldError::new(
            "x-answers.by",
            format!("expected a parameter name, got {}", kind_of(by)),
        )
    })?;
    let spec = params
        .get(param)
        .ok_or_else(|| FieldError::new("x-answers.by", format!("no parameter `{param}` in inputSchema")))?;
    if spec.enum_values.is_empty() {
        return Err(FieldError::new(
            "x-answers.by",
            format!("parameter `{param}` has no enum"),
        ));
    }
    let declared = object
        .get("answers")
        .ok_or_else(|| FieldError::new("x-answers.answers", "is required with `by`"))?;
    let mut answers = Vec::new();
    for (enum_value, answer) in expect_object(declared, "x-answers.answers")? {
        let field = format!("x-answers.answers.{enum_value}");
        if !spec.enum_strings().any(|v| v == enum_value) {
            return Err(FieldError::new(
                &field,
                format!("`{enum_value}` is not one of the enum values of `{param}`"),
            ));
        }
        let answer = read_answer(expect_object(answer, &field)?, &field, params)?;
        answers.push((enum_value.clone(), answer));
    }
    Ok(Some(Answers::ByValue {
        param: param.to_string(),
        answers,
    }))
}

fn read_answer(object: &Map<String, Value>, field: &str, params: &ParamTable) -> Result<Answer, FieldError> {
    let at = |key: &str| format!("{field}.{key}");
    let shape_text = object
        .get("shape")
        .and_then(Value::as_str)
        .ok_or_else(|| FieldError::new(at("shape"), "is required: totals, grouped, ranked, series or rows"))?;
    let shape = Shape::ALL.into_iter().find(|s| s.name() == shape_text).ok_or_else(|| {
        FieldError::new(
            at("shape"),
            format!("`{shape_text}` is not one of totals, grouped, ranked, series, rows"),
        )
    })?;
    let words = |key: &str| -> Result<Vec<String>, FieldError> {
        match object.get(key) {
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            other => read_string_list(other, &at(key)),
        }
    };
    let dimension = words("dimension")?;
    if matches!(shape, Shape::Grouped | Shape::Ranked) && dimension.is_empty() {
        return Err(FieldError::new(
            at("dimension"),
            format!("a {} answer names its dimension", shape.name()),
        ));
    }
    let grain = match object.get("grain") {
        None => None,
        Some(v) => Some(read_grain(v, &at("grain"))?),
    };
    if shape == Shape::Series && grain.is_none() {
        return Err(FieldError::new(at("grain"), "a series answer names its grain"));
    }
    let grain_when = read_grain_when(object.get("grainWhen"), &at("grainWhen"), params)?;
    let order = match object.get("order").map(|v| (v, v.as_str())) {
        None => RankOrder::Desc,
        Some((_, Some("desc"))) => RankOrder::Desc,
        Some((_, Some("asc"))) => RankOrder::Asc,
        Some((_, Some("both"))) => RankOrder::Both,
        Some((v, _)) => {
            return Err(FieldError::new(
                at("order"),
                format!("`{v}` is not one of desc, asc, both"),
            ));
        }
    };
    let limit = match object.get("limit") {
        None => None,
        Some(Value::String(name)) => {
            let spec = params
                .get(name)
                .ok_or_else(|| FieldError::new(at("limit"), format!("no parameter `{name}` in inputSchema")))?;
            if spec.ty != ParamType::Integer {
                return Err(FieldError::new(
                    at("limit"),
                    format!("`{name}` is of type {}; a row limit must be an integer", spec.ty.name()),
                ));
            }
            Some(name.clone())
        }
        Some(other) => {
            return Err(FieldError::new(
                at("limit"),
                format!("expected a parameter name, got {}", kind_of(other)),
            ));
        }
    };
    if let Some(unknown) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(FieldError::new(
            at(unknown),
            format!("unknown field; allowed are {}", KEYS.join(", ")),
        ));
    }
    Ok(Answer {
        shape,
        dimension,
        grain,
        grain_when,
        order_by: words("orderBy")?,
        order,
        measures: words("measures")?,
        counts: words("counts")?,
        limit,
    })
}

/// The fields of one answer.
const KEYS: [&str; 9] = [
    "shape",
    "dimension",
    "grain",
    "grainWhen",
    "orderBy",
    "order",
    "measures",
    "counts",
    "limit",
];

fn read_grain(value: &Value, field: &str) -> Result<Grain, FieldError> {
    value
        .as_str()
        .and_then(|text| Grain::ALL.into_iter().find(|g| g.name() == text))
        .ok_or_else(|| {
            FieldError::new(
                field,
                format!("`{value}` is not one of day, week, month, quarter, year"),
            )
        })
}

fn read_grain_when(
    value: Option<&Value>,
    field: &str,
    params: &ParamTable,
) -> Result<Vec<(String, String, Grain)>, FieldError> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (param, values) in expect_object(value, field)? {
        let param_field = format!("{field}.{param}");
        let spec = params
            .get(param)
            .ok_or_else(|| FieldError::new(&param_field, format!("no parameter `{param}` in inputSchema")))?;
        for (enum_value, grain) in expect_object(values, &param_field)? {
            let value_field = format!("{param_field}.{enum_value}");
            if !spec.enum_strings().any(|v| v == enum_value) {
                return Err(FieldError::new(
                    &value_field,
                    format!("`{enum_value}` is not one of the enum values of `{param}`"),
                ));
            }
            out.push((param.clone(), enum_value.clone(), read_grain(grain, &value_field)?));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::Catalog;
    use crate::CatalogError;

    use super::*;

    fn tool_with(answers: Value) -> Result<Catalog, CatalogError> {
        let tool = json!({
            "name": "t",
            "inputSchema": {"type": "object", "properties": {
                "mode": {"type": "string", "enum": ["total", "top", "daily"], "default": "total"},
                "period": {"type": "string", "enum": ["this", "year"]},
                "n": {"type": "integer"},
                "name": {"type": "string"}
            }},
            "x-answers": answers
        });
        Catalog::from_json_str(&json!({ "tools": [tool] }).to_string())
    }

    fn error_of(answers: Value) -> (String, String) {
        match tool_with(answers) {
            Err(CatalogError::Tool { field, reason, .. }) => (field, reason),
            other => panic!("expected a tool error, got {other:?}"),
        }
    }

    #[test]
    fn answers_per_mode_value() {
        let catalog = tool_with(json!({"by": "mode", "answers": {
            "total": {"shape": "totals", "measures": ["amount"], "counts": "orders"},
            "top": {"shape": "ranked", "dimension": ["store"], "orderBy": "amount", "limit": "n"},
            "daily": {"shape": "series", "grain": "day", "grainWhen": {"period": {"year": "month"}}}
        }}))
        .unwrap();
        let answers = catalog.tools()[0].extensions().answers.clone().unwrap();
        let args = |v: Value| v.as_object().cloned().unwrap_or_default();
        let top = answers.for_call(&args(json!({"mode": "top"}))).unwrap();
        assert_eq!(top.shape, Shape::Ranked);
        assert_eq!(top.order_by, vec!["amount"]);
        assert_eq!(top.limit.as_deref(), Some("n"));
        let daily = answers
            .for_call(&args(json!({"mode": "daily", "period": "year"})))
            .unwrap();
        assert_eq!(daily.grain_for(&args(json!({"period": "year"}))), Some(Grain::Month));
        assert_eq!(daily.grain_for(&args(json!({"period": "this"}))), Some(Grain::Day));
        assert_eq!(answers.mode_param(), Some("mode"));
        assert!(answers.for_call(&args(json!({}))).is_none());
    }

    #[test]
    fn one_answer_for_the_tool() {
        let catalog = tool_with(json!({"shape": "rows", "limit": "n"})).unwrap();
        let answers = catalog.tools()[0].extensions().answers.clone().unwrap();
        assert_eq!(answers.for_call(&Map::new()).map(|a| a.shape), Some(Shape::Rows));
    }

    #[test]
    fn broken_answers_name_the_field() {
        assert_eq!(error_of(json!({"by": "nope", "answers": {}})).0, "x-answers.by");
        assert_eq!(
            error_of(json!({"by": "name", "answers": {}})).1,
            "parameter `name` has no enum"
        );
        assert_eq!(
            error_of(json!({"by": "mode", "answers": {"weekly": {"shape": "rows"}}})).0,
            "x-answers.answers.weekly"
        );
        assert_eq!(error_of(json!({"shape": "pie"})).0, "x-answers.shape");
        assert_eq!(error_of(json!({"shape": "ranked"})).0, "x-answers.dimension");
        assert_eq!(error_of(json!({"shape": "series"})).0, "x-answers.grain");
        assert_eq!(
            error_of(json!({"shape": "series", "grain": "hour"})).0,
            "x-answers.grain"
        );
        assert_eq!(error_of(json!({"shape": "rows", "limit": "name"})).0, "x-answers.limit");
        assert_eq!(
            error_of(json!({"shape": "rows", "limit": "missing"})).0,
            "x-answers.limit"
        );
        assert_eq!(error_of(json!({"shape": "rows", "colour": 1})).0, "x-answers.colour");
        assert_eq!(
            error_of(json!({"shape": "series", "grain": "day", "grainWhen": {"period": {"decade": "year"}}})).0,
            "x-answers.grainWhen.period.decade"
        );
        assert_eq!(error_of(json!({"by": "mode"})).0, "x-answers.answers");
        assert_eq!(
            error_of(json!({"shape": "ranked", "dimension": ["x"], "order": "up"})).0,
            "x-answers.order"
        );
    }
}
