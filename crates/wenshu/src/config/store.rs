//! The store's group commit settings (`store_group_commit_ms`, `store_group_commit_max`), checked.

use std::time::Duration;

use anyhow::bail;
use wenshu_store::GroupCommit;

/// The longest window accepted, in milliseconds: a longer one only delays every answer.
pub const MAX_WINDOW_MS: f64 = 1000.0;

/// The group commit that `store_group_commit_ms` (absent: 1 ms; 0: off) and `store_group_commit_max` (absent:
/// 256) name; a negative, non-finite or over-long window, or a group of no writes, is an error.
pub fn group_commit(window_ms: Option<f64>, max_writes: Option<usize>) -> anyhow::Result<GroupCommit> {
    let defaults = GroupCommit::default();
    let window = match window_ms {
        None => defaults.window,
        Some(ms) if ms.is_finite() && (0.0..=MAX_WINDOW_MS).contains(&ms) => Duration::from_secs_f64(ms / 1000.0),
        Some(ms) => bail!("store_group_commit_ms = {ms}: expected milliseconds from 0 (off) to {MAX_WINDOW_MS}"),
    };
    let max_writes = match max_writes {
        None => defaults.max_writes,
        Some(0) => bail!("store_group_commit_max = 0: a group holds at least one write"),
        Some(most) => most,
    };
    Ok(GroupCommit { window, max_writes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_windows_and_refusals() {
        assert_eq!(group_commit(None, None).unwrap(), GroupCommit::default());
        let half = group_commit(Some(0.5), Some(64)).unwrap();
        assert_eq!((half.window, half.max_writes), (Duration::from_micros(500), 64));
        assert!(half.is_on());
        assert!(!group_commit(Some(0.0), None).unwrap().is_on(), "0 turns it off");
        assert!(
            !group_commit(None, Some(1)).unwrap().is_on(),
            "a group of one is no group"
        );
        for ms in [-1.0, f64::NAN, f64::INFINITY, 1000.5] {
            let error = group_commit(Some(ms), None).unwrap_err().to_string();
            assert!(error.starts_with("store_group_commit_ms"), "{error}");
        }
        assert!(
            group_commit(None, Some(0))
                .unwrap_err()
                .to_string()
                .contains("at least one")
        );
    }

    #[test]
    fn read_from_the_file() {
        let config: crate::config::Config =
            toml::from_str("store_group_commit_ms = 2\nstore_group_commit_max = 8").unwrap();
        let commit = config.group_commit().unwrap();
        assert_eq!((commit.window, commit.max_writes), (Duration::from_millis(2), 8));
        let config: crate::config::Config = toml::from_str("store_group_commit_ms = 0.25").unwrap();
        assert_eq!(config.group_commit().unwrap().window, Duration::from_micros(250));
        let config: crate::config::Config = toml::from_str("store_group_commit_ms = -3").unwrap();
        assert!(config.group_commit().is_err());
    }
}
