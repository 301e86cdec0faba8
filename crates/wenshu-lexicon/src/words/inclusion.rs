//! Words that include a thing or leave it out (包括, 不含, 除…之外, excluding), and negations.

/// Words before X that include it.
pub const INCLUDE: &[&str] = &[
    "包括",
    "包含",
    "带上",
    "算上",
    "加上",
    "含",
    "要",
    "只看",
    "仅看",
    "只要",
    "只查",
    "只算",
    "including",
    "include",
    "with",
];
/// Words before X that leave it out (longest first: 不包括 before 包括).
pub const EXCLUDE: &[&str] = &[
    "不要算",
    "不包括",
    "不包含",
    "不算",
    "不含",
    "不要",
    "不计",
    "除去",
    "除了",
    "排除",
    "去掉",
    "剔除",
    "别算",
    "扣除",
    "excluding",
    "exclude",
    "without",
];
/// English words before X that include it ("including the cancelled ones").
pub const ENGLISH_INCLUDE: &[&str] = &["including", "include", "includes", "with", "only", "just"];
/// English words that leave the next thing out.
pub const ENGLISH_EXCLUDE: &[&str] = &["excluding", "exclude", "excludes", "without", "except", "minus"];
/// English negations (and the stems of their contractions: isn't → isn).
pub const ENGLISH_DENY: &[&str] = &[
    "not", "non", "never", "no", "isn", "aren", "wasn", "weren", "don", "didn",
];
/// English words right after X that include it ("cancelled ones included").
pub const ENGLISH_INCLUDED_AFTER: &[&str] = &["included", "too"];
/// English words right after X that leave it out ("cancelled ones excluded").
pub const ENGLISH_EXCLUDED_AFTER: &[&str] = &["excluded"];
/// Negation words right before X (不超时, 未签收, 没有逾期).
pub const NEGATIONS: &[&str] = &["没有", "不", "未", "没", "非", "无"];
/// One-character cues right before X (除X外, 非X).
pub const EXCLUDE_SHORT: &[&str] = &["除", "非"];
/// Words right after X that leave it out (X之外, X以外).
pub const EXCLUDE_AFTER: &[&str] = &["之外", "以外"];
