//! The values of metric dimensions — read from the data at start, from an entity catalog, or listed in the
//! catalog — and where a question names them. Under a viewer's row scope the `data` values of scoped tables are
//! read through the scope ([`MetricValues::load_scoped`], kept per scope by [`SharedValues`]): a value only other
//! scopes' rows hold is unknown to the viewer, exactly like a value no row holds.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock};

use serde_json::Value;
use wenshu_contract::metric::{DimensionValues, MetricModel};
use wenshu_contract::{Catalog, Tool};
use wenshu_lexicon::canonical::canonical;

use crate::execute::ExecError;
use crate::resolve::EntityCatalogs;
use crate::scope::BoundScope;
use crate::scope::read::{ScopeCache, scope_key, scoped_statement};
use wenshu_sql::db::{Database, QueryLimits};
use wenshu_sql::metric::distinct_values_sql;

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
    /// The IDs of the entities of this name, for an entity dimension (empty otherwise): what its `key` column holds.
    pub keys: Vec<Value>,
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
                let mut known = known_values(model, index, raw);
                if let DimensionValues::Entity { entity } = &dim.values
                    && let Some(index) = entities.get(entity)
                {
                    for value in &mut known {
                        value.keys = index
                            .entities()
                            .iter()
                            .filter(|e| e.name == value.text)
                            .map(|e| e.id.clone())
                            .collect();
                    }
                }
                dims.push(known);
            }
            out.by_tool.insert(tool.name().to_string(), dims);
        }
        Ok(out)
    }

    /// `base` (the values every row gives) as `scope`'s viewer sees them: the `data` values of a dimension over a
    /// scoped table read again through the viewer's scope on `db` (none of a table the viewer is denied), except a
    /// column the scope's rules compare — its values are the scope's own vocabulary, and asking for another one is
    /// refused as outside the scope —; every other dimension as `base` has it.
    pub async fn load_scoped(
        db: &Database,
        catalog: &Catalog,
        base: &MetricValues,
        scope: &BoundScope,
    ) -> Result<Self, ExecError> {
        let mut out = base.clone();
        for tool in catalog.tools() {
            let Some(model) = tool.extensions().metrics.as_deref() else {
                continue;
            };
            for (index, dim) in model.dimensions.iter().enumerate() {
                if dim.values != DimensionValues::Data {
                    continue;
                }
                let table = model
                    .tables
                    .iter()
                    .find(|t| t.alias == dim.column.table)
                    .map_or(dim.column.table.as_str(), |t| t.name.as_str());
                let raw = match scope.conditions(table) {
                    Ok(None) => continue,
                    Ok(Some(conditions))
                        if conditions
                            .iter()
                            .any(|c| c.column.eq_ignore_ascii_case(&dim.column.column)) =>
                    {
                        continue;
                    }
                    Ok(Some(_)) => scoped_data_values(db, model, index, scope).await?,
                    Err(_) => Vec::new(),
                };
                let dims = out
                    .by_tool
                    .entry(tool.name().to_string())
                    .or_insert_with(|| vec![Vec::new(); model.dimensions.len()]);
                if let Some(slot) = dims.get_mut(index) {
                    *slot = known_values(model, index, raw);
                }
            }
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

/// The distinct values of dimension `index` of `model` in the rows `scope` lets through (none when the rewrite
/// refuses the statement).
async fn scoped_data_values(
    db: &Database,
    model: &MetricModel,
    index: usize,
    scope: &BoundScope,
) -> Result<Vec<(Value, Vec<String>)>, ExecError> {
    let sql = distinct_values_sql(model, index, db.dialect(), MAX_VALUES);
    let Ok((sql, binds)) = scoped_statement(&sql, db.dialect(), scope) else {
        return Ok(Vec::new());
    };
    let rows = db.query(&sql, &binds, QueryLimits::default()).await?;
    Ok(rows
        .rows
        .into_iter()
        .filter_map(|row| row.into_iter().next())
        .filter(|v| !v.is_null())
        .map(|v| (v, Vec::new()))
        .collect())
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
            keys: Vec::new(),
        }
    }) {
        match out.iter_mut().find(|k| k.value == known.value) {
            Some(first) => first.spellings.extend(known.spellings),
            None => out.push(known),
        }
    }
    out
}

tokio::task_local! {
    /// The values of the question being answered, as its viewer's scope sees them, with the [`SharedValues`] they
    /// belong to (see [`SharedValues::within`]).
    static ASKED: (usize, Arc<MetricValues>);
}

/// The dimension values shared by the extractor and the executor, set once the database is open; per viewer scope
/// once [`SharedValues::load`] gave them the database to read a scope's values from.
#[derive(Debug, Clone, Default)]
pub struct SharedValues(Arc<Shared>);

/// What [`SharedValues`] holds.
#[derive(Debug, Default)]
struct Shared {
    /// The values of every row.
    all: RwLock<Arc<MetricValues>>,
    /// Where a scope's values are read: the database and the catalog.
    source: RwLock<Option<(Database, Arc<Catalog>)>>,
    /// The values per scope already read.
    scoped: ScopeCache<MetricValues>,
}

impl SharedValues {
    /// Values that are empty until [`SharedValues::set`] or [`SharedValues::load`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The values now: those of the question being answered when [`SharedValues::within`] runs it, else every row's.
    pub fn get(&self) -> Arc<MetricValues> {
        ASKED
            .try_with(|(owner, values)| (*owner == self.id()).then(|| values.clone()))
            .ok()
            .flatten()
            .unwrap_or_else(|| self.all())
    }

    /// Replaces the values of every row (the values read per scope are forgotten).
    pub fn set(&self, values: MetricValues) {
        *self.0.all.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(values);
        self.0.scoped.clear();
    }

    /// Reads the values of every row of `catalog`'s metric tools from `db` (read-only), and keeps both to read a
    /// viewer's scope's values when one asks.
    pub async fn load(&self, db: &Database, catalog: Arc<Catalog>, entities: &EntityCatalogs) -> Result<(), ExecError> {
        let values = MetricValues::load(db, &catalog, entities).await?;
        *self.0.source.write().unwrap_or_else(|p| p.into_inner()) = Some((db.clone(), catalog));
        self.set(values);
        Ok(())
    }

    /// The values as `scope`'s viewer sees them, read once per scope: every row's for an unscoped viewer; none
    /// when they cannot be read (no database was given, or it failed) — never every row's.
    pub async fn for_scope(&self, scope: &BoundScope) -> Arc<MetricValues> {
        let key = scope_key(scope);
        if key.is_empty() {
            return self.all();
        }
        if let Some(values) = self.0.scoped.get(&key) {
            return values;
        }
        let source = self.0.source.read().unwrap_or_else(|p| p.into_inner()).clone();
        let Some((db, catalog)) = source else {
            return Arc::new(MetricValues::new());
        };
        match MetricValues::load_scoped(&db, &catalog, &self.all(), scope).await {
            Ok(values) => {
                let values = Arc::new(values);
                self.0.scoped.insert(key, values.clone());
                values
            }
            Err(_) => Arc::new(MetricValues::new()),
        }
    }

    /// Runs `future` (answering one question) with [`SharedValues::get`] giving the values `scope`'s viewer sees.
    pub async fn within<F: Future>(&self, scope: &BoundScope, future: F) -> F::Output {
        let values = self.for_scope(scope).await;
        ASKED.scope((self.id(), values), future).await
    }

    fn all(&self) -> Arc<MetricValues> {
        self.0.all.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Which shared values these are (clones are the same).
    fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
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
