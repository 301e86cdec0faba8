//! Property tests: no function panics on any input, and window invariants hold for any day.

use jiff::civil::Date;
use proptest::prelude::*;
use wenshu_lexicon::boolean::{find_bool, parse_bool};
use wenshu_lexicon::canonical::{canonical, strip_name_decorations, to_simplified};
use wenshu_lexicon::numeral::{parse_number, scan_numbers};
use wenshu_lexicon::period::match_period;
use wenshu_lexicon::place::{find_place, scan_places};
use wenshu_lexicon::synonym::{SynonymMatcher, description_labels};
use wenshu_lexicon::time::{parse_date_range, scan_times};

/// Characters the grammars care about, to make random strings hit real code paths.
const ALPHABET: &[char] = &[
    '0', '1', '2', '3', '9', '年', '月', '日', '号', '周', '星', '期', '天', '上', '下', '本', '这', '个', '最', '近',
    '前', '后', '去', '今', '明', '季', '度', '半', '第', '一', '二', '三', '十', '百', '千', '万', '亿', '两', '零',
    '到', '至', '-', '/', '.', '~', 'q', 'Q', 'h', ' ', '_', '以', '来', '初', '底', '点', '分', '的', '不', '是', 'l',
    'a', 's', 't', 'd', 'y', 'o', 'p', '前', '名', '%', ',', '省', '市', '广', '东', '深', '圳', '（', ')',
];

fn today() -> impl Strategy<Value = Date> {
    (1i16..=9999, 1i8..=12, 1i8..=28).prop_map(|(y, m, d)| Date::new(y, m, d).unwrap_or_default())
}

fn grammar_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..40).prop_map(|v| v.into_iter().collect())
}

/// Calls every public text function once; none may panic.
fn exercise(text: &str, today: Date) {
    let _ = parse_number(text);
    let _ = scan_numbers(text);
    if let Ok(r) = parse_date_range(text, today) {
        assert!(r.start <= r.end, "{text}: inverted {r}");
        let _ = match_period(&["本月", "上月", "last_7_days"], &r, today);
    }
    for span in scan_times(text, today) {
        assert!(span.date_range.start <= span.date_range.end, "{text}");
        assert!(
            text.get(span.range.clone()).is_some(),
            "{text}: bad range {:?}",
            span.range
        );
    }
    for span in wenshu_lexicon::scan(text, today) {
        assert!(
            text.get(span.range.clone()).is_some(),
            "{text}: bad range {:?}",
            span.range
        );
    }
    let _ = canonical(text);
    let _ = to_simplified(text);
    let _ = strip_name_decorations(text);
    let _ = parse_bool(text);
    let _ = find_bool(text);
    let _ = find_place(text);
    let _ = scan_places(text);
    let _ = description_labels(text);
    let m = SynonymMatcher::new([("a".to_string(), vec![text.to_string(), "pro".to_string()])]);
    for hit in m.find_all(text) {
        assert!(text.get(hit.range.clone()).is_some());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn nothing_panics_on_unicode(text in any::<String>(), d in today()) {
        exercise(&text, d);
    }

    #[test]
    fn nothing_panics_on_grammar_soup(text in grammar_text(), d in today()) {
        exercise(&text, d);
    }

    #[test]
    fn rolling_days_end_today(d in today(), n in 1u32..400) {
        let r = parse_date_range(&format!("最近{n}天"), d);
        if let Ok(r) = r {
            prop_assert_eq!(r.end, d);
            prop_assert_eq!(r.days(), i64::from(n));
        } else {
            // Only possible at the very start of the calendar.
            prop_assert!(d.year() <= 2);
        }
    }

    #[test]
    fn last_month_is_the_whole_previous_month(d in today()) {
        if let Ok(r) = parse_date_range("上个月", d) {
            prop_assert_eq!(r.start.day(), 1);
            prop_assert_eq!(r.end, r.start.last_of_month());
            prop_assert!(r.end < d.first_of_month());
            prop_assert_eq!(r.end.tomorrow().ok(), Some(d.first_of_month()));
        }
    }

    #[test]
    fn ranges_are_never_inverted(d in today(), text in prop::sample::select(vec![
        "本周", "上周", "本月", "上季度", "去年", "最近一个月", "近三个月", "上两个月", "前两年", "年初至今",
        "3月1日到3月5日", "周一到周三", "12月到1月", "Q3", "上半年", "三天前", "past 3 months", "ytd",
    ])) {
        if let Ok(r) = parse_date_range(text, d) {
            prop_assert!(r.start <= r.end, "{} on {}: {}", text, d, r);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn nothing_panics_on_long_text(chars in prop::collection::vec(any::<char>(), 0..2600), soup in prop::collection::vec(prop::sample::select(ALPHABET), 0..3000), d in today()) {
        let text: String = chars.into_iter().collect();
        prop_assert!(text.len() <= 10_400);
        exercise(&text, d);
        let soup: String = soup.into_iter().collect();
        exercise(&soup, d);
    }
}

#[test]
fn long_inputs_do_not_panic() {
    let d = Date::new(2026, 11, 29).unwrap_or_default();
    let long = "最近7天上个月2026年3月3日前五名三千五".repeat(300);
    assert!(long.len() > 10_000);
    exercise(&long, d);
    exercise(&"一".repeat(5000), d);
    exercise(&"9".repeat(10_000), d);
    exercise(&"亿".repeat(3000), d);
}

#[test]
fn nonsense_gives_errors() {
    let d = Date::new(2026, 11, 29).unwrap_or_default();
    for text in [
        "",
        "   ",
        "🙂🙂",
        "abc",
        "苹果香蕉",
        "2月30日",
        "二月三十日",
        "99999999999999999999999",
        "一亿亿亿亿亿",
    ] {
        assert!(parse_date_range(text, d).is_err(), "{text}");
    }
    for text in ["", "🙂", "abc", "一亿亿亿亿亿", "99999999999999999999999", "2月30日"] {
        assert!(parse_number(text).is_err(), "{text}");
    }
    assert_eq!(parse_bool("🙂"), None);
    assert_eq!(find_place("🙂"), None);
}
