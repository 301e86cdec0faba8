//! Subjects the user chose: an ID given with the request is checked against the tool's subject type and the name
//! the question gives; an earlier round's resolved subject settles the same name again; and the subject of an
//! executed call, for the history.

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::Tool;
use wenshu_contract::extensions::SubjectParam;
use wenshu_lexicon::canonical::canonical;

use super::catalog::EntityCatalogs;
use super::entity::{Entity, Resolution};
use super::index::EntityIndex;
use crate::fill::{FillError, subject_param};
use crate::route::{MAX_HISTORY, Turn, TurnSubject};

/// Why a subject ID given with a request cannot be used for the routed tool: the caller must send another.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum SubjectIdError {
    /// The ID does not fit the subject parameter's type (an integer parameter and `abc`).
    #[error("`subjectId` `{id}` does not fit parameter `{param}` of tool `{tool}`: expected {expected}")]
    WrongType {
        /// The tool.
        tool: String,
        /// The subject parameter.
        param: String,
        /// The ID given.
        id: String,
        /// The type allowed.
        expected: String,
    },
    /// No entity of the tool's subject type has this ID.
    #[error("`subjectId` `{id}` is not a {entity_type}: tool `{tool}` takes the ID of a {entity_type} in `{param}`")]
    NotAnEntity {
        /// The tool.
        tool: String,
        /// The subject parameter.
        param: String,
        /// The tool's subject type.
        entity_type: String,
        /// The ID given.
        id: String,
    },
    /// The ID is an entity of the type, but not one the question's name can mean.
    #[error(
        "`subjectId` `{id}` is {chosen}, not a {entity_type} named 「{name}」: allowed {}",
        allowed.join(", ")
    )]
    NotNamed {
        /// The tool.
        tool: String,
        /// The subject parameter.
        param: String,
        /// The tool's subject type.
        entity_type: String,
        /// The ID given.
        id: String,
        /// The name of the entity the ID belongs to.
        chosen: String,
        /// The name the question gives.
        name: String,
        /// The IDs the name can mean, each with its name (`21 英雄`).
        allowed: Vec<String>,
    },
}

impl SubjectIdError {
    /// A stable machine-readable code: `invalid_type`, `unknown_subject` or `subject_mismatch`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::WrongType { .. } => "invalid_type",
            Self::NotAnEntity { .. } => "unknown_subject",
            Self::NotNamed { .. } => "subject_mismatch",
        }
    }

    /// The request field at fault (`subjectId`).
    pub fn field(&self) -> &'static str {
        "subjectId"
    }

    /// The value given.
    pub fn value(&self) -> &str {
        match self {
            Self::WrongType { id, .. } | Self::NotAnEntity { id, .. } | Self::NotNamed { id, .. } => id,
        }
    }
}

/// A checked subject: the tool's subject parameter, filled, and the entity it names.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenSubject {
    /// The subject parameter with the entity's ID, typed as the parameter is.
    pub params: Map<String, Value>,
    /// The entity.
    pub entity: Entity,
}

/// Checks an ID the caller chose for `tool`'s `subject` (whose type's index is `index`): it must fit the parameter,
/// be an entity of that type, and, when the question names the subject (`name`), be one the name can mean.
pub fn check_chosen_id(
    tool: &Tool,
    subject: &SubjectParam,
    index: &EntityIndex,
    id: &str,
    name: Option<&str>,
    limit: usize,
) -> Result<ChosenSubject, Box<SubjectIdError>> {
    let params = subject_param(tool, id).map_err(|e| match e {
        FillError::SubjectType { param, id, expected } => SubjectIdError::WrongType {
            tool: tool.name().to_string(),
            param,
            id,
            expected: expected.to_string(),
        },
        other => SubjectIdError::WrongType {
            tool: tool.name().to_string(),
            param: subject.param.clone(),
            id: id.to_string(),
            expected: other.to_string(),
        },
    });
    let params = params.map_err(Box::new)?;
    let typed = params.get(&subject.param).cloned().unwrap_or(Value::Null);
    let Some(entity) = entity_by_id(index, &typed, id) else {
        return Err(Box::new(SubjectIdError::NotAnEntity {
            tool: tool.name().to_string(),
            param: subject.param.clone(),
            entity_type: subject.entity_type.clone(),
            id: id.to_string(),
        }));
    };
    if let Some(name) = name {
        let resolution = index.resolve(name, limit);
        let ids = resolution.ids();
        if !ids.is_empty() && !ids.contains(&entity.id) {
            let allowed = resolution_entities(&resolution)
                .iter()
                .map(|e| format!("{} {}", id_text(&e.id), e.name))
                .collect();
            return Err(Box::new(SubjectIdError::NotNamed {
                tool: tool.name().to_string(),
                param: subject.param.clone(),
                entity_type: subject.entity_type.clone(),
                id: id.to_string(),
                chosen: entity.name.clone(),
                name: name.to_string(),
                allowed,
            }));
        }
    }
    Ok(ChosenSubject {
        params,
        entity: entity.clone(),
    })
}

