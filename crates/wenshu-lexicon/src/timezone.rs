//! Time zones named by places: 东京 → Asia/Tokyo, 纽约 → America/New_York, London → Europe/London.

use std::ops::Range;

use serde::Serialize;

use crate::canonical::canonical;

/// Place names (Chinese and English, canonical form) and the IANA time zone they are in.
const ZONES: &[(&str, &str)] = &[
    ("北京", "Asia/Shanghai"),
    ("上海", "Asia/Shanghai"),
    ("广州", "Asia/Shanghai"),
    ("深圳", "Asia/Shanghai"),
    ("中国", "Asia/Shanghai"),
    ("beijing", "Asia/Shanghai"),
    ("shanghai", "Asia/Shanghai"),
    ("china", "Asia/Shanghai"),
    ("香港", "Asia/Hong_Kong"),
    ("hong kong", "Asia/Hong_Kong"),
    ("澳门", "Asia/Macau"),
    ("台北", "Asia/Taipei"),
    ("台湾", "Asia/Taipei"),
    ("taipei", "Asia/Taipei"),
    ("东京", "Asia/Tokyo"),
    ("大阪", "Asia/Tokyo"),
    ("日本", "Asia/Tokyo"),
    ("tokyo", "Asia/Tokyo"),
    ("osaka", "Asia/Tokyo"),
    ("japan", "Asia/Tokyo"),
    ("首尔", "Asia/Seoul"),
    ("韩国", "Asia/Seoul"),
    ("seoul", "Asia/Seoul"),
    ("korea", "Asia/Seoul"),
    ("新加坡", "Asia/Singapore"),
    ("singapore", "Asia/Singapore"),
    ("曼谷", "Asia/Bangkok"),
    ("泰国", "Asia/Bangkok"),
    ("bangkok", "Asia/Bangkok"),
    ("雅加达", "Asia/Jakarta"),
    ("jakarta", "Asia/Jakarta"),
    ("吉隆坡", "Asia/Kuala_Lumpur"),
    ("马尼拉", "Asia/Manila"),
    ("河内", "Asia/Bangkok"),
    ("胡志明市", "Asia/Ho_Chi_Minh"),
    ("新德里", "Asia/Kolkata"),
    ("孟买", "Asia/Kolkata"),
    ("印度", "Asia/Kolkata"),
    ("india", "Asia/Kolkata"),
    ("mumbai", "Asia/Kolkata"),
    ("迪拜", "Asia/Dubai"),
    ("dubai", "Asia/Dubai"),
    ("莫斯科", "Europe/Moscow"),
    ("moscow", "Europe/Moscow"),
    ("伦敦", "Europe/London"),
    ("英国", "Europe/London"),
    ("london", "Europe/London"),
    ("巴黎", "Europe/Paris"),
    ("法国", "Europe/Paris"),
    ("paris", "Europe/Paris"),
    ("柏林", "Europe/Berlin"),
    ("德国", "Europe/Berlin"),
    ("berlin", "Europe/Berlin"),
    ("罗马", "Europe/Rome"),
    ("rome", "Europe/Rome"),
    ("马德里", "Europe/Madrid"),
    ("madrid", "Europe/Madrid"),
    ("阿姆斯特丹", "Europe/Amsterdam"),
    ("amsterdam", "Europe/Amsterdam"),
    ("苏黎世", "Europe/Zurich"),
    ("zurich", "Europe/Zurich"),
    ("纽约", "America/New_York"),
    ("new york", "America/New_York"),
    ("华盛顿", "America/New_York"),
    ("波士顿", "America/New_York"),
    ("芝加哥", "America/Chicago"),
    ("chicago", "America/Chicago"),
    ("丹佛", "America/Denver"),
    ("洛杉矶", "America/Los_Angeles"),
    ("旧金山", "America/Los_Angeles"),
    ("西雅图", "America/Los_Angeles"),
    ("los angeles", "America/Los_Angeles"),
    ("san francisco", "America/Los_Angeles"),
    ("seattle", "America/Los_Angeles"),
    ("多伦多", "America/Toronto"),
    ("toronto", "America/Toronto"),
    ("温哥华", "America/Vancouver"),
    ("vancouver", "America/Vancouver"),
    ("墨西哥城", "America/Mexico_City"),
    ("圣保罗", "America/Sao_Paulo"),
    ("sao paulo", "America/Sao_Paulo"),
    ("悉尼", "Australia/Sydney"),
    ("sydney", "Australia/Sydney"),
    ("墨尔本", "Australia/Melbourne"),
    ("melbourne", "Australia/Melbourne"),
    ("奥克兰", "Pacific/Auckland"),
    ("auckland", "Pacific/Auckland"),
    ("开罗", "Africa/Cairo"),
    ("cairo", "Africa/Cairo"),
    ("约翰内斯堡", "Africa/Johannesburg"),
    ("utc", "UTC"),
    ("格林尼治", "Europe/London"),
];

/// A place in a sentence that names a time zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ZoneHit {
    /// Byte range in the canonical text of the sentence.
    pub range: Range<usize>,
    /// The place as written in the table.
    pub place: &'static str,
    /// The IANA time zone.
    pub zone: &'static str,
}

/// Every place of the table named in `text` (longest first where they overlap), in order.
pub fn scan_time_zones(text: &str) -> Vec<ZoneHit> {
    let folded = canonical(text);
    let mut hits: Vec<ZoneHit> = Vec::new();
    let mut entries: Vec<&(&str, &str)> = ZONES.iter().collect();
    entries.sort_by_key(|(place, _)| std::cmp::Reverse(place.len()));
    for (place, zone) in entries {
        for (start, _) in folded.match_indices(place) {
            let range = start..start + place.len();
            let ascii_word_edge = |i: usize| {
                folded[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_ascii_alphanumeric())
            };
            let ascii = place.is_ascii();
            let end_edge = folded[range.end..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric());
            if ascii && !(ascii_word_edge(range.start) && end_edge) {
                continue;
            }
            if hits
                .iter()
                .all(|h| h.range.end <= range.start || range.end <= h.range.start)
            {
                hits.push(ZoneHit { range, place, zone });
            }
        }
    }
    hits.sort_by_key(|h| h.range.start);
    hits
}

/// Whether a text is an IANA time zone name wenshu knows.
pub fn is_time_zone(text: &str) -> bool {
    ZONES.iter().any(|(_, zone)| *zone == text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_name_their_zones() {
        let zones: Vec<&str> = scan_time_zones("现在东京几点").iter().map(|h| h.zone).collect();
        assert_eq!(zones, ["Asia/Tokyo"]);
        let zones: Vec<&str> = scan_time_zones("What time is it in New York and London?")
            .iter()
            .map(|h| h.zone)
            .collect();
        assert_eq!(zones, ["America/New_York", "Europe/London"]);
        assert!(scan_time_zones("今天天气怎么样").is_empty());
        assert!(scan_time_zones("computer").is_empty(), "utc inside a word is not UTC");
        let zones: Vec<&str> = scan_time_zones("胡志明市现在几点").iter().map(|h| h.zone).collect();
        assert_eq!(zones, ["Asia/Ho_Chi_Minh"]);
        assert!(is_time_zone("Asia/Tokyo") && !is_time_zone("Mars/Base"));
    }
}
