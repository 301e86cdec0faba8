//! Words that ask for a quantity (多少, 几, how many), and count words that name the rows counted (单, 笔).

/// Words that ask for a quantity (多少, 几, 一共, how many): general question words.
pub const QUANTITY_WORDS: &[&str] = &[
    "多少", "几", "一共", "总共", "合计", "总计", "统计", "how many", "how much", "total",
];
/// Count words that name the rows counted (单, 笔): a ranking by them is a ranking by a count.
pub const COUNTED: &[&str] = &["单", "笔", "次", "个", "人", "件数", "单数", "订单", "单量"];
