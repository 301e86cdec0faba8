//! Words that refer to something named elsewhere (它, 这部, its).

/// Words that refer to something named elsewhere (它的评分, 这部的票房, its rating): a metric query answers over
/// every row, never over a thing the question only points at (general Chinese and English).
pub const REFERENCES: &[&str] = &[
    "它们", "它", "他们", "他", "她们", "她", "这部", "那部", "这款", "那款", "这位", "那位", "这家", "那家", "这只",
    "那只", "这个", "那个", "该",
];
/// English words that refer to something named elsewhere, matched as whole words.
pub const REFERENCES_EN: &[&str] = &["it", "its", "this", "that", "them", "they", "their"];

/// The first reference word in a run of words the query did not account for.
pub fn reference_in(run: &str) -> Option<String> {
    let text = crate::canonical::canonical(run);
    if let Some(word) = REFERENCES.iter().find(|w| text.contains(*w)) {
        return Some((*word).to_string());
    }
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| REFERENCES_EN.contains(&w.to_ascii_lowercase().as_str()))
        .map(str::to_string)
}
