//! Canonical text: the one form every comparison of names and values goes through.

use std::sync::OnceLock;

/// The traditional → simplified table, one `繁简` pair per whitespace-separated token.
const T2S_DATA: &str = include_str!("../data/t2s.txt");

/// The first and last character of the dense part of the table (CJK Extension A and the unified ideographs).
const DENSE: std::ops::RangeInclusive<u32> = 0x3400..=0x9FFF;

/// The traditional → simplified table, built once from [`T2S_DATA`]: one slot per character of [`DENSE`] (a
/// character maps to itself when it has no simplified form), sorted pairs for the few outside it.
struct T2s {
    dense: Vec<char>,
    sparse: Vec<(char, char)>,
}

fn t2s_table() -> &'static T2s {
    static TABLE: OnceLock<T2s> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut dense: Vec<char> = DENSE.clone().map(|u| char::from_u32(u).unwrap_or(' ')).collect();
        let mut pairs: Vec<(char, char)> = T2S_DATA
            .lines()
            .filter(|line| !line.starts_with('#'))
            .flat_map(str::split_whitespace)
            .filter_map(|token| {
                let mut chars = token.chars();
                match (chars.next(), chars.next(), chars.next()) {
                    (Some(t), Some(s), None) => Some((t, s)),
                    _ => None,
                }
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup_by_key(|pair| pair.0);
        let mut sparse: Vec<(char, char)> = Vec::new();
        for (t, s) in pairs {
            match dense_index(t) {
                Some(i) => dense[i] = s,
                None => sparse.push((t, s)),
            }
        }
        T2s { dense, sparse }
    })
}

/// The slot of `c` in the dense table, when it has one.
fn dense_index(c: char) -> Option<usize> {
    let u = c as u32;
    DENSE.contains(&u).then(|| (u - DENSE.start()) as usize)
}

/// Folds full-width characters to half-width, traditional to simplified, lowercases, and trims.
pub fn canonical(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        let c = simplify_char(to_half_width(c));
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else if is_han(c) {
            out.push(c);
        } else {
            out.extend(c.to_lowercase());
        }
    }
    match out.trim() {
        trimmed if trimmed.len() == out.len() => out,
        trimmed => trimmed.to_string(),
    }
}

/// Whether `c` is a CJK unified ideograph (U+4E00..U+9FFF), which has no case: lower-casing it is the identity.
pub fn is_han(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c)
}

/// Maps one full-width character (U+FF01..U+FF5E, U+3000) to its half-width form.
pub fn to_half_width(c: char) -> char {
    match c {
        '\u{3000}' => ' ',
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

/// Maps one traditional Chinese character to its simplified form (other characters unchanged).
pub fn simplify_char(c: char) -> char {
    if c.is_ascii() {
        return c;
    }
    let table = t2s_table();
    if let Some(i) = dense_index(c) {
        return table.dense.get(i).copied().unwrap_or(c);
    }
    match table.sparse.binary_search_by_key(&c, |pair| pair.0) {
        Ok(i) => table.sparse.get(i).map_or(c, |pair| pair.1),
        Err(_) => c,
    }
}

/// Converts traditional Chinese characters to simplified ones, leaving everything else as is.
pub fn to_simplified(text: &str) -> String {
    text.chars().map(simplify_char).collect()
}

/// Folds one character for matching: half-width, simplified, lowercase when that stays one character.
pub fn fold_char(c: char) -> char {
    let c = simplify_char(to_half_width(c));
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    if is_han(c) {
        return c;
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Quote and bracket characters stripped from around names.
const QUOTES: &[char] = &[
    '《', '》', '「', '」', '『', '』', '“', '”', '‘', '’', '"', '\'', '〈', '〉', '【', '】',
];

/// Function words stripped from the end of names ("满江红的" → "满江红"), longest first.
const TRAILING_WORDS: &[&str] = &["这部", "这个", "那部", "那个", "的"];

/// Removes quotes (《》「」『』“”"'…) and trailing function words (的, 这部, 这个) from a name.
pub fn strip_name_decorations(text: &str) -> String {
    let mut name: String = text.chars().filter(|c| !QUOTES.contains(c)).collect();
    loop {
        let trimmed = name.trim_end();
        let stripped = TRAILING_WORDS
            .iter()
            .find_map(|word| trimmed.strip_suffix(word).filter(|rest| !rest.trim().is_empty()));
        match stripped {
            Some(rest) => name = rest.to_string(),
            None => break,
        }
    }
    name.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_width_and_case() {
        assert_eq!(canonical("  ＡＢＣ１２３ "), "abc123");
        assert_eq!(canonical("East China"), "east china");
    }

    #[test]
    fn folds_traditional() {
        assert_eq!(canonical("這個月"), "这个月");
        assert_eq!(canonical("上個禮拜"), "上个礼拜");
        assert_eq!(canonical("華東區銷售額"), "华东区销售额");
        assert_eq!(to_simplified("兩萬億後天號"), "两万亿后天号");
        assert_eq!(to_simplified("電影評分 ABC"), "电影评分 ABC");
        assert_eq!(canonical("訂單運輸中"), "订单运输中");
    }

    #[test]
    fn table_is_well_formed() {
        let table = t2s_table();
        let dense = DENSE
            .clone()
            .zip(&table.dense)
            .filter_map(|(u, &s)| Some((char::from_u32(u)?, s)));
        let pairs: Vec<(char, char)> = dense
            .filter(|(t, s)| t != s)
            .chain(table.sparse.iter().copied())
            .collect();
        assert!(pairs.len() > 500, "{}", pairs.len());
        for (t, s) in pairs {
            assert_ne!(t, s);
            assert_eq!(simplify_char(t), s);
            assert_eq!(simplify_char(s), s, "{s} is itself mapped");
        }
    }

    /// The plain definition canonical keeps: trim, half width, simplified, lower case, trim.
    fn canonical_by_definition(text: &str) -> String {
        text.trim()
            .chars()
            .map(|c| simplify_char(to_half_width(c)))
            .flat_map(char::to_lowercase)
            .collect::<String>()
            .trim()
            .to_string()
    }

    #[test]
    fn canonical_is_its_plain_definition() {
        let ranges = [
            0x20..0x250,
            0x370..0x400,
            0x3000..0x3040,
            0x4E00..0x9FFF,
            0xFF00..0xFF70,
        ];
        let chars: Vec<char> = ranges.into_iter().flatten().filter_map(char::from_u32).collect();
        for window in chars.chunks(7) {
            let text: String = window.iter().collect();
            assert_eq!(canonical(&text), canonical_by_definition(&text), "{text:?}");
        }
        for text in ["\u{3000}Ａbc 週報\u{3000}", "  ΣΑΣ  ", "İstanbul", "", "\u{3000}"] {
            assert_eq!(canonical(text), canonical_by_definition(text), "{text:?}");
        }
    }

    #[test]
    fn fold_char_is_single() {
        assert_eq!(fold_char('Ｑ'), 'q');
        assert_eq!(fold_char('週'), '周');
        assert_eq!(fold_char('a'), 'a');
    }

    #[test]
    fn strips_decorations() {
        assert_eq!(strip_name_decorations("《满江红》"), "满江红");
        assert_eq!(strip_name_decorations("「流浪地球2」的"), "流浪地球2");
        assert_eq!(strip_name_decorations("满江红这部"), "满江红");
        assert_eq!(strip_name_decorations("“长津湖”这个"), "长津湖");
        assert_eq!(strip_name_decorations("的"), "的");
        assert_eq!(strip_name_decorations(""), "");
    }
}
