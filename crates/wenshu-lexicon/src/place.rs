//! A gazetteer of China's provincial-level divisions and prefecture-level cities.
//!
//! Canonical values are short names without 省/市/自治区 suffixes: 广东, 深圳, 内蒙古, 延边.
//! Municipalities and special administrative regions (北京, 上海, 天津, 重庆, 香港, 澳门) give
//! `province` and `city` both set to their own name.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use serde::Serialize;

use crate::text::Folded;

/// The gazetteer data: one province a line (see the file's header).
const PLACES_DATA: &str = include_str!("../data/places.txt");

/// A place: a province and, when known, a city in it (short names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    /// The provincial-level division's short name (广东, 北京, 内蒙古).
    pub province: String,
    /// The prefecture-level city's short name (深圳), the municipality itself for 北京 etc.
    pub city: Option<String>,
}

/// A place named in a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlaceHit {
    /// Byte range in the original text (广东深圳 is one hit).
    pub range: Range<usize>,
    /// The place.
    pub place: Place,
}

/// One provincial-level division.
#[derive(Debug)]
struct Province {
    /// Short name.
    name: String,
    /// Whether the division is a city itself (municipality, SAR).
    is_city: bool,
    /// Its prefecture-level cities (short names).
    cities: Vec<String>,
}

/// What a name in the index stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// A province (index).
    Province(usize),
    /// A city (province index, city index).
    City(usize, usize),
}

/// The parsed gazetteer and a name index.
#[derive(Debug)]
struct Gazetteer {
    /// All provinces.
    provinces: Vec<Province>,
    /// Names by first character, longest first: (characters, what they name).
    by_first: HashMap<char, Vec<(Vec<char>, Named)>>,
}

/// The gazetteer, parsed once.
fn gazetteer() -> &'static Gazetteer {
    static G: OnceLock<Gazetteer> = OnceLock::new();
    G.get_or_init(build)
}

/// Parses [`PLACES_DATA`] and indexes every short name, full name and alias.
fn build() -> Gazetteer {
    let mut provinces = Vec::new();
    let mut names: Vec<(String, Named)> = Vec::new();
    for line in PLACES_DATA
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut fields = line.split('|');
        let (Some(short), Some(full), Some(kind), cities) =
            (fields.next(), fields.next(), fields.next(), fields.next().unwrap_or(""))
        else {
            continue;
        };
        let pi = provinces.len();
        names.push((short.to_string(), Named::Province(pi)));
        names.push((full.to_string(), Named::Province(pi)));
        let mut province = Province {
            name: short.to_string(),
            is_city: matches!(kind, "municipality" | "sar"),
            cities: Vec::new(),
        };
        for (ci, city) in cities.split_whitespace().enumerate() {
            let (city_short, city_full) = match city.split_once('=') {
                Some((s, f)) => (s.to_string(), f.to_string()),
                None => (city.to_string(), format!("{city}市")),
            };
            if city_full.ends_with("自治州") && !city_short.ends_with('州') {
                names.push((format!("{city_short}州"), Named::City(pi, ci)));
            }
            names.push((city_short.clone(), Named::City(pi, ci)));
            names.push((city_full, Named::City(pi, ci)));
            province.cities.push(city_short);
        }
        provinces.push(province);
    }
    names.extend(english_names(&provinces));
    let mut by_first: HashMap<char, Vec<(Vec<char>, Named)>> = HashMap::new();
    for (name, named) in names {
        let chars: Vec<char> = name.chars().collect();
        let Some(&first) = chars.first() else { continue };
        let list = by_first.entry(first).or_default();
        // The first meaning of a name wins (吉林 the province over 吉林 the city).
        if !list.iter().any(|(c, _)| *c == chars) {
            list.push((chars, named));
        }
    }
    for list in by_first.values_mut() {
        list.sort_by_key(|(c, _)| std::cmp::Reverse(c.len()));
    }
    Gazetteer { provinces, by_first }
}

/// English names that are not the toneless pinyin of the short name, or that a reader of pinyin would misread.
const ENGLISH_NAMES: &[(&str, &[&str])] = &[
    ("香港", &["hong kong", "hongkong"]),
    ("澳门", &["macau", "macao"]),
    ("内蒙古", &["inner mongolia"]),
    ("西藏", &["tibet", "xizang"]),
    ("陕西", &["shaanxi"]),
    ("重庆", &["chongqing"]),
    ("厦门", &["xiamen", "amoy"]),
    ("长沙", &["changsha"]),
    ("长春", &["changchun"]),
    ("长治", &["changzhi"]),
    ("哈尔滨", &["harbin"]),
    ("乌鲁木齐", &["urumqi"]),
    ("拉萨", &["lhasa"]),
    ("呼和浩特", &["hohhot"]),
    ("西安", &["xi'an", "xian"]),
    ("六安", &["lu'an", "luan"]),
    ("蚌埠", &["bengbu"]),
    ("乐山", &["leshan"]),
    ("成都", &["chengdu"]),
    ("昌都", &["changdu"]),
    ("济南", &["jinan"]),
    ("无锡", &["wuxi"]),
    ("大理", &["dali"]),
    ("福州", &["fuzhou"]),
    ("苏州", &["suzhou"]),
];

