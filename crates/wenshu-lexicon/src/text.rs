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
    /// Byte offset in the original text just past each character.
    ends: Vec<usize>,
}

/// Characters of numerals and date expressions besides digits: spaces between two of them (or a digit)
/// are dropped by [`Folded::expression`] (三百 二 十 一, 2015 年 3 月, 近 两 年, 负 3500000).
const JOINABLE: &str = "点负之分又半个份到至近去来前后第上下季度周天年月日号时";

/// Whether `c` may be joined to a neighbour across spaces inside a numeral or date expression.
fn joinable(c: char) -> bool {
    c.is_ascii_digit() || crate::numeral::is_chinese_numeral_char(c) || JOINABLE.contains(c)
}

impl Folded {
    /// Folds `text`.
    pub fn new(text: &str) -> Folded {
        let mut chars = Vec::with_capacity(text.len());
        let mut offsets = Vec::with_capacity(text.len() + 1);
        let mut ends = Vec::with_capacity(text.len());
        for (i, c) in text.char_indices() {
            chars.push(fold_char(c));
            offsets.push(i);
            ends.push(i + c.len_utf8());
        }
        offsets.push(text.len());
        Folded { chars, offsets, ends }
    }

    /// Folds `text` for numerals and time expressions: as [`Folded::new`], and a run of spaces between two
    /// characters of a numeral or date expression is dropped (speech input: 三百 二 十 一, 2015 年 3 月), unless
    /// both are ASCII digits (2021 03 15 stays three numbers, read by the date grammar). Text without spaces
    /// costs nothing more.
    pub fn expression(text: &str) -> Folded {
        let mut folded = Folded::new(text);
        if !folded.chars.iter().any(|c| *c == ' ' || *c == '\t') {
            return folded;
        }
        let n = folded.chars.len();
        let mut keep = vec![true; n];
        let mut i = 0;
        while i < n {
            if folded.chars[i] != ' ' && folded.chars[i] != '\t' {
                i += 1;
                continue;
            }
            let run_start = i;
            while i < n && (folded.chars[i] == ' ' || folded.chars[i] == '\t') {
                i += 1;
            }
            let (Some(&l), Some(&r)) = (
                run_start.checked_sub(1).and_then(|p| folded.chars.get(p)),
                folded.chars.get(i),
            ) else {
                continue;
            };
            if joinable(l) && joinable(r) && !(l.is_ascii_digit() && r.is_ascii_digit()) {
                keep[run_start..i].iter_mut().for_each(|k| *k = false);
            }
        }
        let last = folded.offsets.pop().unwrap_or(text.len());
        retain_kept(&mut folded.chars, &keep);
        retain_kept(&mut folded.offsets, &keep);
        retain_kept(&mut folded.ends, &keep);
        folded.offsets.push(last);
        folded
    }

    /// The byte range in the original text of the characters `range`.
    pub fn bytes(&self, range: Range<usize>) -> Range<usize> {
        let last = self.offsets.len().saturating_sub(1);
        let at = |i: usize| self.offsets.get(i.min(last)).copied().unwrap_or(0);
        let start = at(range.start);
        let end = match range.end.checked_sub(1).and_then(|i| self.ends.get(i)) {
            Some(&end) if range.end > range.start => end,
            _ => at(range.end),
        };
        start..end.max(start)
    }
}

/// Keeps the items whose flag in `keep` is set.
fn retain_kept<T>(items: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    items.retain(|_| flags.next().copied().unwrap_or(true));
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
    fn spaces_fold_only_inside_expressions() {
        let f = Folded::expression("三百 二 十 一");
        assert_eq!(f.chars.iter().collect::<String>(), "三百二十一");
        assert_eq!(f.bytes(0..2), 0..6);
        assert_eq!(f.bytes(0..5), 0..f.offsets[5]);
        let f = Folded::expression("2021 03 15 top 5 销售 3 件");
        assert_eq!(f.chars.iter().collect::<String>(), "2021 03 15 top 5 销售 3 件");
        let f = Folded::expression("2015 年 3 月的");
        assert_eq!(f.chars.iter().collect::<String>(), "2015年3月的");
        assert_eq!(f.bytes(0..7), 0..14);
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
