//! The values of metric dimensions — read from the data at start, from an entity catalog, or listed in the
//! catalog — and where a question names them.

use std::collections::HashMap;

use serde_json::Value;
use wenshu_contract::metric::{DimensionValues, MetricModel};
use wenshu_contract::{Catalog, Tool};
use wenshu_lexicon::canonical::canonical;

use super::sql::distinct_values_sql;
use crate::db::{Database, QueryLimits};
use crate::execute::ExecError;
use crate::resolve::EntityCatalogs;

/// The most distinct values read for one dimension.
pub const MAX_VALUES: usize = 10_000;

/// One value of a dimension: as the data has it, as text, and its spellings (canonical).
#[derive(Debug, Clone, PartialEq)]
pub struct KnownValue {
    /// The value as the data has it (bound as is, so its type matches the column).
    pub value: Value,
    /// The value as text.
    pub text: String,
    /// Canonical spellings that name it (the text, entity aliases, `valueSynonyms`).
    pub spellings: Vec<String>,
    /// Whether several entities share this name (a filter on it would merge them).
    pub ambiguous: bool,
}

/// A value named in a question.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueMention {
    /// The dimension's index in the model.
    pub dimension: usize,
    /// The value.
    pub value: KnownValue,
    /// Byte range in the canonical question.
    pub range: std::ops::Range<usize>,
}

/// The dimension values of every metric tool, by tool name and dimension index.
#[derive(Debug, Clone, Default)]
pub struct MetricValues {
    by_tool: HashMap<String, Vec<Vec<KnownValue>>>,
}

impl MetricValues {
    /// No values at all.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the values of every metric tool of `catalog`: `data` dimensions with one `SELECT DISTINCT` each on the
    /// read-only `db`, entity dimensions from `entities`, listed ones from the catalog.
    pub async fn load(db: &Database, catalog: &Catalog, entities: &EntityCatalogs) -> Result<Self, ExecError> {
        let mut out = Self::new();
        for tool in catalog.tools() {
            let Some(model) = tool.extensions().metrics.as_deref() else {
                continue;
            };
            let mut dims = Vec::new();
            for (index, dim) in model.dimensions.iter().enumerate() {
                let raw: Vec<(Value, Vec<String>)> = match &dim.values {
                    DimensionValues::Data => {
                        let sql = distinct_values_sql(model, index, db.dialect(), MAX_VALUES);
                        let rows = db.query(&sql, &[], QueryLimits::default()).await?;
                        rows.rows
                            .into_iter()
                            .filter_map(|row| row.into_iter().next())
                            .filter(|v| !v.is_null())
                            .map(|v| (v, Vec::new()))
                            .collect()
                    }
                    DimensionValues::Entity { entity } => entities
                        .get(entity)
                        .map(|index| {
                            index
                                .entities()
                                .iter()
                                .map(|e| (Value::String(e.name.clone()), e.aliases.clone()))
                                .collect()
                        })
                        .unwrap_or_default(),
                    DimensionValues::List { values } => {
                        values.iter().map(|v| (Value::String(v.clone()), Vec::new())).collect()
                    }
                };
                dims.push(known_values(model, index, raw));
            }
            out.by_tool.insert(tool.name().to_string(), dims);
        }
        Ok(out)
    }

    /// Sets the values of one dimension of a tool (for tests and for values from elsewhere).
    pub fn insert(&mut self, tool: &Tool, dimension: usize, values: Vec<Value>) {
        let Some(model) = tool.extensions().metrics.as_deref() else {
            return;
        };
        let dims = self
            .by_tool
            .entry(tool.name().to_string())
            .or_insert_with(|| vec![Vec::new(); model.dimensions.len()]);
        if let Some(slot) = dims.get_mut(dimension) {
            *slot = known_values(model, dimension, values.into_iter().map(|v| (v, Vec::new())).collect());
        }
    }

    /// The known values of one dimension.
    pub fn values(&self, tool: &str, dimension: usize) -> &[KnownValue] {
        self.by_tool
            .get(tool)
            .and_then(|dims| dims.get(dimension))
            .map_or(&[], Vec::as_slice)
    }

