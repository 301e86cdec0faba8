//! The values resolution works with and returns: entities, candidates, match methods, resolutions.

use std::cmp::Ordering;

use serde::Serialize;
use serde_json::{Map, Value};

/// One entity of a catalog: its ID, its name, other names it goes by, and distinguishing attributes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    /// The entity's ID as the data source has it: an integer or a string.
    pub id: Value,
    /// The display name, matched exactly and fuzzily.
    pub name: String,
    /// Other names matched like the name (abbreviations, former titles).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Everything else (year, genre…), shown with candidates so a user can tell them apart.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub attributes: Map<String, Value>,
}

impl Entity {
    /// An entity with an ID and a name, no aliases, no attributes.
    pub fn new(id: impl Into<Value>, name: impl Into<String>) -> Self {
        Entity {
            id: id.into(),
            name: name.into(),
            aliases: Vec::new(),
            attributes: Map::new(),
        }
    }

    /// Adds an alias.
    #[must_use]
    pub fn with_alias(mut self, alias: impl Into<String>) -> Self {
        self.aliases.push(alias.into());
        self
    }

    /// Sets an attribute.
    #[must_use]
    pub fn with_attribute(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.attributes.insert(key.into(), value.into());
        self
    }
}

/// How a candidate's name matched the query, from strongest to weakest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchMethod {
    /// The canonical name equals the query.
    Exact,
    /// A canonical alias equals the query.
    Alias,
    /// The name starts with the query (ignoring punctuation and spaces).
    Prefix,
    /// The name contains the query further in.
    Substring,
    /// The query's characters occur in the name in order (唐探3 → 唐人街探案3).
    Subsequence,
    /// The name is within a small normalized edit distance of the query (a typo).
    EditDistance,
    /// The name sounds the same or nearly the same (toneless pinyin).
    Pinyin,
}

/// One possible entity for a query, with how well and how it matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// The entity, with its attributes as distinguishing information.
    pub entity: Entity,
    /// The match quality in 0..=1 (1 for exact matches).
    pub score: f64,
    /// How the name matched.
    pub method: MatchMethod,
}

/// The outcome of resolving a name: one entity, several to choose from, or none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Resolution {
    /// Exactly one entity's canonical name or alias equals the query.
    Exact {
        /// The entity.
        entity: Entity,
    },
    /// No exact match, and one fuzzy match clearly ahead of any other: used, and shown as fuzzy.
    Fuzzy {
        /// The entity.
        entity: Entity,
        /// The match quality in 0..=1.
        score: f64,
        /// How the name matched.
        method: MatchMethod,
    },
    /// Several entities fit (the same exact name, or several plausible fuzzy matches): the user must pick.
    Ambiguous {
        /// The candidates, best first, capped at the caller's limit; never silently reduced to one.
        candidates: Vec<Candidate>,
        /// Whether the candidates all match exactly (same name), rather than fuzzily.
        exact: bool,
    },
    /// No entity matches.
    NotFound,
}

impl Resolution {
    /// The entity when the resolution is unique (exact or fuzzy).
    pub fn entity(&self) -> Option<&Entity> {
        match self {
            Resolution::Exact { entity } | Resolution::Fuzzy { entity, .. } => Some(entity),
            Resolution::Ambiguous { .. } | Resolution::NotFound => None,
        }
    }

    /// The IDs involved: the one entity's, every candidate's, or none.
    pub fn ids(&self) -> Vec<Value> {
        match self {
            Resolution::Exact { entity } | Resolution::Fuzzy { entity, .. } => vec![entity.id.clone()],
            Resolution::Ambiguous { candidates, .. } => candidates.iter().map(|c| c.entity.id.clone()).collect(),
            Resolution::NotFound => Vec::new(),
        }
    }
}

/// Orders IDs: integers numerically before strings, strings lexicographically, anything else by its JSON text.
pub fn compare_ids(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Number(_) => 0,
            Value::String(_) => 1,
            _ => 2,
        }
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => x
                .as_f64()
                .unwrap_or(f64::MAX)
                .total_cmp(&y.as_f64().unwrap_or(f64::MAX)),
        },
        (Value::String(x), Value::String(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)).then_with(|| a.to_string().cmp(&b.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_order_integers_before_strings() {
        assert_eq!(compare_ids(&json!(2), &json!(10)), Ordering::Less);
        assert_eq!(compare_ids(&json!(10), &json!("a")), Ordering::Less);
        assert_eq!(compare_ids(&json!("b"), &json!("a")), Ordering::Greater);
        assert_eq!(compare_ids(&json!(u64::MAX), &json!(1)), Ordering::Greater);
    }

    #[test]
    fn resolution_serializes_with_status() {
        let entity = Entity::new(21, "英雄").with_attribute("year", 2002);
        let value = serde_json::to_value(Resolution::Exact { entity }).unwrap_or_default();
        assert_eq!(
            value,
            json!({"status": "exact", "entity": {"id": 21, "name": "英雄", "attributes": {"year": 2002}}})
        );
        let none = serde_json::to_value(Resolution::NotFound).unwrap_or_default();
        assert_eq!(none, json!({"status": "not_found"}));
    }
}
