//! Keeping secrets and long bodies out of errors and logs.

use crate::config::ApiKey;

/// Bodies kept in errors are cut to about this many bytes.
pub(crate) const MAX_BODY_BYTES: usize = 2048;

/// Replaces every occurrence of the key with `***`, then cuts the text to about 2 KB on a char boundary.
pub(crate) fn clean_body(text: &str, key: Option<&ApiKey>) -> String {
    truncate(&redact(text, key), MAX_BODY_BYTES)
}

/// Replaces every occurrence of the key (and of `Bearer <key>`) with `***`.
pub(crate) fn redact(text: &str, key: Option<&ApiKey>) -> String {
    match key.map(ApiKey::expose_secret) {
        Some(secret) if !secret.is_empty() => text.replace(secret, "***"),
        _ => text.to_owned(),
    }
}

/// Cuts the text to at most `max` bytes on a char boundary, marking the cut with `…`.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_the_key_and_truncates_on_char_boundary() {
        let key = ApiKey::new("sk-abc");
        assert_eq!(redact("bad key sk-abc here", Some(&key)), "bad key *** here");
        assert_eq!(redact("nothing", None), "nothing");
        let long = "问".repeat(1000);
        let cut = clean_body(&long, Some(&key));
        assert!(cut.len() <= MAX_BODY_BYTES + "…".len());
        assert!(cut.ends_with('…'));
    }
}
