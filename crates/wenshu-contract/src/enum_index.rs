//! The canonical spellings of one parameter's enum values and synonyms, built once when the catalog loads.

use std::collections::HashMap;

use wenshu_lexicon::canonical::canonical;

use crate::extensions::EnumSynonyms;
use crate::param::ParamSpec;

/// Canonical text → (enum value, the rule that maps it): `enum_normalized` or `enum_synonym`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnumIndex {
    keys: HashMap<String, (String, &'static str)>,
}

impl EnumIndex {
    /// Indexes the string enum values of `spec` (case- and width-insensitive), then their synonyms.
    pub fn build(spec: &ParamSpec, synonyms: &[EnumSynonyms]) -> Self {
        let mut keys = HashMap::new();
        for value in spec.enum_strings() {
            keys.entry(canonical(value))
                .or_insert_with(|| (value.to_string(), "enum_normalized"));
        }
        for entry in synonyms {
            for synonym in &entry.synonyms {
                keys.entry(canonical(synonym))
                    .or_insert_with(|| (entry.value.clone(), "enum_synonym"));
            }
        }
        Self { keys }
    }

    /// The enum value a text denotes, with the rule that maps it.
    pub fn lookup(&self, text: &str) -> Option<(&str, &'static str)> {
        self.keys
            .get(&canonical(text))
            .map(|(value, rule)| (value.as_str(), *rule))
    }

    /// Every spelling indexed, canonical, with its enum value (for matching inside sentences).
    pub fn spellings(&self) -> impl Iterator<Item = (&str, &str)> {
        self.keys.iter().map(|(key, (value, _))| (key.as_str(), value.as_str()))
    }
}