/// The fewest letters a pinyin name needs to be looked for (阿里 → ali is a word of its own).
const MIN_PINYIN_NAME: usize = 5;

/// The English names of the provinces and cities: the table above, else the toneless pinyin of the short name
/// (广州 → guangzhou); a pinyin name two places share (泰州, 台州 → taizhou) names neither.
fn english_names(provinces: &[Province]) -> Vec<(String, Named)> {
    // (name, place, whether the table gives it: a name of the table is sure).
    let mut all: Vec<(String, Named, bool)> = Vec::new();
    let mut add = |short: &str, named: Named| match ENGLISH_NAMES.iter().find(|(name, _)| *name == short) {
        Some((_, english)) => all.extend(english.iter().map(|e| (e.to_string(), named, true))),
        None => all.extend(
            pinyin_of(short)
                .filter(|p| p.len() >= MIN_PINYIN_NAME)
                .map(|p| (p, named, false)),
        ),
    };
    for (pi, province) in provinces.iter().enumerate() {
        add(&province.name, Named::Province(pi));
        for (ci, city) in province.cities.iter().enumerate() {
            if *city != province.name {
                add(city, Named::City(pi, ci));
            }
        }
    }
    // A pinyin name that another place also has is dropped; a sure one gives way only to another sure one.
    let shared = |name: &str, named: Named, sure: bool| {
        all.iter().any(|(other, place, other_sure)| {
            other == name && !same_place(provinces, *place, named) && (!sure || *other_sure)
        })
    };
    all.iter()
        .filter(|(name, named, sure)| !shared(name, *named, *sure))
        .map(|(name, named, _)| (name.clone(), *named))
        .collect()
}

/// Whether two names stand for the same place (吉林 the province and 吉林 the city are one name, the province's).
fn same_place(provinces: &[Province], a: Named, b: Named) -> bool {
    let name = |n: Named| match n {
        Named::Province(pi) => provinces.get(pi).map(|p| p.name.as_str()),
        Named::City(pi, ci) => provinces.get(pi).and_then(|p| p.cities.get(ci)).map(String::as_str),
    };
    a == b || name(a) == name(b)
}

/// The toneless pinyin of a name, run together (广州 → guangzhou), when every character has one.
fn pinyin_of(name: &str) -> Option<String> {
    use pinyin::ToPinyin;
    name.chars()
        .map(|c| c.to_pinyin().map(|p| p.plain()))
        .collect::<Option<Vec<&str>>>()
        .map(|parts| parts.concat())
}

impl Gazetteer {
    /// Leftmost-longest names in folded characters: (character range, what they name).
    fn names_in(&self, s: &[char]) -> Vec<(Range<usize>, Named)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < s.len() {
            let hit = self.by_first.get(&s[i]).and_then(|list| {
                list.iter().find(|(name, _)| {
                    s.get(i..i + name.len()) == Some(name.as_slice()) && stands_alone(s, i, i + name.len())
                })
            });
            match hit {
                Some((name, named)) => {
                    out.push((i..i + name.len(), *named));
                    i += name.len();
                }
                None => i += 1,
            }
        }
        out
    }

    /// The place a name stands for.
    fn place(&self, named: Named) -> Option<Place> {
        match named {
            Named::Province(pi) => {
                let p = self.provinces.get(pi)?;
                Some(Place {
                    province: p.name.clone(),
                    city: p.is_city.then(|| p.name.clone()),
                })
            }
            Named::City(pi, ci) => {
                let p = self.provinces.get(pi)?;
                Some(Place {
                    province: p.name.clone(),
                    city: p.cities.get(ci).cloned(),
                })
            }
        }
    }
}

/// Whether a name at `start..end` that begins or ends with an ASCII letter is a whole word (Xi'an, not the xian
/// of xiangyang).
fn stands_alone(s: &[char], start: usize, end: usize) -> bool {
    let word = |i: Option<usize>| i.and_then(|i| s.get(i)).is_some_and(|c| c.is_ascii_alphanumeric());
    let left = !word(Some(start)) || !word(start.checked_sub(1));
    let right = !word(end.checked_sub(1)) || !word(Some(end));
    left && right
}

