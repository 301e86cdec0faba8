//! Words that refer to something named elsewhere (它, 这部, its).

/// Words that refer to something named elsewhere (它的评分, 这部的票房, its rating): a metric query answers over
/// every row, never over a thing the question only points at (general Chinese and English).
pub const REFERENCES: &[&str] = &[
    "它们", "它", "他们", "他", "她们", "她", "这部", "那部", "这款", "那款", "这位", "那位", "这家", "那家", "这只",
    "那只", "这个", "那个", "该",
];
/// English words that refer to something named elsewhere, matched as whole words.
pub const REFERENCES_EN: &[&str] = &["it", "its", "this", "that", "them", "they", "their"];
