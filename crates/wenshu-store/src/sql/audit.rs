//! The statements of the audit log, written once for every [`Backend`] (numbered `$N` placeholders, which both
//! drivers read): an entry inserted inside a turn's transaction or alone, a filtered page newest first, and the purge
//! of old entries.

use serde_json::Value;
use sqlx::Pool;

use super::Backend;
use super::queries::{failed, get, get_json};
use super::rows::{AUDIT_COLUMNS, RowWrites};
use crate::audit::{AuditEntry, AuditFilter, AuditPage, AuditPrincipal, MAX_AUDIT_PAGE, NewAudit};
use crate::error::StoreError;
use crate::ids;
use crate::store::BoxFuture;

/// The columns [`entry_from_row`] reads, after `SELECT`.
const COLUMNS: &str = "seq, created_at, principal_id, principal_name, principal_role, door, conversation_id, \
    turn_id, question, tool, params, statements, row_count, outcome, step";

/// Counts the entries written before a time.
const COUNT_OLD: &str = "SELECT COUNT(*) FROM audit_log WHERE created_at < $1";

/// Deletes the entries written before a time.
const PURGE: &str = "DELETE FROM audit_log WHERE created_at < $1";

/// A value bound to a filter's placeholder.
enum Bind {
    Text(String),
    Number(i64),
}

/// Adds `bind` to `binds`; its placeholder.
fn push(bind: Bind, binds: &mut Vec<Bind>) -> String {
    binds.push(bind);
    format!("${}", binds.len())
}

/// The `WHERE` clause of `filter` (empty when nothing filters) and the values of its placeholders, in order.
fn conditions(filter: &AuditFilter) -> (String, Vec<Bind>) {
    let mut clauses: Vec<String> = Vec::new();
    let mut binds: Vec<Bind> = Vec::new();
    if let Some(principal) = &filter.principal {
        clauses.push(format!(
            "principal_id = {}",
            push(Bind::Text(principal.clone()), &mut binds)
        ));
    }
    if let Some(name) = &filter.principal_name {
        clauses.push(format!(
            "principal_name = {}",
            push(Bind::Text(name.clone()), &mut binds)
        ));
    }
    if let Some(tool) = &filter.tool {
        clauses.push(format!("tool = {}", push(Bind::Text(tool.clone()), &mut binds)));
    }
    if let Some(outcome) = &filter.outcome {
        clauses.push(format!("outcome = {}", push(Bind::Text(outcome.clone()), &mut binds)));
    }
    if let Some(since) = filter.since {
        clauses.push(format!("created_at >= {}", push(Bind::Text(stamp(since)), &mut binds)));
    }
    if let Some(until) = filter.until {
        clauses.push(format!("created_at < {}", push(Bind::Text(stamp(until)), &mut binds)));
    }
    if let Some(before) = filter.before {
        clauses.push(format!("seq < {}", push(Bind::Number(before), &mut binds)));
    }
    let clause = if clauses.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", clauses.join(" AND "))
    };
    (clause, binds)
}

/// A time as the store writes it (RFC 3339, UTC, microseconds), so that text order is time order.
fn stamp(time: jiff::Timestamp) -> String {
    format!("{time:.6}")
}

/// An [`AuditEntry`] from a row with [`COLUMNS`].
fn entry_from_row<DB: Backend>(row: &DB::Row) -> Result<AuditEntry, StoreError>
where
    for<'c> &'c str: sqlx::ColumnIndex<DB::Row>,
    for<'r> String: sqlx::Decode<'r, DB> + sqlx::Type<DB>,
    for<'r> i64: sqlx::Decode<'r, DB> + sqlx::Type<DB>,
{
    let rows: Option<i64> = get(row, "row_count")?;
    let sql = match get_json::<DB>(row, "statements", "audit_log.statements")? {
        Value::Array(statements) => statements,
        other => vec![other],
    };
    Ok(AuditEntry {
        id: get(row, "seq")?,
        created_at: get(row, "created_at")?,
        principal: AuditPrincipal {
            id: get(row, "principal_id")?,
            name: get(row, "principal_name")?,
            role: get(row, "principal_role")?,
        },
        door: get(row, "door")?,
        conversation_id: get(row, "conversation_id")?,
        turn_id: get(row, "turn_id")?,
        question: get(row, "question")?,
        tool: get(row, "tool")?,
        params: get_json::<DB>(row, "params", "audit_log.params")?,
        sql,
        rows: rows.and_then(|n| u64::try_from(n).ok()),
        outcome: get(row, "outcome")?,
        step: get(row, "step")?,
    })
}

