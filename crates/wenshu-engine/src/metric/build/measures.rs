//! The measures a question names: by their words, by a unit after 多少 (多少套), by a count's target, and the
//! distinct counts of a dimension (几位销售, 多少个客户).

use std::ops::Range;

use wenshu_contract::metric::{MeasureSel, MetricModel, MetricQuery};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{Aggregate, DemandKind};
use wenshu_lexicon::identifiers as english;
use wenshu_lexicon::words::money::{CURRENCY_UNITS, MONEY_WORDS};

use super::{Builder, HOW_MANY, Mention, overlaps};

impl Builder<'_> {
    /// Measures named by their words, by a unit after 多少 (多少套), or by a count's target (多少单).
    pub(super) fn measures(&mut self, query: &mut MetricQuery) {
        let mut picked: Vec<usize> = Vec::new();
        for (_, m) in &self.mentions {
            if let Mention::Measure(i) = m
                && !picked.contains(i)
            {
                picked.push(*i);
            }
        }
        if picked.is_empty() {
            // The words of a distinct count (多少个销售) ask for no measure counted in their classifier.
            let mut blanked = self.facts.question.clone();
            for (_, r) in &self.distinct {
                if let Some(words) = blanked.get(r.clone()) {
                    let spaces = " ".repeat(words.len());
                    blanked.replace_range(r.clone(), &spaces);
                }
            }
            let text = canonical(&blanked);
            for (i, m) in self.model.measures.iter().enumerate() {
                let Some(unit) = m.unit.as_deref().map(canonical) else {
                    continue;
                };
                let asked = unit_asked(&text, &unit);
                let counted = self.demands.iter().any(|d| {
                    matches!(d.kind, DemandKind::Aggregate { of: Aggregate::Count })
                        && !self.distinct.iter().any(|(_, r)| overlaps(r, &d.range))
                        && d.target.as_deref().is_some_and(|t| canonical(t) == unit)
                });
                let ranked = self
                    .demands
                    .iter()
                    .any(|d| d.measure.as_deref().is_some_and(|t| canonical(t) == unit));
                if (asked || counted || ranked) && !picked.contains(&i) {
                    picked.push(i);
                }
            }
        } else {
            // 每个订单平均卖几套: a unit asked for names its measure beside the others named.
            let text = canonical(&self.facts.question);
            for (i, m) in self.model.measures.iter().enumerate() {
                let asked = m
                    .unit
                    .as_deref()
                    .map(canonical)
                    .is_some_and(|unit| unit_asked(&text, &unit));
                if asked && !picked.contains(&i) {
                    picked.push(i);
                }
            }
        }
        if picked.is_empty() && asks_money(&self.facts.canonical) {
            // 卖了多少钱, how much money: the one total in a currency.
            let totals: Vec<usize> = (0..self.model.measures.len())
                .filter(|&i| {
                    let m = &self.model.measures[i];
                    is_sum(&m.expr) && m.unit.as_deref().is_some_and(is_currency)
                })
                .collect();
            if let [only] = totals[..] {
                picked.push(only);
            }
        }
        if picked.is_empty() && self.distinct.is_empty() && !self.about.is_empty() {
            // `sales by region`: the tool's subject without a measure of it — every measure of the model.
            picked = (0..self.model.measures.len()).collect();
        }
        query.measures = picked
            .into_iter()
            .map(|i| MeasureSel::named(self.measure_label(i)))
            .collect();
        for (dim, _) in &self.distinct {
            let sel = MeasureSel::distinct(self.model.dimensions[*dim].label.clone());
            if !query.measures.contains(&sel) {
                query.measures.push(sel);
            }
        }
    }

    /// Counts of a dimension's things (多少个销售员, 几位销售, how many sales people: the distinct values of its key,
    /// never the row count) and of people (多少人, 几位 with nothing after: the one dimension of people; refused
    /// naming the dimensions when there is none or more than one).
    pub(super) fn distinct_counts(&mut self) {
        let q = &self.facts.question;
        for (r, m) in &self.mentions {
            let Mention::Dimension(dim) = m else { continue };
            if let Some(start) = how_many_before(q, r.start) {
                self.distinct.push((*dim, start..r.end));
            }
        }
        // 多少人 / 几个人 / 几位 / how many people: people, unless a measure counts them (评价人数, unit 人).
        let counted_by_measure = self
            .model
            .measures
            .iter()
            .any(|m| m.unit.as_deref().is_some_and(|u| canonical(u) == "人"));
        if counted_by_measure {
            return;
        }
        let Some(words) = people_count(q).filter(|w| !self.distinct.iter().any(|(_, r)| overlaps(r, w))) else {
            return;
        };
        let people: Vec<usize> = (0..self.model.dimensions.len())
            .filter(|&d| is_people(&self.model.dimensions[d]))
            .collect();
        let said = q.get(words.clone()).unwrap_or_default().to_string();
        let labels = |dims: &mut dyn Iterator<Item = usize>| -> String {
            dims.map(|d| self.model.dimensions[d].label.as_str())
                .collect::<Vec<_>>()
                .join("、")
        };
        match people.as_slice() {
            [one] => self.distinct.push((*one, words)),
            [] => {
                let all = labels(&mut (0..self.model.dimensions.len()));
                self.reasons.push(format!(
                    "「{said}」：数据里没有人员维度，数不了人数（可按：{}）",
                    if all.is_empty() { "无".to_string() } else { all }
                ));
            }
            many => {
                let names = labels(&mut many.iter().copied());
                self.reasons
                    .push(format!("「{said}」：数的是哪一种人？（可选：{names}）"));
            }
        }
    }

    /// The measure a demand's measure words name (销量 of 销量最高, 日销售额 ⊇ 销售额, 单 = a unit).
    /// Whether a selected measure is taken as it is and adds up over rows (a plain sum or count): what running
    /// totals and a mean per person may take.
    pub(super) fn adds_up(&self, m: &MeasureSel) -> bool {
        !m.distinct
            && m.aggregate.is_none()
            && m.per.is_none()
            && m.over.is_none()
            && m.divided_by.is_none()
            && m.minus.is_none()
            && self
                .model
                .measure_index(&m.name)
                .is_some_and(|i| self.model.measures[i].expr.adds_up())
    }

    pub(super) fn measure_of(&self, words: &str) -> Option<usize> {
        let words = canonical(words);
        let named = self.model.measures.iter().position(|m| {
            std::iter::once(&m.label)
                .chain(&m.synonyms)
                .any(|w| words.contains(&canonical(w)))
        });
        named
            .or_else(|| {
                self.model
                    .measures
                    .iter()
                    .position(|m| m.unit.as_deref().is_some_and(|u| canonical(u) == words))
            })
            .or_else(|| self.model.measures.iter().position(|m| english::names(&words, &m.name)))
    }

    pub(super) fn measure_label(&self, index: usize) -> String {
        self.model.measures[index].label.clone()
    }
}

