//! Folded text with a map back to the original bytes, and a cursor the grammars read it with.

use std::ops::Range;

use crate::canonical::fold_char;

/// Text folded one character for one (half-width, simplified, lowercase), remembering byte offsets.
#[derive(Debug, Clone)]
pub(crate) struct Folded {
    /// The folded characters.
    pub chars: Vec<char>,
    /// Byte offset in the original text of each character, plus the text's length at the end.
    offsets: Vec<usize>,
}

impl Folded {
    /// Folds `text`.
    pub fn new(text: &str) -> Folded {
        let mut chars = Vec::with_capacity(text.len());
        let mut offsets = Vec::with_capacity(text.len() + 1);
        for (i, c) in text.char_indices() {
            chars.push(fold_char(c));
            offsets.push(i);
        }
        offsets.push(text.len());
        Folded { chars, offsets }
    }

    /// The byte range in the original text of the characters `range`.
    pub fn bytes(&self, range: Range<usize>) -> Range<usize> {
        let last = self.offsets.len().saturating_sub(1);
        let at = |i: usize| self.offsets.get(i.min(last)).copied().unwrap_or(0);
        at(range.start)..at(range.end)
    }
}

/// Whether `c` separates words for ASCII matching (anything but an ASCII letter or digit).
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// A position in a slice of folded characters, with small matching helpers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor<'a> {
    /// The characters read.
    pub s: &'a [char],
    /// The index of the next character.
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos`.
    pub fn new(s: &'a [char], pos: usize) -> Cursor<'a> {
        Cursor { s, pos }
    }

    /// The next character.
    pub fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    /// The character `k` places ahead.
    pub fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.pos + k).copied()
    }

    /// The character before the cursor.
    pub fn prev(&self) -> Option<char> {
        self.pos.checked_sub(1).and_then(|i| self.s.get(i).copied())
    }

    /// Whether all characters have been read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    /// Consumes `c` if it is next.
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Whether `lit` comes next.
    pub fn looking_at(&self, lit: &str) -> bool {
        let mut rest = self.s.get(self.pos..).unwrap_or(&[]).iter();
        lit.chars().all(|c| rest.next() == Some(&c))
    }

    /// Consumes `lit` if it comes next.
    pub fn eat_str(&mut self, lit: &str) -> bool {
        if self.looking_at(lit) {
            self.pos += lit.chars().count();
            true
        } else {
            false
        }
    }

    /// Consumes the first of `lits` that comes next (list longer ones first) and returns its index.
    pub fn eat_any(&mut self, lits: &[&str]) -> Option<usize> {
        lits.iter().position(|lit| self.eat_str(lit))
    }

    /// Consumes the first key of `table` that comes next and returns its value.
    pub fn eat_table<T: Copy>(&mut self, table: &[(&str, T)]) -> Option<T> {
        table.iter().find(|(lit, _)| self.eat_str(lit)).map(|(_, value)| *value)
    }

    /// Consumes an ASCII word `w` standing alone (no letter or digit right before or after).
    pub fn eat_word(&mut self, w: &str) -> bool {
        if self.prev().is_some_and(is_word_char) || !self.looking_at(w) {
            return false;
        }
        let end = self.pos + w.chars().count();
        if self.s.get(end).copied().is_some_and(is_word_char) {
            return false;
        }
        self.pos = end;
        true
    }

    /// Consumes the first of `table`'s words that stands alone next and returns its value.
    pub fn eat_word_table<T: Copy>(&mut self, table: &[(&str, T)]) -> Option<T> {
        table.iter().find(|(w, _)| self.eat_word(w)).map(|(_, value)| *value)
    }

    /// Skips spaces, tabs and underscores; returns how many.
    pub fn skip_ws(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|c| c == ' ' || c == '\t' || c == '_') {
            self.pos += 1;
        }
        self.pos - start
    }

    /// Reads a run of ASCII digits: (value, digit count); None when none or over 18 digits.
    pub fn digits(&mut self) -> Option<(u64, usize)> {
        let mut i = self.pos;
        let mut value: u64 = 0;
        while let Some(d) = self.s.get(i).and_then(|c| c.to_digit(10)) {
            value = value.checked_mul(10)?.checked_add(u64::from(d))?;
            i += 1;
        }
        let n = i - self.pos;
        if n == 0 || n > 18 {
            return None;
        }
        self.pos = i;
        Some((value, n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_and_maps_offsets() {
        let f = Folded::new("這個Ａ月");
        assert_eq!(f.chars, vec!['这', '个', 'a', '月']);
        assert_eq!(f.bytes(0..2), 0..6);
        assert_eq!(f.bytes(2..3), 6..9);
        assert_eq!(f.bytes(3..9), 9..12);
    }

    #[test]
    fn words_need_boundaries() {
        let chars: Vec<char> = "product pro".chars().collect();
        let mut c = Cursor::new(&chars, 0);
        assert!(!c.eat_word("pro"));
        c.pos = 8;
        assert!(c.eat_word("pro"));
        assert!(c.at_end());
    }

    #[test]
    fn digits_cap() {
        let chars: Vec<char> = "99999999999999999999".chars().collect();
        assert!(Cursor::new(&chars, 0).digits().is_none());
        let chars: Vec<char> = "2026年".chars().collect();
        let mut c = Cursor::new(&chars, 0);
        assert_eq!(c.digits(), Some((2026, 4)));
        assert_eq!(c.peek(), Some('年'));
    }
}
