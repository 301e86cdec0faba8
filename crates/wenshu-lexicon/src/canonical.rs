//! Canonical text: the one form every comparison of names and values goes through.

/// Folds full-width characters to half-width, lowercases, and trims surrounding whitespace.
pub fn canonical(text: &str) -> String {
    text.trim()
        .chars()
        .map(to_half_width)
        .flat_map(char::to_lowercase)
        .collect::<String>()
        .trim()
        .to_string()
}

/// Maps one full-width character (U+FF01..U+FF5E, U+3000) to its half-width form.
pub fn to_half_width(c: char) -> char {
    match c {
        '\u{3000}' => ' ',
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_width_and_case() {
        assert_eq!(canonical("  ＡＢＣ１２３ "), "abc123");
        assert_eq!(canonical("East China"), "east china");
    }
}
