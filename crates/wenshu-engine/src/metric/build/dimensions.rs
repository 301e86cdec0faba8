//! The dimensions a question names: filters by their values, groups (按X, 各X, 每个X), lists of values, and a
//! dimension named but not used (reported, never dropped).

use wenshu_contract::metric::{Filter, MetricQuery};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::demand::{Aggregate, Demand, DemandKind};
use wenshu_lexicon::identifiers as english;

use super::{Builder, Mention, overlaps};
use wenshu_lexicon::words::days;

impl Builder<'_> {
    /// Values named become filters; two or more values of one dimension are shown side by side.
    pub(super) fn filters(&mut self, query: &mut MetricQuery) {
        for (_, m) in &self.mentions {
            let Mention::Value(v) = m else { continue };
            let label = self.model.dimensions[v.dimension].label.clone();
            if v.value.ambiguous {
                self.reasons
                    .push(format!("「{}」是多个{label}的名字，请说明是哪一个", v.value.text));
                continue;
            }
            match query.filters.iter_mut().find(|f| f.dimension == label) {
                Some(f) if !f.values.contains(&v.value.text) => f.values.push(v.value.text.clone()),
                Some(_) => {}
                None => query.filters.push(Filter {
                    dimension: label,
                    values: vec![v.value.text.clone()],
                }),
            }
        }
        for f in &query.filters {
            if f.values.len() > 1 && !query.group_by.contains(&f.dimension) {
                query.group_by.push(f.dimension.clone());
            }
        }
        for place in &self.facts.places {
            let covered = self
                .mentions
                .iter()
                .any(|(r, m)| matches!(m, Mention::Value(_)) && overlaps(r, &place.range));
            if !covered {
                let text = self.facts.question.get(place.range.clone()).unwrap_or_default();
                self.reasons.push(format!("「{text}」不是任何维度的值"));
            }
        }
    }

    /// Groupings by a dimension (各产品, 哪个地区) or by a time grain (每月, 哪几天).
    pub(super) fn groups(&mut self, query: &mut MetricQuery) {
        let groups: Vec<Demand> = self
            .demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::Group { .. }))
            .cloned()
            .collect();
        let averaged = self
            .demands
            .iter()
            .any(|d| matches!(d.kind, DemandKind::Aggregate { of: Aggregate::Average }));
        for d in groups {
            if let Some(grain) = d.grain() {
                if averaged && query.measures.iter().all(|m| m.per.is_none()) {
                    for m in &mut query.measures {
                        m.per = Some(grain);
                    }
                } else {
                    query.grain = Some(grain);
                }
                continue;
            }
            let Some(target) = self.demand_target(&d) else { continue };
            let target = target.as_str();
            // 按星期几: the days step groups by the day of the week.
            if days::asks_weekday(target) {
                continue;
            }
            match self.grouping_dimension(target) {
                Some(dim) => {
                    self.group_by(query, dim);
                }
                None if self.is_measure_word(target) => {}
                None => self.reasons.push(format!("不能按「{target}」分组")),
            }
        }
    }

    /// Groups `query` by the dimension `dim` unless it is grouped by it already; the dimension's label.
    pub(super) fn group_by(&self, query: &mut MetricQuery, dim: usize) -> String {
        let label = self.model.dimensions[dim].label.clone();
        if !query
            .group_by
            .iter()
            .any(|g| self.model.dimension_index(g) == Some(dim))
        {
            query.group_by.push(label.clone());
        }
        label
    }

    /// The dimension a grouping's or an order's target names; a measure's word that only starts like a dimension
    /// (销售额 beside 销售) names the measure.
    pub(super) fn grouping_dimension(&self, target: &str) -> Option<usize> {
        let dim = self.dimension_of(target)?;
        let d = &self.model.dimensions[dim];
        let folded = canonical(target);
        let exact = english::names(&folded, &d.name)
            || std::iter::once(&d.label)
                .chain(&d.synonyms)
                .any(|w| canonical(w) == folded);
        // 各产线收入: the dimension's word, then a measure's (not 销售额, a measure's word that starts like 销售).
        let then_measure = std::iter::once(&d.label).chain(&d.synonyms).any(|w| {
            folded.strip_prefix(canonical(w).as_str()).is_some_and(|rest| {
                !rest.is_empty()
                    && self.model.measures.iter().any(|m| {
                        std::iter::once(&m.label)
                            .chain(&m.synonyms)
                            .any(|l| rest.starts_with(canonical(l).as_str()))
                    })
            })
        });
        (exact || then_measure || !self.is_measure_word(target)).then_some(dim)
    }

    /// A demand's target, with the English words after it while they and it name one dimension whole: `by ship
    /// country` reads `ship`, which starts several names (ship region, shipper); `ship country` names one.
    pub(super) fn demand_target(&self, d: &Demand) -> Option<String> {
        let target = d.target.clone()?;
        if !target.is_ascii() {
            return Some(target);
        }
        let question = &self.facts.question;
        // Where the target ends: its words as written, from where the demand starts.
        let from = d.range.start.min(question.len());
        let Some(at) = question.get(from..).and_then(|q| q.find(target.as_str())) else {
            return Some(target);
        };
        let rest = question.get(from + at + target.len()..).unwrap_or_default();
        let mut longest = None;
        let mut words = target.clone();
        for word in rest.split_whitespace().take(3) {
            let word = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
            if word.is_empty() || !word.chars().all(|c| c.is_ascii_alphanumeric()) {
                break;
            }
            words = format!("{words} {word}");
            if self.names_one_dimension(&words) {
                longest = Some(words.clone());
            }
        }
        Some(longest.unwrap_or(target))
    }

    /// Whether `words` name exactly one dimension whole: its identifier's words (any plural) or one of its
    /// spellings.
    fn names_one_dimension(&self, words: &str) -> bool {
        let folded = canonical(words);
        let named = self.model.dimensions.iter().filter(|d| {
            english::names(&folded, &d.name)
                || std::iter::once(&d.label)
                    .chain(&d.synonyms)
                    .any(|w| canonical(w) == folded)
        });
        named.count() == 1
    }

    /// The dimension a demand's target names (by prefix either way, as the demands advise).
    pub(super) fn dimension_of(&self, target: &str) -> Option<usize> {
        let target = canonical(target);
        self.model.dimensions.iter().position(|d| {
            english::names(&target, &d.name)
                || std::iter::once(&d.label).chain(&d.synonyms).any(|w| {
                    let w = canonical(w);
                    !w.is_empty() && (target.starts_with(&w) || w.starts_with(&target))
                })
        })
    }

    pub(super) fn is_measure_word(&self, words: &str) -> bool {
        self.measure_of(words).is_some()
    }

    /// Rows asked for (明细, 有哪些): the values of a dimension when the words before name one (超过9分的电影有哪些
    /// is a grouping by 影片), else records, which a metric does not give.
    pub(super) fn listed(&mut self, query: &mut MetricQuery) {
        let lists: Vec<Demand> = self
            .demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::List))
            .cloned()
            .collect();
        for d in lists {
            match d.measure.as_deref().and_then(|t| self.dimension_of(t)) {
                Some(dim) => {
                    self.group_by(query, dim);
                }
                None => {
                    self.reasons.push("指标只给汇总，不列明细".into());
                    return;
                }
            }
        }
    }

    /// A dimension named together with another (销售额前三的产品和地区) that the query neither groups by nor filters
    /// on is unmet (a dimension naming the population — 所有电影 — is not); so is a mean over the values of a dimension (平均每个销售的业绩: the mean of their
    /// totals, which the model does not compute).
    pub(super) fn unused_dimensions(&mut self, query: &MetricQuery) {
        for (range, m) in &self.mentions {
            let Mention::Dimension(dim) = m else { continue };
            let label = &self.model.dimensions[*dim].label;
            let used = query.group_by.contains(label)
                || query.filters.iter().any(|f| &f.dimension == label)
                || self.distinct.iter().any(|(d, _)| d == dim);
            let joined = self
                .demands
                .iter()
                .any(|d| d.kind == DemandKind::Joined && (d.range.end == range.start || d.range.start == range.end));
            // Named anywhere else and used nowhere (各地区销量超过500的产品 read without 产品): never ignored, unless
            // it names the whole population (所有产品, 全部销售, all products).
            let q = &self.facts.question;
            let population = q.get(..range.start).is_some_and(|b| {
                let b = b.trim_end().to_ascii_lowercase();
                ["所有", "全部", "全体", "所有的", "全部的", "all", "all the", "every"]
                    .iter()
                    .any(|w| b.ends_with(w))
            });
            // 各类型电影, 科幻电影: right after a value or a dimension the query uses, it names what those are of.
            let of_what = self.mentions.iter().any(|(r, m)| {
                r.end <= range.start
                    && q.get(r.end..range.start).is_some_and(|g| matches!(g.trim(), "" | "的"))
                    && match m {
                        Mention::Value(_) => true,
                        Mention::Dimension(d) => {
                            let l = &self.model.dimensions[*d].label;
                            query.group_by.contains(l) || query.filters.iter().any(|f| &f.dimension == l)
                        }
                        Mention::Measure(_) => false,
                    }
            });
            let population = population || of_what;
            let over = query.measures.iter().any(|m| m.over.as_deref() == Some(label.as_str()))
                || query
                    .relative
                    .as_ref()
                    .is_some_and(|r| r.within.as_deref() == Some(label.as_str()))
                || query
                    .within
                    .as_ref()
                    .is_some_and(|w| w.dimension.as_deref() == Some(label.as_str()));
            if !used && (joined || !over && !population) && !self.reasons.iter().any(|r| r.contains(label.as_str())) {
                self.reasons
                    .push(format!("「{label}」：问题提到了它，但查询没有按它分组或筛选"));
            }
        }
        let averages = self
            .demands
            .iter()
            .filter(|d| matches!(d.kind, DemandKind::Aggregate { of: Aggregate::Average }));
        for avg in averages {
            let over_dimension = self.demands.iter().any(|g| {
                g.kind == (DemandKind::Group { grain: None })
                    && g.range.start >= avg.range.end
                    && self
                        .facts
                        .question
                        .get(avg.range.end..g.range.start)
                        .is_some_and(|between| between.trim().is_empty() || between == "的")
            });
            if over_dimension {
                self.reasons.push(format!("「{}」：不能求各组合计的平均值", avg.words));
            }
        }
    }
}
