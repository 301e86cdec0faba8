//! The measures of a catalog's metric models that a question names (客单价, 平均订单金额), for coverage: a call
//! whose declared answer shows none of a named measure's words does not answer it, however well it meets the
//! question's groupings and rankings.

use wenshu_contract::Catalog;
use wenshu_lexicon::canonical::canonical;

use super::Unmet;
use super::message::unmet;
use crate::offer::Offer;

/// A measure word found in the question: the word as written and every word of its measure.
struct Named {
    at: std::ops::Range<usize>,
    word: String,
    words: Vec<String>,
}

/// The measure words of `catalog`'s metric models in `question`, longest first and not overlapping.
fn named_measures(catalog: &Catalog, question: &str) -> Vec<Named> {
    let text = canonical(question);
    let mut found: Vec<Named> = Vec::new();
    for tool in catalog.tools() {
        let Some(model) = tool.extensions().metrics.as_deref() else {
            continue;
        };
        for m in &model.measures {
            let words: Vec<String> = std::iter::once(&m.label)
                .chain(&m.synonyms)
                .map(|w| canonical(w))
                .collect();
            for w in words.iter().filter(|w| w.chars().count() >= 2) {
                for (at, _) in text.match_indices(w.as_str()) {
                    found.push(Named {
                        at: at..at + w.len(),
                        word: w.clone(),
                        words: words.clone(),
                    });
                }
            }
        }
    }
    found.sort_by(|a, b| b.at.len().cmp(&a.at.len()).then(a.at.start.cmp(&b.at.start)));
    let mut kept: Vec<Named> = Vec::new();
    for n in found {
        if kept.iter().all(|k| n.at.end <= k.at.start || k.at.end <= n.at.start) {
            kept.push(n);
        }
    }
    kept
}

/// The measures `question` names that `offer` does not show (none of the measure's words is one of the offer's
/// measure words). Only a declared answer is judged: an offer of no measures says nothing, and a metric call's
/// measures are the question's own.
pub fn unshown_measures(catalog: &Catalog, offer: &Offer, question: &str) -> Vec<Unmet> {
    if offer.measures.is_empty() || offer.source == "x-metrics" {
        return Vec::new();
    }
    let shown: Vec<String> = offer.measures.iter().map(|w| canonical(w)).collect();
    let mut out: Vec<Unmet> = Vec::new();
    for n in named_measures(catalog, question) {
        if n.words.iter().any(|w| shown.contains(w)) || out.iter().any(|u| u.words == n.word) {
            continue;
        }
        out.push(unmet(
            &n.word,
            format!("不能给出{}", n.word),
            format!("cannot give {}", n.word),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalog of another domain: a metric tool of clinic visits and a plain tool showing only the visit count.
    fn catalog() -> Catalog {
        let tools = serde_json::json!([
            {"name": "visit_metrics", "description": "门诊指标",
             "inputSchema": {"type": "object", "properties": {}},
             "x-metrics": {
                "from": [{"table": "visits", "columns": ["id", "day", "fee", "wait"]}],
                "measures": [
                    {"name": "visits", "label": "门诊量", "synonyms": ["就诊人次"], "expr": "COUNT(*)", "unit": "人次"},
                    {"name": "fee", "label": "诊费", "synonyms": ["费用"], "expr": "SUM(fee)", "unit": "元"},
                    {"name": "wait", "label": "平均候诊时长", "synonyms": ["候诊时长"], "expr": "AVG(wait)"}
                ],
                "dimensions": []
             }}
        ]);
        Catalog::from_value(&tools).expect("the test catalog loads")
    }

    fn offer(measures: &[&str], source: &'static str) -> Offer {
        let mut offer = Offer::unknown(source);
        offer.measures = measures.iter().map(|m| m.to_string()).collect();
        offer
    }

    #[test]
    fn a_measure_the_offer_does_not_show_is_unmet() {
        let unmet = unshown_measures(
            &catalog(),
            &offer(&["门诊量", "诊费"], "x-answers"),
            "各科室上月的平均候诊时长",
        );
        assert_eq!(unmet.len(), 1, "{unmet:?}");
        assert_eq!(unmet[0].words, "平均候诊时长");
    }

    #[test]
    fn a_measure_shown_by_another_of_its_words_is_met() {
        let shown = offer(&["门诊量", "诊费"], "x-answers");
        assert!(unshown_measures(&catalog(), &shown, "上月各科室的就诊人次").is_empty());
        assert!(unshown_measures(&catalog(), &shown, "上月的费用").is_empty());
    }

    #[test]
    fn an_offer_without_measures_or_of_a_metric_call_is_not_judged() {
        assert!(unshown_measures(&catalog(), &offer(&[], "x-answers"), "平均候诊时长").is_empty());
        assert!(unshown_measures(&catalog(), &offer(&["门诊量"], "x-metrics"), "平均候诊时长").is_empty());
    }
}
