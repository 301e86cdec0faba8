//! What kind of value a parameter takes, judged from its schema: a period enum, a place. Shared by the grounding
//! check and the lexicon engine.

use jiff::civil::Date;
use wenshu_contract::{ParamSpec, ParamType};
use wenshu_lexicon::period::period_range;

/// Whether a parameter is an enum of periods (本月/上月/… or this_month/…): one of its values is a time expression.
pub fn is_period_param(spec: &ParamSpec, today: Date) -> bool {
    spec.ty == ParamType::String && spec.enum_strings().any(|v| period_range(v, today).is_some())
}

/// Whether a parameter is a `{province, city}` place.
pub fn is_place_param(spec: &ParamSpec) -> bool {
    spec.ty == ParamType::Object && (spec.property("province").is_some() || spec.property("city").is_some())
}
