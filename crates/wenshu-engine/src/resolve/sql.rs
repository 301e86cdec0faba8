//! Entity catalogs from a SQL query: each row is an entity (`id` and `name` columns required, `aliases` optional
//! as a JSON array or comma-separated text; every other column becomes an attribute).

use serde_json::{Map, Value};

use super::catalog::parse_entity;
use super::entity::Entity;
use super::error::ResolveError;
use crate::scope::BoundScope;
use crate::scope::read::scoped_statement;
use wenshu_sql::db::{Database, QueryLimits};
use wenshu_sql::guard::row_scope::ScopeRewriteError;

/// The most rows one entity query may return.
pub const MAX_ENTITY_ROWS: usize = 5_000_000;

/// Runs `query` on `db` (a read-only connection) and reads every row as an entity of `entity_type`.
pub async fn load_entities(db: &Database, entity_type: &str, query: &str) -> Result<Vec<Entity>, ResolveError> {
    load_entities_scoped(db, entity_type, query, &BoundScope::unscoped()).await
}

/// [`load_entities`] as `scope`'s viewer sees them: every scoped table `query` reads is read through the viewer's
/// row scope, so an entity only other scopes' rows hold is not in the catalog; a table the viewer is denied gives
/// no entity.
pub async fn load_entities_scoped(
    db: &Database,
    entity_type: &str,
    query: &str,
    scope: &BoundScope,
) -> Result<Vec<Entity>, ResolveError> {
    let (query, binds) = match scoped_statement(query, db.dialect(), scope) {
        Ok(scoped) => scoped,
        Err(ScopeRewriteError::Denied(_)) => return Ok(Vec::new()),
        Err(ScopeRewriteError::Refused(why)) => {
            return Err(ResolveError::Query {
                entity_type: entity_type.to_string(),
                message: why,
            });
        }
    };
    let limits = QueryLimits {
        row_cap: MAX_ENTITY_ROWS,
        timeout: std::time::Duration::from_secs(120),
        // A catalog of millions of entities is read whole; each value still under the cap per value.
        bytes: wenshu_sql::db::ByteCaps {
            result: usize::MAX,
            ..wenshu_sql::db::ByteCaps::default()
        },
    };
    let rows = db
        .query(&query, &binds, limits)
        .await
        .map_err(|e| ResolveError::Query {
            entity_type: entity_type.to_string(),
            message: e.to_string(),
        })?;
    rows.rows
        .into_iter()
        .enumerate()
        .map(|(index, row)| {
            let mut object: Map<String, Value> = rows.columns.iter().cloned().zip(row).collect();
            if let Some(Value::String(text)) = object.get("aliases") {
                let aliases = serde_json::from_str::<Value>(text).unwrap_or_else(|_| {
                    Value::Array(
                        text.split([',', '，'])
                            .map(str::trim)
                            .filter(|a| !a.is_empty())
                            .map(Value::from)
                            .collect(),
                    )
                });
                object.insert("aliases".into(), aliases);
            }
            if object.get("aliases").is_some_and(Value::is_null) {
                object.remove("aliases");
            }
            parse_entity(entity_type, index, Value::Object(object))
        })
        .collect()
}
