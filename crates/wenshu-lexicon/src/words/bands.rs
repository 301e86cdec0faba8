//! Bands of a value said in words: 1万以下、1万到5万、5万以上; under 1000, 1000 to 5000, over 5000; 按金额区间.
//! General Chinese and English only; which value is banded is the catalog's to say.

use std::ops::Range;

use crate::{Span, SpanValue};

/// Words that name bands of a value (按金额区间, by amount range).
pub const BAND_WORDS: &[&str] = &[
    "区间", "分段", "档位", "档次", "范围", "ranges", "range", "bands", "band", "buckets", "bucket", "brackets",
    "bracket",
];

/// Words after a number that make it the top of the lowest band (1万以下, 1000以内).
const BELOW_AFTER: &[&str] = &[
    "及以下",
    "以下",
    "以内",
    "之内",
    "or less",
    "or below",
    "and below",
    "and under",
];
/// Words before a number that make it the top of the lowest band (低于1万, under 1000).
const BELOW_BEFORE: &[&str] = &["低于", "小于", "不到", "少于", "不足", "under", "below", "less than"];
/// Words after a number that make it the bottom of the highest band (5万以上, 5000 or more).
const ABOVE_AFTER: &[&str] = &[
    "及以上",
    "以上",
    "或以上",
    "or more",
    "or above",
    "and above",
    "and over",
    "+",
];
/// Words before a number that make it the bottom of the highest band (超过5万, over 5000).
const ABOVE_BEFORE: &[&str] = &["超过", "大于", "高于", "多于", "不低于", "over", "above", "more than"];
/// Words between two numbers of one band (1万到5万, 1000-5000, 1000 to 5000).
const BETWEEN: &[&str] = &["到", "至", "-", "－", "~", "～", "—", "–", "to"];
/// Words between the bands of a list.
const SEPARATORS: &[&str] = &["、", "，", ",", "；", ";", "和", "及", "与", "and", "or", "或"];

/// One band said: its lower and upper bound (none where it is open), and the byte range of its words.
#[derive(Debug, Clone, PartialEq)]
pub struct SaidBand {
    /// The lower bound, when said.
    pub low: Option<f64>,
    /// The upper bound, when said.
    pub high: Option<f64>,
    /// Byte range of the band's words.
    pub range: Range<usize>,
}

/// The bands a sentence lists (two or more, one after the other with only separators between), read from its
/// numbers (`spans`); empty when it lists none.
pub fn said_bands(text: &str, spans: &[Span]) -> Vec<SaidBand> {
    let numbers: Vec<(Range<usize>, f64)> = spans
        .iter()
        .filter_map(|s| match s.value {
            SpanValue::Number(n) => Some((s.range.clone(), n)),
            _ => None,
        })
        .collect();
    let mut bands: Vec<SaidBand> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let (range, n) = numbers[i].clone();
        let after = text.get(range.end..).unwrap_or_default();
        let before = text.get(..range.start).unwrap_or_default();
        // Two numbers of one band: 1万到5万.
        if let Some((next, m)) = numbers.get(i + 1)
            && let Some(word) = BETWEEN.iter().find(|w| after.trim_start().starts_with(**w))
            && text.get(range.end..next.start).is_some_and(|g| g.trim() == *word)
        {
            bands.push(SaidBand {
                low: Some(n),
                high: Some(*m),
                range: range.start..next.end,
            });
            i += 2;
            continue;
        }
        let band = if let Some(w) = find_prefix(after, BELOW_AFTER) {
            Some(SaidBand {
                low: None,
                high: Some(n),
                range: range.start..range.end + w,
            })
        } else if let Some(w) = find_prefix(after, ABOVE_AFTER) {
            Some(SaidBand {
                low: Some(n),
                high: None,
                range: range.start..range.end + w,
            })
        } else if let Some(w) = find_suffix(before, BELOW_BEFORE) {
            Some(SaidBand {
                low: None,
                high: Some(n),
                range: range.start - w..range.end,
            })
        } else {
            find_suffix(before, ABOVE_BEFORE).map(|w| SaidBand {
                low: Some(n),
                high: None,
                range: range.start - w..range.end,
            })
        };
        bands.extend(band);
        i += 1;
    }
    // Only a list counts: each band right after the one before, separators between.
    let listed = bands.len() >= 2
        && bands.windows(2).all(|w| {
            text.get(w[0].range.end..w[1].range.start)
                .is_some_and(|g| g.trim().is_empty() || SEPARATORS.contains(&g.trim()))
        });
    if listed { bands } else { Vec::new() }
}

/// The bounds of listed bands that run from an open lowest band to an open highest one with no gap or overlap
/// (1万以下、1万到5万、5万以上 → [10000, 50000]); otherwise what is wrong with them, in words.
pub fn bounds(bands: &[SaidBand]) -> Result<Vec<f64>, String> {
    let (Some(first), Some(last)) = (bands.first(), bands.last()) else {
        return Err("没有列出区间".into());
    };
    if first.low.is_some() || last.high.is_some() {
        return Err("区间要从最低一直到最高（如1万以下、1万到5万、5万以上）".into());
    }
    let mut bounds = Vec::new();
    for pair in bands.windows(2) {
        match (pair[0].high, pair[1].low) {
            (Some(a), Some(b)) if (a - b).abs() < 1e-9 => bounds.push(a),
            _ => return Err("相邻的区间要首尾相接（如1万到5万、5万以上）".into()),
        }
    }
    if bounds.windows(2).any(|w| w[0] >= w[1]) {
        return Err("区间要从小到大排列".into());
    }
    Ok(bounds)
}

/// The length of the first of `words` `text` starts with (after spaces), spaces included.
fn find_prefix(text: &str, words: &[&str]) -> Option<usize> {
    let trimmed = text.trim_start();
    let skipped = text.len() - trimmed.len();
    let lower = trimmed.to_ascii_lowercase();
    words.iter().find(|w| lower.starts_with(**w)).map(|w| skipped + w.len())
}

/// The length of the first of `words` `text` ends with (before spaces), spaces included.
fn find_suffix(text: &str, words: &[&str]) -> Option<usize> {
    let trimmed = text.trim_end();
    let skipped = text.len() - trimmed.len();
    let lower = trimmed.to_ascii_lowercase();
    words.iter().find(|w| lower.ends_with(**w)).map(|w| skipped + w.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<SaidBand> {
        said_bands(text, &crate::scan(text, "2026-11-29".parse().unwrap()))
    }

    #[test]
    fn a_list_of_bands_gives_its_bounds() {
        let bands = read("订单金额在1万以下、1万到5万、5万以上的订单数");
        assert_eq!(bands.len(), 3, "{bands:?}");
        assert_eq!(bounds(&bands), Ok(vec![10000.0, 50000.0]));
        let english = read("orders under 1000, 1000 to 5000 and over 5000");
        assert_eq!(bounds(&english), Ok(vec![1000.0, 5000.0]));
        let dashes = read("0-1000、1000-5000、5000以上");
        assert!(bounds(&dashes).is_err(), "the lowest band is not open: {dashes:?}");
    }

    #[test]
    fn bands_with_a_gap_or_alone_are_not_bounds() {
        assert!(read("超过5万的订单").is_empty());
        let gap = read("1万以下、2万到5万、5万以上");
        assert!(bounds(&gap).is_err());
        assert!(read("1万以下的订单和5万以上的订单").is_empty(), "not one list");
    }
}
