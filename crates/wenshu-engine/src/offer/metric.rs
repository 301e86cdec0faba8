//! What a metric call answers, for coverage: its shape, dimensions, grain, ordering, measures and computations,
//! read from the metric query and the model's labels and synonyms.

use serde_json::{Map, Value};
use wenshu_contract::Tool;
use wenshu_contract::answers::{RankOrder, Shape};
use wenshu_contract::metric::{
    Combine, CompareKind, DayKind, DayPart, Grain, Measure, Measured, MetricExpr, MetricQuery, OrderDir, Reaggregate,
};
use wenshu_lexicon::demand::{Aggregate, Baseline};
use wenshu_lexicon::words::bands::BAND_WORDS;
use wenshu_lexicon::words::days::{KindOfDay, WEEKDAY_WORDS};

use super::Offer;
use wenshu_lexicon::identifiers;

/// The offer of a call of a metric tool; none when the tool has no `x-metrics` or the arguments are no metric
/// query of its model.
pub fn offer(tool: &Tool, arguments: &Map<String, Value>) -> Option<Offer> {
    let model = tool.extensions().metrics.as_deref()?;
    let query: MetricQuery = serde_json::from_value(Value::Object(arguments.clone())).ok()?;
    let resolved = query.resolve(model).ok()?;
    let mut offer = Offer::unknown("x-metrics");
    offer.shape = Some(if resolved.order.is_some() {
        Shape::Ranked
    } else if resolved.grain.is_some() {
        Shape::Series
    } else if !resolved.group_by.is_empty() || resolved.by_day.is_some() || resolved.bands.is_some() {
        Shape::Grouped
    } else {
        Shape::Totals
    });
    offer.dimension = resolved
        .group_by
        .iter()
        .flat_map(|d| {
            let dim = &model.dimensions[*d];
            let mut words = names(&dim.label, &dim.synonyms);
            words.extend(identifiers::forms(&dim.name));
            words
        })
        .collect();
    if let Some(grain) = resolved.grain {
        offer.dimension.extend(grain_words(grain).iter().map(|w| w.to_string()));
    }
    if resolved.order.is_some() {
        // 票房最高的喜剧片: the ranked rows are those of the filtered values.
        offer
            .dimension
            .extend(resolved.filters.iter().flat_map(|(_, values)| values.iter().cloned()));
    }
    offer.grain = resolved.grain.or_else(|| resolved.measures.iter().find_map(|m| m.per));

    // A distinct count's words: the counted dimension's (几位销售: a count of 销售).
    // A ratio or a difference names the other measure too (销售额与订单数之比).
    let words = |m: &wenshu_contract::metric::ResolvedMeasure| match m.of {
        Measured::Measure(i) => {
            let mut words = measure_names(&model.measures[i]);
            if let Some((_, other)) = m.combined {
                words.extend(measure_names(&model.measures[other]));
            }
            words
        }
        Measured::Distinct(d) => {
            let dim = &model.dimensions[d];
            let mut words = names(&dim.label, &dim.synonyms);
            words.extend(identifiers::forms(&dim.name));
            words
        }
    };
    if let Some((position, dir)) = resolved.order {
        offer.order_by = words(&resolved.measures[position]);
        offer.order = match dir {
            OrderDir::Asc => RankOrder::Asc,
            OrderDir::Desc => RankOrder::Desc,
        };
    }
    offer.measures = resolved.measures.iter().flat_map(words).collect();
    offer.counts = resolved.measures.iter().any(|m| match m.of {
        Measured::Measure(i) => {
            let spec = &model.measures[i];
            // A ratio per a count (每单销售额, 销售额与订单数之比) counts too.
            let per_count = m
                .combined
                .is_some_and(|(_, other)| is_count(&model.measures[other].expr));
            m.aggregate == Some(Reaggregate::Count) || is_count(&spec.expr) || counts_in_words(spec) || per_count
        }
        Measured::Distinct(_) => true,
    });
    for m in &resolved.measures {
        let Measured::Measure(i) = m.of else { continue };
        let own = model.measures[i].expr.single_aggregate().map(|(name, _)| name);
        let aggregate = match (m.aggregate, m.per) {
            // 人均: the measure per person is a mean.
            _ if m.over.is_some() => Some(Aggregate::Average),
            // 平均每单销量: a ratio of totals is a mean per the other's unit.
            _ if matches!(m.combined, Some((Combine::Ratio, _))) => Some(Aggregate::Average),
            (Some(Reaggregate::Avg), _) | (None, Some(_)) => Some(Aggregate::Average),
            (Some(Reaggregate::Max), _) => Some(Aggregate::Max),
            (Some(Reaggregate::Min), _) => Some(Aggregate::Min),
            (Some(Reaggregate::Count), _) => Some(Aggregate::Count),
            (None, None) if own == Some("avg") || is_avg(&model.measures[i].expr) => Some(Aggregate::Average),
            (None, None) => None,
        };
        offer.aggregates.extend(aggregate);
    }
    // The top bucket or group alone (日销售额的最大值): its value is the largest (or smallest) of them.
    if let (Some((_, dir)), Some(1)) = (resolved.order, resolved.limit) {
        offer.aggregates.push(match dir {
            OrderDir::Desc => Aggregate::Max,
            OrderDir::Asc => Aggregate::Min,
        });
    }
    if resolved.share.is_some() {
        offer.aggregates.push(Aggregate::Share);
    }
    if let Some((kind, other)) = &resolved.compare {
        offer.periods.push(match kind {
            CompareKind::PreviousPeriod => Baseline::Previous,
            CompareKind::YearOverYear => Baseline::YearAgo,
        });
        if other.is_some() {
            offer.periods.push(Baseline::Named);
        }
    }
    offer.thresholds = resolved
        .having
        .iter()
        .chain(&resolved.having_also)
        .chain(resolved.each.iter())
        .chain(&resolved.each_also)
        .map(|(_, _, v)| *v)
        .collect();
    // Bands meet the bounds said (1万以下, 5万以上) and a grouping by the banded measure's words (按金额区间).
    if let Some((m, bounds)) = &resolved.bands {
        offer.thresholds.extend(bounds.iter().copied());
        offer.dimension.extend(measure_names(&model.measures[*m]));
        offer.dimension.extend(BAND_WORDS.iter().map(|w| w.to_string()));
    }
    // A threshold on a share is a fraction; the question says it in percent (占比超过10%).
    if resolved.having_share
        && let Some((_, _, v)) = resolved.having
    {
        offer.thresholds.push(v * 100.0);
    }
    offer.limit = resolved.limit.map(|n| ("limit".to_string(), u64::from(n)));
    if let Some((position, dir)) = resolved.sort {
        let dim = &model.dimensions[resolved.group_by[position]];
        offer.sorted_by = names(&dim.label, &dim.synonyms);
        offer.sorted_by.extend(identifiers::forms(&dim.name));
        offer.sorted = match dir {
            OrderDir::Asc => RankOrder::Asc,
            OrderDir::Desc => RankOrder::Desc,
        };
    }
    offer.cumulative = resolved.cumulative;
    offer.combined = resolved.measures.iter().any(|m| m.combined.is_some());
    for m in &resolved.measures {
        if let Some((Combine::Ratio, other)) = m.combined {
            offer.ratio_per.extend(measure_names(&model.measures[other]));
        }
        if let Some(d) = m.over {
            let dim = &model.dimensions[d];
            offer.ratio_per.extend(names(&dim.label, &dim.synonyms));
            offer.ratio_per.extend(identifiers::forms(&dim.name));
        }
    }
    match resolved.by_day {
        Some(DayPart::Weekday) => offer.dimension.extend(WEEKDAY_WORDS.iter().map(|w| w.to_string())),
        Some(DayPart::Weekend) => offer.days = vec![KindOfDay::Weekend, KindOfDay::Workday],
        None => {}
    }
    match resolved.days {
        Some(DayKind::Weekend) => offer.days.push(KindOfDay::Weekend),
        Some(DayKind::Workday) => offer.days.push(KindOfDay::Workday),
        None => {}
    }
    // 哪个产品环比增长最快: the compared rows ranked by the first measure's change, the way the builder read.
    if resolved.change_rank.is_some() {
        offer.shape = Some(Shape::Ranked);
        offer.order = RankOrder::Both;
        if let Some(first) = resolved.measures.first() {
            offer.order_by = words(first);
        }
    }
    offer.relative_median = resolved.relative_median;
    offer.relative = resolved.relative.map(|(_, _, parent)| {
        parent.map_or_else(Vec::new, |d| {
            let dim = &model.dimensions[d];
            let mut words = names(&dim.label, &dim.synonyms);
            words.extend(identifiers::forms(&dim.name));
            words
        })
    });
    if let Some((groups, keep)) = resolved.within {
        offer.within = match groups {
            Some(d) => {
                let dim = &model.dimensions[d];
                let mut words = names(&dim.label, &dim.synonyms);
                words.extend(identifiers::forms(&dim.name));
                words
            }
            None => resolved
                .grain
                .map(|g| grain_words(g).iter().map(|w| w.to_string()).collect())
                .unwrap_or_default(),
        };
        offer.within_top = Some(keep);
    }
    Some(offer)
}

