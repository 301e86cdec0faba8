//! `[audit]` of `wenshu.toml`: how long the audit log keeps its entries.
//!
//! ```toml
//! [audit]
//! retention_days = 90   # entries older than this are purged hourly; absent: kept forever
//! ```

use anyhow::bail;
use serde::Deserialize;

/// `[audit]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSection {
    /// Entries older than this many days are purged (at start, then hourly); `None` keeps them.
    pub retention_days: Option<u32>,
}

impl AuditSection {
    /// The retention in days, checked: a whole number of days from 1; `None` keeps entries forever.
    pub fn retention(&self) -> anyhow::Result<Option<u32>> {
        match self.retention_days {
            Some(0) => bail!(
                "[audit] retention_days = 0: it must be a whole number of days from 1 (or left out to keep entries)"
            ),
            days => Ok(days),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_is_read_and_zero_refused() {
        let section: AuditSection = toml::from_str("retention_days = 90").unwrap();
        assert_eq!(section.retention().unwrap(), Some(90));
        assert_eq!(AuditSection::default().retention().unwrap(), None);
        let zero: AuditSection = toml::from_str("retention_days = 0").unwrap();
        assert!(zero.retention().unwrap_err().to_string().contains("retention_days"));
        assert!(toml::from_str::<AuditSection>("retention = 9").is_err());
    }
}
