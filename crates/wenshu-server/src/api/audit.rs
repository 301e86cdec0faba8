//! `GET /api/audit`: the audit log, newest first, for admins (and, on a server without keys, for anyone, as every
//! conversation is). Filters: `principal` (an id only), `principalName` (a display name, which another principal
//! may share), `tool`, `outcome`, `since` and `until` (a date or an
//! RFC 3339 time); paging with `limit` and `before` (the `nextBefore` of the previous page). A bad value is a 400
//! naming the field, the value and what is allowed.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::{Extension, Json};
use jiff::Timestamp;
use jiff::civil::{Date, Time};
use jiff::fmt::temporal::Pieces;
use jiff::tz::TimeZone;
use serde::Deserialize;
use serde_json::{Value, json};
use wenshu_store::{AuditFilter, MAX_AUDIT_PAGE};

use crate::auth::require_admin;
use crate::error::ApiError;
use crate::principal::{Principal, Role};
use crate::state::AppState;

/// The default page length.
pub const DEFAULT_AUDIT_PAGE: usize = 50;

/// The longest `principal`, `principalName` or `tool` filter, in characters.
pub const MAX_FILTER_CHARS: usize = 200;

/// The outcomes an entry can have.
pub const OUTCOMES: [&str; 6] = ["answered", "choose", "need", "rejected", "stopped", "cancelled"];

/// The query of `GET /api/audit`; every field is text, checked here so that an error names it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// Only this principal, by its id (`k-…`, `jwt:` and a token's subject); never matched against names.
    pub principal: Option<String>,
    /// Only principals with this display name (not unique: a token's name claim may copy another's name).
    #[serde(rename = "principalName")]
    pub principal_name: Option<String>,
    /// Only this tool.
    pub tool: Option<String>,
    /// Only this outcome (one of [`OUTCOMES`]).
    pub outcome: Option<String>,
    /// Entries at or after this date (from its start, UTC) or time.
    pub since: Option<String>,
    /// Entries before this time, or up to the end of this date (UTC).
    pub until: Option<String>,
    /// How many entries (1 to [`MAX_AUDIT_PAGE`]; default [`DEFAULT_AUDIT_PAGE`]).
    pub limit: Option<String>,
    /// Only entries older than this entry id.
    pub before: Option<String>,
}

/// One page of the audit log.
pub async fn list(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    query: Result<Query<AuditQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    if principal.role != Role::Anonymous {
        require_admin(&state, &principal)?;
    }
    let Query(query) = query.map_err(|e| ApiError::bad_request("malformed_query", e.body_text()))?;
    let filter = filter_of(query)?;
    let page = state.store().audit(&filter).await?;
    Ok(Json(json!(page)))
}

/// The store's filter of a query, every value checked.
pub fn filter_of(query: AuditQuery) -> Result<AuditFilter, ApiError> {
    let outcome = match query.outcome {
        Some(outcome) if !OUTCOMES.contains(&outcome.as_str()) => {
            return Err(invalid("outcome", &outcome, &format!("one of {}", OUTCOMES.join(", "))));
        }
        other => other,
    };
    Ok(AuditFilter {
        principal: name("principal", query.principal)?,
        principal_name: name("principalName", query.principal_name)?,
        tool: name("tool", query.tool)?,
        outcome,
        since: query.since.map(|text| time("since", &text, false)).transpose()?,
        until: query.until.map(|text| time("until", &text, true)).transpose()?,
        before: query.before.map(|text| before(&text)).transpose()?,
        limit: limit(query.limit.as_deref())?,
    })
}

/// A 400 naming `field`, the `value` given and what is `allowed`.
fn invalid(field: &str, value: &str, allowed: &str) -> ApiError {
    ApiError::bad_request("invalid_value", format!("`{field}` must be {allowed}, got `{value}`")).with_param(field)
}

/// A `principal`, `principalName` or `tool` filter: 1 to [`MAX_FILTER_CHARS`] characters.
fn name(field: &str, value: Option<String>) -> Result<Option<String>, ApiError> {
    match value {
        Some(text) if text.is_empty() || text.chars().count() > MAX_FILTER_CHARS => Err(invalid(
            field,
            &text,
            &format!("a name of 1 to {MAX_FILTER_CHARS} characters"),
        )),
        other => Ok(other),
    }
}

