//! Time grains — the one `Grain` of wenshu: a question's grouping (每天, 按月), a catalog's series and a metric
//! model's buckets all say it with this type.

use serde::{Deserialize, Serialize};

/// A time bucket size. Weeks start on Monday.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Grain {
    /// One bucket per day (每天, 按日).
    Day,
    /// One bucket per week (每周, 按星期).
    Week,
    /// One bucket per calendar month (每月, 按月).
    Month,
    /// One bucket per calendar quarter (每季度).
    Quarter,
    /// One bucket per calendar year (每年).
    Year,
}

impl Grain {
    /// Every grain, finest first.
    pub const ALL: [Grain; 5] = [Grain::Day, Grain::Week, Grain::Month, Grain::Quarter, Grain::Year];

    /// The grain's name (`day`, `week`, …), as catalogs spell it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Week => "week",
            Self::Month => "month",
            Self::Quarter => "quarter",
            Self::Year => "year",
        }
    }

    /// Reads a grain's name (ASCII case and surrounding space ignored).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The Chinese label of one bucket (`日`, `周`, `月`, `季度`, `年`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Day => "日",
            Self::Week => "周",
            Self::Month => "月",
            Self::Quarter => "季度",
            Self::Year => "年",
        }
    }
}
