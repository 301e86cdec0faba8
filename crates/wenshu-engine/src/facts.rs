//! What the language knowledge finds in a question, computed once and shared by every check.

use std::cell::RefCell;
use std::sync::Arc;

use jiff::civil::Date;
use serde::Serialize;
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{Demand, demands};
use wenshu_lexicon::memo::{Recent, recall};
use wenshu_lexicon::numeral::integer_of;
use wenshu_lexicon::place::{PlaceHit, scan_places};
use wenshu_lexicon::statistics::{StatisticWord, statistic_words};
use wenshu_lexicon::time::{DateRange, TimeSpan};
use wenshu_lexicon::timezone::{ZoneHit, scan_time_zones};
use wenshu_lexicon::{Span, SpanKind, SpanValue, boolean, scan};

/// How many recently read questions each thread remembers.
const RECENT_QUESTIONS: usize = 4;

thread_local! {
    /// The facts of the questions most recently read on this thread, by question and day.
    static RECENT: RefCell<Recent<(String, Date), Arc<QuestionFacts>>> =
        const { RefCell::new(Recent::new(RECENT_QUESTIONS)) };
}

/// The facts of one question: its canonical text, time expressions, numerals, places and yes/no words.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionFacts {
    /// The question as asked.
    pub question: String,
    /// The question in canonical form (width, case, script folded), for containment checks.
    pub canonical: String,
    /// The day the question is asked.
    #[serde(serialize_with = "iso_date")]
    pub today: Date,
    /// Every time expression, in order (the time spans of `spans`).
    #[serde(skip)]
    pub times: Vec<TimeSpan>,
    /// Every numeral and time expression, in order (numerals inside times are not repeated).
    pub spans: Vec<Span>,
    /// Every place named.
    pub places: Vec<PlaceHit>,
    /// A yes/no the question states, if any.
    pub boolean: Option<bool>,
    /// Time zones named by the places of the question (东京 → Asia/Tokyo).
    pub zones: Vec<ZoneHit>,
    /// Every demand of the question, in order ([`wenshu_lexicon::demand::demands`] of its spans).
    #[serde(skip)]
    pub demands: Vec<Demand>,
    /// Every statistic beyond sums and means the question names (中位数, 方差, median).
    #[serde(skip)]
    pub statistics: Vec<StatisticWord>,
}

impl QuestionFacts {
    /// Reads a question asked on `today` (the last few questions read on this thread are remembered, so the
    /// stages of one plan that each ask for the facts read the question once).
    pub fn new(question: &str, today: Date) -> Self {
        Self::shared(question, today).as_ref().clone()
    }

    /// Like [`QuestionFacts::new`], without copying the remembered facts.
    pub fn shared(question: &str, today: Date) -> Arc<Self> {
        recall(
            &RECENT,
            |(q, day)| *day == today && q == question,
            || ((question.to_string(), today), Arc::new(Self::read(question, today))),
        )
    }

    /// Reads a question asked on `today`, without the memo.
    fn read(question: &str, today: Date) -> Self {
        let spans = scan(question, today);
        let times = spans
            .iter()
            .filter_map(|span| match (span.kind, span.value) {
                (SpanKind::Time(kind), SpanValue::Dates(date_range)) => Some(TimeSpan {
                    range: span.range.clone(),
                    date_range,
                    kind,
                }),
                _ => None,
            })
            .collect();
        let demands = demands(question, &spans);
        Self {
            question: question.to_string(),
            canonical: canonical(question),
            today,
            times,
            spans,
            places: scan_places(question),
            boolean: boolean::find_bool(question),
            zones: scan_time_zones(question),
            demands,
            statistics: statistic_words(question),
        }
    }

    /// The numbers the question states (numerals outside time expressions).
    pub fn numbers(&self) -> impl Iterator<Item = f64> + '_ {
        self.spans.iter().filter_map(|span| match span.value {
            SpanValue::Number(n) => Some(n),
            SpanValue::Dates(_) => None,
        })
    }

    /// Whether the question states this integer.
    pub fn states_integer(&self, value: i64) -> bool {
        self.numbers().any(|n| integer_of(n) == Some(value))
    }

    /// Whether the question states this number.
    pub fn states_number(&self, value: f64) -> bool {
        self.numbers().any(|n| (n - value).abs() < 1e-9)
    }

    /// The first time expression's range and text, if the question has one.
    pub fn first_time(&self) -> Option<(DateRange, &str)> {
        self.times
            .first()
            .map(|t| (t.date_range, self.question.get(t.range.clone()).unwrap_or_default()))
    }

    /// Whether some time expression starts or ends on this ISO date.
    pub fn states_date(&self, iso: &str) -> bool {
        self.times
            .iter()
            .any(|t| t.date_range.start.to_string() == iso || t.date_range.end.to_string() == iso)
    }

    /// Whether the canonical question contains the canonical form of `text`.
    pub fn contains(&self, text: &str) -> bool {
        let needle = canonical(text);
        !needle.is_empty() && self.canonical.contains(&needle)
    }
}

fn iso_date<S: serde::Serializer>(date: &Date, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(date)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;
    use wenshu_lexicon::time::scan_times;

    #[test]
    fn the_time_spans_are_those_the_time_scanner_finds() {
        for question in [
            "上季度企业版的销售排名前五",
            "《流浪地球2》最近7天的每日票房",
            "從3月1日到3月5日，去年同期呢",
            "华东区",
        ] {
            let facts = QuestionFacts::new(question, date(2026, 11, 29));
            assert_eq!(facts.times, scan_times(question, date(2026, 11, 29)), "{question}");
        }
    }

    #[test]
    fn the_demands_are_those_the_demand_scanner_finds_and_each_question_keeps_its_own() {
        let today = date(2026, 11, 29);
        for question in [
            "各地区上季度的销售额",
            "销量最高的三个产品",
            "华东区",
            "各地区上季度的销售额",
        ] {
            let facts = QuestionFacts::shared(question, today);
            assert_eq!(
                facts.demands,
                wenshu_lexicon::demand::demands_of(question, today),
                "{question}"
            );
            assert_eq!(facts.question, question);
        }
    }
}