/// The entity an earlier round (of the last [`MAX_HISTORY`], newest first) resolved for `entity_type` that is
/// among what a name resolves to now: the user already chose it, so the same name means it again.
pub fn earlier_choice<'a>(
    history: &[Turn],
    entity_type: &str,
    index: &'a EntityIndex,
    resolution: &Resolution,
) -> Option<&'a Entity> {
    let ids = resolution.ids();
    history
        .iter()
        .rev()
        .take(MAX_HISTORY)
        .filter_map(|turn| turn.subject.as_ref())
        .filter(|s| s.entity_type == entity_type && ids.contains(&s.id))
        .find_map(|s| index.by_id(&s.id))
}

/// The one candidate of the previous round's same-named entities that `words` pick out by a distinguishing
/// attribute (王磊 of 浦东站 or of 白云站 → 「白云站的那个」): the user's choice among candidates, given in words.
pub fn choice_by_attribute<'a>(history: &[Turn], index: &'a EntityIndex, words: &str) -> Option<&'a Entity> {
    let words = canonical(words);
    if words.chars().count() < 2 {
        return None;
    }
    let turn = history.last()?;
    let candidates: Vec<&Entity> = [&turn.question, &turn.answer]
        .into_iter()
        .flat_map(|text| index.find_mentions(text))
        .filter(|m| m.entity_ids.len() > 1)
        .flat_map(|m| m.entity_ids)
        .filter_map(|id| index.by_id(&id))
        .collect();
    let picked: Vec<&Entity> = candidates
        .iter()
        .copied()
        .filter(|e| {
            e.attributes.values().any(|v| {
                let v = canonical(&id_text(v));
                v.chars().count() >= 2 && (v.contains(&words) || words.contains(&v))
            })
        })
        .collect();
    match picked.as_slice() {
        [one] => Some(one),
        [one, rest @ ..] if rest.iter().all(|e| e.id == one.id) => Some(one),
        _ => None,
    }
}

/// The subject a call of `tool` with `params` was about: the entity its `x-subject` parameter names.
pub fn subject_of_call(tool: &Tool, entities: &EntityCatalogs, params: &Map<String, Value>) -> Option<TurnSubject> {
    let subject = tool.extensions().subject.as_ref()?;
    let value = params.get(&subject.param)?;
    let entity = entity_by_id(entities.get(&subject.entity_type)?, value, &id_text(value))?;
    Some(TurnSubject {
        entity_type: subject.entity_type.clone(),
        id: entity.id.clone(),
        name: entity.name.clone(),
    })
}

/// The entity with this ID: as typed, else as the text's integer or string form (IDs keep their source's type).
fn entity_by_id<'a>(index: &'a EntityIndex, typed: &Value, text: &str) -> Option<&'a Entity> {
    let text = text.trim();
    index
        .by_id(typed)
        .or_else(|| text.parse::<i64>().ok().and_then(|n| index.by_id(&Value::from(n))))
        .or_else(|| index.by_id(&Value::String(text.to_string())))
}

fn resolution_entities(resolution: &Resolution) -> Vec<&Entity> {
    match resolution {
        Resolution::Exact { entity } | Resolution::Fuzzy { entity, .. } => vec![entity],
        Resolution::Ambiguous { candidates, .. } => candidates.iter().map(|c| &c.entity).collect(),
        Resolution::NotFound => Vec::new(),
    }
}

