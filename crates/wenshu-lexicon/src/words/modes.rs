//! Spellings of a tool's answer modes and of the cues that name them: ranking, trend, detail, totals, count, lowest first, grouping.

/// Spellings of a ranking mode (item 3 of the issue).
pub const RANK_SPELLINGS: &[&str] = &["ranking", "rank", "top", "排名", "排行"];
/// Spellings of a series mode.
pub const TREND_SPELLINGS: &[&str] = &["trend", "趋势", "走势"];
/// Spellings of a detail mode.
pub const DETAIL_SPELLINGS: &[&str] = &["detail", "list", "明细", "列表", "清单", "详情"];
/// Spellings of a totals mode.
pub const SUMMARY_SPELLINGS: &[&str] = &["summary", "total", "汇总", "合计"];
/// Spellings of a count mode.
pub const COUNT_SPELLINGS: &[&str] = &["count", "数量", "单量"];
/// Spellings of ranking from the bottom.
pub const LOWEST_SPELLINGS: &[&str] = &[
    "asc",
    "ascending",
    "倒数",
    "从低到高",
    "从小到大",
    "最低",
    "最少",
    "最差",
];
/// Words of a tool's title or description saying it counts.
pub const COUNT_TEXT: &[&str] = &[
    "数量",
    "单量",
    "次数",
    "人数",
    "件数",
    "个数",
    "统计",
    "count",
    "number of",
];
/// Words of a tool's title or description saying it lists records.
pub const LIST_TEXT: &[&str] = &["明细", "列表", "清单", "详情", "list", "detail"];
/// Grouping cues that start a spelling (按承运商, 各仓库, 每个仓库).
pub const GROUP_PREFIXES: &[&str] = &["每一个", "每个", "各个", "按照", "各家", "各", "按", "分", "by "];
