//! Language knowledge for wenshu: the deterministic rules that turn what people type into canonical values.
//!
//! No IO happens in this crate; every function is pure and takes "today" where it needs it
//! (only [`time::today_in`] reads the clock, to compute today in a time zone).
//!
//! - [`numeral`]: Chinese and Arabic numerals (三千五, 1.5万, 前十名, top 5).
//! - [`time`]: time expressions → closed date ranges (上个月, 最近7天, Q3 2025).
//! - [`period`]: a date range → the period enum value denoting it (本月, last_quarter).
//! - [`compare`]: comparison periods of a range (同比 → a year earlier, 环比 → the period before).
//! - [`canonical`]: width, case and traditional → simplified folding; name decorations.
//! - [`surname`]: the shape of Chinese personal names (a common surname and one or two characters).
//! - [`synonym`]: enum values and synonyms inside sentences; `value(label)` lists.
//! - [`place`]: provinces and prefecture-level cities.
//! - [`statistics`]: names of statistics beyond sums and means (中位数, 方差, median), so none is read as a sum.
//! - [`boolean`]: yes/no words.
//! - [`filler`]: words that restrict nothing (帮我, 是多少, 谢谢, please); what is left of a question is unread.
//! - [`english`]: English words of a sentence, inflections, identifiers spelled as words (`good_rate`);
//!   [`identifiers`]: a data model's identifiers as English words of a question (sales person, salespeople).
//! - [`sentence`]: a sentence as folded characters with a mask of what is already explained.
//! - [`words`]: closed word lists, one kind per module ([`words::cues`]: function words, references,
//!   follow-up connectors, aggregate cues, ID-like tokens).
//! - [`bilingual`]: a small general English → Chinese vocabulary (delayed → 超时, on-time → 准时).
//! - [`demand`]: what a question asks for beyond filter values (各X, 前N, 环比, 占比, 超过N, 明细).
//! - [`timezone`]: places that name a time zone (东京 → Asia/Tokyo).
//! - [`scan`]: numerals and time expressions of a sentence together.
//! - [`memo`]: a small bounded per-thread memo (the facts of recent questions, recent period values).

pub mod bilingual;
pub mod boolean;
pub mod canonical;
pub mod column_words;
pub mod compare;
pub mod demand;
pub mod english;
pub mod filler;
pub mod grain;
pub mod identifiers;
pub mod memo;
pub mod numeral;
pub mod period;
pub mod place;
pub mod sentence;
pub mod statistics;
pub mod surname;
pub mod synonym;
mod text;
pub mod time;
pub mod timezone;
pub mod words;

pub use grain::Grain;

use std::ops::Range;

use jiff::civil::Date;
use serde::Serialize;
use serde::ser::SerializeStruct;

use numeral::{NumeralKind, integer_of};
use time::{DateRange, TimeKind};

/// What a span of a sentence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// A numeral, with what it counts.
    Number(NumeralKind),
    /// A time expression, with its shape.
    Time(TimeKind),
}

/// The value of a span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpanValue {
    /// A number.
    Number(f64),
    /// A closed date range.
    Dates(DateRange),
}

/// A numeral or time expression found in a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// What it is.
    pub kind: SpanKind,
    /// Byte range in the original text.
    pub range: Range<usize>,
    /// The text of the span.
    pub text: String,
    /// Its value.
    pub value: SpanValue,
}

impl Serialize for SpanValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SpanValue::Number(v) => match integer_of(*v) {
                Some(i) => serializer.serialize_i64(i),
                None => serializer.serialize_f64(*v),
            },
            SpanValue::Dates(r) => r.serialize(serializer),
        }
    }
}

/// Serializes as `{"kind":"number"|"time","form":…,"start":…,"end":…,"text":…,"value":…}`.
impl Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Span", 6)?;
        match &self.kind {
            SpanKind::Number(k) => {
                s.serialize_field("kind", "number")?;
                s.serialize_field("form", k)?;
            }
            SpanKind::Time(k) => {
                s.serialize_field("kind", "time")?;
                s.serialize_field("form", k)?;
            }
        }
        s.serialize_field("start", &self.range.start)?;
        s.serialize_field("end", &self.range.end)?;
        s.serialize_field("text", &self.text)?;
        s.serialize_field("value", &self.value)?;
        s.end()
    }
}

/// Every numeral and time expression in a sentence, sorted by position; a numeral inside a time
/// expression (the 7 of 最近7天) is not reported on its own.
pub fn scan(text: &str, today: Date) -> Vec<Span> {
    let folded = text::Folded::expression(text);
    let times = time::scan_chars(&folded.chars, today);
    let taken: Vec<Range<usize>> = times.iter().map(|(r, _, _)| r.clone()).collect();
    let slice = |range: &Range<usize>| text.get(range.clone()).unwrap_or_default().to_string();
    let mut spans: Vec<Span> = times
        .into_iter()
        .map(|(chars, dates, kind)| {
            let range = folded.bytes(chars);
            Span {
                kind: SpanKind::Time(kind),
                text: slice(&range),
                range,
                value: SpanValue::Dates(dates),
            }
        })
        .collect();
    spans.extend(numeral::scan_folded(&folded, &taken).into_iter().map(|n| Span {
        kind: SpanKind::Number(n.kind),
        text: slice(&n.range),
        range: n.range,
        value: SpanValue::Number(n.value),
    }));
    spans.sort_by_key(|s| s.range.start);
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn numerals_inside_times_are_not_repeated() {
        let text = "华东区上个季度企业版销售额排名前五的销售是谁，和去年同期比如何";
        let spans = scan(text, date(2026, 11, 29));
        let got: Vec<(&str, SpanKind)> = spans.iter().map(|s| (s.text.as_str(), s.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("上个季度", SpanKind::Time(TimeKind::Quarter)),
                ("前五", SpanKind::Number(NumeralKind::TopN)),
                ("去年", SpanKind::Time(TimeKind::Year)),
            ]
        );
        let spans = scan("最近7天卖了3,000件, 2026年的", date(2026, 11, 29));
        let texts: Vec<&str> = spans.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, vec!["最近7天", "3,000件", "2026年"]);
    }

    #[test]
    fn spans_serialize() {
        let spans = scan("近3天前五", date(2026, 11, 29));
        let json = serde_json::to_string(&spans).unwrap_or_default();
        assert_eq!(
            json,
            r#"[{"kind":"time","form":"rolling","start":0,"end":7,"text":"近3天","value":{"start":"2026-11-27","end":"2026-11-29"}},{"kind":"number","form":"top_n","start":7,"end":13,"text":"前五","value":5}]"#
        );
    }
}
