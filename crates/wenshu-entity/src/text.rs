//! Text forms used by resolution: canonical keys, compact characters, pinyin keys, and their hashes.
//!
//! Every comparison goes through [`fold_char`] (full-width → half-width, traditional → simplified, lowercase),
//! one character at a time, so that offsets in a folded sentence map back to the original text.

use pinyin::ToPinyin;
use wenshu_lexicon::canonical::{fold_char, strip_name_decorations};

/// The canonical key of a catalog name or alias: every character folded, surrounding whitespace trimmed.
pub(crate) fn canonical_key(text: &str) -> String {
    let folded: String = text.chars().map(fold_char).collect();
    folded.trim().to_string()
}

/// The canonical key of a user's query: folded, quotes and trailing function words (的, 这部…) stripped.
pub(crate) fn query_key(text: &str) -> String {
    canonical_key(&strip_name_decorations(&canonical_key(text)))
}

/// Whether a character takes part in fuzzy matching (letters, digits, ideographs; not punctuation or spaces).
pub(crate) fn is_significant(c: char) -> bool {
    c.is_alphanumeric()
}

/// Replaces `out` with the significant characters of a canonical key ("你好,李焕英" → 你好李焕英).
pub(crate) fn compact_into(key: &str, out: &mut Vec<char>) {
    out.clear();
    out.extend(key.chars().filter(|&c| is_significant(c)));
}

/// The ASCII digit runs of a character sequence, joined by `,` ("误杀2" → "2"; "a1b23" → "1,23").
pub(crate) fn digit_signature(chars: &[char]) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for &c in chars {
        if c.is_ascii_digit() {
            if !in_run && !out.is_empty() {
                out.push(',');
            }
            out.push(c);
            in_run = true;
        } else {
            in_run = false;
        }
    }
    out
}

/// Replaces `out` with the toneless pinyin of compact characters (张伟 → "zhangwei"); other characters kept.
pub(crate) fn pinyin_into(chars: &[char], out: &mut String) {
    out.clear();
    for &c in chars {
        match c.to_pinyin() {
            Some(p) if !c.is_ascii() => out.push_str(p.plain()),
            _ => out.push(c),
        }
    }
}

/// Replaces `out` with the loose pinyin of compact characters: each syllable with the commonly confused sounds
/// merged (zh/z, ch/c, sh/s, n/l, ang/an, eng/en, ing/in), so 张珊 and 张三 both read "zansan".
pub(crate) fn loose_pinyin_into(chars: &[char], out: &mut String) {
    out.clear();
    for &c in chars {
        match c.to_pinyin() {
            Some(p) if !c.is_ascii() => push_loose_syllable(p.plain(), out),
            _ => out.push(c),
        }
    }
}

/// Appends one toneless syllable with confusable initials and finals merged.
fn push_loose_syllable(syllable: &str, out: &mut String) {
    let (initial, rest) = match syllable.as_bytes() {
        [b'z' | b'c' | b's', b'h', ..] => (syllable.get(..1).unwrap_or(""), syllable.get(2..).unwrap_or("")),
        [b'n', next, ..] if *next != b'g' => ("l", syllable.get(1..).unwrap_or("")),
        _ => ("", syllable),
    };
    out.push_str(initial);
    match rest.strip_suffix("ng").filter(|stem| stem.ends_with(['a', 'e', 'i'])) {
        Some(stem) => {
            out.push_str(stem);
            out.push('n');
        }
        None => out.push_str(rest),
    }
}

/// Whether the text contains at least one character with a pinyin reading or is plain ASCII letters/digits.
pub(crate) fn has_pinyin_form(chars: &[char]) -> bool {
    !chars.is_empty()
        && chars
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c.to_pinyin().is_some())
}

/// An incremental 64-bit hash over characters (FNV-1a over code points, finished with a mixer).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CharHasher(u64);

impl CharHasher {
    /// A hasher over the empty sequence.
    pub(crate) fn new() -> Self {
        CharHasher(0xcbf2_9ce4_8422_2325)
    }

    /// Adds one character.
    pub(crate) fn push(&mut self, c: char) {
        self.0 = (self.0 ^ u64::from(u32::from(c))).wrapping_mul(0x0000_0100_0000_01b3);
    }

    /// The hash of the characters pushed so far.
    pub(crate) fn finish(self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The hash of a whole character sequence.
pub(crate) fn hash_chars(chars: impl IntoIterator<Item = char>) -> u64 {
    let mut h = CharHasher::new();
    for c in chars {
        h.push(c);
    }
    h.finish()
}

/// A term for the inverted indexes: one character.
pub(crate) fn char_term(c: char) -> u64 {
    u64::from(u32::from(c))
}

/// A term for the inverted indexes: two adjacent characters.
pub(crate) fn bigram_term(a: char, b: char) -> u64 {
    (u64::from(u32::from(a)) << 32) | u64::from(u32::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_keys_are_folded_and_stripped() {
        assert_eq!(query_key("《流浪地球２》"), "流浪地球2");
        assert_eq!(query_key(" 滿江紅的 "), "满江红");
        assert_eq!(query_key("“长津湖”这部"), "长津湖");
        assert_eq!(query_key("《》"), "");
        assert_eq!(canonical_key("ＡＢＣ"), "abc");
    }

    #[test]
    fn compact_drops_punctuation() {
        let mut out = Vec::new();
        compact_into(&canonical_key("你好，李焕英"), &mut out);
        assert_eq!(out.iter().collect::<String>(), "你好李焕英");
    }

    #[test]
    fn digit_signatures() {
        let sig = |s: &str| digit_signature(&s.chars().collect::<Vec<_>>());
        assert_eq!(sig("误杀2"), "2");
        assert_eq!(sig("误杀"), "");
        assert_eq!(sig("a1b23"), "1,23");
    }

    #[test]
    fn pinyin_keys() {
        let mut out = String::new();
        pinyin_into(&['张', '伟'], &mut out);
        assert_eq!(out, "zhangwei");
        pinyin_into(&['流', '浪', '地', '求', '2'], &mut out);
        assert_eq!(out, "liulangdiqiu2");
        assert!(has_pinyin_form(&['z', 'h']));
        loose_pinyin_into(&['张', '珊'], &mut out);
        assert_eq!(out, "zansan");
        loose_pinyin_into(&['张', '三'], &mut out);
        assert_eq!(out, "zansan");
        loose_pinyin_into(&['刘', '英', '牛'], &mut out);
        assert_eq!(out, "liuyinliu");
        loose_pinyin_into(&['龙'], &mut out);
        assert_eq!(out, "long", "ong has no confusable partner");
        assert!(!has_pinyin_form(&[]));
    }

    #[test]
    fn hashes_are_incremental() {
        let mut h = CharHasher::new();
        h.push('英');
        h.push('雄');
        assert_eq!(h.finish(), hash_chars("英雄".chars()));
        assert_ne!(hash_chars("英雄".chars()), hash_chars("雄英".chars()));
    }
}
