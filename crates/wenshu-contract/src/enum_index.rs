//! The spellings of one parameter's enum values — the values, their `x-enum-synonyms`, and `value(label)` labels
//! in the description — indexed once when the catalog loads, for binding and for matching inside sentences.

use std::collections::HashMap;

use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::synonym::{SynonymMatcher, description_labels};

use crate::extensions::EnumSynonyms;
use crate::param::ParamSpec;

/// Canonical text → (enum value, the rule that maps it), plus a matcher for finding the values in sentences.
#[derive(Debug, Clone, Default)]
pub struct EnumIndex {
    keys: HashMap<String, (String, &'static str)>,
    surfaces: Vec<(String, Vec<String>)>,
    matcher: SynonymMatcher,
}

impl EnumIndex {
    /// Indexes the string enum values of `spec` (case-, width- and script-insensitive), then their synonyms and
    /// description labels.
    pub fn build(spec: &ParamSpec, synonyms: &[EnumSynonyms]) -> Self {
        let mut keys = HashMap::new();
        for value in spec.enum_strings() {
            keys.entry(canonical(value))
                .or_insert_with(|| (value.to_string(), "enum_normalized"));
        }
        let surfaces = enum_surfaces(spec, synonyms);
        for (value, spellings) in &surfaces {
            for spelling in spellings {
                keys.entry(canonical(spelling))
                    .or_insert_with(|| (value.clone(), "enum_synonym"));
            }
        }
        let matcher = SynonymMatcher::new(surfaces.clone());
        Self {
            keys,
            surfaces,
            matcher,
        }
    }

    /// The enum value a text denotes, with the rule that maps it (`enum_normalized` or `enum_synonym`).
    pub fn lookup(&self, text: &str) -> Option<(&str, &'static str)> {
        self.keys
            .get(&canonical(text))
            .map(|(value, rule)| (value.as_str(), *rule))
    }

    /// Each string enum value with its other spellings (synonyms, then description labels).
    pub fn surfaces(&self) -> &[(String, Vec<String>)] {
        &self.surfaces
    }

    /// A matcher that finds the values, by any spelling, inside a sentence.
    pub fn matcher(&self) -> &SynonymMatcher {
        &self.matcher
    }
}

/// Each string enum value of `spec` with its synonyms and the labels its description gives it (`summary(汇总)`).
pub fn enum_surfaces(spec: &ParamSpec, synonyms: &[EnumSynonyms]) -> Vec<(String, Vec<String>)> {
    let labels = description_labels(&spec.description);
    spec.enum_strings()
        .map(|value| {
            let mut spellings: Vec<String> = synonyms
                .iter()
                .filter(|s| s.value == value)
                .flat_map(|s| s.synonyms.iter().cloned())
                .collect();
            spellings.extend(
                labels
                    .iter()
                    .filter(|(v, _)| v == value)
                    .map(|(_, label)| label.clone()),
            );
            let negated: Vec<String> = spellings.iter().flat_map(|s| negated_forms(s)).collect();
            for form in negated {
                if !spellings.contains(&form) && form != value {
                    spellings.push(form);
                }
            }
            (value.to_string(), spellings)
        })
        .collect()
}

/// The other ways Chinese says "not yet" at the start of a spelling: 未付款 ↔ 没付款, 没有付款, 还没付款.
fn negated_forms(spelling: &str) -> Vec<String> {
    const NOT_YET: [&str; 4] = ["还没有", "没有", "还没", "没"];
    let rest = spelling
        .strip_prefix('未')
        .or_else(|| NOT_YET.iter().find_map(|w| spelling.strip_prefix(w)));
    match rest.filter(|r| r.chars().count() >= 1) {
        Some(rest) => std::iter::once(format!("未{rest}"))
            .chain(NOT_YET.iter().map(|w| format!("{w}{rest}")))
            .filter(|f| f != spelling)
            .collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_yet_has_several_spellings() {
        let forms = negated_forms("未付款");
        assert!(forms.contains(&"没付款".to_string()) && forms.contains(&"还没付款".to_string()));
        assert!(negated_forms("没审批").contains(&"未审批".to_string()));
        assert!(negated_forms("已付款").is_empty());
    }
}