/// Whether `text` (canonical) asks how many of `unit` (多少套, 几单).
fn unit_asked(text: &str, unit: &str) -> bool {
    HOW_MANY.iter().any(|w| text.contains(&format!("{w}{unit}")))
}

/// Classifiers between 多少/几 and the thing counted (多少个销售, 几位客户, 几家承运商): general Chinese.
const CLASSIFIERS: &[char] = &[
    '个', '位', '名', '家', '户', '种', '款', '类', '只', '部', '条', '辆', '所',
];

/// Where the words asking "how many" end right before `at` begin (多少个 of 多少个销售员, how many of how many
/// sales people), if they do.
fn how_many_before(q: &str, at: usize) -> Option<usize> {
    let before = q.get(..at)?.trim_end();
    let bare = before
        .strip_suffix(|c: char| CLASSIFIERS.contains(&c))
        .unwrap_or(before);
    for word in ["多少", "几"] {
        if let Some(head) = bare.strip_suffix(word) {
            return Some(head.len());
        }
    }
    let lower = before.to_ascii_lowercase();
    lower
        .strip_suffix("how many")
        .filter(|head| head.is_empty() || head.ends_with(|c: char| !c.is_ascii_alphanumeric()))
        .map(str::len)
}

/// The words of a count of people (多少人, 几个人, how many people): general language.
fn people_count(q: &str) -> Option<Range<usize>> {
    for (at, _) in q.char_indices() {
        let rest = &q[at..];
        let Some(ask) = ["多少", "几"].iter().find(|w| rest.starts_with(**w)) else {
            continue;
        };
        let after = &rest[ask.len()..];
        let classifier = after.chars().next().filter(|c| ['个', '位', '名'].contains(c));
        let after_classifier = classifier.map_or(after, |c| &after[c.len_utf8()..]);
        if after_classifier.starts_with('人') {
            return Some(at..at + (rest.len() - after_classifier.len()) + '人'.len_utf8());
        }
    }
    let lower = q.to_ascii_lowercase();
    lower.find("how many people").map(|at| at..at + "how many people".len())
}

