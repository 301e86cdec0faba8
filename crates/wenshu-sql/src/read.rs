//! Reading values of the data through a viewer's scope: a value-reading statement (the fallback's sample values,
//! metric dimension values, an entity query) rewritten by the guard's row scope, and a small cache of what was read
//! per scope ([`ScopeCache`], keyed by [`scope_key`]: viewers bound to the same values share one entry, unscoped
//! viewers the empty key).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::dialect::Dialect;
use crate::guard::row_scope::ScopeRewriteError;
use crate::guard::{parse_query, positional, scope_query};
use crate::scope::BoundScope;

/// How many scopes' values a [`ScopeCache`] keeps by default.
pub const SCOPES_KEPT: usize = 64;

/// A stable key of a bound scope: the rules and the values they are bound to (empty for an unscoped viewer).
pub fn scope_key(scope: &BoundScope) -> String {
    if scope.is_empty() {
        return String::new();
    }
    serde_json::to_string(scope).unwrap_or_default()
}

/// `sql` (one query, no placeholders of its own) reading every scoped table of `scope` through its scoped
/// subquery, in `dialect`'s positional placeholders, with the values to bind; `sql` unchanged when it reads no
/// scoped table. A table the viewer is denied is [`ScopeRewriteError::Denied`].
pub fn scoped_statement(
    sql: &str,
    dialect: Dialect,
    scope: &BoundScope,
) -> Result<(String, Vec<Value>), ScopeRewriteError> {
    if scope.is_empty() {
        return Ok((sql.to_string(), Vec::new()));
    }
    let query = parse_query(sql, dialect).map_err(ScopeRewriteError::Refused)?;
    let Some((text, binds)) = scope_query(&query, dialect, scope)? else {
        return Ok((sql.to_string(), Vec::new()));
    };
    let (sql, values) = positional(&text, dialect, &binds).map_err(ScopeRewriteError::Refused)?;
    Ok((sql, values.into_iter().map(|(value, _)| value).collect()))
}

/// What was read per scope, the most recently stored [`SCOPES_KEPT`] (or `capacity`) scopes kept.
#[derive(Debug)]
pub struct ScopeCache<T> {
    capacity: usize,
    entries: Mutex<VecDeque<(String, Arc<T>)>>,
}

impl<T> Default for ScopeCache<T> {
    /// A cache of [`SCOPES_KEPT`] scopes.
    fn default() -> Self {
        Self::new(SCOPES_KEPT)
    }
}

impl<T> ScopeCache<T> {
    /// A cache keeping at most `capacity` scopes (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            entries: Mutex::new(VecDeque::new()),
        }
    }

    /// What was stored for `key`, if it is still kept.
    pub fn get(&self, key: &str) -> Option<Arc<T>> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    /// Stores `value` for `key` (replacing what it had), dropping the oldest scope when full.
    pub fn insert(&self, key: String, value: Arc<T>) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(k, _)| *k != key);
        while entries.len() >= self.capacity {
            entries.pop_front();
        }
        entries.push_back((key, value));
    }

    /// Forgets every scope (the data was read again).
    pub fn clear(&self) {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::scope::{ScopeRules, Viewer};

    fn rules() -> ScopeRules {
        ScopeRules::parse(&BTreeMap::from([(
            "sales".to_string(),
            "region = :user.region".to_string(),
        )]))
        .unwrap()
    }

    fn viewer(region: Value) -> Viewer {
        Viewer::scoped(Some("v".into()), BTreeMap::from([("region".to_string(), region)]))
    }

    #[test]
    fn viewers_bound_to_the_same_values_share_a_key() {
        let east = scope_key(&rules().bind(&viewer(json!("华东"))));
        assert_eq!(east, scope_key(&rules().bind(&viewer(json!(["华东"])))));
        assert_ne!(east, scope_key(&rules().bind(&viewer(json!("华南")))));
        assert_eq!(scope_key(&rules().bind(&Viewer::operator())), "");
        assert_ne!(east, "");
    }

    #[test]
    fn a_statement_reads_scoped_tables_through_the_scope() {
        let scope = rules().bind(&viewer(json!("华东")));
        let sql = "SELECT DISTINCT s.product FROM sales AS s WHERE s.product IS NOT NULL";
        let (scoped, binds) = scoped_statement(sql, Dialect::Postgres, &scope).unwrap();
        assert!(scoped.contains("$1") && scoped.contains("wenshu_scoped"), "{scoped}");
        assert_eq!(binds, vec![json!("华东")]);
        let (plain, none) = scoped_statement("SELECT name FROM movies", Dialect::Sqlite, &scope).unwrap();
        assert_eq!((plain.as_str(), none.len()), ("SELECT name FROM movies", 0));
        let denied = rules().bind(&Viewer::scoped(None, BTreeMap::new()));
        assert!(matches!(
            scoped_statement(sql, Dialect::Sqlite, &denied),
            Err(ScopeRewriteError::Denied(_))
        ));
    }

    #[test]
    fn the_cache_keeps_the_latest_scopes() {
        let cache: ScopeCache<u32> = ScopeCache::new(2);
        cache.insert("a".into(), Arc::new(1));
        cache.insert("b".into(), Arc::new(2));
        cache.insert("a".into(), Arc::new(3));
        cache.insert("c".into(), Arc::new(4));
        assert_eq!(cache.get("b"), None, "the oldest is dropped");
        assert_eq!(
            (cache.get("a").as_deref(), cache.get("c").as_deref()),
            (Some(&3), Some(&4))
        );
        cache.clear();
        assert_eq!(cache.get("a"), None);
    }
}