/// A `since` or `until` value: an RFC 3339 time (`2026-12-01T08:00:00Z`, `2026-12-01T16:00:00+08:00`) or a date
/// (`2026-12-01`, a day in UTC: `since` from its start, `until` through its end). A valid time beyond the range the
/// store can hold (years near 9999 or -9999) is that range's end.
fn time(field: &str, text: &str, end_of_day: bool) -> Result<Timestamp, ApiError> {
    let allowed = "a date (2026-12-01) or an RFC 3339 time (2026-12-01T08:00:00Z, 2026-12-01T16:00:00+08:00)";
    if let Ok(stamp) = text.parse::<Timestamp>() {
        return Ok(stamp);
    }
    if is_full_date(text) {
        let date: Date = text.parse().map_err(|_| invalid(field, text, allowed))?;
        let day = if end_of_day { date.tomorrow().ok() } else { Some(date) };
        let start = day.and_then(|day| TimeZone::UTC.to_timestamp(day.to_datetime(Time::midnight())).ok());
        return Ok(start.unwrap_or_else(|| edge(date)));
    }
    match Pieces::parse(text) {
        Ok(pieces) if pieces.time().is_some() && pieces.offset().is_some() => Ok(edge(pieces.date())),
        _ => Err(invalid(field, text, allowed)),
    }
}

/// Whether `text` has the shape of an RFC 3339 full date: `YYYY-MM-DD`.
fn is_full_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(at, b)| {
            if at == 4 || at == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
}

/// The end of the store's time range nearest to `date`, for a date or time beyond it.
fn edge(date: Date) -> Timestamp {
    if date.year() > 0 {
        Timestamp::MAX
    } else {
        Timestamp::MIN
    }
}

/// `before`: an entry id, a whole number from 1.
fn before(text: &str) -> Result<i64, ApiError> {
    match text.parse::<i64>() {
        Ok(id) if id >= 1 => Ok(id),
        _ => Err(invalid("before", text, "an entry id (a whole number from 1)")),
    }
}

/// `limit`: 1 to [`MAX_AUDIT_PAGE`], [`DEFAULT_AUDIT_PAGE`] when absent.
fn limit(text: Option<&str>) -> Result<usize, ApiError> {
    let Some(text) = text else {
        return Ok(DEFAULT_AUDIT_PAGE);
    };
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_AUDIT_PAGE).contains(&n) => Ok(n),
        _ => Err(invalid(
            "limit",
            text,
            &format!("a whole number from 1 to {MAX_AUDIT_PAGE}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query of `/api/audit?k=v&…`, read as axum reads it.
    fn query(pairs: &[(&str, &str)]) -> AuditQuery {
        let text: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let uri: axum::http::Uri = format!("/api/audit?{}", text.join("&")).parse().unwrap();
        Query::<AuditQuery>::try_from_uri(&uri).unwrap().0
    }

    #[test]
    fn dates_and_times_are_read_and_bad_ones_named() {
        let filter = filter_of(query(&[("since", "2026-12-01"), ("until", "2026-12-01")])).unwrap();
        assert_eq!(filter.since.unwrap().to_string(), "2026-12-01T00:00:00Z");
        assert_eq!(filter.until.unwrap().to_string(), "2026-12-02T00:00:00Z");
        let filter = filter_of(query(&[("since", "2026-12-01T16:00:00%2B08:00")])).unwrap();
        assert_eq!(filter.since.unwrap().to_string(), "2026-12-01T08:00:00Z");
        let filter = filter_of(query(&[("since", "9999-12-31"), ("until", "9999-12-31T23:59:59Z")])).unwrap();
        assert_eq!(
            (filter.since, filter.until),
            (Some(Timestamp::MAX), Some(Timestamp::MAX))
        );
        for (field, value) in [
            ("since", "yesterday"),
            ("since", "2026-12-01T08:00:00"),
            ("since", "2026-1-01"),
            ("until", "2026-13-01"),
            ("outcome", "won"),
            ("limit", "0"),
            ("limit", "501"),
            ("before", "-1"),
            ("tool", ""),
            ("principalName", ""),
        ] {
            let error = filter_of(query(&[(field, value)])).unwrap_err();
            assert_eq!(error.status(), axum::http::StatusCode::BAD_REQUEST, "{field}={value}");
            let detail = &error.body().error;
            assert_eq!(detail.param.as_deref(), Some(field));
            assert!(detail.message.contains(&format!("`{value}`")), "{}", detail.message);
        }
        assert_eq!(filter_of(query(&[])).unwrap().limit, DEFAULT_AUDIT_PAGE);
    }
}