/// Whether a dimension's things are people: a word of it ends in a general word for a person (销售员, 客户, 司机
/// — 员, 户, 人, 者, 师, 客, 工, 手, 机 are general Chinese), or its code names people (sales_person, customer_id).
pub(super) fn is_people(dim: &wenshu_contract::metric::Dimension) -> bool {
    const PEOPLE_ENDS: &[char] = &['人', '员', '者', '师', '客', '户', '工', '手', '生', '友'];
    const PEOPLE_EN: &[&str] = &[
        "person", "people", "staff", "employee", "customer", "client", "user", "member", "agent", "rep", "driver",
        "courier", "seller", "buyer", "owner", "manager", "worker", "student", "teacher", "patient", "doctor",
    ];
    std::iter::once(&dim.label)
        .chain(&dim.synonyms)
        .any(|w| w.trim().ends_with(PEOPLE_ENDS))
        || dim
            .name
            .to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| PEOPLE_EN.contains(&w) || PEOPLE_EN.iter().any(|p| w.strip_suffix('s') == Some(p)))
}

/// Whether a question may count the things of a dimension (多少 or 几 with a dimension's word or 人, how many):
/// it names no measure, and is built to see.
pub(super) fn counts_things(model: &MetricModel, text: &str) -> bool {
    let asks = text.contains("多少") || text.contains('几') || text.to_ascii_lowercase().contains("how many");
    asks && (text.contains('人')
        || text.to_ascii_lowercase().contains("people")
        || model.dimensions.iter().any(|d| {
            std::iter::once(&d.label)
                .chain(&d.synonyms)
                .any(|w| text.contains(&canonical(w)))
                || !english::find(text, &d.name).is_empty()
        }))
}

/// Whether a canonical question asks for an amount of money.
pub(super) fn asks_money(text: &str) -> bool {
    MONEY_WORDS.iter().any(|w| text.contains(w))
}

/// Whether a measure's unit is money.
pub(super) fn is_currency(unit: &str) -> bool {
    CURRENCY_UNITS.contains(&canonical(unit).as_str())
}

/// Whether a measure is a mean itself (`AVG(amount)`, 客单价).
pub(super) fn is_avg(expr: &wenshu_contract::metric::MetricExpr) -> bool {
    matches!(expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "avg")
}

/// Whether a measure is a sum (`SUM(amount)`).
fn is_sum(expr: &wenshu_contract::metric::MetricExpr) -> bool {
    matches!(expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "sum")
}

/// Whether a measure is a count (`COUNT(*)`, `COUNT(order_id)`).
pub(super) fn is_count(expr: &wenshu_contract::metric::MetricExpr) -> bool {
    matches!(expr, wenshu_contract::metric::MetricExpr::Call { name, .. } if name == "count")
}