fn id_text(id: &Value) -> String {
    id.as_str().map_or_else(|| id.to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wenshu_contract::Catalog;

    fn fixture() -> (Catalog, EntityCatalogs) {
        let catalog = Catalog::from_value(&json!([{"name": "site_load", "description": "某个站点的负载",
            "inputSchema": {"type": "object", "properties": {"siteId": {"type": "integer"}}, "required": ["siteId"]},
            "x-subject": {"type": "site", "param": "siteId"}}]))
        .unwrap();
        let entities = EntityCatalogs::from_json_str(
            r#"{"site": [{"id": 7, "name": "北岸", "zone": "一区"}, {"id": 8, "name": "北岸", "zone": "二区"},
                         {"id": 9, "name": "南湾"}], "crew": [{"id": 70, "name": "北岸"}]}"#,
        )
        .unwrap();
        (catalog, entities)
    }

    #[test]
    fn a_chosen_id_must_be_an_entity_of_the_subject_type_the_name_can_mean() {
        let (catalog, entities) = fixture();
        let tool = catalog.get("site_load").unwrap();
        let subject = tool.extensions().subject.as_ref().unwrap();
        let sites = entities.get("site").unwrap();
        let chosen = check_chosen_id(tool, subject, sites, "8", Some("北岸"), 5).unwrap();
        assert_eq!(
            (Value::Object(chosen.params), chosen.entity.id),
            (json!({"siteId": 8}), json!(8))
        );
        let err = check_chosen_id(tool, subject, sites, "9", Some("北岸"), 5).unwrap_err();
        assert!(
            matches!(err.as_ref(), SubjectIdError::NotNamed { allowed, chosen, .. } if chosen == "南湾" && allowed.len() == 2),
            "{err}"
        );
        assert!(err.to_string().contains("7 北岸") && err.to_string().contains("subjectId"));
        let err = check_chosen_id(tool, subject, sites, "70", None, 5).unwrap_err();
        assert!(matches!(err.as_ref(), SubjectIdError::NotAnEntity { entity_type, .. } if entity_type == "site"));
        let err = check_chosen_id(tool, subject, sites, "x7", None, 5).unwrap_err();
        assert!(matches!(err.as_ref(), SubjectIdError::WrongType { .. }), "{err}");
        assert_eq!(err.value(), "x7");
        assert!(check_chosen_id(tool, subject, sites, "9", None, 5).is_ok());
    }

    #[test]
    fn an_earlier_choice_settles_the_same_name_and_calls_name_their_subject() {
        let (catalog, entities) = fixture();
        let sites = entities.get("site").unwrap();
        let resolution = sites.resolve("北岸", 5);
        let mut turn = Turn::new("北岸的负载", "……");
        assert_eq!(earlier_choice(&[turn.clone()], "site", sites, &resolution), None);
        turn.subject = subject_of_call(
            catalog.get("site_load").unwrap(),
            &entities,
            json!({"siteId": 8}).as_object().unwrap(),
        );
        assert_eq!(turn.subject.as_ref().map(|s| s.name.as_str()), Some("北岸"));
        let found = earlier_choice(&[turn.clone()], "site", sites, &resolution);
        assert_eq!(found.map(|e| e.id.clone()), Some(json!(8)));
        assert_eq!(earlier_choice(&[turn.clone()], "crew", sites, &resolution), None);
        let other = sites.resolve("南湾", 5);
        assert_eq!(earlier_choice(&[turn], "site", sites, &other), None);
    }

    #[test]
    fn a_candidate_is_picked_by_its_distinguishing_attribute() {
        let (_, entities) = fixture();
        let sites = entities.get("site").unwrap();
        let asked = [Turn::new("北岸的负载", "有两个北岸：一区、二区，请选一个")];
        assert_eq!(
            choice_by_attribute(&asked, sites, "二区的那个").map(|e| e.id.clone()),
            Some(json!(8))
        );
        assert_eq!(choice_by_attribute(&asked, sites, "三区"), None);
        assert_eq!(
            choice_by_attribute(&[Turn::new("南湾的负载", "……")], sites, "一区"),
            None
        );
    }
}
