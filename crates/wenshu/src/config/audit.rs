//! `[audit]` of `wenshu.toml`: how long the audit log keeps its entries.
//!
//! ```toml
//! [audit]
//! retention_days = 90   # entries older than this are purged hourly; absent: 180; 0: kept forever (a warning)
//! ```

use serde::Deserialize;

/// `[audit]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSection {
    /// Entries older than this many days are purged (at start, then hourly); absent: [`DEFAULT_RETENTION_DAYS`](super::DEFAULT_RETENTION_DAYS);
    /// 0 keeps them forever.
    pub retention_days: Option<u32>,
}

impl AuditSection {
    /// The retention in days: `retention_days`, [`DEFAULT_RETENTION_DAYS`](super::DEFAULT_RETENTION_DAYS) when absent; `None` (0) keeps entries
    /// forever.
    pub fn retention(&self) -> anyhow::Result<Option<u32>> {
        Ok(super::retention_of(self.retention_days))
    }
}

#[cfg(test)]
mod tests {
    use super::super::DEFAULT_RETENTION_DAYS;
    use super::*;

    #[test]
    fn retention_is_read_defaults_to_180_days_and_zero_keeps_everything() {
        let section: AuditSection = toml::from_str("retention_days = 90").unwrap();
        assert_eq!(section.retention().unwrap(), Some(90));
        assert_eq!(
            AuditSection::default().retention().unwrap(),
            Some(DEFAULT_RETENTION_DAYS)
        );
        assert_eq!(DEFAULT_RETENTION_DAYS, 180);
        let zero: AuditSection = toml::from_str("retention_days = 0").unwrap();
        assert_eq!(zero.retention().unwrap(), None);
        assert!(toml::from_str::<AuditSection>("retention = 9").is_err());
    }
}
