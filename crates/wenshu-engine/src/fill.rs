//! Parameters code fills, never the model: the subject's ID (`x-subject`) and the date range (`x-date-range`).

use jiff::civil::Date;
use serde_json::{Map, Value};
use wenshu_contract::{ParamType, Tool};
use wenshu_lexicon::demand::{DemandKind, demands_of};
use wenshu_lexicon::time::{DateRange, parse_date_range};

use crate::facts::QuestionFacts;

/// Why a code-filled parameter could not be filled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FillError {
    /// The subject ID does not fit the subject parameter's type.
    #[error("subject ID `{id}` does not fit parameter `{param}` of type {expected}")]
    SubjectType {
        /// The subject parameter.
        param: String,
        /// The ID given.
        id: String,
        /// The parameter's type.
        expected: &'static str,
    },
    /// The tool's default date range is not a time expression.
    #[error("tool `{tool}`: x-date-range default `{default}` is not a time expression")]
    DefaultRange {
        /// The tool.
        tool: String,
        /// The default as written.
        default: String,
    },
}

/// The date range a question gives a tool: its first time expression, else the tool's default range.
pub fn question_range(tool: &Tool, facts: &QuestionFacts) -> Result<Option<DateRange>, FillError> {
    if let Some((range, _)) = facts.first_time() {
        return Ok(Some(range));
    }
    default_range(tool, facts.today)
}

/// The tool's default range (`x-date-range.default`, e.g. 最近7天) on `today`.
pub fn default_range(tool: &Tool, today: Date) -> Result<Option<DateRange>, FillError> {
    let Some(default) = tool.extensions().date_range.as_ref().and_then(|r| r.default.as_ref()) else {
        return Ok(None);
    };
    parse_date_range(default, today)
        .map(Some)
        .map_err(|_| FillError::DefaultRange {
            tool: tool.name().to_string(),
            default: default.clone(),
        })
}

/// The `x-date-range` parameters for `range` (ISO dates), empty when the tool has none.
pub fn date_params(tool: &Tool, range: Option<DateRange>) -> Map<String, Value> {
    let mut params = Map::new();
    if let (Some(names), Some(range)) = (&tool.extensions().date_range, range) {
        params.insert(names.start.clone(), Value::String(range.start.to_string()));
        params.insert(names.end.clone(), Value::String(range.end.to_string()));
    }
    params
}

/// Whether a question that names no subject asks about many of them (哪个仓库, 各快递员, 排名前五) rather than
/// about one not yet named: a grouping by a dimension or a ranking, which one subject's tool cannot answer.
pub fn asks_about_many(question: &str, today: Date) -> bool {
    demands_of(question, today).iter().any(|d| match d.kind {
        DemandKind::Group { grain } => grain.is_none(),
        DemandKind::Rank { .. } | DemandKind::Sort { .. } => true,
        _ => false,
    })
}

/// The `x-subject` parameter for an entity ID, typed as the parameter is.
pub fn subject_param(tool: &Tool, id: &str) -> Result<Map<String, Value>, FillError> {
    let mut params = Map::new();
    let Some(subject) = &tool.extensions().subject else {
        return Ok(params);
    };
    let spec = tool.param(&subject.param);
    let value = match spec.map(|s| s.ty) {
        Some(ParamType::Integer) => id
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| FillError::SubjectType {
                param: subject.param.clone(),
                id: id.to_string(),
                expected: "integer",
            })?,
        _ => Value::String(id.to_string()),
    };
    params.insert(subject.param.clone(), value);
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;
    use serde_json::json;
    use wenshu_contract::demo_catalog;

    #[test]
    fn dates_come_from_the_question_or_the_default() {
        let catalog = demo_catalog().unwrap();
        let tool = catalog.get("movie_box_office").unwrap();
        let facts = QuestionFacts::new("满江红上个月的票房", date(2026, 11, 29));
        let params = date_params(tool, question_range(tool, &facts).unwrap());
        assert_eq!(
            Value::Object(params),
            json!({"startDate": "2026-10-01", "endDate": "2026-10-31"})
        );
        let facts = QuestionFacts::new("满江红的票房", date(2026, 11, 29));
        let params = date_params(tool, question_range(tool, &facts).unwrap());
        assert_eq!(
            Value::Object(params),
            json!({"startDate": "2026-11-23", "endDate": "2026-11-29"})
        );
    }

    #[test]
    fn subject_ids_take_the_parameter_type() {
        let catalog = demo_catalog().unwrap();
        let tool = catalog.get("movie_rating").unwrap();
        assert_eq!(Value::Object(subject_param(tool, "3").unwrap()), json!({"movieId": 3}));
        assert!(matches!(subject_param(tool, "abc"), Err(FillError::SubjectType { .. })));
        assert!(
            subject_param(catalog.get("sales_query").unwrap(), "3")
                .unwrap()
                .is_empty()
        );
    }
}
