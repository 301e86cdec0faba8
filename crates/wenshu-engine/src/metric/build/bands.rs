//! Bands of each record's value (issue 26, shape 7): 订单金额在1万以下、1万到5万、5万以上的订单数, 按金额区间
//! (1万以下、1万到5万、5万以上) 统计订单数, orders under 1000, 1000 to 5000 and over 5000 by amount — one row per
//! band. The bands come from the question (the lexicon reads the list); bands not said, with a gap, or of a value
//! that has no value per record are refused.

use std::ops::Range;

use wenshu_contract::metric::{Bands, MetricQuery};
use wenshu_lexicon::demand::DemandKind;
use wenshu_lexicon::words::bands::{BAND_WORDS, SaidBand, bounds, said_bands};

use super::folded::Folded;
use super::{Builder, Mention, overlaps};
use wenshu_lexicon::identifiers as english;

/// Words between a measure and the bands of its value (金额在1万以下…, 金额为…).
const GLUE: &[&str] = &[
    "",
    "在",
    "为",
    "是",
    "处于",
    "落在",
    "分别在",
    "分别为",
    "的",
    "in",
    "of",
    "between",
];

impl Builder<'_> {
    /// Rows per band of a measure's value per record, when the question lists bands or names them.
    pub(super) fn bands(&mut self, query: &mut MetricQuery) {
        let said = said_bands(&self.facts.question, &self.facts.spans);
        let named = self.band_word();
        if said.is_empty() && named.is_none() {
            return;
        }
        let Some(first) = said.first() else {
            let word = named.map(|(_, w)| w).unwrap_or_default();
            self.reasons
                .push(format!("「{word}」：要说出区间的边界（如1万以下、1万到5万、5万以上）"));
            return;
        };
        let bounds = match bounds(&said) {
            Ok(bounds) => bounds,
            Err(why) => {
                self.reasons.push(why);
                return;
            }
        };
        let banded = self
            .measure_right_before(first.range.start)
            .or_else(|| named.as_ref().and_then(|(r, _)| self.measure_right_before(r.start)));
        let Some((measure, said_at)) = banded else {
            self.reasons
                .push("区间：不知道是哪个指标的区间（如「金额在1万以下…」）".into());
            return;
        };
        let label = self.measure_label(measure);
        if self.model.measures[measure].expr.single_aggregate().is_none() {
            self.reasons.push(format!("「{label}」没有单条记录的值，不能分区间"));
            return;
        }
        // What is counted per band: the other measures named; the banded one only where it is named elsewhere.
        let elsewhere = self
            .mentions
            .iter()
            .any(|(r, m)| *m == Mention::Measure(measure) && *r != said_at);
        query.measures.retain(|m| m.distinct || m.name != label || elsewhere);
        if query.measures.is_empty() {
            self.reasons
                .push(format!("区间：要说出每个{label}区间统计什么（如订单数）"));
            return;
        }
        self.take_band_words(&said, named.map(|(r, _)| r));
        query.bands = Some(Bands { measure: label, bounds });
    }

    /// The measure named right before `at`, only glue between, with its words' range.
    fn measure_right_before(&self, at: usize) -> Option<(usize, Range<usize>)> {
        let q = &self.facts.question;
        self.mentions.iter().rev().find_map(|(r, m)| match m {
            Mention::Measure(i)
                if r.end <= at
                    && q.get(r.end..at)
                        .is_some_and(|g| GLUE.contains(&g.trim().to_ascii_lowercase().as_str())) =>
            {
                Some((*i, r.clone()))
            }
            _ => None,
        })
    }

    /// A word naming bands (区间, 分段, range), with its range.
    fn band_word(&self) -> Option<(Range<usize>, String)> {
        let folded = Folded::new(&self.facts.question);
        BAND_WORDS.iter().find_map(|w| {
            let found = if w.is_ascii() {
                english::find(&folded.text, w).first().map(|r| folded.original(r))
            } else {
                folded.find(w).into_iter().next()
            }?;
            Some((found, w.to_string()))
        })
    }

    /// The words of the bands and the band word are read; the thresholds and groupings inside them are the bands.
    fn take_band_words(&mut self, said: &[SaidBand], named: Option<Range<usize>>) {
        let mut ranges: Vec<Range<usize>> = said.iter().map(|b| b.range.clone()).collect();
        ranges.extend(named);
        self.take_demands_where(|d| {
            matches!(d.kind, DemandKind::Threshold { .. } | DemandKind::Group { grain: None })
                && ranges.iter().any(|r| overlaps(r, &d.range))
        });
        self.read.extend(ranges);
    }
}
