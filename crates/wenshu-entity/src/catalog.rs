//! Entity catalogs: every entity type's index, loaded from JSON or inserted by a loader.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::entity::Entity;
use super::error::ResolveError;
use super::index::EntityIndex;

/// The entity catalogs: entity type (e.g. `movie`, `salesPerson`) → its index.
#[derive(Debug, Clone, Default)]
pub struct EntityCatalogs {
    /// Indexes by entity type.
    indexes: BTreeMap<String, EntityIndex>,
}

impl EntityCatalogs {
    /// No catalogs.
    pub fn new() -> Self {
        EntityCatalogs::default()
    }

    /// Loads catalogs from the `entities.json` shape: `{"about": "...", "movie": [{"id": 1, "name": "…", …}], …}`.
    ///
    /// Keys whose value is not an array are ignored. Each entity needs an `id` (integer or non-empty string) and a
    /// `name` (non-empty string); `aliases` (array of non-empty strings) is optional; every other field becomes an
    /// attribute. Errors name the type, the index and the field.
    pub fn from_json_str(text: &str) -> Result<Self, ResolveError> {
        let value: Value = serde_json::from_str(text)?;
        let Value::Object(root) = value else {
            return Err(ResolveError::NotAnObject);
        };
        let mut catalogs = EntityCatalogs::new();
        for (entity_type, value) in root {
            let Value::Array(items) = value else { continue };
            let entities = items
                .into_iter()
                .enumerate()
                .map(|(index, item)| parse_entity(&entity_type, index, item))
                .collect::<Result<Vec<_>, _>>()?;
            catalogs.insert(&entity_type, entities);
        }
        Ok(catalogs)
    }

    /// The identities of the indexes, in type order: equal lists mean the same contents.
    pub fn identities(&self) -> Vec<u64> {
        self.indexes.values().map(|index| index.identity).collect()
    }

    /// Adds entities of a type and indexes them again (appended to the type's entities when it already has some).
    pub fn insert(&mut self, entity_type: &str, entities: Vec<Entity>) {
        let all = match self.indexes.remove(entity_type) {
            Some(existing) => {
                let mut all = existing.into_entities();
                all.extend(entities);
                all
            }
            None => entities,
        };
        self.indexes.insert(entity_type.to_string(), EntityIndex::new(all));
    }

    /// The index of an entity type.
    pub fn get(&self, entity_type: &str) -> Option<&EntityIndex> {
        self.indexes.get(entity_type)
    }

    /// The entity types, sorted.
    pub fn types(&self) -> Vec<&str> {
        self.indexes.keys().map(String::as_str).collect()
    }
}

/// Turns one JSON element of a catalog array into an entity.
pub fn parse_entity(entity_type: &str, index: usize, item: Value) -> Result<Entity, ResolveError> {
    let Value::Object(mut fields) = item else {
        return Err(ResolveError::EntityNotObject {
            entity_type: entity_type.to_string(),
            index,
        });
    };
    let invalid = |field: &'static str, problem: &'static str| ResolveError::InvalidField {
        entity_type: entity_type.to_string(),
        index,
        field,
        problem,
    };
    let missing = |field: &'static str| ResolveError::MissingField {
        entity_type: entity_type.to_string(),
        index,
        field,
    };
    let id = match fields.remove("id") {
        None => return Err(missing("id")),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n),
        Some(Value::String(s)) if !s.trim().is_empty() => Value::String(s),
        Some(_) => return Err(invalid("id", "must be an integer or a non-empty string")),
    };
    let name = match fields.remove("name") {
        None => return Err(missing("name")),
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(_) => return Err(invalid("name", "must be a non-empty string")),
    };
    let aliases = match fields.remove("aliases") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) if !s.trim().is_empty() => Ok(s),
                _ => Err(invalid("aliases", "must be an array of non-empty strings")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err(invalid("aliases", "must be an array of non-empty strings")),
    };
    let attributes: Map<String, Value> = fields;
    Ok(Entity {
        id,
        name,
        aliases,
        attributes,
    })
}