    /// The value a name denotes (its text or one of its spellings), if the dimension has it.
    pub fn lookup(&self, tool: &str, dimension: usize, name: &str) -> Option<&KnownValue> {
        let key = canonical(name);
        let values = self.values(tool, dimension);
        values
            .iter()
            .find(|v| v.text == name)
            .or_else(|| values.iter().find(|v| v.spellings.contains(&key)))
    }

    /// Every value named in `canonical_text` (canonical form), longest first, never two overlapping.
    pub fn mentions(&self, tool: &str, canonical_text: &str) -> Vec<ValueMention> {
        let Some(dims) = self.by_tool.get(tool) else {
            return Vec::new();
        };
        let mut found: Vec<ValueMention> = Vec::new();
        for (dimension, values) in dims.iter().enumerate() {
            for value in values {
                for spelling in &value.spellings {
                    for (start, _) in canonical_text
                        .match_indices(spelling.as_str())
                        .filter(|(start, _)| whole_word(canonical_text, *start..*start + spelling.len()))
                    {
                        found.push(ValueMention {
                            dimension,
                            value: value.clone(),
                            range: start..start + spelling.len(),
                        });
                    }
                }
            }
        }
        found.sort_by(|a, b| {
            b.range
                .len()
                .cmp(&a.range.len())
                .then(a.range.start.cmp(&b.range.start))
        });
        let mut kept: Vec<ValueMention> = Vec::new();
        for m in found {
            if kept
                .iter()
                .all(|k| k.range.end <= m.range.start || m.range.end <= k.range.start)
            {
                kept.push(m);
            }
        }
        kept.sort_by_key(|m| m.range.start);
        kept
    }
}

/// Whether `range` of `text` stands as a whole word where its edge is a letter or digit of English (MA is not
/// inside "many"; 华东 inside 华东区 is, as Chinese is written without spaces).
fn whole_word(text: &str, range: std::ops::Range<usize>) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let Some(inner) = text.get(range.clone()) else {
        return false;
    };
    let left = inner.chars().next().is_some_and(word)
        && text
            .get(..range.start)
            .and_then(|b| b.chars().next_back())
            .is_some_and(word);
    let right = inner.chars().next_back().is_some_and(word)
        && text.get(range.end..).and_then(|a| a.chars().next()).is_some_and(word);
    !left && !right
}

fn known_values(model: &MetricModel, dimension: usize, raw: Vec<(Value, Vec<String>)>) -> Vec<KnownValue> {
    let synonyms = &model.dimensions[dimension].value_synonyms;
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (value, _) in &raw {
        *seen.entry(value.to_string()).or_default() += 1;
    }
    let mut out: Vec<KnownValue> = Vec::new();
    for known in raw.into_iter().map(|(value, aliases)| {
        let text = match &value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let extra = synonyms
            .iter()
            .filter(|(v, _)| *v == text)
            .flat_map(|(_, list)| list.iter().cloned());
        let mut spellings: Vec<String> = std::iter::once(text.clone())
            .chain(aliases)
            .chain(extra)
            .map(|s| canonical(&s))
            .filter(|s| !s.is_empty())
            .collect();
        spellings.dedup();
        KnownValue {
            ambiguous: seen.get(&value.to_string()).is_some_and(|n| *n > 1),
            value,
            text,
            spellings,
        }
    }) {
        match out.iter_mut().find(|k| k.value == known.value) {
            Some(first) => first.spellings.extend(known.spellings),
            None => out.push(known),
        }
    }
    out
}

/// The dimension values shared by the extractor and the executor, set once the database is open.
#[derive(Debug, Clone, Default)]
pub struct SharedValues(std::sync::Arc<std::sync::RwLock<std::sync::Arc<MetricValues>>>);

impl SharedValues {
    /// Values that are empty until [`SharedValues::set`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The values now.
    pub fn get(&self) -> std::sync::Arc<MetricValues> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Replaces the values.
    pub fn set(&self, values: MetricValues) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = std::sync::Arc::new(values);
    }
}

#[cfg(test)]
mod tests {
    use super::whole_word;

    #[test]
    fn english_spellings_match_whole_words_only() {
        let text = "how many invoices in ma last month";
        assert!(!whole_word(text, 4..6), "ma inside many");
        assert!(whole_word(text, 21..23), "ma alone");
        assert!(whole_word("华东区的销售额", 0..6), "Chinese needs no spaces");
        assert!(!whole_word("top5的", 0..3), "top inside top5");
    }
}
