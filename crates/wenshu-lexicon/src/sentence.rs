//! A sentence as folded characters with their byte offsets, and a mask of the characters already explained
//! (time expressions, entity names, tool words), so the rest can be read for what is left.

use std::ops::Range;

use crate::canonical::fold_char;

/// A sentence, folded one character at a time (width, script, case), with a byte offset per character.
#[derive(Debug, Clone)]
pub struct Sentence {
    /// The text as given.
    pub text: String,
    /// The folded characters (one per original character).
    pub chars: Vec<char>,
    /// Byte offset in `text` of each character, plus the text's length at the end.
    offsets: Vec<usize>,
    /// Characters already explained.
    masked: Vec<bool>,
}

impl Sentence {
    /// Folds a text.
    pub fn new(text: &str) -> Self {
        let mut chars = Vec::with_capacity(text.len());
        let mut offsets = Vec::with_capacity(text.len() + 1);
        for (offset, c) in text.char_indices() {
            chars.push(fold_char(c));
            offsets.push(offset);
        }
        offsets.push(text.len());
        let masked = vec![false; chars.len()];
        Self {
            text: text.to_string(),
            chars,
            offsets,
            masked,
        }
    }

    /// The character range covering a byte range (partial characters included).
    pub fn char_range(&self, bytes: &Range<usize>) -> Range<usize> {
        let start = self.offsets.partition_point(|&o| o < bytes.start).min(self.chars.len());
        let end = self.offsets.partition_point(|&o| o < bytes.end).min(self.chars.len());
        start..end.max(start)
    }

    /// The byte range of a character range.
    pub fn byte_range(&self, chars: &Range<usize>) -> Range<usize> {
        let at = |i: usize| self.offsets.get(i).copied().unwrap_or(self.text.len());
        at(chars.start)..at(chars.end)
    }

    /// The original text of a character range.
    pub fn slice(&self, chars: &Range<usize>) -> &str {
        self.text.get(self.byte_range(chars)).unwrap_or_default()
    }

    /// Marks a byte range as explained.
    pub fn mask_bytes(&mut self, bytes: &Range<usize>) {
        let chars = self.char_range(bytes);
        self.mask_chars(&chars);
    }

    /// Marks a character range as explained.
    pub fn mask_chars(&mut self, chars: &Range<usize>) {
        for slot in self.masked.get_mut(chars.clone()).unwrap_or(&mut []) {
            *slot = true;
        }
    }

    /// Whether a character is explained.
    pub fn is_masked(&self, i: usize) -> bool {
        self.masked.get(i).copied().unwrap_or(true)
    }

    /// Whether any character of a byte range is explained.
    pub fn overlaps_mask(&self, bytes: &Range<usize>) -> bool {
        self.char_range(bytes).any(|i| self.is_masked(i))
    }

    /// The runs of characters not explained and not separators, as character ranges.
    pub fn open_runs(&self) -> Vec<Range<usize>> {
        let mut runs = Vec::new();
        let mut start = None;
        for i in 0..=self.chars.len() {
            let open = i < self.chars.len() && !self.masked[i] && !is_separator(self.chars[i]);
            match (open, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    runs.push(s..i);
                    start = None;
                }
                _ => {}
            }
        }
        runs
    }

    /// The folded characters with explained ones replaced by a space.
    pub fn open_text(&self) -> String {
        self.chars
            .iter()
            .zip(&self.masked)
            .map(|(c, m)| if *m { ' ' } else { *c })
            .collect()
    }
}

/// Whether a character separates words: whitespace and punctuation (ASCII or CJK).
pub fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || (c.is_ascii_punctuation() && !matches!(c, '_' | '-'))
        || matches!(
            c,
            '，' | '。'
                | '、'
                | '？'
                | '！'
                | '：'
                | '；'
                | '“'
                | '”'
                | '‘'
                | '’'
                | '《'
                | '》'
                | '「'
                | '」'
                | '『'
                | '』'
                | '（'
                | '）'
                | '【'
                | '】'
                | '〈'
                | '〉'
                | '…'
                | '—'
                | '·'
        )
}

/// Whether a character is a CJK ideograph.
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_round_trip_and_masks_split_runs() {
        let mut s = Sentence::new("《流浪地球2》最近7天的票房");
        let bytes = s.text.find("最近").map(|b| b..b + "最近7天".len()).unwrap_or_default();
        let chars = s.char_range(&bytes);
        assert_eq!(s.slice(&chars), "最近7天");
        s.mask_bytes(&bytes);
        let runs: Vec<String> = s.open_runs().iter().map(|r| s.slice(r).to_string()).collect();
        assert_eq!(runs, vec!["流浪地球2", "的票房"]);
        assert!(s.open_text().contains("的票房"));
    }

    #[test]
    fn folding_is_one_char_per_char() {
        let s = Sentence::new("華東區ＡＢ");
        assert_eq!(s.chars.iter().collect::<String>(), "华东区ab");
        assert_eq!(s.slice(&(0..2)), "華東");
    }
}
