//! Words around a place that make it an origin or a destination (从, 发往, from, to).

/// Words right before a place that make it the origin.
pub const FROM_BEFORE: &[&str] = &["从", "由", "自"];
/// Words right after a place that make it the origin.
pub const FROM_AFTER: &[&str] = &[
    "发出", "出发", "寄出", "发往", "寄往", "运往", "发到", "寄到", "到", "至", "→", "-",
];
/// Words right before a place that make it the destination.
pub const TO_BEFORE: &[&str] = &[
    "发往", "寄往", "运往", "寄到", "送到", "发到", "运到", "到", "至", "往", "发", "寄", "→",
];
/// English words right before a place that make it the origin.
pub const ENGLISH_FROM_BEFORE: &[&str] = &["from"];
/// English words right before a place that make it the destination.
pub const ENGLISH_TO_BEFORE: &[&str] = &["to", "into", "for", "towards"];
/// English words right after a place that make it the origin.
pub const ENGLISH_FROM_AFTER: &[&str] = &["to"];
