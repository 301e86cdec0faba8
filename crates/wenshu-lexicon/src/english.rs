//! English words of a sentence: whole ASCII words with their byte ranges (a plural or past-tense ending read
//! off where asked), in order, for matching identifiers (`good_rate` ↔ "good review rate") and the vocabulary.

use std::ops::Range;

/// One English word of a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Byte range in the sentence.
    pub range: Range<usize>,
    /// The word in lowercase, as written.
    pub text: String,
}

/// Every run of ASCII letters of a text, lowercased, with its byte range (digits and other characters split).
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (c.is_ascii_alphabetic(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(Word {
                    range: s..i,
                    text: text.get(s..i).unwrap_or_default().to_ascii_lowercase(),
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The forms a word may be written in besides itself: plural and third-person -s/-es/-ies, past -ed/-d.
pub fn stems(word: &str) -> Vec<String> {
    let mut out = vec![word.to_string()];
    let mut push = |s: String| {
        if s.len() >= 2 && !out.contains(&s) {
            out.push(s);
        }
    };
    if let Some(base) = word.strip_suffix("ies") {
        push(format!("{base}y"));
    }
    if let Some(base) = word.strip_suffix("es") {
        push(base.to_string());
    }
    if let Some(base) = word.strip_suffix('s').filter(|_| !word.ends_with("ss")) {
        push(base.to_string());
    }
    if let Some(base) = word.strip_suffix("ed") {
        push(base.to_string());
        push(format!("{base}e"));
    }
    out
}

/// Whether a written word is `wanted` or one of its inflected forms (couriers ↔ courier, delayed ↔ delay).
pub fn same_word(written: &str, wanted: &str) -> bool {
    written == wanted || stems(written).iter().any(|s| s == wanted) || stems(wanted).iter().any(|s| s == written)
}

/// The words of an identifier: snake_case, kebab-case and camelCase split, lowercased (`on_time_rate` → on, time,
/// rate; `goodRate` → good, rate); digits end a word.
pub fn identifier_words(identifier: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in identifier.chars() {
        if c.is_ascii_alphabetic() {
            if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = c.is_ascii_lowercase();
            current.push(c.to_ascii_lowercase());
        } else {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = false;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Where a text spells an identifier of two or more words as separate words, in order, with at most `gap` other
/// words between two of them ("good review rate" holds `good_rate` with a gap of one): the byte range from the
/// first word to the last, for the first such place.
pub fn find_identifier(text: &str, identifier: &str, gap: usize) -> Option<Range<usize>> {
    let wanted = identifier_words(identifier);
    if wanted.len() < 2 || !identifier.is_ascii() {
        return None;
    }
    let written = words(text);
    (0..written.len()).find_map(|start| {
        let first = written.get(start)?;
        if !same_word(&first.text, wanted.first()?) {
            return None;
        }
        let mut at = start;
        for next in wanted.iter().skip(1) {
            at = (at + 1..=(at + 1 + gap).min(written.len().saturating_sub(1)))
                .find(|&i| written.get(i).is_some_and(|w| same_word(&w.text, next)))?;
        }
        Some(first.range.start..written.get(at)?.range.end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(identifier_words("on_time_rate"), vec!["on", "time", "rate"]);
        assert_eq!(identifier_words("avgOrderValue"), vec!["avg", "order", "value"]);
        assert_eq!(identifier_words("net-profit2"), vec!["net", "profit"]);
    }

    #[test]
    fn an_identifier_is_found_word_by_word() {
        let text = "top 3 stores by repeat customer share last month";
        let found = find_identifier(text, "repeat_share", 1).and_then(|r| text.get(r));
        assert_eq!(found, Some("repeat customer share"));
        assert_eq!(
            find_identifier(text, "repeat_share", 0),
            None,
            "one word between, none allowed"
        );
        assert_eq!(
            find_identifier("share of repeat buyers", "repeat_share", 1),
            None,
            "order matters"
        );
        assert_eq!(
            find_identifier("the refund rate", "refund", 1),
            None,
            "one word is not an identifier"
        );
        let text = "students ranked by late submissions";
        assert_eq!(
            find_identifier(text, "late_submission", 0).and_then(|r| text.get(r)),
            Some("late submissions")
        );
    }

    #[test]
    fn inflected_forms_are_the_same_word() {
        assert!(same_word("delayed", "delay"));
        assert!(same_word("categories", "category"));
        assert!(same_word("boxes", "box"));
        assert!(!same_word("class", "clas"));
        assert!(!same_word("rate", "ratio"));
    }
}