/// The cutoff of a retention of `days` days, as stored text.
fn cutoff(days: u32) -> String {
    let age = jiff::SignedDuration::from_hours(24 * i64::from(days));
    stamp(jiff::Timestamp::now().checked_sub(age).unwrap_or(jiff::Timestamp::MIN))
}

/// The audit log's statements on one backend.
pub(crate) trait AuditQueries: RowWrites {
    /// Inserts `audit` on `connection` (inside the caller's transaction), with the turn it belongs to, if any.
    fn insert_audit<'a>(
        connection: &'a mut Self::Connection,
        audit: &'a NewAudit,
        conversation_id: Option<&'a str>,
        turn_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<i64, StoreError>>;

    /// Inserts `audit` alone, in a write transaction of its own.
    fn record_audit<'a>(pool: &'a Pool<Self>, audit: &'a NewAudit) -> BoxFuture<'a, Result<i64, StoreError>>;

    /// One page of entries matching `filter`, newest first.
    fn audit_page<'a>(pool: &'a Pool<Self>, filter: &'a AuditFilter) -> BoxFuture<'a, Result<AuditPage, StoreError>>;

    /// Deletes the entries written more than `days` days ago; how many were deleted.
    fn purge_audit(pool: &Pool<Self>, days: u32) -> BoxFuture<'_, Result<u64, StoreError>>;
}

on_every_backend! {
    impl<DB: RowWrites> AuditQueries for DB {
        fn insert_audit<'a>(
            connection: &'a mut Self::Connection,
            audit: &'a NewAudit,
            conversation_id: Option<&'a str>,
            turn_id: Option<&'a str>,
        ) -> BoxFuture<'a, Result<i64, StoreError>> {
            Box::pin(async move {
                let created_at = ids::now();
                let text = format!(
                    "INSERT INTO {AUDIT_COLUMNS} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
                     RETURNING seq"
                );
                let row = DB::bind_audit(sqlx::query(sqlx::AssertSqlSafe(text)), audit, conversation_id, turn_id, &created_at)
                    .fetch_one(&mut *connection)
                    .await
                    .map_err(failed("cannot write the audit entry"))?;
                get(&row, "seq")
            })
        }

        fn record_audit<'a>(pool: &'a Pool<Self>, audit: &'a NewAudit) -> BoxFuture<'a, Result<i64, StoreError>> {
            Box::pin(async move {
                let mut tx = super::begin_write(pool)
                    .await
                    .map_err(failed("cannot begin writing an audit entry"))?;
                let id = <Self as AuditQueries>::insert_audit(&mut *tx, audit, None, None).await?;
                tx.commit().await.map_err(failed("cannot commit the audit entry"))?;
                Ok(id)
            })
        }

        fn audit_page<'a>(
            pool: &'a Pool<Self>,
            filter: &'a AuditFilter,
        ) -> BoxFuture<'a, Result<AuditPage, StoreError>> {
            Box::pin(async move {
                let limit = filter.limit.clamp(1, MAX_AUDIT_PAGE);
                let (clause, binds) = conditions(filter);
                let placeholder = binds.len() + 1;
                let text = format!("SELECT {COLUMNS} FROM audit_log {clause} ORDER BY seq DESC LIMIT ${placeholder}");
                let mut query = sqlx::query(sqlx::AssertSqlSafe(text));
                for bind in &binds {
                    query = match bind {
                        Bind::Text(text) => query.bind(text.as_str()),
                        Bind::Number(number) => query.bind(*number),
                    };
                }
                let rows = query
                    .bind(i64::try_from(limit + 1).unwrap_or(i64::MAX))
                    .fetch_all(pool)
                    .await
                    .map_err(failed("cannot read the audit log"))?;
                let mut entries = rows.iter().map(entry_from_row::<DB>).collect::<Result<Vec<_>, _>>()?;
                let more = entries.len() > limit;
                entries.truncate(limit);
                let next_before = if more { entries.last().map(|e| e.id) } else { None };
                Ok(AuditPage { entries, next_before })
            })
        }

        fn purge_audit(pool: &Pool<Self>, days: u32) -> BoxFuture<'_, Result<u64, StoreError>> {
            Box::pin(async move {
                let cutoff = cutoff(days);
                let mut tx = super::begin_write(pool)
                    .await
                    .map_err(failed("cannot begin the audit purge"))?;
                let count: i64 = sqlx::query_scalar(COUNT_OLD)
                    .bind(cutoff.as_str())
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(failed("cannot count old audit entries"))?;
                sqlx::query(PURGE)
                    .bind(cutoff.as_str())
                    .execute(&mut *tx)
                    .await
                    .map_err(failed("cannot purge old audit entries"))?;
                tx.commit().await.map_err(failed("cannot commit the audit purge"))?;
                Ok(u64::try_from(count).unwrap_or(0))
            })
        }
    }
}
