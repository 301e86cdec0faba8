//! New record ids and the current time as stored text.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Counts ids made by this process, so two made in the same nanosecond still differ.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A new id: 16 lowercase hex characters mixed from the time, a counter, the process id and random hasher keys.
pub(crate) fn new_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos())
        .unwrap_or_default();
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut hasher = RandomState::new().build_hasher();
    nanos.hash(&mut hasher);
    count.hash(&mut hasher);
    std::process::id().hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// The current time, RFC 3339 in UTC with microseconds (`2025-01-02T03:04:05.123456Z`).
pub(crate) fn now() -> String {
    format!("{:.6}", jiff::Timestamp::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_url_safe_and_distinct() {
        let ids: std::collections::HashSet<String> = (0..10_000).map(|_| new_id()).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(
            ids.iter()
                .all(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        );
    }

    #[test]
    fn now_is_rfc3339() {
        let stamp = now();
        assert!(stamp.parse::<jiff::Timestamp>().is_ok(), "{stamp}");
        assert!(stamp.ends_with('Z'), "{stamp}");
    }
}