fn names(label: &str, synonyms: &[String]) -> Vec<String> {
    std::iter::once(label.to_string())
        .chain(synonyms.iter().cloned())
        .collect()
}

/// A measure's words: label, synonyms, code and unit (签的单最多 ranks by the measure counted in 单).
fn measure_names(measure: &Measure) -> Vec<String> {
    let mut out = names(&measure.label, &measure.synonyms);
    out.push(measure.name.clone());
    out.extend(measure.unit.clone());
    out
}

/// Whether a measure's own words say it counts (评价人数, 订单数, 单量: a word ending in 数 or 量, general Chinese).
fn counts_in_words(measure: &Measure) -> bool {
    std::iter::once(&measure.label)
        .chain(&measure.synonyms)
        .any(|w| w.ends_with('数') || w.ends_with('量'))
}

fn is_count(expr: &MetricExpr) -> bool {
    matches!(expr, MetricExpr::Call { name, .. } if name == "count")
}

fn is_avg(expr: &MetricExpr) -> bool {
    matches!(expr, MetricExpr::Call { name, .. } if name == "avg")
}

/// The words of a time bucket (天 of 每天, 月 of 每月), as general language.
fn grain_words(grain: Grain) -> &'static [&'static str] {
    match grain {
        Grain::Day => &["天", "日", "day"],
        Grain::Week => &["周", "星期", "week"],
        Grain::Month => &["月", "month"],
        Grain::Quarter => &["季度", "quarter"],
        Grain::Year => &["年", "year"],
    }
}
