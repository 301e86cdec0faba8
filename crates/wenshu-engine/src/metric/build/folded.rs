//! The question folded character by character, so that a range found in the folded text maps back to the original.

use std::ops::Range;

use wenshu_lexicon::canonical::canonical;

/// The question, folded character by character so that ranges map back to the original text.
pub(super) struct Folded {
    pub(super) text: String,
    /// Original byte offset of each byte of `text`.
    origin: Vec<usize>,
    len: usize,
}

impl Folded {
    pub(super) fn new(question: &str) -> Self {
        let mut text = String::with_capacity(question.len());
        let mut origin = Vec::with_capacity(question.len());
        for (at, c) in question.char_indices() {
            let folded = if c.is_whitespace() {
                " ".to_string()
            } else {
                canonical(c.encode_utf8(&mut [0; 4]))
            };
            origin.extend(std::iter::repeat_n(at, folded.len()));
            text.push_str(&folded);
        }
        Self {
            text,
            origin,
            len: question.len(),
        }
    }

    /// The original byte range of a folded byte range.
    pub(super) fn original(&self, range: &Range<usize>) -> Range<usize> {
        let start = self.origin.get(range.start).copied().unwrap_or(self.len);
        let end = self.origin.get(range.end).copied().unwrap_or(self.len);
        start..end.max(start)
    }

    /// Every occurrence of `word` (canonical), as original ranges.
    pub(super) fn find(&self, word: &str) -> Vec<Range<usize>> {
        if word.is_empty() {
            return Vec::new();
        }
        self.text
            .match_indices(word)
            .map(|(at, _)| self.original(&(at..at + word.len())))
            .collect()
    }
}
