//! What the language knowledge finds in a question, computed once and shared by every check.

use jiff::civil::Date;
use serde::Serialize;
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::numeral::integer_of;
use wenshu_lexicon::place::{PlaceHit, scan_places};
use wenshu_lexicon::time::{DateRange, TimeSpan, scan_times};
use wenshu_lexicon::timezone::{ZoneHit, scan_time_zones};
use wenshu_lexicon::{Span, SpanValue, boolean, scan};

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
    /// Every time expression, in order.
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
}

impl QuestionFacts {
    /// Reads a question asked on `today`.
    pub fn new(question: &str, today: Date) -> Self {
        Self {
            question: question.to_string(),
            canonical: canonical(question),
            today,
            times: scan_times(question, today),
            spans: scan(question, today),
            places: scan_places(question),
            boolean: boolean::find_bool(question),
            zones: scan_time_zones(question),
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