/// Every place named in a sentence; a province directly followed by one of its cities is one hit.
pub fn scan_places(text: &str) -> Vec<PlaceHit> {
    let g = gazetteer();
    let folded = Folded::new(text);
    let names = g.names_in(&folded.chars);
    let mut out: Vec<PlaceHit> = Vec::new();
    let mut last: Option<(Range<usize>, Named)> = None;
    for (range, named) in names {
        if let (Some((prev_range, Named::Province(pp))), Named::City(cp, _)) = (&last, named)
            && *pp == cp
            && prev_range.end == range.start
            && let Some(hit) = out.last_mut()
        {
            hit.range = folded.bytes(prev_range.start..range.end);
            if let Some(place) = g.place(named) {
                hit.place = place;
            }
            last = None;
            continue;
        }
        if let Some(place) = g.place(named) {
            out.push(PlaceHit {
                range: folded.bytes(range.clone()),
                place,
            });
        }
        last = Some((range, named));
    }
    out
}

/// The place a text names: 广东深圳, 深圳, 广东省深圳市, 发到广东深圳的 → {广东, 深圳}.
pub fn find_place(text: &str) -> Option<Place> {
    let hits = scan_places(text);
    let province = hits.first()?.place.province.clone();
    let city = hits
        .iter()
        .filter(|h| h.place.province == province)
        .find_map(|h| h.place.city.clone());
    Some(Place { province, city })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(province: &str, city: Option<&str>) -> Option<Place> {
        Some(Place {
            province: province.to_string(),
            city: city.map(str::to_string),
        })
    }

    #[test]
    fn english_names_of_places() {
        let found = |text: &str| -> Vec<(String, Option<String>)> {
            scan_places(text)
                .into_iter()
                .map(|h| (h.place.province, h.place.city))
                .collect()
        };
        assert_eq!(
            found("parcels from Guangzhou to Xi'an"),
            vec![
                ("广东".to_string(), Some("广州".to_string())),
                ("陕西".to_string(), Some("西安".to_string()))
            ]
        );
        assert_eq!(found("sales in Hong Kong")[0].0, "香港");
        assert_eq!(
            found("Shaanxi and Shanxi"),
            vec![("陕西".to_string(), None), ("山西".to_string(), None)]
        );
        assert_eq!(
            found("Suzhou")[0].1.as_deref(),
            Some("苏州"),
            "the table's name is sure"
        );
        assert!(found("Taizhou").is_empty(), "泰州 and 台州 share the name");
        assert_eq!(found("Chengdu and Jinan").len(), 2);
        assert!(
            found("xiangyang").iter().all(|(_, c)| c.as_deref() != Some("西安")),
            "whole words only"
        );
        assert!(found("ask Ali").is_empty(), "a short pinyin name is a word of its own");
    }

    #[test]
    fn provinces_and_cities() {
        for text in [
            "广东深圳",
            "深圳",
            "广东省深圳市",
            "发到广东深圳的",
            "深圳市",
            "廣東深圳",
        ] {
            assert_eq!(find_place(text), place("广东", Some("深圳")), "{text}");
        }
        assert_eq!(find_place("广东"), place("广东", None));
        assert_eq!(find_place("北京"), place("北京", Some("北京")));
        assert_eq!(find_place("上海市"), place("上海", Some("上海")));
        assert_eq!(find_place("内蒙古自治区呼和浩特"), place("内蒙古", Some("呼和浩特")));
        assert_eq!(find_place("广西桂林"), place("广西", Some("桂林")));
        assert_eq!(find_place("延边州"), place("吉林", Some("延边")));
        assert_eq!(find_place("吉林省吉林市"), place("吉林", Some("吉林")));
        assert_eq!(find_place("海南"), place("海南", None));
        assert_eq!(find_place("香港"), place("香港", Some("香港")));
        assert_eq!(find_place("苏州和杭州"), place("江苏", Some("苏州")));
        assert_eq!(find_place("没有地名"), None);
        assert_eq!(find_place(""), None);
    }

    #[test]
    fn gazetteer_is_complete() {
        let g = gazetteer();
        assert_eq!(g.provinces.len(), 34);
        let cities: usize = g.provinces.iter().map(|p| p.cities.len()).sum();
        assert!(cities >= 333, "{cities}");
        for capital in [
            "石家庄",
            "太原",
            "沈阳",
            "长春",
            "哈尔滨",
            "南京",
            "杭州",
            "合肥",
            "福州",
            "南昌",
            "济南",
            "郑州",
            "武汉",
            "长沙",
            "广州",
            "海口",
            "成都",
            "贵阳",
            "昆明",
            "西安",
            "兰州",
            "西宁",
            "呼和浩特",
            "南宁",
            "拉萨",
            "银川",
            "乌鲁木齐",
        ] {
            assert!(
                find_place(capital).and_then(|p| p.city).as_deref() == Some(capital),
                "{capital}"
            );
        }
    }

    #[test]
    fn scans_sentences() {
        let text = "查一下订单 ord_123 发到广东深圳的已发货记录，还有杭州的";
        let hits = scan_places(text);
        let got: Vec<&str> = hits.iter().map(|h| &text[h.range.clone()]).collect();
        assert_eq!(got, vec!["广东深圳", "杭州"]);
        assert_eq!(
            hits[1].place,
            Place {
                province: "浙江".into(),
                city: Some("杭州".into())
            }
        );
    }
}
